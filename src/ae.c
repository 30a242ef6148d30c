/* ae.c - the server's event loop (epoll + timers).
 *
 * The server creates one loop in main() and runs aeMain(); every transport
 * registers its fds here and every periodic job (serverCron, clientsCron) is
 * a time event. One call of aeProcessEvents() is one iteration:
 *
 *   before-sleep hook -> epoll_wait (timeout = next timer, or 0 when
 *   aeSetDontWait() is on; with aeSetSpinProc(), a hook polls memory
 *   shared with peers first, for as long as it asks; with aeSetBusyPoll(),
 *   zero-timeout polls for a few microseconds first while events come
 *   close together) -> after-sleep hook -> fired file events -> due time
 *   events.
 *
 * Invariants a handler can rely on:
 *  - Any handler may create or delete any file or time event, close fds, or
 *    call aeProcessEvents() recursively (synchronous paths do this).
 *  - An event deleted during an iteration does not fire later in that same
 *    iteration: fired file events are checked against the live mask and the
 *    fd's registration generation; due timers are checked for deletion
 *    right before their proc runs.
 *  - A timer created or rescheduled by a time proc first fires on a later
 *    iteration, so a 0 ms timer cannot starve the loop.
 *  - Timer finalizers run exactly once, never while the timer's proc runs.
 *
 * An fd registered with AE_EDGE is edge-triggered (EPOLLET): reported once
 * per arrival, for connections an I/O thread reads (io_threads.c), which
 * the main thread must not be told about again while the thread reads.
 *
 * Timers live in a binary min-heap (O(log n) insert/reschedule, O(1) next
 * deadline) plus a list used to find a timer by id on deletion. Time is the
 * monotonic clock, so wall-clock jumps never fire or stall timers. */
#include "ae.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "zmalloc.h"

/* ---------------------------------------------------------------------------
 * Clock
 * ------------------------------------------------------------------------- */

/* Returns the monotonic clock in microseconds. Safe from any thread. */
long long aeMonotonicUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* ---------------------------------------------------------------------------
 * epoll backend
 * ------------------------------------------------------------------------- */

typedef struct aeApiState {
    int epfd;
    struct epoll_event *events; /* Buffer epoll_wait() fills; fired_cap long. */
} aeApiState;

static int aeApiCreate(aeEventLoop *el) {
    aeApiState *state = zmalloc(sizeof(*state));
    state->events = zmalloc(sizeof(struct epoll_event) * el->fired_cap);
    state->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (state->epfd == -1) {
        zfree(state->events);
        zfree(state);
        return -1;
    }
    el->apidata = state;
    return 0;
}

/* Grows the poll buffer with the fired array. Shrinking is never done: a
 * resize from inside a handler must not cut the array being dispatched. */
static void aeApiResize(aeEventLoop *el, int cap) {
    aeApiState *state = el->apidata;
    state->events = zrealloc(state->events, sizeof(struct epoll_event) * cap);
}

static void aeApiFree(aeEventLoop *el) {
    aeApiState *state = el->apidata;
    close(state->epfd);
    zfree(state->events);
    zfree(state);
}

/* Tells epoll the fd's new interest set; old_mask is what it had before.
 * AE_EDGE counts only while AE_READABLE or AE_WRITABLE is set. */
static int aeApiUpdate(aeEventLoop *el, int fd, int old_mask, int new_mask) {
    aeApiState *state = el->apidata;
    struct epoll_event ee = {0};
    old_mask &= AE_READABLE | AE_WRITABLE | AE_EDGE;
    new_mask &= AE_READABLE | AE_WRITABLE | AE_EDGE;
    if (!(old_mask & (AE_READABLE | AE_WRITABLE))) old_mask = AE_NONE;
    if (!(new_mask & (AE_READABLE | AE_WRITABLE))) new_mask = AE_NONE;
    if (old_mask == new_mask) return 0;
    ee.data.fd = fd;
    if (new_mask & AE_READABLE) ee.events |= EPOLLIN;
    if (new_mask & AE_WRITABLE) ee.events |= EPOLLOUT;
    if (new_mask & AE_EDGE) ee.events |= EPOLLET;
    int op = old_mask == AE_NONE ? EPOLL_CTL_ADD : (new_mask == AE_NONE ? EPOLL_CTL_DEL : EPOLL_CTL_MOD);
    int ret = epoll_ctl(state->epfd, op, fd, &ee);
    /* A stale registration can survive when a dup of a closed fd kept the
     * old file open; take over the slot rather than failing. */
    if (ret == -1 && op == EPOLL_CTL_ADD && errno == EEXIST) ret = epoll_ctl(state->epfd, EPOLL_CTL_MOD, fd, &ee);
    if (ret == -1) {
        /* Deleting an fd that was already closed is not an error: the
         * kernel dropped it from the set when the last reference went. */
        if (op == EPOLL_CTL_DEL) return 0;
        return -1;
    }
    return 0;
}

/* Waits up to timeout_ms (-1 = forever) and fills el->fired. Returns the
 * number of fired entries. */
static int aeApiPoll(aeEventLoop *el, int timeout_ms) {
    aeApiState *state = el->apidata;
    int n = epoll_wait(state->epfd, state->events, el->fired_cap, timeout_ms);
    if (n == -1) {
        if (errno == EINTR) return 0;
        serverLog(LL_WARNING, "aeApiPoll: epoll_wait: %s", strerror(errno));
        abort();
    }
    for (int j = 0; j < n; j++) {
        struct epoll_event *e = state->events + j;
        int mask = 0;
        if (e->events & EPOLLIN) mask |= AE_READABLE;
        if (e->events & EPOLLOUT) mask |= AE_WRITABLE;
        /* Errors and hang-ups are delivered to whichever handlers are
         * registered, whose read/write then reports the condition. */
        if (e->events & (EPOLLERR | EPOLLHUP)) mask |= AE_READABLE | AE_WRITABLE;
        int fd = e->data.fd;
        el->fired[j].fd = fd;
        el->fired[j].mask = mask;
        el->fired[j].gen = fd < el->setsize ? el->events[fd].gen : 0;
    }
    return n;
}

/* Returns the name of the polling backend, for INFO (multiplexing_api). */
const char *aeGetApiName(void) {
    return "epoll";
}

/* ---------------------------------------------------------------------------
 * Loop lifetime
 * ------------------------------------------------------------------------- */

/* Creates a loop that can watch fds 0 .. setsize-1. Returns NULL if setsize
 * is not positive or epoll cannot be created. The caller owns the loop and
 * frees it with aeDeleteEventLoop(). */
aeEventLoop *aeCreateEventLoop(int setsize) {
    if (setsize <= 0) return NULL;
    aeEventLoop *el = zcalloc(sizeof(*el));
    el->setsize = setsize;
    el->fired_cap = setsize;
    el->maxfd = -1;
    el->events = zcalloc(sizeof(aeFileEvent) * setsize);
    el->fired = zcalloc(sizeof(aeFiredEvent) * setsize);
    el->timeEventNextId = 0;
    if (aeApiCreate(el) == -1) {
        zfree(el->fired);
        zfree(el->events);
        zfree(el);
        return NULL;
    }
    return el;
}

/* Frees the loop and every timer still queued (finalizers run). Must not be
 * called from inside one of the loop's own handlers. File events are simply
 * dropped: the fds belong to their owners, who close them. */
void aeDeleteEventLoop(aeEventLoop *el) {
    aeTimeEvent *te = el->timers;
    while (te) {
        aeTimeEvent *next = te->next;
        if (te->finalizerProc) te->finalizerProc(el, te->clientData);
        zfree(te);
        te = next;
    }
    aeApiFree(el);
    zfree(el->timer_heap);
    zfree(el->fired);
    zfree(el->events);
    zfree(el);
}

/* Makes aeMain() return after the current iteration. */
void aeStop(aeEventLoop *el) {
    el->stop = 1;
}

/* Returns the number of fd slots (largest watchable fd + 1). */
int aeGetSetSize(aeEventLoop *el) {
    return el->setsize;
}

/* Changes the number of fd slots. Returns AE_ERR (nothing changed) if an fd
 * at or above the new size is registered, AE_OK otherwise. Safe to call
 * from a handler. */
int aeResizeSetSize(aeEventLoop *el, int setsize) {
    if (setsize <= 0) return AE_ERR;
    if (setsize == el->setsize) return AE_OK;
    if (el->maxfd >= setsize) return AE_ERR;
    el->events = zrealloc(el->events, sizeof(aeFileEvent) * setsize);
    if (setsize > el->setsize) {
        memset(el->events + el->setsize, 0, sizeof(aeFileEvent) * (setsize - el->setsize));
    }
    if (setsize > el->fired_cap) {
        el->fired = zrealloc(el->fired, sizeof(aeFiredEvent) * setsize);
        aeApiResize(el, setsize);
        el->fired_cap = setsize;
    }
    el->setsize = setsize;
    return AE_OK;
}

/* With noWait set, every following iteration polls with a zero timeout
 * instead of sleeping, until it is cleared. Meant for the before-sleep
 * hook: a transport with queued work not tied to fd readiness (RDMA has no
 * writable event) sets it while that work remains. */
void aeSetDontWait(aeEventLoop *el, int noWait) {
    if (noWait)
        el->flags |= AE_DONT_WAIT;
    else
        el->flags &= ~AE_DONT_WAIT;
}

/* ---------------------------------------------------------------------------
 * Busy polling
 *
 * When clients answer at once (a benchmark at -P 1: every client sends its
 * next request as soon as it reads the reply), a server that is faster than
 * its clients finds nothing ready after most batches and sleeps for a few
 * microseconds each time. The client whose request wakes it pays for that
 * sleep: waking a task on an idle CPU takes an inter-processor interrupt,
 * and in a virtual machine an exit to the hypervisor, ~10 us of the
 * client's CPU in our benchmark VM, more than the server spends on the
 * request. So a loop with a busy-poll budget, while the events it waits for
 * keep arriving within that budget, polls with a zero timeout for up to
 * the budget before it sleeps. One wait the budget did not cover disarms
 * it: an idle or lightly loaded loop sleeps at once, as without it, and a
 * saturated one never waits at all.
 * ------------------------------------------------------------------------- */

/* Sets the busy-poll budget to us microseconds (0, the default, turns busy
 * polling off; see above). Call from the loop's thread. */
void aeSetBusyPoll(aeEventLoop *el, long long us) {
    el->busy_poll_us = us > 0 ? us : 0;
    el->busy_poll_armed = 0;
}

/* Waits like aeApiPoll(el, timeout_ms) for a non-zero timeout, busy polling
 * first while armed; start is the monotonic time the wait begins. A wait
 * the budget did not cover disarms; a blocking wait ended by an fd within
 * the budget arms. Returns the number of fired entries. */
static int aeBusyPoll(aeEventLoop *el, int timeout_ms, long long start) {
    if (el->busy_poll_armed) {
        long long budget = el->busy_poll_us, now;
        if (timeout_ms > 0 && budget > timeout_ms * 1000LL) budget = timeout_ms * 1000LL;
        do {
            int n = aeApiPoll(el, 0);
            if (n > 0) {
                el->stat_busy_poll_hits++;
                return n;
            }
            now = aeMonotonicUs();
        } while (now - start < budget);
        el->busy_poll_armed = 0;
        if (timeout_ms > 0) {
            long long left_us = timeout_ms * 1000LL - (now - start);
            timeout_ms = left_us <= 0 ? 0 : (int)((left_us + 999) / 1000);
        }
        el->stat_blocking_polls++;
        return aeApiPoll(el, timeout_ms);
    }
    el->stat_blocking_polls++;
    int n = aeApiPoll(el, timeout_ms);
    el->busy_poll_armed = n > 0 && aeMonotonicUs() - start <= el->busy_poll_us;
    return n;
}

/* ---------------------------------------------------------------------------
 * Spinning
 *
 * A transport whose peers signal through shared memory (conn_shm.c) sees
 * new work by reading memory, with no system call, while the peer that
 * sends it makes none either (it rings a doorbell only when we sleep). So
 * when the loop would sleep, the spin hook peeks at that memory for as
 * long as it says AE_SPIN_AGAIN; timers bound the spinning as they bound a
 * sleep, and every AE_SPIN_FD_POLL_US the fds are polled with a zero
 * timeout, so sockets are not starved. Work found ends the wait: the fds
 * are polled once more (zero timeout), their events handled, and then the
 * hook dispatches its own work, after them, as one more fired event. If
 * that poll found events, the dispatch waits one iteration (once), so that
 * what they caused (a client closed, and freed in the before-sleep hook)
 * is done before the work that came after them through memory: the same
 * order sockets would give. A loop that would not sleep anyway
 * (AE_DONT_WAIT) peeks once, so work in memory is served by every kind of
 * iteration (a busy script's event processing too).
 * ------------------------------------------------------------------------- */

#define AE_SPIN_FD_POLL_US 16

/* Installs (proc) or removes (NULL) the spin hook. Call from the loop's
 * thread. */
void aeSetSpinProc(aeEventLoop *el, aeSpinProc *proc) {
    el->spinproc = proc;
    el->spin_deferred = 0;
}

/* Peeks with the spin hook while it says AE_SPIN_AGAIN and the wait
 * (timeout_ms, -1 = none) lasts. Returns the number of fired entries a
 * zero-timeout fd poll found meanwhile (the caller handles them and does
 * not poll again), or 0 with *timeout_ms set to what is left of the wait
 * (0 when the hook found work or the time ran out) and *ready set when
 * the hook found work. */
static int aeSpin(aeEventLoop *el, int *timeout_ms, int *ready) {
    long long start = aeMonotonicUs(), now = start, last_fd_poll = start;
    long long limit = *timeout_ms < 0 ? -1 : start + *timeout_ms * 1000LL;
    for (;;) {
        int r = el->spinproc(el, AE_SPIN_PEEK);
        if (r == AE_SPIN_READY) {
            el->stat_spin_ready++;
            *ready = 1;
            *timeout_ms = 0;
            return 0;
        }
        if (r != AE_SPIN_AGAIN) break;
        now = aeMonotonicUs();
        if (now - last_fd_poll >= AE_SPIN_FD_POLL_US) {
            last_fd_poll = now;
            int n = aeApiPoll(el, 0);
            if (n > 0) return n;
        }
        if (limit != -1 && now >= limit) break;
    }
    if (*timeout_ms > 0) {
        long long left = limit - now;
        *timeout_ms = left <= 0 ? 0 : (int)((left + 999) / 1000);
    }
    return 0;
}

/* Sets the hook run before each sleep (with AE_CALL_BEFORE_SLEEP). */
void aeSetBeforeSleepProc(aeEventLoop *el, aeBeforeSleepProc *beforesleep) {
    el->beforesleep = beforesleep;
}

/* Sets the hook run right after each sleep (with AE_CALL_AFTER_SLEEP). */
void aeSetAfterSleepProc(aeEventLoop *el, aeAfterSleepProc *aftersleep) {
    el->aftersleep = aftersleep;
}

/* ---------------------------------------------------------------------------
 * File events
 * ------------------------------------------------------------------------- */

/* Adds mask (AE_READABLE / AE_WRITABLE, optionally AE_BARRIER and
 * AE_EDGE) to fd's registration, with proc as the handler for the bits
 * given. Returns AE_OK,
 * or AE_ERR with errno set (ERANGE if fd is outside the set size, or the
 * epoll_ctl error). clientData is not owned by the loop. */
int aeCreateFileEvent(aeEventLoop *el, int fd, int mask, aeFileProc *proc, void *clientData) {
    if (fd < 0 || fd >= el->setsize) {
        errno = ERANGE;
        return AE_ERR;
    }
    aeFileEvent *fe = &el->events[fd];
    if (aeApiUpdate(el, fd, fe->mask, fe->mask | mask) == -1) return AE_ERR;
    fe->mask |= mask;
    if (mask & AE_READABLE) fe->rfileProc = proc;
    if (mask & AE_WRITABLE) fe->wfileProc = proc;
    fe->clientData = clientData;
    if (fd > el->maxfd) el->maxfd = fd;
    return AE_OK;
}

/* Removes mask from fd's registration (removing AE_WRITABLE also removes
 * AE_BARRIER). Unregistered fds and out-of-range fds are ignored. The fd may
 * already be closed. After this returns, the removed events do not fire,
 * even if the current iteration already polled them. */
void aeDeleteFileEvent(aeEventLoop *el, int fd, int mask) {
    if (fd < 0 || fd >= el->setsize) return;
    aeFileEvent *fe = &el->events[fd];
    if (fe->mask == AE_NONE) return;
    if (mask & AE_WRITABLE) mask |= AE_BARRIER;
    int new_mask = fe->mask & ~mask;
    aeApiUpdate(el, fd, fe->mask, new_mask);
    /* Unregistered for good: AE_EDGE goes too, a later registration asks
     * for it again if it wants it. */
    if ((new_mask & (AE_READABLE | AE_WRITABLE)) == 0) new_mask = AE_NONE;
    fe->mask = new_mask;
    if (new_mask == AE_NONE) {
        fe->gen++;
        fe->rfileProc = fe->wfileProc = NULL;
        fe->clientData = NULL;
        if (fd == el->maxfd) {
            int j = fd - 1;
            while (j >= 0 && el->events[j].mask == AE_NONE) j--;
            el->maxfd = j;
        }
    }
}

/* Makes fd's registration edge-triggered (edge 1) or level-triggered
 * (edge 0, the default). With it, epoll reports a readable fd once per
 * arrival of data rather than at every poll until it is read: the reader
 * must read until a short read (or remember that more may be waiting),
 * and in exchange nothing reports the fd again while another thread is
 * about to read it. Changing the mode of a registered fd re-arms it, so an
 * fd with data waiting fires once more. An fd not registered keeps no
 * mode: pass AE_EDGE to aeCreateFileEvent() instead. Returns AE_OK, or
 * AE_ERR with errno set (the epoll_ctl error, ERANGE for a bad fd). */
int aeSetFileEventEdge(aeEventLoop *el, int fd, int edge) {
    if (fd < 0 || fd >= el->setsize) {
        errno = ERANGE;
        return AE_ERR;
    }
    aeFileEvent *fe = &el->events[fd];
    if (fe->mask == AE_NONE) return AE_OK;
    int new_mask = edge ? (fe->mask | AE_EDGE) : (fe->mask & ~AE_EDGE);
    if (aeApiUpdate(el, fd, fe->mask, new_mask) == -1) return AE_ERR;
    fe->mask = new_mask;
    return AE_OK;
}

/* Returns fd's registered mask (AE_NONE if none or out of range). */
int aeGetFileEvents(aeEventLoop *el, int fd) {
    if (fd < 0 || fd >= el->setsize) return AE_NONE;
    return el->events[fd].mask;
}

/* Returns the clientData registered for fd, or NULL. */
void *aeGetFileClientData(aeEventLoop *el, int fd) {
    if (fd < 0 || fd >= el->setsize) return NULL;
    aeFileEvent *fe = &el->events[fd];
    return fe->mask == AE_NONE ? NULL : fe->clientData;
}

/* Runs the handlers of one fired fd. Between calls the registration is
 * re-read, because the first handler may have changed or removed it. The
 * fired event comes by value: a handler may resize the set (CONFIG SET
 * maxclients), which reallocates el->fired. */
static int processFiredFileEvent(aeEventLoop *el, aeFiredEvent fired) {
    int fd = fired.fd;
    int processed = 0;
    aeFileProc *last = NULL;
    void *last_data = NULL;

    /* Order: readable then writable, or the reverse with AE_BARRIER. When
     * the same proc and data serve both, it runs once and sees both bits. */
    static const int normal[2] = {AE_READABLE, AE_WRITABLE};
    static const int inverted[2] = {AE_WRITABLE, AE_READABLE};
    if (fd < 0 || fd >= el->setsize) return 0;
    const int *order = (el->events[fd].mask & AE_BARRIER) ? inverted : normal;

    for (int step = 0; step < 2; step++) {
        if (fd >= el->setsize) break; /* Shrunk by a handler. */
        aeFileEvent *fe = &el->events[fd];
        if (fe->gen != fired.gen) break; /* Unregistered (maybe reused). */
        int live = fe->mask & fired.mask & (AE_READABLE | AE_WRITABLE);
        if (!(live & order[step])) continue;
        aeFileProc *proc = order[step] == AE_READABLE ? fe->rfileProc : fe->wfileProc;
        if (processed && proc == last && fe->clientData == last_data) continue;
        last = proc;
        last_data = fe->clientData;
        processed = 1;
        proc(el, fd, fe->clientData, live);
    }
    return processed;
}

/* ---------------------------------------------------------------------------
 * Time events: a min-heap on 'when' plus a list of all timers.
 * ------------------------------------------------------------------------- */

static void heapSwap(aeEventLoop *el, int a, int b) {
    aeTimeEvent *t = el->timer_heap[a];
    el->timer_heap[a] = el->timer_heap[b];
    el->timer_heap[b] = t;
    el->timer_heap[a]->heap_index = a;
    el->timer_heap[b]->heap_index = b;
}

/* Moves heap[i] up or down until the heap property holds again. */
static void heapFix(aeEventLoop *el, int i) {
    aeTimeEvent **h = el->timer_heap;
    while (i > 0 && h[(i - 1) / 2]->when > h[i]->when) {
        heapSwap(el, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    for (;;) {
        int l = 2 * i + 1, r = l + 1, min = i;
        if (l < el->timer_count && h[l]->when < h[min]->when) min = l;
        if (r < el->timer_count && h[r]->when < h[min]->when) min = r;
        if (min == i) break;
        heapSwap(el, i, min);
        i = min;
    }
}

static void heapPush(aeEventLoop *el, aeTimeEvent *te) {
    if (el->timer_count == el->timer_cap) {
        el->timer_cap = el->timer_cap ? el->timer_cap * 2 : 16;
        el->timer_heap = zrealloc(el->timer_heap, sizeof(aeTimeEvent *) * el->timer_cap);
    }
    te->heap_index = el->timer_count++;
    el->timer_heap[te->heap_index] = te;
    heapFix(el, te->heap_index);
}

static void heapRemove(aeEventLoop *el, aeTimeEvent *te) {
    int i = te->heap_index;
    if (i < 0) return;
    int last = --el->timer_count;
    if (i != last) {
        heapSwap(el, i, last);
        heapFix(el, i);
    }
    te->heap_index = -1;
}

/* Unlinks a timer from the id list, runs its finalizer and frees it. */
static void timerFree(aeEventLoop *el, aeTimeEvent *te) {
    if (te->prev)
        te->prev->next = te->next;
    else
        el->timers = te->next;
    if (te->next) te->next->prev = te->prev;
    if (te->finalizerProc) te->finalizerProc(el, te->clientData);
    zfree(te);
}

/* Schedules proc to run in 'milliseconds' ms (0 = next iteration at the
 * earliest). Returns the timer id (>= 0). clientData is not owned by the
 * loop; finalizerProc (may be NULL) runs once when the timer goes away. */
long long aeCreateTimeEvent(aeEventLoop *el,
                            long long milliseconds,
                            aeTimeProc *proc,
                            void *clientData,
                            aeEventFinalizerProc *finalizerProc) {
    aeTimeEvent *te = zcalloc(sizeof(*te));
    te->id = el->timeEventNextId++;
    if (milliseconds < 0) milliseconds = 0;
    te->when = aeMonotonicUs() + milliseconds * 1000;
    te->timeProc = proc;
    te->finalizerProc = finalizerProc;
    te->clientData = clientData;
    te->next = el->timers;
    if (te->next) te->next->prev = te;
    el->timers = te;
    heapPush(el, te);
    return te->id;
}

/* Deletes timer id. Returns AE_OK, or AE_ERR if no such live timer. If its
 * proc is running right now (a timer deleting itself), the finalizer and
 * the free happen when the proc returns; its return value is ignored. */
int aeDeleteTimeEvent(aeEventLoop *el, long long id) {
    for (aeTimeEvent *te = el->timers; te; te = te->next) {
        if (te->id != id || te->deleted) continue;
        te->deleted = 1;
        heapRemove(el, te);
        if (te->refcount == 0) timerFree(el, te);
        return AE_OK;
    }
    return AE_ERR;
}

/* Drops the dispatcher's hold on te; frees it if it was deleted meanwhile. */
static void timerRelease(aeEventLoop *el, aeTimeEvent *te) {
    te->refcount--;
    if (te->deleted && te->refcount == 0) timerFree(el, te);
}

/* Runs every timer due now that existed when the call began. Due timers
 * are taken out of the heap first (in deadline order), so a proc that
 * deletes a later due timer stops it from firing, and nested loop calls
 * from inside a proc do not run them twice. Returns how many procs ran. */
static int processTimeEvents(aeEventLoop *el) {
    aeTimeEvent *local[64];
    aeTimeEvent **batch = local;
    int batch_cap = 64, n = 0, processed = 0;
    long long now = aeMonotonicUs();
    long long maxId = el->timeEventNextId - 1;

    while (el->timer_count > 0 && el->timer_heap[0]->when <= now) {
        aeTimeEvent *te = el->timer_heap[0];
        heapRemove(el, te);
        if (n == batch_cap) {
            batch_cap *= 2;
            if (batch == local) {
                batch = zmalloc(sizeof(*batch) * batch_cap);
                memcpy(batch, local, sizeof(local));
            } else {
                batch = zrealloc(batch, sizeof(*batch) * batch_cap);
            }
        }
        te->refcount++;
        batch[n++] = te;
    }

    for (int j = 0; j < n; j++) {
        aeTimeEvent *te = batch[j];
        if (!te->deleted && te->id <= maxId) {
            int retval = te->timeProc(el, te->id, te->clientData);
            processed++;
            if (!te->deleted) {
                if (retval == AE_NOMORE) {
                    te->deleted = 1;
                } else {
                    te->when = aeMonotonicUs() + (long long)retval * 1000;
                }
            }
        }
        /* Reschedule unless deleted: covers both a proc that asked to run
         * again and a timer created during this call that is not yet due. */
        if (!te->deleted && te->heap_index < 0) heapPush(el, te);
        timerRelease(el, te);
    }
    if (batch != local) zfree(batch);
    return processed;
}

/* Microseconds from now until the first timer is due (0 if overdue), -1 if
 * there is none. */
static long long usUntilEarliestTimer(aeEventLoop *el, long long now) {
    if (el->timer_count == 0) return -1;
    long long delta = el->timer_heap[0]->when - now;
    return delta < 0 ? 0 : delta;
}

/* ---------------------------------------------------------------------------
 * Dispatch
 * ------------------------------------------------------------------------- */

/* Runs one iteration of the loop. flags selects AE_FILE_EVENTS and/or
 * AE_TIME_EVENTS; AE_DONT_WAIT never blocks; AE_CALL_BEFORE_SLEEP and
 * AE_CALL_AFTER_SLEEP run the hooks around the poll. Without AE_DONT_WAIT
 * (in flags or set by aeSetDontWait) it sleeps until an fd is ready or the
 * next timer is due (forever if there are neither timers nor AE_TIME_EVENTS).
 * Returns the number of file and time events handled. */
int aeProcessEvents(aeEventLoop *el, int flags) {
    int processed = 0;
    if (!(flags & (AE_FILE_EVENTS | AE_TIME_EVENTS))) return 0;

    if ((flags & AE_CALL_BEFORE_SLEEP) && el->beforesleep) el->beforesleep(el);

    /* Decide the timeout only now: the hook may have set don't-wait or
     * added a timer. */
    int timeout_ms = -1;
    long long now = 0; /* Read once for the timers and busy polling. */
    if ((flags & AE_DONT_WAIT) || (el->flags & AE_DONT_WAIT)) {
        timeout_ms = 0;
    } else if (flags & AE_TIME_EVENTS) {
        if (el->timer_count || el->busy_poll_us) now = aeMonotonicUs();
        long long us = usUntilEarliestTimer(el, now);
        if (us >= 0) {
            long long ms = (us + 999) / 1000; /* Round up: never wake early. */
            timeout_ms = ms > 2147483647LL ? 2147483647 : (int)ms;
        }
    }

    int numevents = 0, polled = 0, spin_ready = 0;
    if ((flags & AE_FILE_EVENTS) && el->spinproc) {
        if (timeout_ms != 0) {
            numevents = aeSpin(el, &timeout_ms, &spin_ready);
            polled = numevents > 0;
            now = 0; /* Spinning took time. */
        } else {
            spin_ready = el->spinproc(el, AE_SPIN_PEEK) == AE_SPIN_READY;
        }
    }
    if ((flags & AE_FILE_EVENTS) && !polled) {
        /* With no fd registered and no deadline, waiting could never end. */
        if (el->maxfd != -1 || timeout_ms != -1) {
            if (el->busy_poll_us && timeout_ms != 0)
                numevents = aeBusyPoll(el, timeout_ms, now ? now : aeMonotonicUs());
            else
                numevents = aeApiPoll(el, timeout_ms);
        }
    } else if (!(flags & AE_FILE_EVENTS) && timeout_ms != 0) {
        /* Only timers wanted: sleep without consuming fd readiness. With
         * no timer at all there is nothing to wait for. */
        if (timeout_ms > 0) poll(NULL, 0, timeout_ms);
    }

    if ((flags & AE_CALL_AFTER_SLEEP) && el->aftersleep) el->aftersleep(el);

    for (int j = 0; j < numevents; j++) processed += processFiredFileEvent(el, el->fired[j]);

    if (spin_ready) {
        if (numevents > 0 && !el->spin_deferred) {
            el->spin_deferred = 1; /* The fds first; see "Spinning". */
        } else {
            el->spin_deferred = 0;
            processed += el->spinproc(el, AE_SPIN_DISPATCH);
        }
    }

    if (flags & AE_TIME_EVENTS) processed += processTimeEvents(el);
    return processed;
}

/* Waits up to 'milliseconds' (-1 = forever) for fd to become readable or
 * writable as mask asks. Returns the ready mask (AE_READABLE/AE_WRITABLE;
 * errors and hang-ups count as both), 0 on timeout, -1 on poll error. Used
 * for synchronous I/O outside the loop; needs no event loop. */
int aeWait(int fd, int mask, long long milliseconds) {
    struct pollfd pfd = {.fd = fd};
    if (mask & AE_READABLE) pfd.events |= POLLIN;
    if (mask & AE_WRITABLE) pfd.events |= POLLOUT;
    int timeout = milliseconds > 2147483647LL ? 2147483647 : (int)milliseconds;
    int ret;
    do {
        ret = poll(&pfd, 1, timeout);
    } while (ret == -1 && errno == EINTR);
    if (ret <= 0) return ret;
    int retmask = 0;
    if (pfd.revents & POLLIN) retmask |= AE_READABLE;
    if (pfd.revents & POLLOUT) retmask |= AE_WRITABLE;
    if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) retmask |= AE_READABLE | AE_WRITABLE;
    return retmask;
}

/* Runs iterations (with both hooks) until aeStop() is called. */
void aeMain(aeEventLoop *el) {
    el->stop = 0;
    while (!el->stop) aeProcessEvents(el, AE_ALL_EVENTS | AE_CALL_BEFORE_SLEEP | AE_CALL_AFTER_SLEEP);
}
