/* test_rio.c - unit tests for rio.c: each backend (sds writer, memory
 * reader, buffered fd writer and reader), the running checksum, the byte
 * count, the progress callback, rioRemaining(), the writeback pacing of
 * the fd writer (rioWriteback()) and the sticky errors of short reads and
 * failed writes. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc64.h"
#include "rio.h"
#include "unittest.h"
#include "zmalloc.h"

static size_t progress_total;

static void countProgress(rio *r, size_t len) {
    (void)r;
    progress_total += len;
}

/* A temp file opened read-write and already unlinked. */
static int tempFile(void) {
    char path[] = "/tmp/test_rio_XXXXXX";
    int fd = mkstemp(path);
    if (fd != -1) unlink(path);
    return fd;
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);

    TEST("rio: sds writer appends, counts and checksums") {
        rio r;
        rioInitSdsWriter(&r);
        rioEnableChecksum(&r);
        r.progress = countProgress;
        progress_total = 0;
        ASSERT(rioWrite(&r, "1234", 4));
        ASSERT(rioWrite(&r, "56789", 5));
        ASSERT(rioFlush(&r));
        ASSERT_EQ_LL(r.processed_bytes, 9);
        ASSERT_EQ_LL(progress_total, 9);
        ASSERT(r.cksum == 0xe9c6d914c4b8d9caULL);
        ASSERT(rioRemaining(&r) == UINT64_MAX);
        sds s = rioSdsTake(&r);
        ASSERT_MEMEQ(s, sdslen(s), "123456789");
        sdsfree(s);
        rioRelease(&r);
    }

    TEST("rio: null writer counts and checksums what it is given, keeps nothing") {
        rio r;
        char c;
        rioInitNullWriter(&r);
        rioEnableChecksum(&r);
        ASSERT(rioWrite(&r, "1234", 4));
        ASSERT(rioWrite(&r, "56789", 5));
        ASSERT(rioFlush(&r));
        ASSERT_EQ_LL(r.processed_bytes, 9);
        ASSERT(r.cksum == 0xe9c6d914c4b8d9caULL);
        ASSERT(!rioRead(&r, &c, 1));
        rioRelease(&r);
    }

    TEST("rio: memory reader reads borrowed bytes, fails sticky at the end") {
        const char data[] = "abcdef";
        rio r;
        char buf[8];
        rioInitMemReader(&r, data, 6);
        ASSERT(rioRead(&r, buf, 4) && memcmp(buf, "abcd", 4) == 0);
        ASSERT_EQ_LL(rioRemaining(&r), 2);
        ASSERT(!rioRead(&r, buf, 3)); /* only 2 left: nothing is consumed */
        ASSERT_EQ_LL(r.error, RIO_ERR_EOF);
        ASSERT(!rioRead(&r, buf, 1)); /* sticky */
        ASSERT_EQ_LL(r.processed_bytes, 4);
        ASSERT(!rioWrite(&r, "x", 1));
        rioRelease(&r);
    }

    TEST("rio: a reader refuses writes and a writer refuses reads") {
        rio r;
        char c;
        rioInitSdsWriter(&r);
        ASSERT(!rioRead(&r, &c, 1));
        ASSERT_EQ_LL(r.error, RIO_ERR_IO);
        rioRelease(&r);
    }

    TEST("rio: fd writer and reader round-trip more than one buffer") {
        size_t len = 3 * RIO_FD_BUFSIZE + 12345;
        unsigned char *data = zmalloc(len), *back = zmalloc(len);
        for (size_t j = 0; j < len; j++) data[j] = (unsigned char)(j * 31 + (j >> 9));
        int fd = tempFile();
        ASSERT(fd != -1);
        rio w;
        rioInitFdWriter(&w, fd, 100000); /* writeback on the way, more than once */
        rioEnableChecksum(&w);
        /* Writes of odd sizes cross the buffer boundary everywhere. */
        for (size_t off = 0, step = 1; off < len; off += step, step = step * 3 % 7001 + 1) {
            size_t n = off + step > len ? len - off : step;
            ASSERT(rioWrite(&w, data + off, n));
        }
        ASSERT(rioFlush(&w));
        ASSERT(w.cksum == crc64(0, data, len));
        ASSERT_EQ_LL(w.processed_bytes, len);
        rioRelease(&w);
        ASSERT_EQ_LL(lseek(fd, 0, SEEK_END), len);

        lseek(fd, 0, SEEK_SET);
        rio r;
        rioInitFdReader(&r, fd);
        rioEnableChecksum(&r);
        ASSERT_EQ_LL(rioRemaining(&r), len);
        ASSERT(rioRead(&r, back, 10));
        ASSERT_EQ_LL(rioRemaining(&r), len - 10);
        ASSERT(rioRead(&r, back + 10, len - 10));
        ASSERT(memcmp(back, data, len) == 0);
        ASSERT(r.cksum == crc64(0, data, len));
        ASSERT_EQ_LL(rioRemaining(&r), 0);
        unsigned char c;
        ASSERT(!rioRead(&r, &c, 1));
        ASSERT_EQ_LL(r.error, RIO_ERR_EOF);
        rioRelease(&r);
        close(fd);
        zfree(data);
        zfree(back);
    }

    TEST("rio: fd reader of a pipe does not know what is left") {
        int p[2];
        ASSERT(pipe(p) == 0);
        ASSERT(write(p[1], "xyz", 3) == 3);
        close(p[1]);
        rio r;
        char buf[4];
        rioInitFdReader(&r, p[0]);
        ASSERT(rioRemaining(&r) == UINT64_MAX);
        ASSERT(rioRead(&r, buf, 3) && memcmp(buf, "xyz", 3) == 0);
        ASSERT(!rioRead(&r, buf, 1));
        ASSERT_EQ_LL(r.error, RIO_ERR_EOF);
        rioRelease(&r);
        close(p[0]);
    }

    TEST("rio: the sync interval paces writeback from the fd's own offset") {
        size_t len = 3 * RIO_FD_BUFSIZE + 12345;
        unsigned char *data = zmalloc(len), *back = zmalloc(len + 1000);
        memset(data, 'x', len);
        int fd = tempFile();
        ASSERT(fd != -1);
        char prefix[1000];
        memset(prefix, 'p', sizeof(prefix));
        ASSERT(write(fd, prefix, sizeof(prefix)) == (ssize_t)sizeof(prefix));
        rio w;
        rioInitFdWriter(&w, fd, 100000);
        ASSERT_EQ_LL(w.io.fd.synced_to, 1000);
        ASSERT(rioWrite(&w, data, len));
        ASSERT(rioFlush(&w));
        /* Buffers go out every 64 KB: the first range to reach 100000
         * bytes ends after two of them; the rest is still short of one. */
        ASSERT_EQ_LL(w.io.fd.prev_synced_to, 1000);
        ASSERT_EQ_LL(w.io.fd.synced_to, 1000 + 2 * RIO_FD_BUFSIZE);
        ASSERT_EQ_LL(w.io.fd.unsynced, len - 2 * RIO_FD_BUFSIZE);
        rioRelease(&w);
        ASSERT(pread(fd, back, len + 1000, 0) == (ssize_t)(len + 1000));
        ASSERT(memcmp(back, prefix, 1000) == 0 && memcmp(back + 1000, data, len) == 0);
        /* Waiting for a range already written back, and an empty range. */
        ASSERT_EQ_LL(rioWriteback(fd, 0, 1000, 1000 + len), 0);
        ASSERT_EQ_LL(rioWriteback(fd, 0, 1000 + len, 1000 + len), 0);
        close(fd);
        zfree(data);
        zfree(back);
    }

    TEST("rio: writeback of a pipe fails with ESPIPE, and so does a paced writer") {
        int p[2];
        ASSERT(pipe(p) == 0);
        errno = 0;
        ASSERT_EQ_LL(rioWriteback(p[1], 0, 0, 10), -1);
        ASSERT_EQ_LL(errno, ESPIPE);
        rio w;
        rioInitFdWriter(&w, p[1], 10);
        ASSERT(rioWrite(&w, "0123456789abc", 13));
        ASSERT(!rioFlush(&w)); /* written to the pipe, then the writeback fails */
        ASSERT_EQ_LL(w.error, RIO_ERR_IO);
        ASSERT_EQ_LL(w.sys_errno, ESPIPE);
        rioRelease(&w);
        close(p[0]);
        close(p[1]);
    }

    TEST("rio: a failed write is reported with its errno and sticks") {
        int fd = tempFile();
        rio w;
        rioInitFdWriter(&w, fd, 0);
        close(fd); /* the buffered bytes cannot be written out */
        ASSERT(rioWrite(&w, "abc", 3)); /* buffered */
        ASSERT(!rioFlush(&w));
        ASSERT_EQ_LL(w.error, RIO_ERR_IO);
        ASSERT_EQ_LL(w.sys_errno, EBADF);
        ASSERT(!rioWrite(&w, "d", 1));
        rioRelease(&w);
    }

    TEST("rio: a full buffer is written out at once and errors surface") {
        int fd = tempFile();
        rio w;
        unsigned char *big = zcalloc(RIO_FD_BUFSIZE + 1);
        rioInitFdWriter(&w, fd, 0);
        close(fd);
        ASSERT(!rioWrite(&w, big, RIO_FD_BUFSIZE + 1));
        ASSERT_EQ_LL(w.error, RIO_ERR_IO);
        rioRelease(&w);
        zfree(big);
    }

    return UT_END();
}
