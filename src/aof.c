/* aof.c - the append-only file (appendonly yes).
 *
 * Layout, as Valkey 7+ writes it: everything lives in appenddirname (in
 * dir), named after appendfilename ("appendonly.aof"):
 *
 *   appendonly.aof.1.base.rdb   the dataset when the last rewrite started:
 *                               an RDB file (aof-use-rdb-preamble yes, with
 *                               the aux field aof-base 1) or commands
 *                               (".base.aof", written by aof_rewrite.c);
 *   appendonly.aof.1.incr.aof   the commands executed since, in RESP, with
 *                               SELECT when the database changes and, with
 *                               aof-timestamp-enabled, a "#TS:<unix time>"
 *                               annotation line before the first command
 *                               of each new second (not again at the start
 *                               of a new file within the same second; a
 *                               base of commands opens with one);
 *   appendonly.aof.manifest     one line per file: "file <name> seq <n>
 *                               type <b|i|h>" (base, incr, history), base
 *                               first, incr files in the order they load.
 *                               Always replaced whole (temp file, fsync,
 *                               rename, fsync of the directory). Read by
 *                               aofManifestParse (also valkey-check-aof's),
 *                               which refuses what Valkey refuses (an
 *                               unterminated or too long line, a name that
 *                               is a path, ...) with the line number, and
 *                               an empty file rather than read it as
 *                               listing nothing, which would orphan the
 *                               files the real manifest lists.
 *
 * Writing: the propagation path (propagate.c) feeds every command a unit
 * of execution propagated to aofFeed(), which appends it to a buffer;
 * beforeSleep() writes the buffer before any reply of this iteration goes
 * out (aofBeforeSleep). appendfsync always fsyncs there too; everysec
 * hands an fsync to a background thread at most once a second (and
 * postpones writing up to 2 s while one is still running, as Valkey does);
 * no leaves it to the kernel. A failed write or fsync makes writes
 * refused with -MISCONF until a retry succeeds (aofCron); with always, a
 * failure ends the process, since an acknowledged write could be lost.
 * Each fsync also records the replication offset it made durable: a
 * replica reports it to its primary as REPLCONF ACK ... FACK, which the
 * primary's WAITAOF counts.
 *
 * Rewriting (BGREWRITEAOF, auto-aof-rewrite-*, appendonly yes at run time):
 * the parent opens a new incr file (listed in the manifest at once) and a
 * child forked by snapshot.c's child machinery writes the whole dataset
 * to temp-rewriteaof-bg-<pid>.aof, in the format aof-use-rdb-preamble
 * says when the rewrite starts (a change meanwhile is for the next one).
 * When the child succeeds, that file becomes the next base, named after
 * that format; the old base and the incr files before the new one become
 * history, put in front of the history already listed (newest first, as
 * Valkey writes it), in a new manifest that replaces the old one; only
 * then are the history files removed, unless aof-disable-auto-gc is yes
 * (setting it back to no removes them at once, and so does reading a
 * manifest from disk: start-up, DEBUG LOADAOF). With appendonly no,
 * BGREWRITEAOF writes a base alone and every incr file becomes history.
 * A failed rewrite leaves its incr file listed; after three failures in
 * a row the rewrites the server starts by itself wait 1, 2, 4 ... 60
 * minutes between tries (aofRewriteLimited), BGREWRITEAOF does not.
 * appendonly yes at run time writes commands to a temp incr file while
 * its first rewrite runs (nothing while it waits for another child); if
 * that rewrite fails, the file is removed and a new rewrite started.
 * Sequence numbers go on from the manifest in memory, which is the one on
 * disk after start-up or DEBUG LOADAOF.
 *
 * Loading (start-up with appendonly yes, DEBUG LOADAOF whatever appendonly
 * says, as long as the manifest on disk lists a file): the base (the
 * RDB loader for an RDB, or commands) then each incr file, commands
 * executed by a fake client, each one looked up and its arity checked
 * first (lookupCommandCheckArity: the procedures trust that check, which
 * clients get in processCommand). A truncated last file loads with
 * aof-load-truncated yes (it is truncated to its last complete command);
 * anything else wrong stops the server with Valkey's messages pointing at
 * valkey-check-aof. An AOF of Redis before 7.0 (the single file
 * appendfilename in dir, maybe with an RDB preamble) found at start-up
 * while the directory holds no AOF becomes the base of a new manifest,
 * moved into the directory under its own name (aofUpgradeOldFile).
 *
 * Everything runs in the event loop except aofRewriteChildWrite (the
 * child) and the fsync thread, which only calls fsync/close on what it
 * is handed (a removed file's blocks are freed at that close) and
 * publishes the offset it made durable. */
#include "server.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aof.h"
#include "blocked.h"
#include "config.h"
#include "latency.h"
#include "multi.h"
#include "propagate.h"
#include "rdb.h"
#include "replication.h"
#include "snapshot.h"

int aof_state = AOF_OFF;

/* ---------------------------------------------------------------------------
 * The manifest
 * ------------------------------------------------------------------------- */

/* A manifest line holds at most this many bytes, its '\n' included. */
#define AOF_MANIFEST_MAX_LINE 1024

/* Everything else the AOF keeps. */
static struct {
    aofManifest *manifest;
    int fd;                       /* the incr file appended to, -1 when closed */
    off_t fd_size;                /* its size as written (a short write is truncated back to it) */
    sds buf;                      /* fed, not written yet */
    int selected_db;              /* the database the file's SELECT last chose, -1 none */
    long long last_ts;            /* the last #TS annotation written */
    off_t current_size;           /* base + incr files, as written */
    off_t base_size;              /* current_size after the last rewrite (auto rewrite growth) */
    long long written_offset;     /* bytes written since start (WAITAOF) */
    long long written_reploff;    /* the replication offset those bytes reach (server.primary_repl_offset) */
    long long fsynced_reploff;    /* the replication offset known fsynced: a replica's FACK; -1 with the AOF
                                   * off, 0 until the first base after appendonly yes is written */
    long long fack_wanted;        /* a GETACK came: ACK again once fsynced_reploff reaches this, -1 none */
    long long last_fsync_ms;      /* when the last fsync was started */
    time_t flush_postponed_start; /* everysec: first time a write waited for a running fsync */
    unsigned long delayed_fsync;  /* writes that did not wait for it (INFO aof_delayed_fsync) */
    int last_write_status;        /* C_OK / C_ERR */
    int last_write_errno;
    time_t last_write_error_log;
    int rewrite_scheduled;
    time_t rewrite_time_start;    /* -1 without a rewrite */
    time_t rewrite_time_last;     /* seconds the last rewrite took, -1 none */
    int rewrite_use_rdb_preamble; /* aof-use-rdb-preamble when the running rewrite started: its base's format */
    int last_bgrewrite_status;
    long long stat_rewrites;
    long long rewrites_consecutive_failures;
    int limit_delay_minutes;      /* the rewrite limit's last delay, 0 when not limited (aofRewriteLimited) */
    time_t limit_next_try;        /* when the limited rewrites may run again, 0 none pending */
    int wait_rewrite_temp_incr;   /* AOF_WAIT_REWRITE: the temp incr file is open */
} aof = {.fd = -1, .selected_db = -1, .last_write_status = C_OK, .rewrite_time_start = -1,
         .rewrite_time_last = -1, .last_bgrewrite_status = C_OK, .fsynced_reploff = -1, .fack_wanted = -1};

static aofInfo *aofInfoCreate(sds name, long long seq, char type) {
    aofInfo *ai = zmalloc(sizeof(*ai));
    ai->name = name;
    ai->seq = seq;
    ai->type = type;
    return ai;
}

static void aofInfoFree(void *p) {
    aofInfo *ai = p;
    sdsfree(ai->name);
    zfree(ai);
}

static void *aofInfoDup(void *p) {
    aofInfo *ai = p;
    return aofInfoCreate(sdsdup(ai->name), ai->seq, ai->type);
}

static aofManifest *aofManifestCreate(void) {
    aofManifest *m = zcalloc(sizeof(*m));
    m->incr = listCreate();
    m->history = listCreate();
    listSetFreeMethod(m->incr, aofInfoFree);
    listSetFreeMethod(m->history, aofInfoFree);
    return m;
}

/* See aof.h. */
void aofManifestFree(aofManifest *m) {
    if (m == NULL) return;
    if (m->base) aofInfoFree(m->base);
    listRelease(m->incr);
    listRelease(m->history);
    zfree(m);
}

static void aofInfoListCopy(list *dst, list *src) {
    listIter li;
    listNode *ln;
    listRewind(src, &li);
    while ((ln = listNext(&li))) listAddNodeTail(dst, aofInfoDup(listNodeValue(ln)));
}

static aofManifest *aofManifestDup(aofManifest *m) {
    aofManifest *d = aofManifestCreate();
    d->base = m->base ? aofInfoDup(m->base) : NULL;
    aofInfoListCopy(d->incr, m->incr);
    aofInfoListCopy(d->history, m->history);
    d->base_seq = m->base_seq;
    d->incr_seq = m->incr_seq;
    return d;
}

/* One manifest line; names with spaces or odd bytes are quoted. */
static sds aofInfoCat(sds s, aofInfo *ai) {
    s = sdscat(s, "file ");
    int plain = 1;
    for (size_t j = 0; j < sdslen(ai->name); j++) {
        unsigned char ch = (unsigned char)ai->name[j];
        if (ch <= ' ' || ch >= 127 || ch == '"' || ch == '\'' || ch == '\\') plain = 0;
    }
    s = plain ? sdscatsds(s, ai->name) : sdscatrepr(s, ai->name, sdslen(ai->name));
    return sdscatprintf(s, " seq %lld type %c\n", ai->seq, ai->type);
}

/* See aof.h. */
sds aofManifestToString(aofManifest *m) {
    sds s = sdsempty();
    if (m->base) s = aofInfoCat(s, m->base);
    listIter li;
    listNode *ln;
    listRewind(m->history, &li);
    while ((ln = listNext(&li))) s = aofInfoCat(s, listNodeValue(ln));
    listRewind(m->incr, &li);
    while ((ln = listNext(&li))) s = aofInfoCat(s, listNodeValue(ln));
    return s;
}

/* dir-relative paths of the AOF directory and of a file in it; sds the
 * caller frees. */
static sds aofPath(const char *name) {
    return sdscatfmt(sdsempty(), "%s/%s", server.aof_dirname, name);
}

static sds aofManifestName(void) {
    return sdscatfmt(sdsempty(), "%s.manifest", server.aof_filename);
}

/* Makes renames and creations in the AOF directory durable. */
static void aofFsyncDir(void) {
    int fd = open(server.aof_dirname, O_RDONLY);
    if (fd == -1) return;
    fsync(fd);
    close(fd);
}

/* Valkey's messages for a manifest it refuses. */
#define AOF_MANIFEST_ERR_FORMAT "Invalid AOF manifest file format"
#define AOF_MANIFEST_ERR_PATH "File can't be a path, just a filename"

/* Reads one line of fp, its '\n' included, into buf (size bytes at most).
 * Returns its length; 0 at the end of the file or on a read error
 * (ferror() tells). A line that does not fit is cut there, so that a line
 * too long and a last line without its '\n' both end in another byte. */
static size_t aofManifestReadLine(FILE *fp, char *buf, size_t size) {
    size_t len = 0;
    int ch;
    while (len < size && (ch = getc(fp)) != EOF) {
        buf[len++] = (char)ch;
        if (ch == '\n') break;
    }
    return len;
}

/* 1 when name (len bytes, not empty, without NUL) joined to the AOF
 * directory names a file inside it: no '/' (nor '\\', which Valkey refuses
 * too), and neither "." nor "..". */
static int aofNameIsPlain(const char *name, size_t len) {
    if (memchr(name, '/', len) || memchr(name, '\\', len)) return 0;
    return !(len == 1 && name[0] == '.') && !(len == 2 && name[0] == '.' && name[1] == '.');
}

/* Fills err for line number linenum, whose len bytes are at line. */
static void aofManifestSetError(aofManifestError *err, const char *msg, int linenum, const char *line, size_t len) {
    err->msg = msg;
    err->line = linenum;
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
    int plain = 1;
    for (size_t j = 0; j < len; j++)
        if ((unsigned char)line[j] < ' ' || (unsigned char)line[j] > '~') plain = 0;
    err->text = plain ? sdsnewlen(line, len) : sdscatrepr(sdsempty(), line, len);
}

/* Parses one line, trimmed and not empty, into *ai (whose name the caller
 * frees). Returns NULL when it is a valid entry, else Valkey's message. */
static const char *aofManifestParseLine(sds line, aofInfo *ai) {
    int argc;
    sds *argv = sdssplitargs(line, &argc);
    const char *why = NULL;
    /* Three key/value pairs at least; more are ignored, as Valkey does, for
     * the fields a later version may add. */
    if (argv == NULL || argc < 6 || argc % 2) why = AOF_MANIFEST_ERR_FORMAT;
    for (int j = 0; why == NULL && j < argc; j += 2) {
        sds key = argv[j], val = argv[j + 1];
        size_t vlen = sdslen(val);
        if (!strcasecmp(key, "file")) {
            if (vlen == 0 || memchr(val, '\0', vlen)) why = AOF_MANIFEST_ERR_FORMAT;
            else if (!aofNameIsPlain(val, vlen)) why = AOF_MANIFEST_ERR_PATH;
            sdsfree(ai->name);
            ai->name = sdsdup(val);
        } else if (!strcasecmp(key, "seq")) {
            if (!string2ll(val, vlen, &ai->seq) || ai->seq <= 0) why = AOF_MANIFEST_ERR_FORMAT;
        } else if (!strcasecmp(key, "type")) {
            ai->type = val[0];
        }
    }
    if (why == NULL && (ai->name == NULL || ai->seq <= 0 || ai->type == 0)) why = AOF_MANIFEST_ERR_FORMAT;
    if (argv) sdsfreesplitres(argv, argc);
    return why;
}

/* Adds a parsed entry to m (taking ai->name). Returns NULL, or Valkey's
 * message when it does not fit with the entries before it, or when the
 * line this server would write for it does not fit in a line (a long name
 * of bytes written escaped): a manifest it could not read back. */
static const char *aofManifestAdd(aofManifest *m, aofInfo *ai) {
    sds written = aofInfoCat(sdsempty(), ai);
    size_t wlen = sdslen(written);
    sdsfree(written);
    if (wlen > AOF_MANIFEST_MAX_LINE) return "The AOF manifest file contains too long line";
    if (ai->type == AOF_FILE_BASE) {
        if (m->base) return "Found duplicate base file information";
        m->base = aofInfoCreate(ai->name, ai->seq, ai->type);
        m->base_seq = ai->seq;
    } else if (ai->type == AOF_FILE_HIST) {
        listAddNodeTail(m->history, aofInfoCreate(ai->name, ai->seq, ai->type));
    } else if (ai->type == AOF_FILE_INCR) {
        if (ai->seq <= m->incr_seq) return "Found a non-monotonic sequence number";
        listAddNodeTail(m->incr, aofInfoCreate(ai->name, ai->seq, ai->type));
        m->incr_seq = ai->seq;
    } else {
        return "Unknown AOF file type";
    }
    ai->name = NULL;
    return NULL;
}

/* See aof.h. */
aofManifest *aofManifestParse(FILE *fp, aofManifestError *err) {
    aofManifest *m = aofManifestCreate();
    char buf[AOF_MANIFEST_MAX_LINE];
    int linenum = 0;
    memset(err, 0, sizeof(*err));
    for (;;) {
        size_t len = aofManifestReadLine(fp, buf, sizeof(buf));
        if (len == 0) {
            if (ferror(fp)) err->msg = "Read AOF manifest failed";
            else if (linenum == 0) err->msg = "Found an empty AOF manifest";
            break;
        }
        linenum++;
        if (buf[len - 1] != '\n') {
            aofManifestSetError(err, "The AOF manifest file contains too long line", linenum, buf, len);
            break;
        }
        if (buf[0] == '#') continue;
        const char *why = NULL;
        aofInfo ai = {0};
        sds line = sdstrim(sdsnewlen(buf, len), " \t\r\n");
        if (sdslen(line) == 0 || memchr(line, '\0', sdslen(line))) why = AOF_MANIFEST_ERR_FORMAT;
        if (why == NULL) why = aofManifestParseLine(line, &ai);
        if (why == NULL) why = aofManifestAdd(m, &ai);
        sdsfree(ai.name);
        if (why) aofManifestSetError(err, why, linenum, line, sdslen(line));
        sdsfree(line);
        if (why) break;
    }
    if (err->msg) {
        aofManifestFree(m);
        return NULL;
    }
    return m;
}

/* See aof.h. */
void aofManifestErrorLog(aofManifestError *err) {
    serverLog(LL_WARNING, "\n*** FATAL AOF MANIFEST FILE ERROR ***\n");
    if (err->line) {
        serverLog(LL_WARNING, "Reading the manifest file, at line %d\n", err->line);
        serverLog(LL_WARNING, ">>> '%s'\n", err->text);
    }
    serverLog(LL_WARNING, "%s\n", err->msg);
    sdsfree(err->text);
    err->text = NULL;
}

/* Reads the manifest of the AOF directory into aof.manifest; an empty one
 * when there is no manifest file (a first start, or a single-file AOF of
 * Redis before 7.0 to upgrade). Returns C_OK, or C_ERR when it cannot be
 * read or Valkey would refuse it (logged as Valkey logs it; aof.manifest is
 * left as it was): the caller must not go on with an empty manifest in its
 * place, which would orphan the files the real one lists. Event loop. */
static int aofLoadManifestFromDisk(void) {
    aofManifest *m = NULL;
    sds name = aofManifestName();
    sds path = aofPath(name);
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        if (errno == ENOENT) m = aofManifestCreate();
        else serverLog(LL_WARNING, "Fatal error: can't open the AOF manifest file %s for reading: %s", path,
                       strerror(errno));
    } else {
        aofManifestError err;
        m = aofManifestParse(fp, &err);
        fclose(fp);
        if (m == NULL) aofManifestErrorLog(&err);
    }
    sdsfree(name);
    sdsfree(path);
    if (m == NULL) return C_ERR;
    aofManifestFree(aof.manifest);
    aof.manifest = m;
    return C_OK;
}

/* Replaces the manifest on disk with m. C_OK or C_ERR (logged). */
static int aofManifestPersist(aofManifest *m) {
    sds name = aofManifestName();
    sds tmpname = sdscatfmt(sdsempty(), "temp-%s", name);
    sds path = aofPath(name), tmppath = aofPath(tmpname);
    sds text = aofManifestToString(m);
    int ret = C_ERR;
    int fd = open(tmppath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd == -1) {
        serverLog(LL_WARNING, "Can't open the AOF manifest file %s: %s", tmpname, strerror(errno));
        goto done;
    }
    ssize_t n = write(fd, text, sdslen(text));
    if (n != (ssize_t)sdslen(text) || fsync(fd) == -1) {
        serverLog(LL_WARNING, "Error trying to write the temporary AOF manifest file %s: %s", tmpname,
                  n == -1 || n == (ssize_t)sdslen(text) ? strerror(errno) : "short write");
        close(fd);
        unlink(tmppath);
        goto done;
    }
    close(fd);
    if (rename(tmppath, path) == -1) {
        serverLog(LL_WARNING, "Error trying to rename the temporary AOF manifest file %s into %s: %s", tmpname, name,
                  strerror(errno));
        unlink(tmppath);
        goto done;
    }
    aofFsyncDir();
    ret = C_OK;
done:
    sdsfree(text);
    sdsfree(name);
    sdsfree(tmpname);
    sdsfree(path);
    sdsfree(tmppath);
    return ret;
}

/* Names of the next base and incr files ("appendonly.aof.2.base.rdb"):
 * a base's suffix says its format, rdb_format as the writer used it. */
static sds aofNewBaseName(aofManifest *m, int rdb_format) {
    return sdscatprintf(sdsempty(), "%s.%lld.base.%s", server.aof_filename, m->base_seq + 1,
                        rdb_format ? "rdb" : "aof");
}

static sds aofNewIncrName(aofManifest *m) {
    return sdscatprintf(sdsempty(), "%s.%lld.incr.aof", server.aof_filename, m->incr_seq + 1);
}

/* The file appendonly yes at run time appends to until the first rewrite
 * is done (it then gets an incr name). */
static sds aofTempIncrName(void) {
    return sdscatfmt(sdsempty(), "temp-%s.incr", server.aof_filename);
}

/* Installs name as the base of m; the old base goes to history. History
 * is kept newest first, as Valkey writes it: what a rewrite retires is
 * put in front of what earlier rewrites retired (aof-disable-auto-gc yes
 * keeps them all). */
static void aofManifestSetBase(aofManifest *m, sds name) {
    if (m->base) {
        m->base->type = AOF_FILE_HIST;
        listAddNodeHead(m->history, m->base);
    }
    m->base = aofInfoCreate(name, ++m->base_seq, AOF_FILE_BASE);
}

static aofInfo *aofManifestAddIncr(aofManifest *m, sds name) {
    aofInfo *ai = aofInfoCreate(name, ++m->incr_seq, AOF_FILE_INCR);
    listAddNodeTail(m->incr, ai);
    return ai;
}

/* After a rewrite the incr files its base covers become history: all of
 * them but the last one, which is being appended to, or all of them when
 * keep_last is 0 (appendonly no: no incr file is current). They go in
 * front of the history in their own order, after the base that
 * aofManifestSetBase() retired just before. */
static void aofManifestRetireIncr(aofManifest *m, int keep_last) {
    listNode *ln = listLast(m->incr);
    if (keep_last && ln) ln = listPrevNode(ln);
    while (ln) {
        listNode *prev = listPrevNode(ln);
        aofInfo *ai = aofInfoDup(listNodeValue(ln));
        ai->type = AOF_FILE_HIST;
        listAddNodeHead(m->history, ai);
        listDelNode(m->incr, ln);
        ln = prev;
    }
}

/* Creates appenddirname if missing. C_OK or C_ERR (logged). */
static int aofCreateDir(void) {
    if (mkdir(server.aof_dirname, 0755) == -1 && errno != EEXIST) {
        serverLog(LL_WARNING, "Can't open or create append-only dir %s: %s", server.aof_dirname, strerror(errno));
        return C_ERR;
    }
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * The background fsync thread (appendfsync everysec, closing old files)
 * ------------------------------------------------------------------------- */

#define AOF_JOB_FSYNC 1
#define AOF_JOB_CLOSE 2          /* fsync then close */
#define AOF_JOB_CLOSE_UNLINKED 3 /* close a file the event loop unlinked (aofUnlinkInBackground) */

typedef struct aofJob {
    struct aofJob *next;
    int type;
    int fd;
    long long offset; /* AOF_JOB_FSYNC: written_offset it makes durable */
    long long reploff; /* AOF_JOB_FSYNC: the replication offset that reaches */
} aofJob;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    aofJob *head, *tail;
    int started;
} aofbio = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0};

/* Shared with the thread (atomics). aof_fsynced_reploff_pending is what
 * the last fsync made durable in replication offsets; the event loop
 * publishes it as aof.fsynced_reploff while the AOF is on. */
static unsigned long aof_fsync_pending;
static long long aof_fsynced_offset;
static long long aof_fsynced_reploff_pending;
static int aof_fsync_status = C_OK, aof_fsync_errno;

static void aofRunJob(aofJob *job) {
    if (job->type == AOF_JOB_FSYNC || job->type == AOF_JOB_CLOSE) {
        if (fdatasync(job->fd) == -1 && errno != EBADF && errno != EINVAL) {
            __atomic_store_n(&aof_fsync_errno, errno, __ATOMIC_RELAXED);
            __atomic_store_n(&aof_fsync_status, C_ERR, __ATOMIC_RELEASE);
        } else if (job->type == AOF_JOB_FSYNC) {
            __atomic_store_n(&aof_fsync_status, C_OK, __ATOMIC_RELEASE);
            long long cur = __atomic_load_n(&aof_fsynced_offset, __ATOMIC_RELAXED);
            if (job->offset > cur) __atomic_store_n(&aof_fsynced_offset, job->offset, __ATOMIC_RELEASE);
            /* Jobs run in order, so a later one never has a lower reploff;
             * the event loop resets it only with no fsync queued. */
            __atomic_store_n(&aof_fsynced_reploff_pending, job->reploff, __ATOMIC_RELEASE);
        }
        if (job->type == AOF_JOB_CLOSE) close(job->fd);
        if (job->type == AOF_JOB_FSYNC) __atomic_sub_fetch(&aof_fsync_pending, 1, __ATOMIC_RELEASE);
    } else if (job->type == AOF_JOB_CLOSE_UNLINKED) {
        close(job->fd); /* the last reference: the file's blocks are freed here */
    }
    zfree(job);
}

static void *aofThreadMain(void *arg) {
    (void)arg;
    setCpuAffinity(server.bio_cpulist);
    while (1) {
        pthread_mutex_lock(&aofbio.lock);
        while (aofbio.head == NULL) pthread_cond_wait(&aofbio.wake, &aofbio.lock);
        aofJob *job = aofbio.head;
        aofbio.head = job->next;
        if (aofbio.head == NULL) aofbio.tail = NULL;
        pthread_mutex_unlock(&aofbio.lock);
        aofRunJob(job);
    }
    return NULL;
}

/* Starts the thread ("bio_aof") with the process signals blocked, as
 * lazyfree.c does. 1 if it runs; otherwise jobs run inline. */
static int aofStartThread(void) {
    if (aofbio.started) return aofbio.started == 1;
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    sigset_t mask, old;
    sigfillset(&mask);
    for (size_t j = 0; j < sizeof(faults) / sizeof(faults[0]); j++) sigdelset(&mask, faults[j]);
    pthread_sigmask(SIG_SETMASK, &mask, &old);
    pthread_t tid;
    int err = pthread_create(&tid, NULL, aofThreadMain, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        serverLog(LL_WARNING, "Could not start the AOF fsync thread (%s): fsyncs run inline", strerror(err));
        aofbio.started = 2;
        return 0;
    }
    pthread_setname_np(tid, "bio_aof");
    aofbio.started = 1;
    return 1;
}

static void aofSubmitJob(int type, int fd, long long offset) {
    aofJob *job = zcalloc(sizeof(*job));
    job->type = type;
    job->fd = fd;
    job->offset = offset;
    job->reploff = aof.written_reploff;
    if (type == AOF_JOB_FSYNC) __atomic_add_fetch(&aof_fsync_pending, 1, __ATOMIC_RELEASE);
    if (!aofStartThread()) {
        aofRunJob(job);
        return;
    }
    pthread_mutex_lock(&aofbio.lock);
    if (aofbio.tail) aofbio.tail->next = job;
    else aofbio.head = job;
    aofbio.tail = job;
    pthread_cond_signal(&aofbio.wake);
    pthread_mutex_unlock(&aofbio.lock);
}

static unsigned long aofFsyncInProgress(void) {
    return __atomic_load_n(&aof_fsync_pending, __ATOMIC_ACQUIRE);
}

/* Waits until no fsync is queued or running (the AOF starts over and its
 * fsynced replication offset is reset: an old fsync must not land after). */
static void aofDrainFsyncs(void) {
    while (aofFsyncInProgress()) usleep(1000);
}

/* Removes the file path (in the AOF directory) at once, so that a file
 * created under the same name right after is not the one removed, and
 * leaves the costly part, freeing its blocks at the last close, to the
 * thread: the file is opened before it is unlinked and that descriptor
 * closed there, as Valkey's bg_unlink does. Takes path. Event loop. */
static void aofUnlinkInBackground(sds path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (unlink(path) == -1 && errno != ENOENT)
        serverLog(LL_WARNING, "Can't remove the AOF file %s: %s", path, strerror(errno));
    if (fd != -1) aofSubmitJob(AOF_JOB_CLOSE_UNLINKED, fd, 0);
    sdsfree(path);
}

/* ---------------------------------------------------------------------------
 * Feeding and writing
 * ------------------------------------------------------------------------- */

static list *aof_waiting; /* WAITAOF clients blocked for fsyncs */
static void aofServeWaitingClients(void);
static void aofPublishFsyncedReploff(void);

/* See aof.h. Commands are collected while AOF_ON, and while the first
 * rewrite runs after appendonly yes (it then goes to the temp incr file;
 * before the child exists the base will contain it). */
void aofFeed(int dbid, robj **argv, int argc) {
    if (aof_state == AOF_OFF) return;
    if (aof_state == AOF_WAIT_REWRITE && !aof.wait_rewrite_temp_incr) return;
    if (aof.buf == NULL) aof.buf = sdsempty();
    /* A "#TS:" line when the second moved on since the last one written
     * (in whichever file): never twice the same, never going back. */
    if (server.aof_timestamp_enabled && (long long)server.unixtime > aof.last_ts) {
        aof.last_ts = (long long)server.unixtime;
        aof.buf = sdscatprintf(aof.buf, "#TS:%lld\r\n", aof.last_ts);
    }
    /* Room for all of it is made once and the bytes written in place:
     * this runs for every write command. */
    int select_db = dbid >= 0 && dbid != aof.selected_db ? dbid : -1;
    aof.buf = sdsMakeRoomFor(aof.buf, propagateCommandMaxLen(argv, argc));
    char *start = aof.buf + sdslen(aof.buf);
    char *end = propagateWriteCommand(start, start + sdsavail(aof.buf), select_db, argv, argc);
    sdsIncrLen(aof.buf, end - start);
    if (select_db >= 0) aof.selected_db = dbid;
}

/* See aof.h. */
size_t aofBufferLength(void) {
    return aof.buf ? sdslen(aof.buf) : 0;
}

/* Writes all of buf (retrying on EINTR and partial writes); the bytes
 * written, which is less than len after an error (errno set). */
static ssize_t aofWriteAll(int fd, const char *buf, size_t len) {
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, buf + done, len - done);
        if (n == -1) {
            if (errno == EINTR) continue;
            break;
        }
        if (n == 0) {
            errno = ENOSPC;
            break;
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}

/* A write failed (n bytes of the buffer went out). With appendfsync
 * always the server cannot go on: an acknowledged write might be lost.
 * Otherwise what went out is dropped from the buffer (or truncated away
 * when it is a part of a command), the error is remembered for -MISCONF
 * and logged at most every 30 seconds. */
static void aofHandleWriteError(ssize_t n, int err) {
    if (server.aof_fsync == AOF_FSYNC_ALWAYS) {
        serverLog(LL_WARNING, "Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...");
        exit(1);
    }
    if (n > 0) {
        /* Keep the file ending at a command boundary when possible. */
        if (ftruncate(aof.fd, aof.fd_size) == 0) {
            n = -1;
        } else {
            serverLog(LL_WARNING, "Could not remove short write from the append-only file.  Valkey may refuse to "
                                  "load the AOF the next time it starts.  ftruncate: %s", strerror(errno));
            aof.current_size += n;
            aof.fd_size += n;
            aof.written_offset += n;
            sdsrange(aof.buf, n, -1);
        }
    }
    aof.last_write_status = C_ERR;
    aof.last_write_errno = err;
    if (server.unixtime - aof.last_write_error_log > 30) {
        aof.last_write_error_log = server.unixtime;
        if (n == -1 || n == 0)
            serverLog(LL_WARNING, "Error writing to the AOF file: %s", strerror(err));
        else
            serverLog(LL_WARNING, "Short write while writing to the AOF file: (nwritten=%lld, expected=%lld)",
                      (long long)n, (long long)sdslen(aof.buf));
    }
}

/* Starts (everysec) or performs (always) the fsync the policy asks for
 * after a write. */
static void aofFsyncAfterWrite(void) {
    if (server.aof_no_fsync_on_rewrite && hasActiveChildProcess()) return;
    if (server.aof_fsync == AOF_FSYNC_ALWAYS) {
        long long start = ustime();
        if (fdatasync(aof.fd) == -1) {
            serverLog(LL_WARNING, "Can't persist AOF for fsync error when the AOF fsync policy is 'always': %s. "
                                  "Exiting...", strerror(errno));
            exit(1);
        }
        latencyAddSampleIfNeeded("aof-fsync-always", (ustime() - start) / 1000);
        __atomic_store_n(&aof_fsynced_offset, aof.written_offset, __ATOMIC_RELEASE);
        __atomic_store_n(&aof_fsynced_reploff_pending, aof.written_reploff, __ATOMIC_RELEASE);
        aof.last_fsync_ms = server.mstime;
    } else if (server.aof_fsync == AOF_FSYNC_EVERYSEC && server.mstime - aof.last_fsync_ms >= 1000 &&
               !aofFsyncInProgress()) {
        aofSubmitJob(AOF_JOB_FSYNC, aof.fd, aof.written_offset);
        aof.last_fsync_ms = server.mstime;
    }
}

/* Nothing to write. An fsync still owed is done now: by everysec when the
 * writes stopped within the second, by always when the policy just
 * changed to it. With everything fsynced, the replication offset reached
 * so far counts as fsynced: stream bytes that never reach the AOF (PINGs,
 * GETACKs) must not hold a replica's FACK back. */
static void aofFsyncIdle(void) {
    if (server.aof_fsync == AOF_FSYNC_NO || aofFsyncInProgress()) return;
    if (server.aof_no_fsync_on_rewrite && hasActiveChildProcess()) return;
    if (aofFsyncedOffset() < aof.written_offset) {
        if (server.aof_fsync == AOF_FSYNC_ALWAYS || server.mstime - aof.last_fsync_ms >= 1000) aofFsyncAfterWrite();
        return;
    }
    __atomic_store_n(&aof_fsynced_reploff_pending, server.primary_repl_offset, __ATOMIC_RELEASE);
}

/* Writes the buffer to the incr file. With force 0 and everysec, a write
 * waits (up to 2 s) for an fsync still running in the background, since
 * write(2) would block behind it anyway. */
static void aofFlush(int force) {
    if (aof.fd == -1) return;
    if (aof.buf == NULL || sdslen(aof.buf) == 0) {
        aofFsyncIdle();
        return;
    }
    if (server.aof_fsync == AOF_FSYNC_EVERYSEC && !force && aofFsyncInProgress()) {
        if (aof.flush_postponed_start == 0) {
            aof.flush_postponed_start = server.unixtime;
            return;
        }
        if (server.unixtime - aof.flush_postponed_start < 2) return;
        aof.delayed_fsync++;
        serverLog(LL_NOTICE, "Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer "
                             "without waiting for fsync to complete, this may slow down Valkey.");
    }
    aof.flush_postponed_start = 0;
    long long start = ustime();
    ssize_t n = aofWriteAll(aof.fd, aof.buf, sdslen(aof.buf));
    int err = errno;
    latencyAddSampleIfNeeded("aof-write", (ustime() - start) / 1000);
    if (n != (ssize_t)sdslen(aof.buf)) {
        aofHandleWriteError(n, err);
        return;
    }
    if (aof.last_write_status == C_ERR) {
        serverLog(LL_WARNING, "AOF write error looks solved, Valkey can write again.");
        aof.last_write_status = C_OK;
    }
    aof.current_size += n;
    aof.fd_size += n;
    aof.written_offset += n;
    aof.written_reploff = server.primary_repl_offset; /* every command fed so far is in the file */
    if (sdsalloc(aof.buf) < 4000) {
        sdsclear(aof.buf);
    } else {
        sdsfree(aof.buf);
        aof.buf = NULL;
    }
    aofFsyncAfterWrite();
}

/* See aof.h. Called before the replies of this iteration are written,
 * so that with always nothing is acknowledged before it is on disk. */
void aofBeforeSleep(void) {
    if (aof_state != AOF_OFF) aofFlush(0);
    if (aof_state == AOF_ON) aofPublishFsyncedReploff();
    if (aof_waiting && listLength(aof_waiting)) aofServeWaitingClients();
}

/* The fsynced replication offset the last fsync reached becomes the one a
 * replica reports (not while the first base is written: until it is, the
 * AOF does not hold the dataset). A GETACK waiting for it is answered
 * with one more ACK now, so that a primary's WAITAOF need not wait for the
 * next second's ACK. */
static void aofPublishFsyncedReploff(void) {
    aof.fsynced_reploff = __atomic_load_n(&aof_fsynced_reploff_pending, __ATOMIC_ACQUIRE);
    if (aof.fack_wanted != -1 && aof.fsynced_reploff >= aof.fack_wanted) {
        aof.fack_wanted = -1;
        replicationSendAck();
    }
}

/* See aof.h. */
long long aofFsyncedReplOffset(void) {
    return aof.fsynced_reploff;
}

/* See aof.h. */
void aofAckWhenFsynced(long long reploff) {
    if (aof_state == AOF_OFF || server.aof_fsync == AOF_FSYNC_NO || aof.fsynced_reploff >= reploff) return;
    if (reploff > aof.fack_wanted) aof.fack_wanted = reploff;
}

/* See aof.h. */
int aofWriteDenied(int *err) {
    if (aof_state == AOF_OFF) return 0;
    if (aof.last_write_status == C_ERR) {
        *err = aof.last_write_errno;
        return 1;
    }
    if (__atomic_load_n(&aof_fsync_status, __ATOMIC_ACQUIRE) == C_ERR) {
        *err = __atomic_load_n(&aof_fsync_errno, __ATOMIC_RELAXED);
        return 1;
    }
    return 0;
}

/* See aof.h. */
long long aofWrittenOffset(void) {
    return aof.written_offset + (long long)aofBufferLength();
}

long long aofFsyncedOffset(void) {
    return __atomic_load_n(&aof_fsynced_offset, __ATOMIC_ACQUIRE);
}

/* See aof.h. */
int aofLocalFsyncAcked(client *c) {
    return aof_state == AOF_ON && aofFsyncedOffset() >= c->aof_woff;
}


/* See aof.h. */
void aofWaitingClientAdd(client *c) {
    if (aof_waiting == NULL) aof_waiting = listCreate();
    listAddNodeTail(aof_waiting, c);
}

/* See aof.h. */
void aofForgetWaitingClient(client *c) {
    listNode *ln;
    while (aof_waiting && (ln = listSearchKey(aof_waiting, c))) listDelNode(aof_waiting, ln);
}

/* Answers the WAITAOF clients whose writes are fsynced now, locally and
 * by enough replicas (their REPLCONF ACK ... FACK), and with Valkey's
 * error those waiting for a local fsync when appendonly was turned off. */
static void aofServeWaitingClients(void) {
    listIter li;
    listNode *ln;
    listRewind(aof_waiting, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (!(c->flags & CLIENT_BLOCKED) || c->bstate == NULL || c->bstate->btype != BLOCKED_WAITAOF) {
            listDelNode(aof_waiting, ln); /* timed out or unblocked meanwhile */
            continue;
        }
        long long numlocal = 0, numreplicas = 0;
        getLongLongFromObject(c->argv[1], &numlocal);
        getLongLongFromObject(c->argv[2], &numreplicas);
        if (numlocal > 0 && !server.aof_enabled) {
            listDelNode(aof_waiting, ln);
            unblockClient(c, 0);
            addReplyError(c, "WAITAOF cannot be used when numlocal is set but appendonly is disabled.");
            continue;
        }
        if (numlocal > 0 && !aofLocalFsyncAcked(c)) continue;
        if (numreplicas > 0 && replicationCountAofAcks(c->woff) < numreplicas) continue;
        listDelNode(aof_waiting, ln);
        unblockClient(c, 1); /* replies the counts, as at a timeout */
    }
}

/* Hands the incr file's fd to the thread to fsync and close (it may still
 * have an fsync queued). */
static void aofCloseFd(void) {
    if (aof.fd == -1) return;
    aofSubmitJob(AOF_JOB_CLOSE, aof.fd, 0);
    aof.fd = -1;
}

/* ---------------------------------------------------------------------------
 * Loading
 * ------------------------------------------------------------------------- */

/* A buffered reader of one file: the command parser reads lines and exact
 * byte counts; pos is the file offset of the next unread byte. */
typedef struct aofReader {
    int fd;
    char *buf;
    size_t len, next;
    off_t pos;     /* file offset of buf[next] */
    off_t base;    /* bytes of the AOF loaded before this file (progress) */
    off_t cmd_start; /* file offset of the command parsed last ("*<argc>") */
} aofReader;

#define AOF_READ_BUF (128 * 1024)

/* Makes at least need bytes available (fewer at the end of the file).
 * Returns the bytes available. */
static size_t aofReaderFill(aofReader *r, size_t need) {
    size_t avail = r->len - r->next;
    if (avail >= need) return avail;
    memmove(r->buf, r->buf + r->next, avail);
    r->len = avail;
    r->next = 0;
    while (r->len < need) {
        ssize_t n = read(r->fd, r->buf + r->len, AOF_READ_BUF - r->len);
        if (n == -1 && errno == EINTR) continue;
        if (n <= 0) break;
        r->len += (size_t)n;
    }
    return r->len;
}

/* Reads a "\r\n"-terminated line of at most 128 bytes into line (NUL
 * terminated, without the CRLF). 1, or 0 at EOF / short read, -1 when the
 * line is too long or not CRLF terminated. */
static int aofReadLine(aofReader *r, char *line, size_t size) {
    size_t avail = aofReaderFill(r, size + 2);
    char *start = r->buf + r->next;
    char *nl = memchr(start, '\n', avail);
    if (nl == NULL) return avail >= size + 2 ? -1 : 0;
    size_t len = (size_t)(nl - start) + 1;
    if (len < 2 || start[len - 2] != '\r') return -1;
    memcpy(line, start, len - 2);
    line[len - 2] = '\0';
    r->next += len;
    r->pos += (off_t)len;
    return 1;
}

/* Reads an argument of len bytes and its CRLF into a new string object.
 * NULL on a short read; *bad is set when the CRLF is missing. */
static robj *aofReadArg(aofReader *r, long long len, int *bad) {
    sds s = sdsnewlen(NULL, (size_t)len);
    size_t got = 0;
    while (got < (size_t)len) {
        size_t avail = aofReaderFill(r, 1);
        if (avail == 0) {
            sdsfree(s);
            return NULL;
        }
        size_t take = avail < (size_t)len - got ? avail : (size_t)len - got;
        memcpy(s + got, r->buf + r->next, take);
        r->next += take;
        r->pos += (off_t)take;
        got += take;
    }
    if (aofReaderFill(r, 2) < 2) {
        sdsfree(s);
        return NULL;
    }
    if (r->buf[r->next] != '\r' || r->buf[r->next + 1] != '\n') {
        *bad = 1;
        sdsfree(s);
        return NULL;
    }
    r->next += 2;
    r->pos += 2;
    return createObject(OBJ_STRING, s);
}

/* Loading progress and client service (snapshot.c), from the base's RDB. */
static off_t aof_rdb_base_offset;
static void aofRdbLoadProgress(rio *r, size_t len) {
    (void)len;
    snapshotLoadingAdvance(aof_rdb_base_offset + (off_t)r->processed_bytes);
}

static client *aofCreateFakeClient(void) {
    client *c = createClient(NULL);
    c->authenticated = 1; /* fake clients never block (blockingDenied) */
    return c;
}

static void aofFreeFakeClient(client *c) {
    freeClientArgv(c);
    if (c->flags & CLIENT_MULTI) discardTransaction(c);
    freeClient(c);
}

/* Result of parsing: 1 a command is in the fake client, 0 clean end of
 * file, -1 short read (truncated), -2 bad format. */
static int aofParseCommand(aofReader *r, client *fc) {
    char line[130];
    int ok;
    for (;;) {
        r->cmd_start = r->pos;
        ok = aofReadLine(r, line, 128);
        if (ok == 0) return r->len - r->next == 0 ? 0 : -1;
        if (ok < 0) return -2;
        if (line[0] != '#') break; /* annotations ("#TS:...") are skipped */
    }
    long long argc;
    if (line[0] != '*' || !string2ll(line + 1, strlen(line + 1), &argc) || argc < 1 || argc > INT_MAX / 2)
        return -2;
    /* The vector grows as arguments arrive, so that a damaged count such
     * as "*1000000000" costs no more memory than the file holds. */
    fc->argv_len = argc < 1024 ? (int)argc : 1024;
    fc->argv = zmalloc(sizeof(robj *) * (size_t)fc->argv_len);
    fc->argc = 0;
    for (long long j = 0; j < argc; j++) {
        long long len;
        if (fc->argc == fc->argv_len) {
            fc->argv_len = argc - fc->argc < fc->argv_len ? (int)argc : fc->argv_len * 2;
            fc->argv = zrealloc(fc->argv, sizeof(robj *) * (size_t)fc->argv_len);
        }
        ok = aofReadLine(r, line, 128);
        if (ok <= 0) return ok == 0 ? -1 : -2;
        if (line[0] != '$' || !string2ll(line + 1, strlen(line + 1), &len) || len < 0 ||
            len > server.proto_max_bulk_len)
            return -2;
        int bad = 0;
        robj *arg = aofReadArg(r, len, &bad);
        if (arg == NULL) return bad ? -2 : -1;
        fc->argv[fc->argc++] = arg;
    }
    return 1;
}

/* Logs the unusable end of filename and decides: C_OK when it may be
 * truncated away (the last file, aof-load-truncated yes), else C_ERR. */
static int aofHandleTruncated(const char *filename, const char *path, off_t valid_up_to, int last_file) {
    if (server.aof_load_truncated && last_file) {
        serverLog(LL_WARNING, "!!! Warning: short read while loading the AOF file %s!!!", filename);
        serverLog(LL_WARNING, "!!! Truncating the AOF %s at offset %lld !!!", filename, (long long)valid_up_to);
        if (truncate(path, valid_up_to) == -1) {
            serverLog(LL_WARNING, "Error truncating the AOF file %s: %s", filename, strerror(errno));
        } else {
            serverLog(LL_WARNING, "AOF %s loaded anyway because aof-load-truncated is enabled", filename);
            return C_OK;
        }
    } else if (!last_file) {
        serverLog(LL_WARNING, "Fatal error: the truncated file is not the last file");
        return C_ERR;
    }
    serverLog(LL_WARNING, "Unexpected end of file reading the append only file %s. You can: 1) Make a backup of "
                          "your AOF file, then use ./valkey-check-aof --fix <filename.manifest>. 2) Alternatively "
                          "you can set the 'aof-load-truncated' configuration option to yes and restart the server.",
              filename);
    return C_ERR;
}

/* The command in fc, parsed from filename by r: its command, or NULL
 * when it is unknown or has a wrong number of arguments (logged with its
 * offset), which no command procedure may see. */
static struct serverCommand *aofLookupCommand(client *fc, aofReader *r, const char *filename) {
    struct serverCommand *cmd;
    int res = lookupCommandCheckArity(fc->argv, fc->argc, &cmd);
    if (res == CMD_LOOKUP_OK) return cmd;
    sds name = objectGetVal(fc->argv[0]);
    size_t len = sdslen(name) > 128 ? 128 : sdslen(name);
    int plain = 1;
    for (size_t j = 0; j < len; j++)
        if ((unsigned char)name[j] < ' ' || (unsigned char)name[j] > '~') plain = 0;
    sds shown = plain ? sdsnewlen(name, len) : sdscatrepr(sdsempty(), name, len);
    if (res == CMD_LOOKUP_UNKNOWN)
        serverLog(LL_WARNING, "Unknown command '%s' reading the append only file %s", shown, filename);
    else
        serverLog(LL_WARNING, "Wrong number of arguments for '%s' command reading the append only file %s",
                  cmd->fullname, filename);
    serverLog(LL_WARNING, "The command is at offset %lld of the append only file %s: AOF loading aborted",
              (long long)r->cmd_start, filename);
    sdsfree(shown);
    return NULL;
}

/* Executes the commands of one file from the reader's position. Returns
 * AOF_OK, AOF_TRUNCATED or AOF_FAILED (logged). */
static int aofLoadCommands(aofReader *r, const char *filename, const char *path, int last_file) {
    client *fc = aofCreateFakeClient();
    off_t valid_up_to = r->pos, valid_before_multi = r->pos;
    unsigned long count = 0;
    int ret = AOF_OK, res;
    while ((res = aofParseCommand(r, fc)) == 1) {
        struct serverCommand *cmd = aofLookupCommand(fc, r, filename);
        if (cmd == NULL) {
            freeClientArgv(fc);
            aofFreeFakeClient(fc);
            return AOF_FAILED;
        }
        if (!strcasecmp(cmd->name, "multi")) valid_before_multi = valid_up_to;
        fc->cmd = fc->lastcmd = fc->realcmd = cmd;
        if ((fc->flags & CLIENT_MULTI) && !multiCommandSkipsQueue(cmd)) {
            queueMultiCommand(fc);
        } else {
            call(fc, CALL_NONE);
        }
        freeClientArgv(fc);
        valid_up_to = r->pos;
        if ((++count & 63) == 0) snapshotLoadingAdvance(r->base + r->pos);
    }
    freeClientArgv(fc);
    if (res == 0 && (fc->flags & CLIENT_MULTI)) {
        serverLog(LL_WARNING, "Revert incomplete MULTI/EXEC transaction in AOF file %s", filename);
        valid_up_to = valid_before_multi;
        res = -1;
    }
    if (res == -1) {
        ret = aofHandleTruncated(filename, path, valid_up_to, last_file) == C_OK ? AOF_TRUNCATED : AOF_FAILED;
        if (ret == AOF_TRUNCATED && (fc->flags & CLIENT_MULTI)) discardTransaction(fc);
    } else if (res == -2) {
        serverLog(LL_WARNING, "Bad file format reading the append only file %s: make a backup of your AOF file, "
                              "then use ./valkey-check-aof --fix <filename.manifest>", filename);
        ret = AOF_FAILED;
    }
    aofFreeFakeClient(fc);
    return ret;
}

/* Loads one file of the AOF: an RDB preamble if it starts with "REDIS",
 * then commands. loaded_before: bytes of earlier files (progress).
 * Returns AOF_OK, AOF_EMPTY, AOF_TRUNCATED, AOF_NOT_EXIST, AOF_OPEN_ERR or
 * AOF_FAILED (logged). */
static int aofLoadFile(const char *filename, off_t loaded_before, int last_file) {
    sds path = aofPath(filename);
    int ret = AOF_OK;
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd == -1) {
        ret = errno == ENOENT ? AOF_NOT_EXIST : AOF_OPEN_ERR;
        serverLog(LL_WARNING, "Fatal error: can't open the append log file %s for reading: %s", filename,
                  strerror(errno));
        sdsfree(path);
        return ret;
    }
    if (fstat(fd, &st) == 0 && st.st_size == 0) {
        close(fd);
        sdsfree(path);
        return AOF_EMPTY;
    }
    aofReader r = {.fd = fd, .buf = zmalloc(AOF_READ_BUF), .base = loaded_before};
    if (aofReaderFill(&r, 5) >= 5 && memcmp(r.buf, "REDIS", 5) == 0) {
        /* An RDB: the base of aof-use-rdb-preamble yes. */
        serverLog(LL_NOTICE, "Reading RDB base file on AOF loading...");
        lseek(fd, 0, SEEK_SET);
        rio rdb;
        rioInitFdReader(&rdb, fd);
        aof_rdb_base_offset = loaded_before;
        rdb.progress = aofRdbLoadProgress;
        int ok = rdbLoadRioWithFlags(&rdb, RDBFLAGS_EXIT_ON_ERROR); /* a failed load ends the process */
        off_t end = (off_t)rdb.processed_bytes;
        rioRelease(&rdb);
        if (ok != C_OK) {
            serverLog(LL_WARNING, "Error reading the RDB base file %s, AOF loading aborted", filename);
            ret = AOF_FAILED;
            goto done;
        }
        serverLog(LL_NOTICE, "Reading the remaining AOF tail...");
        lseek(fd, end, SEEK_SET);
        r.len = r.next = 0;
        r.pos = end;
    }
    ret = aofLoadCommands(&r, filename, path, last_file);
done:
    zfree(r.buf);
    close(fd);
    sdsfree(path);
    return ret;
}

/* Size of a file in the AOF directory, 0 if it cannot be stat'ed. */
static off_t aofFileSize(const char *name) {
    sds path = aofPath(name);
    struct stat st;
    off_t size = stat(path, &st) == 0 ? st.st_size : 0;
    sdsfree(path);
    return size;
}

static off_t aofManifestTotalSize(aofManifest *m) {
    off_t total = m->base ? aofFileSize(m->base->name) : 0;
    listIter li;
    listNode *ln;
    listRewind(m->incr, &li);
    while ((ln = listNext(&li))) total += aofFileSize(((aofInfo *)listNodeValue(ln))->name);
    return total;
}

/* Loads every file the manifest lists, base first. Returns AOF_OK,
 * AOF_NOT_EXIST (no file listed), AOF_EMPTY (all empty), AOF_TRUNCATED
 * (loaded, the last file truncated), AOF_OPEN_ERR or AOF_FAILED. */
static int aofLoadFiles(aofManifest *m) {
    int total_files = (m->base ? 1 : 0) + (int)listLength(m->incr);
    if (total_files == 0) return AOF_NOT_EXIST;
    off_t total = aofManifestTotalSize(m);
    long long start = ustime();
    int ret = AOF_EMPTY, loaded = 0, res;
    off_t done = 0;
    snapshotLoadingStart(total);
    if (m->base) {
        long long t = ustime();
        loaded++;
        res = aofLoadFile(m->base->name, done, loaded == total_files);
        if (res == AOF_OK || res == AOF_TRUNCATED)
            serverLog(LL_NOTICE, "DB loaded from base file %s: %.3f seconds", m->base->name,
                      (double)(ustime() - t) / 1000000);
        if (res == AOF_NOT_EXIST || res == AOF_OPEN_ERR || res == AOF_FAILED) {
            ret = res == AOF_NOT_EXIST ? AOF_OPEN_ERR : res;
            goto done;
        }
        if (res != AOF_EMPTY) ret = res;
        done += aofFileSize(m->base->name);
    }
    listIter li;
    listNode *ln;
    listRewind(m->incr, &li);
    while ((ln = listNext(&li))) {
        aofInfo *ai = listNodeValue(ln);
        long long t = ustime();
        loaded++;
        res = aofLoadFile(ai->name, done, loaded == total_files);
        if (res == AOF_OK || res == AOF_TRUNCATED)
            serverLog(LL_NOTICE, "DB loaded from incr file %s: %.3f seconds", ai->name,
                      (double)(ustime() - t) / 1000000);
        if (res == AOF_NOT_EXIST || res == AOF_OPEN_ERR || res == AOF_FAILED) {
            ret = res == AOF_NOT_EXIST ? AOF_OPEN_ERR : res;
            goto done;
        }
        if (res != AOF_EMPTY) ret = res == AOF_TRUNCATED ? AOF_TRUNCATED : (ret == AOF_TRUNCATED ? ret : AOF_OK);
        done += aofFileSize(ai->name);
    }
    if (ret != AOF_EMPTY)
        serverLog(LL_NOTICE, "DB loaded from append only file: %.3f seconds", (double)(ustime() - start) / 1000000);
done:
    snapshotLoadingStop(ret == AOF_OK || ret == AOF_EMPTY || ret == AOF_TRUNCATED);
    aof.current_size = aofManifestTotalSize(m);
    aof.base_size = aof.current_size;
    return ret;
}

/* ---------------------------------------------------------------------------
 * Rewriting
 * ------------------------------------------------------------------------- */

static sds aofRewriteTempName(pid_t pid) {
    return sdscatprintf(sdsempty(), "temp-rewriteaof-bg-%d.aof", (int)pid);
}

/* The "#TS:" line a base written as commands opens with when
 * aof-timestamp-enabled is yes, as Valkey writes it: the time the base
 * was started. It counts as the last annotation written, so that commands
 * appended in the same second add none (which matters in the event loop,
 * for the first base at start-up; the child's copy is discarded). Returns
 * 1, or 0 when the write failed. */
static int aofWriteBaseTimestamp(rio *r) {
    if (!server.aof_timestamp_enabled) return 1;
    aof.last_ts = (long long)time(NULL);
    char line[32];
    int len = snprintf(line, sizeof(line), "#TS:%lld\r\n", aof.last_ts);
    return rioWrite(r, line, (size_t)len);
}

/* Writes the dataset as the new base into fd: in RDB format with
 * rdb_format (aof-use-rdb-preamble yes when the rewrite started), else as
 * commands (aof_rewrite.c) after a timestamp annotation. C_OK or C_ERR
 * with errno set. Child, or the event loop on a first start. */
static int aofWriteBase(int fd, int rdb_format) {
    rio r;
    rioInitFdWriter(&r, fd, server.aof_rewrite_incremental_fsync ? RIO_FSYNC_INTERVAL : 0);
    int ok;
    if (rdb_format) {
        rdbSaveAofBase = 1;
        ok = rdbSaveRio(&r) == C_OK;
        rdbSaveAofBase = 0;
    } else {
        ok = aofWriteBaseTimestamp(&r) && aofRewriteCommands(&r) == C_OK;
    }
    ok = ok && rioFlush(&r);
    int err = r.error == RIO_ERR_IO ? r.sys_errno : EIO;
    rioRelease(&r);
    if (!ok) {
        errno = err;
        return C_ERR;
    }
    return fsync(fd) == 0 ? C_OK : C_ERR;
}

/* Writes the base into a new file path, in RDB format or as commands
 * (rdb_format). C_OK or C_ERR (logged). */
static int aofWriteBaseFile(const char *path, int rdb_format) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd == -1) {
        serverLog(LL_WARNING, "Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): %s",
                  strerror(errno));
        return C_ERR;
    }
    if (aofWriteBase(fd, rdb_format) != C_OK) {
        serverLog(LL_WARNING, "Write error writing append only file on disk: %s", strerror(errno));
        close(fd);
        unlink(path);
        return C_ERR;
    }
    close(fd);
    return C_OK;
}

/* See aof.h. */
int aofRewriteChildWrite(void) {
    sds tmp = aofRewriteTempName(getpid());
    int ret = aofWriteBaseFile(tmp, aof.rewrite_use_rdb_preamble);
    if (ret == C_OK) serverLog(LL_NOTICE, "Successfully created the temporary AOF base file %s", tmp);
    sdsfree(tmp);
    return ret;
}

/* Opens a new incr file for what comes after the rewrite starting now:
 * with AOF_ON a new incr file listed in the manifest at once; with
 * AOF_WAIT_REWRITE the temp incr file, named and listed when the rewrite
 * succeeds; with AOF_OFF none. C_OK or C_ERR (logged; nothing changed). */
static int aofOpenNewIncr(void) {
    if (aof_state == AOF_OFF) return C_OK; /* BGREWRITEAOF with appendonly no: a base only */
    int temp = aof_state == AOF_WAIT_REWRITE;
    sds name = temp ? aofTempIncrName() : aofNewIncrName(aof.manifest);
    sds path = aofPath(name);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | (temp ? O_TRUNC : 0), 0644);
    if (fd == -1) {
        serverLog(LL_WARNING, "Can't open the append-only file %s: %s", name, strerror(errno));
        sdsfree(name);
        sdsfree(path);
        return C_ERR;
    }
    if (!temp) {
        aofManifest *m = aofManifestDup(aof.manifest);
        aofManifestAddIncr(m, name); /* m owns name now */
        if (aofManifestPersist(m) != C_OK) {
            aofManifestFree(m);
            close(fd);
            unlink(path);
            sdsfree(path);
            return C_ERR;
        }
        aofManifestFree(aof.manifest);
        aof.manifest = m;
    }
    serverLog(LL_NOTICE, "Creating AOF incr file %s on background rewrite", name);
    if (temp) {
        sdsfree(name);
        aof.wait_rewrite_temp_incr = 1;
    }
    sdsfree(path);
    aofCloseFd();
    aof.fd = fd;
    aof.fd_size = lseek(fd, 0, SEEK_END);
    /* A new file starts with SELECT. Not with a "#TS:" line of its own: as
     * in Valkey, one comes when the second changes (aofFeed). */
    aof.selected_db = -1;
    return C_OK;
}

/* Starts a rewrite: writes out the buffer, opens the next incr file and
 * forks the child. C_OK, or C_ERR (logged) when a child runs or something
 * failed. */
static int aofRewriteBackground(void) {
    if (hasActiveChildProcess()) return C_ERR;
    if (aofCreateDir() != C_OK) {
        aof.last_bgrewrite_status = C_ERR;
        return C_ERR;
    }
    aofFlush(1);
    if (aofOpenNewIncr() != C_OK) {
        aof.last_bgrewrite_status = C_ERR;
        return C_ERR;
    }
    if (aof_state == AOF_WAIT_REWRITE) {
        /* The new base will hold everything up to here, fsynced by the
         * child; it counts once the rewrite is installed. */
        aofDrainFsyncs();
        __atomic_store_n(&aof_fsynced_reploff_pending, server.primary_repl_offset, __ATOMIC_RELEASE);
        aof.written_reploff = server.primary_repl_offset;
        aof.fsynced_reploff = 0;
    }
    aof.stat_rewrites++;
    /* The child writes the format chosen now, and the base is named after
     * it when it is installed, whatever aof-use-rdb-preamble says by then
     * (Valkey 8 does the same). */
    aof.rewrite_use_rdb_preamble = server.aof_use_rdb_preamble;
    if (snapshotForkAofRewrite() != C_OK) {
        aof.last_bgrewrite_status = C_ERR;
        return C_ERR;
    }
    aof.rewrite_scheduled = 0;
    aof.rewrite_time_start = time(NULL);
    return C_OK;
}

/* Removes the history files (in the thread) and the history from the
 * manifest. */
static void aofDelHistoryFiles(void) {
    if (server.aof_disable_auto_gc || aof.manifest == NULL || listLength(aof.manifest->history) == 0) return;
    listIter li;
    listNode *ln;
    listRewind(aof.manifest->history, &li);
    while ((ln = listNext(&li))) {
        aofInfo *ai = listNodeValue(ln);
        serverLog(LL_NOTICE, "Removing the history file %s in the background", ai->name);
        aofUnlinkInBackground(aofPath(ai->name));
    }
    aofManifest *m = aofManifestDup(aof.manifest);
    listEmpty(m->history);
    if (aofManifestPersist(m) == C_OK) {
        aofManifestFree(aof.manifest);
        aof.manifest = m;
    } else {
        aofManifestFree(m);
    }
}

/* A rewrite failed (the child, or installing its base): INFO says err,
 * and it counts towards the limit on automatic rewrites
 * (aofRewriteLimited). */
static void aofRewriteFailed(void) {
    aof.last_bgrewrite_status = C_ERR;
    aof.rewrites_consecutive_failures++;
}

/* A successful child: its file becomes the new base, named after the
 * format it was written in, atomically with the manifest. C_OK, or C_ERR
 * (logged) with the old manifest still in force. */
static int aofInstallRewrite(pid_t pid) {
    aofManifest *m = aofManifestDup(aof.manifest);
    sds tmp = aofRewriteTempName(pid);
    sds base = aofNewBaseName(m, aof.rewrite_use_rdb_preamble);
    sds base_path = aofPath(base);
    sds incr_path = NULL, temp_incr_path = NULL;
    int ret = C_ERR;
    aofManifestSetBase(m, base); /* m owns base now */
    if (rename(tmp, base_path) == -1) {
        serverLog(LL_WARNING, "Error trying to rename the temporary AOF base file %s into %s: %s", tmp, base_path,
                  strerror(errno));
        unlink(tmp);
        goto done;
    }
    serverLog(LL_NOTICE, "Successfully renamed the temporary AOF base file %s into %s", tmp, base);
    if (aof_state == AOF_WAIT_REWRITE) {
        sds temp_incr = aofTempIncrName();
        temp_incr_path = aofPath(temp_incr);
        sds incr = aofNewIncrName(m);
        incr_path = aofPath(incr);
        aofManifestAddIncr(m, incr); /* m owns incr now */
        if (rename(temp_incr_path, incr_path) == -1) {
            serverLog(LL_WARNING, "Error trying to rename the temporary AOF incr file %s into %s: %s",
                      temp_incr_path, incr_path, strerror(errno));
            sdsfree(temp_incr);
            unlink(base_path);
            goto done;
        }
        serverLog(LL_NOTICE, "Successfully renamed the temporary AOF incr file %s into %s", temp_incr, incr);
        sdsfree(temp_incr);
    }
    /* With appendonly no no incr file is current: the base is the whole
     * AOF, and every incr file is history. */
    aofManifestRetireIncr(m, aof_state != AOF_OFF);
    if (aofManifestPersist(m) != C_OK) {
        unlink(base_path);
        if (incr_path) rename(incr_path, temp_incr_path);
        goto done;
    }
    aofFsyncDir();
    aofManifestFree(aof.manifest);
    aof.manifest = m;
    m = NULL;
    ret = C_OK;
done:
    aofManifestFree(m);
    sdsfree(tmp);
    sdsfree(base_path);
    sdsfree(incr_path);
    sdsfree(temp_incr_path);
    return ret;
}

/* A rewrite started by appendonly yes ended without installing a base:
 * what was collected for it is dropped and its temp incr file removed
 * (the next try opens a new one). Valkey's log line. */
static void aofDropTempIncr(void) {
    if (aof.buf) sdsclear(aof.buf);
    aofCloseFd();
    aof.wait_rewrite_temp_incr = 0;
    sds name = aofTempIncrName();
    serverLog(LL_NOTICE, "Removing the temp incr aof file %s in the background", name);
    aofUnlinkInBackground(aofPath(name));
    sdsfree(name);
}

/* See aof.h. Called by snapshot.c when it reaped the rewrite child. */
void aofRewriteDone(pid_t pid, int ok, int bysignal) {
    aof.rewrite_time_last = aof.rewrite_time_start == -1 ? -1 : time(NULL) - aof.rewrite_time_start;
    aof.rewrite_time_start = -1;
    if (ok) {
        serverLog(LL_NOTICE, "Background AOF rewrite terminated with success");
        ok = aofInstallRewrite(pid) == C_OK;
        if (!ok) aofRewriteFailed();
    } else {
        sds tmp = aofRewriteTempName(pid);
        unlink(tmp);
        sdsfree(tmp);
        /* SIGUSR1 is how a rewrite is stopped on purpose: not a failure. */
        if (bysignal != SIGUSR1) aofRewriteFailed();
        if (bysignal) serverLog(LL_WARNING, "Background AOF rewrite terminated by signal %d", bysignal);
        else serverLog(LL_WARNING, "Background AOF rewrite terminated with error");
    }
    if (!ok) {
        /* appendonly yes still needs its first base: it starts over. */
        if (aof_state == AOF_WAIT_REWRITE) {
            aofDropTempIncr();
            aof.rewrite_scheduled = 1;
        }
        return;
    }
    if (aof_state != AOF_OFF) {
        aof.current_size = aofManifestTotalSize(aof.manifest);
        aof.base_size = aof.current_size;
    }
    aofDelHistoryFiles();
    aof.last_bgrewrite_status = C_OK;
    aof.rewrites_consecutive_failures = 0;
    serverLog(LL_NOTICE, "Background AOF rewrite finished successfully");
    if (aof_state == AOF_WAIT_REWRITE) {
        aof_state = AOF_ON;
        aof.wait_rewrite_temp_incr = 0;
    }
}

/* ---------------------------------------------------------------------------
 * Turning the AOF on and off, start-up
 * ------------------------------------------------------------------------- */

/* appendonly yes at run time: a rewrite writes the first base while
 * commands go to a temp incr file. While another child runs (or within
 * EXEC) the rewrite is scheduled and nothing is collected until it
 * starts. C_OK or C_ERR (logged). */
static int aofStart(void) {
    if (aofCreateDir() != C_OK) return C_ERR;
    if (aof.manifest == NULL && aofLoadManifestFromDisk() != C_OK) return C_ERR;
    aof.last_fsync_ms = server.mstime;
    if (hasActiveChildProcess() && !aofRewriteInProgress()) {
        aof_state = AOF_WAIT_REWRITE;
        aof.rewrite_scheduled = 1;
        serverLog(LL_NOTICE, "AOF was enabled but there is already another background operation. An AOF "
                             "background was scheduled to start when possible.");
        return C_OK;
    }
    if (server.in_exec) {
        aof_state = AOF_WAIT_REWRITE;
        aof.rewrite_scheduled = 1;
        serverLog(LL_NOTICE, "AOF was enabled during a transaction. An AOF background was scheduled to start when "
                             "possible.");
        return C_OK;
    }
    if (aofRewriteInProgress()) {
        /* A rewrite of BGREWRITEAOF with appendonly no collects nothing:
         * it is stopped (as a rewrite of the AOF off, so that its end
         * touches no temp incr file) and a new one started. */
        serverLog(LL_NOTICE, "AOF was enabled but there is already an AOF rewriting in background. Stopping "
                             "background AOF and starting a rewrite now.");
        killAofChild();
    }
    aof_state = AOF_WAIT_REWRITE;
    if (aofRewriteBackground() != C_OK) {
        aof_state = AOF_OFF;
        aof.wait_rewrite_temp_incr = 0;
        aof.fsynced_reploff = -1;
        serverLog(LL_WARNING, "Valkey needs to enable the AOF but can't trigger a background AOF rewrite "
                              "operation. Check the above logs for more info about the error.");
        return C_ERR;
    }
    return C_OK;
}

/* appendonly no at run time: what is buffered is written and fsynced, the
 * file closed, a rewrite stopped (and the temp incr file of one started by
 * appendonly yes removed: no rewrite will name it). */
static void aofStop(void) {
    aofFlush(1);
    if (aof.fd != -1) {
        if (fsync(aof.fd) == -1)
            serverLog(LL_WARNING, "Fail to fsync the AOF file: %s", strerror(errno));
        else
            __atomic_store_n(&aof_fsynced_offset, aof.written_offset, __ATOMIC_RELEASE);
        aofCloseFd();
    }
    int temp_incr = aof.wait_rewrite_temp_incr;
    aof_state = AOF_OFF; /* the child's end below is that of a rewrite of the AOF off */
    aof.wait_rewrite_temp_incr = 0;
    if (aofRewriteInProgress()) {
        serverLog(LL_NOTICE, "Killing running AOF rewrite child: %ld", (long)snapshot.child_pid);
        killAofChild();
    }
    if (temp_incr) {
        sds name = aofTempIncrName();
        aofUnlinkInBackground(aofPath(name));
        sdsfree(name);
    }
    aof.rewrite_scheduled = 0;
    aof.fsynced_reploff = -1; /* a replica stops sending FACK */
    aof.fack_wanted = -1;
    aof.last_write_status = C_OK;
    __atomic_store_n(&aof_fsync_status, C_OK, __ATOMIC_RELEASE);
    sdsclear(aof.buf ? aof.buf : (aof.buf = sdsempty()));
}

/* See aof.h. */
int aofApplyAppendonly(const char **err) {
    if (server.aof_enabled && aof_state == AOF_OFF) {
        if (aofStart() != C_OK) {
            *err = "Unable to turn on AOF. Check server logs.";
            return 0;
        }
    } else if (!server.aof_enabled && aof_state != AOF_OFF) {
        aofStop();
    }
    return 1;
}

/* See aof.h. */
void aofRestartAfterFullSync(void) {
    if (!server.aof_enabled) return;
    if (aof_state != AOF_OFF) aofStop();
    if (aofStart() != C_OK)
        serverLog(LL_WARNING, "Failed enabling the AOF after successful primary synchronization! Trying it again in "
                              "one second.");
}

/* Opens the last incr file for appending at start-up, creating the first
 * base (of the dataset just loaded: empty, or the RDB's) and incr file
 * when the manifest lists none. Exits when it cannot. */
static void aofOpenOnStartup(void) {
    aofManifest *m = aof.manifest;
    if (m->base == NULL && listLength(m->incr) == 0) {
        sds base = aofNewBaseName(m, server.aof_use_rdb_preamble);
        sds path = aofPath(base);
        if (aofWriteBaseFile(path, server.aof_use_rdb_preamble) != C_OK) exit(1);
        sdsfree(path);
        aofManifestSetBase(m, base);
        serverLog(LL_NOTICE, "Creating AOF base file %s on server start", base);
    }
    sds name;
    if (listLength(m->incr) == 0) {
        name = aofNewIncrName(m);
        aofManifestAddIncr(m, name);
        serverLog(LL_NOTICE, "Creating AOF incr file %s on server start", name);
    } else {
        name = ((aofInfo *)listNodeValue(listLast(m->incr)))->name;
        serverLog(LL_NOTICE, "Opening AOF incr file %s on server start", name);
    }
    sds path = aofPath(name);
    aof.fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (aof.fd == -1) {
        serverLog(LL_WARNING, "Can't open the append-only file %s: %s", name, strerror(errno));
        exit(1);
    }
    sdsfree(path);
    aof.fd_size = lseek(aof.fd, 0, SEEK_END);
    if (aofManifestPersist(m) != C_OK) exit(1);
    aof.current_size = aofManifestTotalSize(m);
    aof.base_size = aof.current_size;
}

/* 1 when appendfilename in dir is an AOF of Redis before 7.0 (one file,
 * maybe with an RDB preamble) that must become the base of the directory
 * layout: the AOF directory has no AOF of its own (no manifest, or one
 * listing nothing), or an upgrade was interrupted after the manifest naming
 * the old file was written and before the file was moved. Otherwise an old
 * file in dir is left alone, as Valkey does. */
static int aofNeedsUpgrade(aofManifest *m) {
    struct stat st;
    if (stat(server.aof_filename, &st) == -1 || !S_ISREG(st.st_mode)) return 0;
    if (listLength(m->incr) != 0) return 0;
    if (m->base == NULL) return 1;
    if (strcmp(m->base->name, server.aof_filename) != 0) return 0;
    sds path = aofPath(server.aof_filename);
    int moved = stat(path, &st) == 0;
    sdsfree(path);
    return !moved;
}

/* Makes the old single file the base of aof.manifest, keeping its name
 * (seq 1): the manifest is written first, then the file is moved (not
 * copied) into appenddirname, so that a crash in between is finished by
 * the next start (aofNeedsUpgrade). Exits when either step fails. */
static void aofUpgradeOldFile(void) {
    aofManifest *m = aof.manifest;
    if (m->base) aofInfoFree(m->base);
    m->base = aofInfoCreate(sdsnew(server.aof_filename), 1, AOF_FILE_BASE);
    m->base_seq = 1;
    if (aofManifestPersist(m) != C_OK) exit(1);
    sds path = aofPath(server.aof_filename);
    if (rename(server.aof_filename, path) == -1) {
        serverLog(LL_WARNING, "Error trying to move the old AOF file %s into dir %s: %s", server.aof_filename,
                  server.aof_dirname, strerror(errno));
        exit(1);
    }
    sdsfree(path);
    aofFsyncDir();
    serverLog(LL_NOTICE, "Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).",
              server.aof_filename, server.aof_dirname);
}

/* See aof.h. */
void aofLoadOnStartup(void) {
    if (aofCreateDir() != C_OK || aofLoadManifestFromDisk() != C_OK) exit(1);
    if (aofNeedsUpgrade(aof.manifest)) aofUpgradeOldFile();
    int ret = aofLoadFiles(aof.manifest);
    if (ret == AOF_FAILED || ret == AOF_OPEN_ERR) exit(1);
    server.dirty = 0;
    aofOpenOnStartup();
    aofDelHistoryFiles();
    aof_state = AOF_ON;
    aof.fsynced_reploff = 0; /* what was loaded holds no replication stream yet */
    aof.last_fsync_ms = mstime();
}

/* ---------------------------------------------------------------------------
 * Cron, shutdown, INFO, commands
 * ------------------------------------------------------------------------- */

/* The limit on rewrites the server starts by itself (scheduled ones and
 * automatic ones) after repeated failures, as Valkey has it: each failed
 * rewrite opens one more incr file, so once AOF_REWRITE_LIMIT_FAILURES
 * rewrites in a row failed, the next ones wait 1 minute, then 2, 4, ...
 * up to AOF_REWRITE_LIMIT_MAX_MINUTES between tries, logging the delay
 * when a wait starts. A successful rewrite (BGREWRITEAOF still runs at
 * once) lifts it. Returns 1 when a rewrite must not start now. Cron. */
#define AOF_REWRITE_LIMIT_FAILURES 3
#define AOF_REWRITE_LIMIT_MAX_MINUTES 60
static int aofRewriteLimited(void) {
    if (aof.rewrites_consecutive_failures < AOF_REWRITE_LIMIT_FAILURES) {
        aof.limit_delay_minutes = 0;
        aof.limit_next_try = 0;
        return 0;
    }
    if (aof.limit_next_try != 0) {
        if (server.unixtime < aof.limit_next_try) return 1;
        aof.limit_next_try = 0; /* this try goes ahead; if it fails too, the next wait is longer */
        return 0;
    }
    int delay = aof.limit_delay_minutes ? aof.limit_delay_minutes * 2 : 1;
    aof.limit_delay_minutes = delay > AOF_REWRITE_LIMIT_MAX_MINUTES ? AOF_REWRITE_LIMIT_MAX_MINUTES : delay;
    aof.limit_next_try = server.unixtime + (time_t)aof.limit_delay_minutes * 60;
    serverLog(LL_WARNING, "Background AOF rewrite has repeatedly failed and triggered the limit, will retry in %d "
                          "minutes", aof.limit_delay_minutes);
    return 1;
}

/* See aof.h. */
void aofCron(void) {
    static long long last_start_try;
    if (aof_state == AOF_OFF && server.aof_enabled && server.mstime - last_start_try >= 1000) {
        /* appendonly yes but the AOF could not be restarted (after a full
         * sync): try again every second. */
        last_start_try = server.mstime;
        aofStart();
    }
    if (aof_state == AOF_OFF) return;
    /* A write that failed is retried here too, so that the server recovers
     * by itself once the disk works again, even with no traffic. */
    if (aof.last_write_status == C_ERR) aofFlush(0);
    if (__atomic_load_n(&aof_fsync_status, __ATOMIC_ACQUIRE) == C_ERR && !aofFsyncInProgress() && aof.fd != -1)
        aofSubmitJob(AOF_JOB_FSYNC, aof.fd, aof.written_offset);
    if (hasActiveChildProcess()) return;
    if (aof.rewrite_scheduled) {
        if (!aofRewriteLimited()) aofRewriteBackground();
        return;
    }
    if (aof_state == AOF_ON && server.aof_rewrite_perc && aof.current_size > server.aof_rewrite_min_size) {
        long long base = aof.base_size ? aof.base_size : 1;
        long long growth = (aof.current_size * 100 / base) - 100;
        if (growth >= server.aof_rewrite_perc && !aofRewriteLimited()) {
            serverLog(LL_NOTICE, "Starting automatic rewriting of AOF on %lld%% growth", growth);
            aofRewriteBackground();
        }
    }
}

/* See aof.h. */
int aofPrepareForShutdown(int flags) {
    if (aof_state == AOF_OFF) return C_OK;
    /* Without its first base the AOF holds nothing: a restart with
     * appendonly yes would start empty. */
    if (aof_state == AOF_WAIT_REWRITE) {
        if (!(flags & SHUTDOWN_FORCE)) {
            serverLog(LL_WARNING, "Writing initial AOF, can't exit.");
            return C_ERR;
        }
        serverLog(LL_WARNING, "Writing initial AOF. Exit anyway.");
    }
    if (aofRewriteInProgress()) {
        serverLog(LL_WARNING, "There is a child rewriting the AOF. Killing it!");
        killAofChild();
    }
    aofFlush(1);
    if (aof.fd != -1) {
        serverLog(LL_NOTICE, "Calling fsync() on the AOF file.");
        fsync(aof.fd);
    }
    return C_OK;
}

/* See aof.h. */
sds aofCatInfo(sds info) {
    int rewriting = aofRewriteInProgress();
    return sdscatprintf(info,
                        "aof_enabled:%d\r\n"
                        "aof_rewrite_in_progress:%d\r\n"
                        "aof_rewrite_scheduled:%d\r\n"
                        "aof_last_rewrite_time_sec:%lld\r\n"
                        "aof_current_rewrite_time_sec:%lld\r\n"
                        "aof_last_bgrewrite_status:%s\r\n"
                        "aof_rewrites:%lld\r\n"
                        "aof_rewrites_consecutive_failures:%lld\r\n"
                        "aof_last_write_status:%s\r\n"
                        "aof_last_cow_size:%llu\r\n",
                        aof_state != AOF_OFF, rewriting, aof.rewrite_scheduled, (long long)aof.rewrite_time_last,
                        rewriting && aof.rewrite_time_start != -1 ? (long long)(time(NULL) - aof.rewrite_time_start)
                                                                  : -1LL,
                        aof.last_bgrewrite_status == C_OK ? "ok" : "err", aof.stat_rewrites,
                        aof.rewrites_consecutive_failures,
                        aof.last_write_status == C_OK &&
                                __atomic_load_n(&aof_fsync_status, __ATOMIC_ACQUIRE) == C_OK
                            ? "ok"
                            : "err",
                        snapshot.stat_aof_cow_bytes);
}

/* See aof.h: the fields Valkey adds when appendonly is yes. */
sds aofCatInfoEnabled(sds info) {
    if (!server.aof_enabled) return info;
    return sdscatprintf(info,
                        "aof_current_size:%lld\r\n"
                        "aof_base_size:%lld\r\n"
                        "aof_pending_rewrite:%d\r\n"
                        "aof_buffer_length:%zu\r\n"
                        "aof_pending_bio_fsync:%lu\r\n"
                        "aof_delayed_fsync:%lu\r\n",
                        (long long)aof.current_size, (long long)aof.base_size, aof.rewrite_scheduled,
                        aofBufferLength(), aofFsyncInProgress(), aof.delayed_fsync);
}

/* BGREWRITEAOF: starts a rewrite, or schedules it while a BGSAVE runs. */
void bgrewriteaofCommand(client *c) {
    if (aofRewriteInProgress()) {
        addReplyError(c, "Background append only file rewriting already in progress");
    } else if (hasActiveChildProcess() || server.in_exec) {
        aof.rewrite_scheduled = 1;
        /* Asked for by hand: it starts as soon as it can, even when
         * failures made the server limit its own rewrites. */
        aof.rewrites_consecutive_failures = 0;
        addReplyStatus(c, "Background append only file rewriting scheduled");
    } else if (aof_state == AOF_OFF) {
        /* Valkey writes a rewrite of the dataset even with appendonly no. */
        int ready = aofCreateDir() == C_OK && (aof.manifest != NULL || aofLoadManifestFromDisk() == C_OK);
        if (ready && aofRewriteBackground() == C_OK) addReplyStatus(c, "Background append only file rewriting started");
        else addReplyError(c, "Can't execute an AOF background rewriting. Please check the server logs for more "
                              "information.");
    } else if (aofRewriteBackground() == C_OK) {
        addReplyStatus(c, "Background append only file rewriting started");
    } else {
        addReplyError(c, "Can't execute an AOF background rewriting. Please check the server logs for more "
                         "information.");
    }
}

/* DEBUG LOADAOF: writes out the buffer, empties the dataset and loads the
 * AOF on disk back, whether appendonly is yes or no (after BGREWRITEAOF
 * with appendonly no, or once the AOF was turned off, its files are still
 * there), as Valkey does; history files are removed first, as a manifest
 * read from disk is handled at start-up. Exits if the AOF cannot be
 * loaded, as Valkey 8 does. A manifest that cannot be read, or that lists
 * no file, is an error reply with the dataset untouched. */
void debugLoadAofCommand(client *c) {
    if (aof_state != AOF_OFF) aofFlush(1);
    if (aofLoadManifestFromDisk() != C_OK) {
        addReplyError(c, "Error reading the AOF manifest, check server logs.");
        return;
    }
    if (aof.manifest->base == NULL && listLength(aof.manifest->incr) == 0) {
        serverLog(LL_NOTICE, "DEBUG LOADAOF: the AOF manifest in %s lists no file to load", server.aof_dirname);
        addReplyError(c, "Error trying to load the AOF files, check server logs.");
        return;
    }
    aofDelHistoryFiles();
    emptyData(-1, EMPTYDB_NO_FLAGS, NULL);
    functionsEmpty();
    int state = aof_state;
    aof_state = AOF_OFF; /* what loads is not appended again */
    int ret = aofLoadFiles(aof.manifest);
    aof_state = state;
    if (ret != AOF_OK && ret != AOF_EMPTY) exit(1);
    server.dirty = 0;
    serverLog(LL_NOTICE, "Append Only File loaded by DEBUG LOADAOF");
    addReply(c, shared.ok);
}

/* See aof.h. */
int aofApplyAutoGc(const char **err) {
    (void)err;
    aofDelHistoryFiles();
    return 1;
}

struct serverCommand aofCommands[] = {
    {.name = "bgrewriteaof", .proc = bgrewriteaofCommand, .arity = 1,
     .flags = CMD_NO_ASYNC_LOADING | CMD_ADMIN | CMD_NOSCRIPT, .group = "server", .since = "1.0.0",
     .summary = "Asynchronously rewrites the append-only file to disk.", .complexity = "O(1)"},
    {0},
};
