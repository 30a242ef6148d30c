/* test_ziplist.c - unit tests for the ziplist reader (ziplist.c): every
 * string and integer encoding decoded from blobs built here byte by byte
 * from the documented format, large prevlen fields, and rejection of
 * corrupt headers, counts, tails, prevlens, encodings and truncations
 * (each truncated prefix of a valid blob is checked under valgrind-clean
 * bounds: the blob is copied to an exact-size allocation). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unittest.h"
#include "ziplist.h"

/* A ziplist under construction in a fixed buffer. */
typedef struct zlBuilder {
    unsigned char buf[70000];
    size_t len;
    size_t last;       /* offset of the last entry */
    size_t prevsize;   /* size of the last entry */
    unsigned count;
} zlBuilder;

static void putLE32(unsigned char *p, uint32_t v) {
    p[0] = v & 0xFF;
    p[1] = (v >> 8) & 0xFF;
    p[2] = (v >> 16) & 0xFF;
    p[3] = (v >> 24) & 0xFF;
}

static void zbInit(zlBuilder *b) {
    memset(b->buf, 0, ZIPLIST_HEADER_SIZE);
    b->len = ZIPLIST_HEADER_SIZE;
    b->last = 0;
    b->prevsize = 0;
    b->count = 0;
}

/* Writes the prevlen field; big forces the 5-byte form. */
static void zbPrevlen(zlBuilder *b, int big) {
    if (b->prevsize < 254 && !big) {
        b->buf[b->len++] = (unsigned char)b->prevsize;
    } else {
        b->buf[b->len++] = 0xFE;
        putLE32(b->buf + b->len, (uint32_t)b->prevsize);
        b->len += 4;
    }
}

static void zbEntryDone(zlBuilder *b, size_t start) {
    b->last = start;
    b->prevsize = b->len - start;
    b->count++;
}

static void zbString(zlBuilder *b, const char *s, size_t n, int big_prevlen) {
    size_t start = b->len;
    zbPrevlen(b, big_prevlen);
    if (n <= 63) {
        b->buf[b->len++] = (unsigned char)n;
    } else if (n <= 16383) {
        b->buf[b->len++] = 0x40 | (unsigned char)(n >> 8);
        b->buf[b->len++] = n & 0xFF;
    } else {
        b->buf[b->len++] = 0x80;
        b->buf[b->len++] = (n >> 24) & 0xFF;
        b->buf[b->len++] = (n >> 16) & 0xFF;
        b->buf[b->len++] = (n >> 8) & 0xFF;
        b->buf[b->len++] = n & 0xFF;
    }
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    zbEntryDone(b, start);
}

/* An integer with encoding byte enc and `bytes` little-endian data bytes. */
static void zbInt(zlBuilder *b, unsigned char enc, int64_t v, int bytes) {
    size_t start = b->len;
    zbPrevlen(b, 0);
    b->buf[b->len++] = enc;
    for (int i = 0; i < bytes; i++) b->buf[b->len++] = (unsigned char)(((uint64_t)v >> (8 * i)) & 0xFF);
    zbEntryDone(b, start);
}

/* Terminates and fills the header; returns an exact-size copy. */
static unsigned char *zbFinish(zlBuilder *b, size_t *size) {
    b->buf[b->len++] = ZIPLIST_END;
    putLE32(b->buf, (uint32_t)b->len);
    putLE32(b->buf + 4, (uint32_t)(b->count ? b->last : ZIPLIST_HEADER_SIZE));
    b->buf[8] = b->count & 0xFF;
    b->buf[9] = (b->count >> 8) & 0xFF;
    unsigned char *zl = malloc(b->len);
    memcpy(zl, b->buf, b->len);
    *size = b->len;
    return zl;
}

/* Collects decoded entries. */
typedef struct collected {
    int n;
    ziplistEntry e[16];
    int stop_at; /* return 0 at this index (-1: never) */
} collected;

static int collect(const ziplistEntry *e, void *ud) {
    collected *c = ud;
    if (c->n == c->stop_at) return 0;
    if (c->n < 16) c->e[c->n] = *e;
    c->n++;
    return 1;
}

static int validOnly(const unsigned char *zl, size_t size) {
    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, zl, size);
    int ok = ziplistValidateAndDecode(copy, size, NULL, NULL, NULL);
    free(copy);
    return ok;
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    static zlBuilder b;
    size_t size;

    TEST("ziplist: empty") {
        zbInit(&b);
        unsigned char *zl = zbFinish(&b, &size);
        unsigned long n = 99;
        ASSERT(size == 11);
        ASSERT(ziplistValidateAndDecode(zl, size, NULL, NULL, &n));
        ASSERT_EQ_LL(n, 0);
        free(zl);
    }

    TEST("ziplist: every encoding decodes") {
        static char big[20000];
        memset(big, 'x', sizeof(big));
        zbInit(&b);
        zbString(&b, "hello", 5, 0);
        zbString(&b, big, 300, 0);       /* 14-bit length, next prevlen is 5 bytes */
        zbString(&b, big, 20000, 0);     /* 32-bit length */
        zbInt(&b, 0xFE, -5, 1);
        zbInt(&b, 0xC0, -30000, 2);
        zbInt(&b, 0xF0, -8000000, 3);
        zbInt(&b, 0xD0, 2000000000, 4);
        zbInt(&b, 0xE0, INT64_MIN, 8);
        zbInt(&b, 0xF1, 0, 0);           /* immediate 0 */
        zbInt(&b, 0xFD, 0, 0);           /* immediate 12 */
        zbString(&b, "", 0, 1);          /* 5-byte prevlen for a small size */
        unsigned char *zl = zbFinish(&b, &size);
        collected c = {.n = 0, .stop_at = -1};
        unsigned long n = 0;
        ASSERT(ziplistValidateAndDecode(zl, size, collect, &c, &n));
        ASSERT_EQ_LL(n, 11);
        ASSERT_EQ_LL(c.n, 11);
        ASSERT(c.e[0].sval && c.e[0].slen == 5 && memcmp(c.e[0].sval, "hello", 5) == 0);
        ASSERT(c.e[1].sval && c.e[1].slen == 300);
        ASSERT(c.e[2].sval && c.e[2].slen == 20000);
        ASSERT(c.e[3].sval == NULL && c.e[3].lval == -5);
        ASSERT(c.e[4].sval == NULL && c.e[4].lval == -30000);
        ASSERT(c.e[5].sval == NULL && c.e[5].lval == -8000000);
        ASSERT(c.e[6].sval == NULL && c.e[6].lval == 2000000000);
        ASSERT(c.e[7].sval == NULL && c.e[7].lval == INT64_MIN);
        ASSERT(c.e[8].sval == NULL && c.e[8].lval == 0);
        ASSERT(c.e[9].sval == NULL && c.e[9].lval == 12);
        ASSERT(c.e[10].sval && c.e[10].slen == 0);
        /* Every strict prefix is rejected without reading past it. */
        int all_rejected = 1;
        for (size_t cut = 0; cut < size; cut++)
            if (validOnly(zl, cut)) all_rejected = 0;
        ASSERT(all_rejected);
        free(zl);
    }

    TEST("ziplist: the callback can stop the walk") {
        zbInit(&b);
        zbString(&b, "a", 1, 0);
        zbString(&b, "b", 1, 0);
        unsigned char *zl = zbFinish(&b, &size);
        collected c = {.n = 0, .stop_at = 1};
        ASSERT(!ziplistValidateAndDecode(zl, size, collect, &c, NULL));
        ASSERT_EQ_LL(c.n, 1);
        free(zl);
    }

    TEST("ziplist: corrupt header fields are rejected") {
        zbInit(&b);
        zbString(&b, "abc", 3, 0);
        zbInt(&b, 0xC0, 1000, 2);
        unsigned char *zl = zbFinish(&b, &size);
        ASSERT(validOnly(zl, size));
        zl[0]++; /* zlbytes */
        ASSERT(!validOnly(zl, size));
        zl[0]--;
        zl[4]++; /* zltail */
        ASSERT(!validOnly(zl, size));
        zl[4]--;
        zl[8] = 3; /* zllen */
        ASSERT(!validOnly(zl, size));
        zl[8] = 0xFF; /* unknown count is fine */
        zl[9] = 0xFF;
        ASSERT(validOnly(zl, size));
        zl[8] = 2;
        zl[9] = 0;
        zl[size - 1] = 0; /* terminator */
        ASSERT(!validOnly(zl, size));
        free(zl);
    }

    TEST("ziplist: bad prevlen, encodings and lengths are rejected") {
        zbInit(&b);
        zbString(&b, "abc", 3, 0);
        zbString(&b, "defg", 4, 0);
        unsigned char *zl = zbFinish(&b, &size);
        size_t second = ZIPLIST_HEADER_SIZE + 5;
        ASSERT(zl[second] == 5);
        zl[second] = 4; /* prevlen != size of the first entry */
        ASSERT(!validOnly(zl, size));
        zl[second] = 5;
        zl[ZIPLIST_HEADER_SIZE] = 1; /* first entry's prevlen must be 0 */
        ASSERT(!validOnly(zl, size));
        zl[ZIPLIST_HEADER_SIZE] = 0;
        zl[ZIPLIST_HEADER_SIZE + 1] = 60; /* string length past the end */
        ASSERT(!validOnly(zl, size));
        zl[ZIPLIST_HEADER_SIZE + 1] = 0xC1; /* no such encoding */
        ASSERT(!validOnly(zl, size));
        zl[ZIPLIST_HEADER_SIZE + 1] = 0x81; /* 32-bit string form with stray bits */
        ASSERT(!validOnly(zl, size));
        zl[ZIPLIST_HEADER_SIZE + 1] = 0xFF; /* terminator inside */
        ASSERT(!validOnly(zl, size));
        zl[ZIPLIST_HEADER_SIZE + 1] = 3;
        ASSERT(validOnly(zl, size));
        free(zl);
    }

    TEST("ziplist: tiny and hostile sizes") {
        unsigned char z[11] = {11, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0xFF};
        ASSERT(validOnly(z, 11));
        ASSERT(!validOnly(z, 10));
        ASSERT(!validOnly(z, 0));
        unsigned char huge[16] = {16, 0, 0, 0, 10, 0, 1, 0, 0, 0x80, 0xFF, 0xFF, 0xFF, 0xF0, 'a', 0xFF};
        ASSERT(!validOnly(huge, 16)); /* a 4 GiB string length in a 16-byte blob */
    }

    return UT_END();
}
