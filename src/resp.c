/* resp.c - incremental RESP multibulk parser and header encoder (resp.h).
 *
 * The parser never copies: it reports where each argument is in the
 * caller's buffer and advances *pos past what it consumed. It can be
 * stopped after any event and resumed with more bytes appended to the same
 * buffer (the caller may also move the unconsumed tail to the front between
 * calls, as long as *pos moves with it). Every length is checked before it
 * is used, so hostile input ("*999999999999", "$-7", a count line of a
 * megabyte without CRLF) ends in RESP_PARSE_ERROR with the reply Valkey
 * sends, never in a huge allocation or a read past the buffer. */
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
