/* tracking.c - client-side caching: CLIENT TRACKING, CACHING, GETREDIR,
 * TRACKINGINFO, and the invalidation messages they ask for.
 *
 * A client that caches values locally turns tracking on and is told when
 * a key it may hold changes. Two modes, as in Valkey:
 *
 *  - Default mode. After each read-only command, call() (server.c) hands
 *    the keys it read to trackingRememberKeys(); they go into trackingTable
 *    (key -> set of client IDs). When a key is modified, expired, evicted
 *    (signalModifiedKey(), db.c), each client in its set gets one
 *    "invalidate [key]" message and the entry is dropped: a client hears
 *    about a key at most once per read. With OPTIN only reads right after
 *    CLIENT CACHING yes count; with OPTOUT, all but those right after
 *    CLIENT CACHING no. IDs are kept, not pointers: a client that went away
 *    or turned tracking off is skipped when its ID comes up.
 *  - BCAST. Nothing is remembered per read. The client registers prefixes
 *    (none: every key); modified keys that match a prefix are queued on it
 *    and, before the event loop sleeps, each prefix's keys go out as one
 *    message to every client registered on it.
 *
 * Messages are RESP3 pushes (">2 invalidate <keys>"). A client can instead
 * redirect them to another connection (REDIRECT id); if that one speaks
 * RESP2 and is in Pub/Sub mode, they arrive as messages of the channel
 * __redis__:invalidate. A flush sends a null key list to every tracking
 * client. NOLOOP leaves out the keys a client modified itself. A message
 * for the client whose command is running goes after that command's reply
 * (pubsubDeliverPush()).
 *
 * tracking-table-max-keys bounds trackingTable: above it, beforeSleep
 * drops random keys, invalidating them for their clients. */
#include "tracking.h"

#include "pubsub.h"

/* Default mode: key (sds) -> set of client IDs (dict, the ID is the key). */
static dict *trackingTable;
unsigned long long trackingItems; /* (key, client) pairs in the table */

/* BCAST: prefix (sds) -> bcastState. */
typedef struct bcastState {
    dict *clients; /* client * -> NULL */
    dict *keys;    /* modified key (sds) -> the client that modified it, or NULL (none, or several) */
} bcastState;
static dict *prefixTable;
unsigned long trackingPrefixes; /* dictSize(prefixTable), for the inline test in tracking.h */
static unsigned long long bcastPendingKeys; /* keys queued over all prefixes */

#define TRACKING_MODE_FLAGS (CLIENT_TRACKING_BCAST | CLIENT_TRACKING_OPTIN | CLIENT_TRACKING_OPTOUT | CLIENT_TRACKING_NOLOOP)
#define TRACKING_ALL_FLAGS \
    (CLIENT_TRACKING | CLIENT_TRACKING_BROKEN_REDIR | CLIENT_TRACKING_CACHING | TRACKING_MODE_FLAGS)

/* ---------------------------------------------------------------------------
 * Tables
 * ------------------------------------------------------------------------- */

static void releaseDict(void *d) {
    dictRelease(d);
}

static void releaseBcastState(void *p) {
    bcastState *bs = p;
    dictRelease(bs->clients);
    dictRelease(bs->keys);
    zfree(bs);
}

/* A set of client IDs or client pointers: the pointer value is the key. */
static dictType pointerSetType = {.hashFunction = dictPointerHash};

static dictType trackingTableType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = releaseDict,
};

static dictType prefixTableType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = releaseBcastState,
};

/* sds -> anything not owned: BCAST pending keys, a client's prefixes. */
static dictType sdsKeyType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

void trackingInit(void) {
    trackingTable = dictCreate(&trackingTableType);
    prefixTable = dictCreate(&prefixTableType);
}

void trackingGetStats(unsigned long long *keys, unsigned long long *items, unsigned long long *prefixes) {
    *keys = dictSize(trackingTable);
    *items = trackingItems;
    *prefixes = dictSize(prefixTable);
}

/* ---------------------------------------------------------------------------
 * Turning tracking on and off
 * ------------------------------------------------------------------------- */

static void addPrefix(client *c, sds prefix) {
    dictEntry *de = dictFind(prefixTable, prefix);
    bcastState *bs;
    if (de) {
        bs = dictGetVal(de);
    } else {
        bs = zmalloc(sizeof(*bs));
        bs->clients = dictCreate(&pointerSetType);
        bs->keys = dictCreate(&sdsKeyType);
        dictAdd(prefixTable, sdsdup(prefix), bs);
        trackingPrefixes++;
    }
    dictAdd(bs->clients, c, NULL);
    if (c->tracking_prefixes == NULL) c->tracking_prefixes = dictCreate(&sdsKeyType);
    if (dictFind(c->tracking_prefixes, prefix) == NULL) dictAdd(c->tracking_prefixes, sdsdup(prefix), NULL);
}

static void enableTracking(client *c, uint64_t redirect, uint64_t options, robj **prefixes, int count) {
    if (!(c->flags & CLIENT_TRACKING)) server.tracking_clients++;
    c->flags |= CLIENT_TRACKING;
    c->flags &= ~(CLIENT_TRACKING_BROKEN_REDIR | TRACKING_MODE_FLAGS);
    c->flags |= options & TRACKING_MODE_FLAGS;
    c->tracking_redirect = redirect;
    if (!(options & CLIENT_TRACKING_BCAST)) return;
    if (count == 0) {
        sds all = sdsempty();
        addPrefix(c, all);
        sdsfree(all);
    }
    for (int j = 0; j < count; j++) addPrefix(c, objectGetVal(prefixes[j]));
}

void disableTracking(client *c) {
    if (!(c->flags & CLIENT_TRACKING)) return;
    if (c->tracking_prefixes) {
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, c->tracking_prefixes);
        while ((de = dictNext(&it)) != NULL) {
            dictEntry *pe = dictFind(prefixTable, dictGetKey(de));
            if (pe == NULL) continue;
            bcastState *bs = dictGetVal(pe);
            dictDelete(bs->clients, c);
            if (dictSize(bs->clients) == 0) {
                bcastPendingKeys -= dictSize(bs->keys);
                dictDelete(prefixTable, dictGetKey(de));
                trackingPrefixes--;
            }
        }
        dictResetIterator(&it);
        dictRelease(c->tracking_prefixes);
        c->tracking_prefixes = NULL;
    }
    c->flags &= ~TRACKING_ALL_FLAGS;
    c->tracking_redirect = 0;
    server.tracking_clients--;
}

/* One of two prefixes starting the other: the keys one matches would be
 * reported twice. */
static int prefixesOverlap(const char *a, size_t alen, const char *b, size_t blen) {
    return memcmp(a, b, alen < blen ? alen : blen) == 0;
}

/* Checks the new prefixes against c's and against each other; replies
 * the error and returns 0 on an overlap. */
static int checkPrefixCollisionsOrReply(client *c, robj **prefixes, int count) {
    for (int i = 0; i < count; i++) {
        sds p = objectGetVal(prefixes[i]);
        if (c->tracking_prefixes) {
            dictIterator it;
            dictEntry *de;
            dictInitIterator(&it, c->tracking_prefixes);
            while ((de = dictNext(&it)) != NULL) {
                sds e = dictGetKey(de);
                if (prefixesOverlap(p, sdslen(p), e, sdslen(e))) {
                    addReplyErrorFormat(c,
                                        "Prefix '%s' overlaps with an existing prefix '%s'. Prefixes for a single "
                                        "client must not overlap.",
                                        p, e);
                    dictResetIterator(&it);
                    return 0;
                }
            }
            dictResetIterator(&it);
        }
        for (int j = 0; j < count; j++) {
            sds q = objectGetVal(prefixes[j]);
            if (i != j && prefixesOverlap(p, sdslen(p), q, sdslen(q))) {
                addReplyErrorFormat(c,
                                    "Prefix '%s' overlaps with another provided prefix '%s'. Prefixes for a single "
                                    "client must not overlap.",
                                    p, q);
                return 0;
            }
        }
    }
    return 1;
}

/* ---------------------------------------------------------------------------
 * Remembering keys (default mode)
 * ------------------------------------------------------------------------- */

/* The key an argument names, as the sds the tables use (a new one for an
 * integer-encoded argument; *owned is then set). */
static sds keyName(robj *o, int *owned) {
    *owned = !sdsEncodedObject(o);
    return *owned ? sdsfromlonglong((long)objectGetVal(o)) : objectGetVal(o);
}

static void rememberKey(client *c, robj *key) {
    int owned;
    sds k = keyName(key, &owned);
    dictEntry *de = dictFind(trackingTable, k);
    dict *ids;
    if (de) {
        ids = dictGetVal(de);
    } else {
        ids = dictCreate(&pointerSetType);
        dictAdd(trackingTable, sdsdup(k), ids);
    }
    if (dictAdd(ids, (void *)(uintptr_t)c->id, NULL) == DICT_OK) trackingItems++;
    if (owned) sdsfree(k);
}

void trackingRememberKeys(client *tracking, client *executing) {
    if (!(tracking->flags & CLIENT_TRACKING) || (tracking->flags & CLIENT_TRACKING_BCAST)) return;
    uint64_t optin = tracking->flags & CLIENT_TRACKING_OPTIN, optout = tracking->flags & CLIENT_TRACKING_OPTOUT,
             caching = tracking->flags & CLIENT_TRACKING_CACHING;
    if ((optin && !caching) || (optout && caching)) return;

    int buf[64], *keys = buf;
    int n = getKeysFromCommand(executing->cmd, executing->argv, executing->argc, keys, 64);
    if (n == 64) {
        keys = zmalloc(sizeof(int) * executing->argc);
        n = getKeysFromCommand(executing->cmd, executing->argv, executing->argc, keys, executing->argc);
    }
    for (int j = 0; j < n; j++) rememberKey(tracking, executing->argv[keys[j]]);
    if (keys != buf) zfree(keys);
}

void trackingResetCachingFlag(client *c, struct serverCommand *ended) {
    if (c->flags & CLIENT_MULTI) return;
    if (ended && ended->proc == clientCachingCommand) return;
    c->flags &= ~CLIENT_TRACKING_CACHING;
}

/* ---------------------------------------------------------------------------
 * Sending invalidations
 * ------------------------------------------------------------------------- */

/* Sends "invalidate <keys>" on behalf of tracking client c: keys is the
 * encoded key list (an array, or a null for a flush). It goes to c, or to
 * the client c redirects to. */
static void sendTrackingMessage(client *c, const char *keys, size_t len) {
    client *to = c;
    int redirected = 0;
    if (c->tracking_redirect) {
        to = lookupClientByID(c->tracking_redirect);
        if (to == NULL) {
            /* The redirect target is gone: say so to c, if it can hear it. */
            c->flags |= CLIENT_TRACKING_BROKEN_REDIR;
            if (c->resp > 2) {
                sds msg = sdscatfmt(sdsnew(">2\r\n$21\r\ntracking-redir-broken\r\n"), ":%U\r\n",
                                    (unsigned long long)c->tracking_redirect);
                pubsubDeliverPush(c, msg);
                sdsfree(msg);
            }
            return;
        }
        redirected = 1;
    }
    sds msg;
    if (to->resp > 2) {
        msg = sdsnew(">2\r\n$10\r\ninvalidate\r\n");
    } else if (redirected && (to->flags & CLIENT_PUBSUB)) {
        msg = sdsnew("*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n");
    } else {
        return; /* RESP2 has no pushes on the connection itself */
    }
    msg = sdscatlen(msg, keys, len);
    pubsubDeliverPush(to, msg);
    sdsfree(msg);
}

static sds catKeyBulk(sds s, const char *k, size_t len) {
    s = sdscatfmt(s, "$%U\r\n", (unsigned long long)len);
    s = sdscatlen(s, k, len);
    return sdscatlen(s, "\r\n", 2);
}

/* Queues key on every BCAST prefix it starts with. */
static void queueKeyForBroadcast(client *c, sds key) {
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, prefixTable);
    while ((de = dictNext(&it)) != NULL) {
        sds prefix = dictGetKey(de);
        if (sdslen(prefix) > sdslen(key) || memcmp(prefix, key, sdslen(prefix)) != 0) continue;
        bcastState *bs = dictGetVal(de);
        dictEntry *ke = dictFind(bs->keys, key);
        if (ke == NULL) {
            dictAdd(bs->keys, sdsdup(key), c);
            bcastPendingKeys++;
        } else if (dictGetVal(ke) != c) {
            dictSetVal(bs->keys, ke, NULL); /* several writers: NOLOOP spares none */
        }
    }
    dictResetIterator(&it);
}

void trackingInvalidateKeySlow(client *c, robj *key, int bcast) {
    int owned;
    sds k = keyName(key, &owned);
    if (bcast && trackingPrefixes) queueKeyForBroadcast(c, k);
    dictEntry *de = trackingItems ? dictFind(trackingTable, k) : NULL;
    if (de) {
        sds keys = catKeyBulk(sdsnew("*1\r\n"), k, sdslen(k));
        dict *ids = dictGetVal(de);
        dictIterator it;
        dictEntry *ie;
        dictInitIterator(&it, ids);
        while ((ie = dictNext(&it)) != NULL) {
            client *target = lookupClientByID((uint64_t)(uintptr_t)dictGetKey(ie));
            if (!target || !(target->flags & CLIENT_TRACKING) || (target->flags & CLIENT_TRACKING_BCAST)) continue;
            if ((target->flags & CLIENT_TRACKING_NOLOOP) && target == server.current_client) continue;
            sendTrackingMessage(target, keys, sdslen(keys));
        }
        dictResetIterator(&it);
        sdsfree(keys);
        trackingItems -= dictSize(ids);
        dictDelete(trackingTable, k);
    }
    if (owned) sdsfree(k);
}

void trackingInvalidateKeysOnFlush(int dbid) {
    if (server.tracking_clients) {
        listIter li;
        listNode *ln;
        listRewind(server.clients, &li);
        while ((ln = listNext(&li)) != NULL) {
            client *c = listNodeValue(ln);
            if (!(c->flags & CLIENT_TRACKING)) continue;
            /* The null is in the tracking client's protocol, as Valkey's. */
            if (c->resp > 2) sendTrackingMessage(c, "_\r\n", 3);
            else sendTrackingMessage(c, "$-1\r\n", 5);
        }
    }
    /* Keys of other databases may share names: only FLUSHALL forgets all. */
    if (dbid == -1) {
        dictEmpty(trackingTable, NULL);
        trackingItems = 0;
    }
}

static int compareEntriesByKey(const void *a, const void *b) {
    return sdscmp(dictGetKey(*(dictEntry *const *)a), dictGetKey(*(dictEntry *const *)b));
}

/* The entries of an sds-keyed dict, sorted by key (Valkey keeps prefixes
 * and pending keys in radix trees: lists of them come out in this order).
 * The caller frees the array. */
static dictEntry **sortedEntries(dict *d) {
    dictEntry **v = zmalloc(sizeof(*v) * (dictSize(d) + 1));
    size_t n = 0;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, d);
    while ((de = dictNext(&it)) != NULL) v[n++] = de;
    dictResetIterator(&it);
    qsort(v, n, sizeof(*v), compareEntriesByKey);
    return v;
}

/* Sends each prefix's queued keys to its clients, one message per prefix
 * (without the keys a NOLOOP client modified itself). */
static void broadcastInvalidations(void) {
    size_t nprefixes = dictSize(prefixTable);
    dictEntry **prefixes = sortedEntries(prefixTable);
    for (size_t p = 0; p < nprefixes; p++) {
        bcastState *bs = dictGetVal(prefixes[p]);
        size_t nkeys = dictSize(bs->keys);
        if (nkeys == 0) continue;
        dictEntry **keys = sortedEntries(bs->keys);
        dictIterator ci;
        dictEntry *ce;
        dictInitIterator(&ci, bs->clients);
        while ((ce = dictNext(&ci)) != NULL) {
            client *c = dictGetKey(ce);
            sds body = sdsempty();
            long long n = 0;
            for (size_t j = 0; j < nkeys; j++) {
                if ((c->flags & CLIENT_TRACKING_NOLOOP) && dictGetVal(keys[j]) == c) continue;
                sds k = dictGetKey(keys[j]);
                body = catKeyBulk(body, k, sdslen(k));
                n++;
            }
            if (n) {
                sds msg = sdscatsds(sdscatfmt(sdsempty(), "*%I\r\n", n), body);
                sendTrackingMessage(c, msg, sdslen(msg));
                sdsfree(msg);
            }
            sdsfree(body);
        }
        dictResetIterator(&ci);
        zfree(keys);
        bcastPendingKeys -= nkeys;
        dictEmpty(bs->keys, NULL);
    }
    zfree(prefixes);
}

/* Above tracking-table-max-keys, random keys are dropped (and invalidated
 * for their clients), at most a bounded number per call so that a big
 * reduction of the limit is spread over several event loop iterations. */
static void limitTrackingTable(void) {
    unsigned long long max = server.tracking_table_max_keys;
    if (max == 0) return;
    for (int budget = 1000; dictSize(trackingTable) > max && budget > 0; budget--) {
        dictEntry *de = dictGetRandomKey(trackingTable);
        if (de == NULL) break;
        robj *key = createStringObject(dictGetKey(de), sdslen(dictGetKey(de)));
        trackingInvalidateKey(NULL, key, 0);
        decrRefCount(key);
    }
}

void trackingBeforeSleep(void) {
    if (bcastPendingKeys) broadcastInvalidations();
    if (trackingItems) limitTrackingTable();
}

/* ---------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------- */

/* CLIENT TRACKING <ON | OFF> [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN]
 * [OPTOUT] [NOLOOP] */
void clientTrackingCommand(client *c) {
    long long redirect = 0;
    uint64_t options = 0;
    robj **prefixes = NULL;
    int count = 0;

    for (int j = 3; j < c->argc; j++) {
        const char *opt = objectGetVal(c->argv[j]);
        int moreargs = j + 1 < c->argc;
        if (!strcasecmp(opt, "redirect") && moreargs) {
            j++;
            if (redirect != 0) {
                addReplyError(c, "A client can only redirect to a single other client");
                goto done;
            }
            if (getLongLongFromObjectOrReply(c, c->argv[j], &redirect, NULL) != C_OK) goto done;
            /* It may go away later (then the redirect is "broken"), but it
             * must exist now. */
            if (lookupClientByID((uint64_t)redirect) == NULL) {
                addReplyError(c, "The client ID you want redirect to does not exist");
                goto done;
            }
        } else if (!strcasecmp(opt, "bcast")) {
            options |= CLIENT_TRACKING_BCAST;
        } else if (!strcasecmp(opt, "optin")) {
            options |= CLIENT_TRACKING_OPTIN;
        } else if (!strcasecmp(opt, "optout")) {
            options |= CLIENT_TRACKING_OPTOUT;
        } else if (!strcasecmp(opt, "noloop")) {
            options |= CLIENT_TRACKING_NOLOOP;
        } else if (!strcasecmp(opt, "prefix") && moreargs) {
            j++;
            prefixes = zrealloc(prefixes, sizeof(robj *) * (count + 1));
            prefixes[count++] = c->argv[j];
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            goto done;
        }
    }

    if (!strcasecmp(objectGetVal(c->argv[2]), "on")) {
        if (!(options & CLIENT_TRACKING_BCAST) && count) {
            addReplyError(c, "PREFIX option requires BCAST mode to be enabled");
            goto done;
        }
        if ((c->flags & CLIENT_TRACKING) &&
            !!(c->flags & CLIENT_TRACKING_BCAST) != !!(options & CLIENT_TRACKING_BCAST)) {
            addReplyError(c, "You can't switch BCAST mode on/off before disabling tracking for this client, and "
                             "then re-enabling it with a different mode.");
            goto done;
        }
        if ((options & CLIENT_TRACKING_BCAST) && (options & (CLIENT_TRACKING_OPTIN | CLIENT_TRACKING_OPTOUT))) {
            addReplyError(c, "OPTIN and OPTOUT are not compatible with BCAST");
            goto done;
        }
        if ((options & CLIENT_TRACKING_OPTIN) && (options & CLIENT_TRACKING_OPTOUT)) {
            addReplyError(c, "You can't specify both OPTIN mode and OPTOUT mode");
            goto done;
        }
        if (((options & CLIENT_TRACKING_OPTIN) && (c->flags & CLIENT_TRACKING_OPTOUT)) ||
            ((options & CLIENT_TRACKING_OPTOUT) && (c->flags & CLIENT_TRACKING_OPTIN))) {
            addReplyError(c, "You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and "
                             "then re-enabling it with a different mode.");
            goto done;
        }
        if ((options & CLIENT_TRACKING_BCAST) && !checkPrefixCollisionsOrReply(c, prefixes, count)) goto done;
        enableTracking(c, (uint64_t)redirect, options, prefixes, count);
    } else if (!strcasecmp(objectGetVal(c->argv[2]), "off")) {
        disableTracking(c);
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
        goto done;
    }
    addReply(c, shared.ok);
done:
    zfree(prefixes);
}

/* CLIENT CACHING <YES | NO>: the next command's reads count (OPTIN) or do
 * not (OPTOUT). */
void clientCachingCommand(client *c) {
    if (!(c->flags & CLIENT_TRACKING)) {
        addReplyError(c, "CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
                         "OPTOUT mode enabled");
        return;
    }
    const char *opt = objectGetVal(c->argv[2]);
    if (!strcasecmp(opt, "yes")) {
        if (!(c->flags & CLIENT_TRACKING_OPTIN)) {
            addReplyError(c, "CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
            return;
        }
    } else if (!strcasecmp(opt, "no")) {
        if (!(c->flags & CLIENT_TRACKING_OPTOUT)) {
            addReplyError(c, "CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
            return;
        }
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    c->flags |= CLIENT_TRACKING_CACHING;
    addReply(c, shared.ok);
}

/* CLIENT GETREDIR: -1 when not tracking, 0 without a redirect. */
void clientGetredirCommand(client *c) {
    addReplyLongLong(c, (c->flags & CLIENT_TRACKING) ? (long long)c->tracking_redirect : -1);
}

/* CLIENT TRACKINGINFO: flags, redirect and prefixes of this connection. */
void clientTrackinginfoCommand(client *c) {
    static const struct {
        uint64_t flag;
        const char *name;
    } names[] = {
        {CLIENT_TRACKING_BCAST, "bcast"},   {CLIENT_TRACKING_OPTIN, "optin"},
        {CLIENT_TRACKING_OPTOUT, "optout"}, {CLIENT_TRACKING_NOLOOP, "noloop"},
    };
    addReplyMapLen(c, 3);

    addReplyBulkCString(c, "flags");
    if (!(c->flags & CLIENT_TRACKING)) {
        addReplySetLen(c, 1);
        addReplyBulkCString(c, "off");
    } else {
        const char *set[8];
        int n = 0;
        set[n++] = "on";
        for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
            if (c->flags & names[j].flag) set[n++] = names[j].name;
            /* A pending CLIENT CACHING is shown right after its mode. */
            if (names[j].flag == CLIENT_TRACKING_OPTIN && (c->flags & CLIENT_TRACKING_OPTIN) &&
                (c->flags & CLIENT_TRACKING_CACHING))
                set[n++] = "caching-yes";
            if (names[j].flag == CLIENT_TRACKING_OPTOUT && (c->flags & CLIENT_TRACKING_OPTOUT) &&
                (c->flags & CLIENT_TRACKING_CACHING))
                set[n++] = "caching-no";
        }
        if (c->flags & CLIENT_TRACKING_BROKEN_REDIR) set[n++] = "broken_redirect";
        addReplySetLen(c, n);
        for (int j = 0; j < n; j++) addReplyBulkCString(c, set[j]);
    }

    addReplyBulkCString(c, "redirect");
    addReplyLongLong(c, (c->flags & CLIENT_TRACKING) ? (long long)c->tracking_redirect : -1);

    addReplyBulkCString(c, "prefixes");
    if (c->tracking_prefixes == NULL) {
        addReplyArrayLen(c, 0);
        return;
    }
    size_t n = dictSize(c->tracking_prefixes);
    dictEntry **v = sortedEntries(c->tracking_prefixes);
    addReplyArrayLen(c, n);
    for (size_t j = 0; j < n; j++) {
        sds p = dictGetKey(v[j]);
        addReplyBulkCBuffer(c, p, sdslen(p));
    }
    zfree(v);
}
