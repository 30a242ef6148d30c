/* test_intset.c - unit tests for intset.c: width selection, ordered
 * insertion, upgrades at both ends, removal, lookup, random members, the
 * validator, and a randomized comparison against a plain sorted array. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "intset.h"
#include "unittest.h"
#include "zmalloc.h"

/* Returns 1 if is holds exactly the ascending values ref[0..n). */
static int sameAs(const intset *is, const int64_t *ref, uint32_t n) {
    if (intsetLen(is) != n) return 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t v;
        if (!intsetGet(is, i, &v) || v != ref[i]) return 0;
    }
    return 1;
}

static int cmpInt64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* A 64-bit value spread over the widths: small, 16-, 32- and 64-bit. */
static int64_t randomValue(void) {
    switch (rand() % 4) {
    case 0: return rand() % 200 - 100;
    case 1: return (int64_t)(rand() % 65536) - 32768;
    case 2: return (int64_t)rand() - (RAND_MAX / 2);
    default: return (int64_t)(((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 2) ^ (uint64_t)rand());
    }
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    srand(1234);

    TEST("intset: value encodings") {
        ASSERT_EQ_LL(intsetValueEncoding(0), INTSET_ENC_INT16);
        ASSERT_EQ_LL(intsetValueEncoding(INT16_MAX), INTSET_ENC_INT16);
        ASSERT_EQ_LL(intsetValueEncoding(INT16_MIN), INTSET_ENC_INT16);
        ASSERT_EQ_LL(intsetValueEncoding(INT16_MAX + 1), INTSET_ENC_INT32);
        ASSERT_EQ_LL(intsetValueEncoding(INT16_MIN - 1), INTSET_ENC_INT32);
        ASSERT_EQ_LL(intsetValueEncoding(INT32_MAX), INTSET_ENC_INT32);
        ASSERT_EQ_LL(intsetValueEncoding(INT32_MIN), INTSET_ENC_INT32);
        ASSERT_EQ_LL(intsetValueEncoding((int64_t)INT32_MAX + 1), INTSET_ENC_INT64);
        ASSERT_EQ_LL(intsetValueEncoding((int64_t)INT32_MIN - 1), INTSET_ENC_INT64);
        ASSERT_EQ_LL(intsetValueEncoding(INT64_MAX), INTSET_ENC_INT64);
        ASSERT_EQ_LL(intsetValueEncoding(INT64_MIN), INTSET_ENC_INT64);
    }

    TEST("intset: empty set") {
        intset *is = intsetNew();
        int64_t v;
        ASSERT_EQ_LL(intsetLen(is), 0);
        ASSERT_EQ_LL(intsetBlobLen(is), 8);
        ASSERT(!intsetFind(is, 0));
        ASSERT(!intsetGet(is, 0, &v));
        ASSERT(intsetValidate(is, intsetBlobLen(is), 1));
        int removed = 1;
        is = intsetRemove(is, 5, &removed);
        ASSERT_EQ_LL(removed, 0);
        intsetFree(is);
    }

    TEST("intset: ordered insertion and duplicates") {
        intset *is = intsetNew();
        int64_t in[] = {5, 6, 4, 32, 1, -7, 6, 5, 0};
        int expect_added[] = {1, 1, 1, 1, 1, 1, 0, 0, 1};
        for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
            int added = -1;
            is = intsetAdd(is, in[i], &added);
            ASSERT_EQ_LL(added, expect_added[i]);
        }
        int64_t ref[] = {-7, 0, 1, 4, 5, 6, 32};
        ASSERT(sameAs(is, ref, 7));
        ASSERT_EQ_LL(intsetMin(is), -7);
        ASSERT_EQ_LL(intsetMax(is), 32);
        ASSERT_EQ_LL(intsetBlobLen(is), 8 + 7 * 2);
        ASSERT(intsetValidate(is, intsetBlobLen(is), 1));
        intsetFree(is);
    }

    TEST("intset: upgrade 16 -> 32 at the back and 32 -> 64 at the front") {
        intset *is = intsetNew();
        is = intsetAdd(is, 10, NULL);
        is = intsetAdd(is, -10, NULL);
        is = intsetAdd(is, 70000, NULL);
        ASSERT_EQ_LL(is->encoding, INTSET_ENC_INT32);
        int64_t ref1[] = {-10, 10, 70000};
        ASSERT(sameAs(is, ref1, 3));
        is = intsetAdd(is, -5000000000LL, NULL);
        ASSERT_EQ_LL(is->encoding, INTSET_ENC_INT64);
        int64_t ref2[] = {-5000000000LL, -10, 10, 70000};
        ASSERT(sameAs(is, ref2, 4));
        ASSERT(intsetFind(is, 70000));
        ASSERT(intsetFind(is, -10));
        ASSERT(!intsetFind(is, 11));
        ASSERT(intsetValidate(is, intsetBlobLen(is), 1));
        intsetFree(is);
    }

    TEST("intset: upgrade 16 -> 64 at the front and extremes") {
        intset *is = intsetNew();
        for (int i = 0; i < 10; i++) is = intsetAdd(is, i, NULL);
        is = intsetAdd(is, INT64_MIN, NULL);
        is = intsetAdd(is, INT64_MAX, NULL);
        ASSERT_EQ_LL(intsetLen(is), 12);
        ASSERT_EQ_LL(intsetMin(is), INT64_MIN);
        ASSERT_EQ_LL(intsetMax(is), INT64_MAX);
        for (int i = 0; i < 10; i++) {
            int64_t v;
            ASSERT(intsetGet(is, (uint32_t)i + 1, &v));
            ASSERT_EQ_LL(v, i);
        }
        intsetFree(is);
    }

    TEST("intset: removal keeps order and width") {
        intset *is = intsetNew();
        for (int i = 0; i < 20; i++) is = intsetAdd(is, i * 3, NULL);
        is = intsetAdd(is, 100000, NULL);
        int removed = 0;
        is = intsetRemove(is, 100000, &removed);
        ASSERT_EQ_LL(removed, 1);
        ASSERT_EQ_LL(is->encoding, INTSET_ENC_INT32); /* never narrows */
        is = intsetRemove(is, 0, &removed);
        ASSERT_EQ_LL(removed, 1);
        is = intsetRemove(is, 57, &removed);
        ASSERT_EQ_LL(removed, 1);
        is = intsetRemove(is, 58, &removed);
        ASSERT_EQ_LL(removed, 0);
        is = intsetRemove(is, 30, &removed);
        ASSERT_EQ_LL(removed, 1);
        is = intsetRemove(is, 5000000000LL, &removed); /* wider than the set */
        ASSERT_EQ_LL(removed, 0);
        ASSERT_EQ_LL(intsetLen(is), 17);
        ASSERT(!intsetFind(is, 30));
        ASSERT(intsetFind(is, 33));
        ASSERT(intsetValidate(is, intsetBlobLen(is), 1));
        intsetFree(is);
    }

    TEST("intset: dup is independent") {
        intset *is = intsetNew();
        is = intsetAdd(is, 1, NULL);
        is = intsetAdd(is, 2, NULL);
        intset *copy = intsetDup(is);
        is = intsetAdd(is, 3, NULL);
        ASSERT_EQ_LL(intsetLen(copy), 2);
        ASSERT_EQ_LL(intsetLen(is), 3);
        intsetFree(copy);
        intsetFree(is);
    }

    TEST("intset: random member covers every element") {
        intset *is = intsetNew();
        int seen[8] = {0};
        for (int i = 0; i < 8; i++) is = intsetAdd(is, i * 1000, NULL);
        for (int i = 0; i < 2000; i++) {
            int64_t v = intsetRandom(is);
            ASSERT(v % 1000 == 0 && v >= 0 && v < 8000);
            seen[v / 1000]++;
        }
        for (int i = 0; i < 8; i++) ASSERT(seen[i] > 150); /* ~250 each */
        intsetFree(is);
    }

    TEST("intset: validator rejects bad blobs") {
        intset *is = intsetNew();
        is = intsetAdd(is, 1, NULL);
        is = intsetAdd(is, 2, NULL);
        size_t len = intsetBlobLen(is);
        ASSERT(intsetValidate(is, len, 1));
        ASSERT(!intsetValidate(is, len - 1, 0));
        ASSERT(!intsetValidate(is, 4, 0));
        /* Swap the two elements: shallow check passes, deep fails. */
        unsigned char *b = (unsigned char *)is->contents;
        unsigned char tmp[2];
        memcpy(tmp, b, 2);
        memcpy(b, b + 2, 2);
        memcpy(b + 2, tmp, 2);
        ASSERT(intsetValidate(is, len, 0));
        ASSERT(!intsetValidate(is, len, 1));
        is->encoding = 3;
        ASSERT(!intsetValidate(is, len, 0));
        intsetFree(is);
    }

    TEST("intset: little-endian layout") {
        intset *is = intsetNew();
        is = intsetAdd(is, 0x1234, NULL);
        const unsigned char *raw = (const unsigned char *)is;
        ASSERT_EQ_LL(raw[0], 2); /* width 2, LE u32 */
        ASSERT_EQ_LL(raw[4], 1); /* one element */
        ASSERT_EQ_LL(raw[8], 0x34);
        ASSERT_EQ_LL(raw[9], 0x12);
        intsetFree(is);
    }

    TEST("intset: randomized against a sorted array") {
        for (int round = 0; round < 20; round++) {
            intset *is = intsetNew();
            int64_t ref[600];
            uint32_t n = 0;
            for (int op = 0; op < 1500; op++) {
                int64_t v = n && rand() % 3 == 0 ? ref[rand() % n] : randomValue();
                int present = 0;
                for (uint32_t i = 0; i < n; i++)
                    if (ref[i] == v) present = 1;
                if (rand() % 3 == 0) {
                    int removed;
                    is = intsetRemove(is, v, &removed);
                    ASSERT_EQ_LL(removed, present);
                    if (present) {
                        uint32_t k = 0;
                        for (uint32_t i = 0; i < n; i++)
                            if (ref[i] != v) ref[k++] = ref[i];
                        n = k;
                    }
                } else if (n < 600) {
                    int added;
                    is = intsetAdd(is, v, &added);
                    ASSERT_EQ_LL(added, !present);
                    if (!present) {
                        ref[n++] = v;
                        qsort(ref, n, sizeof(ref[0]), cmpInt64);
                    }
                }
            }
            ASSERT(sameAs(is, ref, n));
            ASSERT(intsetValidate(is, intsetBlobLen(is), 1));
            for (uint32_t i = 0; i < n; i++) ASSERT(intsetFind(is, ref[i]));
            intsetFree(is);
        }
    }

    return UT_END();
}
