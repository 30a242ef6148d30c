/* resp.c - incremental RESP multibulk parser and header encoder (resp.h).
 *
 * The parser never copies: it reports where each argument is in the
 * caller's buffer and advances *pos past what it consumed. It can be
 * stopped after any event and resumed with more bytes appended to the same
 * buffer (the caller may also move the unconsumed tail to the front between
 * calls, as long as *pos moves with it). Every length is checked before it
 * is used, so hostile input ("*999999999999", "$-7", a count line of a
 * megabyte without CRLF) ends in RESP_PARSE_ERROR with the reply Valkey
 * sends, never in a huge allocation or a read past the buffer.
 *
 * respParseRequest() is a one-pass shortcut for the common case, a whole
 * request with a few small arguments already in the buffer: it returns
 * every argument at once or declines without consuming anything, leaving
 * the event-by-event parser to handle the rest, errors included. */
#include "resp.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

void respParserInit(respMultibulkParser *p, long long max_bulk_len, size_t max_line) {
    memset(p, 0, sizeof(*p));
    p->max_bulk_len = max_bulk_len;
    p->max_line = max_line;
    p->bulklen = -1;
}

/* Forgets a partly parsed request (the limits stay). */
void respParserReset(respMultibulkParser *p) {
    p->args_left = 0;
    p->bulklen = -1;
    p->error[0] = '\0';
}

static respParseEvent parseError(respMultibulkParser *p, const char *msg) {
    snprintf(p->error, sizeof(p->error), "Protocol error: %s", msg);
    return RESP_PARSE_ERROR;
}

/* Parses the decimal number of a count or length line. Counts and lengths
 * are almost always short non-negative numbers: those are converted here
 * in a few instructions; anything else (signs, leading zeros, 19+ digits,
 * junk) gets string2ll()'s strict rules. Returns 1 on success, 0 if the
 * text is not a number. */
static inline int parseLength(const char *s, size_t len, long long *out) {
    if (len == 0 || len > 18 || (s[0] == '0' && len > 1)) return string2ll(s, len, out);
    long long v = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned char)s[i] - '0';
        if (d > 9) return string2ll(s, len, out);
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

/* parseNumberLine() for any line: finds the CR, then lets parseLength()
 * judge the text. Kept out of line so the fast path stays small. */
static __attribute__((noinline)) int parseNumberLineSlow(respMultibulkParser *p, const char *buf, size_t len,
                                                        size_t *pos, long long *out) {
    const char *start = buf + *pos;
    size_t avail = len - *pos;
    const char *cr = memchr(start, '\r', avail);
    if (cr == NULL || (size_t)(cr - start) + 1 >= avail) return avail > p->max_line ? -2 : 0;
    if (cr[1] != '\n') return -1;
    if (!parseLength(start + 1, cr - start - 1, out)) return -1;
    *pos += (cr - start) + 2;
    return 1;
}

/* Reads "<prefix><integer>\r\n" at buf[*pos]. Returns 1 with *out set and
 * *pos past the line, 0 if the line is not complete yet, -1 if it is not
 * an integer, -2 if it is longer than the parser allows.
 *
 * The usual line, 1 to 18 digits without a leading zero and then CRLF, is
 * converted here in one pass; anything else (signs, zeros, long numbers,
 * junk, an incomplete line) goes to parseNumberLineSlow(), which has the
 * final say on what is valid. */
static inline int parseNumberLine(respMultibulkParser *p, const char *buf, size_t len, size_t *pos,
                                  long long *out) {
    const char *digits = buf + *pos + 1, *end = buf + len, *q = digits;
    unsigned long long v = 0;
    unsigned d;
    while (q < end && (d = (unsigned char)*q - '0') <= 9) {
        v = v * 10 + d;
        q++;
    }
    size_t ndigits = q - digits;
    if (ndigits - 1 < 18 && end - q >= 2 && q[0] == '\r' && q[1] == '\n' && (digits[0] != '0' || ndigits == 1)) {
        *out = (long long)v;
        *pos += ndigits + 3;
        return 1;
    }
    return parseNumberLineSlow(p, buf, len, pos, out);
}

/* Advances over buf[*pos..len) to the next event (see resp.h). With
 * RESP_PARSE_COUNT and RESP_PARSE_BULK_LEN, *value is the number read; with
 * RESP_PARSE_ARG, *arg points at the argument in buf and *value is its
 * length (the CRLF after it has been consumed). */
respParseEvent respParseMultibulk(respMultibulkParser *p, const char *buf, size_t len, size_t *pos,
                                  long long *value, const char **arg) {
    long long ll;
    if (*pos >= len) return RESP_PARSE_NEED_MORE;

    if (p->args_left == 0) {
        if (buf[*pos] != '*') return parseError(p, "expected '*'");
        int r = parseNumberLine(p, buf, len, pos, &ll);
        if (r == 0) return RESP_PARSE_NEED_MORE;
        if (r == -2) return parseError(p, "too big mbulk count string");
        if (r == -1 || ll > INT_MAX) return parseError(p, "invalid multibulk length");
        if (ll > RESP_UNAUTH_MAX_ARGS && p->unauthenticated)
            return parseError(p, "unauthenticated multibulk length");
        p->args_left = ll > 0 ? ll : 0;
        p->bulklen = -1;
        *value = ll;
        return RESP_PARSE_COUNT;
    }

    if (p->bulklen == -1) {
        if (buf[*pos] != '$') {
            snprintf(p->error, sizeof(p->error), "Protocol error: expected '$', got '%c'", buf[*pos]);
            return RESP_PARSE_ERROR;
        }
        int r = parseNumberLine(p, buf, len, pos, &ll);
        if (r == 0) return RESP_PARSE_NEED_MORE;
        if (r == -2) return parseError(p, "too big bulk count string");
        if (r == -1 || ll < 0 || ll > p->max_bulk_len) return parseError(p, "invalid bulk length");
        if (ll > RESP_UNAUTH_MAX_BULK && p->unauthenticated) return parseError(p, "unauthenticated bulk length");
        p->bulklen = ll;
        *value = ll;
        if (ll >= p->quiet_len_below || len - *pos < (size_t)ll + 2) return RESP_PARSE_BULK_LEN;
        /* A short argument that is all there: go on and return it. */
    }

    size_t avail = len - *pos;
    if (avail < (size_t)p->bulklen + 2) return RESP_PARSE_NEED_MORE;
    if (buf[*pos + p->bulklen] != '\r' || buf[*pos + p->bulklen + 1] != '\n')
        return parseError(p, "invalid bulk length");
    *arg = buf + *pos;
    *value = p->bulklen;
    *pos += p->bulklen + 2;
    p->bulklen = -1;
    p->args_left--;
    return RESP_PARSE_ARG;
}

/* A length line of the one-pass path, "<prefix><digits>\r\n" at s with 1
 * to 18 digits and no leading zero (the form every client sends): returns
 * the number with *next past the line, or -1 for anything else, complete or
 * not (respParseMultibulk() then has the final say on it). One and two
 * digits, the lengths of counts, commands and keys, are read without a
 * loop. */
static inline long long quickLengthLine(const char *s, const char *end, char prefix, const char **next) {
    if (end - s < 4 || s[0] != prefix) return -1;
    unsigned d1 = (unsigned char)s[1] - '0', d2 = (unsigned char)s[2] - '0';
    if (d1 > 9) return -1;
    if (s[2] == '\r' && s[3] == '\n') {
        *next = s + 4;
        return d1;
    }
    if (d1 == 0 || d2 > 9 || end - s < 5) return -1;
    unsigned long long v = d1 * 10 + d2;
    const char *q = s + 3, *stop = end - s > 21 ? s + 19 : end - 2;
    unsigned d;
    while (q < stop && (d = (unsigned char)*q - '0') <= 9) {
        v = v * 10 + d;
        q++;
    }
    if (q + 2 > end || q[0] != '\r' || q[1] != '\n') return -1;
    *next = q + 2;
    return (long long)v;
}

/* One-pass form of respParseMultibulk() for a whole request already in the
 * buffer, the usual case when clients pipeline: at the start of a request
 * (nothing of it parsed yet), when "*<n>\r\n" and all n arguments are in
 * buf[*pos..len), n is 1..max, every length is below quiet_len_below and
 * within the limits, and every line is in the usual form, it sets args[i]
 * and lens[i] to each argument (in buf), advances *pos past the request
 * and returns n. Otherwise it returns 0 and changes nothing: the caller
 * goes on with respParseMultibulk(), which reaches the same arguments, or
 * the error or need for more bytes. The parser state is left as after a
 * complete request. */
int respParseRequest(respMultibulkParser *p, const char *buf, size_t len, size_t *pos, const char **args,
                     size_t *lens, int max) {
    if (p->args_left != 0 || p->bulklen != -1 || *pos >= len) return 0;
    const char *s = buf + *pos, *end = buf + len;
    long long n = quickLengthLine(s, end, '*', &s);
    if (n <= 0 || n > max || (p->unauthenticated && n > RESP_UNAUTH_MAX_ARGS)) return 0;
    long long below = p->quiet_len_below; /* lengths accepted: [0, below) */
    if (below > p->max_bulk_len) below = p->max_bulk_len + 1;
    if (p->unauthenticated && below > RESP_UNAUTH_MAX_BULK) below = RESP_UNAUTH_MAX_BULK + 1;
    for (long long i = 0; i < n; i++) {
        long long l = quickLengthLine(s, end, '$', &s);
        if (l < 0 || l >= below || end - s < l + 2 || s[l] != '\r' || s[l + 1] != '\n') return 0;
        args[i] = s;
        lens[i] = (size_t)l;
        s += l + 2;
    }
    *pos = s - buf;
    return (int)n;
}

size_t respEncodeHeader(char *dst, char prefix, long long n) {
    dst[0] = prefix;
    size_t len = 1 + ll2string(dst + 1, 21, n);
    dst[len++] = '\r';
    dst[len++] = '\n';
    return len;
}

size_t respEncodeBulk(char *dst, const void *p, size_t len) {
    size_t n = respEncodeHeader(dst, '$', (long long)len);
    memcpy(dst + n, p, len);
    n += len;
    dst[n++] = '\r';
    dst[n++] = '\n';
    return n;
}
