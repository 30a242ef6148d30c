/* ziplist.h - a validating reader for the ziplist, the compact list encoding
 * Redis used before listpacks (RDB types LIST_ZIPLIST, ZSET_ZIPLIST,
 * HASH_ZIPLIST and the nodes of LIST_QUICKLIST). Nothing here writes one:
 * rdb_object.c converts each ziplist it loads into a listpack.
 *
 * Layout (header fields little endian):
 *
 *     <zlbytes u32> <zltail u32> <zllen u16> <entry> ... <entry> <0xFF>
 *
 * zlbytes is the whole size, zltail the offset of the last entry (the
 * header size when empty), zllen the entry count or 65535 when it does not
 * fit. Each entry is <prevlen> <encoding> <data>:
 *
 *     prevlen   1 byte (0..253), or 0xFE then the u32 (little endian) size
 *               of the previous entry; 0 for the first entry
 *     00pppppp                     string of 0..63 bytes
 *     01pppppp qqqqqqqq            string, 14-bit length (big endian)
 *     10000000 <u32 big endian>    string, 32-bit length
 *     11000000 / 11010000 / 11100000   int16 / int32 / int64 (little endian)
 *     11110000                     int24 (little endian)
 *     11111110                     int8
 *     1111xxxx (xxxx 0001..1101)   immediate integer xxxx - 1 (0..12)
 *
 * A leaf library (no server.h): the unit test links it alone. */
#ifndef VK_ZIPLIST_H
#define VK_ZIPLIST_H

#include <stddef.h>

#define ZIPLIST_HEADER_SIZE 10
#define ZIPLIST_END 0xFF

/* One decoded entry: sval/slen (sval points into the ziplist) for strings,
 * sval == NULL and lval for integers. */
typedef struct ziplistEntry {
    const unsigned char *sval;
    unsigned int slen;
    long long lval;
} ziplistEntry;

/* Called for every entry, in order; return 0 to stop (the walk then fails). */
typedef int (*ziplistEntryCB)(const ziplistEntry *e, void *userdata);

/* Checks zl, received from an untrusted source as `size` bytes: header
 * fields, every entry's encoding, length and prevlen, the tail offset, the
 * count and the terminator, never reading outside [zl, zl+size). Then, if
 * cb is not NULL, calls it for each entry. Returns 1 if the ziplist is
 * valid (and cb accepted every entry) and sets *count (may be NULL) to the
 * number of entries; 0 otherwise. */
int ziplistValidateAndDecode(const unsigned char *zl, size_t size, ziplistEntryCB cb, void *userdata,
                             unsigned long *count);

#endif
