/* blocked.c - blocking on keys: BLPOP/BRPOP/BLMOVE/BRPOPLPUSH/BLMPOP now,
 * and the same machinery for sorted sets and streams later.
 *
 * State, all owned here:
 *   - db->blocking_keys: key (sds) -> adlist of clients, in blocking order,
 *     so clients waiting on one key are served first-come first-served;
 *   - c->bstate (blocked.h): the keys a client waits on, its timeout, its
 *     node in `blocked`, the list of every client blocked on keys (for
 *     timeouts and INFO);
 *   - `ready`: keys created since the last pass that have waiters;
 *   - `unblocked`: clients just unblocked whose query buffer may hold more
 *     pipelined commands, run from beforeSleep.
 *
 * Flow: a blocking command with nothing to serve calls blockForKeys().
 * dbAdd() calls signalKeyAsReady(). processCommand() (after each command)
 * and beforeSleep() call handleClientsBlockedOnKeys(), which re-executes
 * each waiting client's command while the key holds a value of the
 * expected type: the command then finds data and replies as usual (or, for
 * BLMOVE onto a wrong-type destination, replies the error). Timeouts are
 * checked by a one-shot timer armed at each block and again in
 * beforeSleep. CLIENT_BLOCKED is shared with CLIENT PAUSE, so "blocked on
 * keys" is tested as c->bstate != NULL. Propagation to replicas (as the
 * non-blocking form) is left for when replication exists. */
#include "blocked.h"

#include <math.h>

static list *blocked;   /* clients with a bstate */
static list *ready;     /* readyKey * */
static list *unblocked; /* clients to resume in beforeSleep */
static unsigned long blocking_keys_total; /* sum of dictSize(db->blocking_keys) */

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

/* See blocked.h. */
void blockedInit(void) {
    blocked = listCreate();
    ready = listCreate();
    unblocked = listCreate();
    for (int j = 0; j < server.dbnum; j++) server.db[j].blocking_keys = dictCreate(&blockingKeysDictType);
}

/* See blocked.h. */
unsigned long blockedClientsCount(void) { return blocked ? listLength(blocked) : 0; }

/* See blocked.h. */
unsigned long blockedKeysCount(void) { return blocking_keys_total; }

/* See blocked.h. */
int blockedHasReadyKeys(void) { return ready && listLength(ready) != 0; }

/* ---------------------------------------------------------------------------
 * Timeouts
 * ------------------------------------------------------------------------- */

/* See blocked.h. */
int getTimeoutFromObjectOrReply(client *c, robj *object, mstime_t *timeout, int unit) {
    long double t;
    if (getLongDoubleFromObject(object, &t) != C_OK || isnan(t)) {
        addReplyError(c, "timeout is not a float or out of range");
        return C_ERR;
    }
    if (t < 0) {
        addReplyError(c, "timeout is negative");
        return C_ERR;
    }
    if (unit == UNIT_SECONDS) t *= 1000.0L;
    t = ceill(t);
    if (t > (long double)LLONG_MAX) {
        addReplyError(c, "timeout is out of range");
        return C_ERR;
    }
    mstime_t ms = (mstime_t)t;
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

/* See blocked.h. */
void blockForKeys(client *c, int btype, robj **keys, int numkeys, mstime_t timeout) {
    serverAssert(c->bstate == NULL);
    blockingState *bs = zcalloc(sizeof(*bs));
    bs->btype = btype;
    bs->timeout = timeout;
    bs->db = c->db;
    bs->keys = zmalloc(sizeof(robj *) * numkeys);
    for (int j = 0; j < numkeys; j++) {
        int dup = 0;
        for (int k = 0; k < bs->numkeys && !dup; k++) dup = equalStringObjects(bs->keys[k], keys[j]);
        if (dup) continue;
        robj *key = keys[j];
        incrRefCount(key);
        bs->keys[bs->numkeys++] = key;
        dictEntry *de = dictFind(c->db->blocking_keys, key->ptr);
        list *waiters;
        if (de) {
            waiters = dictGetVal(de);
        } else {
            waiters = listCreate();
            dictAdd(c->db->blocking_keys, sdsdup(key->ptr), waiters);
            blocking_keys_total++;
        }
        listAddNodeTail(waiters, c);
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

/* Queues c to have its remaining input processed in beforeSleep. */
static void queueUnblockedClient(client *c) {
    if (!listSearchKey(unblocked, c)) listAddNodeTail(unblocked, c);
}

/* Removes c from its keys' wait lists and frees its bstate. */
static void forgetBlockedClient(client *c) {
    blockingState *bs = c->bstate;
    for (int j = 0; j < bs->numkeys; j++) {
        robj *key = bs->keys[j];
        dictEntry *de = dictFind(bs->db->blocking_keys, key->ptr);
        if (de) {
            list *waiters = dictGetVal(de);
            listNode *ln = listSearchKey(waiters, c);
            if (ln) listDelNode(waiters, ln);
            if (listLength(waiters) == 0) {
                dictDelete(bs->db->blocking_keys, key->ptr);
                blocking_keys_total--;
            }
        }
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
    forgetBlockedClient(c);
    /* The blocked command is over: drop its argv and go on reading. */
    resetClient(c);
    queueUnblockedClient(c);
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

/* See blocked.h. */
void signalKeyAsReady(serverDb *db, robj *key, int type) {
    (void)type; /* every waiter's type is checked when it is served */
    if (!db->blocking_keys || dictSize(db->blocking_keys) == 0) return;
    if (!dictFind(db->blocking_keys, key->ptr)) return;
    listIter li;
    listNode *ln;
    listRewind(ready, &li);
    while ((ln = listNext(&li))) {
        readyKey *rk = listNodeValue(ln);
        if (rk->db == db && equalStringObjects(rk->key, key)) return;
    }
    readyKey *rk = zmalloc(sizeof(*rk));
    rk->db = db;
    rk->key = createStringObject(key->ptr, sdslen(key->ptr));
    listAddNodeTail(ready, rk);
}

/* See blocked.h. */
void scanDatabaseForReadyKeys(serverDb *db) {
    if (!db->blocking_keys || dictSize(db->blocking_keys) == 0) return;
    dictIterator *di = dictGetSafeIterator(db->blocking_keys);
    dictEntry *de;
    while ((de = dictNext(di))) {
        sds name = dictGetKey(de);
        dictEntry *kde = dictFind(db->dict, name);
        if (!kde) continue;
        robj *key = createStringObject(name, sdslen(name));
        signalKeyAsReady(db, key, ((robj *)dictGetVal(kde))->type);
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

static client *reprocessing;         /* client being re-executed, or NULL */
static mstime_t reprocessing_timeout; /* its original timeout */

/* See blocked.h. */
int blockedReprocessTimeout(client *c, mstime_t *timeout) {
    if (c != reprocessing) return 0;
    *timeout = reprocessing_timeout;
    return 1;
}

/* Re-runs the blocked command of c, which now has data to serve (or, for
 * XREAD, may block again: it keeps its deadline via the two fields above). */
static void reprocessBlockedClient(client *c) {
    reprocessing = c;
    reprocessing_timeout = c->bstate->timeout;
    forgetBlockedClient(c);
    client *old = server.current_client;
    server.current_client = c;
    c->flags |= CLIENT_PROTECTED; /* an output limit must not free it under us */
    updateCachedTime(0);
    call(c, CALL_NONE);
    reprocessing = NULL;
    c->flags &= ~CLIENT_PROTECTED;
    server.current_client = old;
    if (!(c->flags & CLIENT_BLOCKED)) {
        resetClient(c);
        queueUnblockedClient(c);
    }
}

/* Serves, FIFO, the clients waiting on one ready key while it lasts. Only
 * the clients waiting when we start are considered, so one that blocks
 * again cannot make this loop forever. */
static void serveClientsBlockedOnKey(readyKey *rk) {
    dictEntry *de = dictFind(rk->db->blocking_keys, rk->key->ptr);
    if (!de) return;
    unsigned long todo = listLength((list *)dictGetVal(de));
    while (todo--) {
        de = dictFind(rk->db->blocking_keys, rk->key->ptr);
        if (!de) return;
        list *waiters = dictGetVal(de);
        client *c = listNodeValue(listFirst(waiters));
        robj *o = lookupKeyReadWithFlags(rk->db, rk->key, LOOKUP_NOTOUCH | LOOKUP_NONOTIFY | LOOKUP_NOSTATS);
        if (!o || o->type != blockedExpectedType(c->bstate->btype)) return;
        reprocessBlockedClient(c);
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
        if (sdslen(c->querybuf) > c->qb_pos) {
            c->flags |= CLIENT_PROTECTED;
            processInputBuffer(c);
            c->flags &= ~CLIENT_PROTECTED;
        }
        handleClientsBlockedOnKeys();
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
        if (!strcasecmp(c->argv[3]->ptr, "timeout")) {
            with_error = 0;
        } else if (!strcasecmp(c->argv[3]->ptr, "error")) {
            with_error = 1;
        } else {
            addReplyError(c, "CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
            return;
        }
    }
    client *target = NULL;
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *cl = listNodeValue(ln);
        if (cl->id == (uint64_t)id) {
            target = cl;
            break;
        }
    }
    if (!target || !target->bstate) {
        addReply(c, shared.czero);
        return;
    }
    if (with_error) {
        addReplyError(target, "-UNBLOCKED client unblocked via CLIENT UNBLOCK");
        unblockClient(target, 0);
    } else {
        unblockClient(target, 1);
    }
    addReply(c, shared.cone);
}
