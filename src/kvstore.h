/* kvstore.h - a keyspace split into numbered hash tables: one table in
 * standalone mode, one per hash slot (16384) in cluster mode.
 *
 * The server's databases keep their keys in a kvstore (db.c). With one
 * table (bits 0) it is a thin wrapper around a hashtable that always
 * exists: a lookup costs one more load than a bare hashtable, and nothing
 * is counted besides what the table counts. With 2^bits tables (cluster
 * mode: bits 14, table = the key's slot) a table is created when its first
 * key arrives, and the kvstore keeps, for every table, its number of
 * entries in a Fenwick tree (a binary indexed tree), so that it can answer
 * without visiting the 16384 tables: the total, "which table holds the
 * n-th entry" (a fair random key, the next non-empty table) and the
 * entries of one slot. Empty tables are freed by kvstoreCronStep() once
 * nothing holds on to them.
 *
 * The caller says which table an operation is about (the index); every
 * change of a table's size goes through the functions below, so the counts
 * are always right. Entries are the caller's, as in hashtable.h: the
 * tables' type says how to get their key, hash, compare and destroy them.
 *
 * SCAN cursors: with one table the cursor is the table's own cursor, as
 * before; with several, its low `bits` bits are the table index and the
 * bits above are the table's cursor, so a scan goes through the tables in
 * order, each with hashtableScan()'s guarantee (every entry present for
 * the whole scan is returned at least once).
 *
 * Leaf library: never includes server.h. Not thread-safe; the server uses
 * it from the main thread (and a freed kvstore from the lazy free thread). */
#ifndef VK_KVSTORE_H
#define VK_KVSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "hashtable.h"

typedef struct kvstore {
    hashtable *only;             /* one table (bits 0): that table, the lookups' fast path; else NULL */
    hashtable **tables;          /* num_tables pointers; NULL: not created yet (several tables only) */
    int num_tables;              /* 1 << bits */
    int bits;                    /* 0: one table; cluster mode: 14 */
    hashtableType *type;         /* of every table */
    size_t key_count;            /* entries in all tables (several tables only) */
    int non_empty_tables;        /* tables with at least one entry (several tables only) */
    int allocated_tables;        /* tables created */
    unsigned long long *fenwick; /* 1-based Fenwick tree of the table sizes (several tables only) */
    int cron_cursor;             /* next table kvstoreCronStep() looks at */
} kvstore;

/* A position in every table of a kvstore, table after table (index
 * order), then entry after entry as hashtableNext() returns them. Safe
 * (HASHTABLE_ITER_SAFE: entries may be deleted meanwhile) or not, as the
 * table iterator it wraps. Finish with kvstoreIteratorReset(). */
typedef struct kvstoreIterator {
    kvstore *kvs;
    int flags;
    int idx;              /* table being iterated; -1 before the first */
    int only_idx;         /* -1: every table; else that table only */
    hashtableIterator it; /* in tables[idx] once idx >= 0 */
} kvstoreIterator;

/* Creates a kvstore of 2^bits tables of the given type (which must outlive
 * it); bits is 0 (one table, created now) to 16. Aborts on OOM. */
kvstore *kvstoreCreate(hashtableType *type, int bits);

/* Frees every table and every entry in them (the type's destructor), then
 * the kvstore. */
void kvstoreRelease(kvstore *kvs);

/* Removes every entry (destructor run) and frees the tables, except the
 * one table of a one-table kvstore, which stays (empty). callback, if
 * not NULL, runs every 65536 buckets emptied, as hashtableEmpty()'s. */
void kvstoreEmpty(kvstore *kvs, void (*callback)(hashtable *));

/* Number of entries in every table. O(1). */
size_t kvstoreSize(const kvstore *kvs);

/* Number of tables (1 or 2^bits), of tables created, and of tables with
 * entries. */
int kvstoreNumTables(const kvstore *kvs);
int kvstoreNumAllocatedTables(const kvstore *kvs);
int kvstoreNumNonEmptyTables(const kvstore *kvs);

/* Number of entries in table idx (0 if it does not exist). */
size_t kvstoreTableSize(const kvstore *kvs, int idx);

/* A one-table kvstore's table, else NULL. With one table nothing is
 * counted besides what the table counts, so a caller may use it with the
 * hashtable functions directly (the keyspace's standalone fast path). */
static inline hashtable *kvstoreOnlyTable(const kvstore *kvs) {
    return kvs->only;
}

/* Table idx, or NULL when it has not been created. Borrowed: valid until
 * the next kvstoreCronStep() or kvstoreEmpty(). Read-only use: changes of
 * size must go through the functions below. A one-table kvstore answers
 * from `only` (one load: what standalone lookups pay on top of a bare
 * hashtable's), whatever idx says. */
static inline hashtable *kvstoreGetTable(const kvstore *kvs, int idx) {
    hashtable *ht = kvs->only;
    return __builtin_expect(ht != NULL, 1) ? ht : kvs->tables[idx];
}

/* ---------------------------------------------------------------------------
 * Lookup and change: as the hashtable functions of the same names, on
 * table idx.
 * ------------------------------------------------------------------------- */

/* 1 and *found (if not NULL) when key is in table idx, else 0. */
static inline int kvstoreFind(kvstore *kvs, int idx, const void *key, void **found) {
    hashtable *ht = kvstoreGetTable(kvs, idx);
    return ht != NULL && hashtableFind(ht, key, found);
}

/* The slot holding key's entry in table idx, or NULL. */
static inline void **kvstoreFindRef(kvstore *kvs, int idx, const void *key) {
    hashtable *ht = kvstoreGetTable(kvs, idx);
    return ht != NULL ? hashtableFindRef(ht, key) : NULL;
}

/* Out-of-line slow paths of the two inline functions below: table idx
 * created (returned), and one entry added to table idx counted. */
hashtable *kvstoreCreateTableAt(kvstore *kvs, int idx);
void kvstoreCountInserted(kvstore *kvs, int idx);

/* hashtableFindRefOrPosition() on table idx, created if missing (so that
 * pos is usable by kvstoreInsertAtPosition()). Inline: every write of a key
 * goes through it, and with one table it must cost what the bare
 * hashtable call costs. */
static inline void **kvstoreFindRefOrPosition(kvstore *kvs, int idx, const void *key, hashtablePosition *pos) {
    hashtable *ht = kvstoreGetTable(kvs, idx);
    if (__builtin_expect(ht == NULL, 0)) ht = kvstoreCreateTableAt(kvs, idx);
    return hashtableFindRefOrPosition(ht, key, pos);
}

/* Stores entry at pos (from kvstoreFindRefOrPosition() on the same table,
 * with nothing done to that table since) and counts it. Pauses the
 * table's rehashing first: hashtableInsertAtPosition() resumes the pause
 * hashtableFindRefOrPosition() would have taken. Inline, as above. */
static inline void kvstoreInsertAtPosition(kvstore *kvs, int idx, void *entry, hashtablePosition *pos) {
    hashtable *ht = kvstoreGetTable(kvs, idx);
    hashtablePauseRehashing(ht);
    hashtableInsertAtPosition(ht, entry, pos);
    if (__builtin_expect(kvs->only == NULL, 0)) kvstoreCountInserted(kvs, idx);
}

/* Adds entry to table idx (created if missing) unless its key is there:
 * returns 1 when added, 0 when not. */
int kvstoreAdd(kvstore *kvs, int idx, void *entry);

/* Takes key's entry out of table idx without destroying it: 1 and *popped
 * (now the caller's), or 0 when absent. */
int kvstorePop(kvstore *kvs, int idx, const void *key, void **popped);

/* Deletes key's entry from table idx (destructor run): 1 if it was there. */
int kvstoreDelete(kvstore *kvs, int idx, const void *key);

/* ---------------------------------------------------------------------------
 * Whole-kvstore operations
 * ------------------------------------------------------------------------- */

/* The index of the table holding the target-th entry (1-based, in table
 * order), or -1 when target is 0 or past the total. O(bits). */
int kvstoreFindTableIndexByKeyIndex(const kvstore *kvs, size_t target);

/* The first table with entries after table idx (-1: from the start), or
 * -1 when there is none. O(bits) with several tables. */
int kvstoreNextNonEmptyTable(const kvstore *kvs, int idx);

/* A table chosen with probability proportional to its size (so that an
 * entry of it, uniformly chosen, is a uniformly chosen entry of the whole
 * kvstore), or -1 when empty. */
int kvstoreFairRandomTableIndex(const kvstore *kvs);

/* A uniformly chosen entry of the whole kvstore: 1 and *found, or 0 when
 * empty. */
int kvstoreFairRandomEntry(kvstore *kvs, void **found);

/* One SCAN step (see the top comment for the cursor): calls fn(privdata,
 * entry) for the entries of one cursor step of one table and returns the
 * next cursor, 0 when done. only_idx >= 0 scans that table alone (its
 * cursor still carries the index). fn may delete entries. */
size_t kvstoreScan(kvstore *kvs, size_t cursor, int only_idx, hashtableScanFunction fn, void *privdata);

/* kvstoreScan() with hashtableScanRefs()'s callback (active defrag). */
size_t kvstoreScanRefs(kvstore *kvs, size_t cursor, hashtableScanRefFunction fn, void *privdata);

/* Sizes the tables for size entries in all: the one table, or, with
 * several, each table skip(privdata, idx) does not reject (skip NULL:
 * every table) for its share of size. try_expand returns 0 on OOM instead
 * of aborting. Returns 1 unless an allocation failed. */
int kvstoreExpand(kvstore *kvs, size_t size, int try_expand, int (*skip)(void *privdata, int idx), void *privdata);

/* Bytes of the kvstore's own structures and of its tables (entries
 * excluded); with rehashing set, also the bytes of tables being rehashed
 * away and their number. */
size_t kvstoreMemUsage(const kvstore *kvs);
size_t kvstoreRehashingMemUsage(const kvstore *kvs, int *rehashing_tables);

/* Total entry slots allocated in every table (for the DEBUG log line). */
size_t kvstoreEntryCapacity(const kvstore *kvs);

/* 1 while at least one table is rehashing. */
int kvstoreIsRehashing(const kvstore *kvs);

/* Periodic upkeep (the server cron), for at most max_tables tables from a
 * rotating cursor: shrinks tables that emptied, frees empty tables that
 * nothing iterates (several tables only) and, when rehash_us > 0, rehashes
 * tables being resized for about that many microseconds in all. Returns 1
 * if some rehashing was done. */
int kvstoreCronStep(kvstore *kvs, int max_tables, int shrink, uint64_t rehash_us);

/* Offers every table's bucket arrays to defragfn (hashtableDefragTables()). */
void kvstoreDefragTables(kvstore *kvs, void *(*defragfn)(void *));

/* A human-readable description into buf (NUL-terminated, truncated): the
 * one table's hashtableGetStats(), or, with several, a summary of the
 * tables and the statistics of the biggest one. */
void kvstoreGetStats(kvstore *kvs, char *buf, size_t bufsize, int full);

/* Iteration (see kvstoreIterator). only_idx -1 goes through every table. */
void kvstoreIteratorInit(kvstoreIterator *iter, kvstore *kvs, int only_idx, int flags);
int kvstoreIteratorNext(kvstoreIterator *iter, void **entry);
void kvstoreIteratorReset(kvstoreIterator *iter);

/* The index of the table the last entry returned came from. */
static inline int kvstoreIteratorTableIndex(const kvstoreIterator *iter) {
    return iter->idx;
}

#endif
