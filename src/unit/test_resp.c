/* test_resp.c - unit tests for the RESP multibulk parser and header encoder.
 *
 * The parser is driven over hand-written byte strings: whole requests,
 * the same requests fed one byte at a time (every event must come out the
 * same), pipelines, big arguments, and the hostile inputs whose replies the
 * server sends (bad counts, bad lengths, missing CRLF, over-long lines,
 * unauthenticated limits). */
#include <limits.h>

#include "../resp.h"
#include "unittest.h"

#define MAXLINE (64 * 1024)

/* Parses buf completely, appending "C<n> L<n> A<text> " per event to out;
 * stops at NEED_MORE or ERROR ("E<message>"). Returns the final event. */
static respParseEvent parseAll(respMultibulkParser *p, const char *buf, size_t len, size_t *pos, char *out,
                               size_t outlen) {
    respParseEvent ev;
    size_t used = strlen(out);
    while (1) {
        long long n = 0;
        const char *arg = NULL;
        ev = respParseMultibulk(p, buf, len, pos, &n, &arg);
        if (ev == RESP_PARSE_NEED_MORE) break;
        if (ev == RESP_PARSE_ERROR) {
            used += snprintf(out + used, outlen - used, "E%s", p->error);
            break;
        }
        if (ev == RESP_PARSE_COUNT) used += snprintf(out + used, outlen - used, "C%lld ", n);
        if (ev == RESP_PARSE_BULK_LEN) used += snprintf(out + used, outlen - used, "L%lld ", n);
        if (ev == RESP_PARSE_ARG) used += snprintf(out + used, outlen - used, "A%.*s ", (int)n, arg);
    }
    return ev;
}

/* The events of one request parsed from a single buffer. */
static const char *events(const char *req, int unauth) {
    static char out[4096];
    respMultibulkParser p;
    respParserInit(&p, 512LL * 1024 * 1024, MAXLINE);
    p.unauthenticated = unauth;
    size_t pos = 0;
    out[0] = '\0';
    parseAll(&p, req, strlen(req), &pos, out, sizeof(out));
    return out;
}

int main(int argc, char **argv) {
    UT_BEGIN(argv[0]);

    TEST("resp: a whole request gives count, lengths and arguments") {
        ASSERT(strcmp(events("*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n", 0), "C2 L3 AGET L3 Akey ") == 0);
    }

    TEST("resp: empty and negative counts are empty requests") {
        ASSERT(strcmp(events("*0\r\n", 0), "C0 ") == 0);
        ASSERT(strcmp(events("*-1\r\n", 0), "C-1 ") == 0);
    }

    TEST("resp: empty and binary arguments") {
        respMultibulkParser p;
        respParserInit(&p, 1024, MAXLINE);
        const char req[] = "*2\r\n$0\r\n\r\n$3\r\na\0b\r\n";
        size_t pos = 0;
        long long n;
        const char *arg;
        ASSERT(respParseMultibulk(&p, req, sizeof(req) - 1, &pos, &n, &arg) == RESP_PARSE_COUNT);
        ASSERT(respParseMultibulk(&p, req, sizeof(req) - 1, &pos, &n, &arg) == RESP_PARSE_BULK_LEN);
        ASSERT(respParseMultibulk(&p, req, sizeof(req) - 1, &pos, &n, &arg) == RESP_PARSE_ARG && n == 0);
        ASSERT(respParseMultibulk(&p, req, sizeof(req) - 1, &pos, &n, &arg) == RESP_PARSE_BULK_LEN);
        ASSERT(respParseMultibulk(&p, req, sizeof(req) - 1, &pos, &n, &arg) == RESP_PARSE_ARG);
        ASSERT(n == 3 && memcmp(arg, "a\0b", 3) == 0);
        ASSERT_EQ_LL(p.args_left, 0);
        ASSERT_EQ_LL(pos, sizeof(req) - 1);
    }

    TEST("resp: byte-at-a-time gives exactly the same events") {
        const char *req = "*3\r\n$3\r\nSET\r\n$10\r\nkey:000001\r\n$5\r\nhello\r\n*1\r\n$4\r\nPING\r\n";
        char whole[512] = "", split[512] = "";
        respMultibulkParser p;
        respParserInit(&p, 1024, MAXLINE);
        size_t pos = 0;
        parseAll(&p, req, strlen(req), &pos, whole, sizeof(whole));
        respParserInit(&p, 1024, MAXLINE);
        pos = 0;
        for (size_t len = 1; len <= strlen(req); len++) parseAll(&p, req, len, &pos, split, sizeof(split));
        ASSERT(strcmp(whole, "C3 L3 ASET L10 Akey:000001 L5 Ahello C1 L4 APING ") == 0);
        ASSERT(strcmp(whole, split) == 0);
        ASSERT_EQ_LL(pos, strlen(req));
    }

    TEST("resp: quiet_len_below skips the length event of short complete arguments only") {
        const char *req = "*3\r\n$3\r\nSET\r\n$10\r\nkey:000001\r\n$5\r\nhello\r\n*1\r\n$4\r\nPING\r\n";
        char whole[512] = "", split[512] = "";
        respMultibulkParser p;
        respParserInit(&p, 1024, MAXLINE);
        p.quiet_len_below = 8;
        size_t pos = 0;
        parseAll(&p, req, strlen(req), &pos, whole, sizeof(whole));
        ASSERT_STREQ(whole, "C3 ASET L10 Akey:000001 Ahello C1 APING ");
        /* Fed a byte at a time, arguments are never complete when their
         * length line is: every length is reported, the arguments too. */
        respParserInit(&p, 1024, MAXLINE);
        p.quiet_len_below = 8;
        pos = 0;
        for (size_t len = 1; len <= strlen(req); len++) parseAll(&p, req, len, &pos, split, sizeof(split));
        ASSERT_STREQ(split, "C3 L3 ASET L10 Akey:000001 L5 Ahello C1 L4 APING ");
        ASSERT_EQ_LL(pos, strlen(req));
        /* A bad terminator is still caught. */
        respParserInit(&p, 1024, MAXLINE);
        p.quiet_len_below = 8;
        pos = 0;
        whole[0] = '\0';
        parseAll(&p, "*1\r\n$2\r\nabc\r\n", 13, &pos, whole, sizeof(whole));
        ASSERT_STREQ(whole, "C1 EProtocol error: invalid bulk length");
    }

    TEST("resp: a big argument is reported once it is complete") {
        size_t big = 100000;
        char *req = malloc(big + 64);
        int hdr = snprintf(req, 64, "*1\r\n$%zu\r\n", big);
        memset(req + hdr, 'x', big);
        memcpy(req + hdr + big, "\r\n", 2);
        respMultibulkParser p;
        respParserInit(&p, 512LL * 1024 * 1024, MAXLINE);
        size_t pos = 0;
        long long n;
        const char *arg;
        ASSERT(respParseMultibulk(&p, req, hdr + big / 2, &pos, &n, &arg) == RESP_PARSE_COUNT);
        ASSERT(respParseMultibulk(&p, req, hdr + big / 2, &pos, &n, &arg) == RESP_PARSE_BULK_LEN && n == (long long)big);
        ASSERT(respParseMultibulk(&p, req, hdr + big + 1, &pos, &n, &arg) == RESP_PARSE_NEED_MORE);
        ASSERT(respParseMultibulk(&p, req, hdr + big + 2, &pos, &n, &arg) == RESP_PARSE_ARG);
        ASSERT(arg == req + hdr && n == (long long)big);
        free(req);
    }

    TEST("resp: protocol errors carry the replies Valkey sends") {
        ASSERT(strcmp(events("*abc\r\n", 0), "EProtocol error: invalid multibulk length") == 0);
        ASSERT(strcmp(events("*2147483648\r\n", 0), "EProtocol error: invalid multibulk length") == 0);
        ASSERT(strcmp(events("*1\r\nx\r\n", 0), "C1 EProtocol error: expected '$', got 'x'") == 0);
        ASSERT(strcmp(events("*1\r\n$-1\r\n", 0), "C1 EProtocol error: invalid bulk length") == 0);
        ASSERT(strcmp(events("*1\r\n$x\r\n", 0), "C1 EProtocol error: invalid bulk length") == 0);
        ASSERT(strcmp(events("*1\r\n$536870913\r\n", 0), "C1 EProtocol error: invalid bulk length") == 0);
        /* The bulk must be followed by CRLF exactly where its length says. */
        ASSERT(strcmp(events("*1\r\n$2\r\nabc\r\n", 0), "C1 L2 EProtocol error: invalid bulk length") == 0);
    }

    TEST("resp: count and length lines: digits, zeros, signs, 18 and 19 digits, bare CR") {
        ASSERT(strcmp(events("*1\r\n$0\r\n\r\n", 0), "C1 L0 A ") == 0);
        ASSERT(strcmp(events("*01\r\n", 0), "EProtocol error: invalid multibulk length") == 0); /* no leading zeros */
        ASSERT(strcmp(events("*+1\r\n", 0), "EProtocol error: invalid multibulk length") == 0);
        ASSERT(strcmp(events("*1\r\n$123456789012345678\r\n", 0), "C1 EProtocol error: invalid bulk length") == 0);
        ASSERT(strcmp(events("*1\r\n$1234567890123456789\r\n", 0), "C1 EProtocol error: invalid bulk length") == 0);
        ASSERT(strcmp(events("*1\r\n$1 \r\n", 0), "C1 EProtocol error: invalid bulk length") == 0);
        ASSERT(strcmp(events("*1\rx\r\n", 0), "EProtocol error: invalid multibulk length") == 0);
        ASSERT(strcmp(events("*\r\n", 0), "EProtocol error: invalid multibulk length") == 0);
        ASSERT(strcmp(events("*12", 0), "") == 0);     /* incomplete: wait */
        ASSERT(strcmp(events("*12\r", 0), "") == 0);
    }

    TEST("resp: lines too long without CRLF are errors, short ones wait") {
        char *req = malloc(MAXLINE + 16);
        req[0] = '*';
        memset(req + 1, '1', MAXLINE + 8);
        req[MAXLINE + 9] = '\0';
        ASSERT(strcmp(events(req, 0), "EProtocol error: too big mbulk count string") == 0);
        memcpy(req, "*1\r\n$", 5);
        ASSERT(strcmp(events(req, 0), "C1 EProtocol error: too big bulk count string") == 0);
        req[10] = '\0';
        ASSERT(strcmp(events(req, 0), "C1 ") == 0); /* incomplete, not an error */
        free(req);
    }

    TEST("resp: stricter limits before authentication") {
        ASSERT(strcmp(events("*10\r\n", 1), "C10 ") == 0);
        ASSERT(strcmp(events("*11\r\n", 1), "EProtocol error: unauthenticated multibulk length") == 0);
        ASSERT(strcmp(events("*1\r\n$16385\r\n", 1), "C1 EProtocol error: unauthenticated bulk length") == 0);
        ASSERT(strcmp(events("*11\r\n", 0), "C11 ") == 0);
    }

    TEST("resp: reset forgets a half-parsed request") {
        respMultibulkParser p;
        respParserInit(&p, 1024, MAXLINE);
        size_t pos = 0;
        char out[128] = "";
        parseAll(&p, "*2\r\n$3\r\nGE", 10, &pos, out, sizeof(out));
        ASSERT(p.args_left == 2 && p.bulklen == 3);
        respParserReset(&p);
        ASSERT(p.args_left == 0 && p.bulklen == -1);
        ASSERT_EQ_LL(p.max_bulk_len, 1024); /* limits survive */
    }

    TEST("resp: header encoder") {
        char buf[32];
        size_t n = respEncodeHeader(buf, '*', 3);
        ASSERT(n == 4 && memcmp(buf, "*3\r\n", 4) == 0);
        n = respEncodeHeader(buf, ':', -42);
        ASSERT(n == 6 && memcmp(buf, ":-42\r\n", 6) == 0);
        n = respEncodeHeader(buf, '$', LLONG_MAX);
        ASSERT(n == 22 && memcmp(buf, "$9223372036854775807\r\n", 22) == 0);
        n = respEncodeHeader(buf, '%', LLONG_MIN);
        ASSERT(n == 23 && memcmp(buf, "%-9223372036854775808\r\n", 23) == 0);
    }

    TEST("resp: bulk encoder") {
        char buf[64];
        size_t n = respEncodeBulk(buf, "hello", 5);
        ASSERT(n == 11 && memcmp(buf, "$5\r\nhello\r\n", 11) == 0);
        n = respEncodeBulk(buf, "", 0);
        ASSERT(n == 6 && memcmp(buf, "$0\r\n\r\n", 6) == 0);
        char payload[30];
        memset(payload, 'x', sizeof(payload));
        memset(buf, '#', sizeof(buf));
        n = respEncodeBulk(buf, payload, sizeof(payload));
        ASSERT(n == 37 && memcmp(buf, "$30\r\n", 5) == 0 && memcmp(buf + 35, "\r\n", 2) == 0);
        ASSERT(buf[37] == '#'); /* nothing written past the end */
        ASSERT(n <= sizeof(payload) + RESP_BULK_MAX_FRAMING);
    }

    return UT_END();
}
