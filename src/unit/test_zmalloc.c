/* test_zmalloc.c - unit tests for zmalloc.c: used-memory accounting,
 * realloc/free symmetry, try variants, process statistics. */
#include <stdint.h>

#include "unittest.h"
#include "zmalloc.h"

int main(int argc, char **argv) {
    UT_BEGIN(argv[0]);

    TEST("zmalloc: used memory follows usable sizes") {
        size_t base = zmalloc_used_memory();
        size_t usable;
        void *p = zmalloc_usable(100, &usable);
        ASSERT(usable >= 100 && usable == zmalloc_size(p));
        ASSERT_EQ_LL(zmalloc_used_memory() - base, usable);
        p = zrealloc_usable(p, 5000, &usable);
        ASSERT(usable >= 5000);
        ASSERT_EQ_LL(zmalloc_used_memory() - base, usable);
        memset(p, 1, 5000);
        p = zrealloc(p, 10);
        ASSERT_EQ_LL(zmalloc_used_memory() - base, zmalloc_size(p));
        zfree(p);
        ASSERT_EQ_LL(zmalloc_used_memory(), base);

        char *z = zcalloc(64);
        int zero = 1;
        for (int i = 0; i < 64; i++) zero &= z[i] == 0;
        ASSERT(zero);
        char *s = zstrdup("hello");
        ASSERT_STREQ(s, "hello");
        zfree(s);
        zfree(z);
        zfree(NULL);
        ASSERT_EQ_LL(zmalloc_used_memory(), base);

        /* realloc edge cases: NULL allocates, 0 frees. */
        p = zrealloc(NULL, 32);
        ASSERT(p != NULL);
        ASSERT(zrealloc(p, 0) == NULL);
        ASSERT_EQ_LL(zmalloc_used_memory(), base);
    }

    TEST("zmalloc: the usable size of a new block is the allocator's (and zmalloc_good_size's), for every small size") {
        size_t base = zmalloc_used_memory();
        int ok = 1;
        for (size_t n = 0; n <= 5000; n++) {
            size_t u1, u2;
            void *p = zmalloc_usable(n, &u1);
            void *q = zcalloc_usable(n, &u2);
            if (u1 != zmalloc_size(p) || u2 != zmalloc_size(q) || u1 < n) ok = 0;
            if (!utUnderValgrind() && zmalloc_good_size(n) != u1) ok = 0;
            zfree(p);
            zfree(q);
            if (zmalloc_used_memory() != base) ok = 0;
        }
        ASSERT(ok);
    }

    if (!utUnderValgrind()) TEST("zmalloc: try variants fail softly") {
        size_t base = zmalloc_used_memory();
        ASSERT(ztrymalloc(SIZE_MAX / 2) == NULL);
        ASSERT(ztrycalloc(SIZE_MAX / 2) == NULL);
        void *p = ztrymalloc(16);
        ASSERT(p != NULL);
        ASSERT(ztryrealloc(p, SIZE_MAX / 2) == NULL); /* p still valid */
        zfree(p);
        ASSERT_EQ_LL(zmalloc_used_memory(), base);
    }

    /* Under valgrind or ASan, malloc is theirs: jemalloc's statistics see
     * none of these allocations. */
#ifdef __SANITIZE_ADDRESS__
    int jemalloc_serves = 0;
#else
    int jemalloc_serves = !utUnderValgrind();
#endif
    if (jemalloc_serves) TEST("zmalloc: rss and allocator stats") {
        ASSERT(zmalloc_get_rss() > 0);
        void *big = zmalloc(8 << 20);
        memset(big, 1, 8 << 20);
        size_t allocated, active, resident;
        ASSERT(zmalloc_get_allocator_info(&allocated, &active, &resident) == 1);
        ASSERT(allocated >= (8 << 20));
        ASSERT(active >= allocated && resident >= active);
        zfree(big);
        ASSERT(zmalloc_purge() == 0);
        ASSERT(zmalloc_get_memory_size() > 0);
    }

    TEST("zmalloc: defragmentation support follows who serves malloc") {
        ASSERT_EQ_LL(zmalloc_defrag_available(), jemalloc_serves);
        if (!jemalloc_serves) {
            void *p = zmalloc(48);
            ASSERT_EQ_LL(zmalloc_defrag_hint(p), 0);
            ASSERT_EQ_LL(zmalloc_get_frag_smallbins(), 0);
            zfree(p);
        }
    }

    TEST("zmalloc: a moved block keeps its bytes and used memory stays the same") {
        size_t base = zmalloc_used_memory();
        unsigned char *p = zmalloc(200);
        for (int i = 0; i < 200; i++) p[i] = (unsigned char)(i * 7);
        size_t before = zmalloc_used_memory(), size = zmalloc_size(p);
        unsigned char *q = zmalloc_defrag_move(p);
        int same = 1;
        for (int i = 0; i < 200; i++) same &= q[i] == (unsigned char)(i * 7);
        ASSERT(same);
        ASSERT_EQ_LL(zmalloc_size(q), size);
        ASSERT_EQ_LL(zmalloc_used_memory(), before);
        zfree(q);
        ASSERT_EQ_LL(zmalloc_used_memory(), base);
    }

    if (jemalloc_serves) TEST("zmalloc: sparse slabs are found, and moving their blocks frees them") {
        /* 40,000 blocks of one class, 9 in 10 freed at random: nearly
         * every slab keeps a few. */
        enum { N = 40000 };
        static void *blocks[N];
        srand(77);
        for (int i = 0; i < N; i++) {
            blocks[i] = zmalloc(80);
            memset(blocks[i], i & 0xff, 80);
        }
        size_t frag_full = zmalloc_get_frag_smallbins();
        int kept = 0;
        for (int i = 0; i < N; i++) {
            if (rand() % 10) {
                zfree(blocks[i]);
                blocks[i] = NULL;
            } else {
                kept++;
            }
        }
        size_t frag_sparse = zmalloc_get_frag_smallbins();
        ASSERT(frag_sparse > frag_full + (size_t)N / 2 * 80); /* at least half the freed bytes stay in slabs */
        /* Two passes, as the defragmenter makes while fragmentation stays
         * high: blocks the hint picks move to fuller slabs. */
        int hinted = 0, intact = 1;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < N; i++) {
                if (!blocks[i] || !zmalloc_defrag_hint(blocks[i])) continue;
                hinted++;
                blocks[i] = zmalloc_defrag_move(blocks[i]);
            }
        }
        for (int i = 0; i < N; i++) {
            if (!blocks[i]) continue;
            unsigned char *b = blocks[i];
            intact &= b[0] == (i & 0xff) && b[79] == (i & 0xff);
        }
        size_t frag_after = zmalloc_get_frag_smallbins();
        ASSERT(hinted > kept / 4);
        ASSERT(intact);
        ASSERT(frag_after * 4 < frag_sparse);
        /* A large block never needs moving (it has no slab). */
        void *big = zmalloc(1 << 20);
        ASSERT_EQ_LL(zmalloc_defrag_hint(big), 0);
        zfree(big);
        for (int i = 0; i < N; i++) zfree(blocks[i]);
    }

    return UT_END();
}
