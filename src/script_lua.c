/* script_lua.c - the Lua 5.1 VM glue shared by EVAL and FUNCTION.
 *
 * What lives here:
 *   - building a sandboxed VM: base/table/string/math, cjson, our
 *     own bit, cmsgpack and struct (lua_*.c), os with clock only, no file access, a
 *     deterministic drand48 math.random, and read-only globals (library
 *     tables are replaced by read-only proxies, since stock Lua 5.1 has no
 *     read-only tables, and so is the string metatable);
 *   - guards on what stock Lua trusts: binary chunks are refused by every
 *     loader, unpack() and string.rep() refuse absurd sizes, the pattern
 *     functions are our bounded matcher (lua_strmatch.c) that checks for a
 *     busy script or a kill as the count hook does, and cjson.encode
 *     refuses what would outgrow cjson's int lengths;
 *   - the server.* API (redis.* is the same table): call, pcall,
 *     error_reply, status_reply, sha1hex, log, setresp, set_repl, ...;
 *   - converting replies both ways: server.call() runs the command on one
 *     shared fake client flagged CLIENT_SCRIPT, whose replies networking.c
 *     accumulates but never queues for writing; we read the RESP bytes back
 *     and parse them into Lua values. A script's return value is written to
 *     the calling client with the normal addReply* functions. Each command
 *     is first checked against the caller's ACL rules (acl.c): the script
 *     client itself has no user;
 *   - the server's state, as processCommand() checks it for a client:
 *     scriptFlagsToCommandFlags() gives EVAL* and FCALL* the command flags
 *     the script declares, scriptRunAllowed() checks them again as a run
 *     starts (stale or read-only replica, min-replicas-to-write, OOM), and
 *     server.call refuses a command a stale replica may not run and the
 *     first write of a script without a shebang that a client's write
 *     would get READONLY, MISCONF or NOREPLICAS for. What our primary or
 *     an AOF being loaded sends is obeyed;
 *   - running a script: error handler that turns any error into the
 *     "<err> script: <name>, on @user_script:<line>." reply, a count hook
 *     that notices busy-reply-threshold, then keeps the event loop turning
 *     (so SCRIPT KILL / SHUTDOWN NOSAVE can arrive) and obeys a kill. In a
 *     debugging session (script_debug.c) the debugger's hook replaces it,
 *     and server.call tells the debugger what it runs and gets back.
 *
 * eval.c (script cache, EVAL*, SCRIPT) and functions.c/function_lua.c
 * (libraries, FCALL*, FUNCTION) sit on top. One run at a time: curRun. */
#include "script_lua.h"
#include "script_debug.h"
#include "propagate.h"
#include "multi.h"
#include "snapshot.h"
#include "acl.h"
#include "cluster.h"
#include "replication.h"

#include <ctype.h>
#include <limits.h>
#include <time.h>
#include <math.h>
#include <unistd.h>

#include "lua_libs.h"
#include "sha1.h"

/* lua-cjson, compiled from Debian's source package into the server's Lua
 * archive (deps/Makefile), exports this; `bit` is ours (lua_bit.c, lua_libs.h). */
int luaopen_cjson(lua_State *L);

#define LUA_HOOK_INSTRUCTIONS 100000

static scriptRunCtx *curRun = NULL;
static void scriptRunCheckpoint(lua_State *L);
static void luaTimeoutHook(lua_State *L, lua_Debug *ar);
static client *scriptClient = NULL; /* Shared by every run; created lazily. */

/* The run in progress or NULL; the ctx is owned by the EVAL/FCALL caller. */
/* See script_lua.h. */
size_t scriptLuaVMMemory(lua_State *L) {
    if (L == NULL) return 0;
    return (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
}

scriptRunCtx *scriptCurrentRun(void) {
    return curRun;
}

/* 1 while a run is past busy-reply-threshold (other clients get BUSY). */
int scriptIsTimedout(void) {
    return curRun && (curRun->run_flags & SCRIPT_RUN_TIMEDOUT);
}

/* Writes 40 lower-case hex digits of sha1(buf) into out. */
void scriptSha1Hex(char out[41], const char *buf, size_t len) {
    unsigned char digest[SHA1_DIGEST_LEN];
    sha1Buffer(digest, buf, len);
    sha1ToHex(out, digest);
}

/* Maps one flag name to its SCRIPT_FLAG_* bit: C_OK, or C_ERR if unknown. */
int scriptFlagFromName(const char *name, size_t len, int *flag) {
    static const struct {
        const char *name;
        int flag;
    } names[] = {
        {"no-writes", SCRIPT_FLAG_NO_WRITES},       {"allow-oom", SCRIPT_FLAG_ALLOW_OOM},
        {"allow-stale", SCRIPT_FLAG_ALLOW_STALE},   {"no-cluster", SCRIPT_FLAG_NO_CLUSTER},
        {"allow-cross-slot-keys", SCRIPT_FLAG_ALLOW_CROSS_SLOT},
    };
    for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
        if (strlen(names[j].name) == len && !memcmp(names[j].name, name, len)) {
            *flag = names[j].flag;
            return C_OK;
        }
    }
    return C_ERR;
}

/* ---------------------------------------------------------------------------
 * math.random: POSIX drand48 arithmetic, so math.randomseed(n) gives the
 * same sequence as other servers. Seeded randomly when the VM is built.
 * ------------------------------------------------------------------------- */

static uint64_t randState;

static void randSeed(int32_t seed) {
    randState = ((uint64_t)(uint32_t)seed << 16) | 0x330E;
}

static int32_t randNext(void) {
    randState = (0x5DEECE66DULL * randState + 0xB) & ((1ULL << 48) - 1);
    return (int32_t)(randState >> 17);
}

static int luaMathRandom(lua_State *L) {
    lua_Number r = (lua_Number)(randNext() % INT32_MAX) / (lua_Number)INT32_MAX;
    int argc = lua_gettop(L);
    if (argc == 0) {
        lua_pushnumber(L, r);
    } else if (argc == 1) {
        int hi = luaL_checkint(L, 1);
        luaL_argcheck(L, hi >= 1, 1, "interval is empty");
        lua_pushnumber(L, floor(r * hi) + 1);
    } else if (argc == 2) {
        int lo = luaL_checkint(L, 1), hi = luaL_checkint(L, 2);
        luaL_argcheck(L, lo <= hi, 2, "interval is empty");
        /* In doubles: hi - lo + 1 overflows an int for the widest ranges. */
        lua_pushnumber(L, floor(r * ((lua_Number)hi - lo + 1)) + lo);
    } else {
        return luaL_error(L, "wrong number of arguments");
    }
    return 1;
}

static int luaMathRandomseed(lua_State *L) {
    randSeed((int32_t)luaL_checkint(L, 1));
    return 0;
}

/* ---------------------------------------------------------------------------
 * Read-only tables
 *
 * A protected table is an empty proxy whose metatable sends reads to the
 * real table (kept as __index) and refuses writes. The registry table
 * "vk_proxies" maps proxy -> real table so pairs/next/rawset can see
 * through or refuse.
 * ------------------------------------------------------------------------- */

static int luaRaiseNoPosition(lua_State *L, const char *msg) {
    lua_pushstring(L, msg);
    return lua_error(L);
}

static int luaReadonlyNewindex(lua_State *L) {
    return luaL_error(L, "Attempt to modify a readonly table");
}

/* __index of the globals proxy: unknown globals are an error. */
static int luaGlobalsIndex(lua_State *L) {
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) return 1;
    const char *name = lua_isstring(L, 2) ? lua_tostring(L, 2) : "?";
    return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name);
}

/* Pushes the real table behind the proxy at idx, or nil if idx is not a
 * proxy. */
static void luaPushProxied(lua_State *L, int idx) {
    if (idx < 0) idx = lua_gettop(L) + idx + 1;
    lua_getfield(L, LUA_REGISTRYINDEX, "vk_proxies");
    lua_pushvalue(L, idx);
    lua_rawget(L, -2);
    lua_remove(L, -2);
}

static void luaMakeProxy(lua_State *L, int real_idx, lua_CFunction index_fn) {
    if (real_idx < 0) real_idx = lua_gettop(L) + real_idx + 1;
    lua_newtable(L); /* proxy */
    lua_newtable(L); /* its metatable */
    if (index_fn) {
        lua_pushvalue(L, real_idx);
        lua_pushcclosure(L, index_fn, 1);
    } else {
        lua_pushvalue(L, real_idx);
    }
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, luaReadonlyNewindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_getfield(L, LUA_REGISTRYINDEX, "vk_proxies");
    lua_pushvalue(L, -2);
    lua_pushvalue(L, real_idx);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/* Pushes a read-only proxy of the table at real_idx whose unknown keys
 * raise "Script attempted to access nonexistent global variable". */
void scriptLuaPushStrictProxy(lua_State *L, int real_idx) {
    luaMakeProxy(L, real_idx, luaGlobalsIndex);
}

static int luaSafeNext(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    luaPushProxied(L, 1);
    if (!lua_isnil(L, -1)) lua_replace(L, 1);
    else lua_pop(L, 1);
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

static int luaSafePairs(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushvalue(L, lua_upvalueindex(1)); /* next */
    luaPushProxied(L, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushvalue(L, 1);
    }
    lua_pushnil(L);
    return 3;
}

static int luaSafeRawset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaPushProxied(L, 1);
    if (!lua_isnil(L, -1)) return luaRaiseNoPosition(L, "Attempt to modify a readonly table");
    lua_pop(L, 1);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

/* setfenv(f, t) that refuses level 0, the environment of the thread:
 * every chunk compiled later (the next scripts too) would get t as its
 * globals, past the read-only ones. A function's own environment may
 * change, as in Lua. */
static int luaSafeSetfenv(lua_State *L) {
    if (lua_type(L, 1) == LUA_TNUMBER && lua_tonumber(L, 1) == 0)
        return luaL_error(L, "'setfenv' cannot change environment of given object");
    lua_pushvalue(L, lua_upvalueindex(1)); /* the original setfenv */
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* See script_lua.h. */
void scriptLuaRegisterProxy(lua_State *L, int proxy_idx, int real_idx) {
    if (proxy_idx < 0) proxy_idx = lua_gettop(L) + proxy_idx + 1;
    if (real_idx < 0) real_idx = lua_gettop(L) + real_idx + 1;
    lua_getfield(L, LUA_REGISTRYINDEX, "vk_proxies");
    lua_pushvalue(L, proxy_idx);
    lua_pushvalue(L, real_idx);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

static int luaSafeSetmetatable(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaPushProxied(L, 1);
    if (!lua_isnil(L, -1)) return luaRaiseNoPosition(L, "Attempt to modify a readonly table");
    lua_pop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1)); /* the original setmetatable */
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* ---------------------------------------------------------------------------
 * RESP -> Lua (what server.call returns)
 * ------------------------------------------------------------------------- */

typedef struct respCursor {
    const char *p, *end;
} respCursor;

/* Returns the line at the cursor (without CRLF) and advances past it. */
static const char *respReadLine(respCursor *cur, size_t *len) {
    const char *start = cur->p;
    const char *eol = memchr(start, '\r', cur->end - start);
    if (!eol) eol = cur->end;
    *len = eol - start;
    cur->p = eol + 2 <= cur->end ? eol + 2 : cur->end;
    return start;
}

static long long respLineNumber(const char *s, size_t len) {
    char buf[64];
    if (len >= sizeof(buf)) len = sizeof(buf) - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return strtoll(buf, NULL, 10);
}

static void luaSetStringField(lua_State *L, const char *field, const char *s, size_t len) {
    lua_pushlstring(L, s, len);
    lua_setfield(L, -2, field);
}

static void respPushValue(lua_State *L, respCursor *cur, int resp);

/* Pushes count values as a table: array, or map/set body. */
static void respPushAggregate(lua_State *L, respCursor *cur, int resp, long long count, char type) {
    lua_newtable(L);
    for (long long j = 0; j < count; j++) {
        if (type == '%') {
            respPushValue(L, cur, resp);
            respPushValue(L, cur, resp);
            lua_settable(L, -3);
        } else if (type == '~') {
            respPushValue(L, cur, resp);
            lua_pushboolean(L, 1);
            lua_settable(L, -3);
        } else {
            respPushValue(L, cur, resp);
            lua_rawseti(L, -2, (int)(j + 1));
        }
    }
}

static void respPushValue(lua_State *L, respCursor *cur, int resp) {
    (void)resp;
    if (cur->p >= cur->end) {
        lua_pushnil(L);
        return;
    }
    luaL_checkstack(L, 8, "reply too deep");
    char type = *cur->p++;
    size_t len;
    const char *line = respReadLine(cur, &len);
    switch (type) {
    case '+':
        lua_newtable(L);
        luaSetStringField(L, "ok", line, len);
        break;
    case '-':
        lua_newtable(L);
        luaSetStringField(L, "err", line, len);
        break;
    case ':': lua_pushnumber(L, (lua_Number)respLineNumber(line, len)); break;
    case '$':
    case '=': {
        long long blen = respLineNumber(line, len);
        if (blen < 0) {
            lua_pushboolean(L, 0);
            break;
        }
        const char *data = cur->p;
        if (blen > cur->end - data) blen = cur->end - data;
        cur->p = data + blen + 2 <= cur->end ? data + blen + 2 : cur->end;
        if (type == '$') {
            lua_pushlstring(L, data, blen);
        } else {
            /* Verbatim: "fmt:text". */
            lua_newtable(L);
            lua_newtable(L);
            size_t fl = blen >= 4 ? 3 : 0;
            luaSetStringField(L, "format", data, fl);
            luaSetStringField(L, "string", data + (fl ? 4 : 0), blen - (fl ? 4 : 0));
            lua_setfield(L, -2, "verbatim_string");
        }
        break;
    }
    case '*':
    case '>': {
        long long n = respLineNumber(line, len);
        if (n < 0) lua_pushboolean(L, 0);
        else respPushAggregate(L, cur, resp, n, '*');
        break;
    }
    case '%':
    case '~': {
        long long n = respLineNumber(line, len);
        lua_newtable(L);
        respPushAggregate(L, cur, resp, n, type);
        lua_setfield(L, -2, type == '%' ? "map" : "set");
        break;
    }
    case '_': lua_pushnil(L); break;
    case '#': lua_pushboolean(L, len && line[0] == 't'); break;
    case ',': {
        char buf[128];
        if (len >= sizeof(buf)) len = sizeof(buf) - 1;
        memcpy(buf, line, len);
        buf[len] = '\0';
        lua_newtable(L);
        lua_pushnumber(L, strtod(buf, NULL));
        lua_setfield(L, -2, "double");
        break;
    }
    case '(':
        lua_newtable(L);
        luaSetStringField(L, "big_number", line, len);
        break;
    case '|': {
        /* Attributes carry side information: drop them, keep the value. */
        long long n = respLineNumber(line, len);
        for (long long j = 0; j < n * 2; j++) {
            respPushValue(L, cur, resp);
            lua_pop(L, 1);
        }
        respPushValue(L, cur, resp);
        break;
    }
    default: lua_pushnil(L); break;
    }
}

/* Pushes one RESP reply from buf as a Lua value; returns bytes used. */
size_t scriptLuaPushResp(lua_State *L, const char *buf, size_t len, int resp) {
    respCursor cur = {buf, buf + len};
    respPushValue(L, &cur, resp);
    return cur.p - buf;
}

/* Lua numbers are doubles: converting NaN, an infinity or a value out of
 * range to an integer type is undefined in C. These give what x86 gives
 * for them (the "integer indefinite" LLONG_MIN / INT_MIN) without the
 * undefined behaviour, so replies stay as Valkey's. */
static long long luaNumberToLongLong(lua_Number n) {
    if (!(n >= -9223372036854775808.0 && n < 9223372036854775808.0)) return LLONG_MIN;
    return (long long)n;
}

static int luaNumberToInt(lua_Number n) {
    if (!(n > (lua_Number)INT_MIN - 1 && n < (lua_Number)INT_MAX + 1)) return INT_MIN;
    return (int)n;
}

/* ---------------------------------------------------------------------------
 * Lua -> reply (what a script returns)
 * ------------------------------------------------------------------------- */

/* If the table at the top has field name of Lua type `type`, pushes it and
 * returns 1; otherwise pushes nothing and returns 0. */
static int luaGetTypedField(lua_State *L, const char *name, int type) {
    lua_pushstring(L, name);
    lua_rawget(L, -2);
    if (lua_type(L, -1) == type) return 1;
    lua_pop(L, 1);
    return 0;
}

/* Replies "-<err>" with newlines flattened. The code is the script's own
 * choice, so INFO errorstats may file it under ERRORSTATS_OVERFLOW. */
static void addReplyScriptError(client *c, const char *err, size_t len) {
    sds e = sdsnewlen("-", 1);
    e = sdscatlen(e, err, len);
    addReplyErrorSdsEx(c, e, ERR_REPLY_FLAG_CUSTOM);
}

static void luaReplyTable(client *c, lua_State *L, int resp) {
    size_t len;
    if (luaGetTypedField(L, "err", LUA_TSTRING)) {
        const char *s = lua_tolstring(L, -1, &len);
        addReplyScriptError(c, s, len);
        lua_pop(L, 1);
        return;
    }
    if (luaGetTypedField(L, "ok", LUA_TSTRING)) {
        const char *s = lua_tolstring(L, -1, &len);
        sds st = sdsnewlen(s, len);
        for (size_t j = 0; j < len; j++)
            if (st[j] == '\r' || st[j] == '\n') st[j] = ' ';
        addReplyStatusLength(c, st, len);
        sdsfree(st);
        lua_pop(L, 1);
        return;
    }
    if (luaGetTypedField(L, "double", LUA_TNUMBER)) {
        addReplyDouble(c, lua_tonumber(L, -1));
        lua_pop(L, 1);
        return;
    }
    if (luaGetTypedField(L, "big_number", LUA_TSTRING)) {
        const char *s = lua_tolstring(L, -1, &len);
        sds bn = sdsnewlen(s, len);
        for (size_t j = 0; j < len; j++)
            if (bn[j] == '\r' || bn[j] == '\n') bn[j] = ' ';
        addReplyBigNum(c, bn, len);
        sdsfree(bn);
        lua_pop(L, 1);
        return;
    }
    if (luaGetTypedField(L, "map", LUA_TTABLE)) {
        long n = 0;
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            n++;
            lua_pop(L, 1);
        }
        addReplyMapLen(c, n);
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pushvalue(L, -2);
            scriptLuaReplyValue(c, L, resp); /* key */
            lua_pop(L, 1);
            scriptLuaReplyValue(c, L, resp); /* value */
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        return;
    }
    if (luaGetTypedField(L, "set", LUA_TTABLE)) {
        long n = 0;
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            n++;
            lua_pop(L, 1);
        }
        addReplySetLen(c, n);
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pop(L, 1);
            scriptLuaReplyValue(c, L, resp); /* the key is the member */
        }
        lua_pop(L, 1);
        return;
    }
    if (luaGetTypedField(L, "verbatim_string", LUA_TTABLE)) {
        if (luaGetTypedField(L, "format", LUA_TSTRING)) {
            lua_pushvalue(L, -2); /* the verbatim table again, for the next lookup */
            int found = luaGetTypedField(L, "string", LUA_TSTRING);
            lua_remove(L, found ? -2 : -1);
            if (found) {
                size_t flen, slen;
                const char *fmt = lua_tolstring(L, -2, &flen);
                const char *s = lua_tolstring(L, -1, &slen);
                char ext[4] = "txt";
                if (flen == 3) memcpy(ext, fmt, 3);
                addReplyVerbatim(c, s, slen, ext);
                lua_pop(L, 3);
                return;
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    /* A plain array: elements 1..n up to the first nil. */
    long n = 0;
    while (1) {
        lua_rawgeti(L, -1, (int)(n + 1));
        int isnil = lua_isnil(L, -1);
        lua_pop(L, 1);
        if (isnil) break;
        n++;
    }
    addReplyArrayLen(c, n);
    for (long j = 1; j <= n; j++) {
        lua_rawgeti(L, -1, (int)j);
        scriptLuaReplyValue(c, L, resp);
        lua_pop(L, 1);
    }
}

/* Writes the Lua value at the top of the stack to c (not popped). Recursive
 * for tables; event loop. */
void scriptLuaReplyValue(client *c, lua_State *L, int resp) {
    if (!lua_checkstack(L, 8)) {
        addReplyError(c, "reached lua stack limit");
        return;
    }
    switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        addReplyBulkCBuffer(c, s, len);
        break;
    }
    case LUA_TBOOLEAN:
        if (resp == 2) {
            if (lua_toboolean(L, -1)) addReply(c, shared.cone);
            else addReplyNull(c);
        } else {
            addReplyBool(c, lua_toboolean(L, -1));
        }
        break;
    case LUA_TNUMBER: addReplyLongLong(c, luaNumberToLongLong(lua_tonumber(L, -1))); break;
    case LUA_TTABLE: luaReplyTable(c, L, resp); break;
    default: addReplyNull(c); break;
    }
}

/* ---------------------------------------------------------------------------
 * server.call / server.pcall
 * ------------------------------------------------------------------------- */

/* Pushes {err=msg}. */
static void luaPushErrorTable(lua_State *L, const char *msg, size_t len) {
    lua_newtable(L);
    luaSetStringField(L, "err", msg, len);
}

/* Raises (call) or returns (pcall) the error msg (with its code). */
static int luaCallError(lua_State *L, int raise, const char *msg) {
    luaPushErrorTable(L, msg, strlen(msg));
    if (raise) return lua_error(L);
    return 1;
}

/* Formats a Lua number argument as the shortest text that reads back the
 * same (3.14 -> "3.14", 10 -> "10"). */
static size_t luaNumberToArg(lua_Number n, char *buf, size_t size) {
    if (fabs(n) < 1e17 && n == (lua_Number)(long long)n) return snprintf(buf, size, "%lld", (long long)n);
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, n);
        if (strtod(buf, NULL) == n) break;
    }
    return strlen(buf);
}

/* Takes the script client's accumulated reply as one sds and empties it. */
static sds scriptClientTakeReply(client *c) {
    sds out = sdsnewlen(c->buf, c->bufpos);
    c->bufpos = 0;
    while (listLength(c->reply)) {
        listNode *ln = listFirst(c->reply);
        clientReplyBlock *b = listNodeValue(ln);
        if (b) out = sdscatlen(out, b->buf, b->used);
        listDelNode(c->reply, ln);
    }
    c->reply_bytes = 0;
    return out;
}

/* The caller's ACL rules apply to every command a script runs. Returns 1
 * and sets *err (a new sds, "ERR ACL failure in script: ...") when the
 * caller's user may not run cmd with argv; the denial is logged. */
static int luaAclDenied(client *caller, struct serverCommand *cmd, robj **argv, int argc, sds *err) {
    int errpos = 0;
    int r = aclCheckCommand(aclClientUser(caller), cmd, argv, argc, &errpos);
    if (r == ACL_OK) return 0;
    aclLogDenial(caller, r, ACL_LOG_CTX_LUA, cmd, argv, errpos, NULL);
    sds msg = aclDenialMessage(r, aclClientUser(caller), cmd, argv, errpos, 0);
    *err = sdscatfmt(sdsempty(), "ERR ACL failure in script: %S", msg);
    sdsfree(msg);
    return 1;
}

/* 1 if what caller runs must run whatever our state: commands from our
 * primary, and those of an AOF being loaded (its client has no
 * connection). A replica's state is its primary's business, and an AOF
 * holds what was accepted already. */
static int scriptCallerIsObeyed(client *caller) {
    return caller && ((caller->flags & CLIENT_PRIMARY) || (server.loading && caller->conn == NULL));
}

/* Returns 1 and sets *err (a constant) when the script of run may not make
 * a write now. A script that wrote already goes on: failing it half-way
 * would leave half its work done. Before its first write, what refuses a
 * write command from a client refuses it here too (a script without a
 * shebang declared nothing, so processCommand() let it start): a
 * read-only replica, a failed background save, too few good replicas. */
static int luaWriteDenied(scriptRunCtx *run, const char **err) {
    if (run->run_flags & SCRIPT_RUN_WROTE) return 0;
    int obeyed = scriptCallerIsObeyed(run->caller);
    if (server.primary_host && server.repl_replica_ro && !obeyed)
        *err = "READONLY You can't write against a read only replica.";
    else if (writeCommandsDeniedByDiskError())
        *err = SNAPSHOT_MISCONF_ERR; /* snapshot.c */
    else if (replicationDeniesWrites() && !obeyed)
        *err = "NOREPLICAS Not enough good replicas to write.";
    else
        return 0;
    return 1;
}

static int luaServerCallGeneric(lua_State *L, int raise) {
    scriptRunCtx *run = curRun;
    int argc = lua_gettop(L);
    if (run == NULL) return luaCallError(L, raise, "ERR server.call can only be called inside a script invocation");
    if (argc == 0)
        return luaCallError(L, raise, "ERR Please specify at least one argument for this call");

    /* Arguments: strings, or numbers in their shortest text form. */
    robj **argv = zmalloc(sizeof(robj *) * argc);
    for (int j = 0; j < argc; j++) {
        int t = lua_type(L, j + 1);
        if (t == LUA_TNUMBER) {
            char nbuf[64];
            size_t nlen = luaNumberToArg(lua_tonumber(L, j + 1), nbuf, sizeof(nbuf));
            argv[j] = createStringObject(nbuf, nlen);
        } else if (t == LUA_TSTRING) {
            size_t len;
            const char *s = lua_tolstring(L, j + 1, &len);
            argv[j] = createStringObject(s, len);
        } else {
            for (int k = 0; k < j; k++) decrRefCount(argv[k]);
            zfree(argv);
            ldbLogError("ERR Command arguments must be strings or integers");
            return luaCallError(L, raise, "ERR Command arguments must be strings or integers");
        }
    }
    ldbLogCommand(argv, argc); /* a debugging session shows what runs */

    const char *err = NULL;
    sds aclerr = NULL;
    struct serverCommand *cmd = lookupCommand(argv, argc);
    if (!cmd) err = "ERR Unknown command called from script";
    else if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity)
        err = "ERR Wrong number of args calling command from script";
    else if ((cmd->flags & CMD_NOSCRIPT) && !server.script_disable_deny_script) /* DEBUG SET-DISABLE-DENY-SCRIPTS */
        err = "ERR This Redis command is not allowed from script";
    else if (serverIsStaleReplica() && !(cmd->flags & CMD_STALE) && !scriptCallerIsObeyed(run->caller))
        err = "ERR Can not execute the command on a stale replica"; /* an allow-stale script */
    else if (run->caller && luaAclDenied(run->caller, cmd, argv, argc, &aclerr))
        err = aclerr;
    else if ((cmd->flags & CMD_WRITE) &&
             ((run->run_flags & SCRIPT_RUN_READONLY) || (run->script_flags & SCRIPT_FLAG_NO_WRITES)))
        err = "ERR Write commands are not allowed from read-only scripts.";
    else if ((cmd->flags & CMD_WRITE) && luaWriteDenied(run, &err))
        ; /* err is set */
    else if (server.cluster_enabled && run->caller && !scriptCallerIsObeyed(run->caller) &&
             (err = clusterScriptCommandDenied(run->caller, cmd, argv, argc,
                                               run->script_flags & SCRIPT_FLAG_ALLOW_CROSS_SLOT, &run->slot)))
        ; /* err is set */
    else if ((cmd->flags & CMD_DENYOOM) && server.maxmemory && (run->script_flags & SCRIPT_FLAG_EVAL_COMPAT) &&
             !(run->run_flags & SCRIPT_RUN_WROTE) && performEvictions() == EVICT_FAIL)
        err = "OOM command not allowed when used memory > 'maxmemory'.";
    if (err) {
        for (int k = 0; k < argc; k++) decrRefCount(argv[k]);
        zfree(argv);
        ldbLogError(err);
        luaPushErrorTable(L, err, strlen(err)); /* copies err: free aclerr before a raise jumps away */
        sdsfree(aclerr);
        return raise ? lua_error(L) : 1;
    }

    client *sc = run->sclient;
    sc->argv = argv;
    sc->argc = sc->argv_len = argc;
    sc->cmd = sc->lastcmd = sc->realcmd = cmd;
    if (cmd->flags & CMD_WRITE) run->run_flags |= SCRIPT_RUN_WROTE;
    call(sc, CALL_FULL); /* SLOWLOG and LATENCY see it too, as in Valkey 8 */
    sds reply = scriptClientTakeReply(sc);
    ldbLogReply(reply, sdslen(reply));
    for (int k = 0; k < sc->argc; k++) decrRefCount(sc->argv[k]);
    zfree(sc->argv);
    sc->argv = NULL;
    sc->argc = sc->argv_len = 0;
    sc->cmd = NULL;

    if (raise && sdslen(reply) && reply[0] == '-') {
        size_t elen = sdslen(reply) - 1;
        if (elen >= 2 && reply[elen - 1] == '\r') elen -= 2;
        luaPushErrorTable(L, reply + 1, elen);
        /* The command's error reply was counted in the stats already: the
         * script's reply with it must not count it again. */
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "ignore_err_stats_update");
        sdsfree(reply);
        return lua_error(L);
    }
    scriptLuaPushResp(L, reply, sdslen(reply), run->resp);
    sdsfree(reply);
    return 1;
}

static int luaServerCall(lua_State *L) {
    return luaServerCallGeneric(L, 1);
}

static int luaServerPcall(lua_State *L) {
    return luaServerCallGeneric(L, 0);
}

/* See script_lua.h. */
void scriptLuaPushCall(lua_State *L) {
    lua_pushcfunction(L, luaServerCall);
}

/* pcall that hands back an error table's text, like the reference server:
 * pcall(f) where f raised {err="ERR x"} returns false, "ERR x". */
static int luaPcallWrapper(lua_State *L) {
    luaL_checkany(L, 1);
    int argc = lua_gettop(L);
    int status = lua_pcall(L, argc - 1, LUA_MULTRET, 0);
    if (status == 0) {
        lua_pushboolean(L, 1);
        lua_insert(L, 1);
        return lua_gettop(L);
    }
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "err");
        if (lua_isstring(L, -1)) lua_replace(L, -2);
        else lua_pop(L, 1);
    }
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
}

/* ---------------------------------------------------------------------------
 * The rest of the server.* API
 * ------------------------------------------------------------------------- */

static int luaErrorReply(lua_State *L) {
    if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING)
        return luaRaiseNoPosition(L, "wrong number or type of arguments");
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    if (len && s[0] == '-') s++, len--;
    /* "CODE message" keeps its code; a single word gets the generic ERR. */
    sds e = memchr(s, ' ', len) ? sdsnewlen(s, len) : sdscatlen(sdsnew("ERR "), s, len);
    luaPushErrorTable(L, e, sdslen(e));
    sdsfree(e);
    return 1;
}

static int luaStatusReply(lua_State *L) {
    if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING)
        return luaRaiseNoPosition(L, "wrong number or type of arguments");
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    lua_newtable(L);
    luaSetStringField(L, "ok", s, len);
    return 1;
}

static int luaSha1hex(lua_State *L) {
    if (lua_gettop(L) != 1) return luaRaiseNoPosition(L, "wrong number of arguments");
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    if (!s) return luaRaiseNoPosition(L, "wrong number of arguments");
    char hex[41];
    scriptSha1Hex(hex, s, len);
    lua_pushstring(L, hex);
    return 1;
}

static int luaLog(lua_State *L) {
    int argc = lua_gettop(L);
    if (argc < 2) return luaRaiseNoPosition(L, "redis.log() requires two arguments or more.");
    if (!lua_isnumber(L, 1)) return luaRaiseNoPosition(L, "First argument must be a number (log level).");
    int level = luaNumberToInt(lua_tonumber(L, 1));
    if (level < LL_DEBUG || level > LL_WARNING) return luaRaiseNoPosition(L, "Invalid debug level.");
    if (level < serverLogConfig.verbosity) return 0;
    sds msg = sdsempty();
    for (int j = 2; j <= argc; j++) {
        size_t len;
        const char *s = lua_tolstring(L, j, &len);
        if (!s) continue;
        if (j != 2) msg = sdscatlen(msg, " ", 1);
        msg = sdscatlen(msg, s, len);
    }
    serverLog(level, "%s", msg);
    sdsfree(msg);
    return 0;
}

static int luaSetresp(lua_State *L) {
    if (lua_gettop(L) != 1) return luaRaiseNoPosition(L, "redis.setresp() requires one argument.");
    int resp = luaNumberToInt(lua_tonumber(L, 1));
    if (resp != 2 && resp != 3) return luaRaiseNoPosition(L, "RESP version must be 2 or 3.");
    if (curRun) {
        curRun->resp = resp;
        curRun->sclient->resp = resp;
    }
    return 0;
}

static int luaSetRepl(lua_State *L) {
    if (lua_gettop(L) != 1) return luaRaiseNoPosition(L, "redis.set_repl() requires one argument.");
    int flags = luaNumberToInt(lua_tonumber(L, 1));
    if (flags < 0 || flags > 3)
        return luaRaiseNoPosition(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
    propagateSetScriptTargets(flags); /* REPL_AOF and REPL_REPLICA are PROPAGATE_AOF and PROPAGATE_REPL */
    return 0;
}

static int luaReplicateCommands(lua_State *L) {
    lua_pushboolean(L, 1);
    return 1;
}

/* server.acl_check_cmd(cmd, arg, ...): whether the caller's user may run
 * the command with these arguments, as server.call would check it. The
 * arguments are converted as server.call converts them, with its errors;
 * an unknown command is an error. */
static int luaAclCheckCmd(lua_State *L) {
    scriptRunCtx *run = curRun;
    if (run == NULL) return luaCallError(L, 1, "ERR server.acl_check_cmd can only be called inside a script invocation");
    int argc = lua_gettop(L);
    if (argc == 0) return luaCallError(L, 1, "ERR Please specify at least one argument for this call");
    for (int j = 1; j <= argc; j++) {
        int t = lua_type(L, j);
        if (t != LUA_TNUMBER && t != LUA_TSTRING)
            return luaCallError(L, 1, "ERR Command arguments must be strings or integers");
    }
    robj **argv = zmalloc(sizeof(robj *) * argc);
    for (int j = 0; j < argc; j++) {
        if (lua_type(L, j + 1) == LUA_TNUMBER) {
            char nbuf[64];
            size_t nlen = luaNumberToArg(lua_tonumber(L, j + 1), nbuf, sizeof(nbuf));
            argv[j] = createStringObject(nbuf, nlen);
        } else {
            size_t len;
            const char *s = lua_tolstring(L, j + 1, &len);
            argv[j] = createStringObject(s, len);
        }
    }
    struct serverCommand *cmd = lookupCommand(argv, argc);
    int allowed = 0, errpos = 0;
    if (cmd) {
        user *u = run->caller ? aclClientUser(run->caller) : NULL;
        allowed = (cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity
                      ? aclCheckCommand(u, cmd, argv, 1, &errpos) == ACL_OK /* keys unknown: the command alone */
                      : aclCheckCommand(u, cmd, argv, argc, &errpos) == ACL_OK;
    }
    for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
    zfree(argv);
    if (!cmd) return luaCallError(L, 1, "ERR Invalid command passed to server.acl_check_cmd()");
    lua_pushboolean(L, allowed);
    return 1;
}

static void luaSetIntField(lua_State *L, const char *name, lua_Number v) {
    lua_pushnumber(L, v);
    lua_setfield(L, -2, name);
}

/* Adds call/pcall/setresp/... to the table at idx. */
void scriptLuaRegisterRunApi(lua_State *L, int idx) {
    static const luaL_Reg api[] = {
        {"call", luaServerCall},
        {"pcall", luaServerPcall},
        {"setresp", luaSetresp},
        {"set_repl", luaSetRepl},
        {"replicate_commands", luaReplicateCommands},
        {"breakpoint", ldbLuaBreakpoint},
        {"debug", ldbLuaDebug},
        {"acl_check_cmd", luaAclCheckCmd},
        {NULL, NULL},
    };
    if (idx < 0) idx = lua_gettop(L) + idx + 1;
    for (const luaL_Reg *r = api; r->name; r++) {
        lua_pushcfunction(L, r->func);
        lua_setfield(L, idx, r->name);
    }
}

/* Fills the table at the top with the API that needs no run (log,
 * sha1hex, error_reply, status_reply, constants). */
void scriptLuaRegisterBaseApi(lua_State *L) {
    static const luaL_Reg api[] = {
        {"error_reply", luaErrorReply},
        {"status_reply", luaStatusReply},
        {"sha1hex", luaSha1hex},
        {"log", luaLog},
        {NULL, NULL},
    };
    for (const luaL_Reg *r = api; r->name; r++) {
        lua_pushcfunction(L, r->func);
        lua_setfield(L, -2, r->name);
    }
    luaSetIntField(L, "LOG_DEBUG", LL_DEBUG);
    luaSetIntField(L, "LOG_VERBOSE", LL_VERBOSE);
    luaSetIntField(L, "LOG_NOTICE", LL_NOTICE);
    luaSetIntField(L, "LOG_WARNING", LL_WARNING);
    luaSetIntField(L, "REPL_NONE", 0);
    luaSetIntField(L, "REPL_AOF", 1);
    luaSetIntField(L, "REPL_SLAVE", 2);
    luaSetIntField(L, "REPL_REPLICA", 2);
    luaSetIntField(L, "REPL_ALL", 3);
    lua_pushstring(L, REDIS_COMPAT_VERSION);
    lua_setfield(L, -2, "REDIS_VERSION");
    int maj = 0, min = 0, pat = 0;
    sscanf(REDIS_COMPAT_VERSION, "%d.%d.%d", &maj, &min, &pat);
    luaSetIntField(L, "REDIS_VERSION_NUM", (maj << 16) | (min << 8) | pat);
    lua_pushstring(L, VALKEY_VERSION);
    lua_setfield(L, -2, "SERVER_VERSION");
    luaSetIntField(L, "SERVER_VERSION_NUM", VALKEY_VERSION_NUM);
    lua_pushstring(L, "valkey");
    lua_setfield(L, -2, "SERVER_NAME");
}

/* ---------------------------------------------------------------------------
 * Guards on the standard library
 *
 * Stock Lua 5.1 trusts its caller in places a script must not be trusted:
 * binary chunks are loaded unchecked (a hand-made one reads and writes
 * anywhere), unpack() sizes its stack with an int that overflows, and
 * string.rep() builds whatever it is asked to. The functions below replace
 * those entry points; the string metatable is protected in
 * luaProtectStringMetatable().
 * ------------------------------------------------------------------------- */

/* Compiles buf like luaL_loadbuffer(), except that a precompiled chunk
 * (one starting with the "\033Lua" signature) is refused with the syntax
 * error the text parser gives for it: "<chunk>:1: unexpected symbol near
 * 'char(27)'". Returns 0 with the function pushed, or a LUA_ERR* code with the
 * message pushed. */
int scriptLuaLoadBuffer(lua_State *L, const char *buf, size_t len, const char *name) {
    if (len > 0 && buf[0] == LUA_SIGNATURE[0]) {
        /* The parser reports the escape byte itself; a leading blank keeps
         * it off the signature check and on line 1. */
        return luaL_loadbuffer(L, " \033", 2, name);
    }
    return luaL_loadbuffer(L, buf, len, name);
}

/* loadstring(s [, chunkname]) with binary chunks refused. */
static int luaSafeLoadstring(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, s);
    if (scriptLuaLoadBuffer(L, s, len, name) == 0) return 1;
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
}

/* load(func [, chunkname]): reads every piece func returns, then compiles
 * the whole like loadstring (so a binary chunk is refused here too). */
static int luaSafeLoad(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    const char *name = luaL_optstring(L, 2, "=(load)");
    lua_settop(L, 2);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    while (1) {
        lua_pushvalue(L, 1);
        lua_call(L, 0, 1);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
        }
        if (!lua_isstring(L, -1)) return luaL_error(L, "reader function must return a string");
        size_t plen;
        lua_tolstring(L, -1, &plen);
        if (plen == 0) {
            lua_pop(L, 1);
            break;
        }
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    size_t len;
    const char *code = lua_tolstring(L, -1, &len);
    if (scriptLuaLoadBuffer(L, code, len, name) == 0) return 1;
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
}

/* unpack(t [, i [, j]]): the element count is computed without overflow
 * and refused when the stack cannot hold it, instead of wrapping around. */
static int luaSafeUnpack(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    long long i = luaL_optint(L, 2, 1);
    long long e = lua_isnoneornil(L, 3) ? (long long)luaL_getn(L, 1) : (long long)luaL_checkint(L, 3);
    if (i > e) return 0;
    long long n = e - i + 1;
    if (n >= INT_MAX || !lua_checkstack(L, (int)n)) return luaL_error(L, "too many results to unpack");
    for (long long j = i; j <= e; j++) lua_rawgeti(L, 1, (int)j);
    return (int)n;
}

/* string.rep(s, n): refuses results longer than proto-max-bulk-len (no
 * reply could carry them) before allocating anything. */
static int luaSafeStringRep(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    lua_Number n = luaL_checknumber(L, 2);
    if (!(n >= 1) || len == 0) { /* NaN too */
        lua_pushliteral(L, "");
        return 1;
    }
    if (n * (lua_Number)len > (lua_Number)server.proto_max_bulk_len)
        return luaL_error(L, "resulting string too large");
    long long count = (long long)n;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (long long j = 0; j < count; j++) luaL_addlstring(&b, s, len);
    luaL_pushresult(&b);
    return 1;
}

/* Debian's cjson keeps its output length in an int and aborts the whole
 * process ("BUG: Invalid strbuf length requested") or loops once it passes
 * 2^30 bytes, which a few shared 100 MB strings in a table reach. Before
 * encoding, cjson.encode works out a bound of the output's length (every
 * string as if its special bytes took a 6-byte escape, each table once per
 * reference) and refuses values past it. */
#define LUA_JSON_MAX_OUTPUT ((lua_Number)(1 << 30) - 1024)
#define LUA_JSON_MAX_DEPTH 1000 /* cjson's default encode_max_depth */

static lua_Number luaJsonCost(lua_State *L, int idx, int memo, int depth) {
    switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
        size_t len;
        const unsigned char *p = (const unsigned char *)lua_tolstring(L, idx, &len);
        lua_Number cost = (lua_Number)len + 2;
        for (size_t j = 0; j < len; j++)
            if (p[j] < 0x20 || p[j] == 0x7f || p[j] == '"' || p[j] == '\\' || p[j] == '/') cost += 5;
        return cost;
    }
    case LUA_TTABLE: break;
    default: return 32; /* numbers, booleans, null (others cjson refuses) */
    }
    if (depth > LUA_JSON_MAX_DEPTH)
        luaL_error(L, "Cannot serialise, excessive nesting (%d)", LUA_JSON_MAX_DEPTH + 1);
    luaL_checkstack(L, 6, "Cannot serialise, excessive nesting");
    lua_pushvalue(L, idx);
    lua_rawget(L, memo);
    if (lua_isnumber(L, -1)) {
        lua_Number known = lua_tonumber(L, -1);
        lua_pop(L, 1);
        /* -1: still being walked, so the table contains itself. */
        if (known < 0) luaL_error(L, "Cannot serialise, excessive nesting (%d)", LUA_JSON_MAX_DEPTH + 1);
        return known;
    }
    lua_pop(L, 1);
    lua_pushvalue(L, idx);
    lua_pushnumber(L, -1);
    lua_rawset(L, memo);
    lua_Number cost = 2;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int top = lua_gettop(L);
        cost += luaJsonCost(L, top - 1, memo, depth + 1) + luaJsonCost(L, top, memo, depth + 1) + 2;
        lua_pop(L, 1);
        if (cost > LUA_JSON_MAX_OUTPUT) break; /* no need to look further */
    }
    lua_pushvalue(L, idx);
    lua_pushnumber(L, cost);
    lua_rawset(L, memo);
    return cost;
}

/* cjson.encode(v): the original (upvalue 1) once v is known to fit. */
static int luaSafeJsonEncode(lua_State *L) {
    luaL_argcheck(L, lua_gettop(L) == 1, 1, "expected 1 argument");
    lua_newtable(L); /* memo: table -> cost */
    lua_Number cost = luaJsonCost(L, 1, 2, 1);
    lua_settop(L, 1);
    if (cost > LUA_JSON_MAX_OUTPUT) return luaL_error(L, "Cannot serialise: the JSON text would be too large");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* os.clock(): CPU seconds used by the server, the only os function. */
static int luaOsClock(lua_State *L) {
    lua_pushnumber(L, (lua_Number)clock() / (lua_Number)CLOCKS_PER_SEC);
    return 1;
}

/* Swaps the unsafe base/string functions for the guarded ones and adds
 * the `os` table (clock only). Before the globals are protected. */
static void luaInstallGuards(lua_State *L) {
    lua_pushcfunction(L, luaSafeLoadstring);
    lua_setglobal(L, "loadstring");
    lua_pushcfunction(L, luaSafeLoad);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, luaSafeUnpack);
    lua_setglobal(L, "unpack");
    lua_getglobal(L, "string");
    lua_pushcfunction(L, luaSafeStringRep);
    lua_setfield(L, -2, "rep");
    lua_pop(L, 1);
    luaopenStrmatch(L, scriptRunCheckpoint);
    lua_getglobal(L, "cjson");
    lua_getfield(L, -1, "encode");
    lua_pushcclosure(L, luaSafeJsonEncode, 1);
    lua_setfield(L, -2, "encode");
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushcfunction(L, luaOsClock);
    lua_setfield(L, -2, "clock");
    lua_setglobal(L, "os");
}

/* getmetatable(v): strings get a read-only view of their metatable, so a
 * script cannot replace string methods for every later script. */
static int luaSafeGetmetatable(lua_State *L) {
    luaL_checkany(L, 1);
    if (lua_type(L, 1) == LUA_TSTRING) {
        lua_pushvalue(L, lua_upvalueindex(1));
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(2)); /* the original getmetatable */
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    return 1;
}

/* Points the string metatable's __index at the read-only `string` proxy
 * and hands scripts only a read-only proxy of the metatable itself. After
 * the library tables are protected. */
static void luaProtectStringMetatable(lua_State *L) {
    lua_pushliteral(L, "");
    if (!lua_getmetatable(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    lua_getglobal(L, "string"); /* the proxy by now */
    lua_setfield(L, -2, "__index");
    luaMakeProxy(L, -1, NULL);
    lua_getglobal(L, "getmetatable");
    lua_pushcclosure(L, luaSafeGetmetatable, 2);
    lua_setglobal(L, "getmetatable");
    lua_pop(L, 2);
}

/* ---------------------------------------------------------------------------
 * Building the VM
 * ------------------------------------------------------------------------- */

static void luaOpenLib(lua_State *L, const char *name, lua_CFunction fn) {
    lua_pushcfunction(L, fn);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
}

/* Replaces global `name` (a table) with a read-only proxy of itself. */
static void luaProtectGlobalTable(lua_State *L, const char *name) {
    lua_getglobal(L, name);
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    luaMakeProxy(L, -1, NULL);
    lua_setglobal(L, name);
    lua_pop(L, 1);
}

/* Builds a sandboxed VM (see the file comment). Caller owns it (lua_close). */
lua_State *scriptLuaCreateVM(void) {
    lua_State *L = lua_open();
    luaOpenLib(L, "", luaopen_base);
    luaOpenLib(L, LUA_TABLIBNAME, luaopen_table);
    luaOpenLib(L, LUA_STRLIBNAME, luaopen_string);
    luaOpenLib(L, LUA_MATHLIBNAME, luaopen_math);
    lua_pushcfunction(L, luaopen_cjson);
    lua_call(L, 0, 1);
    lua_setglobal(L, "cjson");
    lua_pushcfunction(L, luaopenBit);
    lua_call(L, 0, 0); /* registers the global "bit" itself */
    lua_pushcfunction(L, luaopenCmsgpack);
    lua_call(L, 0, 0); /* "cmsgpack" */
    lua_pushcfunction(L, luaopenStruct);
    lua_call(L, 0, 0); /* "struct" */
    luaInstallGuards(L);

    /* No file access, no module system. getfenv, setfenv (guarded below)
     * and newproxy stay, as in Valkey 8. */
    static const char *removed[] = {"loadfile", "dofile", "print", "module", "require", "package", NULL};
    for (int j = 0; removed[j]; j++) {
        lua_pushnil(L);
        lua_setglobal(L, removed[j]);
    }
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "vk_proxies");

    lua_getglobal(L, "math");
    lua_pushcfunction(L, luaMathRandom);
    lua_setfield(L, -2, "random");
    lua_pushcfunction(L, luaMathRandomseed);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 1);
    randSeed((int32_t)(ustime() ^ getpid()));

    /* The server table; redis is the same table under its old name. */
    lua_newtable(L);
    scriptLuaRegisterBaseApi(L);
    scriptLuaRegisterRunApi(L, -1);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "server");
    lua_setglobal(L, "redis");

    /* Base functions that must see through or refuse proxies. */
    lua_pushcfunction(L, luaSafeNext);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "next");
    lua_pushcclosure(L, luaSafePairs, 1);
    lua_setglobal(L, "pairs");
    lua_pushcfunction(L, luaSafeRawset);
    lua_setglobal(L, "rawset");
    lua_getglobal(L, "setmetatable");
    lua_pushcclosure(L, luaSafeSetmetatable, 1);
    lua_setglobal(L, "setmetatable");
    lua_pushcfunction(L, luaPcallWrapper);
    lua_setglobal(L, "pcall");
    lua_getglobal(L, "setfenv");
    lua_pushcclosure(L, luaSafeSetfenv, 1);
    lua_setglobal(L, "setfenv");

    static const char *libs[] = {"string", "table", "math", "cjson", "bit", "cmsgpack", "struct", "coroutine", "os",
                                 NULL};
    for (int j = 0; libs[j]; j++) luaProtectGlobalTable(L, libs[j]);
    luaProtectStringMetatable(L);
    /* redis and server must stay the same proxy. */
    lua_getglobal(L, "server");
    luaMakeProxy(L, -1, NULL);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "server");
    lua_setglobal(L, "redis");
    lua_pop(L, 1);

    /* Finally the globals themselves: a proxy that refuses unknown names. */
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    luaMakeProxy(L, -1, luaGlobalsIndex);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "_G"); /* real._G = proxy */
    lua_pushvalue(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, "vk_globals"); /* real table, for KEYS/ARGV */
    lua_replace(L, LUA_GLOBALSINDEX);
    lua_pop(L, 1);
    return L;
}

/* ---------------------------------------------------------------------------
 * Running a script
 * ------------------------------------------------------------------------- */

/* Message handler of lua_pcall: turns any error value into the table
 * {err=, source=, line=} with the position of the innermost user code. */
static int luaErrorHandler(lua_State *L) {
    lua_Debug ar;
    const char *source = NULL;
    int line = 0;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        lua_getinfo(L, "Sl", &ar);
        if (ar.currentline > 0 && !strncmp(ar.source, "@user_", 6)) {
            source = ar.source;
            line = ar.currentline;
            break;
        }
    }
    if (lua_istable(L, 1)) {
        lua_getfield(L, 1, "err");
        int has_err = lua_isstring(L, -1);
        lua_pop(L, 1);
        if (!has_err) {
            lua_newtable(L);
            luaSetStringField(L, "err", "ERR unknown error", 17);
            lua_replace(L, 1);
        }
    } else {
        const char *msg;
        if (lua_isstring(L, 1)) msg = lua_tostring(L, 1);
        else if (lua_isnil(L, 1)) msg = "nil";
        else if (lua_isboolean(L, 1)) msg = lua_toboolean(L, 1) ? "true" : "false";
        else msg = "unknown error";
        sds e = sdscatprintf(sdsempty(), "ERR %s", msg);
        lua_newtable(L);
        luaSetStringField(L, "err", e, sdslen(e));
        sdsfree(e);
        lua_replace(L, 1);
    }
    lua_getfield(L, 1, "source");
    int has_source = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!has_source && source) {
        lua_pushstring(L, source);
        lua_setfield(L, 1, "source");
        lua_pushnumber(L, line);
        lua_setfield(L, 1, "line");
    }
    lua_settop(L, 1);
    return 1;
}

/* See script_lua.h. */
void scriptLuaAddErrorHandlerGlobal(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, "vk_globals");
    lua_pushcfunction(L, luaErrorHandler);
    lua_setfield(L, -2, "__redis__err__handler");
    lua_pop(L, 1);
}

/* Serves other clients while a script is busy: accept, read (commands get
 * BUSY unless allowed), write. No timers: the cron must not run inside a
 * script. */
static void scriptProcessEventsWhileBusy(void) {
    for (int j = 0; j < 4; j++) {
        if (aeProcessEvents(server.el, AE_FILE_EVENTS | AE_DONT_WAIT) == 0) break;
    }
    handleClientsWithPendingWrites();
    freeClientsInAsyncFreeQueue();
}

static void luaTimeoutHook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    scriptRunCheckpoint(L);
}

/* The count hook's work, also called by long C functions (the pattern
 * matcher) that never return to the VM: notices busy-reply-threshold,
 * serves other clients while busy, and raises the kill error. */
static void scriptRunCheckpoint(lua_State *L) {
    scriptRunCtx *run = curRun;
    if (!run) return;
    if (!(run->run_flags & SCRIPT_RUN_TIMEDOUT)) {
        mstime_t elapsed = mstime() - run->start;
        if (elapsed >= server.busy_reply_threshold) {
            run->run_flags |= SCRIPT_RUN_TIMEDOUT;
            serverLog(LL_WARNING,
                      "Slow script detected: still in execution after %lld milliseconds. You can try killing "
                      "the script using the %s command. Script name is: %s.",
                      (long long)elapsed, (run->run_flags & SCRIPT_RUN_EVAL) ? "SCRIPT KILL" : "FUNCTION KILL",
                      run->funcname);
            /* The caller is mid-command: stop reading from it until done. */
            if (run->caller->conn) connSetReadHandler(run->caller->conn, NULL);
        }
    }
    if (run->run_flags & SCRIPT_RUN_TIMEDOUT) scriptProcessEventsWhileBusy();
    if (run->run_flags & SCRIPT_RUN_KILLED) {
        /* Check on every line from now on, so pcall cannot swallow it. */
        lua_sethook(L, luaTimeoutHook, LUA_MASKLINE, 0);
        luaRaiseNoPosition(L, (run->run_flags & SCRIPT_RUN_EVAL) ? "Script killed by user with SCRIPT KILL..."
                                                                 : "Script killed by user with FUNCTION KILL...");
    }
}

/* See script_lua.h. */
uint64_t scriptFlagsToCommandFlags(uint64_t cmd_flags, int script_flags) {
    if (script_flags & SCRIPT_FLAG_EVAL_COMPAT) return cmd_flags;
    cmd_flags &= ~(CMD_WRITE | CMD_DENYOOM | CMD_STALE | CMD_MAY_REPLICATE);
    if (!(script_flags & SCRIPT_FLAG_NO_WRITES)) {
        cmd_flags |= CMD_WRITE;
        if (!(script_flags & SCRIPT_FLAG_ALLOW_OOM)) cmd_flags |= CMD_DENYOOM;
    }
    if (script_flags & SCRIPT_FLAG_ALLOW_STALE) cmd_flags |= CMD_STALE;
    return cmd_flags;
}

/* The part of scriptRunAllowed() for a script that declared it may write. */
static int scriptWriteRunAllowed(client *caller, int readonly, int obeyed) {
    if (server.primary_host && server.repl_replica_ro && !obeyed) {
        addReplyError(caller, "-READONLY Can not run script with write flag on readonly replica");
        return C_ERR;
    }
    if (readonly) {
        addReplyError(caller, "Can not execute a script with write flag using *_ro command.");
        return C_ERR;
    }
    if (replicationDeniesWrites() && !obeyed) {
        addReplyErrorObject(caller, shared.noreplicaserr);
        return C_ERR;
    }
    return C_OK;
}

/* See script_lua.h. */
int scriptRunAllowed(client *caller, int script_flags, int readonly) {
    int obeyed = scriptCallerIsObeyed(caller);
    int stale = serverIsStaleReplica() && !obeyed;
    if (script_flags & SCRIPT_FLAG_EVAL_COMPAT) {
        /* Nothing declared: refused whole while stale, as a command would
         * be; its writes are checked as it makes them (server.call). */
        if (stale) {
            addReplyErrorObject(caller, shared.primarydownerr);
            return C_ERR;
        }
        return C_OK;
    }
    if (stale && !(script_flags & SCRIPT_FLAG_ALLOW_STALE)) {
        addReplyError(caller, "-MASTERDOWN Link with MASTER is down, replica-serve-stale-data is set to 'no' and "
                              "'allow-stale' flag is not set on the script.");
        return C_ERR;
    }
    if (!(script_flags & SCRIPT_FLAG_NO_WRITES) && scriptWriteRunAllowed(caller, readonly, obeyed) != C_OK)
        return C_ERR;
    if (!(script_flags & (SCRIPT_FLAG_NO_WRITES | SCRIPT_FLAG_ALLOW_OOM)) && server.maxmemory &&
        performEvictions() == EVICT_FAIL) {
        addReplyErrorObject(caller, shared.oomerr);
        return C_ERR;
    }
    return C_OK;
}

void scriptRunStart(scriptRunCtx *ctx, client *caller, const char *funcname, int script_flags, int is_eval,
                    int readonly) {
    if (scriptClient == NULL) {
        scriptClient = createClient(NULL);
        scriptClient->flags |= CLIENT_SCRIPT;
        scriptClient->authenticated = 1;
    }
    memset(ctx, 0, sizeof(*ctx));
    ctx->caller = caller;
    ctx->sclient = scriptClient;
    ctx->funcname = funcname;
    ctx->script_flags = script_flags;
    ctx->run_flags = (is_eval ? SCRIPT_RUN_EVAL : 0) | (readonly ? SCRIPT_RUN_READONLY : 0);
    ctx->resp = 2;
    ctx->start = mstime();
    ctx->start_dirty = server.dirty;
    /* Cluster mode: the commands the script runs stay in the slot of its
     * declared keys (cluster_route.c). */
    ctx->slot = server.cluster_enabled && caller->cmd ? clusterCommandKeysSlot(caller->cmd, caller->argv, caller->argc)
                                                      : -1;
    /* EVAL and FCALL are propagated by their effects: the commands the
     * script runs, wrapped with them in one execution unit (propagate.c). */
    preventCommandPropagation(caller);
    propagateSetScriptCommands(1);
    scriptClient->resp = 2;
    scriptClient->db = caller->db;
}

/* Undoes scriptRunStart(): the caller is read from again if it was paused. */
void scriptRunEnd(scriptRunCtx *ctx) {
    propagateSetScriptCommands(1);
    if ((ctx->run_flags & SCRIPT_RUN_TIMEDOUT) && ctx->caller->conn)
        connSetReadHandler(ctx->caller->conn, readQueryFromClient);
    if (ctx->run_flags & SCRIPT_RUN_TIMEDOUT)
        serverLog(LL_NOTICE, "Slow script finished in %lld milliseconds.", (long long)(mstime() - ctx->start));
}

/* Runs the function below nargs arguments and replies to ctx->caller with
 * its result or error. Pops them. May serve other clients while busy. */
void scriptLuaRun(lua_State *L, scriptRunCtx *ctx, int nargs) {
    int base = lua_gettop(L) - nargs; /* index of the function */
    lua_pushcfunction(L, luaErrorHandler);
    lua_insert(L, base);
    curRun = ctx;
    server.in_script = 1;
    if (ldbIsActive()) ldbInstallHook(L); /* a debugging session stops and times out its own way */
    else lua_sethook(L, luaTimeoutHook, LUA_MASKCOUNT, LUA_HOOK_INSTRUCTIONS);
    int status = lua_pcall(L, nargs, 1, base);
    lua_sethook(L, NULL, 0, 0);
    server.in_script = 0;
    curRun = NULL;

    client *c = ctx->caller;
    if (status == 0) {
        scriptLuaReplyValue(c, L, ctx->resp);
    } else if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "err");
        lua_getfield(L, -2, "source");
        lua_getfield(L, -3, "line");
        size_t elen;
        const char *err = lua_tolstring(L, -3, &elen);
        sds msg = sdscatlen(sdsnew("-"), err ? err : "ERR unknown error", err ? elen : 17);
        if (lua_isstring(L, -2) && lua_isnumber(L, -1))
            msg = sdscatprintf(msg, " script: %s, on %s:%d.", ctx->funcname, lua_tostring(L, -2),
                               luaNumberToInt(lua_tonumber(L, -1)));
        lua_pop(L, 3);
        lua_getfield(L, -1, "ignore_err_stats_update");
        int counted = lua_toboolean(L, -1);
        lua_pop(L, 1);
        addReplyErrorSdsEx(c, msg, counted ? ERR_REPLY_FLAG_NO_STATS_UPDATE : ERR_REPLY_FLAG_CUSTOM);
    } else {
        const char *m = lua_tostring(L, -1);
        addReplyErrorFormat(c, "Error running script %s, %.100s", ctx->funcname, m ? m : "execution failure");
    }
    lua_settop(L, base - 1);
    lua_gc(L, LUA_GCSTEP, 1);
}

/* ---------------------------------------------------------------------------
 * BUSY and KILL
 * ------------------------------------------------------------------------- */

/* processCommand() gate: replies BUSY and returns 1 if c->cmd may not run
 * while a script is busy (inside MULTI the transaction is flagged instead,
 * and EXEC itself gets EXECABORT ... BUSY); 0 otherwise. */
int scriptIsBusyAndDenied(client *c) {
    if (!scriptIsTimedout() || (c->cmd->flags & CMD_ALLOW_BUSY)) return 0;
    c->cmd->rejected_calls++;
    const char *err = (curRun->run_flags & SCRIPT_RUN_EVAL)
                          ? objectGetVal(shared.slowevalerr)
                          : "-BUSY Valkey is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
    /* Inside MULTI the refusal spoils the transaction (EXECABORT), like
     * any other command refused while queueing. */
    if (multiCommandRejected(c, err)) return 1;
    if (curRun->run_flags & SCRIPT_RUN_EVAL) addReplyErrorObject(c, shared.slowevalerr);
    else addReplyError(c, err);
    return 1;
}

/* SCRIPT KILL (is_eval) / FUNCTION KILL: flags the run as killed (the hook
 * raises the error) or replies NOTBUSY / UNKILLABLE / BUSY. */
void scriptKill(client *c, int is_eval) {
    scriptRunCtx *run = curRun;
    if (!run) {
        addReplyError(c, "-NOTBUSY No scripts in execution right now.");
        return;
    }
    if (run->run_flags & SCRIPT_RUN_WROTE) {
        addReplyError(c, "-UNKILLABLE Sorry the script already executed write commands against the dataset. You "
                         "can either wait the script termination or kill the server in a hard way using the "
                         "SHUTDOWN NOSAVE command.");
        return;
    }
    int running_eval = (run->run_flags & SCRIPT_RUN_EVAL) != 0;
    if (is_eval != running_eval) {
        if (running_eval) addReplyErrorObject(c, shared.slowevalerr);
        else
            addReplyError(c, "-BUSY Valkey is busy running a script. You can only call FUNCTION KILL or SHUTDOWN "
                             "NOSAVE.");
        return;
    }
    run->run_flags |= SCRIPT_RUN_KILLED;
    addReply(c, shared.ok);
}

/* Returns 1 while a script is busy, for SHUTDOWN and friends. */
int isInsideYieldingLongCommand(void) {
    return scriptIsTimedout();
}
