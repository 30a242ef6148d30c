/* t_hash.c - the hash type: HSET and friends, reads (HGET, HMGET, HGETALL,
 * HKEYS, HVALS, HLEN, HSTRLEN, HEXISTS), counters (HINCRBY, HINCRBYFLOAT),
 * HRANDFIELD and HSCAN.
 *
 * A hash value is an robj of type OBJ_HASH in one of two encodings:
 *   LISTPACK   small hashes: field, value, field, value ... in one listpack
 *              (listpack.c), while there are at most hash-max-listpack-entries
 *              fields and no field or value is longer than
 *              hash-max-listpack-value bytes. Lookups are linear.
 *   HT         a hashtable (hashtable.c) of entries that each hold a field
 *              and its value in one allocation (layout below); OBJECT
 *              ENCODING still calls it "hashtable".
 * A hash starts as a listpack and converts once, for good, when a write
 * would break either limit (HSET with more new pairs than the entry limit
 * converts before inserting). Deleting fields never converts back, as in
 * Valkey.
 *
 * Commands use the hashType* layer below (get, set, delete, iterate,
 * random field) and never branch on the encoding themselves. Values read
 * from a listpack may come back as integers (the listpack stores canonical
 * decimal strings as numbers); the layer hands them out as text or number
 * and the reply helpers print them identically.
 *
 * Modifications bump server.dirty, call signalModifiedKey() and fire
 * Valkey's events ("hset", "hdel", "hincrby", "hincrbyfloat", and "del"
 * when the last field goes). HINCRBYFLOAT is propagated as the HSET of its
 * result. objectMethods[OBJ_HASH] (free, size, dup,
 * digest) is registered by hashTypeInit(); RDB, AOF rewrite and HSCAN read
 * hashtable entries through hashTypeEntryField()/hashTypeEntryValue() and
 * hashTypeScan(). */
#include "server.h"
#include "listpack.h"

#include <math.h>

/* ---------------------------------------------------------------------------
 * Hashtable encoding: one allocation per field
 *
 * An entry of a hashtable-encoded hash is a single block:
 *
 *   [sds header][field]\0[value length][value]\0
 *
 * The table holds a pointer to the field, a read-only sds built in place
 * by sdsnewInBuffer(), so an entry is its own key: the table hashes and
 * compares it with the sds functions and any sds is a lookup key. The
 * value follows the field's terminator, its length stored in base 128,
 * seven bits a byte, low bits first (one byte up to 127), so an 8-byte
 * field with an 8-byte value takes 22 bytes. The value is not an sds:
 * readers get its bytes and length (hashTypeEntryValue()). An update that
 * keeps the value's length rewrites it in place; any other builds a new
 * entry and swaps it into the same slot.
 * ------------------------------------------------------------------------- */

static size_t hashVarintLen(size_t v) {
    size_t n = 1;
    while (v >= 128) {
        v >>= 7;
        n++;
    }
    return n;
}

static unsigned char *hashVarintWrite(unsigned char *p, size_t v) {
    while (v >= 128) {
        *p++ = (unsigned char)(v | 128);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static const unsigned char *hashVarintRead(const unsigned char *p, size_t *v) {
    size_t r = 0;
    int shift = 0;
    while (*p & 128) {
        r |= (size_t)(*p++ & 127) << shift;
        shift += 7;
    }
    *v = r | (size_t)*p++ << shift;
    return p;
}

/* A new entry holding copies of field and value. */
static sds hashEntryCreate(const char *field, size_t flen, const char *value, size_t vlen) {
    size_t fsize = sdsEmbeddedSize(flen);
    char *buf = zmalloc(fsize + hashVarintLen(vlen) + vlen + 1);
    sds f = sdsnewInBuffer(buf, field, flen);
    unsigned char *v = hashVarintWrite((unsigned char *)buf + fsize, vlen);
    memcpy(v, value, vlen);
    v[vlen] = '\0';
    return f;
}

static void hashEntryFree(void *entry) {
    zfree(sdsAllocPtr(entry));
}

static size_t hashEntryAllocSize(const void *entry) {
    return zmalloc_size(sdsAllocPtr((const sds)entry));
}

/* The field of a hashtable hash's entry: an sds that lives as long as the
 * entry; never free or grow it. Any context. */
sds hashTypeEntryField(const void *entry) {
    return (sds)entry;
}

/* The value of a hashtable hash's entry: its bytes (borrowed, valid while
 * the entry is, followed by a NUL) and their number in *len. */
const char *hashTypeEntryValue(const void *entry, size_t *len) {
    sds f = (sds)entry;
    return (const char *)hashVarintRead((const unsigned char *)f + sdslen(f) + 1, len);
}

/* The table owns its entries and frees them when it drops them. */
static hashtableType hashHashtableType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .entryDestructor = hashEntryFree,
};

/* Borrowed entries (no destructor): HRANDFIELD's scratch table. */
static hashtableType hashBorrowHashtableType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
};

/* ---------------------------------------------------------------------------
 * The hashType layer
 * ------------------------------------------------------------------------- */

/* A field or value read out of a hash: bytes, or (s == NULL) an integer
 * from a listpack. Pointers borrow from the hash. */
typedef struct hashItem {
    const char *s;
    size_t len;
    long long ll;
} hashItem;

static void addReplyHashItem(client *c, const hashItem *h) {
    if (h->s) addReplyBulkCBuffer(c, h->s, h->len);
    else addReplyBulkLongLong(c, h->ll);
}

static sds hashItemToSds(const hashItem *h) {
    if (h->s) return sdsnewlen(h->s, h->len);
    return sdsfromlonglong(h->ll);
}

static size_t hashItemLen(const hashItem *h) {
    return h->s ? h->len : sdigits10(h->ll);
}

static void hashItemFromListpack(unsigned char *p, hashItem *h) {
    unsigned int slen;
    long long lval;
    unsigned char *s = lpGetValue(p, &slen, &lval);
    h->s = (const char *)s;
    h->len = s ? slen : 0;
    h->ll = s ? 0 : lval;
}

/* The item's bytes: h's own, or the integer printed into buf. */
static const char *hashItemBytes(const hashItem *h, char *buf, size_t *len) {
    if (h->s) {
        *len = h->len;
        return h->s;
    }
    *len = (size_t)ll2string(buf, LONG_STR_SIZE, h->ll);
    return buf;
}

/* Fills field and value (either may be NULL) from a hashtable entry. */
static void hashItemsFromEntry(const void *entry, hashItem *field, hashItem *value) {
    if (field) {
        field->s = (const char *)entry;
        field->len = sdslen((const sds)entry);
        field->ll = 0;
    }
    if (value) {
        value->s = hashTypeEntryValue(entry, &value->len);
        value->ll = 0;
    }
}

static unsigned long randomBelow(unsigned long n) {
    uint64_t r = ((uint64_t)rand() << 62) ^ ((uint64_t)rand() << 31) ^ (uint64_t)rand();
    return (unsigned long)(r % n);
}

static robj *hashTypeCreate(void) {
    robj *o = createObject(OBJ_HASH, lpNew(0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

unsigned long hashTypeLength(const robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return lpLength(objectGetVal(o)) / 2;
    if (o->encoding == OBJ_ENCODING_HT) return hashtableSize((const hashtable *)objectGetVal(o));
    serverPanic("Unknown hash encoding");
}

/* A new empty hash for size_hint fields: a listpack when the hint fits
 * hash-max-listpack-entries, else a hashtable sized for it (the RDB
 * loader, which knows the count up front). */
robj *hashTypeCreateSized(size_t size_hint) {
    robj *o = hashTypeCreate();
    if (size_hint > server.hash_max_listpack_entries) hashTypeConvertToHashtable(o, size_hint);
    return o;
}

/* The entry of `field` in a hash listpack, or NULL. */
static unsigned char *listpackFindField(unsigned char *lp, const char *field, size_t flen) {
    unsigned char *first = lpFirst(lp);
    if (first == NULL) return NULL;
    return lpFind(lp, first, (const unsigned char *)field, flen, 1);
}

/* Looks up field (an sds: a hashtable looks it up as it is). Returns 1
 * and fills *value if present, else 0. */
static int hashTypeGet(robj *o, sds field, hashItem *value) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *p = listpackFindField(objectGetVal(o), field, sdslen(field));
        if (p == NULL) return 0;
        hashItemFromListpack(lpNext(objectGetVal(o), p), value);
        return 1;
    }
    void *entry;
    if (!hashtableFind(objectGetVal(o), field, &entry)) return 0;
    hashItemsFromEntry(entry, NULL, value);
    return 1;
}

/* The value of field as a new string object (the caller owns it), or NULL
 * if o has no such field. SORT's BY and GET patterns. */
robj *hashTypeGetValueObject(robj *o, const char *field, size_t flen) {
    hashItem v;
    sdsTemp key;
    int found = hashTypeGet(o, sdsTempInit(&key, field, flen), &v);
    robj *value = NULL;
    if (found) value = v.s ? createStringObject(v.s, v.len) : createStringObjectFromLongLong(v.ll);
    sdsTempRelease(&key);
    return value;
}

static int hashTypeExists(robj *o, sds field) {
    hashItem v;
    return hashTypeGet(o, field, &v);
}

/* Iteration over field/value pairs; the hash must not change meanwhile. */
typedef struct hashIter {
    robj *o;
    unsigned char *fp;    /* LISTPACK: next field entry */
    hashtableIterator hi; /* HT */
} hashIter;

static void hashIterInit(hashIter *it, robj *o) {
    it->o = o;
    it->fp = NULL;
    if (o->encoding == OBJ_ENCODING_LISTPACK) it->fp = lpFirst(objectGetVal(o));
    else hashtableInitIterator(&it->hi, objectGetVal(o), 0);
}

/* Fills the next pair; returns 0 at the end. */
static int hashIterNext(hashIter *it, hashItem *field, hashItem *value) {
    if (it->o->encoding == OBJ_ENCODING_LISTPACK) {
        if (it->fp == NULL) return 0;
        unsigned char *vp = lpNext(objectGetVal(it->o), it->fp);
        hashItemFromListpack(it->fp, field);
        hashItemFromListpack(vp, value);
        it->fp = lpNext(objectGetVal(it->o), vp);
        return 1;
    }
    void *entry;
    if (!hashtableNext(&it->hi, &entry)) return 0;
    hashItemsFromEntry(entry, field, value);
    return 1;
}

static void hashIterRelease(hashIter *it) {
    if (it->o->encoding == OBJ_ENCODING_HT) hashtableResetIterator(&it->hi);
}

/* A new hashtable holding copies of every pair of the hash o (either
 * encoding), sized for at least size_hint fields. */
static hashtable *hashCopyToHashtable(robj *o, size_t size_hint) {
    hashtable *ht = hashtableCreate(&hashHashtableType);
    unsigned long len = hashTypeLength(o);
    hashtableExpand(ht, size_hint > len ? size_hint : len);
    hashIter it;
    hashItem f, v;
    hashIterInit(&it, o);
    while (hashIterNext(&it, &f, &v)) {
        char fbuf[LONG_STR_SIZE], vbuf[LONG_STR_SIZE];
        size_t flen, vlen;
        const char *field = hashItemBytes(&f, fbuf, &flen), *value = hashItemBytes(&v, vbuf, &vlen);
        sds entry = hashEntryCreate(field, flen, value, vlen);
        if (!hashtableAdd(ht, entry)) serverPanic("Listpack corruption detected: duplicate field in hash");
    }
    hashIterRelease(&it);
    return ht;
}

/* Converts a listpack hash to a hashtable sized for size_hint fields. */
void hashTypeConvertToHashtable(robj *o, size_t size_hint) {
    serverAssert(o->encoding == OBJ_ENCODING_LISTPACK);
    hashtable *ht = hashCopyToHashtable(o, size_hint);
    lpFree(objectGetVal(o));
    objectSetVal(o, ht);
    o->encoding = OBJ_ENCODING_HT;
}

/* Before writing the pairs argv[first .. last] into o: converts a listpack
 * that would certainly exceed hash-max-listpack-entries (more new pairs
 * than the limit, duplicates or not) or that would receive a field/value
 * longer than hash-max-listpack-value. */
static void hashTypeTryConversion(robj *o, robj **argv, int first, int last) {
    if (o->encoding != OBJ_ENCODING_LISTPACK) return;
    size_t pairs = (size_t)(last - first + 1) / 2, total = 0;
    if (pairs > server.hash_max_listpack_entries) {
        hashTypeConvertToHashtable(o, pairs);
        return;
    }
    for (int j = first; j <= last; j++) {
        if (!sdsEncodedObject(argv[j])) continue;
        size_t len = sdslen(objectGetVal(argv[j]));
        if (len > server.hash_max_listpack_value) {
            hashTypeConvertToHashtable(o, 0);
            return;
        }
        total += len;
    }
    if (!lpSafeToAdd(objectGetVal(o), total)) hashTypeConvertToHashtable(o, 0);
}

/* hashTypeSet() on a hashtable: field (borrowed) gets a copy of value, in
 * a new entry if the field is new (then returns 1) or if the value's
 * length changes (the new entry takes the old one's slot). */
static int hashHashtableSet(hashtable *ht, sds field, const char *value, size_t vlen) {
    hashtablePosition pos;
    void *existing;
    if (hashtableFindPositionForInsert(ht, field, &pos, &existing)) {
        hashtableInsertAtPosition(ht, hashEntryCreate(field, sdslen(field), value, vlen), &pos);
        return 1;
    }
    size_t oldlen;
    char *old = (char *)hashTypeEntryValue(existing, &oldlen);
    if (oldlen == vlen) {
        memmove(old, value, vlen); /* memmove: value may be the old one */
        return 0;
    }
    sds f = existing;
    sds entry = hashEntryCreate(f, sdslen(f), value, vlen);
    void **ref = hashtableFindRef(ht, field);
    serverAssert(ref != NULL && *ref == existing);
    *ref = entry;
    hashEntryFree(existing);
    return 0;
}

/* Sets field to value (both borrowed: copied as needed). Returns 1 if the
 * field is new, 0 if an existing value was replaced. Converts to a
 * hashtable when the listpack limits would be exceeded. */
int hashTypeSet(robj *o, const char *field, size_t flen, const char *value, size_t vlen) {
    if (o->encoding == OBJ_ENCODING_LISTPACK &&
        (flen > server.hash_max_listpack_value || vlen > server.hash_max_listpack_value))
        hashTypeConvertToHashtable(o, 0);

    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = objectGetVal(o);
        unsigned char *fp = listpackFindField(lp, field, flen);
        if (fp) {
            unsigned char *vp = lpNext(lp, fp);
            objectSetVal(o, lpReplace(lp, &vp, (const unsigned char *)value, vlen));
            return 0;
        }
        lp = lpAppend(lp, (const unsigned char *)field, flen);
        lp = lpAppend(lp, (const unsigned char *)value, vlen);
        objectSetVal(o, lp);
        if (hashTypeLength(o) > server.hash_max_listpack_entries) hashTypeConvertToHashtable(o, 0);
        return 1;
    }

    sdsTemp f;
    int added = hashHashtableSet(objectGetVal(o), sdsTempInit(&f, field, flen), value, vlen);
    sdsTempRelease(&f);
    return added;
}

/* hashTypeSet() of an sds field, which a hashtable looks up as it is. */
static int hashTypeSetSds(robj *o, sds field, const char *value, size_t vlen) {
    if (o->encoding == OBJ_ENCODING_HT) return hashHashtableSet(objectGetVal(o), field, value, vlen);
    return hashTypeSet(o, field, sdslen(field), value, vlen);
}

static int hashTypeSetObjects(robj *o, robj *field, robj *value) {
    /* The common case: a hashtable and text arguments, whose sds the table
     * can look up (and copy into a new entry) as it is. */
    if (o->encoding == OBJ_ENCODING_HT && sdsEncodedObject(field) && sdsEncodedObject(value))
        return hashHashtableSet(objectGetVal(o), objectGetVal(field), objectGetVal(value), sdslen(objectGetVal(value)));
    robj *f = getDecodedObject(field), *v = getDecodedObject(value);
    int added = hashTypeSet(o, objectGetVal(f), sdslen(objectGetVal(f)), objectGetVal(v), sdslen(objectGetVal(v)));
    decrRefCount(f);
    decrRefCount(v);
    return added;
}

/* Deletes field. Returns 1 if it existed. */
static int hashTypeDelete(robj *o, sds field) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *p = listpackFindField(objectGetVal(o), field, sdslen(field));
        if (p == NULL) return 0;
        objectSetVal(o, lpDeleteRangeWithEntry(objectGetVal(o), &p, 2));
        return 1;
    }
    return hashtableDelete(objectGetVal(o), field);
}

/* Fills a uniformly chosen pair of a non-empty hash. */
static void hashTypeRandom(robj *o, hashItem *field, hashItem *value) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *fp = lpSeek(objectGetVal(o), (long)(2 * randomBelow(hashTypeLength(o))));
        hashItemFromListpack(fp, field);
        hashItemFromListpack(lpNext(objectGetVal(o), fp), value);
        return;
    }
    void *entry;
    hashtableFairRandomEntry(objectGetVal(o), &entry);
    hashItemsFromEntry(entry, field, value);
}

/* Appends every field (and, with with_values, each field's value right
 * after it) as new sds strings to out. Used by HSCAN (db.c) for listpack
 * hashes, which are returned whole in one call. */
void hashTypeCollectAll(robj *hash, list *out, int with_values) {
    hashIter it;
    hashItem f, v;
    hashIterInit(&it, hash);
    while (hashIterNext(&it, &f, &v)) {
        listAddNodeTail(out, hashItemToSds(&f));
        if (with_values) listAddNodeTail(out, hashItemToSds(&v));
    }
    hashIterRelease(&it);
}

typedef struct hashScanData {
    list *out;
    int with_values;
} hashScanData;

static void hashScanCallback(void *privdata, void *entry) {
    hashScanData *data = privdata;
    hashItem f, v;
    hashItemsFromEntry(entry, &f, &v);
    listAddNodeTail(data->out, hashItemToSds(&f));
    if (data->with_values) listAddNodeTail(data->out, hashItemToSds(&v));
}

/* One step of HSCAN over a hashtable-encoded hash: appends the fields
 * (and, with with_values, each one's value after it) found at cursor to
 * out as new sds strings, and returns the next cursor (0: done). Same
 * guarantee as hashtableScan(): every field present for the whole scan is
 * returned at least once. Event loop (db.c's scanGenericCommand()). */
unsigned long hashTypeScan(robj *hash, unsigned long cursor, list *out, int with_values) {
    serverAssert(hash->encoding == OBJ_ENCODING_HT);
    hashScanData data = {out, with_values};
    return hashtableScan(objectGetVal(hash), cursor, hashScanCallback, &data);
}

/* Looks the key up for writing; creates (and adds) an empty hash when it
 * is missing. Returns NULL after replying WRONGTYPE. */
static robj *hashTypeLookupWriteOrCreate(client *c, robj *key) {
    robj *o = lookupKeyWrite(c->db, key);
    if (checkType(c, o, OBJ_HASH)) return NULL;
    if (o == NULL) {
        o = hashTypeCreate();
        dbAdd(c->db, key, &o);
    }
    return o;
}

/* ---------------------------------------------------------------------------
 * Object methods: free, free effort, size, dup, digest
 * ------------------------------------------------------------------------- */

static size_t hashTypeFreeEffort(robj *o) {
    return o->encoding == OBJ_ENCODING_HT ? hashtableSize((hashtable *)objectGetVal(o)) : 1;
}

static void hashTypeFree(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) lpFree(objectGetVal(o));
    else if (o->encoding == OBJ_ENCODING_HT) hashtableRelease(objectGetVal(o));
    else serverPanic("Unknown hash encoding");
}

/* Bytes used by the value (robj header excluded). Hashtables are sampled:
 * the average entry of up to sample_size fields times the field count. */
static size_t hashTypeMemory(robj *o, size_t sample_size) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return lpBytes(objectGetVal(o));
    hashtable *ht = objectGetVal(o);
    size_t total = hashtableMemUsage(ht);
    if (hashtableSize(ht) == 0 || sample_size == 0) return total;
    hashtableIterator hi;
    hashtableInitIterator(&hi, ht, 0);
    void *entry;
    size_t sampled = 0, bytes = 0;
    while (sampled < sample_size && hashtableNext(&hi, &entry)) {
        bytes += hashEntryAllocSize(entry);
        sampled++;
    }
    hashtableResetIterator(&hi);
    return total + (size_t)((double)bytes / sampled * hashtableSize(ht));
}

/* Deep copy with the same encoding (COPY). */
static robj *hashTypeDup(robj *o) {
    robj *copy;
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        copy = createObject(OBJ_HASH, lpDup(objectGetVal(o)));
        copy->encoding = OBJ_ENCODING_LISTPACK;
        return copy;
    }
    copy = createObject(OBJ_HASH, hashCopyToHashtable(o, 0));
    copy->encoding = OBJ_ENCODING_HT;
    return copy;
}

/* Digest: each pair mixed in order (field, then value), pairs combined
 * order-independently, so both encodings digest alike. */
static void hashTypeDigest(robj *o, unsigned char *digest) {
    hashIter it;
    hashItem f, v;
    char buf[LONG_STR_SIZE];
    hashIterInit(&it, o);
    while (hashIterNext(&it, &f, &v)) {
        unsigned char pair[20];
        memset(pair, 0, sizeof(pair));
        if (f.s) mixDigest(pair, f.s, f.len);
        else mixDigest(pair, buf, ll2string(buf, sizeof(buf), f.ll));
        if (v.s) mixDigest(pair, v.s, v.len);
        else mixDigest(pair, buf, ll2string(buf, sizeof(buf), v.ll));
        xorDigest(digest, pair, sizeof(pair));
    }
    hashIterRelease(&it);
}

/* Registers the hash type's methods. Called once by initServer(). */
void hashTypeInit(void) {
    objectMethods[OBJ_HASH].free = hashTypeFree;
    objectMethods[OBJ_HASH].size = hashTypeMemory;
    objectMethods[OBJ_HASH].dup = hashTypeDup;
    objectMethods[OBJ_HASH].digest = hashTypeDigest;
    objectMethods[OBJ_HASH].free_effort = hashTypeFreeEffort;
}

/* ---------------------------------------------------------------------------
 * Writes: HSET, HMSET, HSETNX, HDEL, HINCRBY, HINCRBYFLOAT
 * ------------------------------------------------------------------------- */

/* HSET key field value [field value ...] (replies the number of new
 * fields) and HMSET (replies OK). */
static void hsetGenericCommand(client *c, int is_hmset) {
    if (c->argc % 2 == 1) {
        addReplyErrorArity(c);
        return;
    }
    robj *o = hashTypeLookupWriteOrCreate(c, c->argv[1]);
    if (o == NULL) return;
    hashTypeTryConversion(o, c->argv, 2, c->argc - 1);
    long long created = 0;
    for (int j = 2; j < c->argc; j += 2) created += hashTypeSetObjects(o, c->argv[j], c->argv[j + 1]);

    if (is_hmset) addReply(c, shared.ok);
    else addReplyLongLong(c, created);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_HASH, "hset", c->argv[1], c->db->id);
    server.dirty += (c->argc - 2) / 2;
}

static void hsetCommand(client *c) {
    hsetGenericCommand(c, 0);
}

static void hmsetCommand(client *c) {
    hsetGenericCommand(c, 1);
}

static void hsetnxCommand(client *c) {
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (checkType(c, o, OBJ_HASH)) return;
    if (o && hashTypeExists(o, objectGetVal(c->argv[2]))) {
        addReply(c, shared.czero);
        return;
    }
    if (o == NULL) {
        o = hashTypeCreate();
        dbAdd(c->db, c->argv[1], &o);
    }
    hashTypeTryConversion(o, c->argv, 2, 3);
    hashTypeSetObjects(o, c->argv[2], c->argv[3]);
    addReply(c, shared.cone);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_HASH, "hset", c->argv[1], c->db->id);
    server.dirty++;
}

static void hdelCommand(client *c) {
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    long long deleted = 0;
    int keyremoved = 0;
    for (int j = 2; j < c->argc; j++) {
        deleted += hashTypeDelete(o, objectGetVal(c->argv[j]));
        if (hashTypeLength(o) == 0) {
            dbDelete(c->db, c->argv[1]);
            keyremoved = 1;
            break;
        }
    }
    if (deleted) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_HASH, "hdel", c->argv[1], c->db->id);
        if (keyremoved) notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
        server.dirty += deleted;
    }
    addReplyLongLong(c, deleted);
}

static void hincrbyCommand(client *c) {
    long long incr, value = 0;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &incr, NULL) != C_OK) return;
    robj *o = hashTypeLookupWriteOrCreate(c, c->argv[1]);
    if (o == NULL) return;
    sds field = objectGetVal(c->argv[2]);
    hashItem cur;
    if (hashTypeGet(o, field, &cur)) {
        if (cur.s == NULL) {
            value = cur.ll;
        } else if (!string2ll(cur.s, cur.len, &value)) {
            addReplyError(c, "hash value is not an integer");
            return;
        }
    }
    if ((incr < 0 && value < 0 && incr < (LLONG_MIN - value)) ||
        (incr > 0 && value > 0 && incr > (LLONG_MAX - value))) {
        addReplyError(c, "increment or decrement would overflow");
        return;
    }
    value += incr;
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), value);
    hashTypeSetSds(o, field, buf, len);
    addReplyLongLong(c, value);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_HASH, "hincrby", c->argv[1], c->db->id);
    server.dirty++;
}

static void hincrbyfloatCommand(client *c) {
    long double incr, value = 0;
    if (getLongDoubleFromObjectOrReply(c, c->argv[3], &incr, NULL) != C_OK) return;
    if (isnan(incr) || isinf(incr)) {
        addReplyError(c, "value is NaN or Infinity");
        return;
    }
    robj *o = hashTypeLookupWriteOrCreate(c, c->argv[1]);
    if (o == NULL) return;
    sds field = objectGetVal(c->argv[2]);
    hashItem cur;
    if (hashTypeGet(o, field, &cur)) {
        if (cur.s == NULL) {
            value = cur.ll;
        } else if (!string2ld(cur.s, cur.len, &value)) {
            addReplyError(c, "hash value is not a float");
            return;
        }
    }
    value += incr;
    if (isnan(value) || isinf(value)) {
        addReplyError(c, "increment would produce NaN or Infinity");
        return;
    }
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof(buf), value, LD_STR_HUMAN);
    hashTypeSetSds(o, field, buf, len);
    addReplyBulkCBuffer(c, buf, len);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_HASH, "hincrbyfloat", c->argv[1], c->db->id);
    server.dirty++;
    /* Propagated as the value itself, "HSET key field value": float
     * arithmetic and formatting must not be replayed elsewhere. */
    robj *hset = createStringObject("HSET", 4);
    robj *newval = createStringObject(buf, len);
    rewriteClientCommandVector(c, 4, hset, c->argv[1], c->argv[2], newval);
    decrRefCount(hset);
    decrRefCount(newval);
}

/* ---------------------------------------------------------------------------
 * Reads
 * ------------------------------------------------------------------------- */

static void addReplyFieldValue(client *c, robj *o, sds field) {
    hashItem v;
    if (o && hashTypeGet(o, field, &v)) addReplyHashItem(c, &v);
    else addReplyNull(c);
}

static void hgetCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    addReplyFieldValue(c, o, objectGetVal(c->argv[2]));
}

static void hmgetCommand(client *c) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (checkType(c, o, OBJ_HASH)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) addReplyFieldValue(c, o, objectGetVal(c->argv[j]));
}

static void hlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    addReplyLongLong(c, hashTypeLength(o));
}

static void hstrlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    sds field = objectGetVal(c->argv[2]);
    hashItem v;
    addReplyLongLong(c, hashTypeGet(o, field, &v) ? (long long)hashItemLen(&v) : 0);
}

static void hexistsCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    addReply(c, hashTypeExists(o, objectGetVal(c->argv[2])) ? shared.cone : shared.czero);
}

#define HASH_REPLY_FIELDS (1 << 0)
#define HASH_REPLY_VALUES (1 << 1)

/* HKEYS, HVALS, HGETALL. */
static void genericHgetallCommand(client *c, int what) {
    int both = (what & HASH_REPLY_FIELDS) && (what & HASH_REPLY_VALUES);
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReply(c, both ? shared.emptymap[c->resp] : shared.emptyarray);
        return;
    }
    if (checkType(c, o, OBJ_HASH)) return;
    unsigned long len = hashTypeLength(o);
    if (both) addReplyMapLen(c, len);
    else addReplyArrayLen(c, len);
    hashIter it;
    hashItem f, v;
    hashIterInit(&it, o);
    while (hashIterNext(&it, &f, &v)) {
        if (what & HASH_REPLY_FIELDS) addReplyHashItem(c, &f);
        if (what & HASH_REPLY_VALUES) addReplyHashItem(c, &v);
    }
    hashIterRelease(&it);
}

static void hkeysCommand(client *c) {
    genericHgetallCommand(c, HASH_REPLY_FIELDS);
}

static void hvalsCommand(client *c) {
    genericHgetallCommand(c, HASH_REPLY_VALUES);
}

static void hgetallCommand(client *c) {
    genericHgetallCommand(c, HASH_REPLY_FIELDS | HASH_REPLY_VALUES);
}

/* ---------------------------------------------------------------------------
 * HRANDFIELD
 * ------------------------------------------------------------------------- */

/* One field (and its value) of an HRANDFIELD count reply: in RESP3 each
 * WITHVALUES pair is a two-element array, in RESP2 the pairs are flat. */
static void addReplyRandomPair(client *c, const hashItem *f, const hashItem *v, int withvalues) {
    if (withvalues && c->resp > 2) addReplyArrayLen(c, 2);
    addReplyHashItem(c, f);
    if (withvalues) addReplyHashItem(c, v);
}

static void hrandfieldWithCountCommand(client *c, long l, int withvalues) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    int unique = l >= 0;
    unsigned long count = unique ? (unsigned long)l : (unsigned long)-l;
    if (count == 0) {
        addReply(c, shared.emptyarray);
        return;
    }
    unsigned long size = hashTypeLength(o);
    int flat = withvalues && c->resp == 2; /* RESP2 WITHVALUES: 2 items per pick */
    hashIter it;
    hashItem f, v;

    if (!unique || count == 1) {
        addReplyArrayLen(c, count * (flat ? 2 : 1));
        if (o->encoding == OBJ_ENCODING_LISTPACK) {
            /* Index the pairs once so each draw is O(1). A huge count
             * stops when the client is dropped for its output buffer limit. */
            hashItem *pairs = zmalloc(sizeof(hashItem) * 2 * size);
            unsigned long n = 0;
            hashIterInit(&it, o);
            while (hashIterNext(&it, &pairs[2 * n], &pairs[2 * n + 1])) n++;
            hashIterRelease(&it);
            while (count-- && !(c->flags & CLIENT_CLOSE_ASAP)) {
                unsigned long k = randomBelow(n);
                addReplyRandomPair(c, &pairs[2 * k], &pairs[2 * k + 1], withvalues);
            }
            zfree(pairs);
        } else {
            while (count-- && !(c->flags & CLIENT_CLOSE_ASAP)) {
                hashTypeRandom(o, &f, &v);
                addReplyRandomPair(c, &f, &v, withvalues);
            }
        }
        return;
    }

    if (count >= size) {
        addReplyArrayLen(c, size * (flat ? 2 : 1));
        hashIterInit(&it, o);
        while (hashIterNext(&it, &f, &v)) addReplyRandomPair(c, &f, &v, withvalues);
        hashIterRelease(&it);
        return;
    }

    addReplyArrayLen(c, count * (flat ? 2 : 1));
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        /* Selection sampling: one pass, every subset equally likely. */
        unsigned long left = size, need = count;
        hashIterInit(&it, o);
        while (need && hashIterNext(&it, &f, &v)) {
            if (randomBelow(left) < need) {
                addReplyRandomPair(c, &f, &v, withvalues);
                need--;
            }
            left--;
        }
        hashIterRelease(&it);
        return;
    }

    /* Hashtable: distinct picks collected in a scratch table that borrows
     * the hash's entries. Near the full size, copy all and drop random ones
     * instead of drawing until enough distinct ones appear. */
    hashtable *ht = objectGetVal(o);
    hashtable *pick = hashtableCreate(&hashBorrowHashtableType);
    hashtableExpand(pick, count * 3 > size ? size : count);
    hashtableIterator hi;
    void *entry;
    if (count * 3 > size) {
        hashtableInitIterator(&hi, ht, 0);
        while (hashtableNext(&hi, &entry)) hashtableAdd(pick, entry);
        hashtableResetIterator(&hi);
        while (hashtableSize(pick) > count) {
            hashtableFairRandomEntry(pick, &entry);
            hashtableDelete(pick, entry);
        }
    } else {
        while (hashtableSize(pick) < count) {
            hashtableFairRandomEntry(ht, &entry);
            hashtableAdd(pick, entry);
        }
    }
    hashtableInitIterator(&hi, pick, 0);
    while (hashtableNext(&hi, &entry)) {
        hashItemsFromEntry(entry, &f, &v);
        addReplyRandomPair(c, &f, &v, withvalues);
    }
    hashtableResetIterator(&hi);
    hashtableRelease(pick);
}

/* HRANDFIELD key [count [WITHVALUES]] */
static void hrandfieldCommand(client *c) {
    if (c->argc >= 3) {
        long l;
        int withvalues = 0;
        if (getRangeLongFromObjectOrReply(c, c->argv[2], -LONG_MAX, LONG_MAX, &l, NULL) != C_OK) return;
        if (c->argc > 4 || (c->argc == 4 && strcasecmp(objectGetVal(c->argv[3]), "withvalues"))) {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        } else if (c->argc == 4) {
            withvalues = 1;
            /* The reply holds 2*|count| items: keep that representable. */
            if (l < -LONG_MAX / 2 || l > LONG_MAX / 2) {
                addReplyError(c, "value is out of range");
                return;
            }
        }
        hrandfieldWithCountCommand(c, l, withvalues);
        return;
    }
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    hashItem f, v;
    hashTypeRandom(o, &f, &v);
    addReplyHashItem(c, &f);
}

/* ---------------------------------------------------------------------------
 * HSCAN
 * ------------------------------------------------------------------------- */

static void hscanCommand(client *c) {
    unsigned long cursor;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) == C_ERR) return;
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReplyArrayLen(c, 2);
        addReplyBulkCBuffer(c, "0", 1);
        addReplyArrayLen(c, 0);
        return;
    }
    if (checkType(c, o, OBJ_HASH)) return;
    scanGenericCommand(c, o, cursor);
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

#define HASH_WRITE (CMD_WRITE | CMD_DENYOOM)

struct serverCommand hashCommands[] = {
    {.name = "hset", .proc = hsetCommand, .arity = -4, .flags = HASH_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "2.0.0",
     .summary = "Creates or modifies the value of a field in a hash.",
     .complexity = "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is "
                   "called with multiple field/value pairs.",
     .args = "key field value [field value ...]"},
    {.name = "hmset", .proc = hmsetCommand, .arity = -4, .flags = HASH_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "2.0.0",
     .summary = "Sets the values of multiple fields.", .complexity = "O(N) where N is the number of fields being set.",
     .args = "key field value [field value ...]"},
    {.name = "hsetnx", .proc = hsetnxCommand, .arity = 4, .flags = HASH_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "2.0.0",
     .summary = "Sets the value of a field in a hash only when the field doesn't exist.", .complexity = "O(1)",
     .args = "key field value"},
    {.name = "hdel", .proc = hdelCommand, .arity = -3, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "2.0.0",
     .summary = "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.",
     .complexity = "O(N) where N is the number of fields to be removed.",
     .args = "key field [field ...]"},
    {.name = "hincrby", .proc = hincrbyCommand, .arity = 4, .flags = HASH_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "2.0.0",
     .summary = "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the "
                "field doesn't exist.",
     .complexity = "O(1)",
     .args = "key field increment"},
    {.name = "hincrbyfloat", .proc = hincrbyfloatCommand, .arity = 4, .flags = HASH_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "2.6.0",
     .summary = "Increments the floating point value of a field by a number. Uses 0 as initial value if the field "
                "doesn't exist.",
     .complexity = "O(1)",
     .args = "key field increment:double"},
    {.name = "hget", .proc = hgetCommand, .arity = 3, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "2.0.0",
     .summary = "Returns the value of a field in a hash.", .complexity = "O(1)",
     .args = "key field"},
    {.name = "hmget", .proc = hmgetCommand, .arity = -3, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "2.0.0",
     .summary = "Returns the values of all fields in a hash.",
     .complexity = "O(N) where N is the number of fields being requested.",
     .args = "key field [field ...]"},
    {.name = "hlen", .proc = hlenCommand, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "2.0.0",
     .summary = "Returns the number of fields in a hash.", .complexity = "O(1)",
     .args = "key"},
    {.name = "hstrlen", .proc = hstrlenCommand, .arity = 3, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "3.2.0",
     .summary = "Returns the length of the value of a field.", .complexity = "O(1)",
     .args = "key field"},
    {.name = "hexists", .proc = hexistsCommand, .arity = 3, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "2.0.0",
     .summary = "Determines whether a field exists in a hash.", .complexity = "O(1)",
     .args = "key field"},
    {.name = "hkeys", .proc = hkeysCommand, .arity = 2, .flags = CMD_READONLY, .acl_categories = ACL_CATEGORY_HASH,
     .key = {1, 1, 1}, .group = "hash", .since = "2.0.0", .summary = "Returns all fields in a hash.",
     .complexity = "O(N) where N is the size of the hash.",
     .args = "key"},
    {.name = "hvals", .proc = hvalsCommand, .arity = 2, .flags = CMD_READONLY, .acl_categories = ACL_CATEGORY_HASH,
     .key = {1, 1, 1}, .group = "hash", .since = "2.0.0", .summary = "Returns all values in a hash.",
     .complexity = "O(N) where N is the size of the hash.",
     .args = "key"},
    {.name = "hgetall", .proc = hgetallCommand, .arity = 2, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "2.0.0",
     .summary = "Returns all fields and values in a hash.", .complexity = "O(N) where N is the size of the hash.",
     .args = "key"},
    {.name = "hrandfield", .proc = hrandfieldCommand, .arity = -2, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "6.2.0",
     .summary = "Returns one or more random fields from a hash.",
     .complexity = "O(N) where N is the number of fields returned",
     .args = "key [options=[count [WITHVALUES]]]"},
    {.name = "hscan", .proc = hscanCommand, .arity = -3, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_HASH, .key = {1, 1, 1}, .group = "hash", .since = "2.8.0",
     .summary = "Iterates over fields and values of a hash.",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the "
                   "cursor to return back to 0. N is the number of elements inside the collection.",
     .args = "key cursor [MATCH pattern] [COUNT count] [NOVALUES]"},
    {0},
};
