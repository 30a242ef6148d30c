/* crc64.c - CRC-64/Jones for RDB files and DUMP payloads.
 *
 * The CRC is reflected (bits enter least significant first), so a byte is
 * folded in as crc = T[(crc ^ byte) & 0xff] ^ (crc >> 8) with the tables
 * built from the bit-reversed polynomial. Eight tables let the loop fold a
 * whole little-endian 64-bit word per step ("slice-by-8"): table k gives
 * the effect of a byte that still has k more bytes to travel through.
 *
 * The tables are built from the polynomial when the program starts (a
 * constructor: 16 KB, a few microseconds), so no large constant tables live
 * in the source and crc64() has no first-use check on its path. Callers are
 * rio.c (the running checksum of a file or payload) and the unit tests. */
#include "crc64.h"
#include "byteorder.h"

#include <string.h>

#define CRC64_JONES_POLY 0xad93d23594c935a9ULL

static uint64_t crc64_table[8][256];

/* Reverses the 64 bits of v: the reflected form of a polynomial. */
static uint64_t crc64ReverseBits(uint64_t v) {
    uint64_t r = 0;
    for (int j = 0; j < 64; j++) {
        r = (r << 1) | (v & 1);
        v >>= 1;
    }
    return r;
}

/* Fills crc64_table: table 0 by bitwise division, tables 1..7 as table 0
 * applied once more to the previous table's entries. */
__attribute__((constructor)) static void crc64BuildTables(void) {
    uint64_t poly = crc64ReverseBits(CRC64_JONES_POLY);
    for (int n = 0; n < 256; n++) {
        uint64_t crc = (uint64_t)n;
        for (int b = 0; b < 8; b++) crc = (crc & 1) ? (crc >> 1) ^ poly : crc >> 1;
        crc64_table[0][n] = crc;
    }
    for (int n = 0; n < 256; n++) {
        uint64_t crc = crc64_table[0][n];
        for (int k = 1; k < 8; k++) {
            crc = crc64_table[0][crc & 0xff] ^ (crc >> 8);
            crc64_table[k][n] = crc;
        }
    }
}

/* Returns the CRC of data[0..len) continued from crc (0 to start). */
uint64_t crc64(uint64_t crc, const void *data, size_t len) {
    const unsigned char *p = data;
    while (len >= 8) {
        crc ^= loadLE64(p);
        crc = crc64_table[7][crc & 0xff] ^ crc64_table[6][(crc >> 8) & 0xff] ^
              crc64_table[5][(crc >> 16) & 0xff] ^ crc64_table[4][(crc >> 24) & 0xff] ^
              crc64_table[3][(crc >> 32) & 0xff] ^ crc64_table[2][(crc >> 40) & 0xff] ^
              crc64_table[1][(crc >> 48) & 0xff] ^ crc64_table[0][crc >> 56];
        p += 8;
        len -= 8;
    }
    while (len--) crc = crc64_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}
