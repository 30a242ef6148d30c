/* test_listpack.c - unit tests for listpack.c: the byte-level encodings of
 * the documented format, navigation both ways, insert/replace/delete,
 * find with skip, validation of corrupt input, and a randomized run
 * against a simple array model. */
#include <stdint.h>
#include <stdlib.h>

#include "listpack.h"
#include "unittest.h"
#include "util.h"
#include "zmalloc.h"

/* Element at p as text (integers printed), into buf. */
static const char *lpText(unsigned char *p, char *buf, size_t bufsz) {
    int64_t len;
    unsigned char ib[LP_INTBUF_SIZE];
    unsigned char *s = lpGet(p, &len, ib);
    snprintf(buf, bufsz, "%.*s", (int)len, s);
    return buf;
}

/* Bytes of a one-element listpack holding s, after the header. */
static size_t lpOneEntry(const char *s, size_t len, unsigned char *out) {
    unsigned char *lp = lpAppend(lpNew(0), (const unsigned char *)s, len);
    size_t n = lpBytes(lp) - LP_HDR_SIZE - 1;
    memcpy(out, lp + LP_HDR_SIZE, n);
    lpFree(lp);
    return n;
}

int main(int argc, char **argv) {
    UT_BEGIN(argv[0]);
    char b1[128];

    TEST("listpack: empty listpack layout") {
        unsigned char *lp = lpNew(0);
        ASSERT_EQ_LL(lpBytes(lp), 7);
        ASSERT(memcmp(lp, "\x07\x00\x00\x00\x00\x00\xff", 7) == 0);
        ASSERT_EQ_LL(lpLength(lp), 0);
        ASSERT(lpFirst(lp) == NULL && lpLast(lp) == NULL && lpSeek(lp, 0) == NULL);
        ASSERT(lpValidateIntegrity(lp, 7, 1, NULL, NULL));
        lpFree(lp);
    }

    TEST("listpack: integer encodings are the documented ones") {
        unsigned char e[32];
        ASSERT_EQ_LL(lpOneEntry("5", 1, e), 2);
        ASSERT(e[0] == 5 && e[1] == 1);
        ASSERT_EQ_LL(lpOneEntry("-1", 2, e), 3); /* 13 bit */
        ASSERT(e[0] == 0xDF && e[1] == 0xFF && e[2] == 2);
        ASSERT_EQ_LL(lpOneEntry("4095", 4, e), 3);
        ASSERT(e[0] == 0xCF && e[1] == 0xFF);
        ASSERT_EQ_LL(lpOneEntry("4096", 4, e), 4); /* 16 bit */
        ASSERT(e[0] == 0xF1 && e[1] == 0x00 && e[2] == 0x10 && e[3] == 3);
        ASSERT_EQ_LL(lpOneEntry("-8388608", 8, e), 5); /* 24 bit */
        ASSERT(e[0] == 0xF2 && e[3] == 0x80);
        ASSERT_EQ_LL(lpOneEntry("2147483647", 10, e), 6); /* 32 bit */
        ASSERT(e[0] == 0xF3);
        ASSERT_EQ_LL(lpOneEntry("-9223372036854775808", 20, e), 10); /* 64 bit */
        ASSERT(e[0] == 0xF4 && e[8] == 0x80 && e[9] == 9);
        /* Not canonical integers: stay strings. */
        ASSERT_EQ_LL(lpOneEntry("012", 3, e), 5);
        ASSERT(e[0] == (0x80 | 3));
        ASSERT_EQ_LL(lpOneEntry("+1", 2, e), 4);
        ASSERT_EQ_LL(lpOneEntry("9223372036854775808", 19, e), 21);
    }

    TEST("listpack: string encodings and multi-byte backlen") {
        unsigned char *big = zmalloc(70000);
        memset(big, 'x', 70000);
        unsigned char e[8];
        unsigned char *lp = lpNew(0);
        lp = lpAppend(lp, (unsigned char *)"", 0);
        lp = lpAppend(lp, big, 63);
        lp = lpAppend(lp, big, 64);   /* 12 bit */
        lp = lpAppend(lp, big, 4095);
        lp = lpAppend(lp, big, 4096); /* 32 bit */
        lp = lpAppend(lp, big, 70000);
        ASSERT_EQ_LL(lpLength(lp), 6);
        size_t lens[] = {0, 63, 64, 4095, 4096, 70000};
        unsigned char firsts[] = {0x80, 0x80 | 63, 0xE0, 0xEF, 0xF0, 0xF0};
        int i = 0;
        for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p), i++) {
            int64_t len;
            unsigned char *s = lpGet(p, &len, NULL);
            ASSERT(s != NULL);
            ASSERT_EQ_LL(len, lens[i]);
            ASSERT(p[0] == firsts[i]);
        }
        ASSERT_EQ_LL(i, 6);
        i = 5;
        for (unsigned char *p = lpLast(lp); p; p = lpPrev(lp, p), i--) {
            int64_t len;
            lpGet(p, &len, NULL);
            ASSERT_EQ_LL(len, lens[i]);
        }
        ASSERT_EQ_LL(i, -1);
        ASSERT(lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
        /* 64-byte string: 2-byte header + 64 = 66 bytes of entry, 1-byte
         * backlen; 200 bytes: 202 -> 2-byte backlen (0x01, 0xCA). */
        lpFree(lp);
        lp = lpAppend(lpNew(0), big, 200);
        size_t n = lpBytes(lp);
        memcpy(e, lp + n - 3, 2);
        ASSERT(e[0] == 0x01 && e[1] == (0x80 | (202 & 127)));
        lpFree(lp);
        zfree(big);
    }

    TEST("listpack: append, prepend, seek, get as string and integer") {
        unsigned char *lp = lpNew(0);
        lp = lpAppend(lp, (unsigned char *)"b", 1);
        lp = lpAppendInteger(lp, 100000);
        lp = lpPrepend(lp, (unsigned char *)"a", 1);
        lp = lpPrependInteger(lp, -5);
        ASSERT_EQ_LL(lpLength(lp), 4);
        ASSERT_STREQ(lpText(lpSeek(lp, 0), b1, sizeof(b1)), "-5");
        ASSERT_STREQ(lpText(lpSeek(lp, 1), b1, sizeof(b1)), "a");
        ASSERT_STREQ(lpText(lpSeek(lp, -1), b1, sizeof(b1)), "100000");
        ASSERT_STREQ(lpText(lpSeek(lp, -2), b1, sizeof(b1)), "b");
        ASSERT(lpSeek(lp, 4) == NULL && lpSeek(lp, -5) == NULL);
        int64_t v;
        ASSERT(lpGet(lpSeek(lp, 0), &v, NULL) == NULL);
        ASSERT_EQ_LL(v, -5);
        long long lv;
        ASSERT(lpGetIntegerIfValid(lpSeek(lp, -1), &lv) && lv == 100000);
        ASSERT(!lpGetIntegerIfValid(lpSeek(lp, 1), &lv));
        listpackEntry e;
        lpGetEntry(lpSeek(lp, 1), &e);
        ASSERT(e.sval && e.slen == 1 && e.sval[0] == 'a');
        lpGetEntry(lpSeek(lp, 3), &e);
        ASSERT(e.sval == NULL && e.lval == 100000);
        lpFree(lp);
    }

    TEST("listpack: insert before/after, replace, delete, delete range") {
        unsigned char *lp = lpNew(0), *p;
        for (int i = 0; i < 5; i++) lp = lpAppendInteger(lp, i); /* 0 1 2 3 4 */
        p = lpSeek(lp, 2);
        lp = lpInsertString(lp, (unsigned char *)"x", 1, p, LP_BEFORE, &p);
        ASSERT_STREQ(lpText(p, b1, sizeof(b1)), "x");
        lp = lpInsertString(lp, (unsigned char *)"y", 1, p, LP_AFTER, &p);
        ASSERT_STREQ(lpText(p, b1, sizeof(b1)), "y"); /* 0 1 x y 2 3 4 */
        ASSERT_STREQ(lpText(lpNext(lp, p), b1, sizeof(b1)), "2");
        p = lpSeek(lp, 0);
        lp = lpReplace(lp, &p, (unsigned char *)"a long replacement string", 25);
        ASSERT_STREQ(lpText(p, b1, sizeof(b1)), "a long replacement string");
        lp = lpReplaceInteger(lp, &p, 7);
        ASSERT_STREQ(lpText(lpFirst(lp), b1, sizeof(b1)), "7");
        ASSERT_EQ_LL(lpLength(lp), 7);
        p = lpSeek(lp, 2);
        lp = lpDelete(lp, p, &p);
        ASSERT_STREQ(lpText(p, b1, sizeof(b1)), "y");
        lp = lpDeleteRange(lp, 1, 2); /* 7 2 3 4 */
        ASSERT_EQ_LL(lpLength(lp), 4);
        ASSERT_STREQ(lpText(lpSeek(lp, 1), b1, sizeof(b1)), "2");
        p = lpLast(lp);
        lp = lpDelete(lp, p, &p);
        ASSERT(p == NULL);
        p = lpSeek(lp, 1);
        lp = lpDeleteRangeWithEntry(lp, &p, 100);
        ASSERT(p == NULL);
        ASSERT_EQ_LL(lpLength(lp), 1);
        ASSERT(lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
        lpFree(lp);
    }

    TEST("listpack: replace with an element of the same listpack") {
        unsigned char *lp = lpNew(0), *p;
        lp = lpAppend(lp, (unsigned char *)"hello world", 11);
        lp = lpAppend(lp, (unsigned char *)"x", 1);
        int64_t len;
        unsigned char *s = lpGet(lpFirst(lp), &len, NULL);
        p = lpLast(lp);
        lp = lpReplace(lp, &p, s, (size_t)len);
        ASSERT_STREQ(lpText(lpLast(lp), b1, sizeof(b1)), "hello world");
        lpFree(lp);
    }

    TEST("listpack: find, compare and skip") {
        unsigned char *lp = lpNew(0);
        const char *kv[] = {"f1", "v1", "12", "f1", "f3", "12"};
        for (int i = 0; i < 6; i++) lp = lpAppend(lp, (unsigned char *)kv[i], strlen(kv[i]));
        unsigned char *p = lpFind(lp, lpFirst(lp), (unsigned char *)"12", 2, 0);
        ASSERT(p == lpSeek(lp, 2));
        /* Keys only: "f1" as a value at index 3 must not match with skip=1. */
        p = lpFind(lp, lpFirst(lp), (unsigned char *)"f3", 2, 1);
        ASSERT(p == lpSeek(lp, 4));
        p = lpFind(lp, lpSeek(lp, 1), (unsigned char *)"f1", 2, 1);
        ASSERT(p == lpSeek(lp, 3));
        ASSERT(lpFind(lp, lpFirst(lp), (unsigned char *)"nope", 4, 0) == NULL);
        ASSERT(lpFind(lp, lpFirst(lp), (unsigned char *)"012", 3, 0) == NULL);
        ASSERT(lpCompare(lpSeek(lp, 2), (unsigned char *)"12", 2));
        ASSERT(!lpCompare(lpSeek(lp, 2), (unsigned char *)"12 ", 3));
        lpFree(lp);
    }

    TEST("listpack: header count saturates and is recounted") {
        unsigned char *lp = lpNew(0);
        for (int i = 0; i < 70000; i++) lp = lpAppendInteger(lp, i % 100);
        ASSERT(lp[4] == 0xFF && lp[5] == 0xFF);
        ASSERT_EQ_LL(lpLength(lp), 70000);
        ASSERT(lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
        lp = lpDeleteRange(lp, 0, 10000);
        ASSERT_EQ_LL(lpLength(lp), 60000);
        ASSERT_EQ_LL(lp[4] | (lp[5] << 8), 60000); /* cached again */
        unsigned char *copy = lpDup(lp);
        lp = lpAppendAll(lp, copy);
        ASSERT_EQ_LL(lpLength(lp), 120000);
        lpFree(copy);
        lpFree(lp);
    }

    TEST("listpack: validation rejects corruption") {
        unsigned char *lp = lpNew(0);
        lp = lpAppend(lp, (unsigned char *)"hello", 5);
        lp = lpAppendInteger(lp, 1234567);
        size_t n = lpBytes(lp);
        ASSERT(lpValidateIntegrity(lp, n, 1, NULL, NULL));
        ASSERT(!lpValidateIntegrity(lp, n - 1, 0, NULL, NULL));
        unsigned char *bad = lpDup(lp);
        bad[LP_HDR_SIZE] = 0x80 | 40; /* string length beyond the end */
        ASSERT(!lpValidateIntegrity(bad, n, 1, NULL, NULL));
        memcpy(bad, lp, n);
        bad[LP_HDR_SIZE + 6] = 3; /* wrong backlen for "hello" */
        ASSERT(!lpValidateIntegrity(bad, n, 1, NULL, NULL));
        memcpy(bad, lp, n);
        bad[4] = 3; /* wrong count */
        ASSERT(!lpValidateIntegrity(bad, n, 1, NULL, NULL));
        memcpy(bad, lp, n);
        bad[LP_HDR_SIZE] = 0xF7; /* invalid encoding */
        ASSERT(!lpValidateIntegrity(bad, n, 1, NULL, NULL));
        lpFree(bad);
        unsigned char *small = lpAppendInteger(lpNew(0), 5);
        ASSERT(lpValidateIntegrity(small, lpBytes(small), 1, NULL, NULL));
        small[LP_HDR_SIZE + 1] = 2; /* a 7-bit integer's backlen must be 1 */
        ASSERT(!lpValidateIntegrity(small, lpBytes(small), 1, NULL, NULL));
        small[LP_HDR_SIZE + 1] = 1;
        small[LP_HDR_SIZE] = 0x80 | 1; /* a 1-byte string whose byte is the terminator */
        ASSERT(!lpValidateIntegrity(small, lpBytes(small), 1, NULL, NULL));
        lpFree(small);
        lpFree(lp);
    }

    TEST("listpack: the bulk builder writes what appends would") {
        unsigned char *src = lpNew(0);
        src = lpAppend(src, (unsigned char *)"field", 5);
        src = lpAppendInteger(src, -70000);
        src = lpAppend(src, (unsigned char *)"value", 5);
        unsigned char *want = lpNew(0);
        lpBuilder b;
        lpBuilderInit(&b, 0); /* forces several regrowths */
        for (int i = 0; i < 300; i++) {
            long long v = (long long)i * 7919 - 1000000;
            want = lpAppendInteger(want, v);
            lpBuilderAppendInteger(&b, v);
            want = lpAppendAll(want, src);
            unsigned char *first = lpFirst(src);
            lpBuilderAppendEntries(&b, first, lpSkip(lpSkip(lpSkip(first))), 3);
        }
        ASSERT_EQ_LL(lpBuilderBytes(&b), lpBytes(want));
        unsigned char *got = lpBuilderFinish(&b);
        ASSERT(b.buf == NULL);
        ASSERT_EQ_LL(lpBytes(got), lpBytes(want));
        ASSERT(memcmp(got, want, lpBytes(want)) == 0);
        ASSERT(lpValidateIntegrity(got, lpBytes(got), 1, NULL, NULL));
        ASSERT_EQ_LL(lpLength(got), 1200);
        ASSERT(lpSkip(lpLast(got)) == got + lpBytes(got) - 1); /* lands on the terminator */
        lpFree(got);
        lpBuilderInit(&b, 64);
        lpBuilderAppendInteger(&b, 1);
        lpBuilderDiscard(&b);
        ASSERT(b.buf == NULL);
        lpFree(want);
        lpFree(src);
    }

    TEST("listpack: packed form layout: runs of equal-length strings and same-width integers") {
        unsigned char *lp = lpNew(0);
        const char *elems[] = {"m0000001", "m0000002", "m0000003", "5", "-3", "300", "abc", ""};
        for (size_t i = 0; i < sizeof(elems) / sizeof(elems[0]); i++)
            lp = lpAppend(lp, (const unsigned char *)elems[i], strlen(elems[i]));
        unsigned char out[128];
        size_t n = lpPack(lp, out, sizeof(out));
        /* 3 strings of 8; 2 integers of 1 byte; 1 of 2 bytes; "abc"; "". */
        ASSERT_MEMEQ(out, n, "\x06\x08m0000001m0000002m0000003"
                             "\x05\x01\x05\xfd"
                             "\x03\x02\x2c\x01"
                             "\x02\x03" "abc"
                             "\x02\x00");
        ASSERT(n < lpBytes(lp));
        ASSERT_EQ_LL(lpPack(lp, out, n - 1), 0); /* does not fit: nothing */
        unsigned char *back = lpUnpack(out, n, lpBytes(lp));
        ASSERT(memcmp(back, lp, lpBytes(lp)) == 0);
        lpPackedReader r;
        lpPackedReaderInit(&r, out, n);
        lpPackedSkip(&r, 4);
        const unsigned char *s;
        unsigned int slen;
        long long v;
        ASSERT(lpPackedNext(&r, &s, &slen, &v) && s == NULL && v == -3);
        ASSERT(lpPackedNext(&r, &s, &slen, &v) && s == NULL && v == 300);
        ASSERT(lpPackedNext(&r, &s, &slen, &v) && s && slen == 3 && memcmp(s, "abc", 3) == 0);
        ASSERT(lpPackedNext(&r, &s, &slen, &v) && s && slen == 0);
        ASSERT(!lpPackedNext(&r, &s, &slen, &v));
        lpPackedSkip(&r, 10); /* past the end: stays there */
        ASSERT(!lpPackedNext(&r, &s, &slen, &v));
        lpFree(back);
        lpFree(lp);
    }

    TEST("listpack: a wider encoding than needed is not packed") {
        /* 5 as a 16-bit integer: valid, but lpUnpack would write 7 bits. */
        unsigned char lp[] = {11, 0, 0, 0, 1, 0, 0xF1, 5, 0, 3, 0xFF};
        ASSERT(lpValidateIntegrity(lp, sizeof(lp), 1, NULL, NULL));
        unsigned char out[16];
        ASSERT_EQ_LL(lpPack(lp, out, sizeof(out)), 0);
    }

    TEST("listpack: random listpacks pack and unpack to the same bytes") {
        srand(99);
        int bad = 0;
        for (int round = 0; round < 300; round++) {
            unsigned char *lp = lpNew(0);
            int n = rand() % 300;
            for (int i = 0; i < n; i++) {
                char val[5000];
                int kind = rand() % 5;
                size_t len;
                if (kind == 0)
                    len = (size_t)snprintf(val, sizeof(val), "%lld", (long long)rand() * rand() * (rand() % 2 ? 1 : -1));
                else if (kind == 1)
                    len = (size_t)snprintf(val, sizeof(val), "%d", rand() % 300 - 150);
                else if (kind == 2)
                    len = (size_t)snprintf(val, sizeof(val), "k%06d", rand() % 1000000);
                else {
                    len = (size_t)(kind == 3 ? rand() % 70 : rand() % 4500);
                    for (size_t j = 0; j < len; j++) val[j] = (char)('a' + rand() % 26);
                }
                lp = lpAppend(lp, (unsigned char *)val, len);
            }
            size_t room = lpBytes(lp);
            unsigned char *out = zmalloc(room);
            size_t packed = lpPack(lp, out, room);
            if (n > 0 && (packed == 0 || packed > lpBytes(lp) - LP_HDR_SIZE - 1)) bad++;
            if (packed) {
                unsigned char *back = lpUnpack(out, packed, lpBytes(lp));
                if (memcmp(back, lp, lpBytes(lp)) != 0) bad++;
                lpFree(back);
                /* The reader sees what lpNext()/lpGetValue() see. */
                lpPackedReader r;
                lpPackedReaderInit(&r, out, packed);
                for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) {
                    const unsigned char *s;
                    unsigned int slen, elen = 0;
                    long long v, ev = 0;
                    unsigned char *es = lpGetValue(p, &elen, &ev);
                    if (!lpPackedNext(&r, &s, &slen, &v) || (s == NULL) != (es == NULL) ||
                        (s ? slen != elen || memcmp(s, es, slen) != 0 : v != ev))
                        bad++;
                }
            }
            zfree(out);
            lpFree(lp);
        }
        ASSERT_EQ_LL(bad, 0);
    }

    TEST("listpack: randomized operations against an array model") {
        enum { MAXN = 400 };
        char *model[MAXN];
        int n = 0;
        unsigned char *lp = lpNew(0);
        srand(1234);
        for (int step = 0; step < 20000; step++) {
            int op = rand() % 6;
            char val[64];
            int kind = rand() % 3;
            if (kind == 0)
                snprintf(val, sizeof(val), "%d", rand() % 100000 - 50000);
            else if (kind == 1)
                snprintf(val, sizeof(val), "%lld", (long long)rand() * rand() * (rand() % 2 ? 1 : -1));
            else
                snprintf(val, sizeof(val), "s%.*s", rand() % 50, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz");
            if ((op <= 2 && n < MAXN) || n == 0) {
                int idx = n ? rand() % (n + 1) : 0;
                if (idx == n)
                    lp = lpAppend(lp, (unsigned char *)val, strlen(val));
                else
                    lp = lpInsertString(lp, (unsigned char *)val, strlen(val), lpSeek(lp, idx), LP_BEFORE, NULL);
                memmove(model + idx + 1, model + idx, sizeof(char *) * (n - idx));
                model[idx] = strdup(val);
                n++;
            } else if (op == 3) {
                int idx = rand() % n;
                unsigned char *p = lpSeek(lp, idx);
                lp = lpDelete(lp, p, NULL);
                free(model[idx]);
                memmove(model + idx, model + idx + 1, sizeof(char *) * (n - idx - 1));
                n--;
            } else {
                int idx = rand() % n;
                unsigned char *p = lpSeek(lp, -n + idx);
                lp = lpReplace(lp, &p, (unsigned char *)val, strlen(val));
                free(model[idx]);
                model[idx] = strdup(val);
            }
        }
        ASSERT_EQ_LL(lpLength(lp), n);
        ASSERT(lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
        int i = 0, bad = 0;
        for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p), i++)
            if (strcmp(lpText(p, b1, sizeof(b1)), model[i]) != 0) bad++;
        ASSERT_EQ_LL(bad, 0);
        for (i = 0; i < n; i++) free(model[i]);
        lpFree(lp);
    }

    return UT_END();
}
