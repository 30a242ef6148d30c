/* expire.c - key time-to-live: the EXPIRE family of commands and the
 * active expire cycle that reclaims keys nobody reads again.
 *
 * A key's deadline (absolute unix time in milliseconds) lives inside its
 * value object, next to the embedded key (object.c); db->expires is a
 * second table of the values that have one. db.c owns both (getExpire,
 * setExpire, removeExpire) and the lazy half of expiry: every lookup first asks
 * expireIfNeeded() whether the key is past its deadline and deletes it if
 * so. This file adds:
 *
 *  - the commands that read and write deadlines (EXPIRE, PEXPIRE,
 *    EXPIREAT, PEXPIREAT, TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST);
 *  - activeExpireCycle(), the active half: the cron (SLOW cycle) and
 *    beforeSleep (FAST cycle) walk db->expires with a hashtableScan cursor kept
 *    in db->expires_cursor, a few buckets at a time, and delete what has
 *    expired. A database keeps being walked in one call while the share of
 *    expired keys in the sample is high, bounded by a CPU-time budget, so
 *    memory held by dead keys is reclaimed without long pauses.
 *
 * Deletions go through deleteExpiredKeyAndPropagate() (db.c), which frees
 * the key, fires the "expired" keyspace event, propagates a DEL (UNLINK
 * with lazyfree-lazy-expire) and counts the key in server.stat_expiredkeys;
 * nothing here counts expired keys a second time. Replicas never expire
 * their primary's keys actively: they wait for its DELs; a writable
 * replica expires the keys its own clients gave a TTL (see the section
 * on writable replicas). */
#include "server.h"

#include "latency.h"

/* ---------------------------------------------------------------------------
 * Setting deadlines: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT
 * ------------------------------------------------------------------------- */

/* Condition flags of the EXPIRE family (Valkey 7.0+). */
#define EXPIRE_NX (1 << 0) /* Only if the key has no deadline. */
#define EXPIRE_XX (1 << 1) /* Only if the key has a deadline. */
#define EXPIRE_GT (1 << 2) /* Only if later than the current one. */
#define EXPIRE_LT (1 << 3) /* Only if earlier than the current one. */

/* Returns 1 if a deadline `when` (unix ms) is already due, so that setting
 * it should delete the key straight away instead. A replica keeps the key
 * and waits for its primary's DEL, so that both sides stay identical. */
int checkAlreadyExpired(long long when) {
    if (server.primary_host != NULL) return 0;
    return when <= commandTimeSnapshot();
}

/* Parses the optional NX/XX/GT/LT words from argv[3] on into *flags.
 * Returns C_OK, or C_ERR after replying with Valkey's error. */
static int parseExpireConditions(client *c, int *flags) {
    *flags = 0;
    for (int j = 3; j < c->argc; j++) {
        const char *opt = objectGetVal(c->argv[j]);
        if (!strcasecmp(opt, "nx")) {
            *flags |= EXPIRE_NX;
        } else if (!strcasecmp(opt, "xx")) {
            *flags |= EXPIRE_XX;
        } else if (!strcasecmp(opt, "gt")) {
            *flags |= EXPIRE_GT;
        } else if (!strcasecmp(opt, "lt")) {
            *flags |= EXPIRE_LT;
        } else {
            addReplyErrorFormat(c, "Unsupported option %s", opt);
            return C_ERR;
        }
    }
    if ((*flags & EXPIRE_NX) && (*flags & (EXPIRE_XX | EXPIRE_GT | EXPIRE_LT))) {
        addReplyError(c, "NX and XX, GT or LT options at the same time are not compatible");
        return C_ERR;
    }
    if ((*flags & EXPIRE_GT) && (*flags & EXPIRE_LT)) {
        addReplyError(c, "GT and LT options at the same time are not compatible");
        return C_ERR;
    }
    return C_OK;
}

/* Decides whether the conditions allow replacing deadline `current` (-1:
 * none, which GT and LT treat as infinitely far away) by `when`. */
static int expireConditionsHold(int flags, long long current, long long when) {
    if ((flags & EXPIRE_NX) && current != -1) return 0;
    if ((flags & EXPIRE_XX) && current == -1) return 0;
    if ((flags & EXPIRE_GT) && (current == -1 || when <= current)) return 0;
    if ((flags & EXPIRE_LT) && current != -1 && when >= current) return 0;
    return 1;
}

/* The body shared by EXPIRE (basetime now, seconds), PEXPIRE (now, ms),
 * EXPIREAT (0, seconds) and PEXPIREAT (0, ms):
 *
 *   <cmd> key time [NX|XX|GT|LT]
 *
 * Replies 1 when the deadline was set (or the key deleted because the
 * deadline was already due), 0 when the key is missing or a condition
 * failed, or an error for bad arguments and for times that overflow a
 * signed 64-bit millisecond timestamp. For propagation the command vector
 * is rewritten to the deterministic "PEXPIREAT key abs-ms" (or DEL/UNLINK
 * when the key was deleted). Runs in the event loop, as any command. */
void expireGenericCommand(client *c, long long basetime, int unit) {
    robj *key = c->argv[1];
    long long when;
    int flags;

    if (parseExpireConditions(c, &flags) != C_OK) return;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &when, NULL) != C_OK) return;

    /* Negative times are allowed (they mean "already expired"), but the
     * conversion to an absolute millisecond timestamp must not overflow. */
    if (unit == UNIT_SECONDS) {
        if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) {
            addReplyErrorExpireTime(c);
            return;
        }
        when *= 1000;
    }
    if (when > LLONG_MAX - basetime) {
        addReplyErrorExpireTime(c);
        return;
    }
    when += basetime;

    if (lookupKeyWrite(c->db, key) == NULL) {
        addReply(c, shared.czero);
        return;
    }
    if (flags && !expireConditionsHold(flags, getExpire(c->db, key), when)) {
        addReply(c, shared.czero);
        return;
    }

    if (checkAlreadyExpired(when)) {
        /* A deadline in the past is a delete, and is replicated as one. */
        int lazy = server.lazyfree_lazy_expire;
        dbGenericDelete(c->db, key, lazy, 0);
        server.dirty++;
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
        /* The new vector takes its own reference to key before the old one
         * is released, so key stays valid throughout. */
        rewriteClientCommandVector(c, 2, lazy ? shared.unlink : shared.del, key);
        addReply(c, shared.cone);
        return;
    }

    setExpire(c, c->db, key, when);
    /* Replicas and the AOF must see the same absolute deadline we chose,
     * not a relative time that they would resolve again later. PEXPIREAT
     * (absolute, milliseconds) already is that form. */
    if (basetime != 0 || unit != UNIT_MILLISECONDS) {
        robj *abs = createStringObjectFromLongLong(when);
        rewriteClientCommandArgument(c, 0, shared.pexpireat);
        rewriteClientCommandArgument(c, 2, abs);
        decrRefCount(abs);
    }
    signalModifiedKey(c, c->db, key);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "expire", key, c->db->id);
    server.dirty++;
    addReply(c, shared.cone);
}

static void expireCommand(client *c) {
    expireGenericCommand(c, commandTimeSnapshot(), UNIT_SECONDS);
}

static void pexpireCommand(client *c) {
    expireGenericCommand(c, commandTimeSnapshot(), UNIT_MILLISECONDS);
}

static void expireatCommand(client *c) {
    expireGenericCommand(c, 0, UNIT_SECONDS);
}

static void pexpireatCommand(client *c) {
    expireGenericCommand(c, 0, UNIT_MILLISECONDS);
}

/* ---------------------------------------------------------------------------
 * Reading and clearing deadlines: TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST
 * ------------------------------------------------------------------------- */

/* Replies -2 for a missing key, -1 for a key without a deadline, else the
 * remaining time (relative) or the deadline itself (absolute), in ms or in
 * seconds rounded to the nearest second. Reading a TTL is not an access:
 * the key's LRU/LFU data stays as it was. */
static void ttlGenericCommand(client *c, int in_ms, int absolute) {
    if (lookupKeyReadWithFlags(c->db, c->argv[1], LOOKUP_NOTOUCH) == NULL) {
        addReplyLongLong(c, -2);
        return;
    }
    long long expire = getExpire(c->db, c->argv[1]);
    if (expire == -1) {
        addReplyLongLong(c, -1);
        return;
    }
    long long t = absolute ? expire : expire - commandTimeSnapshot();
    if (t < 0) t = 0;
    addReplyLongLong(c, in_ms ? t : (t + 500) / 1000);
}

static void ttlCommand(client *c) {
    ttlGenericCommand(c, 0, 0);
}

static void pttlCommand(client *c) {
    ttlGenericCommand(c, 1, 0);
}

static void expiretimeCommand(client *c) {
    ttlGenericCommand(c, 0, 1);
}

static void pexpiretimeCommand(client *c) {
    ttlGenericCommand(c, 1, 1);
}

/* PERSIST key: 1 if a deadline was removed, 0 if the key is missing or had
 * none. */
static void persistCommand(client *c) {
    if (lookupKeyWrite(c->db, c->argv[1]) == NULL || !removeExpire(c->db, c->argv[1])) {
        addReply(c, shared.czero);
        return;
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "persist", c->argv[1], c->db->id);
    server.dirty++;
    addReply(c, shared.cone);
}

/* ---------------------------------------------------------------------------
 * Active expiry
 *
 * Lazy expiry alone would keep a key that is never read again in memory
 * forever, so the server also looks for expired keys on its own. Each call
 * visits the databases round-robin (the position survives between calls)
 * and, in each, repeats rounds of:
 *
 *   1. advance db->expires_cursor with hashtableScan until `keys_per_loop` keys
 *      have been seen (or `20 * keys_per_loop` buckets, for sparse tables);
 *   2. delete those whose deadline has passed, and fold the remaining TTLs
 *      of the others into db->avg_ttl;
 *   3. go on with the same database while more than `acceptable_stale`
 *      percent of the sample had expired: many dead keys are likely left.
 *
 * Scanning with a cursor rather than sampling at random guarantees that
 * every key with a deadline is visited eventually, however unlucky the
 * draw. The SLOW cycle (cron, hz times a second) may use a share of the
 * CPU; the FAST cycle (before each sleep of the event loop) runs only when
 * the previous cycle ran out of time or the stale share is high, for at most
 * ~1 ms, and not more often than every other such period.
 *
 * active-expire-effort (1..10, default 1) makes every cycle work harder:
 * bigger samples, longer budgets, a lower tolerated stale share.
 * ------------------------------------------------------------------------- */

#define EXPIRE_CYCLE_DBS_PER_CALL 16 /* Databases visited per call. */
#define EXPIRE_CYCLE_CHECK_EVERY 16  /* Rounds between clock readings. */

/* The per-call tunables, derived from active-expire-effort. */
typedef struct expireCycleConfig {
    unsigned long keys_per_loop; /* Keys sampled per round. */
    long long fast_duration;     /* FAST cycle budget, microseconds. */
    long long slow_time_perc;    /* SLOW cycle CPU share, percent. */
    long long acceptable_stale;  /* Stale share that stops a db, percent. */
} expireCycleConfig;

/* What one round saw; filled by the scan callback. */
typedef struct expireScanState {
    long long now;             /* Time the round judges deadlines by. */
    unsigned long sampled;     /* Keys with a deadline looked at. */
    long long ttl_sum;         /* Remaining TTLs of the live ones... */
    unsigned long ttl_samples; /* ...and how many there were. */
    robj **due;                /* Keys to delete once the scan step ends. */
    unsigned long due_count, due_cap;
} expireScanState;

static void expireCycleLoadConfig(expireCycleConfig *cfg) {
    long long effort = server.active_expire_effort - 1; /* 0..9 */
    if (effort < 0) effort = 0;
    if (effort > 9) effort = 9;
    cfg->keys_per_loop = ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP + ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP / 4 * effort;
    cfg->fast_duration = ACTIVE_EXPIRE_CYCLE_FAST_DURATION + ACTIVE_EXPIRE_CYCLE_FAST_DURATION / 4 * effort;
    cfg->slow_time_perc = ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC + 2 * effort;
    cfg->acceptable_stale = ACTIVE_EXPIRE_CYCLE_ACCEPTABLE_STALE - effort;
}

/* hashtableScan callback: classifies one key. Expired keys are only
 * collected here (as copies of their names), and deleted after the step. */
static void expireScanCallback(void *privdata, void *entry) {
    expireScanState *st = privdata;
    robj *val = entry;
    long long when = objectGetExpire(val);
    st->sampled++;
    if (st->now > when) {
        if (st->due_count == st->due_cap) {
            st->due_cap = st->due_cap ? st->due_cap * 2 : 32;
            st->due = zrealloc(st->due, sizeof(robj *) * st->due_cap);
        }
        sds key = objectGetKey(val);
        st->due[st->due_count++] = createStringObject(key, sdslen(key));
    } else {
        st->ttl_sum += when - st->now;
        st->ttl_samples++;
    }
}

/* Deletes the keys one scan step collected and releases the collection.
 * Returns how many were deleted. The lookup guards against a key reported
 * twice by the scan (possible while the table is being rehashed). */
static unsigned long expireCollectedKeys(serverDb *db, expireScanState *st) {
    unsigned long deleted = 0;
    for (unsigned long j = 0; j < st->due_count; j++) {
        robj *key = st->due[j];
        if (hashtableFind(db->expires, objectGetVal(key), NULL)) {
            deleteExpiredKeyAndPropagate(db, key);
            deleted++;
        }
        decrRefCount(key);
    }
    st->due_count = 0;
    return deleted;
}

/* One round over `db`: samples up to cfg->keys_per_loop keys with a
 * deadline from the scan cursor on and deletes the expired ones. Returns
 * the number of keys sampled; *expired receives how many were deleted. */
static unsigned long expireCycleRound(serverDb *db, const expireCycleConfig *cfg, expireScanState *st,
                                      unsigned long *expired) {
    unsigned long target = hashtableSize(db->expires);
    if (target > cfg->keys_per_loop) target = cfg->keys_per_loop;
    unsigned long max_buckets = target * 20;

    st->now = mstime();
    st->sampled = 0;
    st->ttl_sum = 0;
    st->ttl_samples = 0;
    *expired = 0;

    for (unsigned long buckets = 0; st->sampled < target && buckets < max_buckets; buckets++) {
        db->expires_cursor = hashtableScan(db->expires, db->expires_cursor, expireScanCallback, st);
        *expired += expireCollectedKeys(db, st);
        if (db->expires_cursor == 0) break; /* Full pass done; start over next round. */
    }

    if (st->ttl_samples) {
        /* Slow moving average: each round weighs 2%. */
        long long round_avg = st->ttl_sum / (long long)st->ttl_samples;
        if (db->avg_ttl == 0)
            db->avg_ttl = round_avg;
        else
            db->avg_ttl = (db->avg_ttl / 50) * 49 + round_avg / 50;
    }
    return st->sampled;
}

/* Deletes expired keys that nobody accessed, within a time budget.
 *
 * type is ACTIVE_EXPIRE_CYCLE_SLOW (serverCron: budget is
 * slow_time_perc % of one cron period) or ACTIVE_EXPIRE_CYCLE_FAST
 * (beforeSleep: budget ~1 ms, and only when the previous cycle left work
 * behind). Does nothing when active expiry is disabled (DEBUG
 * SET-ACTIVE-EXPIRE 0), on a replica, or while clients are paused (a
 * deletion is a write). Runs in the main thread; updates the
 * stat_expire* counters, each db's avg_ttl and the expire-cycle latency
 * event (LATENCY LATEST). */
static void expireReplicaKeysCycle(void);

void activeExpireCycle(int type) {
    static unsigned int next_db = 0;        /* Round-robin position. */
    static int last_cycle_timed_out = 0;    /* Previous call hit its budget. */
    static long long last_fast_cycle = 0;   /* Start of the last FAST cycle, us. */

    if (!server.active_expire_enabled || isPausedActions()) return;
    if (server.primary_host != NULL) {
        /* A replica expires only what its own clients wrote (below). */
        if (type == ACTIVE_EXPIRE_CYCLE_SLOW) expireReplicaKeysCycle();
        return;
    }
    if (server.dbnum <= 0) return;

    expireCycleConfig cfg;
    expireCycleLoadConfig(&cfg);
    long long start = ustime();
    long long budget;

    if (type == ACTIVE_EXPIRE_CYCLE_FAST) {
        /* Only worth it when the slow cycle could not keep up... */
        if (!last_cycle_timed_out && server.stat_expired_stale_perc * 100 < cfg.acceptable_stale) return;
        /* ...and never back to back: leave the loop time for clients. */
        if (start < last_fast_cycle + cfg.fast_duration * 2) return;
        last_fast_cycle = start;
        budget = cfg.fast_duration;
    } else {
        int hz = server.hz > 0 ? server.hz : CONFIG_DEFAULT_HZ;
        budget = cfg.slow_time_perc * 1000000 / hz / 100;
        if (budget <= 0) budget = 1;
    }

    /* After a timed-out call, go around every database this time so that
     * one busy database does not starve the others. */
    int dbs = EXPIRE_CYCLE_DBS_PER_CALL;
    if (dbs > server.dbnum || last_cycle_timed_out) dbs = server.dbnum;

    expireScanState st = {0};
    unsigned long total_sampled = 0, total_expired = 0;
    int timed_out = 0;
    long long rounds = 0;

    for (int j = 0; j < dbs && !timed_out; j++) {
        serverDb *db = server.db + (next_db % server.dbnum);
        next_db++;

        for (;;) {
            if (hashtableSize(db->expires) == 0) {
                db->avg_ttl = 0;
                break;
            }
            unsigned long expired;
            unsigned long sampled = expireCycleRound(db, &cfg, &st, &expired);
            total_sampled += sampled;
            total_expired += expired;

            if (++rounds % EXPIRE_CYCLE_CHECK_EVERY == 0 && ustime() - start > budget) {
                timed_out = 1;
                server.stat_expired_time_cap_reached_count++;
                break;
            }
            /* A round that saw nothing (sparse table) says nothing about
             * staleness: keep walking. Otherwise stop once few were dead. */
            if (sampled != 0 && (long long)(expired * 100 / sampled) <= cfg.acceptable_stale) break;
        }
    }
    zfree(st.due);

    last_cycle_timed_out = timed_out;
    long long elapsed = ustime() - start;
    server.stat_expire_cycle_time_used += elapsed;
    latencyAddSampleIfNeeded("expire-cycle", elapsed / 1000); /* LATENCY LATEST/HISTORY expire-cycle */

    /* stat_expired_stale_perc is a running average (0..1, INFO shows it as
     * a percentage) of the share of expired keys in recent samples. */
    double ratio = total_sampled ? (double)total_expired / total_sampled : 0;
    server.stat_expired_stale_perc = ratio * 0.05 + server.stat_expired_stale_perc * 0.95;
}

/* ---------------------------------------------------------------------------
 * Writable replicas (replica-read-only no)
 *
 * A replica leaves its primary's keys alone: the DELs of the primary's
 * expiry keep both sides identical. But a key a client of a writable
 * replica wrote with a TTL exists on the replica only, and no DEL will
 * ever come for it: the replica must expire it itself, as Valkey does.
 * So every key that gets a TTL from one of its own clients is
 * remembered, name -> bitmap of the databases (0..63, like Valkey; a key
 * of a higher database is not tracked) it got one in, and the cron
 * (activeExpireCycle(), SLOW, on a replica) looks at random names,
 * deleting those that expired and forgetting those that are gone or
 * lost their TTL. The names of the primary's keys are never taken in, so
 * the replica never deletes one of them on its own. Everything is
 * forgotten when every database is emptied (FLUSHALL, a full sync).
 * ------------------------------------------------------------------------- */

static dict *replicaKeysWithExpire; /* sds name -> u64 bitmap of db ids */

static void *replicaKeyDup(const void *key) {
    return sdsdup((const sds)key);
}

static dictType replicaKeysDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDup = replicaKeyDup,
    .keyDestructor = dictSdsDestructor,
};

/* See server.h. Remembers key of db when the client running the current
 * command is one of this writable replica's own (not our primary, not a
 * dataset being loaded: a load aside, async_loading, runs outside any
 * client's command while clients keep writing the current data). Event
 * loop. */
void expireRememberReplicaKey(serverDb *db, sds key) {
    if (server.primary_host == NULL || server.repl_replica_ro || (server.loading && !server.async_loading)) return;
    client *c = server.current_client;
    if (c == NULL || (c->flags & CLIENT_PRIMARY) || db->id > 63) return;
    if (replicaKeysWithExpire == NULL) replicaKeysWithExpire = dictCreate(&replicaKeysDictType);
    dictEntry *existing, *de = dictAddRaw(replicaKeysWithExpire, key, &existing); /* keyDup copies the name */
    if (de == NULL) de = existing;
    dictSetUnsignedIntegerVal(de, dictGetUnsignedIntegerVal(de) | ((uint64_t)1 << db->id));
}

/* See server.h. */
void expireForgetReplicaKeys(void) {
    if (replicaKeysWithExpire == NULL) return;
    dictRelease(replicaKeysWithExpire);
    replicaKeysWithExpire = NULL;
}

/* See server.h. */
size_t expireReplicaKeysTracked(void) {
    return replicaKeysWithExpire ? dictSize(replicaKeysWithExpire) : 0;
}

/* Checks the remembered name in each database of its bitmap: deletes it
 * where it expired (as activeExpireCycle() would: keyspace event,
 * expired_keys, DEL into the AOF), keeps the bits of the databases where
 * it still waits for its deadline. Returns the new bitmap; *waiting gets
 * how many databases still hold it with a TTL to come. */
static uint64_t expireReplicaKeyInDbs(sds name, uint64_t dbids, long long now, int *waiting) {
    uint64_t keep = 0;
    for (int id = 0; dbids && id < server.dbnum; id++, dbids >>= 1) {
        if (!(dbids & 1)) continue;
        serverDb *db = server.db + id;
        robj *val = dbFind(db, name);
        long long when = val ? objectGetExpire(val) : -1;
        if (when == -1) continue; /* gone, or persisted: forgotten */
        if (when > now) {
            keep |= (uint64_t)1 << id;
            (*waiting)++;
            continue;
        }
        robj *keyobj = createStringObject(name, sdslen(name));
        deleteExpiredKeyAndPropagate(db, keyobj);
        decrRefCount(keyobj);
    }
    return keep;
}

/* The writable replica's share of the active expire cycle: random
 * remembered names, until a few of them were found still waiting or
 * about a millisecond went by (checked every 64 names). Cron. */
static void expireReplicaKeysCycle(void) {
    if (replicaKeysWithExpire == NULL || dictSize(replicaKeysWithExpire) == 0) return;
    long long start = mstime();
    int waiting = 0;
    for (unsigned long checked = 1; dictSize(replicaKeysWithExpire) > 0; checked++) {
        dictEntry *de = dictGetRandomKey(replicaKeysWithExpire);
        sds name = dictGetKey(de);
        uint64_t keep = expireReplicaKeyInDbs(name, dictGetUnsignedIntegerVal(de), start, &waiting);
        /* The deletions above never touch this dict: de is still valid. */
        if (keep) dictSetUnsignedIntegerVal(de, keep);
        else dictDelete(replicaKeysWithExpire, name);
        if (waiting > 3) break;
        if (checked % 64 == 0 && mstime() - start > 1) break;
    }
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

struct serverCommand expireCommands[] = {
    {.name = "expire",
     .proc = expireCommand,
     .arity = -3,
     .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE,
     .key = {1, 1, 1},
     .group = "generic",
     .since = "1.0.0",
     .summary = "Sets the expiration time of a key in seconds.",
     .complexity = "O(1)",
     .args = "key seconds [condition=[NX | XX | GT | LT]]"},
    {.name = "pexpire",
     .proc = pexpireCommand,
     .arity = -3,
     .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE,
     .key = {1, 1, 1},
     .group = "generic",
     .since = "2.6.0",
     .summary = "Sets the expiration time of a key in milliseconds.",
     .complexity = "O(1)",
     .args = "key milliseconds [condition=[NX | XX | GT | LT]]"},
    {.name = "expireat",
     .proc = expireatCommand,
     .arity = -3,
     .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE,
     .key = {1, 1, 1},
     .group = "generic",
     .since = "1.2.0",
     .summary = "Sets the expiration time of a key to a Unix timestamp.",
     .complexity = "O(1)",
     .args = "key unix-time-seconds [condition=[NX | XX | GT | LT]]"},
    {.name = "pexpireat",
     .proc = pexpireatCommand,
     .arity = -3,
     .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE,
     .key = {1, 1, 1},
     .group = "generic",
     .since = "2.6.0",
     .summary = "Sets the expiration time of a key to a Unix milliseconds timestamp.",
     .complexity = "O(1)",
     .args = "key unix-time-milliseconds [condition=[NX | XX | GT | LT]]"},
    {.name = "ttl",
     .proc = ttlCommand,
     .arity = 2,
     .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE,
     .key = {1, 1, 1},
     .group = "generic",
     .since = "1.0.0",
     .summary = "Returns the expiration time in seconds of a key.",
     .complexity = "O(1)",
     .args = "key"},
    {.name = "pttl",
     .proc = pttlCommand,
     .arity = 2,
     .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE,
     .key = {1, 1, 1},
     .group = "generic",
     .since = "2.6.0",
     .summary = "Returns the expiration time in milliseconds of a key.",
     .complexity = "O(1)",
     .args = "key"},
    {.name = "expiretime",
     .proc = expiretimeCommand,
     .arity = 2,
     .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE,
     .key = {1, 1, 1},
     .group = "generic",
     .since = "7.0.0",
     .summary = "Returns the expiration time of a key as a Unix timestamp.",
     .complexity = "O(1)",
     .args = "key"},
    {.name = "pexpiretime",
     .proc = pexpiretimeCommand,
     .arity = 2,
     .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE,
     .key = {1, 1, 1},
     .group = "generic",
     .since = "7.0.0",
     .summary = "Returns the expiration time of a key as a Unix milliseconds timestamp.",
     .complexity = "O(1)",
     .args = "key"},
    {.name = "persist",
     .proc = persistCommand,
     .arity = 2,
     .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE,
     .key = {1, 1, 1},
     .group = "generic",
     .since = "2.2.0",
     .summary = "Removes the expiration time of a key.",
     .complexity = "O(1)",
     .args = "key"},
    {0},
};
