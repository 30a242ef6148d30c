/* zskiplist.h - the ordered index of a large sorted set: a skiplist of
 * (score, member) nodes whose forward links carry spans, so a walk can count
 * how many elements it stepped over and ranks come out in O(log N).
 *
 * A leaf library: it uses only sds and zmalloc and never includes server.h,
 * so src/unit/test_zskiplist.c links it alone. t_zset.c pairs a skiplist
 * with a dict (member -> score) for O(1) score lookups. Members are
 * borrowed: a node points at an sds its owner keeps alive (t_zset.c keeps
 * each member inside its dict entry) and nothing here frees one, which is
 * why the range deletes hand each removed member to a callback: the owner
 * drops it there.
 *
 * Order: ascending score, then members by binary comparison (memcmp, the
 * shorter first on a common prefix). Scores are never NaN; callers refuse
 * NaN before it gets here. A member appears at most once: callers check
 * the dict before inserting.
 *
 * Ranks in this API are 1-based (the header is rank 0); callers convert to
 * the 0-based ranks of the commands.
 *
 * Ranges: zrangeSpec is a score interval with optional open ends; a
 * zlexRange is a member interval whose ends may also be -inf / +inf ("-" and
 * "+" on the wire). Both have a parser here, since the wire syntax
 * ("(1.5", "[abc") belongs to the range, not to the command. */
#ifndef VK_ZSKIPLIST_H
#define VK_ZSKIPLIST_H

#include <stddef.h>

#include "sds.h"

#define ZSKIPLIST_MAXLEVEL 32 /* Enough for 4^32 elements. */
#define ZSKIPLIST_P 0.25      /* A node reaches level k+1 with probability P. */

typedef struct zskiplistNode {
    sds ele;                        /* The member; borrowed, see above. */
    double score;
    struct zskiplistNode *backward; /* Previous node at level 0, NULL for the first. */
    struct zskiplistLevel {
        struct zskiplistNode *forward;
        unsigned long span; /* Level-0 steps from this node to `forward`. */
    } level[];
} zskiplistNode;

typedef struct zskiplist {
    zskiplistNode *header; /* Sentinel with ZSKIPLIST_MAXLEVEL levels; no member. */
    zskiplistNode *tail;   /* Last node, NULL when empty. */
    unsigned long length;
    int level; /* Levels in use (>= 1). */
} zskiplist;

/* A score interval: min/max with "exclusive" flags. */
typedef struct zrangeSpec {
    double min, max;
    int minex, maxex;
} zrangeSpec;

/* One end of a member interval: -1 = "-" (below everything), +1 = "+"
 * (above everything), 0 = the bytes s (an sds owned by the range). */
typedef struct zlexBound {
    sds s;
    int inf;
    int ex; /* exclusive: "(" rather than "[" */
} zlexBound;

typedef struct zlexRange {
    zlexBound min, max;
} zlexRange;

/* Called with each member a range delete removes, after the node is
 * unlinked and before it is freed (the callback may free the member). */
typedef void zslDeleteCallback(sds ele, void *privdata);

/* ---- Lifetime ----------------------------------------------------------- */

/* Returns a new empty skiplist; caller owns it, free with zslFree(). */
zskiplist *zslCreate(void);
/* Frees the skiplist and its nodes (not the members). */
void zslFree(zskiplist *zsl);
/* Frees one node already unlinked by zslDelete() (not its member). */
void zslFreeNode(zskiplistNode *node);

/* ---- Updates ------------------------------------------------------------ */

/* Inserts (score, ele); ele must stay valid until its node is deleted. The
 * member must not be in the list. Returns the new node. */
zskiplistNode *zslInsert(zskiplist *zsl, double score, sds ele);
/* Removes the node (score, ele). Returns 1 if found. If node is NULL the
 * node is freed, else it is unlinked and handed back in *node (the caller
 * frees it with zslFreeNode, e.g. after the dict stopped pointing at it).
 * Returns 0 and leaves the list alone if no such node exists. */
int zslDelete(zskiplist *zsl, double score, const char *ele, size_t len, zskiplistNode **node);
/* Moves the node (curscore, ele), which must exist, to newscore and returns
 * it (maybe the same node, updated in place, when its position holds). */
zskiplistNode *zslUpdateScore(zskiplist *zsl, double curscore, const char *ele, size_t len, double newscore);

/* Range deletes: return how many nodes went, calling cb (if not NULL) for
 * each before it is freed. Ranks are 1-based and inclusive. */
unsigned long zslDeleteRangeByScore(zskiplist *zsl, const zrangeSpec *range, zslDeleteCallback *cb, void *pd);
unsigned long zslDeleteRangeByLex(zskiplist *zsl, const zlexRange *range, zslDeleteCallback *cb, void *pd);
unsigned long zslDeleteRangeByRank(zskiplist *zsl, unsigned long start, unsigned long end, zslDeleteCallback *cb,
                                   void *pd);

/* ---- Lookups ------------------------------------------------------------ */

/* 1-based rank of (score, ele), or 0 if absent. */
unsigned long zslGetRank(zskiplist *zsl, double score, const char *ele, size_t len);
/* Node at the 1-based rank, or NULL if out of range. */
zskiplistNode *zslGetElementByRank(zskiplist *zsl, unsigned long rank);
/* First / last node inside the range, or NULL if none. */
zskiplistNode *zslFirstInRange(zskiplist *zsl, const zrangeSpec *range);
zskiplistNode *zslLastInRange(zskiplist *zsl, const zrangeSpec *range);
zskiplistNode *zslFirstInLexRange(zskiplist *zsl, const zlexRange *range);
zskiplistNode *zslLastInLexRange(zskiplist *zsl, const zlexRange *range);

/* ---- Active defragmentation (defrag.c, through t_zset.c) --------------- */

/* Called with each node zslDefrag() moved, so the owner can re-point what
 * points at the node from outside the list. */
typedef void zslMovedCallback(zskiplistNode *node, void *privdata);

/* Offers the header (when from is 0), then up to count nodes starting at
 * 1-based rank from + 1, to defragfn, which returns a block's new address
 * (the old block is then freed) or NULL when it stays. Moved nodes are
 * relinked here (forward links, the next node's backward link, header and
 * tail) and handed to moved(). Returns the rank of the last node offered,
 * to pass back as `from`, or 0 when the end of the list was reached. */
unsigned long zslDefrag(zskiplist *zsl, unsigned long from, unsigned long count, void *(*defragfn)(void *),
                        zslMovedCallback *moved, void *privdata);

/* ---- Ranges ------------------------------------------------------------- */

/* 1 if value satisfies the lower / upper bound of range. */
int zslValueGteMin(double value, const zrangeSpec *range);
int zslValueLteMax(double value, const zrangeSpec *range);
/* 1 if some double could lie inside range (min < max, or equal and both
 * ends closed). */
int zslRangeNonEmpty(const zrangeSpec *range);
/* Member bytes against one bound: <0, 0, >0 as s sorts before, equal to or
 * after the bound. "-" sorts before everything, "+" after. */
int zslLexCompare(const char *s, size_t len, const zlexBound *b);
int zslLexValueGteMin(const char *s, size_t len, const zlexRange *range);
int zslLexValueLteMax(const char *s, size_t len, const zlexRange *range);
/* 1 if some member could lie inside range. */
int zslLexRangeNonEmpty(const zlexRange *range);

/* Parses ZRANGEBYSCORE bounds ("1.5", "(1.5", "-inf", "+inf"). Returns 0 on
 * success, -1 if either is not a float (or is NaN). */
int zslParseRange(const char *min, size_t minlen, const char *max, size_t maxlen, zrangeSpec *range);
/* Parses ZRANGEBYLEX bounds ("-", "+", "[abc", "(abc"). Returns 0 on
 * success (free with zslFreeLexRange), -1 on a malformed bound. */
int zslParseLexRange(const char *min, size_t minlen, const char *max, size_t maxlen, zlexRange *range);
void zslFreeLexRange(zlexRange *range);

/* Compares two members the way the skiplist orders them. */
int zslCompareMembers(const char *a, size_t alen, const char *b, size_t blen);

#endif
