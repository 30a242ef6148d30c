/* quicklist.c - a doubly linked list of listpack nodes (see quicklist.h).
 *
 * The LIST type (t_list.c) switches a key from a single listpack to a
 * quicklist once it outgrows list-max-listpack-size; from then on pushes
 * and pops touch only the head or tail node, and an index lookup walks
 * nodes by their cached counts before seeking inside one listpack.
 *
 * Invariants: no node is empty (a node whose last element goes is
 * unlinked at once); node->sz and node->count always equal lpBytes() and
 * lpLength() of node->lp; ql->count is the sum of node counts and ql->len
 * the number of nodes. A node may exceed the fill limit only when it holds
 * exactly one element. Adjacent nodes are not merged after deletions:
 * simpler, and a list that shrinks enough is turned back into a single
 * listpack by t_list.c anyway.
 *
 * Not done yet: list-compress-depth is stored but nodes are never
 * compressed, and there are no "plain" nodes for huge elements (a huge
 * element simply gets a one-element listpack node). Uses zmalloc and
 * listpack only; never includes server.h. */
#include "quicklist.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    return node;
}

static inline void qlNodeUpdate(quicklistNode *node) {
    node->sz = lpBytes(node->lp);
    node->count = (unsigned int)lpLength(node->lp);
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
    lpFree(node->lp);
    zfree(node);
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
 * returns the new node. 0 < offset < node->count. */
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
    quicklistSetOptions(ql, fill, compress);
    return ql;
}

/* See quicklist.h. */
void quicklistSetOptions(quicklist *ql, int fill, int compress) {
    ql->fill = fill;
    ql->compress = compress < 0 ? 0 : (unsigned int)compress;
}

/* See quicklist.h. */
void quicklistRelease(quicklist *ql) {
    quicklistNode *node = ql->head;
    while (node) {
        quicklistNode *next = node->next;
        lpFree(node->lp);
        zfree(node);
        node = next;
    }
    zfree(ql);
}

/* See quicklist.h. */
quicklist *quicklistDup(quicklist *ql) {
    quicklist *copy = quicklistCreate(ql->fill, (int)ql->compress);
    for (quicklistNode *node = ql->head; node; node = node->next) {
        qlLinkAfter(copy, copy->tail, qlNodeCreate(lpDup(node->lp)));
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
int quicklistPop(quicklist *ql, int where, unsigned char **data, size_t *sz, long long *lval) {
    quicklistNode *node = where == QUICKLIST_HEAD ? ql->head : ql->tail;
    if (!node) return 0;
    unsigned char *p = where == QUICKLIST_HEAD ? lpFirst(node->lp) : lpLast(node->lp);
    unsigned int slen;
    unsigned char *s = lpGetValue(p, &slen, lval);
    if (s) {
        *data = zmalloc(slen ? slen : 1);
        memcpy(*data, s, slen);
        *sz = slen;
    } else {
        *data = NULL;
        *sz = 0;
    }
    int gone;
    qlNodeDelEntry(ql, node, p, &gone);
    return 1;
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
    while (remaining > 0 && node) {
        quicklistNode *next = node->next;
        if (offset == 0 && remaining >= node->count) {
            remaining -= node->count;
            qlNodeDelete(ql, node);
        } else {
            unsigned long n = node->count - offset;
            if (n > remaining) n = remaining;
            node->lp = lpDeleteRange(node->lp, (long)offset, n);
            qlNodeUpdate(node);
            ql->count -= n;
            remaining -= n;
        }
        offset = 0;
        node = next;
    }
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

/* See quicklist.h. */
int quicklistReplaceAtIndex(quicklist *ql, long index, const void *s, size_t len) {
    quicklistEntry e;
    if (!quicklistGetEntryAtIdx(ql, index, &e)) return 0;
    unsigned char *newp;
    qlNodeReplace(ql, e.node, e.p, s, len, &newp);
    return 1;
}

/* See quicklist.h. */
size_t quicklistMemUsage(const quicklist *ql) {
    size_t total = zmalloc_size((void *)ql);
    for (quicklistNode *node = ql->head; node; node = node->next)
        total += zmalloc_size(node) + zmalloc_size(node->lp);
    return total;
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
    iter->node = node;
    iter->p = lpSeek(node->lp, (long)offset);
    iter->p_is_next = 1;
    return iter;
}

/* See quicklist.h. */
void quicklistReleaseIterator(quicklistIter *iter) { zfree(iter); }

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
    unsigned char *lp = iter->node->lp;
    if (iter->p == NULL)
        iter->p = fwd ? lpFirst(lp) : lpLast(lp);
    else if (!iter->p_is_next)
        iter->p = fwd ? lpNext(lp, iter->p) : lpPrev(lp, iter->p);
    iter->p_is_next = 0;
    while (iter->p == NULL) {
        iter->node = fwd ? iter->node->next : iter->node->prev;
        if (!iter->node) return 0;
        iter->p = fwd ? lpFirst(iter->node->lp) : lpLast(iter->node->lp);
    }
    qlFillEntry(iter->ql, iter->node, iter->p, entry);
    return 1;
}

/* See quicklist.h. */
int quicklistGetEntryAtIdx(quicklist *ql, long idx, quicklistEntry *entry) {
    if (idx < 0) idx += (long)ql->count;
    if (idx < 0 || (unsigned long)idx >= ql->count) return 0;
    unsigned long offset;
    quicklistNode *node = qlFindNode(ql, (unsigned long)idx, &offset);
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
        iter->node = after;
        return;
    }
    unsigned char *next = fwd ? newp : (newp ? lpPrev(node->lp, newp) : lpLast(node->lp));
    if (next) {
        iter->node = node;
        iter->p = next;
        iter->p_is_next = 1;
    } else {
        iter->node = after;
    }
}

/* See quicklist.h. */
void quicklistReplaceEntry(quicklistIter *iter, quicklistEntry *entry, const void *s, size_t len) {
    unsigned char *newp;
    quicklistNode *node = qlNodeReplace(iter->ql, entry->node, entry->p, s, len, &newp);
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
            node->next->lp = lpPrepend(node->next->lp, s, len);
            qlNodeUpdate(node->next);
        } else {
            qlLinkAfter(ql, node, qlNodeWithElement(s, len));
        }
        return;
    }
    if (at_head) {
        if (qlNodeAllowInsert(ql, node->prev, s, len)) {
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

/* See quicklist.h. */
void quicklistInsertBefore(quicklistIter *iter, quicklistEntry *entry, const void *s, size_t len) {
    qlInsert(iter->ql, entry->node, entry->p, s, len, 0);
    iter->node = NULL;
}

/* See quicklist.h. */
void quicklistInsertAfter(quicklistIter *iter, quicklistEntry *entry, const void *s, size_t len) {
    qlInsert(iter->ql, entry->node, entry->p, s, len, 1);
    iter->node = NULL;
}

/* See quicklist.h. */
int quicklistCheck(const quicklist *ql) {
    unsigned long count = 0, len = 0;
    const quicklistNode *prev = NULL;
    for (const quicklistNode *node = ql->head; node; node = node->next) {
        if (node->prev != prev) return 0;
        if (node->count == 0 || node->count != lpLength(node->lp) || node->sz != lpBytes(node->lp)) return 0;
        if (!lpValidateIntegrity(node->lp, node->sz, 1, NULL, NULL)) return 0;
        if (node->count > 1 && quicklistNodeExceedsLimit(ql->fill, node->sz, node->count)) return 0;
        count += node->count;
        len++;
        prev = node;
    }
    return ql->tail == prev && count == ql->count && len == ql->len;
}
