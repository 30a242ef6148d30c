/* test_zipmap.c - unit tests for the zipmap reader (zipmap.c): pairs with
 * short and 5-byte lengths and free space decoded from blobs built here from
 * the documented format; corrupt counts, lengths, free counts, terminators
 * and every truncation rejected without reading past the blob. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unittest.h"
#include "zipmap.h"

typedef struct zmBuilder {
    unsigned char buf[4096];
    size_t len;
    unsigned pairs;
} zmBuilder;

static void zmbLen(zmBuilder *b, uint32_t n, int big) {
    if (n < ZIPMAP_BIGLEN && !big) {
        b->buf[b->len++] = (unsigned char)n;
        return;
    }
    b->buf[b->len++] = ZIPMAP_BIGLEN;
    for (int i = 0; i < 4; i++) b->buf[b->len++] = (n >> (8 * i)) & 0xFF;
}

static void zmbPair(zmBuilder *b, const char *k, uint32_t kl, const char *v, uint32_t vl, unsigned char freelen,
                    int big) {
    zmbLen(b, kl, big);
    memcpy(b->buf + b->len, k, kl);
    b->len += kl;
    zmbLen(b, vl, big);
    b->buf[b->len++] = freelen;
    memcpy(b->buf + b->len, v, vl);
    b->len += vl;
    memset(b->buf + b->len, '?', freelen);
    b->len += freelen;
    b->pairs++;
}

static unsigned char *zmbFinish(zmBuilder *b, size_t *size) {
    b->buf[0] = b->pairs < ZIPMAP_BIGLEN ? (unsigned char)b->pairs : ZIPMAP_BIGLEN;
    b->buf[b->len++] = ZIPMAP_END;
    unsigned char *zm = malloc(b->len);
    memcpy(zm, b->buf, b->len);
    *size = b->len;
    return zm;
}

typedef struct pairs {
    int n;
    char text[256];
} pairs;

static int collect(const unsigned char *k, unsigned int kl, const unsigned char *v, unsigned int vl, void *ud) {
    pairs *p = ud;
    size_t used = strlen(p->text);
    if (used + kl + vl + 3 < sizeof(p->text)) {
        memcpy(p->text + used, k, kl);
        p->text[used + kl] = '=';
        memcpy(p->text + used + kl + 1, v, vl);
        p->text[used + kl + 1 + vl] = ';';
        p->text[used + kl + 2 + vl] = '\0';
    }
    p->n++;
    return 1;
}

static int validOnly(const unsigned char *zm, size_t size) {
    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, zm, size);
    int ok = zipmapValidateAndDecode(copy, size, NULL, NULL, NULL);
    free(copy);
    return ok;
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    zmBuilder b;
    size_t size;

    TEST("zipmap: empty") {
        b.len = 1;
        b.pairs = 0;
        unsigned char *zm = zmbFinish(&b, &size);
        unsigned long n = 9;
        ASSERT(zipmapValidateAndDecode(zm, size, NULL, NULL, &n));
        ASSERT_EQ_LL(n, 0);
        free(zm);
    }

    TEST("zipmap: pairs with free space and long lengths decode") {
        b.len = 1;
        b.pairs = 0;
        zmbPair(&b, "name", 4, "val", 3, 0, 0);
        zmbPair(&b, "k", 1, "v", 1, 4, 0);    /* 4 free bytes skipped */
        zmbPair(&b, "big", 3, "len", 3, 0, 1); /* 5-byte length forms */
        zmbPair(&b, "", 0, "", 0, 0, 0);
        unsigned char *zm = zmbFinish(&b, &size);
        pairs p = {0, ""};
        unsigned long n = 0;
        ASSERT(zipmapValidateAndDecode(zm, size, collect, &p, &n));
        ASSERT_EQ_LL(n, 4);
        ASSERT_EQ_LL(p.n, 4);
        ASSERT_STREQ(p.text, "name=val;k=v;big=len;=;");
        int all_rejected = 1;
        for (size_t cut = 0; cut < size; cut++)
            if (validOnly(zm, cut)) all_rejected = 0;
        ASSERT(all_rejected);
        free(zm);
    }

    TEST("zipmap: a count of 254 or more means 'count them'") {
        b.len = 1;
        b.pairs = 0;
        zmbPair(&b, "a", 1, "b", 1, 0, 0);
        unsigned char *zm = zmbFinish(&b, &size);
        zm[0] = ZIPMAP_BIGLEN;
        unsigned long n = 0;
        ASSERT(zipmapValidateAndDecode(zm, size, NULL, NULL, &n));
        ASSERT_EQ_LL(n, 1);
        zm[0] = 2; /* wrong exact count */
        ASSERT(!validOnly(zm, size));
        free(zm);
    }

    TEST("zipmap: corrupt lengths, free counts and terminators are rejected") {
        b.len = 1;
        b.pairs = 0;
        zmbPair(&b, "key", 3, "value", 5, 0, 0);
        unsigned char *zm = zmbFinish(&b, &size);
        ASSERT(validOnly(zm, size));
        zm[1] = 200; /* key longer than the blob */
        ASSERT(!validOnly(zm, size));
        zm[1] = ZIPMAP_END; /* terminator where a pair should be */
        ASSERT(!validOnly(zm, size));
        zm[1] = 3;
        zm[6] = 9; /* free bytes past the end */
        ASSERT(!validOnly(zm, size));
        zm[6] = 0;
        zm[5] = 0xF0; /* value length past the end */
        ASSERT(!validOnly(zm, size));
        zm[5] = 5;
        zm[size - 1] = 0;
        ASSERT(!validOnly(zm, size));
        free(zm);
        unsigned char hostile[8] = {1, ZIPMAP_BIGLEN, 0xFF, 0xFF, 0xFF, 0xFF, 'a', ZIPMAP_END};
        ASSERT(!validOnly(hostile, 8));
    }

    return UT_END();
}
