/* intset.c - sorted array of integers with per-set element width.
 *
 * The set type (t_set.c) keeps small all-integer sets here: the members are
 * stored in ascending order as fixed-width little-endian integers of 2, 4
 * or 8 bytes, so a 100-member set of small numbers costs 208 bytes instead
 * of a hash table with 100 allocated strings.
 *
 * Invariants, checked by intsetValidate():
 *   - encoding is 2, 4 or 8 and is the width of every element;
 *   - elements are strictly ascending (no duplicates);
 *   - the block is exactly 8 + length * encoding bytes.
 *
 * Byte order is handled at one boundary only: elementAt()/elementPut() and
 * the header accessors. Everything else works on host integers.
 *
 * Width upgrade: a value outside the current width's range is necessarily
 * smaller than every member (if negative) or larger than every member (if
 * positive), so the upgrade widens the existing elements in place, walking
 * from the last one backwards so nothing is overwritten before it is read,
 * and then puts the new value at the very beginning or the very end.
 *
 * Leaf library: zmalloc only. Callers own the returned blob; functions that
 * resize return the new pointer. Not thread-safe per set (no locking). */
#include "intset.h"

#include <stdlib.h>
#include <string.h>

#include "zmalloc.h"

/* ---------------------------------------------------------------------------
 * Byte order boundary
 * ------------------------------------------------------------------------- */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define INTSET_LE16(x) __builtin_bswap16(x)
#define INTSET_LE32(x) __builtin_bswap32(x)
#define INTSET_LE64(x) __builtin_bswap64(x)
#else
#define INTSET_LE16(x) (x)
#define INTSET_LE32(x) (x)
#define INTSET_LE64(x) (x)
#endif

static inline uint32_t headerEncoding(const intset *is) {
    return INTSET_LE32(is->encoding);
}

static inline uint32_t headerLength(const intset *is) {
    return INTSET_LE32(is->length);
}

static inline void setHeaderEncoding(intset *is, uint32_t enc) {
    is->encoding = INTSET_LE32(enc);
}

static inline void setHeaderLength(intset *is, uint32_t len) {
    is->length = INTSET_LE32(len);
}

/* Reads element pos of an array whose elements are enc bytes wide. */
static int64_t elementAt(const intset *is, uint32_t pos, uint32_t enc) {
    const int8_t *p = is->contents + (size_t)pos * enc;
    if (enc == INTSET_ENC_INT64) {
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        return (int64_t)INTSET_LE64(v);
    } else if (enc == INTSET_ENC_INT32) {
        uint32_t v;
        memcpy(&v, p, sizeof(v));
        return (int32_t)INTSET_LE32(v);
    } else {
        uint16_t v;
        memcpy(&v, p, sizeof(v));
        return (int16_t)INTSET_LE16(v);
    }
}

/* Writes value (which must fit enc) as element pos. */
static void elementPut(intset *is, uint32_t pos, uint32_t enc, int64_t value) {
    int8_t *p = is->contents + (size_t)pos * enc;
    if (enc == INTSET_ENC_INT64) {
        uint64_t v = INTSET_LE64((uint64_t)value);
        memcpy(p, &v, sizeof(v));
    } else if (enc == INTSET_ENC_INT32) {
        uint32_t v = INTSET_LE32((uint32_t)(int32_t)value);
        memcpy(p, &v, sizeof(v));
    } else {
        uint16_t v = INTSET_LE16((uint16_t)(int16_t)value);
        memcpy(p, &v, sizeof(v));
    }
}

/* ---------------------------------------------------------------------------
 * Internal helpers
 * ------------------------------------------------------------------------- */

/* Returns the narrowest width able to hold value. */
uint32_t intsetValueEncoding(int64_t value) {
    if (value < INT32_MIN || value > INT32_MAX) return INTSET_ENC_INT64;
    if (value < INT16_MIN || value > INT16_MAX) return INTSET_ENC_INT32;
    return INTSET_ENC_INT16;
}

/* Reallocates for len elements of the current width (header included). */
static intset *resizeTo(intset *is, uint32_t len) {
    size_t bytes = sizeof(intset) + (size_t)len * headerEncoding(is);
    return zrealloc(is, bytes);
}

/* Binary search. Returns 1 and sets *pos to value's index if present;
 * otherwise returns 0 and sets *pos to where it would be inserted. */
static int searchPosition(const intset *is, int64_t value, uint32_t *pos) {
    uint32_t len = headerLength(is), enc = headerEncoding(is);
    if (len == 0) {
        *pos = 0;
        return 0;
    }
    /* Fast paths: appending past the maximum or prepending before the
     * minimum are the common cases when members arrive in order. */
    if (value > elementAt(is, len - 1, enc)) {
        *pos = len;
        return 0;
    }
    if (value < elementAt(is, 0, enc)) {
        *pos = 0;
        return 0;
    }
    uint32_t lo = 0, hi = len; /* Search in [lo, hi). */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int64_t cur = elementAt(is, mid, enc);
        if (cur == value) {
            *pos = mid;
            return 1;
        }
        if (cur < value) lo = mid + 1;
        else hi = mid;
    }
    *pos = lo;
    return 0;
}

/* Widens every element to the width needed by value and inserts value at
 * the front or the back (see the file comment for why that is correct). */
static intset *upgradeAndAdd(intset *is, int64_t value) {
    uint32_t oldenc = headerEncoding(is), newenc = intsetValueEncoding(value);
    uint32_t len = headerLength(is);
    int at_front = value < 0; /* Out of the old range below: smallest of all. */

    setHeaderEncoding(is, newenc);
    is = resizeTo(is, len + 1);
    /* Backwards, so the wider writes never clobber unread narrow elements.
     * With at_front every element also shifts right by one slot. */
    for (uint32_t i = len; i-- > 0;) elementPut(is, i + (at_front ? 1 : 0), newenc, elementAt(is, i, oldenc));
    elementPut(is, at_front ? 0 : len, newenc, value);
    setHeaderLength(is, len + 1);
    return is;
}

/* Moves elements [from, end) so that they start at index to. */
static void moveTail(intset *is, uint32_t from, uint32_t to) {
    uint32_t enc = headerEncoding(is), len = headerLength(is);
    size_t bytes = (size_t)(len - from) * enc;
    memmove(is->contents + (size_t)to * enc, is->contents + (size_t)from * enc, bytes);
}

/* ---------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------- */

/* Returns a new empty intset (16-bit width). The caller owns it and frees
 * it with intsetFree() (or zfree()). */
intset *intsetNew(void) {
    intset *is = zmalloc(sizeof(intset));
    setHeaderEncoding(is, INTSET_ENC_INT16);
    setHeaderLength(is, 0);
    return is;
}

/* Frees an intset (NULL is fine). */
void intsetFree(intset *is) {
    zfree(is);
}

/* Returns an independent copy of is, owned by the caller. */
intset *intsetDup(const intset *is) {
    size_t bytes = intsetBlobLen(is);
    intset *copy = zmalloc(bytes);
    memcpy(copy, is, bytes);
    return copy;
}

/* Adds value if absent. Returns the possibly reallocated intset; *added
 * (may be NULL) is set to 1 if value was inserted, 0 if already present. */
intset *intsetAdd(intset *is, int64_t value, int *added) {
    uint32_t pos;
    if (added) *added = 1;
    if (intsetValueEncoding(value) > headerEncoding(is)) return upgradeAndAdd(is, value);
    if (searchPosition(is, value, &pos)) {
        if (added) *added = 0;
        return is;
    }
    uint32_t len = headerLength(is);
    is = resizeTo(is, len + 1);
    if (pos < len) moveTail(is, pos, pos + 1);
    elementPut(is, pos, headerEncoding(is), value);
    setHeaderLength(is, len + 1);
    return is;
}

/* Removes value if present. Returns the possibly reallocated intset;
 * *removed (may be NULL) is set to 1 if value was there. The width is
 * never narrowed. */
intset *intsetRemove(intset *is, int64_t value, int *removed) {
    uint32_t pos;
    if (removed) *removed = 0;
    if (intsetValueEncoding(value) > headerEncoding(is)) return is; /* Can't be a member. */
    if (!searchPosition(is, value, &pos)) return is;
    uint32_t len = headerLength(is);
    if (pos < len - 1) moveTail(is, pos + 1, pos);
    setHeaderLength(is, len - 1);
    is = resizeTo(is, len - 1);
    if (removed) *removed = 1;
    return is;
}

/* Returns 1 if value is a member, 0 otherwise. O(log N). */
int intsetFind(const intset *is, int64_t value) {
    uint32_t pos;
    if (intsetValueEncoding(value) > headerEncoding(is)) return 0;
    return searchPosition(is, value, &pos);
}

/* Stores the element at index pos (0 = smallest) in *value and returns 1,
 * or returns 0 if pos is out of range. */
int intsetGet(const intset *is, uint32_t pos, int64_t *value) {
    if (pos >= headerLength(is)) return 0;
    *value = elementAt(is, pos, headerEncoding(is));
    return 1;
}

/* Returns a uniformly chosen member. The set must not be empty. Uses
 * rand(), which the server seeds at start-up. */
int64_t intsetRandom(const intset *is) {
    uint32_t len = headerLength(is);
    uint32_t pos = (uint32_t)((((uint64_t)rand() << 31) ^ (uint64_t)rand()) % len);
    return elementAt(is, pos, headerEncoding(is));
}

/* Smallest / largest member. The set must not be empty. */
int64_t intsetMin(const intset *is) {
    return elementAt(is, 0, headerEncoding(is));
}

int64_t intsetMax(const intset *is) {
    return elementAt(is, headerLength(is) - 1, headerEncoding(is));
}

/* Number of members. */
uint32_t intsetLen(const intset *is) {
    return headerLength(is);
}

/* Bytes of the whole blob (header + elements), e.g. for MEMORY USAGE or
 * for serializing it as is. */
size_t intsetBlobLen(const intset *is) {
    return sizeof(intset) + (size_t)headerLength(is) * headerEncoding(is);
}

/* Checks that size bytes at blob form a well-formed intset: a valid width
 * and a length matching size; with deep, also strictly ascending elements.
 * (A wider width than needed is legal: upgrades are permanent.) Returns 1
 * if valid, 0 if not. Never reads past blob + size. */
int intsetValidate(const void *blob, size_t size, int deep) {
    if (size < sizeof(intset)) return 0;
    const intset *is = blob;
    uint32_t enc = headerEncoding(is), len = headerLength(is);
    if (enc != INTSET_ENC_INT16 && enc != INTSET_ENC_INT32 && enc != INTSET_ENC_INT64) return 0;
    if (sizeof(intset) + (uint64_t)len * enc != size) return 0;
    if (!deep) return 1;
    for (uint32_t i = 1; i < len; i++)
        if (elementAt(is, i - 1, enc) >= elementAt(is, i, enc)) return 0;
    return 1;
}
