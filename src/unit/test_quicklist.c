/* test_quicklist.c - unit tests for quicklist.c: the fill rule (count and
 * byte limits), push/pop at both ends, index lookup, iteration with
 * deletion in both directions, insert/replace splitting full nodes,
 * ranges, and a randomized run against an array model. */
#include <stdlib.h>

#include "listpack.h"
#include "quicklist.h"
#include "unittest.h"
#include "zmalloc.h"

static const char *entryText(quicklistEntry *e, char *buf, size_t bufsz) {
    if (e->value)
        snprintf(buf, bufsz, "%.*s", (int)e->sz, e->value);
    else
        snprintf(buf, bufsz, "%lld", e->longval);
    return buf;
}

/* The whole list joined with spaces. */
static void qlJoin(quicklist *ql, char *out, size_t outsz) {
    quicklistIter *it = quicklistGetIterator(ql, AL_START_HEAD);
    quicklistEntry e;
    char b[256];
    out[0] = '\0';
    while (quicklistNext(it, &e)) {
        if (out[0]) strncat(out, " ", outsz - strlen(out) - 1);
        strncat(out, entryText(&e, b, sizeof(b)), outsz - strlen(out) - 1);
    }
    quicklistReleaseIterator(it);
}

static void pushStr(quicklist *ql, const char *s, int where) { quicklistPush(ql, s, strlen(s), where); }

int main(int argc, char **argv) {
    UT_BEGIN(argv[0]);
    char buf[4096], b[256];

    TEST("quicklist: node limits for positive and negative fill") {
        size_t sz;
        unsigned long cnt;
        quicklistNodeLimit(-2, &sz, &cnt);
        ASSERT_EQ_LL(sz, 8192);
        quicklistNodeLimit(-9, &sz, &cnt);
        ASSERT_EQ_LL(sz, 65536);
        quicklistNodeLimit(0, &sz, &cnt);
        ASSERT_EQ_LL(cnt, 1);
        quicklistNodeLimit(5, &sz, &cnt);
        ASSERT(cnt == 5 && sz == QUICKLIST_SIZE_SAFETY_LIMIT);
        ASSERT(quicklistNodeExceedsLimit(4, 100, 5));
        ASSERT(!quicklistNodeExceedsLimit(4, 100, 4));
        ASSERT(quicklistNodeExceedsLimit(-1, 4097, 2));
    }

    TEST("quicklist: push both ends, count fill splits nodes") {
        quicklist *ql = quicklistCreate(3, 0);
        for (int i = 0; i < 10; i++) {
            snprintf(b, sizeof(b), "%d", i);
            pushStr(ql, b, QUICKLIST_TAIL);
        }
        pushStr(ql, "h", QUICKLIST_HEAD);
        ASSERT_EQ_LL(quicklistCount(ql), 11);
        ASSERT_EQ_LL(ql->len, 5); /* h | 0 1 2 | 3 4 5 | 6 7 8 | 9 */
        ASSERT(quicklistCheck(ql));
        qlJoin(ql, buf, sizeof(buf));
        ASSERT_STREQ(buf, "h 0 1 2 3 4 5 6 7 8 9");
        quicklistRelease(ql);
    }

    TEST("quicklist: byte fill, big element gets its own node") {
        quicklist *ql = quicklistCreate(-1, 0);
        char big[5000];
        memset(big, 'z', sizeof(big));
        for (int i = 0; i < 200; i++) pushStr(ql, "abcdefghijklmnopqrstuvwxyz", QUICKLIST_TAIL);
        ASSERT(ql->len >= 2);
        quicklistPush(ql, big, sizeof(big), QUICKLIST_TAIL);
        ASSERT_EQ_LL(ql->tail->count, 1);
        ASSERT(quicklistCheck(ql));
        quicklistRelease(ql);
    }

    TEST("quicklist: pop, index, replace at index") {
        quicklist *ql = quicklistCreate(2, 0);
        const char *v[] = {"a", "b", "100", "d", "e"};
        for (int i = 0; i < 5; i++) pushStr(ql, v[i], QUICKLIST_TAIL);
        quicklistEntry e;
        ASSERT(quicklistGetEntryAtIdx(ql, 2, &e) && e.value == NULL && e.longval == 100);
        ASSERT(quicklistGetEntryAtIdx(ql, -1, &e));
        ASSERT_STREQ(entryText(&e, b, sizeof(b)), "e");
        ASSERT(!quicklistGetEntryAtIdx(ql, 5, &e) && !quicklistGetEntryAtIdx(ql, -6, &e));
        ASSERT(quicklistReplaceAtIndex(ql, 1, "BB", 2));
        ASSERT(!quicklistReplaceAtIndex(ql, 9, "x", 1));
        unsigned char *data;
        size_t sz;
        long long lv;
        ASSERT(quicklistPop(ql, QUICKLIST_HEAD, &data, &sz, &lv) && sz == 1 && data[0] == 'a');
        zfree(data);
        ASSERT(quicklistPop(ql, QUICKLIST_TAIL, &data, &sz, &lv) && sz == 1 && data[0] == 'e');
        zfree(data);
        qlJoin(ql, buf, sizeof(buf));
        ASSERT_STREQ(buf, "BB 100 d");
        ASSERT(quicklistCheck(ql));
        while (quicklistPop(ql, QUICKLIST_HEAD, &data, &sz, &lv)) zfree(data);
        ASSERT(ql->head == NULL && ql->tail == NULL && ql->len == 0 && ql->count == 0);
        quicklistRelease(ql);
    }

    TEST("quicklist: delete while iterating, both directions") {
        for (int dir = 0; dir < 2; dir++) {
            quicklist *ql = quicklistCreate(3, 0);
            for (int i = 0; i < 20; i++) {
                snprintf(b, sizeof(b), "%d", i);
                pushStr(ql, b, QUICKLIST_TAIL);
            }
            quicklistIter *it = quicklistGetIterator(ql, dir ? AL_START_TAIL : AL_START_HEAD);
            quicklistEntry e;
            int seen = 0;
            while (quicklistNext(it, &e)) {
                seen++;
                if (e.longval % 3 != 0) quicklistDelEntry(it, &e);
            }
            quicklistReleaseIterator(it);
            ASSERT_EQ_LL(seen, 20);
            qlJoin(ql, buf, sizeof(buf));
            ASSERT_STREQ(buf, "0 3 6 9 12 15 18");
            ASSERT(quicklistCheck(ql));
            quicklistRelease(ql);
        }
    }

    TEST("quicklist: iterator at index, replace entry, insert into full nodes") {
        quicklist *ql = quicklistCreate(3, 0);
        for (int i = 0; i < 9; i++) {
            snprintf(b, sizeof(b), "%d", i);
            pushStr(ql, b, QUICKLIST_TAIL);
        }
        quicklistIter *it = quicklistGetIteratorAtIdx(ql, AL_START_TAIL, -4);
        quicklistEntry e;
        ASSERT(quicklistNext(it, &e) && e.longval == 5);
        quicklistReplaceEntry(it, &e, "five", 4);
        ASSERT(quicklistNext(it, &e) && e.longval == 4);
        quicklistReleaseIterator(it);
        ASSERT(quicklistGetIteratorAtIdx(ql, AL_START_HEAD, 9) == NULL);

        /* Middle of a full node, then both edges. */
        it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, 1);
        quicklistNext(it, &e);
        quicklistInsertAfter(it, &e, "m", 1);
        quicklistReleaseIterator(it);
        it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, 0);
        quicklistNext(it, &e);
        quicklistInsertBefore(it, &e, "first", 5);
        quicklistReleaseIterator(it);
        it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, -1);
        quicklistNext(it, &e);
        quicklistInsertAfter(it, &e, "last", 4);
        quicklistReleaseIterator(it);
        qlJoin(ql, buf, sizeof(buf));
        ASSERT_STREQ(buf, "first 0 1 m 2 3 4 five 6 7 8 last");
        ASSERT_EQ_LL(quicklistCount(ql), 12);
        ASSERT(quicklistCheck(ql));
        quicklistRelease(ql);
    }

    TEST("quicklist: delete ranges across nodes, dup, append listpack") {
        quicklist *ql = quicklistCreate(4, 0);
        for (int i = 0; i < 20; i++) {
            snprintf(b, sizeof(b), "%d", i);
            pushStr(ql, b, QUICKLIST_TAIL);
        }
        ASSERT(quicklistDelRange(ql, 2, 9)); /* removes 2..10 */
        ASSERT(quicklistDelRange(ql, -3, 100)); /* removes 17..19 */
        ASSERT(!quicklistDelRange(ql, 50, 1));
        qlJoin(ql, buf, sizeof(buf));
        ASSERT_STREQ(buf, "0 1 11 12 13 14 15 16");
        ASSERT(quicklistCheck(ql));
        quicklist *copy = quicklistDup(ql);
        quicklistRelease(ql);
        qlJoin(copy, buf, sizeof(buf));
        ASSERT_STREQ(buf, "0 1 11 12 13 14 15 16");
        unsigned char *lp = lpNew(0);
        for (int i = 0; i < 6; i++) lp = lpAppend(lp, (unsigned char *)"x", 1);
        quicklistAppendListpack(copy, lp);
        ASSERT_EQ_LL(quicklistCount(copy), 14);
        ASSERT(quicklistCheck(copy));
        ASSERT(quicklistMemUsage(copy) > 0);
        quicklistRelease(copy);
    }

    TEST("quicklist: randomized operations against an array model") {
        enum { MAXN = 600 };
        static char model[MAXN][24];
        int n = 0, bad = 0;
        srand(99);
        quicklist *ql = quicklistCreate(5, 0);
        for (int step = 0; step < 20000; step++) {
            int op = rand() % 8;
            char val[24];
            if (rand() % 2)
                snprintf(val, sizeof(val), "%d", rand() % 1000);
            else
                snprintf(val, sizeof(val), "v%d", rand() % 1000);
            if (n == 0 || (op < 3 && n < MAXN)) {
                int where = rand() % 2;
                pushStr(ql, val, where ? QUICKLIST_TAIL : QUICKLIST_HEAD);
                if (where) {
                    strcpy(model[n], val);
                } else {
                    memmove(model[1], model[0], sizeof(model[0]) * n);
                    strcpy(model[0], val);
                }
                n++;
            } else if (op == 3 && n < MAXN) {
                int idx = rand() % n, after = rand() % 2;
                quicklistIter *it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, idx);
                quicklistEntry e;
                quicklistNext(it, &e);
                if (after)
                    quicklistInsertAfter(it, &e, val, strlen(val));
                else
                    quicklistInsertBefore(it, &e, val, strlen(val));
                quicklistReleaseIterator(it);
                int at = idx + after;
                memmove(model[at + 1], model[at], sizeof(model[0]) * (n - at));
                strcpy(model[at], val);
                n++;
            } else if (op == 4) {
                int idx = rand() % n;
                quicklistReplaceAtIndex(ql, idx, val, strlen(val));
                strcpy(model[idx], val);
            } else if (op == 5) {
                int start = rand() % n, cnt = rand() % 5 + 1;
                if (cnt > n - start) cnt = n - start;
                quicklistDelRange(ql, start, cnt);
                memmove(model[start], model[start + cnt], sizeof(model[0]) * (n - start - cnt));
                n -= cnt;
            } else {
                unsigned char *data;
                size_t sz;
                long long lv;
                int where = rand() % 2;
                quicklistPop(ql, where ? QUICKLIST_TAIL : QUICKLIST_HEAD, &data, &sz, &lv);
                zfree(data);
                if (!where) memmove(model[0], model[1], sizeof(model[0]) * (n - 1));
                n--;
            }
            if (step % 1000 == 0 && !quicklistCheck(ql)) bad++;
        }
        ASSERT_EQ_LL(bad, 0);
        ASSERT_EQ_LL(quicklistCount(ql), n);
        quicklistIter *it = quicklistGetIterator(ql, AL_START_TAIL);
        quicklistEntry e;
        int i = n - 1;
        while (quicklistNext(it, &e)) {
            if (i < 0 || strcmp(entryText(&e, b, sizeof(b)), model[i]) != 0) bad++;
            i--;
        }
        quicklistReleaseIterator(it);
        ASSERT_EQ_LL(bad, 0);
        ASSERT_EQ_LL(i, -1);
        quicklistRelease(ql);
    }

    return UT_END();
}
