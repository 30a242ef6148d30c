/* crc64.h - CRC-64/Jones, the checksum that ends an RDB file and a DUMP
 * payload (reflected, polynomial 0xad93d23594c935a9, initial value 0, no
 * final xor; crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9ca).
 *
 * A leaf library: no server state. Checksums chain: pass the previous
 * result as crc to continue over the next block. */
#ifndef CRC64_H
#define CRC64_H

#include <stddef.h>
#include <stdint.h>

uint64_t crc64(uint64_t crc, const void *data, size_t len);

#endif
