/* crc16.c - CRC-16/XMODEM for cluster key slots.
 *
 * The CRC is not reflected: bytes enter most significant bit first, so a
 * byte is folded in as crc = T[(crc >> 8) ^ byte] ^ (crc << 8), with T[n]
 * the remainder of n * x^16 divided by the polynomial 0x1021. The table is
 * built from the polynomial when the program starts (a constructor, 512
 * bytes, well under a microsecond), as crc64.c does, so no constant table
 * lives in the source and crc16() has no first-use check on its path.
 *
 * Callers: keyHashSlot() (cluster_slot.c) for every key a cluster node
 * routes, and the unit tests. */
#include "crc16.h"

#define CRC16_XMODEM_POLY 0x1021

static uint16_t crc16_table[256];

/* Fills crc16_table by bitwise division of each byte value shifted to the
 * top of the register. */
__attribute__((constructor)) static void crc16BuildTable(void) {
    for (int n = 0; n < 256; n++) {
        uint16_t crc = (uint16_t)(n << 8);
        for (int b = 0; b < 8; b++) crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ CRC16_XMODEM_POLY) : (uint16_t)(crc << 1);
        crc16_table[n] = crc;
    }
}

uint16_t crc16(const char *buf, size_t len) {
    const unsigned char *p = (const unsigned char *)buf;
    uint16_t crc = 0;
    for (size_t j = 0; j < len; j++) crc = (uint16_t)(crc16_table[((crc >> 8) ^ p[j]) & 0xff] ^ (crc << 8));
    return crc;
}
