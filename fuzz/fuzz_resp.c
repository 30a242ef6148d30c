/* fuzz_resp.c - libFuzzer target for the RESP multibulk parser (src/resp.c)
 * and the inline splitter (sdssplitargs), the byte-level half of the
 * server's request parsing.
 *
 * Input: one byte of options (unauthenticated limits, quiet short
 * arguments, the chunk size), then the bytes a client sends. The parser
 * runs three times over them: once with every byte available, once with the
 * bytes arriving in chunks, the consumed prefix dropped between reads as
 * networking.c does, and once more with every byte available and each
 * request tried first with the one-pass respParseRequest() (the chunked
 * run tries it too for odd chunk sizes). All runs must report
 * the same events with the same arguments, every argument must lie inside
 * the buffer, and the position must never move backwards or past the end.
 * Any difference aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "resp.h"
#include "sds.h"

#define MAX_EVENTS 4096

typedef struct parseLog {
    int n;
    respParseEvent ev[MAX_EVENTS];
    long long value[MAX_EVENTS];
    sds arg[MAX_EVENTS];
} parseLog;

static void logEvent(parseLog *log, respParseEvent ev, long long value, const char *arg) {
    if (log->n == MAX_EVENTS) return;
    log->ev[log->n] = ev;
    log->value[log->n] = value;
    log->arg[log->n] = ev == RESP_PARSE_ARG ? sdsnewlen(arg, (size_t)value) : NULL;
    log->n++;
}

static void parserSetup(respMultibulkParser *p, uint8_t opts) {
    respParserInit(p, 512LL * 1024 * 1024, 64 * 1024);
    p->unauthenticated = opts & 1;
    p->quiet_len_below = (opts & 2) ? 16 * 1024 : 0;
}

/* respParseRequest() at *pos, as networking.c tries it before the event
 * parser: when it takes a whole request, logs it as the count and argument
 * events the event parser reports and returns 1; it must then leave the
 * parser between requests with every argument inside the buffer, and when
 * it declines it must not move. */
static int takeWholeRequest(respMultibulkParser *p, const char *buf, size_t len, size_t *pos, parseLog *log) {
    const char *args[8];
    size_t lens[8], before = *pos;
    int n = respParseRequest(p, buf, len, pos, args, lens, 8);
    if (n == 0) {
        if (*pos != before) abort();
        return 0;
    }
    if (n < 0 || n > 8 || *pos <= before || *pos > len || p->args_left != 0 || p->bulklen != -1) abort();
    logEvent(log, RESP_PARSE_COUNT, n, NULL);
    for (int i = 0; i < n; i++) {
        if (args[i] < buf + before || args[i] + lens[i] + 2 > buf + *pos) abort();
        if (args[i][lens[i]] != '\r' || args[i][lens[i] + 1] != '\n') abort();
        logEvent(log, RESP_PARSE_ARG, (long long)lens[i], args[i]);
    }
    return 1;
}

/* Parses buf[*pos..len) until it needs more bytes or fails; after each
 * complete request the parser starts the next one, tried first in one pass
 * when one_pass. Returns 0 on a protocol error (parsing stops there), 1
 * otherwise. */
static int parseAvailable(respMultibulkParser *p, const char *buf, size_t len, size_t *pos, parseLog *log,
                          int one_pass) {
    for (;;) {
        if (one_pass && takeWholeRequest(p, buf, len, pos, log)) continue;
        long long value = 0;
        const char *arg = NULL;
        size_t before = *pos;
        respParseEvent ev = respParseMultibulk(p, buf, len, pos, &value, &arg);
        if (*pos < before || *pos > len) abort();
        if (ev == RESP_PARSE_NEED_MORE) return 1;
        if (ev == RESP_PARSE_ERROR) {
            if (strncmp(p->error, "Protocol error: ", 16) != 0) abort();
            logEvent(log, ev, 0, NULL);
            return 0;
        }
        if (ev == RESP_PARSE_ARG) {
            if (value < 0 || arg < buf || arg + value + 2 > buf + len) abort();
            if (arg[value] != '\r' || arg[value + 1] != '\n') abort();
        }
        /* The count of a request without arguments completes it. */
        if (ev == RESP_PARSE_COUNT && value <= 0) respParserReset(p);
        logEvent(log, ev, value, arg);
    }
}

/* A RESP_PARSE_BULK_LEN event reports the length early only when the bytes
 * are not all there (or the argument is long): with bytes arriving in
 * chunks it may appear where the one-shot run had none, so comparisons
 * skip it. */
static int nextSignificant(const parseLog *log, int i) {
    while (i < log->n && log->ev[i] == RESP_PARSE_BULK_LEN) i++;
    return i;
}

static void compareLogs(const parseLog *a, const parseLog *b) {
    int i = 0, j = 0;
    for (;;) {
        i = nextSignificant(a, i);
        j = nextSignificant(b, j);
        if (i == a->n || j == b->n) break;
        if (a->ev[i] != b->ev[j] || a->value[i] != b->value[j]) abort();
        if (a->arg[i] && sdscmp(a->arg[i], b->arg[j]) != 0) abort();
        i++;
        j++;
    }
    if (a->n < MAX_EVENTS && b->n < MAX_EVENTS && (i != a->n || j != b->n)) abort();
}

static void freeLog(parseLog *log) {
    for (int i = 0; i < log->n; i++) sdsfree(log->arg[i]);
}

/* The inline form of the same bytes: each line split as the server splits
 * inline requests. */
static void splitInline(const char *buf, size_t len) {
    while (len) {
        const char *nl = memchr(buf, '\n', len);
        size_t linelen = nl ? (size_t)(nl - buf) : len;
        sds line = sdsnewlen(buf, linelen);
        int argc;
        sds *argv = sdssplitargs(line, &argc);
        if (argv) {
            for (int j = 0; j < argc; j++)
                if (sdslen(argv[j]) > linelen) abort();
            sdsfreesplitres(argv, argc);
        }
        sdsfree(line);
        if (!nl) break;
        len -= linelen + 1;
        buf += linelen + 1;
    }
}

static parseLog whole, chunked, onepass;

/* Called by libFuzzer for each input (data is only read, owned by
 * libFuzzer). Returns 0; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t opts = data[0];
    const char *in = (const char *)data + 1;
    size_t len = size - 1;
    size_t chunk = 1 + (opts >> 2); /* 1..64 bytes per read */
    respMultibulkParser p;

    /* Everything at once. */
    whole.n = 0;
    parserSetup(&p, opts);
    size_t pos = 0;
    parseAvailable(&p, in, len, &pos, &whole, 0);

    /* Everything at once, each request tried in one pass first. */
    onepass.n = 0;
    parserSetup(&p, opts);
    pos = 0;
    parseAvailable(&p, in, len, &pos, &onepass, 1);

    /* In chunks, into a buffer whose consumed prefix is dropped. */
    chunked.n = 0;
    parserSetup(&p, opts);
    sds buf = sdsempty();
    size_t fed = 0;
    pos = 0;
    while (fed < len) {
        size_t n = len - fed < chunk ? len - fed : chunk;
        buf = sdscatlen(buf, in + fed, n);
        fed += n;
        if (!parseAvailable(&p, buf, sdslen(buf), &pos, &chunked, chunk & 1)) break;
        sdsrange(buf, (ssize_t)pos, -1);
        pos = 0;
    }
    sdsfree(buf);

    compareLogs(&whole, &chunked);
    compareLogs(&whole, &onepass);
    freeLog(&whole);
    freeLog(&chunked);
    freeLog(&onepass);

    splitInline(in, len);
    return 0;
}
