/* function_lua.c - the Lua engine behind FUNCTION LOAD and FCALL.
 *
 * Libraries run in their own VM (built by script_lua.c like the EVAL one).
 * A library's code and every callback it registers share one environment
 * table, E, whose lookups depend on the phase:
 *   - while FUNCTION LOAD runs the code, E shows only the load API, as in
 *     Valkey: server/redis with register_function, log and the constants;
 *     anything else (even `math`, `error` or server.call) is "nonexistent
 *     global variable". Bad or duplicate function names are reported once
 *     the code has run, without the "Error registering functions" prefix;
 *     the run is stopped after FUNCTION_LOAD_TIMEOUT_MS ("FUNCTION LOAD
 *     timeout");
 *   - when FCALL runs a callback, E shows the full sandboxed globals and
 *     server.call & co., and no register_function.
 * Both views are read-only. Callbacks are kept as registry references in
 * the functionInfo that functions.c owns; it calls us to load libraries,
 * release callbacks and run a function. */
#include <ctype.h>

#include "functions.h"

static functionLib *loadingLib = NULL; /* Library being loaded, or NULL. */

static int luaRaisePlain(lua_State *L, const char *msg) {
    lua_pushstring(L, msg);
    return lua_error(L);
}

/* E's __index: upvalue 1 = load view, 2 = run view (real tables). */
static int luaFunctionEnvIndex(lua_State *L) {
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(loadingLib ? 1 : 2));
    if (!lua_isnil(L, -1)) return 1;
    const char *name = lua_isstring(L, 2) ? lua_tostring(L, 2) : "?";
    return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name);
}

static int luaFunctionEnvNewindex(lua_State *L) {
    return luaL_error(L, "Attempt to modify a readonly table");
}

static int functionNameIsValid(const char *s, size_t len) {
    if (len == 0) return 0;
    for (size_t j = 0; j < len; j++)
        if (!isalnum((unsigned char)s[j]) && s[j] != '_') return 0;
    return 1;
}

/* The first bad name or duplicate of the load in progress. Valkey checks
 * names once the library code has run, and reports these without the
 * "Error registering functions" prefix, so they are kept aside here and
 * reported by functionLuaLoadLibrary() after the run. */
static sds loadingNameErr = NULL;

/* Adds a function to the library being loaded; the callback is at the top
 * of the stack and is popped. Function names are case-insensitive. */
static void luaAddFunction(lua_State *L, const char *name, size_t len, const char *desc, int flags) {
    if (loadingNameErr) {
        lua_pop(L, 1);
        return;
    }
    if (!functionNameIsValid(name, len)) {
        lua_pop(L, 1);
        loadingNameErr = sdsnew("Function names can only contain letters, numbers, or underscores(_) and must be at "
                                "least one character long");
        return;
    }
    sds key = sdsnewlen(name, len);
    if (dictFind(loadingLib->functions, key)) {
        sdsfree(key);
        lua_pop(L, 1);
        loadingNameErr = sdsnew("Function already exists in the library");
        return;
    }
    functionInfo *fi = zcalloc(sizeof(*fi));
    fi->name = sdsdup(key);
    fi->desc = desc ? sdsnew(desc) : NULL;
    fi->flags = flags;
    fi->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    fi->lib = loadingLib;
    dictAdd(loadingLib->functions, key, fi);
}

/* Reads a table of flag names at idx. Returns C_ERR on an unknown one. */
static int luaReadFlags(lua_State *L, int idx, int *flags) {
    *flags = 0;
    for (int j = 1;; j++) {
        lua_rawgeti(L, idx, j);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            return C_OK;
        }
        size_t len;
        const char *s = lua_isstring(L, -1) ? lua_tolstring(L, -1, &len) : NULL;
        int f;
        if (!s || scriptFlagFromName(s, len, &f) != C_OK) {
            lua_pop(L, 1);
            return C_ERR;
        }
        *flags |= f;
        lua_pop(L, 1);
    }
}

/* server.register_function{function_name=, callback=, flags=,
 * description=}: the table is at index 1. */
static int luaRegisterFunctionNamed(lua_State *L) {
    const char *name = NULL, *desc = NULL;
    size_t namelen = 0;
    int flags = 0, have_cb = 0;
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
        if (!strcmp(k, "function_name")) {
            if (lua_type(L, -1) != LUA_TSTRING)
                return luaRaisePlain(L, "function_name argument given to server.register_function must be a string");
            name = lua_tolstring(L, -1, &namelen);
        } else if (!strcmp(k, "callback")) {
            if (!lua_isfunction(L, -1))
                return luaRaisePlain(L, "callback argument given to server.register_function must be a function");
            have_cb = 1;
        } else if (!strcmp(k, "description")) {
            if (lua_type(L, -1) != LUA_TSTRING)
                return luaRaisePlain(L, "description argument given to server.register_function must be a string");
            desc = lua_tostring(L, -1);
        } else if (!strcmp(k, "flags")) {
            if (!lua_istable(L, -1))
                return luaRaisePlain(L, "flags argument to server.register_function must be a table representing "
                                        "function flags");
            if (luaReadFlags(L, lua_gettop(L), &flags) != C_OK) return luaRaisePlain(L, "unknown flag given");
        } else {
            return luaRaisePlain(L, "unknown argument given to server.register_function");
        }
        lua_pop(L, 1);
    }
    if (!name) return luaRaisePlain(L, "server.register_function must get a function name argument");
    if (!have_cb) return luaRaisePlain(L, "server.register_function must get a callback argument");
    /* name/desc point into strings held by the argument table: still alive. */
    lua_getfield(L, 1, "callback");
    luaAddFunction(L, name, namelen, desc, flags);
    return 0;
}

/* server.register_function(name, callback) or the named form above. The
 * errors are Valkey's, which names the API server.register_function. */
static int luaRegisterFunction(lua_State *L) {
    if (!loadingLib) return luaRaisePlain(L, "server.register_function can only be called on FUNCTION LOAD command");
    int argc = lua_gettop(L);
    if (argc == 1) {
        if (!lua_istable(L, 1))
            return luaRaisePlain(L, "calling server.register_function with a single argument is only applicable to "
                                    "Lua table (representing named arguments).");
        return luaRegisterFunctionNamed(L);
    }
    if (argc != 2) return luaRaisePlain(L, "wrong number of arguments to server.register_function");
    if (lua_type(L, 1) != LUA_TSTRING)
        return luaRaisePlain(L, "first argument to server.register_function must be a string");
    if (!lua_isfunction(L, 2)) return luaRaisePlain(L, "second argument to server.register_function must be a function");
    size_t len;
    const char *name = lua_tolstring(L, 1, &len);
    lua_pushvalue(L, 2);
    luaAddFunction(L, name, len, NULL, 0);
    return 0;
}

/* The functions VM: the EVAL sandbox plus the phase-dependent environment
 * E (registry "vk_fenv"). Caller owns it. */
lua_State *functionLuaCreateVM(void) {
    lua_State *L = scriptLuaCreateVM();
    int top = lua_gettop(L);

    /* The load API, strict: server.call at load time is an error. */
    lua_newtable(L);
    scriptLuaRegisterBaseApi(L);
    lua_pushcfunction(L, luaRegisterFunction);
    lua_setfield(L, -2, "register_function");
    scriptLuaPushStrictProxy(L, -1);
    lua_remove(L, -2);
    int loadapi = lua_gettop(L);

    /* The load view. */
    lua_newtable(L);
    int loadview = lua_gettop(L);
    lua_pushvalue(L, loadapi);
    lua_setfield(L, loadview, "server");
    lua_pushvalue(L, loadapi);
    lua_setfield(L, loadview, "redis");

    /* E, shared by the code and its callbacks. */
    lua_newtable(L);
    lua_newtable(L);
    lua_pushvalue(L, loadview);
    lua_getfield(L, LUA_REGISTRYINDEX, "vk_globals");
    lua_pushcclosure(L, luaFunctionEnvIndex, 2);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, luaFunctionEnvNewindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    /* getfenv() hands E to scripts: rawset and setmetatable must refuse
     * it (it is shared by every library), pairs shows the run view. */
    lua_getfield(L, LUA_REGISTRYINDEX, "vk_globals");
    scriptLuaRegisterProxy(L, -2, -1);
    lua_pop(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "vk_fenv");
    lua_settop(L, top);
    return L;
}

/* A library's code runs at most this long at FUNCTION LOAD (and at every
 * load from an RDB file): a loop in it would otherwise hold the server for
 * ever, since no SCRIPT/FUNCTION KILL reaches a load. As in Valkey. */
#define FUNCTION_LOAD_TIMEOUT_MS 500
#define FUNCTION_LOAD_HOOK_INSTRUCTIONS 100000

static mstime_t loadingStart;

static void luaLoadTimeoutHook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    if (mstime() - loadingStart <= FUNCTION_LOAD_TIMEOUT_MS) return;
    lua_sethook(L, luaLoadTimeoutHook, LUA_MASKLINE, 0); /* fire again at once if caught */
    luaRaisePlain(L, "FUNCTION LOAD timeout");
}

/* Compiles and runs lib->code in load mode; see functions.h. */
int functionLuaLoadLibrary(lua_State *L, functionLib *lib, sds *err) {
    sds code = sdsdup(lib->code);
    if (sdslen(code) >= 2 && code[0] == '#' && code[1] == '!') code[0] = code[1] = '-';
    int status = scriptLuaLoadBuffer(L, code, sdslen(code), "@user_function");
    sdsfree(code);
    if (status) {
        *err = sdscatprintf(sdsempty(), "Error compiling function: %s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return C_ERR;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, "vk_fenv");
    lua_setfenv(L, -2);
    loadingLib = lib;
    loadingStart = mstime();
    lua_sethook(L, luaLoadTimeoutHook, LUA_MASKCOUNT, FUNCTION_LOAD_HOOK_INSTRUCTIONS);
    status = lua_pcall(L, 0, 0, 0);
    lua_sethook(L, NULL, 0, 0);
    loadingLib = NULL;
    sds name_err = loadingNameErr;
    loadingNameErr = NULL;
    if (status == 0 && name_err) {
        *err = name_err;
        return C_ERR;
    }
    if (name_err) sdsfree(name_err);
    if (status) {
        const char *msg = NULL;
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "err");
            msg = lua_tostring(L, -1);
            *err = sdscatprintf(sdsempty(), "Error registering functions: %s", msg ? msg : "unknown error");
            lua_pop(L, 1);
        } else {
            msg = lua_tostring(L, -1);
            *err = sdscatprintf(sdsempty(), "Error registering functions: ERR %s", msg ? msg : "unknown error");
        }
        lua_pop(L, 1);
        return C_ERR;
    }
    return C_OK;
}

/* Drops the registry reference of fi's callback. */
void functionLuaReleaseFunction(lua_State *L, functionInfo *fi) {
    if (L && fi->ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, fi->ref);
    fi->ref = LUA_NOREF;
}

static void luaPushObjArray(lua_State *L, robj **objs, int n) {
    lua_createtable(L, n, 0);
    for (int j = 0; j < n; j++) {
        robj *o = getDecodedObject(objs[j]);
        lua_pushlstring(L, objectGetVal(o), sdslen(objectGetVal(o)));
        decrRefCount(o);
        lua_rawseti(L, -2, j + 1);
    }
}

void functionLuaCall(lua_State *L, scriptRunCtx *ctx, functionInfo *fi, robj **keys, int nkeys, robj **args,
                     int nargs) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, fi->ref);
    luaPushObjArray(L, keys, nkeys);
    luaPushObjArray(L, args, nargs);
    scriptLuaRun(L, ctx, 2);
}
