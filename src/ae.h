/* ae.h - the event loop: file events on epoll, timers on a monotonic clock.
 *
 * One aeEventLoop drives the whole server. File events are indexed by fd
 * (so an fd must be below the loop's set size); time events are kept in a
 * min-heap ordered by due time. The before-sleep hook is where transports
 * without a kernel "writable" event (RDMA) do their queued work; when such
 * work remains, the hook calls aeSetDontWait(el, 1) and the loop polls
 * instead of sleeping. aeSetBusyPoll() makes a loop poll for a few
 * microseconds before each sleep while events come close together, so that
 * peers answering at once do not pay for waking it. This is a leaf library:
 * it includes no server header and may be linked into unit tests on its
 * own. */
#ifndef VK_AE_H
#define VK_AE_H

#define AE_OK 0
#define AE_ERR -1

/* File event masks. AE_BARRIER inverts the usual order when one poll
 * reports both readable and writable: the writable handler runs first (used
 * to flush a reply to disk/peer before reading more input). AE_EDGE makes
 * the fd's registration edge-triggered: a readable (writable) event fires
 * once each time data (room) arrives, not again at every poll while it
 * stays unread (unused); it lasts until aeSetFileEventEdge() clears it or
 * the fd is unregistered (see aeSetFileEventEdge()). */
#define AE_NONE 0
#define AE_READABLE 1
#define AE_WRITABLE 2
#define AE_BARRIER 4
#define AE_EDGE 8

/* aeProcessEvents() flags. */
#define AE_FILE_EVENTS (1 << 0)
#define AE_TIME_EVENTS (1 << 1)
#define AE_ALL_EVENTS (AE_FILE_EVENTS | AE_TIME_EVENTS)
#define AE_DONT_WAIT (1 << 2)         /* Poll, never block. */
#define AE_CALL_BEFORE_SLEEP (1 << 3) /* Run the before-sleep hook. */
#define AE_CALL_AFTER_SLEEP (1 << 4)  /* Run the after-sleep hook. */

/* A time proc returning AE_NOMORE is deleted; any other value is the number
 * of milliseconds until it runs again. */
#define AE_NOMORE -1
#define AE_DELETED_EVENT_ID -1

struct aeEventLoop;

/* fd event handler. mask holds the registered events that fired now. */
typedef void aeFileProc(struct aeEventLoop *eventLoop, int fd, void *clientData, int mask);
/* Timer handler: returns ms until the next call, or AE_NOMORE. */
typedef int aeTimeProc(struct aeEventLoop *eventLoop, long long id, void *clientData);
/* Called exactly once when a timer is deleted (by AE_NOMORE or by
 * aeDeleteTimeEvent), after its proc has returned if it was running. */
typedef void aeEventFinalizerProc(struct aeEventLoop *eventLoop, void *clientData);
typedef void aeBeforeSleepProc(struct aeEventLoop *eventLoop);
typedef void aeAfterSleepProc(struct aeEventLoop *eventLoop);
/* Spin hook (aeSetSpinProc): work that no fd announces, seen by reading
 * memory (shared-memory rings). With op AE_SPIN_PEEK it looks without
 * running anything and returns AE_SPIN_READY (work is there),
 * AE_SPIN_AGAIN (nothing yet, worth polling again) or AE_SPIN_DONE
 * (nothing to poll for: sleep). With op AE_SPIN_DISPATCH it runs the
 * handlers of the work it sees, like fired file events, and returns how
 * many ran. */
typedef int aeSpinProc(struct aeEventLoop *eventLoop, int op);
#define AE_SPIN_PEEK 0
#define AE_SPIN_DISPATCH 1
#define AE_SPIN_DONE 0
#define AE_SPIN_AGAIN 1
#define AE_SPIN_READY 2

/* Registration of one fd. rfileProc/wfileProc are meaningful only for the
 * bits set in mask. gen changes whenever the fd becomes fully unregistered,
 * so a stale poll result can never reach a later registration of the same
 * fd number (the fd may have been closed and reused mid-iteration). */
typedef struct aeFileEvent {
    int mask; /* AE_READABLE | AE_WRITABLE | AE_BARRIER | AE_EDGE */
    unsigned int gen;
    aeFileProc *rfileProc;
    aeFileProc *wfileProc;
    void *clientData;
} aeFileEvent;

/* One timer. Owned by the loop; freed after its finalizer has run. */
typedef struct aeTimeEvent {
    long long id;
    long long when; /* Monotonic microseconds at which it is due. */
    aeTimeProc *timeProc;
    aeEventFinalizerProc *finalizerProc;
    void *clientData;
    int heap_index; /* Position in the timer heap, -1 while not queued. */
    int refcount;   /* >0 while a dispatch holds it (proc may be running). */
    int deleted;    /* Deleted while held; freed when refcount drops. */
    struct aeTimeEvent *prev, *next; /* List of all live timers (by id). */
} aeTimeEvent;

/* A fired file event, as reported by the poll. */
typedef struct aeFiredEvent {
    int fd;
    int mask;
    unsigned int gen;
} aeFiredEvent;

typedef struct aeEventLoop {
    int maxfd;   /* Highest fd currently registered, -1 if none. */
    int setsize; /* Number of fd slots: valid fds are 0 .. setsize-1. */
    aeFileEvent *events;  /* Indexed by fd. */
    aeFiredEvent *fired;  /* Filled by the poll, fired_cap entries. */
    int fired_cap;
    long long timeEventNextId;
    aeTimeEvent **timer_heap; /* Min-heap on 'when'. */
    int timer_count, timer_cap;
    aeTimeEvent *timers; /* Every live timer, for lookup by id. */
    int stop;
    int flags; /* AE_DONT_WAIT when set by aeSetDontWait(). */
    void *apidata; /* epoll state. */
    aeBeforeSleepProc *beforesleep;
    aeAfterSleepProc *aftersleep;
    /* Busy polling (aeSetBusyPoll): up to busy_poll_us of zero-timeout
     * polls before a blocking one, while busy_poll_armed says the gaps
     * between events are short. The counters are for tests and tuning. */
    long long busy_poll_us;        /* 0 = off. */
    int busy_poll_armed;           /* The last wait ended by an fd, soon. */
    long long stat_busy_poll_hits; /* Waits the busy poll ended: no sleep. */
    long long stat_blocking_polls; /* Polls that may sleep (busy poll on). */
    /* Spinning (aeSetSpinProc): the hook polled instead of sleeping. */
    aeSpinProc *spinproc;          /* NULL = none. */
    int spin_deferred;             /* Last iteration put off its dispatch. */
    long long stat_spin_ready;     /* Sleeps the spin hook avoided. */
} aeEventLoop;

aeEventLoop *aeCreateEventLoop(int setsize);
void aeDeleteEventLoop(aeEventLoop *eventLoop);
void aeStop(aeEventLoop *eventLoop);
int aeCreateFileEvent(aeEventLoop *eventLoop, int fd, int mask, aeFileProc *proc, void *clientData);
void aeDeleteFileEvent(aeEventLoop *eventLoop, int fd, int mask);
int aeGetFileEvents(aeEventLoop *eventLoop, int fd);
int aeSetFileEventEdge(aeEventLoop *eventLoop, int fd, int edge);
void *aeGetFileClientData(aeEventLoop *eventLoop, int fd);
long long aeCreateTimeEvent(aeEventLoop *eventLoop,
                            long long milliseconds,
                            aeTimeProc *proc,
                            void *clientData,
                            aeEventFinalizerProc *finalizerProc);
int aeDeleteTimeEvent(aeEventLoop *eventLoop, long long id);
int aeProcessEvents(aeEventLoop *eventLoop, int flags);
int aeWait(int fd, int mask, long long milliseconds);
void aeMain(aeEventLoop *eventLoop);
const char *aeGetApiName(void);
void aeSetBeforeSleepProc(aeEventLoop *eventLoop, aeBeforeSleepProc *beforesleep);
void aeSetAfterSleepProc(aeEventLoop *eventLoop, aeAfterSleepProc *aftersleep);
int aeGetSetSize(aeEventLoop *eventLoop);
int aeResizeSetSize(aeEventLoop *eventLoop, int setsize);
void aeSetDontWait(aeEventLoop *eventLoop, int noWait);
void aeSetBusyPoll(aeEventLoop *eventLoop, long long us);
void aeSetSpinProc(aeEventLoop *eventLoop, aeSpinProc *proc);
long long aeMonotonicUs(void);

#endif
