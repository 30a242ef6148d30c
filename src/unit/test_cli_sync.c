/* test_cli_sync.c - unit tests for cli_sync.c: the lines of a primary's
 * answer to SYNC/PSYNC, and payload framing by length or by end mark with
 * the data split at every possible place, the mark never handed on, and
 * the stream bytes after the payload left to the caller. */
#include <string.h>

#include "cli_sync.h"
#include "unittest.h"

#define MARK "0123456789abcdef0123456789abcdef01234567"

/* Feeds data in chunks of `step` bytes; returns the payload handed on and
 * sets *rest to the bytes left after the payload (the stream). */
static sds feedAll(cliSyncPayload *p, const char *data, size_t len, size_t step, sds *rest) {
    sds out = sdsempty();
    *rest = sdsempty();
    size_t pos = 0;
    while (pos < len) {
        size_t n = len - pos < step ? len - pos : step;
        size_t used = cliSyncPayloadFeed(p, data + pos, n, &out);
        if (p->done) {
            *rest = sdscatlen(*rest, data + pos + used, len - pos - used);
            break;
        }
        pos += used;
    }
    return out;
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    cliSyncPayload p;

    TEST("cli_sync: the lines of the answer") {
        ASSERT_EQ_LL(cliSyncParseLine("$1234", 5, &p), CLI_SYNC_LINE_PAYLOAD);
        ASSERT_EQ_LL(p.use_mark, 0);
        ASSERT_EQ_LL(p.remaining, 1234);
        ASSERT_EQ_LL(cliSyncParseLine("$0\r", 3, &p), CLI_SYNC_LINE_PAYLOAD);
        ASSERT_EQ_LL(p.done, 1);
        ASSERT_EQ_LL(cliSyncParseLine("$EOF:" MARK "\r", 46, &p), CLI_SYNC_LINE_PAYLOAD);
        ASSERT_EQ_LL(p.use_mark, 1);
        ASSERT(memcmp(p.mark, MARK, 40) == 0);
        ASSERT_EQ_LL(cliSyncParseLine("$EOF:short", 10, &p), CLI_SYNC_LINE_BAD);
        ASSERT_EQ_LL(cliSyncParseLine("$-1", 3, &p), CLI_SYNC_LINE_BAD);
        ASSERT_EQ_LL(cliSyncParseLine("$12x", 4, &p), CLI_SYNC_LINE_BAD);
        ASSERT_EQ_LL(cliSyncParseLine("-ERR nope", 9, &p), CLI_SYNC_LINE_ERROR);
        ASSERT_EQ_LL(cliSyncParseLine("+FULLRESYNC abc 12", 18, &p), CLI_SYNC_LINE_FULLRESYNC);
        ASSERT_EQ_LL(cliSyncParseLine("+CONTINUE", 9, &p), CLI_SYNC_LINE_CONTINUE);
        ASSERT_EQ_LL(cliSyncParseLine("+OK", 3, &p), CLI_SYNC_LINE_BAD);
        ASSERT_EQ_LL(cliSyncParseLine("", 0, &p), CLI_SYNC_LINE_BAD);
    }

    TEST("cli_sync: length framing stops at the length, whatever the split") {
        const char *data = "REDIS0011payload*1\r\n$4\r\nPING\r\n";
        for (size_t step = 1; step <= strlen(data); step++) {
            cliSyncParseLine("$16", 3, &p);
            sds rest, out = feedAll(&p, data, strlen(data), step, &rest);
            ASSERT(p.done);
            ASSERT_STREQ(out, "REDIS0011payload");
            ASSERT_STREQ(rest, "*1\r\n$4\r\nPING\r\n");
            ASSERT_EQ_LL(p.total, 16);
            sdsfree(out);
            sdsfree(rest);
        }
    }

    TEST("cli_sync: mark framing never hands on a byte of the mark") {
        /* Payload, mark, then stream bytes, split at every step size. */
        const char *data = "REDIS0011" "some rdb bytes with 0123 in them" MARK "*1\r\n$4\r\nPING\r\n";
        size_t len = strlen(data);
        for (size_t step = 1; step <= len; step++) {
            cliSyncParseLine("$EOF:" MARK, 45, &p);
            sds rest, out = feedAll(&p, data, len, step, &rest);
            ASSERT(p.done);
            ASSERT_STREQ(out, "REDIS0011some rdb bytes with 0123 in them");
            ASSERT_STREQ(rest, "*1\r\n$4\r\nPING\r\n");
            ASSERT_EQ_LL(p.total, strlen(out));
            sdsfree(out);
            sdsfree(rest);
        }
    }

    TEST("cli_sync: an unfinished marked payload keeps at most 39 bytes back") {
        cliSyncParseLine("$EOF:" MARK, 45, &p);
        sds out = sdsempty();
        char big[100];
        memset(big, 'x', sizeof(big));
        ASSERT_EQ_LL(cliSyncPayloadFeed(&p, big, sizeof(big), &out), sizeof(big));
        ASSERT_EQ_LL(p.done, 0);
        ASSERT_EQ_LL(sdslen(out), 100 - 39);
        ASSERT_EQ_LL(p.held_len, 39);
        /* A mark that only partly arrived is held, not delivered. */
        ASSERT_EQ_LL(cliSyncPayloadFeed(&p, MARK, 20, &out), 20);
        ASSERT_EQ_LL(sdslen(out), 100 - 39 + 20);
        ASSERT_EQ_LL(cliSyncPayloadFeed(&p, MARK + 20, 20, &out), 20);
        ASSERT_EQ_LL(p.done, 1);
        ASSERT_EQ_LL(sdslen(out), 100);
        ASSERT_EQ_LL(p.total, 100);
        sdsfree(out);
    }

    TEST("cli_sync: an empty marked payload") {
        cliSyncParseLine("$EOF:" MARK, 45, &p);
        sds rest, out = feedAll(&p, MARK "+x", 42, 7, &rest);
        ASSERT(p.done);
        ASSERT_EQ_LL(sdslen(out), 0);
        ASSERT_STREQ(rest, "+x");
        sdsfree(out);
        sdsfree(rest);
    }
    return UT_END();
}
