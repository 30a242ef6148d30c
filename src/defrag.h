/* defrag.h - active defragmentation (activedefrag and the active-defrag-*
 * options): the state INFO reports and the calls the rest of the server
 * makes. See defrag.c for how it works. */
#ifndef VK_DEFRAG_H
#define VK_DEFRAG_H

#include "sds.h"

/* What INFO shows about the defragmenter, plus the knobs other files set. */
struct defragState {
    int running;                  /* CPU percent of the pass in progress, 0 when idle (active_defrag_running) */
    int config_changed;           /* an active-defrag-* option changed: decide again at the next cron */
    int move_all;                 /* DEBUG DEFRAG-MOVE-ALL: the next pass moves every block it visits */
    long long stat_hits;          /* blocks moved (active_defrag_hits) */
    long long stat_misses;        /* blocks looked at and left in place (active_defrag_misses) */
    long long stat_key_hits;      /* keys with at least one block moved (active_defrag_key_hits) */
    long long stat_key_misses;    /* keys looked at with nothing moved (active_defrag_key_misses) */
    long long stat_total_time_us; /* time spent with a pass running, passes ended (total_active_defrag_time) */
    long long running_since_us;   /* ustime() when the running pass started, 0 when idle */
};

extern struct defragState defrag;

/* Runs one slice of the defragmenter: decides once a second whether
 * fragmentation calls for a pass, and while one runs spends up to its CPU
 * share of this cron tick moving blocks. Called by serverCron(). */
void activeDefragCycle(void);

/* 1 if CONFIG SET activedefrag yes may succeed: jemalloc serves our
 * allocations (zmalloc_defrag_available()), or DEBUG DEFRAG-MOVE-ALL is
 * armed (which moves blocks without asking the allocator). */
int defragSupported(void);

/* Apply callback of the active-defrag-* options: the next cron tick
 * re-decides whether a pass runs and at which CPU share. */
void defragConfigChanged(void);

/* Milliseconds since the running pass started, 0 when idle (INFO
 * current_active_defrag_time). */
long long defragCurrentTimeMs(void);

/* CONFIG RESETSTAT: zeroes the counters (not a running pass's state). */
void defragResetStats(void);

/* Offers ptr (a live z*() block) to the defragmenter: returns its new
 * address when it moved (ptr is freed, the caller must store the new
 * pointer wherever ptr was kept), NULL when it stays. Counts a hit or a
 * miss. Event-loop thread only. */
void *activeDefragAlloc(void *ptr);

/* activeDefragAlloc() for an sds, or any pointer into a block that starts
 * at sdsAllocPtr() of it: returns the pointer at the same offset in the
 * new block, or NULL. */
sds activeDefragSds(sds s);

#endif
