/* lua_bit.c - the `bit` library scripts see (LuaBitOp's API, our code).
 *
 * Scripts have always had LuaBitOp's `bit` table: tobit, tohex, bnot, band,
 * bor, bxor, lshift, rshift, arshift, rol, ror and bswap, all working on
 * 32-bit integers. We provide it ourselves rather than linking Debian's
 * lua-bitop, whose tohex() writes past a stack buffer for a digit count of
 * -2^31 (`bit.tohex(1, -2147483648)` crashed the server).
 *
 * Semantics, as LuaBitOp documents them:
 *   - every argument is a Lua number reduced to 32 bits: rounded to the
 *     nearest integer (ties to even) and taken modulo 2^32; NaN and
 *     infinities become 0 here instead of LuaBitOp's unspecified value;
 *   - every result is a signed 32-bit integer returned as a Lua number;
 *   - shift and rotate counts use only their low 5 bits;
 *   - tohex(x [, n]) gives the low |n| hex digits of x (default 8, at most
 *     8), upper case when n is negative.
 * script_lua.c opens it (luaopenBit) when it builds a VM; nothing here
 * touches the server. */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdint.h>

#include "lua_libs.h"

/* Reduces argument idx to its 32-bit pattern (see the file comment). */
static uint32_t bitArg(lua_State *L, int idx) {
    lua_Number n = luaL_checknumber(L, idx);
    if (!isfinite(n)) return 0;
    double r = nearbyint(n); /* default rounding mode: to nearest, ties to even */
    r = fmod(r, 4294967296.0);
    if (r < 0) r += 4294967296.0;
    return (uint32_t)r;
}

static int bitReturn(lua_State *L, uint32_t v) {
    lua_pushnumber(L, (lua_Number)(int32_t)v);
    return 1;
}

static int bitTobit(lua_State *L) {
    return bitReturn(L, bitArg(L, 1));
}

static int bitBnot(lua_State *L) {
    return bitReturn(L, ~bitArg(L, 1));
}

static int bitBand(lua_State *L) {
    uint32_t v = bitArg(L, 1);
    for (int j = lua_gettop(L); j > 1; j--) v &= bitArg(L, j);
    return bitReturn(L, v);
}

static int bitBor(lua_State *L) {
    uint32_t v = bitArg(L, 1);
    for (int j = lua_gettop(L); j > 1; j--) v |= bitArg(L, j);
    return bitReturn(L, v);
}

static int bitBxor(lua_State *L) {
    uint32_t v = bitArg(L, 1);
    for (int j = lua_gettop(L); j > 1; j--) v ^= bitArg(L, j);
    return bitReturn(L, v);
}

static int bitLshift(lua_State *L) {
    uint32_t v = bitArg(L, 1), n = bitArg(L, 2) & 31;
    return bitReturn(L, v << n);
}

static int bitRshift(lua_State *L) {
    uint32_t v = bitArg(L, 1), n = bitArg(L, 2) & 31;
    return bitReturn(L, v >> n);
}

/* Arithmetic shift: the sign bit is copied in from the left. */
static int bitArshift(lua_State *L) {
    uint32_t v = bitArg(L, 1), n = bitArg(L, 2) & 31;
    uint32_t r = v >> n;
    if ((v & 0x80000000u) && n) r |= ~(UINT32_MAX >> n);
    return bitReturn(L, r);
}

static int bitRol(lua_State *L) {
    uint32_t v = bitArg(L, 1), n = bitArg(L, 2) & 31;
    return bitReturn(L, n ? (v << n) | (v >> (32 - n)) : v);
}

static int bitRor(lua_State *L) {
    uint32_t v = bitArg(L, 1), n = bitArg(L, 2) & 31;
    return bitReturn(L, n ? (v >> n) | (v << (32 - n)) : v);
}

static int bitBswap(lua_State *L) {
    uint32_t v = bitArg(L, 1);
    v = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
    return bitReturn(L, v);
}

/* tohex(x [, n]): the digit count is clamped before it is used, so no value
 * of n (even -2^31, whose negation overflows) can reach the buffer. */
static int bitTohex(lua_State *L) {
    uint32_t v = bitArg(L, 1);
    long long n = lua_isnoneornil(L, 2) ? 8 : (int32_t)bitArg(L, 2);
    const char *digits = "0123456789abcdef";
    if (n < 0) {
        n = -n;
        digits = "0123456789ABCDEF";
    }
    if (n > 8) n = 8;
    char buf[8];
    for (int j = (int)n - 1; j >= 0; j--) {
        buf[j] = digits[v & 15];
        v >>= 4;
    }
    lua_pushlstring(L, buf, (size_t)n);
    return 1;
}

/* See lua_libs.h. */
int luaopenBit(lua_State *L) {
    static const luaL_Reg funcs[] = {
        {"tobit", bitTobit},   {"bnot", bitBnot},       {"band", bitBand}, {"bor", bitBor},
        {"bxor", bitBxor},     {"lshift", bitLshift},   {"rshift", bitRshift},
        {"arshift", bitArshift}, {"rol", bitRol},       {"ror", bitRor},   {"bswap", bitBswap},
        {"tohex", bitTohex},   {NULL, NULL},
    };
    luaL_register(L, "bit", funcs);
    return 1;
}
