/* lua_cmsgpack.c - the `cmsgpack` library scripts see: MessagePack
 * encoding and decoding of Lua values, written from the MessagePack spec.
 *
 * API (the one scripts have always had):
 *   cmsgpack.pack(v1, v2, ...)           -> the encodings of v1, v2, ...
 *                                           one after the other
 *   cmsgpack.unpack(s)                   -> every value encoded in s
 *   cmsgpack.unpack_one(s [, offset])    -> next offset, one value
 *   cmsgpack.unpack_limit(s, n [, off])  -> next offset, up to n values
 * Offsets are 0-based byte positions; the next offset is -1 once the
 * whole string has been read.
 *
 * Encoding: nil, booleans; numbers with an exact 64-bit integer value in
 * the smallest integer format, others as float 32 when that is exact
 * (infinities too), else float 64 (NaN too); strings as str (fixstr, str 8/16/32); a table whose keys
 * are exactly 1..n as an array, any other table as a map. Tables nested
 * deeper than LUA_CMSGPACK_MAX_NESTING (and functions, userdata, threads)
 * encode as nil, so a table that contains itself cannot loop.
 *
 * Decoding accepts every format but ext/fixext and the never-used 0xc1
 * ("Bad data format in input."); bin is read as a string. Input is never
 * trusted: each length is checked against the bytes left before anything
 * is read or allocated ("Missing bytes in input."), and nesting is bounded
 * by the Lua stack (luaL_checkstack), so hostile input cannot crash.
 * script_lua.c opens it (luaopenCmsgpack) when it builds a VM. */
#include <lauxlib.h>
#include <lua.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lua_libs.h"

#define LUA_CMSGPACK_MAX_NESTING 16

/* ---------------------------------------------------------------------------
 * Encoding
 *
 * The output grows in a userdata kept at a fixed stack slot (replaced by a
 * bigger one when full): a Lua error half-way (a table too deep for the
 * stack) then leaks nothing, and values being encoded can be staged on
 * the stack freely, which luaL_Buffer would not allow.
 * ------------------------------------------------------------------------- */

typedef struct mpBuf {
    lua_State *L;
    int slot; /* stack index of the userdata holding data */
    char *data;
    size_t len, cap;
} mpBuf;

static void mpAppend(mpBuf *b, const void *s, size_t n) {
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap - b->len < n) {
            if (cap > ((size_t)-1) / 2) luaL_error(b->L, "cmsgpack: result too large");
            cap *= 2;
        }
        char *data = lua_newuserdata(b->L, cap);
        if (b->len) memcpy(data, b->data, b->len);
        lua_replace(b->L, b->slot);
        b->data = data;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

static void mpAppendByte(mpBuf *b, unsigned char c) {
    mpAppend(b, &c, 1);
}

/* A type byte then v as a bytes-long big-endian integer. */
static void mpPutBE(mpBuf *b, unsigned char type, uint64_t v, int bytes) {
    unsigned char buf[9];
    buf[0] = type;
    for (int j = bytes; j >= 1; j--) {
        buf[j] = (unsigned char)(v & 0xff);
        v >>= 8;
    }
    mpAppend(b, buf, (size_t)bytes + 1);
}

static void mpEncodeInteger(mpBuf *b, int64_t v) {
    uint64_t u = (uint64_t)v;
    if (v >= 0) {
        if (u < 128) mpAppendByte(b, (unsigned char)u);
        else if (u <= 0xff) mpPutBE(b, 0xcc, u, 1);
        else if (u <= 0xffff) mpPutBE(b, 0xcd, u, 2);
        else if (u <= 0xffffffffu) mpPutBE(b, 0xce, u, 4);
        else mpPutBE(b, 0xcf, u, 8);
    } else {
        if (v >= -32) mpAppendByte(b, (unsigned char)(u & 0xff));
        else if (v >= INT8_MIN) mpPutBE(b, 0xd0, u & 0xff, 1);
        else if (v >= INT16_MIN) mpPutBE(b, 0xd1, u & 0xffff, 2);
        else if (v >= INT32_MIN) mpPutBE(b, 0xd2, u & 0xffffffffu, 4);
        else mpPutBE(b, 0xd3, u, 8);
    }
}

static void mpEncodeNumber(mpBuf *b, lua_Number n) {
    /* Exactly an int64: an integer format (-0 included, as 0). */
    if (n >= -9223372036854775808.0 && n < 9223372036854775808.0 && n == floor(n)) {
        mpEncodeInteger(b, (int64_t)n);
        return;
    }
    /* A float 32 when that keeps the value (infinities too), else a
     * float 64 (NaN too). */
    if (isinf(n) || (n >= -FLT_MAX && n <= FLT_MAX && (double)(float)n == n)) {
        float f = (float)n;
        uint32_t bits;
        memcpy(&bits, &f, sizeof(bits));
        mpPutBE(b, 0xca, bits, 4);
    } else {
        uint64_t bits;
        memcpy(&bits, &n, sizeof(bits));
        mpPutBE(b, 0xcb, bits, 8);
    }
}

static void mpEncodeString(mpBuf *b, const char *s, size_t len) {
    if (len < 32) mpAppendByte(b, (unsigned char)(0xa0 | len));
    else if (len <= 0xff) mpPutBE(b, 0xd9, len, 1);
    else if (len <= 0xffff) mpPutBE(b, 0xda, len, 2);
    else if (len <= 0xffffffffu) mpPutBE(b, 0xdb, len, 4);
    else luaL_error(b->L, "cmsgpack: string too long");
    mpAppend(b, s, len);
}

/* Returns n if the table at idx has exactly the keys 1..n (n may be 0),
 * else -1. */
static long long mpTableArrayLen(lua_State *L, int idx) {
    long long count = 0;
    lua_Number max = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        lua_Number k;
        if (lua_type(L, -1) != LUA_TNUMBER || (k = lua_tonumber(L, -1)) < 1 || k != floor(k)) {
            lua_pop(L, 1);
            return -1;
        }
        if (k > max) max = k;
        count++;
    }
    return max == (lua_Number)count ? count : -1;
}

static void mpEncodeValue(mpBuf *b, int level);

/* Encodes the table at the top of the stack (left there). */
static void mpEncodeTable(mpBuf *b, int level) {
    lua_State *L = b->L;
    int idx = lua_gettop(L);
    long long n = mpTableArrayLen(L, idx);
    if (n >= 0) {
        if (n < 16) mpAppendByte(b, (unsigned char)(0x90 | n));
        else if (n <= 0xffff) mpPutBE(b, 0xdc, (uint64_t)n, 2);
        else mpPutBE(b, 0xdd, (uint64_t)n, 4);
        for (long long j = 1; j <= n; j++) {
            lua_rawgeti(L, idx, (int)j);
            mpEncodeValue(b, level + 1);
            lua_pop(L, 1);
        }
        return;
    }
    long long pairs = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        pairs++;
    }
    if (pairs < 16) mpAppendByte(b, (unsigned char)(0x80 | pairs));
    else if (pairs <= 0xffff) mpPutBE(b, 0xde, (uint64_t)pairs, 2);
    else mpPutBE(b, 0xdf, (uint64_t)pairs, 4);
    lua_pushnil(L);
    while (lua_next(L, idx)) { /* stack: key value */
        lua_pushvalue(L, -2);
        mpEncodeValue(b, level + 1); /* the key */
        lua_pop(L, 1);
        mpEncodeValue(b, level + 1); /* the value */
        lua_pop(L, 1);
    }
}

/* Encodes the value at the top of the stack (left there). */
static void mpEncodeValue(mpBuf *b, int level) {
    lua_State *L = b->L;
    luaL_checkstack(L, 4, "cmsgpack: nesting too deep");
    switch (lua_type(L, -1)) {
    case LUA_TNIL: mpAppendByte(b, 0xc0); break;
    case LUA_TBOOLEAN: mpAppendByte(b, lua_toboolean(L, -1) ? 0xc3 : 0xc2); break;
    case LUA_TNUMBER: mpEncodeNumber(b, lua_tonumber(L, -1)); break;
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        mpEncodeString(b, s, len);
        break;
    }
    case LUA_TTABLE:
        if (level < LUA_CMSGPACK_MAX_NESTING) mpEncodeTable(b, level);
        else mpAppendByte(b, 0xc0);
        break;
    default: mpAppendByte(b, 0xc0); break;
    }
}

/* cmsgpack.pack(v1, ...) */
static int mpPack(lua_State *L) {
    int argc = lua_gettop(L);
    if (argc == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
    lua_pushnil(L); /* the slot of the output userdata */
    mpBuf b = {L, argc + 1, NULL, 0, 0};
    for (int j = 1; j <= argc; j++) {
        lua_pushvalue(L, j);
        mpEncodeValue(&b, 0);
        lua_pop(L, 1);
    }
    lua_pushlstring(L, b.data ? b.data : "", b.len);
    return 1;
}

/* ---------------------------------------------------------------------------
 * Decoding
 * ------------------------------------------------------------------------- */

typedef struct mpCursor {
    const unsigned char *p;
    size_t left;
    int err; /* MP_ERR_* */
} mpCursor;

#define MP_ERR_NONE 0
#define MP_ERR_EOF 1    /* "Missing bytes in input." */
#define MP_ERR_BADFMT 2 /* "Bad data format in input." */

/* Reads a bytes-long big-endian unsigned integer; 0 with err on EOF. */
static uint64_t mpGetBE(mpCursor *c, int bytes) {
    if (c->left < (size_t)bytes) {
        c->err = MP_ERR_EOF;
        return 0;
    }
    uint64_t v = 0;
    for (int j = 0; j < bytes; j++) v = (v << 8) | c->p[j];
    c->p += bytes;
    c->left -= (size_t)bytes;
    return v;
}

static void mpDecodeValue(lua_State *L, mpCursor *c);

static void mpDecodeBytes(lua_State *L, mpCursor *c, uint64_t len) {
    if (c->err) return;
    if (len > c->left) {
        c->err = MP_ERR_EOF;
        return;
    }
    lua_pushlstring(L, (const char *)c->p, (size_t)len);
    c->p += len;
    c->left -= (size_t)len;
}

static void mpDecodeArray(lua_State *L, mpCursor *c, uint64_t n) {
    if (c->err) return;
    lua_newtable(L);
    for (uint64_t j = 1; j <= n; j++) {
        mpDecodeValue(L, c);
        if (c->err) return;
        lua_rawseti(L, -2, (int)j);
    }
}

static void mpDecodeMap(lua_State *L, mpCursor *c, uint64_t n) {
    if (c->err) return;
    lua_newtable(L);
    for (uint64_t j = 0; j < n; j++) {
        mpDecodeValue(L, c);
        if (c->err) return;
        mpDecodeValue(L, c);
        if (c->err) return;
        lua_settable(L, -3); /* a nil or NaN key raises Lua's own error */
    }
}

static void mpPushSigned(lua_State *L, uint64_t v, int bytes) {
    int64_t s;
    if (bytes == 8) {
        memcpy(&s, &v, sizeof(s));
    } else {
        uint64_t sign = 1ULL << (bytes * 8 - 1);
        s = (v & sign) ? (int64_t)(v | ~((sign << 1) - 1)) : (int64_t)v;
    }
    lua_pushnumber(L, (lua_Number)s);
}

/* Pushes the next value (or sets c->err, pushing nothing useful: the
 * caller discards the stack on error). */
static void mpDecodeValue(lua_State *L, mpCursor *c) {
    luaL_checkstack(L, 4, "too many nested MessagePack values");
    if (c->left == 0) {
        c->err = MP_ERR_EOF;
        return;
    }
    unsigned char t = *c->p++;
    c->left--;
    if (t <= 0x7f) lua_pushnumber(L, t);
    else if (t >= 0xe0) lua_pushnumber(L, (int8_t)t);
    else if ((t & 0xe0) == 0xa0) mpDecodeBytes(L, c, t & 0x1f);
    else if ((t & 0xf0) == 0x90) mpDecodeArray(L, c, t & 0x0f);
    else if ((t & 0xf0) == 0x80) mpDecodeMap(L, c, t & 0x0f);
    else {
        switch (t) {
        case 0xc0: lua_pushnil(L); break;
        case 0xc2: lua_pushboolean(L, 0); break;
        case 0xc3: lua_pushboolean(L, 1); break;
        case 0xcc: lua_pushnumber(L, (lua_Number)mpGetBE(c, 1)); break;
        case 0xcd: lua_pushnumber(L, (lua_Number)mpGetBE(c, 2)); break;
        case 0xce: lua_pushnumber(L, (lua_Number)mpGetBE(c, 4)); break;
        case 0xcf: lua_pushnumber(L, (lua_Number)mpGetBE(c, 8)); break;
        case 0xd0: mpPushSigned(L, mpGetBE(c, 1), 1); break;
        case 0xd1: mpPushSigned(L, mpGetBE(c, 2), 2); break;
        case 0xd2: mpPushSigned(L, mpGetBE(c, 4), 4); break;
        case 0xd3: mpPushSigned(L, mpGetBE(c, 8), 8); break;
        case 0xca: {
            uint32_t bits = (uint32_t)mpGetBE(c, 4);
            float f;
            memcpy(&f, &bits, sizeof(f));
            lua_pushnumber(L, f);
            break;
        }
        case 0xcb: {
            uint64_t bits = mpGetBE(c, 8);
            double d;
            memcpy(&d, &bits, sizeof(d));
            lua_pushnumber(L, d);
            break;
        }
        case 0xc4:
        case 0xd9: mpDecodeBytes(L, c, mpGetBE(c, 1)); break;
        case 0xc5:
        case 0xda: mpDecodeBytes(L, c, mpGetBE(c, 2)); break;
        case 0xc6:
        case 0xdb: mpDecodeBytes(L, c, mpGetBE(c, 4)); break;
        case 0xdc: mpDecodeArray(L, c, mpGetBE(c, 2)); break;
        case 0xdd: mpDecodeArray(L, c, mpGetBE(c, 4)); break;
        case 0xde: mpDecodeMap(L, c, mpGetBE(c, 2)); break;
        case 0xdf: mpDecodeMap(L, c, mpGetBE(c, 4)); break;
        default: c->err = MP_ERR_BADFMT; break; /* 0xc1, ext and fixext */
        }
    }
}

/* Decodes up to limit values (0: all) of the string at 1 from offset.
 * With report_offset the next offset (-1 at the end) comes first. */
static int mpUnpackFull(lua_State *L, lua_Integer limit, lua_Integer offset, int report_offset) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    if (offset < 0 || limit < 0)
        return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.", (int)offset,
                          (int)limit);
    if ((size_t)offset > len)
        return luaL_error(L, "Start offset %d greater than input length %d.", (int)offset, (int)len);
    mpCursor c = {(const unsigned char *)s + offset, len - (size_t)offset, MP_ERR_NONE};
    int base = lua_gettop(L);
    int count = 0;
    while (c.left > 0 && (limit == 0 || count < limit)) {
        luaL_checkstack(L, 2, "too many MessagePack values to unpack");
        mpDecodeValue(L, &c);
        if (c.err) break;
        count++;
    }
    if (c.err) {
        lua_settop(L, base);
        return luaL_error(L, c.err == MP_ERR_EOF ? "Missing bytes in input." : "Bad data format in input.");
    }
    if (!report_offset) return count;
    lua_pushinteger(L, c.left == 0 ? -1 : (lua_Integer)(len - c.left));
    lua_insert(L, base + 1);
    return count + 1;
}

static int mpUnpack(lua_State *L) {
    return mpUnpackFull(L, 0, 0, 0);
}

static int mpUnpackOne(lua_State *L) {
    lua_Integer offset = luaL_optinteger(L, 2, 0);
    lua_settop(L, 1);
    return mpUnpackFull(L, 1, offset, 1);
}

static int mpUnpackLimit(lua_State *L) {
    lua_Integer limit = luaL_checkinteger(L, 2);
    lua_Integer offset = luaL_optinteger(L, 3, 0);
    lua_settop(L, 1);
    return mpUnpackFull(L, limit, offset, 1);
}

/* See lua_libs.h. */
int luaopenCmsgpack(lua_State *L) {
    static const luaL_Reg funcs[] = {
        {"pack", mpPack},
        {"unpack", mpUnpack},
        {"unpack_one", mpUnpackOne},
        {"unpack_limit", mpUnpackLimit},
        {NULL, NULL},
    };
    luaL_register(L, "cmsgpack", funcs);
    return 1;
}
