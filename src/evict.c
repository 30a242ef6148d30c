/* evict.c - keeping the dataset under maxmemory by evicting keys.
 *
 * When maxmemory is set, processCommand() (server.c) calls
 * performEvictions() before running each command. If the memory we count
 * is over the limit, keys are deleted according to maxmemory-policy until
 * enough has been freed or a time budget (maxmemory-eviction-tenacity) runs
 * out; a command flagged CMD_DENYOOM is refused with -OOM only when nothing
 * at all could be evicted (EVICT_FAIL).
 *
 * Choosing the victim:
 *  - *-random policies take a random key of the right table (all keys, or
 *    only those with a TTL), visiting databases round-robin;
 *  - LRU, LFU and volatile-ttl approximate "the best key in the whole
 *    dataset" cheaply: every round draws maxmemory-samples keys per
 *    database with hashtableSampleEntries() and offers them to a small pool of the
 *    EVPOOL_SIZE best candidates seen so far, ranked by a score where
 *    higher means "evict sooner" (idle time for LRU, 255 minus the decayed
 *    access counter for LFU, how soon the key expires for volatile-ttl).
 *    The pool survives between calls, so good candidates found earlier are
 *    not forgotten; as keys may change or vanish meanwhile, a candidate is
 *    looked up again before it is evicted.
 *
 * Memory that the server needs for other things than the dataset and that
 * eviction cannot reduce (what replicas lag behind in the replication
 * buffer, the AOF buffer) is excluded by freeMemoryGetNotCountedMemory()
 * (INFO mem_not_counted_for_evict). Deletions go through db.c
 * (dbGenericDelete, honouring lazyfree-lazy-eviction) and are counted in
 * server.stat_evictedkeys; each fires an "evicted" keyspace event and is
 * propagated to replicas as DEL or UNLINK (propagate.c). Evictions never
 * run inside a command: each is its own execution unit, so its DEL or
 * UNLINK is never wrapped in MULTI ... EXEC. A command that lowers the
 * limit (CONFIG SET maxmemory) only starts the timer that evicts after
 * it, as Valkey's does. */
#include "server.h"
#include "replication.h"

#include "aof.h"
#include "propagate.h"

#include <math.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------
 * Memory accounting
 * ------------------------------------------------------------------------- */

/* Returns the bytes of used memory that must not count towards maxmemory
 * (INFO mem_not_counted_for_evict): buffers that evicting keys cannot
 * shrink, and would only grow with the DELs it propagates. As in Valkey:
 *  - of the replication buffer (replication.c), the part beyond what
 *    repl-backlog-size of history takes in blocks. Up to there it is the
 *    backlog, which stops growing at its size and stays: it counts like
 *    the dataset. Beyond, it is what lagging replicas still need, and it
 *    is not counted even after they left, until it is trimmed, so that
 *    its slow release cannot start an eviction loop;
 *  - the AOF buffer, while AOF is on.
 * Main thread only. */
size_t freeMemoryGetNotCountedMemory(void) {
    size_t overhead = 0;
    size_t repl_mem = replicationBufferMemory();
    size_t backlog = (size_t)server.repl_backlog_size;
    if (repl_mem > backlog) {
        /* The blocks' headers for repl-backlog-size bytes of stream. */
        size_t block_room = REPL_BUF_BLOCK_BYTES - sizeof(replBufBlock);
        size_t counted = backlog + (backlog / block_room + 1) * sizeof(replBufBlock);
        if (repl_mem > counted) overhead += repl_mem - counted;
    }
    if (aofIsFed()) overhead += aofBufferLength();
    return overhead;
}

/* Compares used memory with maxmemory. Returns C_OK when under the limit
 * (or when there is no limit), C_ERR when over it. Each out-pointer may be
 * NULL:
 *   total   - all memory the allocator reports as used;
 *   logical - used memory minus freeMemoryGetNotCountedMemory();
 *   tofree  - bytes to free to get back to the limit (set only on C_ERR);
 *   level   - logical / maxmemory (0 with no limit), e.g. for INFO.
 * Main thread only. */
int getMaxmemoryState(size_t *total, size_t *logical, size_t *tofree, float *level) {
    size_t reported = zmalloc_used_memory();
    if (total) *total = reported;

    if (!server.maxmemory) {
        if (logical) *logical = reported;
        if (level) *level = 0;
        return C_OK;
    }
    /* The common case, cheaply: even counting everything we are under. */
    if (reported <= server.maxmemory && !logical && !level) return C_OK;

    size_t not_counted = freeMemoryGetNotCountedMemory();
    size_t used = reported > not_counted ? reported - not_counted : 0;
    if (logical) *logical = used;
    if (level) *level = (float)((double)used / (double)server.maxmemory);

    if (used <= server.maxmemory) return C_OK;
    if (tofree) *tofree = used - server.maxmemory;
    return C_ERR;
}

/* ---------------------------------------------------------------------------
 * The eviction pool
 * ------------------------------------------------------------------------- */

#define EVPOOL_SIZE 16

/* One candidate. The pool owns `key` (a copy: the original may be freed
 * while the candidate waits). */
typedef struct evictionCandidate {
    unsigned long long score; /* Higher = better victim. */
    sds key;
    int dbid;
} evictionCandidate;

/* Candidates sorted by ascending score in pool[0 .. pool_len-1]: the best
 * victim is always the last one. */
static evictionCandidate *pool;
static int pool_len;
/* The policy the scores were computed under: LRU idle times, LFU counters
 * and TTLs do not compare, so a policy change empties the pool. */
static int pool_policy = -1;

/* Allocates the eviction pool. Called once at start-up, before the first
 * command, from the main thread. */
void evictionPoolAlloc(void) {
    if (pool) return;
    pool = zcalloc(sizeof(evictionCandidate) * EVPOOL_SIZE);
    pool_len = 0;
}

static void evictionPoolClear(void) {
    for (int j = 0; j < pool_len; j++) sdsfree(pool[j].key);
    pool_len = 0;
}

/* Offers one sampled key to the pool; it is kept if the pool has room or it
 * beats the worst candidate held (which then drops out). */
static void evictionPoolOffer(int dbid, sds key, unsigned long long score) {
    /* The same key may be drawn again: keep one entry, with the new score. */
    for (int j = 0; j < pool_len; j++) {
        if (pool[j].dbid == dbid && sdscmp(pool[j].key, key) == 0) {
            sdsfree(pool[j].key);
            memmove(pool + j, pool + j + 1, sizeof(*pool) * (pool_len - j - 1));
            pool_len--;
            break;
        }
    }
    if (pool_len == EVPOOL_SIZE) {
        if (score <= pool[0].score) return; /* Worse than everything we hold. */
        sdsfree(pool[0].key);
        memmove(pool, pool + 1, sizeof(*pool) * (EVPOOL_SIZE - 1));
        pool_len--;
    }
    int pos = pool_len;
    while (pos > 0 && pool[pos - 1].score > score) pos--;
    memmove(pool + pos + 1, pool + pos, sizeof(*pool) * (pool_len - pos));
    pool[pos].score = score;
    pool[pos].key = sdsdup(key);
    pool[pos].dbid = dbid;
    pool_len++;
}

/* The eviction score of a key under the current policy: for LRU its idle
 * time in ms, for LFU 255 minus its decayed access counter, for
 * volatile-ttl the distance of its deadline from the end of time (the
 * sooner it expires, the higher). */
static unsigned long long evictionScore(robj *val, long long expire_at) {
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LRU) return estimateObjectIdleTime(val);
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LFU) return 255 - LFUDecrAndReturn(val);
    /* volatile-ttl */
    return ULLONG_MAX - (unsigned long long)expire_at;
}

/* Samples maxmemory-samples keys of db and offers them to the pool.
 * `table` is a table of db->keys (allkeys: dbRandomKeysTable()) or
 * db->expires (volatile-*): both hold the values themselves, which carry
 * their key and deadline. */
static void evictionPoolPopulate(serverDb *db, hashtable *table, int allkeys) {
    int count = server.maxmemory_samples > 0 ? server.maxmemory_samples : 1;
    void *stack_samples[64];
    void **samples = count <= 64 ? stack_samples : zmalloc(sizeof(void *) * count);

    unsigned int got = hashtableSampleEntries(table, samples, count);
    for (unsigned int j = 0; j < got; j++) {
        robj *val = samples[j];
        long long expire_at = allkeys ? -1 : objectGetExpire(val);
        evictionPoolOffer(db->id, objectGetKey(val), evictionScore(val, expire_at));
    }
    if (samples != stack_samples) zfree(samples);
}

/* Looks a pool candidate up again and returns its value if it is still in
 * the table the policy evicts from (NULL if it is gone, or lost its TTL
 * under a volatile policy); *score receives its score as of now. */
static robj *evictionCandidateRefresh(evictionCandidate *cand, int allkeys, unsigned long long *score) {
    if (cand->dbid >= server.dbnum) return NULL;
    serverDb *db = server.db + cand->dbid;
    void *val;
    val = allkeys ? dbFind(db, cand->key) : (hashtableFind(db->expires, cand->key, &val) ? val : NULL);
    if (val == NULL) return NULL;
    *score = evictionScore(val, allkeys ? -1 : objectGetExpire(val));
    return val;
}

/* Picks the next victim for the pool-based policies. Returns its key (owned
 * by the db, valid until the key is deleted) and sets *dbid, or returns
 * NULL if the relevant tables are empty (or hold nothing that can be
 * sampled, after a bounded number of tries). */
static sds evictionPickFromPool(int allkeys, int *dbid) {
    if (pool_policy != server.maxmemory_policy) {
        evictionPoolClear();
        pool_policy = server.maxmemory_policy;
    }
    for (int tries = 0; tries < 64; tries++) {
        unsigned long total_keys = 0;
        for (int j = 0; j < server.dbnum; j++) {
            serverDb *db = server.db + j;
            size_t size = allkeys ? kvstoreSize(db->keys) : hashtableSize(db->expires);
            if (size == 0) continue;
            total_keys += size;
            evictionPoolPopulate(db, allkeys ? dbRandomKeysTable(db) : db->expires, allkeys);
        }
        if (total_keys == 0) return NULL;

        /* Best first. A candidate may have changed since it was sampled:
         * one that is gone is dropped, one that was used meanwhile (its
         * score fell) goes back into the pool at its real rank. A score
         * never falls twice without an access, so this terminates. */
        while (pool_len > 0) {
            evictionCandidate cand = pool[--pool_len];
            unsigned long long now_score = 0;
            robj *val = evictionCandidateRefresh(&cand, allkeys, &now_score);
            if (val != NULL && now_score < cand.score) {
                evictionPoolOffer(cand.dbid, cand.key, now_score);
                sdsfree(cand.key);
                continue;
            }
            sdsfree(cand.key);
            if (val != NULL) {
                *dbid = cand.dbid;
                return objectGetKey(val);
            }
        }
    }
    return NULL;
}

/* Picks a random victim for the *-random policies, visiting databases
 * round-robin across calls. Same contract as evictionPickFromPool(). */
static sds evictionPickRandom(int allkeys, int *dbid) {
    static unsigned int next_db = 0;
    for (int j = 0; j < server.dbnum; j++) {
        int id = (int)(next_db++ % (unsigned int)server.dbnum);
        serverDb *db = server.db + id;
        hashtable *t = allkeys ? dbRandomKeysTable(db) : db->expires;
        void *val;
        if (t == NULL || hashtableSize(t) == 0 || !hashtableRandomEntry(t, &val)) continue;
        *dbid = id;
        return objectGetKey(val);
    }
    return NULL;
}

/* ---------------------------------------------------------------------------
 * Evicting
 * ------------------------------------------------------------------------- */

/* Time one performEvictions() call may spend, in microseconds. Tenacity 0
 * is the least latency, 10 (the default) allows 500 us, each step above
 * that 15% more (about two minutes at 99), and 100 means no limit. */
static unsigned long long evictionTimeLimitUs(void) {
    int tenacity = server.maxmemory_eviction_tenacity;
    if (tenacity <= 10) return 50ULL * (tenacity < 0 ? 0 : tenacity);
    if (tenacity < 100) return (unsigned long long)(500.0 * pow(1.15, tenacity - 10.0));
    return ULLONG_MAX;
}

/* When a call runs out of time while still over the limit, eviction goes on
 * from a timer on the next event-loop iterations, so that memory is
 * reclaimed even if no further command arrives. */
static int eviction_timer_active = 0; /* The timer exists. */
static int eviction_timer_calling = 0; /* performEvictions() runs from it. */

static int evictionTimerProc(aeEventLoop *el, long long id, void *data) {
    eviction_timer_calling = 1;
    int result = performEvictions();
    eviction_timer_calling = 0;
    if (result == EVICT_RUNNING) return 0; /* Again, as soon as possible. */
    eviction_timer_active = 0;
    return AE_NOMORE;
}

static void evictionStartTimer(void) {
    if (eviction_timer_active || server.el == NULL) return;
    if (aeCreateTimeEvent(server.el, 0, evictionTimerProc, NULL, NULL) != -1) eviction_timer_active = 1;
}

/* Tracks how long we have been over the limit, for
 * stat_total_eviction_exceeded_time (microseconds). */
static uint64_t over_limit_since = 0;

static void evictionTrackOverLimit(int over) {
    if (over && over_limit_since == 0) {
        over_limit_since = getMonotonicUs();
    } else if (!over && over_limit_since != 0) {
        server.stat_total_eviction_exceeded_time += (long long)(getMonotonicUs() - over_limit_since);
        over_limit_since = 0;
    }
}

/* Deletes one victim and returns the bytes that deletion released. */
static long long evictKey(serverDb *db, sds key) {
    robj *keyobj = createStringObject(key, sdslen(key)); /* key dies with the entry */
    int lazy = server.lazyfree_lazy_eviction;

    long long before = (long long)zmalloc_used_memory();
    dbGenericDelete(db, keyobj, lazy, 0);
    long long freed = before - (long long)zmalloc_used_memory();
    propagateDeletion(db, keyobj, lazy); /* DEL or UNLINK, as lazyfree-lazy-eviction says */

    server.stat_evictedkeys++;
    signalModifiedKey(NULL, db, keyobj);
    notifyKeyspaceEvent(NOTIFY_EVICTED, "evicted", keyobj, db->id);
    decrRefCount(keyobj);
    return freed;
}

/* What the last performEvictions() run outside a command returned: for
 * processCommand()'s call, the state the running command started in. */
static int eviction_result_before_command = EVICT_OK;

static int evictionRun(void);

/* performEvictions() asked from inside a command: CONFIG SET maxmemory
 * (maybe within MULTI), or a script's first write checking for OOM. Keys
 * deleted now would join that command's execution unit, wrapped in its
 * MULTI ... EXEC. Like Valkey, nothing is evicted here: the timer is
 * started so that each eviction is a unit of its own after the command
 * (after EXEC), propagated as a lone DEL or UNLINK, and the answer is the
 * state the command started in (Valkey's pre-command OOM state): EVICT_FAIL
 * if nothing could be evicted then (or with noeviction), else
 * EVICT_RUNNING. */
static int evictionDeferFromCommand(void) {
    if (getMaxmemoryState(NULL, NULL, NULL, NULL) == C_OK) return EVICT_OK;
    if (server.maxmemory_policy == MAXMEMORY_NO_EVICTION) return EVICT_FAIL;
    evictionStartTimer();
    return eviction_result_before_command == EVICT_FAIL ? EVICT_FAIL : EVICT_RUNNING;
}

/* Evicts keys until used memory is back under maxmemory, if it is over.
 *
 * Returns:
 *   EVICT_OK      - under the limit (possibly after evicting), or eviction
 *                   does not apply right now (no limit, a replica, clients
 *                   paused);
 *   EVICT_RUNNING - still over, but keys are being evicted: the time
 *                   budget ran out and a timer carries on. Commands may
 *                   proceed;
 *   EVICT_FAIL    - over the limit with nothing left to evict (noeviction,
 *                   or no suitable keys): CMD_DENYOOM commands must be
 *                   refused.
 * Main thread, from processCommand() (before the command runs) and the
 * continuation timer; called while a command executes, it evicts nothing
 * (see evictionDeferFromCommand()). */
int performEvictions(void) {
    /* Deleting keys is a write: not while writes are paused, and not on a
     * replica (replica-ignore-maxmemory, whose default "yes" is all we
     * support), which waits for its primary's DELs instead. */
    if (!server.maxmemory || server.primary_host != NULL || isPausedActions()) return EVICT_OK;
    if (server.executing_client != NULL) return evictionDeferFromCommand();
    eviction_result_before_command = evictionRun();
    return eviction_result_before_command;
}

/* The body of performEvictions() outside a command. */
static int evictionRun(void) {

    size_t used, tofree;
    if (getMaxmemoryState(&used, NULL, &tofree, NULL) == C_OK) {
        evictionTrackOverLimit(0);
        return EVICT_OK;
    }
    evictionTrackOverLimit(1);
    if (server.maxmemory_policy == MAXMEMORY_NO_EVICTION) return EVICT_FAIL;

    int policy = server.maxmemory_policy;
    int allkeys = (policy & MAXMEMORY_FLAG_ALLKEYS) != 0;
    int pooled = (policy & (MAXMEMORY_FLAG_LRU | MAXMEMORY_FLAG_LFU)) || policy == MAXMEMORY_VOLATILE_TTL;
    unsigned long long limit_us = evictionTimeLimitUs();
    uint64_t start = getMonotonicUs();
    long long freed = 0;
    unsigned long evicted = 0;
    int result = EVICT_OK;

    if (!pool) evictionPoolAlloc();

    while ((size_t)(freed > 0 ? freed : 0) < tofree) {
        int dbid = 0;
        sds key = pooled ? evictionPickFromPool(allkeys, &dbid) : evictionPickRandom(allkeys, &dbid);
        if (key == NULL) {
            result = EVICT_FAIL; /* Nothing suitable to evict. */
            break;
        }
        freed += evictKey(server.db + dbid, key);
        evicted++;

        /* Check the clock (and, with lazy freeing, whether a background
         * thread already gave the memory back) every few keys only. */
        if (evicted % 16 == 0) {
            if (server.lazyfree_lazy_eviction && getMaxmemoryState(NULL, NULL, NULL, NULL) == C_OK) break;
            if (getMonotonicUs() - start >= limit_us) {
                evictionStartTimer();
                result = EVICT_RUNNING;
                break;
            }
        }
    }

    if (result == EVICT_FAIL && lazyfreeGetPendingObjectsCount() > 0) {
        /* Memory may still come back from objects being freed in the
         * background: wait for it within the remaining budget. */
        while (getMonotonicUs() - start < limit_us) {
            if (getMaxmemoryState(NULL, NULL, NULL, NULL) == C_OK) {
                result = EVICT_OK;
                break;
            }
            usleep(limit_us < 1000 ? (useconds_t)limit_us : 1000);
        }
    }
    /* Callers from the command path learn that eviction is still going on
     * in the background even if this call got under the limit. */
    if (result == EVICT_OK && eviction_timer_active && !eviction_timer_calling) result = EVICT_RUNNING;
    if (result == EVICT_OK) evictionTrackOverLimit(0);
    return result;
}
