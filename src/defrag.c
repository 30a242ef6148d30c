/* defrag.c - active defragmentation: moving live blocks out of sparse
 * allocator slabs so that those slabs empty and go back to the system.
 *
 * Why: jemalloc serves small blocks from slabs, runs of pages cut into
 * regions of one size class. Delete most keys of a big dataset at random
 * and nearly every slab keeps a few live regions: RSS stays near the peak
 * though used_memory fell. Moving the survivors into fuller slabs lets the
 * sparse ones empty and be released.
 *
 * When: serverCron() calls activeDefragCycle() every tick. Nothing happens
 * unless activedefrag is yes, and nothing while a fork child runs (moving
 * blocks would make the kernel copy every page the child still shares) or
 * while a dataset loads. Once a second (at once after an active-defrag-*
 * option changed) defragDecide() compares the free space inside the slabs
 * of the small size classes (zmalloc_get_frag_smallbins(), as a
 * percentage of the allocated bytes) with active-defrag-threshold-lower
 * and active-defrag-ignore-bytes; above both, a pass starts, with a CPU
 * share interpolated between active-defrag-cycle-min and -max as the
 * fragmentation goes from threshold-lower to threshold-upper. The share
 * may rise during a pass, never fall. Each tick then works for that share
 * of the tick's period, and the pass goes on tick after tick until every
 * database was walked; then the thresholds decide whether another starts.
 *
 * What: a pass walks each database's keyspace table by SCAN cursor
 * (hashtableScanRefs(), which hands out the slots, so an entry can be
 * replaced in place). Every block of a key is offered to
 * activeDefragAlloc(), which asks jemalloc (zmalloc_defrag_hint()) whether
 * the block's slab is no fuller than the average slab of its class, and if
 * so copies it into a fresh block taken past the thread cache and frees
 * the old one (zmalloc_defrag_move()); the caller stores the new address
 * wherever the old one was. Per key that is: the keyspace entry itself
 * (the value object, which carries the key and the expire time: the keys
 * table's slot and, for a key with a TTL, the expires table's slot point
 * at it), a RAW string's sds, a listpack or intset, a quicklist and each
 * node with its listpack or packed/compressed form, a hashtable-encoded
 * set or hash (the table struct, its bucket arrays and every member or
 * field entry), a skiplist-encoded sorted set (its structs, the dict's
 * tables, every skiplist node and dict entry: t_zset.c's
 * zsetTypeDefrag()), and a stream's struct, index and node listpacks. A
 * value with more than active-defrag-max-scan-fields elements is finished
 * a part at a time: its key goes to the `later` list and the parts are
 * done, under the same time limit, before the keyspace scan moves on; each
 * part looks the key up again, so a big value deleted or replaced in the
 * meantime is simply dropped.
 *
 * Who else holds these pointers, i.e. why moving is safe: the cycle runs
 * from the cron, between commands, when no command, iterator or client
 * argument vector is using a value. Blocked clients, WATCH, client-side
 * caching and the eviction pool keep key names, not objects; the lazy
 * free queue holds only objects already out of the keyspace; replication
 * and the AOF hold bytes. What can hold a keyspace object is a reference
 * (a client argument replaced by the stored value, a propagated command,
 * SLOWLOG): those count in refcount, so an entry whose refcount is not 1 is
 * left where it is (its value's inner blocks are only reached through it,
 * so they may still move).
 *
 * DEBUG DEFRAG-MOVE-ALL arms one pass that moves every block it visits
 * whatever jemalloc says and however low the fragmentation: the tests use
 * it to check the pointer fixes under AddressSanitizer, whose malloc is
 * not jemalloc (moved-from blocks are then poisoned, so a stale pointer
 * anywhere is caught at once).
 *
 * Everything here runs in the event-loop thread. */
#include "server.h"

#include "defrag.h"
#include "latency.h"
#include "quicklist.h"
#include "snapshot.h"
#include "stream.h"

struct defragState defrag;

/* Stages of a pass (one transition function: defragStep()). */
typedef enum {
    DEFRAG_IDLE,      /* no pass in progress */
    DEFRAG_DB_START,  /* next: move database `dbid`'s table buckets, then scan it */
    DEFRAG_DB_SCAN,   /* scanning database `dbid` by cursor; big values wait in `later` */
    DEFRAG_PASS_DONE, /* every database walked: log, then decide about another pass */
} defragStage;

/* A big value being finished a part at a time (the head of `later`). */
typedef struct defragLaterCursor {
    int started;          /* the head's first part is done: cursor is valid */
    int type, encoding;   /* what the value was when queued: a change drops it */
    unsigned long cursor; /* hashtable scan cursor, or quicklist node index */
    zsetDefragCursor zset; /* sorted sets */
    streamID last;        /* streams: master ID of the last node done */
} defragLaterCursor;

/* Where the pass in progress stands. */
static struct {
    defragStage stage;
    int dbid;                /* database being walked */
    size_t cursor;           /* its keys table's scan cursor */
    int scan_started;        /* cursor 0 means "done" once this is set */
    long long keys_scanned;  /* keys visited, a running count */
    list *later;             /* sds key names of big values of `dbid` to finish */
    defragLaterCursor lc;    /* progress in the head of `later` */
    long long pass_start_us; /* for the "done" log line */
    long long pass_start_hits;
    long long last_decision_ms; /* mstime of the last defragDecide() */
} pass;

/* Work between two looks at the clock: scan steps, keys, moves; elements
 * of a big value. */
#define DEFRAG_STEPS_PER_TIME_CHECK 16
#define DEFRAG_KEYS_PER_TIME_CHECK 64
#define DEFRAG_HITS_PER_TIME_CHECK 512
#define DEFRAG_LATER_ITEMS_PER_TIME_CHECK 64

/* ---------------------------------------------------------------------------
 * Moving one block
 * ------------------------------------------------------------------------- */

/* See defrag.h. */
int defragSupported(void) {
    return zmalloc_defrag_available() || defrag.move_all;
}

/* See defrag.h. */
void *activeDefragAlloc(void *ptr) {
    if (!defrag.move_all && !zmalloc_defrag_hint(ptr)) {
        defrag.stat_misses++;
        return NULL;
    }
    defrag.stat_hits++;
    return zmalloc_defrag_move(ptr);
}

/* See defrag.h. */
sds activeDefragSds(sds s) {
    char *alloc = sdsAllocPtr(s);
    char *moved = activeDefragAlloc(alloc);
    return moved ? (sds)(moved + ((char *)s - alloc)) : NULL;
}

/* Moves *ref's block if that helps, updating *ref. */
static void defragPtr(void **ref) {
    void *moved = activeDefragAlloc(*ref);
    if (moved) *ref = moved;
}

/* activeDefragAlloc() with the signature hashtable.c and t_zset.c take. */
static void *defragAllocCallback(void *ptr) {
    return activeDefragAlloc(ptr);
}

/* ---------------------------------------------------------------------------
 * Values, per type
 *
 * Each defrag*Value() moves what a value owns; those of collections that
 * can be big return 1 when the elements are left for later (the value has
 * more than active-defrag-max-scan-fields of them), after moving the
 * value's own structs. The *Part() functions do up to a budget of elements
 * from a cursor and return the cursor to go on from, 0 when done.
 * ------------------------------------------------------------------------- */

/* 1 if a collection of n elements is finished a part at a time. */
static int defragIsBig(unsigned long n) {
    return n > server.active_defrag_max_scan_fields;
}

/* A quicklist node and its listpack or at-rest blob; relinks the node's
 * neighbours (or the list's head/tail) when it moved. Returns the node. */
static quicklistNode *defragQuicklistNode(quicklist *ql, quicklistNode *node) {
    quicklistNode *moved = activeDefragAlloc(node);
    if (moved) {
        node = moved;
        if (node->prev) node->prev->next = node;
        else ql->head = node;
        if (node->next) node->next->prev = node;
        else ql->tail = node;
    }
    if (node->lp) defragPtr((void **)&node->lp);
    if (node->blob) defragPtr((void **)&node->blob);
    return node;
}

/* Nodes from index `from` (0 = head), up to budget of them. */
static unsigned long defragQuicklistPart(quicklist *ql, unsigned long from, unsigned long budget) {
    quicklistNode *node = ql->head;
    unsigned long idx = 0;
    while (node && idx < from) {
        node = node->next;
        idx++;
    }
    while (node && budget--) {
        node = defragQuicklistNode(ql, node)->next;
        idx++;
    }
    return node ? idx : 0;
}

static int defragListValue(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        void *lp = activeDefragAlloc(objectGetVal(o));
        if (lp) objectSetVal(o, lp);
        return 0;
    }
    quicklist *ql = objectGetVal(o);
    quicklist *moved = activeDefragAlloc(ql);
    if (moved) objectSetVal(o, ql = moved);
    if (defragIsBig(ql->len)) return 1;
    defragQuicklistPart(ql, 0, ULONG_MAX);
    return 0;
}

/* A hashtable-encoded set member or hash entry: an sds at the start of its
 * block (a hash entry's value follows the field in the same block). */
static void defragTableEntry(void *privdata, void **ref) {
    (void)privdata;
    sds moved = activeDefragSds(*ref);
    if (moved) *ref = moved;
}

/* Entries from scan cursor `cursor`, at least budget of them (whole scan
 * steps). */
static unsigned long defragHashtablePart(hashtable *ht, unsigned long cursor, unsigned long budget) {
    long long start = defrag.stat_hits + defrag.stat_misses;
    do {
        cursor = hashtableScanRefs(ht, cursor, defragTableEntry, NULL);
    } while (cursor && (unsigned long long)(defrag.stat_hits + defrag.stat_misses - start) < budget);
    return cursor;
}

/* The hashtable struct of a set or hash value (the object points at it),
 * then its buckets. Returns the table. */
static hashtable *defragHashtableStruct(robj *o) {
    hashtable *ht = activeDefragAlloc(objectGetVal(o));
    if (ht) objectSetVal(o, ht);
    else ht = objectGetVal(o);
    hashtableDefragTables(ht, defragAllocCallback);
    return ht;
}

/* Sets and hashes: one block (intset, listpack) or a hashtable. */
static int defragSetOrHashValue(robj *o) {
    if (o->encoding != OBJ_ENCODING_HT) {
        void *p = activeDefragAlloc(objectGetVal(o));
        if (p) objectSetVal(o, p);
        return 0;
    }
    hashtable *ht = defragHashtableStruct(o);
    if (defragIsBig(hashtableSize(ht))) return 1;
    defragHashtablePart(ht, 0, ULONG_MAX);
    return 0;
}

/* Sorted sets: a listpack, or t_zset.c's skiplist and dict. */
static int defragZsetValue(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        void *lp = activeDefragAlloc(objectGetVal(o));
        if (lp) objectSetVal(o, lp);
        return 0;
    }
    zsetTypeDefragStructs(o, defragAllocCallback);
    if (defragIsBig(zsetLength(o))) return 1;
    zsetDefragCursor cur = {0};
    zsetTypeDefragPart(o, &cur, ULONG_MAX, defragAllocCallback);
    return 0;
}

/* sidmapDefrag() visitor of a stream's index: the stream node (the index
 * node's value) and its listpack. */
static void defragStreamNode(sidmapNode *n, void *privdata) {
    (void)privdata;
    streamNode *node = activeDefragAlloc(n->value);
    if (node) n->value = node;
    else node = n->value;
    defragPtr((void **)&node->lp);
}

/* Index nodes (with their stream nodes) after `after`, or from the first
 * (and the index header) when first, up to budget. *last receives the ID
 * of the last one done. Returns 1 if nodes are left. */
static int defragStreamPart(stream *s, int first, streamID after, unsigned long budget, streamID *last) {
    return sidmapDefrag(s->index, first, after, budget, defragAllocCallback, defragStreamNode, NULL, last);
}

/* Streams: the stream struct, its index struct, then the index nodes and
 * the stream nodes. Consumer groups stay where they are. */
static int defragStreamValue(robj *o) {
    stream *s = activeDefragAlloc(objectGetVal(o));
    if (s) objectSetVal(o, s);
    else s = objectGetVal(o);
    sidmap *index = activeDefragAlloc(s->index);
    if (index) s->index = index;
    if (defragIsBig(sidmapLen(s->index))) return 1;
    streamID none = {0, 0}, last;
    defragStreamPart(s, 1, none, ULONG_MAX, &last);
    return 0;
}

/* Moves what value o owns. Returns 1 if its elements are left for later. */
static int defragValue(robj *o) {
    switch (o->type) {
    case OBJ_STRING:
        if (o->encoding == OBJ_ENCODING_RAW) {
            sds moved = activeDefragSds(objectGetVal(o));
            if (moved) objectSetVal(o, moved);
        }
        return 0; /* EMBSTR lives in the object, INT owns nothing */
    case OBJ_LIST: return defragListValue(o);
    case OBJ_SET:
    case OBJ_HASH: return defragSetOrHashValue(o);
    case OBJ_ZSET: return defragZsetValue(o);
    case OBJ_STREAM: return defragStreamValue(o);
    default: return 0;
    }
}

/* One part of the big value o (the head of `later`), from pass.lc.
 * Returns 1 when the value is finished. */
static int defragLaterPart(robj *o, unsigned long budget) {
    defragLaterCursor *lc = &pass.lc;
    unsigned long cursor = lc->cursor;
    int first = !lc->started;
    lc->started = 1;
    switch (o->type) {
    case OBJ_LIST: cursor = defragQuicklistPart(objectGetVal(o), cursor, budget); break;
    case OBJ_SET:
    case OBJ_HASH: cursor = defragHashtablePart(objectGetVal(o), cursor, budget); break;
    case OBJ_ZSET: cursor = !zsetTypeDefragPart(o, &lc->zset, budget, defragAllocCallback); break;
    case OBJ_STREAM: cursor = defragStreamPart(objectGetVal(o), first, lc->last, budget, &lc->last); break;
    default: cursor = 0;
    }
    /* Non-zero: more to do (for sorted sets and streams only a flag). */
    lc->cursor = cursor;
    return cursor == 0;
}

/* ---------------------------------------------------------------------------
 * Keys
 * ------------------------------------------------------------------------- */

/* Moves keyspace entry *ref (when no one else holds it) and fixes both
 * table slots. Returns the entry, moved or not. */
static robj *defragKeyEntry(serverDb *db, void **ref) {
    robj *o = *ref;
    if (o->refcount != 1) return o;
    void **expire_ref = NULL;
    if (objectGetExpire(o) != -1) {
        /* Found through the key inside o: before o is freed. */
        expire_ref = hashtableFindRef(db->expires, objectGetKey(o));
        if (expire_ref == NULL || *expire_ref != o) return o; /* not where it should be: leave it */
    }
    robj *moved = activeDefragAlloc(o);
    if (moved == NULL) return o;
    *ref = moved;
    if (expire_ref) *expire_ref = moved;
    return moved;
}

/* hashtableScanRefs() callback over a keys table: one key, whole, or with
 * its elements queued in `later`. */
static void defragKeyCallback(void *privdata, void **ref) {
    serverDb *db = privdata;
    long long hits = defrag.stat_hits;
    pass.keys_scanned++;
    robj *o = defragKeyEntry(db, ref);
    if (defragValue(o)) listAddNodeTail(pass.later, sdsdup(objectGetKey(o)));
    if (defrag.stat_hits != hits) defrag.stat_key_hits++;
    else defrag.stat_key_misses++;
}

/* Works on the big values in `later` until they are done (returns 0) or
 * endtime passes (returns 1). */
static int defragLaterStep(serverDb *db, long long endtime) {
    while (listLength(pass.later)) {
        listNode *head = listFirst(pass.later);
        robj *o = dbFind(db, listNodeValue(head));
        if (o && !pass.lc.started) {
            pass.lc.type = o->type;
            pass.lc.encoding = o->encoding;
        }
        /* Deleted, or replaced by another kind of value: drop it. */
        int done = o == NULL || o->type != pass.lc.type || o->encoding != pass.lc.encoding;
        while (!done) {
            done = defragLaterPart(o, DEFRAG_LATER_ITEMS_PER_TIME_CHECK);
            if (!done && ustime() > endtime) return 1;
        }
        sdsfree(listNodeValue(head));
        listDelNode(pass.later, head);
        memset(&pass.lc, 0, sizeof(pass.lc));
        if (ustime() > endtime) return listLength(pass.later) != 0;
    }
    return 0;
}

/* Forgets the big values queued (the pass stopped or moved on). */
static void defragLaterClear(void) {
    while (listLength(pass.later)) {
        listNode *head = listFirst(pass.later);
        sdsfree(listNodeValue(head));
        listDelNode(pass.later, head);
    }
    memset(&pass.lc, 0, sizeof(pass.lc));
}

/* ---------------------------------------------------------------------------
 * Deciding: is there fragmentation enough for a pass, at which CPU share?
 * ------------------------------------------------------------------------- */

/* Free space in small-class slabs as a percentage of the allocated bytes;
 * *frag_bytes receives the bytes. */
static double defragFragmentation(size_t *frag_bytes) {
    size_t allocated, active, resident;
    zmalloc_get_allocator_info(&allocated, &active, &resident);
    *frag_bytes = zmalloc_get_frag_smallbins();
    return allocated ? (double)*frag_bytes * 100 / allocated : 0;
}

/* The CPU share for frag_pct: cycle-min at threshold-lower, cycle-max at
 * threshold-upper, linear between, clamped to [cycle-min, cycle-max]. */
static int defragCpuShare(double frag_pct) {
    int lo = server.active_defrag_threshold_lower, hi = server.active_defrag_threshold_upper;
    int cmin = server.active_defrag_cycle_min, cmax = server.active_defrag_cycle_max;
    double share = hi > lo ? cmin + (frag_pct - lo) * (cmax - cmin) / (hi - lo) : cmax;
    if (share < cmin) share = cmin;
    if (share > cmax) share = cmax;
    return (int)share;
}

/* Starts a pass, or raises the running one's share, when fragmentation is
 * over both thresholds (or DEBUG DEFRAG-MOVE-ALL asks for a pass). */
static void defragDecide(void) {
    size_t frag_bytes;
    double frag_pct = defragFragmentation(&frag_bytes);
    int cpu;
    if (defrag.move_all) {
        cpu = server.active_defrag_cycle_max;
    } else {
        if (!defrag.running && (frag_pct < server.active_defrag_threshold_lower ||
                                frag_bytes < server.active_defrag_ignore_bytes))
            return;
        cpu = defragCpuShare(frag_pct);
    }
    if (cpu > defrag.running || (defrag.config_changed && defrag.running)) {
        if (!defrag.running) defrag.running_since_us = ustime();
        defrag.running = cpu;
        serverLog(LL_VERBOSE, "Starting active defrag, frag=%.0f%%, frag_bytes=%zu, cpu=%d%%", frag_pct, frag_bytes,
                  cpu);
    }
}

/* Ends the running state: its time goes to total_active_defrag_time. */
static void defragStopRunning(void) {
    if (defrag.running) defrag.stat_total_time_us += ustime() - defrag.running_since_us;
    defrag.running = 0;
    defrag.running_since_us = 0;
}

/* ---------------------------------------------------------------------------
 * The pass
 * ------------------------------------------------------------------------- */

/* Ends the pass, whether finished or abandoned. */
static void defragEndPass(void) {
    defragLaterClear();
    pass.stage = DEFRAG_IDLE;
    pass.cursor = 0;
    pass.dbid = 0;
}

/* Logs the finished pass and decides whether another is needed. */
static void defragPassDone(void) {
    size_t frag_bytes;
    double frag_pct = defragFragmentation(&frag_bytes);
    serverLog(LL_VERBOSE, "Active defrag done in %dms, reallocated=%d, frag=%.0f%%, frag_bytes=%zu",
              (int)((ustime() - pass.pass_start_us) / 1000), (int)(defrag.stat_hits - pass.pass_start_hits),
              frag_pct, frag_bytes);
    defragEndPass();
    defrag.move_all = 0;
    defragStopRunning();
    defragDecide(); /* still fragmented: the next pass starts at once */
}

/* Does one unit of the pass and moves it to its next stage. Returns 1 if
 * the caller may go on within this tick, 0 when the time is up or there
 * is nothing left to do now. */
static int defragStep(long long endtime) {
    switch (pass.stage) {
    case DEFRAG_IDLE:
        if (!defrag.running) return 0;
        pass.dbid = 0;
        pass.pass_start_us = ustime();
        pass.pass_start_hits = defrag.stat_hits;
        pass.stage = DEFRAG_DB_START;
        return 1;
    case DEFRAG_DB_START: {
        if (pass.dbid >= server.dbnum) {
            pass.stage = DEFRAG_PASS_DONE;
            return 1;
        }
        serverDb *db = &server.db[pass.dbid];
        kvstoreDefragTables(db->keys, defragAllocCallback);
        hashtableDefragTables(db->expires, defragAllocCallback);
        pass.cursor = 0;
        pass.scan_started = 0;
        pass.stage = DEFRAG_DB_SCAN;
        return 1;
    }
    case DEFRAG_DB_SCAN: {
        serverDb *db = &server.db[pass.dbid];
        if (defragLaterStep(db, endtime)) return 0;
        long long keys = pass.keys_scanned, hits = defrag.stat_hits;
        for (int i = 0; i < DEFRAG_STEPS_PER_TIME_CHECK && (pass.cursor || !pass.scan_started); i++) {
            pass.cursor = kvstoreScanRefs(db->keys, pass.cursor, defragKeyCallback, db);
            pass.scan_started = 1;
            if (listLength(pass.later)) break; /* big values first */
            if (pass.keys_scanned - keys > DEFRAG_KEYS_PER_TIME_CHECK ||
                defrag.stat_hits - hits > DEFRAG_HITS_PER_TIME_CHECK)
                break;
        }
        if (pass.scan_started && pass.cursor == 0 && listLength(pass.later) == 0) {
            pass.dbid++;
            pass.stage = DEFRAG_DB_START;
        }
        return ustime() < endtime;
    }
    case DEFRAG_PASS_DONE:
        defragPassDone();
        return defrag.running != 0 && ustime() < endtime;
    }
    return 0;
}

/* See defrag.h. */
void activeDefragCycle(void) {
    if (pass.later == NULL) pass.later = listCreate();
    if (!server.active_defrag_enabled) {
        if (pass.stage != DEFRAG_IDLE) defragEndPass(); /* turned off mid-pass: start afresh next time */
        defragStopRunning();
        defrag.config_changed = 0;
        return;
    }
    /* A fork child shares our pages: every block moved now would be copied. */
    if (hasActiveChildProcess() || server.loading) return;

    if (defrag.config_changed || server.mstime - pass.last_decision_ms >= 1000) {
        pass.last_decision_ms = server.mstime;
        defragDecide();
        defrag.config_changed = 0;
    }
    if (!defrag.running) return;

    long long start = ustime();
    long long budget = 1000000LL * defrag.running / server.hz / 100;
    if (budget <= 0) budget = 1;
    long long endtime = start + budget;
    while (defragStep(endtime)) {
    }
    latencyAddSampleIfNeeded("active-defrag-cycle", (ustime() - start) / 1000);
}

/* See defrag.h. */
void defragConfigChanged(void) {
    defrag.config_changed = 1;
}

/* See defrag.h. */
long long defragCurrentTimeMs(void) {
    return defrag.running ? (ustime() - defrag.running_since_us) / 1000 : 0;
}

/* See defrag.h. */
void defragResetStats(void) {
    defrag.stat_hits = defrag.stat_misses = 0;
    defrag.stat_key_hits = defrag.stat_key_misses = 0;
    defrag.stat_total_time_us = 0;
}
