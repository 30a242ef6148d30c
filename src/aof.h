/* aof.h - the append-only file: every change of the dataset appended to a
 * log that is replayed at start-up, in Valkey 7+'s multi-part layout (a
 * base file, incremental files and a manifest in appenddirname). See
 * aof.c for the whole story. */
#ifndef VK_AOF_H
#define VK_AOF_H

#include <stdio.h>
#include <sys/types.h>

#include "adlist.h"
#include "sds.h"

/* aof.state: what appending does. */
#define AOF_OFF 0          /* appendonly no: nothing is collected */
#define AOF_ON 1           /* commands are appended to the last incr file */
#define AOF_WAIT_REWRITE 2 /* appendonly yes at run time: the first base is being written */

/* What aofLoadFiles() found. */
#define AOF_OK 0
#define AOF_NOT_EXIST 1
#define AOF_EMPTY 2
#define AOF_OPEN_ERR 3
#define AOF_FAILED 4
#define AOF_TRUNCATED 5

extern int aof_state; /* AOF_*: read by the propagation path on every command */

/* ---- The manifest: appenddirname/<appendfilename>.manifest ---------------- */

#define AOF_FILE_BASE 'b'
#define AOF_FILE_INCR 'i'
#define AOF_FILE_HIST 'h'

/* One file the manifest lists. name is a plain file name, never a path:
 * the parser refuses anything the AOF directory joined with it would not
 * name a file inside that directory. */
typedef struct aofInfo {
    sds name;
    long long seq;
    char type; /* AOF_FILE_* */
} aofInfo;

typedef struct aofManifest {
    aofInfo *base;      /* NULL when there is none yet */
    list *incr;         /* of aofInfo, in loading order */
    list *history;      /* of aofInfo, to be removed */
    long long base_seq; /* last sequence numbers used */
    long long incr_seq;
} aofManifest;

/* Why aofManifestParse() refused a manifest. */
typedef struct aofManifestError {
    const char *msg; /* Valkey's message (static) */
    int line;        /* 1-based number of the line at fault; 0 when no line is (empty file, read error) */
    sds text;        /* that line for the log, non-printable bytes escaped; NULL with line 0 */
} aofManifestError;

/* Parses the manifest text read from fp (server start-up, valkey-check-aof,
 * the fuzz target), touching nothing else. Returns the manifest, which the
 * caller frees with aofManifestFree(), or NULL with *err filled when Valkey
 * would refuse it too: an empty file, a read error, a line longer than
 * 1024 bytes or without its '\n' (the last one included), an empty line, a
 * line that is not "file <name> seq <n> type <b|h|i>" (more key/value
 * pairs are ignored), a name that is a path, two bases, incr sequence
 * numbers that do not grow. Comment lines ("#...") are skipped. The caller
 * passes err to aofManifestErrorLog() or frees err->text. */
aofManifest *aofManifestParse(FILE *fp, aofManifestError *err);
/* Logs a refused manifest as Valkey does ("*** FATAL AOF MANIFEST FILE
 * ERROR ***", the line number and the line, the message) at LL_WARNING,
 * and frees err->text. */
void aofManifestErrorLog(aofManifestError *err);
/* The manifest's text, one line per file as Valkey writes it: the base,
 * then history, then incr files. sds the caller frees. */
sds aofManifestToString(aofManifest *m);
void aofManifestFree(aofManifest *m);

/* 1 while propagated commands must reach the AOF (propagate.c). */
static inline int aofIsFed(void) {
    return aof_state != AOF_OFF;
}

struct client;
struct serverObject;

/* Propagation (propagate.c): appends one command for database dbid to the
 * AOF buffer, with a SELECT first when the database changes and a
 * timestamp annotation when aof-timestamp-enabled. Event loop. */
void aofFeed(int dbid, struct serverObject **argv, int argc);

/* Start-up (snapshot.c's loadDataFromDisk, with appendonly yes): reads the
 * manifest, loads the files, opens the incr file (creating the first base
 * on a first start) and removes history files. Exits on a bad AOF. */
void aofLoadOnStartup(void);

/* Event loop hooks (server.c). */
void aofBeforeSleep(void); /* writes the buffer; fsyncs as appendfsync says */
void aofCron(void);        /* automatic and scheduled rewrites, everysec fsync, retries after errors */
/* Shutdown (snapshot.c, SHUTDOWN_* flags): kills a rewrite child, writes
 * and fsyncs what is left. C_ERR (refusing the shutdown) while the first
 * base after appendonly yes is being written, unless SHUTDOWN_FORCE. */
int aofPrepareForShutdown(int flags);

/* CONFIG SET appendonly (config.c): starts (with a rewrite) or stops the
 * AOF so that the state matches server.aof_enabled. 1, or 0 with *err. */
int aofApplyAppendonly(const char **err);
/* CONFIG SET aof-disable-auto-gc (config.c): set back to no, it removes
 * the history files the manifest kept meanwhile at once, as Valkey does.
 * Always 1. Event loop. */
int aofApplyAutoGc(const char **err);

/* A replica loaded its primary's snapshot (replication.c): with
 * appendonly yes the AOF starts over with a rewrite of the new dataset
 * (retried every second by aofCron if it cannot start). Event loop. */
void aofRestartAfterFullSync(void);

/* The rewrite child and its end (snapshot.c runs the child machinery).
 * aofRewriteChildWrite writes the new base into the temp file of this
 * process; C_OK or C_ERR. Child. */
int aofRewriteChildWrite(void);
/* The rewrite child pid ended: ok, or killed by bysignal. Event loop. */
void aofRewriteDone(pid_t pid, int ok, int bysignal);

/* -MISCONF: the last write or fsync of the AOF failed (the errno in
 * *err). Writes are refused until it works again. */
int aofWriteDenied(int *err);

/* INFO persistence aof_* fields and INFO memory mem_aof_buffer. */
sds aofCatInfo(sds info);
sds aofCatInfoEnabled(sds info);
size_t aofBufferLength(void);

/* WAITAOF (admin.c). Offsets count the AOF's bytes since start-up: the
 * written one includes what is still buffered. aofLocalFsyncAcked is 1
 * when the AOF is on and fsynced up to c->aof_woff. A blocked WAITAOF
 * client joins the waiting list, which aofBeforeSleep() answers (counting
 * replicas' fsyncs at c->woff with replicationCountAofAcks); freeClient
 * must call aofForgetWaitingClient. */
long long aofWrittenOffset(void);
long long aofFsyncedOffset(void);
int aofLocalFsyncAcked(struct client *c);
void aofWaitingClientAdd(struct client *c);
void aofForgetWaitingClient(struct client *c);

/* A replica's side of WAITAOF (replication.c). aofFsyncedReplOffset is
 * the replication offset its AOF has fsynced, sent to the primary as
 * REPLCONF ACK <offset> FACK <that>; -1 while the AOF is off (no FACK, so
 * the primary does not count this replica), 0 until the first base after
 * appendonly yes is written. aofAckWhenFsynced: a GETACK arrived at
 * reploff; one more ACK is sent once the AOF is fsynced up to there. */
long long aofFsyncedReplOffset(void);
void aofAckWhenFsynced(long long reploff);

/* DEBUG LOADAOF (debug.c). */
void debugLoadAofCommand(struct client *c);

void bgrewriteaofCommand(struct client *c);

/* aof_rewrite.c: the whole dataset as commands into r (a base with
 * aof-use-rdb-preamble no). C_OK or C_ERR. */
struct rio;
int aofRewriteCommands(struct rio *r);

/* valkey-check-aof (aof_check.c): the server binary run under that name.
 * Returns the exit status. */
int aofCheckMain(int argc, char **argv);

#endif
