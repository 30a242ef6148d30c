/* test_sidmap.c - unit tests for sidmap.c: stream ID increment/decrement
 * at the edges, text form and parsing (including "<ms>-*" and rejects),
 * and the skiplist map: insert/find/delete, seeks both ways, back links,
 * and a randomized comparison against a plain sorted array. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sidmap.h"
#include "unittest.h"
#include "zmalloc.h"

/* Level-0 order, back links, tail and length agree. */
static int mapCheck(sidmap *m) {
    sidmapNode *prev = NULL;
    unsigned long n = 0;
    for (sidmapNode *x = sidmapFirst(m); x; x = sidmapNext(x)) {
        if (x->prev != prev) return 0;
        if (prev && streamCompareID(&prev->id, &x->id) >= 0) return 0;
        prev = x;
        n++;
    }
    return m->tail == prev && m->len == n;
}

static int cmpIDs(const void *a, const void *b) {
    return streamCompareID(a, b);
}

/* --- defragmentation helpers: every block offered moves --- */

static long visited;
static void *moveBlock(void *ptr) {
    return zmalloc_defrag_move(ptr);
}
/* Moves the node's value too, as the stream index does with its nodes. */
static void visitMoveValue(sidmapNode *node, void *pd) {
    (void)pd;
    visited++;
    if (node->value) node->value = zmalloc_defrag_move(node->value);
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);

    TEST("id: incr/decr carry and limits") {
        streamID id = {5, UINT64_MAX};
        ASSERT(streamIncrID(&id) == 0 && id.ms == 6 && id.seq == 0);
        ASSERT(streamDecrID(&id) == 0 && id.ms == 5 && id.seq == UINT64_MAX);
        streamID max = {UINT64_MAX, UINT64_MAX}, zero = {0, 0};
        ASSERT(streamIncrID(&max) == -1 && max.ms == UINT64_MAX && max.seq == UINT64_MAX);
        ASSERT(streamDecrID(&zero) == -1 && streamIDIsZero(&zero));
    }

    TEST("id: text form round trip") {
        char buf[STREAM_ID_STR_LEN];
        streamID id = {UINT64_MAX, UINT64_MAX}, back;
        int len = streamIDToString(&id, buf);
        ASSERT_STREQ(buf, "18446744073709551615-18446744073709551615");
        ASSERT(len == 41);
        ASSERT(streamParseIDText(buf, (size_t)len, 0, &back, NULL) == 0);
        ASSERT(streamCompareID(&id, &back) == 0);
        streamID z = {0, 0};
        streamIDToString(&z, buf);
        ASSERT_STREQ(buf, "0-0");
    }

    TEST("id: parsing forms and rejects") {
        streamID id;
        int star;
        ASSERT(streamParseIDText("12", 2, 7, &id, NULL) == 0 && id.ms == 12 && id.seq == 7);
        ASSERT(streamParseIDText("12-3", 4, 7, &id, NULL) == 0 && id.ms == 12 && id.seq == 3);
        ASSERT(streamParseIDText("12-*", 4, 7, &id, &star) == 0 && star == 1 && id.ms == 12);
        ASSERT(streamParseIDText("12-*", 4, 7, &id, NULL) == -1);
        ASSERT(streamParseIDText("12-3", 4, 7, &id, &star) == 0 && star == 0);
        const char *bad[] = {"", "-", "+", "$", "*", "1-", "-1", "1--2", "a", "1-a", " 1", "+1",
                             "18446744073709551616", "1-18446744073709551616", "1-2-3"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
            ASSERT(streamParseIDText(bad[i], strlen(bad[i]), 0, &id, &star) == -1);
    }

    TEST("map: insert, find, duplicate, delete") {
        sidmap *m = sidmapNew();
        for (uint64_t i = 1; i <= 100; i++) ASSERT(sidmapInsert(m, (streamID){i, i}, (void *)(uintptr_t)i) != NULL);
        ASSERT(sidmapInsert(m, (streamID){5, 5}, NULL) == NULL);
        ASSERT(sidmapLen(m) == 100 && mapCheck(m));
        sidmapNode *n = sidmapFind(m, (streamID){42, 42});
        ASSERT(n && (uintptr_t)n->value == 42);
        ASSERT(sidmapFind(m, (streamID){42, 41}) == NULL);
        void *old = NULL;
        ASSERT(sidmapDelete(m, (streamID){42, 42}, &old) == 1 && (uintptr_t)old == 42);
        ASSERT(sidmapDelete(m, (streamID){42, 42}, NULL) == 0);
        ASSERT(sidmapDelete(m, (streamID){1, 1}, NULL) == 1);
        ASSERT(sidmapDelete(m, (streamID){100, 100}, NULL) == 1);
        ASSERT(sidmapFirst(m)->id.ms == 2 && sidmapLast(m)->id.ms == 99);
        ASSERT(sidmapLen(m) == 97 && mapCheck(m));
        sidmapFree(m, NULL);
    }

    TEST("map: seeks") {
        sidmap *m = sidmapNew();
        ASSERT(sidmapSeekGE(m, (streamID){0, 0}) == NULL && sidmapSeekLE(m, (streamID){9, 9}) == NULL);
        for (uint64_t i = 10; i <= 50; i += 10) sidmapInsert(m, (streamID){i, 0}, NULL);
        ASSERT(sidmapSeekGE(m, (streamID){0, 0})->id.ms == 10);
        ASSERT(sidmapSeekGE(m, (streamID){20, 0})->id.ms == 20);
        ASSERT(sidmapSeekGE(m, (streamID){20, 1})->id.ms == 30);
        ASSERT(sidmapSeekGE(m, (streamID){50, 1}) == NULL);
        ASSERT(sidmapSeekLE(m, (streamID){9, 0}) == NULL);
        ASSERT(sidmapSeekLE(m, (streamID){30, 0})->id.ms == 30);
        ASSERT(sidmapSeekLE(m, (streamID){29, UINT64_MAX})->id.ms == 20);
        ASSERT(sidmapSeekLE(m, (streamID){UINT64_MAX, UINT64_MAX})->id.ms == 50);
        sidmapFree(m, NULL);
    }

    TEST("map: free calls the destructor on every value") {
        sidmap *m = sidmapNew();
        for (uint64_t i = 0; i < 10; i++) sidmapInsert(m, (streamID){i, 0}, zmalloc(16));
        sidmapFree(m, zfree); /* leak-free under valgrind/jemalloc stats */
        ASSERT(1);
    }

    TEST("map: sidmapDefrag moves the header and every node in parts, with inserts and deletes between") {
        sidmap *m = sidmapNew();
        uint64_t n = 3000;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t *v = zmalloc(sizeof(*v));
            *v = i * 2;
            sidmapInsert(m, (streamID){i * 2, 0}, v);
        }
        visited = 0;
        streamID after = {0, 0}, last = {0, 0};
        int first = 1, parts = 0, more;
        do {
            more = sidmapDefrag(m, first, after, 41, moveBlock, visitMoveValue, NULL, &last);
            first = 0;
            after = last;
            /* The map changes between parts: an insert behind, one ahead,
             * a delete ahead. */
            uint64_t *v = zmalloc(sizeof(*v));
            uint64_t behind = (uint64_t)parts * 2 + 1, ahead = n * 2 + (uint64_t)parts * 2 + 1;
            *v = behind;
            if (!sidmapInsert(m, (streamID){behind, 0}, v)) zfree(v);
            v = zmalloc(sizeof(*v));
            *v = ahead;
            if (!sidmapInsert(m, (streamID){ahead, 0}, v)) zfree(v);
            void *old;
            if (sidmapDelete(m, (streamID){last.ms + 4, 0}, &old)) zfree(old);
            parts++;
        } while (more && parts < 1000);
        ASSERT(!more);
        ASSERT(parts > 50);
        ASSERT(visited >= (long)n / 2);
        ASSERT(mapCheck(m));
        int values_ok = 1;
        for (sidmapNode *x = sidmapFirst(m); x; x = sidmapNext(x)) values_ok &= *(uint64_t *)x->value == x->id.ms;
        ASSERT(values_ok);
        /* Every level still finds every node. */
        int found = 1;
        for (sidmapNode *x = sidmapFirst(m); x; x = sidmapNext(x)) found &= sidmapFind(m, x->id) == x;
        ASSERT(found);
        sidmapFree(m, zfree);
    }

    TEST("map: randomized against a sorted array") {
        srand(1234);
        sidmap *m = sidmapNew();
        streamID ref[2000];
        size_t nref = 0;
        int ok = 1;
        for (int step = 0; step < 20000 && ok; step++) {
            streamID id = {(uint64_t)(rand() % 300), (uint64_t)(rand() % 4)};
            int present = bsearch(&id, ref, nref, sizeof(streamID), cmpIDs) != NULL;
            if (rand() % 3) {
                if ((sidmapInsert(m, id, NULL) != NULL) == present) ok = 0;
                if (!present && nref < 2000) {
                    ref[nref++] = id;
                    qsort(ref, nref, sizeof(streamID), cmpIDs);
                } else if (!present) {
                    sidmapDelete(m, id, NULL);
                }
            } else {
                if (sidmapDelete(m, id, NULL) != present) ok = 0;
                if (present) {
                    streamID *p = bsearch(&id, ref, nref, sizeof(streamID), cmpIDs);
                    memmove(p, p + 1, (size_t)(ref + nref - p - 1) * sizeof(streamID));
                    nref--;
                }
            }
            streamID probe = {(uint64_t)(rand() % 300), (uint64_t)(rand() % 4)};
            sidmapNode *ge = sidmapSeekGE(m, probe), *le = sidmapSeekLE(m, probe);
            streamID *rge = NULL, *rle = NULL;
            for (size_t i = 0; i < nref; i++) {
                if (!rge && streamCompareID(&ref[i], &probe) >= 0) rge = &ref[i];
                if (streamCompareID(&ref[i], &probe) <= 0) rle = &ref[i];
            }
            if ((ge == NULL) != (rge == NULL) || (ge && streamCompareID(&ge->id, rge) != 0)) ok = 0;
            if ((le == NULL) != (rle == NULL) || (le && streamCompareID(&le->id, rle) != 0)) ok = 0;
            if (sidmapLen(m) != nref) ok = 0;
        }
        ASSERT(ok);
        ASSERT(mapCheck(m));
        sidmapFree(m, NULL);
    }

    return UT_END();
}
