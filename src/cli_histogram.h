/* cli_histogram.h - latency histogram with bounded relative error.
 *
 * Records non-negative integer values (the tools use microseconds) into
 * log-linear buckets: values below 2 * CLI_HIST_SUB are counted exactly;
 * above, every power-of-two range [2^e, 2^(e+1)) is cut into CLI_HIST_SUB
 * equal buckets. A bucket is therefore never wider than 1/CLI_HIST_SUB of
 * the values in it, so any percentile reported as its bucket's upper bound
 * is within +1/128 (< 0.79%) of the true sample value, and never below it.
 * Count, sum, min and max are kept exactly.
 *
 * Not thread-safe: each thread records into its own histogram and the
 * owner merges them at the end (cliHistMerge). Leaf code, no dependencies. */
#ifndef VK_CLI_HISTOGRAM_H
#define VK_CLI_HISTOGRAM_H

#include <stdint.h>

#define CLI_HIST_SUB_BITS 7
#define CLI_HIST_SUB (1 << CLI_HIST_SUB_BITS) /* Buckets per power of two. */
#define CLI_HIST_MAX_SHIFT 33                 /* Values up to 2^41-1. */
#define CLI_HIST_BUCKETS ((CLI_HIST_MAX_SHIFT + 2) * CLI_HIST_SUB)
#define CLI_HIST_MAX_VALUE ((UINT64_C(1) << (CLI_HIST_MAX_SHIFT + CLI_HIST_SUB_BITS + 1)) - 1)

typedef struct cliHistogram {
    uint64_t count; /* Values recorded. */
    uint64_t sum;   /* Their exact sum (clamped values included as clamped). */
    uint64_t min;   /* Exact minimum, UINT64_MAX while empty. */
    uint64_t max;   /* Exact maximum, 0 while empty. */
    uint64_t buckets[CLI_HIST_BUCKETS];
} cliHistogram;

/* Bucket index of v (v already clamped to CLI_HIST_MAX_VALUE). */
static inline int cliHistIndex(uint64_t v) {
    int shift = 0;
    if (v >= 2 * CLI_HIST_SUB) shift = (63 - __builtin_clzll(v)) - CLI_HIST_SUB_BITS;
    return (shift << CLI_HIST_SUB_BITS) + (int)(v >> shift);
}

/* Records n occurrences of value v; values above CLI_HIST_MAX_VALUE are
 * clamped. Inline: this is on the tools' per-reply path. */
static inline void cliHistRecordN(cliHistogram *h, uint64_t v, uint64_t n) {
    if (v > CLI_HIST_MAX_VALUE) v = CLI_HIST_MAX_VALUE;
    h->buckets[cliHistIndex(v)] += n;
    h->count += n;
    h->sum += v * n;
    if (v < h->min) h->min = v;
    if (v > h->max) h->max = v;
}

static inline void cliHistRecord(cliHistogram *h, uint64_t v) {
    cliHistRecordN(h, v, 1);
}

cliHistogram *cliHistCreate(void);
void cliHistFree(cliHistogram *h);
void cliHistReset(cliHistogram *h);
void cliHistMerge(cliHistogram *dst, const cliHistogram *src);
uint64_t cliHistPercentile(const cliHistogram *h, double percentile);
uint64_t cliHistCountAtOrBelow(const cliHistogram *h, uint64_t v);
double cliHistMean(const cliHistogram *h);
uint64_t cliHistBucketLow(int index);
uint64_t cliHistBucketHigh(int index);

#endif
