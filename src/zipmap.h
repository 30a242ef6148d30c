/* zipmap.h - a validating reader for the zipmap, the compact hash encoding
 * of very old Redis versions (RDB_TYPE_HASH_ZIPMAP). rdb_object.c turns
 * each one it loads into a listpack or hashtable hash.
 *
 * Layout:
 *
 *     <zmlen u8> <len>key<len><free>value ... <0xFF>
 *
 * zmlen is the number of pairs, or 254 (and above) when it must be counted.
 * <len> is one byte 0..253, or 254 followed by a u32 (little endian). <free>
 * is one byte: unused bytes after the value, which are skipped. 0xFF in
 * place of a key's <len> ends the map.
 *
 * A leaf library (no server.h): the unit test links it alone. */
#ifndef VK_ZIPMAP_H
#define VK_ZIPMAP_H

#include <stddef.h>

#define ZIPMAP_BIGLEN 254
#define ZIPMAP_END 0xFF

/* Called for every pair, in order; return 0 to stop (the walk then fails). */
typedef int (*zipmapPairCB)(const unsigned char *key, unsigned int klen, const unsigned char *val,
                            unsigned int vlen, void *userdata);

/* Checks zm, received from an untrusted source as `size` bytes: every
 * length and free count in bounds, the pair count (when the header has
 * one) and a terminator exactly at the end. Then, if cb is not NULL, calls
 * it for each pair. Returns 1 if valid (and cb accepted every pair) and
 * sets *pairs (may be NULL); 0 otherwise. Never reads outside the blob. */
int zipmapValidateAndDecode(const unsigned char *zm, size_t size, zipmapPairCB cb, void *userdata,
                            unsigned long *pairs);

#endif
