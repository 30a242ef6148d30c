/* t_zset.c - the sorted set type: ZADD/ZINCRBY/ZREM, scores and ranks,
 * every ZRANGE form and ZRANGESTORE, the ZREMRANGEBY* deletes, pops
 * (ZPOPMIN/ZPOPMAX/ZMPOP and their blocking forms), ZRANDMEMBER, the
 * algebra commands (ZUNION/ZINTER/ZDIFF, STORE forms, ZINTERCARD) and ZSCAN.
 *
 * A sorted set is an robj of type OBJ_ZSET in one of two encodings:
 *   LISTPACK  member, score, member, score, ... in (score, member) order,
 *             scores stored as their shortest exact decimal text; used while
 *             the set has at most zset-max-listpack-entries members of at
 *             most zset-max-listpack-value bytes;
 *   SKIPLIST  a `zset`: a skiplist (zskiplist.c, ranks in O(log N)) plus a
 *             dict member -> pointer to the node's score. Each member is
 *             stored once, inside its dict entry; the skiplist node's `ele`
 *             points at that copy. So an entry is created before its node
 *             and freed after it (see zsetSkiplistInsert and zsetDel).
 * A listpack converts to a skiplist as soon as an add breaks a limit. The
 * way back is only taken where Valkey takes it: results built by the STORE
 * commands are turned into a listpack when they fit.
 *
 * Commands go through the zset* layer (add, delete, score, rank, iterate
 * from a rank / score / member bound in either direction) and never touch
 * an encoding themselves. Replies follow Valkey's RESP2/RESP3 shapes: a
 * score is a bulk string in RESP2 and a double in RESP3, and score pairs
 * are nested arrays in RESP3 where Valkey nests them.
 *
 * Writes bump server.dirty, call signalModifiedKey() and fire Valkey's
 * keyspace events ("zadd", "zincr", "zrem", "zpopmin", "zunionstore", ...,
 * and "del" when the last member goes: no empty sorted set is kept).
 * Blocked BZPOP and BZMPOP clients go through blocked.c exactly like BLPOP.
 * They are propagated (propagate.c) as what they did: BZPOPMIN/BZPOPMAX as
 * "ZPOPMIN key" / "ZPOPMAX key" of the key served, ZMPOP/BZMPOP as
 * "ZPOPMIN key n" / "ZPOPMAX key n" with the number popped.
 * MEMORY USAGE, DEBUG DIGEST-VALUE and COPY use the objectMethods entry
 * registered by zsetTypeInit(); ZSCAN is served by db.c's scan code. */
#include <ctype.h>
#include <math.h>

#include "blocked.h"
#include "listpack.h"
#include "server.h"
#include "zskiplist.h"

/* The skiplist encoding's value. */
typedef struct zset {
    dict *dict; /* member (embedded in the entry; the node borrows it) -> double * (the node's score) */
    zskiplist *zsl;
} zset;

/* One element read out of either encoding. `ele` may point into `buf`
 * (integers in a listpack), so an entry must not be copied by value. */
typedef struct zsetEntry {
    const char *ele;
    size_t len;
    double score;
    char buf[LP_INTBUF_SIZE];
} zsetEntry;

/* zsetAdd() flags in and out. */
#define ZADD_IN_INCR (1 << 0) /* score is an increment */
#define ZADD_IN_NX (1 << 1)   /* only add new members */
#define ZADD_IN_XX (1 << 2)   /* only update existing members */
#define ZADD_IN_GT (1 << 3)   /* only update to a greater score */
#define ZADD_IN_LT (1 << 4)   /* only update to a lower score */
#define ZADD_OUT_NOP (1 << 0)     /* nothing done, because of a condition */
#define ZADD_OUT_NAN (1 << 1)     /* the resulting score would be NaN */
#define ZADD_OUT_ADDED (1 << 2)   /* a new member */
#define ZADD_OUT_UPDATED (1 << 3) /* an existing member got a new score */

/* Pop ends. */
#define ZSET_MIN 0
#define ZSET_MAX 1

/* ---------------------------------------------------------------------------
 * Dict type of the skiplist encoding
 * ------------------------------------------------------------------------- */

static uint64_t zsetDictHash(const void *key) {
    return dictGenHashFunction(key, sdslen((sds)key));
}

static int zsetDictKeyCompare(const void *a, const void *b) {
    size_t la = sdslen((sds)a), lb = sdslen((sds)b);
    return la == lb && memcmp(a, b, la) == 0;
}

static size_t zsetDictMemberSize(const void *key) {
    return sdsEmbeddedSize(sdslen((sds)key));
}

static void *zsetDictEmbedMember(void *buf, const void *key) {
    return sdsnewInBuffer(buf, key, sdslen((sds)key));
}

/* Members are copied into the entries (and borrowed by the skiplist
 * nodes); values point into the nodes: no destructors. */
static dictType zsetDictType = {
    .hashFunction = zsetDictHash,
    .keyCompare = zsetDictKeyCompare,
    .embeddedKeySize = zsetDictMemberSize,
    .embedKey = zsetDictEmbedMember,
};

static void zsetSdsDestructor(void *key) {
    sdsfree(key);
}

/* Scratch dicts that own their sds keys: ZUNION accumulators (value: the
 * score as a double in the entry) and ZRANDMEMBER's picks. */
static dictType zsetScratchDictType = {
    .hashFunction = zsetDictHash,
    .keyCompare = zsetDictKeyCompare,
    .keyDestructor = zsetSdsDestructor,
};

/* Finds member bytes in the skiplist encoding's dict. */
static dictEntry *zsetDictFind(zset *zs, const char *ele, size_t len) {
    sdsTemp key;
    dictEntry *de = dictFind(zs->dict, sdsTempInit(&key, ele, len));
    sdsTempRelease(&key);
    return de;
}

/* ---------------------------------------------------------------------------
 * Listpack encoding: member, score pairs in order
 * ------------------------------------------------------------------------- */

/* Reads the score stored at sptr. */
static double zzlScoreAt(unsigned char *sptr) {
    unsigned int slen;
    long long lval;
    unsigned char *s = lpGetValue(sptr, &slen, &lval);
    if (s == NULL) return (double)lval;
    double d = 0;
    serverAssert(string2d((const char *)s, slen, &d));
    return d;
}

/* Reads the member at eptr: bytes in the listpack, or its integer printed
 * into buf (LP_INTBUF_SIZE). */
static const char *zzlMemberAt(unsigned char *eptr, size_t *len, char *buf) {
    int64_t l;
    unsigned char *s = lpGet(eptr, &l, (unsigned char *)buf);
    *len = (size_t)l;
    return (const char *)s;
}

/* Fills e from the pair starting at eptr. */
static void zzlEntryAt(unsigned char *lp, unsigned char *eptr, zsetEntry *e) {
    e->ele = zzlMemberAt(eptr, &e->len, e->buf);
    e->score = zzlScoreAt(lpNext(lp, eptr));
}

static unsigned long zzlLength(unsigned char *lp) {
    return lpLength(lp) / 2;
}

/* Member entry of ele, or NULL; sets *score when found. */
static unsigned char *zzlFind(unsigned char *lp, const char *ele, size_t len, double *score) {
    unsigned char *eptr = lpFirst(lp);
    if (eptr == NULL) return NULL;
    eptr = lpFind(lp, eptr, (const unsigned char *)ele, len, 1);
    if (eptr && score) *score = zzlScoreAt(lpNext(lp, eptr));
    return eptr;
}

/* Inserts (ele, score) at its place in the order. */
static unsigned char *zzlInsert(unsigned char *lp, const char *ele, size_t len, double score) {
    char sbuf[MAX_D2STRING_CHARS];
    int slen = d2string(sbuf, sizeof(sbuf), score);
    unsigned char *eptr = lpFirst(lp);
    while (eptr) {
        unsigned char *sptr = lpNext(lp, eptr);
        double s = zzlScoreAt(sptr);
        if (s > score) break;
        if (s == score) {
            char buf[LP_INTBUF_SIZE];
            size_t mlen;
            const char *m = zzlMemberAt(eptr, &mlen, buf);
            if (zslCompareMembers(m, mlen, ele, len) > 0) break;
        }
        eptr = lpNext(lp, sptr);
    }
    if (eptr == NULL) {
        lp = lpAppend(lp, (const unsigned char *)ele, len);
        return lpAppend(lp, (const unsigned char *)sbuf, slen);
    }
    unsigned char *newp;
    lp = lpInsertString(lp, (const unsigned char *)ele, len, eptr, LP_BEFORE, &newp);
    return lpInsertString(lp, (const unsigned char *)sbuf, slen, newp, LP_AFTER, NULL);
}

/* Deletes the pair starting at eptr. */
static unsigned char *zzlDeleteAt(unsigned char *lp, unsigned char *eptr) {
    return lpDeleteRangeWithEntry(lp, &eptr, 2);
}

/* Member entry of the first (rev: last) pair in the score range, or NULL. */
static unsigned char *zzlSeekScore(unsigned char *lp, const zrangeSpec *r, int rev) {
    if (!zslRangeNonEmpty(r)) return NULL;
    if (!rev) {
        for (unsigned char *eptr = lpFirst(lp); eptr; eptr = lpNext(lp, lpNext(lp, eptr))) {
            double s = zzlScoreAt(lpNext(lp, eptr));
            if (zslValueGteMin(s, r)) return zslValueLteMax(s, r) ? eptr : NULL;
        }
    } else {
        for (unsigned char *sptr = lpLast(lp); sptr; sptr = lpPrev(lp, lpPrev(lp, sptr))) {
            double s = zzlScoreAt(sptr);
            if (zslValueLteMax(s, r)) return zslValueGteMin(s, r) ? lpPrev(lp, sptr) : NULL;
        }
    }
    return NULL;
}

/* Member entry of the first (rev: last) pair in the member range, or NULL. */
static unsigned char *zzlSeekLex(unsigned char *lp, const zlexRange *r, int rev) {
    if (!zslLexRangeNonEmpty(r)) return NULL;
    char buf[LP_INTBUF_SIZE];
    size_t len;
    const char *m;
    if (!rev) {
        for (unsigned char *eptr = lpFirst(lp); eptr; eptr = lpNext(lp, lpNext(lp, eptr))) {
            m = zzlMemberAt(eptr, &len, buf);
            if (zslLexValueGteMin(m, len, r)) return zslLexValueLteMax(m, len, r) ? eptr : NULL;
        }
    } else {
        for (unsigned char *sptr = lpLast(lp); sptr; sptr = lpPrev(lp, lpPrev(lp, sptr))) {
            unsigned char *eptr = lpPrev(lp, sptr);
            m = zzlMemberAt(eptr, &len, buf);
            if (zslLexValueLteMax(m, len, r)) return zslLexValueGteMin(m, len, r) ? eptr : NULL;
        }
    }
    return NULL;
}

/* ---------------------------------------------------------------------------
 * The zset layer: create, convert, add, delete, look up
 * ------------------------------------------------------------------------- */

static zset *zsetNewSkiplist(void) {
    zset *zs = zmalloc(sizeof(*zs));
    zs->dict = dictCreate(&zsetDictType);
    zs->zsl = zslCreate();
    return zs;
}

static robj *zsetCreateSkiplistObject(void) {
    robj *o = createObject(OBJ_ZSET, zsetNewSkiplist());
    o->encoding = OBJ_ENCODING_SKIPLIST;
    return o;
}

static robj *zsetCreateListpackObject(void) {
    robj *o = createObject(OBJ_ZSET, lpNew(0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

/* A new empty sorted set for size_hint members of up to maxelelen bytes:
 * a listpack if that fits the limits, else a skiplist. */
robj *zsetTypeCreate(size_t size_hint, size_t maxelelen) {
    if (size_hint <= server.zset_max_listpack_entries && maxelelen <= server.zset_max_listpack_value &&
        server.zset_max_listpack_entries > 0)
        return zsetCreateListpackObject();
    robj *o = zsetCreateSkiplistObject();
    if (size_hint > 1) dictExpand(((zset *)objectGetVal(o))->dict, size_hint);
    return o;
}

unsigned long zsetLength(const robj *zobj) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) return zzlLength(objectGetVal(zobj));
    if (zobj->encoding == OBJ_ENCODING_SKIPLIST) return ((const zset *)objectGetVal(zobj))->zsl->length;
    serverPanic("Unknown sorted set encoding");
}

/* Adds a member known to be absent to a skiplist-encoded set: first the
 * dict entry, which holds the member's only copy, then the node that
 * borrows it. */
static void zsetSkiplistInsert(zset *zs, const char *ele, size_t len, double score) {
    sdsTemp key;
    dictEntry *de = dictAddRaw(zs->dict, sdsTempInit(&key, ele, len), NULL);
    sdsTempRelease(&key);
    serverAssert(de != NULL);
    zskiplistNode *node = zslInsert(zs->zsl, score, dictGetKey(de));
    dictSetVal(zs->dict, de, &node->score);
}

/* Adds (ele, score) to a skiplist-encoded set unless ele is already a
 * member: returns 1 if added, 0 for a duplicate (the RDB loader rejects
 * those). Inserting in descending order makes each insertion stop at the
 * head of the skiplist. */
int zsetTypeAddNew(robj *zobj, const char *ele, size_t len, double score) {
    serverAssert(zobj->encoding == OBJ_ENCODING_SKIPLIST);
    zset *zs = objectGetVal(zobj);
    if (zsetDictFind(zs, ele, len)) return 0;
    zsetSkiplistInsert(zs, ele, len, score);
    return 1;
}

/* The skiplist of a skiplist-encoded set (the RDB writer walks it). */
zskiplist *zsetTypeSkiplist(robj *zobj) {
    serverAssert(zobj->encoding == OBJ_ENCODING_SKIPLIST);
    return ((zset *)objectGetVal(zobj))->zsl;
}

/* Active defragmentation of a skiplist-encoded set (defrag.c): moves the
 * zset struct (zobj's value), its dict and skiplist structs and the dict's
 * bucket arrays. defragfn returns a block's new address or NULL. */
void zsetTypeDefragStructs(robj *zobj, void *(*defragfn)(void *)) {
    serverAssert(zobj->encoding == OBJ_ENCODING_SKIPLIST);
    zset *zs = defragfn(objectGetVal(zobj));
    if (zs) objectSetVal(zobj, zs);
    else zs = objectGetVal(zobj);
    dict *d = defragfn(zs->dict);
    if (d) zs->dict = d;
    zskiplist *zsl = defragfn(zs->zsl);
    if (zsl) zs->zsl = zsl;
    dictDefragTables(zs->dict, defragfn);
}

/* A skiplist node moved: its dict entry's value points at its score. */
static void zsetDefragNodeMoved(zskiplistNode *node, void *privdata) {
    zset *zs = privdata;
    dictEntry *de = zsetDictFind(zs, node->ele, sdslen(node->ele));
    serverAssert(de != NULL);
    dictSetVal(zs->dict, de, &node->score);
}

/* A dict entry moved: its node borrows the member the entry holds (the
 * entry's value leads to the node: it points at the node's score). */
static void zsetDefragEntryMoved(void *privdata, const dictEntry *de) {
    (void)privdata;
    zskiplistNode *node = (zskiplistNode *)((char *)dictGetVal(de) - offsetof(zskiplistNode, score));
    node->ele = dictGetKey(de);
}

/* Moves up to about budget of the set's blocks from cur (zeroed to start):
 * first the skiplist's header and nodes in rank order, then the dict's
 * entries by scan cursor. Returns 1 when the whole set was done. */
int zsetTypeDefragPart(robj *zobj, zsetDefragCursor *cur, unsigned long budget, void *(*defragfn)(void *)) {
    serverAssert(zobj->encoding == OBJ_ENCODING_SKIPLIST);
    zset *zs = objectGetVal(zobj);
    if (!cur->in_dict) {
        cur->rank = zslDefrag(zs->zsl, cur->rank, budget, defragfn, zsetDefragNodeMoved, zs);
        if (cur->rank) return 0;
        cur->in_dict = 1;
        cur->scan = 0;
        if (budget != ULONG_MAX) return 0; /* the entries in the next part */
    }
    unsigned long steps = 0;
    do {
        cur->scan = dictScanDefrag(zs->dict, cur->scan, defragfn, zsetDefragEntryMoved, NULL);
    } while (cur->scan && ++steps < budget);
    return cur->scan == 0;
}

static void zsetFreeSkiplist(zset *zs) {
    dictRelease(zs->dict);
    zslFree(zs->zsl);
    zfree(zs);
}

/* Converts zobj to `encoding` (LISTPACK or SKIPLIST), keeping the order. */
void zsetConvert(robj *zobj, int encoding) {
    if (zobj->encoding == encoding) return;
    if (encoding == OBJ_ENCODING_SKIPLIST) {
        unsigned char *lp = objectGetVal(zobj);
        zset *zs = zsetNewSkiplist();
        dictExpand(zs->dict, zzlLength(lp));
        zsetEntry e;
        for (unsigned char *eptr = lpFirst(lp); eptr; eptr = lpNext(lp, lpNext(lp, eptr))) {
            zzlEntryAt(lp, eptr, &e);
            zsetSkiplistInsert(zs, e.ele, e.len, e.score);
        }
        lpFree(lp);
        objectSetVal(zobj, zs);
        zobj->encoding = OBJ_ENCODING_SKIPLIST;
    } else {
        serverAssert(encoding == OBJ_ENCODING_LISTPACK);
        zset *zs = objectGetVal(zobj);
        unsigned char *lp = lpNew(0);
        char sbuf[MAX_D2STRING_CHARS];
        for (zskiplistNode *n = zs->zsl->header->level[0].forward; n; n = n->level[0].forward) {
            lp = lpAppend(lp, (const unsigned char *)n->ele, sdslen(n->ele));
            int slen = d2string(sbuf, sizeof(sbuf), n->score);
            lp = lpAppend(lp, (const unsigned char *)sbuf, slen);
        }
        zsetFreeSkiplist(zs);
        objectSetVal(zobj, lp);
        zobj->encoding = OBJ_ENCODING_LISTPACK;
    }
}

/* Turns a skiplist result back into a listpack when it fits the limits:
 * maxelelen is its longest member, totelelen the sum of member lengths. */
void zsetConvertToListpackIfNeeded(robj *zobj, size_t maxelelen, size_t totelelen) {
    if (zobj->encoding != OBJ_ENCODING_SKIPLIST) return;
    if (zsetLength(zobj) <= server.zset_max_listpack_entries && maxelelen <= server.zset_max_listpack_value &&
        totelelen < LP_MAX_SAFETY_SIZE)
        zsetConvert(zobj, OBJ_ENCODING_LISTPACK);
}

/* Looks ele up; returns C_OK and *score if it is a member. */
static int zsetScore(robj *zobj, const char *ele, size_t len, double *score) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) return zzlFind(objectGetVal(zobj), ele, len, score) ? C_OK : C_ERR;
    dictEntry *de = zsetDictFind(objectGetVal(zobj), ele, len);
    if (de == NULL) return C_ERR;
    *score = *(double *)dictGetVal(de);
    return C_OK;
}

/* The ZADD_IN_* conditions on an existing member whose score is cur: sets
 * *score to the score it would get (cur added for INCR). Returns 0 (with
 * ZADD_OUT_NOP or ZADD_OUT_NAN in *out_flags) when nothing may change. */
static int zaddExistingAllowed(int in_flags, double cur, double *score, int *out_flags) {
    if (in_flags & ZADD_IN_NX) {
        *out_flags |= ZADD_OUT_NOP;
        return 0;
    }
    if (in_flags & ZADD_IN_INCR) {
        *score += cur;
        if (isnan(*score)) {
            *out_flags |= ZADD_OUT_NAN;
            return 0;
        }
    }
    if (((in_flags & ZADD_IN_LT) && *score >= cur) || ((in_flags & ZADD_IN_GT) && *score <= cur)) {
        *out_flags |= ZADD_OUT_NOP;
        return 0;
    }
    return 1;
}

/* zsetAdd() for the skiplist encoding, hashing ele once: one dict probe
 * finds the member or the bucket a new member goes into. */
static int zsetSkiplistAdd(zset *zs, double score, const char *ele, size_t len, int in_flags, int *out_flags,
                           double *newscore) {
    sdsTemp key;
    dictEntry *de;
    void *position = dictFindPositionForInsert(zs->dict, sdsTempInit(&key, ele, len), &de);
    if (position == NULL) {
        sdsTempRelease(&key);
        double cur = *(double *)dictGetVal(de);
        if (!zaddExistingAllowed(in_flags, cur, &score, out_flags)) return !(*out_flags & ZADD_OUT_NAN);
        if (newscore) *newscore = score;
        if (score == cur) return 1;
        zskiplistNode *node = zslUpdateScore(zs->zsl, cur, ele, len, score);
        dictSetVal(zs->dict, de, &node->score);
        *out_flags |= ZADD_OUT_UPDATED;
        return 1;
    }
    if (in_flags & ZADD_IN_XX) {
        sdsTempRelease(&key);
        *out_flags |= ZADD_OUT_NOP;
        return 1;
    }
    de = dictInsertAtPosition(zs->dict, key.s, position);
    sdsTempRelease(&key);
    zskiplistNode *node = zslInsert(zs->zsl, score, dictGetKey(de));
    dictSetVal(zs->dict, de, &node->score);
    if (newscore) *newscore = score;
    *out_flags |= ZADD_OUT_ADDED;
    return 1;
}

/* Adds or updates ele under the ZADD_IN_* flags. Returns 1 with *out_flags
 * saying what happened (and *newscore the member's score unless NOP), or
 * 0 when the result would be NaN (ZADD_OUT_NAN; nothing changed). */
static int zsetAdd(robj *zobj, double score, const char *ele, size_t len, int in_flags, int *out_flags,
                   double *newscore) {
    *out_flags = 0;
    if (isnan(score)) {
        *out_flags = ZADD_OUT_NAN;
        return 0;
    }
    if (zobj->encoding == OBJ_ENCODING_SKIPLIST)
        return zsetSkiplistAdd(objectGetVal(zobj), score, ele, len, in_flags, out_flags, newscore);

    double cur;
    unsigned char *eptr = zzlFind(objectGetVal(zobj), ele, len, &cur);
    if (eptr) {
        if (!zaddExistingAllowed(in_flags, cur, &score, out_flags)) return !(*out_flags & ZADD_OUT_NAN);
        if (newscore) *newscore = score;
        if (score == cur) return 1;
        objectSetVal(zobj, zzlDeleteAt(objectGetVal(zobj), eptr));
        objectSetVal(zobj, zzlInsert(objectGetVal(zobj), ele, len, score));
        *out_flags |= ZADD_OUT_UPDATED;
        return 1;
    }

    if (in_flags & ZADD_IN_XX) {
        *out_flags |= ZADD_OUT_NOP;
        return 1;
    }
    unsigned char *lp = objectGetVal(zobj);
    if (zzlLength(lp) + 1 <= server.zset_max_listpack_entries && len <= server.zset_max_listpack_value &&
        lpSafeToAdd(lp, len + MAX_D2STRING_CHARS)) {
        objectSetVal(zobj, zzlInsert(lp, ele, len, score));
    } else {
        zsetConvert(zobj, OBJ_ENCODING_SKIPLIST);
        zsetSkiplistInsert(objectGetVal(zobj), ele, len, score);
    }
    if (newscore) *newscore = score;
    *out_flags |= ZADD_OUT_ADDED;
    return 1;
}

/* Removes ele. Returns 1 if it was a member. */
static int zsetDel(robj *zobj, const char *ele, size_t len) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *eptr = zzlFind(objectGetVal(zobj), ele, len, NULL);
        if (eptr == NULL) return 0;
        objectSetVal(zobj, zzlDeleteAt(objectGetVal(zobj), eptr));
        return 1;
    }
    zset *zs = objectGetVal(zobj);
    sdsTemp key;
    dictEntry *de = dictUnlink(zs->dict, sdsTempInit(&key, ele, len));
    sdsTempRelease(&key);
    if (de == NULL) return 0;
    /* The unlinked entry still holds the member the node borrows (ele may
     * even point at it): free the node first, then the entry. */
    double score = *(double *)dictGetVal(de);
    serverAssert(zslDelete(zs->zsl, score, ele, len, NULL));
    dictFreeUnlinkedEntry(zs->dict, de);
    return 1;
}

/* 0-based rank of ele counted from the low (or, reverse, the high) end, or
 * -1 if absent; *score gets its score. */
static long zsetRank(robj *zobj, const char *ele, size_t len, int reverse, double *score) {
    unsigned long n = zsetLength(zobj);
    long rank;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = objectGetVal(zobj);
        rank = 0;
        unsigned char *eptr;
        for (eptr = lpFirst(lp); eptr; eptr = lpNext(lp, lpNext(lp, eptr)), rank++)
            if (lpCompare(eptr, (const unsigned char *)ele, len)) break;
        if (eptr == NULL) return -1;
        *score = zzlScoreAt(lpNext(lp, eptr));
    } else {
        zset *zs = objectGetVal(zobj);
        dictEntry *de = zsetDictFind(zs, ele, len);
        if (de == NULL) return -1;
        *score = *(double *)dictGetVal(de);
        unsigned long r = zslGetRank(zs->zsl, *score, ele, len);
        serverAssert(r != 0);
        rank = (long)r - 1;
    }
    return reverse ? (long)n - 1 - rank : rank;
}

/* ---------------------------------------------------------------------------
 * Iteration in either direction, from a rank, score or member bound
 * ------------------------------------------------------------------------- */

typedef struct zsetIter {
    robj *zobj;
    int rev;
    unsigned char *eptr; /* LISTPACK: member entry of the current pair */
    zskiplistNode *node; /* SKIPLIST: current node */
} zsetIter;

static void zsetIterInit(zsetIter *it, robj *zobj, int rev) {
    it->zobj = zobj;
    it->rev = rev;
    it->eptr = NULL;
    it->node = NULL;
}

static int zsetIterValid(const zsetIter *it) {
    return it->zobj->encoding == OBJ_ENCODING_LISTPACK ? it->eptr != NULL : it->node != NULL;
}

/* Positions on the element at `rank` counted in the iteration direction
 * (0 = first served). */
static void zsetIterSeekRank(zsetIter *it, unsigned long rank) {
    unsigned long n = zsetLength(it->zobj);
    if (rank >= n) {
        it->eptr = NULL;
        it->node = NULL;
        return;
    }
    unsigned long fwd = it->rev ? n - 1 - rank : rank;
    if (it->zobj->encoding == OBJ_ENCODING_LISTPACK) it->eptr = lpSeek(objectGetVal(it->zobj), (long)(2 * fwd));
    else it->node = zslGetElementByRank(((zset *)objectGetVal(it->zobj))->zsl, fwd + 1);
}

static void zsetIterSeekScore(zsetIter *it, const zrangeSpec *r) {
    if (it->zobj->encoding == OBJ_ENCODING_LISTPACK) {
        it->eptr = zzlSeekScore(objectGetVal(it->zobj), r, it->rev);
    } else {
        zskiplist *zsl = ((zset *)objectGetVal(it->zobj))->zsl;
        it->node = it->rev ? zslLastInRange(zsl, r) : zslFirstInRange(zsl, r);
    }
}

static void zsetIterSeekLex(zsetIter *it, const zlexRange *r) {
    if (it->zobj->encoding == OBJ_ENCODING_LISTPACK) {
        it->eptr = zzlSeekLex(objectGetVal(it->zobj), r, it->rev);
    } else {
        zskiplist *zsl = ((zset *)objectGetVal(it->zobj))->zsl;
        it->node = it->rev ? zslLastInLexRange(zsl, r) : zslFirstInLexRange(zsl, r);
    }
}

/* Reads the current element (the iterator must be valid). */
static void zsetIterGet(const zsetIter *it, zsetEntry *e) {
    if (it->zobj->encoding == OBJ_ENCODING_LISTPACK) {
        zzlEntryAt(objectGetVal(it->zobj), it->eptr, e);
    } else {
        e->ele = it->node->ele;
        e->len = sdslen(it->node->ele);
        e->score = it->node->score;
    }
}

static void zsetIterNext(zsetIter *it) {
    if (it->zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = objectGetVal(it->zobj);
        if (!it->rev) {
            it->eptr = lpNext(lp, lpNext(lp, it->eptr));
        } else {
            unsigned char *prev_score = lpPrev(lp, it->eptr);
            it->eptr = prev_score ? lpPrev(lp, prev_score) : NULL;
        }
    } else {
        it->node = it->rev ? it->node->backward : it->node->level[0].forward;
    }
}

/* ---------------------------------------------------------------------------
 * Object methods: free, free effort, size, dup, digest; helpers for ZSCAN
 * ------------------------------------------------------------------------- */

static size_t zsetTypeFreeEffort(robj *o) {
    return o->encoding == OBJ_ENCODING_SKIPLIST ? ((zset *)objectGetVal(o))->zsl->length : 1;
}

static void zsetTypeFree(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) lpFree(objectGetVal(o));
    else if (o->encoding == OBJ_ENCODING_SKIPLIST) zsetFreeSkiplist(objectGetVal(o));
    else serverPanic("Unknown sorted set encoding");
}

/* Bytes used by the value (robj header excluded). Skiplists are sampled:
 * the first sample_size nodes' sizes times the member count. */
static size_t zsetTypeMemory(robj *o, size_t sample_size) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return lpBytes(objectGetVal(o));
    zset *zs = objectGetVal(o);
    size_t total = sizeof(*zs) + sizeof(zskiplist) + dictTablesMemUsage(zs->dict) + zmalloc_size(zs->zsl->header);
    size_t sampled = 0, bytes = 0;
    for (zskiplistNode *n = zs->zsl->header->level[0].forward; n && sampled < sample_size; n = n->level[0].forward) {
        /* The node, and the dict entry that holds its member. */
        dictEntry *de = dictFind(zs->dict, n->ele);
        bytes += zmalloc_size(n) + (de ? dictEntryMemUsage(de) : 0);
        sampled++;
    }
    if (sampled) total += (size_t)((double)bytes / sampled * zs->zsl->length);
    return total;
}

/* Deep copy with the same encoding (COPY). */
static robj *zsetTypeDup(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        robj *copy = createObject(OBJ_ZSET, lpDup(objectGetVal(o)));
        copy->encoding = OBJ_ENCODING_LISTPACK;
        return copy;
    }
    zset *zs = objectGetVal(o);
    robj *copy = zsetCreateSkiplistObject();
    zset *dst = objectGetVal(copy);
    dictExpand(dst->dict, zs->zsl->length);
    /* Walking backwards lets every insert land at the head. */
    for (zskiplistNode *n = zs->zsl->tail; n; n = n->backward)
        zsetSkiplistInsert(dst, n->ele, sdslen(n->ele), n->score);
    return copy;
}

/* Order-independent digest of (member, score) pairs, with the score in its
 * reply text, so both encodings of one set digest alike. */
static void zsetTypeDigest(robj *o, unsigned char *digest) {
    zsetIter it;
    zsetEntry e;
    char sbuf[MAX_D2STRING_CHARS];
    zsetIterInit(&it, o, 0);
    zsetIterSeekRank(&it, 0);
    for (; zsetIterValid(&it); zsetIterNext(&it)) {
        unsigned char eledigest[20] = {0};
        zsetIterGet(&it, &e);
        int slen = d2string(sbuf, sizeof(sbuf), e.score);
        mixDigest(eledigest, e.ele, e.len);
        mixDigest(eledigest, sbuf, slen);
        xorDigest(digest, eledigest, sizeof(eledigest));
    }
}

/* Registers the sorted set type's methods. Called once by initServer(). */
void zsetTypeInit(void) {
    objectMethods[OBJ_ZSET].free = zsetTypeFree;
    objectMethods[OBJ_ZSET].size = zsetTypeMemory;
    objectMethods[OBJ_ZSET].free_effort = zsetTypeFreeEffort;
    objectMethods[OBJ_ZSET].dup = zsetTypeDup;
    objectMethods[OBJ_ZSET].digest = zsetTypeDigest;
}

/* Appends every member (and, with_scores, its score as text) of a
 * listpack-encoded sorted set to out as new sds strings (the caller sets
 * the list's free method). Used by ZSCAN (db.c), which returns compact
 * encodings whole in one call. */
void zsetTypeCollectAll(robj *zobj, list *out, int with_scores) {
    zsetIter it;
    zsetEntry e;
    char sbuf[MAX_D2STRING_CHARS];
    zsetIterInit(&it, zobj, 0);
    zsetIterSeekRank(&it, 0);
    for (; zsetIterValid(&it); zsetIterNext(&it)) {
        zsetIterGet(&it, &e);
        listAddNodeTail(out, sdsnewlen(e.ele, e.len));
        if (with_scores) listAddNodeTail(out, sdsnewlen(sbuf, d2string(sbuf, sizeof(sbuf), e.score)));
    }
}

/* The member -> double * dict of a skiplist-encoded sorted set (ZSCAN
 * scans it with dictScan; values point at each member's score). */
dict *zsetTypeDict(robj *zobj) {
    serverAssert(zobj->encoding == OBJ_ENCODING_SKIPLIST);
    return ((zset *)objectGetVal(zobj))->dict;
}

/* ---------------------------------------------------------------------------
 * Small command helpers
 * ------------------------------------------------------------------------- */

/* See server.h: the GEO commands (geo.c) read sorted sets through these. */
int zsetTypeScore(robj *zobj, const char *ele, size_t len, double *score) {
    return zsetScore(zobj, ele, len, score);
}

void zsetTypeScanScores(robj *zobj, double min, double max, zsetScoreVisitor *visit, void *ctx) {
    zrangeSpec r = {.min = min, .max = max, .minex = 0, .maxex = 1};
    zsetIter it;
    zsetEntry e;
    zsetIterInit(&it, zobj, 0);
    for (zsetIterSeekScore(&it, &r); zsetIterValid(&it); zsetIterNext(&it)) {
        zsetIterGet(&it, &e);
        if (e.score >= max) break;
        if (!visit(ctx, e.ele, e.len, e.score)) break;
    }
}

/* The bytes of a command argument: sds-encoded ones in place, integers
 * printed into buf (LONG_STR_SIZE). */
static const char *argBytes(robj *o, size_t *len, char *buf) {
    if (sdsEncodedObject(o)) {
        *len = sdslen(objectGetVal(o));
        return objectGetVal(o);
    }
    *len = ll2string(buf, LONG_STR_SIZE, (long)objectGetVal(o));
    return buf;
}

/* Deletes key if its sorted set became empty; returns 1 if it did and
 * fires "del". */
static int zsetDeleteIfEmpty(client *c, robj *key, robj *zobj) {
    if (zsetLength(zobj) != 0) return 0;
    dbDelete(c->db, key);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
    return 1;
}

/* Replies one (member, score) pair: flat in RESP2, or as a two-element
 * array in RESP3 when `nested`. */
static void addReplyScorePair(client *c, const char *ele, size_t len, double score, int nested) {
    if (nested) addReplyArrayLen(c, 2);
    addReplyBulkCBuffer(c, ele, len);
    addReplyDouble(c, score);
}

/* Stores a result under dstkey (or deletes dstkey if the result is empty),
 * replies the cardinality and fires `event`. Takes the caller's reference
 * to result. */
void zsetTypeStoreResult(client *c, robj *dstkey, robj *result, const char *event) {
    unsigned long n = zsetLength(result);
    if (n) {
        setKey(c, c->db, dstkey, result, 0);
        addReplyLongLong(c, (long long)n);
        notifyKeyspaceEvent(NOTIFY_ZSET, event, dstkey, c->db->id);
        server.dirty++;
    } else {
        addReply(c, shared.czero);
        if (dbDelete(c->db, dstkey)) {
            signalModifiedKey(c, c->db, dstkey);
            notifyKeyspaceEvent(NOTIFY_GENERIC, "del", dstkey, c->db->id);
            server.dirty++;
        }
    }
    decrRefCount(result);
}

/* ---------------------------------------------------------------------------
 * ZADD, ZINCRBY, ZREM
 * ------------------------------------------------------------------------- */

/* ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...],
 * and ZINCRBY key increment member (in_flags = ZADD_IN_INCR). */
static void zaddGenericCommand(client *c, int in_flags) {
    robj *key = c->argv[1];
    int ch = 0, j = 2;
    for (; j < c->argc; j++) {
        const char *opt = objectGetVal(c->argv[j]);
        if (!sdsEncodedObject(c->argv[j])) break;
        /* Every option is 2 to 4 letters: a score fails this at once. */
        size_t optlen = sdslen(objectGetVal(c->argv[j]));
        if (optlen < 2 || optlen > 4 || !isalpha((unsigned char)opt[0])) break;
        if (!strcasecmp(opt, "nx")) in_flags |= ZADD_IN_NX;
        else if (!strcasecmp(opt, "xx")) in_flags |= ZADD_IN_XX;
        else if (!strcasecmp(opt, "ch")) ch = 1;
        else if (!strcasecmp(opt, "incr")) in_flags |= ZADD_IN_INCR;
        else if (!strcasecmp(opt, "gt")) in_flags |= ZADD_IN_GT;
        else if (!strcasecmp(opt, "lt")) in_flags |= ZADD_IN_LT;
        else break;
    }
    int incr = in_flags & ZADD_IN_INCR, nx = in_flags & ZADD_IN_NX, xx = in_flags & ZADD_IN_XX;
    int gt = in_flags & ZADD_IN_GT, lt = in_flags & ZADD_IN_LT;

    int elements = c->argc - j;
    if (elements == 0 || elements % 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    elements /= 2;
    if (nx && xx) {
        addReplyError(c, "XX and NX options at the same time are not compatible");
        return;
    }
    if ((gt && nx) || (lt && nx) || (gt && lt)) {
        addReplyError(c, "GT, LT, and/or NX options at the same time are not compatible");
        return;
    }
    if (incr && elements > 1) {
        addReplyError(c, "INCR option supports a single increment-element pair");
        return;
    }

    /* All scores first: a bad one must leave the set untouched. */
    double scores_buf[8]; /* most calls add a few members: no allocation */
    double *scores = elements <= 8 ? scores_buf : zmalloc(sizeof(double) * elements);
    size_t maxelelen = 0;
    for (int i = 0; i < elements; i++) {
        if (getDoubleFromObjectOrReply(c, c->argv[j + 2 * i], &scores[i], NULL) != C_OK) {
            if (scores != scores_buf) zfree(scores);
            return;
        }
        robj *m = c->argv[j + 2 * i + 1];
        size_t mlen = sdsEncodedObject(m) ? sdslen(objectGetVal(m)) : (size_t)sdigits10((long)objectGetVal(m));
        if (mlen > maxelelen) maxelelen = mlen;
    }

    robj *zobj = lookupKeyWrite(c->db, key);
    if (checkType(c, zobj, OBJ_ZSET)) {
        if (scores != scores_buf) zfree(scores);
        return;
    }
    long long added = 0, updated = 0, processed = 0;
    double score = 0;
    if (zobj == NULL) {
        if (xx) goto reply;
        zobj = zsetTypeCreate(elements, maxelelen);
        dbAdd(c->db, key, &zobj);
    }
    for (int i = 0; i < elements; i++) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *ele = argBytes(c->argv[j + 2 * i + 1], &len, buf);
        int out;
        double newscore;
        if (!zsetAdd(zobj, scores[i], ele, len, in_flags, &out, &newscore)) {
            addReplyError(c, "resulting score is not a number (NaN)");
            goto cleanup;
        }
        if (out & ZADD_OUT_ADDED) added++;
        if (out & ZADD_OUT_UPDATED) updated++;
        if (!(out & ZADD_OUT_NOP)) {
            processed++;
            score = newscore;
        }
    }

reply:
    if (incr) {
        if (processed) addReplyDouble(c, score);
        else addReplyNull(c);
    } else {
        addReplyLongLong(c, ch ? added + updated : added);
    }
cleanup:
    if (scores != scores_buf) zfree(scores);
    if (added || updated) {
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_ZSET, incr ? "zincr" : "zadd", key, c->db->id);
        server.dirty += added + updated;
    }
    /* A NaN on a key ZADD just created leaves it empty: don't keep it. */
    if (zobj && zsetLength(zobj) == 0) dbDelete(c->db, key);
}

void zaddCommand(client *c) {
    zaddGenericCommand(c, 0);
}

static void zincrbyCommand(client *c) {
    zaddGenericCommand(c, ZADD_IN_INCR);
}

static void zremCommand(client *c) {
    robj *key = c->argv[1];
    robj *zobj = lookupKeyWriteOrReply(c, key, shared.czero);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    long long deleted = 0;
    int keyremoved = 0;
    for (int j = 2; j < c->argc; j++) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *ele = argBytes(c->argv[j], &len, buf);
        deleted += zsetDel(zobj, ele, len);
        if (zsetLength(zobj) == 0) {
            dbDelete(c->db, key);
            keyremoved = 1;
            break;
        }
    }
    if (deleted) {
        notifyKeyspaceEvent(NOTIFY_ZSET, "zrem", key, c->db->id);
        if (keyremoved) notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
        signalModifiedKey(c, c->db, key);
        server.dirty += deleted;
    }
    addReplyLongLong(c, deleted);
}

/* ---------------------------------------------------------------------------
 * ZCARD, ZSCORE, ZMSCORE, ZRANK, ZREVRANK
 * ------------------------------------------------------------------------- */

static void zcardCommand(client *c) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    addReplyLongLong(c, (long long)zsetLength(zobj));
}

static void zscoreCommand(client *c) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *ele = argBytes(c->argv[2], &len, buf);
    double score;
    if (zsetScore(zobj, ele, len, &score) == C_OK) addReplyDouble(c, score);
    else addReplyNull(c);
}

static void zmscoreCommand(client *c) {
    robj *zobj = lookupKeyRead(c->db, c->argv[1]);
    if (checkType(c, zobj, OBJ_ZSET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *ele = argBytes(c->argv[j], &len, buf);
        double score;
        if (zobj && zsetScore(zobj, ele, len, &score) == C_OK) addReplyDouble(c, score);
        else addReplyNull(c);
    }
}

/* ZRANK / ZREVRANK key member [WITHSCORE] */
static void zrankGenericCommand(client *c, int reverse) {
    int withscore = 0;
    if (c->argc > 4) {
        addReplyErrorArity(c);
        return;
    }
    if (c->argc == 4) {
        if (strcasecmp(objectGetVal(c->argv[3]), "withscore")) {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
        withscore = 1;
    }
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], withscore ? shared.nullarray[c->resp] : shared.null[c->resp]);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *ele = argBytes(c->argv[2], &len, buf);
    double score;
    long rank = zsetRank(zobj, ele, len, reverse, &score);
    if (rank < 0) {
        if (withscore) addReplyNullArray(c);
        else addReplyNull(c);
        return;
    }
    if (withscore) {
        addReplyArrayLen(c, 2);
        addReplyLongLong(c, rank);
        addReplyDouble(c, score);
    } else {
        addReplyLongLong(c, rank);
    }
}

static void zrankCommand(client *c) {
    zrankGenericCommand(c, 0);
}

static void zrevrankCommand(client *c) {
    zrankGenericCommand(c, 1);
}

/* ---------------------------------------------------------------------------
 * ZRANGE and friends
 * ------------------------------------------------------------------------- */

#define ZRANGE_RANK 0
#define ZRANGE_SCORE 1
#define ZRANGE_LEX 2
#define ZRANGE_AUTO -1 /* ZRANGE/ZRANGESTORE: decided by BYSCORE/BYLEX */

#define ZRANGE_FORWARD 0
#define ZRANGE_REVERSE 1

/* Where a range goes: to the client (members, maybe with scores) or into
 * a new sorted set for ZRANGESTORE and the algebra STORE commands. */
typedef struct zrangeSink {
    client *c;
    int withscores;
    robj *dst;      /* store mode: the set being built, else NULL */
    void *lenptr;   /* client mode: deferred array length */
    long count;     /* elements emitted */
    size_t maxelelen, totelelen;
} zrangeSink;

static void zrangeSinkInit(zrangeSink *sink, client *c, int store, int withscores) {
    sink->c = c;
    sink->withscores = withscores;
    sink->dst = store ? zsetTypeCreate(0, 0) : NULL;
    sink->lenptr = store ? NULL : addReplyDeferredLen(c);
    sink->count = 0;
    sink->maxelelen = sink->totelelen = 0;
}

static void zrangeSinkEmit(zrangeSink *sink, const zsetEntry *e) {
    sink->count++;
    if (sink->dst) {
        int out;
        zsetAdd(sink->dst, e->score, e->ele, e->len, 0, &out, NULL);
        return;
    }
    client *c = sink->c;
    if (sink->withscores) addReplyScorePair(c, e->ele, e->len, e->score, c->resp > 2);
    else addReplyBulkCBuffer(c, e->ele, e->len);
}

/* Client mode: closes the array. Store mode: stores under dstkey with
 * `event` (or deletes dstkey) and replies the count. */
static void zrangeSinkEnd(zrangeSink *sink, robj *dstkey, const char *event) {
    if (sink->dst) {
        zsetTypeStoreResult(sink->c, dstkey, sink->dst, event);
        sink->dst = NULL;
        return;
    }
    long n = sink->count;
    if (sink->withscores && sink->c->resp == 2) n *= 2;
    setDeferredArrayLen(sink->c, sink->lenptr, n);
}

/* Walks zobj from a bound and emits the elements of the range: ranks
 * [start, end] (already clamped), or a score / member interval with
 * LIMIT offset count (count < 0: no limit). */
static void zrangeEmit(zrangeSink *sink, robj *zobj, int type, int rev, long start, long end,
                       const zrangeSpec *srange, const zlexRange *lrange, long offset, long limit) {
    zsetIter it;
    zsetEntry e;
    zsetIterInit(&it, zobj, rev);
    if (type == ZRANGE_RANK) {
        zsetIterSeekRank(&it, (unsigned long)start);
        limit = end - start + 1;
        offset = 0;
    } else if (type == ZRANGE_SCORE) {
        zsetIterSeekScore(&it, srange);
    } else {
        zsetIterSeekLex(&it, lrange);
    }
    for (; zsetIterValid(&it) && limit != 0; zsetIterNext(&it)) {
        zsetIterGet(&it, &e);
        if (type == ZRANGE_SCORE) {
            if (rev ? !zslValueGteMin(e.score, srange) : !zslValueLteMax(e.score, srange)) break;
        } else if (type == ZRANGE_LEX) {
            if (rev ? !zslLexValueGteMin(e.ele, e.len, lrange) : !zslLexValueLteMax(e.ele, e.len, lrange)) break;
        }
        if (offset > 0) {
            offset--;
            continue;
        }
        zrangeSinkEmit(sink, &e);
        if (limit > 0) limit--;
    }
}

/* The engine of ZRANGE, ZRANGESTORE (dstkey != NULL), ZREVRANGE,
 * ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX and ZREVRANGEBYLEX. keyidx
 * is the source key's argument; the two bounds follow it, then options.
 * type / direction are fixed by the legacy commands and ZRANGE_AUTO /
 * ZRANGE_FORWARD-with-auto for ZRANGE, which reads BYSCORE, BYLEX, REV. */
static void zrangeGenericCommand(client *c, int keyidx, robj *dstkey, int type, int direction, int direction_set) {
    int minidx = keyidx + 1, maxidx = keyidx + 2;
    int withscores = 0, has_limit = 0;
    long offset = 0, limit = -1;

    for (int j = keyidx + 3; j < c->argc; j++) {
        int left = c->argc - j - 1;
        const char *opt = objectGetVal(c->argv[j]);
        if (!dstkey && !strcasecmp(opt, "withscores")) {
            withscores = 1;
        } else if (!strcasecmp(opt, "limit") && left >= 2) {
            if (getLongFromObjectOrReply(c, c->argv[j + 1], &offset, NULL) != C_OK ||
                getLongFromObjectOrReply(c, c->argv[j + 2], &limit, NULL) != C_OK)
                return;
            has_limit = 1;
            j += 2;
        } else if (!direction_set && !strcasecmp(opt, "rev")) {
            direction = ZRANGE_REVERSE;
            direction_set = 1;
        } else if (type == ZRANGE_AUTO && !strcasecmp(opt, "bylex")) {
            type = ZRANGE_LEX;
        } else if (type == ZRANGE_AUTO && !strcasecmp(opt, "byscore")) {
            type = ZRANGE_SCORE;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (type == ZRANGE_AUTO) type = ZRANGE_RANK;
    if (has_limit && type == ZRANGE_RANK) {
        addReplyError(c, "syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
        return;
    }
    if (withscores && type == ZRANGE_LEX) {
        addReplyError(c, "syntax error, WITHSCORES not supported in combination with BYLEX");
        return;
    }
    int rev = direction == ZRANGE_REVERSE;
    /* Reversed score and member ranges are written max first. */
    if (rev && type != ZRANGE_RANK) {
        int tmp = minidx;
        minidx = maxidx;
        maxidx = tmp;
    }

    long start = 0, end = 0;
    zrangeSpec srange;
    zlexRange lrange = {{0}, {0}};
    if (type == ZRANGE_RANK) {
        if (getLongFromObjectOrReply(c, c->argv[minidx], &start, NULL) != C_OK ||
            getLongFromObjectOrReply(c, c->argv[maxidx], &end, NULL) != C_OK)
            return;
    } else if (type == ZRANGE_SCORE) {
        robj *mn = c->argv[minidx], *mx = c->argv[maxidx];
        char b1[LONG_STR_SIZE], b2[LONG_STR_SIZE];
        size_t l1, l2;
        const char *s1 = argBytes(mn, &l1, b1), *s2 = argBytes(mx, &l2, b2);
        if (zslParseRange(s1, l1, s2, l2, &srange) != 0) {
            addReplyError(c, "min or max is not a float");
            return;
        }
    } else {
        char b1[LONG_STR_SIZE], b2[LONG_STR_SIZE];
        size_t l1, l2;
        const char *s1 = argBytes(c->argv[minidx], &l1, b1), *s2 = argBytes(c->argv[maxidx], &l2, b2);
        if (zslParseLexRange(s1, l1, s2, l2, &lrange) != 0) {
            addReplyError(c, "min or max not valid string range item");
            return;
        }
    }

    robj *zobj = lookupKeyRead(c->db, c->argv[keyidx]);
    if (checkType(c, zobj, OBJ_ZSET)) goto cleanup;
    zrangeSink sink;
    zrangeSinkInit(&sink, c, dstkey != NULL, withscores);
    if (zobj) {
        if (type == ZRANGE_RANK) {
            long llen = (long)zsetLength(zobj);
            if (start < 0) start += llen;
            if (end < 0) end += llen;
            if (start < 0) start = 0;
            if (end >= llen) end = llen - 1;
            if (start <= end && start < llen) zrangeEmit(&sink, zobj, type, rev, start, end, NULL, NULL, 0, 0);
        } else if (offset >= 0) {
            zrangeEmit(&sink, zobj, type, rev, 0, 0, &srange, &lrange, offset, limit);
        }
    }
    zrangeSinkEnd(&sink, dstkey, "zrangestore");
cleanup:
    if (type == ZRANGE_LEX) zslFreeLexRange(&lrange);
}

static void zrangeCommand(client *c) {
    zrangeGenericCommand(c, 1, NULL, ZRANGE_AUTO, ZRANGE_FORWARD, 0);
}

static void zrangestoreCommand(client *c) {
    zrangeGenericCommand(c, 2, c->argv[1], ZRANGE_AUTO, ZRANGE_FORWARD, 0);
}

static void zrevrangeCommand(client *c) {
    zrangeGenericCommand(c, 1, NULL, ZRANGE_RANK, ZRANGE_REVERSE, 1);
}

static void zrangebyscoreCommand(client *c) {
    zrangeGenericCommand(c, 1, NULL, ZRANGE_SCORE, ZRANGE_FORWARD, 1);
}

static void zrevrangebyscoreCommand(client *c) {
    zrangeGenericCommand(c, 1, NULL, ZRANGE_SCORE, ZRANGE_REVERSE, 1);
}

static void zrangebylexCommand(client *c) {
    zrangeGenericCommand(c, 1, NULL, ZRANGE_LEX, ZRANGE_FORWARD, 1);
}

static void zrevrangebylexCommand(client *c) {
    zrangeGenericCommand(c, 1, NULL, ZRANGE_LEX, ZRANGE_REVERSE, 1);
}

/* ---------------------------------------------------------------------------
 * ZCOUNT, ZLEXCOUNT
 * ------------------------------------------------------------------------- */

/* Counts the elements from the iterator's position while `inside` holds. */
static long zsetCountFrom(zsetIter *it, int type, const zrangeSpec *sr, const zlexRange *lr) {
    /* Skiplists count by rank difference: O(log N). */
    if (it->zobj->encoding == OBJ_ENCODING_SKIPLIST) {
        if (!it->node) return 0;
        zskiplist *zsl = ((zset *)objectGetVal(it->zobj))->zsl;
        zskiplistNode *last = type == ZRANGE_SCORE ? zslLastInRange(zsl, sr) : zslLastInLexRange(zsl, lr);
        unsigned long r1 = zslGetRank(zsl, it->node->score, it->node->ele, sdslen(it->node->ele));
        unsigned long r2 = zslGetRank(zsl, last->score, last->ele, sdslen(last->ele));
        return (long)(r2 - r1 + 1);
    }
    long n = 0;
    zsetEntry e;
    for (; zsetIterValid(it); zsetIterNext(it)) {
        zsetIterGet(it, &e);
        if (type == ZRANGE_SCORE ? !zslValueLteMax(e.score, sr) : !zslLexValueLteMax(e.ele, e.len, lr)) break;
        n++;
    }
    return n;
}

static void zcountCommand(client *c) {
    zrangeSpec range;
    char b1[LONG_STR_SIZE], b2[LONG_STR_SIZE];
    size_t l1, l2;
    const char *s1 = argBytes(c->argv[2], &l1, b1), *s2 = argBytes(c->argv[3], &l2, b2);
    if (zslParseRange(s1, l1, s2, l2, &range)) {
        addReplyError(c, "min or max is not a float");
        return;
    }
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    zsetIter it;
    zsetIterInit(&it, zobj, 0);
    zsetIterSeekScore(&it, &range);
    addReplyLongLong(c, zsetCountFrom(&it, ZRANGE_SCORE, &range, NULL));
}

static void zlexcountCommand(client *c) {
    zlexRange range;
    char b1[LONG_STR_SIZE], b2[LONG_STR_SIZE];
    size_t l1, l2;
    const char *s1 = argBytes(c->argv[2], &l1, b1), *s2 = argBytes(c->argv[3], &l2, b2);
    if (zslParseLexRange(s1, l1, s2, l2, &range)) {
        addReplyError(c, "min or max not valid string range item");
        return;
    }
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (zobj && !checkType(c, zobj, OBJ_ZSET)) {
        zsetIter it;
        zsetIterInit(&it, zobj, 0);
        zsetIterSeekLex(&it, &range);
        addReplyLongLong(c, zsetCountFrom(&it, ZRANGE_LEX, NULL, &range));
    }
    zslFreeLexRange(&range);
}

/* ---------------------------------------------------------------------------
 * ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX
 * ------------------------------------------------------------------------- */

static void zsetDictDeleteCallback(sds ele, void *pd) {
    dictDelete((dict *)pd, ele);
}

/* Deletes the pairs from eptr on while they are inside the range. */
static unsigned long zzlDeleteRun(robj *zobj, unsigned char *eptr, int type, const zrangeSpec *sr,
                                  const zlexRange *lr) {
    unsigned char *lp = objectGetVal(zobj);
    unsigned long n = 0;
    zsetEntry e;
    for (unsigned char *p = eptr; p; p = lpNext(lp, lpNext(lp, p))) {
        zzlEntryAt(lp, p, &e);
        if (type == ZRANGE_SCORE ? !zslValueLteMax(e.score, sr) : !zslLexValueLteMax(e.ele, e.len, lr)) break;
        n++;
    }
    if (n) objectSetVal(zobj, lpDeleteRangeWithEntry(lp, &eptr, 2 * n));
    return n;
}

static void zremrangeGenericCommand(client *c, int type) {
    robj *key = c->argv[1];
    long start = 0, end = 0;
    zrangeSpec sr;
    zlexRange lr = {{0}, {0}};
    char b1[LONG_STR_SIZE], b2[LONG_STR_SIZE];
    size_t l1, l2;
    const char *s1 = argBytes(c->argv[2], &l1, b1), *s2 = argBytes(c->argv[3], &l2, b2);

    if (type == ZRANGE_RANK) {
        if (getLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
            getLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
            return;
    } else if (type == ZRANGE_SCORE) {
        if (zslParseRange(s1, l1, s2, l2, &sr)) {
            addReplyError(c, "min or max is not a float");
            return;
        }
    } else if (zslParseLexRange(s1, l1, s2, l2, &lr)) {
        addReplyError(c, "min or max not valid string range item");
        return;
    }

    unsigned long deleted = 0;
    robj *zobj = lookupKeyWriteOrReply(c, key, shared.czero);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) goto cleanup;

    if (type == ZRANGE_RANK) {
        long llen = (long)zsetLength(zobj);
        if (start < 0) start += llen;
        if (end < 0) end += llen;
        if (start < 0) start = 0;
        if (start > end || start >= llen) {
            addReply(c, shared.czero);
            goto cleanup;
        }
        if (end >= llen) end = llen - 1;
    }

    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        if (type == ZRANGE_RANK) {
            deleted = (unsigned long)(end - start + 1);
            objectSetVal(zobj, lpDeleteRange(objectGetVal(zobj), 2 * start, 2 * deleted));
        } else {
            unsigned char *eptr = type == ZRANGE_SCORE ? zzlSeekScore(objectGetVal(zobj), &sr, 0) : zzlSeekLex(objectGetVal(zobj), &lr, 0);
            if (eptr) deleted = zzlDeleteRun(zobj, eptr, type, &sr, &lr);
        }
    } else {
        zset *zs = objectGetVal(zobj);
        if (type == ZRANGE_RANK)
            deleted = zslDeleteRangeByRank(zs->zsl, start + 1, end + 1, zsetDictDeleteCallback, zs->dict);
        else if (type == ZRANGE_SCORE)
            deleted = zslDeleteRangeByScore(zs->zsl, &sr, zsetDictDeleteCallback, zs->dict);
        else
            deleted = zslDeleteRangeByLex(zs->zsl, &lr, zsetDictDeleteCallback, zs->dict);
    }

    if (deleted) {
        static const char *events[] = {"zremrangebyrank", "zremrangebyscore", "zremrangebylex"};
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_ZSET, events[type], key, c->db->id);
        zsetDeleteIfEmpty(c, key, zobj);
        server.dirty += deleted;
    }
    addReplyLongLong(c, (long long)deleted);
cleanup:
    if (type == ZRANGE_LEX) zslFreeLexRange(&lr);
}

static void zremrangebyrankCommand(client *c) {
    zremrangeGenericCommand(c, ZRANGE_RANK);
}

static void zremrangebyscoreCommand(client *c) {
    zremrangeGenericCommand(c, ZRANGE_SCORE);
}

static void zremrangebylexCommand(client *c) {
    zremrangeGenericCommand(c, ZRANGE_LEX);
}

/* ---------------------------------------------------------------------------
 * Pops: ZPOPMIN, ZPOPMAX, BZPOPMIN, BZPOPMAX, ZMPOP, BZMPOP
 * ------------------------------------------------------------------------- */

/* Pops up to count elements from the `where` end of the non-empty zobj,
 * replying each as a score pair (nested or flat), then fires the events
 * and deletes the key if it emptied. Returns how many were popped. */
static long zsetPopAndReply(client *c, robj *key, robj *zobj, int where, long count, int nested) {
    long n = 0;
    zsetIter it;
    zsetEntry e;
    while (n < count && zsetLength(zobj) > 0) {
        zsetIterInit(&it, zobj, where == ZSET_MAX);
        zsetIterSeekRank(&it, 0);
        zsetIterGet(&it, &e);
        addReplyScorePair(c, e.ele, e.len, e.score, nested);
        /* The iterator stands on the pair: a listpack deletes it in place;
         * in a skiplist e.ele is the member's own copy, which zsetDel()
         * reads before it frees anything. */
        if (zobj->encoding == OBJ_ENCODING_LISTPACK) objectSetVal(zobj, zzlDeleteAt(objectGetVal(zobj), it.eptr));
        else serverAssert(zsetDel(zobj, e.ele, e.len));
        n++;
    }
    if (n) {
        notifyKeyspaceEvent(NOTIFY_ZSET, where == ZSET_MIN ? "zpopmin" : "zpopmax", key, c->db->id);
        signalModifiedKey(c, c->db, key);
        zsetDeleteIfEmpty(c, key, zobj);
        server.dirty += n;
    }
    return n;
}

/* Rewrites the command for propagation as "ZPOPMIN|ZPOPMAX key", with n
 * as its count when n > 0. */
static void zsetRewriteAsPop(client *c, robj *key, int where, long n) {
    robj *cmd = where == ZSET_MIN ? createStringObject("ZPOPMIN", 7) : createStringObject("ZPOPMAX", 7);
    if (n > 0) {
        robj *nobj = createStringObjectFromLongLong(n);
        rewriteClientCommandVector(c, 3, cmd, key, nobj);
        decrRefCount(nobj);
    } else {
        rewriteClientCommandVector(c, 2, cmd, key);
    }
    decrRefCount(cmd);
}

/* ZPOPMIN / ZPOPMAX key [count] */
static void zpopMinMaxCommand(client *c, int where) {
    long count = -1;
    if (c->argc > 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (c->argc == 3 &&
        getPositiveLongFromObjectOrReply(c, c->argv[2], &count, "value is out of range, must be positive") != C_OK)
        return;
    robj *zobj = lookupKeyWrite(c->db, c->argv[1]);
    if (checkType(c, zobj, OBJ_ZSET)) return;
    if (zobj == NULL || count == 0) {
        addReply(c, shared.emptyarray);
        return;
    }
    /* Without a count: one flat pair. With one: flat in RESP2, pairs in
     * RESP3. */
    int nested = count != -1 && c->resp > 2;
    if (count == -1) count = 1;
    long n = count < (long)zsetLength(zobj) ? count : (long)zsetLength(zobj);
    addReplyArrayLen(c, nested ? n : 2 * n);
    zsetPopAndReply(c, c->argv[1], zobj, where, n, nested);
}

static void zpopminCommand(client *c) {
    zpopMinMaxCommand(c, ZSET_MIN);
}

static void zpopmaxCommand(client *c) {
    zpopMinMaxCommand(c, ZSET_MAX);
}

/* BZPOPMIN / BZPOPMAX key [key ...] timeout: replies [key, member, score]
 * from the first non-empty key, or blocks. */
static void bzpopMinMaxCommand(client *c, int where) {
    mstime_t timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[c->argc - 1], &timeout, UNIT_SECONDS) != C_OK) return;
    for (int j = 1; j < c->argc - 1; j++) {
        robj *zobj = lookupKeyWrite(c->db, c->argv[j]);
        if (zobj == NULL) continue;
        if (checkType(c, zobj, OBJ_ZSET)) return;
        addReplyArrayLen(c, 3);
        addReplyBulk(c, c->argv[j]);
        zsetPopAndReply(c, c->argv[j], zobj, where, 1, 0);
        zsetRewriteAsPop(c, c->argv[j], where, 0);
        return;
    }
    if (blockingDenied(c)) {
        addReplyNullArray(c);
        return;
    }
    blockForKeys(c, BLOCKED_ZSET, c->argv + 1, c->argc - 2, timeout);
}

static void bzpopminCommand(client *c) {
    bzpopMinMaxCommand(c, ZSET_MIN);
}

static void bzpopmaxCommand(client *c) {
    bzpopMinMaxCommand(c, ZSET_MAX);
}

/* ZMPOP and BZMPOP: numkeys at argv[numkeys_idx], the keys, MIN|MAX and
 * [COUNT n]. timeout < 0 means the non-blocking form. Replies [key,
 * [[member, score], ...]] or a null array. */
static void zmpopGenericCommand(client *c, int numkeys_idx, mstime_t timeout) {
    long numkeys, count = -1;
    int where;
    if (getRangeLongFromObjectOrReply(c, c->argv[numkeys_idx], 1, LONG_MAX, &numkeys,
                                      "numkeys should be greater than 0") != C_OK)
        return;
    /* Checked before numkeys is added to anything: it may be LONG_MAX. */
    if (numkeys > c->argc - numkeys_idx - 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    long where_idx = numkeys_idx + numkeys + 1;
    if (!strcasecmp(objectGetVal(c->argv[where_idx]), "min")) {
        where = ZSET_MIN;
    } else if (!strcasecmp(objectGetVal(c->argv[where_idx]), "max")) {
        where = ZSET_MAX;
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (getMpopCountOrReply(c, where_idx + 1, &count) != C_OK) return;

    for (long j = 0; j < numkeys; j++) {
        robj *key = c->argv[numkeys_idx + 1 + j];
        robj *zobj = lookupKeyWrite(c->db, key);
        if (zobj == NULL) continue;
        if (checkType(c, zobj, OBJ_ZSET)) return;
        long n = count < (long)zsetLength(zobj) ? count : (long)zsetLength(zobj);
        addReplyArrayLen(c, 2);
        addReplyBulk(c, key);
        addReplyArrayLen(c, n);
        zsetPopAndReply(c, key, zobj, where, n, 1);
        zsetRewriteAsPop(c, key, where, n);
        return;
    }
    if (timeout < 0 || blockingDenied(c)) {
        addReplyNullArray(c);
        return;
    }
    blockForKeys(c, BLOCKED_ZSET, c->argv + numkeys_idx + 1, (int)numkeys, timeout);
}

static void zmpopCommand(client *c) {
    zmpopGenericCommand(c, 1, -1);
}

static void bzmpopCommand(client *c) {
    mstime_t timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[1], &timeout, UNIT_SECONDS) != C_OK) return;
    zmpopGenericCommand(c, 2, timeout);
}

/* ---------------------------------------------------------------------------
 * ZRANDMEMBER
 * ------------------------------------------------------------------------- */

/* Uniform random integer in [0, n); n > 0. */
static unsigned long zsetRandomBelow(unsigned long n) {
    uint64_t r = ((uint64_t)rand() << 62) ^ ((uint64_t)rand() << 31) ^ (uint64_t)rand();
    return (unsigned long)(r % n);
}

/* Reads the element at 0-based rank (forward). */
static void zsetElementAt(robj *zobj, unsigned long rank, zsetIter *it, zsetEntry *e) {
    zsetIterInit(it, zobj, 0);
    zsetIterSeekRank(it, rank);
    zsetIterGet(it, e);
}

/* ZRANDMEMBER key count [WITHSCORES]: count > 0 distinct members (at most
 * the whole set), count < 0 -count members with repetitions. */
static void zrandmemberWithCountCommand(client *c, long l, int withscores) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    unsigned long size = zsetLength(zobj);
    int nested = withscores && c->resp > 2;
    zsetIter it;
    zsetEntry e;
    if (l == 0) {
        addReply(c, shared.emptyarray);
        return;
    }

    /* Negative count: independent draws, until the client is dropped for
     * its output buffer limit if the count is huge. */
    if (l < 0) {
        unsigned long count = (unsigned long)-l;
        addReplyArrayLen(c, (long)(withscores && !nested ? 2 * count : count));
        while (count-- && !(c->flags & CLIENT_CLOSE_ASAP)) {
            if (zobj->encoding == OBJ_ENCODING_SKIPLIST) {
                dictEntry *de = dictGetFairRandomKey(((zset *)objectGetVal(zobj))->dict);
                sds ele = dictGetKey(de);
                if (withscores) addReplyScorePair(c, ele, sdslen(ele), *(double *)dictGetVal(de), nested);
                else addReplyBulkCBuffer(c, ele, sdslen(ele));
            } else {
                zsetElementAt(zobj, zsetRandomBelow(size), &it, &e);
                if (withscores) addReplyScorePair(c, e.ele, e.len, e.score, nested);
                else addReplyBulkCBuffer(c, e.ele, e.len);
            }
        }
        return;
    }

    unsigned long count = (unsigned long)l;
    if (count > size) count = size;
    addReplyArrayLen(c, (long)(withscores && !nested ? 2 * count : count));

    /* The whole set, or most of it: a partial Fisher-Yates over ranks. */
    if (count == size || count * 3 > size || zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned long *ranks = zmalloc(sizeof(unsigned long) * size);
        for (unsigned long i = 0; i < size; i++) ranks[i] = i;
        for (unsigned long i = 0; i < count; i++) {
            unsigned long k = i + zsetRandomBelow(size - i);
            unsigned long tmp = ranks[i];
            ranks[i] = ranks[k];
            ranks[k] = tmp;
            zsetElementAt(zobj, ranks[i], &it, &e);
            if (withscores) addReplyScorePair(c, e.ele, e.len, e.score, nested);
            else addReplyBulkCBuffer(c, e.ele, e.len);
        }
        zfree(ranks);
        return;
    }

    /* A few members of a big set: draw until `count` distinct ones. */
    dict *picked = dictCreate(&zsetScratchDictType);
    dict *d = ((zset *)objectGetVal(zobj))->dict;
    while (dictSize(picked) < count) {
        dictEntry *de = dictGetFairRandomKey(d);
        sds ele = dictGetKey(de);
        sds copy = sdsdup(ele);
        if (dictAdd(picked, copy, NULL) != DICT_OK) {
            sdsfree(copy);
            continue;
        }
        if (withscores) addReplyScorePair(c, ele, sdslen(ele), *(double *)dictGetVal(de), nested);
        else addReplyBulkCBuffer(c, ele, sdslen(ele));
    }
    dictRelease(picked);
}

static void zrandmemberCommand(client *c) {
    if (c->argc >= 3) {
        long l;
        int withscores = 0;
        if (getRangeLongFromObjectOrReply(c, c->argv[2], -LONG_MAX, LONG_MAX, &l, NULL) != C_OK) return;
        if (c->argc > 4 || (c->argc == 4 && strcasecmp(objectGetVal(c->argv[3]), "withscores"))) {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
        if (c->argc == 4) {
            withscores = 1;
            if (l < -LONG_MAX / 2 || l > LONG_MAX / 2) {
                addReplyError(c, "value is out of range");
                return;
            }
        }
        zrandmemberWithCountCommand(c, l, withscores);
        return;
    }
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    zsetIter it;
    zsetEntry e;
    zsetElementAt(zobj, zsetRandomBelow(zsetLength(zobj)), &it, &e);
    addReplyBulkCBuffer(c, e.ele, e.len);
}

/* ---------------------------------------------------------------------------
 * Algebra: ZUNION, ZINTER, ZDIFF, their STORE forms, ZINTERCARD
 * ------------------------------------------------------------------------- */

#define ZSET_OP_UNION 0
#define ZSET_OP_INTER 1
#define ZSET_OP_DIFF 2

#define ZSET_AGG_SUM 0
#define ZSET_AGG_MIN 1
#define ZSET_AGG_MAX 2

/* One input: a sorted set (a plain set becomes a temporary sorted set with
 * every score 1), or NULL for a missing key. */
typedef struct zsetOpSrc {
    robj *zobj;
    int temp; /* zobj was built here and must be released */
    double weight;
} zsetOpSrc;

static void zsetAggregate(double *target, double val, int agg) {
    if (agg == ZSET_AGG_SUM) {
        *target += val;
        if (isnan(*target)) *target = 0; /* inf + -inf */
    } else if (agg == ZSET_AGG_MIN) {
        if (val < *target) *target = val;
    } else if (val > *target) {
        *target = val;
    }
}

/* Builds the temporary sorted set of a plain set's members. */
static robj *zsetFromSet(robj *set) {
    list *members = listCreate();
    listSetFreeMethod(members, zsetSdsDestructor);
    setTypeCollectAll(set, members);
    robj *zobj = zsetCreateSkiplistObject();
    listIter li;
    listNode *ln;
    listRewind(members, &li);
    while ((ln = listNext(&li))) {
        sds m = listNodeValue(ln);
        zsetSkiplistInsert(objectGetVal(zobj), m, sdslen(m), 1.0);
    }
    listRelease(members);
    return zobj;
}

static int zsetOpSrcCompare(const void *a, const void *b) {
    const zsetOpSrc *x = a, *y = b;
    unsigned long lx = x->zobj ? zsetLength(x->zobj) : 0, ly = y->zobj ? zsetLength(y->zobj) : 0;
    return lx < ly ? -1 : (lx > ly ? 1 : 0);
}

static void zsetOpFreeSrcs(zsetOpSrc *src, long n) {
    for (long i = 0; i < n; i++)
        if (src[i].temp) decrRefCount(src[i].zobj);
    zfree(src);
}

/* Looks up and validates the numkeys inputs and the options that follow.
 * Returns the number of inputs (filling *srcs, freed with zsetOpFreeSrcs)
 * or -1 after replying an error (nothing left to free). */
static long zsetOpParse(client *c, int numkeys_idx, robj *dstkey, int op, zsetOpSrc **srcs, int *agg,
                        int *withscores) {
    long numkeys;
    if (getLongFromObjectOrReply(c, c->argv[numkeys_idx], &numkeys, NULL) != C_OK) return -1;
    if (numkeys < 1) {
        addReplyErrorFormat(c, "at least 1 input key is needed for '%s' command", c->cmd->fullname);
        return -1;
    }
    if (numkeys > c->argc - numkeys_idx - 1) {
        addReplyErrorObject(c, shared.syntaxerr);
        return -1;
    }
    zsetOpSrc *src = zcalloc(sizeof(zsetOpSrc) * numkeys);
    *srcs = src;
    for (long i = 0; i < numkeys; i++) {
        robj *key = c->argv[numkeys_idx + 1 + i];
        robj *o = dstkey ? lookupKeyWrite(c->db, key) : lookupKeyRead(c->db, key);
        src[i].weight = 1.0;
        if (o == NULL) continue;
        if (o->type != OBJ_ZSET && o->type != OBJ_SET) {
            addReplyErrorObject(c, shared.wrongtypeerr);
            goto err;
        }
        if (o->type == OBJ_SET) {
            src[i].zobj = zsetFromSet(o);
            src[i].temp = 1;
        } else {
            src[i].zobj = o;
        }
    }
    *agg = ZSET_AGG_SUM;
    *withscores = 0;
    for (long j = numkeys_idx + 1 + numkeys; j < c->argc; j++) {
        long left = c->argc - j - 1;
        const char *opt = objectGetVal(c->argv[j]);
        if (op != ZSET_OP_DIFF && !strcasecmp(opt, "weights") && left >= numkeys) {
            for (long i = 0; i < numkeys; i++) {
                j++;
                if (getDoubleFromObjectOrReply(c, c->argv[j], &src[i].weight, "weight value is not a float") !=
                    C_OK)
                    goto err;
            }
        } else if (op != ZSET_OP_DIFF && !strcasecmp(opt, "aggregate") && left >= 1) {
            j++;
            const char *a = objectGetVal(c->argv[j]);
            if (!strcasecmp(a, "sum")) *agg = ZSET_AGG_SUM;
            else if (!strcasecmp(a, "min")) *agg = ZSET_AGG_MIN;
            else if (!strcasecmp(a, "max")) *agg = ZSET_AGG_MAX;
            else {
                addReplyErrorObject(c, shared.syntaxerr);
                goto err;
            }
        } else if (dstkey == NULL && !strcasecmp(opt, "withscores")) {
            *withscores = 1;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            goto err;
        }
    }
    return numkeys;
err:
    zsetOpFreeSrcs(src, numkeys);
    *srcs = NULL;
    return -1;
}

/* An input's score times its weight; 0 * inf gives 0, not NaN. */
static double zsetWeighted(const zsetOpSrc *s, double score) {
    double v = score * s->weight;
    return isnan(v) ? 0 : v;
}

/* Computes the union, intersection or difference of the inputs into a new
 * skiplist-encoded sorted set, tracking member lengths for the final
 * encoding choice. */
static robj *zsetOpCompute(zsetOpSrc *src, long n, int op, int agg, size_t *maxelelen, size_t *totelelen) {
    robj *dst = zsetCreateSkiplistObject();
    zset *dzs = objectGetVal(dst);
    zsetIter it;
    zsetEntry e;
    *maxelelen = *totelelen = 0;

    if (op == ZSET_OP_UNION) {
        dict *acc = dictCreate(&zsetScratchDictType);
        for (long i = 0; i < n; i++) {
            if (src[i].zobj == NULL) continue;
            zsetIterInit(&it, src[i].zobj, 0);
            zsetIterSeekRank(&it, 0);
            for (; zsetIterValid(&it); zsetIterNext(&it)) {
                zsetIterGet(&it, &e);
                double v = zsetWeighted(&src[i], e.score);
                sds ele = sdsnewlen(e.ele, e.len);
                dictEntry *existing;
                dictEntry *de = dictAddRaw(acc, ele, &existing);
                if (de) {
                    dictSetDoubleVal(de, v);
                } else {
                    sdsfree(ele);
                    zsetAggregate(dictGetDoubleValPtr(existing), v, agg);
                }
            }
        }
        dictExpand(dzs->dict, dictSize(acc));
        dictIterator *di = dictGetIterator(acc);
        dictEntry *de;
        while ((de = dictNext(di))) {
            sds ele = dictGetKey(de);
            if (sdslen(ele) > *maxelelen) *maxelelen = sdslen(ele);
            *totelelen += sdslen(ele);
            zsetSkiplistInsert(dzs, ele, sdslen(ele), dictGetDoubleVal(de));
        }
        dictReleaseIterator(di);
        dictRelease(acc);
        return dst;
    }

    if (src[0].zobj == NULL) return dst;
    if (op == ZSET_OP_INTER) {
        /* Walk the smallest input; an empty or missing one ends it all. */
        qsort(src, n, sizeof(zsetOpSrc), zsetOpSrcCompare);
        if (src[0].zobj == NULL) return dst;
    }
    zsetIterInit(&it, src[0].zobj, 0);
    zsetIterSeekRank(&it, 0);
    for (; zsetIterValid(&it); zsetIterNext(&it)) {
        zsetIterGet(&it, &e);
        double score = op == ZSET_OP_INTER ? zsetWeighted(&src[0], e.score) : e.score;
        long i;
        for (i = 1; i < n; i++) {
            double other;
            if (op == ZSET_OP_DIFF) {
                if (src[i].zobj && zsetScore(src[i].zobj, e.ele, e.len, &other) == C_OK) break;
            } else {
                if (zsetScore(src[i].zobj, e.ele, e.len, &other) != C_OK) break;
                zsetAggregate(&score, zsetWeighted(&src[i], other), agg);
            }
        }
        if (i < n) continue;
        if (e.len > *maxelelen) *maxelelen = e.len;
        *totelelen += e.len;
        zsetSkiplistInsert(dzs, e.ele, e.len, score);
    }
    return dst;
}

/* ZUNION/ZINTER/ZDIFF (dstkey NULL) and the STORE forms. */
static void zsetOpGenericCommand(client *c, int numkeys_idx, robj *dstkey, int op) {
    zsetOpSrc *src = NULL;
    int agg, withscores;
    long n = zsetOpParse(c, numkeys_idx, dstkey, op, &src, &agg, &withscores);
    if (n < 0) return;
    size_t maxelelen, totelelen;
    robj *dst = zsetOpCompute(src, n, op, agg, &maxelelen, &totelelen);
    zsetOpFreeSrcs(src, n);

    if (dstkey) {
        static const char *events[] = {"zunionstore", "zinterstore", "zdiffstore"};
        zsetConvertToListpackIfNeeded(dst, maxelelen, totelelen);
        zsetTypeStoreResult(c, dstkey, dst, events[op]);
        return;
    }
    zrangeSink sink;
    zrangeSinkInit(&sink, c, 0, withscores);
    zsetIter it;
    zsetEntry e;
    zsetIterInit(&it, dst, 0);
    zsetIterSeekRank(&it, 0);
    for (; zsetIterValid(&it); zsetIterNext(&it)) {
        zsetIterGet(&it, &e);
        zrangeSinkEmit(&sink, &e);
    }
    zrangeSinkEnd(&sink, NULL, NULL);
    decrRefCount(dst);
}

static void zunionstoreCommand(client *c) {
    zsetOpGenericCommand(c, 2, c->argv[1], ZSET_OP_UNION);
}

static void zinterstoreCommand(client *c) {
    zsetOpGenericCommand(c, 2, c->argv[1], ZSET_OP_INTER);
}

static void zdiffstoreCommand(client *c) {
    zsetOpGenericCommand(c, 2, c->argv[1], ZSET_OP_DIFF);
}

static void zunionCommand(client *c) {
    zsetOpGenericCommand(c, 1, NULL, ZSET_OP_UNION);
}

static void zinterCommand(client *c) {
    zsetOpGenericCommand(c, 1, NULL, ZSET_OP_INTER);
}

static void zdiffCommand(client *c) {
    zsetOpGenericCommand(c, 1, NULL, ZSET_OP_DIFF);
}

/* ZINTERCARD numkeys key [key ...] [LIMIT limit]: the inputs are checked
 * like ZINTER's (types before options); the walk stops at limit. */
static void zintercardCommand(client *c) {
    long numkeys, limit = 0;
    if (getLongFromObjectOrReply(c, c->argv[1], &numkeys, NULL) != C_OK) return;
    if (numkeys < 1) {
        addReplyErrorFormat(c, "at least 1 input key is needed for '%s' command", c->cmd->fullname);
        return;
    }
    if (numkeys > c->argc - 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    zsetOpSrc *src = zcalloc(sizeof(zsetOpSrc) * numkeys);
    for (long i = 0; i < numkeys; i++) {
        robj *o = lookupKeyRead(c->db, c->argv[2 + i]);
        if (o == NULL) continue;
        if (o->type != OBJ_ZSET && o->type != OBJ_SET) {
            zsetOpFreeSrcs(src, numkeys);
            addReplyErrorObject(c, shared.wrongtypeerr);
            return;
        }
        src[i].zobj = o->type == OBJ_SET ? zsetFromSet(o) : o;
        src[i].temp = o->type == OBJ_SET;
    }
    for (long j = 2 + numkeys; j < c->argc; j++) {
        if (!strcasecmp(objectGetVal(c->argv[j]), "limit") && j + 1 < c->argc) {
            if (getPositiveLongFromObjectOrReply(c, c->argv[j + 1], &limit, "LIMIT can't be negative") != C_OK) {
                zsetOpFreeSrcs(src, numkeys);
                return;
            }
            j++;
        } else {
            zsetOpFreeSrcs(src, numkeys);
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    qsort(src, numkeys, sizeof(zsetOpSrc), zsetOpSrcCompare);
    long found = 0;
    if (src[0].zobj) {
        zsetIter it;
        zsetEntry e;
        zsetIterInit(&it, src[0].zobj, 0);
        zsetIterSeekRank(&it, 0);
        for (; zsetIterValid(&it); zsetIterNext(&it)) {
            zsetIterGet(&it, &e);
            long i;
            double other;
            for (i = 1; i < numkeys; i++)
                if (zsetScore(src[i].zobj, e.ele, e.len, &other) != C_OK) break;
            if (i < numkeys) continue;
            found++;
            if (limit && found >= limit) break;
        }
    }
    zsetOpFreeSrcs(src, numkeys);
    addReplyLongLong(c, found);
}

/* ---------------------------------------------------------------------------
 * ZSCAN
 * ------------------------------------------------------------------------- */

static void zscanCommand(client *c) {
    unsigned long cursor;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) == C_ERR) return;
    robj *zobj = lookupKeyRead(c->db, c->argv[1]);
    if (zobj == NULL) {
        addReplyArrayLen(c, 2);
        addReplyBulkCBuffer(c, "0", 1);
        addReplyArrayLen(c, 0);
        return;
    }
    if (checkType(c, zobj, OBJ_ZSET)) return;
    scanGenericCommand(c, zobj, cursor);
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

/* Keys of the numkeys commands: the numkeys keys after argv[numkeys_idx],
 * plus argv[1] as destination when `dst`. */
static int zsetNumkeysGetKeys(int numkeys_idx, int dst, robj **argv, int argc, int *keys, int maxkeys) {
    long long numkeys;
    int n = 0;
    if (numkeys_idx >= argc || getLongLongFromObject(argv[numkeys_idx], &numkeys) != C_OK) return 0;
    if (numkeys < 1 || numkeys > argc - numkeys_idx - 1) return 0;
    if (dst && n < maxkeys) keys[n++] = 1;
    for (long long j = 0; j < numkeys && n < maxkeys; j++) keys[n++] = numkeys_idx + 1 + (int)j;
    return n;
}

static int zsetStoreGetKeys(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys) {
    (void)cmd;
    return zsetNumkeysGetKeys(2, 1, argv, argc, keys, maxkeys);
}

static int zsetReadGetKeys(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys) {
    (void)cmd;
    return zsetNumkeysGetKeys(1, 0, argv, argc, keys, maxkeys);
}

static int bzmpopGetKeys(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys) {
    (void)cmd;
    return zsetNumkeysGetKeys(2, 0, argv, argc, keys, maxkeys);
}

#define ZSET_W (CMD_WRITE | CMD_DENYOOM)
#define ZSET_RANGE_COMPLEXITY                                                                                   \
    "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned."

struct serverCommand zsetCommands[] = {
    {.name = "zadd", .proc = zaddCommand, .arity = -4, .flags = ZSET_W | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "1.2.0",
     .summary = "Adds one or more members to a sorted set, or updates their scores. Creates the key if it doesn't "
                "exist.",
     .complexity = "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
     .args = "key [condition=[NX | XX]] [comparison=[GT | LT]] [change=CH] [increment=INCR] score:double member "
             "[score:double member ...]"},
    {.name = "zincrby", .proc = zincrbyCommand, .arity = 4, .flags = ZSET_W | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "1.2.0",
     .summary = "Increments the score of a member in a sorted set.",
     .complexity = "O(log(N)) where N is the number of elements in the sorted set.",
     .args = "key increment member"},
    {.name = "zrem", .proc = zremCommand, .arity = -3, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "1.2.0",
     .summary = "Removes one or more members from a sorted set. Deletes the sorted set if all members were removed.",
     .complexity = "O(M*log(N)) with N being the number of elements in the sorted set and M the number of "
                   "elements to be removed.",
     .args = "key member [member ...]"},
    {.name = "zcard", .proc = zcardCommand, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "1.2.0",
     .summary = "Returns the number of members in a sorted set.", .complexity = "O(1)",
     .args = "key"},
    {.name = "zcount", .proc = zcountCommand, .arity = 4, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "2.0.0",
     .summary = "Returns the count of members in a sorted set that have scores within a range.",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .args = "key min:double max:double"},
    {.name = "zlexcount", .proc = zlexcountCommand, .arity = 4, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "2.8.9",
     .summary = "Returns the number of members in a sorted set within a lexicographical range.",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .args = "key min max"},
    {.name = "zscore", .proc = zscoreCommand, .arity = 3, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "1.2.0",
     .summary = "Returns the score of a member in a sorted set.", .complexity = "O(1)",
     .args = "key member"},
    {.name = "zmscore", .proc = zmscoreCommand, .arity = -3, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "6.2.0",
     .summary = "Returns the score of one or more members in a sorted set.",
     .complexity = "O(N) where N is the number of members being requested.",
     .args = "key member [member ...]"},
    {.name = "zrank", .proc = zrankCommand, .arity = -3, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "2.0.0",
     .summary = "Returns the index of a member in a sorted set ordered by ascending scores.",
     .complexity = "O(log(N))",
     .args = "key member [WITHSCORE]"},
    {.name = "zrevrank", .proc = zrevrankCommand, .arity = -3, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "2.0.0",
     .summary = "Returns the index of a member in a sorted set ordered by descending scores.",
     .complexity = "O(log(N))",
     .args = "key member [WITHSCORE]"},
    {.name = "zrange", .proc = zrangeCommand, .arity = -4, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "1.2.0",
     .summary = "Returns members in a sorted set within a range of indexes.", .complexity = ZSET_RANGE_COMPLEXITY,
     .args = "key start:string stop:string [sortby=[BYSCORE | BYLEX]] [REV] [LIMIT offset count] [WITHSCORES]"},
    {.name = "zrangestore", .proc = zrangestoreCommand, .arity = -5, .flags = ZSET_W,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 2, 1}, .group = "sorted_set", .since = "6.2.0",
     .summary = "Stores a range of members from sorted set in a key.",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of "
                   "elements stored into the destination key.",
     .args = "dst:key src:key min:string max:string [sortby=[BYSCORE | BYLEX]] [REV] [LIMIT offset count]"},
    {.name = "zrevrange", .proc = zrevrangeCommand, .arity = -4, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "1.2.0",
     .summary = "Returns members in a sorted set within a range of indexes in reverse order.",
     .complexity = ZSET_RANGE_COMPLEXITY,
     .args = "key start stop [WITHSCORES]"},
    {.name = "zrangebyscore", .proc = zrangebyscoreCommand, .arity = -4, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "1.0.5",
     .summary = "Returns members in a sorted set within a range of scores.", .complexity = ZSET_RANGE_COMPLEXITY,
     .args = "key min:double max:double [WITHSCORES] [LIMIT offset count]"},
    {.name = "zrevrangebyscore", .proc = zrevrangebyscoreCommand, .arity = -4, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "2.2.0",
     .summary = "Returns members in a sorted set within a range of scores in reverse order.",
     .complexity = ZSET_RANGE_COMPLEXITY,
     .args = "key max:double min:double [WITHSCORES] [LIMIT offset count]"},
    {.name = "zrangebylex", .proc = zrangebylexCommand, .arity = -4, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "2.8.9",
     .summary = "Returns members in a sorted set within a lexicographical range.",
     .complexity = ZSET_RANGE_COMPLEXITY,
     .args = "key min max [LIMIT offset count]"},
    {.name = "zrevrangebylex", .proc = zrevrangebylexCommand, .arity = -4, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "2.8.9",
     .summary = "Returns members in a sorted set within a lexicographical range in reverse order.",
     .complexity = ZSET_RANGE_COMPLEXITY,
     .args = "key max min [LIMIT offset count]"},
    {.name = "zremrangebyrank", .proc = zremrangebyrankCommand, .arity = 4, .flags = CMD_WRITE,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "2.0.0",
     .summary = "Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members "
                "were removed.",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of "
                   "elements removed by the operation.",
     .args = "key start stop"},
    {.name = "zremrangebyscore", .proc = zremrangebyscoreCommand, .arity = 4, .flags = CMD_WRITE,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "1.2.0",
     .summary = "Removes members in a sorted set within a range of scores. Deletes the sorted set if all members "
                "were removed.",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of "
                   "elements removed by the operation.",
     .args = "key min:double max:double"},
    {.name = "zremrangebylex", .proc = zremrangebylexCommand, .arity = 4, .flags = CMD_WRITE,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "2.8.9",
     .summary = "Removes members in a sorted set within a lexicographical range. Deletes the sorted set if all "
                "members were removed.",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of "
                   "elements removed by the operation.",
     .args = "key min max"},
    {.name = "zpopmin", .proc = zpopminCommand, .arity = -2, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "5.0.0",
     .summary = "Returns the lowest-scoring members from a sorted set after removing them. Deletes the sorted set "
                "if the last member was popped.",
     .complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of "
                   "elements popped.",
     .args = "key [count]"},
    {.name = "zpopmax", .proc = zpopmaxCommand, .arity = -2, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "5.0.0",
     .summary = "Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted set "
                "if the last member was popped.",
     .complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of "
                   "elements popped.",
     .args = "key [count]"},
    {.name = "bzpopmin", .proc = bzpopminCommand, .arity = -3, .flags = CMD_WRITE | CMD_FAST | CMD_BLOCKING,
     .acl_categories = ACL_CATEGORY_SORTEDSET | ACL_CATEGORY_BLOCKING, .key = {1, -2, 1}, .group = "sorted_set",
     .since = "5.0.0",
     .summary = "Removes and returns the member with the lowest score from one or more sorted sets. Blocks until a "
                "member is available otherwise. Deletes the sorted set if the last element was popped.",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .args = "key [key ...] timeout:double"},
    {.name = "bzpopmax", .proc = bzpopmaxCommand, .arity = -3, .flags = CMD_WRITE | CMD_FAST | CMD_BLOCKING,
     .acl_categories = ACL_CATEGORY_SORTEDSET | ACL_CATEGORY_BLOCKING, .key = {1, -2, 1}, .group = "sorted_set",
     .since = "5.0.0",
     .summary = "Removes and returns the member with the highest score from one or more sorted sets. Blocks until "
                "a member available otherwise. Deletes the sorted set if the last element was popped.",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .args = "key [key ...] timeout:double"},
    {.name = "zmpop", .proc = zmpopCommand, .arity = -4, .flags = CMD_WRITE | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .getkeys_proc = zsetReadGetKeys, .group = "sorted_set",
     .since = "7.0.0",
     .summary = "Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. "
                "Deletes the sorted set if the last member was popped.",
     .complexity = "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in "
                   "the sorted set, and M being the number of elements popped.",
     .args = "numkeys key [key ...] where=<MIN | MAX> [COUNT count]"},
    {.name = "bzmpop", .proc = bzmpopCommand, .arity = -5, .flags = CMD_WRITE | CMD_BLOCKING | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_CATEGORY_SORTEDSET | ACL_CATEGORY_BLOCKING, .getkeys_proc = bzmpopGetKeys,
     .group = "sorted_set", .since = "7.0.0",
     .summary = "Removes and returns a member by score from one or more sorted sets. Blocks until a member is "
                "available otherwise. Deletes the sorted set if the last element was popped.",
     .complexity = "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in "
                   "the sorted set, and M being the number of elements popped.",
     .args = "timeout:double numkeys key [key ...] where=<MIN | MAX> [COUNT count]"},
    {.name = "zrandmember", .proc = zrandmemberCommand, .arity = -2, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "6.2.0",
     .summary = "Returns one or more random members from a sorted set.",
     .complexity = "O(N) where N is the number of members returned",
     .args = "key [options=[count [WITHSCORES]]]"},
    {.name = "zunion", .proc = zunionCommand, .arity = -3, .flags = CMD_READONLY | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .getkeys_proc = zsetReadGetKeys, .group = "sorted_set",
     .since = "6.2.0", .summary = "Returns the union of multiple sorted sets.",
     .complexity = "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the "
                   "number of elements in the resulting sorted set.",
     .args = "numkeys key [key ...] [WEIGHTS weight:integer [weight:integer ...]] [AGGREGATE aggregate=<SUM | MIN | "
             "MAX>] [WITHSCORES]"},
    {.name = "zinter", .proc = zinterCommand, .arity = -3, .flags = CMD_READONLY | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .getkeys_proc = zsetReadGetKeys, .group = "sorted_set",
     .since = "6.2.0", .summary = "Returns the intersect of multiple sorted sets.",
     .complexity = "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number "
                   "of input sorted sets and M being the number of elements in the resulting sorted set.",
     .args = "numkeys key [key ...] [WEIGHTS weight:integer [weight:integer ...]] [AGGREGATE aggregate=<SUM | MIN | "
             "MAX>] [WITHSCORES]"},
    {.name = "zdiff", .proc = zdiffCommand, .arity = -3, .flags = CMD_READONLY | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .getkeys_proc = zsetReadGetKeys, .group = "sorted_set",
     .since = "6.2.0", .summary = "Returns the difference between multiple sorted sets.",
     .complexity = "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is "
                   "the size of the first set, and K is the size of the result set.",
     .args = "numkeys key [key ...] [WITHSCORES]"},
    {.name = "zintercard", .proc = zintercardCommand, .arity = -3, .flags = CMD_READONLY | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .getkeys_proc = zsetReadGetKeys, .group = "sorted_set",
     .since = "7.0.0", .summary = "Returns the number of members of the intersect of multiple sorted sets.",
     .complexity = "O(N*K) worst case with N being the smallest input sorted set, K being the number of input "
                   "sorted sets.",
     .args = "numkeys key [key ...] [LIMIT limit]"},
    {.name = "zunionstore", .proc = zunionstoreCommand, .arity = -4, .flags = ZSET_W | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .getkeys_proc = zsetStoreGetKeys, .group = "sorted_set",
     .since = "2.0.0", .summary = "Stores the union of multiple sorted sets in a key.",
     .complexity = "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being the "
                   "number of elements in the resulting sorted set.",
     .args = "destination numkeys key [key ...] [WEIGHTS weight:integer [weight:integer ...]] [AGGREGATE "
             "aggregate=<SUM | MIN | MAX>]"},
    {.name = "zinterstore", .proc = zinterstoreCommand, .arity = -4, .flags = ZSET_W | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .getkeys_proc = zsetStoreGetKeys, .group = "sorted_set",
     .since = "2.0.0", .summary = "Stores the intersect of multiple sorted sets in a key.",
     .complexity = "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number "
                   "of input sorted sets and M being the number of elements in the resulting sorted set.",
     .args = "destination numkeys key [key ...] [WEIGHTS weight:integer [weight:integer ...]] [AGGREGATE "
             "aggregate=<SUM | MIN | MAX>]"},
    {.name = "zdiffstore", .proc = zdiffstoreCommand, .arity = -4, .flags = ZSET_W | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .getkeys_proc = zsetStoreGetKeys, .group = "sorted_set",
     .since = "6.2.0", .summary = "Stores the difference of multiple sorted sets in a key.",
     .complexity = "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is "
                   "the size of the first set, and K is the size of the result set.",
     .args = "destination numkeys key [key ...]"},
    {.name = "zscan", .proc = zscanCommand, .arity = -3, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_SORTEDSET, .key = {1, 1, 1}, .group = "sorted_set", .since = "2.8.0",
     .summary = "Iterates over members and scores of a sorted set.",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the "
                   "cursor to return back to 0. N is the number of elements inside the collection.",
     .args = "key cursor [MATCH pattern] [COUNT count]"},
    {0},
};
