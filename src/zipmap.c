/* zipmap.c - a validating reader for the legacy zipmap hash encoding (format
 * in zipmap.h), found in RDB files of very old Redis versions as
 * RDB_TYPE_HASH_ZIPMAP. rdb_object.c calls zipmapValidateAndDecode() and
 * rebuilds the hash in a current encoding.
 *
 * As for ziplists, the whole blob is checked in a first pass (every length
 * and free count in bounds, the header count when it is exact, the
 * terminator as the very last byte) before the callback sees any pair.
 *
 * Leaf library: no allocation, no server.h. */
#include "zipmap.h"

#include <stdint.h>

/* Reads a <len> field at p (before end). Returns the bytes it occupies and
 * sets *len, or returns 0 if it is malformed, overruns or is the end mark. */
static size_t zmReadLen(const unsigned char *p, const unsigned char *end, uint32_t *len) {
    if (p >= end) return 0;
    if (p[0] < ZIPMAP_BIGLEN) {
        *len = p[0];
        return 1;
    }
    if (p[0] == ZIPMAP_END || end - p < 5) return 0;
    *len = (uint32_t)p[1] | ((uint32_t)p[2] << 8) | ((uint32_t)p[3] << 16) | ((uint32_t)p[4] << 24);
    return 5;
}

/* Parses the pair at p (before end). Returns its size and the key and value
 * spans, or 0 if malformed. */
static size_t zmParsePair(const unsigned char *p, const unsigned char *end, const unsigned char **key,
                          uint32_t *klen, const unsigned char **val, uint32_t *vlen) {
    const unsigned char *start = p;
    size_t n = zmReadLen(p, end, klen);
    if (n == 0 || *klen > (size_t)(end - p) - n) return 0;
    p += n;
    *key = p;
    p += *klen;
    n = zmReadLen(p, end, vlen);
    if (n == 0) return 0;
    p += n;
    if (p >= end) return 0; /* the <free> byte */
    unsigned char freelen = *p++;
    if ((uint64_t)*vlen + freelen > (uint64_t)(end - p)) return 0;
    *val = p;
    p += *vlen + freelen;
    return (size_t)(p - start);
}

/* See zipmap.h. */
int zipmapValidateAndDecode(const unsigned char *zm, size_t size, zipmapPairCB cb, void *userdata,
                            unsigned long *pairs) {
    if (size < 2 || zm[size - 1] != ZIPMAP_END) return 0;
    const unsigned char *end = zm + size - 1, *p = zm + 1;
    unsigned long n = 0;
    while (p < end) {
        const unsigned char *k, *v;
        uint32_t kl, vl;
        size_t sz = zmParsePair(p, end, &k, &kl, &v, &vl);
        if (sz == 0) return 0;
        p += sz;
        n++;
    }
    if (zm[0] < ZIPMAP_BIGLEN && zm[0] != n) return 0;
    if (pairs) *pairs = n;
    if (cb == NULL) return 1;
    for (p = zm + 1; p < end;) {
        const unsigned char *k, *v;
        uint32_t kl, vl;
        p += zmParsePair(p, end, &k, &kl, &v, &vl);
        if (!cb(k, kl, v, vl, userdata)) return 0;
    }
    return 1;
}
