/* db.c - the keyspace: lookups, insertion, deletion and expiry metadata of
 * keys, plus the generic key commands (DEL, EXISTS, RENAME, SCAN, ...).
 *
 * Each database has two dictionaries: `dict` maps key (sds) to value (robj)
 * and `expires` maps the same key sds (shared, not copied: the expires dict
 * has no key destructor) to the expiry time in unix milliseconds. All access
 * to keys from commands goes through the lookupKey*() / setKey() / dbAdd()
 * / dbDelete() family below, so the representation of the keyspace can
 * change without touching any command.
 *
 * Expiry is lazy here (a read or write of an expired key deletes it first)
 * and active in expire.c (a cron samples and deletes expired keys); each
 * deletion is propagated as DEL or UNLINK. A replica deletes nothing by
 * itself: expired keys are hidden from its clients until the primary's DEL
 * arrives (expireIfNeeded). The reply-producing key commands live at the
 * end, followed by their table. */
#include "server.h"

#include "blocked.h"
#include "multi.h"
#include "propagate.h"
#include "snapshot.h"
#include "tracking.h"

#include <math.h>

/* ---------------------------------------------------------------------------
 * Lookups
 * ------------------------------------------------------------------------- */

/* What lookupKey() does once the dict has answered: de is key's entry or
 * NULL. Deletes the key first if it is logically expired (unless
 * LOOKUP_NOEXPIRE), updates LRU/LFU (unless LOOKUP_NOTOUCH or the client set
 * CLIENT NO-TOUCH) and the hit/miss stats. Returns the value or NULL. */
static robj *lookupKeyInEntry(serverDb *db, robj *key, dictEntry *de, int flags) {
    robj *val = NULL;
    if (de) {
        val = dictGetVal(de);
        if (!(flags & LOOKUP_NOEXPIRE) && expireIfNeeded(db, key, flags)) val = NULL;
    }
    if (val) {
        client *c = server.current_client;
        int notouch = (flags & LOOKUP_NOTOUCH) || (c && (c->flags & CLIENT_NO_TOUCH) && c->cmd &&
                                                  c->cmd->proc != NULL && strcmp(c->cmd->name, "touch"));
        /* A shared integer stored before an LRU/LFU policy was chosen gets
         * its own copy at its first access, to carry its own access clock
         * (not while a child shares the pages). */
        if (!notouch && val->refcount == OBJ_SHARED_REFCOUNT && val->type == OBJ_STRING &&
            !sharedIntegersUsable() && !hasActiveChildProcess()) {
            val = dupStringObject(val);
            dictSetVal(db->dict, de, val);
        }
        if (!notouch) updateObjectAccess(val);
        if (!(flags & (LOOKUP_NOSTATS | LOOKUP_WRITE))) server.stat_keyspace_hits++;
    } else {
        if (!(flags & (LOOKUP_NONOTIFY | LOOKUP_WRITE))) notifyKeyspaceEvent(NOTIFY_KEY_MISS, "keymiss", key, db->id);
        if (!(flags & (LOOKUP_NOSTATS | LOOKUP_WRITE))) server.stat_keyspace_misses++;
    }
    return val;
}

/* Low level lookup (see lookupKeyInEntry() for what happens besides the
 * dict lookup). Returns the value or NULL; the reference stays owned by the
 * keyspace. */
robj *lookupKey(serverDb *db, robj *key, int flags) {
    return lookupKeyInEntry(db, key, dictFind(db->dict, key->ptr), flags);
}

/* lookupKeyWrite() for a command that will then set the key: pos receives
 * the key's entry (key alive) or the place where the key would be inserted
 * (key missing), so that setKeyAtPosition() / dbAddAtPosition() need not
 * hash the key again. The position is only good until the keyspace is next
 * touched; when the lookup itself changed the dict (an expired key was
 * deleted) pos holds neither and the add falls back to a fresh lookup. */
robj *lookupKeyWriteWithPosition(serverDb *db, robj *key, dbKeyPosition *pos) {
    dictEntry *existing;
    pos->insert = dictFindPositionForInsert(db->dict, key->ptr, &existing);
    pos->entry = NULL;
    robj *val = lookupKeyInEntry(db, key, existing, LOOKUP_WRITE);
    if (val) pos->entry = existing;
    else if (existing) pos->insert = NULL; /* expired (and maybe deleted) */
    return val;
}

robj *lookupKeyReadWithFlags(serverDb *db, robj *key, int flags) {
    return lookupKey(db, key, flags);
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
    robj *o = lookupKeyRead(c->db, key);
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

/* Adds key -> val; the key must not exist. The db takes val's reference
 * (the caller's) and copies the key name (into the dict entry). */
void dbAdd(serverDb *db, robj *key, robj *val) {
    void *position = dictFindPositionForInsert(db->dict, key->ptr, NULL);
    serverAssert(position != NULL);
    dbAddAtPosition(db, key, val, position);
}

/* dbAdd() at a position from lookupKeyWriteWithPosition() (pos->insert,
 * not NULL), with nothing done to the keyspace in between. */
void dbAddAtPosition(serverDb *db, robj *key, robj *val, void *position) {
    dictEntry *de = dictInsertAtPosition(db->dict, key->ptr, position);
    dictSetVal(db->dict, de, val);
    signalKeyAsReady(db, key, val->type); /* wake clients blocked on this key */
    notifyKeyspaceEvent(NOTIFY_NEW, "new", key, db->id);
}

/* Used by the RDB loader. Returns 1 if added (the db took val's reference
 * and copied key: the caller still frees key), 0 if the key existed. */
int dbAddRDBLoad(serverDb *db, sds key, robj *val) {
    dictEntry *de = dictAddRaw(db->dict, key, NULL);
    if (de == NULL) return 0;
    dictSetVal(db->dict, de, val);
    return 1;
}

/* Replaces the value in key's entry de, keeping its TTL. */
static void dbOverwriteEntry(serverDb *db, robj *key, dictEntry *de, robj *val) {
    robj *old = dictGetVal(de);
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LFU) val->lru = old->lru;
    dictSetVal(db->dict, de, val);
    signalDeletedKeyAsReady(db, key, old->type); /* the old value is gone */
    if (server.lazyfree_lazy_server_del) freeObjAsync(key, old, db->id);
    else decrRefCount(old);
}

/* Replaces the value of an existing key, keeping its TTL. The db takes
 * val's reference; the old value is released. */
void dbOverwrite(serverDb *db, robj *key, robj *val) {
    dictEntry *de = dictFind(db->dict, key->ptr);
    serverAssert(de != NULL);
    dbOverwriteEntry(db, key, de, val);
}

/* setKey() for a key whose lookupKeyWriteWithPosition() filled pos, with
 * nothing done to the keyspace since: adds or overwrites without hashing
 * the key again. flags as for setKey(); the EXIST flags are ignored. */
void setKeyAtPosition(client *c, serverDb *db, robj *key, robj *val, int flags, dbKeyPosition *pos) {
    incrRefCount(val);
    if (pos->entry) {
        dbOverwriteEntry(db, key, pos->entry, val);
        if (!(flags & SETKEY_KEEPTTL)) removeExpire(db, key);
    } else if (pos->insert) {
        dbAddAtPosition(db, key, val, pos->insert);
    } else {
        dbAdd(db, key, val);
    }
    if (!(flags & SETKEY_NO_SIGNAL)) signalModifiedKey(c, db, key);
}

/* High level SET: adds or overwrites, drops the TTL unless SETKEY_KEEPTTL,
 * and signals the modification. val's reference is *not* taken: it is
 * incremented here, so the caller keeps its own. SETKEY_ALREADY_EXIST /
 * SETKEY_DOESNT_EXIST say the caller has just looked the key up. */
void setKey(client *c, serverDb *db, robj *key, robj *val, int flags) {
    if (!(flags & (SETKEY_ALREADY_EXIST | SETKEY_DOESNT_EXIST))) {
        dbKeyPosition pos;
        lookupKeyWriteWithPosition(db, key, &pos);
        setKeyAtPosition(c, db, key, val, flags, &pos);
        return;
    }
    incrRefCount(val);
    if (flags & SETKEY_DOESNT_EXIST) {
        dbAdd(db, key, val);
    } else {
        dbOverwrite(db, key, val);
        if (!(flags & SETKEY_KEEPTTL)) removeExpire(db, key);
    }
    if (!(flags & SETKEY_NO_SIGNAL)) signalModifiedKey(c, db, key);
}

/* Returns 1 if the key exists (expired keys are not deleted here). */
int dbExists(serverDb *db, robj *key) {
    return dictFind(db->dict, key->ptr) != NULL;
}

/* Deletes key and its TTL. With async, big values are freed by the lazy
 * free thread (lazyfree.c). Returns 1 if the key existed. */
int dbGenericDelete(serverDb *db, robj *key, int async, int flags) {
    (void)flags;
    dictEntry *de = dictUnlink(db->dict, key->ptr);
    if (de == NULL) return 0;
    robj *val = dictGetVal(de);
    /* Keep the value alive across the notification (it may be a blocked
     * client's target later on). */
    incrRefCount(val);
    if (dictSize(db->expires) > 0) dictDelete(db->expires, key->ptr);
    dictSetVal(db->dict, de, NULL);
    dictFreeUnlinkedEntry(db->dict, de);
    signalDeletedKeyAsReady(db, key, val->type); /* wake XREADGROUP waiters */
    decrRefCount(val); /* the reference taken above */
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
 * returns a RAW, unshared version of o stored under key. */
robj *dbUnshareStringValue(serverDb *db, robj *key, robj *o) {
    serverAssert(o->type == OBJ_STRING);
    if (o->refcount != 1 || o->encoding != OBJ_ENCODING_RAW) {
        robj *decoded = getDecodedObject(o);
        o = createRawStringObject(decoded->ptr, sdslen(decoded->ptr));
        decrRefCount(decoded);
        dbOverwrite(db, key, o);
    }
    return o;
}

/* Returns a random non-expired key name (a new object) or NULL if empty. */
robj *dbRandomKey(serverDb *db) {
    int maxtries = 100;
    int allvolatile = dictSize(db->dict) == dictSize(db->expires);
    while (1) {
        dictEntry *de = dictGetFairRandomKey(db->dict);
        if (de == NULL) return NULL;
        sds key = dictGetKey(de);
        robj *keyobj = createStringObject(key, sdslen(key));
        if (dictSize(db->expires) && dictFind(db->expires, key)) {
            if (allvolatile && --maxtries == 0) {
                /* Every key may be expired: return one anyway rather than
                 * loop forever (as a replica would have to). */
                return keyobj;
            }
            if (expireIfNeeded(db, keyobj, 0)) {
                decrRefCount(keyobj);
                continue;
            }
        }
        return keyobj;
    }
}

/* Empties one db (dbnum >= 0) or all (-1). Returns the number of keys
 * removed. With EMPTYDB_ASYNC the values are freed by the lazy free thread,
 * except inside EXEC or a script, whose argv may still share values stored
 * earlier in the same transaction or script (lazyfree.c). */
long long emptyData(int dbnum, int flags, void(callback)(dict *)) {
    long long removed = 0;
    int start = dbnum == -1 ? 0 : dbnum;
    int end = dbnum == -1 ? server.dbnum - 1 : dbnum;
    int async = (flags & EMPTYDB_ASYNC) && !server.in_exec && !server.in_script;
    for (int j = start; j <= end; j++) {
        serverDb *db = server.db + j;
        scanDatabaseForDeletedKeys(db, NULL); /* wake XREADGROUP waiters */
        removed += dictSize(db->dict);
        if (async && dictSize(db->dict) > 0) {
            emptyDbAsync(db);
        } else {
            dictEmpty(db->dict, callback);
            dictEmpty(db->expires, callback);
        }
        db->avg_ttl = 0;
        db->expires_cursor = 0;
    }
    return removed;
}

/* Sets the keys and expiries of every database aside (a replica loading
 * a full sync with repl-diskless-load swapdb) and leaves the databases
 * empty. Returns the backup for dbRestoreBackup() or dbDiscardBackup().
 * Blocked clients and WATCHed keys stay where they are. */
serverDb *dbBackupAndReset(void) {
    serverDb *backup = zmalloc(sizeof(serverDb) * server.dbnum);
    for (int j = 0; j < server.dbnum; j++) {
        backup[j] = server.db[j];
        server.db[j].dict = dictCreate(server.db[j].dict->type);
        server.db[j].expires = dictCreate(server.db[j].expires->type);
        server.db[j].avg_ttl = 0;
        server.db[j].expires_cursor = 0;
    }
    return backup;
}

/* Puts the data of dbBackupAndReset() back, dropping what was loaded
 * meanwhile. */
void dbRestoreBackup(serverDb *backup) {
    for (int j = 0; j < server.dbnum; j++) {
        dictRelease(server.db[j].dict);
        dictRelease(server.db[j].expires);
        server.db[j].dict = backup[j].dict;
        server.db[j].expires = backup[j].expires;
        server.db[j].avg_ttl = backup[j].avg_ttl;
        server.db[j].expires_cursor = backup[j].expires_cursor;
    }
    zfree(backup);
}

/* Frees the data of dbBackupAndReset(): the new data stays. Keys that
 * clients wait on are signalled as ready or deleted, as after a flush. */
void dbDiscardBackup(serverDb *backup) {
    for (int j = 0; j < server.dbnum; j++) {
        serverDb old = backup[j];
        if (dictSize(old.dict) > LAZYFREE_THRESHOLD) {
            emptyDbAsync(&old); /* takes the dicts and leaves fresh ones */
            dictRelease(old.dict);
            dictRelease(old.expires);
        } else {
            dictRelease(old.dict);
            dictRelease(old.expires);
        }
        scanDatabaseForReadyKeys(&server.db[j]);
    }
    zfree(backup);
}

long long dbTotalServerKeyCount(void) {
    long long total = 0;
    for (int j = 0; j < server.dbnum; j++) total += dictSize(server.db[j].dict);
    return total;
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
    if (dictSize(db->expires) == 0) return -1;
    dictEntry *de = dictFind(db->expires, key->ptr);
    if (de == NULL) return -1;
    return dictGetSignedIntegerVal(de);
}

/* Sets the expire time of an existing key (unix ms). */
void setExpire(client *c, serverDb *db, robj *key, long long when) {
    (void)c;
    dictEntry *kde = dictFind(db->dict, key->ptr);
    serverAssert(kde != NULL);
    dictEntry *de = dictAddOrFind(db->expires, dictGetKey(kde));
    dictSetSignedIntegerVal(de, when);
}

/* Removes the TTL; returns 1 if there was one. */
int removeExpire(serverDb *db, robj *key) {
    if (dictSize(db->expires) == 0) return 0;
    return dictDelete(db->expires, key->ptr) == DICT_OK;
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
    if (keyobj->refcount == OBJ_STATIC_REFCOUNT) keyobj = copy = createStringObject(keyobj->ptr, sdslen(keyobj->ptr));
    int lazy = server.lazyfree_lazy_expire;
    dbGenericDelete(db, keyobj, lazy, 0);
    notifyKeyspaceEvent(NOTIFY_EXPIRED, "expired", keyobj, db->id);
    signalModifiedKey(NULL, db, keyobj);
    propagateDeletion(db, keyobj, lazy);
    server.stat_expiredkeys++;
    if (copy) decrRefCount(copy);
}

/* If key is expired, deletes it (unless LOOKUP_NOEXPIRE or a pause holds
 * writes) and returns 1; returns 0 if the key is alive.
 *
 * A replica never deletes a key by itself: it keeps the key until the DEL
 * of its primary arrives, so both sides stay identical. Its clients see a
 * logically expired key as missing (1, not deleted); the primary's own
 * client sees the key as it is (0), as the primary did when it sent the
 * command. On a writable replica (replica-read-only no) a write lookup
 * still deletes the key. */
int expireIfNeeded(serverDb *db, robj *key, int flags) {
    if (!keyIsExpired(db, key)) return 0;
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

void keysCommand(client *c) {
    sds pattern = c->argv[1]->ptr;
    int plen = sdslen(pattern), allkeys = (pattern[0] == '*' && plen == 1);
    unsigned long numkeys = 0;
    void *replylen = addReplyDeferredLen(c);
    dictIterator *di = dictGetSafeIterator(c->db->dict);
    dictEntry *de;
    robj keyobj = {.type = OBJ_STRING, .encoding = OBJ_ENCODING_RAW, .refcount = OBJ_STATIC_REFCOUNT};
    while ((de = dictNext(di)) != NULL) {
        sds key = dictGetKey(de);
        if (allkeys || stringmatchlen(pattern, plen, key, sdslen(key), 0)) {
            keyobj.ptr = key;
            if (!keyIsExpired(c->db, &keyobj)) {
                addReplyBulkCBuffer(c, key, sdslen(key));
                numkeys++;
            }
        }
    }
    dictReleaseIterator(di);
    setDeferredArrayLen(c, replylen, numkeys);
}

/* Parses a SCAN cursor: an unsigned 64-bit decimal. */
int parseScanCursorOrReply(client *c, robj *o, unsigned long *cursor) {
    unsigned long long v;
    if (!string2ull(o->ptr, sdslen(o->ptr), &v)) {
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
 * NOVALUES; MATCH filters on the member/field. */
void scanGenericCommand(client *c, robj *o, unsigned long cursor) {
    long count = 10;
    sds pat = NULL;
    int patlen = 0, use_pattern = 0;
    int typefilter = -1;
    const char *typename = NULL;
    int novalues = 0;
    int i = o == NULL ? 2 : 3;

    for (; i < c->argc; i += 2) {
        if (o && ((o->type == OBJ_HASH && !strcasecmp(c->argv[i]->ptr, "novalues")) ||
                  (o->type == OBJ_ZSET && !strcasecmp(c->argv[i]->ptr, "noscores")))) {
            novalues = 1;
            i--; /* A flag without argument. */
            continue;
        }
        if (i + 1 >= c->argc) {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
        if (!strcasecmp(c->argv[i]->ptr, "count")) {
            if (getLongFromObjectOrReply(c, c->argv[i + 1], &count, NULL) != C_OK) return;
            if (count < 1) {
                addReplyErrorObject(c, shared.syntaxerr);
                return;
            }
        } else if (!strcasecmp(c->argv[i]->ptr, "match")) {
            pat = c->argv[i + 1]->ptr;
            patlen = sdslen(pat);
            use_pattern = !(patlen == 1 && pat[0] == '*');
        } else if (!strcasecmp(c->argv[i]->ptr, "type") && o == NULL) {
            typename = c->argv[i + 1]->ptr;
            typefilter = objectTypeByName(typename);
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
    } else if (o && o->type == OBJ_SET) {
        do {
            cursor = hashtableScan(o->ptr, cursor, scanSetMemberCallback, &data);
        } while (cursor && maxiterations-- && listLength(data.keys) < (unsigned long)count);
    } else {
        dict *d = zskiplist ? zsetTypeDict(o) : (o ? o->ptr : c->db->dict);
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
        keyobj.ptr = key;
        if (o) {
            sds val = pairs ? listNodeValue(listNext(&li)) : NULL;
            if (use_pattern && !stringmatchlen(pat, patlen, key, sdslen(key), 0)) continue;
            addReplyBulkCBuffer(c, key, sdslen(key));
            if (val) addReplyBulkCBuffer(c, val, sdslen(val));
            returned += val ? 2 : 1;
            continue;
        }
        if (use_pattern && !stringmatchlen(pat, patlen, key, sdslen(key), 0)) continue;
        if (typename) {
            robj *val = lookupKeyReadWithFlags(c->db, &keyobj, LOOKUP_NOTOUCH | LOOKUP_NOSTATS | LOOKUP_NONOTIFY);
            if (val == NULL || (int)val->type != typefilter) continue;
        } else if (expireIfNeeded(c->db, &keyobj, 0)) {
            continue;
        }
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
    addReplyLongLong(c, dictSize(c->db->dict));
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
        if (!strcasecmp(c->argv[1]->ptr, "sync")) {
            *flags = EMPTYDB_NO_FLAGS;
        } else if (!strcasecmp(c->argv[1]->ptr, "async")) {
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
    int samekey = sdscmp(c->argv[1]->ptr, c->argv[2]->ptr) == 0;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.nokeyerr);
    if (o == NULL) return;
    if (samekey) {
        addReply(c, nx ? shared.czero : shared.ok);
        return;
    }
    incrRefCount(o);
    long long expire = getExpire(c->db, c->argv[1]);
    if (lookupKeyWrite(c->db, c->argv[2]) != NULL) {
        if (nx) {
            decrRefCount(o);
            addReply(c, shared.czero);
            return;
        }
        dbDelete(c->db, c->argv[2]);
    }
    dbAdd(c->db, c->argv[2], o);
    if (expire != -1) setExpire(c, c->db, c->argv[2], expire);
    dbDelete(c->db, c->argv[1]);
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
    long long expire = getExpire(src, c->argv[1]);
    if (lookupKeyWrite(dst, c->argv[1]) != NULL) {
        addReply(c, shared.czero);
        return;
    }
    incrRefCount(o);
    dbAdd(dst, c->argv[1], o);
    if (expire != -1) setExpire(c, dst, c->argv[1], expire);
    dbDelete(src, c->argv[1]);
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
        if (!strcasecmp(c->argv[j]->ptr, "replace")) {
            replace = 1;
        } else if (!strcasecmp(c->argv[j]->ptr, "db") && additional >= 1) {
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
    if (src == dst && sdscmp(c->argv[1]->ptr, c->argv[2]->ptr) == 0) {
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
    dbAdd(dst, c->argv[2], copy);
    if (expire != -1) setExpire(c, dst, c->argv[2], expire);
    signalModifiedKey(c, dst, c->argv[2]);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "copy_to", c->argv[2], dst->id);
    server.dirty++;
    addReply(c, shared.cone);
}

void swapdbCommand(client *c) {
    int id1, id2;
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
        dict *d = a->dict, *e = a->expires;
        long long avg = a->avg_ttl;
        a->dict = b->dict;
        a->expires = b->expires;
        a->avg_ttl = b->avg_ttl;
        b->dict = d;
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
