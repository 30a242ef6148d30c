/* blocked.c - blocking on keys: BLPOP/BRPOP/BLMOVE/BRPOPLPUSH/BLMPOP,
 * BZPOPMIN/BZPOPMAX/BZMPOP, XREAD and XREADGROUP with BLOCK.
 *
 * State, all owned here:
 *   - db->blocking_keys: key (sds) -> adlist of clients, in blocking order,
 *     so clients waiting on one key are served first-come first-served;
 *   - c->bstate (blocked.h): the keys a client waits on, its timeout, its
 *     node in `blocked`, the list of every client blocked on keys (for
 *     timeouts and INFO);
 *   - nokey_keys[db]: key (sds) -> number of clients blocked on it that
 *     must also be woken when the key is deleted (XREADGROUP);
 *   - `ready`: keys created (or, for nokey_keys, deleted) since the last
 *     pass that have waiters;
 *   - `unblocked`: clients just unblocked whose query buffer may hold more
 *     pipelined commands, run from beforeSleep.
 *
 * Flow: a blocking command with nothing to serve calls blockForKeys().
 * dbAdd() calls signalKeyAsReady(). processCommand() (after each command)
 * and beforeSleep() call handleClientsBlockedOnKeys(), which re-executes
 * each waiting client's command while the key holds a value of the
 * expected type: the command then finds data and replies as usual (or, for
 * BLMOVE onto a wrong-type destination, replies the error).
 *
 * Deleted keys: XREADGROUP waits on a consumer group stored inside the
 * key, so when the key goes away (DEL, expiry, flush, RENAME, MOVE,
 * SWAPDB) or is overwritten, waiting would be forever. db.c reports every
 * value leaving the keyspace to signalDeletedKeyAsReady() (and flushes and
 * swaps to scanDatabaseForDeletedKeys()); a key with such waiters is queued
 * like a ready key, and its wake-on-delete waiters are re-run whatever the
 * key now holds: the command itself then replies NOGROUP, WRONGTYPE or
 * data. Other waiters (XREAD, BLPOP...) are only re-run while the key holds
 * their type, so they keep waiting across a deletion. Timeouts are
 * checked by a one-shot timer armed at each block and again in
 * beforeSleep. CLIENT_BLOCKED is shared with CLIENT PAUSE, so "blocked on
 * keys" is tested as c->bstate != NULL. A re-run is a top-level call(),
 * so each served client is its own execution unit for propagation, fed
 * after the command that woke it; the command rewrites itself into its
 * non-blocking form (LPOP, LMOVE, ZPOPMIN...) for that. */
#include "blocked.h"
#include "cluster.h"

#include <math.h>

static list *blocked;   /* clients with a bstate */
static list *ready;     /* readyKey * */
static list *unblocked; /* clients to resume in beforeSleep */
static unsigned long blocking_keys_total; /* sum of dictSize(db->blocking_keys) */
static dict **nokey_keys;                 /* per db: key -> count of wake-on-delete waiters */
static unsigned long nokey_keys_total;    /* sum of dictSize(nokey_keys[j]) */
static client *reprocessing;              /* client being re-executed, or NULL */
static mstime_t reprocessing_timeout;     /* its original timeout */

typedef struct readyKey {
    serverDb *db;
    robj *key;
} readyKey;

static void blockedListFree(void *l) { listRelease(l); }

/* db->blocking_keys: sds key (owned) -> list of client * (owned list). */
static dictType blockingKeysDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = blockedListFree,
};

/* nokey_keys[db]: sds key (owned) -> unsigned count, no value to free. */
static dictType nokeyKeysDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

/* See blocked.h. */
void blockedInit(void) {
    blocked = listCreate();
    ready = listCreate();
    unblocked = listCreate();
    nokey_keys = zmalloc(sizeof(dict *) * (size_t)server.dbnum);
    for (int j = 0; j < server.dbnum; j++) {
        server.db[j].blocking_keys = dictCreate(&blockingKeysDictType);
        nokey_keys[j] = dictCreate(&nokeyKeysDictType);
    }
}

/* See blocked.h. */
unsigned long blockedClientsCount(void) { return blocked ? listLength(blocked) : 0; }

/* See blocked.h. */
unsigned long blockedClientsWithTimeoutCount(void) {
    unsigned long n = 0;
    if (!blocked) return 0;
    listIter li;
    listNode *ln;
    listRewind(blocked, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->bstate->timeout) n++;
    }
    return n;
}

/* See blocked.h. */
unsigned long blockedKeysCount(void) { return blocking_keys_total; }

/* See blocked.h. */
unsigned long blockedKeysOnNokeyCount(void) { return nokey_keys_total; }

/* See blocked.h. */
int blockedHasReadyKeys(void) { return ready && listLength(ready) != 0; }

/* ---------------------------------------------------------------------------
 * Timeouts
 * ------------------------------------------------------------------------- */

/* See blocked.h. */
int getTimeoutFromObjectOrReply(client *c, robj *object, mstime_t *timeout, int unit) {
    mstime_t ms;
    if (unit == UNIT_SECONDS) {
        /* Seconds may have a fraction: rounded up to the millisecond. */
        long double t;
        if (getLongDoubleFromObject(object, &t) != C_OK || isnan(t)) {
            addReplyError(c, "timeout is not a float or out of range");
            return C_ERR;
        }
        t = ceill(t * 1000.0L);
        if (t > (long double)LLONG_MAX) {
            addReplyError(c, "timeout is out of range");
            return C_ERR;
        }
        ms = (mstime_t)t;
    } else {
        long long v;
        if (getLongLongFromObject(object, &v) != C_OK) {
            addReplyError(c, "timeout is not an integer or out of range");
            return C_ERR;
        }
        ms = v;
    }
    if (ms < 0) {
        addReplyError(c, "timeout is negative");
        return C_ERR;
    }
    if (ms > 0) {
        mstime_t now = commandTimeSnapshot();
        if (ms > LLONG_MAX - now) {
            addReplyError(c, "timeout is out of range");
            return C_ERR;
        }
        ms += now;
    }
    *timeout = ms;
    return C_OK;
}

/* The reply a client gets when its wait ends without data. */
static void replyToBlockedClientTimedOut(client *c) {
    switch (c->bstate->btype) {
    case BLOCKED_LIST:
    case BLOCKED_ZSET:
    case BLOCKED_STREAM: addReplyNullArray(c); break;
    case BLOCKED_WAIT:
    case BLOCKED_WAITAOF: addReplyWaitAcks(c, c->bstate->btype); break;
    default: serverPanic("Unknown blocking type %d", c->bstate->btype);
    }
}

/* Unblocks, with the timeout reply, every client whose time is up. */
static void handleBlockedClientsTimeout(void) {
    if (!blocked || listLength(blocked) == 0) return;
    mstime_t now = mstime();
    listIter li;
    listNode *ln;
    listRewind(blocked, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->bstate->timeout && c->bstate->timeout <= now) unblockClient(c, 1);
    }
}

/* One-shot timer armed when a client blocks with a timeout. */
static int blockedTimerProc(struct aeEventLoop *el, long long id, void *data) {
    (void)el;
    (void)id;
    (void)data;
    handleBlockedClientsTimeout();
    return AE_NOMORE;
}

/* ---------------------------------------------------------------------------
 * Blocking and unblocking
 * ------------------------------------------------------------------------- */

/* Counts one more (delta 1) or one fewer (delta -1) wake-on-delete waiter
 * on key in db, keeping nokey_keys and its total in step. */
static void nokeyWaitersAdjust(serverDb *db, robj *key, int delta) {
    dict *d = nokey_keys[db->id];
    dictEntry *de = dictFind(d, objectGetVal(key));
    if (delta > 0) {
        if (!de) {
            de = dictAddRaw(d, sdsdup(objectGetVal(key)), NULL);
            dictSetUnsignedIntegerVal(de, 0);
            nokey_keys_total++;
        }
        dictIncrUnsignedIntegerVal(de, 1);
        return;
    }
    serverAssert(de != NULL);
    if (dictIncrUnsignedIntegerVal(de, (uint64_t)-1) == 0) {
        dictDelete(d, objectGetVal(key));
        nokey_keys_total--;
    }
}

/* See blocked.h. Our primary's client must never wait: its stream would
 * stall behind the command while the link looks up. */
int blockingDenied(client *c) {
    return (c->flags & (CLIENT_MULTI | CLIENT_SCRIPT | CLIENT_FAKE | CLIENT_PRIMARY)) || server.in_exec ||
           server.in_script;
}

/* Blocks c on keys; with wake_on_delete the keys' deletion wakes it too. */
static void blockForKeysGeneric(client *c, int btype, robj **keys, int numkeys, mstime_t timeout,
                                int wake_on_delete) {
    serverAssert(c->bstate == NULL);
    /* A re-run that blocks again (its key expired, or was emptied, before
     * the re-run) keeps the deadline it first had, not one from now. */
    if (c == reprocessing) timeout = reprocessing_timeout;
    blockingState *bs = zcalloc(sizeof(*bs));
    bs->btype = btype;
    bs->timeout = timeout;
    bs->db = c->db;
    bs->wake_on_delete = wake_on_delete;
    bs->keys = zmalloc(sizeof(robj *) * numkeys);
    for (int j = 0; j < numkeys; j++) {
        int dup = 0;
        for (int k = 0; k < bs->numkeys && !dup; k++) dup = equalStringObjects(bs->keys[k], keys[j]);
        if (dup) continue;
        robj *key = keys[j];
        incrRefCount(key);
        bs->keys[bs->numkeys++] = key;
        dictEntry *de = dictFind(c->db->blocking_keys, objectGetVal(key));
        list *waiters;
        if (de) {
            waiters = dictGetVal(de);
        } else {
            waiters = listCreate();
            dictAdd(c->db->blocking_keys, sdsdup(objectGetVal(key)), waiters);
            blocking_keys_total++;
        }
        listAddNodeTail(waiters, c);
        if (wake_on_delete) nokeyWaitersAdjust(c->db, key, 1);
    }
    listAddNodeTail(blocked, c);
    bs->node = listLast(blocked);
    c->bstate = bs;
    c->flags |= CLIENT_BLOCKED;
    if (timeout) {
        mstime_t delay = timeout - mstime();
        if (delay < 1) delay = 1;
        aeCreateTimeEvent(server.el, delay, blockedTimerProc, NULL, NULL);
    }
}

/* See blocked.h. */
void blockForKeys(client *c, int btype, robj **keys, int numkeys, mstime_t timeout) {
    blockForKeysGeneric(c, btype, keys, numkeys, timeout, 0);
}

/* See blocked.h. */
void blockForKeysWakeOnDelete(client *c, int btype, robj **keys, int numkeys, mstime_t timeout) {
    blockForKeysGeneric(c, btype, keys, numkeys, timeout, 1);
}

/* Queues c to have its remaining input processed in beforeSleep. */
static void queueUnblockedClient(client *c) {
    /* Its command just ended: the idle timeout counts from now, so the
     * cron cannot close it before its reply is written. */
    c->lastinteraction = server.unixtime;
    if (!listSearchKey(unblocked, c)) listAddNodeTail(unblocked, c);
}

/* See blocked.h. */
void blockedQueueResume(client *c) {
    queueUnblockedClient(c);
}

/* Removes c from its keys' wait lists and frees its bstate. */
static void forgetBlockedClient(client *c) {
    blockingState *bs = c->bstate;
    for (int j = 0; j < bs->numkeys; j++) {
        robj *key = bs->keys[j];
        dictEntry *de = dictFind(bs->db->blocking_keys, objectGetVal(key));
        if (de) {
            list *waiters = dictGetVal(de);
            listNode *ln = listSearchKey(waiters, c);
            if (ln) listDelNode(waiters, ln);
            if (listLength(waiters) == 0) {
                dictDelete(bs->db->blocking_keys, objectGetVal(key));
                blocking_keys_total--;
            }
        }
        if (bs->wake_on_delete) nokeyWaitersAdjust(bs->db, key, -1);
        decrRefCount(key);
    }
    listDelNode(blocked, bs->node);
    zfree(bs->keys);
    zfree(bs);
    c->bstate = NULL;
    c->flags &= ~CLIENT_BLOCKED;
}

/* See blocked.h. */
void unblockClient(client *c, int reply_timeout) {
    if (!c->bstate) return;
    if (reply_timeout) replyToBlockedClientTimedOut(c);
    int btype = c->bstate->btype;
    forgetBlockedClient(c);
    /* A command waiting for data ends here: count it now (server.c). */
    if (btype == BLOCKED_LIST || btype == BLOCKED_ZSET || btype == BLOCKED_STREAM) updateStatsOnUnblock(c);
    /* The blocked command is over: drop its argv and go on reading. */
    resetClient(c);
    queueUnblockedClient(c);
}

/* See blocked.h. */
void blockedRedirectClusterClients(void) {
    if (!blocked || listLength(blocked) == 0) return;
    listIter li;
    listNode *ln;
    listRewind(blocked, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        int btype = c->bstate->btype;
        if (btype != BLOCKED_LIST && btype != BLOCKED_ZSET && btype != BLOCKED_STREAM) continue;
        if (c->bstate->numkeys == 0) continue;
        /* All its keys are in one slot (routing checked): the first says. */
        if (clusterRedirectBlockedClient(c, c->bstate->keys[0])) unblockClient(c, 0);
    }
}

/* See blocked.h. */
void blockedClientFreed(client *c) {
    if (c->bstate) forgetBlockedClient(c);
    if (unblocked) {
        listNode *ln = listSearchKey(unblocked, c);
        if (ln) listDelNode(unblocked, ln);
    }
}

/* ---------------------------------------------------------------------------
 * Serving ready keys
 * ------------------------------------------------------------------------- */

/* Adds key of db to the ready queue unless it is queued already. */
static void queueReadyKey(serverDb *db, robj *key) {
    listIter li;
    listNode *ln;
    listRewind(ready, &li);
    while ((ln = listNext(&li))) {
        readyKey *rk = listNodeValue(ln);
        if (rk->db == db && equalStringObjects(rk->key, key)) return;
    }
    readyKey *rk = zmalloc(sizeof(*rk));
    rk->db = db;
    rk->key = createStringObject(objectGetVal(key), sdslen(objectGetVal(key)));
    listAddNodeTail(ready, rk);
}

/* See blocked.h. */
void signalKeyAsReady(serverDb *db, robj *key, int type) {
    (void)type; /* every waiter's type is checked when it is served */
    if (!db->blocking_keys || dictSize(db->blocking_keys) == 0) return;
    if (!dictFind(db->blocking_keys, objectGetVal(key))) return;
    queueReadyKey(db, key);
}

/* See blocked.h. */
void signalDeletedKeyAsReady(serverDb *db, robj *key, int type) {
    (void)type; /* the re-run command looks at whatever the key holds now */
    if (nokey_keys_total == 0) return;
    if (!dictFind(nokey_keys[db->id], objectGetVal(key))) return;
    queueReadyKey(db, key);
}

/* See blocked.h. */
void scanDatabaseForDeletedKeys(serverDb *emptied, serverDb *replaced_with) {
    if (nokey_keys_total == 0 || dictSize(nokey_keys[emptied->id]) == 0) return;
    dictIterator *di = dictGetSafeIterator(nokey_keys[emptied->id]);
    dictEntry *de;
    while ((de = dictNext(di))) {
        sds name = dictGetKey(de);
        robj *old = dbFind(emptied, name);
        if (!old) continue;
        robj *now = replaced_with ? dbFind(replaced_with, name) : NULL;
        int old_type = old->type;
        if (now && now->type == old_type) continue;
        robj *key = createStringObject(name, sdslen(name));
        signalDeletedKeyAsReady(emptied, key, old_type);
        decrRefCount(key);
    }
    dictReleaseIterator(di);
}

/* See blocked.h. */
void scanDatabaseForReadyKeys(serverDb *db) {
    if (!db->blocking_keys || dictSize(db->blocking_keys) == 0) return;
    dictIterator *di = dictGetSafeIterator(db->blocking_keys);
    dictEntry *de;
    while ((de = dictNext(di))) {
        sds name = dictGetKey(de);
        robj *val = dbFind(db, name);
        if (!val) continue;
        robj *key = createStringObject(name, sdslen(name));
        signalKeyAsReady(db, key, val->type);
        decrRefCount(key);
    }
    dictReleaseIterator(di);
}

/* The value type a client of the given btype waits for. */
static int blockedExpectedType(int btype) {
    switch (btype) {
    case BLOCKED_LIST: return OBJ_LIST;
    case BLOCKED_ZSET: return OBJ_ZSET;
    case BLOCKED_STREAM: return OBJ_STREAM;
    }
    return -1;
}

/* Re-runs the blocked command of c, which now has data to serve (or may
 * block again: blockForKeysGeneric() then keeps its first deadline). */
static void reprocessBlockedClient(client *c) {
    reprocessing = c;
    reprocessing_timeout = c->bstate->timeout;
    forgetBlockedClient(c);
    client *old = server.current_client;
    server.current_client = c;
    c->flags |= CLIENT_PROTECTED; /* an output limit must not free it under us */
    updateCachedTime(0);
    /* This run completes the command (unless it blocks again): call()
     * accounts for it then, an error it ends with (NOGROUP...) included. */
    call(c, CALL_FULL | CALL_REPROCESSING);
    reprocessing = NULL;
    c->flags &= ~CLIENT_PROTECTED;
    server.current_client = old;
    if (!(c->flags & CLIENT_BLOCKED)) {
        resetClient(c);
        queueUnblockedClient(c);
    }
}

/* 1 if c, waiting on a key that now holds o (NULL: missing), should have
 * its command re-run: the key holds the type it waits for, or c asked to
 * be woken by any change of the key (XREADGROUP). */
static int blockedClientShouldRun(client *c, robj *o) {
    if (c->bstate->wake_on_delete) return 1;
    return o != NULL && (int)o->type == blockedExpectedType(c->bstate->btype);
}

/* Serves, FIFO, the clients waiting on one ready key. Each waiter is
 * checked against what the key holds at its turn (an earlier one may have
 * emptied it, and waiters of different types may share a key). Only the
 * clients waiting when we start are considered, so one that blocks again
 * (appended at the tail) cannot make this loop forever. Re-running a
 * client only unlinks that client's own node, which the iterator has
 * already passed; if that empties the list, the list is freed but the
 * iterator's next is then NULL. */
static void serveClientsBlockedOnKey(readyKey *rk) {
    dictEntry *de = dictFind(rk->db->blocking_keys, objectGetVal(rk->key));
    if (!de) return;
    list *waiters = dictGetVal(de);
    unsigned long todo = listLength(waiters);
    listIter li;
    listNode *ln;
    listRewind(waiters, &li);
    while (todo-- && (ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        robj *o = lookupKeyReadWithFlags(rk->db, rk->key, LOOKUP_NOTOUCH | LOOKUP_NONOTIFY | LOOKUP_NOSTATS);
        if (blockedClientShouldRun(c, o)) reprocessBlockedClient(c);
    }
}

/* See blocked.h. */
void handleClientsBlockedOnKeys(void) {
    static int running = 0;
    if (running || !ready) return;
    running = 1;
    while (listLength(ready)) {
        list *batch = ready;
        ready = listCreate();
        listIter li;
        listNode *ln;
        listRewind(batch, &li);
        while ((ln = listNext(&li))) {
            readyKey *rk = listNodeValue(ln);
            serveClientsBlockedOnKey(rk);
            decrRefCount(rk->key);
            zfree(rk);
        }
        listRelease(batch);
    }
    running = 0;
}

/* See blocked.h. */
void blockedBeforeSleep(void) {
    if (!blocked) return;
    handleBlockedClientsTimeout();
    handleClientsBlockedOnKeys();
    while (listLength(unblocked)) {
        listNode *ln = listFirst(unblocked);
        client *c = listNodeValue(ln);
        listDelNode(unblocked, ln);
        if (c->flags & (CLIENT_BLOCKED | CLIENT_CLOSE_ASAP)) continue;
        if (clientHasUnprocessedInput(c)) {
            c->flags |= CLIENT_PROTECTED;
            processInputBuffer(c);
            c->flags &= ~CLIENT_PROTECTED;
        }
        handleClientsBlockedOnKeys();
    }
}

/* See blocked.h. Clients paused by CLIENT PAUSE are not in `blocked` (they
 * have no bstate): their command has not started, it runs or is refused
 * once the pause ends, as Valkey leaves its postponed clients. */
void disconnectAllBlockedClients(void) {
    if (!blocked) return;
    while (listLength(blocked)) {
        client *c = listNodeValue(listFirst(blocked));
        addReplyError(c, "-UNBLOCKED force unblock from blocking operation, instance state changed "
                         "(master -> replica?)");
        if (c->lastcmd) c->lastcmd->failed_calls++;
        unblockClient(c, 0);
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    }
}

/* ---------------------------------------------------------------------------
 * CLIENT UNBLOCK
 * ------------------------------------------------------------------------- */

/* See blocked.h. */
void clientUnblockCommand(client *c) {
    long long id;
    int with_error = 0;
    if (c->argc > 4) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (getLongLongFromObjectOrReply(c, c->argv[2], &id, NULL) != C_OK) return;
    if (c->argc == 4) {
        if (!strcasecmp(objectGetVal(c->argv[3]), "timeout")) {
            with_error = 0;
        } else if (!strcasecmp(objectGetVal(c->argv[3]), "error")) {
            with_error = 1;
        } else {
            addReplyError(c, "CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
            return;
        }
    }
    client *target = lookupClientByID((uint64_t)id);
    if (!target || !target->bstate) {
        addReply(c, shared.czero);
        return;
    }
    if (with_error) {
        addReplyError(target, "-UNBLOCKED client unblocked via CLIENT UNBLOCK");
        if (target->lastcmd) target->lastcmd->failed_calls++;
        unblockClient(target, 0);
    } else {
        unblockClient(target, 1);
    }
    addReply(c, shared.cone);
}
