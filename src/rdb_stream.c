/* rdb_stream.c - streams in the RDB format (RDB_TYPE_STREAM_LISTPACKS, _2
 * and _3), both directions.
 *
 * rdb_object.c calls rdbSaveStream() for the body of an OBJ_STREAM value
 * (the caller has written the type byte, always RDB_TYPE_STREAM_LISTPACKS_3)
 * and rdbLoadStream() for any of the three stream types. The body is:
 *
 *   <nodes> then per node: <master ID: 16-byte string, ms and seq each
 *                           64-bit big-endian> <the node as a listpack blob>
 *   <length> <last ID ms> <last ID seq>
 *   _2/_3: <first ID ms> <seq> <max deleted ID ms> <seq> <entries added>
 *   <groups> then per group: <name> <last ID ms> <seq> [_2/_3: entries read]
 *       <PEL size> then per NACK: <16-byte raw ID> <delivery time, 8 bytes
 *                                  little-endian ms> <delivery count>
 *       <consumers> then per consumer: <name> <seen time ms>
 *           [_3: <active time ms>] <PEL size> <16-byte raw IDs>
 *
 * Numbers are RDB lengths unless said otherwise. The node blob is Valkey's
 * in-memory node, which differs from ours (stream.h):
 *
 *   master entry: <live count> <deleted count> <n master fields> <fields>
 *                 <0>
 *   each entry:   <flags> <ms - master.ms> <seq - master.seq>
 *                 [<n fields> <f1> <v1> ... | with SAMEFIELDS: <v1> ...]
 *                 <lp-count: elements of the entry before itself>
 *
 * so nodes are re-encoded both ways. Saving takes the first entry's fields
 * as the master fields, as Valkey does, and marks every entry with exactly
 * those field elements SAMEFIELDS; loading expands SAMEFIELDS entries and
 * drops the master entry and lp-counts. Elements are copied verbatim (a
 * field or value is never decoded), through a listpack builder (lpBuilder).
 *
 * Loading always validates deeply, since RESTORE payloads and files are
 * untrusted: every listpack's integrity and entry layout, counts against
 * what the entries say, node keys ascending and entries ascending from
 * their node key, no entry beyond the last ID, the stream counters, no
 * duplicate group, consumer or pending ID, every consumer's pending ID in
 * its group's PEL and owned by no other consumer, and every group NACK
 * owned. Anything wrong frees what was built and returns NULL; the reason
 * is logged at verbose level with Valkey's wording. A node whose entries
 * are all deleted is accepted and dropped (we never keep one). A stream is
 * never "empty" for a loader: Valkey keeps streams without entries (their
 * last ID and groups still matter), and so do we.
 *
 * What older types lack is derived as Valkey derives it (checked against
 * Redis 7.0): for _1 the first ID is the first live entry's (the largest
 * possible ID when there is none), the max deleted ID 0-0, entries added
 * the length and each group's entries read estimated from its last ID
 * (streamEntriesReadAt()); below _3 a consumer's active time is its seen
 * time.
 *
 * Expanding SAMEFIELDS makes our nodes bigger than the RDB's when field
 * names are long and values short; a node that would pass
 * LP_MAX_SAFETY_SIZE once expanded is refused. */
#include "server.h"

#include "listpack.h"
#include "rdb.h"
#include "stream.h"

/* Entry flags of the RDB node layout. */
#define RDB_STREAM_ITEM_DELETED 1
#define RDB_STREAM_ITEM_SAMEFIELDS 2
#define RDB_STREAM_ITEM_FLAGS (RDB_STREAM_ITEM_DELETED | RDB_STREAM_ITEM_SAMEFIELDS)

/* A stream ID as a 16-byte raw string (node keys and PEL entries). */
#define RDB_STREAM_RAW_ID_LEN 16

/* Logs why a stream failed to load (RESTORE replies its own error; a file
 * load logs its own failure line after this detail). */
static void streamLoadFail(const char *reason) {
    serverLog(LL_VERBOSE, "Stream RDB data rejected: %s", reason);
}

/* ===========================================================================
 * IDs on the wire
 * ======================================================================== */

static void streamEncodeRawID(unsigned char *buf, const streamID *id) {
    for (int j = 0; j < 8; j++) {
        buf[j] = (unsigned char)(id->ms >> (56 - 8 * j));
        buf[8 + j] = (unsigned char)(id->seq >> (56 - 8 * j));
    }
}

static void streamDecodeRawID(const unsigned char *buf, streamID *id) {
    id->ms = id->seq = 0;
    for (int j = 0; j < 8; j++) {
        id->ms = (id->ms << 8) | buf[j];
        id->seq = (id->seq << 8) | buf[8 + j];
    }
}

static int rdbSaveRawStreamID(rio *r, const streamID *id) {
    unsigned char buf[RDB_STREAM_RAW_ID_LEN];
    streamEncodeRawID(buf, id);
    return rioWrite(r, buf, sizeof(buf)) ? C_OK : C_ERR;
}

static int rdbLoadRawStreamID(rio *r, streamID *id) {
    unsigned char buf[RDB_STREAM_RAW_ID_LEN];
    if (!rioRead(r, buf, sizeof(buf))) return C_ERR;
    streamDecodeRawID(buf, id);
    return C_OK;
}

/* A length that may take any 64-bit value (ID parts, counters). 2^64-1 is
 * one of them, although rdbLoadLen() also returns it for errors: it is the
 * value when the nine bytes of the 64-bit form went through. C_OK/C_ERR. */
static int rdbLoadStreamU64(rio *r, uint64_t *v) {
    uint64_t before = r->processed_bytes;
    *v = rdbLoadLen(r, NULL);
    if (*v != RDB_LENERR) return C_OK;
    return r->error == RIO_OK && r->processed_bytes - before == 9 ? C_OK : C_ERR;
}

/* An ID as two lengths, ms then seq (last IDs, first ID, max deleted). */
static int rdbSaveStreamIDLens(rio *r, const streamID *id) {
    return rdbSaveLen(r, id->ms) == C_OK && rdbSaveLen(r, id->seq) == C_OK ? C_OK : C_ERR;
}

static int rdbLoadStreamIDLens(rio *r, streamID *id) {
    return rdbLoadStreamU64(r, &id->ms) == C_OK && rdbLoadStreamU64(r, &id->seq) == C_OK ? C_OK : C_ERR;
}

/* ===========================================================================
 * Nodes: our layout to the RDB's
 * ======================================================================== */

/* The integer element at p of one of our nodes (written by us, so valid). */
static long long streamNodeInt(unsigned char *p) {
    long long v = 0;
    lpGetIntegerIfValid(p, &v);
    return v;
}

/* Appends to b the RDB form of the entry of our layout at p (see stream.h)
 * given the master fields mf (mnf of them, elements of the first entry).
 * Returns the flags element of the next entry (or the terminator).
 *
 * One walk: the entry is written SAMEFIELDS while its fields match the
 * master's element for element (values appended as it goes); at the
 * first difference what was appended is dropped and the entry is written
 * whole, fields and values as one verbatim range. */
static unsigned char *streamEntryToRdb(lpBuilder *b, unsigned char *p, unsigned char *mf, long long mnf) {
    int deleted = (streamNodeInt(p) & STREAM_ENTRY_DELETED) ? RDB_STREAM_ITEM_DELETED : 0;
    unsigned char *ids = lpSkip(p);          /* ms-diff, seq-diff */
    unsigned char *nfp = lpSkip(lpSkip(ids)); /* field count */
    long long nf = streamNodeInt(nfp);
    unsigned char *f = lpSkip(nfp);

    if (nf == mnf) {
        size_t mark_len = b->len;
        unsigned long mark_count = b->count;
        lpBuilderAppendInteger(b, deleted | RDB_STREAM_ITEM_SAMEFIELDS);
        lpBuilderAppendEntries(b, ids, nfp, 2);
        unsigned char *m = mf;
        long long i;
        for (i = 0; i < nf; i++) {
            unsigned char *fend = lpSkip(f), *mend = lpSkip(m);
            if (f != m && (fend - f != mend - m || memcmp(f, m, (size_t)(fend - f)) != 0)) break;
            unsigned char *vend = lpSkip(fend);
            lpBuilderAppendEntries(b, fend, vend, 1);
            f = vend;
            m = lpSkip(mend); /* past the master field's value */
        }
        if (i == nf) {
            lpBuilderAppendInteger(b, nf + 3);
            return f;
        }
        b->len = mark_len; /* a field differs: undo, write it whole */
        b->count = mark_count;
        f = lpSkip(nfp);
    }
    unsigned char *end = f;
    for (long long i = 0; i < 2 * nf; i++) end = lpSkip(end);
    lpBuilderAppendInteger(b, deleted);
    lpBuilderAppendEntries(b, ids, nfp, 2);
    lpBuilderAppendEntries(b, nfp, end, (unsigned long)(1 + 2 * nf));
    lpBuilderAppendInteger(b, 2 * nf + 4);
    return end;
}

/* Returns node n as an RDB node listpack (see the top of the file); the
 * caller frees it with lpFree(). */
static unsigned char *streamNodeToRdbListpack(streamNode *n) {
    unsigned char *lp = n->lp;
    lpBuilder b;
    /* The master entry and the lp-counts usually cost less than the
     * SAMEFIELDS entries save. */
    lpBuilderInit(&b, lpBytes(lp) + 64);

    /* The master entry: counts and the first entry's fields. */
    unsigned char *p = lpFirst(lp);
    unsigned char *mnfp = lpSkip(lpSkip(lpSkip(p)));
    long long mnf = streamNodeInt(mnfp);
    unsigned char *mf = lpSkip(mnfp);
    lpBuilderAppendInteger(&b, n->live);
    lpBuilderAppendInteger(&b, (long long)(n->count - n->live));
    lpBuilderAppendInteger(&b, mnf);
    unsigned char *f = mf;
    for (long long i = 0; i < mnf; i++) {
        unsigned char *fend = lpSkip(f);
        lpBuilderAppendEntries(&b, f, fend, 1);
        f = lpSkip(fend);
    }
    lpBuilderAppendInteger(&b, 0); /* the master entry's terminator */

    while (p[0] != LP_EOF) p = streamEntryToRdb(&b, p, mf, mnf);
    return lpBuilderFinish(&b);
}

/* ===========================================================================
 * Nodes: the RDB's layout to ours
 * ======================================================================== */

/* A cursor over an RDB node listpack that was validated by
 * lpValidateIntegrity() (so stepping is safe) but whose stream layout is
 * still unchecked: every read says whether the element was there. */
typedef struct rdbNodeCursor {
    unsigned char *p;   /* the next element, or eof */
    unsigned char *eof; /* the terminator */
} rdbNodeCursor;

/* Reads the next element as an integer in [min, max]. 1 on success. */
static int rdbNodeReadInt(rdbNodeCursor *c, long long min, long long max, long long *v) {
    if (c->p == c->eof || !lpGetIntegerIfValid(c->p, v) || *v < min || *v > max) return 0;
    c->p = lpSkip(c->p);
    return 1;
}

/* Steps over n elements. 1 if they were all there. */
static int rdbNodeSkip(rdbNodeCursor *c, long long n) {
    for (; n > 0; n--) {
        if (c->p == c->eof) return 0;
        c->p = lpSkip(c->p);
    }
    return 1;
}

/* What converting one node found out. */
typedef struct rdbNodeInfo {
    streamID master;    /* the node key */
    streamID last;      /* out: the last entry's ID (live or deleted) */
    int has_prev;       /* in: prev is set (a node came before) */
    streamID prev;      /* in: the last entry ID of the previous node */
    const char *reason; /* out: why the node was rejected */
} rdbNodeInfo;

/* Converts one entry at c (RDB layout) into b (our layout). mfields and
 * mf are the master fields. Sets *id and *deleted. 1 on success. */
static int rdbNodeConvertEntry(rdbNodeCursor *c, lpBuilder *b, const streamID *master, long long mfields,
                               unsigned char *mf, streamID *id, int *deleted) {
    long long flags, msdiff, seqdiff, nfields, lpcount;
    if (!rdbNodeReadInt(c, 0, RDB_STREAM_ITEM_FLAGS, &flags)) return 0;
    unsigned char *ids = c->p;
    if (!rdbNodeReadInt(c, LLONG_MIN, LLONG_MAX, &msdiff) || !rdbNodeReadInt(c, LLONG_MIN, LLONG_MAX, &seqdiff))
        return 0;
    id->ms = master->ms + (uint64_t)msdiff;
    id->seq = master->seq + (uint64_t)seqdiff;
    *deleted = (flags & RDB_STREAM_ITEM_DELETED) != 0;
    lpBuilderAppendInteger(b, *deleted ? STREAM_ENTRY_DELETED : 0);
    lpBuilderAppendEntries(b, ids, c->p, 2); /* the deltas mean the same in both layouts */
    if (flags & RDB_STREAM_ITEM_SAMEFIELDS) {
        nfields = mfields;
        lpBuilderAppendInteger(b, nfields);
        for (long long i = 0; i < nfields; i++) {
            if (c->p == c->eof) return 0;
            unsigned char *mfend = lpSkip(mf), *vend = lpSkip(c->p);
            lpBuilderAppendEntries(b, mf, mfend, 1);
            lpBuilderAppendEntries(b, c->p, vend, 1);
            mf = mfend;
            c->p = vend;
        }
        if (!rdbNodeReadInt(c, nfields + 3, nfields + 3, &lpcount)) return 0;
    } else {
        unsigned char *nfp = c->p;
        if (!rdbNodeReadInt(c, 1, UINT32_MAX, &nfields) || !rdbNodeSkip(c, 2 * nfields)) return 0;
        lpBuilderAppendEntries(b, nfp, c->p, (unsigned long)(1 + 2 * nfields));
        if (!rdbNodeReadInt(c, 2 * nfields + 4, 2 * nfields + 4, &lpcount)) return 0;
    }
    return 1;
}

/* Converts the RDB node listpack rlp (size bytes, untrusted) with key
 * info->master into a node of ours. Returns the node (the caller owns it;
 * rlp is left to the caller), or NULL with info->reason set. */
static streamNode *streamNodeFromRdbListpack(unsigned char *rlp, size_t size, rdbNodeInfo *info) {
    if (!lpValidateIntegrity(rlp, size, 1, NULL, NULL)) {
        info->reason = "Stream listpack integrity check failed.";
        return NULL;
    }
    rdbNodeCursor c = {.p = lpFirst(rlp), .eof = rlp + size - 1};
    if (c.p == NULL) {
        info->reason = "Empty listpack inside stream";
        return NULL;
    }
    if (info->has_prev && streamCompareID(&info->master, &info->prev) <= 0) {
        info->reason = "Stream node key not after the previous node's entries";
        return NULL;
    }

    info->reason = "Stream listpack entry layout is invalid";
    long long live, deleted, mfields, zero;
    if (!rdbNodeReadInt(&c, 0, UINT32_MAX, &live) || !rdbNodeReadInt(&c, 0, UINT32_MAX, &deleted) ||
        live + deleted == 0 || live + deleted > UINT32_MAX || !rdbNodeReadInt(&c, 1, UINT32_MAX, &mfields))
        return NULL;
    unsigned char *mf = c.p;
    if (!rdbNodeSkip(&c, mfields) || !rdbNodeReadInt(&c, 0, 0, &zero)) return NULL;

    lpBuilder b;
    lpBuilderInit(&b, size + size / 4);
    streamID id = info->master, last = info->master;
    long long seen_deleted = 0;
    for (long long i = 0; i < live + deleted; i++) {
        int is_deleted;
        if (!rdbNodeConvertEntry(&c, &b, &info->master, mfields, mf, &id, &is_deleted)) goto fail;
        if (streamCompareID(&id, &last) < (i == 0 ? 0 : 1)) {
            info->reason = "Stream entry IDs not ascending from the node key";
            goto fail;
        }
        if (lpBuilderBytes(&b) > LP_MAX_SAFETY_SIZE) {
            info->reason = "Stream node too large once expanded";
            goto fail;
        }
        seen_deleted += is_deleted;
        last = id;
    }
    if (c.p != c.eof || seen_deleted != deleted) goto fail;

    streamNode *n = zmalloc(sizeof(*n));
    n->lp = lpShrinkToFit(lpBuilderFinish(&b));
    n->master = info->master;
    n->last = last;
    n->count = (uint32_t)(live + deleted);
    n->live = (uint32_t)live;
    info->last = last;
    info->reason = NULL;
    return n;

fail:
    lpBuilderDiscard(&b);
    return NULL;
}

/* ===========================================================================
 * Saving
 * ======================================================================== */

static int rdbSaveStreamNodes(rio *r, stream *s) {
    if (rdbSaveLen(r, sidmapLen(s->index)) != C_OK) return C_ERR;
    for (sidmapNode *sn = sidmapFirst(s->index); sn; sn = sidmapNext(sn)) {
        streamNode *n = sn->value;
        unsigned char key[RDB_STREAM_RAW_ID_LEN];
        streamEncodeRawID(key, &n->master);
        if (rdbSaveRawString(r, key, sizeof(key)) != C_OK) return C_ERR;
        unsigned char *lp = streamNodeToRdbListpack(n);
        int ret = rdbSaveRawString(r, lp, lpBytes(lp));
        lpFree(lp);
        if (ret != C_OK) return C_ERR;
    }
    return C_OK;
}

static int rdbSaveStreamMetadata(rio *r, stream *s) {
    if (rdbSaveLen(r, s->length) != C_OK || rdbSaveStreamIDLens(r, &s->last_id) != C_OK ||
        rdbSaveStreamIDLens(r, &s->first_id) != C_OK || rdbSaveStreamIDLens(r, &s->max_deleted_entry_id) != C_OK ||
        rdbSaveLen(r, s->entries_added) != C_OK)
        return C_ERR;
    return C_OK;
}

static int rdbSaveStreamConsumer(rio *r, streamConsumer *cons) {
    if (rdbSaveRawString(r, cons->name, sdslen(cons->name)) != C_OK ||
        rdbSaveMillisecondTime(r, cons->seen_time) != C_OK ||
        rdbSaveMillisecondTime(r, cons->active_time) != C_OK || rdbSaveLen(r, sidmapLen(cons->pel)) != C_OK)
        return C_ERR;
    for (sidmapNode *pn = sidmapFirst(cons->pel); pn; pn = sidmapNext(pn))
        if (rdbSaveRawStreamID(r, &pn->id) != C_OK) return C_ERR;
    return C_OK;
}

static int rdbSaveStreamGroup(rio *r, streamCG *g) {
    /* entries_read is written as a length; "unknown" (-1) becomes 2^64-1. */
    if (rdbSaveRawString(r, g->name, sdslen(g->name)) != C_OK || rdbSaveStreamIDLens(r, &g->last_id) != C_OK ||
        rdbSaveLen(r, (uint64_t)g->entries_read) != C_OK || rdbSaveLen(r, sidmapLen(g->pel)) != C_OK)
        return C_ERR;
    for (sidmapNode *pn = sidmapFirst(g->pel); pn; pn = sidmapNext(pn)) {
        streamNACK *nack = pn->value;
        if (rdbSaveRawStreamID(r, &pn->id) != C_OK || rdbSaveMillisecondTime(r, nack->delivery_time) != C_OK ||
            rdbSaveLen(r, nack->delivery_count) != C_OK)
            return C_ERR;
    }
    unsigned long ncons;
    streamConsumer **conss = streamConsumersByName(g, &ncons);
    int ret = rdbSaveLen(r, ncons);
    for (unsigned long i = 0; i < ncons && ret == C_OK; i++) ret = rdbSaveStreamConsumer(r, conss[i]);
    zfree(conss);
    return ret;
}

/* Writes the body of stream o as RDB_TYPE_STREAM_LISTPACKS_3 (the caller
 * wrote the type byte). Groups and consumers go in name order, as Valkey
 * writes them. Returns C_OK, or C_ERR on a failed write. Runs wherever
 * values are saved: DUMP in the event loop, BGSAVE in a child. */
int rdbSaveStream(rio *r, robj *o) {
    stream *s = objectGetVal(o);
    if (rdbSaveStreamNodes(r, s) != C_OK || rdbSaveStreamMetadata(r, s) != C_OK) return C_ERR;
    unsigned long ngroups;
    streamCG **groups = streamGroupsByName(s, &ngroups);
    int ret = rdbSaveLen(r, ngroups);
    for (unsigned long i = 0; i < ngroups && ret == C_OK; i++) ret = rdbSaveStreamGroup(r, groups[i]);
    zfree(groups);
    return ret;
}

/* ===========================================================================
 * Loading
 * ======================================================================== */

/* Reads the nodes into s->index and sums their live entries into *live.
 * *has_last and *last get the greatest entry ID seen. C_OK or C_ERR. */
static int rdbLoadStreamNodes(rio *r, stream *s, uint64_t *live, int *has_last, streamID *last) {
    uint64_t nnodes = rdbLoadLen(r, NULL);
    if (nnodes == RDB_LENERR) return C_ERR;
    rdbNodeInfo info = {.has_prev = 0};
    *live = 0;
    while (nnodes--) {
        size_t keylen, lplen;
        unsigned char *key = rdbLoadString(r, RDB_LOAD_PLAIN, &keylen);
        if (key == NULL) return C_ERR;
        if (keylen != RDB_STREAM_RAW_ID_LEN) {
            zfree(key);
            streamLoadFail("Stream node key entry is not the size of a stream ID");
            return C_ERR;
        }
        streamDecodeRawID(key, &info.master);
        zfree(key);
        unsigned char *rlp = rdbLoadString(r, RDB_LOAD_PLAIN, &lplen);
        if (rlp == NULL) return C_ERR;
        streamNode *n = streamNodeFromRdbListpack(rlp, lplen, &info);
        zfree(rlp);
        if (n == NULL) {
            streamLoadFail(info.reason);
            return C_ERR;
        }
        info.has_prev = 1;
        info.prev = info.last;
        *live += n->live;
        /* A node whose entries are all deleted is never kept (stream.h);
         * its IDs still count towards the last-ID check. */
        if (n->live == 0) streamNodeFree(n);
        else sidmapInsert(s->index, n->master, n); /* keys ascend: never a duplicate */
    }
    *has_last = info.has_prev;
    *last = info.prev;
    return C_OK;
}

/* Reads length, IDs and counters (deriving for RDB_TYPE_STREAM_LISTPACKS
 * what it lacks) and checks them against the nodes. C_OK or C_ERR. */
static int rdbLoadStreamMetadata(rio *r, int rdbtype, stream *s, uint64_t live, int has_last, const streamID *last) {
    s->length = rdbLoadLen(r, NULL);
    if (s->length == RDB_LENERR || rdbLoadStreamIDLens(r, &s->last_id) != C_OK) return C_ERR;
    if (s->length != live) {
        streamLoadFail("Stream length inconsistent with its entries");
        return C_ERR;
    }
    if (has_last && streamCompareID(last, &s->last_id) > 0) {
        streamLoadFail("Stream entry ID beyond the stream's last ID");
        return C_ERR;
    }
    if (rdbtype == RDB_TYPE_STREAM_LISTPACKS) {
        /* Written before these existed: what Valkey derives. Its first ID
         * of a stream without entries is then the largest ID, not 0-0. */
        s->entries_added = s->length;
        s->max_deleted_entry_id = (streamID){0, 0};
        streamUpdateFirstID(s);
        if (s->length == 0) s->first_id = (streamID){UINT64_MAX, UINT64_MAX};
        return C_OK;
    }
    if (rdbLoadStreamIDLens(r, &s->first_id) != C_OK || rdbLoadStreamIDLens(r, &s->max_deleted_entry_id) != C_OK)
        return C_ERR;
    if (rdbLoadStreamU64(r, &s->entries_added) != C_OK) return C_ERR;
    if (s->entries_added < s->length || streamCompareID(&s->max_deleted_entry_id, &s->last_id) > 0 ||
        (s->length && streamCompareID(&s->first_id, &s->last_id) > 0)) {
        streamLoadFail("Stream counters inconsistent with its entries");
        return C_ERR;
    }
    return C_OK;
}

/* A group's entries_read: a length, where 2^64-1 is -1, "unknown"; other
 * values past LLONG_MAX are invalid. C_OK or C_ERR. */
static int rdbLoadStreamEntriesRead(rio *r, long long *entries_read) {
    uint64_t v;
    if (rdbLoadStreamU64(r, &v) != C_OK) return C_ERR;
    if (v == UINT64_MAX) {
        *entries_read = STREAM_CG_INVALID_ENTRIES_READ;
        return C_OK;
    }
    if (v > LLONG_MAX) {
        streamLoadFail("Stream consumer group entries-read out of range");
        return C_ERR;
    }
    *entries_read = (long long)v;
    return C_OK;
}

/* Reads a group's PEL: NACKs without consumers yet. C_OK or C_ERR. */
static int rdbLoadStreamGroupPEL(rio *r, streamCG *g) {
    uint64_t npel = rdbLoadLen(r, NULL);
    if (npel == RDB_LENERR) return C_ERR;
    while (npel--) {
        streamID id;
        long long delivery_time;
        if (rdbLoadRawStreamID(r, &id) != C_OK || rdbLoadMillisecondTime(r, RDB_VERSION, &delivery_time) != C_OK)
            return C_ERR;
        uint64_t count;
        if (rdbLoadStreamU64(r, &count) != C_OK) return C_ERR;
        streamNACK *nack = zmalloc(sizeof(*nack));
        nack->delivery_time = delivery_time;
        nack->delivery_count = count;
        nack->consumer = NULL;
        if (sidmapInsert(g->pel, id, nack) == NULL) {
            zfree(nack);
            streamLoadFail("Duplicated global PEL entry loading stream consumer group");
            return C_ERR;
        }
    }
    return C_OK;
}

/* Reads one consumer of g and claims its NACKs. C_OK or C_ERR. */
static int rdbLoadStreamConsumer(rio *r, int rdbtype, streamCG *g) {
    sds name = rdbLoadString(r, RDB_LOAD_SDS, NULL);
    if (name == NULL) return C_ERR;
    if (streamLookupConsumer(g, name)) {
        sdsfree(name);
        streamLoadFail("Duplicate stream consumer detected.");
        return C_ERR;
    }
    streamConsumer *cons = streamCreateConsumer(g, name);
    sdsfree(name);
    if (rdbLoadMillisecondTime(r, RDB_VERSION, &cons->seen_time) != C_OK) return C_ERR;
    if (rdbtype == RDB_TYPE_STREAM_LISTPACKS_3) {
        if (rdbLoadMillisecondTime(r, RDB_VERSION, &cons->active_time) != C_OK) return C_ERR;
    } else {
        cons->active_time = cons->seen_time; /* the best estimate there is */
    }
    uint64_t npel = rdbLoadLen(r, NULL);
    if (npel == RDB_LENERR) return C_ERR;
    while (npel--) {
        streamID id;
        if (rdbLoadRawStreamID(r, &id) != C_OK) return C_ERR;
        sidmapNode *pn = sidmapFind(g->pel, id);
        if (pn == NULL) {
            streamLoadFail("Consumer entry not found in group global PEL");
            return C_ERR;
        }
        streamNACK *nack = pn->value;
        if (nack->consumer != NULL) {
            streamLoadFail("Duplicated consumer PEL entry loading a stream consumer group");
            return C_ERR;
        }
        nack->consumer = cons;
        sidmapInsert(cons->pel, id, nack);
    }
    return C_OK;
}

/* Reads one group into s. C_OK or C_ERR. */
static int rdbLoadStreamGroup(rio *r, int rdbtype, stream *s) {
    sds name = rdbLoadString(r, RDB_LOAD_SDS, NULL);
    if (name == NULL) return C_ERR;
    streamID last_id;
    long long entries_read = 0;
    int ok = rdbLoadStreamIDLens(r, &last_id) == C_OK &&
             (rdbtype == RDB_TYPE_STREAM_LISTPACKS || rdbLoadStreamEntriesRead(r, &entries_read) == C_OK);
    if (!ok) {
        sdsfree(name);
        return C_ERR;
    }
    if (rdbtype == RDB_TYPE_STREAM_LISTPACKS) entries_read = streamEntriesReadAt(s, &last_id);
    streamCG *g = streamCreateCG(s, name, sdslen(name), last_id, entries_read);
    sdsfree(name);
    if (g == NULL) {
        streamLoadFail("Duplicated consumer group name");
        return C_ERR;
    }
    if (rdbLoadStreamGroupPEL(r, g) != C_OK) return C_ERR;
    uint64_t ncons = rdbLoadLen(r, NULL);
    if (ncons == RDB_LENERR) return C_ERR;
    while (ncons--)
        if (rdbLoadStreamConsumer(r, rdbtype, g) != C_OK) return C_ERR;
    for (sidmapNode *pn = sidmapFirst(g->pel); pn; pn = sidmapNext(pn)) {
        if (((streamNACK *)pn->value)->consumer == NULL) {
            streamLoadFail("Stream CG PEL entry without consumer");
            return C_ERR;
        }
    }
    return C_OK;
}

/* Loads the body of a stream of RDB type rdbtype (RDB_TYPE_STREAM_LISTPACKS,
 * _2 or _3). Returns a new stream object owned by the caller, or NULL on
 * truncated or invalid input, with everything built so far freed. *empty
 * is always cleared: a stream without entries is kept, as Valkey does.
 * Runs in the event loop (RESTORE) or during a load. */
robj *rdbLoadStream(rio *r, int rdbtype, int *empty) {
    *empty = 0;
    if (rdbtype != RDB_TYPE_STREAM_LISTPACKS && rdbtype != RDB_TYPE_STREAM_LISTPACKS_2 &&
        rdbtype != RDB_TYPE_STREAM_LISTPACKS_3)
        return NULL;
    robj *o = createStreamObject();
    stream *s = objectGetVal(o);
    uint64_t live, ngroups;
    int has_last;
    streamID last;
    if (rdbLoadStreamNodes(r, s, &live, &has_last, &last) != C_OK ||
        rdbLoadStreamMetadata(r, rdbtype, s, live, has_last, &last) != C_OK)
        goto fail;
    ngroups = rdbLoadLen(r, NULL);
    if (ngroups == RDB_LENERR) goto fail;
    while (ngroups--)
        if (rdbLoadStreamGroup(r, rdbtype, s) != C_OK) goto fail;
    return o;

fail:
    decrRefCount(o);
    return NULL;
}
