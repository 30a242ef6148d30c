/* hashtable.h - open-addressing hash table in cache-line buckets.
 *
 * A hashtable stores single pointers to caller-owned elements ("entries").
 * The type says how to get an entry's key (entryGetKey; NULL: the entry is
 * its own key, e.g. an sds set member), how to hash and compare keys and
 * how to destroy an entry when the table drops it. There is no separate
 * allocation per entry: the table is an array of 64-byte buckets, each
 * holding up to seven entry pointers, a presence bit per slot, one byte of
 * the hash per slot (most mismatches are rejected without touching the
 * entry) and an "ever full" bit telling lookups that the probe chain goes
 * on into the next bucket. See hashtable.c for the invariants.
 *
 * Like dict.c it keeps two tables while resizing and migrates buckets
 * incrementally (one step per operation, plus hashtableRehashMicroseconds()
 * from the cron), never blocking. Leaf library: never includes server.h. */
#ifndef VK_HASHTABLE_H
#define VK_HASHTABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct hashtable hashtable;

typedef struct hashtableType {
    /* The key of an entry; NULL: the entry pointer is the key. */
    const void *(*entryGetKey)(const void *entry);
    uint64_t (*hashFunction)(const void *key);
    /* Non-zero if the keys are equal; NULL: pointer equality. */
    int (*keyCompare)(const void *key1, const void *key2);
    /* Run on every entry the table drops (delete, empty, release), not on
     * popped ones, which go back to the caller. NULL: nothing to free. */
    void (*entryDestructor)(void *entry);
    /* Asked before allocating a bigger table of moreMem bytes while the
     * current one is fillRatio full; returning 0 defers the growth until
     * the table reaches its hard fill limit (90%). NULL: always allowed. */
    int (*resizeAllowed)(size_t moreMem, double fillRatio);
} hashtableType;

/* Process-wide automatic resize policy (as dict.c's dictResizeEnable). */
typedef enum {
    HASHTABLE_RESIZE_ALLOW, /* grow above 77% full, shrink below 13% */
    HASHTABLE_RESIZE_AVOID, /* a fork child runs: grow only above 90%, shrink below 3% */
    HASHTABLE_RESIZE_FORBID /* grow only above 90% (a full table can't take entries), never shrink */
} hashtableResizePolicy;

/* Where hashtableFindPositionForInsert() or hashtableTwoPhasePopFindRef()
 * found room or an entry; valid only until the matching second phase. */
typedef struct hashtablePosition {
    uint64_t hash;
    size_t bucket;
    int table;
    int slot;
} hashtablePosition;

/* Iterators. A safe iterator pauses rehashing, so the table may be changed
 * meanwhile (the returned entry deleted, entries added: those may or may
 * not be returned). An unsafe one only allows lookups-free use: anything
 * that changes the table's shape is caught by a fingerprint check when it
 * is reset. Every entry present for the whole iteration is returned once. */
#define HASHTABLE_ITER_SAFE 1

typedef struct hashtableIterator {
    hashtable *ht;
    size_t bucket;
    int table;
    int slot;
    int flags;
    int started;
    uint64_t fingerprint;
} hashtableIterator;

typedef void (*hashtableScanFunction)(void *privdata, void *entry);
/* hashtableScanRefs(): gets the address of the slot holding the entry. */
typedef void (*hashtableScanRefFunction)(void *privdata, void **entryref);

/* Create / destroy. */
hashtable *hashtableCreate(hashtableType *type);
void hashtableRelease(hashtable *ht);
void hashtableEmpty(hashtable *ht, void (*callback)(hashtable *));
int hashtableEmptyIncremental(hashtable *ht, size_t buckets);
hashtableType *hashtableGetType(const hashtable *ht);

/* Size and memory. */
size_t hashtableSize(const hashtable *ht);
size_t hashtableBuckets(const hashtable *ht);
size_t hashtableMemUsage(const hashtable *ht);
size_t hashtableRehashingMemUsage(const hashtable *ht);
size_t hashtableEntryCapacity(const hashtable *ht);

/* Sizing and rehashing. */
int hashtableExpand(hashtable *ht, size_t size);
int hashtableTryExpand(hashtable *ht, size_t size);
int hashtableShrinkIfNeeded(hashtable *ht);
void hashtableSetResizePolicy(hashtableResizePolicy policy);
int hashtableIsRehashing(const hashtable *ht);
int hashtableIsRehashingPaused(const hashtable *ht);
int hashtableRehashMicroseconds(hashtable *ht, uint64_t us);
void hashtablePauseRehashing(hashtable *ht);
void hashtableResumeRehashing(hashtable *ht);

/* Lookup and modification. */
int hashtableFind(hashtable *ht, const void *key, void **found);
void hashtablePrefetch(hashtable *ht, const uint64_t *hashes, int n);
void **hashtableFindRef(hashtable *ht, const void *key);
int hashtableAdd(hashtable *ht, void *entry);
int hashtableAddOrFind(hashtable *ht, void *entry, void **existing);
int hashtableFindPositionForInsert(hashtable *ht, const void *key, hashtablePosition *pos, void **existing);
void hashtableInsertAtPosition(hashtable *ht, void *entry, hashtablePosition *pos);
void **hashtableFindRefOrPosition(hashtable *ht, const void *key, hashtablePosition *pos);
int hashtableDelete(hashtable *ht, const void *key);
int hashtablePop(hashtable *ht, const void *key, void **popped);
int hashtableTwoPhasePopFindRef(hashtable *ht, const void *key, void ***ref, hashtablePosition *pos);
void hashtableTwoPhasePopDelete(hashtable *ht, hashtablePosition *pos);

/* Iteration and SCAN. */
void hashtableInitIterator(hashtableIterator *iter, hashtable *ht, int flags);
void hashtableResetIterator(hashtableIterator *iter);
hashtableIterator *hashtableCreateIterator(hashtable *ht, int flags);
void hashtableReleaseIterator(hashtableIterator *iter);
int hashtableNext(hashtableIterator *iter, void **entry);
size_t hashtableScan(hashtable *ht, size_t cursor, hashtableScanFunction fn, void *privdata);
size_t hashtableScanRefs(hashtable *ht, size_t cursor, hashtableScanRefFunction fn, void *privdata);

/* Active defragmentation (defrag.c): moves the bucket arrays. */
void hashtableDefragTables(hashtable *ht, void *(*defragfn)(void *));

/* Sampling. */
int hashtableRandomEntry(hashtable *ht, void **found);
int hashtableFairRandomEntry(hashtable *ht, void **found);
unsigned int hashtableSampleEntries(hashtable *ht, void **dst, unsigned int count);

/* Diagnostics (DEBUG HTSTATS-KEY). */
void hashtableGetStats(char *buf, size_t bufsize, hashtable *ht, int full);

#endif
