/* t_stream.c - the stream type: XADD, XLEN, XRANGE/XREVRANGE, XDEL, XTRIM,
 * XREAD (blocking), XSETID, consumer groups (XGROUP, XREADGROUP, XACK,
 * XPENDING, XCLAIM, XAUTOCLAIM) and XINFO.
 *
 * Layout (stream.h): entries are kept in listpack "nodes" of at most
 * stream-node-max-entries entries / stream-node-max-bytes bytes, indexed
 * by a skiplist keyed by 128-bit IDs (sidmap.c). New IDs are always larger
 * than the last one, so appends go to the tail node and trimming frees
 * nodes from the head; range reads seek the node holding the start ID in
 * O(log n) and then walk listpacks. Deletion marks an entry in place and
 * frees a node once nothing in it is live. This replaces Valkey's radix
 * tree with a structure that has the same costs for what streams do
 * (append, trim at the head, seek, scan) and is much smaller to write.
 *
 * Sections, in the order a reader meets them: ID arguments, the node and
 * entry layer, the stream layer (append, delete, trim, iterate), consumer
 * groups and pending lists, object methods, then the commands.
 *
 * Blocking: XREAD/XREADGROUP with BLOCK call blockForKeys(BLOCKED_STREAM);
 * XADD signals the key ready and blocked.c re-executes the command, which
 * either serves the new entries or blocks again with its original timeout
 * (blocked.c keeps it). "$" is rewritten to the concrete last ID
 * before blocking so the re-executed command sees the same position.
 * XREADGROUP blocks with blockForKeysWakeOnDelete(): when its key is
 * deleted, overwritten, flushed or swapped away, or its group destroyed,
 * the re-run replies NOGROUP (or WRONGTYPE), as in Valkey. XREAD keeps
 * waiting across a deletion and is served once the key is a stream again.
 *
 * The RDB encoding is rdb_stream.c, which builds and reads streams with
 * the functions stream.h exports from here.
 *
 * Propagation (propagate.c) gets deterministic forms, as Valkey sends them:
 * XADD with the ID it generated; XADD/XTRIM with "~" as "=" and the
 * threshold the trim actually reached (node sizes may differ elsewhere);
 * XREADGROUP, XCLAIM and XAUTOCLAIM not as themselves but as their effects
 * on the group: one "XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n
 * FORCE JUSTID LASTID id" per pending entry they created, moved or
 * dropped, "XGROUP SETID key group id ENTRIESREAD n" when the group's
 * position moved, "XGROUP CREATECONSUMER" for a consumer XREADGROUP NOACK
 * created. */
#include "server.h"
#include "blocked.h"
#include "listpack.h"
#include "propagate.h"
#include "replication.h"
#include "stream.h"

/* ---------------------------------------------------------------------------
 * ID arguments
 * ------------------------------------------------------------------------- */

static const streamID STREAM_ID_MIN = {0, 0};
static const streamID STREAM_ID_MAX = {UINT64_MAX, UINT64_MAX};

/* The text of an argument: its sds, or its integer printed into buf. */
static const char *argText(robj *o, char *buf, size_t bufsize, size_t *len) {
    if (sdsEncodedObject(o)) {
        *len = sdslen(objectGetVal(o));
        return objectGetVal(o);
    }
    *len = (size_t)ll2string(buf, bufsize, (long)objectGetVal(o));
    return buf;
}

static void addReplyStreamID(client *c, const streamID *id) {
    char buf[STREAM_ID_STR_LEN];
    int len = streamIDToString(id, buf);
    addReplyBulkCBuffer(c, buf, (size_t)len);
}

static robj *createStreamIDObject(const streamID *id) {
    char buf[STREAM_ID_STR_LEN];
    int len = streamIDToString(id, buf);
    return createStringObject(buf, (size_t)len);
}

/* Parses an ID argument. Unless strict, "-" and "+" mean the smallest and
 * largest IDs. A lone "<ms>" gets missing_seq. seq_star (may be NULL)
 * allows "<ms>-*". Replies the error and returns C_ERR on bad input; with
 * c == NULL nothing is replied. */
static int streamParseIDOrReply(client *c, robj *o, streamID *id, uint64_t missing_seq, int strict, int *seq_star) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s = argText(o, buf, sizeof(buf), &len);
    if (seq_star) *seq_star = 0;
    if (!strict && len == 1 && (s[0] == '-' || s[0] == '+')) {
        *id = s[0] == '-' ? STREAM_ID_MIN : STREAM_ID_MAX;
        return C_OK;
    }
    if (streamParseIDText(s, len, missing_seq, id, seq_star) != 0) {
        if (c) addReplyError(c, "Invalid stream ID specified as stream command argument");
        return C_ERR;
    }
    return C_OK;
}

static int streamParseStrictIDOrReply(client *c, robj *o, streamID *id, uint64_t missing_seq) {
    return streamParseIDOrReply(c, o, id, missing_seq, 1, NULL);
}

/* An interval bound of XRANGE & co: "-", "+", an ID, or "(" + a strict ID
 * meaning "exclusive"; *exclusive says which. */
static int streamParseIntervalIDOrReply(client *c, robj *o, streamID *id, int *exclusive, uint64_t missing_seq) {
    if (sdsEncodedObject(o) && sdslen(objectGetVal(o)) > 1 && ((char *)objectGetVal(o))[0] == '(') {
        *exclusive = 1;
        robj *rest = createStringObject((char *)objectGetVal(o) + 1, sdslen(objectGetVal(o)) - 1);
        int ret = streamParseStrictIDOrReply(c, rest, id, missing_seq);
        decrRefCount(rest);
        return ret;
    }
    *exclusive = 0;
    return streamParseIDOrReply(c, o, id, missing_seq, 0, NULL);
}

/* Parses an inclusive range start..end (XRANGE, XPENDING, XAUTOCLAIM's
 * start): exclusive bounds are turned into the neighbouring IDs. */
static int streamParseRangeOrReply(client *c, robj *startarg, robj *endarg, streamID *start, streamID *end) {
    int sex, eex;
    if (streamParseIntervalIDOrReply(c, startarg, start, &sex, 0) != C_OK) return C_ERR;
    if (sex && streamIncrID(start) != 0) {
        addReplyError(c, "invalid start ID for the interval");
        return C_ERR;
    }
    if (streamParseIntervalIDOrReply(c, endarg, end, &eex, UINT64_MAX) != C_OK) return C_ERR;
    if (eex && streamDecrID(end) != 0) {
        addReplyError(c, "invalid end ID for the interval");
        return C_ERR;
    }
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * Nodes and entries
 * ------------------------------------------------------------------------- */

/* One decoded entry: where it is and what it holds. Pointers borrow from
 * the node's listpack and die with the next modification of it. */
typedef struct streamEntry {
    streamID id;
    int deleted;
    long long nfields;
    unsigned char *flagp;  /* the flags element */
    unsigned char *fields; /* first field element */
    streamNode *node;
} streamEntry;

static streamNode *streamNodeCreate(streamID master) {
    streamNode *n = zmalloc(sizeof(*n));
    n->lp = lpNew(0);
    n->master = master;
    n->last = master;
    n->count = 0;
    n->live = 0;
    return n;
}

/* See stream.h. */
void streamNodeFree(void *p) {
    streamNode *n = p;
    lpFree(n->lp);
    zfree(n);
}

static long long lpInteger(unsigned char *p) {
    long long v = 0;
    lpGetIntegerIfValid(p, &v);
    return v;
}

/* Decodes the entry whose flags element is p into *e. Returns the flags
 * element of the next entry in the node, or NULL after the last one. */
static unsigned char *streamNodeDecode(streamNode *n, unsigned char *p, streamEntry *e) {
    unsigned char *lp = n->lp;
    e->node = n;
    e->flagp = p;
    e->deleted = (lpInteger(p) & STREAM_ENTRY_DELETED) != 0;
    p = lpNext(lp, p);
    e->id.ms = n->master.ms + (uint64_t)lpInteger(p);
    p = lpNext(lp, p);
    e->id.seq = n->master.seq + (uint64_t)lpInteger(p);
    p = lpNext(lp, p);
    e->nfields = lpInteger(p);
    p = lpNext(lp, p);
    e->fields = p;
    for (long long i = 0; i < e->nfields * 2 && p; i++) p = lpNext(lp, p);
    return p;
}

/* Marks a live entry deleted. The flags element is a 7-bit listpack
 * integer (one byte holding the value, see listpack.h), so it is updated
 * in place and no pointer into the listpack moves. */
static void streamEntryMarkDeleted(streamEntry *e) {
    serverAssert((*e->flagp & 0x80) == 0);
    *e->flagp = STREAM_ENTRY_DELETED;
    e->deleted = 1;
    e->node->live--;
}

/* Replies one entry as [id, [field, value, ...]]. */
static void addReplyStreamEntry(client *c, streamEntry *e) {
    unsigned char buf[LP_INTBUF_SIZE];
    addReplyArrayLen(c, 2);
    addReplyStreamID(c, &e->id);
    addReplyArrayLen(c, e->nfields * 2);
    unsigned char *p = e->fields;
    for (long long i = 0; i < e->nfields * 2; i++) {
        int64_t len;
        unsigned char *s = lpGet(p, &len, buf);
        addReplyBulkCBuffer(c, s, (size_t)len);
        p = lpNext(e->node->lp, p);
    }
}

/* ---------------------------------------------------------------------------
 * The stream layer
 * ------------------------------------------------------------------------- */

static stream *streamNew(void) {
    stream *s = zcalloc(sizeof(*s));
    s->index = sidmapNew();
    return s;
}

static void streamFreeCG(streamCG *g);

static void streamFree(stream *s) {
    sidmapFree(s->index, streamNodeFree);
    if (s->cgroups) dictRelease(s->cgroups);
    zfree(s);
}

/* Frees a node that has no live entry left. */
static void streamDropNode(stream *s, streamNode *n) {
    sidmapDelete(s->index, n->master, NULL);
    streamNodeFree(n);
}

/* See stream.h. */
void streamUpdateFirstID(stream *s) {
    s->first_id = STREAM_ID_MIN;
    sidmapNode *sn = sidmapFirst(s->index);
    if (sn == NULL || s->length == 0) return;
    streamNode *n = sn->value;
    streamEntry e;
    for (unsigned char *p = lpFirst(n->lp); p;) {
        p = streamNodeDecode(n, p, &e);
        if (!e.deleted) {
            s->first_id = e.id;
            return;
        }
    }
}

/* Finds the entry with this ID. Returns 1 and fills *e if it exists and
 * is live, else 0. */
static int streamLookupEntry(stream *s, streamID id, streamEntry *e) {
    sidmapNode *sn = sidmapSeekLE(s->index, id);
    if (sn == NULL) return 0;
    streamNode *n = sn->value;
    if (streamCompareID(&id, &n->last) > 0) return 0;
    for (unsigned char *p = lpFirst(n->lp); p;) {
        p = streamNodeDecode(n, p, e);
        int cmp = streamCompareID(&e->id, &id);
        if (cmp == 0) return !e->deleted;
        if (cmp > 0) return 0;
    }
    return 0;
}

/* Deletes the entry with this ID. Returns 1 if it was live, else 0. The
 * caller updates first_id once done. */
static int streamDeleteID(stream *s, streamID id) {
    streamEntry e;
    if (!streamLookupEntry(s, id, &e)) return 0;
    streamEntryMarkDeleted(&e);
    s->length--;
    if (e.node->live == 0) streamDropNode(s, e.node);
    return 1;
}

/* Appends an entry with a new, larger ID and the fields/values in
 * argv[0..2*npairs). Starts a new tail node when the current one is full
 * by count or would pass the byte limit. */
static void streamAppend(stream *s, streamID id, robj **argv, long npairs) {
    char buf[LONG_STR_SIZE];
    size_t len, need = lpEntrySizeInteger(0) * 2 + lpEntrySizeInteger((long long)npairs) + 18;
    for (long i = 0; i < npairs * 2; i++) {
        const char *t = argText(argv[i], buf, sizeof(buf), &len);
        need += lpEntrySizeString((const unsigned char *)t, len);
    }
    sidmapNode *tail = sidmapLast(s->index);
    streamNode *n = tail ? tail->value : NULL;
    if (n && ((server.stream_node_max_entries && n->count >= (uint64_t)server.stream_node_max_entries) ||
              (server.stream_node_max_bytes && lpBytes(n->lp) + need > (size_t)server.stream_node_max_bytes)))
        n = NULL;
    if (n == NULL) {
        n = streamNodeCreate(id);
        sidmapInsert(s->index, id, n);
    }
    unsigned char *lp = n->lp;
    lp = lpAppendInteger(lp, 0);
    lp = lpAppendInteger(lp, (long long)(id.ms - n->master.ms));
    lp = lpAppendInteger(lp, (long long)(id.seq - n->master.seq));
    lp = lpAppendInteger(lp, (long long)npairs);
    for (long i = 0; i < npairs * 2; i++) {
        const char *t = argText(argv[i], buf, sizeof(buf), &len);
        lp = lpAppend(lp, (const unsigned char *)t, len);
    }
    n->lp = lp;
    n->count++;
    n->live++;
    n->last = id;
    if (s->length == 0) s->first_id = id;
    s->length++;
    s->last_id = id;
    s->entries_added++;
}

/* Trimming strategies and arguments (XADD and XTRIM). */
#define TRIM_NONE 0
#define TRIM_MAXLEN 1
#define TRIM_MINID 2

typedef struct streamTrimArgs {
    int strategy;
    int approx;       /* "~": whole nodes only */
    long long maxlen; /* TRIM_MAXLEN */
    streamID minid;   /* TRIM_MINID */
    long long limit;  /* most entries to remove, 0 = no limit */
    int limit_given;
    int approx_idx;    /* argv index of "~" (when approx) */
    int threshold_idx; /* argv index of the MAXLEN/MINID threshold */
} streamTrimArgs;

/* Removes entries from the head per args. Returns how many were removed. */
static long long streamTrim(stream *s, const streamTrimArgs *a) {
    long long removed = 0;
    while (s->length) {
        if (a->strategy == TRIM_MAXLEN && (long long)s->length <= a->maxlen) break;
        streamNode *n = sidmapFirst(s->index)->value;
        int whole = a->strategy == TRIM_MAXLEN ? (long long)(s->length - n->live) >= a->maxlen
                                               : streamCompareID(&n->last, &a->minid) < 0;
        if (whole) {
            if (a->limit && removed + n->live > a->limit) break;
            removed += n->live;
            s->length -= n->live;
            streamDropNode(s, n);
            continue;
        }
        if (a->approx) break;
        streamEntry e;
        for (unsigned char *p = lpFirst(n->lp); p;) {
            p = streamNodeDecode(n, p, &e);
            if (e.deleted) continue;
            if (a->strategy == TRIM_MAXLEN ? (long long)s->length <= a->maxlen
                                           : streamCompareID(&e.id, &a->minid) >= 0)
                break;
            streamEntryMarkDeleted(&e);
            s->length--;
            removed++;
        }
        if (n->live == 0) {
            streamDropNode(s, n);
            continue;
        }
        break;
    }
    if (removed) streamUpdateFirstID(s);
    return removed;
}

/* Walks live entries in [start, end], forwards or backwards. */
typedef struct streamIter {
    stream *s;
    streamID start, end;
    int rev;
    int loaded;           /* the current node's position is set up */
    sidmapNode *sn;       /* current node, NULL when done */
    unsigned char *next;  /* forward: flags element of the next entry */
    unsigned char **stack; /* backward: entry starts of the current node */
    size_t nstack, capstack;
} streamIter;

static void streamIterInit(streamIter *it, stream *s, streamID start, streamID end, int rev) {
    memset(it, 0, sizeof(*it));
    it->s = s;
    it->start = start;
    it->end = end;
    it->rev = rev;
    if (streamCompareID(&start, &end) > 0) return; /* empty range */
    if (!rev) {
        it->sn = sidmapSeekLE(s->index, start);
        if (it->sn == NULL) it->sn = sidmapFirst(s->index);
    } else {
        it->sn = sidmapSeekLE(s->index, end);
    }
}

/* Fills *e with the next live entry in range. Returns 1, or 0 when done. */
static int streamIterNext(streamIter *it, streamEntry *e) {
    while (it->sn) {
        streamNode *n = it->sn->value;
        if (!it->rev) {
            if (!it->loaded) {
                it->next = lpFirst(n->lp);
                it->loaded = 1;
            }
            while (it->next) {
                it->next = streamNodeDecode(n, it->next, e);
                if (e->deleted || streamCompareID(&e->id, &it->start) < 0) continue;
                if (streamCompareID(&e->id, &it->end) > 0) {
                    it->sn = NULL;
                    return 0;
                }
                return 1;
            }
            it->sn = sidmapNext(it->sn);
        } else {
            if (!it->loaded) {
                it->nstack = 0;
                for (unsigned char *p = lpFirst(n->lp); p;) {
                    if (it->nstack == it->capstack) {
                        it->capstack = it->capstack ? it->capstack * 2 : 64;
                        it->stack = zrealloc(it->stack, sizeof(unsigned char *) * it->capstack);
                    }
                    it->stack[it->nstack++] = p;
                    p = streamNodeDecode(n, p, e);
                }
                it->loaded = 1;
            }
            while (it->nstack) {
                streamNodeDecode(n, it->stack[--it->nstack], e);
                if (e->deleted || streamCompareID(&e->id, &it->end) > 0) continue;
                if (streamCompareID(&e->id, &it->start) < 0) {
                    it->sn = NULL;
                    return 0;
                }
                return 1;
            }
            it->sn = sidmapPrev(it->sn);
        }
        it->loaded = 0;
    }
    return 0;
}

static void streamIterRelease(streamIter *it) {
    zfree(it->stack);
    it->stack = NULL;
}

/* See stream.h. */
int streamForEachEntry(stream *s, int (*fn)(void *ctx, streamID id, unsigned char *lp, unsigned char *fields,
                                            long long nfields),
                       void *ctx) {
    streamIter it;
    streamEntry e;
    streamID min = {0, 0}, max = {UINT64_MAX, UINT64_MAX};
    int ret = 0;
    streamIterInit(&it, s, min, max, 0);
    while (streamIterNext(&it, &e)) {
        if (fn(ctx, e.id, e.node->lp, e.fields, e.nfields) == -1) {
            ret = -1;
            break;
        }
    }
    streamIterRelease(&it);
    return ret;
}

/* The ID of the last live entry, or 0-0 if the stream is empty. */
static streamID streamLastEntryID(stream *s) {
    streamIter it;
    streamEntry e;
    streamID id = STREAM_ID_MIN;
    streamIterInit(&it, s, STREAM_ID_MIN, STREAM_ID_MAX, 1);
    if (streamIterNext(&it, &e)) id = e.id;
    streamIterRelease(&it);
    return id;
}

/* Milliseconds from `since` to `now`, saturated to the mstime_t range: a
 * delivery time restored from a payload may be anywhere in int64. */
static mstime_t streamElapsed(mstime_t now, mstime_t since) {
    mstime_t d;
    if (__builtin_sub_overflow(now, since, &d)) return since < 0 ? LLONG_MAX : LLONG_MIN;
    return d;
}

/* ---------------------------------------------------------------------------
 * Consumer groups and pending entries
 * ------------------------------------------------------------------------- */

static void streamFreeConsumer(streamConsumer *cons) {
    sidmapFree(cons->pel, NULL); /* NACKs are owned by the group PEL */
    sdsfree(cons->name);
    zfree(cons);
}

static void consumerDictDestructor(void *val) { streamFreeConsumer(val); }
static void cgroupDictDestructor(void *val) { streamFreeCG(val); }

/* Group and consumer dicts: keys are the sds names held by the values. */
static dictType cgroupDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .valDestructor = cgroupDictDestructor,
};
static dictType consumerDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .valDestructor = consumerDictDestructor,
};

static void streamFreeCG(streamCG *g) {
    dictRelease(g->consumers);
    sidmapFree(g->pel, zfree);
    sdsfree(g->name);
    zfree(g);
}

static streamCG *streamLookupCG(stream *s, sds name) {
    if (s->cgroups == NULL) return NULL;
    return dictFetchValue(s->cgroups, name);
}

/* See stream.h. */
streamCG *streamCreateCG(stream *s, const char *name, size_t len, streamID last_id, long long entries_read) {
    if (s->cgroups == NULL) s->cgroups = dictCreate(&cgroupDictType);
    sds n = sdsnewlen(name, len);
    if (dictFind(s->cgroups, n)) {
        sdsfree(n);
        return NULL;
    }
    streamCG *g = zmalloc(sizeof(*g));
    g->name = n;
    g->last_id = last_id;
    g->entries_read = entries_read;
    g->pel = sidmapNew();
    g->consumers = dictCreate(&consumerDictType);
    dictAdd(s->cgroups, g->name, g);
    return g;
}

/* See stream.h. */
streamConsumer *streamLookupConsumer(streamCG *g, sds name) {
    return dictFetchValue(g->consumers, name);
}

/* See stream.h. */
streamConsumer *streamCreateConsumer(streamCG *g, sds name) {
    streamConsumer *cons = zmalloc(sizeof(*cons));
    cons->name = sdsdup(name);
    cons->seen_time = commandTimeSnapshot();
    cons->active_time = -1;
    cons->pel = sidmapNew();
    dictAdd(g->consumers, cons->name, cons);
    return cons;
}

static int cgNameCmp(const void *a, const void *b) {
    return sdscmp((*(streamCG *const *)a)->name, (*(streamCG *const *)b)->name);
}
static int consumerNameCmp(const void *a, const void *b) {
    return sdscmp((*(streamConsumer *const *)a)->name, (*(streamConsumer *const *)b)->name);
}

/* The values of a dict as an array sorted with cmp. Caller frees; *n gets
 * the count. */
static void **sortedDictValues(dict *d, int (*cmp)(const void *, const void *), unsigned long *n) {
    *n = d ? dictSize(d) : 0;
    void **arr = zmalloc(sizeof(void *) * (*n ? *n : 1));
    if (*n == 0) return arr;
    unsigned long k = 0;
    dictIterator *di = dictGetIterator(d);
    dictEntry *de;
    while ((de = dictNext(di))) arr[k++] = dictGetVal(de);
    dictReleaseIterator(di);
    qsort(arr, *n, sizeof(void *), cmp);
    return arr;
}

/* See stream.h. */
streamCG **streamGroupsByName(stream *s, unsigned long *n) {
    return (streamCG **)sortedDictValues(s->cgroups, cgNameCmp, n);
}

/* See stream.h. */
streamConsumer **streamConsumersByName(streamCG *g, unsigned long *n) {
    return (streamConsumer **)sortedDictValues(g->consumers, consumerNameCmp, n);
}

/* The consumer `name` of g, created (with its keyspace event) if missing. */
/* ---- Propagation of consumer-group effects (see the top comment) ---- */

static robj *sdsObject(sds s) {
    return createStringObject(s, sdslen(s));
}

/* Queues argv (whose objects this releases, except key) for propagation. */
static void streamPropagateAndRelease(client *c, robj *key, robj **argv, int argc) {
    alsoPropagate(c->db->id, argv, argc);
    for (int j = 0; j < argc; j++)
        if (argv[j] != key) decrRefCount(argv[j]);
}

/* "XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n FORCE JUSTID LASTID
 * group-last-id": makes a replica's pending entry id what nack is here (or
 * drops it there too when the entry no longer exists). */
static void streamPropagateXCLAIM(client *c, robj *key, streamCG *g, const streamID *id, streamNACK *nack) {
    if (!propagationIsActive()) return;
    robj *argv[14] = {
        createStringObject("XCLAIM", 6),
        key,
        sdsObject(g->name),
        sdsObject(nack->consumer->name),
        createStringObject("0", 1),
        createStreamIDObject(id),
        createStringObject("TIME", 4),
        createStringObjectFromLongLong(nack->delivery_time),
        createStringObject("RETRYCOUNT", 10),
        createStringObjectFromLongLong((long long)nack->delivery_count),
        createStringObject("FORCE", 5),
        createStringObject("JUSTID", 6),
        createStringObject("LASTID", 6),
        createStreamIDObject(&g->last_id),
    };
    streamPropagateAndRelease(c, key, argv, 14);
}

/* "XGROUP SETID key group last-id ENTRIESREAD n": the group's position. */
static void streamPropagateGroupPosition(client *c, robj *key, streamCG *g) {
    if (!propagationIsActive()) return;
    robj *argv[7] = {
        createStringObject("XGROUP", 6),           createStringObject("SETID", 5),
        key,                                       sdsObject(g->name),
        createStreamIDObject(&g->last_id),         createStringObject("ENTRIESREAD", 11),
        createStringObjectFromLongLong(g->entries_read),
    };
    streamPropagateAndRelease(c, key, argv, 7);
}

/* The consumer `name` of g, created if missing (XREADGROUP, XCLAIM and
 * XAUTOCLAIM). The XCLAIMs these commands propagate create the consumer
 * elsewhere too; only when there will be none (XREADGROUP NOACK:
 * propagate_creation 1) is the creation propagated, as "XGROUP
 * CREATECONSUMER key group name", as Valkey does. */
static streamConsumer *streamFetchConsumer(client *c, robj *key, streamCG *g, sds name, int propagate_creation) {
    streamConsumer *cons = streamLookupConsumer(g, name);
    if (cons) return cons;
    cons = streamCreateConsumer(g, name);
    notifyKeyspaceEvent(NOTIFY_STREAM, "xgroup-createconsumer", key, c->db->id);
    server.dirty++;
    if (propagate_creation && propagationIsActive()) {
        robj *argv[5] = {createStringObject("XGROUP", 6), createStringObject("CREATECONSUMER", 14), key,
                         sdsObject(g->name), sdsObject(name)};
        streamPropagateAndRelease(c, key, argv, 5);
    }
    return cons;
}

/* Deletes a consumer and its pending entries. Returns how many it had. */
static long long streamDeleteConsumer(streamCG *g, streamConsumer *cons) {
    long long pending = (long long)sidmapLen(cons->pel);
    for (sidmapNode *n = sidmapFirst(cons->pel); n; n = sidmapNext(n)) {
        void *nack = NULL;
        sidmapDelete(g->pel, n->id, &nack);
        zfree(nack);
    }
    dictDelete(g->consumers, cons->name); /* frees cons */
    return pending;
}

/* Gives the NACK of id to consumer `to`, moving it between consumer PELs. */
static void streamNACKAssign(streamNACK *nack, streamID id, streamConsumer *to) {
    if (nack->consumer == to) return;
    if (nack->consumer) sidmapDelete(nack->consumer->pel, id, NULL);
    sidmapInsert(to->pel, id, nack);
    nack->consumer = to;
}

/* Removes id from g's PEL and its consumer's. Returns 1 if it was there. */
static int streamNACKRemove(streamCG *g, streamID id) {
    void *v = NULL;
    if (!sidmapDelete(g->pel, id, &v)) return 0;
    streamNACK *nack = v;
    if (nack->consumer) sidmapDelete(nack->consumer->pel, id, NULL);
    zfree(nack);
    return 1;
}

/* 1 if some entry after `after` may have been deleted, judged by the only
 * record kept, max_deleted_entry_id (deletions before the first live
 * entry do not count). */
static int streamHasTombstonesAfter(stream *s, const streamID *after) {
    if (s->length == 0 || streamIDIsZero(&s->max_deleted_entry_id)) return 0;
    if (streamCompareID(&s->max_deleted_entry_id, &s->first_id) < 0) return 0;
    return after == NULL || streamCompareID(&s->max_deleted_entry_id, after) > 0;
}

/* See stream.h. */
long long streamEntriesReadAt(stream *s, const streamID *id) {
    if (s->entries_added == 0) return 0;
    if (streamCompareID(id, &s->last_id) >= 0) return (long long)s->entries_added;
    if (s->length == 0) return (long long)s->entries_added;
    if (!streamHasTombstonesAfter(s, NULL)) {
        int cmp = streamCompareID(id, &s->first_id);
        if (cmp < 0) return (long long)(s->entries_added - s->length);
        if (cmp == 0) return (long long)(s->entries_added - s->length + 1);
    }
    return STREAM_CG_INVALID_ENTRIES_READ;
}

/* The group's lag (entries added it has not read), or -1 if unknown. */
static long long streamCGLag(stream *s, streamCG *g) {
    if (s->entries_added == 0) return 0;
    long long read = g->entries_read;
    if (read == STREAM_CG_INVALID_ENTRIES_READ || streamHasTombstonesAfter(s, &g->last_id))
        read = streamEntriesReadAt(s, &g->last_id);
    if (read == STREAM_CG_INVALID_ENTRIES_READ) return -1;
    return (long long)s->entries_added - read;
}

/* Moves g's position to id as it delivers that entry with ">". */
static void streamCGAdvance(stream *s, streamCG *g, const streamID *id) {
    if (g->entries_read != STREAM_CG_INVALID_ENTRIES_READ && !streamHasTombstonesAfter(s, &g->last_id))
        g->entries_read++;
    else
        g->entries_read = streamEntriesReadAt(s, id);
    g->last_id = *id;
}

/* ---------------------------------------------------------------------------
 * Object methods: free, free effort, size, dup (COPY), digest
 * ------------------------------------------------------------------------- */

static void streamTypeFree(robj *o) { streamFree(objectGetVal(o)); }

/* Nodes, plus per consumer group its pending entries and consumers. */
static size_t streamTypeFreeEffort(robj *o) {
    stream *s = objectGetVal(o);
    size_t effort = sidmapLen(s->index);
    if (s->cgroups) {
        dictIterator *di = dictGetIterator(s->cgroups);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL) {
            streamCG *cg = dictGetVal(de);
            effort += 1 + sidmapLen(cg->pel) + dictSize(cg->consumers);
        }
        dictReleaseIterator(di);
    }
    return effort;
}

/* Estimated bytes: nodes (sampled when sample_size > 0) plus groups. */
static size_t streamTypeMemory(robj *o, size_t sample_size) {
    stream *s = objectGetVal(o);
    size_t total = sizeof(*s) + sidmapMemory(s->index), bytes = 0, sampled = 0;
    for (sidmapNode *sn = sidmapFirst(s->index); sn && (!sample_size || sampled < sample_size); sn = sidmapNext(sn)) {
        bytes += sizeof(streamNode) + lpBytes(((streamNode *)sn->value)->lp);
        sampled++;
    }
    if (sampled) total += (size_t)((double)bytes / sampled * sidmapLen(s->index));
    if (s->cgroups) {
        total += dictMemUsage(s->cgroups);
        dictIterator *di = dictGetIterator(s->cgroups);
        dictEntry *de;
        while ((de = dictNext(di))) {
            streamCG *g = dictGetVal(de);
            total += sizeof(*g) + sdsAllocSize(g->name) + sidmapMemory(g->pel) +
                     sidmapLen(g->pel) * sizeof(streamNACK) + dictMemUsage(g->consumers);
            dictIterator *ci = dictGetIterator(g->consumers);
            dictEntry *ce;
            while ((ce = dictNext(ci))) {
                streamConsumer *cons = dictGetVal(ce);
                total += sizeof(*cons) + sdsAllocSize(cons->name) + sidmapMemory(cons->pel);
            }
            dictReleaseIterator(ci);
        }
        dictReleaseIterator(di);
    }
    return total;
}

/* Deep copy: nodes, groups, consumers and NACKs (re-linked to the copies). */
static robj *streamTypeDup(robj *o) {
    stream *s = objectGetVal(o), *d = streamNew();
    for (sidmapNode *sn = sidmapFirst(s->index); sn; sn = sidmapNext(sn)) {
        streamNode *n = sn->value, *copy = zmalloc(sizeof(*copy));
        *copy = *n;
        copy->lp = lpDup(n->lp);
        sidmapInsert(d->index, copy->master, copy);
    }
    d->length = s->length;
    d->last_id = s->last_id;
    d->first_id = s->first_id;
    d->max_deleted_entry_id = s->max_deleted_entry_id;
    d->entries_added = s->entries_added;
    if (s->cgroups) {
        dictIterator *di = dictGetIterator(s->cgroups);
        dictEntry *de;
        while ((de = dictNext(di))) {
            streamCG *g = dictGetVal(de);
            streamCG *dg = streamCreateCG(d, g->name, sdslen(g->name), g->last_id, g->entries_read);
            dictIterator *ci = dictGetIterator(g->consumers);
            dictEntry *ce;
            while ((ce = dictNext(ci))) {
                streamConsumer *cons = dictGetVal(ce);
                streamConsumer *dc = streamCreateConsumer(dg, cons->name);
                dc->seen_time = cons->seen_time;
                dc->active_time = cons->active_time;
            }
            dictReleaseIterator(ci);
            for (sidmapNode *pn = sidmapFirst(g->pel); pn; pn = sidmapNext(pn)) {
                streamNACK *nack = pn->value, *dn = zmalloc(sizeof(*dn));
                *dn = *nack;
                dn->consumer = NULL;
                sidmapInsert(dg->pel, pn->id, dn);
                streamNACKAssign(dn, pn->id, streamLookupConsumer(dg, nack->consumer->name));
            }
        }
        dictReleaseIterator(di);
    }
    return createObject(OBJ_STREAM, d);
}

/* DEBUG DIGEST-VALUE: entries in order, the last ID, and each group's
 * name, position and pending IDs (groups XORed, so their order is free). */
static void streamTypeDigest(robj *o, unsigned char *digest) {
    stream *s = objectGetVal(o);
    streamIter it;
    streamEntry e;
    char buf[STREAM_ID_STR_LEN];
    unsigned char ibuf[LP_INTBUF_SIZE];
    streamIterInit(&it, s, STREAM_ID_MIN, STREAM_ID_MAX, 0);
    while (streamIterNext(&it, &e)) {
        int len = streamIDToString(&e.id, buf);
        mixDigest(digest, buf, (size_t)len);
        unsigned char *p = e.fields;
        for (long long i = 0; i < e.nfields * 2; i++) {
            int64_t l;
            unsigned char *v = lpGet(p, &l, ibuf);
            mixDigest(digest, v, (size_t)l);
            p = lpNext(e.node->lp, p);
        }
    }
    streamIterRelease(&it);
    int len = streamIDToString(&s->last_id, buf);
    mixDigest(digest, buf, (size_t)len);
    if (s->cgroups == NULL) return;
    dictIterator *di = dictGetIterator(s->cgroups);
    dictEntry *de;
    while ((de = dictNext(di))) {
        streamCG *g = dictGetVal(de);
        unsigned char gd[20] = {0};
        mixDigest(gd, g->name, sdslen(g->name));
        len = streamIDToString(&g->last_id, buf);
        mixDigest(gd, buf, (size_t)len);
        for (sidmapNode *pn = sidmapFirst(g->pel); pn; pn = sidmapNext(pn)) {
            len = streamIDToString(&pn->id, buf);
            mixDigest(gd, buf, (size_t)len);
        }
        xorDigest(digest, gd, sizeof(gd));
    }
    dictReleaseIterator(di);
}

/* Registers the stream type's methods. Called once by initServer(). */
void streamTypeInit(void) {
    objectMethods[OBJ_STREAM].free = streamTypeFree;
    objectMethods[OBJ_STREAM].size = streamTypeMemory;
    objectMethods[OBJ_STREAM].dup = streamTypeDup;
    objectMethods[OBJ_STREAM].digest = streamTypeDigest;
    objectMethods[OBJ_STREAM].free_effort = streamTypeFreeEffort;
}

/* See stream.h. */
robj *createStreamObject(void) {
    robj *o = createObject(OBJ_STREAM, streamNew());
    o->encoding = OBJ_ENCODING_STREAM;
    return o;
}

/* ---------------------------------------------------------------------------
 * Replies shared by several commands
 * ------------------------------------------------------------------------- */

/* Replies the live entries of [start, end] (at most count, 0 = all) as an
 * array. With a group, this is a ">" delivery: the group advances past
 * each entry and, unless noack, the entry becomes pending for consumer.
 * Returns the number of entries replied. */
static long long streamReplyRange(client *c, stream *s, streamID start, streamID end, long long count, int rev,
                                  robj *key, streamCG *g, streamConsumer *consumer, int noack) {
    void *lenp = addReplyDeferredLen(c);
    long long emitted = 0;
    mstime_t now = commandTimeSnapshot();
    streamIter it;
    streamEntry e;
    streamIterInit(&it, s, start, end, rev);
    while ((!count || emitted < count) && streamIterNext(&it, &e)) {
        if (g) {
            streamCGAdvance(s, g, &e.id);
            if (!noack) {
                sidmapNode *pn = sidmapFind(g->pel, e.id);
                streamNACK *nack;
                if (pn) {
                    nack = pn->value;
                } else {
                    nack = zcalloc(sizeof(*nack));
                    sidmapInsert(g->pel, e.id, nack);
                }
                nack->delivery_time = now;
                nack->delivery_count = 1;
                streamNACKAssign(nack, e.id, consumer);
                streamPropagateXCLAIM(c, key, g, &e.id, nack);
            }
        }
        addReplyStreamEntry(c, &e);
        emitted++;
    }
    streamIterRelease(&it);
    setDeferredArrayLen(c, lenp, emitted);
    return emitted;
}

/* XREADGROUP with an explicit ID: the consumer's pending entries after
 * `after`, at most count (0 = all). Entries deleted since delivery come
 * back as [id, nil]. Each one served counts as a new delivery. */
static void streamReplyConsumerHistory(client *c, stream *s, robj *key, streamCG *g, streamConsumer *cons,
                                       streamID after, long long count) {
    void *lenp = addReplyDeferredLen(c);
    long long emitted = 0;
    mstime_t now = commandTimeSnapshot();
    if (streamIncrID(&after) == 0) {
        for (sidmapNode *pn = sidmapSeekGE(cons->pel, after); pn && (!count || emitted < count);
             pn = sidmapNext(pn)) {
            streamEntry e;
            streamNACK *nack = pn->value;
            nack->delivery_time = now;
            nack->delivery_count++;
            if (streamLookupEntry(s, pn->id, &e)) {
                addReplyStreamEntry(c, &e);
                /* (An XCLAIM of a deleted entry would drop it elsewhere.) */
                streamPropagateXCLAIM(c, key, g, &pn->id, nack);
            } else {
                addReplyArrayLen(c, 2);
                addReplyStreamID(c, &pn->id);
                addReplyNullArray(c);
            }
            emitted++;
        }
    }
    setDeferredArrayLen(c, lenp, emitted);
}

/* Looks up the stream at key for writing; creates it unless no_create.
 * Replies and returns NULL on wrong type, or (no_create) when missing. */
static robj *streamLookupCreateOrReply(client *c, robj *key, int no_create) {
    robj *o = lookupKeyWrite(c->db, key);
    if (o) {
        if (checkType(c, o, OBJ_STREAM)) return NULL;
        return o;
    }
    if (no_create) {
        addReplyNull(c);
        return NULL;
    }
    o = createStreamObject();
    dbAdd(c->db, key, &o);
    return o;
}

/* ---------------------------------------------------------------------------
 * XADD, XTRIM
 * ------------------------------------------------------------------------- */

/* 1 if c replays commands a primary already executed: our primary's
 * client, or the client that loads the AOF (no connection, while
 * loading). Their trims were rewritten to exact ones. */
static int streamClientReplays(client *c) {
    return (c->flags & CLIENT_PRIMARY) || (server.loading && c->conn == NULL && !(c->flags & CLIENT_SCRIPT));
}

/* Parses the [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT n]] options
 * of XADD (xadd=1, stopping at the ID, whose position goes to *id_pos) or
 * XTRIM (all remaining arguments). Replies and returns C_ERR on error. */
static int streamParseAddOrTrimArgsOrReply(client *c, streamTrimArgs *a, int xadd, int *nomkstream, int *id_pos) {
    memset(a, 0, sizeof(*a));
    int i = 2;
    for (; i < c->argc; i++) {
        int more = c->argc - i - 1;
        const char *opt = objectGetVal(c->argv[i]);
        if (xadd && !strcasecmp(opt, "nomkstream")) {
            *nomkstream = 1;
        } else if ((!strcasecmp(opt, "maxlen") || !strcasecmp(opt, "minid")) && more >= 1) {
            int strategy = !strcasecmp(opt, "maxlen") ? TRIM_MAXLEN : TRIM_MINID;
            if (a->strategy != TRIM_NONE && a->strategy != strategy) {
                addReplyError(c, "syntax error, MAXLEN and MINID options at the same time are not compatible");
                return C_ERR;
            }
            a->strategy = strategy;
            const char *next = objectGetVal(c->argv[i + 1]);
            if (more >= 2 && (!strcmp(next, "~") || !strcmp(next, "="))) {
                a->approx = next[0] == '~';
                a->approx_idx = i + 1;
                i++;
            }
            i++;
            a->threshold_idx = i;
            if (strategy == TRIM_MAXLEN) {
                if (getLongLongFromObjectOrReply(c, c->argv[i], &a->maxlen, NULL) != C_OK) return C_ERR;
                if (a->maxlen < 0) {
                    addReplyError(c, "The MAXLEN argument must be >= 0.");
                    return C_ERR;
                }
            } else {
                if (streamParseStrictIDOrReply(c, c->argv[i], &a->minid, 0) != C_OK) return C_ERR;
            }
        } else if (!strcasecmp(opt, "limit") && more >= 1) {
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &a->limit, NULL) != C_OK) return C_ERR;
            if (a->limit < 0) {
                addReplyError(c, "The LIMIT argument must be >= 0.");
                return C_ERR;
            }
            a->limit_given = 1;
            i++;
        } else if (xadd) {
            break; /* the ID */
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    if (streamClientReplays(c)) {
        /* The primary, and our own AOF, send "=" and the threshold the trim
         * reached (see streamRewriteTrim()), with LIMIT left in: it must
         * not apply, and "=" with LIMIT is no error there. */
        a->limit = 0;
    } else if (a->limit_given) {
        if (!a->approx) {
            addReplyError(c, "syntax error, LIMIT cannot be used without the special ~ option");
            return C_ERR;
        }
    } else if (a->approx) {
        a->limit = server.stream_node_max_entries ? 100LL * server.stream_node_max_entries : 10000;
    }
    if (!xadd && a->strategy == TRIM_NONE) {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    if (id_pos) *id_pos = i;
    return C_OK;
}

/* The ID XADD adds: from the clock ("*"), from "<ms>-*", or as given.
 * Returns C_OK, or C_ERR (with *err set) when it would not be larger than
 * the last ID or the ID space is used up. */
static int streamNextID(stream *s, const streamID *given, int auto_all, int auto_seq, streamID *out,
                        const char **err) {
    static const char *smaller = "The ID specified in XADD is equal or smaller than the target stream top item";
    streamID last = s->last_id;
    if (auto_all) {
        uint64_t ms = (uint64_t)commandTimeSnapshot();
        if (ms > last.ms) {
            out->ms = ms;
            out->seq = 0;
            return C_OK;
        }
        *out = last;
        if (streamIncrID(out) != 0) {
            *err = "The stream has exhausted the last possible ID, unable to add more items";
            return C_ERR;
        }
        return C_OK;
    }
    *out = *given;
    if (auto_seq) {
        if (given->ms == last.ms) {
            if (last.seq == UINT64_MAX) {
                *err = smaller;
                return C_ERR;
            }
            out->seq = last.seq + 1;
        } else {
            out->seq = 0;
        }
    }
    if (streamCompareID(out, &last) <= 0) {
        *err = smaller;
        return C_ERR;
    }
    return C_OK;
}

/* After an approximate trim ("~"), rewrites it for propagation as an exact
 * one ("=") to the length or first ID the trim reached here. LIMIT stays
 * (as in Valkey's stream; a replica or the AOF loader ignores it). A MINID
 * trim that emptied the stream is sent with the largest ID,
 * 18446744073709551615-18446744073709551615, as Valkey does: it empties
 * the stream anywhere. */
static void streamRewriteTrim(client *c, stream *s, const streamTrimArgs *a) {
    if (!a->approx) return;
    robj *eq = createStringObject("=", 1);
    rewriteClientCommandArgument(c, a->approx_idx, eq);
    decrRefCount(eq);
    robj *threshold;
    if (a->strategy == TRIM_MAXLEN) {
        threshold = createStringObjectFromLongLong((long long)s->length);
    } else {
        streamID first = {UINT64_MAX, UINT64_MAX};
        if (s->length) first = s->first_id;
        threshold = createStreamIDObject(&first);
    }
    rewriteClientCommandArgument(c, a->threshold_idx, threshold);
    decrRefCount(threshold);
}

/* XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]]
 *      *|id field value [field value ...] */
static void xaddCommand(client *c) {
    streamTrimArgs a;
    int nomkstream = 0, id_pos;
    if (streamParseAddOrTrimArgsOrReply(c, &a, 1, &nomkstream, &id_pos) != C_OK) return;
    int field_pos = id_pos + 1;
    if (field_pos >= c->argc || (c->argc - field_pos) % 2 != 0) {
        addReplyErrorArity(c);
        return;
    }
    streamID given = {0, 0};
    int auto_all = 0, auto_seq = 0;
    robj *idarg = c->argv[id_pos];
    if (sdsEncodedObject(idarg) && !strcmp(objectGetVal(idarg), "*")) {
        auto_all = 1;
    } else {
        if (streamParseIDOrReply(c, idarg, &given, 0, 1, &auto_seq) != C_OK) return;
        if (!auto_seq && streamIDIsZero(&given)) {
            addReplyError(c, "The ID specified in XADD must be greater than 0-0");
            return;
        }
    }
    robj *o = streamLookupCreateOrReply(c, c->argv[1], nomkstream);
    if (o == NULL) return;
    stream *s = objectGetVal(o);
    streamID id;
    const char *err = NULL;
    if (streamNextID(s, &given, auto_all, auto_seq, &id, &err) != C_OK) {
        addReplyError(c, err);
        return;
    }
    streamAppend(s, id, c->argv + field_pos, (c->argc - field_pos) / 2);
    addReplyStreamID(c, &id);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STREAM, "xadd", c->argv[1], c->db->id);
    server.dirty++;
    if (a.strategy != TRIM_NONE && streamTrim(s, &a) > 0)
        notifyKeyspaceEvent(NOTIFY_STREAM, "xtrim", c->argv[1], c->db->id);
    signalKeyAsReady(c->db, c->argv[1], OBJ_STREAM);
    /* Propagated with the ID chosen here and the trim's actual result. */
    if (auto_all || auto_seq) {
        robj *idobj = createStreamIDObject(&id);
        rewriteClientCommandArgument(c, id_pos, idobj);
        decrRefCount(idobj);
    }
    if (a.strategy != TRIM_NONE) streamRewriteTrim(c, s, &a);
}

/* XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count] */
static void xtrimCommand(client *c) {
    /* The arguments are checked first, even for a missing key (as Valkey). */
    streamTrimArgs a;
    if (streamParseAddOrTrimArgsOrReply(c, &a, 0, NULL, NULL) != C_OK) return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) return;
    long long removed = streamTrim(objectGetVal(o), &a);
    if (removed) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_STREAM, "xtrim", c->argv[1], c->db->id);
        server.dirty += removed;
    }
    addReplyLongLong(c, removed);
    streamRewriteTrim(c, objectGetVal(o), &a);
}

/* ---------------------------------------------------------------------------
 * XLEN, XRANGE, XREVRANGE, XDEL
 * ------------------------------------------------------------------------- */

static void xlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) return;
    addReplyLongLong(c, (long long)((stream *)objectGetVal(o))->length);
}

/* XRANGE key start end [COUNT n] / XREVRANGE key end start [COUNT n] */
static void xrangeGenericCommand(client *c, int rev) {
    robj *startarg = rev ? c->argv[3] : c->argv[2], *endarg = rev ? c->argv[2] : c->argv[3];
    streamID start, end;
    if (streamParseRangeOrReply(c, startarg, endarg, &start, &end) != C_OK) return;
    long long count = -1;
    for (int j = 4; j < c->argc; j++) {
        if (!strcasecmp(objectGetVal(c->argv[j]), "count") && j + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &count, NULL) != C_OK) return;
            if (count < 0) count = 0;
            j++;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) return;
    if (count == 0) {
        addReplyNullArray(c);
        return;
    }
    streamReplyRange(c, objectGetVal(o), start, end, count == -1 ? 0 : count, rev, NULL, NULL, NULL, 0);
}

static void xrangeCommand(client *c) { xrangeGenericCommand(c, 0); }
static void xrevrangeCommand(client *c) { xrangeGenericCommand(c, 1); }

/* XDEL key id [id ...] */
static void xdelCommand(client *c) {
    int n = c->argc - 2;
    streamID *ids = zmalloc(sizeof(streamID) * (size_t)n);
    for (int j = 0; j < n; j++) {
        if (streamParseStrictIDOrReply(c, c->argv[j + 2], &ids[j], 0) != C_OK) {
            zfree(ids);
            return;
        }
    }
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) {
        zfree(ids);
        return;
    }
    stream *s = objectGetVal(o);
    long long deleted = 0;
    for (int j = 0; j < n; j++) {
        if (!streamDeleteID(s, ids[j])) continue;
        deleted++;
        if (streamCompareID(&ids[j], &s->max_deleted_entry_id) > 0) s->max_deleted_entry_id = ids[j];
    }
    zfree(ids);
    if (deleted) {
        streamUpdateFirstID(s);
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_STREAM, "xdel", c->argv[1], c->db->id);
        server.dirty += deleted;
    }
    addReplyLongLong(c, deleted);
}

/* ---------------------------------------------------------------------------
 * XREAD, XREADGROUP
 * ------------------------------------------------------------------------- */

/* XREAD [COUNT n] [BLOCK ms] STREAMS key [key ...] id [id ...]
 * XREADGROUP GROUP g c [COUNT n] [BLOCK ms] [NOACK] STREAMS key ... id ... */
static void xreadGenericCommand(client *c, int xreadgroup) {
    if (xreadgroup) preventCommandPropagation(c); /* its effects are propagated */
    long long count = 0;
    mstime_t timeout = -1;
    int streams_pos = 0, noack = 0;
    robj *groupname = NULL, *consumername = NULL;
    for (int i = 1; i < c->argc; i++) {
        int more = c->argc - i - 1;
        const char *opt = objectGetVal(c->argv[i]);
        if (!strcasecmp(opt, "block") && more >= 1) {
            if (getTimeoutFromObjectOrReply(c, c->argv[i + 1], &timeout, UNIT_MILLISECONDS) != C_OK) return;
            i++;
        } else if (!strcasecmp(opt, "count") && more >= 1) {
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &count, NULL) != C_OK) return;
            if (count < 0) count = 0;
            i++;
        } else if (!strcasecmp(opt, "streams") && more >= 1) {
            streams_pos = i + 1;
            break;
        } else if (!strcasecmp(opt, "group") && more >= 2) {
            if (!xreadgroup) {
                addReplyError(c, "The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
                return;
            }
            groupname = c->argv[i + 1];
            consumername = c->argv[i + 2];
            i += 2;
        } else if (!strcasecmp(opt, "noack")) {
            if (!xreadgroup) {
                addReplyError(c, "The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
                return;
            }
            noack = 1;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (streams_pos == 0) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    int nstreams = c->argc - streams_pos;
    if (nstreams % 2 != 0) {
        addReplyErrorFormat(c, "Unbalanced '%s' list of streams: for each stream key an ID or '%c' must be specified.",
                            c->cmd->fullname, xreadgroup ? '>' : '$');
        return;
    }
    nstreams /= 2;
    if (xreadgroup && groupname == NULL) {
        addReplyError(c, "Missing GROUP option for XREADGROUP");
        return;
    }

    /* Resolve every key's start position before replying anything. */
    streamID *ids = zmalloc(sizeof(streamID) * (size_t)nstreams);
    int *newonly = zcalloc(sizeof(int) * (size_t)nstreams); /* ">" */
    streamCG **groups = zcalloc(sizeof(streamCG *) * (size_t)nstreams);
    for (int j = 0; j < nstreams; j++) {
        robj *key = c->argv[streams_pos + j], *idarg = c->argv[streams_pos + nstreams + j];
        robj *o = lookupKeyRead(c->db, key);
        if (o && checkType(c, o, OBJ_STREAM)) goto cleanup;
        stream *s = o ? objectGetVal(o) : NULL;
        if (xreadgroup) {
            groups[j] = s ? streamLookupCG(s, objectGetVal(groupname)) : NULL;
            if (groups[j] == NULL) {
                addReplyErrorFormat(c,
                                    "-NOGROUP No such key '%s' or consumer group '%s' in XREADGROUP with GROUP "
                                    "option",
                                    (char *)objectGetVal(key), (char *)objectGetVal(groupname));
                goto cleanup;
            }
        }
        const char *idtext = sdsEncodedObject(idarg) ? objectGetVal(idarg) : "";
        if (!strcmp(idtext, "$")) {
            if (xreadgroup) {
                addReplyError(c, "The $ ID is meaningless in the context of XREADGROUP: you want to read the "
                                 "history of this consumer by specifying a proper ID, or use the > ID to get new "
                                 "messages. The $ ID would just return an empty result set.");
                goto cleanup;
            }
            ids[j] = s ? s->last_id : STREAM_ID_MIN;
        } else if (!strcmp(idtext, "+")) {
            /* The last entry: read from just before the last ID. */
            if (xreadgroup) {
                addReplyError(c, "The + ID is meaningless in the context of XREADGROUP: you want to read the "
                                 "history of this consumer by specifying a proper ID, or use the > ID to get new "
                                 "messages. The + ID would just return an empty result set.");
                goto cleanup;
            }
            ids[j] = s ? s->last_id : STREAM_ID_MIN;
            if (s && streamDecrID(&ids[j]) != 0) {
                addReplyError(c, "the stream last element ID is 0-0");
                goto cleanup;
            }
        } else if (!strcmp(idtext, ">")) {
            if (!xreadgroup) {
                addReplyError(c, "The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
                                 "<consumer> option.");
                goto cleanup;
            }
            newonly[j] = 1;
            ids[j] = groups[j]->last_id;
        } else if (streamParseStrictIDOrReply(c, idarg, &ids[j], 0) != C_OK) {
            goto cleanup;
        }
    }

    /* Serve every key that has something. */
    void *lenp = NULL;
    long served = 0;
    for (int j = 0; j < nstreams; j++) {
        robj *key = c->argv[streams_pos + j];
        robj *o = lookupKeyRead(c->db, key);
        stream *s = o ? objectGetVal(o) : NULL;
        streamConsumer *cons = NULL;
        if (xreadgroup) {
            cons = streamFetchConsumer(c, key, groups[j], objectGetVal(consumername), noack);
            cons->seen_time = commandTimeSnapshot();
        }
        int history = xreadgroup && !newonly[j];
        /* Served only if an entry is left after the ID: compared with the
         * last live entry, not last_id, so that a reader past every entry
         * left (the later ones deleted) gets no empty array. */
        if (!history) {
            if (s == NULL || s->length == 0) continue;
            streamID top = streamLastEntryID(s);
            if (streamCompareID(&top, &ids[j]) <= 0) continue;
        }
        streamID start = ids[j];
        if (!history && streamIncrID(&start) != 0) continue;
        if (lenp == NULL) lenp = addReplyDeferredLen(c);
        served++;
        if (c->resp == 2) addReplyArrayLen(c, 2); /* RESP3: a map of key -> entries */
        addReplyBulk(c, key);
        if (history) {
            streamReplyConsumerHistory(c, s, key, groups[j], cons, ids[j], count);
        } else {
            long long n = streamReplyRange(c, s, start, STREAM_ID_MAX, count, 0, key, groups[j], cons, noack);
            if (xreadgroup && n) {
                cons->active_time = commandTimeSnapshot();
                server.dirty++;
                streamPropagateGroupPosition(c, key, groups[j]);
            }
        }
    }
    if (served) {
        if (c->resp == 2) setDeferredArrayLen(c, lenp, served);
        else setDeferredMapLen(c, lenp, served);
        goto cleanup;
    }

    /* Nothing to serve: block, or reply null. */
    if (timeout != -1 && !blockingDenied(c)) {
        /* Pin "$" to the position seen now, for when the command reruns. */
        for (int j = 0; j < nstreams && !xreadgroup; j++) {
            robj *idarg = c->argv[streams_pos + nstreams + j];
            if (sdsEncodedObject(idarg) && !strcmp(objectGetVal(idarg), "$")) {
                robj *pinned = createStreamIDObject(&ids[j]);
                rewriteClientCommandArgument(c, streams_pos + nstreams + j, pinned);
                decrRefCount(pinned);
            }
        }
        if (xreadgroup) blockForKeysWakeOnDelete(c, BLOCKED_STREAM, c->argv + streams_pos, nstreams, timeout);
        else blockForKeys(c, BLOCKED_STREAM, c->argv + streams_pos, nstreams, timeout);
    } else {
        addReplyNullArray(c);
    }

cleanup:
    zfree(ids);
    zfree(newonly);
    zfree(groups);
}

static void xreadCommand(client *c) { xreadGenericCommand(c, 0); }
static void xreadgroupCommand(client *c) { xreadGenericCommand(c, 1); }

/* ---------------------------------------------------------------------------
 * XGROUP
 * ------------------------------------------------------------------------- */

/* The stream at argv[2] for an XGROUP subcommand, replying the Valkey
 * error when it is missing. */
static stream *xgroupLookupStreamOrReply(client *c, int create) {
    robj *o = lookupKeyWrite(c->db, c->argv[2]);
    if (o) {
        if (checkType(c, o, OBJ_STREAM)) return NULL;
        return objectGetVal(o);
    }
    if (create) {
        o = createStreamObject();
        dbAdd(c->db, c->argv[2], &o);
        return objectGetVal(o);
    }
    addReplyError(c, "The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use "
                     "the MKSTREAM option to create an empty stream automatically.");
    return NULL;
}

static streamCG *xgroupLookupCGOrReply(client *c, stream *s) {
    streamCG *g = streamLookupCG(s, objectGetVal(c->argv[3]));
    if (g == NULL)
        addReplyErrorFormat(c, "-NOGROUP No such consumer group '%s' for key name '%s'", (char *)objectGetVal(c->argv[3]),
                            (char *)objectGetVal(c->argv[2]));
    return g;
}

/* Parses the ID (or "$") and [MKSTREAM] [ENTRIESREAD n] of CREATE/SETID. */
static int xgroupParsePositionOrReply(client *c, int create, int *mkstream, int *dollar, streamID *id,
                                      long long *entries_read) {
    *mkstream = 0;
    *entries_read = STREAM_CG_INVALID_ENTRIES_READ;
    for (int i = 5; i < c->argc; i++) {
        if (create && !strcasecmp(objectGetVal(c->argv[i]), "mkstream")) {
            *mkstream = 1;
        } else if (!strcasecmp(objectGetVal(c->argv[i]), "entriesread") && i + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], entries_read, NULL) != C_OK) return C_ERR;
            if (*entries_read < 0 && *entries_read != STREAM_CG_INVALID_ENTRIES_READ) {
                addReplyError(c, "value for ENTRIESREAD must be positive or -1");
                return C_ERR;
            }
            i++;
        } else {
            addReplySubcommandSyntaxError(c);
            return C_ERR;
        }
    }
    robj *idarg = c->argv[4];
    *dollar = sdsEncodedObject(idarg) && !strcmp(objectGetVal(idarg), "$");
    if (!*dollar && streamParseStrictIDOrReply(c, idarg, id, 0) != C_OK) return C_ERR;
    return C_OK;
}

/* XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n] */
static void xgroupCreateCommand(client *c) {
    int mkstream, dollar;
    streamID id = {0, 0};
    long long entries_read;
    if (xgroupParsePositionOrReply(c, 1, &mkstream, &dollar, &id, &entries_read) != C_OK) return;
    stream *s = xgroupLookupStreamOrReply(c, mkstream);
    if (s == NULL) return;
    if (dollar) {
        id = s->last_id;
        if (entries_read == STREAM_CG_INVALID_ENTRIES_READ) entries_read = (long long)s->entries_added;
    }
    if (streamCreateCG(s, objectGetVal(c->argv[3]), sdslen(objectGetVal(c->argv[3])), id, entries_read) == NULL) {
        addReplyError(c, "-BUSYGROUP Consumer Group name already exists");
        return;
    }
    addReply(c, shared.ok);
    server.dirty++;
    notifyKeyspaceEvent(NOTIFY_STREAM, "xgroup-create", c->argv[2], c->db->id);
}

/* XGROUP SETID key group id|$ [ENTRIESREAD n] */
static void xgroupSetidCommand(client *c) {
    int mkstream, dollar;
    streamID id = {0, 0};
    long long entries_read;
    if (xgroupParsePositionOrReply(c, 0, &mkstream, &dollar, &id, &entries_read) != C_OK) return;
    stream *s = xgroupLookupStreamOrReply(c, 0);
    if (s == NULL) return;
    streamCG *g = xgroupLookupCGOrReply(c, s);
    if (g == NULL) return;
    if (dollar) {
        id = s->last_id;
        if (entries_read == STREAM_CG_INVALID_ENTRIES_READ) entries_read = (long long)s->entries_added;
    }
    g->last_id = id;
    g->entries_read = entries_read;
    addReply(c, shared.ok);
    server.dirty++;
    notifyKeyspaceEvent(NOTIFY_STREAM, "xgroup-setid", c->argv[2], c->db->id);
}

/* XGROUP DESTROY key group: clients blocked in XREADGROUP on the key are
 * woken so they get the NOGROUP error. */
static void xgroupDestroyCommand(client *c) {
    stream *s = xgroupLookupStreamOrReply(c, 0);
    if (s == NULL) return;
    if (streamLookupCG(s, objectGetVal(c->argv[3])) == NULL) {
        addReply(c, shared.czero);
        return;
    }
    dictDelete(s->cgroups, objectGetVal(c->argv[3]));
    addReply(c, shared.cone);
    server.dirty++;
    notifyKeyspaceEvent(NOTIFY_STREAM, "xgroup-destroy", c->argv[2], c->db->id);
    signalKeyAsReady(c->db, c->argv[2], OBJ_STREAM);
}

/* XGROUP CREATECONSUMER key group consumer */
static void xgroupCreateconsumerCommand(client *c) {
    stream *s = xgroupLookupStreamOrReply(c, 0);
    if (s == NULL) return;
    streamCG *g = xgroupLookupCGOrReply(c, s);
    if (g == NULL) return;
    if (streamLookupConsumer(g, objectGetVal(c->argv[4]))) {
        addReply(c, shared.czero);
        return;
    }
    streamCreateConsumer(g, objectGetVal(c->argv[4]));
    addReply(c, shared.cone);
    server.dirty++;
    notifyKeyspaceEvent(NOTIFY_STREAM, "xgroup-createconsumer", c->argv[2], c->db->id);
}

/* XGROUP DELCONSUMER key group consumer: replies its pending count. */
static void xgroupDelconsumerCommand(client *c) {
    stream *s = xgroupLookupStreamOrReply(c, 0);
    if (s == NULL) return;
    streamCG *g = xgroupLookupCGOrReply(c, s);
    if (g == NULL) return;
    streamConsumer *cons = streamLookupConsumer(g, objectGetVal(c->argv[4]));
    if (cons == NULL) {
        addReply(c, shared.czero);
        return;
    }
    addReplyLongLong(c, streamDeleteConsumer(g, cons));
    server.dirty++;
    notifyKeyspaceEvent(NOTIFY_STREAM, "xgroup-delconsumer", c->argv[2], c->db->id);
}

static void xgroupHelpCommand(client *c) {
    const char *help[] = {
        "CREATE <key> <groupname> <id|$> [option]",
        "    Create a new consumer group. Options are:",
        "    * MKSTREAM",
        "      Create the empty stream if it does not exist.",
        "    * ENTRIESREAD entries_read",
        "      Set the group's entries_read counter (internal use).",
        "CREATECONSUMER <key> <groupname> <consumer>",
        "    Create a new consumer in the specified group.",
        "DELCONSUMER <key> <groupname> <consumer>",
        "    Remove the specified consumer.",
        "DESTROY <key> <groupname>",
        "    Remove the specified group.",
        "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
        "    Set the current group ID and entries_read counter.",
        NULL,
    };
    addReplyHelp(c, help);
}

static void xgroupCommand(client *c) { addReplySubcommandSyntaxError(c); }

/* ---------------------------------------------------------------------------
 * XSETID
 * ------------------------------------------------------------------------- */

/* XSETID key last-id [ENTRIESADDED n] [MAXDELETEDID id] */
static void xsetidCommand(client *c) {
    streamID id, max_deleted = {0, 0};
    long long entries_added = -1;
    int has_max_deleted = 0;
    if (streamParseStrictIDOrReply(c, c->argv[2], &id, 0) != C_OK) return;
    for (int i = 3; i < c->argc; i++) {
        if (!strcasecmp(objectGetVal(c->argv[i]), "entriesadded") && i + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &entries_added, NULL) != C_OK) return;
            if (entries_added < 0) {
                addReplyError(c, "entries_added must be positive");
                return;
            }
            i++;
        } else if (!strcasecmp(objectGetVal(c->argv[i]), "maxdeletedid") && i + 1 < c->argc) {
            if (streamParseStrictIDOrReply(c, c->argv[i + 1], &max_deleted, 0) != C_OK) return;
            if (streamCompareID(&id, &max_deleted) < 0) {
                addReplyError(c, "The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
                return;
            }
            has_max_deleted = 1;
            i++;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.nokeyerr);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) return;
    stream *s = objectGetVal(o);
    if (streamCompareID(&id, &s->max_deleted_entry_id) < 0) {
        addReplyError(c, "The ID specified in XSETID is smaller than current max_deleted_entry_id");
        return;
    }
    if (s->length > 0) {
        streamID top = streamLastEntryID(s);
        if (streamCompareID(&id, &top) < 0) {
            addReplyError(c, "The ID specified in XSETID is smaller than the target stream top item");
            return;
        }
        if (entries_added != -1 && (long long)s->length > entries_added) {
            addReplyError(c, "The entries_added specified in XSETID is smaller than the target stream length");
            return;
        }
    }
    s->last_id = id;
    if (entries_added != -1) s->entries_added = (uint64_t)entries_added;
    /* MAXDELETEDID 0-0 leaves the recorded one as it is. */
    if (has_max_deleted && streamCompareID(&max_deleted, &STREAM_ID_MIN) != 0) s->max_deleted_entry_id = max_deleted;
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STREAM, "xsetid", c->argv[1], c->db->id);
    server.dirty++;
    addReply(c, shared.ok);
}

/* ---------------------------------------------------------------------------
 * XACK, XPENDING
 * ------------------------------------------------------------------------- */

/* XACK key group id [id ...] */
static void xackCommand(client *c) {
    int n = c->argc - 3;
    streamID *ids = zmalloc(sizeof(streamID) * (size_t)n);
    for (int j = 0; j < n; j++) {
        if (streamParseStrictIDOrReply(c, c->argv[j + 3], &ids[j], 0) != C_OK) {
            zfree(ids);
            return;
        }
    }
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (o && checkType(c, o, OBJ_STREAM)) {
        zfree(ids);
        return;
    }
    streamCG *g = o ? streamLookupCG(objectGetVal(o), objectGetVal(c->argv[2])) : NULL;
    long long acked = 0;
    for (int j = 0; g && j < n; j++) acked += streamNACKRemove(g, ids[j]);
    zfree(ids);
    if (acked) server.dirty++;
    addReplyLongLong(c, acked);
}

/* The stream at argv[1] and its group argv[2], or NULL after replying the
 * XPENDING/XCLAIM/XAUTOCLAIM style NOGROUP error. */
static void replyNoGroup(client *c) {
    addReplyErrorFormat(c, "-NOGROUP No such key '%s' or consumer group '%s'", (char *)objectGetVal(c->argv[1]),
                        (char *)objectGetVal(c->argv[2]));
}

static streamCG *streamLookupKeyCGOrReply(client *c, int write, stream **sp) {
    robj *o = write ? lookupKeyWrite(c->db, c->argv[1]) : lookupKeyRead(c->db, c->argv[1]);
    if (o && checkType(c, o, OBJ_STREAM)) return NULL;
    streamCG *g = o ? streamLookupCG(objectGetVal(o), objectGetVal(c->argv[2])) : NULL;
    if (g == NULL) {
        replyNoGroup(c);
        return NULL;
    }
    *sp = objectGetVal(o);
    return g;
}

/* XPENDING key group [[IDLE min-idle] start end count [consumer]] */
static void xpendingCommand(client *c) {
    int extended = c->argc >= 6, i = 3;
    long long min_idle = -1, count = 0;
    streamID start = {0, 0}, end = {0, 0};
    robj *consname = NULL;
    if (c->argc != 3 && !extended) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (extended) {
        if (!strcasecmp(objectGetVal(c->argv[i]), "idle")) {
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &min_idle, NULL) != C_OK) return;
            if (c->argc < 8) {
                addReplyErrorObject(c, shared.syntaxerr);
                return;
            }
            i += 2;
        }
        if (c->argc - i > 4) {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
        if (streamParseRangeOrReply(c, c->argv[i], c->argv[i + 1], &start, &end) != C_OK) return;
        if (getLongLongFromObjectOrReply(c, c->argv[i + 2], &count, NULL) != C_OK) return;
        if (count < 0) count = 0;
        if (c->argc - i == 4) consname = c->argv[i + 3];
    }
    stream *s;
    streamCG *g = streamLookupKeyCGOrReply(c, 0, &s);
    if (g == NULL) return;

    if (!extended) {
        if (sidmapLen(g->pel) == 0) {
            addReplyArrayLen(c, 4);
            addReplyLongLong(c, 0);
            addReplyNull(c);
            addReplyNull(c);
            addReplyNullArray(c);
            return;
        }
        addReplyArrayLen(c, 4);
        addReplyLongLong(c, (long long)sidmapLen(g->pel));
        addReplyStreamID(c, &sidmapFirst(g->pel)->id);
        addReplyStreamID(c, &sidmapLast(g->pel)->id);
        /* Consumers with pending entries, by name. */
        unsigned long n = dictSize(g->consumers), k = 0;
        streamConsumer **list = zmalloc(sizeof(*list) * (n ? n : 1));
        dictIterator *di = dictGetIterator(g->consumers);
        dictEntry *de;
        while ((de = dictNext(di))) {
            streamConsumer *cons = dictGetVal(de);
            if (sidmapLen(cons->pel)) list[k++] = cons;
        }
        dictReleaseIterator(di);
        for (unsigned long a = 1; a < k; a++) /* insertion sort: consumer lists are short */
            for (unsigned long b = a; b > 0 && sdscmp(list[b - 1]->name, list[b]->name) > 0; b--) {
                streamConsumer *t = list[b];
                list[b] = list[b - 1];
                list[b - 1] = t;
            }
        addReplyArrayLen(c, (long)k);
        for (unsigned long a = 0; a < k; a++) {
            addReplyArrayLen(c, 2);
            addReplyBulkCBuffer(c, list[a]->name, sdslen(list[a]->name));
            addReplyBulkLongLong(c, (long long)sidmapLen(list[a]->pel));
        }
        zfree(list);
        return;
    }

    sidmap *pel = g->pel;
    if (consname) {
        streamConsumer *cons = streamLookupConsumer(g, objectGetVal(consname));
        if (cons == NULL) {
            addReply(c, shared.emptyarray);
            return;
        }
        pel = cons->pel;
    }
    mstime_t now = commandTimeSnapshot();
    void *lenp = addReplyDeferredLen(c);
    long long emitted = 0;
    if (streamCompareID(&start, &end) <= 0) {
        for (sidmapNode *pn = sidmapSeekGE(pel, start); pn && emitted < count; pn = sidmapNext(pn)) {
            if (streamCompareID(&pn->id, &end) > 0) break;
            streamNACK *nack = pn->value;
            mstime_t idle = streamElapsed(now, nack->delivery_time);
            if (idle < 0) idle = 0;
            if (min_idle != -1 && idle < min_idle) continue;
            addReplyArrayLen(c, 4);
            addReplyStreamID(c, &pn->id);
            addReplyBulkCBuffer(c, nack->consumer->name, sdslen(nack->consumer->name));
            addReplyLongLong(c, idle);
            addReplyLongLong(c, (long long)nack->delivery_count);
            emitted++;
        }
    }
    setDeferredArrayLen(c, lenp, emitted);
}

/* ---------------------------------------------------------------------------
 * XCLAIM, XAUTOCLAIM
 * ------------------------------------------------------------------------- */

/* Hands a pending entry to cons as a claim does. */
static void streamClaimNACK(streamNACK *nack, streamID id, streamConsumer *cons, mstime_t delivery_time,
                            long long retrycount, int justid) {
    streamNACKAssign(nack, id, cons);
    nack->delivery_time = delivery_time;
    if (retrycount >= 0) nack->delivery_count = (uint64_t)retrycount;
    else if (!justid) nack->delivery_count++;
}

/* XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms]
 *        [TIME unix-ms] [RETRYCOUNT n] [FORCE] [JUSTID] [LASTID id] */
static void xclaimCommand(client *c) {
    long long min_idle, retrycount = -1;
    mstime_t now = commandTimeSnapshot(), delivery_time = now;
    int force = 0, justid = 0;
    streamID lastid = {0, 0};
    int has_lastid = 0;
    stream *s;
    streamCG *g = streamLookupKeyCGOrReply(c, 1, &s);
    if (g == NULL) return;
    if (getLongLongFromObjectOrReply(c, c->argv[4], &min_idle, "Invalid min-idle-time argument for XCLAIM") !=
        C_OK)
        return;
    if (min_idle < 0) min_idle = 0;

    int j = 5;
    for (; j < c->argc; j++) {
        streamID id;
        if (streamParseStrictIDOrReply(NULL, c->argv[j], &id, 0) != C_OK) break;
    }
    int last_id_arg = j - 1;
    for (; j < c->argc; j++) {
        int more = c->argc - j - 1;
        const char *opt = objectGetVal(c->argv[j]);
        if (!strcasecmp(opt, "force")) {
            force = 1;
        } else if (!strcasecmp(opt, "justid")) {
            justid = 1;
        } else if (!strcasecmp(opt, "idle") && more) {
            long long idle;
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &idle, "Invalid IDLE option argument for XCLAIM") !=
                C_OK)
                return;
            delivery_time = streamElapsed(now, idle);
        } else if (!strcasecmp(opt, "time") && more) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &delivery_time,
                                             "Invalid TIME option argument for XCLAIM") != C_OK)
                return;
        } else if (!strcasecmp(opt, "retrycount") && more) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &retrycount,
                                             "Invalid RETRYCOUNT option argument for XCLAIM") != C_OK)
                return;
        } else if (!strcasecmp(opt, "lastid") && more) {
            if (streamParseStrictIDOrReply(c, c->argv[++j], &lastid, 0) != C_OK) return;
            has_lastid = 1;
        } else {
            addReplyErrorFormat(c, "Unrecognized XCLAIM option '%s'", opt);
            return;
        }
    }
    if (delivery_time < 0 || delivery_time > now) delivery_time = now;
    preventCommandPropagation(c); /* its effects are propagated */
    if (has_lastid && streamCompareID(&lastid, &g->last_id) > 0) {
        g->last_id = lastid;
        streamPropagateGroupPosition(c, c->argv[1], g);
        server.dirty++;
    }

    streamConsumer *cons = streamFetchConsumer(c, c->argv[1], g, objectGetVal(c->argv[3]), 0);
    cons->seen_time = now;
    void *lenp = addReplyDeferredLen(c);
    long claimed = 0;
    for (int k = 5; k <= last_id_arg; k++) {
        streamID id;
        streamEntry e;
        streamParseStrictIDOrReply(NULL, c->argv[k], &id, 0);
        int exists = streamLookupEntry(s, id, &e);
        sidmapNode *pn = sidmapFind(g->pel, id);
        streamNACK *nack = pn ? pn->value : NULL;
        if (nack == NULL) {
            if (!force || !exists) continue;
            nack = zcalloc(sizeof(*nack));
            sidmapInsert(g->pel, id, nack);
        } else {
            if (!exists) {
                /* Deleted from the stream: nothing left to claim. */
                streamPropagateXCLAIM(c, c->argv[1], g, &id, nack);
                streamNACKRemove(g, id);
                server.dirty++;
                continue;
            }
            if (min_idle && streamElapsed(now, nack->delivery_time) < min_idle) continue;
        }
        streamClaimNACK(nack, id, cons, delivery_time, retrycount, justid);
        streamPropagateXCLAIM(c, c->argv[1], g, &id, nack);
        cons->active_time = now;
        if (justid) addReplyStreamID(c, &id);
        else addReplyStreamEntry(c, &e);
        claimed++;
        server.dirty++;
    }
    setDeferredArrayLen(c, lenp, claimed);
}

/* XAUTOCLAIM key group consumer min-idle-time start [COUNT n] [JUSTID]
 * Replies [next-start, claimed entries or IDs, IDs deleted meanwhile]. */
static void xautoclaimCommand(client *c) {
    long long min_idle, count = 100;
    int justid = 0;
    streamID start;
    /* The arguments are checked first, then the key's type, then the group. */
    if (getLongLongFromObjectOrReply(c, c->argv[4], &min_idle, "Invalid min-idle-time argument for XAUTOCLAIM") !=
        C_OK)
        return;
    if (min_idle < 0) min_idle = 0;
    int sex;
    if (streamParseIntervalIDOrReply(c, c->argv[5], &start, &sex, 0) != C_OK) return;
    if (sex && streamIncrID(&start) != 0) {
        addReplyError(c, "invalid start ID for the interval");
        return;
    }
    for (int j = 6; j < c->argc; j++) {
        if (!strcasecmp(objectGetVal(c->argv[j]), "count") && j + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &count, NULL) != C_OK) return;
            if (count < 1 || count > LONG_MAX / (long long)sizeof(streamID)) {
                addReplyError(c, "COUNT must be > 0");
                return;
            }
            j++;
        } else if (!strcasecmp(objectGetVal(c->argv[j]), "justid")) {
            justid = 1;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (o && checkType(c, o, OBJ_STREAM)) return;
    streamCG *g = o ? streamLookupCG(objectGetVal(o), objectGetVal(c->argv[2])) : NULL;
    if (g == NULL) {
        replyNoGroup(c);
        return;
    }
    stream *s = objectGetVal(o);

    mstime_t now = commandTimeSnapshot();
    preventCommandPropagation(c); /* its effects are propagated */
    streamConsumer *cons = streamFetchConsumer(c, c->argv[1], g, objectGetVal(c->argv[3]), 0);
    cons->seen_time = now;
    long long attempts = count * 10;
    /* First claim, then reply: the cursor comes first in the reply. */
    unsigned long maxclaim = (unsigned long)count < sidmapLen(g->pel) ? (unsigned long)count : sidmapLen(g->pel);
    streamID *claimed = zmalloc(sizeof(streamID) * (maxclaim ? maxclaim : 1));
    streamID *deleted = zmalloc(sizeof(streamID) * (size_t)(attempts < 1024 ? attempts : 1024));
    long long nclaimed = 0, ndeleted = 0, capdeleted = attempts < 1024 ? attempts : 1024;
    sidmapNode *pn = sidmapSeekGE(g->pel, start);
    /* COUNT bounds the reply: deleted IDs count against it as claims do. */
    long long left = count;
    while (pn && attempts-- > 0 && left > 0) {
        sidmapNode *next = sidmapNext(pn);
        streamID id = pn->id;
        streamNACK *nack = pn->value;
        streamEntry e;
        if (!streamLookupEntry(s, id, &e)) {
            if (ndeleted == capdeleted) {
                capdeleted *= 2;
                deleted = zrealloc(deleted, sizeof(streamID) * (size_t)capdeleted);
            }
            deleted[ndeleted++] = id;
            streamPropagateXCLAIM(c, c->argv[1], g, &id, nack);
            streamNACKRemove(g, id);
            server.dirty++;
            left--;
        } else if (!min_idle || streamElapsed(now, nack->delivery_time) >= min_idle) {
            streamClaimNACK(nack, id, cons, now, -1, justid);
            streamPropagateXCLAIM(c, c->argv[1], g, &id, nack);
            cons->active_time = now;
            claimed[nclaimed++] = id;
            server.dirty++;
            left--;
        }
        pn = next;
    }
    addReplyArrayLen(c, 3);
    addReplyStreamID(c, pn ? &pn->id : &STREAM_ID_MIN);
    addReplyArrayLen(c, (long)nclaimed);
    for (long long i = 0; i < nclaimed; i++) {
        streamEntry e;
        if (justid || !streamLookupEntry(s, claimed[i], &e)) addReplyStreamID(c, &claimed[i]);
        else addReplyStreamEntry(c, &e);
    }
    addReplyArrayLen(c, (long)ndeleted);
    for (long long i = 0; i < ndeleted; i++) addReplyStreamID(c, &deleted[i]);
    zfree(claimed);
    zfree(deleted);
}

/* ---------------------------------------------------------------------------
 * XINFO
 * ------------------------------------------------------------------------- */

static void addReplyEntriesRead(client *c, streamCG *g) {
    if (g->entries_read != STREAM_CG_INVALID_ENTRIES_READ) addReplyLongLong(c, g->entries_read);
    else addReplyNull(c);
}

static void addReplyLag(client *c, stream *s, streamCG *g) {
    long long lag = streamCGLag(s, g);
    if (lag >= 0) addReplyLongLong(c, lag);
    else addReplyNull(c);
}

/* The stream header fields shared by XINFO STREAM and its FULL form. */
static void addReplyStreamInfoHeader(client *c, stream *s) {
    addReplyBulkCString(c, "length");
    addReplyLongLong(c, (long long)s->length);
    addReplyBulkCString(c, "radix-tree-keys");
    addReplyLongLong(c, (long long)sidmapLen(s->index));
    addReplyBulkCString(c, "radix-tree-nodes");
    addReplyLongLong(c, (long long)sidmapLen(s->index));
    addReplyBulkCString(c, "last-generated-id");
    addReplyStreamID(c, &s->last_id);
    addReplyBulkCString(c, "max-deleted-entry-id");
    addReplyStreamID(c, &s->max_deleted_entry_id);
    addReplyBulkCString(c, "entries-added");
    addReplyLongLong(c, (long long)s->entries_added);
    addReplyBulkCString(c, "recorded-first-entry-id");
    addReplyStreamID(c, &s->first_id);
}

/* XINFO STREAM key [FULL [COUNT n]] */
static void xinfoStreamCommand(client *c) {
    int full = 0;
    long long count = 10;
    if (c->argc > 3) {
        if (strcasecmp(objectGetVal(c->argv[3]), "full") || (c->argc != 4 && c->argc != 6) ||
            (c->argc == 6 && strcasecmp(objectGetVal(c->argv[4]), "count"))) {
            addReplySubcommandSyntaxError(c);
            return;
        }
        full = 1;
        if (c->argc == 6) {
            if (getLongLongFromObjectOrReply(c, c->argv[5], &count, NULL) != C_OK) return;
            if (count < 0) count = 10;
        }
    }
    robj *o = lookupKeyReadOrReply(c, c->argv[2], shared.nokeyerr);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) return;
    stream *s = objectGetVal(o);

    if (!full) {
        addReplyMapLen(c, 10);
        addReplyStreamInfoHeader(c, s);
        addReplyBulkCString(c, "groups");
        addReplyLongLong(c, s->cgroups ? (long long)dictSize(s->cgroups) : 0);
        for (int last = 0; last <= 1; last++) {
            addReplyBulkCString(c, last ? "last-entry" : "first-entry");
            streamIter it;
            streamEntry e;
            streamIterInit(&it, s, STREAM_ID_MIN, STREAM_ID_MAX, last);
            if (streamIterNext(&it, &e)) addReplyStreamEntry(c, &e);
            else addReplyNull(c);
            streamIterRelease(&it);
        }
        return;
    }

    addReplyMapLen(c, 9);
    addReplyStreamInfoHeader(c, s);
    addReplyBulkCString(c, "entries");
    streamReplyRange(c, s, STREAM_ID_MIN, STREAM_ID_MAX, count, 0, NULL, NULL, NULL, 0);
    addReplyBulkCString(c, "groups");
    unsigned long ngroups;
    streamCG **groups = streamGroupsByName(s, &ngroups);
    addReplyArrayLen(c, (long)ngroups);
    for (unsigned long gi = 0; gi < ngroups; gi++) {
        streamCG *g = groups[gi];
        addReplyMapLen(c, 7);
        addReplyBulkCString(c, "name");
        addReplyBulkCBuffer(c, g->name, sdslen(g->name));
        addReplyBulkCString(c, "last-delivered-id");
        addReplyStreamID(c, &g->last_id);
        addReplyBulkCString(c, "entries-read");
        addReplyEntriesRead(c, g);
        addReplyBulkCString(c, "lag");
        addReplyLag(c, s, g);
        addReplyBulkCString(c, "pel-count");
        addReplyLongLong(c, (long long)sidmapLen(g->pel));
        addReplyBulkCString(c, "pending");
        long long n = 0;
        void *lenp = addReplyDeferredLen(c);
        for (sidmapNode *pn = sidmapFirst(g->pel); pn && (!count || n < count); pn = sidmapNext(pn), n++) {
            streamNACK *nack = pn->value;
            addReplyArrayLen(c, 4);
            addReplyStreamID(c, &pn->id);
            addReplyBulkCBuffer(c, nack->consumer->name, sdslen(nack->consumer->name));
            addReplyLongLong(c, nack->delivery_time);
            addReplyLongLong(c, (long long)nack->delivery_count);
        }
        setDeferredArrayLen(c, lenp, n);
        addReplyBulkCString(c, "consumers");
        unsigned long ncons;
        streamConsumer **conss = streamConsumersByName(g, &ncons);
        addReplyArrayLen(c, (long)ncons);
        for (unsigned long ci = 0; ci < ncons; ci++) {
            streamConsumer *cons = conss[ci];
            addReplyMapLen(c, 5);
            addReplyBulkCString(c, "name");
            addReplyBulkCBuffer(c, cons->name, sdslen(cons->name));
            addReplyBulkCString(c, "seen-time");
            addReplyLongLong(c, cons->seen_time);
            addReplyBulkCString(c, "active-time");
            addReplyLongLong(c, cons->active_time);
            addReplyBulkCString(c, "pel-count");
            addReplyLongLong(c, (long long)sidmapLen(cons->pel));
            addReplyBulkCString(c, "pending");
            n = 0;
            lenp = addReplyDeferredLen(c);
            for (sidmapNode *pn = sidmapFirst(cons->pel); pn && (!count || n < count); pn = sidmapNext(pn), n++) {
                streamNACK *nack = pn->value;
                addReplyArrayLen(c, 3);
                addReplyStreamID(c, &pn->id);
                addReplyLongLong(c, nack->delivery_time);
                addReplyLongLong(c, (long long)nack->delivery_count);
            }
            setDeferredArrayLen(c, lenp, n);
        }
        zfree(conss);
    }
    zfree(groups);
}

/* XINFO GROUPS key */
static void xinfoGroupsCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[2], shared.nokeyerr);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) return;
    stream *s = objectGetVal(o);
    unsigned long n;
    streamCG **groups = streamGroupsByName(s, &n);
    addReplyArrayLen(c, (long)n);
    for (unsigned long i = 0; i < n; i++) {
        streamCG *g = groups[i];
        addReplyMapLen(c, 6);
        addReplyBulkCString(c, "name");
        addReplyBulkCBuffer(c, g->name, sdslen(g->name));
        addReplyBulkCString(c, "consumers");
        addReplyLongLong(c, (long long)dictSize(g->consumers));
        addReplyBulkCString(c, "pending");
        addReplyLongLong(c, (long long)sidmapLen(g->pel));
        addReplyBulkCString(c, "last-delivered-id");
        addReplyStreamID(c, &g->last_id);
        addReplyBulkCString(c, "entries-read");
        addReplyEntriesRead(c, g);
        addReplyBulkCString(c, "lag");
        addReplyLag(c, s, g);
    }
    zfree(groups);
}

/* XINFO CONSUMERS key group */
static void xinfoConsumersCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[2], shared.nokeyerr);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) return;
    streamCG *g = streamLookupCG(objectGetVal(o), objectGetVal(c->argv[3]));
    if (g == NULL) {
        addReplyErrorFormat(c, "-NOGROUP No such consumer group '%s' for key name '%s'", (char *)objectGetVal(c->argv[3]),
                            (char *)objectGetVal(c->argv[2]));
        return;
    }
    mstime_t now = commandTimeSnapshot();
    unsigned long n;
    streamConsumer **conss = streamConsumersByName(g, &n);
    addReplyArrayLen(c, (long)n);
    for (unsigned long i = 0; i < n; i++) {
        streamConsumer *cons = conss[i];
        mstime_t idle = streamElapsed(now, cons->seen_time);
        addReplyMapLen(c, 4);
        addReplyBulkCString(c, "name");
        addReplyBulkCBuffer(c, cons->name, sdslen(cons->name));
        addReplyBulkCString(c, "pending");
        addReplyLongLong(c, (long long)sidmapLen(cons->pel));
        addReplyBulkCString(c, "idle");
        addReplyLongLong(c, idle > 0 ? idle : 0);
        addReplyBulkCString(c, "inactive");
        addReplyLongLong(c, cons->active_time == -1 ? -1 : (now > cons->active_time ? streamElapsed(now, cons->active_time) : 0));
    }
    zfree(conss);
}

static void xinfoHelpCommand(client *c) {
    const char *help[] = {
        "CONSUMERS <key> <groupname>",
        "    Show consumers of <groupname>.",
        "GROUPS <key>",
        "    Show the stream consumer groups.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    Show information about the stream.",
        NULL,
    };
    addReplyHelp(c, help);
}

static void xinfoCommand(client *c) { addReplySubcommandSyntaxError(c); }

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

/* Keys of XREAD/XREADGROUP: the first half of what follows STREAMS. */
static int xreadGetKeys(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys) {
    (void)cmd;
    for (int i = 1; i < argc; i++) {
        if (!sdsEncodedObject(argv[i]) || strcasecmp(objectGetVal(argv[i]), "streams")) continue;
        int n = argc - i - 1;
        if (n <= 0 || n % 2) return 0;
        n /= 2;
        int k = 0;
        for (int j = 0; j < n && k < maxkeys; j++) keys[k++] = i + 1 + j;
        return k;
    }
    return 0;
}

#define STREAM_W (CMD_WRITE | CMD_DENYOOM)
#define ACL_STREAM ACL_CATEGORY_STREAM

static struct serverCommand xgroupSubcommands[] = {
    {.name = "create", .proc = xgroupCreateCommand, .arity = -5, .flags = STREAM_W, .acl_categories = ACL_STREAM,
     .key = {2, 2, 1}, .group = "stream", .since = "5.0.0", .summary = "Creates a consumer group.",
     .complexity = "O(1)",
     .args = "key group id-selector=<id | new-id=$> [MKSTREAM] [ENTRIESREAD entries-read:integer]"},
    {.name = "setid", .proc = xgroupSetidCommand, .arity = -5, .flags = CMD_WRITE, .acl_categories = ACL_STREAM,
     .key = {2, 2, 1}, .group = "stream", .since = "5.0.0",
     .summary = "Sets the last-delivered ID of a consumer group.", .complexity = "O(1)",
     .args = "key group id-selector=<id | new-id=$> [ENTRIESREAD entries-read:integer]"},
    {.name = "destroy", .proc = xgroupDestroyCommand, .arity = 4, .flags = CMD_WRITE, .acl_categories = ACL_STREAM,
     .key = {2, 2, 1}, .group = "stream", .since = "5.0.0", .summary = "Destroys a consumer group.",
     .complexity = "O(N) where N is the number of entries in the group's pending entries list (PEL).",
     .args = "key group"},
    {.name = "createconsumer", .proc = xgroupCreateconsumerCommand, .arity = 5, .flags = STREAM_W,
     .acl_categories = ACL_STREAM, .key = {2, 2, 1}, .group = "stream", .since = "6.2.0",
     .summary = "Creates a consumer in a consumer group.", .complexity = "O(1)",
     .args = "key group consumer"},
    {.name = "delconsumer", .proc = xgroupDelconsumerCommand, .arity = 5, .flags = CMD_WRITE,
     .acl_categories = ACL_STREAM, .key = {2, 2, 1}, .group = "stream", .since = "5.0.0",
     .summary = "Deletes a consumer from a consumer group.", .complexity = "O(1)",
     .args = "key group consumer"},
    {.name = "help", .proc = xgroupHelpCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE,
     .acl_categories = ACL_STREAM, .group = "stream", .since = "5.0.0",
     .summary = "Returns helpful text about the different subcommands.", .complexity = "O(1)"},
    {.name = NULL},
};

static struct serverCommand xinfoSubcommands[] = {
    {.name = "stream", .proc = xinfoStreamCommand, .arity = -3, .flags = CMD_READONLY, .acl_categories = ACL_STREAM,
     .key = {2, 2, 1}, .group = "stream", .since = "5.0.0", .summary = "Returns information about a stream.",
     .complexity = "O(1)",
     .args = "key [full-block=[FULL [COUNT count]]]"},
    {.name = "groups", .proc = xinfoGroupsCommand, .arity = 3, .flags = CMD_READONLY, .acl_categories = ACL_STREAM,
     .key = {2, 2, 1}, .group = "stream", .since = "5.0.0",
     .summary = "Returns a list of the consumer groups of a stream.", .complexity = "O(1)",
     .args = "key"},
    {.name = "consumers", .proc = xinfoConsumersCommand, .arity = 4, .flags = CMD_READONLY,
     .acl_categories = ACL_STREAM, .key = {2, 2, 1}, .group = "stream", .since = "5.0.0",
     .summary = "Returns a list of the consumers in a consumer group.", .complexity = "O(1)",
     .args = "key group"},
    {.name = "help", .proc = xinfoHelpCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE,
     .acl_categories = ACL_STREAM, .group = "stream", .since = "5.0.0",
     .summary = "Returns helpful text about the different subcommands.", .complexity = "O(1)"},
    {.name = NULL},
};

struct serverCommand streamCommands[] = {
    {.name = "xadd", .proc = xaddCommand, .arity = -5, .flags = STREAM_W | CMD_FAST, .acl_categories = ACL_STREAM,
     .key = {1, 1, 1}, .group = "stream", .since = "5.0.0",
     .summary = "Appends a new message to a stream. Creates the key if it doesn't exist.",
     .complexity = "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
     .args = "key [NOMKSTREAM] [trim=[strategy=<MAXLEN | MINID> [operator=[equal== | approximately=~]] threshold "
             "[LIMIT count]]] id-selector=<auto-id=* | id> data=<field value> [data=<field value> ...]"},
    {.name = "xtrim", .proc = xtrimCommand, .arity = -4, .flags = CMD_WRITE, .acl_categories = ACL_STREAM,
     .key = {1, 1, 1}, .group = "stream", .since = "5.0.0", .summary = "Deletes messages from the beginning of a stream.",
     .complexity = "O(N), with N being the number of evicted entries.",
     .args = "key trim=<strategy=<MAXLEN | MINID> [operator=[equal== | approximately=~]] threshold [LIMIT count]>"},
    {.name = "xlen", .proc = xlenCommand, .arity = 2, .flags = CMD_READONLY | CMD_FAST, .acl_categories = ACL_STREAM,
     .key = {1, 1, 1}, .group = "stream", .since = "5.0.0", .summary = "Return the number of messages in a stream.",
     .complexity = "O(1)",
     .args = "key"},
    {.name = "xrange", .proc = xrangeCommand, .arity = -4, .flags = CMD_READONLY, .acl_categories = ACL_STREAM,
     .key = {1, 1, 1}, .group = "stream", .since = "5.0.0",
     .summary = "Returns the messages from a stream within a range of IDs.",
     .complexity = "O(N) with N being the number of elements being returned.",
     .args = "key start:string end:string [COUNT count]"},
    {.name = "xrevrange", .proc = xrevrangeCommand, .arity = -4, .flags = CMD_READONLY, .acl_categories = ACL_STREAM,
     .key = {1, 1, 1}, .group = "stream", .since = "5.0.0",
     .summary = "Returns the messages from a stream within a range of IDs in reverse order.",
     .complexity = "O(N) with N being the number of elements returned.",
     .args = "key end:string start:string [COUNT count]"},
    {.name = "xdel", .proc = xdelCommand, .arity = -3, .flags = CMD_WRITE | CMD_FAST, .acl_categories = ACL_STREAM,
     .key = {1, 1, 1}, .group = "stream", .since = "5.0.0",
     .summary = "Returns the number of messages after removing them from a stream.",
     .complexity = "O(1) for each single item to delete in the stream, regardless of the stream size.",
     .args = "key id [id ...]"},
    {.name = "xread", .proc = xreadCommand, .arity = -4, .flags = CMD_READONLY | CMD_BLOCKING | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_STREAM | ACL_CATEGORY_BLOCKING, .getkeys_proc = xreadGetKeys, .group = "stream",
     .since = "5.0.0",
     .summary = "Returns messages from multiple streams with IDs greater than the ones requested. Blocks until a "
                "message is available otherwise.",
     .complexity = "For each stream mentioned: O(N) with N being the number of elements being returned.",
     .args = "[COUNT count] [BLOCK milliseconds] streams=<STREAMS key [key ...] id [id ...]>"},
    {.name = "xreadgroup", .proc = xreadgroupCommand, .arity = -7,
     .flags = CMD_WRITE | CMD_BLOCKING | CMD_MOVABLE_KEYS, .acl_categories = ACL_STREAM | ACL_CATEGORY_BLOCKING,
     .getkeys_proc = xreadGetKeys, .group = "stream", .since = "5.0.0",
     .summary = "Returns new or historical messages from a stream for a consumer in a group. Blocks until a message "
                "is available otherwise.",
     .complexity = "For each stream mentioned: O(M) with M being the number of elements returned.",
     .args = "group-block=<GROUP group consumer> [COUNT count] [BLOCK milliseconds] [NOACK] streams=<STREAMS key "
             "[key ...] id [id ...]>"},
    {.name = "xack", .proc = xackCommand, .arity = -4, .flags = CMD_WRITE | CMD_FAST, .acl_categories = ACL_STREAM,
     .key = {1, 1, 1}, .group = "stream", .since = "5.0.0",
     .summary = "Returns the number of messages that were successfully acknowledged by the consumer group member "
                "of a stream.",
     .complexity = "O(1) for each message ID processed.",
     .args = "key group id [id ...]"},
    {.name = "xpending", .proc = xpendingCommand, .arity = -3, .flags = CMD_READONLY, .acl_categories = ACL_STREAM,
     .key = {1, 1, 1}, .group = "stream", .since = "5.0.0",
     .summary = "Returns the information and entries from a stream consumer group's pending entries list.",
     .complexity = "O(N) with N being the number of elements returned.",
     .args = "key group [filters=[[IDLE min-idle-time:integer] start:string end:string count [consumer]]]"},
    {.name = "xclaim", .proc = xclaimCommand, .arity = -6, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_STREAM, .key = {1, 1, 1}, .group = "stream", .since = "5.0.0",
     .summary = "Changes, or acquires, ownership of a message in a consumer group, as if the message was delivered "
                "a consumer group member.",
     .complexity = "O(log N) with N being the number of messages in the PEL of the consumer group.",
     .args = "key group consumer min-idle-time id [id ...] [IDLE ms:integer] [TIME unix-time-milliseconds] "
             "[RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]"},
    {.name = "xautoclaim", .proc = xautoclaimCommand, .arity = -6, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_STREAM, .key = {1, 1, 1}, .group = "stream", .since = "6.2.0",
     .summary = "Changes, or acquires, ownership of messages in a consumer group, as if the messages were delivered "
                "to as consumer group member.",
     .complexity = "O(1) if COUNT is small.",
     .args = "key group consumer min-idle-time start:string [COUNT count] [JUSTID]"},
    {.name = "xsetid", .proc = xsetidCommand, .arity = -3, .flags = STREAM_W | CMD_FAST, .acl_categories = ACL_STREAM,
     .key = {1, 1, 1}, .group = "stream", .since = "5.0.0",
     .summary = "An internal command for replicating stream values.", .complexity = "O(1)",
     .args = "key last-id [ENTRIESADDED entries-added:integer] [MAXDELETEDID max-deleted-id]"},
    {.name = "xgroup", .proc = xgroupCommand, .arity = -2, .group = "stream", .since = "5.0.0",
     .summary = "A container for consumer groups commands.", .complexity = "Depends on subcommand.",
     .subcommands = xgroupSubcommands},
    {.name = "xinfo", .proc = xinfoCommand, .arity = -2, .group = "stream", .since = "5.0.0",
     .summary = "A container for stream introspection commands.", .complexity = "Depends on subcommand.",
     .subcommands = xinfoSubcommands},
    {0},
};
