/* latency.h - the latency monitor (LATENCY LATEST/HISTORY/...) and the
 * per-command latency histograms (LATENCY HISTOGRAM, INFO latencystats).
 *
 * Latency monitor: named events ("command", "fast-command", later "fork",
 * "aof-fsync-always", ...) each keep the last LATENCY_TS_LEN samples, one per
 * second at most (a second sample in the same second keeps the maximum).
 * Samples are taken only when latency-monitor-threshold is > 0 and reached.
 *
 * Histograms: one per command, allocated on its first call, fed by call()
 * with the command's duration when latency-tracking is enabled. */
#ifndef VK_LATENCY_H
#define VK_LATENCY_H

#include "server.h"

#define LATENCY_TS_LEN 160 /* History length of every event. */

typedef struct latencySample {
    int32_t time;     /* Unix time of the sample. */
    uint32_t latency; /* Milliseconds. */
} latencySample;

/* One event's history: a ring of samples, idx = next slot to write. */
typedef struct latencyTimeSeries {
    int idx;
    uint32_t max; /* Highest latency ever seen for this event. */
    latencySample samples[LATENCY_TS_LEN];
} latencyTimeSeries;

void latencyMonitorInit(void);
void latencyAddSample(const char *event, mstime_t latency);
void latencyAddSampleIfNeeded(const char *event, mstime_t latency);
void latencyRecordCommand(struct serverCommand *cmd, long long duration_us);
void latencyResetCommandHistograms(void);
int latencyCommandHasSamples(struct serverCommand *cmd);
double latencyCommandPercentile(struct serverCommand *cmd, double percentile);
sds latencyCatInfoPercentiles(sds info, struct serverCommand *cmd);
void latencyCommand(client *c);

#endif
