/* t_set.c - the set type: SADD, SREM, SMOVE, SPOP, SRANDMEMBER, membership,
 * the algebra commands (SINTER/SUNION/SDIFF, their STORE forms, SINTERCARD)
 * and SSCAN.
 *
 * A set value is an robj of type OBJ_SET in one of three encodings:
 *   INTSET     every member is an integer and there are at most
 *              set-max-intset-entries of them (intset.c, sorted array);
 *   LISTPACK   small sets of short strings: at most set-max-listpack-entries
 *              members of at most set-max-listpack-value bytes each
 *              (listpack.c, unsorted, linear search);
 *   HT         anything bigger: a hashtable (hashtable.c) whose entries
 *              are the members themselves, one sds each (no dictEntry, no
 *              value): a member costs its sds (16 bytes for up to 14
 *              bytes of text) plus about 16 bytes of bucket space.
 *              OBJECT ENCODING still calls it "hashtable".
 * Conversions only go "up" (intset -> listpack -> hashtable, or intset ->
 * hashtable when the intset overflows), as Valkey does; removing members
 * never converts back. The one place a set is rebuilt smaller is SPOP with
 * a large count on a hashtable, which keeps the survivors in a fresh set.
 *
 * Commands never look at an encoding directly: they go through the small
 * setType* layer at the top of the file (create, add, remove, test, iterate,
 * random member). A member travels as a setMember: bytes, or an integer
 * when it came out of an intset or a listpack's integer entry.
 *
 * Each modification bumps server.dirty, calls signalModifiedKey() and fires
 * Valkey's keyspace events ("sadd", "srem", "spop", "sinterstore", ... and
 * "del" when the last member goes: an empty set is never left behind).
 * SPOP is not deterministic, so it is propagated by its effect (Valkey's
 * forms): "SREM key member" for one member, SREM batches of up to 1024
 * members for a count, DEL/UNLINK when the whole set went.
 *
 * MEMORY USAGE, DEBUG DIGEST-VALUE and COPY reach this file through the
 * objectMethods[OBJ_SET] entry registered by setTypeInit(). */
#include "server.h"
#include "intset.h"
#include "listpack.h"
#include "propagate.h"
#include "replication.h"

/* ---------------------------------------------------------------------------
 * Members and small helpers
 * ------------------------------------------------------------------------- */

/* One member: s/len bytes, or (s == NULL) the integer ll. Byte pointers
 * borrow from wherever the member lives and are valid until that changes. */
typedef struct setMember {
    const char *s;
    size_t len;
    long long ll;
} setMember;

/* Views a command argument as a member. buf (LONG_STR_SIZE bytes) holds the
 * text of INT-encoded arguments. */
static void memberFromObject(robj *o, setMember *m, char *buf) {
    if (sdsEncodedObject(o)) {
        m->s = objectGetVal(o);
        m->len = sdslen(objectGetVal(o));
    } else {
        m->len = ll2string(buf, LONG_STR_SIZE, (long)objectGetVal(o));
        m->s = buf;
    }
    m->ll = 0;
}

/* Returns 1 and *ll if the member is (or reads as) a 64-bit integer. */
static int memberAsInteger(const setMember *m, long long *ll) {
    if (m->s == NULL) {
        *ll = m->ll;
        return 1;
    }
    return string2ll(m->s, m->len, ll);
}

/* The member's bytes; integers are printed into buf (LONG_STR_SIZE). */
static const char *memberBytes(const setMember *m, char *buf, size_t *len) {
    if (m->s) {
        *len = m->len;
        return m->s;
    }
    *len = ll2string(buf, LONG_STR_SIZE, m->ll);
    return buf;
}

static sds memberToSds(const setMember *m) {
    if (m->s) return sdsnewlen(m->s, m->len);
    return sdsfromlonglong(m->ll);
}

static void addReplyMember(client *c, const setMember *m) {
    if (m->s) addReplyBulkCBuffer(c, m->s, m->len);
    else addReplyBulkLongLong(c, m->ll);
}

/* Uniform random integer in [0, n); n > 0. */
static unsigned long randomBelow(unsigned long n) {
    uint64_t r = ((uint64_t)rand() << 62) ^ ((uint64_t)rand() << 31) ^ (uint64_t)rand();
    return (unsigned long)(r % n);
}

/* Reads the listpack entry at p as a member. */
static void memberFromListpack(unsigned char *p, setMember *m) {
    unsigned int slen;
    long long lval;
    unsigned char *s = lpGetValue(p, &slen, &lval);
    m->s = (const char *)s;
    m->len = s ? slen : 0;
    m->ll = s ? 0 : lval;
}

/* Finds a member's entry in a set listpack, or NULL. */
static unsigned char *listpackFindMember(unsigned char *lp, const setMember *m) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s = memberBytes(m, buf, &len);
    unsigned char *first = lpFirst(lp);
    if (first == NULL) return NULL;
    return lpFind(lp, first, (const unsigned char *)s, len, 0);
}

/* ---------------------------------------------------------------------------
 * Hash table encoding: hashtable type
 * ------------------------------------------------------------------------- */

static void setHashtableFreeMember(void *member) { sdsfree(member); }

/* Each entry is a member sds owned by the table (freed on delete). */
static hashtableType setHashtableType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .entryDestructor = setHashtableFreeMember,
};

/* Same hashing, but borrowing members (no destructor): SRANDMEMBER's
 * scratch tables that point at another set's members. */
static hashtableType setBorrowHashtableType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
};

/* Adds s/len to a hashtable-encoded set, as a new sds made only once the
 * member is known to be new. Returns 1 if it was not there. */
static int setHashtableAddBuffer(hashtable *ht, const char *s, size_t len) {
    sdsTemp key;
    hashtablePosition pos;
    int added = hashtableFindPositionForInsert(ht, sdsTempInit(&key, s, len), &pos, NULL);
    sdsTempRelease(&key);
    if (added) hashtableInsertAtPosition(ht, sdsnewlen(s, len), &pos);
    return added;
}

/* Adds m to a hashtable-encoded set. Returns 1 if it was not there. */
static int setHashtableAdd(hashtable *ht, const setMember *m) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s = memberBytes(m, buf, &len);
    return setHashtableAddBuffer(ht, s, len);
}

/* Removes m from a hashtable-encoded set. Returns 1 if it was there. */
static int setHashtableRemove(hashtable *ht, const setMember *m) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s = memberBytes(m, buf, &len);
    sdsTemp key;
    int removed = hashtableDelete(ht, sdsTempInit(&key, s, len));
    sdsTempRelease(&key);
    return removed;
}

/* Returns 1 if m is in a hashtable-encoded set. */
static int setHashtableHas(hashtable *ht, const setMember *m) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s = memberBytes(m, buf, &len);
    sdsTemp key;
    int found = hashtableFind(ht, sdsTempInit(&key, s, len), NULL);
    sdsTempRelease(&key);
    return found;
}

/* A uniformly chosen member of a non-empty hashtable-encoded set. */
static sds setHashtableRandom(hashtable *ht) {
    void *member = NULL;
    hashtableFairRandomEntry(ht, &member);
    return member;
}

/* ---------------------------------------------------------------------------
 * The setType layer
 * ------------------------------------------------------------------------- */

static robj *setTypeCreateWithEncoding(int encoding, size_t size_hint) {
    robj *o;
    if (encoding == OBJ_ENCODING_INTSET) {
        o = createObject(OBJ_SET, intsetNew());
    } else if (encoding == OBJ_ENCODING_LISTPACK) {
        o = createObject(OBJ_SET, lpNew(0));
    } else {
        hashtable *ht = hashtableCreate(&setHashtableType);
        if (size_hint) hashtableExpand(ht, size_hint);
        o = createObject(OBJ_SET, ht);
    }
    o->encoding = encoding;
    return o;
}

/* Returns a new empty set suited to receive size_hint members, the first
 * of which is `first` (may be NULL): an intset if that member is an integer
 * and the hint fits set-max-intset-entries, else a listpack if the hint
 * fits set-max-listpack-entries, else a pre-sized hashtable. */
static robj *setTypeCreate(const setMember *first, size_t size_hint) {
    long long ll;
    if (first && memberAsInteger(first, &ll) && size_hint <= server.set_max_intset_entries)
        return setTypeCreateWithEncoding(OBJ_ENCODING_INTSET, 0);
    if (size_hint <= server.set_max_listpack_entries) return setTypeCreateWithEncoding(OBJ_ENCODING_LISTPACK, 0);
    return setTypeCreateWithEncoding(OBJ_ENCODING_HT, size_hint);
}

unsigned long setTypeSize(const robj *set) {
    switch (set->encoding) {
    case OBJ_ENCODING_INTSET: return intsetLen(objectGetVal(set));
    case OBJ_ENCODING_LISTPACK: return lpLength(objectGetVal(set));
    case OBJ_ENCODING_HT: return hashtableSize(objectGetVal(set));
    default: serverPanic("Unknown set encoding");
    }
}

/* Iteration over any encoding. The set must not change meanwhile. */
typedef struct setIter {
    robj *set;
    uint32_t pos;          /* INTSET: next index */
    unsigned char *lpp;    /* LISTPACK: next entry, NULL at the end */
    hashtableIterator hi;  /* HT (a safe iterator: lookups may go on in the
                            * same table while iterating, e.g. SINTER a a) */
} setIter;

static void setIterInit(setIter *it, robj *set) {
    it->set = set;
    it->pos = 0;
    it->lpp = NULL;
    if (set->encoding == OBJ_ENCODING_LISTPACK) it->lpp = lpFirst(objectGetVal(set));
    else if (set->encoding == OBJ_ENCODING_HT) hashtableInitIterator(&it->hi, objectGetVal(set), HASHTABLE_ITER_SAFE);
}

/* Fills *m with the next member; returns 0 when there are no more. */
static int setIterNext(setIter *it, setMember *m) {
    switch (it->set->encoding) {
    case OBJ_ENCODING_INTSET: {
        int64_t v;
        if (!intsetGet(objectGetVal(it->set), it->pos, &v)) return 0;
        it->pos++;
        m->s = NULL;
        m->len = 0;
        m->ll = v;
        return 1;
    }
    case OBJ_ENCODING_LISTPACK:
        if (it->lpp == NULL) return 0;
        memberFromListpack(it->lpp, m);
        it->lpp = lpNext(objectGetVal(it->set), it->lpp);
        return 1;
    case OBJ_ENCODING_HT: {
        void *entry;
        if (!hashtableNext(&it->hi, &entry)) return 0;
        sds key = entry;
        m->s = key;
        m->len = sdslen(key);
        m->ll = 0;
        return 1;
    }
    default: serverPanic("Unknown set encoding");
    }
}

static void setIterRelease(setIter *it) {
    if (it->set->encoding == OBJ_ENCODING_HT) hashtableResetIterator(&it->hi);
}

/* Largest decimal length of any member of a non-empty intset. */
static size_t intsetMaxDigits(const intset *is) {
    if (intsetLen(is) == 0) return 0;
    uint32_t a = sdigits10(intsetMin(is)), b = sdigits10(intsetMax(is));
    return a > b ? a : b;
}

/* Converts a set to `encoding` (LISTPACK only from INTSET; HT from either),
 * pre-sizing a hashtable for size_hint members. */
void setTypeConvert(robj *set, int encoding, size_t size_hint) {
    serverAssert(set->encoding != encoding && encoding != OBJ_ENCODING_INTSET);
    void *newptr;
    setIter it;
    setMember m;
    if (encoding == OBJ_ENCODING_LISTPACK) {
        serverAssert(set->encoding == OBJ_ENCODING_INTSET);
        unsigned char *lp = lpNew(0);
        setIterInit(&it, set);
        while (setIterNext(&it, &m)) lp = lpAppendInteger(lp, m.ll);
        setIterRelease(&it);
        newptr = lp;
    } else {
        hashtable *ht = hashtableCreate(&setHashtableType);
        if (size_hint < setTypeSize(set)) size_hint = setTypeSize(set);
        hashtableExpand(ht, size_hint);
        setIterInit(&it, set);
        while (setIterNext(&it, &m)) serverAssert(setHashtableAdd(ht, &m));
        setIterRelease(&it);
        newptr = ht;
    }
    if (set->encoding == OBJ_ENCODING_INTSET) intsetFree(objectGetVal(set));
    else lpFree(objectGetVal(set));
    objectSetVal(set, newptr);
    set->encoding = encoding;
}

/* Adds m to the set, converting the encoding first when the member would
 * break the current one's limits. Returns 1 if added, 0 if present. */
static int setTypeAdd(robj *set, const setMember *m) {
    long long ll;
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s;

    if (set->encoding == OBJ_ENCODING_INTSET) {
        intset *is = objectGetVal(set);
        if (memberAsInteger(m, &ll)) {
            int added;
            objectSetVal(set, intsetAdd(is, ll, &added));
            if (added && intsetLen(objectGetVal(set)) > server.set_max_intset_entries)
                setTypeConvert(set, OBJ_ENCODING_HT, intsetLen(objectGetVal(set)));
            return added;
        }
        /* A string: the intset can't hold it. A listpack still can if the
         * set stays within both listpack limits (old members included). */
        unsigned long n = intsetLen(is);
        if (n < server.set_max_listpack_entries && m->len <= server.set_max_listpack_value &&
            intsetMaxDigits(is) <= server.set_max_listpack_value)
            setTypeConvert(set, OBJ_ENCODING_LISTPACK, 0);
        else
            setTypeConvert(set, OBJ_ENCODING_HT, n + 1);
    }

    if (set->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = objectGetVal(set);
        if (listpackFindMember(lp, m)) return 0;
        s = memberBytes(m, buf, &len);
        if (lpLength(lp) < server.set_max_listpack_entries && len <= server.set_max_listpack_value &&
            lpSafeToAdd(lp, lpEntrySizeString((const unsigned char *)s, len))) {
            objectSetVal(set, lpAppend(lp, (const unsigned char *)s, len));
            return 1;
        }
        setTypeConvert(set, OBJ_ENCODING_HT, lpLength(lp) + 1);
    }

    serverAssert(set->encoding == OBJ_ENCODING_HT);
    return setHashtableAdd(objectGetVal(set), m);
}

/* setTypeAdd() of a command argument. A hashtable set looks an sds
 * argument up as it is (a new member is copied into its entry). */
static int setTypeAddObject(robj *set, robj *o) {
    if (set->encoding == OBJ_ENCODING_HT && sdsEncodedObject(o))
        return setHashtableAddBuffer(objectGetVal(set), objectGetVal(o), sdslen(objectGetVal(o)));
    char buf[LONG_STR_SIZE];
    setMember m;
    memberFromObject(o, &m, buf);
    return setTypeAdd(set, &m);
}

/* For callers outside this file that build a set from raw bytes (the RDB
 * loader): a new empty set for size_hint members, the first of which is
 * first/len, chosen as setTypeCreate() does. */
robj *setTypeCreateFor(const char *first, size_t len, size_t size_hint) {
    setMember m = {.s = first, .len = len, .ll = 0};
    return setTypeCreate(&m, size_hint);
}

/* setTypeAdd() for raw bytes: returns 1 if added, 0 if already a member. */
int setTypeAddBuffer(robj *set, const char *s, size_t len) {
    setMember m = {.s = s, .len = len, .ll = 0};
    return setTypeAdd(set, &m);
}

/* Removes m. Returns 1 if it was a member. Never changes the encoding. */
static int setTypeRemove(robj *set, const setMember *m) {
    long long ll;
    switch (set->encoding) {
    case OBJ_ENCODING_INTSET: {
        int removed = 0;
        if (memberAsInteger(m, &ll)) objectSetVal(set, intsetRemove(objectGetVal(set), ll, &removed));
        return removed;
    }
    case OBJ_ENCODING_LISTPACK: {
        unsigned char *p = listpackFindMember(objectGetVal(set), m);
        if (p == NULL) return 0;
        objectSetVal(set, lpDelete(objectGetVal(set), p, NULL));
        return 1;
    }
    case OBJ_ENCODING_HT: return setHashtableRemove(objectGetVal(set), m);
    default: serverPanic("Unknown set encoding");
    }
}

/* Returns 1 if m is a member of set. */
static int setTypeHas(robj *set, const setMember *m) {
    long long ll;
    switch (set->encoding) {
    case OBJ_ENCODING_INTSET: return memberAsInteger(m, &ll) && intsetFind(objectGetVal(set), ll);
    case OBJ_ENCODING_LISTPACK: return listpackFindMember(objectGetVal(set), m) != NULL;
    case OBJ_ENCODING_HT: return setHashtableHas(objectGetVal(set), m);
    default: serverPanic("Unknown set encoding");
    }
}

/* Fills *m with a uniformly chosen member of a non-empty set. Byte
 * pointers borrow from the set. */
static void setTypeRandom(robj *set, setMember *m) {
    switch (set->encoding) {
    case OBJ_ENCODING_INTSET:
        m->s = NULL;
        m->len = 0;
        m->ll = intsetRandom(objectGetVal(set));
        break;
    case OBJ_ENCODING_LISTPACK: {
        unsigned char *p = lpSeek(objectGetVal(set), (long)randomBelow(lpLength(objectGetVal(set))));
        memberFromListpack(p, m);
        break;
    }
    case OBJ_ENCODING_HT: {
        sds key = setHashtableRandom(objectGetVal(set));
        m->s = key;
        m->len = sdslen(key);
        m->ll = 0;
        break;
    }
    default: serverPanic("Unknown set encoding");
    }
}

/* Replies with every member, as a RESP3 set or RESP2 array. */
static void addReplySetMembers(client *c, robj *set) {
    setIter it;
    setMember m;
    addReplySetLen(c, setTypeSize(set));
    setIterInit(&it, set);
    while (setIterNext(&it, &m)) addReplyMember(c, &m);
    setIterRelease(&it);
}

/* Appends every member of a set, as new sds strings, to out (whose free
 * method the caller sets). Used by SSCAN (db.c) for the compact encodings,
 * which are returned whole in one call. */
void setTypeCollectAll(robj *set, list *out) {
    setIter it;
    setMember m;
    setIterInit(&it, set);
    while (setIterNext(&it, &m)) listAddNodeTail(out, memberToSds(&m));
    setIterRelease(&it);
}

/* ---------------------------------------------------------------------------
 * Object methods: free, free effort, size, dup, digest
 * ------------------------------------------------------------------------- */

static size_t setTypeFreeEffort(robj *o) {
    return o->encoding == OBJ_ENCODING_HT ? hashtableSize(objectGetVal(o)) : 1;
}

static void setTypeFree(robj *o) {
    switch (o->encoding) {
    case OBJ_ENCODING_INTSET: intsetFree(objectGetVal(o)); break;
    case OBJ_ENCODING_LISTPACK: lpFree(objectGetVal(o)); break;
    case OBJ_ENCODING_HT: hashtableRelease(objectGetVal(o)); break;
    default: serverPanic("Unknown set encoding");
    }
}

/* Bytes used by the value (robj header excluded). Hashtables are sampled:
 * the average of up to sample_size members times the member count. */
static size_t setTypeMemory(robj *o, size_t sample_size) {
    if (o->encoding == OBJ_ENCODING_INTSET) return intsetBlobLen(objectGetVal(o));
    if (o->encoding == OBJ_ENCODING_LISTPACK) return lpBytes(objectGetVal(o));
    hashtable *ht = objectGetVal(o);
    size_t total = hashtableMemUsage(ht);
    if (hashtableSize(ht) == 0 || sample_size == 0) return total;
    hashtableIterator hi;
    hashtableInitIterator(&hi, ht, 0);
    void *member;
    size_t sampled = 0, bytes = 0;
    while (sampled < sample_size && hashtableNext(&hi, &member)) {
        bytes += sdsAllocSize(member);
        sampled++;
    }
    hashtableResetIterator(&hi);
    return total + (size_t)((double)bytes / sampled * hashtableSize(ht));
}

/* Deep copy with the same encoding (COPY). */
static robj *setTypeDup(robj *o) {
    robj *copy;
    if (o->encoding == OBJ_ENCODING_INTSET) {
        copy = createObject(OBJ_SET, intsetDup(objectGetVal(o)));
    } else if (o->encoding == OBJ_ENCODING_LISTPACK) {
        copy = createObject(OBJ_SET, lpDup(objectGetVal(o)));
    } else {
        copy = setTypeCreateWithEncoding(OBJ_ENCODING_HT, hashtableSize(objectGetVal(o)));
        setIter it;
        setMember m;
        setIterInit(&it, o);
        while (setIterNext(&it, &m)) setHashtableAdd(objectGetVal(copy), &m);
        setIterRelease(&it);
        return copy;
    }
    copy->encoding = o->encoding;
    return copy;
}

/* Order-independent digest of the members' text, so every encoding of the
 * same set digests alike. */
static void setTypeDigest(robj *o, unsigned char *digest) {
    setIter it;
    setMember m;
    char buf[LONG_STR_SIZE];
    size_t len;
    setIterInit(&it, o);
    while (setIterNext(&it, &m)) {
        const char *s = memberBytes(&m, buf, &len);
        xorDigest(digest, s, len);
    }
    setIterRelease(&it);
}

/* Registers the set type's methods. Called once by initServer(). */
void setTypeInit(void) {
    objectMethods[OBJ_SET].free = setTypeFree;
    objectMethods[OBJ_SET].size = setTypeMemory;
    objectMethods[OBJ_SET].dup = setTypeDup;
    objectMethods[OBJ_SET].digest = setTypeDigest;
    objectMethods[OBJ_SET].free_effort = setTypeFreeEffort;
}

/* ---------------------------------------------------------------------------
 * SADD, SREM, SMOVE, membership, SCARD, SMEMBERS
 * ------------------------------------------------------------------------- */

static void saddCommand(client *c) {
    robj *set = lookupKeyWrite(c->db, c->argv[1]);
    char buf[LONG_STR_SIZE];
    setMember m;
    if (checkType(c, set, OBJ_SET)) return;
    if (set == NULL) {
        memberFromObject(c->argv[2], &m, buf);
        set = setTypeCreate(&m, c->argc - 2);
        dbAdd(c->db, c->argv[1], &set);
    }
    long long added = 0;
    for (int j = 2; j < c->argc; j++) added += setTypeAddObject(set, c->argv[j]);
    if (added) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_SET, "sadd", c->argv[1], c->db->id);
    }
    server.dirty += added;
    addReplyLongLong(c, added);
}

static void sremCommand(client *c) {
    robj *set = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    char buf[LONG_STR_SIZE];
    setMember m;
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    long long removed = 0;
    int keyremoved = 0;
    for (int j = 2; j < c->argc; j++) {
        memberFromObject(c->argv[j], &m, buf);
        removed += setTypeRemove(set, &m);
        if (setTypeSize(set) == 0) {
            dbDelete(c->db, c->argv[1]);
            keyremoved = 1;
            break;
        }
    }
    if (removed) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_SET, "srem", c->argv[1], c->db->id);
        if (keyremoved) notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
        server.dirty += removed;
    }
    addReplyLongLong(c, removed);
}

static void smoveCommand(client *c) {
    robj *src = lookupKeyWrite(c->db, c->argv[1]);
    robj *dst = lookupKeyWrite(c->db, c->argv[2]);
    char buf[LONG_STR_SIZE];
    setMember m;
    memberFromObject(c->argv[3], &m, buf);

    if (src == NULL) {
        addReply(c, shared.czero);
        return;
    }
    if (checkType(c, src, OBJ_SET) || checkType(c, dst, OBJ_SET)) return;
    /* Same key: nothing moves; the reply only says if it is a member. */
    if (src == dst) {
        addReply(c, setTypeHas(src, &m) ? shared.cone : shared.czero);
        return;
    }
    if (!setTypeRemove(src, &m)) {
        addReply(c, shared.czero);
        return;
    }
    notifyKeyspaceEvent(NOTIFY_SET, "srem", c->argv[1], c->db->id);
    if (setTypeSize(src) == 0) {
        dbDelete(c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    }
    if (dst == NULL) {
        dst = setTypeCreate(&m, 1);
        dbAdd(c->db, c->argv[2], &dst);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    server.dirty++;
    /* The destination changes (for WATCH too) only if the member is new. */
    if (setTypeAdd(dst, &m)) {
        server.dirty++;
        signalModifiedKey(c, c->db, c->argv[2]);
        notifyKeyspaceEvent(NOTIFY_SET, "sadd", c->argv[2], c->db->id);
    }
    addReply(c, shared.cone);
}

static void sismemberCommand(client *c) {
    robj *set = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    char buf[LONG_STR_SIZE];
    setMember m;
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    memberFromObject(c->argv[2], &m, buf);
    addReply(c, setTypeHas(set, &m) ? shared.cone : shared.czero);
}

static void smismemberCommand(client *c) {
    robj *set = lookupKeyRead(c->db, c->argv[1]);
    char buf[LONG_STR_SIZE];
    setMember m;
    if (checkType(c, set, OBJ_SET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        memberFromObject(c->argv[j], &m, buf);
        addReply(c, set && setTypeHas(set, &m) ? shared.cone : shared.czero);
    }
}

static void scardCommand(client *c) {
    robj *set = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    addReplyLongLong(c, setTypeSize(set));
}

static void smembersCommand(client *c) {
    robj *set = lookupKeyRead(c->db, c->argv[1]);
    if (set == NULL) {
        addReply(c, shared.emptyset[c->resp]);
        return;
    }
    if (checkType(c, set, OBJ_SET)) return;
    addReplySetMembers(c, set);
}

/* ---------------------------------------------------------------------------
 * SPOP and SRANDMEMBER
 * ------------------------------------------------------------------------- */

/* SPOP with a count is propagated as SREM commands listing the popped
 * members, SPOP_PROPAGATE_BATCH at most each. Members are collected only
 * while the replication stream is active (argv != NULL). */
#define SPOP_PROPAGATE_BATCH 1024

typedef struct spopPropagation {
    client *c;
    robj **argv; /* "SREM" key member...; NULL: nothing to propagate */
    int argc;
} spopPropagation;

static void spopPropagationInit(spopPropagation *sp, client *c) {
    sp->c = c;
    sp->argc = 0;
    sp->argv = NULL;
    if (!propagationIsActive()) return;
    sp->argv = zmalloc(sizeof(robj *) * (SPOP_PROPAGATE_BATCH + 2));
    sp->argv[0] = createStringObject("SREM", 4);
    sp->argv[1] = c->argv[1];
    incrRefCount(c->argv[1]);
    sp->argc = 2;
}

/* Queues the SREM collected so far, if it lists any member. */
static void spopPropagationFlush(spopPropagation *sp) {
    if (sp->argc == 2) return;
    alsoPropagate(sp->c->db->id, sp->argv, sp->argc);
    for (int j = 2; j < sp->argc; j++) decrRefCount(sp->argv[j]);
    sp->argc = 2;
}

static void spopPropagationAdd(spopPropagation *sp, const setMember *m) {
    if (sp->argv == NULL) return;
    sp->argv[sp->argc++] = m->s ? createStringObject(m->s, m->len) : createStringObjectFromLongLong(m->ll);
    if (sp->argc == SPOP_PROPAGATE_BATCH + 2) spopPropagationFlush(sp);
}

/* Queues what is left and stops SPOP itself from being propagated. */
static void spopPropagationEnd(spopPropagation *sp) {
    if (sp->argv == NULL) return;
    spopPropagationFlush(sp);
    decrRefCount(sp->argv[0]);
    decrRefCount(sp->argv[1]);
    zfree(sp->argv);
    preventCommandPropagation(sp->c);
}

/* Removes one random member of a non-empty set and replies with it; adds
 * it to sp, if not NULL. Returns the member as a new object when want_obj
 * is 1, else NULL. */
static robj *popOneAndReply(client *c, robj *set, spopPropagation *sp, int want_obj) {
    setMember m;
    robj *popped = NULL;
    switch (set->encoding) {
    case OBJ_ENCODING_INTSET: {
        long long v = intsetRandom(objectGetVal(set));
        addReplyBulkLongLong(c, v);
        m = (setMember){.s = NULL, .ll = v};
        if (sp) spopPropagationAdd(sp, &m);
        if (want_obj) popped = createStringObjectFromLongLong(v);
        objectSetVal(set, intsetRemove(objectGetVal(set), v, NULL));
        break;
    }
    case OBJ_ENCODING_LISTPACK: {
        unsigned char *p = lpSeek(objectGetVal(set), (long)randomBelow(lpLength(objectGetVal(set))));
        memberFromListpack(p, &m);
        addReplyMember(c, &m);
        if (sp) spopPropagationAdd(sp, &m);
        if (want_obj) popped = m.s ? createStringObject(m.s, m.len) : createStringObjectFromLongLong(m.ll);
        objectSetVal(set, lpDelete(objectGetVal(set), p, NULL));
        break;
    }
    case OBJ_ENCODING_HT: {
        sds key = setHashtableRandom(objectGetVal(set));
        addReplyBulkCBuffer(c, key, sdslen(key));
        m = (setMember){.s = key, .len = sdslen(key)};
        if (sp) spopPropagationAdd(sp, &m);
        if (want_obj) popped = createStringObject(key, sdslen(key));
        hashtableDelete(objectGetVal(set), key); /* frees key */
        break;
    }
    default: serverPanic("Unknown set encoding");
    }
    return popped;
}

/* SPOP key count, 0 < count < size, compact encodings: picks the popped
 * members by selection sampling (each kept with the right probability, in
 * one pass) and rebuilds the value from the survivors. */
static void spopCompactWithCount(client *c, robj *set, unsigned long count, spopPropagation *sp) {
    unsigned long left = setTypeSize(set), need = count;
    setIter it;
    setMember m;
    void *rebuilt = set->encoding == OBJ_ENCODING_INTSET ? (void *)intsetNew() : (void *)lpNew(0);
    addReplySetLen(c, count);
    setIterInit(&it, set);
    while (setIterNext(&it, &m)) {
        if (need && randomBelow(left) < need) {
            addReplyMember(c, &m);
            spopPropagationAdd(sp, &m);
            need--;
        } else if (set->encoding == OBJ_ENCODING_INTSET) {
            rebuilt = intsetAdd(rebuilt, m.ll, NULL);
        } else if (m.s) {
            rebuilt = lpAppend(rebuilt, (const unsigned char *)m.s, m.len);
        } else {
            rebuilt = lpAppendInteger(rebuilt, m.ll);
        }
        left--;
    }
    setIterRelease(&it);
    setTypeFree(set);
    objectSetVal(set, rebuilt);
}

static void spopWithCountCommand(client *c) {
    long count;
    if (getPositiveLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK) return;
    robj *set = lookupKeyWriteOrReply(c, c->argv[1], shared.emptyset[c->resp]);
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    if (count == 0) {
        addReply(c, shared.emptyset[c->resp]);
        return;
    }
    unsigned long size = setTypeSize(set);
    notifyKeyspaceEvent(NOTIFY_SET, "spop", c->argv[1], c->db->id);

    if ((unsigned long)count >= size) {
        /* Everything goes: reply with the whole set and delete the key. */
        addReplySetMembers(c, set);
        dbDelete(c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
        signalModifiedKey(c, c->db, c->argv[1]);
        server.dirty += size;
        rewriteClientCommandVector(c, 2, server.lazyfree_lazy_server_del ? shared.unlink : shared.del, c->argv[1]);
        return;
    }

    spopPropagation sp;
    spopPropagationInit(&sp, c);
    if (set->encoding != OBJ_ENCODING_HT) {
        spopCompactWithCount(c, set, count, &sp);
    } else if ((unsigned long)count * 5 <= size) {
        /* Few members go: pick them one by one. */
        addReplySetLen(c, count);
        for (long j = 0; j < count; j++) popOneAndReply(c, set, &sp, 0);
    } else {
        /* Most members go: move the few survivors to a new set, reply
         * with what is left in the old one, then swap the values. */
        unsigned long remaining = size - count;
        robj *kept = NULL;
        setMember m;
        while (remaining--) {
            setTypeRandom(set, &m);
            sds member = memberToSds(&m);
            setMember copy = {.s = member, .len = sdslen(member)};
            if (kept == NULL) kept = setTypeCreate(&copy, size - count);
            setTypeAdd(kept, &copy);
            setTypeRemove(set, &copy);
            sdsfree(member);
        }
        addReplySetMembers(c, set);
        if (sp.argv) {
            setIter it;
            setIterInit(&it, set);
            while (setIterNext(&it, &m)) spopPropagationAdd(&sp, &m);
            setIterRelease(&it);
        }
        dbOverwrite(c->db, c->argv[1], &kept); /* Keeps the TTL; frees set. */
    }
    spopPropagationEnd(&sp);
    signalModifiedKey(c, c->db, c->argv[1]);
    server.dirty += count;
}

static void spopCommand(client *c) {
    if (c->argc == 3) {
        spopWithCountCommand(c);
        return;
    } else if (c->argc > 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    robj *set = lookupKeyWriteOrReply(c, c->argv[1], shared.null[c->resp]);
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    robj *member = popOneAndReply(c, set, NULL, 1);
    notifyKeyspaceEvent(NOTIFY_SET, "spop", c->argv[1], c->db->id);
    if (setTypeSize(set) == 0) {
        dbDelete(c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    server.dirty++;
    /* Propagated as "SREM key member". */
    robj *srem = createStringObject("SREM", 4);
    rewriteClientCommandVector(c, 3, srem, c->argv[1], member);
    decrRefCount(srem);
    decrRefCount(member);
}

/* SRANDMEMBER key count. count < 0: |count| members, repetitions allowed.
 * count >= 0: min(count, size) distinct members. */
static void srandmemberWithCountCommand(client *c) {
    long l;
    if (getRangeLongFromObjectOrReply(c, c->argv[2], -LONG_MAX, LONG_MAX, &l, NULL) != C_OK) return;
    robj *set = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    int unique = l >= 0;
    unsigned long count = unique ? (unsigned long)l : (unsigned long)-l;
    if (count == 0) {
        addReply(c, shared.emptyarray);
        return;
    }
    unsigned long size = setTypeSize(set);
    setMember m;
    setIter it;

    /* Repetitions allowed (or a single member): independent draws. A
     * listpack is indexed once so each draw is O(1). A huge count stops
     * when the client is dropped for its output buffer limit. */
    if (!unique || count == 1) {
        addReplyArrayLen(c, count);
        if (set->encoding == OBJ_ENCODING_LISTPACK) {
            setMember *all = zmalloc(sizeof(setMember) * size);
            unsigned long n = 0;
            setIterInit(&it, set);
            while (setIterNext(&it, &all[n])) n++;
            setIterRelease(&it);
            while (count-- && !(c->flags & CLIENT_CLOSE_ASAP)) addReplyMember(c, &all[randomBelow(n)]);
            zfree(all);
        } else {
            while (count-- && !(c->flags & CLIENT_CLOSE_ASAP)) {
                setTypeRandom(set, &m);
                addReplyMember(c, &m);
            }
        }
        return;
    }

    if (count >= size) {
        addReplyArrayLen(c, size);
        setIterInit(&it, set);
        while (setIterNext(&it, &m)) addReplyMember(c, &m);
        setIterRelease(&it);
        return;
    }

    addReplyArrayLen(c, count);
    if (set->encoding != OBJ_ENCODING_HT) {
        /* Selection sampling: one pass, every subset equally likely. */
        unsigned long left = size, need = count;
        setIterInit(&it, set);
        while (need && setIterNext(&it, &m)) {
            if (randomBelow(left) < need) {
                addReplyMember(c, &m);
                need--;
            }
            left--;
        }
        setIterRelease(&it);
        return;
    }

    /* Hashtable: collect distinct members in a scratch table that borrows
     * the set's members. Near the full size, it is cheaper to copy all and
     * drop random ones than to keep drawing and hitting duplicates. */
    hashtable *pick = hashtableCreate(&setBorrowHashtableType);
    hashtableExpand(pick, count * 3 > size ? size : count);
    if (count * 3 > size) {
        setIterInit(&it, set);
        while (setIterNext(&it, &m)) hashtableAdd(pick, (void *)m.s);
        setIterRelease(&it);
        while (hashtableSize(pick) > count) hashtableDelete(pick, setHashtableRandom(pick));
    } else {
        while (hashtableSize(pick) < count) hashtableAdd(pick, setHashtableRandom(objectGetVal(set)));
    }
    hashtableIterator hi;
    hashtableInitIterator(&hi, pick, 0);
    void *member;
    while (hashtableNext(&hi, &member)) addReplyBulkCBuffer(c, member, sdslen(member));
    hashtableResetIterator(&hi);
    hashtableRelease(pick);
}

static void srandmemberCommand(client *c) {
    if (c->argc == 3) {
        srandmemberWithCountCommand(c);
        return;
    } else if (c->argc > 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    robj *set = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    setMember m;
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    setTypeRandom(set, &m);
    addReplyMember(c, &m);
}

/* ---------------------------------------------------------------------------
 * Algebra: SINTER, SINTERCARD, SUNION, SDIFF and the STORE forms
 * ------------------------------------------------------------------------- */

/* Looks up `num` keys as sets (missing keys give NULL). Returns C_ERR
 * after replying WRONGTYPE if any key holds another type: every key is
 * checked, even after a missing one. */
static int lookupSets(client *c, robj **keys, int num, robj **sets) {
    for (int j = 0; j < num; j++) {
        sets[j] = lookupKeyRead(c->db, keys[j]);
        if (checkType(c, sets[j], OBJ_SET)) return C_ERR;
    }
    return C_OK;
}

/* Stores result under dstkey (or deletes dstkey when result is empty),
 * replies with the new cardinality and fires `event`. Takes the caller's
 * reference to result. */
static void storeSetResult(client *c, robj *dstkey, robj *result, const char *event) {
    unsigned long size = setTypeSize(result);
    if (size > 0) {
        setKey(c, c->db, dstkey, result, 0);
        addReplyLongLong(c, size);
        notifyKeyspaceEvent(NOTIFY_SET, event, dstkey, c->db->id);
        server.dirty++;
    } else {
        addReply(c, shared.czero);
        if (dbDelete(c->db, dstkey)) {
            server.dirty++;
            signalModifiedKey(c, c->db, dstkey);
            notifyKeyspaceEvent(NOTIFY_GENERIC, "del", dstkey, c->db->id);
        }
    }
    decrRefCount(result);
}

static int compareSetsBySize(const void *a, const void *b) {
    unsigned long sa = setTypeSize(*(robj *const *)a), sb = setTypeSize(*(robj *const *)b);
    return sa < sb ? -1 : (sa > sb ? 1 : 0);
}

/* SINTER / SINTERSTORE (dstkey != NULL) / SINTERCARD (cardinality_only,
 * stopping at limit when limit > 0). Walks the smallest set and keeps the
 * members found in all the others. */
static void sinterGenericCommand(client *c, robj **keys, int num, robj *dstkey, int cardinality_only,
                                 unsigned long limit) {
    robj **sets = zmalloc(sizeof(robj *) * num);
    int empty = 0;
    if (lookupSets(c, keys, num, sets) != C_OK) {
        zfree(sets);
        return;
    }
    for (int j = 0; j < num; j++)
        if (sets[j] == NULL) empty = 1;

    if (empty) {
        zfree(sets);
        if (dstkey) storeSetResult(c, dstkey, setTypeCreateWithEncoding(OBJ_ENCODING_INTSET, 0), "sinterstore");
        else if (cardinality_only) addReply(c, shared.czero);
        else addReply(c, shared.emptyset[c->resp]);
        return;
    }

    qsort(sets, num, sizeof(robj *), compareSetsBySize);
    robj *result = dstkey ? setTypeCreateWithEncoding(OBJ_ENCODING_INTSET, 0) : NULL;
    void *replylen = (dstkey || cardinality_only) ? NULL : addReplyDeferredLen(c);
    unsigned long found = 0;
    setIter it;
    setMember m;
    setIterInit(&it, sets[0]);
    while (setIterNext(&it, &m)) {
        int j;
        for (j = 1; j < num; j++) {
            if (sets[j] == sets[0]) continue; /* Same key twice. */
            if (!setTypeHas(sets[j], &m)) break;
        }
        if (j < num) continue;
        found++;
        if (result) setTypeAdd(result, &m);
        else if (!cardinality_only) addReplyMember(c, &m);
        if (cardinality_only && limit && found >= limit) break;
    }
    setIterRelease(&it);
    zfree(sets);

    if (dstkey) storeSetResult(c, dstkey, result, "sinterstore");
    else if (cardinality_only) addReplyLongLong(c, found);
    else setDeferredSetLen(c, replylen, found);
}

#define SET_OP_UNION 0
#define SET_OP_DIFF 1

/* SUNION / SDIFF and their STORE forms (dstkey != NULL). The result is
 * built in a fresh set that starts as an intset and converts as members
 * arrive, like any other set. */
static void sunionDiffGenericCommand(client *c, robj **keys, int num, robj *dstkey, int op) {
    robj **sets = zmalloc(sizeof(robj *) * num);
    if (lookupSets(c, keys, num, sets) != C_OK) {
        zfree(sets);
        return;
    }
    robj *result = setTypeCreateWithEncoding(OBJ_ENCODING_INTSET, 0);
    setIter it;
    setMember m;

    if (op == SET_OP_UNION) {
        for (int j = 0; j < num; j++) {
            if (sets[j] == NULL) continue;
            setIterInit(&it, sets[j]);
            while (setIterNext(&it, &m)) setTypeAdd(result, &m);
            setIterRelease(&it);
        }
    } else if (sets[0] != NULL) {
        /* Two ways to compute the difference: test each member of the
         * first set against the others (cost ~ size0 * others), or copy
         * the first set and remove the others' members (cost ~ sum of all
         * sizes). Take the cheaper one. */
        unsigned long size0 = setTypeSize(sets[0]), per_member = 0, all = size0;
        for (int j = 1; j < num; j++) {
            if (sets[j] == NULL) continue;
            per_member++;
            all += setTypeSize(sets[j]);
        }
        if (size0 * per_member <= all * 2) {
            setIterInit(&it, sets[0]);
            while (setIterNext(&it, &m)) {
                int j;
                for (j = 1; j < num; j++)
                    if (sets[j] && (sets[j] == sets[0] || setTypeHas(sets[j], &m))) break;
                if (j == num) setTypeAdd(result, &m);
            }
            setIterRelease(&it);
        } else {
            setIterInit(&it, sets[0]);
            while (setIterNext(&it, &m)) setTypeAdd(result, &m);
            setIterRelease(&it);
            for (int j = 1; j < num && setTypeSize(result) > 0; j++) {
                if (sets[j] == NULL) continue;
                setIterInit(&it, sets[j]);
                while (setIterNext(&it, &m)) setTypeRemove(result, &m);
                setIterRelease(&it);
            }
        }
    }
    zfree(sets);

    if (dstkey) {
        storeSetResult(c, dstkey, result, op == SET_OP_UNION ? "sunionstore" : "sdiffstore");
    } else {
        addReplySetMembers(c, result);
        decrRefCount(result);
    }
}

static void sinterCommand(client *c) {
    sinterGenericCommand(c, c->argv + 1, c->argc - 1, NULL, 0, 0);
}

static void sinterstoreCommand(client *c) {
    sinterGenericCommand(c, c->argv + 2, c->argc - 2, c->argv[1], 0, 0);
}

/* SINTERCARD numkeys key [key ...] [LIMIT limit] */
static void sintercardCommand(client *c) {
    long numkeys, limit = 0;
    if (getRangeLongFromObjectOrReply(c, c->argv[1], 1, LONG_MAX, &numkeys, "numkeys should be greater than 0") !=
        C_OK)
        return;
    if (numkeys > c->argc - 2) {
        addReplyError(c, "Number of keys can't be greater than number of args");
        return;
    }
    for (int j = 2 + numkeys; j < c->argc; j++) {
        if (!strcasecmp(objectGetVal(c->argv[j]), "limit") && j + 1 < c->argc) {
            if (getPositiveLongFromObjectOrReply(c, c->argv[j + 1], &limit, "LIMIT can't be negative") != C_OK)
                return;
            j++;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    sinterGenericCommand(c, c->argv + 2, numkeys, NULL, 1, limit);
}

static void sunionCommand(client *c) {
    sunionDiffGenericCommand(c, c->argv + 1, c->argc - 1, NULL, SET_OP_UNION);
}

static void sunionstoreCommand(client *c) {
    sunionDiffGenericCommand(c, c->argv + 2, c->argc - 2, c->argv[1], SET_OP_UNION);
}

static void sdiffCommand(client *c) {
    sunionDiffGenericCommand(c, c->argv + 1, c->argc - 1, NULL, SET_OP_DIFF);
}

static void sdiffstoreCommand(client *c) {
    sunionDiffGenericCommand(c, c->argv + 2, c->argc - 2, c->argv[1], SET_OP_DIFF);
}

/* ---------------------------------------------------------------------------
 * SSCAN
 * ------------------------------------------------------------------------- */

static void sscanCommand(client *c) {
    unsigned long cursor;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) == C_ERR) return;
    robj *set = lookupKeyRead(c->db, c->argv[1]);
    if (set == NULL) {
        addReplyArrayLen(c, 2);
        addReplyBulkCBuffer(c, "0", 1);
        addReplyArrayLen(c, 0);
        return;
    }
    if (checkType(c, set, OBJ_SET)) return;
    scanGenericCommand(c, set, cursor);
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

/* SINTERCARD numkeys key... : keys are argv[2 .. 2+numkeys). */
static int sintercardGetKeys(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys) {
    (void)cmd;
    long long numkeys;
    if (argc < 3 || getLongLongFromObject(argv[1], &numkeys) != C_OK) return 0;
    if (numkeys < 1 || numkeys > argc - 2) return 0;
    int n = 0;
    for (long long j = 0; j < numkeys && n < maxkeys; j++) keys[n++] = (int)(2 + j);
    return n;
}

#define SET_WRITE (CMD_WRITE | CMD_DENYOOM)

struct serverCommand setCommands[] = {
    {.name = "sadd", .proc = saddCommand, .arity = -3, .flags = SET_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, 1, 1}, .group = "set", .since = "1.0.0",
     .summary = "Adds one or more members to a set. Creates the key if it doesn't exist.",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with "
                   "multiple arguments.",
     .args = "key member [member ...]"},
    {.name = "srem", .proc = sremCommand, .arity = -3, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, 1, 1}, .group = "set", .since = "1.0.0",
     .summary = "Removes one or more members from a set. Deletes the set if the last member was removed.",
     .complexity = "O(N) where N is the number of members to be removed.",
     .args = "key member [member ...]"},
    {.name = "smove", .proc = smoveCommand, .arity = 4, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, 2, 1}, .group = "set", .since = "1.0.0",
     .summary = "Moves a member from one set to another.", .complexity = "O(1)",
     .args = "source destination member"},
    {.name = "sismember", .proc = sismemberCommand, .arity = 3, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, 1, 1}, .group = "set", .since = "1.0.0",
     .summary = "Determines whether a member belongs to a set.", .complexity = "O(1)",
     .args = "key member"},
    {.name = "smismember", .proc = smismemberCommand, .arity = -3, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, 1, 1}, .group = "set", .since = "6.2.0",
     .summary = "Determines whether multiple members belong to a set.",
     .complexity = "O(N) where N is the number of elements being checked for membership",
     .args = "key member [member ...]"},
    {.name = "scard", .proc = scardCommand, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, 1, 1}, .group = "set", .since = "1.0.0",
     .summary = "Returns the number of members in a set.", .complexity = "O(1)",
     .args = "key"},
    {.name = "smembers", .proc = smembersCommand, .arity = 2, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, 1, 1}, .group = "set", .since = "1.0.0",
     .summary = "Returns all members of a set.", .complexity = "O(N) where N is the set cardinality.",
     .args = "key"},
    {.name = "spop", .proc = spopCommand, .arity = -2, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, 1, 1}, .group = "set", .since = "1.0.0",
     .summary = "Returns one or more random members from a set after removing them. Deletes the set if the last "
                "member was popped.",
     .complexity = "Without the count argument O(1), otherwise O(N) where N is the value of the passed count.",
     .args = "key [count]"},
    {.name = "srandmember", .proc = srandmemberCommand, .arity = -2, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, 1, 1}, .group = "set", .since = "1.0.0",
     .summary = "Get one or multiple random members from a set",
     .complexity = "Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed "
                   "count.",
     .args = "key [count]"},
    {.name = "sinter", .proc = sinterCommand, .arity = -2, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, -1, 1}, .group = "set", .since = "1.0.0",
     .summary = "Returns the intersect of multiple sets.",
     .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of "
                   "sets.",
     .args = "key [key ...]"},
    {.name = "sintercard", .proc = sintercardCommand, .arity = -3, .flags = CMD_READONLY | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_CATEGORY_SET, .key = {0, 0, 0}, .getkeys_proc = sintercardGetKeys, .group = "set",
     .since = "7.0.0", .summary = "Returns the number of members of the intersect of multiple sets.",
     .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of "
                   "sets.",
     .args = "numkeys key [key ...] [LIMIT limit]"},
    {.name = "sinterstore", .proc = sinterstoreCommand, .arity = -3, .flags = SET_WRITE,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, -1, 1}, .group = "set", .since = "1.0.0",
     .summary = "Stores the intersect of multiple sets in a key.",
     .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of "
                   "sets.",
     .args = "destination key [key ...]"},
    {.name = "sunion", .proc = sunionCommand, .arity = -2, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, -1, 1}, .group = "set", .since = "1.0.0",
     .summary = "Returns the union of multiple sets.",
     .complexity = "O(N) where N is the total number of elements in all given sets.",
     .args = "key [key ...]"},
    {.name = "sunionstore", .proc = sunionstoreCommand, .arity = -3, .flags = SET_WRITE,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, -1, 1}, .group = "set", .since = "1.0.0",
     .summary = "Stores the union of multiple sets in a key.",
     .complexity = "O(N) where N is the total number of elements in all given sets.",
     .args = "destination key [key ...]"},
    {.name = "sdiff", .proc = sdiffCommand, .arity = -2, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, -1, 1}, .group = "set", .since = "1.0.0",
     .summary = "Returns the difference of multiple sets.",
     .complexity = "O(N) where N is the total number of elements in all given sets.",
     .args = "key [key ...]"},
    {.name = "sdiffstore", .proc = sdiffstoreCommand, .arity = -3, .flags = SET_WRITE,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, -1, 1}, .group = "set", .since = "1.0.0",
     .summary = "Stores the difference of multiple sets in a key.",
     .complexity = "O(N) where N is the total number of elements in all given sets.",
     .args = "destination key [key ...]"},
    {.name = "sscan", .proc = sscanCommand, .arity = -3, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SET, .key = {1, 1, 1}, .group = "set", .since = "2.8.0",
     .summary = "Iterates over members of a set.",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the "
                   "cursor to return back to 0. N is the number of elements inside the collection.",
     .args = "key cursor [MATCH pattern] [COUNT count]"},
    {0},
};
