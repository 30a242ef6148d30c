/* listpack.h - a compact, serialisable list of strings and integers in one
 * contiguous allocation ("listpack"), as used by Valkey for small lists,
 * hashes, sets and sorted sets and inside quicklist nodes.
 *
 * A leaf library: it uses only zmalloc and util (string2ll/ll2string) and
 * never includes server.h, so it links into the unit tests alone.
 *
 * Layout (all multi-byte header fields little endian):
 *
 *     <total-bytes u32> <num-elements u16> <entry> ... <entry> <0xFF>
 *
 * num-elements saturates at 65535 (LP_HDR_NUMELE_UNKNOWN): from there the
 * count is found by walking, and lpLength() writes it back when it fits.
 * Each entry is <encoding+data> <backlen>. The first byte says the type:
 *
 *     0xxxxxxx                 7-bit unsigned integer (0..127)
 *     10xxxxxx <data>          string, 6-bit length (0..63)
 *     110xxxxx yyyyyyyy        13-bit signed integer, x = high bits
 *     1110xxxx yyyyyyyy <data> string, 12-bit length (up to 4095)
 *     11110000 <u32 len> <data> string, 32-bit length
 *     11110001 <2 bytes>       16-bit signed integer
 *     11110010 <3 bytes>       24-bit signed integer
 *     11110011 <4 bytes>       32-bit signed integer
 *     11110100 <8 bytes>       64-bit signed integer
 *     11111111                 end of listpack (not an entry)
 *
 * backlen is the size of <encoding+data> in 1..5 bytes read right to left:
 * the byte just before the next entry holds the low 7 bits, and its high bit
 * set means one more (more significant) byte sits to its left. So any entry
 * can be stepped over backwards without knowing what is before it.
 *
 * Strings that are canonical decimal integers (string2ll-strict: "12" but
 * not "012", "+12", " 12") are stored as integers; lpGet() gives them back
 * as the same decimal text, so callers never see the difference except in
 * lpGetValue()'s typed form.
 *
 * Conventions for the whole API:
 *  - `lp` is the listpack (unsigned char *). Every call that can change its
 *    size returns the (possibly moved) listpack; the old pointer is invalid.
 *  - `p` is an entry pointer into lp: from lpFirst/lpLast/lpNext/lpPrev/
 *    lpSeek/lpFind, or returned through a `newp` out-argument. Entry
 *    pointers are invalidated by any modification unless the call hands a
 *    fresh one back.
 *  - Navigation returns NULL at either end (never a pointer to 0xFF).
 *  - Allocation failure aborts (zmalloc semantics); nothing returns NULL
 *    for out-of-memory.
 *  - A listpack is limited to UINT32_MAX bytes; callers enforce their own,
 *    much smaller, limits (lpSafeToAdd() checks a 1 GiB safety ceiling). */
#ifndef VK_LISTPACK_H
#define VK_LISTPACK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define LP_HDR_SIZE 6                /* total bytes u32 + count u16 */
#define LP_HDR_NUMELE_UNKNOWN UINT16_MAX
#define LP_EOF 0xFF
#define LP_INTBUF_SIZE 21            /* holds any int64 in decimal + NUL */
#define LP_MAX_SAFETY_SIZE (1ULL << 30) /* lpSafeToAdd() ceiling */

/* Where lpInsertString/lpInsertInteger put the new element relative to p. */
#define LP_BEFORE 0
#define LP_AFTER 1
#define LP_REPLACE 2

/* A decoded element, for callers that want to carry values around without
 * pointers into the listpack: sval != NULL means a string of slen bytes
 * (pointing into the listpack, or into a caller buffer), sval == NULL means
 * the integer lval. */
typedef struct listpackEntry {
    unsigned char *sval;
    uint32_t slen;
    long long lval;
} listpackEntry;

/* ---- Creation, size ---------------------------------------------------- */

/* Returns a new empty listpack (7 bytes) with room reserved for `capacity`
 * bytes (0 = none). Caller owns it; free with lpFree(). */
unsigned char *lpNew(size_t capacity);
void lpFree(unsigned char *lp);
/* Returns lp reallocated to exactly lpBytes() if it has slack. */
unsigned char *lpShrinkToFit(unsigned char *lp);
/* Returns a copy of lp (exact size); caller owns it. */
unsigned char *lpDup(unsigned char *lp);
/* Total serialised size in bytes, from the header. */
size_t lpBytes(unsigned char *lp);
/* Number of elements. O(1) unless the header count is saturated. */
unsigned long lpLength(unsigned char *lp);
/* 1 if adding `add` bytes keeps lp under LP_MAX_SAFETY_SIZE. */
int lpSafeToAdd(unsigned char *lp, size_t add);
/* Bytes an element would occupy (encoding + data + backlen) if stored:
 * used by callers' size limits (quicklist fill, *-max-listpack-value). */
size_t lpEntrySizeString(const unsigned char *s, size_t len);
size_t lpEntrySizeInteger(long long v);

/* ---- Navigation --------------------------------------------------------- */

unsigned char *lpFirst(unsigned char *lp);
unsigned char *lpLast(unsigned char *lp);
unsigned char *lpNext(unsigned char *lp, unsigned char *p);
unsigned char *lpPrev(unsigned char *lp, unsigned char *p);
/* The byte just past the entry at p: the next entry or the terminator.
 * Unlike lpNext() it never returns NULL, so [p, lpSkip(p)) is p's bytes
 * and a run of entries can be copied as one range. The two commonest
 * encodings (7-bit integer, string under 64 bytes: one backlen byte) are
 * stepped over inline; bulk walkers such as the stream codec call this
 * for every element. */
unsigned char *lpSkipSlow(unsigned char *p);
static inline unsigned char *lpSkip(unsigned char *p) {
    if (p[0] < 0x80) return p + 2;
    if ((p[0] & 0xC0) == 0x80) return p + 2 + (p[0] & 0x3F);
    return lpSkipSlow(p);
}
/* Entry at `index` (0-based; negative counts from the tail, -1 = last), or
 * NULL if out of range. Walks from the nearer end. */
unsigned char *lpSeek(unsigned char *lp, long index);

/* ---- Reading ------------------------------------------------------------ */

/* The element at p as a string. Strings: returns a pointer into lp and sets
 * *len. Integers: if intbuf (LP_INTBUF_SIZE bytes) is given, writes the
 * decimal text there, sets *len and returns intbuf; if intbuf is NULL,
 * returns NULL and sets *len to the integer value itself. */
unsigned char *lpGet(unsigned char *p, int64_t *len, unsigned char *intbuf);
/* Typed read: returns the string pointer (into lp) and sets *slen, or, for
 * integers, returns NULL and sets *lval. */
unsigned char *lpGetValue(unsigned char *p, unsigned int *slen, long long *lval);
/* Fills *e from p (string pointers point into lp). */
void lpGetEntry(unsigned char *p, listpackEntry *e);
/* 1 and *lval if the element at p is an integer or a string that parses as
 * one (string2ll-strict), else 0. */
int lpGetIntegerIfValidSlow(unsigned char *p, long long *lval);
static inline int lpGetIntegerIfValid(unsigned char *p, long long *lval) {
    if (p[0] < 0x80) { /* 7-bit integer: counts, flags, small deltas */
        *lval = p[0];
        return 1;
    }
    return lpGetIntegerIfValidSlow(p, lval);
}
/* 1 if the element at p equals the bytes s[0..slen), else 0. Integers
 * compare by their decimal text. */
int lpCompare(unsigned char *p, const unsigned char *s, size_t slen);
/* Starting at p, compares every (skip+1)-th element with s and returns the
 * first match or NULL. skip=0 scans all elements; skip=1 visits only keys
 * of a key/value listpack (hash field lookups) when p is a key. */
unsigned char *lpFind(unsigned char *lp, unsigned char *p, const unsigned char *s, size_t slen, unsigned int skip);

/* ---- Writing ------------------------------------------------------------ */

unsigned char *lpAppend(unsigned char *lp, const unsigned char *s, size_t slen);
unsigned char *lpPrepend(unsigned char *lp, const unsigned char *s, size_t slen);
unsigned char *lpAppendInteger(unsigned char *lp, long long v);
unsigned char *lpPrependInteger(unsigned char *lp, long long v);
/* Inserts s before/after p, or replaces p (LP_BEFORE/LP_AFTER/LP_REPLACE).
 * p may be NULL only with LP_BEFORE, meaning "append at the end". If newp
 * is not NULL it receives the pointer to the inserted element. */
unsigned char *lpInsertString(unsigned char *lp, const unsigned char *s, size_t slen, unsigned char *p, int where,
                              unsigned char **newp);
unsigned char *lpInsertInteger(unsigned char *lp, long long v, unsigned char *p, int where, unsigned char **newp);
/* Replaces the element at *p; *p is updated to the new element. */
unsigned char *lpReplace(unsigned char *lp, unsigned char **p, const unsigned char *s, size_t slen);
unsigned char *lpReplaceInteger(unsigned char *lp, unsigned char **p, long long v);
/* Deletes the element at p. If newp is not NULL it receives the element
 * that now occupies that position, or NULL if p was the last. */
unsigned char *lpDelete(unsigned char *lp, unsigned char *p, unsigned char **newp);
/* Deletes `num` elements starting at *p (clamped to the end); *p is left on
 * the element after the range, or NULL. */
unsigned char *lpDeleteRangeWithEntry(unsigned char *lp, unsigned char **p, unsigned long num);
/* Deletes `num` elements starting at `index` (negative from the tail). */
unsigned char *lpDeleteRange(unsigned char *lp, long index, unsigned long num);
/* Appends every element of `src` to lp (src is left untouched). */
unsigned char *lpAppendAll(unsigned char *lp, unsigned char *src);

/* ---- Building in bulk --------------------------------------------------- */

/* For code that assembles a whole listpack from parts, such as the stream
 * codec (rdb_stream.c) converting nodes between two layouts: elements go
 * into a buffer that grows geometrically, and the header and terminator
 * are written once by lpBuilderFinish(), so appending costs no realloc
 * and no header update per element. */
typedef struct lpBuilder {
    unsigned char *buf;  /* header room + the elements so far */
    size_t len;          /* bytes used, header included */
    size_t cap;          /* bytes allocated */
    unsigned long count; /* elements appended */
} lpBuilder;

/* Starts an empty listpack with room for `capacity` bytes (grows as needed). */
void lpBuilderInit(lpBuilder *b, size_t capacity);
/* Makes room for `add` more bytes (and the terminator). */
void lpBuilderGrow(lpBuilder *b, size_t add);
void lpBuilderAppendIntegerSlow(lpBuilder *b, long long v);
static inline void lpBuilderAppendInteger(lpBuilder *b, long long v) {
    if (v >= 0 && v < 0x80 && b->len + 3 <= b->cap) { /* 7-bit integer, backlen 1 */
        b->buf[b->len] = (unsigned char)v;
        b->buf[b->len + 1] = 1;
        b->len += 2;
        b->count++;
        return;
    }
    lpBuilderAppendIntegerSlow(b, v);
}
/* Appends `count` whole entries copied verbatim from another listpack: the
 * bytes [first, end), where end is lpSkip() of the last one copied. */
static inline void lpBuilderAppendEntries(lpBuilder *b, const unsigned char *first, const unsigned char *end,
                                          unsigned long count) {
    size_t n = (size_t)(end - first);
    if (b->len + n + 1 > b->cap) lpBuilderGrow(b, n);
    memcpy(b->buf + b->len, first, n);
    b->len += n;
    b->count += count;
}
/* What was appended after a point can be dropped by putting len and count
 * back to the values they had there (a speculative append undone). */
/* Bytes the listpack would have if finished now. */
static inline size_t lpBuilderBytes(const lpBuilder *b) { return b->len + 1; }
/* Terminates it, writes the header and returns the listpack, which the
 * caller now owns (lpFree(); it may have slack, see lpShrinkToFit()); b is
 * left empty and may be initialised again. The listpack must stay within
 * UINT32_MAX bytes (callers bound it, e.g. with LP_MAX_SAFETY_SIZE). */
unsigned char *lpBuilderFinish(lpBuilder *b);
/* Frees what was built (error paths). */
void lpBuilderDiscard(lpBuilder *b);

/* ---- Packed form ---------------------------------------------------------
 * A denser, read-only copy of a listpack for data at rest (the interior
 * nodes of a quicklist). It drops what only editing in place needs: the
 * header, the terminator and every backlen. Consecutive elements of the
 * same kind and size share one run header:
 *     run := varint(count << 1 | kind) varint(size) <count * size bytes>
 * kind 0: strings of `size` bytes each; kind 1: integers, each `size` (1..8)
 * bytes of little-endian two's complement. A varint holds 7 bits per byte,
 * low group first, 0x80 meaning "more follows". A run of equal-length short
 * strings thus costs its data bytes plus a few, where the listpack spends
 * two or three more per element; no element costs more than in the
 * listpack. The form is walked forwards only (lpPackedNext) and turns back
 * into the identical listpack (lpUnpack). Only listpacks whose every entry
 * uses its smallest encoding (all that this file writes) can be packed. */

/* Packs lp into dst, which has room for `room` bytes. Returns the bytes
 * written, or 0 if they would not fit or lp holds an entry in a wider
 * encoding than needed (a listpack from elsewhere, e.g. an RDB file). */
size_t lpPack(unsigned char *lp, unsigned char *dst, size_t room);
/* Returns the listpack packed in p[0..len), of lp_bytes bytes (the caller
 * remembers lpBytes() of what it packed). Caller owns it. Aborts if the
 * packed form does not rebuild exactly lp_bytes (memory corruption). */
unsigned char *lpUnpack(const unsigned char *p, size_t len, size_t lp_bytes);

/* Reads a packed form element by element. */
typedef struct lpPackedReader {
    const unsigned char *p, *end;
    unsigned long left; /* elements left in the current run */
    size_t size;        /* bytes per element of the current run */
    int integers;       /* the current run holds integers */
} lpPackedReader;

void lpPackedReaderInit(lpPackedReader *r, const unsigned char *p, size_t len);
/* Reads the next element as lpGetValue() does: returns 1 with either *s
 * (pointing into the packed form) and *slen, or *s == NULL and *lval; 0
 * at the end. */
int lpPackedNext(lpPackedReader *r, const unsigned char **s, unsigned int *slen, long long *lval);
/* Skips n elements (fewer if the end comes first). */
void lpPackedSkip(lpPackedReader *r, unsigned long n);

/* ---- Checking ----------------------------------------------------------- */

/* Called for every entry during a deep validation; return 0 to reject. */
typedef int (*lpValidateEntryCB)(unsigned char *p, unsigned int head_count, void *userdata);
/* Validates lp as received from an untrusted source of `size` bytes: the
 * header must match `size` and the terminator be in place. With deep=1
 * every entry is decoded with bounds checks, each backlen must match, and
 * the entry count must agree with the header (unless saturated). Returns 1
 * if valid, 0 if not; never reads outside [lp, lp+size). */
int lpValidateIntegrity(unsigned char *lp, size_t size, int deep, lpValidateEntryCB cb, void *userdata);
/* Writes a human-readable dump of lp to stdout (debugging). */
void lpRepr(unsigned char *lp);

#endif
