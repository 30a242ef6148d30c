/* latency.c - the latency monitor and the per-command latency histograms.
 *
 * Two independent instruments live here:
 *
 * 1. The latency monitor. Code paths that may block the event loop (call()
 *    for every command today; fork, fsync, expiry cycles later) report how
 *    long they took with latencyAddSampleIfNeeded(event, ms). When
 *    latency-monitor-threshold is > 0 and reached, the sample is stored in
 *    the event's ring of LATENCY_TS_LEN samples (one per second: a second
 *    spike in the same second only raises that second's value). LATENCY
 *    LATEST / HISTORY / GRAPH / DOCTOR / RESET read and clear these rings.
 *
 * 2. Command latency histograms. When latency-tracking is on, call() passes
 *    every command's duration to latencyRecordCommand(). Each command gets
 *    a log-linear histogram (16 linear sub-buckets per power of two, so any
 *    value is known within 1/16 of itself) the first time it is recorded;
 *    histograms are kept in a dict keyed by the command pointer so that the
 *    command table itself stays untouched. LATENCY HISTOGRAM reports them as
 *    cumulative counts at powers of two; INFO latencystats reports the
 *    percentiles listed in latency-tracking-info-percentiles.
 *
 * Everything runs in the event-loop thread. */
#include "latency.h"

#include <math.h>
#include <strings.h>

/* ---------------------------------------------------------------------------
 * Latency monitor: named events with a ring of samples
 * ------------------------------------------------------------------------- */

static dict *latencyEvents; /* sds event name -> latencyTimeSeries* */

static void latencyValFree(void *p) {
    zfree(p);
}

static dictType latencyEventsDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = latencyValFree,
};

/* Creates the empty event table. Called once at start-up. Per-command
 * histograms hang off struct serverCommand (latency_histogram), so the
 * hot path finds its histogram without a lookup. */
void latencyMonitorInit(void) {
    latencyEvents = dictCreate(&latencyEventsDictType);
}

/* Records a latency (ms) for event unconditionally. event is copied. */
void latencyAddSample(const char *event, mstime_t latency) {
    if (latencyEvents == NULL) return;
    if (latency < 0) latency = 0;
    if (latency > UINT32_MAX) latency = UINT32_MAX;
    sds name = sdsnew(event);
    latencyTimeSeries *ts = dictFetchValue(latencyEvents, name);
    if (ts == NULL) {
        ts = zcalloc(sizeof(*ts));
        dictAdd(latencyEvents, name, ts);
    } else {
        sdsfree(name);
    }
    int32_t now = (int32_t)time(NULL);
    if ((uint32_t)latency > ts->max) ts->max = (uint32_t)latency;
    latencySample *prev = &ts->samples[(ts->idx + LATENCY_TS_LEN - 1) % LATENCY_TS_LEN];
    if (prev->time == now) {
        if ((uint32_t)latency > prev->latency) prev->latency = (uint32_t)latency;
        return;
    }
    ts->samples[ts->idx].time = now;
    ts->samples[ts->idx].latency = (uint32_t)latency;
    ts->idx = (ts->idx + 1) % LATENCY_TS_LEN;
}

/* Records latency (ms) for event if the monitor is enabled
 * (latency-monitor-threshold > 0) and latency reaches the threshold. Cheap
 * enough to call after every command. */
void latencyAddSampleIfNeeded(const char *event, mstime_t latency) {
    if (server.latency_monitor_threshold > 0 && latency >= server.latency_monitor_threshold)
        latencyAddSample(event, latency);
}

/* Calls fn for every stored sample of ts, oldest first. */
#define latencyForEachSample(ts, var, body)                                            \
    for (int _k = 0; _k < LATENCY_TS_LEN; _k++) {                                      \
        latencySample *var = &(ts)->samples[((ts)->idx + _k) % LATENCY_TS_LEN];        \
        if (var->time == 0) continue;                                                  \
        body                                                                           \
    }

/* Summary of one event's stored samples. */
typedef struct latencyStats {
    int samples;
    uint32_t min, max; /* Over stored samples. */
    double avg, mad;   /* Mean and mean absolute deviation (ms). */
    time_t first, last;
} latencyStats;

static void latencyAnalyze(latencyTimeSeries *ts, latencyStats *st) {
    memset(st, 0, sizeof(*st));
    double sum = 0;
    latencyForEachSample(ts, s, {
        if (st->samples == 0 || s->latency < st->min) st->min = s->latency;
        if (s->latency > st->max) st->max = s->latency;
        if (st->samples == 0) st->first = s->time;
        st->last = s->time;
        sum += s->latency;
        st->samples++;
    });
    if (st->samples == 0) return;
    st->avg = sum / st->samples;
    double dev = 0;
    latencyForEachSample(ts, s, { dev += fabs(s->latency - st->avg); });
    st->mad = dev / st->samples;
}

/* LATENCY LATEST: [event, time of last spike, last ms, all-time max ms]. */
static void latencyReplyLatest(client *c) {
    addReplyArrayLen(c, dictSize(latencyEvents));
    dictIterator *di = dictGetIterator(latencyEvents);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds name = dictGetKey(de);
        latencyTimeSeries *ts = dictGetVal(de);
        latencySample *last = &ts->samples[(ts->idx + LATENCY_TS_LEN - 1) % LATENCY_TS_LEN];
        addReplyArrayLen(c, 4);
        addReplyBulkCBuffer(c, name, sdslen(name));
        addReplyLongLong(c, last->time);
        addReplyLongLong(c, last->latency);
        addReplyLongLong(c, ts->max);
    }
    dictReleaseIterator(di);
}

/* LATENCY HISTORY event: [time, ms] pairs, oldest first. */
static void latencyReplyHistory(client *c, latencyTimeSeries *ts) {
    if (ts == NULL) {
        addReplyArrayLen(c, 0);
        return;
    }
    int n = 0;
    latencyForEachSample(ts, s, { n++; });
    addReplyArrayLen(c, n);
    latencyForEachSample(ts, s, {
        addReplyArrayLen(c, 2);
        addReplyLongLong(c, s->time);
        addReplyLongLong(c, s->latency);
    });
}

/* LATENCY GRAPH event: a header line and one bar per stored sample. */
static sds latencyGraph(sds out, const char *event, latencyTimeSeries *ts) {
    latencyStats st;
    latencyAnalyze(ts, &st);
    out = sdscatprintf(out, "%s - high %u ms, low %u ms (all time high %u ms)\n", event, st.max, st.min, ts->max);
    for (int j = 0; j < 76; j++) out = sdscatlen(out, "-", 1);
    out = sdscatlen(out, "\n", 1);
    time_t now = time(NULL);
    latencyForEachSample(ts, s, {
        int width = st.max ? (int)((uint64_t)s->latency * 50 / st.max) : 0;
        if (width == 0) width = 1;
        long long age = (long long)(now - s->time);
        out = sdscatprintf(out, "%8llds ago |", age);
        for (int j = 0; j < width; j++) out = sdscatlen(out, "#", 1);
        out = sdscatprintf(out, " %u ms\n", s->latency);
    });
    return out;
}

/* Advice for the events we know how to explain. */
static const char *latencyAdvice(const char *event) {
    if (!strcmp(event, "command"))
        return "Slow commands were executed. Look at SLOWLOG GET for the culprits: commands that are O(N) "
               "on large values (KEYS, SMEMBERS, HGETALL, LRANGE of big ranges, ...) block every other client "
               "while they run. Prefer SCAN-style iteration and smaller values.";
    if (!strcmp(event, "fast-command"))
        return "Commands that should take micro-seconds (O(1) and O(log N)) took milliseconds. This usually "
               "means the host itself is the problem: the process was paused, swapped out, or starved of CPU "
               "by other processes or a noisy neighbour.";
    if (!strncmp(event, "expire", 6))
        return "Expiring keys took long. Many keys expiring at the same moment is the usual cause: spread "
               "expire times with some randomness.";
    if (!strcmp(event, "fork"))
        return "fork() is slow. Its cost grows with the dataset; huge pages and some virtualised hosts make "
               "it worse.";
    return "No specific advice for this event; compare it with the other events and the slow log.";
}

/* LATENCY DOCTOR: a readable report built from the stored samples. */
static sds latencyDoctor(sds out) {
    if (server.latency_monitor_threshold <= 0 && dictSize(latencyEvents) == 0) {
        return sdscat(out, "The latency monitor is disabled: latency-monitor-threshold is 0, so no latency event "
                           "is being recorded.\nEnable it with CONFIG SET latency-monitor-threshold <milliseconds> "
                           "and run LATENCY DOCTOR again later.\n");
    }
    if (dictSize(latencyEvents) == 0) {
        return sdscatprintf(out, "No latency spike of %lld ms or more has been recorded since the server started "
                                 "or since the last LATENCY RESET. Nothing to report.\n",
                            server.latency_monitor_threshold);
    }
    out = sdscatprintf(out, "Latency report: %lu event type(s) recorded spikes of at least %lld ms.\n\n",
                       (unsigned long)dictSize(latencyEvents), server.latency_monitor_threshold);
    int n = 1;
    dictIterator *di = dictGetIterator(latencyEvents);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds name = dictGetKey(de);
        latencyTimeSeries *ts = dictGetVal(de);
        latencyStats st;
        latencyAnalyze(ts, &st);
        long long span = (long long)(st.last - st.first);
        out = sdscatprintf(out,
                           "%d. %s: %d spike(s) over %lld s, average %.0f ms (mean deviation %.0f ms), "
                           "worst of all time %u ms.\n   %s\n\n",
                           n++, name, st.samples, span, st.avg, st.mad, ts->max, latencyAdvice(name));
    }
    dictReleaseIterator(di);
    return out;
}

/* ---------------------------------------------------------------------------
 * Command latency histograms
 * ------------------------------------------------------------------------- */

#define LH_SUB_BITS 4
#define LH_SUB (1 << LH_SUB_BITS)             /* Linear sub-buckets per power of two. */
#define LH_MAX_EXP 40                         /* Values up to 2^41-1 us (~25 days). */
#define LH_BUCKETS (LH_SUB + (LH_MAX_EXP - LH_SUB_BITS + 1) * LH_SUB)

typedef struct latencyHistogram {
    uint64_t total;
    uint64_t counts[LH_BUCKETS];
} latencyHistogram;

/* Bucket of value v (microseconds): exact below LH_SUB, then LH_SUB buckets
 * per power of two. */
static int lhIndex(uint64_t v) {
    if (v < LH_SUB) return (int)v;
    int e = 63 - __builtin_clzll(v);
    if (e > LH_MAX_EXP) return LH_BUCKETS - 1;
    int sub = (int)((v >> (e - LH_SUB_BITS)) & (LH_SUB - 1));
    return LH_SUB + (e - LH_SUB_BITS) * LH_SUB + sub;
}

/* Smallest value that falls in bucket idx. */
static uint64_t lhLower(int idx) {
    if (idx < LH_SUB) return (uint64_t)idx;
    int e = (idx - LH_SUB) / LH_SUB + LH_SUB_BITS;
    uint64_t sub = (uint64_t)((idx - LH_SUB) % LH_SUB);
    return (LH_SUB + sub) << (e - LH_SUB_BITS);
}

/* Largest value that falls in bucket idx. */
static uint64_t lhUpper(int idx) {
    if (idx < LH_SUB) return (uint64_t)idx;
    int e = (idx - LH_SUB) / LH_SUB + LH_SUB_BITS;
    return lhLower(idx) + ((uint64_t)1 << (e - LH_SUB_BITS)) - 1;
}

/* Adds one execution of cmd that took duration_us microseconds. Called by
 * call() when latency-tracking is enabled; the histogram is allocated on
 * the command's first sample. */
void latencyRecordCommand(struct serverCommand *cmd, long long duration_us) {
    if (cmd == NULL) return;
    if (duration_us < 0) duration_us = 0;
    latencyHistogram *h = cmd->latency_histogram;
    if (h == NULL) h = cmd->latency_histogram = zcalloc(sizeof(*h));
    h->counts[lhIndex((uint64_t)duration_us)]++;
    h->total++;
}

/* Frees every histogram (CONFIG RESETSTAT). */
void latencyResetCommandHistograms(void) {
    dictIterator *di = dictGetIterator(server.commands);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        struct serverCommand *cmd = dictGetVal(de);
        zfree(cmd->latency_histogram);
        cmd->latency_histogram = NULL;
        for (struct serverCommand *sub = cmd->subcommands; sub && sub->name; sub++) {
            zfree(sub->latency_histogram);
            sub->latency_histogram = NULL;
        }
    }
    dictReleaseIterator(di);
}

/* Returns 1 if cmd has at least one recorded sample. */
int latencyCommandHasSamples(struct serverCommand *cmd) {
    latencyHistogram *h = cmd->latency_histogram;
    return h != NULL && h->total > 0;
}

/* Returns the latency (us) under which `percentile` percent of cmd's
 * samples fall (upper bound of the bucket holding that rank), 0 if there
 * are no samples. */
double latencyCommandPercentile(struct serverCommand *cmd, double percentile) {
    latencyHistogram *h = cmd->latency_histogram;
    if (h == NULL || h->total == 0) return 0;
    if (percentile < 0) percentile = 0;
    if (percentile > 100) percentile = 100;
    uint64_t rank = (uint64_t)ceil(percentile / 100.0 * (double)h->total);
    if (rank == 0) rank = 1;
    uint64_t seen = 0;
    for (int i = 0; i < LH_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= rank) return (double)lhUpper(i);
    }
    return (double)lhUpper(LH_BUCKETS - 1);
}

/* Parses latency-tracking-info-percentiles ("50 99 99.9"); returns the
 * count written to out (at most max). */
static int latencyParsePercentiles(double *out, int max) {
    const char *spec = server.latency_tracking_info_percentiles_str;
    if (spec == NULL) {
        out[0] = 50.0;
        out[1] = 99.0;
        out[2] = 99.9;
        return 3;
    }
    int n = 0;
    const char *p = spec;
    while (*p && n < max) {
        char *end;
        while (*p == ' ') p++;
        if (!*p) break;
        double v = strtod(p, &end);
        if (end == p) break;
        out[n++] = v;
        p = end;
    }
    return n;
}

/* Appends "latency_percentiles_usec_<cmd>:p50=..,p99=..\r\n" for cmd to
 * info; nothing if cmd has no samples. */
sds latencyCatInfoPercentiles(sds info, struct serverCommand *cmd) {
    if (!latencyCommandHasSamples(cmd)) return info;
    double pct[16];
    int n = latencyParsePercentiles(pct, 16);
    info = sdscatprintf(info, "latency_percentiles_usec_%s:", cmd->fullname ? cmd->fullname : cmd->name);
    for (int j = 0; j < n; j++) {
        info = sdscatprintf(info, "%sp%g=%.3f", j ? "," : "", pct[j], latencyCommandPercentile(cmd, pct[j]));
    }
    return sdscatlen(info, "\r\n", 2);
}

/* Replies "name" => {calls, histogram_usec => {2^k: cumulative count}}. */
static void latencyReplyHistogram(client *c, struct serverCommand *cmd) {
    latencyHistogram *h = cmd->latency_histogram;
    const char *name = cmd->fullname ? cmd->fullname : cmd->name;
    addReplyBulkCString(c, name);
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "calls");
    addReplyLongLong(c, (long long)h->total);
    addReplyBulkCString(c, "histogram_usec");
    void *len = addReplyDeferredLen(c);
    int points = 0, idx = 0;
    uint64_t cumulative = 0, reported = 0;
    for (uint64_t bound = 1; reported < h->total; bound <<= 1) {
        while (idx < LH_BUCKETS && lhLower(idx) <= bound) cumulative += h->counts[idx++];
        if (cumulative > reported) {
            addReplyLongLong(c, (long long)bound);
            addReplyLongLong(c, (long long)cumulative);
            reported = cumulative;
            points++;
        }
        if (bound >= ((uint64_t)1 << (LH_MAX_EXP + 1))) break;
    }
    setDeferredMapLen(c, len, points);
}

/* Counts and replies the commands (and subcommands) of cmd that have
 * samples; used for both the explicit list and the whole table. */
static int latencyHistogramOne(client *c, struct serverCommand *cmd, int reply) {
    int n = 0;
    if (latencyCommandHasSamples(cmd)) {
        if (reply) latencyReplyHistogram(c, cmd);
        n++;
    }
    if (cmd->subcommands) {
        for (struct serverCommand *sub = cmd->subcommands; sub->name; sub++) {
            if (latencyCommandHasSamples(sub)) {
                if (reply) latencyReplyHistogram(c, sub);
                n++;
            }
        }
    }
    return n;
}

static void latencyHistogramCommand(client *c) {
    void *len = addReplyDeferredLen(c);
    int n = 0;
    if (c->argc == 2) {
        dictIterator *di = dictGetIterator(server.commands);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL) n += latencyHistogramOne(c, dictGetVal(de), 1);
        dictReleaseIterator(di);
    } else {
        for (int j = 2; j < c->argc; j++) {
            struct serverCommand *cmd = lookupCommandBySds(objectGetVal(c->argv[j]));
            if (cmd == NULL) continue;
            /* A name given twice is reported once. */
            int dup = 0;
            for (int k = 2; k < j; k++)
                if (lookupCommandBySds(objectGetVal(c->argv[k])) == cmd) dup = 1;
            if (!dup) n += latencyHistogramOne(c, cmd, 1);
        }
    }
    setDeferredMapLen(c, len, n);
}

/* ---------------------------------------------------------------------------
 * The LATENCY command
 * ------------------------------------------------------------------------- */

/* LATENCY <subcommand>: one proc for the container and every subcommand,
 * dispatching on argv[1]. */
void latencyCommand(client *c) {
    const char *sub = c->argc > 1 ? objectGetVal(c->argv[1]) : "";
    if (!strcasecmp(sub, "latest") && c->argc == 2) {
        latencyReplyLatest(c);
    } else if (!strcasecmp(sub, "history") && c->argc == 3) {
        latencyReplyHistory(c, dictFetchValue(latencyEvents, objectGetVal(c->argv[2])));
    } else if (!strcasecmp(sub, "graph") && c->argc == 3) {
        latencyTimeSeries *ts = dictFetchValue(latencyEvents, objectGetVal(c->argv[2]));
        if (ts == NULL) {
            addReplyErrorFormat(c, "No samples available for event '%s'", (char *)objectGetVal(c->argv[2]));
            return;
        }
        sds graph = latencyGraph(sdsempty(), objectGetVal(c->argv[2]), ts);
        addReplyVerbatim(c, graph, sdslen(graph), "txt");
        sdsfree(graph);
    } else if (!strcasecmp(sub, "doctor") && c->argc == 2) {
        sds report = latencyDoctor(sdsempty());
        addReplyVerbatim(c, report, sdslen(report), "txt");
        sdsfree(report);
    } else if (!strcasecmp(sub, "reset") && c->argc >= 2) {
        long long resets = 0;
        if (c->argc == 2) {
            resets = dictSize(latencyEvents);
            dictEmpty(latencyEvents, NULL);
        } else {
            for (int j = 2; j < c->argc; j++)
                if (dictDelete(latencyEvents, objectGetVal(c->argv[j])) == DICT_OK) resets++;
        }
        addReplyLongLong(c, resets);
    } else if (!strcasecmp(sub, "histogram") && c->argc >= 2) {
        latencyHistogramCommand(c);
    } else if (!strcasecmp(sub, "help") && c->argc == 2) {
        const char *help[] = {
            "DOCTOR",
            "    Return a human readable report of the recorded latency spikes.",
            "GRAPH <event>",
            "    Return an ASCII chart of the stored samples of <event>.",
            "HISTORY <event>",
            "    Return the stored [time, latency] samples of <event>, oldest first.",
            "LATEST",
            "    Return the latest [event, time, latency, max latency] of every event.",
            "RESET [<event> ...]",
            "    Forget the samples of the given events, or of every event.",
            "HISTOGRAM [<command> ...]",
            "    Return the cumulative latency distribution (microseconds) of the given",
            "    commands, or of every command that has been called.",
            NULL,
        };
        addReplyHelp(c, help);
    } else {
        addReplySubcommandSyntaxError(c);
    }
}
