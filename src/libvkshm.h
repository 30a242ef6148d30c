/* libvkshm.h - a small C client library for the server's shared-memory
 * transport: an application on the server's host connects to the Unix
 * socket (unixsocket) and talks RESP through two rings in shared memory,
 * with no system call per request while both sides are busy.
 *
 *     #include "libvkshm.h"
 *     char err[256];
 *     vkshmConn *c = vkshmConnect("/run/valkey.sock", NULL, err, sizeof(err));
 *     if (!c) { fprintf(stderr, "%s\n", err); exit(1); }
 *     const char *argv[] = {"SET", "greeting", "hello"};
 *     vkshmReply *r = vkshmCommand(c, 3, argv, NULL);
 *     if (r && r->type == VKSHM_REPLY_STATUS) printf("%s\n", r->str);   // OK
 *     vkshmFreeReply(r);
 *     vkshmClose(c);
 *
 * Build: `make -C src libvkshm.a`; link with src/libvkshm.a (it holds
 * shm_ring.o too). The server needs `unixsocket` and `shm-enabled yes`.
 *
 * Two layers:
 * - Blocking RESP: vkshmCommand() sends a command and reads its reply;
 *   vkshmAppendCommand() + vkshmReadReply() pipeline. Replies are parsed
 *   into vkshmReply trees (RESP2 and RESP3).
 * - Bytes, for event loops (the tools' --shm transport, the Tcl channel):
 *   vkshmRead()/vkshmWrite() never block; vkshmPollFd() is one fd that
 *   turns readable when the server rings our doorbell or closes; before
 *   sleeping on it call vkshmArm(), after waking vkshmProcess().
 *
 * Waiting: a blocking call polls the ring for spin_us microseconds (the
 * server's shm-spin-us unless vkshmOptions says otherwise), then arms its
 * doorbell and sleeps in poll() on it and on the socket, so an idle
 * connection costs no CPU and the server's death ends every wait.
 *
 * The server is trusted no more than it must be: every index it publishes
 * is checked (shm_ring.h), the hello is checked against the memfd's real
 * size before mapping, and replies are parsed with depth and size limits.
 *
 * Threads: a connection belongs to one thread at a time. Errors: functions
 * returning int/ssize_t give -1 with errno; vkshmError() describes the
 * last failure. */
#ifndef VK_LIBVKSHM_H
#define VK_LIBVKSHM_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#define VKSHM_READABLE 1
#define VKSHM_WRITABLE 2

/* Reply types: the RESP type bytes. RESP2 null bulks and null arrays are
 * VKSHM_REPLY_NIL; a RESP3 attribute is skipped (the reply it precedes is
 * returned). */
#define VKSHM_REPLY_STATUS '+'
#define VKSHM_REPLY_ERROR '-'
#define VKSHM_REPLY_INTEGER ':'
#define VKSHM_REPLY_STRING '$'
#define VKSHM_REPLY_ARRAY '*'
#define VKSHM_REPLY_NIL '_'
#define VKSHM_REPLY_DOUBLE ','
#define VKSHM_REPLY_BOOL '#'
#define VKSHM_REPLY_BLOB_ERROR '!'
#define VKSHM_REPLY_VERBATIM '='
#define VKSHM_REPLY_BIGNUM '('
#define VKSHM_REPLY_MAP '%'
#define VKSHM_REPLY_SET '~'
#define VKSHM_REPLY_PUSH '>'

typedef struct vkshmConn vkshmConn;

typedef struct vkshmReply {
    int type;                   /* VKSHM_REPLY_* */
    long long integer;          /* INTEGER, BOOL (1/0). */
    double dval;                /* DOUBLE. */
    char *str;                  /* NUL-terminated text of STATUS, ERROR, STRING, DOUBLE,
                                 * BLOB_ERROR, VERBATIM ("txt:..."), BIGNUM; else NULL. */
    size_t len;                 /* Bytes of str. */
    size_t elements;            /* ARRAY, SET, PUSH: elements; MAP: 2 x pairs (key, value, ...). */
    struct vkshmReply **element;
} vkshmReply;

typedef struct vkshmOptions {
    int spin_us;          /* Polling before sleeping; -1 = the server's shm-spin-us. */
    int fallback;         /* 1: if the server refuses the upgrade, stay a plain
                           * Unix-socket connection instead of failing. */
    long long timeout_ms; /* Connect and upgrade time limit; 0 = 10 s. */
} vkshmOptions;

vkshmConn *vkshmConnect(const char *path, const vkshmOptions *opts, char *err, size_t errlen);
void vkshmClose(vkshmConn *c);
int vkshmIsShared(const vkshmConn *c);
size_t vkshmRingSize(const vkshmConn *c);
const char *vkshmError(const vkshmConn *c);

ssize_t vkshmRead(vkshmConn *c, void *buf, size_t len);
ssize_t vkshmWrite(vkshmConn *c, const void *buf, size_t len);
ssize_t vkshmWritev(vkshmConn *c, const struct iovec *iov, int iovcnt);
int vkshmReady(vkshmConn *c);
int vkshmWait(vkshmConn *c, int events, long long timeout_us);
int vkshmSpinUs(const vkshmConn *c);

int vkshmPollFd(vkshmConn *c);
int vkshmArm(vkshmConn *c, int events);
int vkshmProcess(vkshmConn *c);
void vkshmNotify(vkshmConn *c);

int vkshmSendAll(vkshmConn *c, const void *buf, size_t len, long long timeout_us);
int vkshmAppendCommand(vkshmConn *c, int argc, const char **argv, const size_t *argvlen);
vkshmReply *vkshmReadReply(vkshmConn *c);
vkshmReply *vkshmCommand(vkshmConn *c, int argc, const char **argv, const size_t *argvlen);
void vkshmFreeReply(vkshmReply *r);

#endif
