/* listpack.c - the listpack compact list (format documented in listpack.h).
 *
 * A listpack is one allocation holding a 6-byte header, a run of
 * self-describing entries and a 0xFF terminator. Lists (directly, and in
 * each quicklist node), hashes, sets and sorted sets keep small values in
 * it; this file knows nothing about those types and includes no server
 * header.
 *
 * How the code is organised:
 *  - "entry codec": the size of an entry from its first bytes, the backlen
 *    codec, and encoding an element (string or integer) into the bytes that
 *    go before its backlen. Every other function is built on these.
 *  - navigation (first/last/next/prev/seek) only ever steps over entries,
 *    so it is O(1) per step in both directions thanks to backlen.
 *  - one splice primitive, lpSplice(), replaces a byte range with an
 *    encoded element (or with nothing) and fixes the header; insert,
 *    replace and delete are thin wrappers around it.
 *
 * Invariants kept by every writer: header total-bytes is exact, header
 * count is exact or saturated at LP_HDR_NUMELE_UNKNOWN, the last byte is
 * 0xFF, and every entry's backlen equals its encoding+data length. A string
 * that is a canonical integer is always stored as an integer, so equal
 * values have equal encodings. Allocation failure aborts in zmalloc. */
#include "listpack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "zmalloc.h"

#define lpAssert(cond)                                                                          \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "listpack assertion failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
            abort();                                                                            \
        }                                                                                       \
    } while (0)

/* First-byte patterns, see listpack.h. */
#define LP_ENC_7BIT_UINT_MASK 0x80
#define LP_ENC_7BIT_UINT 0x00
#define LP_ENC_6BIT_STR_MASK 0xC0
#define LP_ENC_6BIT_STR 0x80
#define LP_ENC_13BIT_INT_MASK 0xE0
#define LP_ENC_13BIT_INT 0xC0
#define LP_ENC_12BIT_STR_MASK 0xF0
#define LP_ENC_12BIT_STR 0xE0
#define LP_ENC_32BIT_STR 0xF0
#define LP_ENC_16BIT_INT 0xF1
#define LP_ENC_24BIT_INT 0xF2
#define LP_ENC_32BIT_INT 0xF3
#define LP_ENC_64BIT_INT 0xF4

#define LP_MAX_INT_ENC_LEN 9 /* 0xF4 + 8 bytes */
#define LP_MAX_BACKLEN_LEN 5
#define LP_MAX_STR_HDR_LEN 5

/* ---------------------------------------------------------------------------
 * Header access
 * ------------------------------------------------------------------------- */

static inline uint32_t lpReadU32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline void lpWriteU32(unsigned char *p, uint32_t v) {
    p[0] = v & 0xFF;
    p[1] = (v >> 8) & 0xFF;
    p[2] = (v >> 16) & 0xFF;
    p[3] = (v >> 24) & 0xFF;
}

static inline uint32_t lpHdrBytes(const unsigned char *lp) { return lpReadU32(lp); }
static inline unsigned lpHdrCount(const unsigned char *lp) { return (unsigned)lp[4] | ((unsigned)lp[5] << 8); }
static inline void lpSetHdrBytes(unsigned char *lp, size_t v) { lpWriteU32(lp, (uint32_t)v); }
static inline void lpSetHdrCount(unsigned char *lp, unsigned long v) {
    if (v > LP_HDR_NUMELE_UNKNOWN) v = LP_HDR_NUMELE_UNKNOWN;
    lp[4] = v & 0xFF;
    lp[5] = (v >> 8) & 0xFF;
}

/* ---------------------------------------------------------------------------
 * Entry codec
 * ------------------------------------------------------------------------- */

/* Bytes of backlen needed to store the value l. */
static inline size_t lpBacklenSize(size_t l) {
    if (l < (1u << 7)) return 1;
    if (l < (1u << 14)) return 2;
    if (l < (1u << 21)) return 3;
    if (l < (1u << 28)) return 4;
    return 5;
}

/* Writes the backlen of l into buf (left to right as stored) and returns
 * its size. The rightmost byte holds the least significant 7 bits; every
 * byte except the leftmost carries 0x80 to say "more bytes to the left". */
static size_t lpEncodeBacklen(unsigned char *buf, size_t l) {
    size_t n = lpBacklenSize(l);
    for (size_t k = 0; k < n; k++) {
        unsigned char b = (l >> (7 * k)) & 0x7F;
        if (k < n - 1) b |= 0x80;
        buf[n - 1 - k] = b;
    }
    return n;
}

/* Reads a backlen whose last byte is at q (moving left). */
static size_t lpDecodeBacklen(const unsigned char *q) {
    size_t v = 0;
    unsigned shift = 0;
    for (int i = 0; i < LP_MAX_BACKLEN_LEN; i++) {
        v |= (size_t)(q[0] & 0x7F) << shift;
        if (!(q[0] & 0x80)) return v;
        q--;
        shift += 7;
    }
    lpAssert(0 && "corrupt backlen");
    return 0;
}

/* Size of the encoding+data part of the entry at p (no backlen). */
static size_t lpEncodedSize(const unsigned char *p) {
    unsigned char b = p[0];
    if ((b & LP_ENC_7BIT_UINT_MASK) == LP_ENC_7BIT_UINT) return 1;
    if ((b & LP_ENC_6BIT_STR_MASK) == LP_ENC_6BIT_STR) return 1 + (b & 0x3F);
    if ((b & LP_ENC_13BIT_INT_MASK) == LP_ENC_13BIT_INT) return 2;
    if ((b & LP_ENC_12BIT_STR_MASK) == LP_ENC_12BIT_STR) return 2 + (((size_t)(b & 0x0F) << 8) | p[1]);
    switch (b) {
    case LP_ENC_16BIT_INT: return 3;
    case LP_ENC_24BIT_INT: return 4;
    case LP_ENC_32BIT_INT: return 5;
    case LP_ENC_64BIT_INT: return 9;
    case LP_ENC_32BIT_STR: return 5 + (size_t)lpReadU32(p + 1);
    }
    lpAssert(0 && "invalid listpack encoding");
    return 0;
}

/* Size of the whole entry at p, backlen included. */
static inline size_t lpEntrySize(const unsigned char *p) {
    size_t l = lpEncodedSize(p);
    return l + lpBacklenSize(l);
}

/* Integers as n (1..8) bytes of little-endian two's complement: the
 * listpack's 16..64-bit encodings and the packed form's integer runs. */
static inline void lpWriteIntLE(unsigned char *dst, long long v, size_t n) {
    uint64_t u = (uint64_t)v;
    for (size_t i = 0; i < n; i++) dst[i] = (u >> (8 * i)) & 0xFF;
}

static inline long long lpReadIntLE(const unsigned char *p, size_t n) {
    uint64_t u = 0;
    for (size_t i = 0; i < n; i++) u |= (uint64_t)p[i] << (8 * i);
    if (n < 8 && (u & (1ULL << (8 * n - 1)))) u |= ~0ULL << (8 * n); /* sign-extend */
    return (long long)u;
}

/* Encodes integer v into buf (at most LP_MAX_INT_ENC_LEN bytes) using the
 * smallest encoding that holds it; returns the length. */
static size_t lpEncodeInteger(unsigned char *buf, long long v) {
    if (v >= 0 && v <= 127) {
        buf[0] = (unsigned char)v;
        return 1;
    }
    if (v >= -4096 && v <= 4095) {
        uint64_t u = (uint64_t)v & 0x1FFF;
        buf[0] = LP_ENC_13BIT_INT | (unsigned char)(u >> 8);
        buf[1] = u & 0xFF;
        return 2;
    }
    size_t n;
    if (v >= -32768 && v <= 32767) {
        buf[0] = LP_ENC_16BIT_INT;
        n = 2;
    } else if (v >= -8388608 && v <= 8388607) {
        buf[0] = LP_ENC_24BIT_INT;
        n = 3;
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        buf[0] = LP_ENC_32BIT_INT;
        n = 4;
    } else {
        buf[0] = LP_ENC_64BIT_INT;
        n = 8;
    }
    lpWriteIntLE(buf + 1, v, n);
    return 1 + n;
}

/* Writes the header of a string of slen bytes into buf; returns its size. */
static size_t lpEncodeStringHeader(unsigned char *buf, size_t slen) {
    if (slen < 64) {
        buf[0] = LP_ENC_6BIT_STR | (unsigned char)slen;
        return 1;
    }
    if (slen < 4096) {
        buf[0] = LP_ENC_12BIT_STR | (unsigned char)(slen >> 8);
        buf[1] = slen & 0xFF;
        return 2;
    }
    buf[0] = LP_ENC_32BIT_STR;
    lpWriteU32(buf + 1, (uint32_t)slen);
    return 5;
}

/* An element ready to be written: `hdr` holds the whole encoding for an
 * integer, or the header for a string whose bytes are `data`. */
typedef struct lpEncoded {
    unsigned char hdr[LP_MAX_INT_ENC_LEN];
    size_t hdrlen;
    const unsigned char *data;
    size_t datalen;
} lpEncoded;

static inline size_t lpEncodedLen(const lpEncoded *e) { return e->hdrlen + e->datalen; }

static void lpPrepareInteger(lpEncoded *e, long long v) {
    e->hdrlen = lpEncodeInteger(e->hdr, v);
    e->data = NULL;
    e->datalen = 0;
}

/* Strings that are canonical integers become integers. */
static void lpPrepareString(lpEncoded *e, const unsigned char *s, size_t slen) {
    long long v;
    if (slen > 0 && slen <= 20 && string2ll((const char *)s, slen, &v)) {
        lpPrepareInteger(e, v);
        return;
    }
    e->hdrlen = lpEncodeStringHeader(e->hdr, slen);
    e->data = s;
    e->datalen = slen;
}

/* Copies the encoded element plus its backlen to dst; returns bytes written. */
static size_t lpWriteEncoded(unsigned char *dst, const lpEncoded *e) {
    memcpy(dst, e->hdr, e->hdrlen);
    if (e->datalen) memcpy(dst + e->hdrlen, e->data, e->datalen);
    size_t l = lpEncodedLen(e);
    return l + lpEncodeBacklen(dst + l, l);
}

/* Decodes the entry at p: returns the string pointer and sets *slen, or
 * returns NULL and sets *lval for integers. */
static unsigned char *lpDecode(unsigned char *p, size_t *slen, long long *lval) {
    unsigned char b = p[0];
    if ((b & LP_ENC_7BIT_UINT_MASK) == LP_ENC_7BIT_UINT) {
        *lval = b;
        return NULL;
    }
    if ((b & LP_ENC_6BIT_STR_MASK) == LP_ENC_6BIT_STR) {
        *slen = b & 0x3F;
        return p + 1;
    }
    if ((b & LP_ENC_13BIT_INT_MASK) == LP_ENC_13BIT_INT) {
        long long u = ((long long)(b & 0x1F) << 8) | p[1];
        *lval = u >= 4096 ? u - 8192 : u;
        return NULL;
    }
    if ((b & LP_ENC_12BIT_STR_MASK) == LP_ENC_12BIT_STR) {
        *slen = ((size_t)(b & 0x0F) << 8) | p[1];
        return p + 2;
    }
    size_t n = 0;
    switch (b) {
    case LP_ENC_32BIT_STR: *slen = lpReadU32(p + 1); return p + 5;
    case LP_ENC_16BIT_INT: n = 2; break;
    case LP_ENC_24BIT_INT: n = 3; break;
    case LP_ENC_32BIT_INT: n = 4; break;
    case LP_ENC_64BIT_INT: n = 8; break;
    default: lpAssert(0 && "invalid listpack encoding");
    }
    *lval = lpReadIntLE(p + 1, n);
    return NULL;
}

/* ---------------------------------------------------------------------------
 * Creation and size
 * ------------------------------------------------------------------------- */

/* See listpack.h. */
unsigned char *lpNew(size_t capacity) {
    size_t sz = LP_HDR_SIZE + 1;
    unsigned char *lp = zmalloc(capacity > sz ? capacity : sz);
    lpSetHdrBytes(lp, sz);
    lpSetHdrCount(lp, 0);
    lp[LP_HDR_SIZE] = LP_EOF;
    return lp;
}

/* See listpack.h. */
void lpFree(unsigned char *lp) { zfree(lp); }

/* See listpack.h. */
unsigned char *lpShrinkToFit(unsigned char *lp) {
    size_t sz = lpHdrBytes(lp);
    if (zmalloc_size(lp) > sz) return zrealloc(lp, sz);
    return lp;
}

/* See listpack.h. */
unsigned char *lpDup(unsigned char *lp) {
    size_t sz = lpHdrBytes(lp);
    unsigned char *copy = zmalloc(sz);
    memcpy(copy, lp, sz);
    return copy;
}

/* See listpack.h. */
size_t lpBytes(unsigned char *lp) { return lpHdrBytes(lp); }

/* See listpack.h. */
unsigned long lpLength(unsigned char *lp) {
    unsigned cnt = lpHdrCount(lp);
    if (cnt != LP_HDR_NUMELE_UNKNOWN) return cnt;
    unsigned long n = 0;
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) n++;
    if (n < LP_HDR_NUMELE_UNKNOWN) lpSetHdrCount(lp, n); /* shrank since: cache it */
    return n;
}

/* See listpack.h. */
int lpSafeToAdd(unsigned char *lp, size_t add) {
    size_t len = lp ? lpHdrBytes(lp) : 0;
    return len + add <= LP_MAX_SAFETY_SIZE;
}

/* See listpack.h. */
size_t lpEntrySizeInteger(long long v) {
    unsigned char buf[LP_MAX_INT_ENC_LEN];
    size_t l = lpEncodeInteger(buf, v);
    return l + lpBacklenSize(l);
}

/* See listpack.h. */
size_t lpEntrySizeString(const unsigned char *s, size_t len) {
    lpEncoded e;
    lpPrepareString(&e, s, len);
    size_t l = lpEncodedLen(&e);
    return l + lpBacklenSize(l);
}

/* ---------------------------------------------------------------------------
 * Navigation
 * ------------------------------------------------------------------------- */

static inline unsigned char *lpEofPtr(unsigned char *lp) { return lp + lpHdrBytes(lp) - 1; }

/* See listpack.h. */
unsigned char *lpFirst(unsigned char *lp) {
    unsigned char *p = lp + LP_HDR_SIZE;
    return p[0] == LP_EOF ? NULL : p;
}

/* See listpack.h. */
unsigned char *lpNext(unsigned char *lp, unsigned char *p) {
    lpAssert(p[0] != LP_EOF);
    p += lpEntrySize(p);
    lpAssert(p <= lpEofPtr(lp));
    return p[0] == LP_EOF ? NULL : p;
}

/* See listpack.h. */
unsigned char *lpSkipSlow(unsigned char *p) {
    lpAssert(p[0] != LP_EOF);
    return p + lpEntrySize(p);
}

/* Entry before p, where p may also be the terminator; NULL at the head. */
static unsigned char *lpPrevRaw(unsigned char *lp, unsigned char *p) {
    if (p == lp + LP_HDR_SIZE) return NULL;
    size_t l = lpDecodeBacklen(p - 1);
    unsigned char *prev = p - lpBacklenSize(l) - l;
    lpAssert(prev >= lp + LP_HDR_SIZE);
    return prev;
}

/* See listpack.h. */
unsigned char *lpPrev(unsigned char *lp, unsigned char *p) {
    lpAssert(p[0] != LP_EOF);
    return lpPrevRaw(lp, p);
}

/* See listpack.h. */
unsigned char *lpLast(unsigned char *lp) { return lpPrevRaw(lp, lpEofPtr(lp)); }

/* See listpack.h. */
unsigned char *lpSeek(unsigned char *lp, long index) {
    unsigned long n = lpLength(lp);
    if (index < 0) index += (long)n;
    if (index < 0 || (unsigned long)index >= n) return NULL;
    unsigned char *p;
    if ((unsigned long)index <= n / 2) {
        p = lpFirst(lp);
        while (index-- > 0) p = lpNext(lp, p);
    } else {
        p = lpLast(lp);
        for (unsigned long back = n - 1 - (unsigned long)index; back > 0; back--) p = lpPrev(lp, p);
    }
    return p;
}

/* ---------------------------------------------------------------------------
 * Reading
 * ------------------------------------------------------------------------- */

/* See listpack.h. */
unsigned char *lpGet(unsigned char *p, int64_t *len, unsigned char *intbuf) {
    size_t slen;
    long long v;
    unsigned char *s = lpDecode(p, &slen, &v);
    if (s) {
        *len = (int64_t)slen;
        return s;
    }
    if (!intbuf) {
        *len = v;
        return NULL;
    }
    *len = ll2string((char *)intbuf, LP_INTBUF_SIZE, v);
    return intbuf;
}

/* See listpack.h. */
unsigned char *lpGetValue(unsigned char *p, unsigned int *slen, long long *lval) {
    size_t l;
    unsigned char *s = lpDecode(p, &l, lval);
    if (s) *slen = (unsigned int)l;
    return s;
}

/* See listpack.h. */
void lpGetEntry(unsigned char *p, listpackEntry *e) {
    size_t l = 0;
    e->lval = 0;
    e->sval = lpDecode(p, &l, &e->lval);
    e->slen = (uint32_t)l;
}

/* See listpack.h. */
int lpGetIntegerIfValidSlow(unsigned char *p, long long *lval) {
    size_t slen;
    long long v;
    unsigned char *s = lpDecode(p, &slen, &v);
    if (s) return string2ll((const char *)s, slen, lval);
    *lval = v;
    return 1;
}

/* Compares the entry at p with s, given s's integer value when it has one
 * (s_is_int), so the integer test runs once per search, not per entry. */
static int lpCompareWith(unsigned char *p, const unsigned char *s, size_t slen, int s_is_int, long long s_int) {
    size_t l;
    long long v;
    unsigned char *es = lpDecode(p, &l, &v);
    if (es) return l == slen && memcmp(es, s, slen) == 0;
    return s_is_int && v == s_int;
}

static int lpStringIsInteger(const unsigned char *s, size_t slen, long long *v) {
    return slen > 0 && slen <= 20 && string2ll((const char *)s, slen, v);
}

/* See listpack.h. */
int lpCompare(unsigned char *p, const unsigned char *s, size_t slen) {
    long long v = 0;
    int isint = lpStringIsInteger(s, slen, &v);
    return lpCompareWith(p, s, slen, isint, v);
}

/* See listpack.h. */
unsigned char *lpFind(unsigned char *lp, unsigned char *p, const unsigned char *s, size_t slen, unsigned int skip) {
    long long v = 0;
    int isint = lpStringIsInteger(s, slen, &v);
    while (p) {
        if (lpCompareWith(p, s, slen, isint, v)) return p;
        for (unsigned int i = 0; i <= skip && p; i++) p = lpNext(lp, p);
    }
    return NULL;
}

/* ---------------------------------------------------------------------------
 * Writing
 * ------------------------------------------------------------------------- */

/* The one primitive every writer uses: replaces the `oldlen` bytes at
 * offset `pos` with the element `e` (or with nothing if e is NULL), moves
 * the tail, resizes, and adjusts the header count by `delta`. Returns the
 * new listpack; the element (or what follows the removed bytes) starts at
 * lp + pos. */
/* Gives lp's block room for exactly total bytes' size class. The block
 * usually has it already: an entry of a few bytes rarely crosses one of
 * the allocator's size classes, and asking for the block's size costs far
 * less than a realloc() that ends up keeping the block where it is. */
static unsigned char *lpResize(unsigned char *lp, size_t total) {
    size_t have = zmalloc_size(lp);
    if (total <= have && zmalloc_good_size(total) == have) return lp;
    return zrealloc(lp, total);
}

static unsigned char *lpSplice(unsigned char *lp, size_t pos, size_t oldlen, const lpEncoded *e, long delta) {
    size_t bytes = lpHdrBytes(lp);
    size_t newlen = 0;
    if (e) {
        size_t l = lpEncodedLen(e);
        newlen = l + lpBacklenSize(l);
    }
    size_t total = bytes - oldlen + newlen;
    lpAssert(total <= UINT32_MAX);
    size_t tail = bytes - pos - oldlen; /* bytes after the replaced range, EOF included */

    /* A string may point into lp itself (e.g. copying one element onto
     * another): copy it out before moving anything. */
    lpEncoded local;
    unsigned char *tmp = NULL;
    if (e && e->datalen && e->data >= lp && e->data < lp + bytes) {
        tmp = zmalloc(e->datalen);
        memcpy(tmp, e->data, e->datalen);
        local = *e;
        local.data = tmp;
        e = &local;
    }

    if (newlen > oldlen) {
        lp = lpResize(lp, total);
        memmove(lp + pos + newlen, lp + pos + oldlen, tail);
    } else if (newlen < oldlen) {
        memmove(lp + pos + newlen, lp + pos + oldlen, tail);
        lp = lpResize(lp, total);
    }
    if (e) lpWriteEncoded(lp + pos, e);
    zfree(tmp);

    lpSetHdrBytes(lp, total);
    unsigned cnt = lpHdrCount(lp);
    if (cnt != LP_HDR_NUMELE_UNKNOWN) lpSetHdrCount(lp, (unsigned long)((long)cnt + delta));
    return lp;
}

/* Inserts/replaces relative to p as described for lpInsertString(). */
static unsigned char *lpInsertEncoded(unsigned char *lp, const lpEncoded *e, unsigned char *p, int where,
                                      unsigned char **newp) {
    size_t pos, oldlen = 0;
    long delta = 1;
    if (p == NULL) {
        lpAssert(where == LP_BEFORE);
        p = lpEofPtr(lp);
    }
    if (where == LP_AFTER) {
        lpAssert(p[0] != LP_EOF);
        p += lpEntrySize(p);
    } else if (where == LP_REPLACE) {
        lpAssert(p[0] != LP_EOF);
        oldlen = lpEntrySize(p);
        delta = 0;
    }
    pos = (size_t)(p - lp);
    lp = lpSplice(lp, pos, oldlen, e, delta);
    if (newp) *newp = lp + pos;
    return lp;
}

/* See listpack.h. */
unsigned char *lpInsertString(unsigned char *lp, const unsigned char *s, size_t slen, unsigned char *p, int where,
                              unsigned char **newp) {
    lpEncoded e;
    lpPrepareString(&e, s, slen);
    return lpInsertEncoded(lp, &e, p, where, newp);
}

/* See listpack.h. */
unsigned char *lpInsertInteger(unsigned char *lp, long long v, unsigned char *p, int where, unsigned char **newp) {
    lpEncoded e;
    lpPrepareInteger(&e, v);
    return lpInsertEncoded(lp, &e, p, where, newp);
}

/* See listpack.h. */
unsigned char *lpAppend(unsigned char *lp, const unsigned char *s, size_t slen) {
    return lpInsertString(lp, s, slen, NULL, LP_BEFORE, NULL);
}

/* See listpack.h. */
unsigned char *lpPrepend(unsigned char *lp, const unsigned char *s, size_t slen) {
    return lpInsertString(lp, s, slen, lp + LP_HDR_SIZE, LP_BEFORE, NULL);
}

/* See listpack.h. */
unsigned char *lpAppendInteger(unsigned char *lp, long long v) {
    return lpInsertInteger(lp, v, NULL, LP_BEFORE, NULL);
}

/* See listpack.h. */
unsigned char *lpPrependInteger(unsigned char *lp, long long v) {
    return lpInsertInteger(lp, v, lp + LP_HDR_SIZE, LP_BEFORE, NULL);
}

/* See listpack.h. */
unsigned char *lpReplace(unsigned char *lp, unsigned char **p, const unsigned char *s, size_t slen) {
    return lpInsertString(lp, s, slen, *p, LP_REPLACE, p);
}

/* See listpack.h. */
unsigned char *lpReplaceInteger(unsigned char *lp, unsigned char **p, long long v) {
    return lpInsertInteger(lp, v, *p, LP_REPLACE, p);
}

/* See listpack.h. */
unsigned char *lpDeleteRangeWithEntry(unsigned char *lp, unsigned char **p, unsigned long num) {
    unsigned char *start = *p, *end = start;
    unsigned long deleted = 0;
    while (deleted < num && end[0] != LP_EOF) {
        end += lpEntrySize(end);
        deleted++;
    }
    size_t pos = (size_t)(start - lp);
    lp = lpSplice(lp, pos, (size_t)(end - start), NULL, -(long)deleted);
    *p = lp[pos] == LP_EOF ? NULL : lp + pos;
    return lp;
}

/* See listpack.h. */
unsigned char *lpDelete(unsigned char *lp, unsigned char *p, unsigned char **newp) {
    lp = lpDeleteRangeWithEntry(lp, &p, 1);
    if (newp) *newp = p;
    return lp;
}

/* See listpack.h. */
unsigned char *lpDeleteRange(unsigned char *lp, long index, unsigned long num) {
    if (num == 0) return lp;
    unsigned char *p = lpSeek(lp, index);
    if (!p) return lp;
    return lpDeleteRangeWithEntry(lp, &p, num);
}

/* See listpack.h. */
unsigned char *lpAppendAll(unsigned char *lp, unsigned char *src) {
    size_t add = lpHdrBytes(src) - LP_HDR_SIZE - 1;
    if (add == 0) return lp;
    size_t bytes = lpHdrBytes(lp);
    size_t total = bytes + add;
    lpAssert(total <= UINT32_MAX);
    unsigned long cnt = lpHdrCount(lp), scnt = lpHdrCount(src);
    lp = zrealloc(lp, total);
    memcpy(lp + bytes - 1, src + LP_HDR_SIZE, add);
    lp[total - 1] = LP_EOF;
    lpSetHdrBytes(lp, total);
    if (cnt == LP_HDR_NUMELE_UNKNOWN || scnt == LP_HDR_NUMELE_UNKNOWN)
        lpSetHdrCount(lp, LP_HDR_NUMELE_UNKNOWN);
    else
        lpSetHdrCount(lp, cnt + scnt);
    return lp;
}

/* ---------------------------------------------------------------------------
 * Building in bulk
 * ------------------------------------------------------------------------- */

/* See listpack.h. */
void lpBuilderInit(lpBuilder *b, size_t capacity) {
    b->cap = capacity > LP_HDR_SIZE + 1 ? capacity : LP_HDR_SIZE + 1;
    b->buf = zmalloc(b->cap);
    b->len = LP_HDR_SIZE;
    b->count = 0;
}

/* See listpack.h. */
void lpBuilderGrow(lpBuilder *b, size_t add) {
    size_t need = b->len + add + 1;
    if (need <= b->cap) return;
    size_t cap = b->cap * 2;
    if (cap < need) cap = need;
    b->buf = zrealloc(b->buf, cap);
    b->cap = cap;
}

/* See listpack.h. */
void lpBuilderAppendIntegerSlow(lpBuilder *b, long long v) {
    lpBuilderGrow(b, LP_MAX_INT_ENC_LEN + 1);
    unsigned char *dst = b->buf + b->len;
    size_t l = lpEncodeInteger(dst, v);
    dst[l] = (unsigned char)l; /* l <= 9: the backlen is that one byte */
    b->len += l + 1;
    b->count++;
}

/* See listpack.h. */
unsigned char *lpBuilderFinish(lpBuilder *b) {
    lpAssert(b->len + 1 <= UINT32_MAX);
    unsigned char *lp = b->buf;
    lp[b->len] = LP_EOF;
    lpSetHdrBytes(lp, b->len + 1);
    lpSetHdrCount(lp, b->count);
    b->buf = NULL;
    b->len = b->cap = 0;
    b->count = 0;
    return lp;
}

/* See listpack.h. */
void lpBuilderDiscard(lpBuilder *b) {
    zfree(b->buf);
    b->buf = NULL;
    b->len = b->cap = 0;
    b->count = 0;
}

/* ---------------------------------------------------------------------------
 * Packed form (see listpack.h)
 * ------------------------------------------------------------------------- */

/* Writes v as a varint at dst (at most 10 bytes); returns its length. */
static size_t lpPutVarint(unsigned char *dst, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        dst[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    dst[n++] = (unsigned char)v;
    return n;
}

static uint64_t lpGetVarint(const unsigned char **pp) {
    const unsigned char *p = *pp;
    uint64_t v = 0;
    unsigned shift = 0;
    do {
        lpAssert(shift < 64);
        v |= (uint64_t)(*p & 0x7F) << shift;
        shift += 7;
    } while (*p++ & 0x80);
    *pp = p;
    return v;
}

/* Bytes of two's complement that hold v (1..8). */
static size_t lpIntegerWidth(long long v) {
    size_t n = 1;
    while (n < 8 && (v < -(1LL << (8 * n - 1)) || v >= (1LL << (8 * n - 1)))) n++;
    return n;
}

/* The run class of entry p: *integers, *size (string length or integer
 * width) and, through *s or *lval, its value. Returns 0 if p is not in its
 * smallest encoding, so unpacking would not give the same bytes back. */
static int lpPackClass(unsigned char *p, int *integers, size_t *size, unsigned char **s, long long *lval) {
    size_t slen = 0;
    unsigned char buf[LP_MAX_INT_ENC_LEN];
    *s = lpDecode(p, &slen, lval);
    if (*s) {
        *integers = 0;
        *size = slen;
        return lpEncodedSize(p) == lpEncodeStringHeader(buf, slen) + slen;
    }
    *integers = 1;
    *size = lpIntegerWidth(*lval);
    return lpEncodedSize(p) == lpEncodeInteger(buf, *lval);
}

/* memcpy() for the short strings runs are made of, without a call: up to
 * 16 bytes as two overlapping words (never past either end). */
static inline void lpCopyShort(unsigned char *dst, const unsigned char *src, size_t n) {
    uint64_t a, b;
    uint32_t x, y;
    if (n >= 8 && n <= 16) {
        memcpy(&a, src, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(&x, src, 4);
        memcpy(&y, src + n - 4, 4);
        memcpy(dst, &x, 4);
        memcpy(dst + n - 4, &y, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++) dst[i] = src[i];
    } else {
        memcpy(dst, src, n);
    }
}

/* Writes the element data of the `count` entries from p (one run) to dst:
 * the string bytes, or each integer in `size` bytes. */
static void lpPackRunData(unsigned char *p, unsigned long count, int integers, size_t size, unsigned char *dst) {
    if (!integers) {
        /* Equal-length strings have equal encodings: a fixed stride. */
        size_t hdr = lpEncodedSize(p) - size, stride = lpEntrySize(p);
        for (p += hdr; count--; p += stride, dst += size) lpCopyShort(dst, p, size);
        return;
    }
    for (; count--; p += lpEntrySize(p), dst += size) {
        size_t slen;
        long long v = 0;
        lpDecode(p, &slen, &v);
        lpWriteIntLE(dst, v, size);
    }
}

/* See listpack.h. */
size_t lpPack(unsigned char *lp, unsigned char *dst, size_t room) {
    size_t used = 0;
    unsigned char *p = lp + LP_HDR_SIZE;
    while (*p != LP_EOF) {
        int integers;
        size_t size;
        unsigned char *s;
        long long v;
        if (!lpPackClass(p, &integers, &size, &s, &v)) return 0;
        /* The run: p and the entries after it of the same class. Strings
         * of p's length are exactly those with p's header bytes. */
        unsigned long count = 1;
        unsigned char *q = p + lpEntrySize(p);
        if (!integers) {
            size_t hdr = (size_t)(s - p), stride = (size_t)(q - p);
            while (*q == p[0] && (hdr == 1 || memcmp(q + 1, p + 1, hdr - 1) == 0)) {
                q += stride;
                count++;
            }
        } else {
            while (*q != LP_EOF) {
                int qint;
                size_t qsize;
                unsigned char *qs;
                long long qv;
                if (!lpPackClass(q, &qint, &qsize, &qs, &qv)) return 0;
                if (!qint || qsize != size) break;
                q += lpEntrySize(q);
                count++;
            }
        }
        unsigned char hdr[20];
        size_t h = lpPutVarint(hdr, (uint64_t)count << 1 | (uint64_t)integers);
        h += lpPutVarint(hdr + h, size);
        if (used + h + count * size > room) return 0;
        memcpy(dst + used, hdr, h);
        lpPackRunData(p, count, integers, size, dst + used + h);
        used += h + count * size;
        p = q;
    }
    return used;
}

/* See listpack.h. */
void lpPackedReaderInit(lpPackedReader *r, const unsigned char *p, size_t len) {
    r->p = p;
    r->end = p + len;
    r->left = 0;
    r->size = 0;
    r->integers = 0;
}

/* Loads the next run header; 0 at the end. */
static int lpPackedNextRun(lpPackedReader *r) {
    if (r->p >= r->end) return 0;
    uint64_t h = lpGetVarint(&r->p);
    r->left = (unsigned long)(h >> 1);
    r->integers = (int)(h & 1);
    r->size = (size_t)lpGetVarint(&r->p);
    lpAssert(r->left > 0 && r->p + r->left * r->size <= r->end && (!r->integers || (r->size >= 1 && r->size <= 8)));
    return 1;
}

/* See listpack.h. */
int lpPackedNext(lpPackedReader *r, const unsigned char **s, unsigned int *slen, long long *lval) {
    if (r->left == 0 && !lpPackedNextRun(r)) return 0;
    r->left--;
    const unsigned char *p = r->p;
    r->p += r->size;
    if (!r->integers) {
        *s = p;
        *slen = (unsigned int)r->size;
        return 1;
    }
    *s = NULL;
    *lval = lpReadIntLE(p, r->size);
    return 1;
}

/* See listpack.h. */
void lpPackedSkip(lpPackedReader *r, unsigned long n) {
    while (n > 0) {
        if (r->left == 0 && !lpPackedNextRun(r)) return;
        unsigned long k = n < r->left ? n : r->left;
        r->p += k * r->size;
        r->left -= k;
        n -= k;
    }
}

/* See listpack.h. */
unsigned char *lpUnpack(const unsigned char *p, size_t len, size_t lp_bytes) {
    lpAssert(lp_bytes >= LP_HDR_SIZE + 1);
    unsigned char *lp = zmalloc(lp_bytes);
    unsigned char *at = lp + LP_HDR_SIZE, *end = lp + lp_bytes - 1; /* end: the terminator */
    unsigned long count = 0;
    lpPackedReader r;
    lpPackedReaderInit(&r, p, len);
    while (lpPackedNextRun(&r)) {
        count += r.left;
        if (r.integers) {
            const unsigned char *s;
            unsigned int slen;
            long long v;
            while (r.left) {
                lpPackedNext(&r, &s, &slen, &v);
                unsigned char enc[LP_MAX_INT_ENC_LEN];
                size_t l = lpEncodeInteger(enc, v);
                lpAssert(at + l + 1 <= end);
                memcpy(at, enc, l);
                at[l] = (unsigned char)l; /* l <= 9: a one-byte backlen */
                at += l + 1;
            }
            continue;
        }
        /* Strings of one length: the same header and backlen for each. */
        unsigned char hdr[LP_MAX_STR_HDR_LEN], back[LP_MAX_BACKLEN_LEN];
        size_t h = lpEncodeStringHeader(hdr, r.size), b = lpEncodeBacklen(back, h + r.size);
        size_t stride = h + r.size + b;
        lpAssert(r.left <= (size_t)(end - at) / stride);
        if (h == 1 && b == 1) { /* strings under 64 bytes: the usual case */
            for (; r.left; r.left--, r.p += r.size, at += stride) {
                at[0] = hdr[0];
                lpCopyShort(at + 1, r.p, r.size);
                at[1 + r.size] = back[0];
            }
        }
        for (; r.left; r.left--, r.p += r.size, at += stride) {
            memcpy(at, hdr, h);
            memcpy(at + h, r.p, r.size);
            memcpy(at + h + r.size, back, b);
        }
    }
    lpAssert(at == end);
    *end = LP_EOF;
    lpSetHdrBytes(lp, lp_bytes);
    lpSetHdrCount(lp, count);
    return lp;
}

/* ---------------------------------------------------------------------------
 * Checking
 * ------------------------------------------------------------------------- */

/* Size of the encoding+data of the entry at p, reading no byte at or past
 * `end`; 0 if the entry does not fit or the encoding is invalid. */
static size_t lpEncodedSizeSafe(const unsigned char *p, const unsigned char *end) {
    unsigned char b = p[0];
    size_t need;
    if ((b & LP_ENC_7BIT_UINT_MASK) == LP_ENC_7BIT_UINT || (b & LP_ENC_6BIT_STR_MASK) == LP_ENC_6BIT_STR)
        need = 1;
    else if ((b & LP_ENC_13BIT_INT_MASK) == LP_ENC_13BIT_INT || (b & LP_ENC_12BIT_STR_MASK) == LP_ENC_12BIT_STR)
        need = 2;
    else if (b == LP_ENC_32BIT_STR)
        need = 5;
    else if (b >= LP_ENC_16BIT_INT && b <= LP_ENC_64BIT_INT)
        need = 1;
    else
        return 0; /* 0xF5..0xFF: invalid or a misplaced terminator */
    if ((size_t)(end - p) < need) return 0;
    size_t l = lpEncodedSize(p);
    if ((size_t)(end - p) < l) return 0;
    return l;
}

/* See listpack.h. */
int lpValidateIntegrity(unsigned char *lp, size_t size, int deep, lpValidateEntryCB cb, void *userdata) {
    if (size < LP_HDR_SIZE + 1) return 0;
    if (lpHdrBytes(lp) != size) return 0;
    if (lp[size - 1] != LP_EOF) return 0;
    if (!deep) return 1;

    unsigned char *p = lp + LP_HDR_SIZE, *end = lp + size - 1;
    unsigned hdrcount = lpHdrCount(lp);
    unsigned long count = 0;
    while (p < end) {
        /* Small integers and short strings, most of any listpack, are
         * sized inline; lpEncodedSizeSafe() checks every other form. */
        size_t l;
        if (p[0] < 0x80) {
            l = 1;
        } else if ((p[0] & 0xC0) == 0x80) {
            l = 1 + (size_t)(p[0] & 0x3F);
            if ((size_t)(end - p) < l) return 0;
        } else {
            l = lpEncodedSizeSafe(p, end);
            if (l == 0) return 0;
        }
        size_t bl = lpBacklenSize(l);
        if ((size_t)(end - p) - l < bl) return 0;
        if (bl == 1) {
            if (p[l] != l) return 0;
        } else {
            unsigned char expect[LP_MAX_BACKLEN_LEN];
            lpEncodeBacklen(expect, l);
            if (memcmp(p + l, expect, bl) != 0) return 0;
        }
        if (cb && !cb(p, hdrcount, userdata)) return 0;
        p += l + bl;
        count++;
    }
    if (p != end) return 0;
    if (hdrcount != LP_HDR_NUMELE_UNKNOWN && hdrcount != count) return 0;
    return 1;
}

/* See listpack.h. */
void lpRepr(unsigned char *lp) {
    printf("{listpack bytes %zu, count %lu}\n", lpBytes(lp), lpLength(lp));
    unsigned long i = 0;
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p), i++) {
        size_t slen;
        long long v;
        unsigned char *s = lpDecode(p, &slen, &v);
        printf("  [%lu] offset %ld size %zu: ", i, (long)(p - lp), lpEntrySize(p));
        if (s)
            printf("str \"%.*s\"\n", (int)(slen > 40 ? 40 : slen), s);
        else
            printf("int %lld\n", v);
    }
}
