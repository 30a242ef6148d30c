/* test_sds.c - unit tests for sds.c: construction and header classes,
 * growth policy, in-place edits, split/join, quoting and sdssplitargs. */
#include <limits.h>
#include <stdlib.h>

#include "sds.h"
#include "unittest.h"
#include "zmalloc.h"

static int sdsType(sds s) { return s[-1] & SDS_TYPE_MASK; }

/* Checks that s is NUL-terminated at its length and that the capacity is
 * consistent with the allocation. */
static int sdsWellFormed(sds s) {
    if (s[sdslen(s)] != '\0') return 0;
    if (sdsalloc(s) < sdslen(s)) return 0;
    if (sdsType(s) != SDS_TYPE_5 && sdsAllocSize(s) > zmalloc_size(sdsAllocPtr(s))) return 0;
    return 1;
}

int main(int argc, char **argv) {
    UT_BEGIN(argv[0]);

    TEST("sds: create, length, header class by size") {
        sds s = sdsnew("foo");
        ASSERT_EQ_LL(sdslen(s), 3);
        ASSERT_STREQ(s, "foo");
        ASSERT_EQ_LL(sdsType(s), SDS_TYPE_5);
        ASSERT_EQ_LL(sdsavail(s), 0);
        ASSERT(sdsWellFormed(s));
        sdsfree(s);

        s = sdsempty();
        ASSERT_EQ_LL(sdslen(s), 0);
        ASSERT_EQ_LL(sdsType(s), SDS_TYPE_8); /* empty strings are for appending */
        sdsfree(s);

        size_t sizes[] = {31, 32, 255, 256, 65535, 65536};
        int types[] = {SDS_TYPE_5, SDS_TYPE_8, SDS_TYPE_8, SDS_TYPE_16, SDS_TYPE_16, SDS_TYPE_32};
        for (int i = 0; i < 6; i++) {
            s = sdsnewlen(NULL, sizes[i]);
            ASSERT_EQ_LL(sdslen(s), sizes[i]);
            ASSERT_EQ_LL(sdsType(s), types[i]);
            ASSERT(sdsWellFormed(s));
            size_t zeros = 0;
            for (size_t j = 0; j < sizes[i]; j++) zeros += s[j] == 0;
            ASSERT_EQ_LL(zeros, sizes[i]); /* NULL init zero-fills */
            sdsfree(s);
        }
        sdsfree(NULL);
    }

    TEST("sds: binary safety, sdsnewlen with SDS_NOINIT, sdstrynewlen") {
        sds s = sdsnewlen("a\0b", 3);
        ASSERT_EQ_LL(sdslen(s), 3);
        ASSERT(memcmp(s, "a\0b\0", 4) == 0);
        sdsfree(s);
        s = sdsnewlen(SDS_NOINIT, 10);
        ASSERT_EQ_LL(sdslen(s), 10);
        ASSERT(s[10] == '\0');
        sdsfree(s);
        s = sdstrynewlen("xyz", 3);
        ASSERT(s != NULL && sdslen(s) == 3);
        sdsfree(s);
        s = sdsnew(NULL);
        ASSERT_EQ_LL(sdslen(s), 0);
        sdsfree(s);
    }

    TEST("sds: cat, cpy, dup, catsds") {
        sds s = sdsnew("fo");
        s = sdscat(s, "o");
        ASSERT_STREQ(s, "foo");
        ASSERT(sdsType(s) != SDS_TYPE_5); /* growing leaves type 5 */
        s = sdscpy(s, "a");
        ASSERT_EQ_LL(sdslen(s), 1);
        ASSERT_STREQ(s, "a");
        s = sdscpy(s, "xyzxxxxxxxxxxyyyyyyyyyykkkkkkkkkk");
        ASSERT_EQ_LL(sdslen(s), 33);
        ASSERT_STREQ(s, "xyzxxxxxxxxxxyyyyyyyyyykkkkkkkkkk");
        sds d = sdsdup(s);
        ASSERT(d != s && sdscmp(d, s) == 0);
        d = sdscatsds(d, s);
        ASSERT_EQ_LL(sdslen(d), 66);
        sdsfree(d);
        sdsfree(s);

        /* sdscpylen into a type-5 string longer than it. */
        s = sdsnew("ab");
        s = sdscpylen(s, "0123456789", 10);
        ASSERT_STREQ(s, "0123456789");
        ASSERT(sdsWellFormed(s));
        sdsfree(s);
    }

    TEST("sds: growth policy and class transitions") {
        sds s = sdsempty();
        s = sdsMakeRoomFor(s, 100);
        ASSERT(sdsavail(s) >= 100);
        ASSERT(sdsavail(s) >= 200); /* greedy: doubles */
        sdsfree(s);

        s = sdsempty();
        s = sdsMakeRoomForNonGreedy(s, 100);
        ASSERT(sdsavail(s) >= 100 && sdsavail(s) < 200);
        sdsfree(s);

        /* Above 1MB we add 1MB rather than doubling. */
        s = sdsnewlen(NULL, 2 * 1024 * 1024);
        size_t need = sdsavail(s) + 1; /* more than the allocator's rounding */
        s = sdsMakeRoomFor(s, need);
        ASSERT(sdsalloc(s) >= 3 * 1024 * 1024 + need);
        ASSERT(sdsalloc(s) < 4 * 1024 * 1024);
        ASSERT(sdsWellFormed(s));
        sdsfree(s);

        /* Append byte by byte across every class boundary. */
        s = sdsnew("x");
        int saw[5] = {0};
        for (int i = 1; i < 70000; i++) {
            char c = (char)('a' + i % 26);
            s = sdscatlen(s, &c, 1);
            saw[sdsType(s)] = 1;
        }
        ASSERT_EQ_LL(sdslen(s), 70000);
        ASSERT(saw[SDS_TYPE_8] && saw[SDS_TYPE_16] && saw[SDS_TYPE_32]);
        ASSERT(s[0] == 'x' && s[1] == 'b' && s[69999] == (char)('a' + 69999 % 26));
        ASSERT(sdsWellFormed(s));
        sdsfree(s);
    }

    TEST("sds: sdsIncrLen with writes into spare room") {
        sds s = sdsnew("0");
        s = sdsMakeRoomFor(s, 10);
        memcpy(s + 1, "123", 3);
        sdsIncrLen(s, 3);
        ASSERT_STREQ(s, "0123");
        sdsIncrLen(s, -2);
        ASSERT_STREQ(s, "01");
        sdsfree(s);
    }

    TEST("sds: sdsRemoveFreeSpace and sdsResize") {
        sds s = sdsnew("hello");
        s = sdsMakeRoomFor(s, 1000);
        ASSERT(sdsavail(s) >= 1000);
        s = sdsRemoveFreeSpace(s, 0);
        ASSERT_STREQ(s, "hello");
        ASSERT_EQ_LL(sdsType(s), SDS_TYPE_5); /* no regrow expected: tiny header */
        ASSERT_EQ_LL(sdsavail(s), 0);
        sdsfree(s);

        s = sdsnew("hello");
        s = sdsMakeRoomFor(s, 1000);
        s = sdsRemoveFreeSpace(s, 1);
        ASSERT_EQ_LL(sdsType(s), SDS_TYPE_8);
        ASSERT(sdsavail(s) < 16);
        ASSERT(sdsWellFormed(s));
        sdsfree(s);

        /* Truncating resize. */
        s = sdsnewlen(NULL, 70000);
        memset(s, 'z', 70000);
        s = sdsResize(s, 300, 1);
        ASSERT_EQ_LL(sdslen(s), 300);
        ASSERT(s[299] == 'z' && s[300] == '\0');
        ASSERT(sdsalloc(s) >= 300);
        ASSERT(sdsWellFormed(s));
        /* Growing resize keeps content. */
        s = sdsResize(s, 100000, 1);
        ASSERT_EQ_LL(sdslen(s), 300);
        ASSERT(sdsalloc(s) >= 100000);
        ASSERT(sdsWellFormed(s));
        /* Small, no regrow: type 5 needs len == size. */
        s = sdsResize(s, 20, 0);
        ASSERT_EQ_LL(sdslen(s), 20);
        ASSERT_EQ_LL(sdsType(s), SDS_TYPE_5);
        ASSERT(sdsWellFormed(s));
        sdsfree(s);
    }

    TEST("sds: removing free space that the allocator cannot give back keeps the block") {
        /* 1024 bytes in a block with spare room that is still the size
         * class a 1024-byte string needs: nothing to shrink. */
        sds s = sdsnewlen(NULL, 1024);
        memset(s, 'v', 1024);
        size_t before = zmalloc_size(sdsAllocPtr(s));
        ASSERT(zmalloc_good_size((size_t)(s - (char *)sdsAllocPtr(s)) + 1024 + 1) == before);
        ASSERT(!sdsCanShrink(s));
        sds t = sdsRemoveFreeSpace(s, 0);
        ASSERT(t == s);
        ASSERT_EQ_LL(zmalloc_size(sdsAllocPtr(t)), before);
        ASSERT_EQ_LL(sdslen(t), 1024);
        ASSERT(t[1023] == 'v' && t[1024] == '\0');
        ASSERT(sdsWellFormed(t));
        /* Truncating within the same class keeps the block too. */
        t = sdsResize(t, 1000, 1);
        ASSERT_EQ_LL(sdslen(t), 1000);
        ASSERT(t[1000] == '\0');
        ASSERT(sdsWellFormed(t));
        /* Much spare room is still given back. */
        t = sdsMakeRoomFor(t, 50000);
        ASSERT(zmalloc_size(sdsAllocPtr(t)) > 50000);
        ASSERT(sdsCanShrink(t));
        t = sdsRemoveFreeSpace(t, 0);
        ASSERT(zmalloc_size(sdsAllocPtr(t)) < 2048);
        ASSERT_EQ_LL(sdslen(t), 1000);
        ASSERT(sdsWellFormed(t));
        sdsfree(t);
        /* A header that would shrink: maybe. */
        t = sdsMakeRoomFor(sdsnewlen("x", 1), 300);
        ASSERT(sdsCanShrink(t));
        sdsfree(t);
        t = sdsnewlen("abc", 3); /* type 5: no spare room */
        ASSERT(!sdsCanShrink(t));
        sdsfree(t);
    }

    TEST("sds: sdsAllocSize and sdsAllocPtr") {
        sds s = sdsnew("abc");
        ASSERT(sdsAllocPtr(s) == (void *)(s - 1));
        ASSERT(sdsAllocSize(s) >= 5);
        sdsfree(s);
        s = sdsnewlen(NULL, 300);
        ASSERT(sdsAllocSize(s) >= 300 + 5 + 1);
        ASSERT(sdsAllocSize(s) <= zmalloc_size(sdsAllocPtr(s)));
        sdsfree(s);
    }

    TEST("sds: sdsgrowzero") {
        sds s = sdsnew("ab");
        s = sdsgrowzero(s, 10);
        ASSERT_EQ_LL(sdslen(s), 10);
        ASSERT(s[0] == 'a' && s[2] == 0 && s[9] == 0 && s[10] == 0);
        s = sdsgrowzero(s, 5); /* no-op */
        ASSERT_EQ_LL(sdslen(s), 10);
        sdsfree(s);
    }

    TEST("sds: printf and catfmt") {
        sds s = sdscatprintf(sdsempty(), "%d", 123);
        ASSERT_STREQ(s, "123");
        sdsfree(s);
        s = sdscatprintf(sdsnew("a"), "%s%s", "b", "c");
        ASSERT_STREQ(s, "abc");
        sdsfree(s);

        /* Output larger than the stack buffer. */
        char big[3000];
        memset(big, 'q', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        s = sdscatprintf(sdsnew("<"), "%s>", big);
        ASSERT_EQ_LL(sdslen(s), 3001);
        ASSERT(s[0] == '<' && s[3000] == '>' && s[3001] == '\0');
        sdsfree(s);

        sds arg = sdsnew("S!");
        s = sdscatfmt(sdsempty(), "%s|%S|%i|%I|%u|%U|%%|%", "str", arg, INT_MIN, LLONG_MIN, UINT_MAX, ULLONG_MAX);
        ASSERT_STREQ(s, "str|S!|-2147483648|-9223372036854775808|4294967295|18446744073709551615|%|");
        sdsfree(s);
        s = sdscatfmt(sdsnew("--"), "Hello %s World %I,%I--", "Hi!", LLONG_MIN, LLONG_MAX);
        ASSERT_STREQ(s, "--Hello Hi! World -9223372036854775808,9223372036854775807--");
        sdsfree(s);
        s = sdscatfmt(sdsempty(), "%i%i", 0, -5);
        ASSERT_STREQ(s, "0-5");
        sdsfree(s);
        sdsfree(arg);
    }

    TEST("sds: fromlonglong") {
        sds s = sdsfromlonglong(LLONG_MIN);
        ASSERT_STREQ(s, "-9223372036854775808");
        sdsfree(s);
        s = sdsfromlonglong(0);
        ASSERT_STREQ(s, "0");
        sdsfree(s);
        s = sdsfromlonglong(LLONG_MAX);
        ASSERT_STREQ(s, "9223372036854775807");
        sdsfree(s);
    }

    TEST("sds: trim") {
        sds s = sdsnew(" x ");
        sdstrim(s, " x");
        ASSERT_EQ_LL(sdslen(s), 0);
        sdsfree(s);
        s = sdsnew(" x ");
        sdstrim(s, " ");
        ASSERT_STREQ(s, "x");
        sdsfree(s);
        s = sdsnew("xxciaoyyy");
        sdstrim(s, "xy");
        ASSERT_STREQ(s, "ciao");
        sdsfree(s);
        s = sdsnew("");
        sdstrim(s, "a");
        ASSERT_STREQ(s, "");
        sdsfree(s);
        s = sdsnew("\r\n abc \t\n");
        sdstrim(s, " \r\n\t");
        ASSERT_STREQ(s, "abc");
        sdsfree(s);
    }

    TEST("sds: range and substr") {
        const struct {
            ssize_t start, end;
            const char *want;
        } cases[] = {
            {1, 1, "i"},   {1, -1, "iao"}, {-2, -1, "ao"}, {2, 1, ""},  {1, 100, "iao"},
            {100, 100, ""}, {0, 0, "c"},   {-100, 1, "ci"}, {0, -10, "c"}, {4, 6, ""},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            sds s = sdsnew("ciao");
            sdsrange(s, cases[i].start, cases[i].end);
            ASSERT_STREQ(s, cases[i].want);
            ASSERT_EQ_LL(sdslen(s), strlen(cases[i].want));
            sdsfree(s);
        }
        sds s = sdsempty();
        sdsrange(s, 0, 10);
        ASSERT_EQ_LL(sdslen(s), 0);
        sdsfree(s);

        s = sdsnew("hello world");
        sdssubstr(s, 6, 100);
        ASSERT_STREQ(s, "world");
        sdssubstr(s, 1, 3);
        ASSERT_STREQ(s, "orl");
        sdssubstr(s, 10, 1);
        ASSERT_STREQ(s, "");
        sdsfree(s);
    }

    TEST("sds: cmp, clear, updatelen, tolower/upper, mapchars") {
        sds a = sdsnew("foo"), b = sdsnew("foa");
        ASSERT(sdscmp(a, b) > 0);
        sdscpy(b, "bar");
        ASSERT(sdscmp(a, b) > 0);
        b = sdscpy(b, "foo");
        ASSERT(sdscmp(a, b) == 0);
        b = sdscat(b, "x");
        ASSERT(sdscmp(a, b) < 0 && sdscmp(b, a) > 0);
        b = sdscpylen(b, "a\0", 2);
        sds c = sdsnewlen("a\0", 2);
        ASSERT(sdscmp(b, c) == 0);
        sdsfree(c);

        sdsclear(a);
        ASSERT(sdslen(a) == 0 && a[0] == 0);
        a = sdscat(a, "abcdef");
        a[2] = '\0';
        sdsupdatelen(a);
        ASSERT_EQ_LL(sdslen(a), 2);

        a = sdscpy(a, "MiXeD 1!");
        sdstolower(a);
        ASSERT_STREQ(a, "mixed 1!");
        sdstoupper(a);
        ASSERT_STREQ(a, "MIXED 1!");
        sdsmapchars(a, "XI ", "xi_", 3);
        ASSERT_STREQ(a, "MixED_1!");
        sdsfree(a);
        sdsfree(b);
    }

    TEST("sds: splitlen") {
        int n;
        sds *t = sdssplitlen("a,b,,c", 6, ",", 1, &n);
        ASSERT_EQ_LL(n, 4);
        if (n == 4) {
            ASSERT_STREQ(t[0], "a");
            ASSERT_STREQ(t[1], "b");
            ASSERT_STREQ(t[2], "");
            ASSERT_STREQ(t[3], "c");
        }
        sdsfreesplitres(t, n);

        t = sdssplitlen("foo_-_bar_-_", 12, "_-_", 3, &n);
        ASSERT_EQ_LL(n, 3);
        if (n == 3) ASSERT(!strcmp(t[0], "foo") && !strcmp(t[1], "bar") && !strcmp(t[2], ""));
        sdsfreesplitres(t, n);

        t = sdssplitlen("", 0, ",", 1, &n);
        ASSERT(t != NULL && n == 0);
        sdsfreesplitres(t, n);

        t = sdssplitlen("abc", 3, "", 0, &n);
        ASSERT(t == NULL && n == 0);

        t = sdssplitlen("abc", 3, "abcd", 4, &n); /* separator longer than input */
        ASSERT(n == 1 && !strcmp(t[0], "abc"));
        sdsfreesplitres(t, n);

        /* Many tokens: exercises array growth. */
        char many[2001];
        for (int i = 0; i < 2000; i++) many[i] = (i % 2) ? ',' : 'x';
        many[2000] = 0;
        t = sdssplitlen(many, 2000, ",", 1, &n);
        ASSERT_EQ_LL(n, 1001);
        ASSERT(sdslen(t[1000]) == 0 && !strcmp(t[999], "x"));
        sdsfreesplitres(t, n);
    }

    TEST("sds: join") {
        char *argv_[] = {"a", "b", "c"};
        sds j = sdsjoin(argv_, 3, ", ");
        ASSERT_STREQ(j, "a, b, c");
        sdsfree(j);
        j = sdsjoin(argv_, 0, ",");
        ASSERT_STREQ(j, "");
        sdsfree(j);
        sds parts[2] = {sdsnew("x"), sdsnewlen("y\0z", 3)};
        j = sdsjoinsds(parts, 2, "\0", 1);
        ASSERT_MEMEQ(j, sdslen(j), "x\0y\0z");
        sdsfree(j);
        sdsfree(parts[0]);
        sdsfree(parts[1]);
    }

    TEST("sds: catrepr and needsrepr") {
        sds r = sdscatrepr(sdsempty(), "\a\n\0foo\r\"\\\x01\xff", 11);
        ASSERT_STREQ(r, "\"\\a\\n\\x00foo\\r\\\"\\\\\\x01\\xff\"");
        sdsfree(r);
        r = sdscatrepr(sdsnew("p="), "", 0);
        ASSERT_STREQ(r, "p=\"\"");
        sdsfree(r);

        const char *plain[] = {"abc", "a-b_c.d/e", "12345"};
        for (int i = 0; i < 3; i++) {
            sds s = sdsnew(plain[i]);
            ASSERT(!sdsneedsrepr(s));
            sdsfree(s);
        }
        const char *quote[] = {"", "a b", "a\"b", "it's", "a\\b", "tab\t", "nl\n"};
        for (int i = 0; i < 7; i++) {
            sds s = sdsnew(quote[i]);
            ASSERT(sdsneedsrepr(s));
            sdsfree(s);
        }
        sds bin = sdsnewlen("a\0b", 3);
        ASSERT(sdsneedsrepr(bin));
        sdsfree(bin);
    }

    TEST("sds: splitargs") {
        int argc;
        sds *v = sdssplitargs("  set  key \"va lue\" 'single q' \"\\x41\\x4a\\n\\\\\\\"\" 'it\\'s' end ", &argc);
        ASSERT_EQ_LL(argc, 7);
        if (argc == 7) {
            ASSERT_STREQ(v[0], "set");
            ASSERT_STREQ(v[1], "key");
            ASSERT_STREQ(v[2], "va lue");
            ASSERT_STREQ(v[3], "single q");
            ASSERT_STREQ(v[4], "AJ\n\\\"");
            ASSERT_STREQ(v[5], "it's");
            ASSERT_STREQ(v[6], "end");
        }
        sdsfreesplitres(v, argc);

        v = sdssplitargs("", &argc);
        ASSERT(v != NULL && argc == 0);
        sdsfreesplitres(v, argc);
        v = sdssplitargs("   \t\n ", &argc);
        ASSERT(v != NULL && argc == 0);
        sdsfreesplitres(v, argc);

        /* Empty quoted argument and embedded NUL via \x00. */
        v = sdssplitargs("a \"\" \"x\\x00y\"", &argc);
        ASSERT_EQ_LL(argc, 3);
        if (argc == 3) {
            ASSERT_EQ_LL(sdslen(v[1]), 0);
            ASSERT_MEMEQ(v[2], sdslen(v[2]), "x\0y");
        }
        sdsfreesplitres(v, argc);

        /* A quote opening mid-token joins onto it. */
        v = sdssplitargs("foo\"bar baz\"", &argc);
        ASSERT(argc == 1 && !strcmp(v[0], "foobar baz"));
        sdsfreesplitres(v, argc);

        /* Invalid \x sequences are taken literally. */
        v = sdssplitargs("\"\\xzz\"", &argc);
        ASSERT(argc == 1 && !strcmp(v[0], "xzz"));
        sdsfreesplitres(v, argc);

        const char *bad[] = {"\"unterminated", "'unterminated", "\"closed\"glued", "'closed'glued", "ok \"x\\"};
        for (int i = 0; i < 5; i++) {
            v = sdssplitargs(bad[i], &argc);
            ASSERT(v == NULL && argc == 0);
        }

        /* Round trip: anything sdscatrepr writes, sdssplitargs reads back. */
        char raw[256];
        for (int i = 0; i < 256; i++) raw[i] = (char)i;
        sds line = sdscatrepr(sdsnew("key "), raw, sizeof(raw));
        v = sdssplitargs(line, &argc);
        ASSERT_EQ_LL(argc, 2);
        if (argc == 2) ASSERT(sdslen(v[1]) == 256 && memcmp(v[1], raw, 256) == 0);
        sdsfreesplitres(v, argc);
        sdsfree(line);
    }

    TEST("sds: strings built inside a caller's buffer") {
        char buf[400];
        size_t lens[] = {0, 1, 31, 32, 255, 256, 300};
        for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
            char src[300];
            memset(src, 'a' + (int)j, lens[j]);
            size_t need = sdsEmbeddedSize(lens[j]);
            ASSERT(need <= sizeof(buf));
            sds s = sdsnewInBuffer(buf, src, lens[j]);
            ASSERT(s > buf && s + lens[j] + 1 == buf + need); /* header + bytes + NUL fill it exactly */
            ASSERT_EQ_LL(sdslen(s), lens[j]);
            ASSERT_EQ_LL(sdsavail(s), 0);
            ASSERT(memcmp(s, src, lens[j]) == 0 && s[lens[j]] == '\0');
        }
    }

    TEST("sds: temporary copies stay in their struct when short, go to the heap when long") {
        char src[200];
        memset(src, 'x', sizeof(src));
        size_t before = zmalloc_used_memory();
        sdsTemp t;
        sds s = sdsTempInit(&t, src, 40);
        ASSERT(!t.on_heap && s > t.buf && s < t.buf + sizeof(t.buf));
        ASSERT_EQ_LL(zmalloc_used_memory(), before);
        ASSERT_EQ_LL(sdslen(s), 40);
        ASSERT(memcmp(s, src, 40) == 0 && s[40] == '\0');
        sdsTempRelease(&t);
        s = sdsTempInit(&t, src, sizeof(src));
        ASSERT(t.on_heap && zmalloc_used_memory() > before);
        ASSERT_EQ_LL(sdslen(s), sizeof(src));
        sdsTempRelease(&t);
        ASSERT_EQ_LL(zmalloc_used_memory(), before);
    }

    return UT_END();
}
