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
 * Verbatim strings are printed as their text in every format but CSV and
 * JSON, where they are strings. Callers own the returned sds.
 *
 * Pure code: no I/O, so unit/test_cli_output.c checks every format. */
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
