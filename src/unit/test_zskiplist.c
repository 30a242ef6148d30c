/* test_zskiplist.c - unit tests for zskiplist.c: ordering (score, then
 * member bytes), spans and ranks after inserts, deletes and score updates,
 * range lookups and range deletes by score, member and rank, the bound
 * parsers, and a randomized comparison against a plain sorted array that
 * also checks every span of every level after each step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sds.h"
#include "unittest.h"
#include "zmalloc.h"
#include "zskiplist.h"

/* Checks the structure: level-0 order, backward links, tail, length, and
 * that every link's span equals the level-0 distance it jumps. */
static int zslCheck(zskiplist *zsl) {
    unsigned long n = 0;
    zskiplistNode *prev = NULL;
    for (zskiplistNode *x = zsl->header->level[0].forward; x; x = x->level[0].forward) {
        if (x->backward != prev) return 0;
        if (prev && (prev->score > x->score ||
                     (prev->score == x->score &&
                      zslCompareMembers(prev->ele, sdslen(prev->ele), x->ele, sdslen(x->ele)) >= 0)))
            return 0;
        prev = x;
        n++;
    }
    if (zsl->tail != prev || zsl->length != n) return 0;
    for (int i = 0; i < zsl->level; i++) {
        zskiplistNode *x = zsl->header;
        unsigned long rank = 0;
        while (x->level[i].forward) {
            zskiplistNode *f = x->level[i].forward;
            unsigned long frank = zslGetRank(zsl, f->score, f->ele, sdslen(f->ele));
            if (frank != rank + x->level[i].span) return 0;
            rank = frank;
            x = f;
        }
    }
    return 1;
}

typedef struct refEntry {
    double score;
    char ele[16];
} refEntry;

static int refCmp(const void *a, const void *b) {
    const refEntry *x = a, *y = b;
    if (x->score != y->score) return x->score < y->score ? -1 : 1;
    return zslCompareMembers(x->ele, strlen(x->ele), y->ele, strlen(y->ele));
}

/* The skiplist borrows its members: the tests keep every one they make in
 * this pool and free them all at the end of each test. */
static sds pool[8192];
static int pooled;

static sds member(const char *s) {
    if (pooled == (int)(sizeof(pool) / sizeof(pool[0]))) abort();
    return pool[pooled++] = sdsnew(s);
}

static sds memberf(const char *fmt, int i) {
    char buf[32];
    snprintf(buf, sizeof(buf), fmt, i);
    return member(buf);
}

static void freeMembers(void) {
    while (pooled) sdsfree(pool[--pooled]);
}

static void countDeleted(sds ele, void *pd) {
    (void)ele;
    (*(int *)pd)++;
}

/* --- defragmentation helpers: every node offered moves --- */

static long defrag_moved;
static void *moveBlock(void *ptr) {
    return zmalloc_defrag_move(ptr);
}
static void countMoved(zskiplistNode *node, void *pd) {
    (void)node;
    (void)pd;
    defrag_moved++;
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    srandom(4321);
    srand(4321);

    TEST("zskiplist: empty list") {
        zskiplist *zsl = zslCreate();
        ASSERT_EQ_LL(zsl->length, 0);
        ASSERT(zsl->tail == NULL);
        ASSERT(zslGetElementByRank(zsl, 1) == NULL);
        ASSERT_EQ_LL(zslGetRank(zsl, 1, "a", 1), 0);
        zrangeSpec r = {0, 10, 0, 0};
        ASSERT(zslFirstInRange(zsl, &r) == NULL);
        ASSERT(zslLastInRange(zsl, &r) == NULL);
        ASSERT_EQ_LL(zslDelete(zsl, 1, "a", 1, NULL), 0);
        zslFree(zsl);
        freeMembers();
    }

    TEST("zskiplist: order by score then member, ranks") {
        zskiplist *zsl = zslCreate();
        zslInsert(zsl, 2, member("b"));
        zslInsert(zsl, 1, member("z"));
        zslInsert(zsl, 2, member("a"));
        zslInsert(zsl, 2, member("ab"));
        zslInsert(zsl, -INFINITY, member("m"));
        ASSERT(zslCheck(zsl));
        const char *want[] = {"m", "z", "a", "ab", "b"};
        for (int i = 0; i < 5; i++) {
            zskiplistNode *n = zslGetElementByRank(zsl, i + 1);
            ASSERT(n != NULL && strcmp(n->ele, want[i]) == 0);
            ASSERT_EQ_LL(zslGetRank(zsl, n->score, n->ele, sdslen(n->ele)), i + 1);
        }
        ASSERT_EQ_LL(zslGetRank(zsl, 3, "a", 1), 0); /* wrong score */
        ASSERT_STREQ(zsl->tail->ele, "b");
        zslFree(zsl);
        freeMembers();
    }

    TEST("zskiplist: delete and update score") {
        zskiplist *zsl = zslCreate();
        for (int i = 0; i < 100; i++) zslInsert(zsl, i, memberf("e%d", i));
        ASSERT_EQ_LL(zslDelete(zsl, 50, "e50", 3, NULL), 1);
        ASSERT_EQ_LL(zslDelete(zsl, 50, "e50", 3, NULL), 0);
        ASSERT_EQ_LL(zslDelete(zsl, 51, "e50", 3, NULL), 0);
        zskiplistNode *n = NULL;
        ASSERT_EQ_LL(zslDelete(zsl, 0, "e0", 2, &n), 1);
        ASSERT(n && strcmp(n->ele, "e0") == 0);
        zslFreeNode(n);
        ASSERT(zslCheck(zsl));
        ASSERT_EQ_LL(zsl->length, 98);
        /* In place (neighbours still bracket) and moved. */
        n = zslUpdateScore(zsl, 10, "e10", 3, 10.5);
        ASSERT(n && n->score == 10.5);
        n = zslUpdateScore(zsl, 10.5, "e10", 3, 1000);
        ASSERT(n && zsl->tail == n);
        n = zslUpdateScore(zsl, 1000, "e10", 3, -1);
        ASSERT(n && zslGetRank(zsl, -1, "e10", 3) == 1);
        ASSERT(zslCheck(zsl));
        zslFree(zsl);
        freeMembers();
    }

    TEST("zskiplist: score ranges") {
        zskiplist *zsl = zslCreate();
        for (int i = 1; i <= 10; i++) zslInsert(zsl, i, memberf("%d", i));
        zrangeSpec r;
        ASSERT_EQ_LL(zslParseRange("(3", 2, "7", 1, &r), 0);
        ASSERT_EQ_LL(zslFirstInRange(zsl, &r)->score, 4);
        ASSERT_EQ_LL(zslLastInRange(zsl, &r)->score, 7);
        ASSERT_EQ_LL(zslParseRange("-inf", 4, "(1", 2, &r), 0);
        ASSERT(zslFirstInRange(zsl, &r) == NULL);
        ASSERT_EQ_LL(zslParseRange("5", 1, "5", 1, &r), 0);
        ASSERT_EQ_LL(zslFirstInRange(zsl, &r)->score, 5);
        ASSERT_EQ_LL(zslParseRange("(5", 2, "5", 1, &r), 0);
        ASSERT(!zslRangeNonEmpty(&r));
        ASSERT_EQ_LL(zslParseRange("abc", 3, "5", 1, &r), -1);
        ASSERT_EQ_LL(zslParseRange("1", 1, "nan", 3, &r), -1);
        ASSERT_EQ_LL(zslParseRange("(", 1, "1", 1, &r), 0); /* empty reads as 0 */
        ASSERT(r.min == 0 && r.minex);
        int deleted = 0;
        ASSERT_EQ_LL(zslParseRange("2", 1, "(5", 2, &r), 0);
        ASSERT_EQ_LL(zslDeleteRangeByScore(zsl, &r, countDeleted, &deleted), 3);
        ASSERT_EQ_LL(deleted, 3);
        ASSERT_EQ_LL(zsl->length, 7);
        ASSERT(zslCheck(zsl));
        ASSERT_EQ_LL(zslDeleteRangeByRank(zsl, 2, 3, NULL, NULL), 2); /* 5, 6 */
        ASSERT_EQ_LL(zslGetElementByRank(zsl, 2)->score, 7);
        ASSERT(zslCheck(zsl));
        zslFree(zsl);
        freeMembers();
    }

    TEST("zskiplist: lex ranges") {
        zskiplist *zsl = zslCreate();
        const char *m[] = {"a", "b", "c", "d", "e"};
        for (int i = 0; i < 5; i++) zslInsert(zsl, 0, member(m[i]));
        zlexRange r;
        ASSERT_EQ_LL(zslParseLexRange("(a", 2, "[c", 2, &r), 0);
        ASSERT_STREQ(zslFirstInLexRange(zsl, &r)->ele, "b");
        ASSERT_STREQ(zslLastInLexRange(zsl, &r)->ele, "c");
        zslFreeLexRange(&r);
        ASSERT_EQ_LL(zslParseLexRange("-", 1, "+", 1, &r), 0);
        ASSERT_STREQ(zslFirstInLexRange(zsl, &r)->ele, "a");
        ASSERT_STREQ(zslLastInLexRange(zsl, &r)->ele, "e");
        zslFreeLexRange(&r);
        ASSERT_EQ_LL(zslParseLexRange("+", 1, "-", 1, &r), 0);
        ASSERT(!zslLexRangeNonEmpty(&r));
        ASSERT(zslFirstInLexRange(zsl, &r) == NULL);
        zslFreeLexRange(&r);
        ASSERT_EQ_LL(zslParseLexRange("a", 1, "+", 1, &r), -1);
        ASSERT_EQ_LL(zslParseLexRange("[a", 2, "+x", 2, &r), -1);
        ASSERT_EQ_LL(zslParseLexRange("[b", 2, "(d", 2, &r), 0);
        ASSERT_EQ_LL(zslDeleteRangeByLex(zsl, &r, NULL, NULL), 2);
        zslFreeLexRange(&r);
        ASSERT_EQ_LL(zsl->length, 3);
        ASSERT(zslCheck(zsl));
        zslFree(zsl);
        freeMembers();
    }

    TEST("zskiplist: members are borrowed, never freed by the list") {
        zskiplist *zsl = zslCreate();
        sds a = member("alpha"), b = member("beta"), c = member("gamma");
        size_t before = zmalloc_used_memory();
        zslInsert(zsl, 1, a);
        zslInsert(zsl, 2, b);
        zslInsert(zsl, 3, c);
        ASSERT(zslGetElementByRank(zsl, 1)->ele == a); /* the very pointer */
        zskiplistNode *n = zslUpdateScore(zsl, 1, "alpha", 5, 10);
        ASSERT(n->ele == a && zsl->tail == n);
        ASSERT_EQ_LL(zslDelete(zsl, 2, "beta", 4, NULL), 1);
        zrangeSpec r = {0, 100, 0, 0};
        int deleted = 0;
        ASSERT_EQ_LL(zslDeleteRangeByScore(zsl, &r, countDeleted, &deleted), 2);
        ASSERT_EQ_LL(zmalloc_used_memory(), before); /* only the nodes went */
        ASSERT(strcmp(a, "alpha") == 0 && strcmp(b, "beta") == 0 && strcmp(c, "gamma") == 0);
        zslInsert(zsl, 1, a);
        zslFree(zsl);
        ASSERT(strcmp(a, "alpha") == 0);
        freeMembers();
    }

    TEST("zskiplist: zslDefrag moves the header and every node in parts, with inserts and deletes between") {
        zskiplist *zsl = zslCreate();
        int n = 1500;
        for (int i = 0; i < n; i++) zslInsert(zsl, (double)(i % 97), memberf("m%d", i));
        defrag_moved = 0;
        unsigned long from = 0;
        int parts = 0, extra = 0;
        do {
            from = zslDefrag(zsl, from, 37, moveBlock, countMoved, NULL);
            /* The list changes between parts, as a sorted set does between
             * cron ticks: ranks shift, nothing may break. */
            zslInsert(zsl, -1.0 * parts, memberf("x%d", parts));
            extra++;
            if (parts % 3 == 0) {
                zskiplistNode *last = zsl->tail;
                if (zslDelete(zsl, last->score, last->ele, sdslen(last->ele), NULL)) extra--;
            }
            parts++;
        } while (from != 0 && parts < 1000);
        ASSERT(from == 0);
        ASSERT(parts > 30);
        ASSERT(defrag_moved >= n / 2);
        ASSERT(zslCheck(zsl));
        ASSERT_EQ_LL(zsl->length, n + extra);
        /* A whole pass in one call also keeps it sound. */
        ASSERT(zslDefrag(zsl, 0, zsl->length + 1, moveBlock, countMoved, NULL) == 0);
        ASSERT(zslCheck(zsl));
        zslFree(zsl);
        freeMembers();
    }

    TEST("zskiplist: randomized against a sorted array") {
        enum { N = 400 };
        refEntry ref[N];
        int n = 0;
        zskiplist *zsl = zslCreate();
        int ok = 1;
        for (int step = 0; step < 4000 && ok; step++) {
            int op = rand() % 3;
            char ele[16];
            snprintf(ele, sizeof(ele), "m%d", rand() % 300);
            int at = -1;
            for (int i = 0; i < n; i++)
                if (strcmp(ref[i].ele, ele) == 0) at = i;
            double score = (double)(rand() % 50);
            if (op == 0 && at < 0 && n < N) {
                zslInsert(zsl, score, member(ele));
                ref[n].score = score;
                strcpy(ref[n].ele, ele);
                n++;
            } else if (op == 1 && at >= 0) {
                ok = zslDelete(zsl, ref[at].score, ele, strlen(ele), NULL) == 1;
                ref[at] = ref[--n];
            } else if (op == 2 && at >= 0) {
                ok = zslUpdateScore(zsl, ref[at].score, ele, strlen(ele), score) != NULL;
                ref[at].score = score;
            }
            qsort(ref, n, sizeof(refEntry), refCmp);
            if (step % 50 == 0) ok = ok && zslCheck(zsl);
            ok = ok && zsl->length == (unsigned long)n;
            if (n && ok) {
                int k = rand() % n;
                zskiplistNode *x = zslGetElementByRank(zsl, k + 1);
                ok = x && strcmp(x->ele, ref[k].ele) == 0 && x->score == ref[k].score;
            }
        }
        ASSERT(ok);
        ASSERT(zslCheck(zsl));
        zslFree(zsl);
        freeMembers();
    }

    return UT_END();
}
