/* snapshot.h - RDB snapshots as a server activity: SAVE, BGSAVE and the
 * forked child that writes dump.rdb, save points, loading at start-up,
 * saving on shutdown, and the state INFO persistence reports.
 *
 * The format itself (rdbSave / rdbLoad) is rdb.h's business; this
 * subsystem decides when a snapshot is written or read, runs it in the
 * right process, and keeps the bookkeeping (dirty counter, lastsave,
 * last background save status) Valkey exposes. State owned here lives in
 * `snapshot`; the older persistence fields of `server` (dirty,
 * dirty_before_bgsave, lastsave, lastbgsave_status, rdb_save_time_start)
 * are maintained by this subsystem too. */
#ifndef VK_SNAPSHOT_H
#define VK_SNAPSHOT_H

#include <sys/types.h>
#include <time.h>

#include "rio.h"
#include "sds.h"

/* Seconds to wait before retrying a failed background save on a save point
 * or a scheduled BGSAVE (Valkey's CONFIG_BGSAVE_RETRY_DELAY). */
#define SNAPSHOT_BGSAVE_RETRY_DELAY 5

/* While the dataset loads at start-up, clients are served (with -LOADING)
 * every loading-process-events-interval-bytes read, or this often (ms) if
 * reading is slower. */
#define SNAPSHOT_LOADING_EVENTS_MS 100

/* What a background save child sends its parent through the child-info
 * pipe: its progress about once a second (INFO current_save_keys_processed,
 * current_cow_size, ...) and the final figures just before it exits. Fixed
 * size: written with one write(2), which a pipe keeps atomic, and read the
 * same way by the parent. */
typedef struct snapshotChildInfo {
    unsigned long long magic;     /* SNAPSHOT_CHILD_INFO_MAGIC: guards against short or stray reads. */
    unsigned long long type;      /* SNAPSHOT_CHILD_INFO_PROGRESS or SNAPSHOT_CHILD_INFO_DONE. */
    unsigned long long keys;      /* Keys written so far. */
    unsigned long long cow_bytes; /* Private dirty memory of the child now (copy-on-write cost). */
} snapshotChildInfo;
#define SNAPSHOT_CHILD_INFO_MAGIC 0x52444243484c4432ULL /* "RDBCHLD2" */
#define SNAPSHOT_CHILD_INFO_PROGRESS 1
#define SNAPSHOT_CHILD_INFO_DONE 2
#define SNAPSHOT_CHILD_INFO_INTERVAL_MS 1000
_Static_assert(sizeof(snapshotChildInfo) == 32, "child info is four 64-bit fields");

/* What a background child writes (snapshot.child_kind). */
#define SNAPSHOT_CHILD_RDB 0 /* dbfilename, or a diskless sync's pipe */
#define SNAPSHOT_CHILD_AOF 1 /* a new AOF base (aof.c) */

struct snapshotState {
    pid_t child_pid;               /* The background save child, -1 if none. */
    int child_kind;                /* SNAPSHOT_CHILD_*, while child_pid != -1 */
    int child_to_pipe;             /* It writes a diskless sync's payload into a pipe. */
    int child_info_pipe[2];        /* Child writes [1], parent reads [0]; -1 when closed. */
    int bgsave_scheduled;          /* BGSAVE SCHEDULE (or BGSAVE in EXEC): start when possible. */
    time_t lastbgsave_try;         /* Unix time of the last fork attempt (retry delay). */
    time_t rdb_save_time_last;     /* Seconds the last background save took, -1 if none yet. */
    long long child_keys_total;    /* Keys in the dataset when the child was forked. */
    /* The running child's last progress report (0 without a child). */
    long long current_save_keys_processed;
    unsigned long long current_cow_bytes, current_cow_peak;
    long long current_cow_updated_ms; /* When current_cow_bytes arrived, 0 never. */
    /* Stats (INFO persistence / stats). */
    long long stat_rdb_saves;      /* Saves attempted: SAVE, BGSAVE, save points, shutdown. */
    unsigned long long stat_rdb_cow_bytes; /* Copy-on-write bytes of the last background save. */
    unsigned long long stat_aof_cow_bytes; /* ... of the last AOF rewrite. */
    long long stat_fork_time;      /* Microseconds the last fork() took. */
    long long stat_total_forks;
    /* Loading (start-up and DEBUG RELOAD). server.loading is the flag. */
    int loading_serves_clients;    /* Start-up load: run the event loop now and then. */
    time_t loading_start_time;
    off_t loading_total_bytes;     /* Size of the file being loaded. */
    off_t loading_loaded_bytes;    /* Read so far (updated at every turn of the event loop). */
    long long rdb_last_load_keys_loaded;
    long long rdb_last_load_keys_expired;
};

extern struct snapshotState snapshot;

struct client;

/* Process lifecycle: server.c calls these. */
void snapshotInit(void);                /* before the event loop starts */
void loadDataFromDisk(void);            /* start-up: dbfilename from dir, exits on a bad file */
void snapshotCron(void);                /* serverCron: reap the child, save points, scheduled BGSAVE */
int snapshotPrepareForShutdown(int flags); /* kill the child, final save; C_ERR refuses the shutdown */

/* Saving. */
int hasActiveChildProcess(void);
int aofRewriteInProgress(void);         /* the child is an AOF rewrite */
/* Forks a child that writes a new AOF base (aofRewriteChildWrite); its
 * end goes to aofRewriteDone(). C_OK once it runs, C_ERR (logged). */
int snapshotForkAofRewrite(void);
void killAofChild(void);                /* like killRDBChild, for an AOF rewrite child */
int rdbSaveBackground(void);            /* C_OK: child forked ("Background saving started by pid N") */
/* Forks a child that writes a diskless sync's payload ("$EOF:<mark>\r\n",
 * the snapshot, "<mark>"; mark is CONFIG_RUN_ID_SIZE bytes) into pipe_fd
 * and nothing else; it closes read_end, the parent's side of the pipe. C_OK once it runs; the parent closes its copy of
 * pipe_fd. Its end is reported to replicationSnapshotDone(). */
int rdbSaveToPipeBackground(int pipe_fd, int read_end, const char *mark);
/* Forks a child that runs writer(ctx, progress) to produce a snapshot for
 * replicas its own way (the RDMA snapshot region: repl_rdma.c); writer
 * returns C_OK or C_ERR and must pass progress to its rio (INFO progress).
 * The child closes close1 and close2 (the parent's ends of its pipes, -1
 * for none) and touches no transport. Accounted and reported as
 * rdbSaveToPipeBackground(). */
int rdbSaveToFuncBackground(int (*writer)(void *ctx, rioProgressFn *progress), void *ctx, int close1, int close2);
/* An fd every later child closes at once (the read end of a diskless
 * sync's pipe, while it is open; -1 for none). */
void snapshotChildMustClose(int fd);
/* Loads a dataset from r with the loading state set (INFO loading_*,
 * -LOADING to clients, served meanwhile when loading for replication).
 * total_bytes: the payload's size for progress, 0 if unknown. */
struct rio;
int snapshotLoadRio(struct rio *r, off_t total_bytes, int rdbflags);
/* snapshotLoadRio() into target (rdb.h; NULL: the server's own dataset).
 * With async (target given) clients keep using the server's dataset
 * meanwhile and are served as usual, except commands flagged
 * no-async-loading, which get -LOADING (INFO async_loading:1, loading:0);
 * without it every command but the CMD_LOADING ones does. */
struct rdbLoadTarget;
int snapshotLoadRioTo(struct rio *r, off_t total_bytes, int rdbflags, const struct rdbLoadTarget *target,
                      int async);
/* The loading state of a load made of several parts (the AOF's files):
 * Start sets INFO loading_* for total_bytes, Advance records how far it
 * is and serves clients when due (start-up), Stop ends it. */
void snapshotLoadingStart(off_t total_bytes);
/* For a load whose reader waits for its input (a replica reading its
 * primary's snapshot from the link): serves clients now, as the load's
 * progress does, when this load serves clients. */
void snapshotLoadingWaitTurn(void);
void snapshotLoadingAdvance(off_t loaded_bytes);
void snapshotLoadingStop(int ok);
/* Loads a full sync's file (replication.c). */
int snapshotLoadFileForSync(const char *filename);
int snapshotSaveSync(void);             /* SAVE-like: rdbSave in this process plus bookkeeping */
void killRDBChild(void);                /* SIGUSR1 to the child; the cron reaps it */
void rdbRemoveTempFile(pid_t childpid);

/* Write commands (and PING) are refused with -MISCONF while this is true:
 * stop-writes-on-bgsave-error is on, save points exist and the last
 * background save failed. */
int writeCommandsDeniedByDiskError(void);
#define SNAPSHOT_MISCONF_ERR                                                                                        \
    "MISCONF Valkey is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands "  \
    "that may modify the data set are disabled, because this instance is configured to report errors during "      \
    "writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Valkey logs for "      \
    "details about the RDB error."

/* FLUSHALL: kill the child and save the empty dataset when save points
 * are configured (db.c). */
void snapshotAfterFlushAll(void);

/* DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE] (debug.c). */
void debugReloadCommand(struct client *c);

/* INFO fields (info.c). */
sds snapshotCatInfoPersistence(sds info);

/* Commands. */
void saveCommand(struct client *c);
void bgsaveCommand(struct client *c);

#endif
