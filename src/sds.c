/* sds.c - binary-safe dynamic strings (see sds.h for the memory layout).
 *
 * Used everywhere: keys, string values, client query and reply buffers,
 * config parsing (sdssplitargs), log and INFO formatting. Calls only
 * zmalloc.
 *
 * Invariants every function keeps:
 *   - s[sdslen(s)] == '\0', so an sds is always a valid C string;
 *   - s[-1] is the flags byte, and its low bits name the header class, which
 *     is always large enough to hold both len and alloc;
 *   - alloc (when recorded) is the block's usable size minus header and
 *     terminator, capped at what the header class can express, so spare
 *     space the allocator rounded up to is not wasted.
 *
 * The tiny class SDS_TYPE_5 records no capacity; it is chosen only for new
 * strings that are non-empty and shorter than 32 bytes (typically keys,
 * which are rarely appended to). Any function that grows a string converts
 * it to at least SDS_TYPE_8. Empty strings start as SDS_TYPE_8 since they
 * are created to be appended to.
 *
 * Functions that may reallocate return the new pointer; callers must use it
 * and drop the old one. Allocation failure aborts (through zmalloc) except in
 * sdstrynewlen(), which returns NULL. */
#include "sds.h"

#include <assert.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zmalloc.h"

const char *SDS_NOINIT = "SDS_NOINIT";

static inline size_t sdsHdrSize(char type) {
    switch (type & SDS_TYPE_MASK) {
    case SDS_TYPE_5: return sizeof(struct sdshdr5);
    case SDS_TYPE_8: return sizeof(struct sdshdr8);
    case SDS_TYPE_16: return sizeof(struct sdshdr16);
    case SDS_TYPE_32: return sizeof(struct sdshdr32);
    case SDS_TYPE_64: return sizeof(struct sdshdr64);
    }
    return 0;
}

/* Smallest header class able to hold a string of this length/capacity. */
static inline char sdsReqType(size_t len) {
    if (len < (1 << 5)) return SDS_TYPE_5;
    if (len <= UINT8_MAX) return SDS_TYPE_8;
    if (len <= UINT16_MAX) return SDS_TYPE_16;
#if SIZE_MAX > UINT32_MAX
    if (len <= UINT32_MAX) return SDS_TYPE_32;
    return SDS_TYPE_64;
#else
    return SDS_TYPE_32;
#endif
}

/* Largest capacity a header class can record. */
static inline size_t sdsTypeMaxSize(char type) {
    switch (type) {
    case SDS_TYPE_5: return (1 << 5) - 1;
    case SDS_TYPE_8: return UINT8_MAX;
    case SDS_TYPE_16: return UINT16_MAX;
#if SIZE_MAX > UINT32_MAX
    case SDS_TYPE_32: return UINT32_MAX;
#endif
    }
    return SIZE_MAX;
}

/* Writes a header of class type in front of s, with length len and
 * capacity alloc (alloc is ignored for type 5). */
static void sdsWriteHeader(sds s, char type, size_t len, size_t alloc) {
    s[-1] = type;
    if (type == SDS_TYPE_5) {
        s[-1] = (char)(SDS_TYPE_5 | (len << SDS_TYPE_BITS));
        return;
    }
    sdssetlen(s, len);
    sdssetalloc(s, alloc);
}

/* Bytes sdsnewInBuffer() needs for a string of len bytes. */
size_t sdsEmbeddedSize(size_t len) {
    char type = sdsReqType(len);
    if (type == SDS_TYPE_5) type = SDS_TYPE_8;
    return sdsHdrSize(type) + len + 1;
}

/* Builds an sds holding init[0..len) inside buf, which must have
 * sdsEmbeddedSize(len) bytes, and returns it. Used to place a string inside
 * another allocation (e.g. a key inside its hash table entry). The result
 * has no spare room and lives as long as buf: never sdsfree() it or pass it
 * to anything that may grow it. The 5-bit header class is not used, so
 * sdsAllocSize() and friends never consult the allocator about it. */
sds sdsnewInBuffer(void *buf, const void *init, size_t len) {
    char type = sdsReqType(len);
    if (type == SDS_TYPE_5) type = SDS_TYPE_8;
    sds s = (char *)buf + sdsHdrSize(type);
    sdsWriteHeader(s, type, len, len);
    memcpy(s, init, len);
    s[len] = '\0';
    return s;
}

/* Fills t with a copy of init[0..len) and returns it (see sds.h). */
sds sdsTempInit(sdsTemp *t, const void *init, size_t len) {
    t->on_heap = sdsEmbeddedSize(len) > sizeof(t->buf);
    t->s = t->on_heap ? sdsnewlen(init, len) : sdsnewInBuffer(t->buf, init, len);
    return t->s;
}

/* Frees what sdsTempInit() allocated, if anything. */
void sdsTempRelease(sdsTemp *t) {
    if (t->on_heap) sdsfree(t->s);
    t->s = NULL;
}

/* The common constructor; returns NULL only when trymalloc and out of
 * memory. */
static sds sdsNewLenGeneric(const void *init, size_t initlen, int trymalloc) {
    char type = sdsReqType(initlen);
    if (type == SDS_TYPE_5 && initlen == 0) type = SDS_TYPE_8;
    size_t hdrlen = sdsHdrSize(type);
    assert(initlen + hdrlen + 1 > initlen); /* size_t overflow */

    size_t usable;
    char *sh = trymalloc ? ztrymalloc_usable(hdrlen + initlen + 1, &usable)
                         : zmalloc_usable(hdrlen + initlen + 1, &usable);
    if (sh == NULL) return NULL;
    sds s = sh + hdrlen;
    usable -= hdrlen + 1;
    if (usable > sdsTypeMaxSize(type)) usable = sdsTypeMaxSize(type);
    sdsWriteHeader(s, type, initlen, usable);
    if (init == SDS_NOINIT) {
        /* Caller fills the bytes. */
    } else if (init) {
        if (initlen) memcpy(s, init, initlen);
    } else {
        memset(s, 0, initlen);
    }
    s[initlen] = '\0';
    return s;
}

/* Returns a new string holding initlen bytes copied from init; init NULL
 * zero-fills, SDS_NOINIT leaves the bytes uninitialised (the terminator is
 * still written). Never NULL; the caller frees with sdsfree(). */
sds sdsnewlen(const void *init, size_t initlen) { return sdsNewLenGeneric(init, initlen, 0); }

/* As sdsnewlen() but returns NULL when memory cannot be allocated. */
sds sdstrynewlen(const void *init, size_t initlen) { return sdsNewLenGeneric(init, initlen, 1); }

/* Returns a new empty string (with a header able to grow in place). */
sds sdsempty(void) { return sdsnewlen("", 0); }

/* Returns a new string copied from the C string init (NULL gives ""). */
sds sdsnew(const char *init) { return sdsnewlen(init, init ? strlen(init) : 0); }

/* Returns an independent copy of s. */
sds sdsdup(const sds s) { return sdsnewlen(s, sdslen(s)); }

/* Frees s; NULL is a no-op. */
void sdsfree(sds s) {
    if (s == NULL) return;
    zfree(s - sdsHdrSize(s[-1]));
}

/* Sets the length to strlen(s), for callers that wrote a shorter C string
 * into the buffer by hand. */
void sdsupdatelen(sds s) { sdssetlen(s, strlen(s)); }

/* Makes s empty without releasing its buffer. */
void sdsclear(sds s) {
    sdssetlen(s, 0);
    s[0] = '\0';
}

/* ------------------------------- capacity -------------------------------- */

static sds sdsMakeRoomForGeneric(sds s, size_t addlen, int greedy) {
    if (sdsavail(s) >= addlen) return s;

    size_t len = sdslen(s);
    char oldtype = s[-1] & SDS_TYPE_MASK;
    size_t reqlen = len + addlen;
    assert(reqlen > len); /* size_t overflow */
    size_t newlen = reqlen;
    if (greedy) {
        /* Doubling keeps repeated appends amortised O(1); above 1MB we stop
         * doubling so a big buffer does not waste up to half its size. */
        if (newlen < SDS_MAX_PREALLOC)
            newlen *= 2;
        else
            newlen += SDS_MAX_PREALLOC;
    }

    char type = sdsReqType(newlen);
    if (type == SDS_TYPE_5) type = SDS_TYPE_8; /* type 5 cannot record spare room */
    size_t hdrlen = sdsHdrSize(type);
    assert(hdrlen + newlen + 1 > reqlen); /* size_t overflow */

    size_t usable;
    char *sh;
    if (oldtype == type) {
        sh = zrealloc_usable(s - hdrlen, hdrlen + newlen + 1, &usable);
        s = sh + hdrlen;
    } else {
        /* The header changes size, so the payload moves: copy it. */
        sh = zmalloc_usable(hdrlen + newlen + 1, &usable);
        memcpy(sh + hdrlen, s, len + 1);
        sdsfree(s);
        s = sh + hdrlen;
        s[-1] = type;
        sdssetlen(s, len);
    }
    usable -= hdrlen + 1;
    if (usable > sdsTypeMaxSize(type)) usable = sdsTypeMaxSize(type);
    sdssetalloc(s, usable);
    return s;
}

/* Ensures at least addlen bytes can be appended after the current length,
 * over-allocating (double below SDS_MAX_PREALLOC, +SDS_MAX_PREALLOC above)
 * so appends in a loop stay cheap. The length is unchanged. Returns the
 * possibly moved string; the old pointer is invalid. */
sds sdsMakeRoomFor(sds s, size_t addlen) { return sdsMakeRoomForGeneric(s, addlen, 1); }

/* As sdsMakeRoomFor() but reserves exactly what was asked for (plus the
 * allocator's rounding): for buffers whose final size is known. */
sds sdsMakeRoomForNonGreedy(sds s, size_t addlen) { return sdsMakeRoomForGeneric(s, addlen, 0); }

/* Reallocates s so its capacity is size bytes, truncating the content if
 * it is longer. With would_regrow set the string keeps a header able to
 * record spare room (never type 5). Returns the possibly moved string. */
sds sdsResize(sds s, size_t size, int would_regrow) {
    char oldtype = s[-1] & SDS_TYPE_MASK;
    size_t oldhdrlen = sdsHdrSize(oldtype);
    size_t len = sdslen(s);
    if (size < len) len = size;

    char type = sdsReqType(size);
    if (would_regrow && type == SDS_TYPE_5) type = SDS_TYPE_8;
    if (type == SDS_TYPE_5 && len != size) type = SDS_TYPE_8; /* type 5 has alloc == len */

    /* Shrinking between the larger classes saves a few header bytes at the
     * price of a copy; keep the old header and realloc in place instead. */
    int keep_header = (oldtype == type) || (type < oldtype && type > SDS_TYPE_8);
    size_t usable;
    char *sh;
    if (keep_header) {
        type = oldtype;
        size_t have = zmalloc_size(s - oldhdrlen);
        if (zmalloc_good_size(oldhdrlen + size + 1) == have) {
            /* The allocator would give back a block of the same size (a
             * 1 KiB value sits in a 1280-byte class with or without its
             * spare bytes): realloc() would only cost time. */
            usable = have;
        } else {
            sh = zrealloc_usable(s - oldhdrlen, oldhdrlen + size + 1, &usable);
            s = sh + oldhdrlen;
        }
        usable -= oldhdrlen + 1;
    } else {
        size_t hdrlen = sdsHdrSize(type);
        sh = zmalloc_usable(hdrlen + size + 1, &usable);
        memcpy(sh + hdrlen, s, len);
        sdsfree(s);
        s = sh + hdrlen;
        usable -= hdrlen + 1;
    }
    if (usable > sdsTypeMaxSize(type)) usable = sdsTypeMaxSize(type);
    s[len] = '\0';
    sdsWriteHeader(s, type, len, usable);
    return s;
}

/* Drops the spare capacity of s (see sdsResize for would_regrow). Returns
 * the possibly moved string. */
sds sdsRemoveFreeSpace(sds s, int would_regrow) { return sdsResize(s, sdslen(s), would_regrow); }

/* Whether sdsRemoveFreeSpace(s, 0) could give memory back. 0 when s would
 * keep its header type and the allocator would hand out a block of the
 * size s has (a new 1 KiB string sits in a 1280-byte class with or without
 * its spare bytes), known from the header without asking the allocator:
 * the caller can skip the call. 1 otherwise (also when unsure). */
int sdsCanShrink(const sds s) {
    char type = s[-1] & SDS_TYPE_MASK;
    size_t len = sdslen(s);
    if (sdsReqType(len) != type) return 1;
    if (type == SDS_TYPE_5) return 0; /* no spare room */
    size_t alloc = sdsalloc(s);
    if (alloc >= sdsTypeMaxSize(type)) return 1; /* capped: the block may be bigger */
    size_t hdr = sdsHdrSize(type);
    return zmalloc_good_size(hdr + len + 1) != hdr + alloc + 1;
}

/* Returns the bytes s occupies in the allocator: header, capacity and
 * terminator (for type 5, the allocator's usable size of the block). */
size_t sdsAllocSize(const sds s) {
    char type = s[-1] & SDS_TYPE_MASK;
    if (type == SDS_TYPE_5) return zmalloc_size(sdsAllocPtr(s));
    return sdsHdrSize(type) + sdsalloc(s) + 1;
}

/* Returns the start of the allocation backing s (its header). */
void *sdsAllocPtr(const sds s) { return (void *)(s - sdsHdrSize(s[-1])); }

/* Adjusts the length by incr after the caller wrote into (incr > 0) or
 * gave back (incr < 0) bytes at the end, and writes the terminator. The
 * result must stay within 0..sdsalloc(s). */
void sdsIncrLen(sds s, ssize_t incr) {
    size_t len = sdslen(s);
    if (incr >= 0)
        assert(sdsavail(s) >= (size_t)incr);
    else
        assert(len >= (size_t)(-incr));
    len += incr;
    sdssetlen(s, len);
    s[len] = '\0';
}

/* Grows s to len bytes, zero-filling the new part; no-op if already that
 * long. Returns the possibly moved string. */
sds sdsgrowzero(sds s, size_t len) {
    size_t cur = sdslen(s);
    if (len <= cur) return s;
    s = sdsMakeRoomFor(s, len - cur);
    memset(s + cur, 0, len - cur + 1);
    sdssetlen(s, len);
    return s;
}

/* ------------------------------- appending ------------------------------- */

/* Appends len bytes from t. Returns the possibly moved string. */
sds sdscatlen(sds s, const void *t, size_t len) {
    size_t cur = sdslen(s);
    s = sdsMakeRoomFor(s, len);
    if (len) memcpy(s + cur, t, len);
    sdssetlen(s, cur + len);
    s[cur + len] = '\0';
    return s;
}

/* Appends the C string t. */
sds sdscat(sds s, const char *t) { return sdscatlen(s, t, strlen(t)); }

/* Appends the sds t. */
sds sdscatsds(sds s, const sds t) { return sdscatlen(s, t, sdslen(t)); }

/* Replaces the content of s with len bytes from t. Returns the possibly
 * moved string. */
sds sdscpylen(sds s, const char *t, size_t len) {
    if (sdsalloc(s) < len) s = sdsMakeRoomFor(s, len - sdslen(s));
    memmove(s, t, len);
    s[len] = '\0';
    sdssetlen(s, len);
    return s;
}

/* Replaces the content of s with the C string t. */
sds sdscpy(sds s, const char *t) { return sdscpylen(s, t, strlen(t)); }

/* Appends printf-style output. Returns the possibly moved string (s itself
 * unchanged if the format is invalid). */
sds sdscatvprintf(sds s, const char *fmt, va_list ap) {
    char small[512];
    va_list cpy;
    va_copy(cpy, ap);
    int n = vsnprintf(small, sizeof(small), fmt, cpy);
    va_end(cpy);
    if (n < 0) return s;
    if ((size_t)n < sizeof(small)) return sdscatlen(s, small, n);

    /* Too big for the stack buffer: format straight into the string. */
    size_t cur = sdslen(s);
    s = sdsMakeRoomFor(s, (size_t)n);
    va_copy(cpy, ap);
    vsnprintf(s + cur, (size_t)n + 1, fmt, cpy);
    va_end(cpy);
    sdssetlen(s, cur + n);
    return s;
}

/* printf-style append: s = sdscatprintf(s, "%d", 10). */
sds sdscatprintf(sds s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    s = sdscatvprintf(s, fmt, ap);
    va_end(ap);
    return s;
}

/* Writes v's decimal digits into buf (at least 21 bytes), returns length. */
static int sdsUll2Str(char *buf, unsigned long long v) {
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

static int sdsLl2Str(char *buf, long long v) {
    if (v >= 0) return sdsUll2Str(buf, (unsigned long long)v);
    buf[0] = '-';
    return 1 + sdsUll2Str(buf + 1, -(unsigned long long)v);
}

/* A fast subset of printf, for hot paths (the reply and log formatting):
 *   %s C string   %S sds   %i int   %I long long
 *   %u unsigned int   %U unsigned long long   %% a percent sign
 * Any other character after '%' is copied as is. Returns the possibly moved
 * string. */
sds sdscatfmt(sds s, char const *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char num[24];
    const char *f = fmt;
    while (*f) {
        /* Copy the literal run up to the next '%' in one go. */
        const char *pct = strchr(f, '%');
        size_t run = pct ? (size_t)(pct - f) : strlen(f);
        if (run) s = sdscatlen(s, f, run);
        f += run;
        if (*f == '\0') break;
        f++; /* past '%' */
        char c = *f;
        if (c == '\0') break;
        f++;
        switch (c) {
        case 's': {
            const char *str = va_arg(ap, const char *);
            s = sdscatlen(s, str, strlen(str));
            break;
        }
        case 'S': {
            sds str = va_arg(ap, sds);
            s = sdscatlen(s, str, sdslen(str));
            break;
        }
        case 'i': s = sdscatlen(s, num, sdsLl2Str(num, va_arg(ap, int))); break;
        case 'I': s = sdscatlen(s, num, sdsLl2Str(num, va_arg(ap, long long))); break;
        case 'u': s = sdscatlen(s, num, sdsUll2Str(num, va_arg(ap, unsigned int))); break;
        case 'U': s = sdscatlen(s, num, sdsUll2Str(num, va_arg(ap, unsigned long long))); break;
        default: s = sdscatlen(s, &c, 1); break; /* "%%" and unknown */
        }
    }
    va_end(ap);
    return s;
}

/* Returns a new string holding the decimal form of value. */
sds sdsfromlonglong(long long value) {
    char buf[24];
    int n = sdsLl2Str(buf, value);
    return sdsnewlen(buf, n);
}

/* ------------------------------ in-place edits --------------------------- */

/* Removes from both ends every character found in the C string cset.
 * Works in place; returns s for convenience. */
sds sdstrim(sds s, const char *cset) {
    size_t len = sdslen(s);
    size_t start = 0, end = len; /* keep [start, end) */
    while (start < end && strchr(cset, s[start]) && s[start] != '\0') start++;
    while (end > start && strchr(cset, s[end - 1]) && s[end - 1] != '\0') end--;
    size_t newlen = end - start;
    if (start && newlen) memmove(s, s + start, newlen);
    s[newlen] = '\0';
    sdssetlen(s, newlen);
    return s;
}

/* Keeps only the len bytes starting at start (clamped to the string). */
void sdssubstr(sds s, size_t start, size_t len) {
    size_t oldlen = sdslen(s);
    if (start >= oldlen) start = len = 0;
    if (len > oldlen - start) len = oldlen - start;
    if (start && len) memmove(s, s + start, len);
    s[len] = '\0';
    sdssetlen(s, len);
}

/* Keeps the inclusive range [start, end]; negative indexes count from the
 * end (-1 is the last byte) and are clamped at 0. An empty range empties
 * the string. In place. */
void sdsrange(sds s, ssize_t start, ssize_t end) {
    ssize_t len = (ssize_t)sdslen(s);
    if (len == 0) return;
    if (start < 0 && (start += len) < 0) start = 0;
    if (end < 0 && (end += len) < 0) end = 0;
    size_t newlen = start > end ? 0 : (size_t)(end - start + 1);
    sdssubstr(s, (size_t)start, newlen);
}

/* Lower-cases s in place (ASCII, via tolower). */
void sdstolower(sds s) {
    size_t len = sdslen(s);
    for (size_t j = 0; j < len; j++) s[j] = (char)tolower((unsigned char)s[j]);
}

/* Upper-cases s in place. */
void sdstoupper(sds s) {
    size_t len = sdslen(s);
    for (size_t j = 0; j < len; j++) s[j] = (char)toupper((unsigned char)s[j]);
}

/* Replaces every occurrence of from[i] with to[i] (i < setlen), in place.
 * Returns s. */
sds sdsmapchars(sds s, const char *from, const char *to, size_t setlen) {
    size_t len = sdslen(s);
    for (size_t j = 0; j < len; j++) {
        for (size_t i = 0; i < setlen; i++) {
            if (s[j] == from[i]) {
                s[j] = to[i];
                break;
            }
        }
    }
    return s;
}

/* Compares like memcmp; on a common prefix the shorter string is smaller.
 * Returns <0, 0 or >0. */
int sdscmp(const sds s1, const sds s2) {
    size_t l1 = sdslen(s1), l2 = sdslen(s2);
    int cmp = memcmp(s1, s2, l1 < l2 ? l1 : l2);
    if (cmp) return cmp;
    return (l1 > l2) - (l1 < l2);
}

/* ------------------------------ split / join ----------------------------- */

/* Splits len bytes of s on the separator sep (seplen bytes, may be
 * multi-byte). Returns an array of *count new strings, which the caller
 * frees with sdsfreesplitres(); an empty input gives an empty (non-NULL)
 * array. Returns NULL with *count 0 if seplen < 1 or len < 0. */
sds *sdssplitlen(const char *s, ssize_t len, const char *sep, int seplen, int *count) {
    *count = 0;
    if (seplen < 1 || len < 0) return NULL;
    int slots = 8, n = 0;
    sds *tokens = zmalloc(sizeof(sds) * slots);
    if (len == 0) return tokens;

    ssize_t start = 0;
    for (ssize_t j = 0; j + seplen <= len; j++) {
        if (s[j] != sep[0] || (seplen > 1 && memcmp(s + j, sep, seplen) != 0)) continue;
        if (n + 2 > slots) {
            slots *= 2;
            tokens = zrealloc(tokens, sizeof(sds) * slots);
        }
        tokens[n++] = sdsnewlen(s + start, j - start);
        start = j + seplen;
        j += seplen - 1;
    }
    if (n + 1 > slots) tokens = zrealloc(tokens, sizeof(sds) * (slots + 1));
    tokens[n++] = sdsnewlen(s + start, len - start);
    *count = n;
    return tokens;
}

/* Frees the result of sdssplitlen() or sdssplitargs(); NULL is fine. */
void sdsfreesplitres(sds *tokens, int count) {
    if (!tokens) return;
    for (int j = 0; j < count; j++) sdsfree(tokens[j]);
    zfree(tokens);
}

/* Returns a new string: the C strings argv joined with sep between. */
sds sdsjoin(char **argv, int argc, char *sep) {
    sds join = sdsempty();
    for (int j = 0; j < argc; j++) {
        if (j) join = sdscat(join, sep);
        join = sdscat(join, argv[j]);
    }
    return join;
}

/* Like sdsjoin() but for sds elements and a binary separator. */
sds sdsjoinsds(sds *argv, int argc, const char *sep, size_t seplen) {
    sds join = sdsempty();
    for (int j = 0; j < argc; j++) {
        if (j) join = sdscatlen(join, sep, seplen);
        join = sdscatsds(join, argv[j]);
    }
    return join;
}

/* ------------------------------ quoting ---------------------------------- */

/* Appends p (len bytes) as a double-quoted, escaped literal that
 * sdssplitargs() reads back byte for byte: \\ \" \n \r \t \a \b, and \xHH
 * for any other non-printable byte. Returns the possibly moved string. */
sds sdscatrepr(sds s, const char *p, size_t len) {
    static const char hex[] = "0123456789abcdef";
    s = sdsMakeRoomFor(s, len + 2);
    s = sdscatlen(s, "\"", 1);
    for (size_t j = 0; j < len; j++) {
        unsigned char c = (unsigned char)p[j];
        char esc[4];
        size_t elen = 2;
        esc[0] = '\\';
        switch (c) {
        case '\\': esc[1] = '\\'; break;
        case '"': esc[1] = '"'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\a': esc[1] = 'a'; break;
        case '\b': esc[1] = 'b'; break;
        default:
            if (isprint(c)) {
                esc[0] = (char)c;
                elen = 1;
            } else {
                esc[1] = 'x';
                esc[2] = hex[c >> 4];
                esc[3] = hex[c & 15];
                elen = 4;
            }
        }
        s = sdscatlen(s, esc, elen);
    }
    return sdscatlen(s, "\"", 1);
}

/* Returns 1 if s must be written through sdscatrepr() to survive a round
 * trip through sdssplitargs() (config rewrite): it is empty, or holds a
 * space, a quote of either kind, a backslash or a non-printable byte.
 * Returns 0 if it can be written bare. */
int sdsneedsrepr(const sds s) {
    size_t len = sdslen(s);
    if (len == 0) return 1;
    for (size_t j = 0; j < len; j++) {
        unsigned char c = (unsigned char)s[j];
        if (c == '\\' || c == '"' || c == '\'' || !isprint(c) || isspace(c)) return 1;
    }
    return 0;
}

static int hexDigitValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Splits a line into arguments the way a shell would, for the config file
 * parser and the CLI:
 *   foo bar            two arguments separated by whitespace
 *   "a b\n\x41"        double quotes: \n \r \t \b \a \\ \" and \xHH escapes
 *   'it\'s'            single quotes: only \' is an escape
 * A closing quote must be followed by whitespace or the end of the line.
 * Returns an array of *argc new strings (possibly zero, array non-NULL) to
 * free with sdsfreesplitres(), or NULL (with *argc 0) on unbalanced quotes
 * or a quote closed in the middle of a token. */
sds *sdssplitargs(const char *line, int *argc) {
    const char *p = line;
    sds *vector = NULL;
    int n = 0;
    *argc = 0;

    for (;;) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (*p == '\0') break;

        sds cur = sdsempty();
        int inq = 0, insq = 0, done = 0;
        while (!done) {
            char c = *p;
            if (inq) {
                if (c == '\0') goto err;
                int h1, h2;
                if (c == '\\' && p[1] == 'x' && (h1 = hexDigitValue(p[2])) >= 0 &&
                    (h2 = hexDigitValue(p[3])) >= 0) {
                    char b = (char)(h1 * 16 + h2);
                    cur = sdscatlen(cur, &b, 1);
                    p += 3;
                } else if (c == '\\' && p[1]) {
                    char e = *++p;
                    switch (e) {
                    case 'n': e = '\n'; break;
                    case 'r': e = '\r'; break;
                    case 't': e = '\t'; break;
                    case 'b': e = '\b'; break;
                    case 'a': e = '\a'; break;
                    }
                    cur = sdscatlen(cur, &e, 1);
                } else if (c == '"') {
                    if (p[1] && !isspace((unsigned char)p[1])) goto err;
                    done = 1;
                } else {
                    cur = sdscatlen(cur, &c, 1);
                }
            } else if (insq) {
                if (c == '\0') goto err;
                if (c == '\\' && p[1] == '\'') {
                    p++;
                    cur = sdscatlen(cur, "'", 1);
                } else if (c == '\'') {
                    if (p[1] && !isspace((unsigned char)p[1])) goto err;
                    done = 1;
                } else {
                    cur = sdscatlen(cur, &c, 1);
                }
            } else {
                switch (c) {
                case ' ':
                case '\n':
                case '\r':
                case '\t':
                case '\0': done = 1; break;
                case '"': inq = 1; break;
                case '\'': insq = 1; break;
                default: cur = sdscatlen(cur, &c, 1); break;
                }
            }
            if (*p) p++;
        }
        vector = zrealloc(vector, sizeof(sds) * (n + 1));
        vector[n++] = cur;
        continue;
    err:
        sdsfree(cur);
        sdsfreesplitres(vector, n);
        *argc = 0;
        return NULL;
    }
    if (vector == NULL) vector = zmalloc(sizeof(sds));
    *argc = n;
    return vector;
}
