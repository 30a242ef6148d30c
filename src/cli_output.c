/* cli_output.c - valkey-cli's reply formats.
 *
 * cliFormatReply() renders one reply tree (cli_reply.c) the way the cli
 * prints it, including the final newline:
 *   - STANDARD, for terminals and --no-raw: typed scalars ("(integer) 1",
 *     "(nil)", "(error) ERR x", "(double) 1.5", "(true)", "(big number)
 *     123"), quoted and escaped strings, numbered aggregates ("1) " arrays,
 *     "1~ " sets, "1# key => value" maps) whose continuation lines are
 *     indented under the first element, and "(empty array)" and friends;
 *   - RAW, the default when stdout is not a terminal: bytes as they are,
 *     aggregates one element per line (or per -d delimiter), map pairs as
 *     "key value";
 *   - CSV: one line, elements separated by commas, strings quoted;
 *   - JSON / QUOTED_JSON: arrays, objects for maps (keys made strings),
 *     null, booleans; errors as error:"...".
 * cliFormatLdbReply() renders what the Lua debugger answers in a --ldb
 * session: its log lines one per line, coloured by their tag on a colour
 * terminal, and it tells when the "<endsession>" mark came.
 * Verbatim strings are printed as their text in every format but CSV and
 * JSON, where they are strings. Callers own the returned sds.
 *
 * Pure code: no I/O, so unit/test_cli_output.c checks every format. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli_output.h"
#include "util.h"

/* Appends n spaces. */
static sds catSpaces(sds out, size_t n) {
    while (n--) out = sdscatlen(out, " ", 1);
    return out;
}

/* The "(empty ...)" line of an aggregate with no elements. */
static const char *emptyName(const cliReply *r) {
    switch (r->type) {
    case CLI_REPLY_SET: return "(empty set)";
    case CLI_REPLY_MAP: return "(empty hash)";
    case CLI_REPLY_PUSH: return "(empty push)";
    default: return "(empty array)";
    }
}

/* ---------------------------------------------------------------------------
 * Terminal format
 * ------------------------------------------------------------------------- */

/* True when the terminal format of r takes more than one line: an
 * aggregate of several elements (pairs for a map), or of one multi-line
 * element. A multi-line map value starts on its own line. */
static int isMultiline(const cliReply *r) {
    if (!cliReplyIsAggregate(r) || r->elements == 0) return 0;
    if (r->type == CLI_REPLY_MAP) return r->elements > 2 || isMultiline(r->element[1]);
    return r->elements > 1 || isMultiline(r->element[0]);
}

/* Formats r for a terminal. The first line continues wherever the caller
 * left off (after a parent's "1) "); every further line starts with indent
 * spaces. Always ends with a newline. */
sds cliFormatTTY(sds out, const cliReply *r, size_t indent) {
    char buf[64];
    switch (r->type) {
    case CLI_REPLY_STRING: out = sdscatrepr(out, r->str, r->len); break;
    case CLI_REPLY_STATUS:
    case CLI_REPLY_VERB: out = sdscatlen(out, r->str, r->len); break;
    case CLI_REPLY_ERROR:
        out = sdscat(out, "(error) ");
        out = sdscatlen(out, r->str, r->len);
        break;
    case CLI_REPLY_INTEGER: out = sdscatprintf(out, "(integer) %lld", r->integer); break;
    case CLI_REPLY_NIL: out = sdscat(out, "(nil)"); break;
    case CLI_REPLY_DOUBLE:
        out = sdscat(out, "(double) ");
        out = sdscatlen(out, r->str, r->len);
        break;
    case CLI_REPLY_BOOL: out = sdscat(out, r->integer ? "(true)" : "(false)"); break;
    case CLI_REPLY_BIGNUM:
        out = sdscat(out, "(big number) ");
        out = sdscatlen(out, r->str, r->len);
        break;
    case CLI_REPLY_ARRAY:
    case CLI_REPLY_SET:
    case CLI_REPLY_PUSH:
    case CLI_REPLY_MAP: {
        if (r->elements == 0) {
            out = sdscat(out, emptyName(r));
            break;
        }
        int ismap = r->type == CLI_REPLY_MAP;
        size_t count = ismap ? r->elements / 2 : r->elements;
        char mark = ismap ? '#' : (r->type == CLI_REPLY_SET ? '~' : ')');
        int width = ll2string(buf, sizeof(buf), (long long)count);
        size_t child_indent = indent + (size_t)width + 2;
        for (size_t j = 0; j < count; j++) {
            if (j > 0) out = catSpaces(out, indent);
            out = sdscatprintf(out, "%*zu%c ", width, j + 1, mark);
            if (!ismap) {
                out = cliFormatTTY(out, r->element[j], child_indent);
                continue;
            }
            /* "key => value"; an aggregate value starts on its own line,
             * indented like its siblings' children. */
            const cliReply *key = r->element[j * 2], *val = r->element[j * 2 + 1];
            sds k = cliFormatTTY(sdsempty(), key, child_indent);
            sdsrange(k, 0, -2); /* Drop its newline. */
            out = sdscatsds(out, k);
            sdsfree(k);
            out = sdscat(out, " => ");
            if (isMultiline(val)) {
                out = sdscat(out, "\n");
                out = catSpaces(out, child_indent);
            }
            out = cliFormatTTY(out, val, child_indent);
        }
        return out; /* Each element ended its own line. */
    }
    }
    return sdscat(out, "\n");
}

/* ---------------------------------------------------------------------------
 * Raw format
 * ------------------------------------------------------------------------- */

/* Formats r as raw bytes without a final newline: aggregates put delim
 * (-d, "\n" by default) between their elements, map pairs as "key value". */
sds cliFormatRawDelim(sds out, const cliReply *r, const char *delim) {
    switch (r->type) {
    case CLI_REPLY_STRING:
    case CLI_REPLY_STATUS:
    case CLI_REPLY_VERB:
    case CLI_REPLY_DOUBLE:
    case CLI_REPLY_BIGNUM: return sdscatlen(out, r->str, r->len);
    case CLI_REPLY_ERROR:
        /* Errors carry their own newline, so a raw error is followed by
         * an empty line, as in Valkey's cli. */
        out = sdscatlen(out, r->str, r->len);
        return sdscat(out, "\n");
    case CLI_REPLY_INTEGER: return sdscatprintf(out, "%lld", r->integer);
    case CLI_REPLY_NIL: return out;
    case CLI_REPLY_BOOL: return sdscat(out, r->integer ? "(true)" : "(false)");
    case CLI_REPLY_MAP:
        for (size_t j = 0; j + 1 < r->elements; j += 2) {
            if (j) out = sdscat(out, delim);
            out = cliFormatRawDelim(out, r->element[j], delim);
            out = sdscat(out, " ");
            out = cliFormatRawDelim(out, r->element[j + 1], delim);
        }
        return out;
    default:
        for (size_t j = 0; j < r->elements; j++) {
            if (j) out = sdscat(out, delim);
            out = cliFormatRawDelim(out, r->element[j], delim);
        }
        return out;
    }
}

/* cliFormatRawDelim() with the default delimiter, a newline. */
sds cliFormatRaw(sds out, const cliReply *r) {
    return cliFormatRawDelim(out, r, "\n");
}

/* ---------------------------------------------------------------------------
 * CSV
 * ------------------------------------------------------------------------- */

/* Formats r as CSV fields without a final newline. */
sds cliFormatCSV(sds out, const cliReply *r) {
    switch (r->type) {
    case CLI_REPLY_STRING:
    case CLI_REPLY_STATUS:
    case CLI_REPLY_VERB: return sdscatrepr(out, r->str, r->len);
    case CLI_REPLY_ERROR:
        out = sdscat(out, "ERROR,");
        return sdscatrepr(out, r->str, r->len);
    case CLI_REPLY_DOUBLE:
    case CLI_REPLY_BIGNUM: return sdscatlen(out, r->str, r->len);
    case CLI_REPLY_INTEGER: return sdscatprintf(out, "%lld", r->integer);
    case CLI_REPLY_NIL: return sdscat(out, "NULL");
    case CLI_REPLY_BOOL: return sdscat(out, r->integer ? "true" : "false");
    default:
        for (size_t j = 0; j < r->elements; j++) {
            if (j) out = sdscat(out, ",");
            out = cliFormatCSV(out, r->element[j]);
        }
        return out;
    }
}

/* ---------------------------------------------------------------------------
 * JSON
 * ------------------------------------------------------------------------- */

/* Appends s as a JSON string. Plain: control bytes become \uXXXX escapes
 * and other bytes pass through (so UTF-8 stays UTF-8). Quoted: the text is
 * first made ASCII-safe the way the terminal format quotes strings ("\xff",
 * "\n"), then that text is JSON-escaped. */
static sds catJSONString(sds out, const char *s, size_t len, int quoted) {
    sds tmp = NULL;
    if (quoted) {
        tmp = sdscatrepr(sdsempty(), s, len);
        s = tmp + 1; /* Without sdscatrepr's quotes. */
        len = sdslen(tmp) - 2;
    }
    out = sdscatlen(out, "\"", 1);
    for (size_t j = 0; j < len; j++) {
        unsigned char c = (unsigned char)s[j];
        switch (c) {
        case '"': out = sdscatlen(out, "\\\"", 2); break;
        case '\\': out = sdscatlen(out, "\\\\", 2); break;
        case '\n': out = sdscatlen(out, "\\n", 2); break;
        case '\r': out = sdscatlen(out, "\\r", 2); break;
        case '\t': out = sdscatlen(out, "\\t", 2); break;
        case '\b': out = sdscatlen(out, "\\b", 2); break;
        case '\f': out = sdscatlen(out, "\\f", 2); break;
        default:
            if (c < 0x20 || c == 0x7f)
                out = sdscatprintf(out, "\\u%04x", c);
            else
                out = sdscatlen(out, (const char *)&c, 1);
        }
    }
    sdsfree(tmp);
    return sdscatlen(out, "\"", 1);
}

/* Formats r as JSON without a final newline. Map keys that are not
 * strings are written as strings of their JSON text. */
sds cliFormatJSON(sds out, const cliReply *r, int quoted) {
    switch (r->type) {
    case CLI_REPLY_STRING:
    case CLI_REPLY_STATUS:
    case CLI_REPLY_VERB: return catJSONString(out, r->str, r->len, quoted);
    case CLI_REPLY_ERROR:
        out = sdscat(out, "error:");
        return catJSONString(out, r->str, r->len, 0);
    case CLI_REPLY_DOUBLE:
    case CLI_REPLY_BIGNUM: return sdscatlen(out, r->str, r->len);
    case CLI_REPLY_INTEGER: return sdscatprintf(out, "%lld", r->integer);
    case CLI_REPLY_NIL: return sdscat(out, "null");
    case CLI_REPLY_BOOL: return sdscat(out, r->integer ? "true" : "false");
    case CLI_REPLY_MAP:
        out = sdscat(out, "{");
        for (size_t j = 0; j + 1 < r->elements; j += 2) {
            const cliReply *key = r->element[j];
            if (j) out = sdscat(out, ",");
            if (key->type == CLI_REPLY_STRING || key->type == CLI_REPLY_STATUS || key->type == CLI_REPLY_VERB) {
                out = catJSONString(out, key->str, key->len, quoted);
            } else {
                sds k = cliFormatJSON(sdsempty(), key, quoted);
                out = catJSONString(out, k, sdslen(k), 0);
                sdsfree(k);
            }
            out = sdscat(out, ":");
            out = cliFormatJSON(out, r->element[j + 1], quoted);
        }
        return sdscat(out, "}");
    default:
        out = sdscat(out, "[");
        for (size_t j = 0; j < r->elements; j++) {
            if (j) out = sdscat(out, ",");
            out = cliFormatJSON(out, r->element[j], quoted);
        }
        return sdscat(out, "]");
    }
}

/* Appends r in the given mode, ending with a newline, to out; returns the
 * (possibly moved) sds. */
sds cliFormatReply(sds out, const cliReply *r, cliOutputMode mode) {
    switch (mode) {
    case CLI_OUTPUT_STANDARD: return cliFormatTTY(out, r, 0);
    case CLI_OUTPUT_RAW: out = cliFormatRaw(out, r); break;
    case CLI_OUTPUT_CSV: out = cliFormatCSV(out, r); break;
    case CLI_OUTPUT_JSON: out = cliFormatJSON(out, r, 0); break;
    case CLI_OUTPUT_QUOTED_JSON: out = cliFormatJSON(out, r, 1); break;
    }
    return sdscat(out, "\n");
}

/* ---------------------------------------------------------------------------
 * The Lua debugger's answers (--ldb)
 * ------------------------------------------------------------------------- */

/* Colours of the debugger's log lines: SGR colour codes, as Valkey's cli
 * picks them. */
#define LDB_WHITE 37
#define LDB_RED 31
#define LDB_GREEN 32
#define LDB_YELLOW 33
#define LDB_MAGENTA 35
#define LDB_CYAN 36

static int hasPrefix(const char *s, size_t len, const char *prefix) {
    size_t plen = strlen(prefix);
    return len >= plen && !memcmp(s, prefix, plen);
}

/* The colour of one log line, by its tag: "<debug>" and "<hint>" bold,
 * "<redis>" (a command the script ran) green, "<reply>" cyan, "<error>"
 * red, "<value>"/"<retval>" magenta; in a source listing ("-> 3   ...",
 * "  #5   ...": a digit in the fourth column) the current line yellow and
 * a breakpoint bold; anything else white. */
static int ldbLineColor(const char *s, size_t len, int *bold) {
    *bold = 0;
    if (len > 4 && isdigit((unsigned char)s[3])) {
        if (s[1] == '>') return LDB_YELLOW;
        if (s[2] == '#') *bold = 1;
        return LDB_WHITE;
    }
    if (hasPrefix(s, len, "<debug>") || hasPrefix(s, len, "<hint>")) *bold = 1;
    if (hasPrefix(s, len, "<redis>")) return LDB_GREEN;
    if (hasPrefix(s, len, "<reply>")) return LDB_CYAN;
    if (hasPrefix(s, len, "<error>")) return LDB_RED;
    if (hasPrefix(s, len, "<value>") || hasPrefix(s, len, "<retval>")) return LDB_MAGENTA;
    return LDB_WHITE;
}

/* Appends one element of a debugger answer: a log line (a status reply),
 * coloured when color is set, or nothing for the end mark (which sets
 * *ended); other replies as the raw format shows them. */
static sds catLdbElement(sds out, const cliReply *r, int color, int *ended) {
    if (r->type != CLI_REPLY_STATUS) {
        if (!cliReplyIsAggregate(r) || r->type == CLI_REPLY_MAP) return cliFormatRaw(out, r);
        for (size_t j = 0; j < r->elements; j++) {
            if (j) out = sdscat(out, "\n");
            out = catLdbElement(out, r->element[j], color, ended);
        }
        return out;
    }
    if (hasPrefix(r->str, r->len, CLI_LDB_END_MARK)) {
        *ended = 1;
        return out;
    }
    if (!color) return sdscatlen(out, r->str, r->len);
    int bold;
    int code = ldbLineColor(r->str, r->len, &bold);
    out = sdscatprintf(out, "\033[%d;%d;49m", bold, code);
    out = sdscatlen(out, r->str, r->len);
    return sdscat(out, "\033[0m");
}

/* Appends a debugger answer (usually an array of status lines): one
 * element per line, then a newline; the end mark adds nothing but its
 * line break, so an answer of the mark alone is an empty line, as in
 * Valkey's cli. *ended is set when the mark was there. */
sds cliFormatLdbReply(sds out, const cliReply *r, int color, int *ended) {
    *ended = 0;
    out = catLdbElement(out, r, color, ended);
    return sdscat(out, "\n");
}
