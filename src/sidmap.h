/* sidmap.h - stream IDs and an ordered map keyed by them.
 *
 * A stream ID is a pair of unsigned 64-bit numbers, <ms>-<seq>, ordered by
 * ms then seq. This header defines the ID type with its arithmetic, its
 * text form, and `sidmap`, an ordered map from IDs to opaque pointers.
 *
 * The stream type (t_stream.c) uses sidmap three ways: as the index of its
 * entry nodes (key = the first ID a node was created for), as the pending
 * entries list (PEL) of a consumer group, and as the PEL of each consumer.
 * All three need "find", "first at or after an ID", in-order walks both
 * ways, deletion in the middle and cheap removal at the head.
 *
 * The map is a skiplist: each node carries the ID, the value, a back link
 * and 1..SIDMAP_MAXLEVEL forward links, with levels drawn with p = 1/4, so
 * lookups and updates are O(log n) expected and a node costs about 48
 * bytes on average. No spans are kept: streams never ask for ranks.
 *
 * A leaf library: zmalloc only, never server.h. Values are owned by the
 * caller; sidmapFree() can call a destructor on each. */
#ifndef VK_SIDMAP_H
#define VK_SIDMAP_H

#include <stddef.h>
#include <stdint.h>

/* <ms>-<seq>. */
typedef struct streamID {
    uint64_t ms;
    uint64_t seq;
} streamID;

/* The longest text form: two 20-digit numbers, '-', NUL. */
#define STREAM_ID_STR_LEN 42

/* <0, 0, >0 as a is before, equal to, after b. */
static inline int streamCompareID(const streamID *a, const streamID *b) {
    if (a->ms != b->ms) return a->ms < b->ms ? -1 : 1;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    return 0;
}

static inline int streamIDIsZero(const streamID *id) {
    return id->ms == 0 && id->seq == 0;
}

/* Next / previous ID in order. Return 0 on success, -1 (id unchanged)
 * when id is already the largest / smallest possible one. */
int streamIncrID(streamID *id);
int streamDecrID(streamID *id);

/* Writes "<ms>-<seq>" and a NUL to buf (STREAM_ID_STR_LEN bytes);
 * returns the length without the NUL. */
int streamIDToString(const streamID *id, char *buf);

/* Parses "<ms>" or "<ms>-<seq>" (decimal, no sign, no spaces, each part
 * fitting 64 bits). With only "<ms>", seq becomes missing_seq. If
 * seq_star is not NULL, "<ms>-*" is also accepted: *seq_star is set to 1
 * and seq to 0 (otherwise *seq_star is set to 0). Returns 0 on success,
 * -1 on malformed input ("-", "+", "$", "*" are not IDs here). */
int streamParseIDText(const char *s, size_t len, uint64_t missing_seq, streamID *id, int *seq_star);

/* ---- The ordered map ----------------------------------------------------- */

#define SIDMAP_MAXLEVEL 32

typedef struct sidmapNode {
    streamID id;
    void *value;
    struct sidmapNode *prev; /* NULL for the first node */
    int level;
    struct sidmapNode *next[]; /* level entries */
} sidmapNode;

typedef struct sidmap {
    sidmapNode *header; /* sentinel with SIDMAP_MAXLEVEL links */
    sidmapNode *tail;
    unsigned long len;
    int level; /* highest level in use, >= 1 */
} sidmap;

/* Returns a new empty map; the caller owns it. */
sidmap *sidmapNew(void);
/* Frees the map; calls free_value (if not NULL) on every value. */
void sidmapFree(sidmap *m, void (*free_value)(void *));
/* Inserts id -> value. Returns the new node, or NULL (map unchanged) if id
 * is already present. */
sidmapNode *sidmapInsert(sidmap *m, streamID id, void *value);
/* The node of id, or NULL. */
sidmapNode *sidmapFind(sidmap *m, streamID id);
/* Removes id. Returns 1 and sets *old_value (if not NULL) when found,
 * else 0. */
int sidmapDelete(sidmap *m, streamID id, void **old_value);
/* First node with ID >= id, or NULL. */
sidmapNode *sidmapSeekGE(sidmap *m, streamID id);
/* Last node with ID <= id, or NULL. */
sidmapNode *sidmapSeekLE(sidmap *m, streamID id);

static inline unsigned long sidmapLen(const sidmap *m) { return m->len; }
static inline sidmapNode *sidmapFirst(const sidmap *m) { return m->header->next[0]; }
static inline sidmapNode *sidmapLast(const sidmap *m) { return m->tail; }
static inline sidmapNode *sidmapNext(const sidmapNode *n) { return n->next[0]; }
static inline sidmapNode *sidmapPrev(const sidmapNode *n) { return n->prev; }

/* Approximate bytes used by the map's own nodes (not the values). */
size_t sidmapMemory(const sidmap *m);

/* Active defragmentation (defrag.c): offers the header (when first), then
 * up to count nodes in ID order, starting with the first node (first) or
 * the first whose ID is after `after`, to defragfn, which returns a
 * block's new address (the old one is then freed) or NULL when it stays.
 * Moved nodes are relinked here (forward and back links, header, tail);
 * visit(node, privdata) is then called with each node offered, so the
 * caller may move its value. Returns 1 if nodes are left, *last being the
 * ID of the last one offered; 0 at the end. */
int sidmapDefrag(sidmap *m, int first, streamID after, unsigned long count, void *(*defragfn)(void *),
                 void (*visit)(sidmapNode *node, void *privdata), void *privdata, streamID *last);

#endif
