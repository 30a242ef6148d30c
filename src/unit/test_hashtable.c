/* test_hashtable.c - unit tests for hashtable.c: add/find/delete, many
 * entries, grow and shrink, incremental rehashing, SCAN across grow and
 * shrink, safe and unsafe iterators, random and fair random sampling,
 * two-phase insert and pop, incremental free, resize policies, churn.
 *
 * `unit/test_hashtable --bench [N]` also prints a micro benchmark against
 * dict.c (insert, find, delete of N sds members, default 1,000,000, and
 * memory per member), as ratios: figures, not assertions. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dict.h"
#include "hashtable.h"
#include "log.h"
#include "sds.h"
#include "unittest.h"
#include "zmalloc.h"

/* --- types --- */

/* Integer entries stored in the pointer itself (i + 1), their own key. */
static uint64_t intHash(const void *key) {
    uint64_t z = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ULL;
    z ^= z >> 31;
    z *= 0xBF58476D1CE4E5B9ULL;
    return z ^ (z >> 29);
}
static hashtableType intType = {.hashFunction = intHash};
/* The same top byte (the per-entry hash byte) for every entry, and only 8
 * bucket indexes: every lookup must tell entries apart by their keys. */
static uint64_t clashingHash(const void *key) { return 0xab00000000000000ULL | ((uintptr_t)key & 7); }
static hashtableType clashType = {.hashFunction = clashingHash};
#define E(i) ((void *)(uintptr_t)((i) + 1))
#define EI(p) ((long)(uintptr_t)(p)-1)

/* sds entries (set members): the entry is the key, freed by the table. */
static int sds_frees;
static uint64_t sdsHash(const void *key) { return dictGenHashFunction(key, sdslen((sds)key)); }
static int sdsEqual(const void *a, const void *b) {
    return sdslen((sds)a) == sdslen((sds)b) && memcmp(a, b, sdslen((sds)a)) == 0;
}
static void sdsDestroy(void *p) {
    sds_frees++;
    sdsfree(p);
}
static hashtableType sdsType = {.hashFunction = sdsHash, .keyCompare = sdsEqual, .entryDestructor = sdsDestroy};

/* Entries with a key inside: {key, value}. */
typedef struct pair {
    sds key;
    long value;
} pair;
static int pair_frees;
static const void *pairKey(const void *e) { return ((const pair *)e)->key; }
static void pairDestroy(void *e) {
    pair_frees++;
    sdsfree(((pair *)e)->key);
    zfree(e);
}
static hashtableType pairType = {.entryGetKey = pairKey, .hashFunction = sdsHash, .keyCompare = sdsEqual,
                                 .entryDestructor = pairDestroy};

static int refuse_resize;
static int gate(size_t moreMem, double fill) { return !refuse_resize; }
static hashtableType gatedType = {.hashFunction = intHash, .resizeAllowed = gate};

static sds member(long i) { return sdscatfmt(sdsempty(), "member:%I", (long long)i); }

static void finishRehash(hashtable *ht) {
    while (hashtableIsRehashing(ht)) hashtableRehashMicroseconds(ht, 1000);
}

static void fill(hashtable *ht, long from, long to) {
    for (long i = from; i < to; i++) hashtableAdd(ht, E(i));
}

/* --- scan helpers --- */

typedef struct {
    unsigned char *seen;
    long max;
} scanState;

static void scanCount(void *privdata, void *entry) {
    scanState *st = privdata;
    long k = EI(entry);
    if (k >= 0 && k < st->max && st->seen[k] < 255) st->seen[k]++;
}

static void scanDelete(void *privdata, void *entry) { hashtableDelete(privdata, entry); }

/* --- defragmentation helpers: every block offered moves --- */

static long defrag_moves;
static void *moveBlock(void *ptr) {
    defrag_moves++;
    return zmalloc_defrag_move(ptr);
}
static void *keepBlock(void *ptr) {
    (void)ptr;
    defrag_moves++;
    return NULL;
}
/* hashtableScanRefs() callback: moves the member sds in its slot. */
static void moveMemberRef(void *privdata, void **ref) {
    (void)privdata;
    char *alloc = sdsAllocPtr(*ref);
    char *moved = moveBlock(alloc);
    *ref = moved + ((char *)*ref - alloc);
}

static void modifyUnderUnsafeIterator(void) {
    hashtable *ht = hashtableCreate(&intType);
    fill(ht, 0, 100);
    hashtableIterator it;
    hashtableInitIterator(&it, ht, 0);
    void *e;
    hashtableNext(&it, &e);
    hashtableDelete(ht, e);
    hashtableResetIterator(&it);
}

static void resumeWithoutPause(void) {
    hashtable *ht = hashtableCreate(&intType);
    hashtableResumeRehashing(ht);
}

/* --- benchmark against dict.c --- */

static double nowSeconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t embeddedSize(const void *key) { return sdsEmbeddedSize(sdslen((sds)key)); }
static void *embedSds(void *buf, const void *key) { return sdsnewInBuffer(buf, key, sdslen((sds)key)); }
/* What the set type used before hashtable.c: key-only entries. */
static dictType setLikeDictType = {.hashFunction = sdsHash, .keyCompare = sdsEqual,
                                   .embeddedKeySize = embeddedSize, .embedKey = embedSds, .no_value = 1};

static void benchmark(long n) {
    sds *keys = zmalloc(sizeof(sds) * n);
    for (long i = 0; i < n; i++) keys[i] = sdscatfmt(sdsempty(), "m%I", (long long)i);
    double t[2][3];
    size_t mem[2];

    size_t before = zmalloc_used_memory();
    double s = nowSeconds();
    dict *d = dictCreate(&setLikeDictType);
    for (long i = 0; i < n; i++) dictAdd(d, keys[i], NULL);
    t[0][0] = nowSeconds() - s;
    mem[0] = zmalloc_used_memory() - before;
    s = nowSeconds();
    long hits = 0;
    for (long i = 0; i < n; i++) hits += dictFind(d, keys[i]) != NULL;
    t[0][1] = nowSeconds() - s;
    s = nowSeconds();
    for (long i = 0; i < n; i++) dictDelete(d, keys[i]);
    t[0][2] = nowSeconds() - s;
    dictRelease(d);

    before = zmalloc_used_memory();
    s = nowSeconds();
    hashtable *ht = hashtableCreate(&sdsType);
    for (long i = 0; i < n; i++) hashtableAdd(ht, sdsnewlen(keys[i], sdslen(keys[i])));
    t[1][0] = nowSeconds() - s;
    mem[1] = zmalloc_used_memory() - before;
    s = nowSeconds();
    for (long i = 0; i < n; i++) hits += hashtableFind(ht, keys[i], NULL);
    t[1][1] = nowSeconds() - s;
    s = nowSeconds();
    for (long i = 0; i < n; i++) hashtableDelete(ht, keys[i]);
    t[1][2] = nowSeconds() - s;
    hashtableRelease(ht);

    const char *ops[3] = {"insert", "find", "delete"};
    printf("bench: %ld members \"m<i>\" (hits %ld)\n", n, hits);
    for (int i = 0; i < 3; i++)
        printf("bench: %-6s dict %.0f ns/op, hashtable %.0f ns/op, ratio %.2f\n", ops[i], t[0][i] * 1e9 / n,
               t[1][i] * 1e9 / n, t[1][i] / t[0][i]);
    printf("bench: memory dict %.1f B/member, hashtable %.1f B/member (member sds included), ratio %.2f\n",
           (double)mem[0] / n, (double)mem[1] / n, (double)mem[1] / mem[0]);
    for (long i = 0; i < n; i++) sdsfree(keys[i]);
    zfree(keys);
}

int main(int argc, char **argv) {
    UT_BEGIN(argv[0]);
    uint8_t seed[16];
    for (int i = 0; i < 16; i++) seed[i] = (uint8_t)(i * 5 + 3);
    dictSetHashFunctionSeed(seed);
    if (argc >= 2 && !strcmp(argv[1], "--bench")) {
        benchmark(argc >= 3 ? atol(argv[2]) : 1000000);
        return 0;
    }

    TEST("hashtable: entries whose hash bytes and buckets all clash") {
        hashtable *ht = hashtableCreate(&clashType);
        for (long i = 0; i < 500; i++) ASSERT(hashtableAdd(ht, E(i)));
        for (long i = 0; i < 500; i += 2) ASSERT(hashtableDelete(ht, E(i)));
        long found = 0, wrong = 0;
        for (long i = 0; i < 500; i++) {
            void *e = NULL;
            int hit = hashtableFind(ht, E(i), &e);
            found += hit;
            wrong += hit ? (i % 2 == 0 || e != E(i)) : (i % 2 == 1);
        }
        ASSERT(found == 250 && wrong == 0);
        ASSERT(hashtableSize(ht) == 250);
        hashtableRelease(ht);
    }

    TEST("hashtable: add, find, delete, pop with the destructor") {
        hashtable *ht = hashtableCreate(&sdsType);
        ASSERT(hashtableSize(ht) == 0 && hashtableBuckets(ht) == 0);
        sds probe = member(1);
        ASSERT(!hashtableFind(ht, probe, NULL));
        ASSERT(!hashtableDelete(ht, probe));
        sds m1 = member(1);
        ASSERT(hashtableAdd(ht, m1));
        ASSERT(hashtableBuckets(ht) == 1);
        void *found = NULL;
        ASSERT(hashtableFind(ht, probe, &found) && found == m1);
        sds dup = member(1);
        void *existing = NULL;
        ASSERT(!hashtableAddOrFind(ht, dup, &existing) && existing == m1); /* caller keeps dup */
        sdsfree(dup);
        for (long i = 2; i <= 10; i++) ASSERT(hashtableAdd(ht, member(i)));
        ASSERT_EQ_LL(hashtableSize(ht), 10);
        sds_frees = 0;
        ASSERT(hashtableDelete(ht, probe));
        ASSERT_EQ_LL(sds_frees, 1);
        ASSERT(!hashtableFind(ht, probe, NULL));
        sdsfree(probe);
        probe = member(5);
        void *popped = NULL;
        ASSERT(hashtablePop(ht, probe, &popped) && sdsEqual(popped, probe));
        ASSERT_EQ_LL(sds_frees, 1); /* popped entries are the caller's */
        sdsfree(popped);
        sdsfree(probe);
        ASSERT_EQ_LL(hashtableSize(ht), 8);
        hashtableRelease(ht);
        ASSERT_EQ_LL(sds_frees, 9);
    }

    TEST("hashtable: entries with a key inside (entryGetKey)") {
        hashtable *ht = hashtableCreate(&pairType);
        for (long i = 0; i < 1000; i++) {
            pair *p = zmalloc(sizeof(*p));
            p->key = member(i);
            p->value = i * 2;
            ASSERT(hashtableAdd(ht, p));
        }
        long bad = 0;
        for (long i = 0; i < 1000; i++) {
            sds k = member(i);
            void *e;
            if (!hashtableFind(ht, k, &e) || ((pair *)e)->value != i * 2) bad++;
            sdsfree(k);
        }
        ASSERT_EQ_LL(bad, 0);
        sds k = member(7);
        void **ref = hashtableFindRef(ht, k);
        ASSERT(ref && ((pair *)*ref)->value == 14);
        sdsfree(k);
        pair_frees = 0;
        hashtableRelease(ht);
        ASSERT_EQ_LL(pair_frees, 1000);
    }

    TEST("hashtable: many entries, grow and shrink, incremental rehash") {
        hashtable *ht = hashtableCreate(&intType);
        long n = 200000, saw_rehash = 0;
        for (long i = 0; i < n; i++) {
            hashtableAdd(ht, E(i));
            if (hashtableIsRehashing(ht)) saw_rehash++;
            /* Never beyond 90% of the slots, counting both tables. */
            if (hashtableSize(ht) * 100 > hashtableEntryCapacity(ht) * 90) {
                ASSERT(0);
                break;
            }
        }
        ASSERT(saw_rehash > 0);
        finishRehash(ht);
        ASSERT_EQ_LL(hashtableSize(ht), n);
        size_t grown = hashtableBuckets(ht);
        ASSERT(n * 100 <= (long)grown * 7 * 77 && n * 100 > (long)grown * 7 * 77 / 2);
        long missing = 0;
        for (long i = 0; i < n; i++) missing += !hashtableFind(ht, E(i), NULL);
        ASSERT_EQ_LL(missing, 0);
        ASSERT(!hashtableFind(ht, E(n), NULL));
        ASSERT(!hashtableAdd(ht, E(5)));
        long notdeleted = 0;
        for (long i = 0; i < n - 100; i++) notdeleted += !hashtableDelete(ht, E(i));
        ASSERT_EQ_LL(notdeleted, 0);
        finishRehash(ht);
        ASSERT_EQ_LL(hashtableSize(ht), 100);
        ASSERT(hashtableBuckets(ht) <= 64); /* shrunk: 100 entries, 13% to 77% of the slots */
        ASSERT(hashtableSize(ht) * 100 >= hashtableEntryCapacity(ht) * 13);
        missing = 0;
        for (long i = n - 100; i < n; i++) missing += !hashtableFind(ht, E(i), NULL);
        ASSERT_EQ_LL(missing, 0);
        for (long i = n - 100; i < n; i++) hashtableDelete(ht, E(i));
        ASSERT_EQ_LL(hashtableSize(ht), 0);
        ASSERT_EQ_LL(hashtableBuckets(ht), 0); /* an empty table frees its buckets */
        hashtableRelease(ht);
    }

    TEST("hashtable: expand presizes, memory usage counts buckets") {
        hashtable *ht = hashtableCreate(&intType);
        ASSERT(hashtableExpand(ht, 1000));
        size_t b = hashtableBuckets(ht);
        ASSERT(b * 7 * 77 >= 100000 && b * 7 * 77 / 2 < 100000);
        ASSERT(!hashtableExpand(ht, 10)); /* not a shrink */
        size_t base = hashtableMemUsage(ht) - b * 64;
        fill(ht, 0, 1000);
        ASSERT_EQ_LL(hashtableBuckets(ht), b); /* no resize was needed */
        ASSERT(!hashtableIsRehashing(ht));
        ASSERT_EQ_LL(hashtableMemUsage(ht), base + b * 64);
        ASSERT(hashtableTryExpand(ht, 100000));
        ASSERT(hashtableIsRehashing(ht));
        ASSERT(hashtableRehashMicroseconds(ht, 100000) > 0);
        ASSERT(!hashtableIsRehashing(ht));
        long missing = 0;
        for (long i = 0; i < 1000; i++) missing += !hashtableFind(ht, E(i), NULL);
        ASSERT_EQ_LL(missing, 0);
        hashtableRelease(ht);
    }

    TEST("hashtable: SCAN returns every entry present throughout, while growing") {
        long n = 5000, extra = 200000;
        hashtable *ht = hashtableCreate(&intType);
        fill(ht, 0, n);
        scanState st = {zcalloc(extra + n), n};
        size_t cursor = 0;
        long next = n, calls = 0;
        do {
            cursor = hashtableScan(ht, cursor, scanCount, &st);
            for (int j = 0; j < 200 && next < n + extra; j++) hashtableAdd(ht, E(next++)); /* grows a lot */
            calls++;
        } while (cursor != 0);
        long missed = 0;
        for (long i = 0; i < n; i++) missed += st.seen[i] == 0;
        ASSERT_EQ_LL(missed, 0);
        ASSERT(hashtableBuckets(ht) > 1024);
        zfree(st.seen);
        hashtableRelease(ht);
    }

    TEST("hashtable: SCAN returns every entry present throughout, while shrinking") {
        long n = 100000, keep = 1000;
        hashtable *ht = hashtableCreate(&intType);
        fill(ht, 0, n);
        finishRehash(ht);
        size_t big = hashtableBuckets(ht);
        scanState st = {zcalloc(n), n};
        size_t cursor = 0;
        long del = keep;
        do {
            cursor = hashtableScan(ht, cursor, scanCount, &st);
            for (int j = 0; j < 2000 && del < n; j++) hashtableDelete(ht, E(del++));
        } while (cursor != 0);
        long missed = 0;
        for (long i = 0; i < keep; i++) missed += st.seen[i] == 0;
        ASSERT_EQ_LL(missed, 0);
        ASSERT(hashtableBuckets(ht) < big / 8);
        zfree(st.seen);
        hashtableRelease(ht);
    }

    TEST("hashtable: SCAN across random grow/shrink cycles and deletes in the callback") {
        srand(1234);
        for (int round = 0; round < 10; round++) {
            long n = 2000, pool = 30000;
            hashtable *ht = hashtableCreate(&intType);
            fill(ht, 0, n);
            scanState st = {zcalloc(pool), n};
            size_t cursor = 0;
            long steps = 0;
            do {
                cursor = hashtableScan(ht, cursor, scanCount, &st);
                /* Churn among the others: big bursts of adds or deletes. */
                int burst = rand() % 600, add = (steps / 5) % 2 == 0;
                for (int j = 0; j < burst; j++) {
                    long k = n + rand() % (pool - n);
                    if (add) hashtableAdd(ht, E(k));
                    else hashtableDelete(ht, E(k));
                }
                steps++;
            } while (cursor != 0);
            long missed = 0;
            for (long i = 0; i < n; i++) missed += st.seen[i] == 0;
            ASSERT_EQ_LL(missed, 0);
            zfree(st.seen);
            hashtableRelease(ht);
        }
        hashtable *ht = hashtableCreate(&intType);
        fill(ht, 0, 50000);
        size_t cursor = 0;
        do {
            cursor = hashtableScan(ht, cursor, scanDelete, ht);
        } while (cursor != 0);
        ASSERT_EQ_LL(hashtableSize(ht), 0);
        hashtableRelease(ht);
    }

    TEST("hashtable: safe iterator with deletion of each entry and inserts") {
        hashtable *ht = hashtableCreate(&intType);
        long n = 30000;
        fill(ht, 0, n);
        hashtableExpand(ht, n * 4); /* iterate while a rehash is pending */
        ASSERT(hashtableIsRehashing(ht));
        unsigned char *seen = zcalloc(n * 2);
        hashtableIterator it;
        hashtableInitIterator(&it, ht, HASHTABLE_ITER_SAFE);
        void *e;
        long returned = 0, added = 0;
        while (hashtableNext(&it, &e)) {
            long k = EI(e);
            if (k < n) {
                seen[k]++;
                returned++;
                ASSERT(hashtableDelete(ht, e));
                if (added < n / 2) hashtableAdd(ht, E(n + added++)); /* may or may not be returned */
            }
        }
        hashtableResetIterator(&it);
        long wrong = 0;
        for (long i = 0; i < n; i++) wrong += seen[i] != 1;
        ASSERT_EQ_LL(wrong, 0);
        ASSERT_EQ_LL(returned, n);
        ASSERT_EQ_LL(hashtableSize(ht), n / 2);
        finishRehash(ht);
        hashtableIterator *hi = hashtableCreateIterator(ht, 0);
        long count = 0;
        while (hashtableNext(hi, &e)) count++;
        hashtableReleaseIterator(hi);
        ASSERT_EQ_LL(count, n / 2);
        zfree(seen);
        hashtableRelease(ht);
    }

    TEST("hashtable: unsafe iterator aborts when the table changes") {
        ASSERT(utAbortsInChild(modifyUnderUnsafeIterator));
        ASSERT(utAbortsInChild(resumeWithoutPause));
    }

    TEST("hashtable: random entry and fair random distribution") {
        hashtable *ht = hashtableCreate(&intType);
        long n = 40;
        fill(ht, 0, n);
        long counts[40] = {0}, fair[40] = {0}, draws = 200000;
        void *e;
        for (long i = 0; i < draws; i++) {
            ASSERT(hashtableRandomEntry(ht, &e) && EI(e) >= 0 && EI(e) < n);
            counts[EI(e)]++;
            hashtableFairRandomEntry(ht, &e);
            fair[EI(e)]++;
        }
        long expect = draws / n, off = 0, never = 0;
        for (long i = 0; i < n; i++) {
            if (fair[i] < expect * 85 / 100 || fair[i] > expect * 115 / 100) off++;
            never += counts[i] == 0;
        }
        ASSERT_EQ_LL(off, 0);
        ASSERT_EQ_LL(never, 0);
        /* Fairness also while rehashing into a bigger table. */
        hashtableExpand(ht, 5000);
        hashtablePauseRehashing(ht);
        fill(ht, n, 2 * n); /* half in each table */
        memset(fair, 0, sizeof(fair));
        long hits = 0;
        for (long i = 0; i < draws; i++) {
            hashtableFairRandomEntry(ht, &e);
            if (EI(e) < n) {
                fair[EI(e)]++;
                hits++;
            }
        }
        hashtableResumeRehashing(ht);
        ASSERT(hits > draws * 45 / 100 && hits < draws * 55 / 100);
        off = 0;
        for (long i = 0; i < n; i++)
            if (fair[i] < hits / n * 80 / 100 || fair[i] > hits / n * 120 / 100) off++;
        ASSERT_EQ_LL(off, 0);
        hashtableRelease(ht);
        hashtable *empty = hashtableCreate(&intType);
        ASSERT(!hashtableRandomEntry(empty, &e) && !hashtableFairRandomEntry(empty, &e));
        hashtableRelease(empty);
    }

    TEST("hashtable: sample entries returns distinct entries") {
        hashtable *ht = hashtableCreate(&intType);
        fill(ht, 0, 1000);
        void *dst[64];
        unsigned int got = hashtableSampleEntries(ht, dst, 64);
        ASSERT_EQ_LL(got, 64);
        int dups = 0;
        for (unsigned i = 0; i < got; i++)
            for (unsigned j = i + 1; j < got; j++) dups += dst[i] == dst[j];
        ASSERT_EQ_LL(dups, 0);
        hashtable *small = hashtableCreate(&intType);
        fill(small, 0, 5);
        ASSERT_EQ_LL(hashtableSampleEntries(small, dst, 64), 5);
        hashtableRelease(small);
        hashtableRelease(ht);
    }

    TEST("hashtable: two-phase insert and two-phase pop") {
        hashtable *ht = hashtableCreate(&sdsType);
        sds k = member(1);
        hashtablePosition pos;
        void *existing;
        ASSERT(hashtableFindPositionForInsert(ht, k, &pos, &existing));
        hashtableInsertAtPosition(ht, k, &pos);
        sds probe = member(1);
        ASSERT(!hashtableFindPositionForInsert(ht, probe, &pos, &existing) && existing == k);
        for (long i = 2; i < 5000; i++) {
            sds m = member(i);
            if (hashtableFindPositionForInsert(ht, m, &pos, NULL)) hashtableInsertAtPosition(ht, m, &pos);
        }
        ASSERT_EQ_LL(hashtableSize(ht), 4999);
        void **ref;
        ASSERT(hashtableTwoPhasePopFindRef(ht, probe, &ref, &pos) && *ref == k);
        sds taken = *ref;
        hashtableTwoPhasePopDelete(ht, &pos);
        ASSERT(!hashtableFind(ht, probe, NULL));
        ASSERT_EQ_LL(hashtableSize(ht), 4998);
        sdsfree(taken);
        ASSERT(!hashtableTwoPhasePopFindRef(ht, probe, &ref, &pos));
        sdsfree(probe);
        /* Rehashing went on after both phases (they pause and resume). */
        finishRehash(ht);
        ASSERT(!hashtableIsRehashing(ht));
        hashtableRelease(ht);
    }

    TEST("hashtable: SCAN of an unchanging table returns each entry once, even on long probe chains") {
        /* clashType puts every entry in one of 8 home buckets: the chains
         * run through most of the table, so the buckets a step visits hold
         * many entries of other home buckets, which must be left to those. */
        hashtable *ht = hashtableCreate(&clashType);
        for (long i = 0; i < 300; i++) hashtableAdd(ht, E(i));
        scanState st = {.seen = calloc(300, 1), .max = 300};
        size_t cursor = 0;
        do {
            cursor = hashtableScan(ht, cursor, scanCount, &st);
        } while (cursor);
        long once = 0;
        for (long i = 0; i < 300; i++) once += st.seen[i] == 1;
        ASSERT_EQ_LL(once, 300);
        free(st.seen);
        hashtableRelease(ht);
        /* And a table of ordinary hashes with a few ever-full buckets. */
        ht = hashtableCreate(&intType);
        fill(ht, 0, 20000);
        finishRehash(ht);
        st.seen = calloc(20000, 1);
        st.max = 20000;
        cursor = 0;
        do {
            cursor = hashtableScan(ht, cursor, scanCount, &st);
        } while (cursor);
        once = 0;
        for (long i = 0; i < 20000; i++) once += st.seen[i] == 1;
        ASSERT_EQ_LL(once, 20000);
        free(st.seen);
        hashtableRelease(ht);
    }

    TEST("hashtable: find a slot or a position, insert there; prefetch; rehashing memory") {
        hashtable *ht = hashtableCreate(&sdsType);
        hashtablePosition pos;
        for (long i = 0; i < 3000; i++) {
            sds m = member(i);
            ASSERT(hashtableFindRefOrPosition(ht, m, &pos) == NULL);
            hashtablePauseRehashing(ht);
            hashtableInsertAtPosition(ht, m, &pos);
        }
        ASSERT_EQ_LL(hashtableSize(ht), 3000);
        sds probe = member(1234);
        void **ref = hashtableFindRefOrPosition(ht, probe, &pos);
        ASSERT(ref != NULL && sdsEqual(*ref, probe));
        /* The slot may take an entry with the same key (a reallocation). */
        sds again = member(1234);
        sds old = *ref;
        *ref = again;
        sdsfree(old);
        void *found;
        ASSERT(hashtableFind(ht, probe, &found) && found == again);
        uint64_t hashes[3] = {sdsHash(probe), 1, 2};
        hashtablePrefetch(ht, hashes, 3); /* a hint: nothing changes */
        ASSERT_EQ_LL(hashtableSize(ht), 3000);
        sdsfree(probe);
        ASSERT(!hashtableIsRehashing(ht) || hashtableRehashingMemUsage(ht) > 0);
        finishRehash(ht);
        ASSERT_EQ_LL(hashtableRehashingMemUsage(ht), 0);
        hashtableRelease(ht);
    }

    TEST("hashtable: incremental free in steps") {
        hashtable *ht = hashtableCreate(&sdsType);
        for (long i = 0; i < 100000; i++) hashtableAdd(ht, member(i));
        hashtableExpand(ht, 400000); /* two tables */
        sds_frees = 0;
        int calls = 0;
        while (hashtableEmptyIncremental(ht, 1000)) calls++;
        ASSERT_EQ_LL(sds_frees, 100000);
        ASSERT(calls > 10);
        ASSERT_EQ_LL(hashtableSize(ht), 0);
        ASSERT_EQ_LL(hashtableBuckets(ht), 0);
        ASSERT(hashtableAdd(ht, member(1))); /* usable again */
        hashtableRelease(ht);
        ASSERT_EQ_LL(sds_frees, 100001);
    }

    TEST("hashtable: resize policies avoid and forbid, resizeAllowed") {
        hashtable *ht = hashtableCreate(&intType);
        fill(ht, 0, 1000);
        finishRehash(ht);
        size_t b = hashtableBuckets(ht);
        long room = (long)(b * 7 * 77 / 100);
        hashtableSetResizePolicy(HASHTABLE_RESIZE_AVOID);
        fill(ht, 1000, room + 10);
        ASSERT_EQ_LL(hashtableBuckets(ht), b); /* past 77%, below 90%: waits */
        fill(ht, room + 10, (long)(b * 7 * 91 / 100));
        ASSERT(hashtableBuckets(ht) > b); /* the hard limit always grows */
        finishRehash(ht);
        b = hashtableBuckets(ht);
        hashtableSetResizePolicy(HASHTABLE_RESIZE_FORBID);
        for (long i = 10; i < (long)(b * 7 * 91 / 100); i++) hashtableDelete(ht, E(i));
        ASSERT_EQ_LL(hashtableBuckets(ht), b); /* never shrinks */
        hashtableSetResizePolicy(HASHTABLE_RESIZE_ALLOW);
        hashtableShrinkIfNeeded(ht);
        finishRehash(ht);
        ASSERT(hashtableBuckets(ht) < b);
        hashtableRelease(ht);

        ht = hashtableCreate(&gatedType);
        fill(ht, 0, 100);
        finishRehash(ht);
        b = hashtableBuckets(ht);
        refuse_resize = 1;
        fill(ht, 100, (long)(b * 7 * 85 / 100));
        ASSERT_EQ_LL(hashtableBuckets(ht), b);
        fill(ht, (long)(b * 7 * 85 / 100), (long)(b * 7 * 92 / 100));
        ASSERT(hashtableBuckets(ht) > b);
        refuse_resize = 0;
        hashtableRelease(ht);
    }

    TEST("hashtable: churn at a steady size keeps probe chains short") {
        hashtable *ht = hashtableCreate(&intType);
        long n = 50000;
        fill(ht, 0, n);
        finishRehash(ht);
        size_t b = hashtableBuckets(ht);
        srand(99);
        long next = n;
        for (long round = 0; round < 2000000; round++) {
            long victim = next - n + rand() % n; /* a live one from a sliding window */
            if (hashtableDelete(ht, E(victim))) hashtableAdd(ht, E(next++));
        }
        finishRehash(ht);
        ASSERT(hashtableBuckets(ht) <= b * 2);
        char buf[4096];
        hashtableGetStats(buf, sizeof(buf), ht, 1);
        const char *p = strstr(buf, "max chain length: ");
        long maxchain = p ? atol(p + strlen("max chain length: ")) : 1000;
        ASSERT(maxchain < 64);
        /* A miss must not walk the whole table either. */
        double s = nowSeconds();
        for (long i = 0; i < 100000; i++) hashtableFind(ht, E(-5 - i), NULL);
        ASSERT(nowSeconds() - s < 1.0);
        hashtableRelease(ht);
    }

    TEST("hashtable: SCAN with slot references moves every member, tables too, while the table grows") {
        long n = 3000, extra = 20000;
        hashtable *ht = hashtableCreate(&sdsType);
        for (long i = 0; i < n; i++) hashtableAdd(ht, member(i));
        size_t used = zmalloc_used_memory(), cursor = 0;
        long next = n;
        defrag_moves = 0;
        do {
            cursor = hashtableScanRefs(ht, cursor, moveMemberRef, NULL);
            for (int j = 0; j < 20 && next < n + extra; j++) hashtableAdd(ht, member(next++));
            hashtableDefragTables(ht, moveBlock); /* mid-rehash too: both tables */
        } while (cursor != 0);
        ASSERT(defrag_moves >= n);
        /* Each member is where its key says and holds its own bytes. */
        long bad = 0;
        for (long i = 0; i < next; i++) {
            sds m = member(i);
            void *found = NULL;
            if (!hashtableFind(ht, m, &found) || sdslen(found) != sdslen(m) || memcmp(found, m, sdslen(m))) bad++;
            sdsfree(m);
        }
        ASSERT_EQ_LL(bad, 0);
        ASSERT_EQ_LL(hashtableSize(ht), next);
        /* Moving leaves used memory as it was (the table grew meanwhile). */
        ASSERT(zmalloc_used_memory() >= used);
        /* While rehashing is paused nothing is offered: scans and safe
         * iterators hold bucket pointers. */
        defrag_moves = 0;
        hashtablePauseRehashing(ht);
        hashtableDefragTables(ht, keepBlock);
        hashtableResumeRehashing(ht);
        ASSERT_EQ_LL(defrag_moves, 0);
        hashtableDefragTables(ht, keepBlock);
        ASSERT(defrag_moves >= 1);
        sds_frees = 0;
        hashtableRelease(ht);
        ASSERT_EQ_LL(sds_frees, next);
    }

    TEST("hashtable: stats") {
        hashtable *ht = hashtableCreate(&intType);
        char buf[4096];
        hashtableGetStats(buf, sizeof(buf), ht, 0);
        ASSERT(strstr(buf, "No stats available") != NULL);
        fill(ht, 0, 601);
        finishRehash(ht);
        hashtableGetStats(buf, sizeof(buf), ht, 1);
        ASSERT(strstr(buf, "Hash table 0 stats (main hash table):") && strstr(buf, "number of elements: 601\n") &&
               strstr(buf, "Chain length distribution:"));
        hashtableRelease(ht);
    }

    return UT_END();
}
