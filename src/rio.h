/* rio.h - a byte source or sink for the RDB encoder and decoder.
 *
 * One struct, five backends chosen at initialisation:
 *
 *   sds writer    appends to a growing sds (DUMP payloads, FUNCTION DUMP,
 *                 tests); rioSdsTake() hands the result over.
 *   memory reader reads borrowed memory (pointer + length, never copied):
 *                 RESTORE payloads, an sds, a mapped region.
 *   fd writer     buffers (RIO_FD_BUFSIZE) and write()s to a file or pipe;
 *                 with a sync interval, starts the writeback of every that
 *                 many bytes of a file and waits for the previous ones
 *                 (rioWriteback()), so the kernel never holds a huge dirty
 *                 backlog (rdb-save-incremental-fsync); it never fsyncs:
 *                 the caller does, once, at the end.
 *   fd reader     buffered read() from a file or pipe.
 *   null writer   keeps nothing, counts (processed_bytes): the size a value
 *                 would take (DEBUG OBJECT serializedlength).
 *
 * Every backend keeps the count of bytes that passed (processed_bytes),
 * an optional running CRC-64 of them (rioEnableChecksum) and a sticky
 * error: after the first failure every call fails, so a caller may check
 * once at the end. A read that cannot be satisfied in full (end of data)
 * is a failure too and sets RIO_ERR_EOF. A leaf library: sds, zmalloc and
 * crc64 only. */
#ifndef RIO_H
#define RIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sds.h"

#define RIO_FD_BUFSIZE (64 * 1024)
#define RIO_FSYNC_INTERVAL (4 * 1024 * 1024) /* rdb-save-incremental-fsync */

/* rio.error: why the stream stopped. */
#define RIO_OK 0
#define RIO_ERR_IO 1  /* a system call failed; rio.sys_errno says why */
#define RIO_ERR_EOF 2 /* a read ran past the end of the data */

typedef enum { RIO_SDS_WRITER, RIO_MEM_READER, RIO_FD_WRITER, RIO_FD_READER, RIO_NULL_WRITER, RIO_FUNC_WRITER } rioKind;

typedef struct rio rio;

/* Called after every successful read or write with its length (loading
 * progress, rdb-key-load-delay pacing, ...). May be NULL. */
typedef void rioProgressFn(rio *r, size_t len);

struct rio {
    rioKind kind;
    int error;                 /* RIO_OK, RIO_ERR_IO or RIO_ERR_EOF; sticky */
    int sys_errno;             /* errno of the failed call (RIO_ERR_IO) */
    int checksum;              /* 1: cksum covers every byte since enabled */
    uint64_t cksum;            /* running CRC-64 */
    uint64_t processed_bytes;  /* bytes read or written so far */
    rioProgressFn *progress;
    void *privdata;            /* for the progress callback */
    union {
        struct {
            sds buf;
        } sds;
        struct {
            const unsigned char *p;
            size_t len, pos;
        } mem;
        struct {
            int fd;
            unsigned char *buf;   /* RIO_FD_BUFSIZE bytes */
            size_t used;          /* writer: bytes buffered; reader: bytes in buf */
            size_t pos;           /* reader: next byte of buf */
            size_t fsync_every;   /* writer: writeback interval; 0 = none */
            size_t unsynced;      /* writer: bytes written since the last writeback */
            off_t synced_to;      /* writer: file offset where unsynced bytes start */
            off_t prev_synced_to; /* writer: start of the range whose writeback runs */
            uint64_t left;        /* reader: bytes left in a regular file, else UINT64_MAX */
            ssize_t (*readfn)(void *ctx, void *buf, size_t len); /* function reader */
            void *readctx;
        } fd;
        struct {
            int (*fn)(void *ctx, const void *buf, size_t len); /* 1 ok, 0 failed (errno) */
            void *ctx;
        } func;
    } io;
};

void rioInitSdsWriter(rio *r);
void rioInitMemReader(rio *r, const void *p, size_t len);
void rioInitFdWriter(rio *r, int fd, size_t fsync_every);
void rioInitFdReader(rio *r, int fd);
/* A buffered reader over a function: fn(ctx, buf, len) returns bytes read
 * (> 0), 0 at the end of data, -1 on error (errno set). For sources that
 * are not fds (a replication link over any transport). */
void rioInitFuncReader(rio *r, ssize_t (*fn)(void *ctx, void *buf, size_t len), void *ctx);
/* Reader backends: bytes read ahead into the buffer and not yet consumed
 * (*len of them; valid until the next read or rioRelease). */
const char *rioBuffered(const rio *r, size_t *len);
void rioInitNullWriter(rio *r);
/* A writer that hands every write to fn unbuffered (fn copies it where it
 * belongs, e.g. a shared-memory ring); fn returns 1, or 0 with errno set. */
void rioInitFuncWriter(rio *r, int (*fn)(void *ctx, const void *buf, size_t len), void *ctx);
/* Frees the backend's buffers (not the fd, not borrowed memory). */
void rioRelease(rio *r);

/* 1 when all len bytes went through, 0 on failure (then r->error is set). */
int rioWrite(rio *r, const void *buf, size_t len);
int rioRead(rio *r, void *buf, size_t len);
/* Fd writer: writes out the buffer (no fsync). 1 on success, 0 on error.
 * Other backends: a no-op returning 1 unless the stream failed. */
int rioFlush(rio *r);
/* The sds writer's result; the rio no longer owns it (call rioRelease
 * afterwards or not: it then holds an empty string). */
sds rioSdsTake(rio *r);

/* Writeback pacing of a file written sequentially: starts the kernel's
 * writeback of [from, to) without waiting for it, and waits until the
 * range before it, [prev, from), is written back. Called every interval,
 * it keeps at most two intervals of the file dirty in the page cache and
 * makes the writer wait only for a range it wrote an interval ago. Uses
 * sync_file_range() on Linux (data only: fsync the file at the end for
 * durability), fsync() where that is missing. Returns 0, or -1 with errno
 * (ESPIPE for a pipe). Used by the fd writer and the replica's transfer
 * file. */
int rioWriteback(int fd, off_t prev, off_t from, off_t to);

/* Starts a CRC-64 of the bytes from now on (r->cksum, from 0). */
void rioEnableChecksum(rio *r);
/* Bytes left to read: exact for a memory reader and a regular file,
 * UINT64_MAX when unknown (pipes, writers). Decoders use it to refuse
 * lengths that cannot be there before allocating for them. */
uint64_t rioRemaining(const rio *r);

#endif
