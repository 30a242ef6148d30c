/* test_quicklist.c - unit tests for quicklist.c: the fill rule (count and
 * byte limits), push/pop at both ends, index lookup, iteration with
 * deletion in both directions, insert/replace splitting full nodes,
 * ranges, a randomized run against an array model, and compression
 * (list-compress-depth 0..3): which nodes get compressed, memory saved,
 * small or incompressible nodes left plain, and a randomized run of every
 * operation per depth and fill form against an array model. */
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

/* 1 if both lists hold the same elements (up to 1 MB of text). */
static int qlSameElements(quicklist *a, quicklist *b) {
    char *x = zmalloc(1 << 20), *y = zmalloc(1 << 20);
    qlJoin(a, x, 1 << 20);
    qlJoin(b, y, 1 << 20);
    int same = strcmp(x, y) == 0;
    zfree(x);
    zfree(y);
    return same;
}

/* What quicklistVisitRange() handed out, as text. */
typedef struct visitedText {
    unsigned long n;
    char text[400][64];
} visitedText;

static void collectVisited(void *ctx, const unsigned char *value, size_t sz, long long longval) {
    visitedText *v = ctx;
    if (v->n >= 400) return;
    if (value)
        snprintf(v->text[v->n], sizeof(v->text[0]), "%.*s", (int)sz, value);
    else
        snprintf(v->text[v->n], sizeof(v->text[0]), "%lld", longval);
    v->n++;
}

static void pushStr(quicklist *ql, const char *s, int where) { quicklistPush(ql, s, strlen(s), where); }

/* The randomized tests apply each operation to the quicklist and to an
 * array model (one string of up to MODEL_VLEN - 1 bytes per element, *n
 * elements) at once. */
#define MODEL_VLEN 48

static void modelPush(quicklist *ql, char (*model)[MODEL_VLEN], int *n, const char *val, int tail) {
    pushStr(ql, val, tail ? QUICKLIST_TAIL : QUICKLIST_HEAD);
    if (!tail) memmove(model[1], model[0], sizeof(model[0]) * *n);
    strcpy(model[tail ? *n : 0], val);
    (*n)++;
}

/* Inserts val before (after = 0) or after element idx, via an iterator. */
static void modelInsert(quicklist *ql, char (*model)[MODEL_VLEN], int *n, int idx, int after, const char *val) {
    quicklistIter *it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, idx);
    quicklistEntry e;
    quicklistNext(it, &e);
    if (after)
        quicklistInsertAfter(it, &e, val, strlen(val));
    else
        quicklistInsertBefore(it, &e, val, strlen(val));
    quicklistReleaseIterator(it);
    int at = idx + after;
    memmove(model[at + 1], model[at], sizeof(model[0]) * (*n - at));
    strcpy(model[at], val);
    (*n)++;
}

static void modelReplace(quicklist *ql, char (*model)[MODEL_VLEN], int idx, const char *val) {
    quicklistReplaceAtIndex(ql, idx, val, strlen(val));
    strcpy(model[idx], val);
}

static void modelDelRange(quicklist *ql, char (*model)[MODEL_VLEN], int *n, int start, int cnt) {
    quicklistDelRange(ql, start, cnt);
    memmove(model[start], model[start + cnt], sizeof(model[0]) * (*n - start - cnt));
    *n -= cnt;
}

static void modelPop(quicklist *ql, char (*model)[MODEL_VLEN], int *n, int tail) {
    unsigned char *data;
    size_t sz;
    long long lv;
    quicklistPop(ql, tail ? QUICKLIST_TAIL : QUICKLIST_HEAD, &data, &sz, &lv);
    zfree(data);
    if (!tail) memmove(model[0], model[1], sizeof(model[0]) * (*n - 1));
    (*n)--;
}


/* The element at idx as text (read through an iterator), or NULL if idx
 * is out of range; *isint says whether the listpack stored an integer. */
static const char *textAt(quicklist *ql, long idx, char *out, size_t outsz, int *isint) {
    quicklistIter *it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, idx);
    if (!it) return NULL;
    quicklistEntry e;
    quicklistNext(it, &e);
    *isint = e.value == NULL;
    entryText(&e, out, outsz);
    quicklistReleaseIterator(it);
    return out;
}

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
        int isint;
        ASSERT(textAt(ql, 2, b, sizeof(b), &isint) && isint && !strcmp(b, "100"));
        ASSERT(textAt(ql, -1, b, sizeof(b), &isint) && !isint);
        ASSERT_STREQ(b, "e");
        ASSERT(!textAt(ql, 5, b, sizeof(b), &isint) && !textAt(ql, -6, b, sizeof(b), &isint));
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
        static char model[MAXN][MODEL_VLEN];
        int n = 0, bad = 0;
        srand(99);
        quicklist *ql = quicklistCreate(5, 0);
        for (int step = 0; step < 20000; step++) {
            int op = rand() % 8;
            char val[MODEL_VLEN];
            if (rand() % 2)
                snprintf(val, sizeof(val), "%d", rand() % 1000);
            else
                snprintf(val, sizeof(val), "v%d", rand() % 1000);
            if (n == 0 || (op < 3 && n < MAXN)) {
                modelPush(ql, model, &n, val, rand() % 2);
            } else if (op == 3 && n < MAXN) {
                int idx = rand() % n, after = rand() % 2;
                modelInsert(ql, model, &n, idx, after, val);
            } else if (op == 4) {
                modelReplace(ql, model, rand() % n, val);
            } else if (op == 5) {
                int start = rand() % n, cnt = rand() % 5 + 1;
                if (cnt > n - start) cnt = n - start;
                modelDelRange(ql, model, &n, start, cnt);
            } else {
                modelPop(ql, model, &n, rand() % 2);
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

    TEST("quicklist: compress depth 1 compresses interior nodes only") {
        quicklist *plain = quicklistCreate(-2, 0), *ql = quicklistCreate(-2, 1);
        for (int i = 0; i < 5000; i++) {
            snprintf(b, sizeof(b), "element-%06d-the-same-text-again-and-again", i);
            pushStr(plain, b, QUICKLIST_TAIL);
            pushStr(ql, b, QUICKLIST_TAIL);
        }
        ASSERT(ql->len > 4 && ql->len == plain->len);
        ASSERT_EQ_LL(quicklistNodesAtRest(ql, QUICKLIST_BLOB_LZF), ql->len - 2);
        ASSERT_EQ_LL(quicklistNodesAtRest(plain, QUICKLIST_BLOB_LZF), 0);
        ASSERT_EQ_LL(quicklistNodesAtRest(plain, QUICKLIST_BLOB_PACKED), plain->len - 2);
        ASSERT(ql->head->lp && ql->tail->lp);
        ASSERT(quicklistCheck(ql));
        /* Compressed nodes take well under half the memory here. */
        ASSERT(quicklistMemUsage(ql) * 2 < quicklistMemUsage(plain));
        /* Reading through an iterator gives back the same data and leaves
         * the layout as it was. */
        quicklistIter *it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, 2500);
        quicklistEntry e;
        ASSERT(quicklistNext(it, &e));
        ASSERT_STREQ(entryText(&e, b, sizeof(b)), "element-002500-the-same-text-again-and-again");
        quicklistReleaseIterator(it);
        ASSERT_EQ_LL(quicklistNodesAtRest(ql, QUICKLIST_BLOB_LZF), ql->len - 2);
        /* A copy keeps the compressed form. */
        quicklist *copy = quicklistDup(ql);
        ASSERT(quicklistCheck(copy));
        ASSERT_EQ_LL(quicklistNodesAtRest(copy, QUICKLIST_BLOB_LZF), ql->len - 2);
        ASSERT(qlSameElements(plain, copy));
        /* Turning compression off on a live list decompresses it, and
         * packs the interior nodes instead. */
        quicklistSetOptions(copy, -2, 0);
        ASSERT_EQ_LL(quicklistNodesAtRest(copy, QUICKLIST_BLOB_LZF), 0);
        ASSERT_EQ_LL(quicklistNodesAtRest(copy, QUICKLIST_BLOB_PACKED), copy->len - 2);
        ASSERT(qlSameElements(plain, copy));
        ASSERT(quicklistCheck(copy));
        quicklistSetOptions(copy, -2, 2);
        ASSERT_EQ_LL(quicklistNodesAtRest(copy, QUICKLIST_BLOB_LZF), copy->len - 4);
        ASSERT(quicklistCheck(copy));
        quicklistRelease(copy);
        quicklistRelease(plain);
        quicklistRelease(ql);
    }

    TEST("quicklist: nodes that are small or do not shrink stay plain") {
        /* fill 1: one short element per node, under the minimum size. */
        quicklist *ql = quicklistCreate(1, 1);
        for (int i = 0; i < 10; i++) pushStr(ql, "x", QUICKLIST_TAIL);
        ASSERT_EQ_LL(ql->len, 10);
        ASSERT_EQ_LL(quicklistNodesAtRest(ql, QUICKLIST_BLOB_LZF), 0);
        ASSERT(quicklistCheck(ql));
        quicklistRelease(ql);
        /* Random bytes do not compress: nodes are packed instead. */
        ql = quicklistCreate(4, 1);
        srand(7);
        for (int i = 0; i < 40; i++) {
            char r[200];
            for (size_t k = 0; k < sizeof(r); k++) r[k] = (char)(rand() & 0xff);
            quicklistPushTail(ql, r, sizeof(r));
        }
        ASSERT_EQ_LL(ql->len, 10);
        ASSERT_EQ_LL(quicklistNodesAtRest(ql, QUICKLIST_BLOB_LZF), 0);
        ASSERT_EQ_LL(quicklistNodesAtRest(ql, QUICKLIST_BLOB_PACKED), 8);
        ASSERT(quicklistCheck(ql));
        quicklistRelease(ql);
        /* One 60-byte element per node: packing saves 7 bytes, too few. */
        ql = quicklistCreate(1, 0);
        memset(b, 'q', 60);
        for (int i = 0; i < 10; i++) quicklistPushTail(ql, b, 60);
        ASSERT_EQ_LL(quicklistNodesAtRest(ql, QUICKLIST_BLOB_PACKED), 0);
        ASSERT(ql->head->next->tried && ql->head->next->lp);
        ASSERT(quicklistCheck(ql));
        quicklistRelease(ql);
    }

    /* Without compression every interior node is packed: about 20% less
     * memory for short equal-length strings, the same elements read back
     * through every path, and reading leaves the nodes packed. */
    TEST("quicklist: depth 0 packs interior nodes") {
        quicklist *ql = quicklistCreate(-2, 0);
        size_t lp_bytes = 0;
        for (int i = 0; i < 20000; i++) {
            snprintf(b, sizeof(b), "m%07d", i);
            pushStr(ql, b, QUICKLIST_TAIL);
        }
        for (quicklistNode *n = ql->head; n; n = n->next) lp_bytes += n->sz;
        ASSERT(ql->len > 20);
        ASSERT_EQ_LL(quicklistNodesAtRest(ql, QUICKLIST_BLOB_PACKED), ql->len - 2);
        ASSERT(quicklistCheck(ql));
        /* 6.5 KB of packed data per 8 KB node, in a 7 KB allocation. */
        ASSERT(quicklistMemUsage(ql) * 100 < lp_bytes * 90);
        /* Index, iterator and range reads. */
        int isint;
        ASSERT(textAt(ql, 12345, b, sizeof(b), &isint));
        ASSERT_STREQ(b, "m0012345");
        visitedText got = {.n = 0};
        quicklistVisitRange(ql, 9998, 4, collectVisited, &got);
        ASSERT(got.n == 4 && strcmp(got.text[0], "m0009998") == 0 && strcmp(got.text[3], "m0010001") == 0);
        ASSERT_EQ_LL(quicklistNodesAtRest(ql, QUICKLIST_BLOB_PACKED), ql->len - 2);
        ASSERT(quicklistCheck(ql));
        /* A change repacks the node; popping to it makes it plain. */
        ASSERT(quicklistReplaceAtIndex(ql, 10000, "changed", 7));
        ASSERT(textAt(ql, 10000, b, sizeof(b), &isint));
        ASSERT_STREQ(b, "changed");
        ASSERT_EQ_LL(quicklistNodesAtRest(ql, QUICKLIST_BLOB_PACKED), ql->len - 2);
        ASSERT(quicklistCheck(ql));
        unsigned long first = ql->head->count;
        for (unsigned long i = 0; i <= first; i++) {
            unsigned char *data;
            size_t sz;
            long long lv;
            ASSERT(quicklistPop(ql, QUICKLIST_HEAD, &data, &sz, &lv));
            zfree(data);
        }
        ASSERT(quicklistCheck(ql));
        ASSERT(textAt(ql, 0, b, sizeof(b), &isint));
        snprintf(b + 32, 32, "m%07lu", first + 1);
        ASSERT_STREQ(b, b + 32);
        /* Integers, and a copy. */
        for (int i = 0; i < 3000; i++) {
            snprintf(b, sizeof(b), "%d", i * 997 - 1000000);
            pushStr(ql, b, QUICKLIST_TAIL);
        }
        quicklist *copy = quicklistDup(ql);
        ASSERT(quicklistCheck(copy));
        ASSERT(qlSameElements(ql, copy));
        quicklistRelease(copy);
        quicklistRelease(ql);
    }

    TEST("quicklist: replaces and inserts that split compressed nodes") {
        for (int depth = 1; depth <= 3; depth++) {
            quicklist *ql = quicklistCreate(-1, depth);
            for (int i = 0; i < 3000; i++) {
                snprintf(b, sizeof(b), "item-%05d-padding-padding", i);
                pushStr(ql, b, QUICKLIST_TAIL);
            }
            static char big[3001];
            memset(big, 'z', 3000);
            /* Replace by index: the node overflows and splits in three. */
            unsigned long len = ql->len;
            ASSERT(quicklistReplaceAtIndex(ql, 1500, big, 3000));
            ASSERT(ql->len > len);
            ASSERT(quicklistCheck(ql));
            /* Replace through an iterator, then go on iterating. */
            quicklistIter *it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, 1000);
            quicklistEntry e;
            ASSERT(quicklistNext(it, &e));
            quicklistReplaceEntry(it, &e, big, 3000);
            ASSERT(quicklistNext(it, &e));
            ASSERT_STREQ(entryText(&e, b, sizeof(b)), "item-01001-padding-padding");
            quicklistReleaseIterator(it);
            ASSERT(quicklistCheck(ql));
            /* Insert a big element in the middle of a full node. */
            it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, 2000);
            ASSERT(quicklistNext(it, &e));
            quicklistInsertAfter(it, &e, big, 3000);
            quicklistReleaseIterator(it);
            ASSERT(quicklistCheck(ql));
            int isint;
            ASSERT(textAt(ql, 1500, b, sizeof(b), &isint) && b[0] == 'z' && strlen(b) == 255);
            ASSERT(textAt(ql, 2001, b, sizeof(b), &isint) && b[0] == 'z');
            ASSERT(textAt(ql, 2002, b, sizeof(b), &isint));
            ASSERT_STREQ(b, "item-02001-padding-padding");
            ASSERT(quicklistNodesAtRest(ql, QUICKLIST_BLOB_LZF) > 0);
            ASSERT(quicklistCheck(ql));
            quicklistRelease(ql);
        }
    }

    /* Big nodes (Valkey's PLAIN): with a threshold of 20 bytes, elements of
     * 20+ bytes get a node of their own that takes nothing else, is never
     * put at rest, and turns ordinary when its element is replaced with a
     * small one. */
    TEST("quicklist: big elements get big nodes of their own") {
        ASSERT_EQ_LL(quicklistSetPackedThreshold((1ULL << 32)), 0);
        ASSERT_EQ_LL(quicklistSetPackedThreshold(20), 1);
        const char *big = "0123456789abcdefghijKLMNOP"; /* 26 bytes */
        quicklist *ql = quicklistCreate(-2, 1);
        for (int i = 0; i < 6; i++) pushStr(ql, "small", QUICKLIST_TAIL);
        pushStr(ql, big, QUICKLIST_TAIL);
        pushStr(ql, "small", QUICKLIST_TAIL); /* not into the big tail node */
        pushStr(ql, big, QUICKLIST_HEAD);
        pushStr(ql, "small", QUICKLIST_HEAD);
        /* small | big | 6 x small | big | small */
        ASSERT_EQ_LL(ql->len, 5);
        ASSERT(ql->head->next->big && ql->tail->prev->big && !ql->head->big);
        ASSERT_EQ_LL(ql->tail->prev->count, 1);
        /* The interior big node stays plain under compression. */
        ASSERT(ql->tail->prev->lp != NULL && ql->tail->prev->blob == NULL);
        ASSERT(quicklistCheck(ql));
        /* Insert a small element before the interior big one: it joins the
         * 6-element node in front, never the big node. */
        quicklistIter *it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, 8);
        quicklistEntry e;
        ASSERT(quicklistNext(it, &e) && e.node->big);
        quicklistInsertBefore(it, &e, "x", 1);
        quicklistReleaseIterator(it);
        ASSERT_EQ_LL(ql->len, 5);
        ASSERT_EQ_LL(ql->tail->prev->count, 1);
        ASSERT(quicklistCheck(ql));
        /* A big element replacing one inside the 7-element node is split
         * out; a small one replacing a big one makes its node ordinary. */
        ASSERT(quicklistReplaceAtIndex(ql, 4, big, strlen(big)));
        ASSERT_EQ_LL(ql->len, 7);
        ASSERT(quicklistReplaceAtIndex(ql, 1, "tiny", 4));
        ASSERT(!ql->head->next->big && ql->head->next->count == 1);
        ASSERT(quicklistCheck(ql));
        char out[512];
        qlJoin(ql, out, sizeof(out));
        ASSERT_STREQ(out, "small tiny small small 0123456789abcdefghijKLMNOP small small small x "
                          "0123456789abcdefghijKLMNOP small");
        int bigs = 0;
        for (quicklistNode *nd = ql->head; nd; nd = nd->next) bigs += nd->big;
        ASSERT_EQ_LL(bigs, 2);
        /* Dup keeps them; a one-element listpack of a big element appended
         * becomes a big node; quicklistAppendBig always does. */
        quicklist *copy = quicklistDup(ql);
        ASSERT(quicklistCheck(copy) && qlSameElements(ql, copy));
        quicklistAppendListpack(copy, lpAppend(lpNew(0), (unsigned char *)big, strlen(big)));
        ASSERT(copy->tail->big);
        quicklistAppendBig(copy, lpAppend(lpNew(0), (unsigned char *)"s", 1));
        ASSERT(copy->tail->big);
        pushStr(copy, "after", QUICKLIST_TAIL);
        ASSERT(copy->tail->prev->big && copy->tail->prev->count == 1 && quicklistCheck(copy));
        quicklistRelease(copy);
        /* Pops and range deletes take big nodes whole. */
        ASSERT(quicklistDelRange(ql, 3, 3));
        unsigned char *data;
        size_t sz;
        long long lv;
        ASSERT(quicklistPop(ql, QUICKLIST_TAIL, &data, &sz, &lv) && sz == 5);
        zfree(data);
        ASSERT(quicklistPop(ql, QUICKLIST_TAIL, &data, &sz, &lv) && sz == strlen(big));
        zfree(data);
        ASSERT(quicklistCheck(ql));
        qlJoin(ql, out, sizeof(out));
        ASSERT_STREQ(out, "small tiny small small small x");
        quicklistRelease(ql);
        ASSERT_EQ_LL(quicklistSetPackedThreshold(0), 1);
    }

    /* Every depth 0..3 and both fill forms, with values that compress and
     * values that do not: pushes, pops, inserts, replaces (by index and
     * through an iterator), range deletes and deletes while iterating in
     * both directions, each checked against an array model and the
     * layout checked by quicklistCheck(). */
    TEST("quicklist: compression depths 0..3 against an array model") {
        enum { MAXN = 900, VLEN = MODEL_VLEN };
        static char model[MAXN][VLEN];
        const int fills[] = {4, -1, 0};
        int bad = 0, compressed_seen = 0, packed_seen = 0, big_seen = 0;
        quicklistSetPackedThreshold(40); /* random values of 40+ bytes are big */
        for (int depth = 0; depth <= 3; depth++) {
            for (size_t fi = 0; fi < sizeof(fills) / sizeof(fills[0]); fi++) {
                int n = 0;
                srand(1000 + depth * 10 + (int)fi);
                quicklist *ql = quicklistCreate(fills[fi], depth);
                for (int step = 0; step < 6000; step++) {
                    int op = rand() % 14;
                    char val[VLEN];
                    int kind = rand() % 4;
                    if (kind == 0)
                        snprintf(val, sizeof(val), "%d", rand() % 100000);
                    else if (kind <= 2)
                        snprintf(val, sizeof(val), "compressible-compressible-%d", rand() % 1000);
                    else {
                        int l = 10 + rand() % (VLEN - 11);
                        for (int k = 0; k < l; k++) val[k] = (char)('!' + rand() % 90);
                        val[l] = '\0';
                    }
                    if (n == 0 || (op < 6 && n < MAXN)) {
                        modelPush(ql, model, &n, val, rand() % 2);
                    } else if (op == 6 && n < MAXN) {
                        int idx = rand() % n, after = rand() % 2;
                        modelInsert(ql, model, &n, idx, after, val);
                    } else if (op == 7) {
                        modelReplace(ql, model, rand() % n, val);
                    } else if (op == 8) {
                        /* Replace every 7th element from idx on, via an iterator. */
                        int idx = rand() % n, i = idx;
                        quicklistIter *it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, idx);
                        quicklistEntry e;
                        while (quicklistNext(it, &e)) {
                            if ((i - idx) % 7 == 0) {
                                quicklistReplaceEntry(it, &e, val, strlen(val));
                                strcpy(model[i], val);
                            }
                            i++;
                        }
                        quicklistReleaseIterator(it);
                    } else if (op == 9) {
                        int start = rand() % n, cnt = rand() % 10 + 1;
                        if (cnt > n - start) cnt = n - start;
                        modelDelRange(ql, model, &n, start, cnt);
                    } else if (op == 10 && rand() % 3 == 0) {
                        /* Delete elements whose text ends in a given digit,
                         * walking in a random direction from a random index. */
                        char digit = (char)('0' + rand() % 10);
                        int fwd = rand() % 2, idx = rand() % n, i = idx;
                        quicklistIter *it = quicklistGetIteratorAtIdx(ql, fwd ? AL_START_HEAD : AL_START_TAIL, idx);
                        quicklistEntry e;
                        while (quicklistNext(it, &e)) {
                            entryText(&e, b, sizeof(b));
                            if (b[strlen(b) - 1] == digit) {
                                quicklistDelEntry(it, &e);
                                memmove(model[i], model[i + 1], sizeof(model[0]) * (n - i - 1));
                                n--;
                            } else if (fwd) {
                                i++;
                            }
                            if (!fwd) i--;
                        }
                        quicklistReleaseIterator(it);
                        if (n == 0) continue;
                    } else {
                        modelPop(ql, model, &n, rand() % 2);
                    }
                    if (step % 25 == 0) {
                        if (!quicklistCheck(ql)) bad++;
                        compressed_seen += quicklistNodesAtRest(ql, QUICKLIST_BLOB_LZF) > 0;
                        packed_seen += quicklistNodesAtRest(ql, QUICKLIST_BLOB_PACKED) > 0;
                        if (depth == 0 && quicklistNodesAtRest(ql, QUICKLIST_BLOB_LZF)) bad++;
                        for (quicklistNode *nd = ql->head; nd; nd = nd->next) big_seen += nd->big;
                    }
                    if (step % 500 == 0 || step == 5999) {
                        /* Whole content, both directions. */
                        for (int dir = 0; dir < 2; dir++) {
                            quicklistIter *it = quicklistGetIterator(ql, dir ? AL_START_TAIL : AL_START_HEAD);
                            quicklistEntry e;
                            int i = dir ? n - 1 : 0;
                            while (quicklistNext(it, &e)) {
                                if (i < 0 || i >= n || strcmp(entryText(&e, b, sizeof(b)), model[i]) != 0) bad++;
                                i += dir ? -1 : 1;
                            }
                            quicklistReleaseIterator(it);
                            if (i != (dir ? -1 : n)) bad++;
                        }
                        if (!quicklistCheck(ql) || quicklistCount(ql) != (unsigned long)n) bad++;
                    }
                }
                quicklistRelease(ql);
            }
        }
        ASSERT_EQ_LL(bad, 0);
        ASSERT(compressed_seen > 100); /* the runs did exercise compressed nodes */
        ASSERT(packed_seen > 100);     /* and packed ones */
        ASSERT(big_seen > 100);        /* and big ones */
        quicklistSetPackedThreshold(0);
    }

    /* quicklistVisitRange() (LRANGE) against an iterator from the same
     * index: every start, counts that stop inside a node, at a node's end
     * and past the list's end, on plain and compressed lists; afterwards
     * the interior nodes are compressed again. */
    TEST("quicklist: visiting a range matches an iterator, compressed nodes included") {
        int bad = 0;
        for (int depth = 0; depth <= 2; depth++) {
            quicklist *ql = quicklistCreate(depth ? 5 : -1, depth);
            char val[64];
            for (int i = 0; i < 300; i++) {
                if (i % 3 == 0) snprintf(val, sizeof(val), "%d", i * 7 - 500);
                else snprintf(val, sizeof(val), "compressible-compressible-value-%d", i);
                pushStr(ql, val, QUICKLIST_TAIL);
            }
            unsigned long compressed = quicklistNodesAtRest(ql, QUICKLIST_BLOB_LZF);
            if (depth && compressed == 0) bad++;
            const unsigned long counts[] = {1, 4, 5, 6, 100, 1000};
            for (unsigned long start = 0; start < 300; start += 7) {
                for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
                    visitedText got = {.n = 0};
                    quicklistVisitRange(ql, start, counts[ci], collectVisited, &got);
                    quicklistIter *it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, (long)start);
                    quicklistEntry e;
                    unsigned long i = 0;
                    while (i < counts[ci] && quicklistNext(it, &e)) {
                        if (i >= got.n || strcmp(entryText(&e, b, sizeof(b)), got.text[i]) != 0) bad++;
                        i++;
                    }
                    quicklistReleaseIterator(it);
                    if (i != got.n) bad++;
                    if (!quicklistCheck(ql) || quicklistNodesAtRest(ql, QUICKLIST_BLOB_LZF) != compressed) bad++;
                }
            }
            visitedText none = {.n = 0};
            quicklistVisitRange(ql, 300, 10, collectVisited, &none);
            quicklistVisitRange(ql, 0, 0, collectVisited, &none);
            if (none.n != 0) bad++;
            quicklistRelease(ql);
        }
        ASSERT_EQ_LL(bad, 0);
    }

    /* quicklistPopVisit() hands out each end element in place, then
     * removes it; on an empty list it returns 0 without calling back. */
    TEST("quicklist: popping through a visitor, both ends, compressed list") {
        quicklist *ql = quicklistCreate(4, 1);
        char val[64];
        for (int i = 0; i < 40; i++) {
            if (i % 2) snprintf(val, sizeof(val), "%d", i);
            else snprintf(val, sizeof(val), "compressible-compressible-value-%d", i);
            pushStr(ql, val, QUICKLIST_TAIL);
        }
        ASSERT(quicklistNodesAtRest(ql, QUICKLIST_BLOB_LZF) > 0);
        int bad = 0;
        for (int i = 0; i < 20; i++) {
            visitedText head = {.n = 0}, tail = {.n = 0};
            ASSERT(quicklistPopVisit(ql, QUICKLIST_HEAD, collectVisited, &head));
            ASSERT(quicklistPopVisit(ql, QUICKLIST_TAIL, collectVisited, &tail));
            char want[64];
            snprintf(want, sizeof(want), i % 2 ? "%d" : "compressible-compressible-value-%d", i);
            if (head.n != 1 || strcmp(head.text[0], want) != 0) bad++;
            int t = 39 - i;
            snprintf(want, sizeof(want), t % 2 ? "%d" : "compressible-compressible-value-%d", t);
            if (tail.n != 1 || strcmp(tail.text[0], want) != 0) bad++;
            if (!quicklistCheck(ql) || quicklistCount(ql) != (unsigned long)(38 - 2 * i)) bad++;
        }
        visitedText none = {.n = 0};
        ASSERT_EQ_LL(quicklistPopVisit(ql, QUICKLIST_HEAD, collectVisited, &none), 0);
        ASSERT_EQ_LL(none.n, 0);
        ASSERT_EQ_LL(bad, 0);
        quicklistRelease(ql);
    }

    return UT_END();
}
