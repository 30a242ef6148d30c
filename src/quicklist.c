/* quicklist.c - a doubly linked list of listpack nodes (see quicklist.h).
 *
 * The LIST type (t_list.c) switches a key from a single listpack to a
 * quicklist once it outgrows list-max-listpack-size; from then on pushes
 * and pops touch only the head or tail node, and an index lookup walks
 * nodes by their cached counts before seeking inside one listpack.
 *
 * Invariants: no node is empty (a node whose last element goes is
 * unlinked at once); node->sz and node->count always equal lpBytes() and
 * lpLength() of the node's listpack (the one its at-rest form rebuilds
 * when the node is at rest); ql->count is the sum of node counts and
 * ql->len the number of nodes. A node may exceed the fill limit only when
 * it holds exactly one element. Adjacent nodes are not merged after
 * deletions: simpler, and a list that shrinks enough is turned back into a
 * single listpack by t_list.c anyway.
 *
 * Nodes at rest: the d nodes at each end (d = list-compress-depth, or 1
 * when that is 0) are plain listpacks, so pushes and pops touch only
 * them. Every node between is at rest: LZF-compressed (Debian's liblzf)
 * when d comes from list-compress-depth and that pays off, else in
 * listpack's packed form (lpPack), unless it is too small or neither form
 * shrinks it enough, in which case it stays plain and is marked `tried` so
 * it is not tried again before its content changes. Packing is what a
 * default list gets: it drops the backlen and header bytes that only
 * editing needs, for about 20% less memory with short elements, and costs
 * one pass over a node when it leaves the end. The layout is kept by three
 * steps every operation takes:
 *   - qlNodeOpen() rebuilds a node's listpack before it is touched. The
 *     at-rest form stays until the content changes (qlNodeUpdate), so
 *     closing a node that was only read just frees the listpack again;
 *   - qlFixWindow() after a change in the number of nodes: it makes sure
 *     the d nodes at each end are plain and puts at rest the nodes just
 *     inside the window edges that were pushed out of it (it walks at most
 *     d + 4 nodes inwards, stopping at one at rest: O(d) per operation);
 *   - qlRestAround() after changing or creating nodes in the middle: puts
 *     that node and any fresh neighbours it split off at rest.
 * An iterator opens the node it stands on and closes it (putting it back
 * at rest if it is interior) when it moves on or is released; the node it
 * stands on is passed to the steps above as `in_use` so its entry
 * pointers stay valid. quicklistVisitRange() (LRANGE, LINDEX) reads
 * packed nodes without opening them.
 *
 * Big nodes (Valkey's "plain" nodes): an element of at least the packed
 * threshold gets a node of its own, flagged `big`, that never takes
 * another element (qlNodeAllowInsert refuses it) and is never put at rest
 * (qlNodeRest leaves it plain and `tried`). Valkey keeps such an element
 * as a raw buffer; here it is a one-element listpack, so every read path
 * stays the same, at the cost of a few header bytes per big element. Uses
 * zmalloc, listpack and liblzf only; never includes server.h. */
#include "quicklist.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <liblzf/lzf.h>

#include "listpack.h"
#include "zmalloc.h"

/* Elements of at least this many bytes get a big node of their own. */
#define QUICKLIST_DEFAULT_PACKED_THRESHOLD (1UL << 30)
static size_t qlPackedThreshold = QUICKLIST_DEFAULT_PACKED_THRESHOLD;

/* 1 if an element of len bytes belongs in a big node. */
static inline int qlIsBig(size_t len) { return len >= qlPackedThreshold; }

/* See quicklist.h. */
int quicklistSetPackedThreshold(size_t sz) {
    if (sz > (1ULL << 32) - (1ULL << 20)) return 0;
    qlPackedThreshold = sz ? sz : QUICKLIST_DEFAULT_PACKED_THRESHOLD;
    return 1;
}

/* Byte limits for fill -1 .. -5. */
static const size_t quicklistSizeLimits[] = {4096, 8192, 16384, 32768, 65536};

/* ---------------------------------------------------------------------------
 * Limits
 * ------------------------------------------------------------------------- */

/* See quicklist.h. */
void quicklistNodeLimit(int fill, size_t *sz_limit, unsigned long *count_limit) {
    if (fill >= 0) {
        *count_limit = fill == 0 ? 1 : (unsigned long)fill;
        *sz_limit = QUICKLIST_SIZE_SAFETY_LIMIT;
    } else {
        int i = -fill - 1;
        int max = (int)(sizeof(quicklistSizeLimits) / sizeof(quicklistSizeLimits[0])) - 1;
        if (i > max) i = max;
        *sz_limit = quicklistSizeLimits[i];
        *count_limit = ULONG_MAX;
    }
}

/* See quicklist.h. */
int quicklistNodeExceedsLimit(int fill, size_t new_sz, unsigned long new_count) {
    size_t sz_limit;
    unsigned long count_limit;
    quicklistNodeLimit(fill, &sz_limit, &count_limit);
    return new_sz > sz_limit || new_count > count_limit;
}

/* ---------------------------------------------------------------------------
 * Nodes
 * ------------------------------------------------------------------------- */

static quicklistNode *qlNodeCreate(unsigned char *lp) {
    quicklistNode *node = zmalloc(sizeof(*node));
    node->prev = node->next = NULL;
    node->lp = lp;
    node->blob = NULL;
    node->sz = lpBytes(lp);
    node->count = (unsigned int)lpLength(lp);
    node->form = 0;
    node->tried = 0;
    node->big = 0;
    return node;
}

/* Drops node's at-rest form, if it has one besides its listpack. */
static inline void qlNodeDropBlob(quicklistNode *node) {
    zfree(node->blob);
    node->blob = NULL;
}

/* After node's listpack changed: refresh the cached size and count. An
 * at-rest form kept from before is stale, and the new content has not
 * been tried. */
static inline void qlNodeUpdate(quicklistNode *node) {
    node->sz = lpBytes(node->lp);
    node->count = (unsigned int)lpLength(node->lp);
    node->tried = 0;
    if (node->blob) qlNodeDropBlob(node);
}

/* Frees node's listpack and at-rest form, and the node. */
static void qlNodeFree(quicklistNode *node) {
    if (node->lp) lpFree(node->lp);
    zfree(node->blob);
    zfree(node);
}

/* ---------------------------------------------------------------------------
 * Single nodes at rest
 * ------------------------------------------------------------------------- */

/* Copies a smaller form of node's listpack, written by shrink(), into a
 * blob; NULL unless it saves at least QUICKLIST_MIN_COMPRESS_GAIN bytes
 * (shrink() returns 0 when the result does not fit in `room`). */
static quicklistBlob *qlBlobMake(const quicklistNode *node,
                                 size_t (*shrink)(const quicklistNode *, unsigned char *, size_t)) {
    size_t room = node->sz - QUICKLIST_MIN_COMPRESS_GAIN - 1;
    quicklistBlob *blob = zmalloc(sizeof(*blob) + room);
    size_t n = shrink(node, blob->data, room);
    if (n == 0) {
        zfree(blob);
        return NULL;
    }
    blob = zrealloc(blob, sizeof(*blob) + n);
    blob->sz = n;
    return blob;
}

static size_t qlShrinkLZF(const quicklistNode *node, unsigned char *dst, size_t room) {
    return lzf_compress(node->lp, (unsigned int)node->sz, dst, (unsigned int)room);
}

static size_t qlShrinkPacked(const quicklistNode *node, unsigned char *dst, size_t room) {
    return lpPack(node->lp, dst, room);
}

/* Puts a plain node at rest in its smallest form: LZF when compression is
 * on and pays off, else packed when that pays off. An open node whose
 * content did not change just drops its listpack again. Returns 1 if node
 * is now at rest; 0 if it stays plain (then marked `tried`). */
static int qlNodeRest(const quicklist *ql, quicklistNode *node) {
    if (!node->lp) return 1;
    if (node->big) {
        node->tried = 1;
        return 0;
    }
    if (!node->blob) {
        if (node->tried) return 0;
        node->tried = 1;
        if (node->sz < QUICKLIST_MIN_COMPRESS_BYTES) return 0;
        node->form = QUICKLIST_BLOB_LZF;
        if (ql->compress) node->blob = qlBlobMake(node, qlShrinkLZF);
        if (!node->blob) {
            node->form = QUICKLIST_BLOB_PACKED;
            node->blob = qlBlobMake(node, qlShrinkPacked);
        }
        if (!node->blob) return 0;
    }
    lpFree(node->lp);
    node->lp = NULL;
    return 1;
}

/* Returns a freshly allocated listpack rebuilt from node's at-rest form. */
static unsigned char *qlBlobInflate(const quicklistNode *node) {
    const quicklistBlob *blob = node->blob;
    if (node->form == QUICKLIST_BLOB_PACKED) return lpUnpack(blob->data, blob->sz, node->sz);
    unsigned char *lp = zmalloc(node->sz);
    unsigned int n = lzf_decompress(blob->data, (unsigned int)blob->sz, lp, (unsigned int)node->sz);
    if (n != node->sz) {
        fprintf(stderr, "quicklist: corrupt LZF node (%u of %zu bytes)\n", n, node->sz);
        abort();
    }
    return lp;
}

/* Makes node's listpack usable, rebuilding it if the node is at rest. The
 * at-rest form is kept until the content changes, so closing the node
 * unchanged costs nothing. */
static void qlNodeOpen(quicklistNode *node) {
    if (node && !node->lp) node->lp = qlBlobInflate(node);
}

/* Makes node plain for good (it is now one of the end nodes). */
static void qlNodeMakePlain(quicklistNode *node) {
    qlNodeOpen(node);
    if (node->blob) {
        qlNodeDropBlob(node);
        node->tried = 0; /* it did shrink: it will again */
    }
}

/* ---------------------------------------------------------------------------
 * Layout: plain ends, interior nodes at rest
 * ------------------------------------------------------------------------- */

/* Nodes kept plain at each end: list-compress-depth, or 1 when
 * compression is off (the interior nodes are then packed). */
static inline unsigned long qlDepth(const quicklist *ql) { return ql->compress ? ql->compress : 1; }

/* The last node of the head window and the first of the tail window, for
 * a list that has interior nodes; returns 0 (and makes every node plain)
 * when the list is short enough for the two windows to cover it. */
static int qlWindowEdges(quicklist *ql, quicklistNode **head_edge, quicklistNode **tail_edge) {
    unsigned long depth = qlDepth(ql);
    if (ql->len <= 2 * depth) {
        for (quicklistNode *n = ql->head; n; n = n->next) qlNodeMakePlain(n);
        return 0;
    }
    quicklistNode *h = ql->head, *t = ql->tail;
    qlNodeMakePlain(h);
    qlNodeMakePlain(t);
    for (unsigned long i = 1; i < depth; i++) {
        h = h->next;
        t = t->prev;
        qlNodeMakePlain(h);
        qlNodeMakePlain(t);
    }
    *head_edge = h;
    *tail_edge = t;
    return 1;
}

/* How far past a window edge, or past a changed node, plain untried
 * nodes can be found after one operation: the nodes pushed out of a window
 * (at most `depth`) plus those one operation creates or changes next to
 * each other (a split node, its right half, a new node, a neighbour). */
#define QL_RUN_SLACK 4

/* Puts at rest the plain nodes among the next `limit` nodes from `node`
 * in one direction, stopping early at `stop` (a window node) or at a node
 * at rest (everything past it was interior before the change). in_use is
 * skipped over: it is put at rest when closed. */
static void qlRestRun(const quicklist *ql, quicklistNode *node, int forward, quicklistNode *stop,
                      quicklistNode *in_use, unsigned long limit) {
    while (node && node != stop && limit--) {
        if (node != in_use) {
            if (!node->lp) return;
            qlNodeRest(ql, node); /* no-op on a tried node */
        }
        node = forward ? node->next : node->prev;
    }
}

/* After nodes were added or removed: the ends plain, and nodes pushed out
 * of the windows at rest (except in_use, put at rest when closed). */
static void qlFixWindow(quicklist *ql, quicklistNode *in_use) {
    if (ql->len == 0) return;
    quicklistNode *he, *te;
    if (!qlWindowEdges(ql, &he, &te)) return;
    unsigned long limit = qlDepth(ql) + QL_RUN_SLACK;
    qlRestRun(ql, he->next, 1, te, in_use, limit);
    qlRestRun(ql, te->prev, 0, he, in_use, limit);
}

/* 1 if node is interior (outside both windows); fills the window edges. */
static int qlNodeIsInterior(quicklist *ql, quicklistNode *node, quicklistNode **he, quicklistNode **te) {
    if (!qlWindowEdges(ql, he, te)) return 0;
    quicklistNode *h = ql->head, *t = ql->tail;
    for (unsigned long i = 0, depth = qlDepth(ql); i < depth; i++) {
        if (h == node || t == node) return 0;
        h = h->next;
        t = t->prev;
    }
    return 1;
}

/* After node (and maybe fresh neighbours split from it) changed: if node is
 * interior, put it and the run of plain nodes around it at rest. */
static void qlRestAround(quicklist *ql, quicklistNode *node, quicklistNode *in_use) {
    if (!node) return;
    quicklistNode *he, *te;
    if (!qlNodeIsInterior(ql, node, &he, &te)) return;
    if (node != in_use) qlNodeRest(ql, node);
    qlRestRun(ql, node->prev, 0, he, in_use, QL_RUN_SLACK);
    qlRestRun(ql, node->next, 1, te, in_use, QL_RUN_SLACK);
}

/* An iterator or operation is done with node: put it back at rest if it
 * is interior (unless it is plain and tried). */
static void qlNodeClose(quicklist *ql, quicklistNode *node) {
    if (!node || !node->lp || (!node->blob && node->tried)) return;
    quicklistNode *he, *te;
    if (qlNodeIsInterior(ql, node, &he, &te)) qlNodeRest(ql, node);
}

/* Links `node` after `old` (old NULL = as new head). */
static void qlLinkAfter(quicklist *ql, quicklistNode *old, quicklistNode *node) {
    node->prev = old;
    node->next = old ? old->next : ql->head;
    if (node->next)
        node->next->prev = node;
    else
        ql->tail = node;
    if (old)
        old->next = node;
    else
        ql->head = node;
    ql->len++;
}

/* Links `node` before `old` (old NULL = as new tail). */
static void qlLinkBefore(quicklist *ql, quicklistNode *old, quicklistNode *node) {
    qlLinkAfter(ql, old ? old->prev : ql->tail, node);
}

/* Unlinks and frees node; its elements are no longer counted. */
static void qlNodeDelete(quicklist *ql, quicklistNode *node) {
    if (node->prev)
        node->prev->next = node->next;
    else
        ql->head = node->next;
    if (node->next)
        node->next->prev = node->prev;
    else
        ql->tail = node->prev;
    ql->len--;
    ql->count -= node->count;
    qlNodeFree(node);
}

/* 1 if one more element s[0..len) fits in node under the fill rule. */
static int qlNodeAllowInsert(quicklist *ql, quicklistNode *node, const void *s, size_t len) {
    if (!node || node->big || qlIsBig(len)) return 0;
    size_t add = lpEntrySizeString(s, len);
    return !quicklistNodeExceedsLimit(ql->fill, node->sz + add, node->count + 1UL);
}

/* A fresh node holding just s: a big one if s is big. */
static quicklistNode *qlNodeWithElement(const void *s, size_t len) {
    unsigned char *lp = lpAppend(lpNew(0), s, len);
    quicklistNode *node = qlNodeCreate(lp);
    node->big = (unsigned char)qlIsBig(len);
    return node;
}

/* Moves elements [offset, count) of node into a new node linked after it;
 * returns the new node (plain). 0 < offset < node->count; node is open. */
static quicklistNode *qlNodeSplit(quicklist *ql, quicklistNode *node, unsigned long offset) {
    unsigned char *right = lpDup(node->lp);
    right = lpDeleteRange(right, 0, offset);
    node->lp = lpDeleteRange(node->lp, (long)offset, node->count - offset);
    node->lp = lpShrinkToFit(node->lp);
    qlNodeUpdate(node);
    quicklistNode *rnode = qlNodeCreate(right);
    qlLinkAfter(ql, node, rnode);
    return rnode;
}

/* Position of entry p within node (0-based). */
static unsigned long qlNodeOffsetOf(quicklistNode *node, unsigned char *p) {
    unsigned long i = 0;
    for (unsigned char *q = lpFirst(node->lp); q && q != p; q = lpNext(node->lp, q)) i++;
    return i;
}

/* ---------------------------------------------------------------------------
 * Lifetime
 * ------------------------------------------------------------------------- */

/* See quicklist.h. */
quicklist *quicklistCreate(int fill, int compress) {
    quicklist *ql = zmalloc(sizeof(*ql));
    ql->head = ql->tail = NULL;
    ql->count = ql->len = 0;
    ql->compress = 0;
    quicklistSetOptions(ql, fill, compress);
    return ql;
}

/* See quicklist.h. */
void quicklistSetOptions(quicklist *ql, int fill, int compress) {
    unsigned int depth = compress < 0 ? 0 : (unsigned int)compress;
    ql->fill = fill;
    if (ql->compress == depth) return;
    /* A new depth on a list with nodes: redo the whole layout. */
    for (quicklistNode *n = ql->head; n; n = n->next) {
        qlNodeMakePlain(n);
        n->tried = 0;
    }
    ql->compress = depth;
    quicklistNode *he, *te;
    if (qlWindowEdges(ql, &he, &te))
        for (quicklistNode *n = he->next; n != te; n = n->next) qlNodeRest(ql, n);
}

/* See quicklist.h. */
void quicklistRelease(quicklist *ql) {
    quicklistNode *node = ql->head;
    while (node) {
        quicklistNode *next = node->next;
        qlNodeFree(node);
        node = next;
    }
    zfree(ql);
}

/* See quicklist.h. */
quicklist *quicklistDup(quicklist *ql) {
    quicklist *copy = quicklistCreate(ql->fill, (int)ql->compress);
    copy->compress = ql->compress; /* the copy gets the same layout */
    for (quicklistNode *node = ql->head; node; node = node->next) {
        quicklistNode *n = zmalloc(sizeof(*n));
        *n = *node;
        if (node->lp) n->lp = lpDup(node->lp);
        if (node->blob) {
            size_t bytes = sizeof(quicklistBlob) + node->blob->sz;
            n->blob = zmalloc(bytes);
            memcpy(n->blob, node->blob, bytes);
        }
        qlLinkAfter(copy, copy->tail, n);
        copy->count += node->count;
    }
    return copy;
}

/* See quicklist.h. */
void quicklistAppendListpack(quicklist *ql, unsigned char *lp) {
    unsigned long n = lpLength(lp);
    if (n == 0) {
        lpFree(lp);
        return;
    }
    if (n == 1) {
        int64_t len;
        unsigned char buf[LP_INTBUF_SIZE];
        lpGet(lpFirst(lp), &len, buf);
        if (qlIsBig((size_t)len)) {
            quicklistAppendBig(ql, lp);
            return;
        }
    }
    if (!quicklistNodeExceedsLimit(ql->fill, lpBytes(lp), n) || n == 1) {
        qlLinkAfter(ql, ql->tail, qlNodeCreate(lpShrinkToFit(lp)));
        ql->count += n;
        qlFixWindow(ql, NULL);
        return;
    }
    /* Too big for one node: feed the elements one by one. */
    unsigned char buf[LP_INTBUF_SIZE];
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) {
        int64_t len;
        unsigned char *s = lpGet(p, &len, buf);
        quicklistPushTail(ql, s, (size_t)len);
    }
    lpFree(lp);
}

/* See quicklist.h. */
void quicklistAppendBig(quicklist *ql, unsigned char *lp) {
    quicklistNode *node = qlNodeCreate(lpShrinkToFit(lp));
    node->big = 1;
    qlLinkAfter(ql, ql->tail, node);
    ql->count++;
    qlFixWindow(ql, NULL);
}

/* ---------------------------------------------------------------------------
 * Whole-list operations
 * ------------------------------------------------------------------------- */

/* See quicklist.h. */
void quicklistPushHead(quicklist *ql, const void *s, size_t len) {
    quicklistNode *head = ql->head;
    if (qlNodeAllowInsert(ql, head, s, len)) {
        head->lp = lpPrepend(head->lp, s, len);
        qlNodeUpdate(head);
    } else {
        qlLinkAfter(ql, NULL, qlNodeWithElement(s, len));
        qlFixWindow(ql, NULL);
    }
    ql->count++;
}

/* See quicklist.h. */
void quicklistPushTail(quicklist *ql, const void *s, size_t len) {
    quicklistNode *tail = ql->tail;
    if (qlNodeAllowInsert(ql, tail, s, len)) {
        tail->lp = lpAppend(tail->lp, s, len);
        qlNodeUpdate(tail);
    } else {
        qlLinkAfter(ql, tail, qlNodeWithElement(s, len));
        qlFixWindow(ql, NULL);
    }
    ql->count++;
}

/* See quicklist.h. */
void quicklistPush(quicklist *ql, const void *s, size_t len, int where) {
    if (where == QUICKLIST_HEAD)
        quicklistPushHead(ql, s, len);
    else
        quicklistPushTail(ql, s, len);
}

/* Deletes entry p of node, unlinking the node if it empties. Returns the
 * entry that took p's place, or NULL (end of node, or node gone). */
static unsigned char *qlNodeDelEntry(quicklist *ql, quicklistNode *node, unsigned char *p, int *node_gone) {
    unsigned char *newp;
    node->lp = lpDelete(node->lp, p, &newp);
    qlNodeUpdate(node);
    ql->count--;
    *node_gone = 0;
    if (node->count == 0) {
        qlNodeDelete(ql, node);
        *node_gone = 1;
        return NULL;
    }
    return newp;
}

/* See quicklist.h. */
int quicklistPopVisit(quicklist *ql, int where, quicklistVisitor *visit, void *ctx) {
    quicklistNode *node = where == QUICKLIST_HEAD ? ql->head : ql->tail;
    if (!node) return 0;
    qlNodeOpen(node); /* the end nodes are always plain: a no-op */
    unsigned char *p = where == QUICKLIST_HEAD ? lpFirst(node->lp) : lpLast(node->lp);
    unsigned int slen = 0;
    long long lval = 0;
    unsigned char *s = lpGetValue(p, &slen, &lval);
    visit(ctx, s, s ? slen : 0, lval);
    int gone;
    qlNodeDelEntry(ql, node, p, &gone);
    if (gone) qlFixWindow(ql, NULL);
    return 1;
}

/* quicklistPop()'s visitor: keeps a copy of the element. */
typedef struct qlPopCopy {
    unsigned char **data;
    size_t *sz;
    long long *lval;
} qlPopCopy;

static void qlCopyPopped(void *ctx, const unsigned char *value, size_t sz, long long longval) {
    qlPopCopy *out = ctx;
    *out->lval = longval;
    if (value) {
        *out->data = zmalloc(sz ? sz : 1);
        memcpy(*out->data, value, sz);
        *out->sz = sz;
    } else {
        *out->data = NULL;
        *out->sz = 0;
    }
}

/* See quicklist.h. */
int quicklistPop(quicklist *ql, int where, unsigned char **data, size_t *sz, long long *lval) {
    qlPopCopy out = {data, sz, lval};
    return quicklistPopVisit(ql, where, qlCopyPopped, &out);
}

/* Finds the node holding element idx (0 <= idx < count); *offset gets its
 * position inside the node. Walks from the nearer end. */
static quicklistNode *qlFindNode(quicklist *ql, unsigned long idx, unsigned long *offset) {
    quicklistNode *node;
    if (idx < ql->count / 2) {
        unsigned long seen = 0;
        node = ql->head;
        while (seen + node->count <= idx) {
            seen += node->count;
            node = node->next;
        }
        *offset = idx - seen;
    } else {
        unsigned long seen = 0, ridx = ql->count - 1 - idx; /* index from the tail */
        node = ql->tail;
        while (seen + node->count <= ridx) {
            seen += node->count;
            node = node->prev;
        }
        *offset = node->count - 1 - (ridx - seen);
    }
    return node;
}

/* See quicklist.h. */
int quicklistDelRange(quicklist *ql, long start, long count) {
    if (count <= 0) return 0;
    if (start < 0) start += (long)ql->count;
    if (start < 0 || (unsigned long)start >= ql->count) return 0;
    unsigned long remaining = (unsigned long)count;
    if (remaining > ql->count - (unsigned long)start) remaining = ql->count - (unsigned long)start;

    unsigned long offset;
    quicklistNode *node = qlFindNode(ql, (unsigned long)start, &offset);
    quicklistNode *partial[2] = {NULL, NULL}; /* nodes that lost only some elements */
    int npartial = 0;
    while (remaining > 0 && node) {
        quicklistNode *next = node->next;
        if (offset == 0 && remaining >= node->count) {
            remaining -= node->count;
            qlNodeDelete(ql, node);
        } else {
            unsigned long n = node->count - offset;
            if (n > remaining) n = remaining;
            qlNodeOpen(node);
            node->lp = lpDeleteRange(node->lp, (long)offset, n);
            qlNodeUpdate(node);
            ql->count -= n;
            remaining -= n;
            partial[npartial++] = node; /* only the first and last can be partial */
        }
        offset = 0;
        node = next;
    }
    /* Only whole nodes are unlinked above, so partial nodes are alive. */
    qlFixWindow(ql, NULL);
    for (int i = 0; i < npartial; i++) qlRestAround(ql, partial[i], NULL);
    return 1;
}

/* Replaces entry p of node with s. If the node then breaks the limit, or
 * s is big, the new element is split off into a node of its own (a big
 * node holding a small element becomes an ordinary one). Returns the node
 * and (through *newp) the entry now holding s. */
static quicklistNode *qlNodeReplace(quicklist *ql, quicklistNode *node, unsigned char *p, const void *s, size_t len,
                                    unsigned char **newp) {
    int big = qlIsBig(len);
    node->lp = lpReplace(node->lp, &p, s, len);
    qlNodeUpdate(node);
    node->big = 0;
    if (node->count > 1 && (big || quicklistNodeExceedsLimit(ql->fill, node->sz, node->count))) {
        unsigned long k = qlNodeOffsetOf(node, p);
        if (k + 1 < node->count) qlNodeSplit(ql, node, k + 1);
        if (k > 0) node = qlNodeSplit(ql, node, k);
        p = lpFirst(node->lp);
    }
    node->big = (unsigned char)big;
    *newp = p;
    return node;
}

static int qlGetEntryAtIdx(quicklist *ql, long idx, quicklistEntry *entry);

/* After qlNodeReplace() returned node: redo the layout around it. */
static void qlAfterReplace(quicklist *ql, unsigned long len_before, quicklistNode *node, quicklistNode *in_use) {
    if (ql->len != len_before) qlFixWindow(ql, in_use);
    qlRestAround(ql, node, in_use);
}

/* See quicklist.h. */
int quicklistReplaceAtIndex(quicklist *ql, long index, const void *s, size_t len) {
    quicklistEntry e;
    if (!qlGetEntryAtIdx(ql, index, &e)) return 0;
    unsigned char *newp;
    unsigned long len_before = ql->len;
    quicklistNode *node = qlNodeReplace(ql, e.node, e.p, s, len, &newp);
    qlAfterReplace(ql, len_before, node, NULL);
    return 1;
}

/* See quicklist.h. */
size_t quicklistMemUsage(const quicklist *ql) {
    size_t total = zmalloc_size((void *)ql);
    for (quicklistNode *node = ql->head; node; node = node->next)
        total += zmalloc_size(node) + (node->lp ? zmalloc_size(node->lp) : 0) +
                 (node->blob ? zmalloc_size(node->blob) : 0);
    return total;
}

/* See quicklist.h. */
unsigned long quicklistNodesAtRest(const quicklist *ql, int form) {
    unsigned long n = 0;
    for (quicklistNode *node = ql->head; node; node = node->next) n += !node->lp && node->form == form;
    return n;
}

/* See quicklist.h. */
unsigned char *quicklistNodeListpackCopy(const quicklistNode *node) {
    return node->lp ? lpDup(node->lp) : qlBlobInflate(node);
}

/* ---------------------------------------------------------------------------
 * Iteration
 * ------------------------------------------------------------------------- */

/* See quicklist.h. */
quicklistIter *quicklistGetIterator(quicklist *ql, int direction) {
    quicklistIter *iter = zmalloc(sizeof(*iter));
    iter->ql = ql;
    iter->direction = direction;
    iter->node = direction == AL_START_HEAD ? ql->head : ql->tail;
    iter->p = NULL;
    iter->p_is_next = 0;
    return iter;
}

/* See quicklist.h. */
quicklistIter *quicklistGetIteratorAtIdx(quicklist *ql, int direction, long idx) {
    if (idx < 0) idx += (long)ql->count;
    if (idx < 0 || (unsigned long)idx >= ql->count) return NULL;
    unsigned long offset;
    quicklistNode *node = qlFindNode(ql, (unsigned long)idx, &offset);
    quicklistIter *iter = quicklistGetIterator(ql, direction);
    qlNodeOpen(node);
    iter->node = node;
    iter->p = lpSeek(node->lp, (long)offset);
    iter->p_is_next = 1;
    return iter;
}

/* See quicklist.h. */
void quicklistReleaseIterator(quicklistIter *iter) {
    qlNodeClose(iter->ql, iter->node);
    zfree(iter);
}

static void qlFillEntry(quicklist *ql, quicklistNode *node, unsigned char *p, quicklistEntry *e) {
    unsigned int slen = 0;
    e->ql = ql;
    e->node = node;
    e->p = p;
    e->longval = 0;
    e->value = lpGetValue(p, &slen, &e->longval);
    e->sz = e->value ? slen : 0;
}

/* See quicklist.h. */
int quicklistNext(quicklistIter *iter, quicklistEntry *entry) {
    int fwd = iter->direction == AL_START_HEAD;
    if (!iter->node) return 0;
    /* A node is opened when the iterator steps onto it: here only for a
     * fresh iterator or after quicklistDelEntry() moved it to the next. */
    if (iter->p == NULL) qlNodeOpen(iter->node);
    unsigned char *lp = iter->node->lp;
    if (iter->p == NULL)
        iter->p = fwd ? lpFirst(lp) : lpLast(lp);
    else if (!iter->p_is_next)
        iter->p = fwd ? lpNext(lp, iter->p) : lpPrev(lp, iter->p);
    iter->p_is_next = 0;
    while (iter->p == NULL) {
        quicklistNode *left = iter->node;
        iter->node = fwd ? left->next : left->prev;
        qlNodeClose(iter->ql, left);
        if (!iter->node) return 0;
        qlNodeOpen(iter->node);
        iter->p = fwd ? lpFirst(iter->node->lp) : lpLast(iter->node->lp);
    }
    qlFillEntry(iter->ql, iter->node, iter->p, entry);
    return 1;
}

/* Visits up to *count elements of a packed node from offset on, reading
 * the packed form itself. */
static void qlVisitPacked(const quicklistNode *node, unsigned long offset, unsigned long *count,
                          quicklistVisitor *visit, void *ctx) {
    lpPackedReader r;
    lpPackedReaderInit(&r, node->blob->data, node->blob->sz);
    lpPackedSkip(&r, offset);
    const unsigned char *s;
    unsigned int slen = 0;
    long long ll = 0;
    while (*count && lpPackedNext(&r, &s, &slen, &ll)) {
        visit(ctx, s, s ? slen : 0, ll);
        --*count;
    }
}

/* The same for a node's listpack. */
static void qlVisitListpack(unsigned char *lp, unsigned long offset, unsigned long *count, quicklistVisitor *visit,
                            void *ctx) {
    for (unsigned char *p = lpSeek(lp, (long)offset); p && *count; p = lpNext(lp, p)) {
        unsigned int slen = 0;
        long long ll = 0;
        unsigned char *s = lpGetValue(p, &slen, &ll);
        visit(ctx, s, s ? slen : 0, ll);
        --*count;
    }
}

/* See quicklist.h. A packed node is read as it is; any other node at rest
 * is opened while it is read and closed when the walk leaves it, as an
 * iterator would. */
void quicklistVisitRange(quicklist *ql, unsigned long start, unsigned long count, quicklistVisitor *visit,
                         void *ctx) {
    if (start >= ql->count || count == 0) return;
    unsigned long offset;
    quicklistNode *node = qlFindNode(ql, start, &offset);
    while (node && count) {
        quicklistNode *next = node->next;
        if (!node->lp && node->form == QUICKLIST_BLOB_PACKED) {
            qlVisitPacked(node, offset, &count, visit, ctx);
        } else {
            qlNodeOpen(node);
            qlVisitListpack(node->lp, offset, &count, visit, ctx);
            qlNodeClose(ql, node);
        }
        node = next;
        offset = 0;
    }
}

/* Fills *entry with the element at idx, opening its node (the caller
 * then modifies it and redoes the layout); 1, or 0 if out of range. */
static int qlGetEntryAtIdx(quicklist *ql, long idx, quicklistEntry *entry) {
    if (idx < 0) idx += (long)ql->count;
    if (idx < 0 || (unsigned long)idx >= ql->count) return 0;
    unsigned long offset;
    quicklistNode *node = qlFindNode(ql, (unsigned long)idx, &offset);
    qlNodeOpen(node);
    qlFillEntry(ql, node, lpSeek(node->lp, (long)offset), entry);
    return 1;
}

/* See quicklist.h. */
void quicklistDelEntry(quicklistIter *iter, quicklistEntry *entry) {
    int fwd = iter->direction == AL_START_HEAD;
    quicklistNode *node = entry->node;
    quicklistNode *after = fwd ? node->next : node->prev; /* read before node may go */
    int gone;
    unsigned char *newp = qlNodeDelEntry(iter->ql, node, entry->p, &gone);
    iter->p_is_next = 0;
    iter->p = NULL;
    if (gone) {
        iter->node = after; /* opened by the next quicklistNext() */
        qlFixWindow(iter->ql, NULL);
        return;
    }
    unsigned char *next = fwd ? newp : (newp ? lpPrev(node->lp, newp) : lpLast(node->lp));
    if (next) {
        iter->node = node;
        iter->p = next;
        iter->p_is_next = 1;
    } else {
        iter->node = after;
        qlNodeClose(iter->ql, node);
    }
}

/* See quicklist.h. */
void quicklistReplaceEntry(quicklistIter *iter, quicklistEntry *entry, const void *s, size_t len) {
    unsigned char *newp;
    unsigned long len_before = iter->ql->len;
    quicklistNode *node = qlNodeReplace(iter->ql, entry->node, entry->p, s, len, &newp);
    qlAfterReplace(iter->ql, len_before, node, node);
    iter->node = node;
    iter->p = newp;
    iter->p_is_next = 0;
}

/* Inserts s next to entry p of node (after if `after`). */
static void qlInsert(quicklist *ql, quicklistNode *node, unsigned char *p, const void *s, size_t len, int after) {
    ql->count++;
    if (qlNodeAllowInsert(ql, node, s, len)) {
        node->lp = lpInsertString(node->lp, s, len, p, after ? LP_AFTER : LP_BEFORE, NULL);
        qlNodeUpdate(node);
        return;
    }
    int at_tail = after && lpNext(node->lp, p) == NULL;
    int at_head = !after && lpPrev(node->lp, p) == NULL;
    if (at_tail) {
        if (qlNodeAllowInsert(ql, node->next, s, len)) {
            qlNodeOpen(node->next);
            node->next->lp = lpPrepend(node->next->lp, s, len);
            qlNodeUpdate(node->next);
        } else {
            qlLinkAfter(ql, node, qlNodeWithElement(s, len));
        }
        return;
    }
    if (at_head) {
        if (qlNodeAllowInsert(ql, node->prev, s, len)) {
            qlNodeOpen(node->prev);
            node->prev->lp = lpAppend(node->prev->lp, s, len);
            qlNodeUpdate(node->prev);
        } else {
            qlLinkBefore(ql, node, qlNodeWithElement(s, len));
        }
        return;
    }
    /* In the middle of a full node: split there, then use whichever half
     * has room, or a new node between them. */
    unsigned long k = qlNodeOffsetOf(node, p) + (after ? 1 : 0);
    quicklistNode *right = qlNodeSplit(ql, node, k);
    if (qlNodeAllowInsert(ql, node, s, len)) {
        node->lp = lpAppend(node->lp, s, len);
        qlNodeUpdate(node);
    } else if (qlNodeAllowInsert(ql, right, s, len)) {
        right->lp = lpPrepend(right->lp, s, len);
        qlNodeUpdate(right);
    } else {
        qlLinkAfter(ql, node, qlNodeWithElement(s, len));
    }
}

/* Inserts next to the iterator's entry, then redoes the layout around
 * the nodes touched: node and its neighbours (one may have taken the
 * element, or been split off). The iterator is done with the node. */
static void qlInsertAtIter(quicklistIter *iter, quicklistEntry *entry, const void *s, size_t len, int after) {
    quicklist *ql = iter->ql;
    quicklistNode *node = entry->node;
    unsigned long len_before = ql->len;
    qlInsert(ql, node, entry->p, s, len, after);
    iter->node = NULL;
    if (ql->len != len_before) qlFixWindow(ql, NULL);
    qlRestAround(ql, node->prev, NULL);
    qlRestAround(ql, node, NULL);
    qlRestAround(ql, node->next, NULL);
}

/* See quicklist.h. */
void quicklistInsertBefore(quicklistIter *iter, quicklistEntry *entry, const void *s, size_t len) {
    qlInsertAtIter(iter, entry, s, len, 0);
}

/* See quicklist.h. */
void quicklistInsertAfter(quicklistIter *iter, quicklistEntry *entry, const void *s, size_t len) {
    qlInsertAtIter(iter, entry, s, len, 1);
}

/* See quicklist.h. */
int quicklistCheck(const quicklist *ql) {
    unsigned long count = 0, len = 0;
    const quicklistNode *prev = NULL;
    unsigned long depth = qlDepth(ql);
    for (const quicklistNode *node = ql->head; node; node = node->next) {
        if (node->prev != prev || (!node->lp && !node->blob)) return 0;
        unsigned char *lp = node->lp ? node->lp : qlBlobInflate(node);
        int ok = node->count != 0 && node->count == lpLength(lp) && node->sz == lpBytes(lp) &&
                 lpValidateIntegrity(lp, node->sz, 1, NULL, NULL);
        if (!node->lp) zfree(lp);
        if (!ok) return 0;
        if (node->count > 1 && quicklistNodeExceedsLimit(ql->fill, node->sz, node->count)) return 0;
        if (node->big && (node->count != 1 || !node->lp || node->blob)) return 0;
        /* Layout: plain within `depth` of either end (and nothing kept
         * besides), else at rest or plain and tried. */
        int in_window = len < depth || ql->len - len <= depth;
        if (in_window && (!node->lp || node->blob)) return 0;
        if (!in_window && node->lp && (node->blob || !node->tried)) return 0;
        if (node->blob && node->blob->sz + QUICKLIST_MIN_COMPRESS_GAIN >= node->sz) return 0;
        if (node->blob && node->form == QUICKLIST_BLOB_LZF && !ql->compress) return 0;
        count += node->count;
        len++;
        prev = node;
    }
    return ql->tail == prev && count == ql->count && len == ql->len;
}
