/* cli_reply.c - parses one RESP2/RESP3 reply into a cliReply tree.
 *
 * valkey-cli reads bytes from its connection into a buffer and calls
 * cliReplyParse() after each read: it answers "need more bytes" (0), "this
 * many bytes were one reply" (the tree is returned), or "not RESP" (-1 and
 * a message). Parsing restarts from the start of the reply after every
 * read; callers grow their read size geometrically so a large reply is
 * rescanned only a few times.
 *
 * Attributes (|) are parsed and dropped, as the cli ignores them; the
 * reply they annotate is returned. Nesting is bounded by
 * CLI_REPLY_MAX_DEPTH so a hostile server cannot exhaust the stack.
 * Formatting lives in cli_output.c. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli_reply.h"
#include "util.h"
#include "zmalloc.h"

/* Result codes of the recursive parser. */
#define PARSE_INCOMPLETE 0
#define PARSE_ERROR -1

typedef struct parseState {
    const char *buf;
    size_t len;
    size_t pos;
    char *err;
    size_t errlen;
} parseState;

/* Returns a new zeroed reply node of the given type. */
static cliReply *replyNew(cliReplyType type) {
    cliReply *r = zcalloc(sizeof(*r));
    r->type = type;
    return r;
}

/* Creates a scalar reply holding a copy of s; owned by the caller. */
cliReply *cliReplyCreateString(cliReplyType type, const char *s, size_t len) {
    cliReply *r = replyNew(type);
    r->str = zmalloc(len + 1);
    memcpy(r->str, s, len);
    r->str[len] = '\0';
    r->len = len;
    return r;
}

/* Frees r and everything below it. NULL is a no-op. */
void cliReplyFree(cliReply *r) {
    if (!r) return;
    for (size_t j = 0; j < r->elements; j++) cliReplyFree(r->element[j]);
    zfree(r->element);
    zfree(r->str);
    zfree(r);
}

/* True for the types that hold elements. */
int cliReplyIsAggregate(const cliReply *r) {
    return r->type == CLI_REPLY_ARRAY || r->type == CLI_REPLY_SET || r->type == CLI_REPLY_MAP ||
           r->type == CLI_REPLY_PUSH;
}

/* Finds the line at st->pos. Sets *line and *linelen (without CRLF) and moves
 * pos past the CRLF. */
static int readLine(parseState *st, const char **line, size_t *linelen) {
    const char *start = st->buf + st->pos;
    size_t avail = st->len - st->pos;
    const char *cr = memchr(start, '\r', avail);
    if (!cr || (size_t)(cr - start) + 1 >= avail) return PARSE_INCOMPLETE;
    if (cr[1] != '\n') {
        snprintf(st->err, st->errlen, "Protocol error, bad line terminator");
        return PARSE_ERROR;
    }
    *line = start;
    *linelen = (size_t)(cr - start);
    st->pos += *linelen + 2;
    return 1;
}

static int parseValue(parseState *st, cliReply **out, int depth);

/* Parses the length of a header line; -1 lengths are allowed (null). A
 * map or attribute length counts pairs, so it must still fit in a long long
 * once doubled. */
static int parseLength(parseState *st, const char *line, size_t linelen, long long *n) {
    int pairs = line[0] == '%' || line[0] == '|';
    if (!string2ll(line + 1, linelen - 1, n) || *n < -1 || (pairs && *n > LLONG_MAX / 2)) {
        snprintf(st->err, st->errlen, "Protocol error, bad length '%.*s'", (int)(linelen > 40 ? 40 : linelen), line);
        return PARSE_ERROR;
    }
    return 1;
}

/* Parses n values into r->element (n*2 for maps already applied). */
static int parseElements(parseState *st, cliReply *r, long long n, int depth) {
    /* Do not trust n for the allocation: grow as elements arrive. */
    size_t cap = 0;
    for (long long j = 0; j < n; j++) {
        cliReply *child;
        int ret = parseValue(st, &child, depth + 1);
        if (ret <= 0) return ret;
        if (r->elements == cap) {
            cap = cap ? cap * 2 : (n < 16 ? (size_t)n : 16);
            r->element = zrealloc(r->element, cap * sizeof(cliReply *));
        }
        r->element[r->elements++] = child;
    }
    return 1;
}

/* Parses one value (skipping attributes in front of it). Returns 1 with
 * *out set, PARSE_INCOMPLETE or PARSE_ERROR (with *out NULL). */
static int parseValue(parseState *st, cliReply **out, int depth) {
    const char *line;
    size_t linelen;
    long long n;
    int ret;
    *out = NULL;
    if (depth > CLI_REPLY_MAX_DEPTH) {
        snprintf(st->err, st->errlen, "Protocol error, reply nested too deeply");
        return PARSE_ERROR;
    }
    for (;;) {
        if ((ret = readLine(st, &line, &linelen)) <= 0) return ret;
        if (linelen == 0) {
            snprintf(st->err, st->errlen, "Protocol error, empty line");
            return PARSE_ERROR;
        }
        if (line[0] != '|') break;
        /* An attribute: parse its map and drop it. */
        if ((ret = parseLength(st, line, linelen, &n)) <= 0) return ret;
        cliReply *attr = replyNew(CLI_REPLY_MAP);
        ret = parseElements(st, attr, n < 0 ? 0 : n * 2, depth);
        cliReplyFree(attr);
        if (ret <= 0) return ret;
    }

    cliReply *r = NULL;
    switch (line[0]) {
    case '+': r = cliReplyCreateString(CLI_REPLY_STATUS, line + 1, linelen - 1); break;
    case '-': r = cliReplyCreateString(CLI_REPLY_ERROR, line + 1, linelen - 1); break;
    case ',': r = cliReplyCreateString(CLI_REPLY_DOUBLE, line + 1, linelen - 1); break;
    case '(': r = cliReplyCreateString(CLI_REPLY_BIGNUM, line + 1, linelen - 1); break;
    case '_': r = replyNew(CLI_REPLY_NIL); break;
    case ':':
        if (!string2ll(line + 1, linelen - 1, &n)) {
            snprintf(st->err, st->errlen, "Protocol error, bad integer");
            return PARSE_ERROR;
        }
        r = replyNew(CLI_REPLY_INTEGER);
        r->integer = n;
        break;
    case '#':
        if (linelen != 2 || (line[1] != 't' && line[1] != 'f')) {
            snprintf(st->err, st->errlen, "Protocol error, bad boolean");
            return PARSE_ERROR;
        }
        r = replyNew(CLI_REPLY_BOOL);
        r->integer = line[1] == 't';
        break;
    case '$':
    case '!':
    case '=': {
        if ((ret = parseLength(st, line, linelen, &n)) <= 0) return ret;
        if (n < 0) {
            r = replyNew(CLI_REPLY_NIL);
            break;
        }
        if (st->len - st->pos < (size_t)n + 2) return PARSE_INCOMPLETE;
        const char *data = st->buf + st->pos;
        if (data[n] != '\r' || data[n + 1] != '\n') {
            snprintf(st->err, st->errlen, "Protocol error, bad bulk string terminator");
            return PARSE_ERROR;
        }
        st->pos += (size_t)n + 2;
        if (line[0] == '=') {
            if (n < 4 || data[3] != ':') {
                snprintf(st->err, st->errlen, "Protocol error, bad verbatim string");
                return PARSE_ERROR;
            }
            r = cliReplyCreateString(CLI_REPLY_VERB, data + 4, (size_t)n - 4);
            memcpy(r->vtype, data, 3);
        } else {
            r = cliReplyCreateString(line[0] == '$' ? CLI_REPLY_STRING : CLI_REPLY_ERROR, data, (size_t)n);
        }
        break;
    }
    case '*':
    case '~':
    case '%':
    case '>': {
        if ((ret = parseLength(st, line, linelen, &n)) <= 0) return ret;
        if (n < 0) {
            r = replyNew(CLI_REPLY_NIL);
            break;
        }
        cliReplyType t = line[0] == '*'   ? CLI_REPLY_ARRAY
                         : line[0] == '~' ? CLI_REPLY_SET
                         : line[0] == '%' ? CLI_REPLY_MAP
                                          : CLI_REPLY_PUSH;
        r = replyNew(t);
        ret = parseElements(st, r, t == CLI_REPLY_MAP ? n * 2 : n, depth);
        if (ret <= 0) {
            cliReplyFree(r);
            return ret;
        }
        break;
    }
    default:
        snprintf(st->err, st->errlen, "Protocol error, got \"%c\" as reply type byte", line[0]);
        return PARSE_ERROR;
    }
    *out = r;
    return 1;
}

/* Parses one complete reply at buf. Returns the bytes it took, with *out
 * the tree (owned by the caller: cliReplyFree()); 0 when more bytes are
 * needed; -1 when the bytes are not RESP, with a message in err. */
ssize_t cliReplyParse(const char *buf, size_t len, cliReply **out, char *err, size_t errlen) {
    parseState st = {.buf = buf, .len = len, .pos = 0, .err = err, .errlen = errlen};
    int ret = parseValue(&st, out, 0);
    if (ret == 1) return (ssize_t)st.pos;
    return ret == PARSE_INCOMPLETE ? 0 : -1;
}
