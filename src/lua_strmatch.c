/* lua_strmatch.c - string.find, string.match, string.gmatch and string.gsub
 * for scripts: Lua 5.1's pattern matching, written from the Lua 5.1
 * reference manual (section 5.4.1, "Patterns"), made safe to run on a
 * server.
 *
 * Why not the stock ones: Lua 5.1's matcher is a backtracking recursion
 * that never returns to the VM while it works, so
 *   - a pattern with many quantifiers recursed until the C stack
 *     overflowed (string.rep('a?', 300000) crashed the server), and
 *   - a pattern that backtracks exponentially ran for ever: the VM's count
 *     hook never fired, so neither SCRIPT KILL nor SHUTDOWN NOSAVE could
 *     stop the script, and the server was lost.
 * Here the recursion depth is bounded (past STRMATCH_MAX_DEPTH nested
 * matches the pattern is "too complex", Lua 5.2's answer), and every
 * STRMATCH_CHECK_STEPS steps the matcher calls the checkpoint the VM's
 * owner installed (script_lua.c: the busy-script/kill check), which may
 * raise a Lua error to stop the run. The matcher holds no C resources, so
 * such an error (a longjmp) leaks nothing.
 *
 * Semantics are Lua 5.1's: classes %a %c %d %l %p %s %u %w %x %z and
 * their complements, '.', sets with ranges and classes, the quantifiers
 * '*' '+' '-' '?', anchors '^' (find, match, gsub) and '$', captures and
 * position captures (at most 32), back-references %1-%9, %bxy and
 * %f[set]; find's init and plain arguments; gsub's string, table and
 * function replacements and its count limit; gmatch's iterator. The error
 * texts are Lua 5.1's. */
#include <ctype.h>
#include <lauxlib.h>
#include <lua.h>
#include <stddef.h>
#include <string.h>

#include "lua_libs.h"

#define STRMATCH_MAX_CAPTURES 32
#define STRMATCH_MAX_DEPTH 200
#define STRMATCH_CHECK_STEPS 100000
#define STRMATCH_ESC '%'
#define STRMATCH_SPECIALS "^$*+?.([%-"

#define CAP_UNFINISHED (-1)
#define CAP_POSITION (-2)

static strmatchCheckpoint strmatchCheck = NULL;

typedef struct matchState {
    const char *src_init; /* the subject */
    const char *src_end;  /* its end ('\0' follows, as in every Lua string) */
    lua_State *L;
    int level; /* captures open or closed so far */
    int depth; /* nested match() calls */
    unsigned long steps;
    struct {
        const char *init;
        ptrdiff_t len; /* or CAP_UNFINISHED / CAP_POSITION */
    } capture[STRMATCH_MAX_CAPTURES];
} matchState;

static const char *strmatchMatch(matchState *ms, const char *s, const char *p);

/* ---------------------------------------------------------------------------
 * Single characters and classes
 * ------------------------------------------------------------------------- */

static int strmatchClass(int c, int cl) {
    int res;
    switch (tolower(cl)) {
    case 'a': res = isalpha(c); break;
    case 'c': res = iscntrl(c); break;
    case 'd': res = isdigit(c); break;
    case 'l': res = islower(c); break;
    case 'p': res = ispunct(c); break;
    case 's': res = isspace(c); break;
    case 'u': res = isupper(c); break;
    case 'w': res = isalnum(c); break;
    case 'x': res = isxdigit(c); break;
    case 'z': res = (c == 0); break;
    default: return cl == c;
    }
    if (isupper(cl)) res = !res;
    return res;
}

/* p points at '[', ec at the set's closing ']'. */
static int strmatchBracketClass(int c, const char *p, const char *ec) {
    int sig = 1;
    if (*(p + 1) == '^') {
        sig = 0;
        p++;
    }
    while (++p < ec) {
        if (*p == STRMATCH_ESC) {
            p++;
            if (strmatchClass(c, (unsigned char)*p)) return sig;
        } else if (*(p + 1) == '-' && p + 2 < ec) {
            p += 2;
            if ((unsigned char)*(p - 2) <= c && c <= (unsigned char)*p) return sig;
        } else if ((unsigned char)*p == c) {
            return sig;
        }
    }
    return !sig;
}

/* The end of the single-character class starting at p. */
static const char *strmatchClassEnd(matchState *ms, const char *p) {
    switch (*p++) {
    case STRMATCH_ESC:
        if (*p == '\0') luaL_error(ms->L, "malformed pattern (ends with '%%')");
        return p + 1;
    case '[':
        if (*p == '^') p++;
        do { /* the first character is part of the set even if it is ']' */
            if (*p == '\0') luaL_error(ms->L, "malformed pattern (missing ']')");
            if (*(p++) == STRMATCH_ESC && *p != '\0') p++;
        } while (*p != ']');
        return p + 1;
    default: return p;
    }
}

static int strmatchSingle(int c, const char *p, const char *ep) {
    switch (*p) {
    case '.': return 1;
    case STRMATCH_ESC: return strmatchClass(c, (unsigned char)*(p + 1));
    case '[': return strmatchBracketClass(c, p, ep - 1);
    default: return (unsigned char)*p == c;
    }
}

/* ---------------------------------------------------------------------------
 * The matcher
 * ------------------------------------------------------------------------- */

/* Counts a step; every STRMATCH_CHECK_STEPS lets the owner look at the run
 * (it may raise an error to stop it). */
static void strmatchStep(matchState *ms) {
    if (++ms->steps % STRMATCH_CHECK_STEPS == 0 && strmatchCheck) strmatchCheck(ms->L);
}

static const char *strmatchBalance(matchState *ms, const char *s, const char *p) {
    if (*p == '\0' || *(p + 1) == '\0') luaL_error(ms->L, "unbalanced pattern");
    if (s >= ms->src_end || *s != *p) return NULL;
    int b = *p, e = *(p + 1), cont = 1;
    while (++s < ms->src_end) {
        strmatchStep(ms);
        if (*s == e) {
            if (--cont == 0) return s + 1;
        } else if (*s == b) {
            cont++;
        }
    }
    return NULL;
}

static const char *strmatchMaxExpand(matchState *ms, const char *s, const char *p, const char *ep) {
    ptrdiff_t i = 0;
    while (s + i < ms->src_end && strmatchSingle((unsigned char)s[i], p, ep)) {
        strmatchStep(ms);
        i++;
    }
    /* Try with the longest run first, then one less each time. */
    while (i >= 0) {
        const char *res = strmatchMatch(ms, s + i, ep + 1);
        if (res) return res;
        i--;
    }
    return NULL;
}

static const char *strmatchMinExpand(matchState *ms, const char *s, const char *p, const char *ep) {
    for (;;) {
        const char *res = strmatchMatch(ms, s, ep + 1);
        if (res) return res;
        if (s < ms->src_end && strmatchSingle((unsigned char)*s, p, ep)) s++;
        else return NULL;
    }
}

static const char *strmatchStartCapture(matchState *ms, const char *s, const char *p, int what) {
    int level = ms->level;
    if (level >= STRMATCH_MAX_CAPTURES) luaL_error(ms->L, "too many captures");
    ms->capture[level].init = s;
    ms->capture[level].len = what;
    ms->level = level + 1;
    const char *res = strmatchMatch(ms, s, p);
    if (res == NULL) ms->level--; /* undo the capture */
    return res;
}

static int strmatchCaptureToClose(matchState *ms) {
    int level = ms->level;
    for (level--; level >= 0; level--)
        if (ms->capture[level].len == CAP_UNFINISHED) return level;
    return luaL_error(ms->L, "invalid pattern capture");
}

static const char *strmatchEndCapture(matchState *ms, const char *s, const char *p) {
    int l = strmatchCaptureToClose(ms);
    ms->capture[l].len = s - ms->capture[l].init;
    const char *res = strmatchMatch(ms, s, p);
    if (res == NULL) ms->capture[l].len = CAP_UNFINISHED;
    return res;
}

static int strmatchCheckCapture(matchState *ms, int l) {
    l -= '1';
    if (l < 0 || l >= ms->level || ms->capture[l].len == CAP_UNFINISHED)
        return luaL_error(ms->L, "invalid capture index");
    return l;
}

static const char *strmatchBackref(matchState *ms, const char *s, int l) {
    l = strmatchCheckCapture(ms, l);
    size_t len = (size_t)ms->capture[l].len;
    if ((size_t)(ms->src_end - s) >= len && memcmp(ms->capture[l].init, s, len) == 0) return s + len;
    return NULL;
}

/* The body of strmatchMatch(), which bounds its depth. */
static const char *strmatchMatchItems(matchState *ms, const char *s, const char *p) {
    for (;;) {
        strmatchStep(ms);
        switch (*p) {
        case '(':
            if (*(p + 1) == ')') return strmatchStartCapture(ms, s, p + 2, CAP_POSITION);
            return strmatchStartCapture(ms, s, p + 1, CAP_UNFINISHED);
        case ')': return strmatchEndCapture(ms, s, p + 1);
        case '\0': return s; /* end of pattern */
        case '$':
            if (*(p + 1) == '\0') return s == ms->src_end ? s : NULL;
            break; /* a '$' elsewhere is an ordinary character */
        case STRMATCH_ESC:
            if (*(p + 1) == 'b') {
                s = strmatchBalance(ms, s, p + 2);
                if (s == NULL) return NULL;
                p += 4;
                continue;
            }
            if (*(p + 1) == 'f') {
                p += 2;
                if (*p != '[') luaL_error(ms->L, "missing '[' after '%%f' in pattern");
                const char *ep = strmatchClassEnd(ms, p);
                int previous = (s == ms->src_init) ? '\0' : (unsigned char)*(s - 1);
                if (strmatchBracketClass(previous, p, ep - 1) || !strmatchBracketClass((unsigned char)*s, p, ep - 1))
                    return NULL;
                p = ep;
                continue;
            }
            if (isdigit((unsigned char)*(p + 1))) {
                s = strmatchBackref(ms, s, (unsigned char)*(p + 1));
                if (s == NULL) return NULL;
                p += 2;
                continue;
            }
            break;
        default: break;
        }
        /* One single-character class, maybe quantified. */
        const char *ep = strmatchClassEnd(ms, p);
        int m = s < ms->src_end && strmatchSingle((unsigned char)*s, p, ep);
        switch (*ep) {
        case '?': {
            const char *res;
            if (m && (res = strmatchMatch(ms, s + 1, ep + 1)) != NULL) return res;
            p = ep + 1;
            continue;
        }
        case '*': return strmatchMaxExpand(ms, s, p, ep);
        case '+': return m ? strmatchMaxExpand(ms, s + 1, p, ep) : NULL;
        case '-': return strmatchMinExpand(ms, s, p, ep);
        default:
            if (!m) return NULL;
            s++;
            p = ep;
            continue;
        }
    }
}

/* Matches pattern p at s: the end of the match, or NULL. */
static const char *strmatchMatch(matchState *ms, const char *s, const char *p) {
    if (++ms->depth > STRMATCH_MAX_DEPTH) luaL_error(ms->L, "pattern too complex");
    const char *res = strmatchMatchItems(ms, s, p);
    ms->depth--;
    return res;
}

/* ---------------------------------------------------------------------------
 * Captures to Lua values
 * ------------------------------------------------------------------------- */

static void strmatchPushOneCapture(matchState *ms, int i, const char *s, const char *e) {
    if (i >= ms->level) {
        if (i == 0) lua_pushlstring(ms->L, s, (size_t)(e - s)); /* the whole match */
        else luaL_error(ms->L, "invalid capture index");
        return;
    }
    ptrdiff_t l = ms->capture[i].len;
    if (l == CAP_UNFINISHED) luaL_error(ms->L, "unfinished capture");
    if (l == CAP_POSITION) lua_pushinteger(ms->L, ms->capture[i].init - ms->src_init + 1);
    else lua_pushlstring(ms->L, ms->capture[i].init, (size_t)l);
}

static int strmatchPushCaptures(matchState *ms, const char *s, const char *e) {
    int n = (ms->level == 0 && s) ? 1 : ms->level;
    luaL_checkstack(ms->L, n, "too many captures");
    for (int i = 0; i < n; i++) strmatchPushOneCapture(ms, i, s, e);
    return n;
}

static void strmatchInit(matchState *ms, lua_State *L, const char *s, size_t len) {
    ms->L = L;
    ms->src_init = s;
    ms->src_end = s + len;
    ms->level = 0;
    ms->depth = 0;
    ms->steps = 0;
}

/* ---------------------------------------------------------------------------
 * find, match, gmatch, gsub
 * ------------------------------------------------------------------------- */

/* A negative position counts from the end (-1 is the last character). */
static ptrdiff_t strmatchPosRelative(ptrdiff_t pos, size_t len) {
    if (pos < 0) pos += (ptrdiff_t)len + 1;
    return pos >= 0 ? pos : 0;
}

/* Plain search of s2 in s1 (memmem with Lua's conventions). */
static const char *strmatchFindPlain(const char *s1, size_t l1, const char *s2, size_t l2) {
    if (l2 == 0) return s1;
    if (l2 > l1) return NULL;
    const char *last = s1 + (l1 - l2);
    for (const char *p = s1; p <= last; p++) {
        p = memchr(p, *s2, (size_t)(last - p) + 1);
        if (p == NULL) return NULL;
        if (memcmp(p + 1, s2 + 1, l2 - 1) == 0) return p;
    }
    return NULL;
}

static int strmatchFindAux(lua_State *L, int find) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    ptrdiff_t init = strmatchPosRelative(luaL_optinteger(L, 3, 1), ls) - 1;
    if (init < 0) init = 0;
    else if ((size_t)init > ls) init = (ptrdiff_t)ls;
    if (find && (lua_toboolean(L, 4) || strpbrk(p, STRMATCH_SPECIALS) == NULL)) {
        const char *s2 = strmatchFindPlain(s + init, ls - (size_t)init, p, lp);
        if (s2) {
            lua_pushinteger(L, s2 - s + 1);
            lua_pushinteger(L, (lua_Integer)(s2 - s + lp));
            return 2;
        }
    } else {
        matchState ms;
        int anchor = (*p == '^');
        if (anchor) p++;
        const char *s1 = s + init;
        strmatchInit(&ms, L, s, ls);
        do {
            const char *res;
            ms.level = 0;
            ms.depth = 0;
            if ((res = strmatchMatch(&ms, s1, p)) != NULL) {
                if (find) {
                    lua_pushinteger(L, s1 - s + 1);
                    lua_pushinteger(L, res - s);
                    return strmatchPushCaptures(&ms, NULL, 0) + 2;
                }
                return strmatchPushCaptures(&ms, s1, res);
            }
        } while (s1++ < ms.src_end && !anchor);
    }
    lua_pushnil(L);
    return 1;
}

static int strmatchFind(lua_State *L) {
    return strmatchFindAux(L, 1);
}

static int strmatchMatchFn(lua_State *L) {
    return strmatchFindAux(L, 0);
}

/* The iterator gmatch returns: upvalues subject, pattern, next offset. */
static int strmatchGmatchNext(lua_State *L) {
    size_t ls;
    const char *s = lua_tolstring(L, lua_upvalueindex(1), &ls);
    const char *p = lua_tostring(L, lua_upvalueindex(2));
    matchState ms;
    strmatchInit(&ms, L, s, ls);
    for (const char *src = s + lua_tointeger(L, lua_upvalueindex(3)); src <= ms.src_end; src++) {
        const char *e;
        ms.level = 0;
        ms.depth = 0;
        if ((e = strmatchMatch(&ms, src, p)) != NULL) {
            lua_Integer next = e - s;
            if (e == src) next++; /* an empty match: move on at least one */
            lua_pushinteger(L, next);
            lua_replace(L, lua_upvalueindex(3));
            return strmatchPushCaptures(&ms, src, e);
        }
    }
    return 0;
}

static int strmatchGmatch(lua_State *L) {
    luaL_checkstring(L, 1);
    luaL_checkstring(L, 2);
    lua_settop(L, 2);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, strmatchGmatchNext, 3);
    return 1;
}

/* Appends gsub's string replacement (argument 3) for the match s..e. */
static void strmatchAddString(matchState *ms, luaL_Buffer *b, const char *s, const char *e) {
    size_t l;
    const char *news = lua_tolstring(ms->L, 3, &l);
    for (size_t i = 0; i < l; i++) {
        if (news[i] != STRMATCH_ESC) {
            luaL_addchar(b, news[i]);
            continue;
        }
        i++; /* skip the escape */
        if (!isdigit((unsigned char)news[i])) {
            luaL_addchar(b, news[i]);
        } else if (news[i] == '0') {
            luaL_addlstring(b, s, (size_t)(e - s));
        } else {
            strmatchPushOneCapture(ms, news[i] - '1', s, e);
            luaL_addvalue(b); /* adds the capture (converted to a string) */
        }
    }
}

static void strmatchAddValue(matchState *ms, luaL_Buffer *b, const char *s, const char *e) {
    lua_State *L = ms->L;
    switch (lua_type(L, 3)) {
    case LUA_TNUMBER:
    case LUA_TSTRING: strmatchAddString(ms, b, s, e); return;
    case LUA_TFUNCTION: {
        lua_pushvalue(L, 3);
        int n = strmatchPushCaptures(ms, s, e);
        lua_call(L, n, 1);
        break;
    }
    case LUA_TTABLE:
        strmatchPushOneCapture(ms, 0, s, e);
        lua_gettable(L, 3);
        break;
    }
    if (!lua_toboolean(L, -1)) { /* nil or false: keep the original text */
        lua_pop(L, 1);
        lua_pushlstring(L, s, (size_t)(e - s));
    } else if (!lua_isstring(L, -1)) {
        luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    }
    luaL_addvalue(b);
}

static int strmatchGsub(lua_State *L) {
    size_t srcl;
    const char *src = luaL_checklstring(L, 1, &srcl);
    const char *p = luaL_checkstring(L, 2);
    int tr = lua_type(L, 3);
    int max_s = luaL_optint(L, 4, (int)(srcl < (size_t)0x7ffffffe ? srcl + 1 : 0x7fffffff));
    int anchor = (*p == '^');
    if (anchor) p++;
    luaL_argcheck(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE, 3,
                  "string/function/table expected");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    matchState ms;
    strmatchInit(&ms, L, src, srcl);
    int n = 0;
    while (n < max_s) {
        const char *e;
        ms.level = 0;
        ms.depth = 0;
        e = strmatchMatch(&ms, src, p);
        if (e) {
            n++;
            strmatchAddValue(&ms, &b, src, e);
        }
        if (e && e > src) src = e; /* a non-empty match: go on after it */
        else if (src < ms.src_end) luaL_addchar(&b, *src++);
        else break;
        if (anchor) break;
    }
    luaL_addlstring(&b, src, (size_t)(ms.src_end - src));
    luaL_pushresult(&b);
    lua_pushinteger(L, n);
    return 2;
}

/* See lua_libs.h. */
void luaopenStrmatch(lua_State *L, strmatchCheckpoint checkpoint) {
    static const luaL_Reg funcs[] = {
        {"find", strmatchFind},
        {"match", strmatchMatchFn},
        {"gmatch", strmatchGmatch},
        {"gsub", strmatchGsub},
        {NULL, NULL},
    };
    strmatchCheck = checkpoint;
    lua_getglobal(L, "string");
    for (const luaL_Reg *r = funcs; r->name; r++) {
        lua_pushcfunction(L, r->func);
        lua_setfield(L, -2, r->name);
    }
    lua_pop(L, 1);
}
