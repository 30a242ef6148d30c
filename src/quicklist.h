/* quicklist.h - a doubly linked list of listpack nodes: the encoding of
 * lists too big for a single listpack ("quicklist" in OBJECT ENCODING).
 *
 * A leaf library (zmalloc, listpack and Debian's liblzf). Elements are
 * byte strings;
 * listpack may store them as integers, which reads give back as
 * `longval` with value == NULL.
 *
 * Node size rule (list-max-listpack-size, the `fill` argument):
 *   fill < 0  : a node's listpack may hold at most 4/8/16/32/64 KiB for
 *               fill -1/-2/-3/-4/-5 (values below -5 act as -5);
 *   fill >= 0 : at most `fill` elements (0 acts as 1), and never more than
 *               8 KiB (QUICKLIST_SIZE_SAFETY_LIMIT) unless the node holds a
 *               single element.
 * A single element larger than the limit gets a node of its own.
 *
 * Big elements: an element of at least the packed threshold (1 GB unless
 * DEBUG QUICKLIST-PACKED-THRESHOLD changed it; quicklistSetPackedThreshold)
 * is kept in a node of its own marked `big` (Valkey's PLAIN container,
 * saved to RDB as RDB_QUICKLIST_NODE_PLAIN): no other element is ever
 * added to that node and it is never put at rest. Replacing its element
 * with a smaller one makes it an ordinary one-element node; replacing an
 * element of an ordinary node with a big one moves it to a big node.
 *
 * Nodes at rest: every node except the `compress` nodes at each end
 * (list-compress-depth), or except the head and tail when that is 0, is
 * kept in a smaller read-only form: LZF-compressed when compression is on
 * and that pays off, else packed (listpack.h's packed form: no header,
 * terminator or backlens, and equal-size elements in runs; about 20% less
 * for short strings). A node under QUICKLIST_MIN_COMPRESS_BYTES stays
 * plain, and so does one that neither form shrinks by
 * QUICKLIST_MIN_COMPRESS_GAIN bytes (it is marked `tried` until its content
 * changes). An operation or iterator opens a node at rest (rebuilds its
 * listpack) while it uses it; closing it drops the rebuilt listpack again
 * if nothing changed, or shrinks the changed one. The head and tail nodes
 * are therefore always plain, so callers may read ql->head->lp and
 * ql->tail->lp directly; any other node's lp is only valid through the
 * functions below. */
#ifndef VK_QUICKLIST_H
#define VK_QUICKLIST_H

#include <stddef.h>

#define QUICKLIST_HEAD 0
#define QUICKLIST_TAIL -1
#define AL_START_HEAD 0
#define AL_START_TAIL 1
#define QUICKLIST_SIZE_SAFETY_LIMIT 8192
#define QUICKLIST_MIN_COMPRESS_BYTES 48 /* smaller nodes are never put at rest */
#define QUICKLIST_MIN_COMPRESS_GAIN 8   /* a form must save this many bytes */

/* What a node at rest keeps instead of its listpack. */
#define QUICKLIST_BLOB_LZF 1    /* the listpack, LZF-compressed */
#define QUICKLIST_BLOB_PACKED 2 /* the listpack's packed form (lpPack) */
typedef struct quicklistBlob {
    size_t sz;             /* bytes in data */
    unsigned char data[];
} quicklistBlob;

/* A node is plain (lp set, blob NULL), at rest (lp NULL, blob set), or
 * open and unchanged (both set, holding the same elements). */
typedef struct quicklistNode {
    struct quicklistNode *prev, *next;
    unsigned char *lp;     /* listpack with 1 or more elements, or NULL */
    quicklistBlob *blob;   /* the at-rest form, or NULL */
    size_t sz;             /* lpBytes() of the listpack, cached */
    unsigned int count;    /* elements in the listpack, cached */
    unsigned char form;    /* what blob holds: QUICKLIST_BLOB_LZF or _PACKED */
    unsigned char tried;   /* shrinking was tried and did not pay off, and
                              the content has not changed since */
    unsigned char big;     /* holds one element of at least the packed
                              threshold, alone for good (see above) */
} quicklistNode;

typedef struct quicklist {
    quicklistNode *head, *tail;
    unsigned long count; /* total elements */
    unsigned long len;   /* number of nodes */
    int fill;            /* list-max-listpack-size */
    unsigned int compress; /* list-compress-depth: plain nodes at each end
                              (0: one, the interior packed, not compressed) */
} quicklist;

/* One element as seen through an iterator: either a string (value, sz;
 * value points into the node's listpack) or an integer (value == NULL,
 * longval). node/p locate it for the modifying calls below. */
typedef struct quicklistEntry {
    quicklist *ql;
    quicklistNode *node;
    unsigned char *p;    /* listpack entry pointer */
    unsigned char *value;
    size_t sz;
    long long longval;
} quicklistEntry;

/* Iterators are lazily positioned: quicklistNext() steps from the element
 * returned last. The node an iterator stands on is kept open (an
 * entry's value points into it) until the iterator leaves it or is
 * released. Modifying calls that take the iterator keep it valid;
 * any other modification of the list invalidates it. */
typedef struct quicklistIter {
    quicklist *ql;
    quicklistNode *node; /* node of `p`, or of the next element if p is NULL */
    unsigned char *p;    /* last returned element, or the next one if p_is_next */
    int p_is_next;
    int direction;       /* AL_START_HEAD (towards tail) or AL_START_TAIL */
} quicklistIter;

/* ---- Lifetime ----------------------------------------------------------- */

/* Returns a new empty quicklist; caller owns it (quicklistRelease). */
quicklist *quicklistCreate(int fill, int compress);
void quicklistRelease(quicklist *ql);
/* Returns a deep copy. */
quicklist *quicklistDup(quicklist *ql);
/* Takes ownership of lp (may be empty: then it is freed) and appends it
 * as a node, splitting it if it exceeds the fill limit. */
void quicklistAppendListpack(quicklist *ql, unsigned char *lp);
void quicklistSetOptions(quicklist *ql, int fill, int compress);

/* ---- Limits ------------------------------------------------------------- */

/* Sets the packed threshold (bytes; 0 restores the default of 1 GB).
 * Returns 1, or 0 if sz is too close to 4 GB (left unchanged). Global to
 * every quicklist; for tests (DEBUG QUICKLIST-PACKED-THRESHOLD). */
int quicklistSetPackedThreshold(size_t sz);
/* Appends a big node holding the single element of lp (taking lp), as an
 * RDB PLAIN container is loaded, whatever the threshold. */
void quicklistAppendBig(quicklist *ql, unsigned char *lp);

/* The byte and element limits of a node for `fill` (see above). */
void quicklistNodeLimit(int fill, size_t *sz_limit, unsigned long *count_limit);
/* 1 if a node of new_sz bytes holding new_count elements breaks the limit. */
int quicklistNodeExceedsLimit(int fill, size_t new_sz, unsigned long new_count);

/* ---- Whole-list operations --------------------------------------------- */

static inline unsigned long quicklistCount(const quicklist *ql) { return ql->count; }
void quicklistPushHead(quicklist *ql, const void *s, size_t len);
void quicklistPushTail(quicklist *ql, const void *s, size_t len);
/* where: QUICKLIST_HEAD or QUICKLIST_TAIL. */
void quicklistPush(quicklist *ql, const void *s, size_t len, int where);
/* Removes the head/tail element. Returns 0 if the list is empty; else 1
 * with either *data (zmalloc'ed copy, caller frees) and *sz, or *data ==
 * NULL and *lval for integers. */
int quicklistPop(quicklist *ql, int where, unsigned char **data, size_t *sz, long long *lval);
/* Deletes `count` elements from index `start` (negative from the tail),
 * clamped to the list. Returns 1 if anything was deleted, else 0. */
int quicklistDelRange(quicklist *ql, long start, long count);
/* Replaces the element at index. Returns 1, or 0 if out of range. */
int quicklistReplaceAtIndex(quicklist *ql, long index, const void *s, size_t len);
/* Bytes used by the structure and its nodes (allocator sizes; nodes at
 * rest count their at-rest size). */
size_t quicklistMemUsage(const quicklist *ql);
/* Number of nodes at rest in `form` (QUICKLIST_BLOB_LZF or _PACKED). */
unsigned long quicklistNodesAtRest(const quicklist *ql, int form);
/* A fresh copy of node's listpack (caller frees), rebuilt from its at-rest
 * form if it has no plain one: for RDB saving. */
unsigned char *quicklistNodeListpackCopy(const quicklistNode *node);

/* ---- Iteration ---------------------------------------------------------- */

/* Returns a new iterator (caller frees with quicklistReleaseIterator). */
quicklistIter *quicklistGetIterator(quicklist *ql, int direction);
/* Iterator whose first quicklistNext() returns the element at idx
 * (negative from the tail); NULL if idx is out of range. */
quicklistIter *quicklistGetIteratorAtIdx(quicklist *ql, int direction, long idx);
void quicklistReleaseIterator(quicklistIter *iter);
/* Fills *entry with the next element; returns 1, or 0 at the end. */
int quicklistNext(quicklistIter *iter, quicklistEntry *entry);
/* Calls visit(ctx, value, sz, longval) for up to count elements from index
 * start (0 <= start) towards the tail, in order; value is NULL for an
 * integer. Cheaper than an iterator for a read-only pass over a range
 * (LRANGE). The callback must not modify the list. */
typedef void quicklistVisitor(void *ctx, const unsigned char *value, size_t sz, long long longval);
void quicklistVisitRange(quicklist *ql, unsigned long start, unsigned long count, quicklistVisitor *visit,
                         void *ctx);
/* Removes the head/tail element (where: QUICKLIST_HEAD or QUICKLIST_TAIL)
 * after handing it to visit(ctx, ...), without copying it: value points
 * into the list and is valid only during the call. Returns 0 if the list
 * is empty (visit is not called), else 1. */
int quicklistPopVisit(quicklist *ql, int where, quicklistVisitor *visit, void *ctx);
/* Deletes the element last returned by quicklistNext(); the iterator then
 * continues with the element that followed it in its direction. */
void quicklistDelEntry(quicklistIter *iter, quicklistEntry *entry);
/* Replaces the element last returned by quicklistNext(); the iterator
 * continues after it. */
void quicklistReplaceEntry(quicklistIter *iter, quicklistEntry *entry, const void *s, size_t len);
/* Inserts s before/after the element last returned by quicklistNext(). The
 * iterator must not be used afterwards except to release it. */
void quicklistInsertBefore(quicklistIter *iter, quicklistEntry *entry, const void *s, size_t len);
void quicklistInsertAfter(quicklistIter *iter, quicklistEntry *entry, const void *s, size_t len);

/* Checks every cached count/size against the nodes (rebuilding those at
 * rest into a scratch copy) and the layout: the end nodes plain, every
 * node between them at rest or `tried`. Returns 1 if consistent (unit
 * tests, DEBUG). No iterator may be open. */
int quicklistCheck(const quicklist *ql);

#endif
