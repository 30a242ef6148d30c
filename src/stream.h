/* stream.h - the stream type's in-memory layout (t_stream.c).
 *
 * A stream is an append-only log of entries, each an ID (sidmap.h) and a
 * list of field/value pairs, plus consumer groups that track what each
 * group delivered and what each consumer has yet to acknowledge.
 *
 * Entries live in nodes: a node is a listpack of consecutive entries and
 * is indexed by the ID of the entry it was created for (its "master ID";
 * the node's key in stream->index). A node takes entries until it holds
 * stream-node-max-entries entries or its listpack would pass
 * stream-node-max-bytes; then a new node starts at the tail. Each entry in
 * a node's listpack is, element by element:
 *
 *     <flags> <ms - master.ms> <seq - master.seq> <nfields> <f1> <v1> ...
 *
 * flags is 0 (live) or STREAM_ENTRY_DELETED; both deltas are taken modulo
 * 2^64 and stored as signed integers, so they stay one or two bytes for
 * entries added close together. XDEL and exact trimming only set the flag;
 * a node whose entries are all deleted is freed, and approximate trimming
 * frees whole nodes from the head. Only IDs greater than the last one are
 * ever added, so the index grows at its tail and shrinks at its head.
 *
 * Consumer groups are in a dict by name. Each group's pending entries
 * list (PEL) maps ID -> streamNACK; each consumer's PEL maps the same IDs
 * to the same streamNACK objects (owned by the group's PEL). */
#ifndef VK_STREAM_H
#define VK_STREAM_H

#include "dict.h"
#include "sds.h"
#include "sidmap.h"

#define STREAM_ENTRY_DELETED 1

/* entries_read of a group whose logical position is unknown. */
#define STREAM_CG_INVALID_ENTRIES_READ (-1LL)

typedef struct streamNode {
    unsigned char *lp; /* entries, see above */
    streamID master;   /* the ID deltas are taken from; the index key */
    streamID last;     /* ID of the last entry appended (live or not) */
    uint32_t count;    /* entries in lp, deleted ones included */
    uint32_t live;     /* entries not deleted; 0 never stays in the index */
} streamNode;

typedef struct stream {
    sidmap *index;                 /* master ID -> streamNode * */
    uint64_t length;               /* live entries */
    streamID last_id;              /* last ID generated or set (XSETID) */
    streamID first_id;             /* first live entry, 0-0 when empty */
    streamID max_deleted_entry_id; /* greatest ID removed by XDEL (or XSETID) */
    uint64_t entries_added;        /* entries ever added */
    dict *cgroups;                 /* sds name -> streamCG *, NULL if none yet */
} stream;

typedef struct streamConsumer streamConsumer;

/* A delivered, not yet acknowledged entry. */
typedef struct streamNACK {
    long long delivery_time;  /* unix ms of the last delivery */
    uint64_t delivery_count;  /* times delivered */
    streamConsumer *consumer; /* the owner, never NULL once in a group PEL */
} streamNACK;

struct streamConsumer {
    sds name;
    long long seen_time;   /* last interaction (read, claim), unix ms */
    long long active_time; /* last successful read or claim, -1 if never */
    sidmap *pel;           /* ID -> streamNACK * (shared with the group) */
};

typedef struct streamCG {
    sds name;
    streamID last_id;        /* last ID delivered with ">" */
    long long entries_read;  /* logical read counter, or INVALID */
    sidmap *pel;             /* ID -> streamNACK * (owned here) */
    dict *consumers;         /* sds name -> streamConsumer * */
} streamCG;

/* ---- t_stream.c functions the RDB codec (rdb_stream.c) builds on ------- */

struct serverObject;

/* A new empty stream object (OBJ_STREAM); the caller owns the reference. */
struct serverObject *createStreamObject(void);
/* Frees a node and its listpack (a sidmap value destructor). */
void streamNodeFree(void *n);
/* Sets first_id to the first live entry (0-0 when there is none). */
void streamUpdateFirstID(stream *s);
/* Creates group `name` at last_id. Returns it, or NULL if it exists. */
streamCG *streamCreateCG(stream *s, const char *name, size_t len, streamID last_id, long long entries_read);
/* The consumer `name` of g, or NULL. */
streamConsumer *streamLookupConsumer(streamCG *g, sds name);
/* Adds consumer `name` (copied; it must not exist yet) to g, seen now and
 * never active; returns it, owned by g. */
streamConsumer *streamCreateConsumer(streamCG *g, sds name);
/* How many entries were ever added up to and including id, when that can
 * be known without counting; else STREAM_CG_INVALID_ENTRIES_READ. */
long long streamEntriesReadAt(stream *s, const streamID *id);
/* The groups of s / consumers of g sorted by name, as Valkey lists them.
 * The caller zfree()s the array; *n gets the count. */
streamCG **streamGroupsByName(stream *s, unsigned long *n);
streamConsumer **streamConsumersByName(streamCG *g, unsigned long *n);
/* Calls fn(ctx, id, lp, fields, nfields) for every live entry of s in
 * ID order: its fields and values are the 2 * nfields listpack elements
 * of lp starting at fields. Stops early and returns -1 when fn does;
 * 0 otherwise. fn must not modify the stream (AOF rewrite, aof_rewrite.c). */
int streamForEachEntry(stream *s, int (*fn)(void *ctx, streamID id, unsigned char *lp, unsigned char *fields,
                                            long long nfields),
                       void *ctx);

#endif
