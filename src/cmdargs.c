/* cmdargs.c - parses a command's argument syntax string into the argument
 * tree of COMMAND DOCS. The notation and the naming/typing rules are
 * described in cmdargs.h.
 *
 * A recursive-descent parser over the string: a sequence is a list of
 * items (one per element written), a bracket holds alternatives separated
 * by '|', each alternative a sequence. Items remember the span of text
 * they came from, so the documentation idiom "x [x ...]" is recognised by
 * comparing the bracket's text with the text of the items before it, and
 * whether they were written as a bare token, so "[EX seconds]" can fold the
 * token into the argument it introduces.
 *
 * Called once per table row at server start-up (cmdinfo.c) and by the unit
 * test; nothing here is on a hot path. Leaf library: zmalloc only. */
#include "cmdargs.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "zmalloc.h"

/* ---------------------------------------------------------------------------
 * Trees
 * ------------------------------------------------------------------------- */

static const char *typeNames[] = {
    [CMDARG_STRING] = "string",         [CMDARG_INTEGER] = "integer", [CMDARG_DOUBLE] = "double",
    [CMDARG_KEY] = "key",               [CMDARG_PATTERN] = "pattern", [CMDARG_UNIX_TIME] = "unix-time",
    [CMDARG_PURE_TOKEN] = "pure-token", [CMDARG_ONEOF] = "oneof",     [CMDARG_BLOCK] = "block",
};

/* See cmdargs.h. */
const char *cmdArgTypeName(cmdArgType type) {
    return typeNames[type];
}

/* Frees what arg owns (not arg itself). */
static void cmdArgClear(cmdArg *arg) {
    zfree(arg->name);
    zfree(arg->token);
    cmdArgsFree(arg->subargs, arg->numsubargs);
    memset(arg, 0, sizeof(*arg));
}

/* See cmdargs.h. */
void cmdArgsFree(cmdArg *args, int numargs) {
    if (args == NULL) return;
    for (int j = 0; j < numargs; j++) cmdArgClear(&args[j]);
    zfree(args);
}

static char *dupLen(const char *s, size_t len) {
    char *d = zmalloc(len + 1);
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

/* The type of an argument written without ":type" (rules in cmdargs.h). */
static cmdArgType typeFromName(const char *name) {
    static const char *integers[] = {"count",        "cursor", "numkeys",   "offset",    "start", "end",
                                     "stop",         "index",  "seconds",   "milliseconds", "db", "increment",
                                     "decrement",    "limit",  "timeout",   "port",      NULL};
    size_t len = strlen(name);
    if (!strcmp(name, "destination") || !strcmp(name, "source") ||
        (len >= 3 && !strcmp(name + len - 3, "key")))
        return CMDARG_KEY;
    if (!strcmp(name, "pattern")) return CMDARG_PATTERN;
    if (!strcmp(name, "unix-time-seconds") || !strcmp(name, "unix-time-milliseconds")) return CMDARG_UNIX_TIME;
    for (int j = 0; integers[j]; j++)
        if (!strcmp(name, integers[j])) return CMDARG_INTEGER;
    return CMDARG_STRING;
}

/* The type named by the suffix of "name:type", or -1 if it names none. */
static int typeFromSuffix(const char *s, size_t len) {
    for (int t = CMDARG_STRING; t <= CMDARG_UNIX_TIME; t++)
        if (strlen(typeNames[t]) == len && !memcmp(typeNames[t], s, len)) return t;
    return -1;
}

/* ---------------------------------------------------------------------------
 * Parser state and item lists
 * ------------------------------------------------------------------------- */

typedef struct {
    const char *src; /* the whole string */
    const char *p;   /* cursor */
    char *err;
    size_t errlen;
} parser;

/* One element of a sequence as written. */
typedef struct {
    cmdArg arg;
    size_t start, end; /* its text: src[start, end) */
    int bare_token;    /* written as a lone unlabelled TOKEN */
} item;

typedef struct {
    item *v;
    int n, cap;
} itemList;

static void itemListPush(itemList *l, item it) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->v = zrealloc(l->v, sizeof(item) * l->cap);
    }
    l->v[l->n++] = it;
}

static void itemListFree(itemList *l) {
    for (int j = 0; j < l->n; j++) cmdArgClear(&l->v[j].arg);
    zfree(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* Records the error (the first one wins) and returns -1. */
static int parseFail(parser *ps, const char *fmt, ...) {
    if (ps->err && ps->errlen && ps->err[0] == '\0') {
        char what[128];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        snprintf(ps->err, ps->errlen, "%s at offset %d of \"%s\"", what, (int)(ps->p - ps->src), ps->src);
    }
    return -1;
}

static int isDelimiter(char c) {
    return c == '\0' || c == ' ' || c == '[' || c == ']' || c == '<' || c == '>' || c == '|';
}

static void skipSpaces(parser *ps) {
    while (*ps->p == ' ') ps->p++;
}

/* ---------------------------------------------------------------------------
 * Folding sequences into one argument
 * ------------------------------------------------------------------------- */

/* "a_b_c" from the names of args[0..n). */
static char *joinNames(cmdArg *args, int n) {
    size_t len = 0;
    for (int j = 0; j < n; j++) len += strlen(args[j].name) + 1;
    char *s = zmalloc(len + 1), *d = s;
    for (int j = 0; j < n; j++) {
        if (j) *d++ = '_';
        size_t l = strlen(args[j].name);
        memcpy(d, args[j].name, l);
        d += l;
    }
    *d = '\0';
    return s;
}

/* Moves items [from, to) of l into a new array of cmdArg. */
static cmdArg *takeArgs(itemList *l, int from, int to) {
    cmdArg *args = zmalloc(sizeof(cmdArg) * (to - from));
    for (int j = from; j < to; j++) {
        args[j - from] = l->v[j].arg;
        memset(&l->v[j].arg, 0, sizeof(cmdArg));
    }
    return args;
}

/* Folds items [from, to) of l into *out, following the rules of cmdargs.h:
 * one item is itself; TOKEN + one argument is that argument with the token;
 * TOKEN + more is a block introduced by the token; anything else a block.
 * The items' args are moved out (the items stay, emptied). Returns 1 when
 * the result carries the leading token, else 0. */
static int foldItems(itemList *l, int from, int to, cmdArg *out) {
    int count = to - from;
    item *first = &l->v[from];
    memset(out, 0, sizeof(*out));
    if (count == 1) {
        *out = first->arg;
        memset(&first->arg, 0, sizeof(cmdArg));
        return 0;
    }
    if (first->bare_token && count == 2 && l->v[from + 1].arg.token == NULL) {
        *out = l->v[from + 1].arg;
        memset(&l->v[from + 1].arg, 0, sizeof(cmdArg));
        out->token = first->arg.token;
        first->arg.token = NULL;
        return 1;
    }
    out->type = CMDARG_BLOCK;
    int tokened = first->bare_token;
    if (tokened) {
        out->token = first->arg.token;
        first->arg.token = NULL;
        from++;
    }
    out->subargs = takeArgs(l, from, to);
    out->numsubargs = to - from;
    out->name = joinNames(out->subargs, out->numsubargs);
    return tokened;
}

/* Replaces items [from, l->n) by one item holding *arg and spanning them. */
static void replaceTail(itemList *l, int from, cmdArg *arg) {
    item merged = {.arg = *arg, .start = l->v[from].start, .end = l->v[l->n - 1].end, .bare_token = 0};
    for (int j = from; j < l->n; j++) cmdArgClear(&l->v[j].arg);
    l->n = from;
    itemListPush(l, merged);
}

/* ---------------------------------------------------------------------------
 * Elements, groups and sequences
 * ------------------------------------------------------------------------- */

static int parseSequence(parser *ps, itemList *seq);

/* Parses a bracket at the cursor ('[' or '<') with its alternatives into
 * *out; the cursor ends after the closing bracket. */
static int parseGroup(parser *ps, cmdArg *out) {
    char close = *ps->p == '[' ? ']' : '>';
    cmdArg *alts = NULL;
    int nalts = 0;
    ps->p++;
    for (;;) {
        itemList seq = {0};
        if (parseSequence(ps, &seq) == -1) {
            itemListFree(&seq);
            goto err;
        }
        if (seq.n == 0) {
            itemListFree(&seq);
            parseFail(ps, "empty alternative");
            goto err;
        }
        alts = zrealloc(alts, sizeof(cmdArg) * (nalts + 1));
        foldItems(&seq, 0, seq.n, &alts[nalts++]);
        itemListFree(&seq);
        if (*ps->p == '|') {
            ps->p++;
            continue;
        }
        if (*ps->p != close) {
            parseFail(ps, "expected '%c'", close);
            goto err;
        }
        ps->p++;
        break;
    }
    if (nalts == 1) {
        *out = alts[0];
        zfree(alts);
    } else {
        memset(out, 0, sizeof(*out));
        out->type = CMDARG_ONEOF;
        out->subargs = alts;
        out->numsubargs = nalts;
        out->name = joinNames(alts, nalts);
    }
    if (close == ']') out->flags |= CMDARG_OPTIONAL;
    return 0;

err:
    cmdArgsFree(alts, nalts);
    return -1;
}

/* The offset of the bracket matching the one at s (brackets of both kinds
 * nest), or -1 if it is not closed. */
static long matchingBracket(const char *s) {
    int depth = 0;
    for (const char *q = s; *q; q++) {
        if (*q == '[' || *q == '<') depth++;
        if ((*q == ']' || *q == '>') && --depth == 0) return q - s;
    }
    return -1;
}

/* If the '[' at the cursor is "[x ...]" and x is exactly the text of the
 * last k items of seq, folds those items into one repeated argument, moves
 * the cursor past the bracket and returns 1; otherwise returns 0 and
 * changes nothing. */
static int parseRepetition(parser *ps, itemList *seq) {
    long close = matchingBracket(ps->p);
    if (close < 0 || seq->n == 0) return 0;
    const char *body = ps->p + 1;
    long len = close - 1;
    while (len > 0 && body[len - 1] == ' ') len--;
    if (len < 4 || memcmp(body + len - 4, " ...", 4) != 0) return 0;
    len -= 4;
    while (len > 0 && body[len - 1] == ' ') len--;
    for (int k = 1; k <= seq->n; k++) {
        int from = seq->n - k;
        const char *text = ps->src + seq->v[from].start;
        long tlen = (long)(seq->v[seq->n - 1].end - seq->v[from].start);
        if (tlen != len || memcmp(text, body, len) != 0) continue;
        if (k == 1) {
            seq->v[from].arg.flags |= CMDARG_MULTIPLE;
            seq->v[from].bare_token = 0;
        } else {
            cmdArg arg;
            int tokened = foldItems(seq, from, seq->n, &arg);
            arg.flags |= CMDARG_MULTIPLE | (tokened ? CMDARG_MULTIPLE_TOKEN : 0);
            replaceTail(seq, from, &arg);
        }
        seq->v[seq->n - 1].end = ps->p + close + 1 - ps->src;
        ps->p += close + 1;
        return 1;
    }
    return 0;
}

/* Parses the word w (name[:type] or TOKEN) into *out. */
static int parseWord(parser *ps, const char *w, size_t len, cmdArg *out, int *bare_token) {
    int has_lower = 0;
    for (size_t j = 0; j < len; j++)
        if (islower((unsigned char)w[j])) has_lower = 1;
    memset(out, 0, sizeof(*out));
    *bare_token = 0;
    if (!has_lower) {
        out->type = CMDARG_PURE_TOKEN;
        out->token = dupLen(w, len);
        out->name = dupLen(w, len);
        for (char *c = out->name; *c; c++) *c = tolower((unsigned char)*c);
        *bare_token = 1;
        return 0;
    }
    if (!islower((unsigned char)w[0])) return parseFail(ps, "argument names start with a lower-case letter");
    const char *colon = NULL; /* the last ':' */
    for (size_t j = 0; j < len; j++)
        if (w[j] == ':') colon = w + j;
    int type = colon ? typeFromSuffix(colon + 1, len - (colon + 1 - w)) : -1;
    if (type >= 0) {
        out->name = dupLen(w, colon - w);
        out->type = type;
    } else {
        out->name = dupLen(w, len);
        out->type = typeFromName(out->name);
    }
    return 0;
}

/* Parses one element at the cursor and appends it to seq (or, for "..."
 * and "[x ...]", marks the items already there as repeated). */
static int parseElement(parser *ps, itemList *seq) {
    item it = {.start = ps->p - ps->src};
    if (*ps->p == '[' && parseRepetition(ps, seq)) return 0;
    if (*ps->p == '[' || *ps->p == '<') {
        if (parseGroup(ps, &it.arg) == -1) return -1;
    } else {
        const char *w = ps->p;
        while (!isDelimiter(*ps->p)) ps->p++;
        size_t len = ps->p - w;
        if (len == 3 && !memcmp(w, "...", 3)) {
            if (seq->n == 0) return parseFail(ps, "'...' with nothing to repeat");
            seq->v[seq->n - 1].arg.flags |= CMDARG_MULTIPLE;
            seq->v[seq->n - 1].end = ps->p - ps->src;
            return 0;
        }
        const char *eq = islower((unsigned char)w[0]) ? memchr(w, '=', len) : NULL;
        char *label = NULL;
        if (eq) {
            label = dupLen(w, eq - w);
            len -= eq + 1 - w;
            w = eq + 1;
        }
        int rc;
        if (label && len == 0) {
            if (*ps->p != '[' && *ps->p != '<') {
                zfree(label);
                return parseFail(ps, "a label must be followed by its element");
            }
            rc = parseGroup(ps, &it.arg);
        } else {
            rc = parseWord(ps, w, len, &it.arg, &it.bare_token);
        }
        if (rc == -1) {
            zfree(label);
            return -1;
        }
        if (label) {
            zfree(it.arg.name);
            it.arg.name = label;
            it.bare_token = 0;
        }
    }
    it.end = ps->p - ps->src;
    itemListPush(seq, it);
    return 0;
}

/* Parses elements up to the end of the string, '|', ']' or '>'. */
static int parseSequence(parser *ps, itemList *seq) {
    for (;;) {
        skipSpaces(ps);
        char c = *ps->p;
        if (c == '\0' || c == '|' || c == ']' || c == '>') return 0;
        if (parseElement(ps, seq) == -1) return -1;
    }
}

/* See cmdargs.h. */
int cmdArgsParse(const char *syntax, cmdArg **args, int *numargs, char *err, size_t errlen) {
    parser ps = {.src = syntax, .p = syntax, .err = err, .errlen = errlen};
    itemList seq = {0};
    *args = NULL;
    *numargs = 0;
    if (err && errlen) err[0] = '\0';
    if (parseSequence(&ps, &seq) == -1) goto err;
    if (*ps.p != '\0') {
        parseFail(&ps, "unexpected '%c'", *ps.p);
        goto err;
    }
    if (seq.n) *args = takeArgs(&seq, 0, seq.n);
    *numargs = seq.n;
    itemListFree(&seq);
    return 0;

err:
    itemListFree(&seq);
    return -1;
}
