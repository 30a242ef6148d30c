/* io_threads.h - I/O threads (io-threads N): the per-client state the main
 * thread and an I/O thread hand back and forth, and the calls the rest of
 * the server makes. How it works, and who owns what when: io_threads.c. */
#ifndef VK_IO_THREADS_H
#define VK_IO_THREADS_H

#include <stddef.h>
#include <sys/types.h>

#include "adlist.h"

struct client;
struct serverObject;

/* io-threads: at most this many threads, the main thread included, as
 * Valkey 8 allows. */
#define IO_THREADS_MAX_NUM 128

/* What a job asks of the I/O thread (clientIO.job), done in this order. */
#define CLIENT_IO_JOB_WRITE (1 << 0) /* write the pending replies */
#define CLIENT_IO_JOB_READ (1 << 1)  /* read, then parse the query buffer into commands */

/* Where a client is in the hand-over (clientIO.state). */
typedef enum {
    CLIENT_IO_IDLE = 0,  /* the main thread's, nothing pending */
    CLIENT_IO_PENDING,   /* an I/O thread has its job (CLIENT_IO_PENDING_FLAG is set too) */
    CLIENT_IO_COMPLETED, /* job done and collected, results not applied yet */
} clientIOState;

/* What the main thread asked for while it could not hand the client over
 * (clientIO.want): it is done once the client is the main thread's again. */
#define CLIENT_IO_WANT_READ (1 << 0)  /* readable (or a read filled the buffer) */
#define CLIENT_IO_WANT_WRITE (1 << 1) /* writable, or replies to write */

/* One command an I/O thread parsed ahead of its execution: argc arguments
 * from args[first] of the queue, or, with argc 0, the protocol error that
 * ended the parse. */
typedef struct parsedCommand {
    int argc;
    int first;
    size_t len_sum; /* bytes of its arguments (client.argv_len_sum) */
} parsedCommand;

/* The commands of a pipeline an I/O thread parsed: cmds[next..count) wait
 * to run, in order, and own their argument objects in args. Filled by the
 * thread during a read job, emptied by the main thread (processInputBuffer),
 * so never touched by both at once. */
typedef struct parsedCommandQueue {
    parsedCommand *cmds;
    int count, next, cmds_cap;
    struct serverObject **args;
    int nargs, args_cap;
    const char *err_reply; /* the error entry: reply text ("Protocol error: ...") */
    const char *err_log;   /* and the reason logged (setProtocolError()) */
    char err_buf[64];      /* err_reply's text when it came from the parser */
} parsedCommandQueue;

/* A client's side of the hand-over. state, want, thread and node belong to
 * the main thread; job and the limits are written by the main thread before
 * the hand-over and read by the thread; the results are written by the
 * thread and read by the main thread once it collected the job. */
typedef struct clientIO {
    clientIOState state;
    int want;                   /* CLIENT_IO_WANT_* */
    int thread;                 /* the I/O thread holding the job, -1 none */
    listNode node;              /* in the list of collected jobs */
    /* The job and what the thread needs to know (main thread writes). */
    int job;                    /* CLIENT_IO_JOB_* */
    int notify;                 /* wake the main thread when done, whatever the result */
    int unauthenticated;        /* parse with the limits of an unauthenticated client */
    long long max_bulk_len;     /* proto-max-bulk-len */
    unsigned long long max_querybuf; /* client-query-buffer-limit */
    /* Results (the thread writes). */
    ssize_t nwritten;           /* bytes written by the job */
    int write_failed;           /* the connection failed while writing */
    ssize_t nread;              /* read()'s return: > 0 bytes, 0 closed, -1 see read_failed */
    int read_failed;            /* -1 was an error, not EAGAIN */
    int read_full;              /* the read filled its buffer: more may wait */
    int querybuf_over_limit;    /* the query buffer passed client-query-buffer-limit */
    int rest_incomplete;        /* the bytes left unparsed are not a whole command yet */
    parsedCommandQueue q;
} clientIO;

/* Set up at start-up, after the configuration is loaded (no thread is
 * started: they start when there is work for them). */
void ioThreadsInit(void);

/* Whether any I/O thread is serving clients now (INFO io_threads_active). */
int ioThreadsActive(void);

/* The main thread's hooks, from networking.c. Each returns 1 when the I/O
 * threads take care of the event (the caller returns), 0 when the caller
 * serves the client itself, as with io-threads 1. */
int ioThreadsHandleReadable(struct client *c);
int ioThreadsHandleWritable(struct client *c);

/* Waits until the I/O thread holding c's job (CLIENT_IO_PENDING_FLAG) is
 * done with it; c's buffers and connection are then the main thread's. */
void ioThreadsWaitClient(struct client *c);

/* c is being freed: forget it (its job was waited for). */
void ioThreadsClientFreed(struct client *c);

/* c becomes a client the main thread always serves, with handlers of its
 * own (a replica: SYNC/PSYNC): waits for its job, applies it and turns
 * off-thread mode off, so its connection is level-triggered again. Main
 * thread; a no-op for a client threads never served. */
void ioThreadsReleaseClient(struct client *c);

/* From beforeSleep(): runs the commands of every completed read, applies
 * completed writes. Before aofBeforeSleep(), so that the AOF is written
 * before the replies of those commands go out. */
void ioThreadsProcessCompleted(void);

/* From handleClientsWithPendingWrites(): while a busy script or a load
 * serves events (beforeSleep() does not run until it ends), applies what
 * the threads finished, as readQueryFromClient() serves clients then
 * (their commands get -BUSY or -LOADING). */
void ioThreadsServeWhileBusy(void);

/* Last thing in beforeSleep(): wakes the threads that have new jobs,
 * adjusts how many threads serve clients, and returns 1 if the event loop
 * must not sleep (collected jobs wait), 0 if it may (a thread finishing a
 * job then wakes it). */
int ioThreadsBeforeSleep(void);

/* Statistics for INFO stats (io_threaded_*). */
typedef struct ioThreadsStats {
    long long reads_processed, writes_processed, freed_objects, poll_processed;
    long long prefetch_batches, prefetch_entries;
} ioThreadsStats;
void ioThreadsGetStats(ioThreadsStats *st);
void ioThreadsResetStats(void);

/* networking.c's halves of a job: the work itself (I/O thread), which
 * returns 1 if the main thread should see the results soon, and applying
 * them (main thread). */
int clientRunIoJob(struct client *c);
void clientApplyIoJob(struct client *c);
/* Frees what the parsed-command queue still holds (main thread). */
void parsedQueueRelease(struct client *c);
/* The number of commands parsed and waiting in c's queue. */
int parsedQueueLength(struct client *c);
/* The first key-looking argument (argv[1]) of the j-th waiting command of
 * c, or NULL: a hint for prefetching. */
struct serverObject *parsedQueueKeyHint(struct client *c, int j);

#endif
