/* quicklist.c - a doubly linked list of listpack nodes (see quicklist.h).
 *
 * The LIST type (t_list.c) switches a key from a single listpack to a
 * quicklist once it outgrows list-max-listpack-size; from then on pushes
 * and pops touch only the head or tail node, and an index lookup walks
 * nodes by their cached counts before seeking inside one listpack.
 *
 * Invariants: no node is empty (a node whose last element goes is
 * unlinked at once); node->sz and node->count always equal lpBytes() and
 * lpLength() of the node's listpack (its uncompressed form when the node
 * is compressed); ql->count is the sum of node counts and ql->len
 * the number of nodes. A node may exceed the fill limit only when it holds
 * exactly one element. Adjacent nodes are not merged after deletions:
 * simpler, and a list that shrinks enough is turned back into a single
 * listpack by t_list.c anyway.
 *
 * Compression (list-compress-depth d > 0): the d nodes at each end are
 * plain listpacks (pushes and pops touch only them); every node between is
 * LZF-compressed (Debian's liblzf), unless it is too small or compression
 * does not shrink it enough, in which case it stays plain and is marked
 * `tried` so it is not compressed again before its content changes. The
 * layout is kept by three steps every operation takes:
 *   - qlNodeOpen() decompresses a node before its listpack is touched;
 *   - qlFixWindow() after a change in the number of nodes: it makes sure
 *     the d nodes at each end are plain and compresses nodes just inside
 *     the window edges that were pushed out of it (it walks at most d + 4
 *     nodes inwards, stopping at a compressed one: O(d) per operation);
 *   - qlCompressAround() after changing or creating nodes in the middle:
 *     compresses that node and any fresh neighbours it split off.
 * An iterator opens the node it stands on and closes it (compressing it
 * again if it is interior) when it moves on or is released; the node it
 * stands on is passed to the steps above as `in_use` so its entry
 * pointers stay valid.
 *
 * Not done: Valkey's "plain" nodes, which hold a single element of a
 * gigabyte or more as a raw buffer instead of a listpack. Here such an
 * element gets a one-element listpack node, which behaves the same to
 * every command; only the per-element listpack header differs. Uses
 * zmalloc, listpack and liblzf only; never includes server.h. */
#include "quicklist.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <liblzf/lzf.h>

#include "listpack.h"
#include "zmalloc.h"

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
    node->sz = lpBytes(lp);
    node->count = (unsigned int)lpLength(lp);
    node->compressed = 0;
    node->tried = 0;
    return node;
}

/* After node's listpack changed: refresh the cached size and count; the
 * new content has not been tried for compression. */
static inline void qlNodeUpdate(quicklistNode *node) {
    node->sz = lpBytes(node->lp);
    node->count = (unsigned int)lpLength(node->lp);
    node->tried = 0;
}

/* Frees node's payload (listpack or LZF blob) and the node. */
static void qlNodeFree(quicklistNode *node) {
    if (node->compressed)
        zfree(node->lzf);
    else
        lpFree(node->lp);
    zfree(node);
}

/* ---------------------------------------------------------------------------
 * Compression of single nodes
 * ------------------------------------------------------------------------- */

/* Compresses a plain node if that pays off. Returns 1 if node is now
 * compressed; 0 if it stays plain (then marked `tried`). */
static int qlNodeCompress(quicklistNode *node) {
    if (node->compressed) return 1;
    if (node->tried) return 0;
    node->tried = 1;
    if (node->sz < QUICKLIST_MIN_COMPRESS_BYTES) return 0;
    /* The output may use at most sz - gain bytes, or it is not worth it:
     * lzf_compress() returns 0 when the result does not fit. */
    size_t room = node->sz - QUICKLIST_MIN_COMPRESS_GAIN;
    quicklistLZF *lzf = zmalloc(sizeof(*lzf) + room);
    unsigned int csz = lzf_compress(node->lp, (unsigned int)node->sz, lzf->data, (unsigned int)room);
    if (csz == 0 || csz + QUICKLIST_MIN_COMPRESS_GAIN >= node->sz) {
        zfree(lzf);
        return 0;
    }
    lzf = zrealloc(lzf, sizeof(*lzf) + csz);
    lzf->sz = csz;
    lpFree(node->lp);
    node->lzf = lzf;
    node->compressed = 1;
    return 1;
}

/* Returns a freshly allocated copy of node's listpack, decompressing it. */
static unsigned char *qlNodeInflate(const quicklistNode *node) {
    unsigned char *lp = zmalloc(node->sz);
    unsigned int n = lzf_decompress(node->lzf->data, (unsigned int)node->lzf->sz, lp, (unsigned int)node->sz);
    if (n != node->sz) {
        fprintf(stderr, "quicklist: corrupt LZF node (%u of %zu bytes)\n", n, node->sz);
        abort();
    }
    return lp;
}

/* Makes node's listpack usable (decompressing it if needed). The node
 * then counts as untried, so closing it compresses it again. */
static void qlNodeOpen(quicklistNode *node) {
    if (!node || !node->compressed) return;
    unsigned char *lp = qlNodeInflate(node);
    zfree(node->lzf);
    node->lp = lp;
    node->compressed = 0;
    node->tried = 0;
}

/* ---------------------------------------------------------------------------
 * Compression layout: plain ends, compressed middle
 * ------------------------------------------------------------------------- */

/* The last node of the head window and the first of the tail window, for
 * a list that has interior nodes; returns 0 (and opens every node) when
 * the list is short enough for the two windows to cover it. */
static int qlWindowEdges(quicklist *ql, quicklistNode **head_edge, quicklistNode **tail_edge) {
    unsigned long depth = ql->compress;
    if (ql->len <= 2 * depth) {
        for (quicklistNode *n = ql->head; n; n = n->next) qlNodeOpen(n);
        return 0;
    }
    quicklistNode *h = ql->head, *t = ql->tail;
    qlNodeOpen(h);
    qlNodeOpen(t);
    for (unsigned long i = 1; i < depth; i++) {
        h = h->next;
        t = t->prev;
        qlNodeOpen(h);
        qlNodeOpen(t);
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

/* Compresses the plain untried nodes among the next `limit` nodes from
 * `node` in one direction, stopping early at `stop` (a window node) or at
 * a compressed node (everything past it was interior before the change).
 * in_use is skipped over: it is compressed when closed. */
static void qlCompressRun(quicklistNode *node, int forward, quicklistNode *stop, quicklistNode *in_use,
                          unsigned long limit) {
    while (node && node != stop && limit--) {
        if (node != in_use) {
            if (node->compressed) return;
            qlNodeCompress(node); /* no-op on a tried node */
        }
        node = forward ? node->next : node->prev;
    }
}

/* After nodes were added or removed: the ends plain, and nodes pushed out
 * of the windows compressed (except in_use, compressed when closed). */
static void qlFixWindow(quicklist *ql, quicklistNode *in_use) {
    if (ql->compress == 0 || ql->len == 0) return;
    quicklistNode *he, *te;
    if (!qlWindowEdges(ql, &he, &te)) return;
    qlCompressRun(he->next, 1, te, in_use, ql->compress + QL_RUN_SLACK);
    qlCompressRun(te->prev, 0, he, in_use, ql->compress + QL_RUN_SLACK);
}

/* 1 if node is interior (outside both windows); fills the window edges. */
static int qlNodeIsInterior(quicklist *ql, quicklistNode *node, quicklistNode **he, quicklistNode **te) {
    if (!qlWindowEdges(ql, he, te)) return 0;
    quicklistNode *h = ql->head, *t = ql->tail;
    for (unsigned long i = 0; i < ql->compress; i++) {
        if (h == node || t == node) return 0;
        h = h->next;
        t = t->prev;
    }
    return 1;
}

/* After node (and maybe fresh neighbours split from it) changed: if node is
 * interior, compress it and the run of plain untried nodes around it. */
static void qlCompressAround(quicklist *ql, quicklistNode *node, quicklistNode *in_use) {
    if (ql->compress == 0 || !node) return;
    quicklistNode *he, *te;
    if (!qlNodeIsInterior(ql, node, &he, &te)) return;
    if (node != in_use) qlNodeCompress(node);
    qlCompressRun(node->prev, 0, he, in_use, QL_RUN_SLACK);
    qlCompressRun(node->next, 1, te, in_use, QL_RUN_SLACK);
}

/* An iterator or operation is done with node: compress it again if it is
 * interior and plain untried. */
static void qlNodeClose(quicklist *ql, quicklistNode *node) {
    if (ql->compress == 0 || !node || node->compressed || node->tried) return;
    quicklistNode *he, *te;
    if (qlNodeIsInterior(ql, node, &he, &te)) qlNodeCompress(node);
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
    if (!node) return 0;
    size_t add = lpEntrySizeString(s, len);
    return !quicklistNodeExceedsLimit(ql->fill, node->sz + add, node->count + 1UL);
}

/* A fresh node holding just s. */
static quicklistNode *qlNodeWithElement(const void *s, size_t len) {
    unsigned char *lp = lpAppend(lpNew(0), s, len);
    return qlNodeCreate(lp);
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
    ql->compress = 0;
    for (quicklistNode *n = ql->head; n; n = n->next) {
        qlNodeOpen(n);
        n->tried = 0;
    }
    ql->compress = depth;
    if (depth == 0) return;
    quicklistNode *he, *te;
    if (qlWindowEdges(ql, &he, &te))
        for (quicklistNode *n = he->next; n != te; n = n->next) qlNodeCompress(n);
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
        if (node->compressed) {
            size_t bytes = sizeof(quicklistLZF) + node->lzf->sz;
            n->lzf = zmalloc(bytes);
            memcpy(n->lzf, node->lzf, bytes);
        } else {
            n->lp = lpDup(node->lp);
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
    qlNodeOpen(node); /* plain already unless compress is being changed */
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
    for (int i = 0; i < npartial; i++) qlCompressAround(ql, partial[i], NULL);
    return 1;
}

/* Replaces entry p of node with s. If the node then breaks the limit, the
 * new element is split off into a node of its own. Returns the node and
 * (through *newp) the entry now holding s. */
static quicklistNode *qlNodeReplace(quicklist *ql, quicklistNode *node, unsigned char *p, const void *s, size_t len,
                                    unsigned char **newp) {
    node->lp = lpReplace(node->lp, &p, s, len);
    qlNodeUpdate(node);
    if (node->count > 1 && quicklistNodeExceedsLimit(ql->fill, node->sz, node->count)) {
        unsigned long k = qlNodeOffsetOf(node, p);
        if (k + 1 < node->count) qlNodeSplit(ql, node, k + 1);
        if (k > 0) node = qlNodeSplit(ql, node, k);
        p = lpFirst(node->lp);
    }
    *newp = p;
    return node;
}

static int qlGetEntryAtIdx(quicklist *ql, long idx, quicklistEntry *entry);

/* After qlNodeReplace() returned node: redo the layout around it. */
static void qlAfterReplace(quicklist *ql, unsigned long len_before, quicklistNode *node, quicklistNode *in_use) {
    if (ql->len != len_before) qlFixWindow(ql, in_use);
    qlCompressAround(ql, node, in_use);
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
        total += zmalloc_size(node) + zmalloc_size(node->compressed ? (void *)node->lzf : (void *)node->lp);
    return total;
}

/* See quicklist.h. */
unsigned long quicklistCompressedNodes(const quicklist *ql) {
    unsigned long n = 0;
    for (quicklistNode *node = ql->head; node; node = node->next) n += node->compressed;
    return n;
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

/* See quicklist.h. Each node is opened while it is read and closed
 * (compressed again if it is interior) when the walk leaves it, as an
 * iterator would. */
void quicklistVisitRange(quicklist *ql, unsigned long start, unsigned long count, quicklistVisitor *visit,
                         void *ctx) {
    if (start >= ql->count || count == 0) return;
    unsigned long offset;
    quicklistNode *node = qlFindNode(ql, start, &offset);
    while (node && count) {
        qlNodeOpen(node);
        unsigned char *lp = node->lp;
        unsigned char *p = lpSeek(lp, (long)offset);
        while (p) {
            unsigned int slen = 0;
            long long ll = 0;
            unsigned char *s = lpGetValue(p, &slen, &ll);
            visit(ctx, s, s ? slen : 0, ll);
            if (--count == 0) break;
            p = lpNext(lp, p);
        }
        quicklistNode *next = node->next;
        qlNodeClose(ql, node);
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
    if (ql->compress == 0) return;
    if (ql->len != len_before) qlFixWindow(ql, NULL);
    qlCompressAround(ql, node->prev, NULL);
    qlCompressAround(ql, node, NULL);
    qlCompressAround(ql, node->next, NULL);
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
    unsigned long depth = ql->compress;
    for (const quicklistNode *node = ql->head; node; node = node->next) {
        if (node->prev != prev) return 0;
        unsigned char *lp = node->compressed ? qlNodeInflate(node) : node->lp;
        int ok = node->count != 0 && node->count == lpLength(lp) && node->sz == lpBytes(lp) &&
                 lpValidateIntegrity(lp, node->sz, 1, NULL, NULL);
        if (node->compressed) zfree(lp);
        if (!ok) return 0;
        if (node->count > 1 && quicklistNodeExceedsLimit(ql->fill, node->sz, node->count)) return 0;
        /* Layout: plain within `depth` of either end, else compressed or tried. */
        int in_window = depth == 0 || len < depth || ql->len - len <= depth;
        if (in_window && node->compressed) return 0;
        if (!in_window && !node->compressed && !node->tried) return 0;
        if (node->compressed && node->lzf->sz + QUICKLIST_MIN_COMPRESS_GAIN >= node->sz) return 0;
        count += node->count;
        len++;
        prev = node;
    }
    return ql->tail == prev && count == ql->count && len == ql->len;
}
