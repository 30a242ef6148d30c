/* io_threads.c - I/O threads (io-threads N): threads that read, parse and
 * write for the main thread, which then only executes commands.
 *
 * What runs where. I/O threads own bytes, the main thread owns state. An
 * I/O thread reads a client's socket into its query buffer, parses every
 * whole request in it into argument objects (c->io.q, the parsed-command
 * queue), writes the client's pending replies and frees the reply blocks
 * that went out. The main thread does everything else: it runs the event
 * loop (every fd stays in its epoll set), executes commands, and is the
 * only thread that touches the keyspace, scripts, replication, the AOF,
 * the client table, a client's flags and its event registrations. The
 * read, parse and write code is networking.c's, the same the main thread
 * runs with io-threads 1 (clientRunIoJob()).
 *
 * Queues, not shared flags. Each I/O thread has two single-producer
 * single-consumer rings: jobs (main -> thread) and done (thread -> main).
 * A job is a client plus what to do (c->io.job: write, then read and
 * parse). Handing a client over is pushing it on a thread's job ring;
 * handing it back is the thread pushing it on its done ring; the release
 * and acquire of the rings' indexes order everything the other side wrote
 * into the client before. A client has at most one job at a time. Only
 * the main thread decides and knows where a client is: its own bookkeeping
 * (c->io.state and CLIENT_IO_PENDING_FLAG, never read by a thread) says
 * "pending" from the push until it collects the client from the done ring
 * ("completed": results not applied yet), then "idle" once it applied them.
 *
 * Who owns a client when. Idle or completed: the main thread, wholly.
 * Pending: the thread owns the client's I/O state (query buffer, parser
 * state, argv being parsed, the queue, the reply buffer and blocks, the
 * connection's read and write) and reads the limits the main thread put in
 * c->io before the push; it reads nothing else of the server (the access
 * time of argument objects is stamped by the main thread when the command
 * runs). The main thread must not touch those while the job is pending;
 * where it has to (a reply to the client from another client's command:
 * PUBLISH, an unblocked BLPOP, a tracking message; CLIENT LIST or INFO
 * reading buffer sizes; freeing it) it first waits for that job
 * (ioThreadsWaitClient(): it collects the thread's done ring until the
 * client comes back, keeping the others for later). A job is one
 * non-blocking write and one read and parse, so the wait is short; it
 * spins briefly, then yields the CPU.
 *
 * Handing over and back. The main thread's readable event for a client
 * (readQueryFromClient()) pushes a read job, the writes of beforeSleep()
 * (handleClientsWithPendingWrites()) push write jobs, taking a read along
 * when one is due. The connection is first put in off-thread mode
 * (connSetOffThread(): edge-triggered), so the event loop reports new bytes
 * once and does not report the fd again and again while a thread is about
 * to read it; an event for a pending client is remembered (c->io.want) and
 * acted on when it comes back, as is a read that filled its buffer. At the
 * start of beforeSleep() the main thread collects every done ring and, for
 * each client, applies the results (clientApplyIoJob(): the stats, log
 * lines and closing rules of writeToClient() and readQueryFromClient()) and
 * runs its parsed commands in order (processInputBuffer() runs the queue
 * first), before the AOF is written, so that appendfsync always still
 * writes the AOF before any reply of those commands goes out. Keys of the
 * collected commands are prefetched together first (prefetch-batch-max-
 * size). The replies go out with the next write job.
 *
 * Which clients go to threads. Those whose transport answers
 * connCanServeOffThread() (TCP and Unix sockets; TLS and RDMA stay on the
 * main thread for now), while threads are active, outside nested event
 * processing (a busy script, a load: events are then served as with
 * io-threads 1). Replication links (replicas, our primary), MONITOR,
 * pub/sub and tracking clients (whose output other clients' commands
 * produce at any time), and clients in the Lua debugger are always served
 * by the main thread; a blocked or paused client is read by the main
 * thread (CLIENT_BLOCKED: the read must notice a closed connection, and
 * its pipeline waits anyway) but may still be written by a thread. Serving
 * a client on the main thread again ("reclaim") waits for its job,
 * applies it, and turns off-thread mode off; from then on everything is
 * exactly the io-threads 1 path.
 *
 * Close, kill, blocking, pause, eviction, output limits. freeClient()
 * waits for a pending job first, then unlinks the client from the
 * completed list, so a thread never sees a freed client. CLIENT KILL,
 * client eviction (maxmemory-clients) and the output buffer limits mark
 * the client with CLIENT_CLOSE_ASAP (main-thread state) and free it from
 * beforeSleep as without threads. A command that blocks (BLPOP) or is
 * paused (CLIENT PAUSE) leaves the rest of the parsed queue in place;
 * unblocking (blocked.c) and unpausing run it (clientHasUnprocessedInput()).
 * DEBUG SLEEP and busy scripts stop only the main thread: pending jobs end
 * and wait in the done rings.
 *
 * Threads start only when there is work, and sleep when there is none.
 * Threads are created the first time the load asks for them. The load is
 * the number of clients' readable events per event-loop iteration (the
 * busiest of a 100 ms window); like Valkey 8, each events-per-io-thread
 * events (default 2) ask for one more thread, the main thread included;
 * 0 serves every client by threads (the test suite's --io-threads). Threads
 * beyond the CPUs the process may use, less the main thread's, would only
 * time-share: the load activates at most that many (at least one);
 * io-threads is an upper bound. One thread is deactivated after a second
 * of lower load.
 *
 * Never slower than one thread when cores are short. Whether threads help
 * is measured, not assumed (ioProbeStep()): while the load asks for them,
 * the server compares its command rate with and without them for half a
 * second each and keeps them only if they served clearly more, trying
 * again after 5 s, then 10, 20, up to 60 s while the answer holds. On a
 * machine whose CPUs other processes (or the clients) keep busy, handing
 * requests over costs more than the threads bring, and they stay off.
 *
 * Never spinning. An I/O thread with no job sleeps on a futex at once;
 * the main thread wakes it when it pushes one (a system call only if it
 * sleeps), and while threads are active the event loop does not busy-poll
 * either. The main thread, when it is about to sleep with jobs pending,
 * says so, and a thread wakes it through an eventfd in its epoll set,
 * only for jobs it must act on (commands read, a connection closed, a
 * socket full) and once per batch; a reply written in full needs nobody:
 * the client's next request wakes the main thread anyway.
 *
 * Stats for INFO: io_threads_active, io_threaded_reads_processed and
 * io_threaded_writes_processed (jobs of each kind collected), the prefetch
 * batches and entries; io_threaded_poll_processed and
 * io_threaded_freed_objects stay 0 (threads never poll or free objects). */
#include "server.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Jobs a thread may hold at once (pending on it, in either ring): a power
 * of two. A client has one job at most, so only a thread serving more
 * clients than this at once turns further clients away (they are served
 * by the main thread meanwhile). */
#define IO_RING_SIZE 8192
#define IO_RING_MASK (IO_RING_SIZE - 1)

/* After this long with less load than the active threads are for, one of
 * them is deactivated (milliseconds). */
#define IO_THREADS_IDLE_MS 1000

/* The load is the busiest iteration of a window this long (milliseconds):
 * with threads working, one iteration may only collect results and the
 * next only take new events, so a single iteration says little. */
#define IO_THREADS_LOAD_WINDOW_MS 100

#define IO_CACHELINE 64

/* Stages of the probe that decides whether threads help (ioProbeStep()). */
enum {
    IO_PROBE_IDLE = 0, /* the load asks for no thread */
    IO_PROBE_WITH,     /* measuring the command rate with threads */
    IO_PROBE_WITHOUT,  /* measuring it without */
    IO_PROBE_HOLD,     /* keeping the answer (use_threads) for probe_hold_ms */
};

/* One single-producer single-consumer ring of clients. tail is written by
 * the producer only, head by the consumer only; the producer never reads
 * head (the main thread counts what a thread holds instead: see
 * ioThread.outstanding), so neither can overrun the other. */
typedef struct ioRing {
    client **slots;
    unsigned long tail __attribute__((aligned(IO_CACHELINE)));
    unsigned long head __attribute__((aligned(IO_CACHELINE)));
} ioRing;

/* One I/O thread. */
typedef struct ioThread {
    int id;
    pthread_t tid;
    int started;
    ioRing jobs; /* main -> thread */
    ioRing done; /* thread -> main */
    /* The thread's futex word: 1 while it sleeps (or is about to). */
    int sleeping __attribute__((aligned(IO_CACHELINE)));
    /* Main thread only: jobs pushed and not collected yet. */
    int outstanding __attribute__((aligned(IO_CACHELINE)));
} ioThread;

static ioThread threads[IO_THREADS_MAX_NUM - 1];

/* The main thread's state (main_sleeping is shared: see ioThreadsBeforeSleep). */
static struct {
    int max;            /* I/O threads io-threads allows (io-threads - 1) */
    int cpu_cap;        /* at most this many activated by the load */
    int active;         /* threads new jobs go to (0: none) */
    int started;        /* threads created so far */
    int outstanding;    /* jobs pending on all threads */
    int efd;            /* eventfd a thread writes to wake the main thread */
    int arena;          /* the main thread's jemalloc arena, -1 if none */
    /* Whether threads help (ioProbeStep()). */
    int probe_state;            /* IO_PROBE_* */
    mstime_t probe_start;       /* when the current stage began */
    long long probe_cmds;       /* stat_numcommands then */
    double probe_rate_with;     /* commands per ms with threads, last probe */
    int use_threads;            /* the last probe's answer */
    mstime_t probe_hold_ms;     /* how long the answer is kept */
    int main_sleeping;  /* 1: the main thread may sleep, wake it (atomic) */
    list *completed;    /* clients collected, results not applied (nodes: c->io.node) */
    long long load;     /* readable client events this iteration */
    long long window_load;   /* the busiest iteration of the current window */
    mstime_t window_start;   /* when the window started */
    mstime_t busy_ms;        /* the last time the load asked for all active threads */
    unsigned long wakeups;   /* eventfd wake-ups, to drain its counter now and then */
    ioThreadsStats stats;
} io = {.efd = -1, .arena = -1};

/* ---------------------------------------------------------------------------
 * Rings and sleeping
 * ------------------------------------------------------------------------- */

/* Producer side: appends c. Sequentially consistent: the consumer's check
 * of the ring before it sleeps and our check of its sleeping flag after
 * the push are ordered against each other (one of the two sees the other). */
static void ioRingPush(ioRing *r, client *c) {
    unsigned long t = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
    r->slots[t & IO_RING_MASK] = c;
    __atomic_store_n(&r->tail, t + 1, __ATOMIC_SEQ_CST);
}

/* Consumer side: the oldest client, or NULL if the ring is empty. */
static client *ioRingPop(ioRing *r) {
    unsigned long h = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
    if (h == __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE)) return NULL;
    client *c = r->slots[h & IO_RING_MASK];
    __atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
    return c;
}

/* Consumer side: 1 if nothing is waiting (see ioRingPush() for the order). */
static int ioRingEmpty(ioRing *r) {
    return __atomic_load_n(&r->head, __ATOMIC_RELAXED) == __atomic_load_n(&r->tail, __ATOMIC_SEQ_CST);
}

/* A pause in a busy wait (the other side is mid-job). */
static inline void ioCpuRelax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void futexWait(int *word, int val) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futexWake(int *word) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* I/O thread: sleeps until the main thread pushes a job. Says it sleeps
 * first, then looks at the ring once more: a push that came meanwhile is
 * seen here, or the main thread sees the flag and wakes us. */
static void ioThreadSleep(ioThread *t) {
    __atomic_store_n(&t->sleeping, 1, __ATOMIC_SEQ_CST);
    if (!ioRingEmpty(&t->jobs)) {
        __atomic_store_n(&t->sleeping, 0, __ATOMIC_SEQ_CST);
        return;
    }
    while (__atomic_load_n(&t->sleeping, __ATOMIC_SEQ_CST) == 1) futexWait(&t->sleeping, 1);
}

/* Main thread: wakes t if it sleeps (a system call only then). */
static void ioThreadKick(ioThread *t) {
    if (__atomic_load_n(&t->sleeping, __ATOMIC_SEQ_CST) && __atomic_exchange_n(&t->sleeping, 0, __ATOMIC_SEQ_CST))
        futexWake(&t->sleeping);
}

/* I/O thread, after pushing on its done ring: wakes the main thread if it
 * said it would sleep (once: the first thread to see the flag clears it). */
static void ioThreadsNotifyMain(void) {
    if (__atomic_load_n(&io.main_sleeping, __ATOMIC_SEQ_CST) &&
        __atomic_exchange_n(&io.main_sleeping, 0, __ATOMIC_SEQ_CST)) {
        uint64_t one = 1;
        ssize_t n = write(io.efd, &one, sizeof(one));
        (void)n; /* only EAGAIN at a counter near 2^64: a wake-up is pending then anyway */
    }
}

/* ---------------------------------------------------------------------------
 * The threads
 * ------------------------------------------------------------------------- */

/* An I/O thread's life: take a job, do it, hand the client back; sleep
 * when there is none. Signals are the main thread's (blocked here).
 *
 * Waking the main thread costs it a system call and a context switch, so
 * it is woken only for jobs it must act on soon (clientRunIoJob() says:
 * commands read, a connection closed or failed, a socket full, a close
 * after the reply), and for those in batches: once the thread has no job
 * left, or every IO_NOTIFY_BATCH of them. A job written in full needs
 * nobody: the client's next request wakes the main thread anyway, and
 * the main thread collects every job it finds before it sleeps. */
#define IO_NOTIFY_BATCH 16
static void *ioThreadMain(void *arg) {
    ioThread *t = arg;
    char name[32]; /* the kernel keeps 15 bytes: "io_thd_128" fits */
    snprintf(name, sizeof(name), "io_thd_%d", t->id + 1);
    pthread_setname_np(pthread_self(), name);
    if (io.arena >= 0) zmalloc_thread_arena(io.arena); /* see zmalloc.h */
    int urgent = 0; /* jobs handed back that the main thread was not told of */
    for (;;) {
        client *c = ioRingPop(&t->jobs);
        if (c == NULL) {
            if (urgent) {
                ioThreadsNotifyMain();
                urgent = 0;
                continue; /* a job may have come meanwhile */
            }
            ioThreadSleep(t);
            continue;
        }
        int needs_main = clientRunIoJob(c);
        ioRingPush(&t->done, c);
        if (needs_main && ++urgent >= IO_NOTIFY_BATCH) {
            ioThreadsNotifyMain();
            urgent = 0;
        }
    }
    return NULL;
}

/* Creates thread t (its rings, then the thread, with every signal blocked
 * so that they keep going to the main thread). Returns C_OK, or C_ERR
 * (logged) if the system refused. */
static int ioThreadStart(ioThread *t) {
    t->jobs.slots = zcalloc(sizeof(client *) * IO_RING_SIZE);
    t->done.slots = zcalloc(sizeof(client *) * IO_RING_SIZE);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int err = pthread_create(&t->tid, NULL, ioThreadMain, t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        serverLog(LL_WARNING, "Fatal: Can't initialize IO thread: %s", strerror(err));
        zfree(t->jobs.slots);
        zfree(t->done.slots);
        t->jobs.slots = t->done.slots = NULL;
        return C_ERR;
    }
    t->started = 1;
    return C_OK;
}

/* The CPUs this process may run on (its affinity mask), at least 1. */
static int ioThreadsCpuCount(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return (int)sysconf(_SC_NPROCESSORS_ONLN);
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

/* eventfd handler: the wake-up itself is the point (beforeSleep() collects
 * the rings). The counter is read now and then so that it never fills. */
static void ioThreadsWakeupHandler(aeEventLoop *el, int fd, void *clientData, int mask) {
    (void)el;
    (void)clientData;
    (void)mask;
    if ((++io.wakeups & 4095) == 0) {
        uint64_t v;
        ssize_t n = read(fd, &v, sizeof(v));
        (void)n;
    }
}

/* See io_threads.h. With io-threads 1 nothing is set up. The eventfd is
 * edge-triggered, so a wake-up never needs a read. */
void ioThreadsInit(void) {
    io.max = server.io_threads_num - 1;
    if (io.max <= 0) return;
    int cpus = ioThreadsCpuCount();
    io.cpu_cap = cpus > 2 ? cpus - 1 : 1;
    io.completed = listCreate(); /* of nodes embedded in the clients: never free its nodes */
    io.arena = zmalloc_thread_arena(-1);
    io.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (io.efd == -1 ||
        aeCreateFileEvent(server.el, io.efd, AE_READABLE | AE_EDGE, ioThreadsWakeupHandler, NULL) == AE_ERR) {
        serverLog(LL_WARNING, "Fatal: Can't initialize IO threads: %s", strerror(errno));
        exit(1);
    }
    for (int j = 0; j < io.max; j++) threads[j].id = j;
}

/* See io_threads.h. */
int ioThreadsActive(void) {
    return io.active > 0;
}

/* ---------------------------------------------------------------------------
 * Handing clients over and collecting them
 * ------------------------------------------------------------------------- */

/* Main thread: takes every client t handed back: they become "completed",
 * in the order they came, for ioThreadsProcessCompleted(). */
static void ioThreadCollect(ioThread *t) {
    client *c;
    while ((c = ioRingPop(&t->done)) != NULL) {
        c->flags &= ~CLIENT_IO_PENDING_FLAG;
        c->io.state = CLIENT_IO_COMPLETED;
        c->io.node.value = c;
        listLinkNodeTail(io.completed, &c->io.node);
        t->outstanding--;
        io.outstanding--;
        if (c->io.job & CLIENT_IO_JOB_READ) io.stats.reads_processed++;
        if (c->io.job & CLIENT_IO_JOB_WRITE) io.stats.writes_processed++;
    }
}

/* See io_threads.h. Main thread. */
void ioThreadsWaitClient(client *c) {
    ioThread *t = &threads[c->io.thread];
    ioThreadKick(t);
    int spins = 0;
    while (c->flags & CLIENT_IO_PENDING_FLAG) {
        ioThreadCollect(t);
        if (!(c->flags & CLIENT_IO_PENDING_FLAG)) break;
        /* Spin while the thread is likely mid-job; past that it may have
         * no CPU: give ours up. */
        if (++spins < 200)
            ioCpuRelax();
        else
            sched_yield();
    }
}

/* See io_threads.h. */
void ioThreadsClientFreed(client *c) {
    if (c->io.state == CLIENT_IO_COMPLETED) {
        listUnlinkNode(io.completed, &c->io.node);
        c->io.state = CLIENT_IO_IDLE;
    }
}

/* 1 while the main thread is inside a command (a busy script serving
 * events, DEBUG RELOAD) or a load: events are then served as with
 * io-threads 1, since nothing would collect a job before it ends. */
static int ioThreadsNested(void) {
    return server.loading || server.current_client != NULL;
}

/* Whether c may be handed to an I/O thread at all now (see the top). */
static int ioThreadsMayServe(client *c) {
    if (io.active == 0 || ioThreadsNested()) return 0;
    if (c->flags & (CLIENT_REPLICA | CLIENT_PRIMARY | CLIENT_MONITOR | CLIENT_PUBSUB | CLIENT_TRACKING |
                    CLIENT_LUA_DEBUG | CLIENT_CLOSE_ASAP | CLIENT_PROTECTED | CLIENT_FAKE))
        return 0;
    if (c->repl || c->conn == NULL) return 0;
    return connCanServeOffThread(c->conn);
}

/* Whether a thread may also read and parse for c: not while commands of
 * its queue wait (a blocked or paused client), nor while it is blocked. */
static int ioThreadsMayRead(client *c) {
    return !(c->flags & CLIENT_BLOCKED) && c->io.q.next == c->io.q.count;
}

/* Hands c to a thread with the job `job`. Returns 1, or 0 if no thread
 * can take it now (full, or the connection refused off-thread mode): the
 * caller then serves c itself. Main thread; c idle. */
static int ioThreadsDispatch(client *c, int job) {
    ioThread *t = &threads[c->id % (uint64_t)io.active];
    if (t->outstanding >= IO_RING_SIZE) return 0;
    if (!connIsOffThread(c->conn) && connSetOffThread(c->conn, 1) != C_OK) return 0;
    c->io.job = job;
    c->io.notify = (c->flags & CLIENT_CLOSE_AFTER_REPLY) != 0; /* to close it once written */
    c->io.want &= ~((job & CLIENT_IO_JOB_READ ? CLIENT_IO_WANT_READ : 0) |
                    (job & CLIENT_IO_JOB_WRITE ? CLIENT_IO_WANT_WRITE : 0));
    if (job & CLIENT_IO_JOB_READ) {
        c->io.unauthenticated = authRequired(c);
        c->io.max_bulk_len = server.proto_max_bulk_len;
        c->io.max_querybuf = server.client_max_querybuf_len;
    }
    c->io.thread = t->id;
    c->io.state = CLIENT_IO_PENDING;
    c->flags |= CLIENT_IO_PENDING_FLAG;
    t->outstanding++;
    io.outstanding++;
    ioRingPush(&t->jobs, c);
    ioThreadKick(t);
    return 1;
}

/* Applies the results of c's collected job (c completed, now idle), then
 * hands it on: a write asked for meanwhile goes to beforeSleep()'s writes
 * (replies of the commands just run are queued there as without threads;
 * a socket found full waits for its write handler), a read that is due to
 * a thread, or to the event loop when c must be read by the main thread
 * now. */
static void ioThreadsApply(client *c) {
    listUnlinkNode(io.completed, &c->io.node);
    c->io.state = CLIENT_IO_IDLE;
    clientApplyIoJob(c);
    if (c->flags & CLIENT_CLOSE_ASAP) return;
    if ((c->io.want & CLIENT_IO_WANT_WRITE) && clientHasPendingReplies(c)) prepareClientToWriteQueue(c);
    c->io.want &= ~CLIENT_IO_WANT_WRITE;
    if (c->flags & CLIENT_PENDING_WRITE) {
        /* its write job takes the read along */
    } else if (c->io.want & CLIENT_IO_WANT_READ) {
        if (!ioThreadsMayServe(c) || !ioThreadsMayRead(c) || !ioThreadsDispatch(c, CLIENT_IO_JOB_READ)) {
            /* Level-triggered again: the event loop reports the bytes
             * waiting, and the main thread reads them. */
            if (connIsOffThread(c->conn)) connSetOffThread(c->conn, 0);
            c->io.want = 0;
            c->io.rest_incomplete = 0;
        }
    }
}

/* Makes c the main thread's to serve as with io-threads 1: waits for its
 * job, applies the results, and turns off-thread mode off. */
static void ioThreadsReclaim(client *c) {
    if (c->flags & CLIENT_IO_PENDING_FLAG) ioThreadsWaitClient(c);
    if (c->io.state == CLIENT_IO_COMPLETED) {
        listUnlinkNode(io.completed, &c->io.node);
        c->io.state = CLIENT_IO_IDLE;
        clientApplyIoJob(c);
    }
    if (c->conn && connIsOffThread(c->conn)) connSetOffThread(c->conn, 0);
    c->io.want = 0;
    c->io.rest_incomplete = 0;
}

/* See io_threads.h. */
void ioThreadsReleaseClient(client *c) {
    if ((c->flags & CLIENT_IO_PENDING_FLAG) || c->io.state == CLIENT_IO_COMPLETED ||
        (c->conn && connIsOffThread(c->conn)))
        ioThreadsReclaim(c);
}

/* See io_threads.h. Main thread, from readQueryFromClient(). */
int ioThreadsHandleReadable(client *c) {
    int busy = (c->flags & CLIENT_IO_PENDING_FLAG) || c->io.state == CLIENT_IO_COMPLETED;
    /* The load counts what threads could serve (not TLS or RDMA clients);
     * a busy client's connection is a thread's to look at. */
    if (busy || connCanServeOffThread(c->conn)) io.load++;
    if (busy && !ioThreadsNested()) {
        c->io.want |= CLIENT_IO_WANT_READ; /* read when it comes back */
        return 1;
    }
    if (!busy && ioThreadsMayServe(c) && ioThreadsMayRead(c) && ioThreadsDispatch(c, CLIENT_IO_JOB_READ)) return 1;
    if (busy || connIsOffThread(c->conn)) ioThreadsReclaim(c);
    return (c->flags & CLIENT_CLOSE_ASAP) != 0;
}

/* See io_threads.h. Main thread, from handleClientsWithPendingWrites() and
 * the write handler. */
int ioThreadsHandleWritable(client *c) {
    int busy = (c->flags & CLIENT_IO_PENDING_FLAG) || c->io.state == CLIENT_IO_COMPLETED;
    if (busy && !ioThreadsNested()) {
        c->io.want |= CLIENT_IO_WANT_WRITE; /* ioThreadsApply() queues its replies */
        return 1;
    }
    if (!busy && ioThreadsMayServe(c)) {
        int job = CLIENT_IO_JOB_WRITE;
        if ((c->io.want & CLIENT_IO_WANT_READ) && ioThreadsMayRead(c)) job |= CLIENT_IO_JOB_READ;
        if (ioThreadsDispatch(c, job)) return 1;
    }
    if (busy || connIsOffThread(c->conn)) ioThreadsReclaim(c);
    return (c->flags & CLIENT_CLOSE_ASAP) != 0;
}

/* ---------------------------------------------------------------------------
 * The main thread's turn: collecting, prefetching, applying
 * ------------------------------------------------------------------------- */

/* Looks up ahead, in one batch, the keys of the commands the collected
 * clients are about to run (argv[1] of each, up to prefetch-batch-max-size
 * of them, in the db of the first client), so that their cache misses
 * overlap instead of coming one after the other. Only for a keyspace too
 * big to stay in the caches by itself. */
static void ioThreadsPrefetch(void) {
#define IO_PREFETCH_MAX 128
#define IO_PREFETCH_MIN_KEYS 65536
    int max = server.prefetch_batch_max_size < IO_PREFETCH_MAX ? server.prefetch_batch_max_size : IO_PREFETCH_MAX;
    if (max < 2 || listLength(io.completed) == 0) return;
    client *first = listNodeValue(listFirst(io.completed));
    serverDb *db = first->db;
    hashtable *keys = kvstoreOnlyTable(db->keys); /* NULL when split by slot (cluster mode): not prefetched */
    if (keys == NULL || hashtableSize(keys) < IO_PREFETCH_MIN_KEYS) return;
    uint64_t hashes[IO_PREFETCH_MAX];
    int n = 0;
    listIter li;
    listNode *ln;
    listRewind(io.completed, &li);
    while ((ln = listNext(&li)) && n < max) {
        client *c = listNodeValue(ln);
        if (c->db != db) continue;
        for (int j = 0; n < max; j++) {
            robj *key = parsedQueueKeyHint(c, j);
            if (key == NULL) break;
            if (!sdsEncodedObject(key)) continue;
            sds s = objectGetVal(key);
            hashes[n++] = dictGenHashFunction(s, sdslen(s));
        }
    }
    if (n < 2) return;
    hashtablePrefetch(keys, hashes, n);
    io.stats.prefetch_batches++;
    io.stats.prefetch_entries += n;
}

/* See io_threads.h. */
void ioThreadsProcessCompleted(void) {
    if (io.started == 0) return;
    __atomic_store_n(&io.main_sleeping, 0, __ATOMIC_RELAXED); /* awake */
    for (int j = 0; j < io.started; j++) ioThreadCollect(&threads[j]);
    if (listLength(io.completed) == 0) return;
    ioThreadsPrefetch();
    /* Applying may collect more (a wait for another client): the loop
     * takes those too. A command applied here may be a script that goes
     * on for long, serving events meanwhile: the clients still in the list
     * are then applied by ioThreadsServeWhileBusy(). */
    while (listLength(io.completed)) ioThreadsApply(listNodeValue(listFirst(io.completed)));
}

/* See io_threads.h. */
void ioThreadsServeWhileBusy(void) {
    if (io.started && (server.loading || isInsideYieldingLongCommand())) ioThreadsProcessCompleted();
}

/* No busy polling while threads are active: the main thread's time per
 * request is what limits the server then, and with the results coming
 * from the threads it would poll in vain most of the time (measured: no
 * gain, and the CPU it takes is a thread's). With no thread active the
 * event loop polls as configured (event-loop-busy-poll). */
static void ioThreadsSetBusyPoll(void) {
    long long want = io.active ? 0 : server.busy_poll_us;
    if (server.el->busy_poll_us != want) aeSetBusyPoll(server.el, want);
}

/* The number of I/O threads the load asks for: events-per-io-thread
 * events per iteration for each thread, the main thread included (0: all
 * of them), at most what io-threads and the CPUs allow. */
static int ioThreadsWanted(long long load) {
    if (server.events_per_io_thread == 0) return io.max;
    long long want = load / server.events_per_io_thread - 1;
    int cap = io.max < io.cpu_cap ? io.max : io.cpu_cap;
    if (want < 0) want = 0;
    return want > cap ? cap : (int)want;
}

/* Whether threads make this server faster, here and now, is found by
 * trying: while the load asks for threads, the server measures its
 * command rate for IO_PROBE_MS with them, then IO_PROBE_MS without (each
 * after IO_PROBE_SETTLE_MS), and keeps whichever served more (threads
 * only if IO_PROBE_MARGIN more: for about as much, one thread costs less
 * CPU, and a measure this short is that noisy), until it tries again
 * IO_PROBE_HOLD_MS later, a hold that doubles while the answer stays the
 * same, up to IO_PROBE_HOLD_MAX_MS. When the CPUs are short (other
 * processes, or the clients, take them) handing requests between threads
 * costs more than the threads bring, and the answer is no. */
#define IO_PROBE_SETTLE_MS 100
#define IO_PROBE_MS 500
#define IO_PROBE_HOLD_MS 5000
#define IO_PROBE_HOLD_MAX_MS 60000
#define IO_PROBE_MARGIN 1.15

/* Starts probe stage `state`: its rate is measured from IO_PROBE_SETTLE_MS
 * on (the switch itself costs a little), see ioProbeRate(). */
static void ioProbeStart(int state, mstime_t now) {
    io.probe_state = state;
    io.probe_start = now;
    io.probe_cmds = -1;
}

/* Once per window of the stage: takes the command count when the
 * settling time is over. Returns 1 once IO_PROBE_MS were measured. */
static int ioProbeMeasured(mstime_t now) {
    if (io.probe_cmds < 0) {
        if (now - io.probe_start >= IO_PROBE_SETTLE_MS) {
            io.probe_cmds = server.stat_numcommands;
            io.probe_start = now;
        }
        return 0;
    }
    return now - io.probe_start >= IO_PROBE_MS;
}

/* The command rate measured in the stage, per millisecond. */
static double ioProbeRate(mstime_t now) {
    return (double)(server.stat_numcommands - io.probe_cmds) / (double)(now - io.probe_start);
}

/* Advances the probe (see above) by one load window in which the load
 * asked for threads. Returns 1 if threads are to serve clients now. */
static int ioProbeStep(mstime_t now) {
    switch (io.probe_state) {
    case IO_PROBE_IDLE: ioProbeStart(IO_PROBE_WITH, now); break;
    case IO_PROBE_WITH:
        if (!ioProbeMeasured(now)) break;
        io.probe_rate_with = ioProbeRate(now);
        ioProbeStart(IO_PROBE_WITHOUT, now);
        break;
    case IO_PROBE_WITHOUT: {
        if (!ioProbeMeasured(now)) break;
        double without = ioProbeRate(now);
        int use = io.probe_rate_with > without * IO_PROBE_MARGIN;
        serverLog(LL_VERBOSE, "I/O threads: %.0f commands/s with them, %.0f without: %s", io.probe_rate_with * 1000,
                  without * 1000, use ? "on" : "off");
        if (use == io.use_threads && io.probe_hold_ms) {
            io.probe_hold_ms *= 2;
            if (io.probe_hold_ms > IO_PROBE_HOLD_MAX_MS) io.probe_hold_ms = IO_PROBE_HOLD_MAX_MS;
        } else {
            io.probe_hold_ms = IO_PROBE_HOLD_MS;
        }
        io.use_threads = use;
        io.probe_state = IO_PROBE_HOLD;
        io.probe_start = now;
        break;
    }
    case IO_PROBE_HOLD:
        if (now - io.probe_start >= io.probe_hold_ms) ioProbeStart(IO_PROBE_WITH, now);
        break;
    }
    return io.probe_state == IO_PROBE_WITH || (io.probe_state == IO_PROBE_HOLD && io.use_threads);
}

/* Once per load window: as many threads as the load asks for (creating
 * those never started) while the probe says threads help, none while it
 * says they do not. When the load falls, one thread is deactivated after
 * IO_THREADS_IDLE_MS of less. A deactivated thread finishes its jobs and
 * sleeps; its clients go to the others, or to the main thread.
 * events-per-io-thread 0 (the tests) skips the probe: every thread serves. */
static void ioThreadsAdjust(void) {
    mstime_t now = server.mstime;
    if (io.load > io.window_load) io.window_load = io.load;
    io.load = 0;
    if (now - io.window_start < IO_THREADS_LOAD_WINDOW_MS && server.events_per_io_thread) return;
    int want = ioThreadsWanted(io.window_load);
    io.window_load = 0;
    io.window_start = now;
    int at_once = 0; /* a probe's decision applies at once, a falling load slowly */
    if (want && server.events_per_io_thread) {
        if (!ioProbeStep(now)) want = 0;
        at_once = 1;
    } else if (!want && io.active == 0 && now - io.busy_ms >= IO_THREADS_IDLE_MS) {
        io.probe_state = IO_PROBE_IDLE; /* idle for a while: the next load probes afresh */
    }
    if (want >= io.active) {
        io.busy_ms = now;
        while (io.started < want && ioThreadStart(&threads[io.started]) == C_OK) io.started++;
        if (want > io.started) want = io.started;
        if (want > io.active) io.active = want;
    } else if (at_once) {
        io.active = want;
        io.busy_ms = now;
    } else if (now - io.busy_ms >= IO_THREADS_IDLE_MS) {
        io.active--;
        io.busy_ms = now;
    }
    ioThreadsSetBusyPoll(); /* also follows CONFIG SET event-loop-busy-poll */
}

/* See io_threads.h. Main thread, last in beforeSleep(). The sleeping flag
 * is raised before the done rings are looked at for the last time: a
 * thread that pushes after this look sees the flag (ioRingPush()). */
int ioThreadsBeforeSleep(void) {
    if (io.max <= 0) return 0;
    ioThreadsAdjust();
    if (listLength(io.completed)) return 1;
    if (io.outstanding == 0) return 0;
    __atomic_store_n(&io.main_sleeping, 1, __ATOMIC_SEQ_CST);
    for (int j = 0; j < io.started; j++) {
        if (!ioRingEmpty(&threads[j].done)) {
            __atomic_store_n(&io.main_sleeping, 0, __ATOMIC_SEQ_CST);
            return 1;
        }
    }
    return 0;
}

/* See io_threads.h. */
void ioThreadsGetStats(ioThreadsStats *st) {
    *st = io.stats;
}

/* See io_threads.h (CONFIG RESETSTAT). */
void ioThreadsResetStats(void) {
    memset(&io.stats, 0, sizeof(io.stats));
}
