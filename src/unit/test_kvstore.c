/* test_kvstore.c - unit tests for kvstore.c: one table and 2^bits tables,
 * per-table and total counts kept through every change, the Fenwick
 * searches (k-th entry, next non-empty table, fair random table) against
 * brute force, iteration in table order (safe, with deletions; one table
 * only), SCAN cursors carrying the table index (every entry once on a
 * stable kvstore, at least once across growth, one table only), expand
 * with a skip callback, the cron freeing empty tables (not a paused one),
 * empty and release (destructor run once per entry). */
#include <stdlib.h>

#include "kvstore.h"
#include "unittest.h"
#include "zmalloc.h"

/* Integer entries stored in the pointer itself (i + 1), their own key. */
static uint64_t intHash(const void *key) {
    uint64_t z = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ULL;
    z ^= z >> 31;
    z *= 0xBF58476D1CE4E5B9ULL;
    return z ^ (z >> 29);
}
static long destroyed;
static void countDestroy(void *entry) {
    (void)entry;
    destroyed++;
}
static hashtableType intType = {.hashFunction = intHash, .entryDestructor = countDestroy};
#define E(i) ((void *)(uintptr_t)((i) + 1))
#define EI(p) ((long)(uintptr_t)(p)-1)

/* The table entry i goes to in a kvstore of n tables: uneven on purpose
 * (table k gets about k / n of the entries, many stay empty). */
static int tableOf(long i, int n) {
    return (int)((i * 7 + (i % 13) * (i % 13)) % n) & ~1; /* odd tables stay empty */
}

static void fill(kvstore *kvs, long from, long to) {
    int n = kvstoreNumTables(kvs);
    for (long i = from; i < to; i++) kvstoreAdd(kvs, tableOf(i, n), E(i));
}

typedef struct {
    unsigned char *seen;
    long max;
} scanState;

static void scanCount(void *privdata, void *entry) {
    scanState *st = privdata;
    long k = EI(entry);
    if (k >= 0 && k < st->max && st->seen[k] < 255) st->seen[k]++;
}

/* Brute-force "which table holds the k-th entry". */
static int bruteIndexOf(kvstore *kvs, size_t k) {
    size_t sum = 0;
    for (int idx = 0; idx < kvstoreNumTables(kvs); idx++) {
        sum += kvstoreTableSize(kvs, idx);
        if (sum >= k) return idx;
    }
    return -1;
}

static int skipOdd(void *privdata, int idx) {
    (void)privdata;
    return idx & 1;
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);

    TEST("kvstore: one table behaves as a hashtable") {
        kvstore *kvs = kvstoreCreate(&intType, 0);
        ASSERT_EQ_LL(kvstoreNumTables(kvs), 1);
        ASSERT(kvstoreGetTable(kvs, 0) != NULL);
        ASSERT(kvstoreOnlyTable(kvs) == kvstoreGetTable(kvs, 0)); /* the fast path's table */
        for (long i = 0; i < 1000; i++) ASSERT(kvstoreAdd(kvs, 0, E(i)));
        /* Positions taken on the bare table, as the keyspace's fast path
         * does, land in the kvstore. */
        hashtablePosition pos;
        ASSERT(hashtableFindRefOrPosition(kvstoreOnlyTable(kvs), E(1000), &pos) == NULL);
        hashtablePauseRehashing(kvstoreOnlyTable(kvs));
        hashtableInsertAtPosition(kvstoreOnlyTable(kvs), E(1000), &pos);
        ASSERT(kvstoreFind(kvs, 0, E(1000), NULL));
        ASSERT(kvstoreDelete(kvs, 0, E(1000)));
        ASSERT(!kvstoreAdd(kvs, 0, E(5)));
        ASSERT_EQ_LL(kvstoreSize(kvs), 1000);
        ASSERT_EQ_LL(kvstoreNumNonEmptyTables(kvs), 1);
        void *found = NULL;
        ASSERT(kvstoreFind(kvs, 0, E(999), &found) && found == E(999));
        ASSERT(!kvstoreFind(kvs, 0, E(1000), NULL));
        void *popped = NULL;
        ASSERT(kvstorePop(kvs, 0, E(3), &popped) && popped == E(3));
        ASSERT(kvstoreDelete(kvs, 0, E(4)));
        ASSERT(!kvstoreDelete(kvs, 0, E(4)));
        ASSERT_EQ_LL(kvstoreSize(kvs), 998);
        ASSERT_EQ_LL(kvstoreFindTableIndexByKeyIndex(kvs, 998), 0);
        ASSERT_EQ_LL(kvstoreFindTableIndexByKeyIndex(kvs, 999), -1);
        /* The cursor is the table's own. */
        scanState st = {.seen = calloc(1000, 1), .max = 1000};
        size_t cursor = 0;
        do cursor = kvstoreScan(kvs, cursor, -1, scanCount, &st);
        while (cursor);
        long once = 0;
        for (long i = 0; i < 1000; i++) once += st.seen[i] == 1;
        ASSERT_EQ_LL(once, 998);
        free(st.seen);
        destroyed = 0;
        kvstoreEmpty(kvs, NULL);
        ASSERT_EQ_LL(destroyed, 998);
        ASSERT(kvstoreGetTable(kvs, 0) != NULL); /* the one table stays */
        ASSERT_EQ_LL(kvstoreSize(kvs), 0);
        kvstoreRelease(kvs);
    }

    TEST("kvstore: positions, inserts and counts per table") {
        kvstore *kvs = kvstoreCreate(&intType, 14);
        ASSERT_EQ_LL(kvstoreNumTables(kvs), 16384);
        ASSERT_EQ_LL(kvstoreNumAllocatedTables(kvs), 0);
        ASSERT(kvstoreOnlyTable(kvs) == NULL); /* counted tables: no bare access */
        ASSERT(!kvstoreFind(kvs, 77, E(1), NULL)); /* no table: nothing found, nothing created */
        ASSERT(kvstoreFindRef(kvs, 77, E(1)) == NULL);
        ASSERT_EQ_LL(kvstoreNumAllocatedTables(kvs), 0);
        hashtablePosition pos;
        ASSERT(kvstoreFindRefOrPosition(kvs, 77, E(1), &pos) == NULL);
        kvstoreInsertAtPosition(kvs, 77, E(1), &pos);
        ASSERT_EQ_LL(kvstoreTableSize(kvs, 77), 1);
        ASSERT_EQ_LL(kvstoreSize(kvs), 1);
        ASSERT_EQ_LL(kvstoreNumNonEmptyTables(kvs), 1);
        ASSERT(kvstoreFindRefOrPosition(kvs, 77, E(1), &pos) != NULL);
        ASSERT(kvstoreFindRef(kvs, 77, E(1)) != NULL);
        ASSERT(kvstoreFind(kvs, 77, E(1), NULL));
        ASSERT(!kvstoreFind(kvs, 78, E(1), NULL)); /* another table does not have it */
        ASSERT(kvstoreAdd(kvs, 78, E(1)));         /* the same key may be in two tables */
        ASSERT_EQ_LL(kvstoreNumNonEmptyTables(kvs), 2);
        ASSERT(kvstoreDelete(kvs, 77, E(1)));
        ASSERT_EQ_LL(kvstoreNumNonEmptyTables(kvs), 1);
        ASSERT_EQ_LL(kvstoreSize(kvs), 1);
        void *popped;
        ASSERT(kvstorePop(kvs, 78, E(1), &popped));
        ASSERT_EQ_LL(kvstoreNumNonEmptyTables(kvs), 0);
        ASSERT_EQ_LL(kvstoreSize(kvs), 0);
        ASSERT_EQ_LL(kvstoreNextNonEmptyTable(kvs, -1), -1);
        ASSERT_EQ_LL(kvstoreFairRandomTableIndex(kvs), -1);
        kvstoreRelease(kvs);
    }

    TEST("kvstore: Fenwick searches match brute force") {
        kvstore *kvs = kvstoreCreate(&intType, 6);
        fill(kvs, 0, 3000);
        long sum = 0;
        for (int idx = 0; idx < 64; idx++) sum += (long)kvstoreTableSize(kvs, idx);
        ASSERT_EQ_LL(sum, 3000);
        ASSERT_EQ_LL(kvstoreSize(kvs), 3000);
        int mismatches = 0;
        for (size_t k = 1; k <= 3000; k++)
            if (kvstoreFindTableIndexByKeyIndex(kvs, k) != bruteIndexOf(kvs, k)) mismatches++;
        ASSERT_EQ_LL(mismatches, 0);
        ASSERT_EQ_LL(kvstoreFindTableIndexByKeyIndex(kvs, 0), -1);
        ASSERT_EQ_LL(kvstoreFindTableIndexByKeyIndex(kvs, 3001), -1);
        /* Next non-empty table: odd tables are empty. */
        int nonempty = 0;
        for (int idx = -1; (idx = kvstoreNextNonEmptyTable(kvs, idx)) >= 0;) {
            ASSERT(kvstoreTableSize(kvs, idx) > 0);
            nonempty++;
        }
        ASSERT_EQ_LL(nonempty, kvstoreNumNonEmptyTables(kvs));
        ASSERT_EQ_LL(kvstoreNumNonEmptyTables(kvs), 32);
        /* Deleting keeps the searches right. */
        for (long i = 0; i < 3000; i += 3) kvstoreDelete(kvs, tableOf(i, 64), E(i));
        ASSERT_EQ_LL(kvstoreSize(kvs), 2000);
        mismatches = 0;
        for (size_t k = 1; k <= 2000; k++)
            if (kvstoreFindTableIndexByKeyIndex(kvs, k) != bruteIndexOf(kvs, k)) mismatches++;
        ASSERT_EQ_LL(mismatches, 0);
        kvstoreRelease(kvs);
    }

    TEST("kvstore: fair random table follows the table sizes") {
        kvstore *kvs = kvstoreCreate(&intType, 4);
        for (long i = 0; i < 900; i++) kvstoreAdd(kvs, 3, E(i));
        for (long i = 900; i < 1000; i++) kvstoreAdd(kvs, 12, E(i));
        long hits3 = 0, hits12 = 0, other = 0;
        for (int draw = 0; draw < 20000; draw++) {
            int idx = kvstoreFairRandomTableIndex(kvs);
            if (idx == 3) hits3++;
            else if (idx == 12) hits12++;
            else other++;
        }
        ASSERT_EQ_LL(other, 0);
        ASSERT(hits3 > 17000 && hits3 < 19000); /* 90% expected */
        ASSERT(hits12 > 1000 && hits12 < 3000);
        void *e;
        ASSERT(kvstoreFairRandomEntry(kvs, &e) && EI(e) >= 0 && EI(e) < 1000);
        kvstoreRelease(kvs);
    }

    TEST("kvstore: iteration goes table by table, and may delete") {
        kvstore *kvs = kvstoreCreate(&intType, 8);
        fill(kvs, 0, 5000);
        kvstoreIterator it;
        kvstoreIteratorInit(&it, kvs, -1, HASHTABLE_ITER_SAFE);
        void *e;
        long count = 0, order_errors = 0, wrong_table = 0;
        int last = -1;
        while (kvstoreIteratorNext(&it, &e)) {
            int idx = kvstoreIteratorTableIndex(&it);
            if (idx < last) order_errors++;
            if (idx != tableOf(EI(e), 256)) wrong_table++;
            last = idx;
            count++;
            if (EI(e) % 2 == 0) kvstoreDelete(kvs, idx, e);
        }
        kvstoreIteratorReset(&it);
        ASSERT_EQ_LL(count, 5000);
        ASSERT_EQ_LL(order_errors, 0);
        ASSERT_EQ_LL(wrong_table, 0);
        ASSERT_EQ_LL(kvstoreSize(kvs), 2500);
        /* One table only. */
        int one = tableOf(10, 256);
        kvstoreIteratorInit(&it, kvs, one, 0);
        count = 0;
        while (kvstoreIteratorNext(&it, &e)) {
            ASSERT_EQ_LL(tableOf(EI(e), 256), one);
            count++;
        }
        kvstoreIteratorReset(&it);
        ASSERT_EQ_LL(count, kvstoreTableSize(kvs, one));
        /* An empty kvstore, and a table that does not exist. */
        kvstore *empty = kvstoreCreate(&intType, 8);
        kvstoreIteratorInit(&it, empty, -1, 0);
        ASSERT(!kvstoreIteratorNext(&it, &e));
        ASSERT(!kvstoreIteratorNext(&it, &e));
        kvstoreIteratorReset(&it);
        kvstoreIteratorInit(&it, empty, 5, 0);
        ASSERT(!kvstoreIteratorNext(&it, &e));
        kvstoreIteratorReset(&it);
        kvstoreRelease(empty);
        kvstoreRelease(kvs);
    }

    TEST("kvstore: SCAN cursors carry the table index") {
        kvstore *kvs = kvstoreCreate(&intType, 14);
        for (long i = 0; i < 20000; i++) kvstoreAdd(kvs, (int)((i * 2654435761u) % 16384), E(i));
        scanState st = {.seen = calloc(20000, 1), .max = 20000};
        size_t cursor = 0;
        long calls = 0, bad_index = 0;
        do {
            cursor = kvstoreScan(kvs, cursor, -1, scanCount, &st);
            if (cursor && kvstoreTableSize(kvs, (int)(cursor & 16383)) == 0) bad_index++;
            calls++;
        } while (cursor);
        long once = 0;
        for (long i = 0; i < 20000; i++) once += st.seen[i] == 1;
        ASSERT_EQ_LL(once, 20000);
        ASSERT_EQ_LL(bad_index, 0);
        ASSERT(calls <= 20000);
        /* One table only: its entries and nothing else. */
        int one = (int)((5 * 2654435761u) % 16384);
        memset(st.seen, 0, 20000);
        cursor = 0;
        do cursor = kvstoreScan(kvs, cursor, one, scanCount, &st);
        while (cursor);
        long seen = 0;
        for (long i = 0; i < 20000; i++) seen += st.seen[i];
        ASSERT_EQ_LL(seen, kvstoreTableSize(kvs, one));
        ASSERT(st.seen[5] == 1);
        free(st.seen);
        kvstoreRelease(kvs);
    }

    TEST("kvstore: SCAN returns every entry across growth between calls") {
        kvstore *kvs = kvstoreCreate(&intType, 4);
        fill(kvs, 0, 500);
        scanState st = {.seen = calloc(20000, 1), .max = 20000};
        size_t cursor = 0;
        long added = 500;
        do {
            cursor = kvstoreScan(kvs, cursor, -1, scanCount, &st);
            if (added < 20000) {
                fill(kvs, added, added + 200);
                added += 200;
            }
        } while (cursor);
        long missing = 0;
        for (long i = 0; i < 500; i++) missing += st.seen[i] == 0;
        ASSERT_EQ_LL(missing, 0);
        free(st.seen);
        kvstoreRelease(kvs);
    }

    TEST("kvstore: expand sizes the tables the callback keeps") {
        kvstore *kvs = kvstoreCreate(&intType, 4);
        ASSERT(kvstoreExpand(kvs, 8000, 0, skipOdd, NULL));
        ASSERT_EQ_LL(kvstoreNumAllocatedTables(kvs), 8);
        ASSERT(kvstoreGetTable(kvs, 2) != NULL && kvstoreGetTable(kvs, 3) == NULL);
        ASSERT(hashtableEntryCapacity(kvstoreGetTable(kvs, 2)) >= 1000);
        ASSERT(kvstoreEntryCapacity(kvs) >= 8000);
        ASSERT(kvstoreMemUsage(kvs) > 8000 * sizeof(void *));
        kvstoreRelease(kvs);
        kvstore *one = kvstoreCreate(&intType, 0);
        ASSERT(kvstoreExpand(one, 1000, 1, NULL, NULL));
        ASSERT(hashtableEntryCapacity(kvstoreGetTable(one, 0)) >= 1000);
        kvstoreRelease(one);
    }

    TEST("kvstore: the cron frees empty tables, not paused ones") {
        kvstore *kvs = kvstoreCreate(&intType, 4);
        fill(kvs, 0, 400);
        int allocated = kvstoreNumAllocatedTables(kvs);
        ASSERT_EQ_LL(allocated, 8);
        int first = kvstoreNextNonEmptyTable(kvs, -1);
        int second = kvstoreNextNonEmptyTable(kvs, first);
        /* Empty the first two tables; keep an iterator paused in the second. */
        for (long i = 0; i < 400; i++) {
            int idx = tableOf(i, 16);
            if (idx == first || idx == second) kvstoreDelete(kvs, idx, E(i));
        }
        hashtableIterator hold;
        hashtableInitIterator(&hold, kvstoreGetTable(kvs, second), HASHTABLE_ITER_SAFE);
        void *e;
        ASSERT(!hashtableNext(&hold, &e)); /* started: rehashing paused */
        kvstoreCronStep(kvs, 16, 1, 0);
        ASSERT(kvstoreGetTable(kvs, first) == NULL);
        ASSERT(kvstoreGetTable(kvs, second) != NULL);
        hashtableResetIterator(&hold);
        kvstoreCronStep(kvs, 16, 1, 0);
        ASSERT(kvstoreGetTable(kvs, second) == NULL);
        ASSERT_EQ_LL(kvstoreNumAllocatedTables(kvs), allocated - 2);
        /* Without shrinking (a fork child runs) nothing is freed. */
        int third = kvstoreNextNonEmptyTable(kvs, -1);
        for (long i = 0; i < 400; i++)
            if (tableOf(i, 16) == third) kvstoreDelete(kvs, third, E(i));
        kvstoreCronStep(kvs, 16, 0, 0);
        ASSERT(kvstoreGetTable(kvs, third) != NULL);
        kvstoreRelease(kvs);
    }

    TEST("kvstore: empty and release destroy every entry once") {
        kvstore *kvs = kvstoreCreate(&intType, 10);
        fill(kvs, 0, 10000);
        destroyed = 0;
        kvstoreEmpty(kvs, NULL);
        ASSERT_EQ_LL(destroyed, 10000);
        ASSERT_EQ_LL(kvstoreSize(kvs), 0);
        ASSERT_EQ_LL(kvstoreNumAllocatedTables(kvs), 0);
        ASSERT_EQ_LL(kvstoreNumNonEmptyTables(kvs), 0);
        ASSERT_EQ_LL(kvstoreFindTableIndexByKeyIndex(kvs, 1), -1);
        fill(kvs, 0, 100); /* usable again */
        ASSERT_EQ_LL(kvstoreSize(kvs), 100);
        destroyed = 0;
        kvstoreRelease(kvs);
        ASSERT_EQ_LL(destroyed, 100);
        char buf[4096];
        kvstore *stats = kvstoreCreate(&intType, 10);
        fill(stats, 0, 50);
        kvstoreGetStats(stats, buf, sizeof(buf), 1);
        ASSERT(strstr(buf, "number of elements: 50") != NULL);
        kvstoreRelease(stats);
    }

    return UT_END();
}
