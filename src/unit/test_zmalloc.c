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

    return UT_END();
}
