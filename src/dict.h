/* dict.h - chained hash table with incremental rehashing.
 *
 * A dict holds two tables. Normally only table 0 is in use; when it needs to
 * grow or shrink, table 1 is allocated at the new size and entries migrate
 * bucket by bucket (one step per add/find/delete, plus timed batches from
 * the server cron), so no single operation pays for a whole resize. Table
 * sizes are powers of two.
 *
 * Ownership: the dict owns its entries; keys and values are owned by the
 * dict if the type has destructors (they run on delete/replace/release), by
 * the caller otherwise. keyDup/valDup, when set, copy what callers pass in.
 * A type with embedKey copies each key into its entry instead: the caller
 * keeps the key it passed, and the dict's copy lives as long as the entry.
 *
 * Memory per entry (jemalloc classes 16, 32, 48, ...): normal 24 -> 32
 * bytes plus the key's own allocation; embedded 17 + key bytes (an 8-byte
 * sds member: 29 -> 32, key included); key-only 9 + key bytes (21 -> 32). */
#ifndef VK_DICT_H
#define VK_DICT_H

#include <stddef.h>
#include <stdint.h>

#define DICT_OK 0
#define DICT_ERR 1

/* Entries come in three layouts, one per dict (chosen by its dictType):
 *
 *   normal    {v, next, key}            key is a pointer (keyDup/keyDestructor)
 *   embedded  {v, next, off, key bytes} the key is copied into the entry
 *   key-only  {next, off, key bytes}    embedded key and no value (no_value)
 *
 * `off` is the offset of the key pointer embedKey() returned from the start
 * of the key bytes (e.g. past an sds header). Which layout an entry has is
 * kept in the low bits of every dictEntry pointer the dict stores or hands
 * out (allocations are at least 8-byte aligned), so the accessors below work
 * from the pointer alone. A dictEntry * is therefore a handle: only the
 * accessors may look through it. Normal entries carry tag 0 and are plain
 * pointers. */
/* The value slot of an entry: a pointer or a number. */
typedef union dictValue {
    void *val;
    uint64_t u64;
    int64_t s64;
    double d;
} dictValue;

typedef struct dictEntry {
    dictValue v;
    struct dictEntry *next; /* Next entry in the same bucket (a tagged handle). */
    void *key;
} dictEntry;

typedef struct dictEntryEmbedded {
    dictValue v;
    struct dictEntry *next;
    uint8_t key_offset;
    unsigned char key_buf[];
} dictEntryEmbedded;

typedef struct dictEntryKeyOnly {
    struct dictEntry *next;
    uint8_t key_offset;
    unsigned char key_buf[];
} dictEntryKeyOnly;

#define DICT_ENTRY_NORMAL 0
#define DICT_ENTRY_EMBEDDED 1
#define DICT_ENTRY_KEY_ONLY 2
#define DICT_ENTRY_KIND_MASK ((uintptr_t)7)

typedef struct dict dict;

typedef struct dictType {
    uint64_t (*hashFunction)(const void *key);
    void *(*keyDup)(const void *key);
    void *(*valDup)(const void *obj);
    int (*keyCompare)(const void *key1, const void *key2); /* non-zero if equal; NULL: pointer equality */
    void (*keyDestructor)(void *key);
    void (*valDestructor)(void *obj);
    /* Asked before allocating a new table of moreMem bytes while the current
     * one is usedRatio full; return 0 to refuse (e.g. over maxmemory). */
    int (*resizeAllowed)(size_t moreMem, double usedRatio);
    /* Optional: store a copy of the key inside the entry's own allocation
     * (one allocation per entry instead of two). embeddedKeySize(key)
     * returns the bytes needed; embedKey(buf, key) writes the copy there
     * and returns the pointer dictGetKey() will return. The copy is freed
     * with the entry, so such a type has neither keyDup nor keyDestructor. */
    size_t (*embeddedKeySize)(const void *key);
    void *(*embedKey)(void *buf, const void *key);
    /* Set-like dicts: entries have no value at all (key-only layout, one
     * pointer plus the embedded key). Requires embedKey. Setting or reading
     * a value of such an entry is a bug and aborts. */
    unsigned int no_value : 1;
} dictType;

struct dict {
    dictType *type;
    dictEntry **ht_table[2];
    unsigned long ht_used[2];
    long rehashidx;             /* Next table-0 bucket to migrate; -1 when not rehashing. */
    int16_t pauserehash;        /* >0: rehash steps suspended (safe iterators, scans). */
    signed char ht_size_exp[2]; /* log2 of table size; -1 for no table. */
};

/* A safe iterator pauses rehashing so the dict may be modified while
 * iterating (deleting the returned entry, adding). An unsafe one only
 * allows dictNext(); any other use is caught by a fingerprint check. */
typedef struct dictIterator {
    dict *d;
    long index;
    int table, safe;
    dictEntry *entry, *nextEntry;
    unsigned long long fingerprint;
} dictIterator;

typedef void(dictScanFunction)(void *privdata, const dictEntry *de);

#define DICT_HT_INITIAL_EXP 2
#define DICT_HT_INITIAL_SIZE (1 << DICT_HT_INITIAL_EXP)

typedef enum {
    DICT_RESIZE_ENABLE, /* Grow at load 1, shrink below 1/8. */
    DICT_RESIZE_AVOID,  /* A fork child is running: resize only when badly needed (copy-on-write). */
    DICT_RESIZE_FORBID, /* Never resize automatically. */
} dictResizeEnable;

#define DICTHT_SIZE(exp) ((exp) == -1 ? 0 : (unsigned long)1 << (exp))
#define DICTHT_SIZE_MASK(exp) ((exp) == -1 ? 0 : (DICTHT_SIZE(exp)) - 1)

#define dictSize(d) ((d)->ht_used[0] + (d)->ht_used[1])
#define dictBuckets(d) (DICTHT_SIZE((d)->ht_size_exp[0]) + DICTHT_SIZE((d)->ht_size_exp[1]))
#define dictIsRehashing(d) ((d)->rehashidx != -1)
#define dictPauseRehashing(d) ((d)->pauserehash++)
#define dictResumeRehashing(d) ((d)->pauserehash--)
#define dictHashKey(d, key) ((d)->type->hashFunction(key))

/* Entry accessors. dictSetVal applies the type's valDup. */
static inline int dictEntryKind(const dictEntry *de) { return (int)((uintptr_t)de & DICT_ENTRY_KIND_MASK); }
static inline void *dictEntryUntag(const dictEntry *de) { return (void *)((uintptr_t)de & ~DICT_ENTRY_KIND_MASK); }
/* Aborts: a value accessor was used on a key-only entry. */
void dictEntryHasNoValue(void) __attribute__((noreturn));
/* Normal and embedded entries share their first two fields (v, next). */
static inline dictEntry *dictEntryWithValue(const dictEntry *de) {
    if (dictEntryKind(de) == DICT_ENTRY_KEY_ONLY) dictEntryHasNoValue();
    return (dictEntry *)dictEntryUntag(de);
}
static inline void *dictGetKey(const dictEntry *de) {
    switch (dictEntryKind(de)) {
    case DICT_ENTRY_NORMAL: return de->key;
    case DICT_ENTRY_EMBEDDED: {
        dictEntryEmbedded *e = dictEntryUntag(de);
        return e->key_buf + e->key_offset;
    }
    default: {
        dictEntryKeyOnly *e = dictEntryUntag(de);
        return e->key_buf + e->key_offset;
    }
    }
}
static inline void *dictGetVal(const dictEntry *de) { return dictEntryWithValue(de)->v.val; }
static inline int64_t dictGetSignedIntegerVal(const dictEntry *de) { return dictEntryWithValue(de)->v.s64; }
static inline uint64_t dictGetUnsignedIntegerVal(const dictEntry *de) { return dictEntryWithValue(de)->v.u64; }
static inline double dictGetDoubleVal(const dictEntry *de) { return dictEntryWithValue(de)->v.d; }
static inline double *dictGetDoubleValPtr(dictEntry *de) { return &dictEntryWithValue(de)->v.d; }
static inline void dictSetVal(dict *d, dictEntry *de, void *val) {
    dictEntryWithValue(de)->v.val = d->type->valDup ? d->type->valDup(val) : val;
}
static inline void dictSetSignedIntegerVal(dictEntry *de, int64_t val) { dictEntryWithValue(de)->v.s64 = val; }
static inline void dictSetUnsignedIntegerVal(dictEntry *de, uint64_t val) { dictEntryWithValue(de)->v.u64 = val; }
static inline void dictSetDoubleVal(dictEntry *de, double val) { dictEntryWithValue(de)->v.d = val; }
static inline int64_t dictIncrSignedIntegerVal(dictEntry *de, int64_t val) { return dictEntryWithValue(de)->v.s64 += val; }
static inline uint64_t dictIncrUnsignedIntegerVal(dictEntry *de, uint64_t val) {
    return dictEntryWithValue(de)->v.u64 += val;
}
static inline double dictIncrDoubleVal(dictEntry *de, double val) { return dictEntryWithValue(de)->v.d += val; }

/* Create / destroy. */
dict *dictCreate(dictType *type);
void dictRelease(dict *d);
void dictEmpty(dict *d, void(callback)(dict *));

/* Sizing. */
int dictExpand(dict *d, unsigned long size);
int dictTryExpand(dict *d, unsigned long size);
int dictShrink(dict *d, unsigned long size);
int dictResize(dict *d);
int dictExpandIfNeeded(dict *d);
int dictShrinkIfNeeded(dict *d);
void dictSetResizeEnabled(dictResizeEnable enable);
size_t dictMemUsage(const dict *d);
size_t dictTablesMemUsage(const dict *d);
size_t dictEntryMemUsage(const dictEntry *de);

/* Rehashing. */
int dictRehash(dict *d, int n);
int dictRehashMicroseconds(dict *d, uint64_t us);

/* Lookup and modification. */
int dictAdd(dict *d, void *key, void *val);
dictEntry *dictAddRaw(dict *d, void *key, dictEntry **existing);
void *dictFindPositionForInsert(dict *d, const void *key, dictEntry **existing);
dictEntry *dictInsertAtPosition(dict *d, void *key, void *position);
dictEntry *dictAddOrFind(dict *d, void *key);
int dictReplace(dict *d, void *key, void *val);
int dictDelete(dict *d, const void *key);
dictEntry *dictUnlink(dict *d, const void *key);
void dictFreeUnlinkedEntry(dict *d, dictEntry *he);
dictEntry *dictFind(dict *d, const void *key);
void *dictFetchValue(dict *d, const void *key);
uint64_t dictGetHash(dict *d, const void *key);
void dictPrefetch(dict *d, const uint64_t *hashes, int n, int prefetch_values);

/* Iteration. */
dictIterator *dictGetIterator(dict *d);
dictIterator *dictGetSafeIterator(dict *d);
void dictInitIterator(dictIterator *iter, dict *d);
void dictInitSafeIterator(dictIterator *iter, dict *d);
void dictResetIterator(dictIterator *iter);
dictEntry *dictNext(dictIterator *iter);
void dictReleaseIterator(dictIterator *iter);
unsigned long dictScan(dict *d, unsigned long v, dictScanFunction *fn, void *privdata);
/* Active defragmentation (defrag.c): moves entries / bucket arrays. */
unsigned long dictScanDefrag(dict *d, unsigned long v, void *(*defragfn)(void *), dictScanFunction *moved,
                             void *privdata);
void dictDefragTables(dict *d, void *(*defragfn)(void *));

/* Sampling. */
dictEntry *dictGetRandomKey(dict *d);
dictEntry *dictGetFairRandomKey(dict *d);
unsigned int dictGetSomeKeys(dict *d, dictEntry **des, unsigned int count);

/* Hash functions (SipHash-1-2 under a process-wide 16-byte seed). */
void dictSetHashFunctionSeed(const uint8_t *seed);
const uint8_t *dictGetHashFunctionSeed(void);
uint64_t dictGenHashFunction(const void *key, size_t len);
uint64_t dictGenCaseHashFunction(const unsigned char *buf, size_t len);
/* For dicts keyed by the pointer value itself (sets of clients, ids). */
uint64_t dictPointerHash(const void *key);

/* Diagnostics (DEBUG HTSTATS). */
void dictGetStats(char *buf, size_t bufsize, dict *d, int full);

#endif
