/* sds.h - binary-safe dynamic strings ("simple dynamic strings").
 *
 * An sds is a plain char * to a NUL-terminated buffer, so it can be passed to
 * any C function that reads strings, but it also knows its length (binary
 * safe, O(1)) and its spare capacity. The length lives in a header placed
 * immediately before the buffer; the byte at s[-1] is always the header's
 * flags byte, whose low 3 bits give the header class:
 *
 *   SDS_TYPE_5   [flags]                          len < 32, kept in flags>>3,
 *                                                 no spare capacity recorded
 *   SDS_TYPE_8   [len u8 ][alloc u8 ][flags]      len < 256
 *   SDS_TYPE_16  [len u16][alloc u16][flags]      len < 65536
 *   SDS_TYPE_32  [len u32][alloc u32][flags]      len < 2^32
 *   SDS_TYPE_64  [len u64][alloc u64][flags]
 *
 * Headers are packed, so a short key costs one byte of overhead. "alloc"
 * excludes the header and the terminating NUL. Functions that may grow a
 * string return the (possibly moved) new pointer; the old one is invalid. */
#ifndef VK_SDS_H
#define VK_SDS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SDS_MAX_PREALLOC (1024 * 1024)
extern const char *SDS_NOINIT; /* Pass as init to sdsnewlen(): leave uninitialised. */

typedef char *sds;

struct __attribute__((__packed__)) sdshdr5 {
    unsigned char flags; /* 3 low bits type, 5 high bits length */
    char buf[];
};
struct __attribute__((__packed__)) sdshdr8 {
    uint8_t len;
    uint8_t alloc;
    unsigned char flags;
    char buf[];
};
struct __attribute__((__packed__)) sdshdr16 {
    uint16_t len;
    uint16_t alloc;
    unsigned char flags;
    char buf[];
};
struct __attribute__((__packed__)) sdshdr32 {
    uint32_t len;
    uint32_t alloc;
    unsigned char flags;
    char buf[];
};
struct __attribute__((__packed__)) sdshdr64 {
    uint64_t len;
    uint64_t alloc;
    unsigned char flags;
    char buf[];
};

#define SDS_TYPE_5 0
#define SDS_TYPE_8 1
#define SDS_TYPE_16 2
#define SDS_TYPE_32 3
#define SDS_TYPE_64 4
#define SDS_TYPE_MASK 7
#define SDS_TYPE_BITS 3
#define SDS_HDR(T, s) ((struct sdshdr##T *)((s) - (sizeof(struct sdshdr##T))))
#define SDS_TYPE_5_LEN(f) ((f) >> SDS_TYPE_BITS)

/* Length in bytes, excluding the terminator. */
static inline size_t sdslen(const sds s) {
    unsigned char f = (unsigned char)s[-1];
    switch (f & SDS_TYPE_MASK) {
    case SDS_TYPE_5: return SDS_TYPE_5_LEN(f);
    case SDS_TYPE_8: return SDS_HDR(8, s)->len;
    case SDS_TYPE_16: return SDS_HDR(16, s)->len;
    case SDS_TYPE_32: return SDS_HDR(32, s)->len;
    case SDS_TYPE_64: return SDS_HDR(64, s)->len;
    }
    return 0;
}

/* Capacity excluding header and terminator (type 5: equal to the length). */
static inline size_t sdsalloc(const sds s) {
    unsigned char f = (unsigned char)s[-1];
    switch (f & SDS_TYPE_MASK) {
    case SDS_TYPE_5: return SDS_TYPE_5_LEN(f);
    case SDS_TYPE_8: return SDS_HDR(8, s)->alloc;
    case SDS_TYPE_16: return SDS_HDR(16, s)->alloc;
    case SDS_TYPE_32: return SDS_HDR(32, s)->alloc;
    case SDS_TYPE_64: return SDS_HDR(64, s)->alloc;
    }
    return 0;
}

/* Bytes that can be appended without reallocating. */
static inline size_t sdsavail(const sds s) { return sdsalloc(s) - sdslen(s); }

/* Sets the stored length; the caller guarantees newlen <= sdsalloc(s) and
 * writes the terminator itself if it needs one. */
static inline void sdssetlen(sds s, size_t newlen) {
    unsigned char *fp = (unsigned char *)s - 1;
    switch (*fp & SDS_TYPE_MASK) {
    case SDS_TYPE_5: *fp = (unsigned char)(SDS_TYPE_5 | (newlen << SDS_TYPE_BITS)); break;
    case SDS_TYPE_8: SDS_HDR(8, s)->len = (uint8_t)newlen; break;
    case SDS_TYPE_16: SDS_HDR(16, s)->len = (uint16_t)newlen; break;
    case SDS_TYPE_32: SDS_HDR(32, s)->len = (uint32_t)newlen; break;
    case SDS_TYPE_64: SDS_HDR(64, s)->len = (uint64_t)newlen; break;
    }
}

/* Adds inc to the stored length (same contract as sdssetlen). */
static inline void sdsinclen(sds s, size_t inc) { sdssetlen(s, sdslen(s) + inc); }

/* Records the capacity; meaningless (ignored) for type 5. */
static inline void sdssetalloc(sds s, size_t newlen) {
    switch ((unsigned char)s[-1] & SDS_TYPE_MASK) {
    case SDS_TYPE_5: break;
    case SDS_TYPE_8: SDS_HDR(8, s)->alloc = (uint8_t)newlen; break;
    case SDS_TYPE_16: SDS_HDR(16, s)->alloc = (uint16_t)newlen; break;
    case SDS_TYPE_32: SDS_HDR(32, s)->alloc = (uint32_t)newlen; break;
    case SDS_TYPE_64: SDS_HDR(64, s)->alloc = (uint64_t)newlen; break;
    }
}

sds sdsnewlen(const void *init, size_t initlen);
size_t sdsEmbeddedSize(size_t len);
sds sdsnewInBuffer(void *buf, const void *init, size_t len);

/* A short-lived sds copy of some bytes, e.g. a lookup key for a dict keyed
 * by sds: kept in the struct's own buffer (no allocation) when it fits,
 * on the heap otherwise. Treat the result as read-only. */
typedef struct sdsTemp {
    sds s;
    int on_heap;
    char buf[64];
} sdsTemp;
sds sdsTempInit(sdsTemp *t, const void *init, size_t len);
void sdsTempRelease(sdsTemp *t);
sds sdstrynewlen(const void *init, size_t initlen);
sds sdsnew(const char *init);
sds sdsempty(void);
sds sdsdup(const sds s);
void sdsfree(sds s);
sds sdsgrowzero(sds s, size_t len);
sds sdscatlen(sds s, const void *t, size_t len);
sds sdscat(sds s, const char *t);
sds sdscatsds(sds s, const sds t);
sds sdscpylen(sds s, const char *t, size_t len);
sds sdscpy(sds s, const char *t);
sds sdscatvprintf(sds s, const char *fmt, va_list ap);
sds sdscatprintf(sds s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
sds sdscatfmt(sds s, char const *fmt, ...);
sds sdstrim(sds s, const char *cset);
void sdssubstr(sds s, size_t start, size_t len);
void sdsrange(sds s, ssize_t start, ssize_t end);
void sdsupdatelen(sds s);
void sdsclear(sds s);
int sdscmp(const sds s1, const sds s2);
sds *sdssplitlen(const char *s, ssize_t len, const char *sep, int seplen, int *count);
void sdsfreesplitres(sds *tokens, int count);
void sdstolower(sds s);
void sdstoupper(sds s);
sds sdsfromlonglong(long long value);
sds sdscatrepr(sds s, const char *p, size_t len);
int sdsneedsrepr(const sds s);
sds *sdssplitargs(const char *line, int *argc);
sds sdsmapchars(sds s, const char *from, const char *to, size_t setlen);
sds sdsjoin(char **argv, int argc, char *sep);
sds sdsjoinsds(sds *argv, int argc, const char *sep, size_t seplen);

/* Low-level functions for callers that write into the spare capacity. */
sds sdsMakeRoomFor(sds s, size_t addlen);
sds sdsMakeRoomForNonGreedy(sds s, size_t addlen);
void sdsIncrLen(sds s, ssize_t incr);
sds sdsRemoveFreeSpace(sds s, int would_regrow);
int sdsCanShrink(const sds s);
sds sdsResize(sds s, size_t size, int would_regrow);
size_t sdsAllocSize(const sds s);
void *sdsAllocPtr(const sds s);

#endif
