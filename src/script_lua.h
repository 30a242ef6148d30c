/* script_lua.h - the Lua VM glue shared by EVAL scripts (eval.c) and
 * FUNCTION libraries (functions.c, function_lua.c).
 *
 * One run of a script or function is described by a scriptRunCtx; while it
 * runs, scriptCurrentRun() returns it, so server.call, the timeout hook,
 * SCRIPT KILL and the BUSY gate in processCommand all see the same state.
 * Only one script runs at a time (scripts are atomic). */
#ifndef VK_SCRIPT_LUA_H
#define VK_SCRIPT_LUA_H

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "server.h"

/* Script flags: from a "#!lua flags=..." shebang, from register_function,
 * or implied by the command (EVAL_RO/FCALL_RO). */
#define SCRIPT_FLAG_NO_WRITES (1 << 0)        /* no-writes */
#define SCRIPT_FLAG_ALLOW_OOM (1 << 1)        /* allow-oom */
#define SCRIPT_FLAG_ALLOW_STALE (1 << 2)      /* allow-stale */
#define SCRIPT_FLAG_NO_CLUSTER (1 << 3)       /* no-cluster */
#define SCRIPT_FLAG_ALLOW_CROSS_SLOT (1 << 4) /* allow-cross-slot-keys */
#define SCRIPT_FLAG_EVAL_COMPAT (1 << 5)      /* EVAL body without a shebang */

/* Run-time state bits of a scriptRunCtx. */
#define SCRIPT_RUN_READONLY (1 << 0)  /* called with EVAL_RO / FCALL_RO */
#define SCRIPT_RUN_TIMEDOUT (1 << 1)  /* past busy-reply-threshold: BUSY to others */
#define SCRIPT_RUN_KILLED (1 << 2)    /* SCRIPT/FUNCTION KILL asked us to stop */
#define SCRIPT_RUN_WROTE (1 << 3)     /* a write command ran: unkillable */
#define SCRIPT_RUN_EVAL (1 << 4)      /* EVAL family (else FCALL) */

typedef struct scriptRunCtx {
    client *caller;       /* The client that sent EVAL/FCALL. */
    client *sclient;      /* The script client server.call runs commands on. */
    const char *funcname; /* sha1 (EVAL) or function name (FCALL), for errors. */
    int script_flags;     /* SCRIPT_FLAG_* of the script or function. */
    int run_flags;        /* SCRIPT_RUN_* */
    int resp;             /* Protocol server.call replies are parsed in (setresp). */
    mstime_t start;       /* When the run began (mstime). */
    long long start_dirty;/* server.dirty at start, to notice writes. */
    int slot;             /* Cluster mode: the slot its keys so far hash to (declared ones first), -1 none. */
} scriptRunCtx;

/* The run in progress, or NULL. */
scriptRunCtx *scriptCurrentRun(void);

/* If c's command is EVAL, EVAL_RO, EVALSHA or EVALSHA_RO of a script that
 * declares its flags (a "#!lua" shebang, cached or in argv), or FCALL or
 * FCALL_RO of an existing function, sets *flags to its SCRIPT_FLAG_* and
 * returns 1. Returns 0 otherwise (other commands, scripts without a
 * shebang, unknown or bad ones): the command's own flags then apply.
 * For checks made before the command runs (CLIENT PAUSE WRITE). */
int evalDeclaredScriptFlags(client *c, int *flags);
int fcallDeclaredScriptFlags(client *c, int *flags);

/* Parses the flag names of a shebang or register_function into
 * SCRIPT_FLAG_* bits. Returns C_OK, or C_ERR with *bad set to the unknown
 * name (pointer into the input). */
int scriptFlagFromName(const char *name, size_t len, int *flag);

/* Creates a Lua VM with the sandboxed standard libraries (base, table,
 * string, math, cjson, bit, cmsgpack, struct, os.clock) and the server/redis API table.
 * The globals are read-only: reading an unknown global or creating one is
 * an error. Returns the state; the caller owns it (lua_close). Event loop. */
lua_State *scriptLuaCreateVM(void);

/* luaL_loadbuffer() that refuses precompiled (binary) chunks with the
 * parser's error for their first byte. Returns 0 with the compiled
 * function pushed, or a LUA_ERR* code with the error message pushed. */
int scriptLuaLoadBuffer(lua_State *lua, const char *buf, size_t len, const char *chunkname);

/* Bytes the Lua heap of L holds (0 for NULL: a VM not created yet). */
size_t scriptLuaVMMemory(lua_State *L);

/* Installs server.* (and the redis.* alias) API functions that need a run
 * (call, pcall, setresp, ...) into the table at the top of the stack. */
void scriptLuaRegisterRunApi(lua_State *lua, int idx);

/* Fills the table at the top of the stack with the API usable without a
 * run: log, sha1hex, error_reply, status_reply and the constants. */
void scriptLuaRegisterBaseApi(lua_State *lua);

/* Pushes a read-only proxy of the table at real_idx; reading a key it
 * lacks raises "Script attempted to access nonexistent global variable". */
void scriptLuaPushStrictProxy(lua_State *lua, int real_idx);

/* Records the table at proxy_idx as a read-only view of the one at
 * real_idx: pairs/next see through it, rawset and setmetatable refuse it
 * with "Attempt to modify a readonly table". */
void scriptLuaRegisterProxy(lua_State *lua, int proxy_idx, int real_idx);

/* Adds the global __redis__err__handler (Valkey's EVAL error handler: it
 * turns an error into the {err=, source=, line=} table) to the VM. */
void scriptLuaAddErrorHandlerGlobal(lua_State *lua);

/* Pushes server.call itself (the debugger runs commands through it). */
void scriptLuaPushCall(lua_State *lua);

/* Runs the function on top of the stack (with nargs arguments above it)
 * under ctx: installs the timeout hook, calls it with an error handler
 * and writes the result or the error as the reply to ctx->caller. Pops the
 * function and its arguments. Event loop; may process events while busy. */
void scriptLuaRun(lua_State *lua, scriptRunCtx *ctx, int nargs);

/* The CMD_* flags a script with the given SCRIPT_FLAG_* runs under, from
 * cmd_flags (EVAL's or FCALL's own): CMD_WRITE unless no-writes, CMD_DENYOOM
 * unless no-writes or allow-oom, CMD_STALE only with allow-stale, never
 * CMD_MAY_REPLICATE (the flags say whether it writes). processCommand()
 * admits EVAL* and FCALL* by these (getCommandFlags()); a script without a
 * shebang (EVAL_COMPAT) keeps cmd_flags. */
uint64_t scriptFlagsToCommandFlags(uint64_t cmd_flags, int script_flags);

/* The checks before caller's script or function with script_flags may
 * start (readonly: EVAL_RO, EVALSHA_RO, FCALL_RO), against the state of
 * the server now: a stale replica (replica-serve-stale-data no, link
 * down) refuses a script without a shebang and one without allow-stale;
 * one without no-writes is refused by a read-only replica, by the _RO
 * commands, without enough good replicas (min-replicas-to-write) and,
 * unless allow-oom, over maxmemory. processCommand() refused most of these
 * already by getCommandFlags(); this catches what changed since a MULTI
 * queued the command. Commands from our primary or an AOF are obeyed.
 * Returns C_OK, or C_ERR with the error replied to caller. Event loop. */
int scriptRunAllowed(client *caller, int script_flags, int readonly);

/* Prepares ctx for a run by caller (creating the shared script client on
 * first use). Call scriptRunEnd() after scriptLuaRun(). */
void scriptRunStart(scriptRunCtx *ctx, client *caller, const char *funcname, int script_flags, int is_eval,
                    int readonly);
void scriptRunEnd(scriptRunCtx *ctx);

/* SCRIPT KILL / FUNCTION KILL: replies to c. is_eval tells which. */
void scriptKill(client *c, int is_eval);

/* The BUSY gate, called by processCommand() before running c->cmd: if a
 * script is past busy-reply-threshold and the command is not allowed
 * while busy, replies the BUSY error and returns 1; otherwise 0. */
int scriptIsBusyAndDenied(client *c);

/* 1 while a timed-out script is running (the server serves others). */
int scriptIsTimedout(void);

/* Pushes the RESP reply in buf (one complete reply) as a Lua value, the
 * way server.call returns it. resp is 2 or 3. Returns bytes consumed. */
size_t scriptLuaPushResp(lua_State *lua, const char *buf, size_t len, int resp);

/* Writes the Lua value at the top of the stack to c as a reply (does not
 * pop). resp is the script's setresp version (decides how booleans go). */
void scriptLuaReplyValue(client *c, lua_State *lua, int resp);

/* Hex SHA1 of buf into out[41]. */
void scriptSha1Hex(char out[41], const char *buf, size_t len);

#endif
