/* intset.h - a sorted set of 64-bit integers packed into one allocation.
 *
 * Small sets whose members are all integers are stored this way (OBJECT
 * ENCODING "intset"). Every element has the same width: 2, 4 or 8 bytes,
 * the narrowest that holds every member. Adding a value that does not fit
 * widens ("upgrades") the whole array; nothing ever narrows it again.
 * Elements are kept in ascending order, so lookups are binary searches and
 * insertions/removals are memmoves.
 *
 * Layout (one zmalloc block, little-endian on every host so the blob can
 * later be written to disk as is):
 *
 *     uint32 width | uint32 count | count * width bytes of elements
 *
 * Leaf library: depends on zmalloc only, never on server.h. Functions that
 * may reallocate return the (possibly moved) intset; the caller must use
 * the returned pointer and forget the old one. */
#ifndef VK_INTSET_H
#define VK_INTSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct intset {
    uint32_t encoding; /* Bytes per element: INTSET_ENC_INT16/32/64. */
    uint32_t length;   /* Number of elements. */
    int8_t contents[]; /* length * encoding bytes, ascending, little-endian. */
} intset;

#define INTSET_ENC_INT16 ((uint32_t)sizeof(int16_t))
#define INTSET_ENC_INT32 ((uint32_t)sizeof(int32_t))
#define INTSET_ENC_INT64 ((uint32_t)sizeof(int64_t))

_Static_assert(sizeof(intset) == 8, "intset header must be 8 bytes");

intset *intsetNew(void);
void intsetFree(intset *is);
intset *intsetDup(const intset *is);
intset *intsetAdd(intset *is, int64_t value, int *added);
intset *intsetRemove(intset *is, int64_t value, int *removed);
int intsetFind(const intset *is, int64_t value);
int intsetGet(const intset *is, uint32_t pos, int64_t *value);
int64_t intsetRandom(const intset *is);
int64_t intsetMin(const intset *is);
int64_t intsetMax(const intset *is);
uint32_t intsetLen(const intset *is);
size_t intsetBlobLen(const intset *is);
int intsetValidate(const void *blob, size_t size, int deep);
uint32_t intsetValueEncoding(int64_t value);

#endif
