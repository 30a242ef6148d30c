/* lazyfree.c - freeing big values and whole databases in a background thread.
 *
 * Freeing a value of millions of elements takes about as long as building
 * it did, and the event loop serves nobody meanwhile. UNLINK, FLUSHALL /
 * FLUSHDB ASYNC and the lazyfree-lazy-* options hand that work to one
 * background thread ("bio_lazy_free") instead:
 *
 *   freeObjAsync()   a value just taken out of the keyspace. It goes to the
 *                    thread when freeing it takes more than
 *                    LAZYFREE_THRESHOLD allocations (objectFreeEffort())
 *                    and nothing else holds it (refcount 1); anything
 *                    smaller is freed at once, which is cheaper than the
 *                    hand-off.
 *   emptyDbAsync()   a database being flushed: its keyspace and expires
 *                    tables are swapped for empty ones and the old pair
 *                    is released by the thread.
 *   lazyfreeSubmit() any other job of the kind: SCRIPT FLUSH ASYNC and
 *                    FUNCTION FLUSH ASYNC hand over the old Lua VM with
 *                    its script cache or libraries (eval.c, functions.c).
 *
 * Why this is safe: a job owns memory the main thread can no longer reach
 * (an unlinked value nobody else references; dicts no database points to),
 * zmalloc's used_memory counter is atomic, and jemalloc is thread safe.
 * The thread never reads server state: it frees and counts. The one way a
 * flushed value can still be referenced is by the argv of a transaction
 * or script still running (SET k v, then FLUSHALL ASYNC, in one EXEC): its
 * reference count would then be changed by both threads, so a flush from
 * inside EXEC or a script is done synchronously (emptyData(), db.c).
 *
 * The thread starts with the first job, so a server that never frees
 * asynchronously never has it, and it is created after daemonize()'s
 * fork. If it cannot be created, jobs run inline and a warning is logged.
 * It blocks the asynchronous signals, which stay with the main thread.
 * INFO memory shows lazyfree_pending_objects and lazyfreed_objects.
 */
#include "server.h"

#include <pthread.h>
#include <signal.h>

typedef struct lazyfreeJob {
    struct lazyfreeJob *next;
    lazyfreeFn *fn; /* frees a and b */
    void *a, *b;
    size_t objects; /* what the job adds to lazyfreed_objects */
} lazyfreeJob;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    lazyfreeJob *head, *tail;
    int state; /* LAZYFREE_THREAD_* */
    pthread_t thread;
} lazyfree = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0, 0};

#define LAZYFREE_THREAD_NONE 0
#define LAZYFREE_THREAD_RUNNING 1
#define LAZYFREE_THREAD_FAILED 2 /* jobs run inline */

static size_t lazyfree_pending_objects; /* atomics: the thread updates them */
static size_t lazyfreed_objects;

static void lazyfreeRunJob(lazyfreeJob *job) {
    job->fn(job->a, job->b);
    __atomic_sub_fetch(&lazyfree_pending_objects, job->objects, __ATOMIC_RELAXED);
    __atomic_add_fetch(&lazyfreed_objects, job->objects, __ATOMIC_RELAXED);
    zfree(job);
}

static void *lazyfreeThreadMain(void *arg) {
    (void)arg;
    setCpuAffinity(server.bio_cpulist); /* bio-cpulist */
    while (1) {
        pthread_mutex_lock(&lazyfree.lock);
        while (lazyfree.head == NULL) pthread_cond_wait(&lazyfree.wake, &lazyfree.lock);
        lazyfreeJob *job = lazyfree.head;
        lazyfree.head = job->next;
        if (lazyfree.head == NULL) lazyfree.tail = NULL;
        pthread_mutex_unlock(&lazyfree.lock);
        lazyfreeRunJob(job);
    }
    return NULL;
}

/* Starts the thread with the signals meant for the process blocked (it
 * inherits the mask), so that SIGTERM, SIGINT and friends reach the main
 * thread. Faults and abort() stay open: they belong to the thread that
 * caused them, and the crash handler must run there. Returns 1 if the
 * thread runs. */
static int lazyfreeStartThread(void) {
    if (lazyfree.state != LAZYFREE_THREAD_NONE) return lazyfree.state == LAZYFREE_THREAD_RUNNING;
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    sigset_t mask, old;
    sigfillset(&mask);
    for (size_t j = 0; j < sizeof(faults) / sizeof(faults[0]); j++) sigdelset(&mask, faults[j]);
    pthread_sigmask(SIG_SETMASK, &mask, &old);
    int err = pthread_create(&lazyfree.thread, NULL, lazyfreeThreadMain, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        serverLog(LL_WARNING, "Could not start the lazy free thread (%s): values will be freed inline",
                  strerror(err));
        lazyfree.state = LAZYFREE_THREAD_FAILED;
        return 0;
    }
    pthread_setname_np(lazyfree.thread, "bio_lazy_free");
    lazyfree.state = LAZYFREE_THREAD_RUNNING;
    return 1;
}

/* Has fn(a, b) free what a and b own, `objects` things counted in
 * lazyfree_pending_objects until then and in lazyfreed_objects after. It
 * runs in the thread, or here when there is no thread. */
void lazyfreeSubmit(lazyfreeFn *fn, void *a, void *b, size_t objects) {
    lazyfreeJob *job = zmalloc(sizeof(*job));
    job->next = NULL;
    job->fn = fn;
    job->a = a;
    job->b = b;
    job->objects = objects;
    __atomic_add_fetch(&lazyfree_pending_objects, objects, __ATOMIC_RELAXED);
    if (!lazyfreeStartThread()) {
        lazyfreeRunJob(job);
        return;
    }
    pthread_mutex_lock(&lazyfree.lock);
    if (lazyfree.tail) lazyfree.tail->next = job;
    else lazyfree.head = job;
    lazyfree.tail = job;
    pthread_cond_signal(&lazyfree.wake);
    pthread_mutex_unlock(&lazyfree.lock);
}

static void lazyfreeObject(void *obj, void *unused) {
    (void)unused;
    decrRefCount(obj);
}

/* Releases obj, a value just removed from the keyspace (key, dbid name
 * where it was), in the background when that is worth it. */
void freeObjAsync(robj *key, robj *obj, int dbid) {
    (void)key;
    (void)dbid;
    if (obj->refcount == 1 && objectFreeEffort(obj) > LAZYFREE_THRESHOLD) lazyfreeSubmit(lazyfreeObject, obj, NULL, 1);
    else decrRefCount(obj);
}

/* The expires table first: it only borrows the keyspace table's values. */
static void lazyfreeDatabase(void *keys, void *expires) {
    hashtableRelease(expires);
    kvstoreRelease(keys);
}

/* Empties db at once and frees what it held in the background. */
void emptyDbAsync(serverDb *db) {
    kvstore *keys = db->keys;
    hashtable *expires = db->expires;
    db->keys = kvstoreCreate(keys->type, keys->bits);
    db->expires = hashtableCreate(hashtableGetType(expires));
    lazyfreeSubmit(lazyfreeDatabase, keys, expires, kvstoreSize(keys));
}

size_t lazyfreeGetPendingObjectsCount(void) {
    return __atomic_load_n(&lazyfree_pending_objects, __ATOMIC_RELAXED);
}

size_t lazyfreeGetFreedObjectsCount(void) {
    return __atomic_load_n(&lazyfreed_objects, __ATOMIC_RELAXED);
}

/* CONFIG RESETSTAT. */
void lazyfreeResetStats(void) {
    __atomic_store_n(&lazyfreed_objects, 0, __ATOMIC_RELAXED);
}
