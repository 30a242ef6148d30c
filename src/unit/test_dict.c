/* test_dict.c - unit tests for dict.c: basic operations, incremental
 * rehashing, safe and unsafe iterators, the dictScan guarantee across grow
 * and shrink, sampling, resize policies, stats. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dict.h"
#include "log.h"
#include "sds.h"
#include "unittest.h"
#include "zmalloc.h"

/* --- dict types used by the tests --- */

static uint64_t sdsHash(const void *key) { return dictGenHashFunction(key, sdslen((sds)key)); }
static uint64_t sdsCaseHash(const void *key) { return dictGenCaseHashFunction((const unsigned char *)key, sdslen((sds)key)); }
static int sdsKeyCompare(const void *a, const void *b) {
    return sdslen((sds)a) == sdslen((sds)b) && memcmp(a, b, sdslen((sds)a)) == 0;
}
static int sdsKeyCaseCompare(const void *a, const void *b) { return strcasecmp(a, b) == 0; }
static void sdsDestructor(void *p) { sdsfree(p); }
static int val_frees;
static void countingValDestructor(void *p) {
    val_frees++;
    zfree(p);
}

static dictType sdsDictType = {.hashFunction = sdsHash, .keyCompare = sdsKeyCompare,
                               .keyDestructor = sdsDestructor, .valDestructor = countingValDestructor};
static dictType sdsCaseDictType = {.hashFunction = sdsCaseHash, .keyCompare = sdsKeyCaseCompare,
                                   .keyDestructor = sdsDestructor};

/* Integer keys stored in the pointer itself; pointer equality compares. */
static size_t embeddedSize(const void *key) { return sdsEmbeddedSize(sdslen((sds)key)); }
static void *embedSds(void *buf, const void *key) { return sdsnewInBuffer(buf, key, sdslen((sds)key)); }
static dictType embeddedKeyDictType = {.hashFunction = sdsHash, .keyCompare = sdsKeyCompare,
                                       .embeddedKeySize = embeddedSize, .embedKey = embedSds};

/* The same embedded keys with counted values, and without values. */
static dictType embeddedValDictType = {.hashFunction = sdsHash, .keyCompare = sdsKeyCompare,
                                       .valDestructor = countingValDestructor,
                                       .embeddedKeySize = embeddedSize, .embedKey = embedSds};
static dictType keyOnlyDictType = {.hashFunction = sdsHash, .keyCompare = sdsKeyCompare,
                                   .embeddedKeySize = embeddedSize, .embedKey = embedSds, .no_value = 1};
static dictType noValueWithoutEmbedType = {.hashFunction = sdsHash, .keyCompare = sdsKeyCompare, .no_value = 1};

static uint64_t intHash(const void *key) {
    uint64_t z = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ULL;
    return z ^ (z >> 31);
}
static dictType intDictType = {.hashFunction = intHash};
#define K(i) ((void *)(uintptr_t)((i) + 1))
#define KI(p) ((long)(uintptr_t)(p)-1)

static int refuse_resize;
static int resizeGate(size_t moreMem, double usedRatio) { return !refuse_resize; }
static dictType gatedDictType = {.hashFunction = intHash, .resizeAllowed = resizeGate};

static sds key(long i) { return sdscatfmt(sdsempty(), "key:%I", (long long)i); }

static void *intVal(long v) {
    long *p = zmalloc(sizeof(long));
    *p = v;
    return p;
}

/* Completes any rehash in progress. */
static void finishRehash(dict *d) {
    while (dictIsRehashing(d)) dictRehash(d, 100);
}

/* --- scan helpers --- */

typedef struct {
    unsigned char *seen; /* per-key visit counter (saturating) */
    long max;
} scanState;

static void scanCollect(void *privdata, const dictEntry *de) {
    scanState *st = privdata;
    long k = KI(dictGetKey(de));
    if (k >= 0 && k < st->max && st->seen[k] < 255) st->seen[k]++;
}

/* --- helpers for tests run over every entry layout --- */

static dictType *layoutTypes[] = {&sdsDictType, &embeddedValDictType, &keyOnlyDictType};
static const char *layoutNames[] = {"normal", "embedded", "key-only"};

/* Adds "key:<i>" (value i unless the type has none). A type that embeds
 * copies the key, so the test frees its own; otherwise the dict takes it. */
static int layoutAdd(dict *d, long i) {
    sds k = key(i);
    int rc = dictAdd(d, k, d->type->no_value ? NULL : intVal(i));
    if (d->type->embedKey || rc != DICT_OK) sdsfree(k);
    return rc;
}

static int layoutDelete(dict *d, long i) {
    sds k = key(i);
    int rc = dictDelete(d, k);
    sdsfree(k);
    return rc;
}

/* The i of an entry's "key:<i>", checking the value agrees with it. */
static long layoutIndex(const dictEntry *de) {
    sds k = dictGetKey(de);
    if (sdslen(k) < 5 || memcmp(k, "key:", 4) != 0) return -1;
    long i = strtol(k + 4, NULL, 10);
    if (dictEntryKind(de) != DICT_ENTRY_KEY_ONLY && *(long *)dictGetVal(de) != i) return -1;
    return i;
}

static void scanCollectLayout(void *privdata, const dictEntry *de) {
    scanState *st = privdata;
    long k = layoutIndex(de);
    if (k >= 0 && k < st->max && st->seen[k] < 255) st->seen[k]++;
}

static void readValueOfKeyOnlyEntry(void) {
    dict *d = dictCreate(&keyOnlyDictType);
    layoutAdd(d, 1);
    sds k = key(1);
    dictGetVal(dictFind(d, k));
}

static void setValueOfKeyOnlyEntry(void) {
    dict *d = dictCreate(&keyOnlyDictType);
    sds k = key(1);
    dictAdd(d, k, intVal(1));
}

static void createNoValueWithoutEmbed(void) { dictCreate(&noValueWithoutEmbedType); }

/* --- defragmentation helpers: every entry offered moves --- */

static long defrag_moves, defrag_told;
static void *moveBlock(void *ptr) {
    defrag_moves++;
    return zmalloc_defrag_move(ptr);
}
static void *keepBlock(void *ptr) {
    (void)ptr;
    defrag_moves++;
    return NULL;
}
static void countMoved(void *privdata, const dictEntry *de) {
    (void)privdata;
    if (layoutIndex(de) >= 0) defrag_told++;
}

static void emptyCallback(dict *d) {
    (void)d;
    val_frees += 1000000;
}

int main(int argc, char **argv) {
    UT_BEGIN(argv[0]);
    uint8_t seed[16];
    for (int i = 0; i < 16; i++) seed[i] = (uint8_t)(i * 7 + 1);
    dictSetHashFunctionSeed(seed);

    TEST("dict: entry is three words") { ASSERT_EQ_LL(sizeof(dictEntry), 24); }

    TEST("dict: add, find, replace, delete with destructors") {
        dict *d = dictCreate(&sdsDictType);
        ASSERT(dictSize(d) == 0 && dictBuckets(d) == 0);
        ASSERT(dictFind(d, "nothing") == NULL);
        sds k = key(1);
        ASSERT(dictAdd(d, k, intVal(10)) == DICT_OK);
        sds dup = key(1);
        void *v2 = intVal(20);
        ASSERT(dictAdd(d, dup, v2) == DICT_ERR); /* caller still owns dup and v2 */
        ASSERT_EQ_LL(dictSize(d), 1);
        ASSERT_EQ_LL(*(long *)dictFetchValue(d, dup), 10);

        val_frees = 0;
        ASSERT(dictReplace(d, dup, v2) == 0); /* replaced, old value freed */
        ASSERT_EQ_LL(val_frees, 1);
        ASSERT_EQ_LL(*(long *)dictFetchValue(d, k), 20);
        sds k2 = key(2);
        ASSERT(dictReplace(d, k2, intVal(30)) == 1); /* added; dict owns k2 */
        ASSERT_EQ_LL(dictSize(d), 2);

        dictEntry *e = dictAddOrFind(d, dup);
        ASSERT(e && dictGetKey(e) == k);
        sdsfree(dup);

        sds k3 = key(3);
        e = dictAddOrFind(d, k3);
        ASSERT(e && dictGetVal(e) == NULL); /* new entry, value zeroed */
        dictSetVal(d, e, intVal(40));
        dictEntry *existing;
        sds k3b = key(3);
        ASSERT(dictAddRaw(d, k3b, &existing) == NULL && existing == e);
        sdsfree(k3b);

        val_frees = 0;
        sds probe = key(2);
        ASSERT(dictDelete(d, probe) == DICT_OK);
        ASSERT(dictDelete(d, probe) == DICT_ERR);
        ASSERT(dictFind(d, probe) == NULL);
        sdsfree(probe);
        ASSERT_EQ_LL(val_frees, 1);

        probe = key(3);
        e = dictUnlink(d, probe);
        ASSERT(e != NULL && *(long *)dictGetVal(e) == 40);
        ASSERT(dictFind(d, probe) == NULL);
        ASSERT_EQ_LL(val_frees, 1); /* not freed yet */
        dictFreeUnlinkedEntry(d, e);
        ASSERT_EQ_LL(val_frees, 2);
        ASSERT(dictUnlink(d, probe) == NULL);
        dictFreeUnlinkedEntry(d, NULL);
        sdsfree(probe);

        ASSERT_EQ_LL(dictSize(d), 1);
        dictRelease(d);
        ASSERT_EQ_LL(val_frees, 3);
    }

    TEST("dict: keys embedded in their entries survive rehashing and deletion") {
        dict *d = dictCreate(&embeddedKeyDictType);
        char buf[64];
        for (int i = 0; i < 5000; i++) {
            snprintf(buf, sizeof(buf), "key:%d", i);
            sds k = sdsnew(buf);
            dictEntry *de = dictAddRaw(d, k, NULL);
            ASSERT(de != NULL);
            ASSERT(dictGetKey(de) != k); /* a copy, inside the entry */
            ASSERT(sdscmp(dictGetKey(de), k) == 0);
            dictSetSignedIntegerVal(de, i);
            sdsfree(k); /* the caller keeps ownership of what it passed */
        }
        for (int i = 0; i < 5000; i += 2) {
            snprintf(buf, sizeof(buf), "key:%d", i);
            sds k = sdsnew(buf);
            ASSERT_EQ_LL(dictDelete(d, k), DICT_OK);
            sdsfree(k);
        }
        int ok = 1;
        for (int i = 0; i < 5000; i++) {
            snprintf(buf, sizeof(buf), "key:%d", i);
            sds k = sdsnew(buf);
            dictEntry *de = dictFind(d, k);
            if ((i % 2 == 0) != (de == NULL)) ok = 0;
            if (de && (dictGetSignedIntegerVal(de) != i || sdslen(dictGetKey(de)) != strlen(buf))) ok = 0;
            sdsfree(k);
        }
        ASSERT(ok);
        ASSERT_EQ_LL(dictSize(d), 2500);
        dictRelease(d);
    }

    TEST("dict: embedded-key entries: one allocation, values, replace, unlink") {
        dict *d = dictCreate(&embeddedValDictType);
        sds k = key(7);
        size_t before = zmalloc_used_memory();
        ASSERT(dictAdd(d, k, NULL) == DICT_OK);
        dictEntry *de = dictFind(d, k);
        ASSERT(de != NULL && dictEntryKind(de) == DICT_ENTRY_EMBEDDED);
        ASSERT(dictGetKey(de) != k && sdscmp(dictGetKey(de), k) == 0);
        ASSERT(dictGetVal(de) == NULL);
        /* {v, next, offset} + the 10-byte key as an sds: one block of at
         * most 32 bytes (jemalloc's class; exact sizes under ASan) for
         * entry and key together, beyond the first table. */
        ASSERT(dictEntryMemUsage(de) <= 32);
        ASSERT_EQ_LL(zmalloc_used_memory() - before, dictEntryMemUsage(de) + dictTablesMemUsage(d) - sizeof(dict));
        ASSERT(dictAdd(d, k, intVal(1)) == DICT_ERR);
        val_frees = 0;
        ASSERT(dictReplace(d, k, intVal(2)) == 0); /* old (NULL) value destroyed */
        ASSERT_EQ_LL(*(long *)dictFetchValue(d, k), 2);
        ASSERT(dictReplace(d, k, intVal(3)) == 0);
        ASSERT_EQ_LL(val_frees, 2);
        ASSERT_EQ_LL(*(long *)dictFetchValue(d, k), 3);
        dictSetSignedIntegerVal(dictFind(d, k), 0); /* values of any kind */
        dictSetDoubleVal(dictFind(d, k), 0.5);
        ASSERT(*dictGetDoubleValPtr(dictFind(d, k)) == 0.5);
        dictSetVal(d, dictFind(d, k), intVal(4));
        ASSERT(dictAddOrFind(d, k) == dictFind(d, k));

        dictEntry *un = dictUnlink(d, k);
        ASSERT(un != NULL && dictFind(d, k) == NULL);
        ASSERT(sdscmp(dictGetKey(un), k) == 0); /* still readable until freed */
        val_frees = 0;
        dictFreeUnlinkedEntry(d, un);
        ASSERT_EQ_LL(val_frees, 1);
        ASSERT(layoutAdd(d, 8) == DICT_OK && layoutDelete(d, 8) == DICT_OK);
        ASSERT_EQ_LL(val_frees, 2);
        ASSERT(layoutDelete(d, 8) == DICT_ERR);
        ASSERT_EQ_LL(dictSize(d), 0);
        sdsfree(k);
        dictRelease(d);
    }

    TEST("dict: key-only entries: one small allocation, no value") {
        dict *d = dictCreate(&keyOnlyDictType);
        sds k = key(7);
        size_t before = zmalloc_used_memory();
        ASSERT(dictAdd(d, k, NULL) == DICT_OK);
        ASSERT(dictAdd(d, k, NULL) == DICT_ERR);
        dictEntry *de = dictFind(d, k);
        ASSERT(de != NULL && dictEntryKind(de) == DICT_ENTRY_KEY_ONLY);
        ASSERT(dictGetKey(de) != k && sdscmp(dictGetKey(de), k) == 0);
        /* {next, offset} + the key: 9 + 14 bytes -> a block of at most 32;
         * an 8-byte member (the benchmark's "m0000000") needs 21 -> 32 too. */
        ASSERT(dictEntryMemUsage(de) <= 32);
        ASSERT_EQ_LL(zmalloc_used_memory() - before, dictEntryMemUsage(de) + dictTablesMemUsage(d) - sizeof(dict));
        ASSERT(dictReplace(d, k, NULL) == 0);
        ASSERT(dictAddOrFind(d, k) == de);
        dictEntry *un = dictUnlink(d, k);
        ASSERT(un == de && dictFind(d, k) == NULL);
        dictFreeUnlinkedEntry(d, un);
        ASSERT(dictDelete(d, k) == DICT_ERR);
        sdsfree(k);
        /* Fewer bytes than the same members as normal entries with sds keys. */
        dict *normal = dictCreate(&sdsCaseDictType);
        size_t m0 = zmalloc_used_memory();
        for (long i = 0; i < 1000; i++) layoutAdd(d, i);
        size_t m1 = zmalloc_used_memory();
        for (long i = 0; i < 1000; i++) dictAdd(normal, key(i), NULL);
        size_t m2 = zmalloc_used_memory();
        ASSERT(m1 - m0 < m2 - m1);
        ASSERT_EQ_LL(dictMemUsage(d), dictTablesMemUsage(d) + 1000 * 9); /* fixed part only */
        dictRelease(normal);
        dictRelease(d);
    }

    TEST("dict: misuse of key-only entries aborts") {
        ASSERT(utAbortsInChild(readValueOfKeyOnlyEntry));
        ASSERT(utAbortsInChild(setValueOfKeyOnlyEntry));
        ASSERT(utAbortsInChild(createNoValueWithoutEmbed));
    }

    TEST("dict: every layout through rehash, shrink, iteration and sampling") {
        for (int l = 0; l < 3; l++) {
            dict *d = dictCreate(layoutTypes[l]);
            const long N = 3000;
            int ok = 1;
            for (long i = 0; i < N; i++) {
                if (layoutAdd(d, i) != DICT_OK) ok = 0;
                if (i % 7 == 0 && layoutAdd(d, i / 2) != DICT_ERR) ok = 0; /* duplicate */
            }
            if (!ok) printf("layout %s: adds\n", layoutNames[l]);
            ASSERT(ok);
            ASSERT_EQ_LL(dictSize(d), N);
            /* Every key is findable, also in the middle of a rehash. */
            for (long i = 0; i < N && ok; i++) {
                sds k = key(i);
                dictEntry *de = dictFind(d, k);
                ok = de && layoutIndex(de) == i && dictEntryKind(de) == l;
                sdsfree(k);
            }
            ASSERT(ok);
            finishRehash(d);

            /* A safe iterator while deleting every odd key (the current
             * entry) and adding new ones: each old key seen once. */
            unsigned char *seen = zcalloc(2 * N);
            dictIterator *it = dictGetSafeIterator(d);
            dictEntry *de;
            long added = 0;
            while ((de = dictNext(it)) != NULL) {
                long i = layoutIndex(de);
                if (i < 0 || i >= 2 * N) ok = 0;
                else seen[i]++;
                if (i >= 0 && i < N && (i % 2) && layoutDelete(d, i) != DICT_OK) ok = 0;
                if (added < N / 4) layoutAdd(d, N + added++);
            }
            dictReleaseIterator(it);
            for (long i = 0; i < N; i++)
                if (seen[i] != 1) ok = 0;
            for (long i = N; i < 2 * N; i++)
                if (seen[i] > 1) ok = 0;
            zfree(seen);
            ASSERT(ok);
            ASSERT_EQ_LL(dictSize(d), N / 2 + N / 4);

            /* Sampling hands out live entries of the right layout. */
            dictEntry *some[20];
            unsigned int got = dictGetSomeKeys(d, some, 20);
            for (unsigned int j = 0; j < got; j++)
                if (layoutIndex(some[j]) < 0 || dictEntryKind(some[j]) != l) ok = 0;
            if (layoutIndex(dictGetRandomKey(d)) < 0 || layoutIndex(dictGetFairRandomKey(d)) < 0) ok = 0;
            ASSERT(ok);

            /* Delete down to a few keys: the table shrinks, the rest stay. */
            unsigned long big = dictBuckets(d);
            for (long i = 0; i < 2 * N; i++)
                if (i % 100) layoutDelete(d, i);
            finishRehash(d);
            ASSERT(dictBuckets(d) < big);
            for (long i = 0; i < 2 * N; i += 100) {
                sds k = key(i);
                dictEntry *e = dictFind(d, k);
                if ((i % 2 == 0 || i >= N) && i < N + N / 4 && (e == NULL || layoutIndex(e) != i)) ok = 0;
                sdsfree(k);
            }
            ASSERT(ok);
            val_frees = 0;
            size_t left = dictSize(d);
            dictRelease(d);
            ASSERT_EQ_LL(val_frees, l == 2 ? 0 : (long)left);
        }
    }

    TEST("dict: every layout keeps the scan guarantee while growing and shrinking") {
        for (int l = 0; l < 3; l++) {
            dict *d = dictCreate(layoutTypes[l]);
            const long N = 2000;
            for (long i = 0; i < N; i++) layoutAdd(d, i);
            finishRehash(d);
            scanState st = {zcalloc(3 * N), 3 * N};
            unsigned long cursor = 0, start_buckets = dictBuckets(d), max_buckets = 0;
            long next = N, gone = N / 2;
            do {
                cursor = dictScan(d, cursor, scanCollectLayout, &st);
                /* Grow first (keys N..3N arrive), then shrink (keys from
                 * N/2 up leave); keys below N/2 stay throughout. */
                if (next < 3 * N) {
                    for (int j = 0; j < 3; j++) layoutAdd(d, next++);
                } else {
                    for (int j = 0; j < 8 && gone < 3 * N; j++) layoutDelete(d, gone++);
                }
                if (dictBuckets(d) > max_buckets) max_buckets = dictBuckets(d);
            } while (cursor != 0);
            int ok = 1;
            for (long i = 0; i < N / 2; i++)
                if (st.seen[i] == 0) ok = 0;
            if (!ok) printf("layout %s: scan missed a key\n", layoutNames[l]);
            ASSERT(ok);
            ASSERT(max_buckets > start_buckets);             /* it grew during the scan */
            ASSERT(gone == 3 * N && dictBuckets(d) < max_buckets); /* then shrank */
            zfree(st.seen);
            dictRelease(d);
        }
    }

    TEST("dict: find position for insert, then insert there, across rehashing") {
        dict *d = dictCreate(&embeddedKeyDictType);
        char buf[64];
        int saw_rehash = 0, ok = 1;
        for (int i = 0; i < 3000; i++) {
            snprintf(buf, sizeof(buf), "key:%d", i);
            sds k = sdsnew(buf);
            dictEntry *existing = (dictEntry *)1;
            void *pos = dictFindPositionForInsert(d, k, &existing);
            if (pos == NULL || existing != NULL) ok = 0;
            if (dictIsRehashing(d)) saw_rehash = 1;
            dictEntry *de = dictInsertAtPosition(d, k, pos);
            if (dictGetVal(de) != NULL || sdscmp(dictGetKey(de), k) != 0) ok = 0;
            dictSetSignedIntegerVal(de, i);
            /* The key is found where it was put, also mid-rehash. */
            if (dictFind(d, k) != de) ok = 0;
            sdsfree(k);
        }
        ASSERT(ok);
        ASSERT(saw_rehash);
        ASSERT_EQ_LL(dictSize(d), 3000);

        /* An existing key: no position, *existing is its entry, and
         * nothing changes. */
        sds k = sdsnew("key:1234");
        dictEntry *existing = NULL;
        ASSERT(dictFindPositionForInsert(d, k, &existing) == NULL);
        ASSERT(existing != NULL);
        ASSERT_EQ_LL(dictGetSignedIntegerVal(existing), 1234);
        ASSERT(dictFindPositionForInsert(d, k, NULL) == NULL);
        ASSERT_EQ_LL(dictSize(d), 3000);
        sdsfree(k);

        /* Everything is still there with its value after the rehash ends. */
        finishRehash(d);
        for (int i = 0; i < 3000; i++) {
            snprintf(buf, sizeof(buf), "key:%d", i);
            k = sdsnew(buf);
            dictEntry *de = dictFind(d, k);
            if (de == NULL || dictGetSignedIntegerVal(de) != i) ok = 0;
            sdsfree(k);
        }
        ASSERT(ok);
        dictRelease(d);
    }

    TEST("dict: prefetch is a hint that changes nothing, in every layout and mid-rehash") {
        for (int l = 0; l < 3; l++) {
            dict *d = dictCreate(layoutTypes[l]);
            uint64_t hashes[40];
            for (int i = 0; i < 40; i++) {
                sds k = key(i);
                hashes[i] = dictGetHash(d, k);
                sdsfree(k);
            }
            dictPrefetch(d, hashes, 40, 1); /* empty: no table at all */
            for (long i = 0; i < 1000; i++) ASSERT(layoutAdd(d, i) == DICT_OK);
            ASSERT(dictTryExpand(d, 4096) == DICT_OK);
            ASSERT(dictIsRehashing(d));
            dictPrefetch(d, hashes, 40, 1);
            dictPrefetch(d, hashes, 40, 0);
            finishRehash(d);
            dictPrefetch(d, hashes, 40, 1);
            ASSERT_EQ_LL(dictSize(d), 1000);
            for (long i = 0; i < 1000; i++) {
                sds k = key(i);
                ASSERT(dictFind(d, k) != NULL);
                sdsfree(k);
            }
            dictRelease(d);
        }
    }

    TEST("dict: integer and double values") {
        dict *d = dictCreate(&intDictType);
        dictEntry *e = dictAddRaw(d, K(5), NULL);
        dictSetSignedIntegerVal(e, -7);
        ASSERT_EQ_LL(dictIncrSignedIntegerVal(e, 10), 3);
        ASSERT_EQ_LL(dictGetSignedIntegerVal(dictFind(d, K(5))), 3);
        dictSetUnsignedIntegerVal(e, 1);
        ASSERT_EQ_LL(dictIncrUnsignedIntegerVal(e, 1), 2);
        dictSetDoubleVal(e, 1.5);
        dictIncrDoubleVal(e, 1.0);
        ASSERT(dictGetDoubleVal(e) == 2.5 && *dictGetDoubleValPtr(e) == 2.5);
        dictRelease(d);
    }

    TEST("dict: case-insensitive type") {
        dict *d = dictCreate(&sdsCaseDictType);
        dictAdd(d, sdsnew("Config-Name"), NULL);
        sds q = sdsnew("CONFIG-name");
        ASSERT(dictFind(d, q) != NULL);
        sdsfree(q);
        q = sdsnew("config-nam");
        ASSERT(dictFind(d, q) == NULL);
        sdsfree(q);
        dictRelease(d);
    }

    TEST("dict: grows, rehashes incrementally, shrinks") {
        dict *d = dictCreate(&intDictType);
        const long N = 20000;
        int saw_rehash = 0;
        for (long i = 0; i < N; i++) {
            ASSERT(dictAdd(d, K(i), NULL) == DICT_OK);
            if (dictIsRehashing(d)) {
                saw_rehash = 1;
                /* Mid-rehash, every key inserted so far is still reachable. */
                if (i % 997 == 0)
                    for (long j = 0; j <= i; j += 37) ASSERT(dictFind(d, K(j)) != NULL);
            }
        }
        ASSERT(saw_rehash);
        ASSERT_EQ_LL(dictSize(d), N);
        finishRehash(d);
        unsigned long b = dictBuckets(d);
        ASSERT(b >= (unsigned long)N && (b & (b - 1)) == 0);
        for (long i = 0; i < N; i++) ASSERT(dictFind(d, K(i)) != NULL);
        ASSERT(dictFind(d, K(N)) == NULL);

        /* Delete down to 100 entries: fill < 1/8 triggers shrinking. */
        for (long i = 100; i < N; i++) ASSERT(dictDelete(d, K(i)) == DICT_OK);
        /* Deletes shrink one step at a time; the cron finishes the job. */
        for (int round = 0; round < 10; round++) {
            finishRehash(d);
            dictShrinkIfNeeded(d);
        }
        ASSERT_EQ_LL(dictSize(d), 100);
        ASSERT(dictBuckets(d) <= 1024);
        for (long i = 0; i < 100; i++) ASSERT(dictFind(d, K(i)) != NULL);

        /* Deleting everything shrinks back to the minimum table. */
        for (long i = 0; i < 100; i++) dictDelete(d, K(i));
        for (int round = 0; round < 10; round++) {
            finishRehash(d);
            dictShrinkIfNeeded(d);
        }
        ASSERT_EQ_LL(dictSize(d), 0);
        ASSERT_EQ_LL(dictBuckets(d), DICT_HT_INITIAL_SIZE);
        dictRelease(d);
    }

    TEST("dict: explicit expand, try-expand, resize") {
        dict *d = dictCreate(&intDictType);
        ASSERT(dictExpand(d, 1000) == DICT_OK);
        ASSERT_EQ_LL(dictBuckets(d), 1024);
        ASSERT(!dictIsRehashing(d)); /* empty: installed directly */
        ASSERT(dictExpand(d, 1000) == DICT_ERR); /* same size */
        for (long i = 0; i < 600; i++) dictAdd(d, K(i), NULL);
        ASSERT(dictExpand(d, 10) == DICT_ERR); /* below element count */
        if (!utUnderValgrind()) ASSERT(dictTryExpand(d, 1UL << 60) == DICT_ERR); /* fails, no abort */
        ASSERT(!dictIsRehashing(d));
        ASSERT(dictExpand(d, 5000) == DICT_OK);
        ASSERT(dictIsRehashing(d));
        ASSERT(dictExpand(d, 9000) == DICT_ERR); /* already rehashing */
        ASSERT(dictRehashMicroseconds(d, 100000) > 0);
        ASSERT(!dictIsRehashing(d));
        ASSERT_EQ_LL(dictBuckets(d), 8192);
        for (long i = 200; i < 600; i++) dictDelete(d, K(i));
        finishRehash(d);
        dictResize(d);
        finishRehash(d);
        ASSERT_EQ_LL(dictBuckets(d), 256);
        for (long i = 0; i < 200; i++) ASSERT(dictFind(d, K(i)) != NULL);
        dictRelease(d);
    }

    TEST("dict: resize policy AVOID / FORBID and resizeAllowed") {
        dict *d = dictCreate(&intDictType);
        dictExpand(d, 64);
        dictSetResizeEnabled(DICT_RESIZE_AVOID);
        for (long i = 0; i < 64 * 4 - 1; i++) dictAdd(d, K(i), NULL);
        ASSERT_EQ_LL(dictBuckets(d), 64); /* load < 4: no growth while avoiding */
        dictAdd(d, K(1000), NULL);
        dictAdd(d, K(1001), NULL);
        ASSERT(dictIsRehashing(d) || dictBuckets(d) > 64); /* load >= 4 forces it */
        finishRehash(d);

        dictSetResizeEnabled(DICT_RESIZE_FORBID);
        unsigned long b = dictBuckets(d);
        for (long i = 2000; i < 2000 + (long)b * 5; i++) dictAdd(d, K(i), NULL);
        ASSERT_EQ_LL(dictBuckets(d), b); /* never */
        ASSERT(dictResize(d) == DICT_ERR);
        dictSetResizeEnabled(DICT_RESIZE_ENABLE);
        dictRelease(d);

        dict *g = dictCreate(&gatedDictType);
        refuse_resize = 1;
        for (long i = 0; i < 100; i++) dictAdd(g, K(i), NULL);
        ASSERT_EQ_LL(dictBuckets(g), DICT_HT_INITIAL_SIZE); /* first table needs no permission */
        for (long i = 0; i < 100; i++) ASSERT(dictFind(g, K(i)) != NULL);
        refuse_resize = 0;
        dictAdd(g, K(100), NULL);
        ASSERT(dictIsRehashing(g) || dictBuckets(g) > DICT_HT_INITIAL_SIZE);
        dictRelease(g);
    }

    TEST("dict: unsafe iterator visits each entry exactly once") {
        dict *d = dictCreate(&intDictType);
        const long N = 5000;
        for (long i = 0; i < N; i++) dictAdd(d, K(i), NULL);
        ASSERT(dictIsRehashing(d) || 1);
        unsigned char *seen = calloc(N, 1);
        dictIterator it;
        dictInitIterator(&it, d);
        dictEntry *e;
        long count = 0;
        while ((e = dictNext(&it)) != NULL) {
            seen[KI(dictGetKey(e))]++;
            count++;
        }
        dictResetIterator(&it);
        ASSERT_EQ_LL(count, N);
        long ones = 0;
        for (long i = 0; i < N; i++) ones += seen[i] == 1;
        ASSERT_EQ_LL(ones, N);
        free(seen);

        /* Empty dict and never-started iterators are fine. */
        dict *empty = dictCreate(&intDictType);
        dictIterator *hi = dictGetIterator(empty);
        ASSERT(dictNext(hi) == NULL);
        dictReleaseIterator(hi);
        dictReleaseIterator(dictGetSafeIterator(d));
        dictRelease(empty);
        dictRelease(d);
    }

    TEST("dict: unsafe iterator misuse is caught by the fingerprint") {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            serverLogConfig.verbosity = LL_NOTHING;
            dict *d = dictCreate(&intDictType);
            for (long i = 0; i < 100; i++) dictAdd(d, K(i), NULL);
            dictIterator *it = dictGetIterator(d);
            dictNext(it);
            dictAdd(d, K(1000), NULL); /* forbidden while an unsafe iterator runs */
            dictReleaseIterator(it);   /* must abort */
            _exit(0);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    }

    TEST("dict: safe iterator survives deletes and adds mid-rehash") {
        dict *d = dictCreate(&intDictType);
        const long N = 4096;
        /* Fill until a rehash has just started, then iterate through it. */
        long n = 0;
        while (n < N || !dictIsRehashing(d)) dictAdd(d, K(n), NULL), n++;
        ASSERT(dictIsRehashing(d));
        long before = d->rehashidx;

        unsigned char *seen = calloc(n, 1);
        dictIterator *it = dictGetSafeIterator(d);
        dictEntry *e;
        long added = 0, visited = 0;
        while ((e = dictNext(it)) != NULL) {
            long k = KI(dictGetKey(e));
            if (k < n) {
                seen[k]++;
                visited++;
                if (k % 2 == 0) ASSERT(dictDelete(d, dictGetKey(e)) == DICT_OK);
            }
            if (added < 3000) dictAdd(d, K(1000000 + added), NULL), added++;
            dictFind(d, K(1)); /* would rehash a step if not paused */
        }
        ASSERT_EQ_LL(d->rehashidx, before); /* paused while iterating */
        dictReleaseIterator(it);
        ASSERT_EQ_LL(d->pauserehash, 0);
        ASSERT_EQ_LL(visited, n);
        long ones = 0;
        for (long i = 0; i < n; i++) ones += seen[i] == 1;
        ASSERT_EQ_LL(ones, n);
        free(seen);

        /* After release the rehash proceeds and the dict is consistent. */
        finishRehash(d);
        for (long i = 0; i < n; i++) ASSERT((dictFind(d, K(i)) != NULL) == (i % 2 == 1));
        for (long i = 0; i < added; i++) ASSERT(dictFind(d, K(1000000 + i)) != NULL);
        ASSERT_EQ_LL(dictSize(d), n / 2 + added);
        dictRelease(d);
    }

    TEST("dict: scan guarantee across growth") {
        dict *d = dictCreate(&intDictType);
        const long N = 2000, MAX = 200000;
        for (long i = 0; i < N; i++) dictAdd(d, K(i), NULL);
        scanState st = {calloc(MAX, 1), MAX};
        unsigned long cursor = 0;
        long next = N, calls = 0;
        int saw_rehash = 0;
        do {
            cursor = dictScan(d, cursor, scanCollect, &st);
            calls++;
            /* Grow aggressively between calls, sometimes mid-rehash. */
            for (int j = 0; j < 40 && next < MAX; j++) dictAdd(d, K(next), NULL), next++;
            if (dictIsRehashing(d)) saw_rehash = 1;
        } while (cursor != 0 && calls < 10000000);
        ASSERT(saw_rehash);
        long missing = 0;
        for (long i = 0; i < N; i++) missing += st.seen[i] == 0;
        ASSERT_EQ_LL(missing, 0);
        free(st.seen);
        dictRelease(d);
    }

    TEST("dict: scan guarantee across shrinking with deletes") {
        dict *d = dictCreate(&intDictType);
        const long N = 50000, KEEP = 300; /* keys [0, KEEP) stay throughout */
        for (long i = 0; i < N; i++) dictAdd(d, K(i), NULL);
        finishRehash(d);
        unsigned long start_buckets = dictBuckets(d);
        scanState st = {calloc(N, 1), N};
        unsigned long cursor = 0;
        long del = N - 1, calls = 0;
        int saw_rehash = 0;
        do {
            cursor = dictScan(d, cursor, scanCollect, &st);
            calls++;
            for (int j = 0; j < 400 && del >= KEEP; j++) dictDelete(d, K(del)), del--;
            if (dictIsRehashing(d)) saw_rehash = 1;
        } while (cursor != 0 && calls < 10000000);
        ASSERT(saw_rehash);
        finishRehash(d);
        ASSERT(dictBuckets(d) < start_buckets);
        long missing = 0;
        for (long i = 0; i < KEEP; i++) missing += st.seen[i] == 0;
        ASSERT_EQ_LL(missing, 0);
        free(st.seen);
        dictRelease(d);
    }

    TEST("dict: scan guarantee with random churn, grow and shrink") {
        srand(12345);
        for (int round = 0; round < 20; round++) {
            dict *d = dictCreate(&intDictType);
            const long STABLE = 500, MAX = 100000;
            for (long i = 0; i < STABLE; i++) dictAdd(d, K(i), NULL);
            scanState st = {calloc(MAX, 1), MAX};
            unsigned long cursor = 0;
            long calls = 0;
            do {
                cursor = dictScan(d, cursor, scanCollect, &st);
                calls++;
                /* Volatile keys [STABLE, MAX): add bursts then delete bursts. */
                int burst = rand() % 200;
                int grow = (round + calls / 8) % 2 == 0;
                for (int j = 0; j < burst; j++) {
                    long k = STABLE + rand() % (MAX - STABLE);
                    if (grow)
                        dictAdd(d, K(k), NULL);
                    else
                        dictDelete(d, K(k));
                }
                if (rand() % 3 == 0) dictRehash(d, rand() % 5 + 1);
            } while (cursor != 0 && calls < 1000000);
            long missing = 0;
            for (long i = 0; i < STABLE; i++) missing += st.seen[i] == 0;
            ASSERT_EQ_LL(missing, 0);
            free(st.seen);
            dictRelease(d);
        }
    }

    TEST("dict: scan of a stable dict visits each entry once") {
        dict *d = dictCreate(&intDictType);
        const long N = 3000;
        for (long i = 0; i < N; i++) dictAdd(d, K(i), NULL);
        finishRehash(d);
        scanState st = {calloc(N, 1), N};
        unsigned long cursor = 0;
        do cursor = dictScan(d, cursor, scanCollect, &st);
        while (cursor != 0);
        long ones = 0;
        for (long i = 0; i < N; i++) ones += st.seen[i] == 1;
        ASSERT_EQ_LL(ones, N);
        free(st.seen);
        dictRelease(d);

        dict *empty = dictCreate(&intDictType);
        ASSERT(dictScan(empty, 0, scanCollect, &st) == 0);
        dictRelease(empty);
    }

    TEST("dict: dictScanDefrag moves every entry of every layout, mid-rehash too, and relinks it") {
        for (int l = 0; l < 3; l++) {
            dict *d = dictCreate(layoutTypes[l]);
            long n = 2000, next = n;
            for (long i = 0; i < n; i++) layoutAdd(d, i);
            defrag_moves = defrag_told = 0;
            unsigned long cursor = 0;
            do {
                cursor = dictScanDefrag(d, cursor, moveBlock, countMoved, NULL);
                for (int j = 0; j < 10 && next < 3 * n; j++) layoutAdd(d, next++); /* grows: rehashes between steps */
                dictDefragTables(d, moveBlock);
            } while (cursor);
            ASSERT(defrag_told >= n);
            long bad = 0;
            for (long i = 0; i < next; i++) {
                sds k = key(i);
                dictEntry *de = dictFind(d, k);
                if (de == NULL || layoutIndex(de) != i) bad++;
                sdsfree(k);
            }
            if (bad) printf("layout %s: %ld entries lost\n", layoutNames[l], bad);
            ASSERT_EQ_LL(bad, 0);
            ASSERT_EQ_LL(dictSize(d), next);
            defrag_moves = 0;
            dictPauseRehashing(d);
            dictDefragTables(d, keepBlock);
            dictResumeRehashing(d);
            ASSERT_EQ_LL(defrag_moves, 0);
            dictRelease(d);
        }
    }

    TEST("dict: random key sampling is spread out") {
        dict *d = dictCreate(&intDictType);
        const long N = 100, SAMPLES = 200000;
        ASSERT(dictGetRandomKey(d) == NULL && dictGetFairRandomKey(d) == NULL);
        for (long i = 0; i < N; i++) dictAdd(d, K(i), NULL);
        long hits[100] = {0}, fair[100] = {0};
        for (long s = 0; s < SAMPLES; s++) {
            hits[KI(dictGetKey(dictGetRandomKey(d)))]++;
            fair[KI(dictGetKey(dictGetFairRandomKey(d)))]++;
        }
        long expect = SAMPLES / N, lo = expect, hi = 0, flo = expect, fhi = 0;
        for (long i = 0; i < N; i++) {
            if (hits[i] < lo) lo = hits[i];
            if (hits[i] > hi) hi = hits[i];
            if (fair[i] < flo) flo = fair[i];
            if (fair[i] > fhi) fhi = fair[i];
        }
        ASSERT(lo > expect / 5 && hi < expect * 5);
        /* The fair one is uniform: 2000 expected, a standard deviation of
         * about 45; a 15% margin is more than 6 of them. */
        ASSERT(flo > expect * 85 / 100 && fhi < expect * 115 / 100);

        /* Also while rehashing: only live entries come back, and the fair
         * one stays uniform over both tables. */
        long n = N;
        while (!dictIsRehashing(d)) dictAdd(d, K(n), NULL), n++;
        d->pauserehash++; /* freeze the rehash so sampling sees both tables */
        long both[256] = {0};
        ASSERT(n <= 256);
        for (int s = 0; s < 10000; s++) {
            long k = KI(dictGetKey(dictGetRandomKey(d)));
            ASSERT(k >= 0 && k < n);
        }
        const long RSAMPLES = 100000;
        for (long s = 0; s < RSAMPLES; s++) {
            long k = KI(dictGetKey(dictGetFairRandomKey(d)));
            ASSERT(k >= 0 && k < n);
            both[k]++;
        }
        long rexpect = RSAMPLES / n, rlo = rexpect, rhi = 0;
        for (long i = 0; i < n; i++) {
            if (both[i] < rlo) rlo = both[i];
            if (both[i] > rhi) rhi = both[i];
        }
        ASSERT(rlo > rexpect * 75 / 100 && rhi < rexpect * 125 / 100);
        d->pauserehash--;
        dictRelease(d);
    }

    TEST("dict: dictGetSomeKeys returns distinct live entries") {
        dict *d = dictCreate(&intDictType);
        dictEntry *des[64];
        ASSERT_EQ_LL(dictGetSomeKeys(d, des, 10), 0);
        for (long i = 0; i < 10; i++) dictAdd(d, K(i), NULL);
        unsigned int got = dictGetSomeKeys(d, des, 64);
        ASSERT(got <= 10);
        long n = 10;
        int saw_full = 0;
        for (int round = 0; round < 2000; round++) {
            if (round % 10 == 0) dictAdd(d, K(n), NULL), n++;
            got = dictGetSomeKeys(d, des, 16);
            ASSERT(got <= 16);
            if (got == 16) saw_full = 1;
            for (unsigned i = 0; i < got; i++) {
                long k = KI(dictGetKey(des[i]));
                ASSERT(k >= 0 && k < n);
                for (unsigned j = 0; j < i; j++) ASSERT(des[i] != des[j]);
            }
        }
        ASSERT(saw_full);
        dictRelease(d);
    }

    TEST("dict: empty with callback, stats, mem usage") {
        dict *d = dictCreate(&sdsDictType);
        for (long i = 0; i < 300; i++) dictAdd(d, key(i), intVal(i));
        char buf[4096];
        dictGetStats(buf, sizeof(buf), d, 1);
        ASSERT(strstr(buf, "Hash table 0 stats (main hash table):") != NULL);
        ASSERT(strstr(buf, "number of elements:") != NULL);
        ASSERT(strstr(buf, "Chain length distribution:") != NULL);
        dictGetStats(buf, 40, d, 1); /* truncation stays terminated */
        ASSERT(strlen(buf) == 39);
        ASSERT(dictMemUsage(d) >= 300 * sizeof(dictEntry));

        val_frees = 0;
        dictEmpty(d, emptyCallback);
        ASSERT(val_frees >= 1000000 + 300); /* callback ran, values freed */
        ASSERT_EQ_LL(dictSize(d), 0);
        ASSERT_EQ_LL(dictBuckets(d), 0);
        dictGetStats(buf, sizeof(buf), d, 0);
        ASSERT(strstr(buf, "No stats available for empty dictionaries") != NULL);
        dictAdd(d, key(1), intVal(1)); /* reusable after emptying */
        ASSERT_EQ_LL(dictSize(d), 1);
        dictRelease(d);
    }

    return UT_END();
}
