/* dict.c - chained hash table with two tables and incremental rehashing.
 *
 * Used for the keyspace, expires, hash/set/zset encodings, the command
 * table, pub/sub channels and more. Calls zmalloc, siphash and (for fatal
 * misuse only) the log.
 *
 * Layout: table 0 is the live table; while d->rehashidx != -1 a resize is in
 * progress and table 1 is the new table. Invariants during a rehash:
 *   - table-0 buckets below rehashidx are empty (already migrated);
 *   - new entries always go to table 1, so table 0 only ever shrinks;
 *   - lookups check table 0 then table 1.
 * When table 0 empties, table 1 becomes table 0 and the rehash ends.
 *
 * Every add/find/delete migrates one bucket unless rehashing is paused
 * (d->pauserehash > 0). Safe iterators and dictScan() pause it, because
 * moving entries under them would make them miss or repeat entries.
 * Resizing may still *start* while paused: entries then stay where they are
 * and only new ones land in table 1, which iterators visit afterwards.
 *
 * Sizing policy (dictSetResizeEnabled): grow when elements >= buckets,
 * shrink when elements <= buckets / 8; while a fork child is alive (AVOID)
 * only grow past 4 elements per bucket and only shrink below 1/32, to avoid
 * copy-on-write of large tables; FORBID stops automatic resizing.
 *
 * dictPrefetch() serves callers with a batch of lookups ahead (a pipeline's
 * keys): it starts fetching what those lookups will read, so that their
 * cache misses overlap.
 *
 * Entries: every dict uses one of three layouts (normal, embedded key,
 * key-only; see dict.h), picked from its type. Bucket slots and `next`
 * links hold tagged handles whose low bits name the layout, so everything
 * here reaches an entry's fields through dictEntryNextRef(), dictGetKey()
 * and friends, never by dereferencing a handle directly. */
#include "dict.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "siphash.h"
#include "util.h"
#include "zmalloc.h"

#define DICT_MIN_FILL 8          /* shrink when used * 8 <= size */
#define DICT_FORCE_RESIZE_RATIO 4 /* AVOID: grow at used >= 4 * size, shrink at used * 32 <= size */

static dictResizeEnable dict_can_resize = DICT_RESIZE_ENABLE;
static uint8_t dict_hash_function_seed[16];

_Static_assert(sizeof(dictEntry) == 24, "dictEntry must stay three words");
_Static_assert(offsetof(dictEntry, v) == offsetof(dictEntryEmbedded, v) &&
                   offsetof(dictEntry, next) == offsetof(dictEntryEmbedded, next),
               "normal and embedded entries must share their value and next fields");
_Static_assert(sizeof(unsigned long) == 8, "dictScan's cursor reversal assumes 64-bit long");

static void __attribute__((noreturn)) dictPanic(const char *msg) {
    serverLog(LL_WARNING, "dict: %s", msg);
    abort();
}

/* ------------------------------- hashing --------------------------------- */

/* Sets the 16-byte SipHash key used by the generic hash functions. Call
 * once at startup, before any dict is filled (existing tables would become
 * unsearchable). */
void dictSetHashFunctionSeed(const uint8_t *seed) { memcpy(dict_hash_function_seed, seed, sizeof(dict_hash_function_seed)); }

/* Returns the current 16-byte seed (owned by this module). */
const uint8_t *dictGetHashFunctionSeed(void) { return dict_hash_function_seed; }

/* Keyed hash of len bytes at key, for dictType.hashFunction implementations. */
uint64_t dictGenHashFunction(const void *key, size_t len) { return siphash(key, len, dict_hash_function_seed); }

uint64_t dictPointerHash(const void *key) {
    return dictGenHashFunction(&key, sizeof(key));
}

/* As dictGenHashFunction() but ASCII case-insensitive. */
uint64_t dictGenCaseHashFunction(const unsigned char *buf, size_t len) {
    return siphash_nocase(buf, len, dict_hash_function_seed);
}

/* Returns the hash of key under d's type. */
uint64_t dictGetHash(dict *d, const void *key) { return dictHashKey(d, key); }

static inline int dictKeysEqual(dict *d, const void *k1, const void *k2) {
    return k1 == k2 || (d->type->keyCompare && d->type->keyCompare(k1, k2));
}

/* ------------------------------ entry layouts ---------------------------- */

/* The layout the entries of d have (see dict.h). */
static inline int dictTypeEntryKind(const dictType *type) {
    if (type->embedKey == NULL) return DICT_ENTRY_NORMAL;
    return type->no_value ? DICT_ENTRY_KEY_ONLY : DICT_ENTRY_EMBEDDED;
}

/* Bytes of an entry of the given kind before any embedded key. */
static inline size_t dictEntryFixedSize(int kind) {
    switch (kind) {
    case DICT_ENTRY_NORMAL: return sizeof(dictEntry);
    case DICT_ENTRY_EMBEDDED: return offsetof(dictEntryEmbedded, key_buf);
    default: return offsetof(dictEntryKeyOnly, key_buf);
    }
}

static inline dictEntry *dictEntryTag(void *ptr, int kind) { return (dictEntry *)((uintptr_t)ptr | (uintptr_t)kind); }

/* Where an entry keeps its successor in the bucket chain. */
static inline dictEntry **dictEntryNextRef(dictEntry *de) {
    if (dictEntryKind(de) == DICT_ENTRY_KEY_ONLY) return &((dictEntryKeyOnly *)dictEntryUntag(de))->next;
    return &((dictEntry *)dictEntryUntag(de))->next;
}

static inline dictEntry *dictEntryNext(dictEntry *de) { return *dictEntryNextRef(de); }

/* Allocates an entry for key in d's layout, the key set (embedded, or
 * through keyDup) and the value zeroed. Returns the tagged handle. */
static dictEntry *dictEntryCreate(dict *d, void *key) {
    int kind = dictTypeEntryKind(d->type);
    if (kind == DICT_ENTRY_NORMAL) {
        dictEntry *he = zmalloc(sizeof(*he));
        he->key = d->type->keyDup ? d->type->keyDup(key) : key;
        he->v.u64 = 0;
        return he;
    }
    size_t fixed = dictEntryFixedSize(kind);
    unsigned char *mem = zmalloc(fixed + d->type->embeddedKeySize(key));
    unsigned char *buf = mem + fixed;
    size_t off = (size_t)((unsigned char *)d->type->embedKey(buf, key) - buf);
    if (off > UINT8_MAX) dictPanic("embedded key starts too far into its buffer");
    if (kind == DICT_ENTRY_EMBEDDED) {
        dictEntryEmbedded *e = (dictEntryEmbedded *)mem;
        e->key_offset = (uint8_t)off;
        e->v.u64 = 0;
    } else {
        ((dictEntryKeyOnly *)mem)->key_offset = (uint8_t)off;
    }
    return dictEntryTag(mem, kind);
}

/* See dict.h. */
void dictEntryHasNoValue(void) { dictPanic("value accessed on a key-only entry"); }

/* Runs d's destructors on what de owns (an embedded key is part of the
 * entry and goes with it) and frees the entry. */
static void dictEntryFree(dict *d, dictEntry *de) {
    int kind = dictEntryKind(de);
    if (kind == DICT_ENTRY_NORMAL && d->type->keyDestructor) d->type->keyDestructor(de->key);
    if (kind != DICT_ENTRY_KEY_ONLY && d->type->valDestructor) d->type->valDestructor(dictGetVal(de));
    zfree(dictEntryUntag(de));
}

/* Cheap per-thread PRNG (splitmix64) for sampling; not for secrets. */
static uint64_t dictRandom(void) {
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

/* ------------------------------- lifecycle ------------------------------- */

static void dictResetTable(dict *d, int t) {
    d->ht_table[t] = NULL;
    d->ht_size_exp[t] = -1;
    d->ht_used[t] = 0;
}

/* Returns a new empty dict of the given type (the type must outlive it).
 * No table is allocated until the first insert. */
dict *dictCreate(dictType *type) {
    if (type->no_value && type->embedKey == NULL) dictPanic("a no_value dict type needs embedKey");
    dict *d = zmalloc(sizeof(*d));
    d->type = type;
    dictResetTable(d, 0);
    dictResetTable(d, 1);
    d->rehashidx = -1;
    d->pauserehash = 0;
    return d;
}

/* Frees every entry of table t (running destructors) and the table. */
static void dictClearTable(dict *d, int t, void(callback)(dict *)) {
    unsigned long size = DICTHT_SIZE(d->ht_size_exp[t]);
    for (unsigned long i = 0; i < size && d->ht_used[t] > 0; i++) {
        if (callback && (i & 65535) == 0) callback(d);
        dictEntry *he = d->ht_table[t][i];
        while (he) {
            dictEntry *next = dictEntryNext(he);
            dictEntryFree(d, he);
            d->ht_used[t]--;
            he = next;
        }
    }
    zfree(d->ht_table[t]);
    dictResetTable(d, t);
}

/* Removes every entry (running destructors) and frees the tables; d stays
 * usable. callback, if not NULL, is called every 65536 buckets so a caller
 * emptying a huge dict can keep serving events. */
void dictEmpty(dict *d, void(callback)(dict *)) {
    dictClearTable(d, 0, callback);
    dictClearTable(d, 1, callback);
    d->rehashidx = -1;
    d->pauserehash = 0;
}

/* Frees d and everything in it. */
void dictRelease(dict *d) {
    dictEmpty(d, NULL);
    zfree(d);
}

/* Bytes of the dict's own structures: the dict, its tables and its entries
 * without their keys (embedded or not) and values. For the whole memory of
 * a dict with embedded keys, use dictTablesMemUsage() plus
 * dictEntryMemUsage() of (a sample of) its entries. */
size_t dictMemUsage(const dict *d) {
    return dictTablesMemUsage(d) + dictSize(d) * dictEntryFixedSize(dictTypeEntryKind(d->type));
}

/* Bytes of the dict struct and its bucket arrays only. */
size_t dictTablesMemUsage(const dict *d) { return sizeof(*d) + dictBuckets(d) * sizeof(dictEntry *); }

/* Bytes allocated for one entry: the allocator's size of an entry with an
 * embedded key (key included), sizeof(dictEntry) for a normal one (whose
 * key and value are allocated by their owners). */
size_t dictEntryMemUsage(const dictEntry *de) {
    if (dictEntryKind(de) == DICT_ENTRY_NORMAL) return sizeof(dictEntry);
    return zmalloc_size(dictEntryUntag(de));
}

/* -------------------------------- resizing ------------------------------- */

/* Smallest exponent whose table has at least size buckets (min 4). */
static signed char dictNextExp(unsigned long size) {
    if (size <= DICT_HT_INITIAL_SIZE) return DICT_HT_INITIAL_EXP;
    if (size > (ULONG_MAX >> 1)) return (signed char)(8 * sizeof(long) - 1);
    return (signed char)(8 * sizeof(long) - __builtin_clzl(size - 1));
}

/* Allocates a table for size elements and starts migrating into it (or
 * installs it directly when table 0 holds nothing). With try_alloc set,
 * allocation failure returns DICT_ERR instead of aborting. */
static int dictResizeTo(dict *d, unsigned long size, int try_alloc) {
    if (dictIsRehashing(d) || d->ht_used[0] > size) return DICT_ERR;
    signed char exp = dictNextExp(size);
    if (exp == d->ht_size_exp[0]) return DICT_ERR;
    unsigned long newsize = DICTHT_SIZE(exp);
    if (newsize < size || newsize > SIZE_MAX / sizeof(dictEntry *)) return DICT_ERR;

    size_t bytes = newsize * sizeof(dictEntry *);
    dictEntry **table = try_alloc ? ztrycalloc(bytes) : zcalloc(bytes);
    if (table == NULL) return DICT_ERR;

    if (d->ht_table[0] == NULL || d->ht_used[0] == 0) {
        /* Nothing to migrate: swap the (empty) table 0 for the new one. */
        zfree(d->ht_table[0]);
        d->ht_table[0] = table;
        d->ht_size_exp[0] = exp;
        d->ht_used[0] = 0;
        return DICT_OK;
    }
    d->ht_table[1] = table;
    d->ht_size_exp[1] = exp;
    d->ht_used[1] = 0;
    d->rehashidx = 0;
    return DICT_OK;
}

/* Resizes d to hold at least size elements (rounded up to a power of two).
 * Returns DICT_ERR if a rehash is already running, size is below the
 * element count, or the size would not change. Aborts on OOM. */
int dictExpand(dict *d, unsigned long size) { return dictResizeTo(d, size, 0); }

/* As dictExpand() but returns DICT_ERR instead of aborting on OOM. */
int dictTryExpand(dict *d, unsigned long size) { return dictResizeTo(d, size, 1); }

/* Shrinks d to the smallest table holding size elements (size >= count).
 * Same returns as dictExpand(). */
int dictShrink(dict *d, unsigned long size) { return dictResizeTo(d, size, 0); }

/* Shrinks d to the minimal table for its elements, if resizing is enabled.
 * Returns DICT_OK if a resize started, DICT_ERR otherwise. */
int dictResize(dict *d) {
    if (dict_can_resize != DICT_RESIZE_ENABLE || dictIsRehashing(d)) return DICT_ERR;
    unsigned long minimal = d->ht_used[0];
    if (minimal < DICT_HT_INITIAL_SIZE) minimal = DICT_HT_INITIAL_SIZE;
    return dictShrink(d, minimal);
}

/* Asks the type whether a table for size elements may be allocated now. */
static int dictTypeResizeAllowed(dict *d, unsigned long size) {
    if (d->type->resizeAllowed == NULL) return 1;
    unsigned long cur = DICTHT_SIZE(d->ht_size_exp[0]);
    double ratio = cur ? (double)d->ht_used[0] / (double)cur : 0;
    return d->type->resizeAllowed(DICTHT_SIZE(dictNextExp(size)) * sizeof(dictEntry *), ratio);
}

/* Starts growing d if its load calls for it under the current policy.
 * Creates the first table of an empty dict. Returns DICT_OK unless the
 * first table could not be created. */
int dictExpandIfNeeded(dict *d) {
    if (dictIsRehashing(d)) return DICT_OK;
    unsigned long size = DICTHT_SIZE(d->ht_size_exp[0]);
    if (size == 0) return dictExpand(d, DICT_HT_INITIAL_SIZE);
    unsigned long used = d->ht_used[0];
    if ((dict_can_resize == DICT_RESIZE_ENABLE && used >= size) ||
        (dict_can_resize != DICT_RESIZE_FORBID && used >= size * DICT_FORCE_RESIZE_RATIO)) {
        if (dictTypeResizeAllowed(d, used + 1)) dictExpand(d, used + 1);
    }
    return DICT_OK;
}

/* Starts shrinking d if it is mostly empty under the current policy.
 * Always returns DICT_OK. */
int dictShrinkIfNeeded(dict *d) {
    if (dictIsRehashing(d)) return DICT_OK;
    unsigned long size = DICTHT_SIZE(d->ht_size_exp[0]);
    if (size <= DICT_HT_INITIAL_SIZE) return DICT_OK;
    unsigned long used = d->ht_used[0];
    if ((dict_can_resize == DICT_RESIZE_ENABLE && used * DICT_MIN_FILL <= size) ||
        (dict_can_resize != DICT_RESIZE_FORBID && used * DICT_MIN_FILL * DICT_FORCE_RESIZE_RATIO <= size)) {
        if (dictTypeResizeAllowed(d, used)) dictShrink(d, used);
    }
    return DICT_OK;
}

/* Sets the process-wide automatic resize policy (see dictResizeEnable).
 * The server sets AVOID while a fork child exists and ENABLE after. */
void dictSetResizeEnabled(dictResizeEnable enable) { dict_can_resize = enable; }

/* ------------------------------- rehashing ------------------------------- */

/* Migrates up to n non-empty buckets from table 0 to table 1, looking at no
 * more than n*10 empty buckets so one call stays short. Returns 1 if the
 * rehash is still in progress, 0 if it is complete (or was not running, or
 * is paused). Main thread only, like every dict mutation. */
int dictRehash(dict *d, int n) {
    if (!dictIsRehashing(d) || d->pauserehash > 0) return 0;
    int empty_visits = n * 10;
    unsigned long mask1 = DICTHT_SIZE_MASK(d->ht_size_exp[1]);
    int shrinking = d->ht_size_exp[1] < d->ht_size_exp[0];

    while (n-- && d->ht_used[0] != 0) {
        while (d->ht_table[0][d->rehashidx] == NULL) {
            d->rehashidx++;
            if (--empty_visits == 0) return 1;
        }
        dictEntry *de = d->ht_table[0][d->rehashidx];
        while (de) {
            dictEntry **nextref = dictEntryNextRef(de);
            dictEntry *next = *nextref;
            /* Shrinking a power-of-two table only drops high index bits, so
             * the new bucket follows from the old one without rehashing. */
            unsigned long idx =
                shrinking ? ((unsigned long)d->rehashidx & mask1) : (dictHashKey(d, dictGetKey(de)) & mask1);
            *nextref = d->ht_table[1][idx];
            d->ht_table[1][idx] = de;
            d->ht_used[0]--;
            d->ht_used[1]++;
            de = next;
        }
        d->ht_table[0][d->rehashidx] = NULL;
        d->rehashidx++;
    }

    if (d->ht_used[0] == 0) {
        zfree(d->ht_table[0]);
        d->ht_table[0] = d->ht_table[1];
        d->ht_size_exp[0] = d->ht_size_exp[1];
        d->ht_used[0] = d->ht_used[1];
        dictResetTable(d, 1);
        d->rehashidx = -1;
        return 0;
    }
    return 1;
}

static inline void dictRehashStep(dict *d) {
    if (d->pauserehash == 0) dictRehash(d, 1);
}

/* Rehashes in batches of 100 buckets for about us microseconds (server
 * cron). Returns the number of buckets migrated (a multiple of 100, an
 * upper bound), 0 if not rehashing or paused. */
int dictRehashMicroseconds(dict *d, uint64_t us) {
    if (d->pauserehash > 0) return 0;
    uint64_t start = getMonotonicUs();
    int rehashes = 0;
    while (dictRehash(d, 100)) {
        rehashes += 100;
        if (getMonotonicUs() - start >= us) break;
    }
    return rehashes;
}

/* ------------------------------- operations ------------------------------ */

/* Finds key's entry given its hash, in both tables. */
static dictEntry *dictFindWithHash(dict *d, const void *key, uint64_t h) {
    for (int t = 0; t <= 1; t++) {
        if (d->ht_table[t] == NULL) continue;
        dictEntry *he = d->ht_table[t][h & DICTHT_SIZE_MASK(d->ht_size_exp[t])];
        while (he) {
            if (dictKeysEqual(d, key, dictGetKey(he))) return he;
            he = dictEntryNext(he);
        }
        if (!dictIsRehashing(d)) break;
    }
    return NULL;
}

/* The bucket slot of hash h in table t of d. */
static inline dictEntry **dictBucketOf(dict *d, int t, uint64_t h) {
    return &d->ht_table[t][h & DICTHT_SIZE_MASK(d->ht_size_exp[t])];
}

/* Starts fetching an entry into the cache: its first bytes and, since
 * small entries straddle two cache lines one time in two, byte 47 (the
 * end of a 48-byte entry, the usual size of a keyspace entry). */
static inline void dictPrefetchEntry(const dictEntry *he) {
    const char *p = dictEntryUntag(he);
    __builtin_prefetch(p);
    __builtin_prefetch(p + 47);
}

/* Brings the memory that looking up n keys of d will touch into the cache,
 * given the keys' hashes (dictGetHash()): the bucket slot, the first two
 * entries of the bucket (a lookup reads the second one about every other
 * time when the table is nearly full) and, with prefetch_values, the values
 * those entries point at. Each step needs the memory the one before it
 * fetched, so the batch is walked once per step: the cache misses of the n
 * lookups then overlap instead of queueing one after the other. A hint
 * only: nothing is changed. */
void dictPrefetch(dict *d, const uint64_t *hashes, int n, int prefetch_values) {
    if (dictSize(d) == 0) return;
    int tables = dictIsRehashing(d) ? 2 : 1;
    int values = prefetch_values && !d->type->no_value;
    for (int i = 0; i < n; i++)
        for (int t = 0; t < tables; t++) __builtin_prefetch(dictBucketOf(d, t, hashes[i]));
    for (int i = 0; i < n; i++)
        for (int t = 0; t < tables; t++) {
            dictEntry *he = *dictBucketOf(d, t, hashes[i]);
            if (he) dictPrefetchEntry(he);
        }
    for (int i = 0; i < n; i++)
        for (int t = 0; t < tables; t++) {
            dictEntry *he = *dictBucketOf(d, t, hashes[i]);
            if (he == NULL) continue;
            if (values) __builtin_prefetch(dictGetVal(he));
            if ((he = dictEntryNext(he)) != NULL) dictPrefetchEntry(he);
        }
    if (!values) return;
    for (int i = 0; i < n; i++)
        for (int t = 0; t < tables; t++) {
            dictEntry *he = *dictBucketOf(d, t, hashes[i]);
            if (he && (he = dictEntryNext(he)) != NULL) __builtin_prefetch(dictGetVal(he));
        }
}

/* First half of an insert split in two, for callers that look a key up and
 * then add it if missing (SET of a new key) and would otherwise hash it
 * twice. Returns the position where key would go, or NULL if key exists
 * (then *existing, when not NULL, is its entry). The position is valid for
 * one dictInsertAtPosition() of the same key, and only if the dict is not
 * touched in between (no find, add, delete, rehash or iteration). */
void *dictFindPositionForInsert(dict *d, const void *key, dictEntry **existing) {
    if (existing) *existing = NULL;
    if (dictIsRehashing(d)) dictRehashStep(d);
    dictExpandIfNeeded(d);

    uint64_t h = dictHashKey(d, key);
    dictEntry *he = dictFindWithHash(d, key, h);
    if (he) {
        if (existing) *existing = he;
        return NULL;
    }
    /* While rehashing, new entries go to the new table. */
    int t = dictIsRehashing(d) ? 1 : 0;
    return &d->ht_table[t][h & DICTHT_SIZE_MASK(d->ht_size_exp[t])];
}

/* Second half: links a new entry for key (through keyDup, or embedded) at
 * the position dictFindPositionForInsert() returned, with its value
 * zeroed, and returns the entry. */
dictEntry *dictInsertAtPosition(dict *d, void *key, void *position) {
    dictEntry **bucket = position;
    dictEntry *he = dictEntryCreate(d, key);
    *dictEntryNextRef(he) = *bucket;
    *bucket = he;
    d->ht_used[dictIsRehashing(d) ? 1 : 0]++;
    return he;
}

/* Inserts key (through keyDup) with no value set yet and returns its new
 * entry, for callers that set the value themselves (dictSetVal or the
 * integer/double setters). If key exists, returns NULL and sets *existing
 * (when not NULL) to its entry; the caller still owns the key it passed. */
dictEntry *dictAddRaw(dict *d, void *key, dictEntry **existing) {
    void *position = dictFindPositionForInsert(d, key, existing);
    return position ? dictInsertAtPosition(d, key, position) : NULL;
}

/* Adds key -> val. Returns DICT_OK, or DICT_ERR if key already exists
 * (nothing changes and the caller keeps ownership of key and val). */
int dictAdd(dict *d, void *key, void *val) {
    dictEntry *he = dictAddRaw(d, key, NULL);
    if (!he) return DICT_ERR;
    if (dictEntryKind(he) != DICT_ENTRY_KEY_ONLY) dictSetVal(d, he, val);
    else if (val != NULL) dictEntryHasNoValue();
    return DICT_OK;
}

/* Returns key's entry, adding it (value unset, zeroed) if missing. */
dictEntry *dictAddOrFind(dict *d, void *key) {
    dictEntry *existing;
    dictEntry *he = dictAddRaw(d, key, &existing);
    return he ? he : existing;
}

/* Sets key -> val, adding or overwriting. Returns 1 if the key was added,
 * 0 if an existing value was replaced (the old value is destroyed after
 * the new one is set, so replacing a value with itself under a refcounting
 * destructor is safe; the passed key is not used and stays the caller's).
 * On a no_value dict val must be NULL: 1 if added, 0 if already there. */
int dictReplace(dict *d, void *key, void *val) {
    dictEntry *existing;
    dictEntry *he = dictAddRaw(d, key, &existing);
    if (d->type->no_value) {
        if (val != NULL) dictEntryHasNoValue();
        return he != NULL;
    }
    if (he) {
        dictSetVal(d, he, val);
        return 1;
    }
    void *old = dictGetVal(existing);
    dictSetVal(d, existing, val);
    if (d->type->valDestructor) d->type->valDestructor(old);
    return 0;
}

/* Removes key's entry from its bucket and returns it, or NULL. */
static dictEntry *dictGenericUnlink(dict *d, const void *key) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) dictRehashStep(d);
    uint64_t h = dictHashKey(d, key);
    for (int t = 0; t <= 1; t++) {
        if (d->ht_table[t] == NULL) continue;
        dictEntry **link = &d->ht_table[t][h & DICTHT_SIZE_MASK(d->ht_size_exp[t])];
        while (*link) {
            dictEntry *he = *link;
            dictEntry **nextref = dictEntryNextRef(he);
            if (dictKeysEqual(d, key, dictGetKey(he))) {
                *link = *nextref;
                *nextref = NULL;
                d->ht_used[t]--;
                dictShrinkIfNeeded(d);
                return he;
            }
            link = nextref;
        }
        if (!dictIsRehashing(d)) break;
    }
    return NULL;
}

/* Deletes key, running the key and value destructors. Returns DICT_OK, or
 * DICT_ERR if key was not found. */
int dictDelete(dict *d, const void *key) {
    dictEntry *he = dictGenericUnlink(d, key);
    if (!he) return DICT_ERR;
    dictFreeUnlinkedEntry(d, he);
    return DICT_OK;
}

/* Removes key's entry without freeing anything and returns it (NULL if not
 * found), so the caller can still use the value; it must then call
 * dictFreeUnlinkedEntry(). */
dictEntry *dictUnlink(dict *d, const void *key) { return dictGenericUnlink(d, key); }

/* Frees an entry returned by dictUnlink(), running destructors. NULL is a
 * no-op. */
void dictFreeUnlinkedEntry(dict *d, dictEntry *he) {
    if (he == NULL) return;
    dictEntryFree(d, he);
}

/* Returns key's entry or NULL. May perform a rehash step. */
dictEntry *dictFind(dict *d, const void *key) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) dictRehashStep(d);
    return dictFindWithHash(d, key, dictHashKey(d, key));
}

/* Returns the value stored for key, or NULL if absent. */
void *dictFetchValue(dict *d, const void *key) {
    dictEntry *he = dictFind(d, key);
    return he ? dictGetVal(he) : NULL;
}

/* ------------------------------- iterators ------------------------------- */

/* A summary of the dict's shape; an unsafe iterator records it on its first
 * step and checks it on release, catching modification during iteration. */
static unsigned long long dictFingerprint(dict *d) {
    unsigned long long parts[6] = {
        (unsigned long long)(uintptr_t)d->ht_table[0], (unsigned long long)d->ht_size_exp[0], d->ht_used[0],
        (unsigned long long)(uintptr_t)d->ht_table[1], (unsigned long long)d->ht_size_exp[1], d->ht_used[1],
    };
    unsigned long long h = 0;
    for (int i = 0; i < 6; i++) {
        h = (h ^ parts[i]) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
    }
    return h;
}

/* Initialises a caller-allocated (e.g. stack) unsafe iterator. While it is
 * in use only dictNext() may touch d. Finish with dictResetIterator(). */
void dictInitIterator(dictIterator *iter, dict *d) {
    iter->d = d;
    iter->table = 0;
    iter->index = -1;
    iter->safe = 0;
    iter->entry = NULL;
    iter->nextEntry = NULL;
    iter->fingerprint = 0;
}

/* Initialises a caller-allocated safe iterator: the dict may be modified
 * (the returned entry deleted, keys added) while it is active. */
void dictInitSafeIterator(dictIterator *iter, dict *d) {
    dictInitIterator(iter, d);
    iter->safe = 1;
}

/* Ends a stack iterator: resumes rehashing (safe) or verifies that the dict
 * was not modified (unsafe; aborts if it was). */
void dictResetIterator(dictIterator *iter) {
    if (iter->index == -1 && iter->table == 0) return; /* never started */
    if (iter->safe)
        dictResumeRehashing(iter->d);
    else if (iter->fingerprint != dictFingerprint(iter->d))
        dictPanic("unsafe iterator used while the dict was modified");
}

/* Returns a new heap-allocated unsafe iterator (free with
 * dictReleaseIterator). */
dictIterator *dictGetIterator(dict *d) {
    dictIterator *iter = zmalloc(sizeof(*iter));
    dictInitIterator(iter, d);
    return iter;
}

/* Returns a new heap-allocated safe iterator. */
dictIterator *dictGetSafeIterator(dict *d) {
    dictIterator *iter = dictGetIterator(d);
    iter->safe = 1;
    return iter;
}

/* Returns the next entry, or NULL when done. Each entry present for the
 * whole iteration is returned exactly once; entries added meanwhile may or
 * may not be. */
dictEntry *dictNext(dictIterator *iter) {
    dict *d = iter->d;
    for (;;) {
        if (iter->entry == NULL) {
            if (iter->index == -1 && iter->table == 0) {
                if (iter->safe)
                    dictPauseRehashing(d);
                else
                    iter->fingerprint = dictFingerprint(d);
            }
            iter->index++;
            if (iter->index >= (long)DICTHT_SIZE(d->ht_size_exp[iter->table])) {
                if (dictIsRehashing(d) && iter->table == 0) {
                    iter->table = 1;
                    iter->index = 0;
                } else {
                    return NULL;
                }
            }
            iter->entry = d->ht_table[iter->table][iter->index];
        } else {
            iter->entry = iter->nextEntry;
        }
        if (iter->entry) {
            /* Remember the successor now: the caller may delete this entry. */
            iter->nextEntry = dictEntryNext(iter->entry);
            return iter->entry;
        }
    }
}

/* Ends and frees a heap iterator (see dictResetIterator). */
void dictReleaseIterator(dictIterator *iter) {
    dictResetIterator(iter);
    zfree(iter);
}

/* ---------------------------------- scan --------------------------------- */

static inline unsigned long reverseBits(unsigned long v) {
    v = ((v >> 1) & 0x5555555555555555UL) | ((v & 0x5555555555555555UL) << 1);
    v = ((v >> 2) & 0x3333333333333333UL) | ((v & 0x3333333333333333UL) << 2);
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FUL) | ((v & 0x0F0F0F0F0F0F0F0FUL) << 4);
    return __builtin_bswap64(v);
}

/* Advances cursor v within mask m, counting with the bit order reversed:
 * the highest masked bit is the least significant digit. */
static inline unsigned long scanNextCursor(unsigned long v, unsigned long m) {
    v |= ~m;
    v = reverseBits(v);
    v++;
    return reverseBits(v);
}

static void scanBucket(dictEntry *he, dictScanFunction *fn, void *privdata) {
    while (he) {
        dictEntry *next = dictEntryNext(he); /* fn may delete he */
        fn(privdata, he);
        he = next;
    }
}

/* Visits one cursor step of d, calling fn(privdata, entry) for each entry of
 * the bucket(s) at cursor v, and returns the next cursor; 0 means the scan
 * is complete. Start with v = 0.
 *
 * Guarantee: every entry present from the start to the end of a full scan
 * is visited at least once, even if the table grows, shrinks or rehashes
 * between calls; some may be visited more than once.
 *
 * Why: the cursor is incremented from its high bit down (reverse binary).
 * For a table of 2^n buckets the visited buckets are then exactly those
 * whose low n bits, read reversed, are below the cursor read reversed, and
 * that set maps onto itself when the table doubles (each bucket splits into
 * two with the same low bits) or halves (two buckets merge into the one
 * that shares their low bits). While rehashing, the cursor's bucket in the
 * small table is visited with all of its expansions in the large one. */
unsigned long dictScan(dict *d, unsigned long v, dictScanFunction *fn, void *privdata) {
    if (dictSize(d) == 0) return 0;
    dictPauseRehashing(d);

    if (!dictIsRehashing(d)) {
        unsigned long m0 = DICTHT_SIZE_MASK(d->ht_size_exp[0]);
        scanBucket(d->ht_table[0][v & m0], fn, privdata);
        v = scanNextCursor(v, m0);
    } else {
        int small = d->ht_size_exp[0] <= d->ht_size_exp[1] ? 0 : 1, large = 1 - small;
        unsigned long m0 = DICTHT_SIZE_MASK(d->ht_size_exp[small]);
        unsigned long m1 = DICTHT_SIZE_MASK(d->ht_size_exp[large]);
        dictEntry **t0 = d->ht_table[small], **t1 = d->ht_table[large];

        scanBucket(t0[v & m0], fn, privdata);
        /* Every large-table bucket whose low bits equal the small bucket's,
         * stepping through the extra high bits in cursor order until they
         * wrap (which carries into the low bits: the next small bucket). */
        do {
            scanBucket(t1[v & m1], fn, privdata);
            v = scanNextCursor(v, m1);
        } while (v & (m0 ^ m1));
    }

    dictResumeRehashing(d);
    return v;
}

/* Moves the entries of the chain whose first link is *ref through
 * defragfn, relinking each moved one and telling moved() about it. */
static void defragBucket(dictEntry **ref, void *(*defragfn)(void *), dictScanFunction *moved, void *privdata) {
    while (*ref) {
        dictEntry *de = *ref;
        int kind = dictEntryKind(de);
        void *block = defragfn(dictEntryUntag(de));
        if (block) {
            de = dictEntryTag(block, kind);
            *ref = de;
            if (moved) moved(privdata, de);
        }
        ref = dictEntryNextRef(de);
    }
}

/* dictScan() for active defragmentation (defrag.c): each entry of the
 * step's buckets is offered to defragfn, which returns the entry block's
 * new address (the old one is then freed) or NULL when it stays; moved
 * entries are relinked here and handed to moved(privdata, de) (if not
 * NULL) so that the owner can re-point whatever borrows from them (a
 * sorted set's skiplist node borrows its member from the entry). Returns
 * the next cursor, 0 when done. */
unsigned long dictScanDefrag(dict *d, unsigned long v, void *(*defragfn)(void *), dictScanFunction *moved,
                             void *privdata) {
    if (dictSize(d) == 0) return 0;
    dictPauseRehashing(d);
    if (!dictIsRehashing(d)) {
        unsigned long m0 = DICTHT_SIZE_MASK(d->ht_size_exp[0]);
        defragBucket(&d->ht_table[0][v & m0], defragfn, moved, privdata);
        v = scanNextCursor(v, m0);
    } else {
        int small = d->ht_size_exp[0] <= d->ht_size_exp[1] ? 0 : 1, large = 1 - small;
        unsigned long m0 = DICTHT_SIZE_MASK(d->ht_size_exp[small]);
        unsigned long m1 = DICTHT_SIZE_MASK(d->ht_size_exp[large]);
        defragBucket(&d->ht_table[small][v & m0], defragfn, moved, privdata);
        do {
            defragBucket(&d->ht_table[large][v & m1], defragfn, moved, privdata);
            v = scanNextCursor(v, m1);
        } while (v & (m0 ^ m1));
    }
    dictResumeRehashing(d);
    return v;
}

/* Offers d's bucket arrays to defragfn (see dictScanDefrag()). Does
 * nothing while rehashing is paused: a scan or safe iterator may hold
 * bucket pointers. The dict struct itself is its owner's to move. */
void dictDefragTables(dict *d, void *(*defragfn)(void *)) {
    if (d->pauserehash > 0) return;
    for (int t = 0; t < 2; t++) {
        if (d->ht_table[t] == NULL) continue;
        dictEntry **moved = defragfn(d->ht_table[t]);
        if (moved) d->ht_table[t] = moved;
    }
}

/* -------------------------------- sampling ------------------------------- */

/* Bucket v of the buckets a rehashing dict still uses: table 0 from
 * rehashidx on, then table 1 (v counts from table 0's bucket 0). */
static dictEntry *dictBucketAt(dict *d, unsigned long v) {
    unsigned long s0 = DICTHT_SIZE(d->ht_size_exp[0]);
    return v < s0 ? d->ht_table[0][v] : d->ht_table[1][v - s0];
}

/* The buckets that can hold entries, as dictBucketAt() numbers them:
 * [*first, *first + returned count). Table-0 buckets below rehashidx are
 * empty while rehashing. */
static unsigned long dictLiveBuckets(dict *d, unsigned long *first) {
    *first = dictIsRehashing(d) ? (unsigned long)d->rehashidx : 0;
    return (dictIsRehashing(d) ? dictBuckets(d) : DICTHT_SIZE(d->ht_size_exp[0])) - *first;
}

/* Returns a random entry, or NULL if d is empty. Entries in short chains
 * are likelier than those in long ones; see dictGetFairRandomKey(). */
dictEntry *dictGetRandomKey(dict *d) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) dictRehashStep(d);

    dictEntry *he;
    if (dictIsRehashing(d)) {
        unsigned long first, span = dictLiveBuckets(d, &first);
        do {
            he = dictBucketAt(d, first + dictRandom() % span);
        } while (he == NULL);
    } else {
        unsigned long m = DICTHT_SIZE_MASK(d->ht_size_exp[0]);
        do {
            he = d->ht_table[0][dictRandom() & m];
        } while (he == NULL);
    }

    unsigned long len = 0;
    for (dictEntry *e = he; e; e = dictEntryNext(e)) len++;
    unsigned long pick = dictRandom() % len;
    while (pick--) he = dictEntryNext(he);
    return he;
}

/* Stores up to count entries, taken from consecutive buckets starting at a
 * random one, in des and returns how many were stored. Fast but not
 * uniform; may return fewer than count (sparse table, or count close to the
 * dict size) but never the same entry twice, because the walk covers each
 * bucket index at most once. Meant for eviction sampling. */
unsigned int dictGetSomeKeys(dict *d, dictEntry **des, unsigned int count) {
    if (dictSize(d) < count) count = (unsigned int)dictSize(d);
    if (count == 0) return 0;
    unsigned long maxsteps = (unsigned long)count * 10;

    /* Contribute to the rehash in proportion to the work we will do. */
    for (unsigned int j = 0; j < count && dictIsRehashing(d); j++) dictRehashStep(d);

    int tables = dictIsRehashing(d) ? 2 : 1;
    unsigned long maxmask = DICTHT_SIZE_MASK(d->ht_size_exp[0]);
    if (tables == 2 && DICTHT_SIZE_MASK(d->ht_size_exp[1]) > maxmask) maxmask = DICTHT_SIZE_MASK(d->ht_size_exp[1]);

    unsigned long i = dictRandom() & maxmask;
    unsigned long walked = 0; /* distance covered; stop before wrapping onto the start */
    unsigned int stored = 0;
    while (stored < count && maxsteps-- && walked <= maxmask) {
        for (int t = 0; t < tables; t++) {
            if (tables == 2 && t == 0 && i < (unsigned long)d->rehashidx) {
                /* Already migrated part of table 0. If i is also beyond the
                 * (smaller) table 1, nothing lives here: skip to rehashidx. */
                if (i >= DICTHT_SIZE(d->ht_size_exp[1])) {
                    walked += (unsigned long)d->rehashidx - i;
                    i = (unsigned long)d->rehashidx;
                    if (walked > maxmask) return stored;
                } else {
                    continue;
                }
            }
            if (i >= DICTHT_SIZE(d->ht_size_exp[t])) continue;
            for (dictEntry *he = d->ht_table[t][i]; he; he = dictEntryNext(he)) {
                des[stored++] = he;
                if (stored == count) return stored;
            }
        }
        i = (i + 1) & maxmask;
        walked++;
    }
    return stored;
}

/* dictGetFairRandomKey(): windows of consecutive buckets meant to hold
 * about FAIR_WINDOW_ENTRIES entries; one holding k entries is accepted with
 * probability k / FAIR_MAX_ENTRIES (k / size in a smaller dict). */
#define FAIR_WINDOW_ENTRIES 16
#define FAIR_MAX_ENTRIES 48

/* Returns an entry chosen uniformly at random; NULL if d is empty. A
 * window of w consecutive buckets (wrapping around) starts at a random
 * bucket; when it holds k entries, one of them is taken with probability
 * k / limit (limit: FAIR_MAX_ENTRIES, or the dict's size if smaller, which
 * no window can exceed), else a new window is drawn. Each entry lies in
 * exactly w of the possible windows, so every draw takes any given entry
 * with the same probability, w / (buckets * limit). Only a window holding
 * more than FAIR_MAX_ENTRIES (three times what w is sized for) is taken
 * every time, a bias of about 1e-10 with a sound hash.
 * Picking from a run of entries instead, as dictGetSomeKeys() gives them,
 * favours entries after empty buckets, by 3x or more. */
dictEntry *dictGetFairRandomKey(dict *d) {
    unsigned long n = dictSize(d);
    if (n == 0) return NULL;
    if (dictIsRehashing(d)) dictRehashStep(d);
    unsigned long first, span = dictLiveBuckets(d, &first);
    unsigned long w = span * FAIR_WINDOW_ENTRIES / n;
    if (w == 0) w = 1;
    if (w > span) w = span;
    unsigned long limit = n < FAIR_MAX_ENTRIES ? n : FAIR_MAX_ENTRIES;
    for (;;) {
        unsigned long start = dictRandom() % span, k = 0, v = start;
        for (unsigned long i = 0; i < w; i++, v = v + 1 == span ? 0 : v + 1)
            for (dictEntry *he = dictBucketAt(d, first + v); he; he = dictEntryNext(he)) k++;
        if (k == 0 || (k < limit && dictRandom() % limit >= k)) continue;
        unsigned long pick = dictRandom() % k;
        for (v = start;; v = v + 1 == span ? 0 : v + 1)
            for (dictEntry *he = dictBucketAt(d, first + v); he; he = dictEntryNext(he))
                if (pick-- == 0) return he;
    }
}

/* ---------------------------------- stats -------------------------------- */

#define DICT_STATS_VECTLEN 50

/* Appends table t's statistics to buf (of size bufsize, already holding
 * *len bytes). */
static void dictTableStats(char *buf, size_t bufsize, size_t *len, dict *d, int t, int full) {
    const char *name = t == 0 ? "main hash table" : "rehashing target";
    unsigned long size = DICTHT_SIZE(d->ht_size_exp[t]);
    unsigned long used = d->ht_used[t];
    if (used == 0) {
        bufAppendf(buf, bufsize, len, "Hash table %d stats (%s):\nNo stats available for empty dictionaries\n", t,
                   name);
        return;
    }
    bufAppendf(buf, bufsize, len, "Hash table %d stats (%s):\n table size: %lu\n number of elements: %lu\n", t, name,
               size, used);
    if (!full) return;

    unsigned long clvector[DICT_STATS_VECTLEN] = {0};
    unsigned long slots = 0, maxchain = 0, totchain = 0;
    for (unsigned long i = 0; i < size; i++) {
        unsigned long chain = 0;
        for (dictEntry *he = d->ht_table[t][i]; he; he = dictEntryNext(he)) chain++;
        clvector[chain < DICT_STATS_VECTLEN ? chain : DICT_STATS_VECTLEN - 1]++;
        if (chain == 0) continue;
        slots++;
        totchain += chain;
        if (chain > maxchain) maxchain = chain;
    }
    bufAppendf(buf, bufsize, len, " different slots: %lu\n max chain length: %lu\n avg chain length (counted): %.02f\n"
           " avg chain length (computed): %.02f\n Chain length distribution:\n",
           slots, maxchain, (double)totchain / slots, (double)used / slots);
    for (int i = 0; i < DICT_STATS_VECTLEN; i++) {
        if (clvector[i] == 0) continue;
        bufAppendf(buf, bufsize, len, "   %d: %lu (%.02f%%)\n", i, clvector[i], ((double)clvector[i] / size) * 100);
    }
}

/* Writes a human-readable description of d's tables into buf (always
 * NUL-terminated, truncated to bufsize). full adds chain statistics, which
 * walk every bucket. */
void dictGetStats(char *buf, size_t bufsize, dict *d, int full) {
    if (bufsize == 0) return;
    size_t len = 0;
    buf[0] = '\0';
    dictTableStats(buf, bufsize, &len, d, 0, full);
    if (dictIsRehashing(d)) dictTableStats(buf, bufsize, &len, d, 1, full);
}
