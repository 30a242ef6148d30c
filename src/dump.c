/* dump.c - DUMP and RESTORE, and the payload format they share with
 * FUNCTION DUMP/RESTORE.
 *
 * A payload is the value's RDB type byte and body (rdbSaveObjectType() and
 * rdbSaveObject(), exactly as in an RDB file), then the RDB version as two
 * little-endian bytes and a CRC-64 of everything before it as eight
 * little-endian bytes, byte for byte what Valkey and Redis produce, so
 * payloads move between the servers in both directions (as far as the
 * version check of the receiving side allows). */
#include "dump.h"

#include "crc64.h"
#include "rdb.h"
#include "server.h"

#define DUMP_TRAILER_LEN 10 /* 2-byte version + 8-byte CRC-64 */

sds dumpPayloadSeal(sds body) {
    unsigned char trailer[DUMP_TRAILER_LEN];
    trailer[0] = RDB_VERSION & 0xff;
    trailer[1] = (RDB_VERSION >> 8) & 0xff;
    body = sdscatlen(body, trailer, 2);
    uint64_t crc = crc64(0, body, sdslen(body));
    for (int j = 0; j < 8; j++) trailer[2 + j] = (unsigned char)(crc >> (8 * j));
    return sdscatlen(body, trailer + 2, 8);
}

int dumpPayloadVerify(const unsigned char *p, size_t len, size_t *bodylen) {
    if (len < DUMP_TRAILER_LEN) return C_ERR;
    const unsigned char *trailer = p + len - DUMP_TRAILER_LEN;
    unsigned int version = trailer[0] | (trailer[1] << 8);
    if (version > RDB_VERSION_MAX_LOADABLE) return C_ERR;
    uint64_t crc = 0;
    for (int j = 7; j >= 0; j--) crc = (crc << 8) | trailer[2 + j];
    if (crc != crc64(0, p, len - 8)) return C_ERR;
    *bodylen = len - DUMP_TRAILER_LEN;
    return C_OK;
}
