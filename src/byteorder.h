/* byteorder.h - loads of little-endian words from unaligned bytes.
 *
 * Formats and algorithms defined on little-endian words (SipHash, the
 * CRC-64 of RDB files) read them through these: one unaligned load on the
 * machines we run on, plus a byte swap on a big-endian host. */
#ifndef VK_BYTEORDER_H
#define VK_BYTEORDER_H

#include <stdint.h>
#include <string.h>

static inline uint64_t loadLE64(const void *p) {
    uint64_t v;
    memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

#endif
