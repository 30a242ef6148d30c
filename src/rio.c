/* rio.c - the byte sources and sinks the RDB code reads and writes through
 * (see rio.h for the backends and the error model).
 *
 * Each backend has one small read or write function; rioRead()/rioWrite()
 * around them keep the parts every backend shares: the sticky error, the
 * byte count, the running CRC-64 and the progress callback. The fd writer
 * buffers RIO_FD_BUFSIZE bytes so the encoder's many tiny writes (a type
 * byte, a length) become few system calls; its optional sync interval
 * implements rdb-save-incremental-fsync through rioWriteback(), which
 * starts the kernel's writeback of each interval without waiting for it
 * and waits only for the interval before (sync_file_range() on Linux,
 * fsync() elsewhere): the dirty page cache stays bounded to two intervals
 * and the writer rarely stalls. Whoever needs the file durable fsyncs it
 * once at the end. A leaf library. */
#include "rio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc64.h"
#include "zmalloc.h"

static void rioInitCommon(rio *r, rioKind kind) {
    memset(r, 0, sizeof(*r));
    r->kind = kind;
}

void rioInitSdsWriter(rio *r) {
    rioInitCommon(r, RIO_SDS_WRITER);
    r->io.sds.buf = sdsempty();
}

void rioInitNullWriter(rio *r) {
    rioInitCommon(r, RIO_NULL_WRITER);
}

void rioInitMemReader(rio *r, const void *p, size_t len) {
    rioInitCommon(r, RIO_MEM_READER);
    r->io.mem.p = p;
    r->io.mem.len = len;
}

void rioInitFdWriter(rio *r, int fd, size_t fsync_every) {
    rioInitCommon(r, RIO_FD_WRITER);
    r->io.fd.fd = fd;
    r->io.fd.buf = zmalloc(RIO_FD_BUFSIZE);
    r->io.fd.fsync_every = fsync_every;
    if (fsync_every) {
        /* Writeback ranges are file offsets: start where the fd is. */
        off_t at = lseek(fd, 0, SEEK_CUR);
        r->io.fd.synced_to = r->io.fd.prev_synced_to = at > 0 ? at : 0;
    }
}

/* The reader learns the size of a regular file up front (from the current
 * offset), so rioRemaining() can bound lengths read from it. */
void rioInitFdReader(rio *r, int fd) {
    struct stat st;
    rioInitCommon(r, RIO_FD_READER);
    r->io.fd.fd = fd;
    r->io.fd.buf = zmalloc(RIO_FD_BUFSIZE);
    r->io.fd.left = UINT64_MAX;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        off_t at = lseek(fd, 0, SEEK_CUR);
        if (at >= 0 && at <= st.st_size) r->io.fd.left = (uint64_t)(st.st_size - at);
    }
}

void rioInitFuncWriter(rio *r, int (*fn)(void *ctx, const void *buf, size_t len), void *ctx) {
    rioInitCommon(r, RIO_FUNC_WRITER);
    r->io.func.fn = fn;
    r->io.func.ctx = ctx;
}

void rioInitFuncReader(rio *r, ssize_t (*fn)(void *ctx, void *buf, size_t len), void *ctx) {
    rioInitCommon(r, RIO_FD_READER);
    r->io.fd.fd = -1;
    r->io.fd.buf = zmalloc(RIO_FD_BUFSIZE);
    r->io.fd.left = UINT64_MAX;
    r->io.fd.readfn = fn;
    r->io.fd.readctx = ctx;
}

const char *rioBuffered(const rio *r, size_t *len) {
    if (r->kind != RIO_FD_READER) {
        *len = 0;
        return NULL;
    }
    *len = r->io.fd.used - r->io.fd.pos;
    return (const char *)r->io.fd.buf + r->io.fd.pos;
}

void rioRelease(rio *r) {
    if (r->kind == RIO_SDS_WRITER) {
        sdsfree(r->io.sds.buf);
        r->io.sds.buf = NULL;
    } else if (r->kind == RIO_FD_WRITER || r->kind == RIO_FD_READER) {
        zfree(r->io.fd.buf);
        r->io.fd.buf = NULL;
    }
}

sds rioSdsTake(rio *r) {
    sds s = r->io.sds.buf;
    r->io.sds.buf = sdsempty();
    return s;
}

void rioEnableChecksum(rio *r) {
    r->checksum = 1;
    r->cksum = 0;
}

uint64_t rioRemaining(const rio *r) {
    if (r->kind == RIO_MEM_READER) return r->io.mem.len - r->io.mem.pos;
    if (r->kind == RIO_FD_READER && r->io.fd.left != UINT64_MAX)
        return r->io.fd.left + (r->io.fd.used - r->io.fd.pos);
    return UINT64_MAX;
}

/* Marks the stream failed; returns 0 for the caller to pass on. */
static int rioFail(rio *r, int error, int sys_errno) {
    r->error = error;
    r->sys_errno = sys_errno;
    return 0;
}

/* ---- fd backends -------------------------------------------------------- */

/* Writes all of buf to fd, retrying short writes and EINTR. */
static int rioFdWriteAll(rio *r, const unsigned char *buf, size_t len) {
    while (len) {
        ssize_t n = write(r->io.fd.fd, buf, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return rioFail(r, RIO_ERR_IO, n < 0 ? errno : EIO);
        buf += n;
        len -= (size_t)n;
    }
    return 1;
}

/* Writes out the buffer; once an interval has accumulated, starts its
 * writeback and waits for the previous interval's (rioWriteback()). */
static int rioFdDrain(rio *r) {
    size_t used = r->io.fd.used;
    if (used == 0) return 1;
    r->io.fd.used = 0;
    if (!rioFdWriteAll(r, r->io.fd.buf, used)) return 0;
    r->io.fd.unsynced += used;
    if (r->io.fd.fsync_every && r->io.fd.unsynced >= r->io.fd.fsync_every) {
        off_t end = r->io.fd.synced_to + (off_t)r->io.fd.unsynced;
        if (rioWriteback(r->io.fd.fd, r->io.fd.prev_synced_to, r->io.fd.synced_to, end) == -1)
            return rioFail(r, RIO_ERR_IO, errno);
        r->io.fd.prev_synced_to = r->io.fd.synced_to;
        r->io.fd.synced_to = end;
        r->io.fd.unsynced = 0;
    }
    return 1;
}

/* See rio.h. With sync_file_range(): WRITE starts writeback of the new
 * range and returns at once; WAIT_BEFORE|WRITE|WAIT_AFTER on the previous
 * range waits for its writeback to end (it was started a range ago, so
 * usually it has), submitting any page of it dirtied again meanwhile. It
 * syncs data pages only (no metadata, no disk cache flush), which is why
 * the caller still fsyncs at the end. */
int rioWriteback(int fd, off_t prev, off_t from, off_t to) {
#ifdef __linux__
    if (to > from && sync_file_range(fd, from, to - from, SYNC_FILE_RANGE_WRITE) == -1) {
        if (errno == ENOSYS) return fsync(fd);
        return -1;
    }
    if (from > prev &&
        sync_file_range(fd, prev, from - prev,
                        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) == -1)
        return -1;
    return 0;
#else
    (void)prev;
    (void)from;
    (void)to;
    return fsync(fd);
#endif
}

static int rioFdWrite(rio *r, const unsigned char *p, size_t len) {
    while (len) {
        size_t room = RIO_FD_BUFSIZE - r->io.fd.used;
        size_t n = len < room ? len : room;
        memcpy(r->io.fd.buf + r->io.fd.used, p, n);
        r->io.fd.used += n;
        p += n;
        len -= n;
        if (r->io.fd.used == RIO_FD_BUFSIZE && !rioFdDrain(r)) return 0;
    }
    return 1;
}

/* Refills the read buffer; 0 at end of data or on error. */
static int rioFdFill(rio *r) {
    ssize_t n;
    do {
        n = r->io.fd.readfn ? r->io.fd.readfn(r->io.fd.readctx, r->io.fd.buf, RIO_FD_BUFSIZE)
                            : read(r->io.fd.fd, r->io.fd.buf, RIO_FD_BUFSIZE);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return rioFail(r, RIO_ERR_IO, errno);
    if (n == 0) return rioFail(r, RIO_ERR_EOF, 0);
    r->io.fd.used = (size_t)n;
    r->io.fd.pos = 0;
    if (r->io.fd.left != UINT64_MAX) r->io.fd.left -= (uint64_t)n <= r->io.fd.left ? (uint64_t)n : r->io.fd.left;
    return 1;
}

static int rioFdRead(rio *r, unsigned char *p, size_t len) {
    while (len) {
        if (r->io.fd.pos == r->io.fd.used && !rioFdFill(r)) return 0;
        size_t avail = r->io.fd.used - r->io.fd.pos;
        size_t n = len < avail ? len : avail;
        memcpy(p, r->io.fd.buf + r->io.fd.pos, n);
        r->io.fd.pos += n;
        p += n;
        len -= n;
    }
    return 1;
}

/* ---- the shared entry points --------------------------------------------- */

/* Count, checksum and report bytes that went through successfully. */
static void rioAccount(rio *r, const void *buf, size_t len) {
    if (r->checksum) r->cksum = crc64(r->cksum, buf, len);
    r->processed_bytes += len;
    if (r->progress) r->progress(r, len);
}

int rioWrite(rio *r, const void *buf, size_t len) {
    if (r->error) return 0;
    switch (r->kind) {
    case RIO_SDS_WRITER: r->io.sds.buf = sdscatlen(r->io.sds.buf, buf, len); break;
    case RIO_NULL_WRITER: break;
    case RIO_FUNC_WRITER:
        if (!r->io.func.fn(r->io.func.ctx, buf, len)) return rioFail(r, RIO_ERR_IO, errno);
        break;
    case RIO_FD_WRITER:
        if (!rioFdWrite(r, buf, len)) return 0;
        break;
    default: return rioFail(r, RIO_ERR_IO, EBADF);
    }
    rioAccount(r, buf, len);
    return 1;
}

int rioRead(rio *r, void *buf, size_t len) {
    if (r->error) return 0;
    switch (r->kind) {
    case RIO_MEM_READER:
        if (len > r->io.mem.len - r->io.mem.pos) return rioFail(r, RIO_ERR_EOF, 0);
        memcpy(buf, r->io.mem.p + r->io.mem.pos, len);
        r->io.mem.pos += len;
        break;
    case RIO_FD_READER:
        if (!rioFdRead(r, buf, len)) return 0;
        break;
    default: return rioFail(r, RIO_ERR_IO, EBADF);
    }
    rioAccount(r, buf, len);
    return 1;
}

int rioFlush(rio *r) {
    if (r->error) return 0;
    if (r->kind == RIO_FD_WRITER) return rioFdDrain(r);
    return 1;
}
