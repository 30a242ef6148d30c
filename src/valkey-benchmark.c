/* valkey-benchmark.c - load generator, option-compatible with Valkey's.
 *
 * For each test (the standard list in Valkey's order, or one command given
 * on the command line) it opens -c connections spread over --threads worker
 * threads, each thread running its own aeEventLoop. A client keeps its
 * pipeline of -P requests prebuilt in one buffer: __rand_int__ placeholders
 * are rewritten in place with fresh 12-digit numbers before each send, the
 * whole buffer is written at once, and the replies are counted with a small
 * RESP scanner that never copies or allocates. Every reply records its
 * latency (send to arrival) in the thread's own histogram; the histograms
 * are merged when the test ends, so the hot path shares nothing between
 * threads but one atomic "requests issued" counter.
 *
 * Connections go through the tools' transport layer (cli_transport.h):
 * "tcp", "unix" (-s), "tls" (--tls), "rdma" (--rdma) or "shm" (--shm -s),
 * when built in. The main thread only
 * fetches CONFIG GET save/appendonly once, starts the workers, prints the
 * live progress line on a terminal and the report (full, -q or --csv).
 *
 * Threads and lifetimes: a benchClient and its connection belong to one
 * worker thread; a worker stops its loop when its last client has nothing
 * left to send. Connection or protocol errors are fatal (message, exit 1). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "ae.h"
#include "cli_histogram.h"
#include "cli_transport.h"
#include "sds.h"
#include "util.h"
#include "zmalloc.h"

#define BENCH_VERSION "8.1.0"
#define RAND_PLACEHOLDER "__rand_int__"
#define RAND_PLACEHOLDER_LEN 12 /* Same width as the number written over it. */
#define BENCH_READ_CHUNK (16 * 1024)
#define BENCH_MAX_THREADS 500
#define BENCH_PROGRESS_MS 250
/* Descriptors open besides the clients' and the workers' epoll fds: stdio,
 * the blocking CONFIG GET connection, and what a transport library keeps
 * for the whole process (RDMA device contexts). */
#define BENCH_FD_RESERVE 32

/* ---------------------------------------------------------------------------
 * Configuration and run state
 * ------------------------------------------------------------------------- */

static struct benchConfig {
    const char *hostip;
    int hostport;
    const char *hostsocket;
    const cliConnType *ct; /* Transport chosen by the options. */
    int fds_needed;        /* Highest fd a run can reach (benchFdsNeeded). */
    cliConnAddr addr;
    cliTlsOptions tls;      /* --tls options */
    char addrstr[300];      /* "host:port" or path, for messages. */
    int numclients;
    long long requests;
    int datasize;
    int keepalive;
    long long keyspacelen; /* -r; 0 = leave __rand_int__ as is. */
    int pipeline;
    int quiet;
    int csv;
    int loop;
    int showerrors;
    int num_threads;  /* --threads; 0 = not given (one worker). */
    int precision;    /* Decimals of latencies in msec. */
    int dbnum;
    int stdinarg;     /* -x */
    const char *user;
    const char *auth;
    unsigned long long seed;
    sds tests;        /* -t as ",a,b,", lowercase; NULL = all. */
    sds conf_save;    /* CONFIG GET results, NULL when unknown. */
    sds conf_appendonly;
    int is_tty;       /* stdout is a terminal: show live progress. */
} config;

/* One worker thread. Counters written only by the owner (relaxed atomic
 * stores) so the main thread can read them for the progress line. */
typedef struct benchThread {
    int id;
    pthread_t tid;
    aeEventLoop *el;
    cliHistogram *hist;
    int nclients;                   /* Clients this thread runs. */
    int live;                       /* Clients with work left. */
    uint64_t rng;                   /* xorshift64* state. */
    long long end_us;               /* When its last client finished. */
    long long finished_local;       /* Owner's copy of finished. */
    long long latency_sum_local;    /* Owner's copy of latency_sum (us). */
    _Atomic long long finished;     /* Replies counted, for progress. */
    _Atomic long long latency_sum;  /* Sum of their latencies, us. */
} benchThread;

/* The test being run. */
static struct benchRun {
    const char *title;
    sds cmd;                     /* One request, wire format. */
    size_t *randpos;             /* Offsets of __rand_int__ in cmd. */
    int randcount;
    sds prefix;                  /* AUTH/SELECT sent first on a connection. */
    int prefix_replies;
    _Atomic long long issued;    /* Requests claimed by clients. */
    benchThread *threads;
    int nthreads;
    long long start_us;
    pthread_barrier_t ready;     /* Clients created, timing starts. */
    pthread_mutex_t lock;        /* Guards threads_done (once per thread). */
    pthread_cond_t cond;
    int threads_done;
} run;

/* One connection and its prebuilt pipeline. obuf = prefix + pipeline
 * copies of run.cmd; the prefix is sent only on a connection's first batch. */
typedef struct benchClient {
    benchThread *t;
    cliConn *conn;
    sds obuf;
    size_t prefix_len;
    size_t *randpos;     /* Offsets of every placeholder in obuf. */
    int randcount;
    int first;           /* Next batch is the connection's first. */
    size_t written;      /* Bytes of obuf sent for this batch. */
    size_t write_end;    /* End of this batch in obuf. */
    int pending;         /* Replies still expected. */
    int prefix_pending;  /* Of which replies to the prefix. */
    long long batch;     /* Requests in this batch. */
    long long start_us;  /* When the batch was sent (or connect began). */
    char *rbuf;          /* Reply bytes not yet consumed: [rpos, rlen). */
    size_t rpos, rlen, rcap;
} benchClient;

static void clientStartBatch(benchClient *c);
static void clientConnect(benchClient *c);

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fatal(const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static long long nowUs(void) {
    return (long long)getMonotonicUs();
}

/* xorshift64*: fast, per-thread, good enough for picking keys. */
static uint64_t rngNext(uint64_t *s) {
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* ---------------------------------------------------------------------------
 * RESP: encoding requests, scanning replies
 * ------------------------------------------------------------------------- */

/* Appends argv as one RESP array of bulk strings. */
static sds respAppendCommand(sds s, int argc, const char **argv, const size_t *lens) {
    s = sdscatprintf(s, "*%d\r\n", argc);
    for (int j = 0; j < argc; j++) {
        size_t len = lens ? lens[j] : strlen(argv[j]);
        s = sdscatprintf(s, "$%zu\r\n", len);
        s = sdscatlen(s, argv[j], len);
        s = sdscatlen(s, "\r\n", 2);
    }
    return s;
}

/* Scans one complete reply (any RESP2/RESP3 type, nested aggregates
 * included) at p. Returns its length in bytes, 0 if more bytes are needed,
 * -1 if the bytes are not RESP. When the reply is an error, *err and *errlen
 * point at its message inside p. Iterative: `need` counts the values still
 * to read, so nesting costs no stack. */
static ssize_t respScanReply(const char *p, size_t len, const char **err, size_t *errlen) {
    size_t pos = 0;
    long long need = 1;
    int top = 1;
    *err = NULL;
    while (need > 0) {
        if (pos >= len) return 0;
        const char *line = p + pos;
        const char *cr = memchr(line, '\r', len - pos);
        if (!cr || (size_t)(cr - p) + 1 >= len) return 0;
        if (cr[1] != '\n') return -1;
        size_t linelen = (size_t)(cr - line);
        size_t next = (size_t)(cr - p) + 2;
        long long n;
        switch (line[0]) {
        case '-':
            if (top) {
                *err = line + 1;
                *errlen = linelen - 1;
            }
            /* fall through */
        case '+':
        case ':':
        case '_':
        case ',':
        case '#':
        case '(':
            pos = next;
            need--;
            break;
        case '$':
        case '!':
        case '=':
            if (!string2ll(line + 1, linelen - 1, &n)) return -1;
            if (n < 0) {
                pos = next;
            } else {
                if (len - next < (size_t)n + 2) return 0;
                if (top && line[0] == '!') {
                    *err = p + next;
                    *errlen = (size_t)n;
                }
                pos = next + (size_t)n + 2;
            }
            need--;
            break;
        case '*':
        case '~':
        case '>':
        case '%':
        case '|':
            if (!string2ll(line + 1, linelen - 1, &n)) return -1;
            pos = next;
            if (n < 0) {
                need--;
                break;
            }
            if (line[0] == '%' || line[0] == '|') n *= 2;
            /* An attribute precedes the reply it annotates: it adds its
             * elements without standing for the awaited value. */
            need += n - (line[0] == '|' ? 0 : 1);
            break;
        default: return -1;
        }
        top = 0;
    }
    return (ssize_t)pos;
}

/* For a reply that is an array of bulk strings (CONFIG GET), returns the
 * element at index idx as a new sds, or NULL. */
static sds respArrayElement(const char *p, size_t len, int idx) {
    long long n;
    const char *cr = memchr(p, '\r', len);
    if (len < 4 || p[0] != '*' || !cr || !string2ll(p + 1, (size_t)(cr - p - 1), &n) || idx >= n) return NULL;
    const char *q = cr + 2, *end = p + len;
    for (int j = 0; j <= idx; j++) {
        cr = q < end ? memchr(q, '\r', (size_t)(end - q)) : NULL;
        if (!cr || q[0] != '$' || !string2ll(q + 1, (size_t)(cr - q - 1), &n) || n < 0) return NULL;
        const char *data = cr + 2;
        if (data + n + 2 > end) return NULL;
        if (j == idx) return sdsnewlen(data, (size_t)n);
        q = data + n + 2;
    }
    return NULL;
}

/* ---------------------------------------------------------------------------
 * Clients (worker-thread context)
 * ------------------------------------------------------------------------- */

/* Prints a server error, at most once a second across threads (-e). */
static void showServerError(const char *msg, size_t len) {
    static _Atomic long long last;
    long long now = time(NULL);
    long long prev = atomic_load_explicit(&last, memory_order_relaxed);
    if (prev == now || !atomic_compare_exchange_strong(&last, &prev, now)) return;
    printf("Error from server: %.*s\n", (int)len, msg);
}

/* Overwrites the placeholders of the first `upto` bytes of obuf with random
 * zero-padded numbers below -r. */
static void clientRandomize(benchClient *c, size_t upto) {
    uint64_t *rng = &c->t->rng;
    uint64_t range = (uint64_t)config.keyspacelen;
    for (int j = 0; j < c->randcount && c->randpos[j] < upto; j++) {
        uint64_t r = rngNext(rng) % range;
        char *d = c->obuf + c->randpos[j] + RAND_PLACEHOLDER_LEN;
        for (int k = 0; k < RAND_PLACEHOLDER_LEN; k++) {
            *--d = (char)('0' + r % 10);
            r /= 10;
        }
    }
}

/* The client has nothing left to send: free it; stop the loop after the
 * thread's last one. c is invalid afterwards. */
static void clientDone(benchClient *c) {
    benchThread *t = c->t;
    cliConnClose(c->conn);
    sdsfree(c->obuf);
    zfree(c->randpos);
    zfree(c->rbuf);
    zfree(c);
    if (--t->live == 0) aeStop(t->el);
}

/* Claims up to -P requests from the shared counter. Returns how many (0 =
 * the test has all it needs). */
static long long clientClaim(void) {
    long long n = atomic_fetch_add_explicit(&run.issued, config.pipeline, memory_order_relaxed);
    if (n >= config.requests) return 0;
    return config.requests - n < config.pipeline ? config.requests - n : config.pipeline;
}

static void clientWriteHandler(cliConn *conn);

/* Sends what remains of the current batch; waits for writability if the
 * transport takes only part of it. */
static void clientWrite(benchClient *c) {
    while (c->written < c->write_end) {
        ssize_t n = cliConnWrite(c->conn, c->obuf + c->written, c->write_end - c->written);
        if (n > 0) {
            c->written += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EAGAIN && cliConnGetState(c->conn) == CLI_CONN_CONNECTED) {
            if (cliConnSetWriteHandler(c->conn, clientWriteHandler) == CLI_ERR) fatal("Error: cannot watch the connection");
            return;
        }
        fatal("Error writing to the server: %s", cliConnGetLastError(c->conn));
    }
    cliConnSetWriteHandler(c->conn, NULL);
}

static void clientWriteHandler(cliConn *conn) {
    clientWrite(cliConnGetPrivData(conn));
}

/* Sends a batch of c->batch requests (preceded by the prefix on a new
 * connection). */
static void clientStartBatch(benchClient *c) {
    size_t cmdlen = sdslen(run.cmd);
    size_t from = c->first ? 0 : c->prefix_len;
    c->write_end = c->prefix_len + (size_t)c->batch * cmdlen;
    c->written = from;
    c->pending = (int)c->batch;
    c->prefix_pending = 0;
    if (c->first) {
        c->pending += run.prefix_replies;
        c->prefix_pending = run.prefix_replies;
        c->first = 0;
    }
    if (c->randcount) clientRandomize(c, c->write_end);
    if (config.keepalive) c->start_us = nowUs(); /* -k 0: since the connect. */
    clientWrite(c);
}

/* All replies of a batch are in: send the next one, or reconnect first
 * with -k 0, or retire the client. */
static void clientBatchDone(benchClient *c) {
    if (!config.keepalive) {
        cliConnClose(c->conn);
        c->conn = NULL;
        c->rpos = c->rlen = 0;
    }
    c->batch = clientClaim();
    if (c->batch == 0) {
        clientDone(c);
        return;
    }
    if (config.keepalive)
        clientStartBatch(c);
    else
        clientConnect(c);
}

static void clientReadHandler(cliConn *conn) {
    benchClient *c = cliConnGetPrivData(conn);
    benchThread *t = c->t;

    /* Keep at least half the buffer free for this read, growing it for
     * large replies so a reply is rescanned only a few times. */
    if (c->rpos > 0) {
        memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
        c->rlen -= c->rpos;
        c->rpos = 0;
    }
    if (c->rcap - c->rlen < c->rcap / 2) {
        c->rcap *= 2;
        c->rbuf = zrealloc(c->rbuf, c->rcap);
    }
    ssize_t n = cliConnRead(conn, c->rbuf + c->rlen, c->rcap - c->rlen);
    if (n <= 0) {
        if (n < 0 && errno == EAGAIN && cliConnGetState(conn) == CLI_CONN_CONNECTED) return;
        if (n == 0) fatal("Error: Server closed the connection");
        fatal("Error: %s", cliConnGetLastError(conn));
    }
    c->rlen += (size_t)n;

    long long counted = 0;
    while (c->pending > 0) {
        const char *err;
        size_t errlen;
        ssize_t len = respScanReply(c->rbuf + c->rpos, c->rlen - c->rpos, &err, &errlen);
        if (len == 0) break;
        if (len < 0) fatal("Error: Protocol error from the server");
        c->rpos += (size_t)len;
        c->pending--;
        if (c->prefix_pending > 0) {
            c->prefix_pending--;
            if (err) fatal("Error from server: %.*s", (int)errlen, err);
            continue;
        }
        if (err && config.showerrors) showServerError(err, errlen);
        counted++;
    }
    if (c->rpos == c->rlen) c->rpos = c->rlen = 0;

    if (counted) {
        /* Replies from one read arrived together: one record for all. */
        long long lat = nowUs() - c->start_us;
        if (lat < 0) lat = 0;
        cliHistRecordN(t->hist, (uint64_t)lat, (uint64_t)counted);
        t->finished_local += counted;
        t->latency_sum_local += lat * counted;
        atomic_store_explicit(&t->finished, t->finished_local, memory_order_relaxed);
        atomic_store_explicit(&t->latency_sum, t->latency_sum_local, memory_order_relaxed);
    }
    if (c->pending == 0) clientBatchDone(c);
}

static void clientConnected(cliConn *conn) {
    benchClient *c = cliConnGetPrivData(conn);
    if (cliConnGetState(conn) != CLI_CONN_CONNECTED)
        fatal("Could not connect to Valkey at %s: %s", config.addrstr, cliConnGetLastError(conn));
    if (cliConnSetReadHandler(conn, clientReadHandler) == CLI_ERR) fatal("Error: cannot watch the connection");
    if (c->batch == 0) c->batch = clientClaim();
    if (c->batch == 0) {
        clientDone(c);
        return;
    }
    clientStartBatch(c);
}

/* Opens c's connection; the first batch goes out once it is up. */
static void clientConnect(benchClient *c) {
    char err[CLI_ERR_LEN];
    c->first = 1;
    c->start_us = nowUs(); /* With -k 0 the latency includes the connect. */
    c->conn = cliConnConnect(config.ct, &config.addr, c->t->el, clientConnected, c, err, sizeof(err));
    if (!c->conn) fatal("Could not connect to Valkey at %s: %s", config.addrstr, err);
}

/* Builds a client with its pipeline buffer and starts connecting. */
static void clientCreate(benchThread *t) {
    benchClient *c = zcalloc(sizeof(*c));
    c->t = t;
    c->obuf = sdsempty();
    if (run.prefix) c->obuf = sdscatsds(c->obuf, run.prefix);
    c->prefix_len = sdslen(c->obuf);
    c->randcount = run.randcount * config.pipeline;
    c->randpos = c->randcount ? zmalloc(sizeof(size_t) * (size_t)c->randcount) : NULL;
    for (int j = 0; j < config.pipeline; j++) {
        size_t base = sdslen(c->obuf);
        for (int k = 0; k < run.randcount; k++) c->randpos[j * run.randcount + k] = base + run.randpos[k];
        c->obuf = sdscatsds(c->obuf, run.cmd);
    }
    c->rcap = BENCH_READ_CHUNK;
    c->rbuf = zmalloc(c->rcap);
    t->live++;
    clientConnect(c);
}

/* ---------------------------------------------------------------------------
 * Worker threads and the test driver (main thread)
 * ------------------------------------------------------------------------- */

static void workerBeforeSleep(aeEventLoop *el) {
    cliConnBeforeSleep(el);
}

static void *workerMain(void *arg) {
    benchThread *t = arg;
    /* fds are numbered process-wide: every loop indexes all of them. */
    t->el = aeCreateEventLoop(config.fds_needed);
    if (!t->el) fatal("Error: cannot create the event loop: %s", strerror(errno));
    aeSetBeforeSleepProc(t->el, workerBeforeSleep);
    for (int j = 0; j < t->nclients; j++) clientCreate(t);
    pthread_barrier_wait(&run.ready);
    if (t->live > 0) aeMain(t->el);
    t->end_us = nowUs();
    aeDeleteEventLoop(t->el);
    t->el = NULL;

    pthread_mutex_lock(&run.lock);
    run.threads_done++;
    pthread_cond_signal(&run.cond);
    pthread_mutex_unlock(&run.lock);
    return NULL;
}

/* Sums the progress counters of every worker. */
static void runProgressTotals(long long *finished, long long *latency_sum) {
    *finished = *latency_sum = 0;
    for (int j = 0; j < run.nthreads; j++) {
        *finished += atomic_load_explicit(&run.threads[j].finished, memory_order_relaxed);
        *latency_sum += atomic_load_explicit(&run.threads[j].latency_sum, memory_order_relaxed);
    }
}

/* The live line on a terminal: current and overall rate and latency.
 * *shown is the widest line drawn so far. Returns this line's width. */
static int showProgress(long long *prev_finished, long long *prev_lat, long long *prev_us, const int *shown) {
    long long finished, lat, now = nowUs();
    runProgressTotals(&finished, &lat);
    double dt = (double)(now - *prev_us) / 1e6, total_dt = (double)(now - run.start_us) / 1e6;
    long long dn = finished - *prev_finished;
    double rps = dt > 0 ? (double)dn / dt : 0;
    double overall = total_dt > 0 ? (double)finished / total_dt : 0;
    double avg = dn ? (double)(lat - *prev_lat) / (double)dn / 1000.0 : 0;
    double avg_all = finished ? (double)lat / (double)finished / 1000.0 : 0;
    char line[512];
    int len = snprintf(line, sizeof(line), "%s: rps=%.1f (overall: %.1f) avg_msec=%.3f (overall: %.3f)", run.title, rps,
                       overall, avg, avg_all);
    if (len >= (int)sizeof(line)) len = (int)sizeof(line) - 1;
    /* Pad over the remains of a longer previous line. */
    printf("\r%-*s", *shown > len ? *shown : len, line);
    fflush(stdout);
    *prev_finished = finished;
    *prev_lat = lat;
    *prev_us = now;
    return len;
}

static void printLatencyLine(double percent, uint64_t us, uint64_t count) {
    printf("%.3f%% <= %.*f milliseconds (cumulative count %llu)\n", percent, config.precision, (double)us / 1000.0,
           (unsigned long long)count);
}

/* Count at or below the upper bound of the bucket holding v. */
static uint64_t bucketCount(const cliHistogram *h, uint64_t v, uint64_t *high) {
    *high = cliHistBucketHigh(cliHistIndex(v > CLI_HIST_MAX_VALUE ? CLI_HIST_MAX_VALUE : v));
    if (*high > h->max) *high = h->max;
    return cliHistCountAtOrBelow(h, *high);
}

/* The full report of one test, as Valkey prints it. */
static void showFullReport(const cliHistogram *h, long long finished, double secs) {
    printf("====== %s ======\n", run.title);
    printf("  %lld requests completed in %.2f seconds\n", finished, secs);
    printf("  %d parallel clients\n", config.numclients);
    printf("  %d bytes payload\n", config.datasize);
    printf("  keep alive: %d\n", config.keepalive);
    if (config.conf_save) printf("  host configuration \"save\": %s\n", config.conf_save);
    if (config.conf_appendonly) printf("  host configuration \"appendonly\": %s\n", config.conf_appendonly);
    if (config.num_threads > 0)
        printf("  multi-thread: yes\n  threads: %d\n", config.num_threads);
    else
        printf("  multi-thread: no\n");

    /* Percentiles halving the distance to 100%: 0, 50, 75, 87.5, ... */
    printf("\nLatency by percentile distribution:\n");
    uint64_t total = h->count, high;
    double p = 0, gap = 50;
    while (total > 0) {
        uint64_t v = cliHistPercentile(h, p);
        uint64_t cnt = bucketCount(h, v, &high);
        if (cnt >= total || p >= 99.9999) break;
        printLatencyLine(p, v, cnt);
        p += gap;
        gap /= 2;
    }
    if (total > 0) printLatencyLine(100.0, h->max, total);

    /* Cumulative counts at 0.1 ms steps to 2 ms, then coarser; a line only
     * when the count moved. */
    printf("\nCumulative distribution of latencies:\n");
    uint64_t last = 0;
    for (uint64_t t = 100; total > 0;) {
        uint64_t cnt = bucketCount(h, t, &high);
        if (cnt != last) printLatencyLine(100.0 * (double)cnt / (double)total, high, cnt);
        last = cnt;
        if (cnt >= total) break;
        t += t < 2000 ? 100 : (t < 100000 ? 1000 : (t < 1000000 ? 10000 : 100000));
    }

    int d = config.precision;
    printf("\nSummary:\n");
    printf("  throughput summary: %.2f requests per second\n", secs > 0 ? (double)finished / secs : 0);
    printf("  latency summary (msec):\n");
    printf("    %9s %9s %9s %9s %9s %9s\n", "avg", "min", "p50", "p95", "p99", "max");
    printf("    %9.*f %9.*f %9.*f %9.*f %9.*f %9.*f\n", d, cliHistMean(h) / 1000.0, d,
           (double)(total ? h->min : 0) / 1000.0, d, (double)cliHistPercentile(h, 50) / 1000.0, d,
           (double)cliHistPercentile(h, 95) / 1000.0, d, (double)cliHistPercentile(h, 99) / 1000.0, d,
           (double)h->max / 1000.0);
    printf("\n");
}

/* Runs one test: title is what the report calls it; cmd is one request in
 * wire format (taken over). Prints the report. */
static void benchmark(const char *title, sds cmd) {
    run.title = title;
    run.cmd = cmd;
    run.randcount = 0;
    run.randpos = NULL;
    if (config.keyspacelen > 0) {
        for (char *p = cmd; (p = memmem(p, sdslen(cmd) - (size_t)(p - cmd), RAND_PLACEHOLDER, RAND_PLACEHOLDER_LEN));
             p += RAND_PLACEHOLDER_LEN) {
            run.randpos = zrealloc(run.randpos, sizeof(size_t) * (size_t)(run.randcount + 1));
            run.randpos[run.randcount++] = (size_t)(p - cmd);
        }
    }
    atomic_store(&run.issued, 0);

    int nthreads = config.num_threads > 0 ? config.num_threads : 1;
    run.nthreads = nthreads;
    run.threads = zcalloc(sizeof(benchThread) * (size_t)nthreads);
    run.threads_done = 0;
    pthread_barrier_init(&run.ready, NULL, (unsigned)nthreads + 1);
    for (int j = 0; j < nthreads; j++) {
        benchThread *t = &run.threads[j];
        t->id = j;
        t->nclients = config.numclients / nthreads + (j < config.numclients % nthreads);
        t->hist = cliHistCreate();
        t->rng = (config.seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(j + 1))) | 1;
        if (pthread_create(&t->tid, NULL, workerMain, t) != 0) fatal("Error: cannot start a thread");
    }
    pthread_barrier_wait(&run.ready);
    run.start_us = nowUs();

    /* Wait for the workers, drawing the progress line meanwhile. */
    int shown = 0;
    long long pf = 0, pl = 0, pus = run.start_us;
    pthread_mutex_lock(&run.lock);
    while (run.threads_done < nthreads) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_nsec += BENCH_PROGRESS_MS * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&run.cond, &run.lock, &deadline);
        if (run.threads_done < nthreads && config.is_tty && !config.csv) {
            int len = showProgress(&pf, &pl, &pus, &shown);
            if (len > shown) shown = len;
        }
    }
    pthread_mutex_unlock(&run.lock);

    long long end_us = run.start_us;
    cliHistogram *h = cliHistCreate();
    long long finished = 0;
    for (int j = 0; j < nthreads; j++) {
        benchThread *t = &run.threads[j];
        pthread_join(t->tid, NULL);
        if (t->end_us > end_us) end_us = t->end_us;
        cliHistMerge(h, t->hist);
        finished += t->finished_local;
        cliHistFree(t->hist);
    }
    pthread_barrier_destroy(&run.ready);
    zfree(run.threads);
    run.threads = NULL;
    double secs = (double)(end_us - run.start_us) / 1e6;
    if (shown) printf("\r%*s\r", shown, "");

    int d = config.precision;
    if (config.csv) {
        printf("\"%s\",\"%.2f\",\"%.*f\",\"%.*f\",\"%.*f\",\"%.*f\",\"%.*f\",\"%.*f\"\n", run.title,
               secs > 0 ? (double)finished / secs : 0, d, cliHistMean(h) / 1000.0, d,
               (double)(h->count ? h->min : 0) / 1000.0, d, (double)cliHistPercentile(h, 50) / 1000.0, d,
               (double)cliHistPercentile(h, 95) / 1000.0, d, (double)cliHistPercentile(h, 99) / 1000.0, d,
               (double)h->max / 1000.0);
    } else if (config.quiet) {
        printf("%s: %.2f requests per second, p50=%.*f msec\n", run.title, secs > 0 ? (double)finished / secs : 0, d,
               (double)cliHistPercentile(h, 50) / 1000.0);
    } else {
        showFullReport(h, finished, secs);
    }
    fflush(stdout);
    cliHistFree(h);
    zfree(run.randpos);
    run.randpos = NULL;
    sdsfree(run.cmd);
    run.cmd = NULL;
}

/* Builds the request from argv and runs it as a test. */
static void benchmarkArgv(const char *title, int argc, const char **argv) {
    benchmark(title, respAppendCommand(sdsempty(), argc, argv, NULL));
}

/* ---------------------------------------------------------------------------
 * Server configuration, standard tests, options
 * ------------------------------------------------------------------------- */

/* Fetches CONFIG GET save / appendonly for the report over a blocking
 * connection. An unreachable server is fatal; a refused CONFIG is not. */
static void fetchServerConfig(void) {
    char err[CLI_ERR_LEN];
    cliConn *c = cliConnConnectBlocking(config.ct, &config.addr, 10000, err, sizeof(err));
    if (!c) fatal("Could not connect to Valkey at %s: %s", config.addrstr, err);

    sds req = run.prefix ? sdsdup(run.prefix) : sdsempty();
    const char *save[] = {"CONFIG", "GET", "save"}, *aof[] = {"CONFIG", "GET", "appendonly"};
    req = respAppendCommand(req, 3, save, NULL);
    req = respAppendCommand(req, 3, aof, NULL);
    int want = run.prefix_replies + 2;
    sds buf = sdsempty();
    sds replies[2] = {NULL, NULL};
    int ok = cliConnWriteAll(c, req, sdslen(req)) == CLI_OK;
    size_t pos = 0;
    for (int got = 0; ok && got < want;) {
        const char *e;
        size_t elen;
        ssize_t len = respScanReply(buf + pos, sdslen(buf) - pos, &e, &elen);
        if (len < 0) break;
        if (len > 0) {
            if (got < run.prefix_replies && e) fatal("Error from server: %.*s", (int)elen, e);
            if (got >= run.prefix_replies) replies[got - run.prefix_replies] = sdsnewlen(buf + pos, (size_t)len);
            pos += (size_t)len;
            got++;
            continue;
        }
        buf = sdsMakeRoomFor(buf, BENCH_READ_CHUNK);
        ssize_t n = cliConnRead(c, buf + sdslen(buf), sdsavail(buf));
        if (n <= 0) {
            ok = 0;
            break;
        }
        sdsIncrLen(buf, n);
    }
    if (replies[0]) config.conf_save = respArrayElement(replies[0], sdslen(replies[0]), 1);
    if (replies[1]) config.conf_appendonly = respArrayElement(replies[1], sdslen(replies[1]), 1);
    if (!config.conf_save || !config.conf_appendonly) fprintf(stderr, "WARNING: Could not fetch server CONFIG\n");
    sdsfree(replies[0]);
    sdsfree(replies[1]);
    sdsfree(buf);
    sdsfree(req);
    cliConnClose(c);
}

/* -t matching: names are compared lowercase between commas. */
static int testSelected(const char *name) {
    if (!config.tests) return 1;
    char buf[64];
    snprintf(buf, sizeof(buf), ",%s,", name);
    return strstr(config.tests, buf) != NULL;
}

/* The standard tests, in Valkey's order and naming. */
static void runStandardTests(void) {
    sds data = sdsgrowzero(sdsempty(), (size_t)config.datasize);
    memset(data, 'x', (size_t)config.datasize);

    if (testSelected("ping_inline") || testSelected("ping")) benchmark("PING_INLINE", sdsnew("PING\r\n"));
    if (testSelected("ping_mbulk") || testSelected("ping")) benchmarkArgv("PING_MBULK", 1, (const char *[]){"PING"});
    if (testSelected("set")) benchmarkArgv("SET", 3, (const char *[]){"SET", "key:__rand_int__", data});
    if (testSelected("get")) benchmarkArgv("GET", 2, (const char *[]){"GET", "key:__rand_int__"});
    if (testSelected("incr")) benchmarkArgv("INCR", 2, (const char *[]){"INCR", "counter:__rand_int__"});
    if (testSelected("lpush")) benchmarkArgv("LPUSH", 3, (const char *[]){"LPUSH", "mylist", data});
    if (testSelected("rpush")) benchmarkArgv("RPUSH", 3, (const char *[]){"RPUSH", "mylist", data});
    if (testSelected("lpop")) benchmarkArgv("LPOP", 2, (const char *[]){"LPOP", "mylist"});
    if (testSelected("rpop")) benchmarkArgv("RPOP", 2, (const char *[]){"RPOP", "mylist"});
    if (testSelected("sadd")) benchmarkArgv("SADD", 3, (const char *[]){"SADD", "myset", "element:__rand_int__"});
    if (testSelected("hset"))
        benchmarkArgv("HSET", 4, (const char *[]){"HSET", "myhash", "element:__rand_int__", data});
    if (testSelected("spop")) benchmarkArgv("SPOP", 2, (const char *[]){"SPOP", "myset"});
    if (testSelected("zadd")) benchmarkArgv("ZADD", 4, (const char *[]){"ZADD", "myzset", "0", "element:__rand_int__"});
    if (testSelected("zpopmin")) benchmarkArgv("ZPOPMIN", 2, (const char *[]){"ZPOPMIN", "myzset"});

    int lrange = testSelected("lrange") || testSelected("lrange_100") || testSelected("lrange_300") ||
                 testSelected("lrange_500") || testSelected("lrange_600");
    if (lrange) benchmarkArgv("LPUSH (needed to benchmark LRANGE)", 3, (const char *[]){"LPUSH", "mylist", data});
    static const struct {
        const char *name, *title, *stop;
    } ranges[] = {
        {"lrange_100", "LRANGE_100 (first 100 elements)", "99"},
        {"lrange_300", "LRANGE_300 (first 300 elements)", "299"},
        {"lrange_500", "LRANGE_500 (first 500 elements)", "499"},
        {"lrange_600", "LRANGE_600 (first 600 elements)", "599"},
    };
    for (size_t j = 0; j < sizeof(ranges) / sizeof(ranges[0]); j++) {
        if (testSelected("lrange") || testSelected(ranges[j].name))
            benchmarkArgv(ranges[j].title, 4, (const char *[]){"LRANGE", "mylist", "0", ranges[j].stop});
    }

    if (testSelected("mset")) {
        const char *argv[21];
        argv[0] = "MSET";
        for (int j = 0; j < 10; j++) {
            argv[1 + j * 2] = "key:__rand_int__";
            argv[2 + j * 2] = data;
        }
        benchmarkArgv("MSET (10 keys)", 21, argv);
    }
    if (testSelected("xadd")) benchmarkArgv("XADD", 5, (const char *[]){"XADD", "mystream", "*", "myfield", data});
    sdsfree(data);
}

static void usage(int status) {
    FILE *fp = status ? stderr : stdout;
    fprintf(fp,
            "Usage: valkey-benchmark [OPTIONS] [COMMAND ARGS...]\n\n"
            "Options:\n"
            " -h <hostname>      Server hostname (default 127.0.0.1)\n"
            " -p <port>          Server port (default 6379)\n"
            " -s <socket>        Server socket (overrides host and port)\n"
            " -a <password>      Password for Valkey Auth\n"
            " --user <username>  Used to send ACL style 'AUTH username pass'. Needs -a.\n"
            " -c <clients>       Number of parallel connections (default 50)\n"
            " -n <requests>      Total number of requests (default 100000)\n"
            " -d <size>          Data size of SET/GET value in bytes (default 3)\n"
            " --dbnum <db>       SELECT the specified db number (default 0)\n"
            " --threads <num>    Enable multi-thread mode.\n"
            " -k <boolean>       1=keep alive 0=reconnect (default 1)\n"
            " -r <keyspacelen>   Use random keys: __rand_int__ inside an argument becomes\n"
            "                    a 12 digits number from 0 to keyspacelen-1, different\n"
            "                    for every command sent. Without -r it stays as is.\n"
            " -P <numreq>        Pipeline <numreq> requests. Default 1 (no pipeline).\n"
            " -q                 Quiet. Just show query/sec values\n"
            " --precision        Number of decimal places to display in latency output\n"
            "                    (default 0 = 3 decimals)\n"
            " --csv              Output in CSV format\n"
            " -l                 Loop. Run the tests forever\n"
            " -t <tests>         Only run the comma separated list of tests. The test\n"
            "                    names are the same as the ones produced as output.\n"
            "                    The -t option is ignored if a specific command is supplied\n"
            "                    on the command line.\n"
            " -e                 Show server errors (at most one per second).\n"
            " -x                 Read last argument from STDIN.\n"
            " --seed <num>       Seed of the random numbers (default: time based).\n"
            CLI_TLS_OPTIONS_HELP(" ")
            " --rdma             Establish an RDMA connection.\n"
            " --shm              Talk through shared memory, set up over the Unix socket\n"
            "                    given with -s (the server needs shm-enabled yes).\n"
            " --help             Output this help and exit.\n"
            " --version          Output version and exit.\n\n"
            "Examples:\n"
            "   valkey-benchmark -t set,get -n 1000000 -r 100000 -q\n"
            "   valkey-benchmark -n 10000 -r 10000 lpush mylist __rand_int__\n");
    exit(status);
}

/* Parses a numeric option value or exits with a message. */
static long long optNumber(const char *opt, const char *val, long long min, long long max) {
    long long v;
    if (!string2ll(val, strlen(val), &v) || v < min || v > max)
        fatal("Invalid value for %s: '%s' (expected %lld..%lld)", opt, val, min, max);
    return v;
}

/* The value of option argv[*i], advancing *i past it; exits if missing. */
static const char *optValue(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) fatal("Unrecognized option or bad number of args for: '%s'", argv[*i]);
    return argv[++*i];
}

/* Parses the options; returns the index of the first command word. Sets
 * *transport when an option picks one (--rdma). */
static int parseOptions(int argc, char **argv, const char **transport) {
    int i, tls, tls_on = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-') break; /* The command starts here. */
        if (!strcmp(a, "-h")) {
            config.hostip = optValue(argc, argv, &i);
        } else if (!strcmp(a, "-p")) {
            config.hostport = (int)optNumber(a, optValue(argc, argv, &i), 0, 65535);
        } else if (!strcmp(a, "-s")) {
            config.hostsocket = optValue(argc, argv, &i);
        } else if (!strcmp(a, "-a")) {
            config.auth = optValue(argc, argv, &i);
        } else if (!strcmp(a, "--user")) {
            config.user = optValue(argc, argv, &i);
        } else if (!strcmp(a, "-c")) {
            config.numclients = (int)optNumber(a, optValue(argc, argv, &i), 1, 1000000);
        } else if (!strcmp(a, "-n")) {
            config.requests = optNumber(a, optValue(argc, argv, &i), 1, LLONG_MAX / 2);
        } else if (!strcmp(a, "-d")) {
            config.datasize = (int)optNumber(a, optValue(argc, argv, &i), 0, 1024 * 1024 * 1024);
        } else if (!strcmp(a, "-k")) {
            config.keepalive = optNumber(a, optValue(argc, argv, &i), 0, 1) != 0;
        } else if (!strcmp(a, "-r")) {
            config.keyspacelen = optNumber(a, optValue(argc, argv, &i), 0, 1000000000000LL);
        } else if (!strcmp(a, "-P")) {
            config.pipeline = (int)optNumber(a, optValue(argc, argv, &i), 1, 1000000);
        } else if (!strcmp(a, "-t")) {
            config.tests = sdscatfmt(sdsnew(","), "%s,", optValue(argc, argv, &i));
            sdstolower(config.tests);
        } else if (!strcmp(a, "--threads")) {
            config.num_threads = (int)optNumber(a, optValue(argc, argv, &i), 0, BENCH_MAX_THREADS);
        } else if (!strcmp(a, "--precision")) {
            config.precision = (int)optNumber(a, optValue(argc, argv, &i), 0, 6);
            if (config.precision == 0) config.precision = 3;
        } else if (!strcmp(a, "--seed")) {
            config.seed = (unsigned long long)optNumber(a, optValue(argc, argv, &i), 0, LLONG_MAX);
        } else if (!strcmp(a, "--dbnum")) {
            config.dbnum = (int)optNumber(a, optValue(argc, argv, &i), 0, INT_MAX);
        } else if (!strcmp(a, "-q")) {
            config.quiet = 1;
        } else if (!strcmp(a, "-l")) {
            config.loop = 1;
        } else if (!strcmp(a, "-e")) {
            config.showerrors = 1;
        } else if (!strcmp(a, "-x")) {
            config.stdinarg = 1;
        } else if (!strcmp(a, "--csv")) {
            config.csv = 1;
        } else if (!strcmp(a, "--rdma")) {
            *transport = CLI_CONN_RDMA;
        } else if (!strcmp(a, "--shm")) {
            *transport = CLI_CONN_SHM;
        } else if ((tls = cliParseTlsOption(argc, argv, &i, &config.tls, &tls_on)) != 0) {
            if (tls < 0) {
                fprintf(stderr, "Unrecognized option or bad number of args for: '%s'\n", a);
                usage(1);
            }
            if (tls_on) *transport = CLI_CONN_TLS;
        } else if (!strcmp(a, "--help")) {
            usage(0);
        } else if (!strcmp(a, "--version") || !strcmp(a, "-v")) {
            printf("valkey-benchmark %s\n", BENCH_VERSION);
            exit(0);
        } else {
            fprintf(stderr, "Unrecognized option or bad number of args for: '%s'\n", a);
            usage(1);
        }
    }
    return i;
}

/* The number of descriptors a run can hold open at once: each client's
 * connection holds fds_per_conn of its transport (one for TCP, three for
 * RDMA), each worker an epoll fd, plus BENCH_FD_RESERVE. fd numbers are
 * process-wide, so this is also the size of every worker's event loop
 * (an fd numbered past it could not be registered). */
static int benchFdsNeeded(void) {
    int per_conn = config.ct->fds_per_conn > 0 ? config.ct->fds_per_conn : 1;
    int nthreads = config.num_threads > 0 ? config.num_threads : 1;
    return config.numclients * per_conn + nthreads + BENCH_FD_RESERVE;
}

/* Makes RLIMIT_NOFILE allow need descriptors, raising the soft limit up
 * to the hard limit if it is lower (as the server does for maxclients).
 * Exits with an error naming both limits when even that is not enough. */
static void benchRaiseFdLimit(int need) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == -1) fatal("Error: getrlimit(RLIMIT_NOFILE): %s", strerror(errno));
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)need) {
        rlim_t soft = rl.rlim_cur;
        rl.rlim_cur = (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= (rlim_t)need) ? (rlim_t)need : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) == -1) rl.rlim_cur = soft;
        if (rl.rlim_cur < (rlim_t)need)
            fatal("Error: %d clients over %s need up to %d file descriptors, but the open files limit "
                  "(RLIMIT_NOFILE) is %llu with a hard limit of %llu. Raise it (ulimit -n %d) or use fewer "
                  "clients (-c).",
                  config.numclients, config.ct->name, need, (unsigned long long)soft,
                  (unsigned long long)rl.rlim_max, need);
    }
}

/* Entry point: parse, check the server, run the tests (forever with -l).
 * Exits 0 after the last test, 1 on a usage or connection error. */
int main(int argc, char **argv) {
    const char *transport = NULL; /* Set by --rdma; else tcp or unix. */
    config.hostip = "127.0.0.1";
    config.hostport = 6379;
    config.numclients = 50;
    config.requests = 100000;
    config.datasize = 3;
    config.keepalive = 1;
    config.pipeline = 1;
    config.precision = 3;
    config.seed = (unsigned long long)ustime() ^ ((unsigned long long)getpid() << 32);

    int first_arg = parseOptions(argc, argv, &transport);
    if (!transport) transport = config.hostsocket ? CLI_CONN_UNIX : CLI_CONN_TCP;
    config.ct = cliConnTypeGetByName(transport);
    if (!config.ct) {
        if (!strcmp(transport, CLI_CONN_RDMA)) fatal("RDMA support is not built in");
        if (!strcmp(transport, CLI_CONN_TLS)) fatal("TLS support is not built in");
        fatal("Unknown transport '%s'", transport);
    }
    int over_socket = !strcmp(config.ct->name, CLI_CONN_UNIX) || !strcmp(config.ct->name, CLI_CONN_SHM);
    if (config.hostsocket && !over_socket) fatal("-s cannot be used with --%s", transport);
    if (!config.hostsocket && !strcmp(config.ct->name, CLI_CONN_SHM))
        fatal("--shm needs the server's Unix socket: -s <socket>");
    config.addr.host = config.hostip;
    config.addr.port = config.hostport;
    config.addr.path = config.hostsocket;
    config.addr.tls = &config.tls;
    cliConnFormatAddr(config.addrstr, sizeof(config.addrstr), &config.addr);
    if (config.user && !config.auth) fatal("--user needs -a <password>");
    if (config.num_threads > config.numclients) config.num_threads = config.numclients;
    config.is_tty = isatty(STDOUT_FILENO);

    signal(SIGPIPE, SIG_IGN);
    pthread_mutex_init(&run.lock, NULL);
    pthread_cond_init(&run.cond, NULL);

    config.fds_needed = benchFdsNeeded();
    benchRaiseFdLimit(config.fds_needed);

    /* Commands sent first on every connection. */
    if (config.auth) {
        const char *a[] = {"AUTH", config.user ? config.user : config.auth, config.auth};
        run.prefix = config.user ? respAppendCommand(sdsempty(), 3, a, NULL)
                                 : respAppendCommand(sdsempty(), 2, (const char *[]){"AUTH", config.auth}, NULL);
        run.prefix_replies++;
    }
    if (config.dbnum) {
        char db[LONG_STR_SIZE];
        ll2string(db, sizeof(db), config.dbnum);
        run.prefix = respAppendCommand(run.prefix ? run.prefix : sdsempty(), 2, (const char *[]){"SELECT", db}, NULL);
        run.prefix_replies++;
    }

    /* A command given on the command line (-x appends stdin to it). */
    int cmd_argc = argc - first_arg;
    sds stdin_arg = NULL;
    if (config.stdinarg) {
        stdin_arg = sdsempty();
        char chunk[16384];
        size_t n;
        while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0) stdin_arg = sdscatlen(stdin_arg, chunk, n);
    }

    fetchServerConfig();
    if (config.csv)
        printf("\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\"p95_latency_ms\","
               "\"p99_latency_ms\",\"max_latency_ms\"\n");

    if (cmd_argc > 0) {
        sds title = sdsjoin(argv + first_arg, cmd_argc, " ");
        int n = cmd_argc + (stdin_arg ? 1 : 0);
        const char **args = zmalloc(sizeof(char *) * (size_t)n);
        size_t *lens = zmalloc(sizeof(size_t) * (size_t)n);
        for (int j = 0; j < cmd_argc; j++) {
            args[j] = argv[first_arg + j];
            lens[j] = strlen(args[j]);
        }
        if (stdin_arg) {
            args[cmd_argc] = stdin_arg;
            lens[cmd_argc] = sdslen(stdin_arg);
        }
        do {
            benchmark(title, respAppendCommand(sdsempty(), n, args, lens));
        } while (config.loop);
        zfree(args);
        zfree(lens);
        sdsfree(title);
    } else {
        do {
            runStandardTests();
        } while (config.loop);
    }
    sdsfree(stdin_arg);
    return 0;
}
