/* test_resp.c - unit tests for the RESP multibulk parser and header encoder.
 *
 * The parser is driven over hand-written byte strings: whole requests,
 * the same requests fed one byte at a time (every event must come out the
 * same), pipelines, big arguments, and the hostile inputs whose replies the
 * server sends (bad counts, bad lengths, missing CRLF, over-long lines,
 * unauthenticated limits), and the one-pass path for whole requests
 * against the event parser on the same bytes, damaged ones included. */
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

/* respParseRequest() over the first len bytes of req with limits as the
 * server sets them (quiet_len_below 32 here): "A<arg> " per argument into
 * out, *pos_out the position reached. Returns its result. */
static int quick(const char *req, size_t len, int unauth, int max, char *out, size_t outlen, size_t *pos_out) {
    respMultibulkParser p;
    respParserInit(&p, 1024, MAXLINE);
    p.quiet_len_below = 32;
    p.unauthenticated = unauth;
    const char *args[16];
    size_t lens[16], pos = 0, used = 0;
    int n = respParseRequest(&p, req, len, &pos, args, lens, max);
    out[0] = '\0';
    for (int i = 0; i < n; i++) used += snprintf(out + used, outlen - used, "A%.*s ", (int)lens[i], args[i]);
    *pos_out = pos;
    return n;
}

/* Whether respParseRequest() agrees with respParseMultibulk() on buf[0..len):
 * when it takes a request, the event parser must find exactly those
 * arguments and end at the same place; when it declines, nothing may have
 * moved. */
static int quickAgrees(const char *buf, size_t len, int unauth) {
    respMultibulkParser p;
    respParserInit(&p, 100, 256);
    p.quiet_len_below = 40;
    p.unauthenticated = unauth;
    const char *args[8];
    size_t lens[8], pos = 0;
    int n = respParseRequest(&p, buf, len, &pos, args, lens, 8);
    if (p.args_left != 0 || p.bulklen != -1) return 0;
    if (n == 0) return pos == 0;
    respParserInit(&p, 100, 256);
    p.unauthenticated = unauth;
    size_t spos = 0;
    int got = 0;
    long long v;
    const char *arg;
    respParseEvent ev = respParseMultibulk(&p, buf, len, &spos, &v, &arg);
    if (ev != RESP_PARSE_COUNT || v != n) return 0;
    while (got < n) {
        ev = respParseMultibulk(&p, buf, len, &spos, &v, &arg);
        if (ev == RESP_PARSE_BULK_LEN) continue;
        if (ev != RESP_PARSE_ARG || arg != args[got] || (size_t)v != lens[got]) return 0;
        got++;
    }
    return spos == pos && p.args_left == 0;
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

    TEST("resp: one pass takes a whole request and leaves the parser ready") {
        const char *req = "*3\r\n$3\r\nSET\r\n$10\r\nkey:000001\r\n$0\r\n\r\n*1\r\n$4\r\nPING\r\n";
        char out[256];
        size_t pos;
        ASSERT_EQ_LL(quick(req, strlen(req), 0, 16, out, sizeof(out), &pos), 3);
        ASSERT_STREQ(out, "ASET Akey:000001 A ");
        ASSERT_EQ_LL(pos, strlen(req) - 14); /* the PING is next */
        ASSERT_EQ_LL(quick(req + pos, 14, 0, 16, out, sizeof(out), &pos), 1);
        ASSERT_STREQ(out, "APING ");
        /* Binary bytes, CRLF inside an argument. */
        const char bin[] = "*1\r\n$5\r\na\0\r\nb\r\n";
        ASSERT_EQ_LL(quick(bin, sizeof(bin) - 1, 0, 16, out, sizeof(out), &pos), 1);
        ASSERT_EQ_LL(pos, sizeof(bin) - 1);
    }

    TEST("resp: one pass declines what the event parser must see") {
        const char *req = "*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n";
        char out[256];
        size_t pos;
        for (size_t len = 0; len < strlen(req); len++) /* every incomplete prefix */
            ASSERT(quick(req, len, 0, 16, out, sizeof(out), &pos) == 0 && pos == 0);
        const char *declined[] = {
            "*0\r\n", "*-1\r\n", "*01\r\n$1\r\na\r\n", "*+1\r\n$1\r\na\r\n", "*1\r\n$01\r\na\r\n",
            "*1\r\n$-1\r\n", "*1\r\n$1 \r\na\r\n", "*1\r\n$2\r\nabc\r\n", "*1\r\n$1\r\nab\n", "*1\rx$1\r\na\r\n",
            "x1\r\n$1\r\na\r\n", "*1\r\nx1\r\na\r\n", "*1\r\n$\r\n\r\n",
            "*1\r\n$32\r\n01234567890123456789012345678901\r\n", /* not below quiet_len_below */
            "*1\r\n$1234567890123456789\r\n",
        };
        for (size_t i = 0; i < sizeof(declined) / sizeof(*declined); i++)
            ASSERT(quick(declined[i], strlen(declined[i]), 0, 16, out, sizeof(out), &pos) == 0 && pos == 0);
        /* More arguments than the caller has room for. */
        const char *three = "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n";
        ASSERT(quick(three, strlen(three), 0, 2, out, sizeof(out), &pos) == 0 && pos == 0);
        ASSERT(quick(three, strlen(three), 0, 3, out, sizeof(out), &pos) == 3);
        /* Mid-request: the event parser has started on it. */
        respMultibulkParser p;
        respParserInit(&p, 1024, MAXLINE);
        p.quiet_len_below = 32;
        size_t at = 0;
        long long v;
        const char *arg, *args[4];
        size_t lens[4];
        ASSERT(respParseMultibulk(&p, req, strlen(req), &at, &v, &arg) == RESP_PARSE_COUNT);
        size_t before = at;
        ASSERT(respParseRequest(&p, req, strlen(req), &at, args, lens, 4) == 0 && at == before);
    }

    TEST("resp: one pass keeps the limits before authentication") {
        char req[128];
        char out[256];
        size_t pos;
        strcpy(req, "*11\r\n");
        for (int i = 0; i < 11; i++) strcat(req, "$0\r\n\r\n");
        ASSERT(quick(req, strlen(req), 0, 16, out, sizeof(out), &pos) == 11);
        ASSERT(quick(req, strlen(req), 1, 16, out, sizeof(out), &pos) == 0 && pos == 0);
        ASSERT(quickAgrees("*1\r\n$101\r\n", 11, 0)); /* over max_bulk_len: declined */
    }

    TEST("resp: one pass finds what the event parser finds (random requests and damage)") {
        unsigned long long seed = 0x9e3779b97f4a7c15ULL;
        char buf[512];
        int failures = 0, taken = 0;
        for (int round = 0; round < 20000; round++) {
            size_t len = 0;
            int reqs = 1 + (int)((seed >> 33) % 3);
            for (int r = 0; r < reqs && len < 300; r++) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                int argc = (int)((seed >> 40) % 10);
                len += snprintf(buf + len, sizeof(buf) - len, "*%d\r\n", argc);
                for (int a = 0; a < argc && len < 300; a++) {
                    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                    int alen = (int)((seed >> 35) % 45);
                    len += snprintf(buf + len, sizeof(buf) - len, "$%d\r\n", alen);
                    for (int k = 0; k < alen; k++) buf[len++] = (char)('a' + (seed >> (k % 50)) % 26);
                    buf[len++] = '\r';
                    buf[len++] = '\n';
                }
            }
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            int damage = (int)((seed >> 20) % 4); /* 0: none, 1: a byte changed, 2: cut short, 3: both */
            if (damage & 1) buf[(seed >> 30) % len] = "*$\r\n0123-+x\0"[(seed >> 50) % 13];
            if (damage & 2) len = (seed >> 40) % (len + 1);
            if (!quickAgrees(buf, len, (int)(seed & 1))) failures++;
            respMultibulkParser p;
            respParserInit(&p, 100, 256);
            p.quiet_len_below = 40;
            const char *args[8];
            size_t lens[8], pos = 0;
            if (respParseRequest(&p, buf, len, &pos, args, lens, 8)) taken++;
        }
        ASSERT_EQ_LL(failures, 0);
        ASSERT(taken > 5000); /* the one pass did take most undamaged requests */
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
