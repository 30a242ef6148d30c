/* rdb_object.c - the RDB body of lists, sets, hashes and sorted sets, in
 * both directions; rdb.c calls in here for every value that is not a string
 * (rdbSaveObject, rdbLoadObject), and streams are passed on to
 * rdb_stream.c.
 *
 * Saving writes what Valkey 8 writes: a list as RDB_TYPE_LIST_QUICKLIST_2
 * (one PACKED node per quicklist node, a PLAIN one per big node; a
 * listpack-encoded list is one node),
 * compact encodings (intset, listpack) as their blob, byte for byte, and
 * the hashtable and skiplist encodings element by element. A skiplist goes
 * out from the greatest element down, so that loading inserts each element
 * at the head of the new skiplist.
 *
 * Loading accepts every encoding older versions wrote (RDB types 1-5 and
 * 9-20, including ziplists and zipmaps, which ziplist.c and zipmap.c read)
 * and picks the in-memory encoding from the size rules in the config, as
 * Valkey does: a value built element by element goes through the t_*.c
 * layers, which convert as they go; a blob that loads as a compact encoding
 * but breaks its limits is converted right after loading.
 *
 * Every blob is validated deeply whatever sanitize-dump-payload says:
 * headers, lengths and entry boundaries (listpack.c, intset.c, ziplist.c,
 * zipmap.c), intset order, no duplicate set member, hash field or sorted
 * set member, sorted set listpacks made of member/score pairs with valid
 * scores, and no NaN score anywhere. On bad input a loader frees what it
 * built and returns NULL; a value that decodes fine but holds nothing sets
 * *empty instead. Runs in the main thread (RESTORE, loading) or in a
 * forked child (saving). */
#include "server.h"

#include <math.h>

#include "intset.h"
#include "listpack.h"
#include "quicklist.h"
#include "rdb.h"
#include "ziplist.h"
#include "zipmap.h"
#include "zskiplist.h"

/* Lengths in a payload are untrusted, so they size pre-allocations only as
 * far as the input can back them: each element takes at least min_bytes,
 * so no more than the bytes left over min_bytes can follow. A source that
 * does not know what is left (a pipe) gets at most RDB_LOAD_SIZE_HINT_MAX;
 * bigger values grow as they load. */
#define RDB_LOAD_SIZE_HINT_MAX (1 << 20)

static size_t rdbSizeHint(rio *r, uint64_t len, unsigned min_bytes) {
    uint64_t remaining = rioRemaining(r), cap = RDB_LOAD_SIZE_HINT_MAX;
    if (remaining != UINT64_MAX) cap = remaining / min_bytes;
    return (size_t)(len < cap ? len : cap);
}

/* ---------------------------------------------------------------------------
 * Type byte
 * ------------------------------------------------------------------------- */

/* Returns the RDB type byte rdbSaveCollection() writes for o, a list, set,
 * hash, sorted set or stream. */
unsigned char rdbCollectionType(robj *o) {
    switch (o->type) {
    case OBJ_LIST: return RDB_TYPE_LIST_QUICKLIST_2;
    case OBJ_SET:
        if (o->encoding == OBJ_ENCODING_INTSET) return RDB_TYPE_SET_INTSET;
        if (o->encoding == OBJ_ENCODING_LISTPACK) return RDB_TYPE_SET_LISTPACK;
        return RDB_TYPE_SET;
    case OBJ_ZSET: return o->encoding == OBJ_ENCODING_LISTPACK ? RDB_TYPE_ZSET_LISTPACK : RDB_TYPE_ZSET_2;
    case OBJ_HASH: return o->encoding == OBJ_ENCODING_LISTPACK ? RDB_TYPE_HASH_LISTPACK : RDB_TYPE_HASH;
    case OBJ_STREAM: return RDB_TYPE_STREAM_LISTPACKS_3;
    default: serverPanic("Unknown collection type %d", o->type);
    }
}

/* ---------------------------------------------------------------------------
 * Saving
 * ------------------------------------------------------------------------- */

/* Writes len bytes already compressed with LZF from ulen bytes as an RDB
 * LZF string (what rdbSaveRawString() would have produced compressing
 * them itself). */
static int rdbSaveLzfBlob(rio *r, const void *data, size_t len, size_t ulen) {
    unsigned char enc = (RDB_ENCVAL << 6) | RDB_ENC_LZF;
    if (!rioWrite(r, &enc, 1) || rdbSaveLen(r, len) == C_ERR || rdbSaveLen(r, ulen) == C_ERR) return C_ERR;
    return rioWrite(r, data, len) ? C_OK : C_ERR;
}

/* A big quicklist node as a PLAIN container: its element as a string. */
static int rdbSaveBigNode(rio *r, const quicklistNode *node) {
    int64_t len;
    unsigned char buf[LP_INTBUF_SIZE];
    unsigned char *s = lpGet(lpFirst(node->lp), &len, buf);
    if (rdbSaveLen(r, RDB_QUICKLIST_NODE_PLAIN) == C_ERR) return C_ERR;
    return rdbSaveRawString(r, s, (size_t)len) == C_ERR ? C_ERR : C_OK;
}

/* A list: nodes of listpacks, each PACKED, and big nodes PLAIN. */
static int rdbSaveList(rio *r, robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        if (rdbSaveLen(r, 1) == C_ERR || rdbSaveLen(r, RDB_QUICKLIST_NODE_PACKED) == C_ERR) return C_ERR;
        return rdbSaveRawString(r, objectGetVal(o), lpBytes(objectGetVal(o))) == C_ERR ? C_ERR : C_OK;
    }
    serverAssert(o->encoding == OBJ_ENCODING_QUICKLIST);
    quicklist *ql = objectGetVal(o);
    if (rdbSaveLen(r, ql->len) == C_ERR) return C_ERR;
    for (quicklistNode *node = ql->head; node; node = node->next) {
        if (node->big) { /* never at rest: node->lp is set */
            if (rdbSaveBigNode(r, node) == C_ERR) return C_ERR;
            continue;
        }
        if (rdbSaveLen(r, RDB_QUICKLIST_NODE_PACKED) == C_ERR) return C_ERR;
        if (node->lp) {
            if (rdbSaveRawString(r, node->lp, node->sz) == C_ERR) return C_ERR;
        } else if (node->form == QUICKLIST_BLOB_LZF) {
            /* Compressed nodes are listpacks under LZF already: written as
             * an RDB LZF string without inflating them. */
            if (rdbSaveLzfBlob(r, node->blob->data, node->blob->sz, node->sz) == C_ERR) return C_ERR;
        } else {
            unsigned char *lp = quicklistNodeListpackCopy(node); /* packed */
            int ret = rdbSaveRawString(r, lp, node->sz);
            lpFree(lp);
            if (ret == C_ERR) return C_ERR;
        }
    }
    return C_OK;
}

/* A set: the intset or listpack blob, or the members of a hashtable. */
static int rdbSaveSet(rio *r, robj *o) {
    if (o->encoding == OBJ_ENCODING_INTSET)
        return rdbSaveRawString(r, objectGetVal(o), intsetBlobLen(objectGetVal(o))) == C_ERR ? C_ERR : C_OK;
    if (o->encoding == OBJ_ENCODING_LISTPACK)
        return rdbSaveRawString(r, objectGetVal(o), lpBytes(objectGetVal(o))) == C_ERR ? C_ERR : C_OK;
    serverAssert(o->encoding == OBJ_ENCODING_HT);
    hashtable *ht = objectGetVal(o);
    if (rdbSaveLen(r, hashtableSize(ht)) == C_ERR) return C_ERR;
    hashtableIterator hi;
    hashtableInitIterator(&hi, ht, 0);
    void *member;
    int ret = C_OK;
    while (ret == C_OK && hashtableNext(&hi, &member))
        if (rdbSaveRawString(r, member, sdslen(member)) == C_ERR) ret = C_ERR;
    hashtableResetIterator(&hi);
    return ret;
}

/* A hash: the listpack blob, or field/value pairs of a hashtable. */
static int rdbSaveHash(rio *r, robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK)
        return rdbSaveRawString(r, objectGetVal(o), lpBytes(objectGetVal(o))) == C_ERR ? C_ERR : C_OK;
    serverAssert(o->encoding == OBJ_ENCODING_HT);
    hashtable *ht = objectGetVal(o);
    if (rdbSaveLen(r, hashtableSize(ht)) == C_ERR) return C_ERR;
    hashtableIterator hi;
    hashtableInitIterator(&hi, ht, 0);
    void *entry;
    int ret = C_OK;
    while (ret == C_OK && hashtableNext(&hi, &entry)) {
        sds field = hashTypeEntryField(entry);
        size_t vlen;
        const char *value = hashTypeEntryValue(entry, &vlen);
        if (rdbSaveRawString(r, field, sdslen(field)) == C_ERR || rdbSaveRawString(r, value, vlen) == C_ERR)
            ret = C_ERR;
    }
    hashtableResetIterator(&hi);
    return ret;
}

/* A sorted set: the listpack blob, or (member, binary score) pairs from the
 * greatest element down. */
static int rdbSaveZset(rio *r, robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK)
        return rdbSaveRawString(r, objectGetVal(o), lpBytes(objectGetVal(o))) == C_ERR ? C_ERR : C_OK;
    zskiplist *zsl = zsetTypeSkiplist(o);
    if (rdbSaveLen(r, zsl->length) == C_ERR) return C_ERR;
    for (zskiplistNode *n = zsl->tail; n; n = n->backward) {
        if (rdbSaveRawString(r, n->ele, sdslen(n->ele)) == C_ERR) return C_ERR;
        if (rdbSaveBinaryDouble(r, n->score) == C_ERR) return C_ERR;
    }
    return C_OK;
}

/* Writes the body of o (the type byte is the caller's) for the type
 * rdbCollectionType() gives. Returns C_OK, or C_ERR on a failed write. */
int rdbSaveCollection(rio *r, robj *o) {
    switch (o->type) {
    case OBJ_LIST: return rdbSaveList(r, o);
    case OBJ_SET: return rdbSaveSet(r, o);
    case OBJ_HASH: return rdbSaveHash(r, o);
    case OBJ_ZSET: return rdbSaveZset(r, o);
    case OBJ_STREAM: return rdbSaveStream(r, o);
    default: serverPanic("Unknown collection type %d", o->type);
    }
}

/* ---------------------------------------------------------------------------
 * Loading: shared checks
 * ------------------------------------------------------------------------- */

/* Duplicate detection while checking a blob: a scratch dict of the
 * elements seen so far, as sds keys it owns. */
static dictType rdbDupDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

/* What the listpack checks below learn about a blob. */
typedef struct lpCheck {
    dict *seen;          /* elements at even positions (or all, stride 1) */
    unsigned long index; /* position of the entry being checked */
    int stride;          /* 1: every entry is a member; 2: member/value pairs */
    int zset_scores;     /* odd entries must be valid, non-NaN scores */
    size_t maxlen;       /* longest entry (string form) */
} lpCheck;

/* The listpack entry at p as bytes; integers are printed into buf. */
static const unsigned char *lpEntryBytes(unsigned char *p, unsigned char *buf, size_t *len) {
    int64_t l;
    unsigned char *s = lpGet(p, &l, buf);
    *len = (size_t)l;
    return s;
}

/* 1 if the entry at p is an acceptable sorted set score. */
static int lpEntryIsScore(unsigned char *p) {
    unsigned int slen;
    long long lval;
    unsigned char *s = lpGetValue(p, &slen, &lval);
    double d;
    return s == NULL || (string2d((const char *)s, slen, &d) && !isnan(d));
}

/* lpValidateIntegrity() callback: duplicates, scores, longest entry. */
static int lpCheckEntry(unsigned char *p, unsigned int head_count, void *userdata) {
    (void)head_count;
    lpCheck *c = userdata;
    unsigned char buf[LP_INTBUF_SIZE];
    size_t len;
    const unsigned char *s = lpEntryBytes(p, buf, &len);
    if (len > c->maxlen) c->maxlen = len;
    int is_member = c->stride == 1 || c->index % 2 == 0;
    c->index++;
    if (!is_member) return !c->zset_scores || lpEntryIsScore(p);
    sds key = sdsnewlen(s, len);
    if (dictAdd(c->seen, key, NULL) != DICT_OK) {
        sdsfree(key);
        return 0;
    }
    return 1;
}

/* Deep check of a listpack blob of `size` bytes. stride 1: a set (every
 * entry a distinct member); stride 2: pairs whose first halves are
 * distinct, with valid scores as second halves if zset_scores. Returns 1
 * and the element count and longest entry, or 0 if the blob is bad. */
static int rdbCheckListpack(unsigned char *lp, size_t size, int stride, int zset_scores, unsigned long *count,
                            size_t *maxlen) {
    lpCheck c = {.seen = dictCreate(&rdbDupDictType), .index = 0, .stride = stride, .zset_scores = zset_scores,
                 .maxlen = 0};
    int ok = lpValidateIntegrity(lp, size, 1, lpCheckEntry, &c);
    dictRelease(c.seen);
    if (!ok || (stride == 2 && c.index % 2 != 0)) return 0;
    *count = c.index;
    *maxlen = c.maxlen;
    return 1;
}

/* Appends a ziplist entry to the listpack under construction. */
static int ziplistToListpackEntry(const ziplistEntry *e, void *userdata) {
    unsigned char **lp = userdata;
    if (e->sval)
        *lp = lpAppend(*lp, e->sval, e->slen);
    else
        *lp = lpAppendInteger(*lp, e->lval);
    return 1;
}

/* Returns a new listpack with the entries of a ziplist blob, or NULL if
 * the ziplist is invalid. The blob stays the caller's. */
static unsigned char *ziplistToListpack(const unsigned char *zl, size_t size) {
    unsigned char *lp = lpNew(size);
    if (!ziplistValidateAndDecode(zl, size, ziplistToListpackEntry, &lp, NULL)) {
        lpFree(lp);
        return NULL;
    }
    return lpShrinkToFit(lp);
}

/* Loads a blob (an intset, listpack, ziplist or zipmap) as a zmalloc'd
 * buffer, or NULL on a failed read. */
static unsigned char *rdbLoadBlob(rio *r, size_t *len) {
    return rdbLoadString(r, RDB_LOAD_PLAIN, len);
}

/* Loads a blob that is a ziplist and returns it as a listpack, or NULL. */
static unsigned char *rdbLoadZiplistAsListpack(rio *r) {
    size_t len;
    unsigned char *zl = rdbLoadBlob(r, &len);
    if (zl == NULL) return NULL;
    unsigned char *lp = ziplistToListpack(zl, len);
    zfree(zl);
    return lp;
}

/* ---------------------------------------------------------------------------
 * Loading: lists
 * ------------------------------------------------------------------------- */

/* Turns a loaded quicklist into the list object: NULL with *empty for no
 * elements, a listpack-encoded list when it is one node within
 * list-max-listpack-size, else a quicklist-encoded one. */
static robj *rdbFinishList(quicklist *ql, int *empty) {
    if (quicklistCount(ql) == 0) {
        quicklistRelease(ql);
        *empty = 1;
        return NULL;
    }
    if (ql->len == 1 && !ql->head->big && !quicklistNodeExceedsLimit(server.list_max_listpack_size, ql->head->sz, ql->head->count)) {
        robj *o = createListListpackObject();
        lpFree(objectGetVal(o));
        objectSetVal(o, lpDup(ql->head->lp));
        quicklistRelease(ql);
        return o;
    }
    robj *o = createObject(OBJ_LIST, ql);
    o->encoding = OBJ_ENCODING_QUICKLIST;
    return o;
}

static quicklist *rdbNewQuicklist(void) {
    return quicklistCreate(server.list_max_listpack_size, server.list_compress_depth);
}

/* RDB_TYPE_LIST: a count and the elements as strings. */
static robj *rdbLoadListPlain(rio *r, int *empty) {
    uint64_t len = rdbLoadLen(r, NULL);
    if (len == RDB_LENERR) return NULL;
    quicklist *ql = rdbNewQuicklist();
    for (uint64_t i = 0; i < len; i++) {
        size_t elen;
        char *ele = rdbLoadString(r, RDB_LOAD_PLAIN, &elen);
        if (ele == NULL) {
            quicklistRelease(ql);
            return NULL;
        }
        quicklistPushTail(ql, ele, elen);
        zfree(ele);
    }
    return rdbFinishList(ql, empty);
}

/* RDB_TYPE_LIST_ZIPLIST: one ziplist. */
static robj *rdbLoadListZiplist(rio *r, int *empty) {
    unsigned char *lp = rdbLoadZiplistAsListpack(r);
    if (lp == NULL) return NULL;
    quicklist *ql = rdbNewQuicklist();
    quicklistAppendListpack(ql, lp);
    return rdbFinishList(ql, empty);
}

/* Loads one node of RDB_TYPE_LIST_QUICKLIST (ziplist nodes) or
 * RDB_TYPE_LIST_QUICKLIST_2 (a container, then a listpack or a single
 * plain element) and returns it as a validated listpack (maybe empty), or
 * NULL on bad input. *plain is set for a PLAIN container. */
static unsigned char *rdbLoadQuicklistNode(rio *r, int rdbtype, int *plain) {
    *plain = 0;
    if (rdbtype == RDB_TYPE_LIST_QUICKLIST) return rdbLoadZiplistAsListpack(r);
    uint64_t container = rdbLoadLen(r, NULL);
    if (container != RDB_QUICKLIST_NODE_PLAIN && container != RDB_QUICKLIST_NODE_PACKED) return NULL;
    size_t len;
    unsigned char *blob = rdbLoadBlob(r, &len);
    if (blob == NULL) return NULL;
    if (container == RDB_QUICKLIST_NODE_PLAIN) {
        *plain = 1;
        unsigned char *lp = lpAppend(lpNew(len + 16), blob, len);
        zfree(blob);
        return lp;
    }
    if (!lpValidateIntegrity(blob, len, 1, NULL, NULL)) {
        zfree(blob);
        return NULL;
    }
    return blob;
}

/* RDB_TYPE_LIST_QUICKLIST and _2: a node count and the nodes. Empty nodes
 * (older versions could write them) are skipped. */
static robj *rdbLoadListQuicklist(rio *r, int rdbtype, int *empty) {
    uint64_t nodes = rdbLoadLen(r, NULL);
    if (nodes == RDB_LENERR) return NULL;
    quicklist *ql = rdbNewQuicklist();
    for (uint64_t i = 0; i < nodes; i++) {
        int plain;
        unsigned char *lp = rdbLoadQuicklistNode(r, rdbtype, &plain);
        if (lp == NULL) {
            quicklistRelease(ql);
            return NULL;
        }
        if (plain)
            quicklistAppendBig(ql, lp); /* a node of its own, as in Valkey */
        else
            quicklistAppendListpack(ql, lp); /* frees an empty one */
    }
    return rdbFinishList(ql, empty);
}

/* ---------------------------------------------------------------------------
 * Loading: sets
 * ------------------------------------------------------------------------- */

/* RDB_TYPE_SET: a count and the members as strings. */
static robj *rdbLoadSetPlain(rio *r, int *empty) {
    uint64_t len = rdbLoadLen(r, NULL);
    if (len == RDB_LENERR) return NULL;
    if (len == 0) {
        *empty = 1;
        return NULL;
    }
    robj *o = NULL;
    for (uint64_t i = 0; i < len; i++) {
        size_t mlen;
        char *member = rdbLoadString(r, RDB_LOAD_PLAIN, &mlen);
        if (member == NULL) goto err;
        if (o == NULL) o = setTypeCreateFor(member, mlen, rdbSizeHint(r, len, 1));
        int added = setTypeAddBuffer(o, member, mlen);
        zfree(member);
        if (!added) goto err; /* duplicate */
    }
    return o;
err:
    if (o) decrRefCount(o);
    return NULL;
}

/* RDB_TYPE_SET_INTSET: an intset blob, converted to a hashtable when it
 * holds more than set-max-intset-entries. */
static robj *rdbLoadSetIntset(rio *r, int *empty) {
    size_t len;
    unsigned char *blob = rdbLoadBlob(r, &len);
    if (blob == NULL) return NULL;
    if (!intsetValidate(blob, len, 1)) {
        zfree(blob);
        return NULL;
    }
    if (intsetLen((intset *)blob) == 0) {
        zfree(blob);
        *empty = 1;
        return NULL;
    }
    robj *o = createObject(OBJ_SET, blob);
    o->encoding = OBJ_ENCODING_INTSET;
    if (intsetLen(objectGetVal(o)) > server.set_max_intset_entries) setTypeConvert(o, OBJ_ENCODING_HT, intsetLen(objectGetVal(o)));
    return o;
}


/* ---------------------------------------------------------------------------
 * Loading: hashes
 * ------------------------------------------------------------------------- */

/* RDB_TYPE_HASH: a count and field/value string pairs. */
static robj *rdbLoadHashPlain(rio *r, int *empty) {
    uint64_t len = rdbLoadLen(r, NULL);
    if (len == RDB_LENERR) return NULL;
    if (len == 0) {
        *empty = 1;
        return NULL;
    }
    robj *o = hashTypeCreateSized(rdbSizeHint(r, len, 2));
    for (uint64_t i = 0; i < len; i++) {
        size_t flen, vlen;
        char *field = rdbLoadString(r, RDB_LOAD_PLAIN, &flen);
        if (field == NULL) goto err;
        char *value = rdbLoadString(r, RDB_LOAD_PLAIN, &vlen);
        if (value == NULL) {
            zfree(field);
            goto err;
        }
        int added = hashTypeSet(o, field, flen, value, vlen);
        zfree(field);
        zfree(value);
        if (!added) goto err; /* duplicate field */
    }
    return o;
err:
    decrRefCount(o);
    return NULL;
}

/* Makes a set (OBJ_SET: distinct members), hash (OBJ_HASH: field/value
 * pairs) or sorted set (OBJ_ZSET: member/score pairs) of a listpack of
 * `size` bytes from any source, checking it deeply first (its header
 * against size, every entry, duplicates, scores). Takes lp. Converts to a
 * hashtable or skiplist when the value breaks the type's
 * max-listpack-entries/value. */
static robj *rdbObjectFromListpack(unsigned char *lp, size_t size, int type, int *empty) {
    size_t maxlen;
    unsigned long count;
    int stride = type == OBJ_SET ? 1 : 2;
    if (!rdbCheckListpack(lp, size, stride, type == OBJ_ZSET, &count, &maxlen)) {
        zfree(lp);
        return NULL;
    }
    if (count == 0) {
        zfree(lp);
        *empty = 1;
        return NULL;
    }
    robj *o = createObject(type, lp);
    o->encoding = OBJ_ENCODING_LISTPACK;
    unsigned long len = count / stride;
    if (type == OBJ_SET) {
        if (len > server.set_max_listpack_entries || maxlen > server.set_max_listpack_value)
            setTypeConvert(o, OBJ_ENCODING_HT, len);
    } else if (type == OBJ_HASH) {
        if (len > server.hash_max_listpack_entries || maxlen > server.hash_max_listpack_value)
            hashTypeConvertToHashtable(o, len);
    } else if (len > server.zset_max_listpack_entries || maxlen > server.zset_max_listpack_value) {
        zsetConvert(o, OBJ_ENCODING_SKIPLIST);
    }
    return o;
}

/* RDB_TYPE_SET_LISTPACK, RDB_TYPE_HASH_LISTPACK and RDB_TYPE_ZSET_LISTPACK:
 * the blob. */
static robj *rdbLoadListpackObject(rio *r, int type, int *empty) {
    size_t len;
    unsigned char *lp = rdbLoadBlob(r, &len);
    if (lp == NULL) return NULL;
    return rdbObjectFromListpack(lp, len, type, empty);
}

/* RDB_TYPE_HASH_ZIPLIST: field/value pairs in a ziplist. */
static robj *rdbLoadHashZiplist(rio *r, int *empty) {
    unsigned char *lp = rdbLoadZiplistAsListpack(r);
    if (lp == NULL) return NULL;
    return rdbObjectFromListpack(lp, lpBytes(lp), OBJ_HASH, empty);
}

static int zipmapToListpackPair(const unsigned char *key, unsigned int klen, const unsigned char *val,
                                unsigned int vlen, void *userdata) {
    unsigned char **lp = userdata;
    *lp = lpAppend(*lp, key, klen);
    *lp = lpAppend(*lp, val, vlen);
    return 1;
}

/* RDB_TYPE_HASH_ZIPMAP: the pairs of a zipmap. */
static robj *rdbLoadHashZipmap(rio *r, int *empty) {
    size_t len;
    unsigned char *zm = rdbLoadBlob(r, &len);
    if (zm == NULL) return NULL;
    unsigned char *lp = lpNew(len);
    int ok = zipmapValidateAndDecode(zm, len, zipmapToListpackPair, &lp, NULL);
    zfree(zm);
    if (!ok) {
        lpFree(lp);
        return NULL;
    }
    lp = lpShrinkToFit(lp);
    return rdbObjectFromListpack(lp, lpBytes(lp), OBJ_HASH, empty);
}

/* ---------------------------------------------------------------------------
 * Loading: sorted sets
 * ------------------------------------------------------------------------- */

/* RDB_TYPE_ZSET (scores as text) and RDB_TYPE_ZSET_2 (binary scores): a
 * count and member/score pairs, built as a skiplist and turned into a
 * listpack afterwards if it fits zset-max-listpack-entries/value. */
static robj *rdbLoadZsetPlain(rio *r, int rdbtype, int *empty) {
    uint64_t len = rdbLoadLen(r, NULL);
    if (len == RDB_LENERR) return NULL;
    if (len == 0) {
        *empty = 1;
        return NULL;
    }
    robj *o = zsetTypeCreate(rdbSizeHint(r, len, 2), SIZE_MAX);
    size_t maxelelen = 0, totelelen = 0;
    for (uint64_t i = 0; i < len; i++) {
        size_t mlen;
        char *member = rdbLoadString(r, RDB_LOAD_PLAIN, &mlen);
        if (member == NULL) goto err;
        double score;
        int ok = rdbtype == RDB_TYPE_ZSET_2 ? rdbLoadBinaryDouble(r, &score) : rdbLoadStringDouble(r, &score);
        if (ok != C_OK || isnan(score) || !zsetTypeAddNew(o, member, mlen, score)) {
            zfree(member);
            goto err;
        }
        zfree(member);
        if (mlen > maxelelen) maxelelen = mlen;
        totelelen += mlen;
    }
    zsetConvertToListpackIfNeeded(o, maxelelen, totelelen);
    return o;
err:
    decrRefCount(o);
    return NULL;
}

/* RDB_TYPE_ZSET_ZIPLIST: member/score pairs in a ziplist. */
static robj *rdbLoadZsetZiplist(rio *r, int *empty) {
    unsigned char *lp = rdbLoadZiplistAsListpack(r);
    if (lp == NULL) return NULL;
    return rdbObjectFromListpack(lp, lpBytes(lp), OBJ_ZSET, empty);
}

/* ---------------------------------------------------------------------------
 * Loading: dispatch
 * ------------------------------------------------------------------------- */

/* Loads the body of a list, set, hash, sorted set or stream of RDB type
 * rdbtype. Returns a new object (refcount 1, the caller's), or NULL: with
 * *empty set when the value was valid but had no elements, else because
 * the input was truncated, corrupt or hostile (nothing leaks). */
robj *rdbLoadCollection(rio *r, int rdbtype, int *empty) {
    *empty = 0;
    switch (rdbtype) {
    case RDB_TYPE_LIST: return rdbLoadListPlain(r, empty);
    case RDB_TYPE_LIST_ZIPLIST: return rdbLoadListZiplist(r, empty);
    case RDB_TYPE_LIST_QUICKLIST:
    case RDB_TYPE_LIST_QUICKLIST_2: return rdbLoadListQuicklist(r, rdbtype, empty);
    case RDB_TYPE_SET: return rdbLoadSetPlain(r, empty);
    case RDB_TYPE_SET_INTSET: return rdbLoadSetIntset(r, empty);
    case RDB_TYPE_SET_LISTPACK: return rdbLoadListpackObject(r, OBJ_SET, empty);
    case RDB_TYPE_HASH: return rdbLoadHashPlain(r, empty);
    case RDB_TYPE_HASH_ZIPMAP: return rdbLoadHashZipmap(r, empty);
    case RDB_TYPE_HASH_ZIPLIST: return rdbLoadHashZiplist(r, empty);
    case RDB_TYPE_HASH_LISTPACK: return rdbLoadListpackObject(r, OBJ_HASH, empty);
    case RDB_TYPE_ZSET:
    case RDB_TYPE_ZSET_2: return rdbLoadZsetPlain(r, rdbtype, empty);
    case RDB_TYPE_ZSET_ZIPLIST: return rdbLoadZsetZiplist(r, empty);
    case RDB_TYPE_ZSET_LISTPACK: return rdbLoadListpackObject(r, OBJ_ZSET, empty);
    case RDB_TYPE_STREAM_LISTPACKS:
    case RDB_TYPE_STREAM_LISTPACKS_2:
    case RDB_TYPE_STREAM_LISTPACKS_3: return rdbLoadStream(r, rdbtype, empty);
    default: return NULL;
    }
}
