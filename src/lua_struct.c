/* lua_struct.c - the `struct` library scripts see: converting between Lua
 * values and C-like binary records, written from the documented format of
 * Roberto Ierusalimschy's struct library (the one scripts have always had).
 *
 *   struct.pack(fmt, v1, ...)   -> the binary string
 *   struct.unpack(fmt, s [, i]) -> v1, ..., and the position after them
 *                                  (1-based, like i)
 *   struct.size(fmt)            -> bytes a record of fmt takes
 *
 * Format: ">" big endian, "<" little endian, "=" native, "![n]" maximum
 * alignment n (a power of two; default 1, "!" alone the native maximum),
 * " " ignored; "x" a zero byte; "b"/"B" (un)signed char, "h"/"H" short,
 * "l"/"L" long, "T" size_t, "i[n]"/"I[n]" an n-byte int (default
 * sizeof(int), at most STRUCT_MAX_INT_SIZE); "f" float, "d" double; "s" a
 * zero-terminated string; "c[n]" n bytes (unpack: "c0" takes its length
 * from the value read just before; pack: the whole string). Lower case is
 * signed, upper case unsigned.
 *
 * Nothing from the format or the data is trusted: sizes are read without
 * overflow, every read is checked against the data's length, and integer
 * conversions of out-of-range numbers are defined. script_lua.c opens it
 * (luaopenStruct) when it builds a VM. */
#include <ctype.h>
#include <float.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lua_libs.h"

#define STRUCT_MAX_INT_SIZE 32
#define STRUCT_BIG 0
#define STRUCT_LITTLE 1

/* The native maximum alignment: that of the most demanding basic type. */
#define STRUCT_MAX_ALIGN offsetof(struct { char c; union { double d; void *p; long l; } u; }, u)

typedef struct structHeader {
    int endian;
    size_t align;
} structHeader;

static int structNativeEndian(void) {
    const uint16_t one = 1;
    return *(const unsigned char *)&one ? STRUCT_LITTLE : STRUCT_BIG;
}

static void structDefaults(structHeader *h) {
    h->endian = structNativeEndian();
    h->align = 1;
}

/* Reads the digits at *fmt (if any) as a size; df when there are none. */
static size_t structGetNum(lua_State *L, const char **fmt, size_t df) {
    if (!isdigit((unsigned char)**fmt)) return df;
    size_t a = 0;
    do {
        int d = *((*fmt)++) - '0';
        if (a > ((size_t)INT_MAX - (size_t)d) / 10) luaL_error(L, "integral size overflow");
        a = a * 10 + (size_t)d;
    } while (isdigit((unsigned char)**fmt));
    return a;
}

/* The size of option opt (0 for options without one). */
static size_t structOptSize(lua_State *L, int opt, const char **fmt) {
    switch (opt) {
    case 'B':
    case 'b': return sizeof(char);
    case 'H':
    case 'h': return sizeof(short);
    case 'L':
    case 'l': return sizeof(long);
    case 'T': return sizeof(size_t);
    case 'f': return sizeof(float);
    case 'd': return sizeof(double);
    case 'x': return 1;
    case 'c': return structGetNum(L, fmt, 1);
    case 'i':
    case 'I': {
        size_t sz = structGetNum(L, fmt, sizeof(int));
        if (sz == 0 || sz > STRUCT_MAX_INT_SIZE)
            luaL_error(L, "integral size %d is larger than limit of %d", (int)sz, STRUCT_MAX_INT_SIZE);
        return sz;
    }
    default: return 0;
    }
}

/* Padding needed before an item of size bytes at offset len. */
static size_t structToAlign(size_t len, const structHeader *h, int opt, size_t size) {
    if (size == 0 || opt == 'c') return 0;
    if (size > h->align) size = h->align;
    return (size - (len & (size - 1))) & (size - 1);
}

/* Endianness and alignment options; anything else is an error. */
static void structControl(lua_State *L, int opt, const char **fmt, structHeader *h) {
    switch (opt) {
    case ' ': return;
    case '>': h->endian = STRUCT_BIG; return;
    case '<': h->endian = STRUCT_LITTLE; return;
    case '=': h->endian = structNativeEndian(); return;
    case '!': {
        size_t a = structGetNum(L, fmt, STRUCT_MAX_ALIGN);
        if (a == 0 || (a & (a - 1))) luaL_error(L, "alignment %d is not a power of 2", (int)a);
        h->align = a;
        return;
    }
    default: luaL_error(L, "invalid format option '%c'", opt);
    }
}

/* Lua number -> the low 64 bits of its two's complement integer value,
 * defined for every input (NaN and out-of-range values wrap modulo 2^64
 * like the truncated value would, infinities and NaN give 0). */
static uint64_t structNumberBits(lua_Number n) {
    if (!(n > -18446744073709551616.0 && n < 18446744073709551616.0)) return 0;
    if (n < 0) {
        if (n >= -9223372036854775808.0) return (uint64_t)(int64_t)n;
        return (uint64_t)0 - (uint64_t)(-n);
    }
    return (uint64_t)n;
}

static void structPutInteger(lua_State *L, luaL_Buffer *b, int arg, int endian, size_t size) {
    uint64_t v = structNumberBits(luaL_checknumber(L, arg));
    char buf[STRUCT_MAX_INT_SIZE];
    for (size_t j = 0; j < size; j++) {
        size_t at = endian == STRUCT_LITTLE ? j : size - 1 - j;
        buf[at] = (char)(v & 0xff);
        v = j < 7 ? v >> 8 : 0;
    }
    luaL_addlstring(b, buf, size);
}

/* Reverses the bytes of a native float/double if the format's byte order
 * differs from the machine's. */
static void structFixBytes(char *p, size_t size, int endian) {
    if (endian == structNativeEndian()) return;
    for (size_t i = 0, j = size - 1; i < j; i++, j--) {
        char t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

/* struct.pack(fmt, v1, ...) */
static int structPack(lua_State *L) {
    const char *fmt = luaL_checkstring(L, 1);
    structHeader h;
    structDefaults(&h);
    int arg = 2;
    size_t total = 0;
    lua_pushnil(L); /* keeps the arguments apart from the buffer's pieces */
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    while (*fmt) {
        int opt = (unsigned char)*fmt++;
        size_t size = structOptSize(L, opt, &fmt);
        size_t pad = structToAlign(total, &h, opt, size);
        total += pad;
        while (pad-- > 0) luaL_addchar(&b, '\0');
        switch (opt) {
        case 'b':
        case 'B':
        case 'h':
        case 'H':
        case 'l':
        case 'L':
        case 'T':
        case 'i':
        case 'I': structPutInteger(L, &b, arg++, h.endian, size); break;
        case 'x': luaL_addchar(&b, '\0'); break;
        case 'f': {
            lua_Number n = luaL_checknumber(L, arg++);
            /* Out of float's range is undefined in C: saturate to inf. */
            float f = n > FLT_MAX ? HUGE_VALF : n < -FLT_MAX ? -HUGE_VALF : (float)n;
            char tmp[sizeof(float)];
            memcpy(tmp, &f, sizeof(f));
            structFixBytes(tmp, sizeof(f), h.endian);
            luaL_addlstring(&b, tmp, sizeof(f));
            break;
        }
        case 'd': {
            double d = luaL_checknumber(L, arg++);
            char tmp[sizeof(double)];
            memcpy(tmp, &d, sizeof(d));
            structFixBytes(tmp, sizeof(d), h.endian);
            luaL_addlstring(&b, tmp, sizeof(d));
            break;
        }
        case 'c':
        case 's': {
            size_t l;
            const char *s = luaL_checklstring(L, arg++, &l);
            if (size == 0) size = l;
            luaL_argcheck(L, l >= size, arg - 1, "string too short");
            luaL_addlstring(&b, s, size);
            if (opt == 's') {
                luaL_addchar(&b, '\0');
                size++;
            }
            break;
        }
        default: structControl(L, opt, &fmt, &h); break;
        }
        total += size;
    }
    luaL_pushresult(&b);
    return 1;
}

/* Reads a size-byte integer (only its low 64 bits count) as a number. */
static lua_Number structGetInteger(const unsigned char *p, int endian, int is_signed, size_t size) {
    uint64_t v = 0;
    for (size_t j = 0; j < size; j++) {
        size_t at = endian == STRUCT_LITTLE ? size - 1 - j : j;
        v = (v << 8) | p[at];
    }
    if (!is_signed) return (lua_Number)v;
    if (size < 8) {
        uint64_t sign = (uint64_t)1 << (size * 8 - 1);
        if (v & sign) v |= ~((sign << 1) - 1);
    }
    int64_t s;
    memcpy(&s, &v, sizeof(s));
    return (lua_Number)s;
}

/* struct.unpack(fmt, data [, pos]) */
static int structUnpack(lua_State *L) {
    const char *fmt = luaL_checkstring(L, 1);
    size_t ld;
    const char *data = luaL_checklstring(L, 2, &ld);
    lua_Number start = luaL_optnumber(L, 3, 1);
    luaL_argcheck(L, start >= 1, 3, "offset must be 1 or greater");
    luaL_argcheck(L, start < 9007199254740992.0, 3, "offset too large");
    size_t pos = (size_t)start - 1;
    structHeader h;
    structDefaults(&h);
    int n = 0;
    while (*fmt) {
        int opt = (unsigned char)*fmt++;
        size_t size = structOptSize(L, opt, &fmt);
        pos += structToAlign(pos, &h, opt, size);
        luaL_argcheck(L, pos <= ld && size <= ld - pos, 2, "data string too short");
        luaL_checkstack(L, 2, "too many results");
        const unsigned char *p = (const unsigned char *)data + pos;
        switch (opt) {
        case 'b':
        case 'B':
        case 'h':
        case 'H':
        case 'l':
        case 'L':
        case 'T':
        case 'i':
        case 'I':
            lua_pushnumber(L, structGetInteger(p, h.endian, islower(opt), size));
            n++;
            break;
        case 'x': break;
        case 'f': {
            char tmp[sizeof(float)];
            float f;
            memcpy(tmp, p, sizeof(f));
            structFixBytes(tmp, sizeof(f), h.endian);
            memcpy(&f, tmp, sizeof(f));
            lua_pushnumber(L, f);
            n++;
            break;
        }
        case 'd': {
            char tmp[sizeof(double)];
            double d;
            memcpy(tmp, p, sizeof(d));
            structFixBytes(tmp, sizeof(d), h.endian);
            memcpy(&d, tmp, sizeof(d));
            lua_pushnumber(L, d);
            n++;
            break;
        }
        case 'c': {
            if (size == 0) {
                if (n == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
                lua_Number len = lua_tonumber(L, -1);
                lua_pop(L, 1);
                n--;
                luaL_argcheck(L, len >= 0 && len <= (lua_Number)(ld - pos), 2, "data string too short");
                size = (size_t)len;
            }
            lua_pushlstring(L, (const char *)p, size);
            n++;
            break;
        }
        case 's': {
            const unsigned char *e = memchr(p, '\0', ld - pos);
            if (e == NULL) luaL_error(L, "unfinished string in data");
            size = (size_t)(e - p) + 1;
            lua_pushlstring(L, (const char *)p, size - 1);
            n++;
            break;
        }
        default: structControl(L, opt, &fmt, &h); break;
        }
        pos += size;
    }
    lua_pushnumber(L, (lua_Number)pos + 1);
    return n + 1;
}

/* struct.size(fmt) */
static int structSize(lua_State *L) {
    const char *fmt = luaL_checkstring(L, 1);
    structHeader h;
    structDefaults(&h);
    size_t pos = 0;
    while (*fmt) {
        int opt = (unsigned char)*fmt++;
        size_t size = structOptSize(L, opt, &fmt);
        pos += structToAlign(pos, &h, opt, size);
        if (opt == 's' || (opt == 'c' && size == 0))
            luaL_argerror(L, 1, "options 'c0' - 's' have undefined sizes");
        if (!isalnum(opt)) structControl(L, opt, &fmt, &h);
        if (pos > (size_t)INT_MAX || size > (size_t)INT_MAX - pos) luaL_error(L, "format too large");
        pos += size;
    }
    lua_pushnumber(L, (lua_Number)pos);
    return 1;
}

/* See lua_libs.h. */
int luaopenStruct(lua_State *L) {
    static const luaL_Reg funcs[] = {
        {"pack", structPack},
        {"unpack", structUnpack},
        {"size", structSize},
        {NULL, NULL},
    };
    luaL_register(L, "struct", funcs);
    return 1;
}
