/* zskiplist.c - a skiplist with spans: the ordered half of a large sorted
 * set (see zskiplist.h for the contract, t_zset.c for the other half).
 *
 * Shape: a header node with ZSKIPLIST_MAXLEVEL levels, then the elements
 * in order at level 0 (doubly linked through `backward`), each node also
 * present on its first `height` levels with a random height drawn so that
 * a quarter of the nodes of level k reach level k+1. Every forward link
 * records how many level-0 steps it jumps ("span"), so summing the spans
 * of the links followed while searching for a node yields its rank.
 *
 * Every update starts with the same descent: for each level from the top,
 * walk right while the next node sorts before the target, remembering the
 * last node visited on that level (`path[i]`) and the rank reached there
 * (`rank[i]`). Inserting or unlinking then only touches the path nodes'
 * links and spans. Links to NULL keep a span too (how many nodes lie after
 * their owner) so that the arithmetic stays uniform; no walk follows them.
 *
 * Nothing here knows about dicts or listpacks, and members are borrowed
 * (never freed here); range deletes report each removed member through a
 * callback so the owner can drop it. */
#include "zskiplist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "zmalloc.h"

/* ---------------------------------------------------------------------------
 * Nodes and ordering
 * ------------------------------------------------------------------------- */

static zskiplistNode *zslCreateNode(int height, double score, sds ele) {
    zskiplistNode *n = zmalloc(sizeof(*n) + (size_t)height * sizeof(struct zskiplistLevel));
    n->score = score;
    n->ele = ele;
    n->backward = NULL;
    for (int i = 0; i < height; i++) {
        n->level[i].forward = NULL;
        n->level[i].span = 0;
    }
    return n;
}

/* See zskiplist.h. */
int zslCompareMembers(const char *a, size_t alen, const char *b, size_t blen) {
    size_t common = alen < blen ? alen : blen;
    int c = common ? memcmp(a, b, common) : 0;
    if (c) return c;
    return alen < blen ? -1 : (alen > blen ? 1 : 0);
}

/* 1 if node sorts strictly before (score, ele). */
static int zslNodeBefore(const zskiplistNode *n, double score, const char *ele, size_t len) {
    if (n->score != score) return n->score < score;
    return zslCompareMembers(n->ele, sdslen(n->ele), ele, len) < 0;
}

/* Random height in [1, ZSKIPLIST_MAXLEVEL]: each pair of random bits that
 * are both zero (probability 1/4 = ZSKIPLIST_P) adds a level. */
static int zslRandomHeight(void) {
    uint64_t bits = ((uint64_t)random() << 31) ^ (uint64_t)random(); /* 62 random bits */
    int height = 1;
    while (height < ZSKIPLIST_MAXLEVEL && height <= 31 && (bits & 3) == 0) {
        height++;
        bits >>= 2;
    }
    return height;
}

/* ---------------------------------------------------------------------------
 * Lifetime
 * ------------------------------------------------------------------------- */

/* See zskiplist.h. */
zskiplist *zslCreate(void) {
    zskiplist *zsl = zmalloc(sizeof(*zsl));
    zsl->header = zslCreateNode(ZSKIPLIST_MAXLEVEL, 0, NULL);
    zsl->tail = NULL;
    zsl->length = 0;
    zsl->level = 1;
    return zsl;
}

/* See zskiplist.h. */
void zslFreeNode(zskiplistNode *node) {
    zfree(node);
}

/* See zskiplist.h. */
void zslFree(zskiplist *zsl) {
    zskiplistNode *n = zsl->header->level[0].forward;
    while (n) {
        zskiplistNode *next = n->level[0].forward;
        zslFreeNode(n);
        n = next;
    }
    zfree(zsl->header);
    zfree(zsl);
}

/* ---------------------------------------------------------------------------
 * Active defragmentation
 * ------------------------------------------------------------------------- */

/* path[i] = the last node on level i whose rank is at most rank (the
 * header, rank 0, when none). */
static void zslDescendToRank(zskiplist *zsl, unsigned long rank, zskiplistNode **path) {
    zskiplistNode *x = zsl->header;
    unsigned long r = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && r + x->level[i].span <= rank) {
            r += x->level[i].span;
            x = x->level[i].forward;
        }
        path[i] = x;
    }
}

/* See zskiplist.h. */
unsigned long zslDefrag(zskiplist *zsl, unsigned long from, unsigned long count, void *(*defragfn)(void *),
                        zslMovedCallback *moved, void *privdata) {
    if (from == 0) {
        zskiplistNode *h = defragfn(zsl->header);
        if (h) zsl->header = h;
    }
    zskiplistNode *path[ZSKIPLIST_MAXLEVEL];
    zslDescendToRank(zsl, from, path);
    zskiplistNode *x = path[0]->level[0].forward;
    unsigned long rank = from;
    while (x && count--) {
        /* The node's height: the levels on which its predecessor links
         * to it (heights are not stored). */
        int height = 0;
        while (height < zsl->level && path[height]->level[height].forward == x) height++;
        zskiplistNode *next = x->level[0].forward;
        zskiplistNode *m = defragfn(x);
        if (m) {
            for (int i = 0; i < height; i++) path[i]->level[i].forward = m;
            if (next) next->backward = m;
            else zsl->tail = m;
            x = m;
            moved(x, privdata);
        }
        for (int i = 0; i < height; i++) path[i] = x;
        rank++;
        x = next;
    }
    return x ? rank : 0;
}

/* ---------------------------------------------------------------------------
 * Insert, unlink, update
 * ------------------------------------------------------------------------- */

/* Descends to the position of (score, ele): path[i] is the last node on
 * level i sorting before it, rank[i] the 1-based rank of path[i] (0 for
 * the header). */
static void zslDescend(zskiplist *zsl, double score, const char *ele, size_t len, zskiplistNode **path,
                       unsigned long *rank) {
    zskiplistNode *x = zsl->header;
    unsigned long r = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && zslNodeBefore(x->level[i].forward, score, ele, len)) {
            r += x->level[i].span;
            x = x->level[i].forward;
        }
        path[i] = x;
        if (rank) rank[i] = r;
    }
}

/* See zskiplist.h. */
zskiplistNode *zslInsert(zskiplist *zsl, double score, sds ele) {
    zskiplistNode *path[ZSKIPLIST_MAXLEVEL];
    unsigned long rank[ZSKIPLIST_MAXLEVEL];
    zslDescend(zsl, score, ele, sdslen(ele), path, rank);

    int height = zslRandomHeight();
    if (height > zsl->level) {
        /* New levels start at the header, whose link there jumps over
         * the whole list. */
        for (int i = zsl->level; i < height; i++) {
            path[i] = zsl->header;
            rank[i] = 0;
            zsl->header->level[i].span = zsl->length;
        }
        zsl->level = height;
    }

    zskiplistNode *x = zslCreateNode(height, score, ele);
    for (int i = 0; i < height; i++) {
        /* Steps from path[i] to the new node: its distance to path[0] plus 1. */
        unsigned long before = rank[0] - rank[i];
        x->level[i].forward = path[i]->level[i].forward;
        path[i]->level[i].forward = x;
        x->level[i].span = path[i]->level[i].span - before;
        path[i]->level[i].span = before + 1;
    }
    /* Links above the new node's height now jump over one more node. */
    for (int i = height; i < zsl->level; i++) path[i]->level[i].span++;

    x->backward = path[0] == zsl->header ? NULL : path[0];
    if (x->level[0].forward) x->level[0].forward->backward = x;
    else zsl->tail = x;
    zsl->length++;
    return x;
}

/* Unlinks x, given the path that leads to it. Does not free it. */
static void zslUnlink(zskiplist *zsl, zskiplistNode *x, zskiplistNode **path) {
    for (int i = 0; i < zsl->level; i++) {
        if (path[i]->level[i].forward == x) {
            path[i]->level[i].span += x->level[i].span - 1;
            path[i]->level[i].forward = x->level[i].forward;
        } else {
            path[i]->level[i].span--;
        }
    }
    if (x->level[0].forward) x->level[0].forward->backward = x->backward;
    else zsl->tail = x->backward;
    while (zsl->level > 1 && zsl->header->level[zsl->level - 1].forward == NULL) zsl->level--;
    zsl->length--;
}

/* Returns the node the path leads to if it holds exactly (score, ele). */
static zskiplistNode *zslPathTarget(zskiplistNode **path, double score, const char *ele, size_t len) {
    zskiplistNode *x = path[0]->level[0].forward;
    if (x && x->score == score && zslCompareMembers(x->ele, sdslen(x->ele), ele, len) == 0) return x;
    return NULL;
}

/* See zskiplist.h. */
int zslDelete(zskiplist *zsl, double score, const char *ele, size_t len, zskiplistNode **node) {
    zskiplistNode *path[ZSKIPLIST_MAXLEVEL];
    zslDescend(zsl, score, ele, len, path, NULL);
    zskiplistNode *x = zslPathTarget(path, score, ele, len);
    if (!x) return 0;
    zslUnlink(zsl, x, path);
    if (node) *node = x;
    else zslFreeNode(x);
    return 1;
}

/* See zskiplist.h. */
zskiplistNode *zslUpdateScore(zskiplist *zsl, double curscore, const char *ele, size_t len, double newscore) {
    zskiplistNode *path[ZSKIPLIST_MAXLEVEL];
    zslDescend(zsl, curscore, ele, len, path, NULL);
    zskiplistNode *x = zslPathTarget(path, curscore, ele, len);
    if (!x) return NULL;

    /* If the neighbours still bracket the new score the node can stay. */
    zskiplistNode *prev = x->backward, *next = x->level[0].forward;
    if ((prev == NULL || zslNodeBefore(prev, newscore, x->ele, sdslen(x->ele))) &&
        (next == NULL || !zslNodeBefore(next, newscore, x->ele, sdslen(x->ele)))) {
        x->score = newscore;
        return x;
    }
    /* Otherwise relink it: unlink, and insert the same member again in a
     * new node. */
    zslUnlink(zsl, x, path);
    zskiplistNode *moved = zslInsert(zsl, newscore, x->ele);
    zslFreeNode(x);
    return moved;
}

/* ---------------------------------------------------------------------------
 * Ranges
 * ------------------------------------------------------------------------- */

/* See zskiplist.h. */
int zslValueGteMin(double value, const zrangeSpec *range) {
    return range->minex ? value > range->min : value >= range->min;
}

/* See zskiplist.h. */
int zslValueLteMax(double value, const zrangeSpec *range) {
    return range->maxex ? value < range->max : value <= range->max;
}

/* See zskiplist.h. */
int zslRangeNonEmpty(const zrangeSpec *range) {
    if (range->min > range->max) return 0;
    if (range->min == range->max && (range->minex || range->maxex)) return 0;
    return 1;
}

/* See zskiplist.h. */
int zslLexCompare(const char *s, size_t len, const zlexBound *b) {
    if (b->inf < 0) return 1;
    if (b->inf > 0) return -1;
    return zslCompareMembers(s, len, b->s, sdslen(b->s));
}

/* See zskiplist.h. */
int zslLexValueGteMin(const char *s, size_t len, const zlexRange *range) {
    int c = zslLexCompare(s, len, &range->min);
    return range->min.ex ? c > 0 : c >= 0;
}

/* See zskiplist.h. */
int zslLexValueLteMax(const char *s, size_t len, const zlexRange *range) {
    int c = zslLexCompare(s, len, &range->max);
    return range->max.ex ? c < 0 : c <= 0;
}

/* See zskiplist.h. */
int zslLexRangeNonEmpty(const zlexRange *range) {
    if (range->min.inf > 0 || range->max.inf < 0) return 0;
    if (range->min.inf < 0 || range->max.inf > 0) return 1;
    int c = zslCompareMembers(range->min.s, sdslen(range->min.s), range->max.s, sdslen(range->max.s));
    return (range->min.ex || range->max.ex) ? c < 0 : c <= 0;
}

/* Parses one score bound. */
static int zslParseScoreBound(const char *s, size_t len, double *value, int *ex) {
    *ex = 0;
    if (len > 0 && s[0] == '(') {
        *ex = 1;
        s++;
        len--;
    }
    double v = 0;
    /* An empty bound ("" or "(") reads as 0, as strtod leaves it. */
    if (len > 0 && (!string2d(s, len, &v) || isnan(v))) return -1;
    *value = v;
    return 0;
}

/* See zskiplist.h. */
int zslParseRange(const char *min, size_t minlen, const char *max, size_t maxlen, zrangeSpec *range) {
    if (zslParseScoreBound(min, minlen, &range->min, &range->minex) < 0) return -1;
    if (zslParseScoreBound(max, maxlen, &range->max, &range->maxex) < 0) return -1;
    return 0;
}

/* Parses one member bound: "-", "+", "[bytes" or "(bytes". */
static int zslParseLexBound(const char *s, size_t len, zlexBound *b) {
    b->s = NULL;
    b->inf = 0;
    b->ex = 0;
    if (len == 1 && s[0] == '-') {
        b->inf = -1;
        return 0;
    }
    if (len == 1 && s[0] == '+') {
        b->inf = 1;
        return 0;
    }
    if (len >= 1 && (s[0] == '[' || s[0] == '(')) {
        b->ex = s[0] == '(';
        b->s = sdsnewlen(s + 1, len - 1);
        return 0;
    }
    return -1;
}

/* See zskiplist.h. */
void zslFreeLexRange(zlexRange *range) {
    if (range->min.s) sdsfree(range->min.s);
    if (range->max.s) sdsfree(range->max.s);
    range->min.s = range->max.s = NULL;
}

/* See zskiplist.h. */
int zslParseLexRange(const char *min, size_t minlen, const char *max, size_t maxlen, zlexRange *range) {
    range->max.s = NULL;
    if (zslParseLexBound(min, minlen, &range->min) < 0 || zslParseLexBound(max, maxlen, &range->max) < 0) {
        zslFreeLexRange(range);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Lookups
 * ------------------------------------------------------------------------- */

/* See zskiplist.h. */
unsigned long zslGetRank(zskiplist *zsl, double score, const char *ele, size_t len) {
    zskiplistNode *x = zsl->header;
    unsigned long rank = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && zslNodeBefore(x->level[i].forward, score, ele, len)) {
            rank += x->level[i].span;
            x = x->level[i].forward;
        }
    }
    x = x->level[0].forward;
    if (x && x->score == score && zslCompareMembers(x->ele, sdslen(x->ele), ele, len) == 0) return rank + 1;
    return 0;
}

/* See zskiplist.h. */
zskiplistNode *zslGetElementByRank(zskiplist *zsl, unsigned long rank) {
    if (rank == 0 || rank > zsl->length) return NULL;
    zskiplistNode *x = zsl->header;
    unsigned long walked = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && walked + x->level[i].span <= rank) {
            walked += x->level[i].span;
            x = x->level[i].forward;
        }
        if (walked == rank) return x;
    }
    return NULL;
}

/* 1 if part of the list might fall in range (cheap test on both ends). */
static int zslMayIntersect(zskiplist *zsl, const zrangeSpec *range) {
    if (!zslRangeNonEmpty(range) || zsl->tail == NULL) return 0;
    if (!zslValueGteMin(zsl->tail->score, range)) return 0;
    return zslValueLteMax(zsl->header->level[0].forward->score, range);
}

/* See zskiplist.h. */
zskiplistNode *zslFirstInRange(zskiplist *zsl, const zrangeSpec *range) {
    if (!zslMayIntersect(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward && !zslValueGteMin(x->level[i].forward->score, range)) x = x->level[i].forward;
    x = x->level[0].forward;
    return x && zslValueLteMax(x->score, range) ? x : NULL;
}

/* See zskiplist.h. */
zskiplistNode *zslLastInRange(zskiplist *zsl, const zrangeSpec *range) {
    if (!zslMayIntersect(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward && zslValueLteMax(x->level[i].forward->score, range)) x = x->level[i].forward;
    return x != zsl->header && zslValueGteMin(x->score, range) ? x : NULL;
}

static int zslMayIntersectLex(zskiplist *zsl, const zlexRange *range) {
    if (!zslLexRangeNonEmpty(range) || zsl->tail == NULL) return 0;
    zskiplistNode *first = zsl->header->level[0].forward;
    if (!zslLexValueGteMin(zsl->tail->ele, sdslen(zsl->tail->ele), range)) return 0;
    return zslLexValueLteMax(first->ele, sdslen(first->ele), range);
}

/* See zskiplist.h. */
zskiplistNode *zslFirstInLexRange(zskiplist *zsl, const zlexRange *range) {
    if (!zslMayIntersectLex(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        zskiplistNode *f;
        while ((f = x->level[i].forward) && !zslLexValueGteMin(f->ele, sdslen(f->ele), range)) x = f;
    }
    x = x->level[0].forward;
    return x && zslLexValueLteMax(x->ele, sdslen(x->ele), range) ? x : NULL;
}

/* See zskiplist.h. */
zskiplistNode *zslLastInLexRange(zskiplist *zsl, const zlexRange *range) {
    if (!zslMayIntersectLex(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        zskiplistNode *f;
        while ((f = x->level[i].forward) && zslLexValueLteMax(f->ele, sdslen(f->ele), range)) x = f;
    }
    return x != zsl->header && zslLexValueGteMin(x->ele, sdslen(x->ele), range) ? x : NULL;
}

/* ---------------------------------------------------------------------------
 * Range deletes
 * ------------------------------------------------------------------------- */

/* Unlinks and frees nodes from path[0]'s successor on while keep_going()
 * says so; shared tail of the three range deletes. `what` selects the
 * test: 0 score, 1 lex, 2 rank (with *rank the rank of the next node). */
static unsigned long zslDeleteRun(zskiplist *zsl, zskiplistNode **path, int what, const void *range,
                                  unsigned long rank, unsigned long end, zslDeleteCallback *cb, void *pd) {
    unsigned long removed = 0;
    zskiplistNode *x = path[0]->level[0].forward;
    while (x) {
        int in;
        if (what == 0) in = zslValueLteMax(x->score, range);
        else if (what == 1) in = zslLexValueLteMax(x->ele, sdslen(x->ele), range);
        else in = rank <= end;
        if (!in) break;
        zskiplistNode *next = x->level[0].forward;
        zslUnlink(zsl, x, path);
        if (cb) cb(x->ele, pd);
        zslFreeNode(x);
        removed++;
        rank++;
        x = next;
    }
    return removed;
}

/* See zskiplist.h. */
unsigned long zslDeleteRangeByScore(zskiplist *zsl, const zrangeSpec *range, zslDeleteCallback *cb, void *pd) {
    zskiplistNode *path[ZSKIPLIST_MAXLEVEL];
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && !zslValueGteMin(x->level[i].forward->score, range)) x = x->level[i].forward;
        path[i] = x;
    }
    return zslDeleteRun(zsl, path, 0, range, 0, 0, cb, pd);
}

/* See zskiplist.h. */
unsigned long zslDeleteRangeByLex(zskiplist *zsl, const zlexRange *range, zslDeleteCallback *cb, void *pd) {
    zskiplistNode *path[ZSKIPLIST_MAXLEVEL];
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        zskiplistNode *f;
        while ((f = x->level[i].forward) && !zslLexValueGteMin(f->ele, sdslen(f->ele), range)) x = f;
        path[i] = x;
    }
    return zslDeleteRun(zsl, path, 1, range, 0, 0, cb, pd);
}

/* See zskiplist.h. */
unsigned long zslDeleteRangeByRank(zskiplist *zsl, unsigned long start, unsigned long end, zslDeleteCallback *cb,
                                   void *pd) {
    zskiplistNode *path[ZSKIPLIST_MAXLEVEL];
    zskiplistNode *x = zsl->header;
    unsigned long walked = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && walked + x->level[i].span < start) {
            walked += x->level[i].span;
            x = x->level[i].forward;
        }
        path[i] = x;
    }
    return zslDeleteRun(zsl, path, 2, NULL, walked + 1, end, cb, pd);
}
