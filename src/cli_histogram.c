/* cli_histogram.c - queries and bookkeeping of the tools' latency histogram.
 *
 * Recording is inline in cli_histogram.h; this file creates, resets and
 * merges histograms and answers percentile and cumulative-count queries,
 * which valkey-benchmark uses for its "Latency by percentile distribution",
 * "Cumulative distribution of latencies" and summary lines.
 *
 * Bucket layout (see the header): index i < 2*SUB holds exactly the value
 * i; above, i = shift*SUB + m with m in [SUB, 2*SUB) holds the values
 * [m << shift, ((m+1) << shift) - 1]. Percentiles are answered with the
 * upper bound of the bucket that holds the requested rank, clamped to the
 * exact max (and min), so 0 and 100 return the exact extremes. */
#include <stdint.h>
#include <string.h>

#include "cli_histogram.h"
#include "zmalloc.h"

/* Allocates an empty histogram (about 35 KB). Owned by the caller, freed
 * with cliHistFree(). Never NULL. */
cliHistogram *cliHistCreate(void) {
    cliHistogram *h = zmalloc(sizeof(*h));
    cliHistReset(h);
    return h;
}

/* Frees a histogram from cliHistCreate(); NULL is not allowed. */
void cliHistFree(cliHistogram *h) {
    zfree(h);
}

/* Empties h. */
void cliHistReset(cliHistogram *h) {
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

/* Adds every value of src to dst (src is unchanged). */
void cliHistMerge(cliHistogram *dst, const cliHistogram *src) {
    if (src->count == 0) return;
    for (int j = 0; j < CLI_HIST_BUCKETS; j++) dst->buckets[j] += src->buckets[j];
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->min < dst->min) dst->min = src->min;
    if (src->max > dst->max) dst->max = src->max;
}

/* Smallest value that bucket index holds. */
uint64_t cliHistBucketLow(int index) {
    if (index < 2 * CLI_HIST_SUB) return (uint64_t)index;
    int shift = (index >> CLI_HIST_SUB_BITS) - 1;
    uint64_t m = (uint64_t)(index - (shift << CLI_HIST_SUB_BITS));
    return m << shift;
}

/* Largest value that bucket index holds. */
uint64_t cliHistBucketHigh(int index) {
    if (index < 2 * CLI_HIST_SUB) return (uint64_t)index;
    int shift = (index >> CLI_HIST_SUB_BITS) - 1;
    uint64_t m = (uint64_t)(index - (shift << CLI_HIST_SUB_BITS));
    return ((m + 1) << shift) - 1;
}

/* The value at percentile (0..100): the smallest bucket upper bound such
 * that at least percentile% of the values are at or below it, clamped to
 * [min, max]. 0 for an empty histogram. */
uint64_t cliHistPercentile(const cliHistogram *h, double percentile) {
    if (h->count == 0) return 0;
    if (percentile <= 0) return h->min;
    if (percentile >= 100) return h->max;
    /* Rank of the sample we want, 1-based; at least 1. */
    double want = percentile / 100.0 * (double)h->count;
    uint64_t rank = (uint64_t)want;
    if ((double)rank < want) rank++;
    if (rank == 0) rank = 1;
    uint64_t seen = 0;
    for (int j = 0; j < CLI_HIST_BUCKETS; j++) {
        seen += h->buckets[j];
        if (seen >= rank) {
            uint64_t v = cliHistBucketHigh(j);
            if (v > h->max) v = h->max;
            if (v < h->min) v = h->min;
            return v;
        }
    }
    return h->max;
}

/* How many recorded values are <= v, counting whole buckets: a bucket is
 * included when its upper bound is <= v (so the answer never claims more
 * than is true). */
uint64_t cliHistCountAtOrBelow(const cliHistogram *h, uint64_t v) {
    if (v >= h->max) return h->count;
    uint64_t seen = 0;
    for (int j = 0; j < CLI_HIST_BUCKETS && cliHistBucketHigh(j) <= v; j++) seen += h->buckets[j];
    return seen;
}

/* Exact arithmetic mean, 0 for an empty histogram. */
double cliHistMean(const cliHistogram *h) {
    return h->count ? (double)h->sum / (double)h->count : 0.0;
}
