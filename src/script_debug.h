/* script_debug.h - the Lua debugger (LDB) behind SCRIPT DEBUG and
 * `valkey-cli --ldb`: see script_debug.c for the protocol. eval.c starts
 * sessions; script_lua.c calls the hooks below while a debugged script
 * runs. One session at most per process. */
#ifndef VK_SCRIPT_DEBUG_H
#define VK_SCRIPT_DEBUG_H

#include "script_lua.h"

/* SCRIPT DEBUG YES|SYNC|NO for c: sets or clears c's debug mode and
 * replies OK, or replies the error. Event loop. */
void ldbScriptDebugCommand(client *c, const char *mode);

/* 1 if the EVAL c is running now should start a debugging session: c
 * asked for one with SCRIPT DEBUG and runs it itself (not inside EXEC,
 * not from an AOF or our primary). */
int ldbWantsSession(client *c);

/* Runs run(c), the plain EVAL, as a debugging session: in a forked child
 * (SCRIPT DEBUG YES: the child serves c and exits, the parent frees c) or
 * here, blocking the server (SYNC: c is closed after its reply). Either
 * way c's EVAL reply follows the session's last log lines. Event loop. */
void ldbRunEval(client *c, void (*run)(client *c));

/* 1 while a session runs in this process (script_lua.c then installs
 * ldbInstallHook() instead of its own hook). */
int ldbIsActive(void);

/* Installs the debugger's line and count hook on L for the run. */
void ldbInstallHook(lua_State *L);

/* server.call logging while stepping: the command before it runs, its
 * reply (RESP, len bytes) after, or the error server.call raised for it
 * without running it. No-ops unless a session is active and stepping. */
void ldbLogCommand(robj **argv, int argc);
void ldbLogReply(const char *proto, size_t len);
void ldbLogError(const char *msg);

/* server.debug(...) and server.breakpoint(): Lua C functions, harmless
 * outside a session (debug does nothing, breakpoint returns false). */
int ldbLuaDebug(lua_State *L);
int ldbLuaBreakpoint(lua_State *L);

#endif
