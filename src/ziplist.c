/* ziplist.c - a validating reader for the legacy ziplist encoding (format in
 * ziplist.h). RDB files and DUMP payloads written by Redis before 7.0 hold
 * lists, hashes and sorted sets as ziplists; rdb_object.c walks them with
 * ziplistValidateAndDecode() and rebuilds each value as a listpack.
 *
 * Input is untrusted, so the whole blob is checked before any entry is
 * handed out: a first pass parses every entry with bounds checks and
 * compares each prevlen with the size of the entry before it, the tail
 * offset with the last entry and the count with the header; only a blob
 * that passes all of it is walked a second time for the callback. Both
 * passes share zlParseEntry(), the one place that decodes an entry.
 *
 * Leaf library: no allocation, no server.h. */
#include "ziplist.h"

#include <stdint.h>

static uint32_t zlReadLE32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t zlReadLE64(const unsigned char *p) {
    return (uint64_t)zlReadLE32(p) | ((uint64_t)zlReadLE32(p + 4) << 32);
}

/* Decodes the integer payload of encoding byte enc at data (whose length
 * zlParseEntry already checked). */
static long long zlDecodeInt(unsigned char enc, const unsigned char *data) {
    switch (enc) {
    case 0xFE: return (int8_t)data[0];
    case 0xC0: return (int16_t)(uint16_t)(data[0] | (data[1] << 8));
    case 0xF0: return (int32_t)(((uint32_t)data[0] << 8) | ((uint32_t)data[1] << 16) | ((uint32_t)data[2] << 24)) >> 8;
    case 0xD0: return (int32_t)zlReadLE32(data);
    case 0xE0: return (int64_t)zlReadLE64(data);
    default: return (long long)(enc & 0x0F) - 1; /* immediate 0..12 */
    }
}

/* Bytes of integer data after encoding byte enc, or -1 if enc is not an
 * integer encoding. */
static int zlIntDataLen(unsigned char enc) {
    switch (enc) {
    case 0xFE: return 1;
    case 0xC0: return 2;
    case 0xF0: return 3;
    case 0xD0: return 4;
    case 0xE0: return 8;
    default: return (enc >= 0xF1 && enc <= 0xFD) ? 0 : -1;
    }
}

/* Parses the entry at p, which must end before `end` (the terminator).
 * Returns its total size and fills *e and *prevlen, or returns 0 if the
 * entry is malformed or overruns. */
static size_t zlParseEntry(const unsigned char *p, const unsigned char *end, ziplistEntry *e, uint32_t *prevlen) {
    size_t avail = (size_t)(end - p), hdr;
    if (avail < 2) return 0;
    if (p[0] < 0xFE) {
        *prevlen = p[0];
        hdr = 1;
    } else if (p[0] == 0xFE) {
        if (avail < 6) return 0;
        *prevlen = zlReadLE32(p + 1);
        hdr = 5;
    } else {
        return 0; /* 0xFF: a terminator where an entry should be */
    }
    unsigned char enc = p[hdr];
    uint64_t datalen;
    switch (enc >> 6) {
    case 0:
        datalen = enc & 0x3F;
        hdr += 1;
        e->sval = p + hdr;
        break;
    case 1:
        if (avail < hdr + 2) return 0;
        datalen = ((uint64_t)(enc & 0x3F) << 8) | p[hdr + 1];
        hdr += 2;
        e->sval = p + hdr;
        break;
    case 2:
        if (enc != 0x80 || avail < hdr + 5) return 0;
        datalen = ((uint64_t)p[hdr + 1] << 24) | ((uint64_t)p[hdr + 2] << 16) | ((uint64_t)p[hdr + 3] << 8) |
                  p[hdr + 4];
        hdr += 5;
        e->sval = p + hdr;
        break;
    default: {
        int n = zlIntDataLen(enc);
        if (n < 0) return 0;
        datalen = (uint64_t)n;
        hdr += 1;
        if (avail < hdr + datalen) return 0;
        e->sval = NULL;
        e->slen = 0;
        e->lval = zlDecodeInt(enc, p + hdr);
        return hdr + (size_t)datalen;
    }
    }
    if (datalen > avail - hdr) return 0;
    e->slen = (unsigned int)datalen;
    e->lval = 0;
    return hdr + (size_t)datalen;
}

/* The first pass: structure only. Returns 1 and the entry count if valid. */
static int zlValidate(const unsigned char *zl, size_t size, unsigned long *count) {
    if (size < ZIPLIST_HEADER_SIZE + 1 || size > UINT32_MAX) return 0;
    if (zlReadLE32(zl) != size || zl[size - 1] != ZIPLIST_END) return 0;
    uint32_t tail = zlReadLE32(zl + 4);
    unsigned hdrcount = (unsigned)zl[8] | ((unsigned)zl[9] << 8);
    const unsigned char *p = zl + ZIPLIST_HEADER_SIZE, *end = zl + size - 1, *last = NULL;
    uint32_t prevsize = 0;
    unsigned long n = 0;
    while (p < end) {
        ziplistEntry e;
        uint32_t prevlen;
        size_t sz = zlParseEntry(p, end, &e, &prevlen);
        if (sz == 0 || prevlen != prevsize) return 0;
        last = p;
        prevsize = (uint32_t)sz;
        p += sz;
        n++;
    }
    uint32_t expect_tail = last ? (uint32_t)(last - zl) : ZIPLIST_HEADER_SIZE;
    if (tail != expect_tail) return 0;
    if (hdrcount != UINT16_MAX && hdrcount != n) return 0;
    *count = n;
    return 1;
}

/* See ziplist.h. */
int ziplistValidateAndDecode(const unsigned char *zl, size_t size, ziplistEntryCB cb, void *userdata,
                             unsigned long *count) {
    unsigned long n;
    if (!zlValidate(zl, size, &n)) return 0;
    if (count) *count = n;
    if (cb == NULL) return 1;
    const unsigned char *p = zl + ZIPLIST_HEADER_SIZE, *end = zl + size - 1;
    while (p < end) {
        ziplistEntry e;
        uint32_t prevlen;
        p += zlParseEntry(p, end, &e, &prevlen);
        if (!cb(&e, userdata)) return 0;
    }
    return 1;
}
