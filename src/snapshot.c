/* snapshot.c - when and where RDB snapshots are written and read.
 *
 * rdb.c knows the format (rdbSave() writes the whole dataset to a temp
 * file, fsyncs it and renames it over the target; rdbLoad() reads one
 * into the current dataset). This file runs those at the right moments
 * and keeps the bookkeeping Valkey exposes:
 *
 *   SAVE            rdbSave() in the event loop (snapshotSaveSync).
 *   BGSAVE          fork(); the child writes the snapshot and _exit()s;
 *                   the same machinery runs the AOF rewrite child
 *                   (kind SNAPSHOT_CHILD_AOF: aof.c writes, and is told
 *                   of its end), one child of either kind at a time;
 *                   serverCron() reaps it with waitpid(WNOHANG)
 *                   (snapshotCron -> backgroundSaveDoneHandler).
 *   save points     "save <seconds> <changes>" rules checked by the cron;
 *                   after a failed background save they retry only every
 *                   SNAPSHOT_BGSAVE_RETRY_DELAY seconds.
 *   start-up        loadDataFromDisk(): dbfilename from dir; a missing
 *                   file is an empty dataset, a bad one ends the process.
 *                   Clients are served (-LOADING, INFO progress) every
 *                   loading-process-events-interval-bytes (2 MB) or
 *                   100 ms of loading (snapshotLoadingProgress).
 *   shutdown        SHUTDOWN / SIGTERM: kill a running child, save when
 *                   save points exist (or SAVE was given), refuse to exit
 *                   if that fails unless FORCE.
 *   FLUSHALL        kill the child, save the empty dataset (save points).
 *   DEBUG RELOAD    save, empty, load back.
 *   MISCONF         writeCommandsDeniedByDiskError() for processCommand().
 *
 * The forked child and RDMA: memory registered for RDMA is not inherited
 * by a child (ibv_fork_init() marks it do-not-fork), so the child must
 * never call into a transport. It closes the listening sockets and the
 * client fds with plain close(2) (so that a client's connection really
 * ends when the parent closes it, and a port can be bound again while a
 * child still runs), touches nothing but the dataset, and leaves with
 * _exit(). Through a pipe it reports to the parent about once a second
 * how many keys it wrote and its copy-on-write cost (INFO current_*).
 *
 * Everything here runs in the event-loop thread, except the functions
 * marked "child", which run in the forked child only. */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aof.h"
#include "config.h"
#include "latency.h"
#include "rdb.h"
#include "replication.h"
#include "snapshot.h"

struct snapshotState snapshot;

/* ---------------------------------------------------------------------------
 * State
 * ------------------------------------------------------------------------- */

/* Sets the initial state. Called once by initServer(), before anything
 * can save or load. */
void snapshotInit(void) {
    memset(&snapshot, 0, sizeof(snapshot));
    snapshot.child_pid = -1;
    snapshot.child_info_pipe[0] = snapshot.child_info_pipe[1] = -1;
    snapshot.rdb_save_time_last = -1;
    server.rdb_save_time_start = -1;
}

/* 1 while a background save child exists (not yet reaped). */
int hasActiveChildProcess(void) {
    return snapshot.child_pid != -1;
}

/* 1 while the child is an AOF rewrite. */
int aofRewriteInProgress(void) {
    return snapshot.child_pid != -1 && snapshot.child_kind == SNAPSHOT_CHILD_AOF;
}

/* Removes the temp file a child with this pid may have left behind
 * (rdbSave writes temp-<pid>.rdb and renames it only when complete). */
void rdbRemoveTempFile(pid_t childpid) {
    char tmpfile[64];
    snprintf(tmpfile, sizeof(tmpfile), "temp-%d.rdb", (int)childpid);
    unlink(tmpfile);
}

/* ---------------------------------------------------------------------------
 * The child-info pipe
 * ------------------------------------------------------------------------- */

static void snapshotCloseChildInfoPipe(void) {
    for (int j = 0; j < 2; j++) {
        if (snapshot.child_info_pipe[j] != -1) close(snapshot.child_info_pipe[j]);
        snapshot.child_info_pipe[j] = -1;
    }
}

/* Opens the pipe before a fork. Both ends are non-blocking: the parent
 * reads it from the cron and must never wait, and a child whose parent
 * does not read (busy in a long command) drops a progress report rather
 * than stalling the save. A failure is not fatal: the save just reports
 * no progress and no copy-on-write figure. */
static void snapshotOpenChildInfoPipe(void) {
    if (pipe(snapshot.child_info_pipe) == -1) {
        snapshot.child_info_pipe[0] = snapshot.child_info_pipe[1] = -1;
        return;
    }
    for (int j = 0; j < 2; j++) {
        fcntl(snapshot.child_info_pipe[j], F_SETFL, O_NONBLOCK);
        fcntl(snapshot.child_info_pipe[j], F_SETFD, FD_CLOEXEC);
    }
}

/* Forgets the progress of the child (at fork and when it is gone). */
static void snapshotResetChildProgress(void) {
    snapshot.current_save_keys_processed = 0;
    snapshot.current_cow_bytes = snapshot.current_cow_peak = 0;
    snapshot.current_cow_updated_ms = 0;
}

/* Reads every report the child sent so far into the stats. */
static void snapshotReadChildInfo(void) {
    snapshotChildInfo info;
    if (snapshot.child_info_pipe[0] == -1) return;
    while (read(snapshot.child_info_pipe[0], &info, sizeof(info)) == (ssize_t)sizeof(info)) {
        if (info.magic != SNAPSHOT_CHILD_INFO_MAGIC) continue;
        if (info.type == SNAPSHOT_CHILD_INFO_DONE) {
            if (snapshot.child_kind == SNAPSHOT_CHILD_AOF) snapshot.stat_aof_cow_bytes = info.cow_bytes;
            else snapshot.stat_rdb_cow_bytes = info.cow_bytes;
        }
        snapshot.current_save_keys_processed = (long long)info.keys;
        snapshot.current_cow_bytes = info.cow_bytes;
        if (info.cow_bytes > snapshot.current_cow_peak) snapshot.current_cow_peak = info.cow_bytes;
        snapshot.current_cow_updated_ms = mstime();
    }
}

/* ---------------------------------------------------------------------------
 * The background save child (all "child" context)
 * ------------------------------------------------------------------------- */

/* Private_Dirty of this process in bytes from /proc/self/smaps_rollup: in
 * a fork child, the pages no longer shared with the parent, i.e. what the
 * snapshot cost in copy-on-write. 0 if unknown. Child. */
static unsigned long long snapshotChildPrivateDirty(void) {
    FILE *fp = fopen("/proc/self/smaps_rollup", "r");
    if (fp == NULL) return 0;
    char line[256];
    unsigned long long total = 0, kb;
    while (fgets(line, sizeof(line), fp)) {
        if (sscanf(line, "Private_Dirty: %llu kB", &kb) == 1) total += kb * 1024;
    }
    fclose(fp);
    return total;
}

/* Read ends of pipes the child must not keep open: were it to hold one,
 * its writes would block forever instead of failing when the parent dies. */
static int child_close_fds[2] = {-1, -1};

/* Closes the fds the child inherited but must not keep open: listening
 * sockets and client connections. Plain close(2) only: no connection or
 * listener code runs (for RDMA that code would touch verbs objects and
 * registered memory the child does not have). Child. */
static void snapshotChildCloseInheritedFds(void) {
    for (int j = 0; j < CONN_TYPE_MAX; j++) {
        connListener *l = &server.listeners[j];
        for (int i = 0; i < l->count && i < CONN_BINDADDR_MAX; i++)
            if (l->fd[i] >= 0) close(l->fd[i]);
    }
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li)) != NULL) {
        client *c = listNodeValue(ln);
        if (c->conn && c->conn->fd >= 0) close(c->conn->fd);
    }
    if (snapshot.child_info_pipe[0] != -1) close(snapshot.child_info_pipe[0]);
    snapshot.child_info_pipe[0] = -1;
    for (int j = 0; j < 2; j++)
        if (child_close_fds[j] != -1) close(child_close_fds[j]);
}

/* Signals in the child: the parent's shutdown handlers would only set a
 * flag nobody reads here, so SIGTERM, SIGINT and SIGUSR1 (killRDBChild)
 * end the child at once; a crash is reported by the parent from the exit
 * status, not with a second crash report of the parent's state. Child. */
static void snapshotChildSetupSignals(void) {
    struct sigaction act;
    memset(&act, 0, sizeof(act));
    sigemptyset(&act.sa_mask);
    act.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &act, NULL);
    sigaction(SIGINT, &act, NULL);
    sigaction(SIGUSR1, &act, NULL);
    removeSigSegvHandlers();
}

/* Names the process for ps/top: the kernel's comm name (15 bytes at most)
 * and the command line, from proc-title-template with {title} = title
 * (startup.c). Child. */
static void snapshotChildSetTitle(const char *title) {
    if (!server.set_proc_title) return;
    prctl(PR_SET_NAME, title, 0, 0, 0);
    serverSetProcTitle(title);
}

/* The copy-on-write samples of this child, for its final log line. */
static unsigned long long child_cow_peak, child_cow_sum, child_cow_samples;

/* Tells the parent how far the save is and what it costs so far (type
 * SNAPSHOT_CHILD_INFO_PROGRESS) or in the end (_DONE). Returns the
 * copy-on-write bytes it measured. Child. */
static unsigned long long snapshotChildSendInfo(int type) {
    unsigned long long cow = snapshotChildPrivateDirty();
    if (cow > child_cow_peak) child_cow_peak = cow;
    child_cow_sum += cow;
    child_cow_samples++;
    if (snapshot.child_info_pipe[1] == -1) return cow;
    snapshotChildInfo info = {.magic = SNAPSHOT_CHILD_INFO_MAGIC,
                              .type = (unsigned long long)type,
                              .keys = (unsigned long long)rdbSaveKeysProcessed,
                              .cow_bytes = cow};
    ssize_t n = write(snapshot.child_info_pipe[1], &info, sizeof(info));
    (void)n; /* nothing to do about a failure: the parent keeps its last figures */
    return cow;
}

/* rio progress callback of the child's save: a progress report about once
 * a second (the clock is read every 1024 writes only). Child. */
static void snapshotChildProgress(rio *r, size_t len) {
    static unsigned int calls;
    static long long last_ms;
    (void)r;
    (void)len;
    if ((++calls & 1023) != 0) return;
    long long now = mstime();
    if (last_ms == 0) last_ms = now; /* the first report a second after the start */
    if (now - last_ms < SNAPSHOT_CHILD_INFO_INTERVAL_MS) return;
    last_ms = now;
    snapshotChildSendInfo(SNAPSHOT_CHILD_INFO_PROGRESS);
}

/* A diskless sync's payload into the pipe fd: "$EOF:<mark>\r\n", the
 * snapshot, "<mark>" (the replica spots the end by the mark). Child. */
static int snapshotChildWritePipe(int fd, const char *mark) {
    rio r;
    rioInitFdWriter(&r, fd, 0);
    r.progress = snapshotChildProgress;
    /* The header goes out at once: the replica learns the framing before
     * the first buffer of the snapshot is full. */
    int ok = rioWrite(&r, "$EOF:", 5) && rioWrite(&r, mark, CONFIG_RUN_ID_SIZE) && rioWrite(&r, "\r\n", 2) &&
             rioFlush(&r);
    r.processed_bytes = 0;
    ok = ok && rdbSaveRio(&r) == C_OK && rioWrite(&r, mark, CONFIG_RUN_ID_SIZE) && rioFlush(&r);
    rioRelease(&r);
    return ok ? C_OK : C_ERR;
}

/* The writer of a child started by rdbSaveToFuncBackground(), NULL for
 * the others. */
static int (*child_writer)(void *ctx, rioProgressFn *progress);
static void *child_writer_ctx;

/* The whole life of a background save child: detach from what belongs to
 * the parent, write the snapshot (to dbfilename; with pipe_fd != -1 to
 * that pipe for a diskless sync; or through child_writer; or a new AOF
 * base for kind SNAPSHOT_CHILD_AOF), report, exit 0 (saved) or 1
 * (failed). Never returns. Child. */
static void snapshotChildMain(int kind, int pipe_fd, const char *mark) {
    serverLogConfig.role = 'C';
    snapshotChildSetupSignals();
    snapshotChildCloseInheritedFds();
    if (kind == SNAPSHOT_CHILD_AOF) snapshotChildSetTitle("valkey-aof-rewrite");
    else snapshotChildSetTitle(pipe_fd == -1 && !child_writer ? "valkey-rdb-bgsave" : "valkey-rdb-to-replicas");
    if (server.oom_score_adj) setOOMScoreAdj(CONFIG_OOM_BGCHILD); /* oom-score-adj: children go first */
    setCpuAffinity(kind == SNAPSHOT_CHILD_AOF ? server.aof_rewrite_cpulist : server.bgsave_cpulist);
    int ok;
    if (kind == SNAPSHOT_CHILD_AOF) ok = aofRewriteChildWrite() == C_OK;
    else if (child_writer) ok = child_writer(child_writer_ctx, snapshotChildProgress) == C_OK;
    else if (pipe_fd == -1) ok = rdbSave(server.rdb_filename, snapshotChildProgress) == C_OK;
    else ok = snapshotChildWritePipe(pipe_fd, mark) == C_OK;
    if (ok) {
        unsigned long long cow = snapshotChildSendInfo(SNAPSHOT_CHILD_INFO_DONE);
        if (pipe_fd != -1) serverLog(LL_NOTICE, "DB saved on disk"); /* what Valkey logs for a diskless sync too */
        serverLog(LL_NOTICE, "Fork CoW for %s: current %llu MB, peak %llu MB, average %llu MB",
                  kind == SNAPSHOT_CHILD_AOF ? "AOF rewrite" : "RDB", cow >> 20, child_cow_peak >> 20,
                  (child_cow_sum / child_cow_samples) >> 20);
    }
    _exit(ok ? 0 : 1);
}

/* ---------------------------------------------------------------------------
 * Background saves (parent side)
 * ------------------------------------------------------------------------- */

/* Forks a child that writes dbfilename. Returns C_OK once the child runs
 * ("Background saving started by pid N"), C_ERR if a child already exists
 * or fork() failed (logged; the failure counts as a failed background
 * save, so save points wait SNAPSHOT_BGSAVE_RETRY_DELAY before retrying). */
static int snapshotForkChild(int kind, int pipe_fd, const char *mark);

int rdbSaveBackground(void) {
    return snapshotForkChild(SNAPSHOT_CHILD_RDB, -1, NULL);
}

/* See snapshot.h. */
int snapshotForkAofRewrite(void) {
    return snapshotForkChild(SNAPSHOT_CHILD_AOF, -1, NULL);
}

/* See snapshot.h. */
int rdbSaveToPipeBackground(int pipe_fd, int read_end, const char *mark) {
    child_close_fds[0] = read_end;
    int ret = snapshotForkChild(SNAPSHOT_CHILD_RDB, pipe_fd, mark);
    child_close_fds[0] = -1;
    return ret;
}

/* See snapshot.h. */
int rdbSaveToFuncBackground(int (*writer)(void *ctx, rioProgressFn *progress), void *ctx, int close1, int close2) {
    child_writer = writer;
    child_writer_ctx = ctx;
    child_close_fds[0] = close1;
    int saved = child_close_fds[1];
    child_close_fds[1] = close2;
    int ret = snapshotForkChild(SNAPSHOT_CHILD_RDB, -1, NULL);
    child_writer = NULL;
    child_writer_ctx = NULL;
    child_close_fds[0] = -1;
    child_close_fds[1] = saved;
    return ret;
}

/* See snapshot.h. */
void snapshotChildMustClose(int fd) {
    child_close_fds[1] = fd;
}

/* Forks the child of rdbSaveBackground() / rdbSaveToPipeBackground() /
 * snapshotForkAofRewrite(). */
static int snapshotForkChild(int kind, int pipe_fd, const char *mark) {
    if (hasActiveChildProcess()) return C_ERR;
    if (kind == SNAPSHOT_CHILD_RDB) {
        server.dirty_before_bgsave = server.dirty;
        snapshot.lastbgsave_try = time(NULL);
    }
    snapshot.child_keys_total = dbTotalServerKeyCount();
    snapshotResetChildProgress();
    snapshotOpenChildInfoPipe();

    long long start = ustime();
    pid_t pid = fork();
    if (pid == 0) snapshotChildMain(kind, pipe_fd, mark);
    if (pid == -1) {
        int err = errno;
        snapshotCloseChildInfoPipe();
        if (kind == SNAPSHOT_CHILD_AOF) {
            serverLog(LL_WARNING, "Can't rewrite append only file in background: fork: %s", strerror(err));
            return C_ERR;
        }
        server.lastbgsave_status = C_ERR;
        serverLog(LL_WARNING, "Can't save in background: fork: %s", strerror(err));
        return C_ERR;
    }
    snapshot.stat_fork_time = ustime() - start;
    snapshot.stat_total_forks++;
    latencyAddSampleIfNeeded("fork", snapshot.stat_fork_time / 1000);
    if (snapshot.child_info_pipe[1] != -1) close(snapshot.child_info_pipe[1]);
    snapshot.child_info_pipe[1] = -1;

    /* A child that feeds replicas (pipe or writer) saves no file. */
    int transfer = pipe_fd != -1 || child_writer != NULL;
    snapshot.child_pid = pid;
    snapshot.child_kind = kind;
    snapshot.child_to_pipe = transfer;
    if (kind == SNAPSHOT_CHILD_AOF) {
        serverLog(LL_NOTICE, "Background append only file rewriting started by pid %ld", (long)pid);
    } else {
        if (!transfer) serverLog(LL_NOTICE, "Background saving started by pid %ld", (long)pid);
        else serverLog(LL_NOTICE, "Background RDB transfer started by pid %ld", (long)pid);
        if (!snapshot.child_to_pipe) snapshot.stat_rdb_saves++;
        server.rdb_save_time_start = time(NULL);
    }
    /* Growing or shrinking a hash table now would copy every page it
     * touches into the parent for nothing. */
    dictSetResizeEnabled(DICT_RESIZE_AVOID);
    hashtableSetResizePolicy(HASHTABLE_RESIZE_AVOID);
    return C_OK;
}

/* Accounts for a finished child: exitcode is its exit status (or -1),
 * bysignal the signal that killed it (or 0). A child killed by SIGUSR1 was
 * stopped on purpose (killRDBChild) and does not make the last background
 * save "err". */
static void backgroundSaveDoneHandler(pid_t pid, int exitcode, int bysignal) {
    int ok = !bysignal && exitcode == 0;
    if (snapshot.child_kind == SNAPSHOT_CHILD_AOF) {
        snapshotReadChildInfo();
        snapshotCloseChildInfoPipe();
        snapshot.child_pid = -1;
        snapshot.child_kind = SNAPSHOT_CHILD_RDB;
        snapshot.child_keys_total = 0;
        snapshotResetChildProgress();
        dictSetResizeEnabled(DICT_RESIZE_ENABLE);
    hashtableSetResizePolicy(HASHTABLE_RESIZE_ALLOW);
        aofRewriteDone(pid, ok, bysignal);
        return;
    }
    if (snapshot.child_to_pipe) {
        /* A diskless sync: nothing was saved, the dataset's save state
         * stays as it was. */
        if (ok) serverLog(LL_NOTICE, "Background RDB transfer terminated with success");
        else if (!bysignal) serverLog(LL_WARNING, "Background transfer error");
        else serverLog(LL_WARNING, "Background transfer terminated by signal %d", bysignal);
    } else if (ok) {
        serverLog(LL_NOTICE, "Background saving terminated with success");
        server.dirty -= server.dirty_before_bgsave;
        if (server.dirty < 0) server.dirty = 0;
        server.lastsave = time(NULL);
        server.lastbgsave_status = C_OK;
    } else if (!bysignal) {
        serverLog(LL_WARNING, "Background saving error");
        server.lastbgsave_status = C_ERR;
        rdbRemoveTempFile(pid);
    } else {
        serverLog(LL_WARNING, "Background saving terminated by signal %d", bysignal);
        rdbRemoveTempFile(pid);
        if (bysignal != SIGUSR1) server.lastbgsave_status = C_ERR;
    }
    snapshot.rdb_save_time_last = time(NULL) - server.rdb_save_time_start;
    server.rdb_save_time_start = -1;
    snapshotReadChildInfo();
    snapshotCloseChildInfoPipe();
    snapshot.child_pid = -1;
    snapshot.child_keys_total = 0;
    snapshotResetChildProgress();
    dictSetResizeEnabled(DICT_RESIZE_ENABLE);
    hashtableSetResizePolicy(HASHTABLE_RESIZE_ALLOW);
    snapshot.child_to_pipe = 0;
    replicationSnapshotDone(ok);
}

/* Reaps the child if it exited; with wait set, blocks until it does.
 * Returns 1 if the child is gone (accounted for), 0 if it still runs. */
static int snapshotReapChild(int wait) {
    int status = 0;
    pid_t pid;
    do {
        pid = waitpid(snapshot.child_pid, &status, wait ? 0 : WNOHANG);
    } while (pid == -1 && errno == EINTR);
    if (pid == 0) return 0;
    pid_t child = snapshot.child_pid;
    if (pid == -1) {
        /* Not our child any more (should not happen): count it as a
         * failed save rather than waiting forever. */
        serverLog(LL_WARNING, "waitpid() returned an error: %s. child_type: RDB, child_pid = %ld", strerror(errno),
                  (long)child);
        backgroundSaveDoneHandler(child, 1, 0);
        return 1;
    }
    int exitcode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    int bysignal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    backgroundSaveDoneHandler(child, exitcode, bysignal);
    return 1;
}

/* Stops a running background save: SIGUSR1, then waits for the child so
 * that it can no longer rename its file over a newer one, and removes its
 * temp file. The save is logged as terminated by signal 10 and does not
 * count as an error. No-op without a child. */
void killRDBChild(void) {
    if (!hasActiveChildProcess() || snapshot.child_kind != SNAPSHOT_CHILD_RDB) return;
    kill(snapshot.child_pid, SIGUSR1);
    snapshotReapChild(1);
}

/* Stops a running AOF rewrite the same way (aof.c removes its temp
 * file). No-op without one. */
void killAofChild(void) {
    if (!aofRewriteInProgress()) return;
    kill(snapshot.child_pid, SIGUSR1);
    snapshotReapChild(1);
}

/* True when a save point is due: enough changes, enough time since the
 * last successful save, and not right after a failed attempt. Logs the
 * rule that fired as Valkey does. */
static int snapshotSavePointDue(void) {
    time_t now = server.unixtime;
    int may_retry = now - snapshot.lastbgsave_try > SNAPSHOT_BGSAVE_RETRY_DELAY || server.lastbgsave_status == C_OK;
    if (!may_retry) return 0;
    for (int j = 0; j < server.saveparamslen; j++) {
        struct saveparam *sp = server.saveparams + j;
        if (server.dirty >= sp->changes && now - server.lastsave > sp->seconds) {
            serverLog(LL_NOTICE, "%d changes in %d seconds. Saving...", sp->changes, (int)sp->seconds);
            return 1;
        }
    }
    return 0;
}

/* Called by serverCron() every tick: reaps a finished child, otherwise
 * starts a background save when a save point is due or one was
 * scheduled. */
void snapshotCron(void) {
    if (hasActiveChildProcess()) {
        snapshotReadChildInfo();
        snapshotReapChild(0);
        return;
    }
    if (snapshotSavePointDue()) {
        rdbSaveBackground();
        return;
    }
    if (snapshot.bgsave_scheduled && (server.unixtime - snapshot.lastbgsave_try > SNAPSHOT_BGSAVE_RETRY_DELAY ||
                                      server.lastbgsave_status == C_OK)) {
        if (rdbSaveBackground() == C_OK) snapshot.bgsave_scheduled = 0;
    }
}

/* ---------------------------------------------------------------------------
 * Synchronous saves
 * ------------------------------------------------------------------------- */

/* Writes dbfilename from this process (the event loop is blocked while it
 * runs). On success the dataset counts as saved: dirty 0, lastsave now,
 * last background save status "ok". Returns what rdbSave() returns; its
 * failures are logged by rdbSave(). A running child is stopped first, so
 * that an older snapshot cannot be renamed over this one. */
int snapshotSaveSync(void) {
    killRDBChild();
    snapshot.stat_rdb_saves++;
    if (rdbSave(server.rdb_filename, NULL) != C_OK) return C_ERR;
    server.dirty = 0;
    server.lastsave = time(NULL);
    server.lastbgsave_status = C_OK;
    return C_OK;
}

/* See snapshot.h. */
int writeCommandsDeniedByDiskError(void) {
    if (server.primary_host) return 0; /* a replica takes what its primary sends */
    return server.stop_writes_on_bgsave_err && server.saveparamslen > 0 && server.lastbgsave_status == C_ERR;
}

/* FLUSHALL: the running snapshot is of data that no longer exists; with
 * save points, the empty dataset is saved at once (Valkey does this so
 * that a restart does not bring the flushed keys back). */
void snapshotAfterFlushAll(void) {
    killRDBChild();
    if (server.saveparamslen > 0) snapshotSaveSync();
}

/* See snapshot.h. Called by prepareForShutdown() before listeners close,
 * so that a refused shutdown leaves the server fully working. */
int snapshotPrepareForShutdown(int flags) {
    /* The AOF first: kills a rewrite, writes and fsyncs the AOF; refuses
     * while the first base is being written (aof.c). */
    if (aofPrepareForShutdown(flags) != C_OK) return C_ERR;
    if (hasActiveChildProcess() && !aofRewriteInProgress()) {
        serverLog(LL_WARNING, "There is a child saving an .rdb. Killing it!");
        killRDBChild();
    }
    int save = (server.saveparamslen > 0 && !(flags & SHUTDOWN_NOSAVE)) || (flags & SHUTDOWN_SAVE);
    if (!save) return C_OK;
    serverLog(LL_NOTICE, "Saving the final RDB snapshot before exiting.");
    if (snapshotSaveSync() == C_OK) return C_OK;
    if (flags & SHUTDOWN_FORCE) {
        serverLog(LL_WARNING, "Error trying to save the DB. Exit anyway.");
        return C_OK;
    }
    serverLog(LL_WARNING, "Error trying to save the DB, can't exit.");
    return C_ERR;
}

/* ---------------------------------------------------------------------------
 * Loading
 * ------------------------------------------------------------------------- */

/* One turn of the event loop in the middle of a start-up load: accept
 * connections, read requests (processCommand() answers -LOADING to every
 * command without CMD_LOADING), let transports with queued work (RDMA)
 * run, write replies. A shutdown asked for meanwhile (SIGTERM) happens here,
 * without saving a half-loaded dataset. No timers: the cron does not run
 * until the dataset is loaded. */
static void snapshotServeClientsWhileLoading(void) {
    updateCachedTime(0);
    aeProcessEvents(server.el, AE_FILE_EVENTS | AE_DONT_WAIT);
    connTypesProcessPendingData();
    handleClientsWithPendingWrites();
    freeClientsInAsyncFreeQueue();
    if (server.shutdown_asap) {
        if (prepareForShutdown(SHUTDOWN_NOSAVE) == C_OK) exit(0);
        server.shutdown_asap = 0;
    }
}

/* rio progress callback of a load: records how far it is (INFO
 * loading_loaded_bytes) and, at start-up, serves clients every
 * loading-process-events-interval-bytes, or every
 * SNAPSHOT_LOADING_EVENTS_MS when reading is slow (the clock is read only
 * once every 1024 calls: this runs several times per key). */
static void snapshotLoadingProgress(rio *r, size_t len) {
    static unsigned int calls = 0;
    static long long last_turn_ms = 0;
    (void)len;
    int due = r->processed_bytes - (uint64_t)snapshot.loading_loaded_bytes >=
              (uint64_t)server.loading_process_events_interval_bytes;
    if (!due && (++calls & 1023) == 0) due = mstime() - last_turn_ms >= SNAPSHOT_LOADING_EVENTS_MS;
    if (!due) return;
    snapshot.loading_loaded_bytes = (off_t)r->processed_bytes;
    last_turn_ms = mstime();
    if (snapshot.loading_serves_clients) snapshotServeClientsWhileLoading();
}

static void snapshotStopLoading(int ok) {
    server.loading = 0;
    server.async_loading = 0;
    if (!ok) return;
    snapshot.rdb_last_load_keys_loaded = rdbLastLoadKeysLoaded;
    snapshot.rdb_last_load_keys_expired = rdbLastLoadKeysExpired;
}

/* Loads filename into the current dataset with the loading state set;
 * rdbflags as rdbLoadRioWithFlags() takes them (RDBFLAGS_ALLOW_DUP: a key
 * already present is replaced). Returns C_OK, or C_ERR with errno ENOENT
 * when the file is missing, another errno when it cannot be read or is
 * corrupt (rdb.c has logged why). */
static int snapshotLoadFile(const char *filename, int rdbflags) {
    int fd = open(filename, O_RDONLY);
    if (fd == -1) return C_ERR;
    struct stat st;
    rio r;
    rioInitFdReader(&r, fd);
    int ret = snapshotLoadRio(&r, fstat(fd, &st) == 0 ? st.st_size : 0, rdbflags);
    int err = errno;
    rioRelease(&r);
    close(fd);
    errno = err;
    return ret;
}

/* See snapshot.h. */
void snapshotLoadingStart(off_t total_bytes) {
    server.loading = 1;
    snapshot.loading_start_time = time(NULL);
    snapshot.loading_total_bytes = total_bytes;
    snapshot.loading_loaded_bytes = 0;
}

/* See snapshot.h. */
void snapshotLoadingWaitTurn(void) {
    if (server.loading && snapshot.loading_serves_clients) snapshotServeClientsWhileLoading();
}

/* See snapshot.h. Serves clients (start-up) every
 * loading-process-events-interval-bytes or SNAPSHOT_LOADING_EVENTS_MS (the
 * clock is read once every 1024 calls: the RDB loader calls this several
 * times per key). */
void snapshotLoadingAdvance(off_t loaded_bytes) {
    static unsigned int calls = 0;
    static long long last_turn_ms = 0;
    int due = loaded_bytes - snapshot.loading_loaded_bytes >= server.loading_process_events_interval_bytes;
    if (!due && (++calls & 1023) == 0) due = mstime() - last_turn_ms >= SNAPSHOT_LOADING_EVENTS_MS;
    if (!due) return;
    snapshot.loading_loaded_bytes = loaded_bytes;
    last_turn_ms = mstime();
    if (snapshot.loading_serves_clients) snapshotServeClientsWhileLoading();
}

/* See snapshot.h. */
void snapshotLoadingStop(int ok) {
    snapshotStopLoading(ok);
}

/* See snapshot.h. */
int snapshotLoadRio(rio *r, off_t total_bytes, int rdbflags) {
    return snapshotLoadRioTo(r, total_bytes, rdbflags, NULL, 0);
}

/* See snapshot.h. */
int snapshotLoadRioTo(rio *r, off_t total_bytes, int rdbflags, const rdbLoadTarget *target, int async) {
    server.loading = 1;
    server.async_loading = async && target != NULL;
    snapshot.loading_start_time = time(NULL);
    snapshot.loading_total_bytes = total_bytes;
    snapshot.loading_loaded_bytes = 0;
    int serves = snapshot.loading_serves_clients;
    if ((rdbflags & RDBFLAGS_REPLICATION) == RDBFLAGS_REPLICATION) snapshot.loading_serves_clients = 1;
    r->progress = snapshotLoadingProgress;
    int ret = rdbLoadRioTo(r, rdbflags, target);
    int err = errno;
    snapshot.loading_serves_clients = serves;
    snapshotStopLoading(ret == C_OK);
    errno = err;
    return ret;
}

/* See snapshot.h. */
int snapshotLoadFileForSync(const char *filename) {
    return snapshotLoadFile(filename, RDBFLAGS_REPLICATION);
}

/* Start-up: loads dbfilename from dir. A missing file means an empty
 * dataset; a file that cannot be read or is corrupt ends the process with
 * status 1 (rdb.c has logged why), as Valkey does: starting empty would
 * let the next save destroy the data. The listeners are open already:
 * clients are served (-LOADING) while the file loads. */
void loadDataFromDisk(void) {
    struct stat st;
    if (server.aof_enabled) { /* appendonly yes: the AOF wins over dbfilename */
        snapshot.loading_serves_clients = 1;
        aofLoadOnStartup();
        snapshot.loading_serves_clients = 0;
        return;
    }
    if (stat(server.rdb_filename, &st) == -1 && errno == ENOENT) return;
    long long start = ustime();
    snapshot.loading_serves_clients = 1;
    /* Our own file: its replication id and offset say where our history
     * stands; as a primary, keys that expired meanwhile go to the backlog
     * as DELs for the replicas that still have them. */
    replicationOwnFileLoadBegin();
    int flags = RDBFLAGS_EXIT_ON_ERROR | (server.primary_host == NULL ? RDBFLAGS_FEED_REPL : 0);
    int ret = snapshotLoadFile(server.rdb_filename, flags);
    replicationOwnFileLoadEnd(ret == C_OK);
    snapshot.loading_serves_clients = 0;
    if (ret == C_OK) {
        serverLog(LL_NOTICE, "DB loaded from disk: %.3f seconds", (double)(ustime() - start) / 1000000);
        return;
    }
    if (errno == ENOENT) return;
    serverLog(LL_WARNING, "Fatal error loading the DB, check server logs. Exiting.");
    exit(1);
}

/* DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: saves the dataset (unless
 * NOSAVE), empties it (unless NOFLUSH) and loads dbfilename back. With
 * NOFLUSH alone a key present in both is an error of the load; with MERGE
 * the file's version wins. Replies +OK or an error. */
void debugReloadCommand(client *c) {
    int flush = 1, save = 1, merge = 0;
    if (server.loading) { /* a client served during the start-up load */
        addReplyErrorObject(c, shared.loadingerr);
        return;
    }
    for (int j = 2; j < c->argc; j++) {
        const char *opt = objectGetVal(c->argv[j]);
        if (!strcasecmp(opt, "MERGE")) merge = 1;
        else if (!strcasecmp(opt, "NOFLUSH")) flush = 0;
        else if (!strcasecmp(opt, "NOSAVE")) save = 0;
        else {
            addReplyError(c, "DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
            return;
        }
    }
    if (save && snapshotSaveSync() != C_OK) {
        addReplyErrorObject(c, shared.err);
        return;
    }
    if (flush) {
        emptyData(-1, EMPTYDB_NO_FLAGS, NULL);
        functionsEmpty(); /* the file brings its own libraries */
    }
    int ret = snapshotLoadFile(server.rdb_filename, merge ? RDBFLAGS_ALLOW_DUP : RDBFLAGS_NONE);
    if (ret != C_OK) {
        addReplyError(c, "Error trying to load the RDB dump, check server logs.");
        return;
    }
    serverLog(LL_NOTICE, "DB reloaded by DEBUG RELOAD");
    addReply(c, shared.ok);
}

/* ---------------------------------------------------------------------------
 * INFO
 * ------------------------------------------------------------------------- */

/* The loading_* fields, while a load runs (seen by clients served during
 * a start-up load, and by a crash report). */
static sds snapshotCatInfoLoading(sds info) {
    long long total = (long long)snapshot.loading_total_bytes;
    long long loaded = (long long)snapshot.loading_loaded_bytes;
    long long elapsed = (long long)(time(NULL) - snapshot.loading_start_time);
    long long remaining = total > loaded ? total - loaded : 0;
    long long eta = elapsed == 0 ? 1 : elapsed * remaining / (loaded + 1);
    return sdscatprintf(info,
                        "loading_start_time:%lld\r\n"
                        "loading_total_bytes:%lld\r\n"
                        "loading_loaded_bytes:%lld\r\n"
                        "loading_loaded_perc:%.2f\r\n"
                        "loading_eta_seconds:%lld\r\n",
                        (long long)snapshot.loading_start_time, total, loaded,
                        (double)loaded * 100 / (double)(total + 1), eta);
}

/* Appends the "# Persistence" section, with Valkey's fields (the aof_*
 * ones from aof.c). */
sds snapshotCatInfoPersistence(sds info) {
    int child = hasActiveChildProcess() && !aofRewriteInProgress();
    long long current_bgsave = child ? (long long)(time(NULL) - server.rdb_save_time_start) : -1;
    long long cow_age = snapshot.current_cow_updated_ms ? (mstime() - snapshot.current_cow_updated_ms) / 1000 : 0;
    double fork_perc = child && snapshot.child_keys_total > 0 ? (double)snapshot.current_save_keys_processed * 100 /
                                                                     (double)snapshot.child_keys_total
                                                               : 0;
    info = sdscatprintf(info,
                        "# Persistence\r\n"
                        "loading:%d\r\n"
                        "async_loading:%d\r\n"
                        "current_cow_peak:%llu\r\n"
                        "current_cow_size:%llu\r\n"
                        "current_cow_size_age:%lld\r\n"
                        "current_fork_perc:%.2f\r\n"
                        "current_save_keys_processed:%lld\r\n"
                        "current_save_keys_total:%lld\r\n"
                        "rdb_changes_since_last_save:%lld\r\n"
                        "rdb_bgsave_in_progress:%d\r\n"
                        "rdb_last_save_time:%lld\r\n"
                        "rdb_last_bgsave_status:%s\r\n"
                        "rdb_last_bgsave_time_sec:%lld\r\n"
                        "rdb_current_bgsave_time_sec:%lld\r\n"
                        "rdb_saves:%lld\r\n"
                        "rdb_last_cow_size:%llu\r\n"
                        "rdb_last_load_keys_expired:%lld\r\n"
                        "rdb_last_load_keys_loaded:%lld\r\n",
                        server.loading && !server.async_loading, server.async_loading, snapshot.current_cow_peak, snapshot.current_cow_bytes, cow_age,
                        fork_perc, snapshot.current_save_keys_processed, child ? snapshot.child_keys_total : 0,
                        server.dirty, child,
                        (long long)server.lastsave, server.lastbgsave_status == C_OK ? "ok" : "err",
                        (long long)snapshot.rdb_save_time_last, current_bgsave, snapshot.stat_rdb_saves,
                        snapshot.stat_rdb_cow_bytes, snapshot.rdb_last_load_keys_expired,
                        snapshot.rdb_last_load_keys_loaded);
    info = aofCatInfo(info);
    info = sdscat(info, "module_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n");
    info = aofCatInfoEnabled(info);
    if (server.loading) info = snapshotCatInfoLoading(info);
    return info;
}

/* ---------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------- */

/* SAVE: a synchronous save; refused while a background save runs. */
void saveCommand(client *c) {
    if (hasActiveChildProcess() && !aofRewriteInProgress()) {
        addReplyError(c, "Background save already in progress");
        return;
    }
    if (snapshotSaveSync() == C_OK) addReply(c, shared.ok);
    else addReplyErrorObject(c, shared.err);
}

/* BGSAVE [SCHEDULE | CANCEL]. SCHEDULE defers the save while an AOF
 * rewrite runs (without it, that is an error). Inside EXEC the save is
 * always scheduled for the cron (a fork there would snapshot half a
 * transaction). CANCEL stops a running save and forgets a scheduled one. */
void bgsaveCommand(client *c) {
    int cancel = 0;
    if (c->argc > 2 || (c->argc == 2 && strcasecmp(objectGetVal(c->argv[1]), "schedule") != 0 &&
                        strcasecmp(objectGetVal(c->argv[1]), "cancel") != 0)) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (c->argc == 2) cancel = !strcasecmp(objectGetVal(c->argv[1]), "cancel");
    if (cancel) {
        if (hasActiveChildProcess() && !aofRewriteInProgress()) {
            snapshot.bgsave_scheduled = 0;
            killRDBChild();
            addReplyStatus(c, "Background saving cancelled");
        } else if (snapshot.bgsave_scheduled) {
            snapshot.bgsave_scheduled = 0;
            addReplyStatus(c, "Scheduled background saving cancelled");
        } else {
            addReplyError(c, "Background saving is currently not in progress or scheduled");
        }
        return;
    }
    int schedule = c->argc == 2;
    if (hasActiveChildProcess() && !aofRewriteInProgress()) {
        addReplyError(c, "Background save already in progress");
    } else if (aofRewriteInProgress() && !schedule) {
        addReplyError(c, "Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in "
                         "order to schedule a BGSAVE whenever possible.");
    } else if (server.in_exec || aofRewriteInProgress()) {
        snapshot.bgsave_scheduled = 1;
        addReplyStatus(c, "Background saving scheduled");
    } else if (rdbSaveBackground() == C_OK) {
        addReplyStatus(c, "Background saving started");
    } else {
        addReplyErrorObject(c, shared.err);
    }
}

struct serverCommand snapshotCommands[] = {
    {.name = "save", .proc = saveCommand, .arity = 1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI, .group = "server", .since = "1.0.0",
     .summary = "Synchronously saves the database(s) to disk.",
     .complexity = "O(N) where N is the total number of keys in all databases"},
    {.name = "bgsave", .proc = bgsaveCommand, .arity = -1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING,
     .group = "server", .since = "1.0.0", .summary = "Asynchronously saves the database(s) to disk.",
     .complexity = "O(1)", .args = "[operation=[SCHEDULE | CANCEL]]"},
    {0},
};
