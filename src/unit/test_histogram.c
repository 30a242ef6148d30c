/* test_histogram.c - unit tests for cli_histogram.c, the tools' latency
 * histogram.
 *
 * Checks the bucket layout (exact small values, contiguous buckets whose
 * width never exceeds 1/128 of their values), percentiles of known
 * distributions against exact percentiles computed by sorting the same
 * samples (reported value >= true value and within 1%), the exact
 * min/max/mean, cumulative counts, clamping, and that merging per-thread
 * histograms gives the same answers as recording everything into one. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cli_histogram.h"
#include "unittest.h"

static int cmpU64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Exact percentile by the same rank rule the histogram uses. */
static uint64_t exactPercentile(const uint64_t *sorted, size_t n, double p) {
    if (p <= 0) return sorted[0];
    if (p >= 100) return sorted[n - 1];
    double want = p / 100.0 * (double)n;
    uint64_t rank = (uint64_t)want;
    if ((double)rank < want) rank++;
    if (rank == 0) rank = 1;
    return sorted[rank - 1];
}

static uint64_t rngState = 88172645463325252ULL;
static uint64_t rng(void) {
    rngState ^= rngState << 13;
    rngState ^= rngState >> 7;
    rngState ^= rngState << 17;
    return rngState;
}

/* Records samples into h and checks a set of percentiles against the
 * exact ones; returns the worst relative error seen. */
static double checkDistribution(cliHistogram *h, uint64_t *samples, size_t n) {
    static const double ps[] = {0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100};
    double worst = 0;
    for (size_t j = 0; j < n; j++) cliHistRecord(h, samples[j]);
    qsort(samples, n, sizeof(*samples), cmpU64);
    for (size_t j = 0; j < sizeof(ps) / sizeof(ps[0]); j++) {
        uint64_t exact = exactPercentile(samples, n, ps[j]);
        uint64_t got = cliHistPercentile(h, ps[j]);
        ASSERT(got >= exact);
        double err = exact ? (double)(got - exact) / (double)exact : (double)got;
        if (err > worst) worst = err;
    }
    return worst;
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);

    TEST("histogram: small values are exact, buckets are contiguous and narrow") {
        for (uint64_t v = 0; v < 2 * CLI_HIST_SUB; v++) ASSERT_EQ_LL(cliHistIndex(v), v);
        for (int j = 1; j < CLI_HIST_BUCKETS; j++) {
            ASSERT_EQ_LL(cliHistBucketLow(j), cliHistBucketHigh(j - 1) + 1);
            uint64_t lo = cliHistBucketLow(j), hi = cliHistBucketHigh(j);
            ASSERT((double)(hi - lo) / (double)lo < 1.0 / CLI_HIST_SUB);
            ASSERT_EQ_LL(cliHistIndex(lo), j);
            ASSERT_EQ_LL(cliHistIndex(hi), j);
        }
        ASSERT_EQ_LL(cliHistBucketHigh(CLI_HIST_BUCKETS - 1), CLI_HIST_MAX_VALUE);
    }

    TEST("histogram: empty, single value, exact min/max/mean") {
        cliHistogram *h = cliHistCreate();
        ASSERT_EQ_LL(cliHistPercentile(h, 50), 0);
        ASSERT(cliHistMean(h) == 0);
        cliHistRecord(h, 12345);
        ASSERT_EQ_LL(cliHistPercentile(h, 0), 12345);
        ASSERT_EQ_LL(cliHistPercentile(h, 50), 12345);
        ASSERT_EQ_LL(cliHistPercentile(h, 100), 12345);
        cliHistRecord(h, 5);
        cliHistRecordN(h, 1000, 2);
        ASSERT_EQ_LL(h->count, 4);
        ASSERT_EQ_LL(h->min, 5);
        ASSERT_EQ_LL(h->max, 12345);
        ASSERT(fabs(cliHistMean(h) - (12345 + 5 + 2000) / 4.0) < 1e-9);
        cliHistFree(h);
    }

    TEST("histogram: uniform 1..1000000 percentiles within 1%") {
        size_t n = 200000;
        uint64_t *s = malloc(n * sizeof(*s));
        for (size_t j = 0; j < n; j++) s[j] = 1 + rng() % 1000000;
        cliHistogram *h = cliHistCreate();
        double worst = checkDistribution(h, s, n);
        ASSERT(worst < 0.01);
        ASSERT(worst < 1.0 / CLI_HIST_SUB);
        cliHistFree(h);
        free(s);
    }

    TEST("histogram: exponential latencies (mean 300us) and a long tail within 1%") {
        size_t n = 200000;
        uint64_t *s = malloc(n * sizeof(*s));
        for (size_t j = 0; j < n; j++) {
            double u = (double)(rng() >> 11) / 9007199254740992.0;
            s[j] = 20 + (uint64_t)(-300.0 * log(1.0 - u));
            if (j % 1000 == 0) s[j] = 50000 + rng() % 5000000; /* stalls */
        }
        cliHistogram *h = cliHistCreate();
        ASSERT(checkDistribution(h, s, n) < 0.01);
        cliHistFree(h);
        free(s);
    }

    TEST("histogram: cumulative counts and clamping") {
        cliHistogram *h = cliHistCreate();
        for (uint64_t v = 1; v <= 100; v++) cliHistRecord(h, v);
        ASSERT_EQ_LL(cliHistCountAtOrBelow(h, 0), 0);
        ASSERT_EQ_LL(cliHistCountAtOrBelow(h, 50), 50);
        ASSERT_EQ_LL(cliHistCountAtOrBelow(h, 100), 100);
        ASSERT_EQ_LL(cliHistCountAtOrBelow(h, 1000), 100);
        cliHistRecord(h, UINT64_MAX);
        ASSERT_EQ_LL(h->max, CLI_HIST_MAX_VALUE);
        ASSERT_EQ_LL(cliHistPercentile(h, 100), CLI_HIST_MAX_VALUE);
        cliHistFree(h);
    }

    TEST("histogram: merging per-thread histograms equals one histogram") {
        cliHistogram *all = cliHistCreate(), *t[4], *merged = cliHistCreate();
        for (int j = 0; j < 4; j++) t[j] = cliHistCreate();
        for (int j = 0; j < 100000; j++) {
            uint64_t v = rng() % (j % 7 == 0 ? 100000 : 2000);
            cliHistRecord(all, v);
            cliHistRecord(t[j % 4], v);
        }
        for (int j = 0; j < 4; j++) cliHistMerge(merged, t[j]);
        ASSERT_EQ_LL(merged->count, all->count);
        ASSERT_EQ_LL(merged->sum, all->sum);
        ASSERT_EQ_LL(merged->min, all->min);
        ASSERT_EQ_LL(merged->max, all->max);
        ASSERT(memcmp(merged->buckets, all->buckets, sizeof(all->buckets)) == 0);
        ASSERT_EQ_LL(cliHistPercentile(merged, 99), cliHistPercentile(all, 99));
        cliHistogram *empty = cliHistCreate();
        cliHistMerge(merged, empty);
        ASSERT_EQ_LL(merged->min, all->min);
        for (int j = 0; j < 4; j++) cliHistFree(t[j]);
        cliHistFree(all);
        cliHistFree(merged);
        cliHistFree(empty);
    }

    return UT_END();
}
