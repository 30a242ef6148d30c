/* hashtable.c - open-addressing hash table in 64-byte buckets, with
 * incremental rehashing, SCAN, safe/unsafe iterators and sampling.
 *
 * Used by the set type's "hashtable" encoding (t_set.c); written to take
 * the keyspace and hashes next. Calls zmalloc and, for fatal misuse only,
 * the log. The caller owns the entries; the table holds bare pointers.
 *
 * Bucket layout (one cache line):
 *
 *   meta      bits 0-6: slot i holds an entry; bit 7: "ever full"
 *   hashes[7] the top byte of each entry's hash
 *   entries[7]
 *
 * An entry's home bucket is hash & mask. Insertion takes the first free
 * slot in the home bucket or, if it is full, in the following buckets
 * (wrapping), setting "ever full" on every full bucket it passes. A lookup
 * walks the same chain and stops at the first bucket without that bit, so
 * it rarely reads more than one cache line, and compares keys only where
 * the stored hash byte matches. Deleting clears the presence bit and
 * nothing else: entries never move inside a table, and "ever full" bits are
 * only cleared by rehashing into a fresh table (which also happens at the
 * same size when more than half the buckets carry the bit, so churn cannot
 * make every probe chain long).
 *
 * Resizing keeps two tables like dict.c: while rehash_idx != -1, table 1 is
 * the new one, every insert goes there, and each operation moves one bucket
 * of table 0 (hashtableRehashMicroseconds() moves batches for the cron).
 * Moved buckets keep their "ever full" bit so chains through them still
 * reach entries not yet moved. Safe iterators, scans and two-phase
 * operations pause rehashing; while paused a table is never freed or
 * swapped, so bucket pointers they hold stay valid. A resize may still
 * start (entries stay put and new ones land in table 1).
 *
 * Fill limits: grow above 77% of the slots (7 per bucket), shrink below 13%
 * (a new table is sized to be at most 77% full); while a fork child runs
 * (HASHTABLE_RESIZE_AVOID) grow only above 90% and shrink below 3% to limit
 * copy-on-write. Growing past 90% is never deferred: an open-addressed table
 * must keep free slots. If inserts fill table 1 while rehashing is paused
 * (more inserts during one safe iteration than the new table was sized for)
 * the table aborts rather than lose entries.
 *
 * SCAN uses dict.c's reverse-binary cursor over home buckets and visits the
 * whole probe chain of each home bucket it covers, so every entry present
 * for a whole scan is returned at least once across any grow or shrink. */
#include "hashtable.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "util.h"
#include "zmalloc.h"

#define ENTRIES_PER_BUCKET 7
#define PRESENCE_MASK ((1u << ENTRIES_PER_BUCKET) - 1)
#define EVER_FULL 0x80
#define MAX_FILL_PERCENT 77
#define HARD_FILL_PERCENT 90
#define MIN_FILL_PERCENT 13
#define AVOID_MIN_FILL_PERCENT 3

typedef struct bucket {
    uint8_t meta;
    uint8_t hashes[ENTRIES_PER_BUCKET];
    void *entries[ENTRIES_PER_BUCKET];
} bucket;

_Static_assert(sizeof(bucket) == 64, "a bucket must be one 64-byte cache line");
_Static_assert(sizeof(size_t) == 8, "the scan cursor reversal assumes 64-bit size_t");

struct hashtable {
    hashtableType *type;
    bucket *tables[2];
    size_t used[2];
    size_t everfull[2];   /* buckets with the "ever full" bit, per table */
    ssize_t rehash_idx;   /* next table-0 bucket to move; -1: not rehashing */
    size_t free_idx;      /* hashtableEmptyIncremental()'s next bucket */
    int16_t pause_rehash; /* > 0: no rehash steps, no table freed or swapped */
    int8_t exp[2];        /* log2 of the bucket count; -1: no table */
};

static hashtableResizePolicy resize_policy = HASHTABLE_RESIZE_ALLOW;

static void __attribute__((noreturn)) hashtablePanic(const char *msg) {
    serverLog(LL_WARNING, "hashtable: %s", msg);
    abort();
}

/* ------------------------------- helpers --------------------------------- */

static inline size_t numBuckets(int8_t exp) { return exp < 0 ? 0 : (size_t)1 << exp; }
static inline size_t bucketMask(int8_t exp) { return exp < 0 ? 0 : numBuckets(exp) - 1; }
static inline uint8_t hashByte(uint64_t hash) { return (uint8_t)(hash >> 56); }
static inline int isRehashing(const hashtable *ht) { return ht->rehash_idx != -1; }
static inline size_t capacity(const hashtable *ht, int t) { return numBuckets(ht->exp[t]) * ENTRIES_PER_BUCKET; }

static inline const void *entryKey(const hashtable *ht, const void *entry) {
    return ht->type->entryGetKey ? ht->type->entryGetKey(entry) : entry;
}

static inline uint64_t hashKey(const hashtable *ht, const void *key) { return ht->type->hashFunction(key); }

static inline int keysEqual(const hashtable *ht, const void *a, const void *b) {
    return a == b || (ht->type->keyCompare && ht->type->keyCompare(a, b));
}

static inline void destroyEntry(hashtable *ht, void *entry) {
    if (ht->type->entryDestructor) ht->type->entryDestructor(entry);
}

/* Cheap per-thread PRNG (splitmix64) for sampling; not for secrets. */
static uint64_t randomU64(void) {
    static __thread uint64_t state = 0;
    if (state == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        state = ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&state;
    }
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Smallest exponent whose table holds size entries at most 77% full. */
static int8_t expForSize(size_t size) {
    size_t per = ENTRIES_PER_BUCKET * MAX_FILL_PERCENT;
    if (size > SIZE_MAX / 100) return -1;
    size_t buckets = (size * 100 + per - 1) / per;
    if (buckets <= 1) return 0;
    int8_t exp = (int8_t)(64 - __builtin_clzll(buckets - 1));
    if (exp > 56) return -1; /* the hash byte must not overlap the index */
    return exp;
}

/* ------------------------------- lifecycle ------------------------------- */

static void resetTable(hashtable *ht, int t) {
    ht->tables[t] = NULL;
    ht->used[t] = 0;
    ht->everfull[t] = 0;
    ht->exp[t] = -1;
}

/* Returns a new empty table of the given type (which must outlive it). No
 * buckets are allocated until the first insert. */
hashtable *hashtableCreate(hashtableType *type) {
    hashtable *ht = zmalloc(sizeof(*ht));
    ht->type = type;
    resetTable(ht, 0);
    resetTable(ht, 1);
    ht->rehash_idx = -1;
    ht->free_idx = 0;
    ht->pause_rehash = 0;
    return ht;
}

/* The type the table was created with. */
hashtableType *hashtableGetType(const hashtable *ht) { return ht->type; }

/* Destroys the entries of buckets [from, to) of table t. */
static void clearBuckets(hashtable *ht, int t, size_t from, size_t to) {
    for (size_t i = from; i < to && ht->used[t] > 0; i++) {
        bucket *b = &ht->tables[t][i];
        unsigned presence = b->meta & PRESENCE_MASK;
        for (int s = 0; s < ENTRIES_PER_BUCKET; s++) {
            if (!(presence & (1u << s))) continue;
            destroyEntry(ht, b->entries[s]);
            ht->used[t]--;
        }
        b->meta &= (uint8_t)~PRESENCE_MASK;
    }
}

/* Removes every entry (running the destructor) and frees the buckets; the
 * table stays usable. callback, if not NULL, runs every 65536 buckets so a
 * caller emptying a huge table can keep serving events. */
void hashtableEmpty(hashtable *ht, void (*callback)(hashtable *)) {
    for (int t = 0; t < 2; t++) {
        size_t n = numBuckets(ht->exp[t]);
        for (size_t i = 0; i < n && ht->used[t] > 0; i += 65536) {
            if (callback) callback(ht);
            clearBuckets(ht, t, i, i + 65536 < n ? i + 65536 : n);
        }
        zfree(ht->tables[t]);
        resetTable(ht, t);
    }
    ht->rehash_idx = -1;
    ht->free_idx = 0;
}

/* Frees the table and every entry in it. */
void hashtableRelease(hashtable *ht) {
    hashtableEmpty(ht, NULL);
    zfree(ht);
}

/* Lazy freeing in steps: destroys the entries of up to `buckets` buckets
 * and returns 1 while more remain, 0 once the table is empty (its bucket
 * arrays freed; it may then be reused or released). Between the first call
 * and the one returning 0 no other function may touch the table except
 * hashtableRelease(). For freeing a big table in slices (lazy freeing)
 * instead of in one long call; no caller uses it yet. */
int hashtableEmptyIncremental(hashtable *ht, size_t buckets) {
    ht->rehash_idx = -1; /* the table is being dismantled: no more moves */
    while (buckets > 0) {
        int t = ht->tables[0] ? 0 : (ht->tables[1] ? 1 : -1);
        if (t < 0) break;
        size_t n = numBuckets(ht->exp[t]), to = ht->free_idx + buckets < n ? ht->free_idx + buckets : n;
        clearBuckets(ht, t, ht->free_idx, to);
        buckets -= to - ht->free_idx;
        ht->free_idx = to;
        if (to == n || ht->used[t] == 0) {
            zfree(ht->tables[t]);
            resetTable(ht, t);
            ht->free_idx = 0;
        }
    }
    if (ht->tables[0] || ht->tables[1]) return 1;
    ht->free_idx = 0;
    return 0;
}

/* Number of entries. */
size_t hashtableSize(const hashtable *ht) { return ht->used[0] + ht->used[1]; }

/* Buckets allocated in both tables. */
size_t hashtableBuckets(const hashtable *ht) { return numBuckets(ht->exp[0]) + numBuckets(ht->exp[1]); }

/* Entry slots allocated in both tables. */
size_t hashtableEntryCapacity(const hashtable *ht) { return hashtableBuckets(ht) * ENTRIES_PER_BUCKET; }

/* Bytes of the table itself (struct and buckets), entries excluded. */
size_t hashtableMemUsage(const hashtable *ht) { return sizeof(*ht) + hashtableBuckets(ht) * sizeof(bucket); }

/* Bytes of the old table while rehashing (freed when it ends), else 0. */
size_t hashtableRehashingMemUsage(const hashtable *ht) {
    return isRehashing(ht) ? numBuckets(ht->exp[0]) * sizeof(bucket) : 0;
}

/* ------------------------------ placement -------------------------------- */

/* Puts entry into the first free slot of its probe chain in table t, which
 * must have one. Returns the bucket and slot through the pointers. */
static inline __attribute__((always_inline)) void placeEntry(hashtable *ht, int t, uint64_t hash, void *entry,
                                                             size_t *bucket_out, int *slot_out) {
    if (ht->used[t] >= capacity(ht, t)) hashtablePanic("table full while rehashing is paused");
    size_t mask = bucketMask(ht->exp[t]), idx = hash & mask;
    for (;;) {
        bucket *b = &ht->tables[t][idx];
        unsigned presence = b->meta & PRESENCE_MASK;
        if (presence != PRESENCE_MASK) {
            int s = __builtin_ctz(~presence & PRESENCE_MASK);
            b->entries[s] = entry;
            b->hashes[s] = hashByte(hash);
            b->meta |= (uint8_t)(1u << s);
            ht->used[t]++;
            if (bucket_out) *bucket_out = idx;
            if (slot_out) *slot_out = s;
            return;
        }
        if (!(b->meta & EVER_FULL)) {
            b->meta |= EVER_FULL;
            ht->everfull[t]++;
        }
        idx = (idx + 1) & mask;
    }
}

/* Finds key's entry. Returns 1 with its table, bucket and slot, else 0. */
/* The slots of b that hold an entry whose hash byte is hb, one bit per
 * slot. The meta byte and the seven hash bytes are one 64-bit word: the
 * hash bytes are compared all at once (a byte of x is zero where they
 * match; the bit trick below sets the top bit of exactly those bytes). */
static inline unsigned matchingSlots(const bucket *b, uint8_t hb) {
    uint64_t word;
    memcpy(&word, b, sizeof(word));
    const uint64_t lows = 0x7f7f7f7f7f7f7f7fULL;
    uint64_t x = (word >> 8) ^ (0x0001010101010101ULL * hb); /* byte s: slot s */
    uint64_t zero = ~(((x & lows) + lows) | x | lows) & 0x0080808080808080ULL;
    unsigned slots = 0;
    while (zero) {
        slots |= 1u << (__builtin_ctzll(zero) / 8);
        zero &= zero - 1;
    }
    return slots & b->meta & PRESENCE_MASK;
}

/* locate() in table t alone: 1 with the bucket and slot, or 0. */
static inline __attribute__((always_inline)) int locateIn(hashtable *ht, int t, const void *key, uint64_t hash,
                                                          size_t *b_out, int *s_out) {
    if (ht->used[t] == 0) return 0;
    uint8_t hb = hashByte(hash);
    size_t mask = bucketMask(ht->exp[t]), idx = hash & mask, start = idx;
    do {
        bucket *b = &ht->tables[t][idx];
        for (unsigned slots = matchingSlots(b, hb); slots; slots &= slots - 1) {
            int s = __builtin_ctz(slots);
            if (keysEqual(ht, key, entryKey(ht, b->entries[s]))) {
                *b_out = idx;
                *s_out = s;
                return 1;
            }
        }
        if (!(b->meta & EVER_FULL)) break;
        idx = (idx + 1) & mask;
    } while (idx != start);
    return 0;
}

/* Finds key's entry: 1 with its table, bucket and slot, or 0. Inlined in
 * every caller (and table 0's search unrolled from table 1's): the outputs
 * then stay in registers. */
static inline __attribute__((always_inline)) int locate(hashtable *ht, const void *key, uint64_t hash, int *t_out,
                                                        size_t *b_out, int *s_out) {
    if (locateIn(ht, 0, key, hash, b_out, s_out)) {
        *t_out = 0;
        return 1;
    }
    if (isRehashing(ht) && locateIn(ht, 1, key, hash, b_out, s_out)) {
        *t_out = 1;
        return 1;
    }
    return 0;
}

/* Brings what looking up n keys (given their hashes, as the type's
 * hashFunction computes them) will touch into the cache: first the home
 * buckets, then the entries whose hash byte matches, so that the misses
 * of the n lookups overlap. A hint only: nothing changes. */
void hashtablePrefetch(hashtable *ht, const uint64_t *hashes, int n) {
    if (hashtableSize(ht) == 0) return;
    int tables = isRehashing(ht) ? 2 : 1;
    for (int i = 0; i < n; i++)
        for (int t = 0; t < tables; t++)
            if (ht->used[t]) __builtin_prefetch(&ht->tables[t][hashes[i] & bucketMask(ht->exp[t])]);
    for (int i = 0; i < n; i++)
        for (int t = 0; t < tables; t++) {
            if (ht->used[t] == 0) continue;
            bucket *b = &ht->tables[t][hashes[i] & bucketMask(ht->exp[t])];
            for (unsigned slots = matchingSlots(b, hashByte(hashes[i])); slots; slots &= slots - 1)
                __builtin_prefetch(b->entries[__builtin_ctz(slots)]);
        }
}

/* -------------------------------- rehashing ------------------------------ */

/* Table 0 is done: table 1 takes its place. */
static void finishRehash(hashtable *ht) {
    zfree(ht->tables[0]);
    ht->tables[0] = ht->tables[1];
    ht->used[0] = ht->used[1];
    ht->everfull[0] = ht->everfull[1];
    ht->exp[0] = ht->exp[1];
    resetTable(ht, 1);
    ht->rehash_idx = -1;
}

/* Moves bucket rehash_idx of table 0 into table 1 (its "ever full" bit
 * stays, for chains through it) and finishes when table 0 is empty. */
static void rehashBucket(hashtable *ht) {
    bucket *b = &ht->tables[0][ht->rehash_idx];
    unsigned presence = b->meta & PRESENCE_MASK;
    for (int s = 0; s < ENTRIES_PER_BUCKET; s++) {
        if (!(presence & (1u << s))) continue;
        void *entry = b->entries[s];
        placeEntry(ht, 1, hashKey(ht, entryKey(ht, entry)), entry, NULL, NULL);
        ht->used[0]--;
    }
    b->meta &= (uint8_t)~PRESENCE_MASK;
    ht->rehash_idx++;
    if (ht->used[0] == 0 || (size_t)ht->rehash_idx >= numBuckets(ht->exp[0])) finishRehash(ht);
}

/* Moves up to n non-empty buckets (looking at no more than 10n empty ones).
 * Returns 1 if the rehash goes on, 0 if done, not running or paused. */
static int rehashSteps(hashtable *ht, int n) {
    int empty_visits = n * 10;
    while (n > 0 && isRehashing(ht) && ht->pause_rehash == 0) {
        if ((ht->tables[0][ht->rehash_idx].meta & PRESENCE_MASK) == 0 && --empty_visits > 0) {
            ht->rehash_idx++;
            if ((size_t)ht->rehash_idx >= numBuckets(ht->exp[0])) finishRehash(ht);
            continue;
        }
        rehashBucket(ht);
        n--;
    }
    if (!isRehashing(ht)) hashtableShrinkIfNeeded(ht); /* deletes may have gone on meanwhile */
    return isRehashing(ht);
}

static inline void rehashStepIfNeeded(hashtable *ht) {
    if (isRehashing(ht) && ht->pause_rehash == 0) rehashSteps(ht, 1);
}

/* Rehashes in batches of 100 buckets for about us microseconds (the
 * server cron). Returns the number of batches run (0 if there was nothing
 * to do or rehashing is paused). */
int hashtableRehashMicroseconds(hashtable *ht, uint64_t us) {
    if (ht->pause_rehash > 0) return 0;
    uint64_t start = getMonotonicUs();
    int batches = 0;
    while (rehashSteps(ht, 100)) {
        batches++;
        if (getMonotonicUs() - start > us) break;
    }
    return batches;
}

/* 1 while a resize is in progress (two tables). */
int hashtableIsRehashing(const hashtable *ht) { return isRehashing(ht); }

/* 1 while rehashing is paused: an iterator, a scan or a two-phase
 * operation holds bucket pointers, so the table must not be freed. */
int hashtableIsRehashingPaused(const hashtable *ht) { return ht->pause_rehash > 0; }

/* Pauses rehash steps (nests); every pause needs a resume. */
void hashtablePauseRehashing(hashtable *ht) { ht->pause_rehash++; }

/* Undoes one hashtablePauseRehashing(). */
void hashtableResumeRehashing(hashtable *ht) {
    if (ht->pause_rehash <= 0) hashtablePanic("rehashing resumed more often than paused");
    ht->pause_rehash--;
}

/* -------------------------------- resizing ------------------------------- */

/* Allocates a table of 2^exp buckets and starts moving into it, or installs
 * it at once when table 0 is empty and nothing holds on to it. */
static int resizeToExp(hashtable *ht, int8_t exp, int try_alloc) {
    if (exp < 0 || isRehashing(ht)) return 0;
    size_t bytes = numBuckets(exp) * sizeof(bucket);
    bucket *table = try_alloc ? ztrycalloc(bytes) : zcalloc(bytes);
    if (table == NULL) return 0;
    if (ht->tables[0] == NULL || (ht->used[0] == 0 && ht->pause_rehash == 0)) {
        zfree(ht->tables[0]);
        resetTable(ht, 0);
        ht->tables[0] = table;
        ht->exp[0] = exp;
        return 1;
    }
    ht->tables[1] = table;
    ht->exp[1] = exp;
    ht->used[1] = 0;
    ht->everfull[1] = 0;
    ht->rehash_idx = 0;
    return 1;
}

/* Sizes the table for at least size entries (at most 77% full). Returns 1
 * if a resize started, 0 if rehashing, size is below the entry count or the
 * size would not change. hashtableExpand aborts on OOM, the Try form
 * returns 0. */
static int expandGeneric(hashtable *ht, size_t size, int try_alloc) {
    if (isRehashing(ht) || size < hashtableSize(ht)) return 0;
    int8_t exp = expForSize(size);
    if (exp < 0 || exp <= ht->exp[0]) return 0;
    return resizeToExp(ht, exp, try_alloc);
}

/* See expandGeneric(). */
int hashtableExpand(hashtable *ht, size_t size) { return expandGeneric(ht, size, 0); }

/* See expandGeneric(). */
int hashtableTryExpand(hashtable *ht, size_t size) { return expandGeneric(ht, size, 1); }

/* Asks the type whether a table of 2^exp buckets may be allocated now. */
static int resizeAllowed(hashtable *ht, int8_t exp) {
    if (ht->type->resizeAllowed == NULL) return 1;
    size_t cap = capacity(ht, 0);
    double fill = cap ? (double)ht->used[0] / (double)cap : 0;
    return ht->type->resizeAllowed(numBuckets(exp) * sizeof(bucket), fill);
}

/* Makes room for one more entry: grows table 0 past the policy's fill
 * limit, rebuilds it at the same size when more than half its buckets are
 * "ever full", and while rehashing keeps table 1 below its hard limit
 * (finishing the rehash at once if it would not be). */
static void makeRoomForInsert(hashtable *ht) {
    if (isRehashing(ht)) {
        if ((ht->used[1] + 1) * 100 <= capacity(ht, 1) * HARD_FILL_PERCENT || ht->pause_rehash > 0) return;
        while (isRehashing(ht)) rehashSteps(ht, 1000);
    }
    size_t need = hashtableSize(ht) + 1, cap = capacity(ht, 0);
    if (cap == 0) {
        resizeToExp(ht, expForSize(need), 0);
        return;
    }
    int limit = resize_policy == HASHTABLE_RESIZE_ALLOW ? MAX_FILL_PERCENT : HARD_FILL_PERCENT;
    if (need * 100 > cap * limit) {
        int8_t exp = expForSize(need);
        if (exp <= ht->exp[0]) exp = ht->exp[0] + 1;
        if (need * 100 > cap * HARD_FILL_PERCENT || resizeAllowed(ht, exp)) resizeToExp(ht, exp, 0);
    } else if (ht->everfull[0] * 2 > numBuckets(ht->exp[0]) && resize_policy == HASHTABLE_RESIZE_ALLOW) {
        resizeToExp(ht, ht->exp[0], 0);
    }
}

/* Whether makeRoomForInsert() would do nothing, for the usual insert and
 * inlined: not rehashing, below the fill limit, few "ever full" buckets. */
static inline int hasRoomForInsert(const hashtable *ht) {
    if (isRehashing(ht) || resize_policy != HASHTABLE_RESIZE_ALLOW) return 0;
    return (hashtableSize(ht) + 1) * 100 <= capacity(ht, 0) * MAX_FILL_PERCENT &&
           ht->everfull[0] * 2 <= numBuckets(ht->exp[0]);
}

/* Starts shrinking when the table is mostly empty under the current policy
 * (an empty table frees its buckets). Returns 1 if it did. Called after
 * deletions; callers may call it from a cron too. */
int hashtableShrinkIfNeeded(hashtable *ht) {
    if (isRehashing(ht) || ht->tables[0] == NULL || resize_policy == HASHTABLE_RESIZE_FORBID) return 0;
    if (ht->used[0] == 0 && ht->pause_rehash == 0) {
        zfree(ht->tables[0]);
        resetTable(ht, 0);
        return 1;
    }
    if (ht->exp[0] == 0) return 0;
    int limit = resize_policy == HASHTABLE_RESIZE_ALLOW ? MIN_FILL_PERCENT : AVOID_MIN_FILL_PERCENT;
    if (ht->used[0] * 100 >= capacity(ht, 0) * limit) return 0;
    int8_t exp = expForSize(ht->used[0]);
    if (exp >= ht->exp[0] || !resizeAllowed(ht, exp)) return 0;
    return resizeToExp(ht, exp, 0);
}

/* Sets the process-wide resize policy. The server sets AVOID while a fork
 * child exists and ALLOW after. */
void hashtableSetResizePolicy(hashtableResizePolicy policy) { resize_policy = policy; }

/* ----------------------------- lookup and change ------------------------- */

/* Returns 1 and *found (if found is not NULL) when key is present, else 0. */
int hashtableFind(hashtable *ht, const void *key, void **found) {
    if (hashtableSize(ht) == 0) return 0;
    rehashStepIfNeeded(ht);
    int t, s;
    size_t b;
    if (!locate(ht, key, hashKey(ht, key), &t, &b, &s)) return 0;
    if (found) *found = ht->tables[t][b].entries[s];
    return 1;
}

/* Returns a pointer to the slot holding key's entry (so the caller may
 * replace the entry with an equal-keyed one, e.g. after a realloc), or NULL.
 * Valid until the next operation on the table. */
void **hashtableFindRef(hashtable *ht, const void *key) {
    if (hashtableSize(ht) == 0) return NULL;
    rehashStepIfNeeded(ht);
    int t, s;
    size_t b;
    if (!locate(ht, key, hashKey(ht, key), &t, &b, &s)) return NULL;
    return &ht->tables[t][b].entries[s];
}

/* Adds entry unless an entry with its key exists: then returns 0 and sets
 * *existing (if not NULL). Returns 1 when added; the table now holds the
 * pointer (and destroys it on delete if the type has a destructor). */
int hashtableAddOrFind(hashtable *ht, void *entry, void **existing) {
    hashtablePosition pos;
    if (!hashtableFindPositionForInsert(ht, entryKey(ht, entry), &pos, existing)) return 0;
    hashtableInsertAtPosition(ht, entry, &pos);
    return 1;
}

/* Adds entry if its key is not present. Returns 1 if added, 0 if not. */
int hashtableAdd(hashtable *ht, void *entry) { return hashtableAddOrFind(ht, entry, NULL); }

/* First phase of an insert: returns 0 and *existing (if not NULL) when key
 * is present; else makes room, fills *pos and returns 1, with rehashing
 * paused until hashtableInsertAtPosition(), which must come next (the
 * caller builds the entry in between, e.g. only once it knows the key is
 * new). */
int hashtableFindPositionForInsert(hashtable *ht, const void *key, hashtablePosition *pos, void **existing) {
    rehashStepIfNeeded(ht);
    uint64_t hash = hashKey(ht, key);
    int t, s;
    size_t b;
    if (hashtableSize(ht) && locate(ht, key, hash, &t, &b, &s)) {
        if (existing) *existing = ht->tables[t][b].entries[s];
        return 0;
    }
    if (!hasRoomForInsert(ht)) makeRoomForInsert(ht);
    pos->hash = hash;
    pos->table = isRehashing(ht) ? 1 : 0;
    pos->bucket = 0;
    pos->slot = -1;
    hashtablePauseRehashing(ht);
    return 1;
}

/* For a caller that will either replace key's entry or add one: returns
 * the slot holding key's entry (as hashtableFindRef()), or NULL after
 * making room and filling *pos. Unlike hashtableFindPositionForInsert()
 * nothing is paused: pos is good only until the table is next used, when
 * hashtablePauseRehashing() then hashtableInsertAtPosition() may use it. */
void **hashtableFindRefOrPosition(hashtable *ht, const void *key, hashtablePosition *pos) {
    rehashStepIfNeeded(ht);
    uint64_t hash = hashKey(ht, key);
    int t, s;
    size_t b;
    if (hashtableSize(ht) && locate(ht, key, hash, &t, &b, &s)) return &ht->tables[t][b].entries[s];
    if (!hasRoomForInsert(ht)) makeRoomForInsert(ht);
    pos->hash = hash;
    pos->table = isRehashing(ht) ? 1 : 0;
    pos->bucket = 0;
    pos->slot = -1;
    return NULL;
}

/* Second phase: stores entry (whose key is the one looked up) at pos and
 * resumes rehashing. */
void hashtableInsertAtPosition(hashtable *ht, void *entry, hashtablePosition *pos) {
    placeEntry(ht, pos->table, pos->hash, entry, &pos->bucket, &pos->slot);
    hashtableResumeRehashing(ht);
}

/* Removes key's entry from its slot; destroys it unless popped is set
 * (then the entry goes to *popped). Returns 1 if the key was present. */
static int deleteGeneric(hashtable *ht, const void *key, void **popped, int pop) {
    if (hashtableSize(ht) == 0) return 0;
    rehashStepIfNeeded(ht);
    int t, s;
    size_t b;
    if (!locate(ht, key, hashKey(ht, key), &t, &b, &s)) return 0;
    bucket *bk = &ht->tables[t][b];
    void *entry = bk->entries[s];
    bk->meta &= (uint8_t)~(1u << s);
    ht->used[t]--;
    if (pop) {
        if (popped) *popped = entry;
    } else {
        destroyEntry(ht, entry);
    }
    hashtableShrinkIfNeeded(ht);
    return 1;
}

/* Deletes key's entry, running the destructor. Returns 1 if it was there. */
int hashtableDelete(hashtable *ht, const void *key) { return deleteGeneric(ht, key, NULL, 0); }

/* Removes key's entry without destroying it: returns 1 and *popped (the
 * caller owns it now), or 0 if absent. */
int hashtablePop(hashtable *ht, const void *key, void **popped) { return deleteGeneric(ht, key, popped, 1); }

/* First phase of a delete: returns 1 with *ref pointing at key's slot and
 * *pos filled, rehashing paused until hashtableTwoPhasePopDelete() (which
 * must come next; the caller may use the entry meanwhile), or 0. */
int hashtableTwoPhasePopFindRef(hashtable *ht, const void *key, void ***ref, hashtablePosition *pos) {
    if (hashtableSize(ht) == 0) return 0;
    rehashStepIfNeeded(ht);
    uint64_t hash = hashKey(ht, key);
    if (!locate(ht, key, hash, &pos->table, &pos->bucket, &pos->slot)) return 0;
    pos->hash = hash;
    *ref = &ht->tables[pos->table][pos->bucket].entries[pos->slot];
    hashtablePauseRehashing(ht);
    return 1;
}

/* Second phase: removes the entry at pos without destroying it (the
 * caller has taken it) and resumes rehashing. */
void hashtableTwoPhasePopDelete(hashtable *ht, hashtablePosition *pos) {
    bucket *b = &ht->tables[pos->table][pos->bucket];
    if (!(b->meta & (1u << pos->slot))) hashtablePanic("two-phase delete of an empty slot");
    b->meta &= (uint8_t)~(1u << pos->slot);
    ht->used[pos->table]--;
    hashtableResumeRehashing(ht);
    hashtableShrinkIfNeeded(ht);
}

/* -------------------------------- iterators ------------------------------ */

/* A summary of the table's shape, checked for unsafe iterators. */
static uint64_t fingerprint(const hashtable *ht) {
    uint64_t parts[6] = {(uint64_t)(uintptr_t)ht->tables[0], (uint64_t)ht->exp[0], ht->used[0],
                         (uint64_t)(uintptr_t)ht->tables[1], (uint64_t)ht->exp[1], ht->used[1]};
    uint64_t h = 0;
    for (int i = 0; i < 6; i++) {
        h = (h ^ parts[i]) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
    }
    return h;
}

/* Initialises a caller-allocated iterator (flags: HASHTABLE_ITER_SAFE or
 * 0). Finish it with hashtableResetIterator(). */
void hashtableInitIterator(hashtableIterator *iter, hashtable *ht, int flags) {
    iter->ht = ht;
    iter->table = 0;
    iter->bucket = 0;
    iter->slot = 0;
    iter->flags = flags;
    iter->started = 0;
    iter->fingerprint = 0;
}

/* Ends an iterator: resumes rehashing (safe) or aborts if an unsafe
 * iterator's table was changed meanwhile. The iterator may be reused
 * (it starts over). */
void hashtableResetIterator(hashtableIterator *iter) {
    if (iter->started) {
        if (iter->flags & HASHTABLE_ITER_SAFE)
            hashtableResumeRehashing(iter->ht);
        else if (iter->fingerprint != fingerprint(iter->ht))
            hashtablePanic("unsafe iterator used while the table was modified");
    }
    hashtableInitIterator(iter, iter->ht, iter->flags);
}

/* Returns a heap iterator (release with hashtableReleaseIterator()). */
hashtableIterator *hashtableCreateIterator(hashtable *ht, int flags) {
    hashtableIterator *iter = zmalloc(sizeof(*iter));
    hashtableInitIterator(iter, ht, flags);
    return iter;
}

/* Ends and frees a heap iterator. */
void hashtableReleaseIterator(hashtableIterator *iter) {
    hashtableResetIterator(iter);
    zfree(iter);
}

/* Stores the next entry in *entry and returns 1, or returns 0 at the end. */
int hashtableNext(hashtableIterator *iter, void **entry) {
    hashtable *ht = iter->ht;
    if (!iter->started) {
        iter->started = 1;
        if (iter->flags & HASHTABLE_ITER_SAFE)
            hashtablePauseRehashing(ht);
        else
            iter->fingerprint = fingerprint(ht);
    }
    for (;;) {
        if (iter->bucket >= numBuckets(ht->exp[iter->table])) {
            if (iter->table == 0 && isRehashing(ht)) {
                iter->table = 1;
                iter->bucket = 0;
                iter->slot = 0;
                continue;
            }
            return 0;
        }
        bucket *b = &ht->tables[iter->table][iter->bucket];
        while (iter->slot < ENTRIES_PER_BUCKET) {
            int s = iter->slot++;
            if (b->meta & (1u << s)) {
                *entry = b->entries[s];
                return 1;
            }
        }
        iter->bucket++;
        iter->slot = 0;
    }
}

/* ----------------------------------- scan -------------------------------- */

static inline size_t reverseBits(size_t v) {
    v = ((v >> 1) & 0x5555555555555555UL) | ((v & 0x5555555555555555UL) << 1);
    v = ((v >> 2) & 0x3333333333333333UL) | ((v & 0x3333333333333333UL) << 2);
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FUL) | ((v & 0x0F0F0F0F0F0F0F0FUL) << 4);
    return __builtin_bswap64(v);
}

/* Advances a cursor within mask m with the bit order reversed. */
static inline size_t nextCursor(size_t v, size_t m) {
    v |= ~m;
    v = reverseBits(v);
    v++;
    return reverseBits(v);
}

/* Calls fn(privdata, entry), or reffn(privdata, &slot) when fn is NULL,
 * on every entry of table t whose home bucket is idx: those of bucket idx
 * and of the buckets its probe chain continues into. An entry found there
 * may belong to another home bucket (displaced from an earlier one, or
 * further along a longer chain): it is left to that bucket's step, so that
 * a scan of an unchanging table returns each entry once. Only buckets an
 * earlier chain may reach need the entries' hashes. fn may delete entries;
 * reffn may store another entry with the same key in the slot. */
static void scanChain(hashtable *ht, int t, size_t idx, hashtableScanFunction fn, hashtableScanRefFunction reffn,
                      void *privdata) {
    size_t mask = bucketMask(ht->exp[t]), start = idx;
    bucket *table = ht->tables[t];
    int check_home = mask != 0 && (table[(idx - 1) & mask].meta & EVER_FULL);
    do {
        bucket *b = &table[idx];
        for (int s = 0; s < ENTRIES_PER_BUCKET; s++) {
            if (!(b->meta & (1u << s))) continue;
            void *entry = b->entries[s];
            if (check_home && (hashKey(ht, entryKey(ht, entry)) & mask) != start) continue;
            if (fn) fn(privdata, entry);
            else reffn(privdata, &b->entries[s]);
        }
        if (!(b->meta & EVER_FULL)) break;
        idx = (idx + 1) & mask;
        check_home = mask != 0;
    } while (idx != start);
}

/* One cursor step of hashtableScan() / hashtableScanRefs(). */
static size_t scanStep(hashtable *ht, size_t cursor, hashtableScanFunction fn, hashtableScanRefFunction reffn,
                       void *privdata) {
    if (hashtableSize(ht) == 0) return 0;
    hashtablePauseRehashing(ht);
    if (!isRehashing(ht)) {
        size_t m0 = bucketMask(ht->exp[0]);
        scanChain(ht, 0, cursor & m0, fn, reffn, privdata);
        cursor = nextCursor(cursor, m0);
    } else {
        int small = ht->exp[0] <= ht->exp[1] ? 0 : 1, large = 1 - small;
        size_t m0 = bucketMask(ht->exp[small]), m1 = bucketMask(ht->exp[large]);
        scanChain(ht, small, cursor & m0, fn, reffn, privdata);
        /* Every large-table bucket with the small bucket's low bits. */
        do {
            scanChain(ht, large, cursor & m1, fn, reffn, privdata);
            cursor = nextCursor(cursor, m1);
        } while (cursor & (m0 ^ m1));
    }
    hashtableResumeRehashing(ht);
    hashtableShrinkIfNeeded(ht);
    return cursor;
}

/* Visits one cursor step: calls fn(privdata, entry) for the entries whose
 * home bucket is at cursor (and others on the same probe chains) and
 * returns the next cursor, 0 when the scan is complete. Start with 0.
 * Every entry present for the whole scan is visited at least once, even if
 * the table grows, shrinks or rehashes between calls (see dict.c's
 * dictScan for why the reversed cursor keeps its place across sizes);
 * only a table that changes between steps may have some visited more than
 * once. fn may delete entries. */
size_t hashtableScan(hashtable *ht, size_t cursor, hashtableScanFunction fn, void *privdata) {
    return scanStep(ht, cursor, fn, NULL, privdata);
}

/* hashtableScan() whose callback gets the address of each entry's slot
 * instead of the entry, so that it may replace the entry with another
 * pointer to an equal key (active defragmentation moves entries: defrag.c).
 * The callback must not add or delete entries. Returns the next cursor. */
size_t hashtableScanRefs(hashtable *ht, size_t cursor, hashtableScanRefFunction fn, void *privdata) {
    return scanStep(ht, cursor, NULL, fn, privdata);
}

/* Offers the table's bucket arrays to defragfn, which returns a block's
 * new address (the old one is then gone) or NULL when it left it in place
 * (defrag.c). The hashtable struct itself is the caller's to move: it
 * holds the pointer. Does nothing while rehashing is paused (a scan, a
 * safe iterator or a two-phase operation may hold bucket pointers). */
void hashtableDefragTables(hashtable *ht, void *(*defragfn)(void *)) {
    if (ht->pause_rehash > 0) return;
    for (int t = 0; t < 2; t++) {
        if (ht->tables[t] == NULL) continue;
        bucket *moved = defragfn(ht->tables[t]);
        if (moved) ht->tables[t] = moved;
    }
}

/* -------------------------------- sampling ------------------------------- */

/* The buckets that may hold entries, numbered 0..returned-1: table 0 from
 * rehash_idx (earlier ones were moved), then table 1. */
static size_t liveBuckets(const hashtable *ht) {
    if (!isRehashing(ht)) return numBuckets(ht->exp[0]);
    return numBuckets(ht->exp[0]) - (size_t)ht->rehash_idx + numBuckets(ht->exp[1]);
}

static bucket *liveBucketAt(hashtable *ht, size_t i) {
    size_t first = isRehashing(ht) ? (size_t)ht->rehash_idx : 0, n0 = numBuckets(ht->exp[0]) - first;
    return i < n0 ? &ht->tables[0][first + i] : &ht->tables[1][i - n0];
}

/* A random entry, fast but not uniform (entries in sparse buckets are
 * likelier): the first non-empty bucket from a random one, a random
 * entry of it. Returns 0 if the table is empty. */
int hashtableRandomEntry(hashtable *ht, void **found) {
    if (hashtableSize(ht) == 0) return 0;
    rehashStepIfNeeded(ht);
    size_t n = liveBuckets(ht), i = randomU64() % n;
    for (;;) {
        unsigned presence = liveBucketAt(ht, i)->meta & PRESENCE_MASK;
        if (presence) {
            int k = (int)(randomU64() % (uint64_t)__builtin_popcount(presence));
            for (int s = 0; s < ENTRIES_PER_BUCKET; s++) {
                if ((presence & (1u << s)) && k-- == 0) {
                    *found = liveBucketAt(ht, i)->entries[s];
                    return 1;
                }
            }
        }
        i = i + 1 == n ? 0 : i + 1;
    }
}

/* A uniformly chosen entry: a random slot among all live slots, taken if
 * occupied, else drawn again. Tables are kept at least 13% full (3% while
 * a fork child runs), so a few draws suffice; after 1000 misses (a table
 * emptied while resizing was forbidden) it settles for
 * hashtableRandomEntry(). Returns 0 if the table is empty. */
int hashtableFairRandomEntry(hashtable *ht, void **found) {
    if (hashtableSize(ht) == 0) return 0;
    rehashStepIfNeeded(ht);
    size_t slots = liveBuckets(ht) * ENTRIES_PER_BUCKET;
    for (int tries = 0; tries < 1000; tries++) {
        size_t r = randomU64() % slots;
        bucket *b = liveBucketAt(ht, r / ENTRIES_PER_BUCKET);
        int s = (int)(r % ENTRIES_PER_BUCKET);
        if (b->meta & (1u << s)) {
            *found = b->entries[s];
            return 1;
        }
    }
    return hashtableRandomEntry(ht, found);
}

/* Stores up to count distinct entries, from consecutive buckets starting
 * at a random one, in dst and returns how many. Fast, not uniform: for
 * eviction-style sampling. */
unsigned int hashtableSampleEntries(hashtable *ht, void **dst, unsigned int count) {
    if (hashtableSize(ht) < count) count = (unsigned int)hashtableSize(ht);
    if (count == 0) return 0;
    for (unsigned int j = 0; j < count && isRehashing(ht); j++) rehashStepIfNeeded(ht);
    size_t n = liveBuckets(ht), i = randomU64() % n;
    unsigned int stored = 0;
    for (size_t walked = 0; walked < n && stored < count; walked++) {
        bucket *b = liveBucketAt(ht, i);
        for (int s = 0; s < ENTRIES_PER_BUCKET && stored < count; s++)
            if (b->meta & (1u << s)) dst[stored++] = b->entries[s];
        i = i + 1 == n ? 0 : i + 1;
    }
    return stored;
}

/* ---------------------------------- stats -------------------------------- */

#define STATS_VECTLEN 50

static void tableStats(char *buf, size_t bufsize, size_t *len, hashtable *ht, int t, int full) {
    const char *name = t == 0 ? "main hash table" : "rehashing target";
    size_t n = numBuckets(ht->exp[t]), used = ht->used[t];
    if (used == 0) {
        bufAppendf(buf, bufsize, len, "Hash table %d stats (%s):\nNo stats available for empty dictionaries\n", t,
                   name);
        return;
    }
    bufAppendf(buf, bufsize, len, "Hash table %d stats (%s):\n table size: %zu\n number of elements: %zu\n"
           " buckets: %zu of %d entries, %zu ever full\n",
           t, name, n * ENTRIES_PER_BUCKET, used, n, ENTRIES_PER_BUCKET, ht->everfull[t]);
    if (!full) return;
    /* Chain length: buckets a lookup of an entry reads, from its home. */
    size_t chains[STATS_VECTLEN] = {0}, fill[ENTRIES_PER_BUCKET + 1] = {0}, maxchain = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        bucket *b = &ht->tables[t][i];
        fill[__builtin_popcount(b->meta & PRESENCE_MASK)]++;
        for (int s = 0; s < ENTRIES_PER_BUCKET; s++) {
            if (!(b->meta & (1u << s))) continue;
            size_t home = hashKey(ht, entryKey(ht, b->entries[s])) & bucketMask(ht->exp[t]);
            size_t chain = ((i - home) & bucketMask(ht->exp[t])) + 1;
            chains[chain < STATS_VECTLEN ? chain : STATS_VECTLEN - 1]++;
            total += chain;
            if (chain > maxchain) maxchain = chain;
        }
    }
    bufAppendf(buf, bufsize, len,
               " max chain length: %zu\n avg chain length (counted): %.02f\n Chain length distribution:\n", maxchain,
               (double)total / used);
    for (int i = 1; i < STATS_VECTLEN; i++)
        if (chains[i])
            bufAppendf(buf, bufsize, len, "   %d: %zu (%.02f%%)\n", i, chains[i], (double)chains[i] * 100 / used);
    bufAppendf(buf, bufsize, len, " Bucket fill distribution:\n");
    for (int i = 0; i <= ENTRIES_PER_BUCKET; i++)
        if (fill[i]) bufAppendf(buf, bufsize, len, "   %d: %zu (%.02f%%)\n", i, fill[i], (double)fill[i] * 100 / n);
}

/* Writes a human-readable description of the tables into buf (always
 * NUL-terminated, truncated to bufsize). full adds probe chain and bucket
 * fill statistics, which read every entry's key. */
void hashtableGetStats(char *buf, size_t bufsize, hashtable *ht, int full) {
    if (bufsize == 0) return;
    size_t len = 0;
    buf[0] = '\0';
    tableStats(buf, bufsize, &len, ht, 0, full);
    if (isRehashing(ht)) tableStats(buf, bufsize, &len, ht, 1, full);
}
