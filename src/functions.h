/* functions.h - FUNCTION libraries: the registry (functions.c) and the Lua
 * engine that loads and runs them (function_lua.c). */
#ifndef VK_FUNCTIONS_H
#define VK_FUNCTIONS_H

#include "script_lua.h"

typedef struct functionLib functionLib;

/* One registered function. The callback lives in the Lua registry (ref). */
typedef struct functionInfo {
    sds name;
    sds desc;          /* description, or NULL */
    int flags;         /* SCRIPT_FLAG_* */
    int ref;           /* luaL_ref of the callback in the functions VM */
    functionLib *lib;  /* owning library */
} functionInfo;

/* A library: its code and the functions it registered (name -> info). */
struct functionLib {
    sds name;
    sds code;
    dict *functions;
};

/* Creates the VM functions run in. The caller owns it. */
lua_State *functionLuaCreateVM(void);

/* Runs lib->code in the load environment, adding each register_function
 * call to lib->functions. Returns C_OK, or C_ERR with *err set (caller
 * frees) and whatever was registered left in lib for the caller to free. */
int functionLuaLoadLibrary(lua_State *L, functionLib *lib, sds *err);

/* Releases the callback of fi in L (L may be NULL after a VM reset). */
void functionLuaReleaseFunction(lua_State *L, functionInfo *fi);

/* Runs fi as FCALL by ctx->caller with the given keys and args; the reply
 * goes to ctx->caller. */
void functionLuaCall(lua_State *L, scriptRunCtx *ctx, functionInfo *fi, robj **keys, int nkeys, robj **args,
                     int nargs);

#endif
