/* db.c - the keyspace: lookups, insertion, deletion and expiry metadata of
 * keys, plus the generic key commands (DEL, EXISTS, RENAME, SCAN, ...).
 *
 * Each database has two tables of the same objects: `keys` (a kvstore.c,
 * one hashtable in standalone mode, one per hash slot for db 0 in cluster
 * mode, so that a slot's keys are counted and listed without a scan)
 * holds every value, each carrying its own key name (and its expire time,
 * when it has one) inside its allocation (object.c), so a key costs one
 * allocation plus a bucket slot; `expires` holds the values that have a
 * TTL, for active expiry and volatile eviction. Putting a value in the db
 * (dbAdd, dbOverwrite, setKey) therefore makes a new object (unless a
 * string overwrites a string in place, see dbSetValue()): dbAdd() and
 * dbOverwrite() hand the stored object back through their robj ** argument,
 * and setExpire() returns the object, which moves when it gains an expire
 * slot. All access to keys from commands goes through the lookupKey*() /
 * setKey() / dbAdd() / dbDelete() family below.
 *
 * Expiry is lazy here (a read or write of an expired key deletes it first)
 * and active in expire.c (a cron samples and deletes expired keys); each
 * deletion is propagated as DEL or UNLINK. A replica deletes nothing by
 * itself: expired keys are hidden from its clients until the primary's DEL
 * arrives (expireIfNeeded). The reply-producing key commands live at the
 * end, followed by their table. */
#include "server.h"

#include "blocked.h"
#include "cluster.h"
#include "multi.h"
#include "propagate.h"
#include "snapshot.h"
#include "tracking.h"

#include <math.h>

static int expireIfNeededWithValue(serverDb *db, robj *key, robj *val, int flags);

/* ---------------------------------------------------------------------------
 * The keyspace tables
 * ------------------------------------------------------------------------- */

static void dbKeysEntryDestructor(void *o) {
    decrRefCount(o);
}

/* Asked by a table before it grows. While a snapshot child exists the
 * table itself holds back (snapshot.c sets the resize policy); here only
 * maxmemory matters: a table that would push memory over the limit waits
 * unless it is nearly full. */
static int dbResizeAllowed(size_t moreMem, double fillRatio) {
    if (server.maxmemory == 0) return 1;
    return moreMem <= server.maxmemory || zmalloc_used_memory() + moreMem <= server.maxmemory || fillRatio > 0.85;
}

/* Keyspace: the entries are the values, their key embedded (object.c); the
 * table owns them. */
hashtableType dbKeysHashtableType = {
    .entryGetKey = objectGetKeyVoid,
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .entryDestructor = dbKeysEntryDestructor,
    .resizeAllowed = dbResizeAllowed,
};

/* Expires: the same objects (owned by the keyspace table), those with a
 * TTL. */
hashtableType dbExpiresHashtableType = {
    .entryGetKey = objectGetKeyVoid,
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .resizeAllowed = dbResizeAllowed,
};

/* The hot paths below (every GET, SET) test the keyspace's one table
 * (kvstoreOnlyTable(): standalone mode) and use it as a bare hashtable,
 * so that standalone mode pays one load and one branch for the split
 * keyspace; cluster mode's slot tables are reached out of line. */

/* dbFind() in cluster mode: the key's slot table. */
static __attribute__((noinline)) robj *dbFindInSlotTable(serverDb *db, sds key) {
    void *o;
    return kvstoreFind(db->keys, dbKeySlot(key), key, &o) ? o : NULL;
}

/* dbFind() for the lookups of this file, inline. */
static inline robj *dbFindInline(serverDb *db, sds key) {
    hashtable *ht = kvstoreOnlyTable(db->keys);
    void *o;
    if (__builtin_expect(ht == NULL, 0)) return dbFindInSlotTable(db, key);
    return hashtableFind(ht, key, &o) ? o : NULL;
}

/* kvstoreFindRefOrPosition() on key's table, inline for standalone. */
static inline void **dbFindRefOrPosition(serverDb *db, sds key, hashtablePosition *pos) {
    hashtable *ht = kvstoreOnlyTable(db->keys);
    if (__builtin_expect(ht != NULL, 1)) return hashtableFindRefOrPosition(ht, key, pos);
    return kvstoreFindRefOrPosition(db->keys, dbKeySlot(key), key, pos);
}

/* See server.h: db->keys is split by slot in cluster mode (db 0 only:
 * the other databases stay empty there), one table otherwise. */
kvstore *dbCreateKeyspace(int dbid) {
    return kvstoreCreate(&dbKeysHashtableType, server.cluster_enabled && dbid == 0 ? CLUSTER_SLOT_BITS : 0);
}

/* See server.h: dbKeyIndex()'s cluster-mode path, out of line so that
 * standalone lookups stay small enough to inline. */
int dbKeySlot(sds key) {
    return (int)keyHashSlot(key, sdslen(key));
}

/* See server.h. */
hashtable *dbRandomKeysTable(serverDb *db) {
    int idx = kvstoreFairRandomTableIndex(db->keys);
    return idx < 0 ? NULL : kvstoreGetTable(db->keys, idx);
}

/* kvstoreExpand() skip callback: the slots this node does not serve. */
static int dbExpandSkipSlot(void *privdata, int slot) {
    (void)privdata;
    return !clusterNodeIsMyself(clusterNodeBySlot(slot));
}

/* See server.h. */
void dbExpandKeyspace(serverDb *db, size_t size, int try_expand) {
    if (db->keys->bits && server.cluster)
        kvstoreExpand(db->keys, size, try_expand, dbExpandSkipSlot, NULL);
    else
        kvstoreExpand(db->keys, size, try_expand, NULL, NULL);
}

/* Returns key's value (its embedded key is key) or NULL, without any of
 * lookupKey()'s side effects (expiry, LRU, stats). */
robj *dbFind(serverDb *db, sds key) {
    return dbFindInline(db, key);
}

/* ---------------------------------------------------------------------------
 * Lookups
 * ------------------------------------------------------------------------- */

/* What lookupKey() does once the table has answered: val is key's value or
 * NULL. Deletes the key first if it is logically expired (unless
 * LOOKUP_NOEXPIRE), updates LRU/LFU (unless LOOKUP_NOTOUCH or the client set
 * CLIENT NO-TOUCH) and the hit/miss stats. Returns the value or NULL. */
static robj *lookupKeyWithValue(serverDb *db, robj *key, robj *val, int flags) {
    if (val && !(flags & LOOKUP_NOEXPIRE) && expireIfNeededWithValue(db, key, val, flags)) val = NULL;
    if (val) {
        client *c = server.current_client;
        int notouch = (flags & LOOKUP_NOTOUCH) || (c && (c->flags & CLIENT_NO_TOUCH) && c->cmd &&
                                                  c->cmd->proc != NULL && strcmp(c->cmd->name, "touch"));
        if (!notouch) updateObjectAccess(val);
        if (!(flags & (LOOKUP_NOSTATS | LOOKUP_WRITE))) server.stat_keyspace_hits++;
    } else {
        if (!(flags & (LOOKUP_NONOTIFY | LOOKUP_WRITE))) notifyKeyspaceEvent(NOTIFY_KEY_MISS, "keymiss", key, db->id);
        if (!(flags & (LOOKUP_NOSTATS | LOOKUP_WRITE))) server.stat_keyspace_misses++;
    }
    return val;
}

/* lookupKey(), forced inline into the read lookups of this file (GET's
 * path), as the compiler inlined it before the keyspace was split. */
static inline __attribute__((always_inline)) robj *lookupKeyInline(serverDb *db, robj *key, int flags) {
    return lookupKeyWithValue(db, key, dbFindInline(db, objectGetVal(key)), flags);
}

/* Low level lookup (see lookupKeyWithValue() for what happens besides the
 * table lookup). Returns the value or NULL; the reference stays owned by
 * the keyspace. */
robj *lookupKey(serverDb *db, robj *key, int flags) {
    return lookupKeyInline(db, key, flags);
}

/* lookupKeyWrite() for a command that will then set the key: pos receives
 * the key's slot (key alive) or the place where the key would be inserted
 * (key missing), so that setKeyAtPosition() need not hash the key again.
 * The position is only good until the keyspace is next touched; when the
 * lookup itself changed the table (an expired key was deleted) pos holds
 * neither and the add falls back to a fresh lookup. */
robj *lookupKeyWriteWithPosition(serverDb *db, robj *key, dbKeyPosition *pos) {
    sds name = objectGetVal(key);
    void **ref = dbFindRefOrPosition(db, name, &pos->insert);
    pos->entry = NULL;
    pos->can_insert = ref == NULL;
    robj *val = lookupKeyWithValue(db, key, ref ? *ref : NULL, LOOKUP_WRITE);
    if (val) pos->entry = ref;
    return val;
}

robj *lookupKeyReadWithFlags(serverDb *db, robj *key, int flags) {
    return lookupKeyInline(db, key, flags);
}

robj *lookupKeyRead(serverDb *db, robj *key) {
    return lookupKeyReadWithFlags(db, key, LOOKUP_NONE);
}

robj *lookupKeyWriteWithFlags(serverDb *db, robj *key, int flags) {
    return lookupKey(db, key, flags | LOOKUP_WRITE);
}

robj *lookupKeyWrite(serverDb *db, robj *key) {
    return lookupKeyWriteWithFlags(db, key, LOOKUP_NONE);
}

/* Like lookupKeyRead, but replies `reply` when the key is missing. */
robj *lookupKeyReadOrReply(client *c, robj *key, robj *reply) {
    robj *o = lookupKeyInline(c->db, key, LOOKUP_NONE);
    if (!o) addReplyOrErrorObject(c, reply);
    return o;
}

robj *lookupKeyWriteOrReply(client *c, robj *key, robj *reply) {
    robj *o = lookupKeyWrite(c->db, key);
    if (!o) addReplyOrErrorObject(c, reply);
    return o;
}

/* ---------------------------------------------------------------------------
 * Insertion and deletion
 * ------------------------------------------------------------------------- */

/* The keyspace entry for val under key: with take, val's reference is
 * taken (objectSetKeyAndExpire()), else val stays the caller's and the
 * entry gets a copy (objectCopyWithKey()). */
static robj *dbNewEntry(robj *val, sds key, int expire_slot, long long expire, int take) {
    return take ? objectSetKeyAndExpire(val, key, sdslen(key), expire_slot, expire)
                : objectCopyWithKey(val, key, sdslen(key), expire_slot, expire);
}

/* Inserts the keyspace entry for val (see dbNewEntry() for take) at pos,
 * from hashtableFindRefOrPosition() with nothing done to the table since,
 * and in expires when expire != -1. Returns the stored object. */
static robj *dbInsertAtPosition(serverDb *db, sds key, robj *val, long long expire, hashtablePosition *pos,
                                int take) {
    robj *o = dbNewEntry(val, key, expire != -1, expire, take);
    hashtable *ht = kvstoreOnlyTable(db->keys);
    if (__builtin_expect(ht != NULL, 1)) {
        hashtablePauseRehashing(ht); /* hashtableInsertAtPosition() resumes it */
        hashtableInsertAtPosition(ht, o, pos);
    } else {
        kvstoreInsertAtPosition(db->keys, dbKeySlot(key), o, pos);
    }
    if (expire != -1) {
        hashtableAdd(db->expires, o);
        expireRememberReplicaKey(db, key);
    }
    return o;
}

/* Adds key with val (see dbNewEntry() for take) and an expire time (-1:
 * none), at pos when not NULL (see dbInsertAtPosition()), and tells
 * blocked clients and keyspace events. Returns the stored object. */
static robj *dbAddGeneric(serverDb *db, robj *key, robj *val, long long expire, hashtablePosition *pos, int take) {
    hashtablePosition found;
    if (pos == NULL) {
        sds name = objectGetVal(key);
        void **ref = dbFindRefOrPosition(db, name, &found);
        serverAssert(ref == NULL);
        pos = &found;
    }
    robj *o = dbInsertAtPosition(db, objectGetVal(key), val, expire, pos, take);
    signalKeyAsReady(db, key, o->type); /* wake clients blocked on this key */
    notifyKeyspaceEvent(NOTIFY_NEW, "new", key, db->id);
    return o;
}

/* dbAdd() with an expire time (-1: none); returns the stored object. */
static robj *dbAddWithExpire(serverDb *db, robj *key, robj *val, long long expire) {
    return dbAddGeneric(db, key, val, expire, NULL, 1);
}

/* Adds key -> *valref; the key must not exist. The db takes the caller's
 * reference and stores a new object carrying the key (object.c):
 * *valref is set to it, the old pointer must not be used any more. */
void dbAdd(serverDb *db, robj *key, robj **valref) {
    *valref = dbAddWithExpire(db, key, *valref, -1);
}

/* dbAdd() at a position from lookupKeyWriteWithPosition() (pos->insert
 * with pos->can_insert), with nothing done to the keyspace in between. */
void dbAddAtPosition(serverDb *db, robj *key, robj **valref, hashtablePosition *position) {
    *valref = dbAddGeneric(db, key, *valref, -1, position, 1);
}

/* Used by the RDB loader: adds key with val (whose reference is taken) and
 * the expire time (-1: none). Returns the stored object, or NULL if the key
 * existed (val is then still the caller's). */
robj *dbAddRDBLoad(serverDb *db, sds key, robj *val, long long expire) {
    hashtablePosition pos;
    if (kvstoreFindRefOrPosition(db->keys, dbKeyIndex(db, key), key, &pos) != NULL) return NULL;
    return dbInsertAtPosition(db, key, val, expire, &pos, 1);
}

/* Replaces the value in key's slot ref with val (see dbNewEntry() for
 * take), keeping the TTL when keepttl, else dropping it. Returns the stored
 * object; the old value is released. A string over a string the keyspace
 * alone holds is written into the old entry when it fits (a short value
 * in the same size class, or a long one's bytes moved), so that entry is
 * what comes back. */
static robj *dbSetValue(serverDb *db, robj *key, void **ref, robj *val, int keepttl, int take) {
    robj *old = *ref;
    serverAssert(old != val);
    unsigned int lru = val->lru;
    int in_place = objectOverwriteEmbeddedValue(old, val); /* a short string over a short string */
    if (in_place && take) decrRefCount(val);
    else if (!in_place && take) in_place = objectTakeRawValue(old, val); /* a long one's bytes moved */
    if (in_place) {
        /* The entry stays, with its new value. */
        if (!keepttl && objectGetExpire(old) != -1) {
            hashtableDelete(db->expires, objectGetVal(key));
            objectSetExpire(old, -1);
        }
        if (!(server.maxmemory_policy & MAXMEMORY_FLAG_LFU)) old->lru = lru;
        signalDeletedKeyAsReady(db, key, OBJ_STRING);
        return old;
    }
    long long expire = objectGetExpire(old);
    if (expire != -1 && !keepttl) {
        hashtableDelete(db->expires, objectGetVal(key)); /* no destructor: old stays */
        expire = -1;
    }
    robj *o = dbNewEntry(val, objectGetVal(key), expire != -1, expire, take);
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LFU) o->lru = old->lru; /* the access history stays */
    *ref = o;
    if (expire != -1) {
        void **eref = hashtableFindRef(db->expires, objectGetVal(key));
        serverAssert(eref != NULL);
        *eref = o;
    }
    signalDeletedKeyAsReady(db, key, old->type); /* the old value is gone */
    if (server.lazyfree_lazy_server_del) freeObjAsync(key, old, db->id);
    else decrRefCount(old);
    return o;
}

/* Replaces the value of an existing key, keeping its TTL. The db takes the
 * reference of *valref and sets *valref to the stored object (a new one,
 * carrying the key); the old value is released. */
void dbOverwrite(serverDb *db, robj *key, robj **valref) {
    void **ref = dbFindRef(db, objectGetVal(key));
    serverAssert(ref != NULL);
    *valref = dbSetValue(db, key, ref, *valref, 1, 1);
}

/* What setKey() stores for the caller's val. With SETKEY_MOVE_ARG and a
 * RAW string (setKeyTakesArg()) the caller's reference is taken (*take
 * set): when it was the only one, the bytes move instead of being copied.
 * Otherwise the caller keeps its reference: a non-string value only the
 * caller holds gives its payload to the db (val is left an empty string
 * object the caller can only release, as every such caller does; *take is
 * set: the db owns the returned object), anything else is copied by the
 * keyspace (*take 0; a short string's bytes go into the entry itself,
 * and the caller's object stays reusable). */
static robj *setKeyValue(robj *val, int flags, int *take) {
    *take = 1;
    if ((flags & SETKEY_MOVE_ARG) && setKeyTakesArg(val)) return val;
    if (val->refcount == 1 && val->type != OBJ_STRING) {
        robj *moved = createObject(val->type, objectGetVal(val));
        moved->encoding = val->encoding;
        moved->lru = val->lru;
        val->type = OBJ_STRING;
        val->encoding = OBJ_ENCODING_INT;
        objectSetVal(val, NULL);
        return moved;
    }
    *take = 0;
    return val;
}

/* setKey() for a key whose lookupKeyWriteWithPosition() filled pos, with
 * nothing done to the keyspace since: adds or overwrites without hashing
 * the key again. flags and the result as for setKey(); the EXIST flags
 * are ignored. */
robj *setKeyAtPosition(client *c, serverDb *db, robj *key, robj *val, int flags, dbKeyPosition *pos) {
    int take;
    val = setKeyValue(val, flags, &take);
    robj *o = pos->entry ? dbSetValue(db, key, pos->entry, val, flags & SETKEY_KEEPTTL, take)
                         : dbAddGeneric(db, key, val, -1, pos->can_insert ? &pos->insert : NULL, take);
    if (!(flags & SETKEY_NO_SIGNAL)) signalModifiedKey(c, db, key);
    return o;
}

/* setKeyAtPosition() followed by setExpire(c, db, key, when), for SET with
 * a TTL: a new key's entry is made with its expire slot at once, without
 * the second lookup and the move to a bigger block that setExpire() needs.
 * Returns the stored object. */
robj *setKeyWithExpireAtPosition(client *c, serverDb *db, robj *key, robj *val, int flags, dbKeyPosition *pos,
                                 long long when) {
    if (pos->entry) {
        setKeyAtPosition(c, db, key, val, flags, pos);
        return setExpire(c, db, key, when);
    }
    int take;
    val = setKeyValue(val, flags, &take);
    robj *o = dbAddGeneric(db, key, val, when, pos->can_insert ? &pos->insert : NULL, take);
    if (!(flags & SETKEY_NO_SIGNAL)) signalModifiedKey(c, db, key);
    return o;
}

/* High level SET: adds or overwrites, drops the TTL unless SETKEY_KEEPTTL,
 * and signals the modification. The caller keeps its reference to val
 * (see setKeyValue() for what the db stores), except with
 * SETKEY_MOVE_ARG, for a value that is one of c->argv, when
 * setKeyTakesArg(val) said so before the call: that reference is consumed
 * (a big argument's bytes move into the keyspace instead of being copied)
 * and the caller puts the returned object in its place with
 * clientArgvReplaceObject().
 * SETKEY_ALREADY_EXIST / SETKEY_DOESNT_EXIST say the caller has just
 * looked the key up. Returns the stored object. */
robj *setKey(client *c, serverDb *db, robj *key, robj *val, int flags) {
    if (!(flags & (SETKEY_ALREADY_EXIST | SETKEY_DOESNT_EXIST))) {
        dbKeyPosition pos;
        lookupKeyWriteWithPosition(db, key, &pos);
        return setKeyAtPosition(c, db, key, val, flags, &pos);
    }
    int take;
    val = setKeyValue(val, flags, &take);
    robj *o;
    if (flags & SETKEY_DOESNT_EXIST) {
        o = dbAddGeneric(db, key, val, -1, NULL, take);
    } else {
        void **ref = dbFindRef(db, objectGetVal(key));
        serverAssert(ref != NULL);
        o = dbSetValue(db, key, ref, val, flags & SETKEY_KEEPTTL, take);
    }
    if (!(flags & SETKEY_NO_SIGNAL)) signalModifiedKey(c, db, key);
    return o;
}

/* After a setKey() with SETKEY_MOVE_ARG consumed c->argv's reference to
 * old, the arguments that were old refer to the stored object now instead
 * (a reference each), so that the reply, propagation and SLOWLOG still see
 * the value until the arguments are freed. */
void clientArgvReplaceObject(client *c, robj *old, robj *now) {
    for (int j = 0; j < c->argc; j++) {
        if (c->argv[j] != old) continue;
        c->argv[j] = now;
        incrRefCount(now);
    }
}

/* Returns 1 if the key exists (expired keys are not deleted here). */
int dbExists(serverDb *db, robj *key) {
    return dbFindInline(db, objectGetVal(key)) != NULL;
}

/* Takes key out of both tables without releasing it: returns its value
 * (with the key and expire time still inside), now the caller's, or NULL. */
static robj *dbDetach(serverDb *db, robj *key) {
    void *val;
    sds name = objectGetVal(key);
    if (!kvstorePop(db->keys, dbKeyIndex(db, name), name, &val)) return NULL;
    if (objectGetExpire(val) != -1) hashtableDelete(db->expires, objectGetVal(key));
    return val;
}

/* Deletes key and its TTL. With async, big values are freed by the lazy
 * free thread (lazyfree.c). Returns 1 if the key existed. */
int dbGenericDelete(serverDb *db, robj *key, int async, int flags) {
    (void)flags;
    /* The expires table is searched by the key the object carries: take
     * it out there first, while the object is alive and in both tables. */
    robj *val = dbDetach(db, key);
    if (val == NULL) return 0;
    signalDeletedKeyAsReady(db, key, val->type); /* wake XREADGROUP waiters */
    if (async) freeObjAsync(key, val, db->id);
    else decrRefCount(val);
    return 1;
}

int dbSyncDelete(serverDb *db, robj *key) {
    return dbGenericDelete(db, key, 0, 0);
}

int dbAsyncDelete(serverDb *db, robj *key) {
    return dbGenericDelete(db, key, 1, 0);
}

/* The server's default deletion (lazyfree-lazy-server-del decides). */
int dbDelete(serverDb *db, robj *key) {
    return dbGenericDelete(db, key, server.lazyfree_lazy_server_del, 0);
}

/* Before modifying a string value in place (APPEND, SETRANGE, SETBIT...):
 * returns a RAW, unshared version of o stored under key: o itself when it
 * is RAW already, or an integer (turned into an sds in place); otherwise a
 * new object replaces it (an embedded EMBSTR value is never converted in
 * place: the object's size is derived from its encoding). */
robj *dbUnshareStringValue(serverDb *db, robj *key, robj *o) {
    serverAssert(o->type == OBJ_STRING);
    if (o->encoding == OBJ_ENCODING_RAW && o->refcount == 1) return o;
    if (o->refcount == 1 && o->hasembkey && o->encoding == OBJ_ENCODING_INT) {
        objectSetVal(o, sdsfromlonglong((long)objectGetVal(o)));
        o->encoding = OBJ_ENCODING_RAW;
        return o;
    }
    robj *decoded = getDecodedObject(o);
    robj *n = createRawStringObject(objectGetVal(decoded), sdslen(objectGetVal(decoded)));
    decrRefCount(decoded);
    dbOverwrite(db, key, &n);
    return n;
}

/* Returns a random non-expired key name (a new object) or NULL if empty. */
robj *dbRandomKey(serverDb *db) {
    int maxtries = 100;
    int allvolatile = kvstoreSize(db->keys) == hashtableSize(db->expires);
    while (1) {
        void *entry;
        if (!kvstoreFairRandomEntry(db->keys, &entry)) return NULL;
        robj *val = entry;
        sds key = objectGetKey(val);
        robj *keyobj = createStringObject(key, sdslen(key));
        if (objectGetExpire(val) != -1) {
            if (allvolatile && --maxtries == 0) {
                /* Every key may be expired: return one anyway rather than
                 * loop forever (as a replica would have to). */
                return keyobj;
            }
            if (expireIfNeededWithValue(db, keyobj, val, 0)) {
                decrRefCount(keyobj);
                continue;
            }
        }
        return keyobj;
    }
}

/* Empties db's tables: expires first (it only borrows the objects), then
 * the keyspace, which releases them. */
static void dbEmptyTables(serverDb *db, void(callback)(hashtable *)) {
    hashtableEmpty(db->expires, callback);
    kvstoreEmpty(db->keys, callback);
}

/* Empties one db (dbnum >= 0) or all (-1). Returns the number of keys
 * removed. With EMPTYDB_ASYNC the values are freed by the lazy free thread,
 * except inside EXEC or a script, whose argv may still share values stored
 * earlier in the same transaction or script (lazyfree.c). */
long long emptyData(int dbnum, int flags, void(callback)(hashtable *)) {
    long long removed = 0;
    int start = dbnum == -1 ? 0 : dbnum;
    int end = dbnum == -1 ? server.dbnum - 1 : dbnum;
    int async = (flags & EMPTYDB_ASYNC) && !server.in_exec && !server.in_script;
    for (int j = start; j <= end; j++) {
        serverDb *db = server.db + j;
        scanDatabaseForDeletedKeys(db, NULL); /* wake XREADGROUP waiters */
        removed += kvstoreSize(db->keys);
        if (async && kvstoreSize(db->keys) > 0) {
            emptyDbAsync(db);
        } else {
            dbEmptyTables(db, callback);
        }
        db->avg_ttl = 0;
        db->expires_cursor = 0;
    }
    if (dbnum == -1) expireForgetReplicaKeys(); /* FLUSHALL, a full sync */
    return removed;
}

/* See server.h: server.dbnum empty databases numbered as the server's,
 * for a dataset loaded aside (a replica's full sync with
 * repl-diskless-load swapdb) while clients use the server's own. */
serverDb *dbCreateTempArray(void) {
    serverDb *temp = zcalloc(sizeof(serverDb) * server.dbnum);
    for (int j = 0; j < server.dbnum; j++) {
        temp[j].keys = dbCreateKeyspace(j);
        temp[j].expires = hashtableCreate(&dbExpiresHashtableType);
        temp[j].id = j;
    }
    return temp;
}

/* Releases a db's two tables (the expires one first: it borrows). */
static void dbReleaseTables(kvstore *keys, hashtable *expires) {
    hashtableRelease(expires);
    kvstoreRelease(keys);
}

/* See server.h. WATCHed keys that differ are touched, clients blocked on
 * keys of the new data are served, XREADGROUP waiters whose key went get
 * their error, as SWAPDB does; client-side caches are invalidated as
 * after a flush. The writable replica's remembered keys (expire.c) were
 * the old data's. */
void dbSwapWithTempArray(serverDb *temp) {
    for (int j = 0; j < server.dbnum; j++) {
        serverDb *live = &server.db[j], *t = &temp[j];
        touchAllWatchedKeysInDb(live, t);
        scanDatabaseForDeletedKeys(live, t);
        kvstore *keys = live->keys;
        hashtable *expires = live->expires;
        long long avg_ttl = live->avg_ttl;
        live->keys = t->keys;
        live->expires = t->expires;
        live->avg_ttl = t->avg_ttl;
        t->keys = keys;
        t->expires = expires;
        t->avg_ttl = avg_ttl;
        live->expires_cursor = t->expires_cursor = 0;
        scanDatabaseForReadyKeys(live);
    }
    trackingInvalidateKeysOnFlush(-1);
    expireForgetReplicaKeys();
}

/* See server.h. Big tables are freed by the lazy free thread. */
void dbReleaseTempArray(serverDb *temp) {
    for (int j = 0; j < server.dbnum; j++) {
        if (kvstoreSize(temp[j].keys) > LAZYFREE_THRESHOLD) emptyDbAsync(&temp[j]); /* takes the tables, leaves fresh ones */
        dbReleaseTables(temp[j].keys, temp[j].expires);
    }
    zfree(temp);
}

long long dbTotalServerKeyCount(void) {
    long long total = 0;
    for (int j = 0; j < server.dbnum; j++) total += kvstoreSize(server.db[j].keys);
    return total;
}

/* ---------------------------------------------------------------------------
 * Keys by slot (cluster mode: db 0's keys are one table per slot)
 * ------------------------------------------------------------------------- */

/* See server.h. */
size_t dbSlotKeyCount(int slot) {
    kvstore *keys = server.db[0].keys;
    return keys->bits ? kvstoreTableSize(keys, slot) : 0;
}

/* See server.h. Each deletion is one of its own, as an eviction: counted
 * dirty, notified as "del", and propagated as DEL (or UNLINK with
 * lazyfree-lazy-server-del) to replicas and the AOF at once. */
unsigned int dbDeleteKeysInSlot(int slot) {
    serverDb *db = &server.db[0];
    if (!db->keys->bits || kvstoreTableSize(db->keys, slot) == 0) return 0;
    int lazy = server.lazyfree_lazy_server_del;
    unsigned int deleted = 0;
    kvstoreIterator iter;
    kvstoreIteratorInit(&iter, db->keys, slot, HASHTABLE_ITER_SAFE);
    void *entry;
    while (kvstoreIteratorNext(&iter, &entry)) {
        sds key = objectGetKey(entry);
        robj *keyobj = createStringObject(key, sdslen(key)); /* key dies with the entry */
        dbGenericDelete(db, keyobj, lazy, 0);
        propagateDeletion(db, keyobj, lazy);
        signalModifiedKey(NULL, db, keyobj);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", keyobj, db->id);
        decrRefCount(keyobj);
        server.dirty++;
        deleted++;
    }
    kvstoreIteratorReset(&iter);
    return deleted;
}

/* Sets c's current db. Returns C_ERR if id is out of range. */
int selectDb(client *c, int id) {
    if (id < 0 || id >= server.dbnum) return C_ERR;
    c->db = &server.db[id];
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * Hooks called on every modification. Every command that changes a key
 * calls signalModifiedKey(); a flush calls signalFlushedDb(); every event
 * calls notifyKeyspaceEvent() (notify.c). WATCH (multi.c) and client-side
 * caching (tracking.c) are told here.
 * ------------------------------------------------------------------------- */

/* key in db was changed (written, deleted, expired, evicted): clients
 * WATCHing it will see their EXEC fail, clients caching it are told to
 * drop it. c is the writer, or NULL. */
void signalModifiedKey(client *c, serverDb *db, robj *key) {
    touchWatchedKey(db, key);
    trackingInvalidateKey(c, key, 1);
}

/* Database dbid (-1: all) is about to be emptied. */
void signalFlushedDb(int dbid, int async) {
    (void)async;
    int start = dbid == -1 ? 0 : dbid, end = dbid == -1 ? server.dbnum - 1 : dbid;
    for (int j = start; j <= end; j++) touchAllWatchedKeysInDb(&server.db[j], NULL);
    trackingInvalidateKeysOnFlush(dbid);
}

/* ---------------------------------------------------------------------------
 * Expiry metadata and lazy expiry
 * ------------------------------------------------------------------------- */

/* Returns the expire time (unix ms) of key, or -1 if it has none. */
long long getExpire(serverDb *db, robj *key) {
    if (hashtableSize(db->expires) == 0) return -1;
    robj *val = dbFind(db, objectGetVal(key));
    return val ? objectGetExpire(val) : -1;
}

/* Sets the expire time of an existing key (unix ms). Returns the key's
 * value, which may have moved (a value without an expire slot is
 * reallocated with one): a caller holding the value must use the returned
 * pointer. */
robj *setExpire(client *c, serverDb *db, robj *key, long long when) {
    (void)c;
    void **ref = dbFindRef(db, objectGetVal(key));
    serverAssert(ref != NULL);
    robj *o = *ref;
    int had_ttl = objectGetExpire(o) != -1;
    robj *n = objectSetExpire(o, when); /* o is gone if n != o */
    *ref = n;
    if (!had_ttl) hashtableAdd(db->expires, n); /* (n != o only when o had no TTL) */
    expireRememberReplicaKey(db, objectGetKey(n));
    return n;
}

/* Removes the TTL; returns 1 if there was one. The value keeps its expire
 * slot (set to -1), so a TTL set again later does not move it. */
int removeExpire(serverDb *db, robj *key) {
    void *val;
    if (hashtableSize(db->expires) == 0 || !hashtablePop(db->expires, objectGetVal(key), &val)) return 0;
    objectSetExpire(val, -1);
    return 1;
}

/* 1 if val (key's value) has a TTL in the past. */
static int valueIsExpired(robj *val) {
    long long when = objectGetExpire(val);
    return when >= 0 && when <= commandTimeSnapshot();
}

/* Returns 1 if key has a TTL in the past. */
int keyIsExpired(serverDb *db, robj *key) {
    long long when = getExpire(db, key);
    if (when < 0) return 0;
    return when <= commandTimeSnapshot();
}

/* Deletes an expired key, counting and notifying it. */
void deleteExpiredKeyAndPropagate(serverDb *db, robj *keyobj) {
    /* A static key object may borrow the keyspace's own sds (SCAN walks
     * the table that way), which dies with the key: the event and the
     * propagated DEL need a copy. */
    robj *copy = NULL;
    if (keyobj->refcount == OBJ_STATIC_REFCOUNT) keyobj = copy = createStringObject(objectGetVal(keyobj), sdslen(objectGetVal(keyobj)));
    int lazy = server.lazyfree_lazy_expire;
    dbGenericDelete(db, keyobj, lazy, 0);
    notifyKeyspaceEvent(NOTIFY_EXPIRED, "expired", keyobj, db->id);
    signalModifiedKey(NULL, db, keyobj);
    propagateDeletion(db, keyobj, lazy);
    server.stat_expiredkeys++;
    if (copy) decrRefCount(copy);
}

/* expireIfNeeded() for key whose value val the caller has found. */
static int expireIfNeededWithValue(serverDb *db, robj *key, robj *val, int flags) {
    if (!valueIsExpired(val)) return 0;
    if (server.primary_host != NULL) {
        if (server.current_client && (server.current_client->flags & CLIENT_PRIMARY)) return 0;
        /* A writable replica's own write deletes it, as Valkey's does. */
        if (!(flags & LOOKUP_WRITE) || server.repl_replica_ro) return 1;
    }
    if (flags & LOOKUP_NOEXPIRE) return 1;
    /* During a pause the dataset must not change: expired keys stay. */
    if (isPausedActions()) return 1;
    deleteExpiredKeyAndPropagate(db, key);
    return 1;
}

/* If key is expired, deletes it (unless LOOKUP_NOEXPIRE or a pause holds
 * writes) and returns 1; returns 0 if the key is alive or missing.
 *
 * A replica never deletes a key by itself: it keeps the key until the DEL
 * of its primary arrives, so both sides stay identical. Its clients see a
 * logically expired key as missing (1, not deleted); the primary's own
 * client sees the key as it is (0), as the primary did when it sent the
 * command. On a writable replica (replica-read-only no) a write lookup
 * still deletes the key. */
int expireIfNeeded(serverDb *db, robj *key, int flags) {
    if (hashtableSize(db->expires) == 0) return 0;
    robj *val = dbFind(db, objectGetVal(key));
    return val ? expireIfNeededWithValue(db, key, val, flags) : 0;
}

/* ---------------------------------------------------------------------------
 * Generic key commands
 * ------------------------------------------------------------------------- */

static void delGenericCommand(client *c, int lazy) {
    long long numdel = 0;
    for (int j = 1; j < c->argc; j++) {
        expireIfNeeded(c->db, c->argv[j], 0);
        if (dbGenericDelete(c->db, c->argv[j], lazy, 0)) {
            signalModifiedKey(c, c->db, c->argv[j]);
            notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[j], c->db->id);
            server.dirty++;
            numdel++;
        }
    }
    addReplyLongLong(c, numdel);
}

void delCommand(client *c) {
    delGenericCommand(c, server.lazyfree_lazy_user_del);
}

void unlinkCommand(client *c) {
    delGenericCommand(c, 1);
}

void existsCommand(client *c) {
    long long count = 0;
    for (int j = 1; j < c->argc; j++)
        if (lookupKeyReadWithFlags(c->db, c->argv[j], LOOKUP_NOTOUCH)) count++;
    addReplyLongLong(c, count);
}

void selectCommand(client *c) {
    int id;
    if (getIntFromObjectOrReply(c, c->argv[1], &id, NULL) != C_OK) return;
    if (server.cluster_enabled && id != 0) {
        addReplyError(c, "SELECT is not allowed in cluster mode");
        return;
    }
    if (selectDb(c, id) == C_ERR) {
        addReplyError(c, "DB index is out of range");
    } else {
        addReply(c, shared.ok);
    }
}

void randomkeyCommand(client *c) {
    robj *key = dbRandomKey(c->db);
    if (key == NULL) {
        addReplyNull(c);
        return;
    }
    addReplyBulk(c, key);
    decrRefCount(key);
}

/* The one table of db->keys that can hold keys matching pattern, or -1:
 * in cluster mode a pattern whose hash tag is literal ("{user1}:*")
 * matches keys of one slot only. */
static int dbPatternTableIndex(serverDb *db, sds pattern) {
    if (!db->keys->bits) return -1;
    return patternHashSlot(pattern, sdslen(pattern));
}

void keysCommand(client *c) {
    sds pattern = objectGetVal(c->argv[1]);
    int plen = sdslen(pattern), allkeys = (pattern[0] == '*' && plen == 1);
    unsigned long numkeys = 0;
    void *replylen = addReplyDeferredLen(c);
    kvstoreIterator iter;
    kvstoreIteratorInit(&iter, c->db->keys, allkeys ? -1 : dbPatternTableIndex(c->db, pattern), HASHTABLE_ITER_SAFE);
    void *entry;
    while (kvstoreIteratorNext(&iter, &entry)) {
        robj *val = entry;
        sds key = objectGetKey(val);
        if ((allkeys || stringmatchlen(pattern, plen, key, sdslen(key), 0)) && !valueIsExpired(val)) {
            addReplyBulkCBuffer(c, key, sdslen(key));
            numkeys++;
        }
    }
    kvstoreIteratorReset(&iter);
    setDeferredArrayLen(c, replylen, numkeys);
}

/* Parses a SCAN cursor: an unsigned 64-bit decimal. */
int parseScanCursorOrReply(client *c, robj *o, unsigned long *cursor) {
    unsigned long long v;
    if (!string2ull(objectGetVal(o), sdslen(objectGetVal(o)), &v)) {
        addReplyError(c, "invalid cursor");
        return C_ERR;
    }
    *cursor = v;
    return C_OK;
}

typedef struct {
    list *keys;
    int with_values; /* HSCAN of a hashtable: collect field, value pairs. */
    int zset;        /* ZSCAN of a skiplist: copy members, print scores (values are double *). */
} scanData;

/* SCAN of the keyspace: key names are borrowed from their values. */
static void scanKeyCallback(void *privdata, void *val) {
    scanData *data = privdata;
    listAddNodeTail(data->keys, objectGetKey(val));
}

/* SSCAN of a hashtable-encoded set: members are borrowed, like keys. */
static void scanSetMemberCallback(void *privdata, void *member) {
    scanData *data = privdata;
    listAddNodeTail(data->keys, member);
}

static void scanCallback(void *privdata, const dictEntry *de) {
    scanData *data = privdata;
    sds key = dictGetKey(de);
    if (data->zset) {
        listAddNodeTail(data->keys, sdsdup(key));
        if (data->with_values) {
            char buf[MAX_D2STRING_CHARS];
            int len = d2string(buf, sizeof(buf), *(double *)dictGetVal(de));
            listAddNodeTail(data->keys, sdsnewlen(buf, len));
        }
        return;
    }
    listAddNodeTail(data->keys, key);
    if (data->with_values) listAddNodeTail(data->keys, dictGetVal(de));
}

static int objectTypeByName(const char *name) {
    static const char *names[] = {"string", "list", "set", "zset", "hash", NULL, "stream"};
    for (int j = 0; j < OBJ_TYPE_MAX; j++)
        if (names[j] && !strcasecmp(name, names[j])) return j;
    return -1;
}

/* SCAN over the keyspace (o == NULL), or SSCAN/HSCAN over the set or hash o
 * (already looked up and type-checked by the caller). A hashtable-encoded
 * value is scanned like the keyspace; a compact one (intset, listpack) is
 * returned whole with cursor 0. HSCAN replies field, value pairs unless
 * NOVALUES; MATCH filters on the member/field. SCAN's TYPE filters on the
 * value type (an unknown type name is an error, as in Valkey 8). */
void scanGenericCommand(client *c, robj *o, unsigned long cursor) {
    long count = 10;
    sds pat = NULL;
    int patlen = 0, use_pattern = 0;
    int typefilter = -1;
    const char *typename = NULL;
    int novalues = 0;
    int i = o == NULL ? 2 : 3;

    for (; i < c->argc; i += 2) {
        if (o && ((o->type == OBJ_HASH && !strcasecmp(objectGetVal(c->argv[i]), "novalues")) ||
                  (o->type == OBJ_ZSET && !strcasecmp(objectGetVal(c->argv[i]), "noscores")))) {
            novalues = 1;
            i--; /* A flag without argument. */
            continue;
        }
        if (i + 1 >= c->argc) {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
        if (!strcasecmp(objectGetVal(c->argv[i]), "count")) {
            if (getLongFromObjectOrReply(c, c->argv[i + 1], &count, NULL) != C_OK) return;
            if (count < 1) {
                addReplyErrorObject(c, shared.syntaxerr);
                return;
            }
        } else if (!strcasecmp(objectGetVal(c->argv[i]), "match")) {
            pat = objectGetVal(c->argv[i + 1]);
            patlen = sdslen(pat);
            use_pattern = !(patlen == 1 && pat[0] == '*');
        } else if (!strcasecmp(objectGetVal(c->argv[i]), "type") && o == NULL) {
            typename = objectGetVal(c->argv[i + 1]);
            typefilter = objectTypeByName(typename);
            if (typefilter == -1) {
                addReplyErrorFormat(c, "unknown type name '%s'", typename);
                return;
            }
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }

    int pairs = o && (o->type == OBJ_HASH || o->type == OBJ_ZSET) && !novalues; /* field, value, ... */
    int zskiplist = o && o->type == OBJ_ZSET && o->encoding == OBJ_ENCODING_SKIPLIST;
    scanData data = {.keys = listCreate(), .with_values = pairs, .zset = zskiplist};
    long maxiterations = count > LONG_MAX / 10 ? LONG_MAX : count * 10; /* COUNT may be LONG_MAX */
    if (zskiplist) listSetFreeMethod(data.keys, (void (*)(void *))sdsfree); /* scanCallback copies */
    if (o && o->type == OBJ_HASH && o->encoding == OBJ_ENCODING_HT) {
        listSetFreeMethod(data.keys, (void (*)(void *))sdsfree); /* hashTypeScan() copies */
        do {
            cursor = hashTypeScan(o, cursor, data.keys, pairs);
        } while (cursor && maxiterations-- && listLength(data.keys) < (unsigned long)count * (pairs ? 2 : 1));
    } else if (o && o->encoding != OBJ_ENCODING_HT && !zskiplist) {
        listSetFreeMethod(data.keys, (void (*)(void *))sdsfree); /* Copies, not borrowed. */
        if (o->type == OBJ_SET) setTypeCollectAll(o, data.keys);
        else if (o->type == OBJ_ZSET) zsetTypeCollectAll(o, data.keys, pairs);
        else hashTypeCollectAll(o, data.keys, pairs);
        cursor = 0;
    } else if (o == NULL) {
        /* In cluster mode the cursor carries the slot (kvstore.h); a MATCH
         * pattern with a literal hash tag only walks its slot. */
        int only = use_pattern ? dbPatternTableIndex(c->db, pat) : -1;
        do {
            cursor = kvstoreScan(c->db->keys, cursor, only, scanKeyCallback, &data);
        } while (cursor && maxiterations-- && listLength(data.keys) < (unsigned long)count);
    } else if (o->type == OBJ_SET) {
        do {
            cursor = hashtableScan(objectGetVal(o), cursor, scanSetMemberCallback, &data);
        } while (cursor && maxiterations-- && listLength(data.keys) < (unsigned long)count);
    } else {
        dict *d = zskiplist ? zsetTypeDict(o) : objectGetVal(o);
        do {
            cursor = dictScan(d, cursor, scanCallback, &data);
        } while (cursor && maxiterations-- && listLength(data.keys) < (unsigned long)count * (pairs ? 2 : 1));
    }

    addReplyArrayLen(c, 2);
    addReplyBulkLongLong(c, cursor);
    void *lenp = addReplyDeferredLen(c);
    long returned = 0;
    listIter li;
    listNode *ln;
    listRewind(data.keys, &li);
    robj keyobj = {.type = OBJ_STRING, .encoding = OBJ_ENCODING_RAW, .refcount = OBJ_STATIC_REFCOUNT};
    while ((ln = listNext(&li))) {
        sds key = listNodeValue(ln);
        objectSetVal(&keyobj, key);
        if (o) {
            sds val = pairs ? listNodeValue(listNext(&li)) : NULL;
            if (use_pattern && !stringmatchlen(pat, patlen, key, sdslen(key), 0)) continue;
            addReplyBulkCBuffer(c, key, sdslen(key));
            if (val) addReplyBulkCBuffer(c, val, sdslen(val));
            returned += val ? 2 : 1;
            continue;
        }
        if (use_pattern && !stringmatchlen(pat, patlen, key, sdslen(key), 0)) continue;
        /* TYPE filters before expiry: a key of another type is skipped
         * untouched, even if it is logically expired. */
        if (typename) {
            robj *val = dbFind(c->db, key);
            if (val == NULL || (int)val->type != typefilter) continue;
        }
        if (expireIfNeeded(c->db, &keyobj, 0)) continue;
        addReplyBulkCBuffer(c, key, sdslen(key));
        returned++;
    }
    setDeferredArrayLen(c, lenp, returned);
    listRelease(data.keys);
}

void scanCommand(client *c) {
    unsigned long cursor;
    if (parseScanCursorOrReply(c, c->argv[1], &cursor) == C_ERR) return;
    scanGenericCommand(c, NULL, cursor);
}

void dbsizeCommand(client *c) {
    addReplyLongLong(c, kvstoreSize(c->db->keys));
}

void typeCommand(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[1], LOOKUP_NOTOUCH);
    addReplyStatus(c, getObjectTypeName(o));
}

void touchCommand(client *c) {
    long long touched = 0;
    for (int j = 1; j < c->argc; j++)
        if (lookupKeyRead(c->db, c->argv[j]) != NULL) touched++;
    addReplyLongLong(c, touched);
}

/* Parses FLUSHDB/FLUSHALL's optional ASYNC|SYNC. */
int getFlushCommandFlags(client *c, int *flags) {
    if (c->argc == 2) {
        if (!strcasecmp(objectGetVal(c->argv[1]), "sync")) {
            *flags = EMPTYDB_NO_FLAGS;
        } else if (!strcasecmp(objectGetVal(c->argv[1]), "async")) {
            *flags = EMPTYDB_ASYNC;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    } else if (c->argc == 1) {
        *flags = server.lazyfree_lazy_user_flush ? EMPTYDB_ASYNC : EMPTYDB_NO_FLAGS;
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    return C_OK;
}

void flushdbCommand(client *c) {
    int flags;
    if (getFlushCommandFlags(c, &flags) == C_ERR) return;
    signalFlushedDb(c->db->id, flags & EMPTYDB_ASYNC);
    server.dirty += emptyData(c->db->id, flags, NULL);
    forceCommandPropagation(c); /* even when the database was empty */
    addReply(c, shared.ok);
}

/* FLUSHALL's work: empties every database, then lets the snapshot
 * subsystem stop a running BGSAVE and, with save points configured, save
 * the empty dataset. */
void flushAllDataAndResetRDB(int flags) {
    signalFlushedDb(-1, flags & EMPTYDB_ASYNC);
    server.dirty += emptyData(-1, flags, NULL);
    server.dirty++;
    snapshotAfterFlushAll();
}

void flushallCommand(client *c) {
    int flags;
    if (getFlushCommandFlags(c, &flags) == C_ERR) return;
    flushAllDataAndResetRDB(flags);
    forceCommandPropagation(c); /* even when empty, or saved (dirty 0) */
    addReply(c, shared.ok);
}

static void renameGenericCommand(client *c, int nx) {
    int samekey = sdscmp(objectGetVal(c->argv[1]), objectGetVal(c->argv[2])) == 0;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.nokeyerr);
    if (o == NULL) return;
    if (samekey) {
        addReply(c, nx ? shared.czero : shared.ok);
        return;
    }
    if (lookupKeyWrite(c->db, c->argv[2]) != NULL) {
        if (nx) {
            addReply(c, shared.czero);
            return;
        }
        dbDelete(c->db, c->argv[2]);
    }
    /* The value moves to its new name: taken out under the old one (no
     * free), then stored under the new one with the same TTL. */
    o = dbDetach(c->db, c->argv[1]);
    long long expire = objectGetExpire(o);
    signalDeletedKeyAsReady(c->db, c->argv[1], o->type);
    dbAddWithExpire(c->db, c->argv[2], o, expire);
    signalModifiedKey(c, c->db, c->argv[1]);
    signalModifiedKey(c, c->db, c->argv[2]);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "rename_from", c->argv[1], c->db->id);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "rename_to", c->argv[2], c->db->id);
    server.dirty++;
    addReply(c, nx ? shared.cone : shared.ok);
}

void renameCommand(client *c) {
    renameGenericCommand(c, 0);
}

void renamenxCommand(client *c) {
    renameGenericCommand(c, 1);
}

void moveCommand(client *c) {
    int dbid;
    if (server.cluster_enabled) {
        addReplyError(c, "MOVE is not allowed in cluster mode");
        return;
    }
    if (getIntFromObjectOrReply(c, c->argv[2], &dbid, NULL) != C_OK) return;
    serverDb *src = c->db;
    if (dbid < 0 || dbid >= server.dbnum) {
        addReplyError(c, "DB index is out of range");
        return;
    }
    serverDb *dst = &server.db[dbid];
    if (src == dst) {
        addReplyErrorObject(c, shared.sameobjecterr);
        return;
    }
    robj *o = lookupKeyWrite(src, c->argv[1]);
    if (!o) {
        addReply(c, shared.czero);
        return;
    }
    if (lookupKeyWrite(dst, c->argv[1]) != NULL) {
        addReply(c, shared.czero);
        return;
    }
    o = dbDetach(src, c->argv[1]);
    long long expire = objectGetExpire(o);
    signalDeletedKeyAsReady(src, c->argv[1], o->type);
    dbAddWithExpire(dst, c->argv[1], o, expire);
    signalModifiedKey(c, src, c->argv[1]);
    signalModifiedKey(c, dst, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "move_from", c->argv[1], src->id);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "move_to", c->argv[1], dst->id);
    server.dirty++;
    addReply(c, shared.cone);
}

/* Returns a deep copy of a value for COPY. Strings are handled here; other
 * types register a dup method in objectMethods[]. */
static robj *dupValue(robj *o) {
    if (o->type == OBJ_STRING) return dupStringObject(o);
    if (objectMethods[o->type].dup) return objectMethods[o->type].dup(o);
    return NULL;
}

void copyCommand(client *c) {
    serverDb *src = c->db, *dst = c->db;
    int replace = 0;
    for (int j = 3; j < c->argc; j++) {
        int additional = c->argc - j - 1;
        if (!strcasecmp(objectGetVal(c->argv[j]), "replace")) {
            replace = 1;
        } else if (!strcasecmp(objectGetVal(c->argv[j]), "db") && additional >= 1) {
            int dbid;
            if (getIntFromObjectOrReply(c, c->argv[j + 1], &dbid, NULL) != C_OK) return;
            if (dbid < 0 || dbid >= server.dbnum) {
                addReplyError(c, "DB index is out of range");
                return;
            }
            dst = &server.db[dbid];
            j++;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (server.cluster_enabled && src != dst) {
        addReplyError(c, "Copying to another database is not allowed in cluster mode");
        return;
    }
    if (src == dst && sdscmp(objectGetVal(c->argv[1]), objectGetVal(c->argv[2])) == 0) {
        addReplyErrorObject(c, shared.sameobjecterr);
        return;
    }
    robj *o = lookupKeyRead(src, c->argv[1]);
    if (!o) {
        addReply(c, shared.czero);
        return;
    }
    long long expire = getExpire(src, c->argv[1]);
    int dst_exists = lookupKeyWrite(dst, c->argv[2]) != NULL;
    if (dst_exists && !replace) {
        addReply(c, shared.czero);
        return;
    }
    /* Copy first: a failure must leave the destination untouched. */
    robj *copy = dupValue(o);
    if (copy == NULL) {
        addReplyError(c, "Copying this type of value is not supported yet");
        return;
    }
    if (dst_exists) dbDelete(dst, c->argv[2]);
    dbAddWithExpire(dst, c->argv[2], copy, expire);
    signalModifiedKey(c, dst, c->argv[2]);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "copy_to", c->argv[2], dst->id);
    server.dirty++;
    addReply(c, shared.cone);
}

void swapdbCommand(client *c) {
    int id1, id2;
    if (server.cluster_enabled) {
        addReplyError(c, "SWAPDB is not allowed in cluster mode");
        return;
    }
    if (getIntFromObjectOrReply(c, c->argv[1], &id1, "invalid first DB index") != C_OK) return;
    if (getIntFromObjectOrReply(c, c->argv[2], &id2, "invalid second DB index") != C_OK) return;
    if (id1 < 0 || id1 >= server.dbnum || id2 < 0 || id2 >= server.dbnum) {
        addReplyError(c, "DB index is out of range");
        return;
    }
    if (id1 != id2) {
        serverDb *a = &server.db[id1], *b = &server.db[id2];
        /* Watchers stay with the db index: compare old and new contents. */
        touchAllWatchedKeysInDb(a, b);
        touchAllWatchedKeysInDb(b, a);
        scanDatabaseForDeletedKeys(a, b); /* XREADGROUP waiters whose key goes */
        scanDatabaseForDeletedKeys(b, a);
        kvstore *d = a->keys;
        hashtable *e = a->expires;
        long long avg = a->avg_ttl;
        a->keys = b->keys;
        a->expires = b->expires;
        a->avg_ttl = b->avg_ttl;
        b->keys = d;
        b->expires = e;
        b->avg_ttl = avg;
        a->expires_cursor = b->expires_cursor = 0;
        scanDatabaseForReadyKeys(a); /* blocked clients stay with the db index */
        scanDatabaseForReadyKeys(b);
        server.dirty++;
    }
    addReply(c, shared.ok);
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

extern struct serverCommand objectSubcommands[];
extern struct serverCommand memorySubcommands[];

struct serverCommand keyspaceCommands[] = {
    {.name = "del", .proc = delCommand, .arity = -2, .flags = CMD_WRITE, .acl_categories = ACL_CATEGORY_KEYSPACE,
     .key = {1, -1, 1}, .group = "generic", .since = "1.0.0", .summary = "Deletes one or more keys.",
     .complexity = "O(N) where N is the number of keys that will be removed.",
     .args = "key [key ...]"},
    {.name = "unlink", .proc = unlinkCommand, .arity = -2, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .key = {1, -1, 1}, .group = "generic", .since = "4.0.0",
     .summary = "Asynchronously deletes one or more keys.", .complexity = "O(1) for each key removed.",
     .args = "key [key ...]"},
    {.name = "exists", .proc = existsCommand, .arity = -2, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .key = {1, -1, 1}, .group = "generic", .since = "1.0.0",
     .summary = "Determines whether one or more keys exist.", .complexity = "O(N) where N is the number of keys.",
     .args = "key [key ...]"},
    {.name = "type", .proc = typeCommand, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .key = {1, 1, 1}, .group = "generic", .since = "1.0.0",
     .summary = "Determines the type of value stored at a key.", .complexity = "O(1)",
     .args = "key"},
    {.name = "rename", .proc = renameCommand, .arity = 3, .flags = CMD_WRITE, .acl_categories = ACL_CATEGORY_KEYSPACE,
     .key = {1, 2, 1}, .group = "generic", .since = "1.0.0", .summary = "Renames a key and overwrites the destination.",
     .complexity = "O(1)",
     .args = "key newkey"},
    {.name = "renamenx", .proc = renamenxCommand, .arity = 3, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .key = {1, 2, 1}, .group = "generic", .since = "1.0.0",
     .summary = "Renames a key only when the target key name doesn't exist.", .complexity = "O(1)",
     .args = "key newkey"},
    {.name = "keys", .proc = keysCommand, .arity = 2, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_KEYSPACE | ACL_CATEGORY_DANGEROUS, .group = "generic", .since = "1.0.0",
     .summary = "Returns all key names that match a pattern.", .complexity = "O(N)",
     .args = "pattern"},
    {.name = "scan", .proc = scanCommand, .arity = -2, .flags = CMD_READONLY | CMD_TOUCHES_ARBITRARY_KEYS,
     .acl_categories = ACL_CATEGORY_KEYSPACE,
     .group = "generic", .since = "2.8.0", .summary = "Iterates over the key names in the database.",
     .complexity = "O(1) for every call. O(N) for a complete iteration.",
     .args = "cursor [MATCH pattern] [COUNT count] [TYPE type]"},
    {.name = "randomkey", .proc = randomkeyCommand, .arity = 1, .flags = CMD_READONLY | CMD_TOUCHES_ARBITRARY_KEYS,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .group = "generic", .since = "1.0.0",
     .summary = "Returns a random key name from the database.", .complexity = "O(1)"},
    {.name = "touch", .proc = touchCommand, .arity = -2, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .key = {1, -1, 1}, .group = "generic", .since = "3.2.1",
     .summary = "Returns the number of existing keys out of those specified after updating the time they were last "
                "accessed.",
     .complexity = "O(N) where N is the number of keys that will be touched.",
     .args = "key [key ...]"},
    {.name = "dbsize", .proc = dbsizeCommand, .arity = 1, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .group = "server", .since = "1.0.0",
     .summary = "Returns the number of keys in the database.", .complexity = "O(1)"},
    {.name = "select", .proc = selectCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "connection", .since = "1.0.0",
     .summary = "Changes the selected database.", .complexity = "O(1)",
     .args = "index"},
    {.name = "swapdb", .proc = swapdbCommand, .arity = 3, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE | ACL_CATEGORY_DANGEROUS, .group = "server", .since = "4.0.0",
     .summary = "Swaps two databases.", .complexity = "O(N) where N is the count of clients watching or blocking "
                                                        "on keys from both databases.",
     .args = "index1:integer index2:integer"},
    {.name = "move", .proc = moveCommand, .arity = 3, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .key = {1, 1, 1}, .group = "generic", .since = "1.0.0",
     .summary = "Moves a key to another database.", .complexity = "O(1)",
     .args = "key db"},
    {.name = "copy", .proc = copyCommand, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .key = {1, 2, 1}, .group = "generic", .since = "6.2.0",
     .summary = "Copies the value of a key to a new key.",
     .complexity = "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.",
     .args = "source destination [DB destination-db:integer] [REPLACE]"},
    {.name = "flushdb", .proc = flushdbCommand, .arity = -1, .flags = CMD_WRITE,
     .acl_categories = ACL_CATEGORY_KEYSPACE | ACL_CATEGORY_DANGEROUS, .group = "server", .since = "1.0.0",
     .summary = "Removes all keys from the current database.",
     .complexity = "O(N) where N is the number of keys in the selected database",
     .args = "[flush-type=[ASYNC | SYNC]]"},
    {.name = "flushall", .proc = flushallCommand, .arity = -1, .flags = CMD_WRITE,
     .acl_categories = ACL_CATEGORY_KEYSPACE | ACL_CATEGORY_DANGEROUS, .group = "server", .since = "1.0.0",
     .summary = "Removes all keys from all databases.",
     .complexity = "O(N) where N is the total number of keys in all databases",
     .args = "[flush-type=[ASYNC | SYNC]]"},
    {.name = "object", .subcommands = objectSubcommands, .arity = -2, .group = "generic", .since = "2.2.3",
     .summary = "A container for object introspection commands.", .complexity = "Depends on subcommand."},
    {.name = "memory", .subcommands = memorySubcommands, .arity = -2, .group = "server", .since = "4.0.0",
     .summary = "A container for memory diagnostics commands.", .complexity = "Depends on subcommand."},
    {0},
};
