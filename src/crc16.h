/* crc16.h - CRC-16/XMODEM, the checksum the cluster maps keys to hash slots
 * with (cluster spec: polynomial 0x1021, initial value 0, bits most
 * significant first, no reflection, no final xor;
 * crc16("123456789", 9) == 0x31c3).
 *
 * A leaf library: no server state. keyHashSlot() (cluster_slot.c) is its
 * caller. */
#ifndef VK_CRC16_H
#define VK_CRC16_H

#include <stddef.h>
#include <stdint.h>

/* Returns the CRC-16/XMODEM of len bytes at buf (buf may be NULL when len
 * is 0). Pure; any thread. */
uint16_t crc16(const char *buf, size_t len);

#endif
