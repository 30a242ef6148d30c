/* t_list.c - the list type: LPUSH/RPUSH and friends, pops (with COUNT and
 * from several keys: LMPOP), index and range access, LINSERT/LREM/LTRIM/
 * LPOS, moves between lists (LMOVE, RPOPLPUSH) and the blocking forms
 * BLPOP/BRPOP/BLMOVE/BRPOPLPUSH/BLMPOP.
 *
 * A list value is an robj of type OBJ_LIST in one of two encodings:
 *   LISTPACK   one listpack (listpack.c), while it stays within
 *              list-max-listpack-size;
 *   QUICKLIST  a quicklist of listpack nodes (quicklist.c) beyond that.
 * The "listType" helpers below hide the difference from the commands.
 * Conversion up happens before an insertion that would break the limit;
 * conversion down happens after a removal leaves a single-node quicklist
 * within half the limit (the half keeps a list near the limit from
 * flapping between encodings).
 *
 * An empty list never stays in the keyspace: every command that removes
 * elements deletes the key when the last one goes (event "del").
 *
 * Blocking: when BLPOP & co find nothing, they call blockForKeys()
 * (blocked.c) and send no reply; when a key is created later, blocked.c
 * re-executes the command, which now finds data. Inside MULTI or a script
 * a blocking command answers at once like its non-blocking form.
 * Propagation (propagate.c) replays what happened, whether the command was
 * served at once or later by blocked.c: BLPOP/BRPOP become "LPOP key" /
 * "RPOP key" of the key served, LMPOP/BLMPOP "LPOP key n" / "RPOP key n"
 * with the number actually popped, BLMOVE becomes LMOVE and BRPOPLPUSH
 * RPOPLPUSH. */
#include "server.h"

#include "blocked.h"
#include "listpack.h"
#include "quicklist.h"

#define LIST_HEAD 0
#define LIST_TAIL 1

/* ---------------------------------------------------------------------------
 * Element helpers
 * ------------------------------------------------------------------------- */

/* The bytes of a string object: its sds, or an INT-encoded value printed
 * into buf (LONG_STR_SIZE bytes). */
static const char *listObjBytes(robj *o, char *buf, size_t *len) {
    if (sdsEncodedObject(o)) {
        *len = sdslen(objectGetVal(o));
        return objectGetVal(o);
    }
    *len = (size_t)ll2string(buf, LONG_STR_SIZE, (long)objectGetVal(o));
    return buf;
}

/* A new string object for a listpack element at p. */
static robj *listpackElementToObject(unsigned char *p) {
    unsigned int slen;
    long long v;
    unsigned char *s = lpGetValue(p, &slen, &v);
    if (s) return createStringObject((char *)s, slen);
    return createStringObjectFromLongLong(v);
}

/* Replies with the listpack element at p as a bulk string. */
static void addReplyListpackElement(client *c, unsigned char *p) {
    unsigned int slen;
    long long v;
    unsigned char *s = lpGetValue(p, &slen, &v);
    if (s)
        addReplyBulkCBuffer(c, s, slen);
    else
        addReplyBulkLongLong(c, v);
}

/* ---------------------------------------------------------------------------
 * Objects and encoding conversion
 * ------------------------------------------------------------------------- */

/* Returns a new empty list in the listpack encoding (refcount 1). */
robj *createListListpackObject(void) {
    robj *o = createObject(OBJ_LIST, lpNew(0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

/* Number of elements of a list value. */
unsigned long listTypeLength(const robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return lpLength(objectGetVal(o));
    serverAssert(o->encoding == OBJ_ENCODING_QUICKLIST);
    return quicklistCount(objectGetVal(o));
}

static void listConvertToQuicklist(robj *o) {
    quicklist *ql = quicklistCreate(server.list_max_listpack_size, server.list_compress_depth);
    quicklistAppendListpack(ql, objectGetVal(o)); /* takes the listpack */
    objectSetVal(o, ql);
    o->encoding = OBJ_ENCODING_QUICKLIST;
}

/* Before inserting argv[start..end] into o: switches a listpack to a
 * quicklist if the result would break list-max-listpack-size. */
static void listTypeTryConversionAppend(robj *o, robj **argv, int start, int end) {
    if (o->encoding != OBJ_ENCODING_LISTPACK) return;
    size_t add = 0;
    char buf[LONG_STR_SIZE];
    for (int j = start; j <= end; j++) {
        size_t len;
        const char *s = listObjBytes(argv[j], buf, &len);
        add += lpEntrySizeString((const unsigned char *)s, len);
    }
    unsigned char *lp = objectGetVal(o);
    if (quicklistNodeExceedsLimit(server.list_max_listpack_size, lpBytes(lp) + add,
                                  lpLength(lp) + (unsigned long)(end - start + 1)))
        listConvertToQuicklist(o);
}

/* After removing elements: a quicklist down to one node holding at most
 * half the listpack limit becomes a listpack again, unless that node is a
 * big one (as Valkey keeps a single PLAIN node). */
static void listTypeTryConversionShrink(robj *o) {
    if (o->encoding != OBJ_ENCODING_QUICKLIST) return;
    quicklist *ql = objectGetVal(o);
    if (ql->len != 1 || ql->head->big) return;
    size_t sz_limit;
    unsigned long count_limit;
    quicklistNodeLimit(server.list_max_listpack_size, &sz_limit, &count_limit);
    if (ql->head->sz > sz_limit / 2 || ql->count > count_limit / 2) return;
    objectSetVal(o, lpDup(ql->head->lp));
    o->encoding = OBJ_ENCODING_LISTPACK;
    quicklistRelease(ql);
}

/* ---------------------------------------------------------------------------
 * The list type API (encoding independent)
 * ------------------------------------------------------------------------- */

/* Adds value at the head or tail. The caller checked conversion first. */
static void listTypePush(robj *o, robj *value, int where) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s = listObjBytes(value, buf, &len);
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        if (where == LIST_HEAD)
            objectSetVal(o, lpPrepend(objectGetVal(o), (const unsigned char *)s, len));
        else
            objectSetVal(o, lpAppend(objectGetVal(o), (const unsigned char *)s, len));
    } else {
        quicklistPush(objectGetVal(o), s, len, where == LIST_HEAD ? QUICKLIST_HEAD : QUICKLIST_TAIL);
    }
}

/* Removes and returns (as a new object, caller owns it) the head or tail
 * element, or NULL if the list is empty. */
static robj *listTypePop(robj *o, int where) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *p = where == LIST_HEAD ? lpFirst(objectGetVal(o)) : lpLast(objectGetVal(o));
        if (!p) return NULL;
        robj *value = listpackElementToObject(p);
        objectSetVal(o, lpDelete(objectGetVal(o), p, NULL));
        return value;
    }
    unsigned char *data;
    size_t sz;
    long long lval;
    if (!quicklistPop(objectGetVal(o), where == LIST_HEAD ? QUICKLIST_HEAD : QUICKLIST_TAIL, &data, &sz, &lval)) return NULL;
    if (!data) return createStringObjectFromLongLong(lval);
    robj *value = createStringObject((char *)data, sz);
    zfree(data);
    return value;
}

/* A quicklistVisitor (LRANGE, pops): one element as a bulk reply to the
 * client ctx. */
static void addReplyQuicklistValue(void *ctx, const unsigned char *value, size_t sz, long long longval) {
    client *c = ctx;
    if (value) addReplyBulkCBuffer(c, value, sz);
    else addReplyBulkLongLong(c, longval);
}

/* listTypePop() for a caller that only replies with the element: the
 * reply is built from the element where it lies, then it is deleted, so
 * it is never copied into an object. o must not be empty. */
static void listTypePopAndReply(client *c, robj *o, int where) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *p = where == LIST_HEAD ? lpFirst(objectGetVal(o)) : lpLast(objectGetVal(o));
        serverAssert(p != NULL);
        addReplyListpackElement(c, p);
        objectSetVal(o, lpDelete(objectGetVal(o), p, NULL));
        return;
    }
    serverAssert(quicklistPopVisit(objectGetVal(o), where == LIST_HEAD ? QUICKLIST_HEAD : QUICKLIST_TAIL,
                                   addReplyQuicklistValue, c));
}

/* Iteration over either encoding, from an index, in either direction. */
typedef struct listTypeIterator {
    robj *o;
    int forward;            /* 1: head to tail */
    unsigned char *lpnext;  /* listpack: next element to return */
    quicklistIter *qi;      /* quicklist */
} listTypeIterator;

typedef struct listTypeEntry {
    listTypeIterator *li;
    unsigned char *lpe;     /* listpack: current element */
    quicklistEntry qe;      /* quicklist: current element */
} listTypeEntry;

static void listTypeInitIterator(listTypeIterator *li, robj *o, long index, int forward) {
    li->o = o;
    li->forward = forward;
    li->lpnext = NULL;
    li->qi = NULL;
    if (o->encoding == OBJ_ENCODING_LISTPACK)
        li->lpnext = lpSeek(objectGetVal(o), index);
    else
        li->qi = quicklistGetIteratorAtIdx(objectGetVal(o), forward ? AL_START_HEAD : AL_START_TAIL, index);
}

static void listTypeReleaseIterator(listTypeIterator *li) {
    if (li->qi) quicklistReleaseIterator(li->qi);
    li->qi = NULL;
}

static int listTypeNext(listTypeIterator *li, listTypeEntry *e) {
    e->li = li;
    if (li->o->encoding == OBJ_ENCODING_LISTPACK) {
        if (!li->lpnext) return 0;
        e->lpe = li->lpnext;
        li->lpnext = li->forward ? lpNext(objectGetVal(li->o), e->lpe) : lpPrev(objectGetVal(li->o), e->lpe);
        return 1;
    }
    return li->qi ? quicklistNext(li->qi, &e->qe) : 0;
}

/* 1 if the current element equals s[0..len). */
static int listTypeEntryEquals(listTypeEntry *e, const char *s, size_t len) {
    if (e->li->o->encoding == OBJ_ENCODING_LISTPACK) return lpCompare(e->lpe, (const unsigned char *)s, len);
    if (e->qe.value) return e->qe.sz == len && memcmp(e->qe.value, s, len) == 0;
    char buf[LONG_STR_SIZE];
    int n = ll2string(buf, sizeof(buf), e->qe.longval);
    return (size_t)n == len && memcmp(buf, s, len) == 0;
}

static void addReplyListEntry(client *c, listTypeEntry *e) {
    if (e->li->o->encoding == OBJ_ENCODING_LISTPACK)
        addReplyListpackElement(c, e->lpe);
    else if (e->qe.value)
        addReplyBulkCBuffer(c, e->qe.value, e->qe.sz);
    else
        addReplyBulkLongLong(c, e->qe.longval);
}

/* Deletes the current element; iteration continues with the next one. */
static void listTypeDelete(listTypeEntry *e) {
    listTypeIterator *li = e->li;
    if (li->o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *after;
        objectSetVal(li->o, lpDelete(objectGetVal(li->o), e->lpe, &after));
        if (li->forward)
            li->lpnext = after;
        else
            li->lpnext = after ? lpPrev(objectGetVal(li->o), after) : lpLast(objectGetVal(li->o));
    } else {
        quicklistDelEntry(li->qi, &e->qe);
    }
}

/* Inserts s before or after the current element. The iterator must not
 * be advanced afterwards. */
static void listTypeInsert(listTypeEntry *e, const char *s, size_t len, int after) {
    listTypeIterator *li = e->li;
    if (li->o->encoding == OBJ_ENCODING_LISTPACK) {
        objectSetVal(li->o, lpInsertString(objectGetVal(li->o), (const unsigned char *)s, len, e->lpe, after ? LP_AFTER : LP_BEFORE,
                                    NULL));
        li->lpnext = NULL;
    } else if (after) {
        quicklistInsertAfter(li->qi, &e->qe, s, len);
    } else {
        quicklistInsertBefore(li->qi, &e->qe, s, len);
    }
}

/* Replaces the element at index. Returns 1, or 0 if out of range. */
static int listTypeReplaceAtIndex(robj *o, long index, robj *value) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s = listObjBytes(value, buf, &len);
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *p = lpSeek(objectGetVal(o), index);
        if (!p) return 0;
        objectSetVal(o, lpReplace(objectGetVal(o), &p, (const unsigned char *)s, len));
        return 1;
    }
    return quicklistReplaceAtIndex(objectGetVal(o), index, s, len);
}

/* Deletes `count` elements from index `start` (both already in range). */
static void listTypeDelRange(robj *o, long start, long count) {
    if (count <= 0) return;
    if (o->encoding == OBJ_ENCODING_LISTPACK)
        objectSetVal(o, lpDeleteRange(objectGetVal(o), start, (unsigned long)count));
    else
        quicklistDelRange(objectGetVal(o), start, count);
}

/* ---------------------------------------------------------------------------
 * Object methods (free, free effort, size, dup, digest) registered with object.c
 * ------------------------------------------------------------------------- */

/* One allocation per quicklist node (each holds a listpack). */
static size_t listFreeEffort(robj *o) {
    return o->encoding == OBJ_ENCODING_QUICKLIST ? ((quicklist *)objectGetVal(o))->len : 1;
}

static void listFreeObject(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK)
        lpFree(objectGetVal(o));
    else
        quicklistRelease(objectGetVal(o));
}

static size_t listObjectSize(robj *o, size_t sample_size) {
    (void)sample_size;
    if (o->encoding == OBJ_ENCODING_LISTPACK) return zmalloc_size(objectGetVal(o));
    return quicklistMemUsage(objectGetVal(o));
}

static robj *listDupObject(robj *o) {
    robj *copy;
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        copy = createObject(OBJ_LIST, lpDup(objectGetVal(o)));
        copy->encoding = OBJ_ENCODING_LISTPACK;
    } else {
        copy = createObject(OBJ_LIST, quicklistDup(objectGetVal(o)));
        copy->encoding = OBJ_ENCODING_QUICKLIST;
    }
    return copy;
}

/* Mixes every element, head to tail, as its string form. */
static void listDigestObject(robj *o, unsigned char *digest) {
    listTypeIterator li;
    listTypeEntry e;
    listTypeInitIterator(&li, o, 0, 1);
    while (listTypeNext(&li, &e)) {
        char buf[LONG_STR_SIZE];
        const void *s;
        size_t len;
        long long v = 0;
        if (o->encoding == OBJ_ENCODING_LISTPACK) {
            unsigned int slen;
            s = lpGetValue(e.lpe, &slen, &v);
            len = slen;
        } else {
            s = e.qe.value;
            len = e.qe.sz;
            v = e.qe.longval;
        }
        if (!s) {
            len = (size_t)ll2string(buf, sizeof(buf), v);
            s = buf;
        }
        mixDigest(digest, s, len);
    }
    listTypeReleaseIterator(&li);
}

/* Registers the list type's object methods. Called once by initServer(). */
void listTypeInit(void) {
    objectMethods[OBJ_LIST].free = listFreeObject;
    objectMethods[OBJ_LIST].size = listObjectSize;
    objectMethods[OBJ_LIST].dup = listDupObject;
    objectMethods[OBJ_LIST].digest = listDigestObject;
    objectMethods[OBJ_LIST].free_effort = listFreeEffort;
}

/* ---------------------------------------------------------------------------
 * Shared command helpers
 * ------------------------------------------------------------------------- */

/* Parses LEFT/RIGHT. Replies a syntax error and returns C_ERR otherwise. */
static int getListPositionFromObjectOrReply(client *c, robj *arg, int *where) {
    if (!strcasecmp(objectGetVal(arg), "left")) {
        *where = LIST_HEAD;
    } else if (!strcasecmp(objectGetVal(arg), "right")) {
        *where = LIST_TAIL;
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    return C_OK;
}

/* Book-keeping after `count` elements were popped from `where` of key:
 * event, deletion of an emptied key, encoding shrink, dirty. */
static void listElementsRemoved(client *c, robj *key, int where, robj *o, long count) {
    notifyKeyspaceEvent(NOTIFY_LIST, where == LIST_HEAD ? "lpop" : "rpop", key, c->db->id);
    if (listTypeLength(o) == 0) {
        dbDelete(c->db, key);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
    } else {
        listTypeTryConversionShrink(o);
    }
    signalModifiedKey(c, c->db, key);
    server.dirty += count;
}

/* Pops up to `count` elements and replies [key, [elements...]] (LMPOP,
 * BLMPOP). o is a non-empty list. */
static void listPopRangeAndReplyWithKey(client *c, robj *o, robj *key, int where, long count) {
    long llen = (long)listTypeLength(o);
    long n = count < llen ? count : llen;
    addReplyArrayLen(c, 2);
    addReplyBulk(c, key);
    addReplyArrayLen(c, n);
    for (long j = 0; j < n; j++) listTypePopAndReply(c, o, where);
    listElementsRemoved(c, key, where, o, n);
    robj *nobj = createStringObjectFromLongLong(n);
    rewriteClientCommandVector(c, 3, where == LIST_HEAD ? shared.lpop : shared.rpop, key, nobj);
    decrRefCount(nobj);
}

/* ---------------------------------------------------------------------------
 * Push commands
 * ------------------------------------------------------------------------- */

/* LPUSH/RPUSH (xx = 0) and LPUSHX/RPUSHX (xx = 1). */
static void pushGenericCommand(client *c, int where, int xx) {
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (checkType(c, o, OBJ_LIST)) return;
    if (!o) {
        if (xx) {
            addReply(c, shared.czero);
            return;
        }
        o = createListListpackObject();
        dbAdd(c->db, c->argv[1], &o); /* wakes clients blocked on the key */
    }
    listTypeTryConversionAppend(o, c->argv, 2, c->argc - 1);
    for (int j = 2; j < c->argc; j++) listTypePush(o, c->argv[j], where);
    addReplyLongLong(c, (long long)listTypeLength(o));
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_LIST, where == LIST_HEAD ? "lpush" : "rpush", c->argv[1], c->db->id);
    server.dirty += c->argc - 2;
}

void lpushCommand(client *c) { pushGenericCommand(c, LIST_HEAD, 0); }
void rpushCommand(client *c) { pushGenericCommand(c, LIST_TAIL, 0); }
void lpushxCommand(client *c) { pushGenericCommand(c, LIST_HEAD, 1); }
void rpushxCommand(client *c) { pushGenericCommand(c, LIST_TAIL, 1); }

/* LINSERT key BEFORE|AFTER pivot element */
void linsertCommand(client *c) {
    int after;
    if (!strcasecmp(objectGetVal(c->argv[2]), "after")) {
        after = 1;
    } else if (!strcasecmp(objectGetVal(c->argv[2]), "before")) {
        after = 0;
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (!o || checkType(c, o, OBJ_LIST)) return;

    listTypeTryConversionAppend(o, c->argv, 4, 4);
    char pbuf[LONG_STR_SIZE], vbuf[LONG_STR_SIZE];
    size_t plen, vlen;
    const char *pivot = listObjBytes(c->argv[3], pbuf, &plen);
    const char *value = listObjBytes(c->argv[4], vbuf, &vlen);
    listTypeIterator li;
    listTypeEntry e;
    int inserted = 0;
    listTypeInitIterator(&li, o, 0, 1);
    while (listTypeNext(&li, &e)) {
        if (listTypeEntryEquals(&e, pivot, plen)) {
            listTypeInsert(&e, value, vlen, after);
            inserted = 1;
            break;
        }
    }
    listTypeReleaseIterator(&li);
    if (!inserted) {
        addReplyLongLong(c, -1);
        return;
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_LIST, "linsert", c->argv[1], c->db->id);
    server.dirty++;
    addReplyLongLong(c, (long long)listTypeLength(o));
}

/* ---------------------------------------------------------------------------
 * Read commands
 * ------------------------------------------------------------------------- */

void llenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (!o || checkType(c, o, OBJ_LIST)) return;
    addReplyLongLong(c, (long long)listTypeLength(o));
}

void lindexCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (!o || checkType(c, o, OBJ_LIST)) return;
    long index;
    if (getLongFromObjectOrReply(c, c->argv[2], &index, NULL) != C_OK) return;
    if (o->encoding == OBJ_ENCODING_QUICKLIST) {
        /* A read that never opens a packed node (see LRANGE). */
        long llen = (long)quicklistCount(objectGetVal(o));
        if (index < 0) index += llen;
        if (index < 0 || index >= llen)
            addReplyNull(c);
        else
            quicklistVisitRange(objectGetVal(o), (unsigned long)index, 1, addReplyQuicklistValue, c);
        return;
    }
    listTypeIterator li;
    listTypeEntry e;
    listTypeInitIterator(&li, o, index, 1);
    if (listTypeNext(&li, &e))
        addReplyListEntry(c, &e);
    else
        addReplyNull(c);
    listTypeReleaseIterator(&li);
}

/* Normalises [start, end] against llen as LRANGE/LTRIM do. Returns 0 if
 * the range is empty, else 1 with the clamped bounds. */
static int listNormaliseRange(long llen, long *start, long *end) {
    if (*start < 0) *start += llen;
    if (*end < 0) *end += llen;
    if (*start < 0) *start = 0;
    if (*start > *end || *start >= llen) return 0;
    if (*end >= llen) *end = llen - 1;
    return 1;
}

void lrangeCommand(client *c) {
    long start, end;
    if (getLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
        getLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
        return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (!o || checkType(c, o, OBJ_LIST)) return;
    long llen = (long)listTypeLength(o);
    if (!listNormaliseRange(llen, &start, &end)) {
        addReply(c, shared.emptyarray);
        return;
    }
    long n = end - start + 1;
    addReplyArrayLen(c, n);
    if (o->encoding == OBJ_ENCODING_QUICKLIST) {
        quicklistVisitRange(objectGetVal(o), (unsigned long)start, (unsigned long)n, addReplyQuicklistValue, c);
        return;
    }
    listTypeIterator li;
    listTypeEntry e;
    listTypeInitIterator(&li, o, start, 1);
    while (n-- && listTypeNext(&li, &e)) addReplyListEntry(c, &e);
    listTypeReleaseIterator(&li);
}

/* LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len] */
void lposCommand(client *c) {
    long rank = 1, count = -1, maxlen = 0;
    for (int j = 3; j < c->argc; j++) {
        char *opt = objectGetVal(c->argv[j]);
        int moreargs = j + 1 < c->argc;
        if (!strcasecmp(opt, "RANK") && moreargs) {
            j++;
            if (getRangeLongFromObjectOrReply(c, c->argv[j], -LONG_MAX, LONG_MAX, &rank, NULL) != C_OK) return;
            if (rank == 0) {
                addReplyError(c, "RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
                                 "or use negative to start from the end of the list");
                return;
            }
        } else if (!strcasecmp(opt, "COUNT") && moreargs) {
            j++;
            if (getPositiveLongFromObjectOrReply(c, c->argv[j], &count, "COUNT can't be negative") != C_OK) return;
        } else if (!strcasecmp(opt, "MAXLEN") && moreargs) {
            j++;
            if (getPositiveLongFromObjectOrReply(c, c->argv[j], &maxlen, "MAXLEN can't be negative") != C_OK)
                return;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    robj *o = lookupKeyReadOrReply(c, c->argv[1], count == -1 ? shared.null[c->resp] : shared.emptyarray);
    if (!o || checkType(c, o, OBJ_LIST)) return;

    char buf[LONG_STR_SIZE];
    size_t elen;
    const char *ele = listObjBytes(c->argv[2], buf, &elen);
    int forward = rank > 0;
    long skip = (rank > 0 ? rank : -rank) - 1; /* matches to pass over first */
    long llen = (long)listTypeLength(o), index = 0, matches = 0, scanned = 0;
    void *deferred = count != -1 ? addReplyDeferredLen(c) : NULL;
    listTypeIterator li;
    listTypeEntry e;
    listTypeInitIterator(&li, o, forward ? 0 : -1, forward);
    while (listTypeNext(&li, &e) && (maxlen == 0 || scanned < maxlen)) {
        scanned++;
        if (listTypeEntryEquals(&e, ele, elen)) {
            if (skip > 0) {
                skip--;
            } else {
                long pos = forward ? index : llen - 1 - index;
                matches++;
                if (count == -1) {
                    addReplyLongLong(c, pos);
                    break;
                }
                addReplyLongLong(c, pos);
                if (count != 0 && matches == count) break;
            }
        }
        index++;
    }
    listTypeReleaseIterator(&li);
    if (count != -1)
        setDeferredArrayLen(c, deferred, matches);
    else if (matches == 0)
        addReplyNull(c);
}

/* ---------------------------------------------------------------------------
 * Modifying commands
 * ------------------------------------------------------------------------- */

void lsetCommand(client *c) {
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.nokeyerr);
    if (!o || checkType(c, o, OBJ_LIST)) return;
    long index;
    if (getLongFromObjectOrReply(c, c->argv[2], &index, NULL) != C_OK) return;
    listTypeTryConversionAppend(o, c->argv, 3, 3);
    if (!listTypeReplaceAtIndex(o, index, c->argv[3])) {
        addReplyErrorObject(c, shared.outofrangeerr);
        return;
    }
    addReply(c, shared.ok);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_LIST, "lset", c->argv[1], c->db->id);
    server.dirty++;
    /* A big element may have been replaced by a small one. */
    listTypeTryConversionShrink(o);
}

void ltrimCommand(client *c) {
    long start, end;
    if (getLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
        getLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
        return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.ok);
    if (!o || checkType(c, o, OBJ_LIST)) return;
    long llen = (long)listTypeLength(o), ltrim, rtrim;
    if (!listNormaliseRange(llen, &start, &end)) {
        ltrim = llen; /* everything goes */
        rtrim = 0;
    } else {
        ltrim = start;
        rtrim = llen - end - 1;
    }
    listTypeDelRange(o, 0, ltrim);
    listTypeDelRange(o, -rtrim, rtrim);
    notifyKeyspaceEvent(NOTIFY_LIST, "ltrim", c->argv[1], c->db->id);
    if (listTypeLength(o) == 0) {
        dbDelete(c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    } else {
        listTypeTryConversionShrink(o);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    server.dirty += ltrim + rtrim;
    addReply(c, shared.ok);
}

/* LREM key count element: count > 0 from the head, < 0 from the tail,
 * 0 all occurrences. */
void lremCommand(client *c) {
    long toremove;
    if (getLongFromObjectOrReply(c, c->argv[2], &toremove, NULL) != C_OK) return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (!o || checkType(c, o, OBJ_LIST)) return;

    char buf[LONG_STR_SIZE];
    size_t elen;
    const char *ele = listObjBytes(c->argv[3], buf, &elen);
    int forward = toremove >= 0;
    unsigned long limit = toremove >= 0 ? (unsigned long)toremove : -(unsigned long)toremove;
    long removed = 0;
    listTypeIterator li;
    listTypeEntry e;
    listTypeInitIterator(&li, o, forward ? 0 : -1, forward);
    while (listTypeNext(&li, &e)) {
        if (listTypeEntryEquals(&e, ele, elen)) {
            listTypeDelete(&e);
            removed++;
            if (limit && (unsigned long)removed == limit) break;
        }
    }
    listTypeReleaseIterator(&li);
    if (removed) {
        notifyKeyspaceEvent(NOTIFY_LIST, "lrem", c->argv[1], c->db->id);
        if (listTypeLength(o) == 0) {
            dbDelete(c->db, c->argv[1]);
            notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
        } else {
            listTypeTryConversionShrink(o);
        }
        signalModifiedKey(c, c->db, c->argv[1]);
        server.dirty += removed;
    }
    addReplyLongLong(c, removed);
}

/* ---------------------------------------------------------------------------
 * Pops
 * ------------------------------------------------------------------------- */

/* LPOP/RPOP key [count] */
static void popGenericCommand(client *c, int where) {
    long count = 0;
    int hascount = c->argc == 3;
    if (c->argc > 3) {
        addReplyErrorArity(c);
        return;
    }
    if (hascount &&
        getPositiveLongFromObjectOrReply(c, c->argv[2], &count, "value is out of range, must be positive") != C_OK)
        return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], hascount ? shared.nullarray[c->resp] : shared.null[c->resp]);
    if (!o || checkType(c, o, OBJ_LIST)) return;
    if (hascount && count == 0) {
        addReply(c, shared.emptyarray);
        return;
    }
    if (!hascount) {
        listTypePopAndReply(c, o, where);
        listElementsRemoved(c, c->argv[1], where, o, 1);
        return;
    }
    long llen = (long)listTypeLength(o);
    long n = count < llen ? count : llen;
    addReplyArrayLen(c, n);
    for (long j = 0; j < n; j++) listTypePopAndReply(c, o, where);
    listElementsRemoved(c, c->argv[1], where, o, n);
}

void lpopCommand(client *c) { popGenericCommand(c, LIST_HEAD); }
void rpopCommand(client *c) { popGenericCommand(c, LIST_TAIL); }

/* Parses the optional "COUNT <n>" that ends LMPOP/BLMPOP/ZMPOP/BZMPOP,
 * starting at argv[start]. Sets *count (1 when absent) and returns C_OK, or
 * replies the error and returns C_ERR. */
int getMpopCountOrReply(client *c, int start, long *count) {
    *count = -1;
    for (int j = start; j < c->argc; j++) {
        if (*count == -1 && !strcasecmp(objectGetVal(c->argv[j]), "count") && j + 1 < c->argc) {
            j++;
            if (getRangeLongFromObjectOrReply(c, c->argv[j], 1, LONG_MAX, count, "count should be greater than 0") !=
                C_OK)
                return C_ERR;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    if (*count == -1) *count = 1;
    return C_OK;
}

/* LMPOP and BLMPOP: numkeys at argv[numkeys_idx], then the keys, LEFT|RIGHT
 * and [COUNT n]. timeout < 0 means the non-blocking form. */
static void mpopGenericCommand(client *c, int numkeys_idx, mstime_t timeout) {
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
    if (getListPositionFromObjectOrReply(c, c->argv[where_idx], &where) != C_OK) return;
    if (getMpopCountOrReply(c, where_idx + 1, &count) != C_OK) return;

    for (long j = 0; j < numkeys; j++) {
        robj *key = c->argv[numkeys_idx + 1 + j];
        robj *o = lookupKeyWrite(c->db, key);
        if (!o) continue;
        if (checkType(c, o, OBJ_LIST)) return;
        if (listTypeLength(o) == 0) continue;
        listPopRangeAndReplyWithKey(c, o, key, where, count);
        return;
    }
    if (timeout < 0 || blockingDenied(c)) {
        addReplyNullArray(c);
        return;
    }
    blockForKeys(c, BLOCKED_LIST, c->argv + numkeys_idx + 1, (int)numkeys, timeout);
}

void lmpopCommand(client *c) { mpopGenericCommand(c, 1, -1); }

void blmpopCommand(client *c) {
    mstime_t timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[1], &timeout, UNIT_SECONDS) != C_OK) return;
    mpopGenericCommand(c, 2, timeout);
}

/* BLPOP/BRPOP key [key ...] timeout */
static void blockingPopGenericCommand(client *c, int where) {
    mstime_t timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[c->argc - 1], &timeout, UNIT_SECONDS) != C_OK) return;
    for (int j = 1; j < c->argc - 1; j++) {
        robj *o = lookupKeyWrite(c->db, c->argv[j]);
        if (!o) continue;
        if (checkType(c, o, OBJ_LIST)) return;
        if (listTypeLength(o) == 0) continue;
        addReplyArrayLen(c, 2);
        addReplyBulk(c, c->argv[j]);
        listTypePopAndReply(c, o, where);
        listElementsRemoved(c, c->argv[j], where, o, 1);
        rewriteClientCommandVector(c, 2, where == LIST_HEAD ? shared.lpop : shared.rpop, c->argv[j]);
        return;
    }
    if (blockingDenied(c)) {
        addReplyNullArray(c);
        return;
    }
    blockForKeys(c, BLOCKED_LIST, c->argv + 1, c->argc - 2, timeout);
}

void blpopCommand(client *c) { blockingPopGenericCommand(c, LIST_HEAD); }
void brpopCommand(client *c) { blockingPopGenericCommand(c, LIST_TAIL); }

/* ---------------------------------------------------------------------------
 * Moves
 * ------------------------------------------------------------------------- */

/* LMOVE source destination wherefrom whereto, on an existing non-empty
 * source list. Replies the moved element. */
static void lmoveGenericCommand(client *c, int wherefrom, int whereto) {
    robj *src = lookupKeyWriteOrReply(c, c->argv[1], shared.null[c->resp]);
    if (!src || checkType(c, src, OBJ_LIST)) return;
    if (listTypeLength(src) == 0) { /* not expected: empty lists are deleted */
        addReplyNull(c);
        return;
    }
    robj *dst = lookupKeyWrite(c->db, c->argv[2]);
    if (checkType(c, dst, OBJ_LIST)) return;

    robj *value = listTypePop(src, wherefrom);
    if (!dst) {
        dst = createListListpackObject();
        dbAdd(c->db, c->argv[2], &dst);
    }
    listTypeTryConversionAppend(dst, &value, 0, 0);
    listTypePush(dst, value, whereto);
    signalModifiedKey(c, c->db, c->argv[2]);
    notifyKeyspaceEvent(NOTIFY_LIST, whereto == LIST_HEAD ? "lpush" : "rpush", c->argv[2], c->db->id);
    addReplyBulk(c, value);
    decrRefCount(value);

    /* The source may be the destination: check emptiness after the push. */
    listElementsRemoved(c, c->argv[1], wherefrom, src, 1);
}

void lmoveCommand(client *c) {
    int wherefrom, whereto;
    if (getListPositionFromObjectOrReply(c, c->argv[3], &wherefrom) != C_OK) return;
    if (getListPositionFromObjectOrReply(c, c->argv[4], &whereto) != C_OK) return;
    lmoveGenericCommand(c, wherefrom, whereto);
}

void rpoplpushCommand(client *c) { lmoveGenericCommand(c, LIST_TAIL, LIST_HEAD); }

/* BLMOVE/BRPOPLPUSH: like LMOVE, but waits for the source to exist. */
static void blmoveGenericCommand(client *c, int wherefrom, int whereto, robj *timeout_arg) {
    mstime_t timeout;
    if (getTimeoutFromObjectOrReply(c, timeout_arg, &timeout, UNIT_SECONDS) != C_OK) return;
    robj *src = lookupKeyWrite(c->db, c->argv[1]);
    if (checkType(c, src, OBJ_LIST)) return;
    if (src) {
        long long dirty = server.dirty;
        lmoveGenericCommand(c, wherefrom, whereto);
        if (server.dirty == dirty) return;
        /* Propagated as the non-blocking form. */
        if (c->argc == 6) {
            robj *lmove = createStringObject("LMOVE", 5);
            rewriteClientCommandVector(c, 5, lmove, c->argv[1], c->argv[2], c->argv[3], c->argv[4]);
            decrRefCount(lmove);
        } else {
            robj *rpoplpush = createStringObject("RPOPLPUSH", 9);
            rewriteClientCommandVector(c, 3, rpoplpush, c->argv[1], c->argv[2]);
            decrRefCount(rpoplpush);
        }
        return;
    }
    if (blockingDenied(c)) {
        addReplyNull(c);
        return;
    }
    blockForKeys(c, BLOCKED_LIST, c->argv + 1, 1, timeout);
}

void blmoveCommand(client *c) {
    int wherefrom, whereto;
    if (getListPositionFromObjectOrReply(c, c->argv[3], &wherefrom) != C_OK) return;
    if (getListPositionFromObjectOrReply(c, c->argv[4], &whereto) != C_OK) return;
    blmoveGenericCommand(c, wherefrom, whereto, c->argv[5]);
}

void brpoplpushCommand(client *c) { blmoveGenericCommand(c, LIST_TAIL, LIST_HEAD, c->argv[3]); }

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

/* Keys of LMPOP (numkeys at argv[1]) and BLMPOP (numkeys at argv[2]). */
static int mpopGetKeys(int numkeys_idx, robj **argv, int argc, int *keys, int maxkeys) {
    long long numkeys;
    if (numkeys_idx >= argc || getLongLongFromObject(argv[numkeys_idx], &numkeys) != C_OK) return 0;
    if (numkeys <= 0 || numkeys > argc - numkeys_idx - 1) return 0;
    int n = 0;
    for (long long j = 0; j < numkeys && n < maxkeys; j++) keys[n++] = numkeys_idx + 1 + (int)j;
    return n;
}

static int lmpopGetKeys(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys) {
    (void)cmd;
    return mpopGetKeys(1, argv, argc, keys, maxkeys);
}

static int blmpopGetKeys(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys) {
    (void)cmd;
    return mpopGetKeys(2, argv, argc, keys, maxkeys);
}

#define LIST_W (CMD_WRITE | CMD_DENYOOM)

struct serverCommand listCommands[] = {
    {.name = "lpush", .proc = lpushCommand, .arity = -3, .flags = LIST_W | CMD_FAST,
     .acl_categories = ACL_CATEGORY_LIST, .key = {1, 1, 1}, .group = "list", .since = "1.0.0",
     .summary = "Prepends one or more elements to a list. Creates the key if it doesn't exist.",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with "
                   "multiple arguments.",
     .args = "key element [element ...]"},
    {.name = "rpush", .proc = rpushCommand, .arity = -3, .flags = LIST_W | CMD_FAST,
     .acl_categories = ACL_CATEGORY_LIST, .key = {1, 1, 1}, .group = "list", .since = "1.0.0",
     .summary = "Appends one or more elements to a list. Creates the key if it doesn't exist.",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with "
                   "multiple arguments.",
     .args = "key element [element ...]"},
    {.name = "lpushx", .proc = lpushxCommand, .arity = -3, .flags = LIST_W | CMD_FAST,
     .acl_categories = ACL_CATEGORY_LIST, .key = {1, 1, 1}, .group = "list", .since = "2.2.0",
     .summary = "Prepends one or more elements to a list only when the list exists.",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with "
                   "multiple arguments.",
     .args = "key element [element ...]"},
    {.name = "rpushx", .proc = rpushxCommand, .arity = -3, .flags = LIST_W | CMD_FAST,
     .acl_categories = ACL_CATEGORY_LIST, .key = {1, 1, 1}, .group = "list", .since = "2.2.0",
     .summary = "Appends an element to a list only when the list exists.",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with "
                   "multiple arguments.",
     .args = "key element [element ...]"},
    {.name = "linsert", .proc = linsertCommand, .arity = 5, .flags = LIST_W, .acl_categories = ACL_CATEGORY_LIST,
     .key = {1, 1, 1}, .group = "list", .since = "2.2.0",
     .summary = "Inserts an element before or after another element in a list.",
     .complexity = "O(N) where N is the number of elements to traverse before seeing the value pivot. This means "
                   "that inserting somewhere on the left end on the list (head) can be considered O(1) and "
                   "inserting somewhere on the right end (tail) is O(N).",
     .args = "key where=<BEFORE | AFTER> pivot element"},
    {.name = "llen", .proc = llenCommand, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_LIST, .key = {1, 1, 1}, .group = "list", .since = "1.0.0",
     .summary = "Returns the length of a list.", .complexity = "O(1)",
     .args = "key"},
    {.name = "lindex", .proc = lindexCommand, .arity = 3, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_LIST, .key = {1, 1, 1}, .group = "list", .since = "1.0.0",
     .summary = "Returns an element from a list by its index.",
     .complexity = "O(N) where N is the number of elements to traverse to get to the element at index. This "
                   "makes asking for the first or the last element of the list O(1).",
     .args = "key index"},
    {.name = "lrange", .proc = lrangeCommand, .arity = 4, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_LIST, .key = {1, 1, 1}, .group = "list", .since = "1.0.0",
     .summary = "Returns a range of elements from a list.",
     .complexity = "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end "
                   "(HEAD or TAIL) for large lists; and N is the number of elements in the specified range.",
     .args = "key start stop"},
    {.name = "lpos", .proc = lposCommand, .arity = -3, .flags = CMD_READONLY, .acl_categories = ACL_CATEGORY_LIST,
     .key = {1, 1, 1}, .group = "list", .since = "6.0.6",
     .summary = "Returns the index of matching elements in a list.",
     .complexity = "O(N) where N is the number of elements in the list, for the average case. When searching "
                   "for elements near the head or the tail of the list, or when the MAXLEN option is provided, "
                   "the command may run in constant time.",
     .args = "key element [RANK rank:integer] [COUNT num-matches:integer] [MAXLEN len:integer]"},
    {.name = "lset", .proc = lsetCommand, .arity = 4, .flags = LIST_W, .acl_categories = ACL_CATEGORY_LIST,
     .key = {1, 1, 1}, .group = "list", .since = "1.0.0", .summary = "Sets the value of an element in a list by its index.",
     .complexity = "O(N) where N is the length of the list. Setting either the first or the last element of the "
                   "list is O(1).",
     .args = "key index element"},
    {.name = "ltrim", .proc = ltrimCommand, .arity = 4, .flags = CMD_WRITE, .acl_categories = ACL_CATEGORY_LIST,
     .key = {1, 1, 1}, .group = "list", .since = "1.0.0",
     .summary = "Removes elements from both ends a list. Deletes the list if all elements were trimmed.",
     .complexity = "O(N) where N is the number of elements to be removed by the operation.",
     .args = "key start stop"},
    {.name = "lrem", .proc = lremCommand, .arity = 4, .flags = CMD_WRITE, .acl_categories = ACL_CATEGORY_LIST,
     .key = {1, 1, 1}, .group = "list", .since = "1.0.0",
     .summary = "Removes elements from a list. Deletes the list if the last element was removed.",
     .complexity = "O(N+M) where N is the length of the list and M is the number of elements removed.",
     .args = "key count element"},
    {.name = "lpop", .proc = lpopCommand, .arity = -2, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_LIST, .key = {1, 1, 1}, .group = "list", .since = "1.0.0",
     .summary = "Returns the first elements in a list after removing it. Deletes the list if the last element "
                "was popped.",
     .complexity = "O(N) where N is the number of elements returned",
     .args = "key [count]"},
    {.name = "rpop", .proc = rpopCommand, .arity = -2, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_LIST, .key = {1, 1, 1}, .group = "list", .since = "1.0.0",
     .summary = "Returns and removes the last elements of a list. Deletes the list if the last element was "
                "popped.",
     .complexity = "O(N) where N is the number of elements returned",
     .args = "key [count]"},
    {.name = "lmpop", .proc = lmpopCommand, .arity = -4, .flags = CMD_WRITE | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_CATEGORY_LIST, .getkeys_proc = lmpopGetKeys, .group = "list", .since = "7.0.0",
     .summary = "Returns multiple elements from a list after removing them. Deletes the list if the last element "
                "was popped.",
     .complexity = "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
     .args = "numkeys key [key ...] where=<LEFT | RIGHT> [COUNT count]"},
    {.name = "lmove", .proc = lmoveCommand, .arity = 5, .flags = LIST_W, .acl_categories = ACL_CATEGORY_LIST,
     .key = {1, 2, 1}, .group = "list", .since = "6.2.0",
     .summary = "Returns an element after popping it from one list and pushing it to another. Deletes the list if "
                "the last element was moved.",
     .complexity = "O(1)",
     .args = "source destination wherefrom=<LEFT | RIGHT> whereto=<LEFT | RIGHT>"},
    {.name = "rpoplpush", .proc = rpoplpushCommand, .arity = 3, .flags = LIST_W,
     .acl_categories = ACL_CATEGORY_LIST, .key = {1, 2, 1}, .group = "list", .since = "1.2.0",
     .summary = "Returns the last element of a list after removing and pushing it to another list. Deletes the "
                "list if the last element was popped.",
     .complexity = "O(1)",
     .args = "source destination"},
    {.name = "blpop", .proc = blpopCommand, .arity = -3, .flags = CMD_WRITE | CMD_BLOCKING,
     .acl_categories = ACL_CATEGORY_LIST | ACL_CATEGORY_BLOCKING, .key = {1, -2, 1}, .group = "list",
     .since = "2.0.0",
     .summary = "Removes and returns the first element in a list. Blocks until an element is available "
                "otherwise. Deletes the list if the last element was popped.",
     .complexity = "O(N) where N is the number of provided keys.",
     .args = "key [key ...] timeout:double"},
    {.name = "brpop", .proc = brpopCommand, .arity = -3, .flags = CMD_WRITE | CMD_BLOCKING,
     .acl_categories = ACL_CATEGORY_LIST | ACL_CATEGORY_BLOCKING, .key = {1, -2, 1}, .group = "list",
     .since = "2.0.0",
     .summary = "Removes and returns the last element in a list. Blocks until an element is available otherwise. "
                "Deletes the list if the last element was popped.",
     .complexity = "O(N) where N is the number of provided keys.",
     .args = "key [key ...] timeout:double"},
    {.name = "blmove", .proc = blmoveCommand, .arity = 6, .flags = LIST_W | CMD_BLOCKING,
     .acl_categories = ACL_CATEGORY_LIST | ACL_CATEGORY_BLOCKING, .key = {1, 2, 1}, .group = "list",
     .since = "6.2.0",
     .summary = "Pops an element from a list, pushes it to another list and returns it. Blocks until an element "
                "is available otherwise. Deletes the list if the last element was moved.",
     .complexity = "O(1)",
     .args = "source destination wherefrom=<LEFT | RIGHT> whereto=<LEFT | RIGHT> timeout:double"},
    {.name = "brpoplpush", .proc = brpoplpushCommand, .arity = 4, .flags = LIST_W | CMD_BLOCKING,
     .acl_categories = ACL_CATEGORY_LIST | ACL_CATEGORY_BLOCKING, .key = {1, 2, 1}, .group = "list",
     .since = "2.2.0",
     .summary = "Pops an element from a list, pushes it to another list and returns it. Block until an element "
                "is available otherwise. Deletes the list if the last element was popped.",
     .complexity = "O(1)",
     .args = "source destination timeout:double"},
    {.name = "blmpop", .proc = blmpopCommand, .arity = -5, .flags = CMD_WRITE | CMD_BLOCKING | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_CATEGORY_LIST | ACL_CATEGORY_BLOCKING, .getkeys_proc = blmpopGetKeys, .group = "list",
     .since = "7.0.0",
     .summary = "Pops the first element from one of multiple lists. Blocks until an element is available "
                "otherwise. Deletes the list if the last element was popped.",
     .complexity = "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
     .args = "timeout:double numkeys key [key ...] where=<LEFT | RIGHT> [COUNT count]"},
    {0},
};
