/* aof_rewrite.c - the dataset as commands: the base an AOF rewrite writes
 * with aof-use-rdb-preamble no (".base.aof"), as Valkey and Redis write it,
 * so that such a base loads in any of them (Redis 7.0 included, which
 * refuses RDB 11 bases).
 *
 * For each non-empty database: SELECT, then per key the commands that
 * build its value (SET; RPUSH, SADD, ZADD, HSET with at most
 * AOF_REWRITE_ITEMS_PER_CMD elements each; a stream's XADDs with their
 * IDs, XSETID with ENTRIESADDED and MAXDELETEDID, its groups with
 * XGROUP CREATE ... ENTRIESREAD, pending entries by XCLAIM ... FORCE
 * JUSTID with their delivery time and count, consumers without pending
 * entries by XGROUP CREATECONSUMER) and PEXPIREAT for a key with a TTL.
 * Function libraries come first, as FUNCTION LOAD. Scores and doubles are
 * written with 17 significant digits, which read back to the same value.
 *
 * Called by aof.c in the rewrite child (or at start-up for a first base),
 * after the "#TS:" annotation aof.c writes first with aof-timestamp-enabled;
 * it only reads the dataset. rdb-key-save-delay slows it down per key, as
 * it does the RDB writer, for tests that need a rewrite to last. */
#include "server.h"

#include <math.h>
#include <unistd.h>

#include "functions.h"
#include "intset.h"
#include "listpack.h"
#include "quicklist.h"
#include "rio.h"
#include "stream.h"
#include "zskiplist.h"

#define AOF_REWRITE_ITEMS_PER_CMD 64

/* ---------------------------------------------------------------------------
 * RESP pieces
 * ------------------------------------------------------------------------- */

static int aofWriteCount(rio *r, char prefix, long long n) {
    char buf[LONG_STR_SIZE + 3];
    buf[0] = prefix;
    int len = ll2string(buf + 1, sizeof(buf) - 1, n);
    buf[len + 1] = '\r';
    buf[len + 2] = '\n';
    return rioWrite(r, buf, (size_t)len + 3);
}

static int aofWriteBulk(rio *r, const void *p, size_t len) {
    return aofWriteCount(r, '$', (long long)len) && (len == 0 || rioWrite(r, p, len)) && rioWrite(r, "\r\n", 2);
}

static int aofWriteBulkLongLong(rio *r, long long v) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), v);
    return aofWriteBulk(r, buf, (size_t)len);
}

static int aofWriteBulkStr(rio *r, const char *s) {
    return aofWriteBulk(r, s, strlen(s));
}

static int aofWriteBulkSds(rio *r, sds s) {
    return aofWriteBulk(r, s, sdslen(s));
}

static int aofWriteBulkDouble(rio *r, double d) {
    char buf[64];
    int len;
    if (isinf(d)) len = snprintf(buf, sizeof(buf), "%s", d > 0 ? "inf" : "-inf");
    else len = snprintf(buf, sizeof(buf), "%.17g", d);
    return aofWriteBulk(r, buf, (size_t)len);
}

static int aofWriteBulkID(rio *r, const streamID *id) {
    char buf[STREAM_ID_STR_LEN];
    int len = streamIDToString(id, buf);
    return aofWriteBulk(r, buf, (size_t)len);
}

/* A listpack element (string or integer). */
static int aofWriteBulkLp(rio *r, unsigned char *p) {
    unsigned char buf[LP_INTBUF_SIZE];
    int64_t len;
    unsigned char *s = lpGet(p, &len, buf);
    return aofWriteBulk(r, s, (size_t)len);
}

/* ---------------------------------------------------------------------------
 * Collections: "CMD key item item ..." in batches
 * ------------------------------------------------------------------------- */

/* Emits the header of a batch before its first item: "*<2+n*stride>",
 * the command and the key. left: items still to write; stride: bulk
 * strings per item (2 for ZADD and HSET). */
typedef struct aofBatch {
    rio *r;
    const char *cmd;
    sds key;
    long long left, in_batch;
    int stride;
} aofBatch;

static int aofBatchItem(aofBatch *b) {
    if (b->in_batch == 0) {
        long long n = b->left < AOF_REWRITE_ITEMS_PER_CMD ? b->left : AOF_REWRITE_ITEMS_PER_CMD;
        if (!aofWriteCount(b->r, '*', 2 + n * b->stride) || !aofWriteBulkStr(b->r, b->cmd) ||
            !aofWriteBulkSds(b->r, b->key))
            return 0;
        b->in_batch = n;
    }
    b->in_batch--;
    b->left--;
    return 1;
}

static int aofRewriteList(rio *r, sds key, robj *o) {
    aofBatch b = {r, "RPUSH", key, 0, 0, 1};
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        b.left = lpLength(objectGetVal(o));
        for (unsigned char *p = lpFirst(objectGetVal(o)); p; p = lpNext(objectGetVal(o), p))
            if (!aofBatchItem(&b) || !aofWriteBulkLp(r, p)) return 0;
        return 1;
    }
    quicklist *ql = objectGetVal(o);
    b.left = ql->count;
    quicklistIter *it = quicklistGetIterator(ql, AL_START_HEAD);
    quicklistEntry e;
    int ok = 1;
    while (ok && quicklistNext(it, &e)) {
        ok = aofBatchItem(&b) && (e.value ? aofWriteBulk(r, e.value, e.sz) : aofWriteBulkLongLong(r, e.longval));
    }
    quicklistReleaseIterator(it);
    return ok;
}

static int aofRewriteSet(rio *r, sds key, robj *o) {
    aofBatch b = {r, "SADD", key, 0, 0, 1};
    if (o->encoding == OBJ_ENCODING_INTSET) {
        b.left = intsetLen(objectGetVal(o));
        for (uint32_t j = 0; j < intsetLen(objectGetVal(o)); j++) {
            int64_t v;
            intsetGet(objectGetVal(o), j, &v);
            if (!aofBatchItem(&b) || !aofWriteBulkLongLong(r, v)) return 0;
        }
        return 1;
    }
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        b.left = lpLength(objectGetVal(o));
        for (unsigned char *p = lpFirst(objectGetVal(o)); p; p = lpNext(objectGetVal(o), p))
            if (!aofBatchItem(&b) || !aofWriteBulkLp(r, p)) return 0;
        return 1;
    }
    hashtable *ht = objectGetVal(o); /* members are the entries (t_set.c) */
    b.left = (long long)hashtableSize(ht);
    hashtableIterator hi;
    hashtableInitIterator(&hi, ht, 0);
    void *member;
    int ok = 1;
    while (ok && hashtableNext(&hi, &member)) ok = aofBatchItem(&b) && aofWriteBulkSds(r, member);
    hashtableResetIterator(&hi);
    return ok;
}

/* Listpack pairs (hash field/value, zset member/score), written as
 * "value-second" pairs: ZADD wants the score first. */
static int aofRewriteLpPairs(rio *r, aofBatch *b, unsigned char *lp, int score_first) {
    b->left = lpLength(lp) / 2;
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, lpNext(lp, p))) {
        unsigned char *second = lpNext(lp, p);
        if (!aofBatchItem(b)) return 0;
        if (score_first) {
            long long lv;
            unsigned int slen;
            unsigned char *s = lpGetValue(second, &slen, &lv);
            int ok = s ? aofWriteBulk(r, s, slen) : aofWriteBulkLongLong(r, lv);
            if (!ok || !aofWriteBulkLp(r, p)) return 0;
        } else if (!aofWriteBulkLp(r, p) || !aofWriteBulkLp(r, second)) {
            return 0;
        }
    }
    return 1;
}

static int aofRewriteZset(rio *r, sds key, robj *o) {
    aofBatch b = {r, "ZADD", key, 0, 0, 2};
    if (o->encoding == OBJ_ENCODING_LISTPACK) return aofRewriteLpPairs(r, &b, objectGetVal(o), 1);
    zskiplist *zsl = zsetTypeSkiplist(o);
    b.left = (long long)zsl->length;
    for (zskiplistNode *n = zsl->header->level[0].forward; n; n = n->level[0].forward)
        if (!aofBatchItem(&b) || !aofWriteBulkDouble(r, n->score) || !aofWriteBulkSds(r, n->ele)) return 0;
    return 1;
}

static int aofRewriteHash(rio *r, sds key, robj *o) {
    aofBatch b = {r, "HSET", key, 0, 0, 2};
    if (o->encoding == OBJ_ENCODING_LISTPACK) return aofRewriteLpPairs(r, &b, objectGetVal(o), 0);
    hashtable *ht = objectGetVal(o);
    b.left = (long long)hashtableSize(ht);
    hashtableIterator hi;
    hashtableInitIterator(&hi, ht, 0);
    void *entry;
    int ok = 1;
    while (ok && hashtableNext(&hi, &entry)) {
        size_t vlen;
        const char *value = hashTypeEntryValue(entry, &vlen);
        ok = aofBatchItem(&b) && aofWriteBulkSds(r, hashTypeEntryField(entry)) && aofWriteBulk(r, value, vlen);
    }
    hashtableResetIterator(&hi);
    return ok;
}

/* ---------------------------------------------------------------------------
 * Streams
 * ------------------------------------------------------------------------- */

typedef struct aofStreamCtx {
    rio *r;
    sds key;
} aofStreamCtx;

static int aofRewriteStreamEntry(void *ctx, streamID id, unsigned char *lp, unsigned char *fields,
                                 long long nfields) {
    aofStreamCtx *c = ctx;
    if (!aofWriteCount(c->r, '*', 3 + nfields * 2) || !aofWriteBulkStr(c->r, "XADD") ||
        !aofWriteBulkSds(c->r, c->key) || !aofWriteBulkID(c->r, &id))
        return -1;
    unsigned char *p = fields;
    for (long long j = 0; j < nfields * 2; j++, p = lpNext(lp, p))
        if (!aofWriteBulkLp(c->r, p)) return -1;
    return 0;
}

/* XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n JUSTID FORCE */
static int aofRewriteNack(rio *r, sds key, streamCG *g, streamConsumer *cons, streamID id, streamNACK *nack) {
    return aofWriteCount(r, '*', 12) && aofWriteBulkStr(r, "XCLAIM") && aofWriteBulkSds(r, key) &&
           aofWriteBulkSds(r, g->name) && aofWriteBulkSds(r, cons->name) && aofWriteBulkStr(r, "0") &&
           aofWriteBulkID(r, &id) && aofWriteBulkStr(r, "TIME") && aofWriteBulkLongLong(r, nack->delivery_time) &&
           aofWriteBulkStr(r, "RETRYCOUNT") && aofWriteBulkLongLong(r, (long long)nack->delivery_count) &&
           aofWriteBulkStr(r, "JUSTID") && aofWriteBulkStr(r, "FORCE");
}

static int aofRewriteGroup(rio *r, sds key, streamCG *g) {
    if (!aofWriteCount(r, '*', 7) || !aofWriteBulkStr(r, "XGROUP") || !aofWriteBulkStr(r, "CREATE") ||
        !aofWriteBulkSds(r, key) || !aofWriteBulkSds(r, g->name) || !aofWriteBulkID(r, &g->last_id) ||
        !aofWriteBulkStr(r, "ENTRIESREAD") || !aofWriteBulkLongLong(r, g->entries_read))
        return 0;
    unsigned long n;
    streamConsumer **cons = streamConsumersByName(g, &n);
    int ok = 1;
    for (unsigned long j = 0; ok && j < n; j++) {
        streamConsumer *c = cons[j];
        if (sidmapFirst(c->pel) == NULL) {
            ok = aofWriteCount(r, '*', 5) && aofWriteBulkStr(r, "XGROUP") && aofWriteBulkStr(r, "CREATECONSUMER") &&
                 aofWriteBulkSds(r, key) && aofWriteBulkSds(r, g->name) && aofWriteBulkSds(r, c->name);
            continue;
        }
        for (sidmapNode *sn = sidmapFirst(c->pel); ok && sn; sn = sidmapNext(sn))
            ok = aofRewriteNack(r, key, g, c, sn->id, sn->value);
    }
    zfree(cons);
    return ok;
}

static int aofRewriteStream(rio *r, sds key, robj *o) {
    stream *s = objectGetVal(o);
    aofStreamCtx ctx = {r, key};
    if (s->length == 0) {
        /* An empty stream exists: create it with an entry trimmed at once
         * (ID 0-1, which any stream accepts; XSETID below sets the real
         * last ID, as Valkey does). */
        if (!aofWriteCount(r, '*', 7) || !aofWriteBulkStr(r, "XADD") || !aofWriteBulkSds(r, key) ||
            !aofWriteBulkStr(r, "MAXLEN") || !aofWriteBulkStr(r, "0") || !aofWriteBulkStr(r, "0-1") ||
            !aofWriteBulkStr(r, "x") || !aofWriteBulkStr(r, "y"))
            return 0;
    } else if (streamForEachEntry(s, aofRewriteStreamEntry, &ctx) == -1) {
        return 0;
    }
    if (!aofWriteCount(r, '*', 7) || !aofWriteBulkStr(r, "XSETID") || !aofWriteBulkSds(r, key) ||
        !aofWriteBulkID(r, &s->last_id) || !aofWriteBulkStr(r, "ENTRIESADDED") ||
        !aofWriteBulkLongLong(r, (long long)s->entries_added) || !aofWriteBulkStr(r, "MAXDELETEDID") ||
        !aofWriteBulkID(r, &s->max_deleted_entry_id))
        return 0;
    if (s->cgroups == NULL) return 1;
    unsigned long n;
    streamCG **groups = streamGroupsByName(s, &n);
    int ok = 1;
    for (unsigned long j = 0; ok && j < n; j++) ok = aofRewriteGroup(r, key, groups[j]);
    zfree(groups);
    return ok;
}

/* ---------------------------------------------------------------------------
 * The dataset
 * ------------------------------------------------------------------------- */

/* Writes one keyspace value o (which carries its key and expire time). */
static int aofRewriteKey(rio *r, robj *o) {
    sds key = objectGetKey(o);
    int ok;
    switch (o->type) {
    case OBJ_STRING:
        ok = aofWriteCount(r, '*', 3) && aofWriteBulkStr(r, "SET") && aofWriteBulkSds(r, key);
        if (ok) {
            if (sdsEncodedObject(o)) ok = aofWriteBulkSds(r, objectGetVal(o));
            else ok = aofWriteBulkLongLong(r, (long)objectGetVal(o));
        }
        break;
    case OBJ_LIST: ok = aofRewriteList(r, key, o); break;
    case OBJ_SET: ok = aofRewriteSet(r, key, o); break;
    case OBJ_ZSET: ok = aofRewriteZset(r, key, o); break;
    case OBJ_HASH: ok = aofRewriteHash(r, key, o); break;
    case OBJ_STREAM: ok = aofRewriteStream(r, key, o); break;
    default: serverPanic("Unknown object type %d in an AOF rewrite", o->type);
    }
    if (!ok) return 0;
    long long expire = objectGetExpire(o);
    if (expire == -1) return 1;
    return aofWriteCount(r, '*', 3) && aofWriteBulkStr(r, "PEXPIREAT") && aofWriteBulkSds(r, key) &&
           aofWriteBulkLongLong(r, expire);
}

static int aofRewriteFunctions(rio *r) {
    dictIterator *di = dictGetIterator(functionsLibraries());
    dictEntry *de;
    int ok = 1;
    while (ok && (de = dictNext(di))) {
        functionLib *lib = dictGetVal(de);
        ok = aofWriteCount(r, '*', 3) && aofWriteBulkStr(r, "FUNCTION") && aofWriteBulkStr(r, "LOAD") &&
             aofWriteBulkSds(r, lib->code);
    }
    dictReleaseIterator(di);
    return ok;
}

/* Writes the whole dataset as commands to r. C_OK, or C_ERR when a write
 * failed (r->error says why). Child (or the event loop at start-up). */
int aofRewriteCommands(rio *r) {
    if (!aofRewriteFunctions(r)) return C_ERR;
    for (int j = 0; j < server.dbnum; j++) {
        serverDb *db = server.db + j;
        if (kvstoreSize(db->keys) == 0) continue;
        if (!aofWriteCount(r, '*', 2) || !aofWriteBulkStr(r, "SELECT") || !aofWriteBulkLongLong(r, j)) return C_ERR;
        kvstoreIterator iter;
        kvstoreIteratorInit(&iter, db->keys, -1, 0);
        void *entry;
        int ok = 1;
        while (ok && kvstoreIteratorNext(&iter, &entry)) {
            ok = aofRewriteKey(r, entry);
            /* rdb-key-save-delay (tests): a slow child, as the RDB writer has it */
            if (server.rdb_key_save_delay > 0) usleep((useconds_t)server.rdb_key_save_delay);
        }
        kvstoreIteratorReset(&iter);
        if (!ok) return C_ERR;
    }
    return C_OK;
}
