/* valkey-cli.c - the command-line client, behaving like Valkey 8's.
 *
 * One blocking connection through the tools' transport layer
 * (cli_transport.h: "tcp", "unix" with -s, "tls" with --tls, "rdma" with
 * --rdma, "shm" with --shm -s, when built in) carries every request;
 * replies are parsed into trees by cli_reply.c and printed by
 * cli_output.c in the format the
 * options and the terminal choose. Options are parsed by cli_args.c. What
 * runs then (when several modes are asked for, the one Valkey runs first):
 *
 *   - a command from argv (repeated with -r/-i, an argument from stdin with
 *     -x or -X, MOVED/ASK redirections followed with -c);
 *   - the REPL when there is no command: libedit line editing, history
 *     (~/.valkeycli_history or VALKEYCLI_HISTFILE), preferences
 *     (~/.valkeyclirc or VALKEYCLI_RCFILE: ":set hints"), argument hints,
 *     `help` and TAB completion from the server's COMMAND DOCS
 *     (cli_hints.c), a prompt that follows SELECT and MULTI, reconnection
 *     after a lost connection. With a stdin that is not a terminal, the
 *     same loop runs each line as a command;
 *   - the special modes: --pipe (mass insert, event driven), --scan,
 *     --bigkeys / --memkeys / --hotkeys, --stat, --latency(-history),
 *     --latency-dist, --intrinsic-latency, --lru-test, --rdb /
 *     --functions-rdb and --replica (the replication handshake: REPLCONF,
 *     SYNC, then the payload framed as cli_sync.c reads it), --eval, and
 *     `--cluster help`;
 *   - --eval with --ldb / --ldb-sync-mode: a Lua debugging session (SCRIPT
 *     DEBUG YES|SYNC, then EVAL) driven from the REPL with the prompt
 *     "lua debugger> ": each line goes to the server's debugger, whose
 *     answers are printed one line each, coloured on a terminal; `quit`
 *     and `restart` (the file read again, a new session) are ours. After
 *     "<endsession>" the EVAL's reply is printed and the REPL goes on as
 *     the plain one on a new connection.
 *
 * Output formats, messages and exit codes are those of Valkey 8's cli.
 * Exit status: 0; 1 when the server cannot be reached, on a usage error,
 * with -e when a command got an error reply, and when a mode fails.
 * Nothing here is shared with the server; only leaf libraries and cli_*.c
 * are linked. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <histedit.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ae.h"
#include "cli_args.h"
#include "cli_hints.h"
#include "cli_output.h"
#include "cli_reply.h"
#include "cli_sync.h"
#include "cli_transport.h"
#include "sds.h"
#include "util.h"
#include "zmalloc.h"

#define CLI_VERSION "8.1.0"
#define CLI_READ_CHUNK (16 * 1024)
#define CLI_CONNECT_TIMEOUT_MS 10000 /* When -t is not given. */
#define CLI_HISTFILE_DEFAULT ".valkeycli_history"
#define CLI_HISTFILE_ENV "VALKEYCLI_HISTFILE"
#define CLI_RCFILE_DEFAULT ".valkeyclirc"
#define CLI_RCFILE_ENV "VALKEYCLI_RCFILE"
#define CLI_AUTH_ENV "VALKEYCLI_AUTH"
#define CLI_HISTORY_SIZE 1000
#define CLI_SCAN_SLEEP_EVERY 100   /* --bigkeys/--hotkeys: -i sleeps once per this many SCANs. */
#define CLI_SLOW_COMMAND_MS 500    /* The REPL prints how long slower commands took. */
#define CLI_PROGRESS_EVERY 1000000 /* --bigkeys/--hotkeys: a progress line per this many keys. */
#define CLI_MAX_REDIRECTS 16       /* -c: MOVED/ASK followed for one command. */
#define CLI_SYNC_LINE_MAX 4096     /* Longest line a primary may answer SYNC with. */

/* Where a Lua debugging session (--ldb, --ldb-sync-mode) stands. */
typedef enum {
    LDB_IDLE,    /* No session: lines are commands (no --ldb, or the session ended). */
    LDB_RUNNING, /* EVAL started one: lines go to the server's debugger,
                  * except quit/exit and restart. */
    LDB_RESTART  /* `restart` was typed: the REPL returns, evalLdbMode()
                  * reconnects and starts the script again. */
} ldbState;

/* cliConnect() flags. */
#define CLI_CONNECT_QUIET (1 << 0) /* Do not report a failure. */

/* ---------------------------------------------------------------------------
 * State
 * ------------------------------------------------------------------------- */

static cliOptions config;

static struct cliState {
    const cliConnType *ct;
    cliConnAddr addr;
    char addrstr[300];    /* "host:port" or the socket path, for messages. */
    sds host;             /* The host after -c redirections or CONNECT; NULL = config.host. */
    cliConn *conn;        /* NULL when not connected. */
    sds ibuf;             /* Received bytes not yet parsed. */
    cliOutputMode output;
    int push_output;      /* Print RESP3 push messages (--show-pushes). */
    int resp;             /* Protocol the connection speaks (2 or 3). */
    int want_db;          /* Database to be in (-n, SELECT); kept across reconnects. */
    int db;               /* Database the connection is in. */
    int pre_multi_db;     /* db when MULTI started: EXEC/DISCARD may undo a SELECT. */
    int in_multi;         /* Inside MULTI: the prompt says (TX). */
    int interactive;      /* The REPL is running (also over a non-terminal stdin). */
    int hints;            /* Show argument hints (":set hints", the default). */
    int redirect;         /* -c: the last reply was MOVED/ASK; reissue the command. */
    int send_asking;      /* -c: the redirection was ASK: send ASKING first. */
    int blocking_cmd;     /* In MONITOR or SUBSCRIBE: Ctrl-C ends it. */
    char lasterr[CLI_ERR_LEN + 64]; /* Why the last I/O failed. */
    cliHelp *help;        /* From COMMAND DOCS, for help, hints, completion. */
    ldbState ldb;         /* The Lua debugging session, with --ldb. */
    int ldb_color;        /* Colour the debugger's lines (a colour terminal). */
} cli;

/* Set by SIGINT in the modes that stop cleanly on Ctrl-C. */
static volatile sig_atomic_t cliInterrupted;

static void cliFatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void cliFatal(const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* Sleeps for a number of seconds (fractions allowed). */
static void cliSleep(double secs) {
    if (secs <= 0) return;
    struct timespec ts = {.tv_sec = (time_t)secs, .tv_nsec = (long)((secs - floor(secs)) * 1e9)};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR && !cliInterrupted) {
    }
}

static void cliStopOnInterrupt(int sig) {
    (void)sig;
    cliInterrupted = 1;
}

/* Modes that end with a summary: Ctrl-C stops the loop, not the process. */
static void cliCatchInterrupt(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = cliStopOnInterrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

/* ---------------------------------------------------------------------------
 * Connection and request/reply
 * ------------------------------------------------------------------------- */

/* Appends argv as a RESP array of bulk strings. */
static sds cliAppendCommand(sds s, int argc, char **argv, const size_t *lens) {
    s = sdscatprintf(s, "*%d\r\n", argc);
    for (int j = 0; j < argc; j++) {
        size_t len = lens ? lens[j] : strlen(argv[j]);
        s = sdscatprintf(s, "$%zu\r\n", len);
        s = sdscatlen(s, argv[j], len);
        s = sdscatlen(s, "\r\n", 2);
    }
    return s;
}

static void cliDisconnect(void) {
    cliConnClose(cli.conn);
    cli.conn = NULL;
    sdsclear(cli.ibuf);
}

/* Sends raw bytes. CLI_OK, or CLI_ERR (reason in cli.lasterr) with the
 * connection dropped. */
static int cliWriteRaw(const char *buf, size_t len) {
    if (!cli.conn) {
        snprintf(cli.lasterr, sizeof(cli.lasterr), "not connected");
        return CLI_ERR;
    }
    if (cliConnWriteAll(cli.conn, buf, len) != CLI_OK) {
        snprintf(cli.lasterr, sizeof(cli.lasterr), "%s", cliConnGetLastError(cli.conn));
        cliDisconnect();
        return CLI_ERR;
    }
    return CLI_OK;
}

/* Sends one command; as cliWriteRaw(). */
static int cliWriteCommand(int argc, char **argv, const size_t *lens) {
    sds req = cliAppendCommand(sdsempty(), argc, argv, lens);
    int ret = cliWriteRaw(req, sdslen(req));
    sdsfree(req);
    return ret;
}

/* Reads more bytes into cli.ibuf (blocking). CLI_OK, or CLI_ERR with the
 * reason in cli.lasterr and the connection dropped. */
static int cliFillBuffer(void) {
    if (!cli.conn) {
        snprintf(cli.lasterr, sizeof(cli.lasterr), "not connected");
        return CLI_ERR;
    }
    /* Read at least as much as we hold: a big reply is rescanned only a
     * logarithmic number of times. */
    size_t want = sdslen(cli.ibuf) > CLI_READ_CHUNK ? sdslen(cli.ibuf) : CLI_READ_CHUNK;
    cli.ibuf = sdsMakeRoomFor(cli.ibuf, want);
    ssize_t n = cliConnRead(cli.conn, cli.ibuf + sdslen(cli.ibuf), sdsavail(cli.ibuf));
    if (n <= 0) {
        if (n == 0)
            snprintf(cli.lasterr, sizeof(cli.lasterr), "Server closed the connection");
        else
            snprintf(cli.lasterr, sizeof(cli.lasterr), "%s", cliConnGetLastError(cli.conn));
        cliDisconnect();
        return CLI_ERR;
    }
    sdsIncrLen(cli.ibuf, n);
    return CLI_OK;
}

/* Reads one reply (blocking). CLI_OK with *out owned by the caller, or
 * CLI_ERR with the reason in cli.lasterr and the connection dropped. */
static int cliReadReply(cliReply **out) {
    char perr[128];
    *out = NULL;
    for (;;) {
        if (cli.conn && sdslen(cli.ibuf) > 0) {
            ssize_t n = cliReplyParse(cli.ibuf, sdslen(cli.ibuf), out, perr, sizeof(perr));
            if (n < 0) {
                snprintf(cli.lasterr, sizeof(cli.lasterr), "%s", perr);
                cliDisconnect();
                return CLI_ERR;
            }
            if (n > 0) {
                sdsrange(cli.ibuf, n, -1);
                return CLI_OK;
            }
        }
        if (cliFillBuffer() != CLI_OK) return CLI_ERR;
    }
}

/* Sends a command and returns its reply (NULL when the connection failed;
 * the reason is in cli.lasterr). Push messages are skipped. */
static cliReply *cliCommandArgv(int argc, char **argv) {
    cliReply *r;
    if (cliWriteCommand(argc, argv, NULL) != CLI_OK) return NULL;
    do {
        if (cliReadReply(&r) != CLI_OK) return NULL;
        if (r->type != CLI_REPLY_PUSH) return r;
        cliReplyFree(r);
    } while (1);
}

/* Sends a pipeline (one write of every command), then reads one reply per
 * command into replies[]. CLI_OK, or CLI_ERR (cli.lasterr) with the
 * replies read so far freed. */
static int cliPipeline(sds req, size_t count, cliReply **replies) {
    if (cliWriteRaw(req, sdslen(req)) != CLI_OK) return CLI_ERR;
    for (size_t j = 0; j < count; j++) {
        do {
            if (cliReadReply(&replies[j]) != CLI_OK) {
                while (j--) cliReplyFree(replies[j]);
                return CLI_ERR;
            }
            if (replies[j]->type != CLI_REPLY_PUSH) break;
            cliReplyFree(replies[j]);
        } while (1);
    }
    return CLI_OK;
}

/* AUTH with -a/--user/-u/VALKEYCLI_AUTH. CLI_ERR on an error reply
 * ("AUTH failed: ...") or a lost connection ("I/O error"). */
static int cliAuth(void) {
    if (!config.auth) return CLI_OK;
    cliReply *r;
    if (config.user)
        r = cliCommandArgv(3, (char *[]){"AUTH", (char *)config.user, (char *)config.auth});
    else
        r = cliCommandArgv(2, (char *[]){"AUTH", (char *)config.auth});
    if (!r) {
        fprintf(stderr, "\nI/O error\n");
        return CLI_ERR;
    }
    int ret = CLI_OK;
    if (r->type == CLI_REPLY_ERROR) {
        fprintf(stderr, "AUTH failed: %s\n", r->str);
        ret = CLI_ERR;
    }
    cliReplyFree(r);
    return ret;
}

/* SELECTs cli.want_db unless the connection is there already. */
static int cliSelectDb(void) {
    if (cli.want_db == cli.db) return CLI_OK;
    char db[32];
    snprintf(db, sizeof(db), "%d", cli.want_db);
    cliReply *r = cliCommandArgv(2, (char *[]){"SELECT", db});
    if (!r) {
        fprintf(stderr, "\nI/O error\n");
        return CLI_ERR;
    }
    int ret = CLI_OK;
    if (r->type == CLI_REPLY_ERROR) {
        fprintf(stderr, "SELECT %d failed: %s\n", cli.want_db, r->str);
        ret = CLI_ERR;
    } else {
        cli.db = cli.want_db;
    }
    cliReplyFree(r);
    return ret;
}

/* HELLO 3 when RESP3 was asked for (-3, or --json unless -2). A refusal
 * is an error only when -3 asked for it. */
static int cliSwitchProto(void) {
    if (config.resp != 3) return CLI_OK;
    cliReply *r = cliCommandArgv(2, (char *[]){"HELLO", "3"});
    if (!r) {
        fprintf(stderr, "\nI/O error\n");
        return CLI_ERR;
    }
    int ret = CLI_OK;
    if (r->type == CLI_REPLY_ERROR) {
        fprintf(stderr, "HELLO 3 failed: %s\n", r->str);
        if (!config.resp3_implicit) ret = CLI_ERR;
    } else {
        cli.resp = 3;
    }
    cliReplyFree(r);
    return ret;
}

/* The connect timeout: -t, or CLI_CONNECT_TIMEOUT_MS. 0 = no limit. */
static long long cliConnectTimeoutMs(void) {
    if (config.connect_timeout < 0) return CLI_CONNECT_TIMEOUT_MS;
    return (long long)(config.connect_timeout * 1000);
}

/* (Re)connects and runs the handshake: AUTH, SELECT of the database the
 * session is in, HELLO 3. Returns CLI_OK, or CLI_ERR after printing
 * "Could not connect to Valkey at ..." (unless CLI_CONNECT_QUIET) or the
 * handshake's error; a failed handshake keeps the connection, as in
 * Valkey (the command then gets the server's own error). */
static int cliConnect(int flags) {
    char err[CLI_ERR_LEN];
    cliDisconnect();
    cli.db = 0;
    cli.in_multi = 0;
    cli.resp = 2;
    cli.conn = cliConnConnectBlocking(cli.ct, &cli.addr, cliConnectTimeoutMs(), err, sizeof(err));
    if (!cli.conn) {
        if (!(flags & CLI_CONNECT_QUIET)) fprintf(stderr, "Could not connect to Valkey at %s: %s\n", cli.addrstr, err);
        return CLI_ERR;
    }
    if (cliAuth() != CLI_OK) return CLI_ERR;
    if (cliSelectDb() != CLI_OK) return CLI_ERR;
    if (cliSwitchProto() != CLI_OK) return CLI_ERR;
    return CLI_OK;
}

/* Points the connection at host:port (after a redirection or CONNECT). */
static void cliSetAddress(const char *host, int port) {
    sds h = sdsnew(host);
    sdsfree(cli.host);
    cli.host = h;
    cli.addr.host = cli.host;
    cli.addr.port = port;
    cliConnFormatAddr(cli.addrstr, sizeof(cli.addrstr), &cli.addr);
}

/* Sends a command, reconnecting every second while the connection is
 * down ("Reconnecting... N"), for the modes that run until stopped
 * (--latency, --stat). Returns the reply; exits on an error that is not
 * a lost connection. */
static cliReply *cliCommandReconnecting(int argc, char **argv) {
    int tries = 0;
    for (;;) {
        cliReply *r = cli.conn ? cliCommandArgv(argc, argv) : NULL;
        if (r) {
            if (tries) {
                printf("\r\x1b[0K"); /* Cursor to the left edge, clear the line. */
                fflush(stdout);
            }
            return r;
        }
        printf("\r\x1b[0K");
        printf("Reconnecting... %d\r", ++tries);
        fflush(stdout);
        cliConnect(CLI_CONNECT_QUIET);
        if (!cli.conn) cliSleep(1);
    }
}

/* A mode's command; exits with "I/O error" when the connection is lost. */
static cliReply *cliModeCommand(int argc, char **argv) {
    cliReply *r = cliCommandArgv(argc, argv);
    if (!r) cliFatal("\nI/O error");
    return r;
}

/* ---------------------------------------------------------------------------
 * Printing replies
 * ------------------------------------------------------------------------- */

/* Appends r as the output options say: verbatim (the raw text of replies
 * such as INFO's, even on a terminal), or the chosen format; raw output
 * puts -d between elements and -D after the reply. */
static sds cliFormatOutput(sds out, const cliReply *r, int verbatim) {
    if (verbatim) return cliFormatRawDelim(out, r, config.mb_delim);
    if (cli.output == CLI_OUTPUT_RAW) {
        out = cliFormatRawDelim(out, r, config.mb_delim);
        return sdscat(out, config.cmd_delim);
    }
    return cliFormatReply(out, r, cli.output);
}

static void cliWriteOut(const sds out) {
    fwrite(out, 1, sdslen(out), stdout);
    fflush(stdout);
}

/* Prints a reply on stdout. */
static void cliPrintReply(const cliReply *r, int verbatim) {
    sds out = cliFormatOutput(sdsempty(), r, verbatim);
    cliWriteOut(out);
    sdsfree(out);
}

/* A RESP3 "invalidate" push of client-side caching. */
static int cliIsInvalidatePush(const cliReply *r) {
    return r->type == CLI_REPLY_PUSH && r->elements == 2 && r->element[0]->str &&
           !strncmp(r->element[0]->str, "invalidate", 10) && r->element[1]->type == CLI_REPLY_ARRAY;
}

/* Prints a push message that arrived between replies (--show-pushes):
 * "-> invalidate: 'k1', 'k2'" on a terminal, the output format otherwise. */
static void cliPrintPush(const cliReply *r) {
    if (!cli.push_output) return;
    if (cli.output == CLI_OUTPUT_STANDARD && cliIsInvalidatePush(r)) {
        sds out = sdsnew("-> invalidate: ");
        const cliReply *keys = r->element[1];
        for (size_t j = 0; j < keys->elements; j++) {
            out = sdscat(out, "'");
            if (keys->element[j]->str) out = sdscatlen(out, keys->element[j]->str, keys->element[j]->len);
            out = sdscat(out, j + 1 < keys->elements ? "', " : "'");
        }
        out = sdscat(out, "\n");
        cliWriteOut(out);
        sdsfree(out);
        return;
    }
    cliPrintReply(r, 0);
}

/* A [p|s]message or [p|s][un]subscribe message: a RESP3 push, or in RESP2
 * an array, of at least 3 elements. */
static int cliIsPubsubMessage(const cliReply *r) {
    if (r->type != (cli.resp == 3 ? CLI_REPLY_PUSH : CLI_REPLY_ARRAY) || r->elements < 3 || !r->element[0]->str)
        return 0;
    const char *s = r->element[0]->str;
    size_t len = r->element[0]->len;
    return (len >= 7 && !strcmp(s + len - 7, "message")) || (len >= 9 && !strcmp(s + len - 9, "subscribe"));
}

/* ---------------------------------------------------------------------------
 * Running commands
 * ------------------------------------------------------------------------- */

static void cliOutputHelp(int argc, char **argv);
static void replicaMode(int send_sync);
static void ldbRunCommand(int argc, char **argv, long long times);

/* Commands whose reply is text meant to be read as it is (INFO, CLIENT
 * LIST, ...): printed verbatim even on a terminal, except inside MULTI
 * where they only answer QUEUED. */
static int cliIsVerbatimCommand(int argc, char **argv) {
    const char *c = argv[0], *s = argc >= 2 ? argv[1] : "";
    if (cli.in_multi) return 0;
    if (!strcasecmp(c, "info") || !strcasecmp(c, "lolwut")) return 1;
    if (argc >= 2 && !strcasecmp(c, "debug"))
        return !strcasecmp(s, "htstats") || !strcasecmp(s, "htstats-key") || !strcasecmp(s, "client-eviction");
    if (argc >= 2 && !strcasecmp(c, "memory")) return !strcasecmp(s, "malloc-stats") || !strcasecmp(s, "doctor");
    if (argc == 2 && !strcasecmp(c, "cluster")) return !strcasecmp(s, "nodes") || !strcasecmp(s, "info");
    if (argc >= 2 && !strcasecmp(c, "client")) return !strcasecmp(s, "list") || !strcasecmp(s, "info");
    if (!strcasecmp(c, "latency"))
        return (argc == 3 && !strcasecmp(s, "graph")) || (argc == 2 && !strcasecmp(s, "doctor"));
    if (argc >= 2 && !strcasecmp(c, "proxy")) return !strcasecmp(s, "info");
    return 0;
}

static int isSubscribeCommand(const char *c) {
    return !strcasecmp(c, "subscribe") || !strcasecmp(c, "psubscribe") || !strcasecmp(c, "ssubscribe");
}

static int isUnsubscribeCommand(const char *c) {
    return !strcasecmp(c, "unsubscribe") || !strcasecmp(c, "punsubscribe") || !strcasecmp(c, "sunsubscribe");
}

/* Follows the state a command changes on the client side, as Valkey's cli
 * does: the database (SELECT, undone by a failed EXEC or DISCARD), MULTI,
 * RESET, the protocol after HELLO, SELECT again after a late AUTH. */
static void cliTrackCommand(int argc, char **argv, const cliReply *r) {
    int ok = r->type != CLI_REPLY_ERROR;
    const char *c = argv[0];
    if (!strcasecmp(c, "select") && argc == 2 && ok) {
        cli.want_db = cli.db = atoi(argv[1]);
    } else if (!strcasecmp(c, "auth") && (argc == 2 || argc == 3)) {
        cliSelectDb();
    } else if (!strcasecmp(c, "multi") && argc == 1 && ok) {
        cli.in_multi = 1;
        cli.pre_multi_db = cli.db;
    } else if (!strcasecmp(c, "exec") && argc == 1 && cli.in_multi) {
        cli.in_multi = 0;
        if (!ok || r->type == CLI_REPLY_NIL) cli.want_db = cli.db = cli.pre_multi_db;
    } else if (!strcasecmp(c, "discard") && argc == 1 && ok) {
        cli.in_multi = 0;
        cli.want_db = cli.db = cli.pre_multi_db;
    } else if (!strcasecmp(c, "reset") && argc == 1 && ok) {
        cli.in_multi = 0;
        cli.want_db = cli.db = 0;
        cli.resp = 2;
    } else if (!strcasecmp(c, "hello")) {
        if (r->type == CLI_REPLY_MAP) cli.resp = 3;
        if (r->type == CLI_REPLY_ARRAY) cli.resp = 2;
    }
}

/* -c: a MOVED/ASK error moves the connection to the node it names (the
 * host may be empty: keep ours). Returns 1 when r was one. */
static int cliFollowRedirect(const cliReply *r) {
    if (!config.cluster_mode || r->type != CLI_REPLY_ERROR) return 0;
    int ask = !strncmp(r->str, "ASK ", 4);
    if (!ask && strncmp(r->str, "MOVED ", 6)) return 0;
    const char *slot = strchr(r->str, ' ') + 1;
    const char *addr = strchr(slot, ' ');
    const char *colon = addr ? strrchr(addr + 1, ':') : NULL;
    long long port;
    if (!colon || !string2ll(colon + 1, strlen(colon + 1), &port) || port < 0 || port > 65535) return 0;
    sds host = colon > addr + 1 ? sdsnewlen(addr + 1, (size_t)(colon - addr - 1)) : sdsnew(cli.addr.host);
    cliSetAddress(host, (int)port);
    sdsfree(host);
    if (cli.interactive)
        printf("-> Redirected to slot [%d] located at %s:%d\n", atoi(slot), cli.addr.host, cli.addr.port);
    cli.redirect = 1;
    cli.send_asking = ask;
    return 1;
}

/* Reads the reply of the command just sent. Push messages before it are
 * printed (--show-pushes), except that for [un]subscribe the first
 * confirmation is the reply. CLI_OK with *out, or CLI_ERR. */
static int cliReadCommandReply(const char *cmd, cliReply **out) {
    int pubsub_cmd = isSubscribeCommand(cmd) || isUnsubscribeCommand(cmd);
    for (;;) {
        if (cliReadReply(out) != CLI_OK) return CLI_ERR;
        cliReply *r = *out;
        if (pubsub_cmd && cliIsPubsubMessage(r) && !strcasecmp(r->element[0]->str, cmd)) return CLI_OK;
        if (r->type != CLI_REPLY_PUSH) return CLI_OK;
        cliPrintPush(r);
        cliReplyFree(r);
    }
}

/* SIGINT while MONITOR or SUBSCRIBE runs in the REPL: shut the socket
 * down, so the blocking read returns and the REPL reconnects. */
static void cliInterruptBlockingCommand(int sig) {
    (void)sig;
    if (cli.blocking_cmd && cli.conn) {
        cliConnInterrupt(cli.conn);
        cliInterrupted = 1;
    } else {
        _exit(1);
    }
}

/* After MONITOR or [p|s]subscribe: prints every message until the
 * connection ends (Ctrl-C in the REPL, which then reconnects). Returns
 * CLI_ERR when the connection was lost otherwise. */
static int cliReadMessages(void) {
    cliReply *r;
    cli.blocking_cmd = 1;
    cliInterrupted = 0;
    while (cliReadReply(&r) == CLI_OK) {
        cliPrintReply(r, 0);
        cliReplyFree(r);
    }
    cli.blocking_cmd = 0;
    if (cli.interactive && cliInterrupted) {
        cliInterrupted = 0;
        cliConnect(0);
        return CLI_OK;
    }
    fprintf(stderr, "Error: %s\n", cli.lasterr);
    return CLI_ERR;
}

/* Sends one command and prints its reply. Returns CLI_OK, CLI_ERR on a
 * lost connection (reported), or 1 for an error reply. In the REPL a
 * command whose connection was lost is sent once more on a new one. */
static int cliSendCommandOnce(int argc, char **argv, const size_t *lens) {
    const char *c = argv[0];
    int verbatim = cliIsVerbatimCommand(argc, argv);
    cliReply *r = NULL;
    for (int attempt = 0;; attempt++) {
        if (!cli.conn && cliConnect(0) != CLI_OK && !cli.conn) return CLI_ERR;
        if (cliWriteCommand(argc, argv, lens) == CLI_OK) {
            if (!strcasecmp(c, "sync") || !strcasecmp(c, "psync")) {
                printf("Entering replica output mode...  (press Ctrl-C to quit)\n");
                fflush(stdout);
                replicaMode(0);
                return CLI_ERR; /* The stream ended with the connection. */
            }
            cliReadCommandReply(c, &r);
        }
        if (r) break;
        if (!strcasecmp(c, "shutdown")) return CLI_OK; /* It went down, as asked. */
        if (!cli.interactive || attempt > 0) {
            fprintf(stderr, "Error: %s\n", cli.lasterr);
            return CLI_ERR;
        }
    }
    if (cliFollowRedirect(r)) {
        cliReplyFree(r);
        return CLI_OK;
    }
    int is_err = r->type == CLI_REPLY_ERROR;
    if (is_err && config.set_errcode && !cli.interactive) {
        fflush(stdout);
        fprintf(stderr, "%s\n", r->str);
        exit(1);
    }
    cliPrintReply(r, verbatim);
    cliTrackCommand(argc, argv, r);
    cliReplyFree(r);
    if (is_err) return 1;

    if (!strcasecmp(c, "monitor")) return cliReadMessages();
    if (isSubscribeCommand(c)) {
        /* One confirmation per channel (at least one). */
        for (int left = argc - 2; left > 0; left--) {
            if (cliReadCommandReply(c, &r) != CLI_OK) break;
            cliPrintReply(r, 0);
            cliReplyFree(r);
        }
        if (cli.interactive && cli.output == CLI_OUTPUT_STANDARD)
            printf("Reading messages... (press Ctrl-C to quit)\n");
        return cliReadMessages();
    }
    return CLI_OK;
}

/* Runs a command `repeat` times (-1 forever), config.interval apart,
 * following -c redirections (which start the repetitions anew on the
 * node named). "help" is answered here. Returns CLI_OK, CLI_ERR
 * (connection lost) or 1 (the last reply was an error). */
static int cliIssueCommand(int argc, char **argv, const size_t *lens, long long repeat) {
    if (!strcasecmp(argv[0], "help") || !strcasecmp(argv[0], "?")) {
        cliOutputHelp(argc - 1, argv + 1);
        return CLI_OK;
    }
    int ret = CLI_OK;
    for (int redirects = 0;; redirects++) {
        if (redirects > CLI_MAX_REDIRECTS) {
            /* Nodes sending the command round in circles. */
            fprintf(stderr, "Error: too many cluster redirections\n");
            cli.redirect = cli.send_asking = 0;
            return CLI_ERR;
        }
        if (cli.redirect) {
            cli.redirect = 0;
            if (cliConnect(0) != CLI_OK && !cli.conn) return CLI_ERR;
        }
        if (cli.send_asking) {
            cli.send_asking = 0;
            cliReply *r = cliCommandArgv(1, (char *[]){"ASKING"});
            if (!r) {
                fprintf(stderr, "\nI/O error\n");
                return CLI_ERR;
            }
            if (r->type == CLI_REPLY_ERROR) fprintf(stderr, "ASKING failed: %s\n", r->str);
            int failed = r->type == CLI_REPLY_ERROR;
            cliReplyFree(r);
            if (failed) return CLI_ERR;
        }
        for (long long j = 0; repeat < 0 || j < repeat; j++) {
            ret = cliSendCommandOnce(argc, argv, lens);
            if (ret == CLI_ERR || cli.redirect) break;
            if (repeat < 0 || j + 1 < repeat) cliSleep(config.interval);
        }
        if (!cli.redirect) return ret;
    }
}

/* Reads all of stdin into a new sds. */
static sds cliReadStdin(void) {
    sds s = sdsempty();
    char chunk[16384];
    ssize_t n;
    while ((n = read(STDIN_FILENO, chunk, sizeof(chunk))) != 0) {
        if (n < 0) {
            if (errno == EINTR) continue;
            perror("Reading from standard input");
            exit(1);
        }
        s = sdscatlen(s, chunk, (size_t)n);
    }
    return s;
}

/* The command of argv: words unquoted with --quoted-input, stdin as the
 * last argument (-x) or in place of the -X tag. Runs it and returns the
 * exit status. */
static int cliRunArgvCommand(int argc, char **argv) {
    sds *args = zmalloc(sizeof(sds) * (size_t)(argc + 1));
    int n = 0;
    for (; n < argc; n++) {
        if (!config.quoted_input) {
            args[n] = sdsnew(argv[n]);
            continue;
        }
        int count;
        sds *parts = sdssplitargs(argv[n], &count);
        if (!parts || count != 1) {
            sdsfreesplitres(parts, count);
            sdsfreesplitres(args, n);
            printf("Invalid quoted string\n");
            return 1;
        }
        args[n] = parts[0];
        parts[0] = NULL;
        sdsfreesplitres(parts, count);
    }
    if (config.stdin_last_arg) {
        args[n++] = cliReadStdin();
    } else if (config.stdin_tag) {
        int j;
        for (j = 0; j < n && strcmp(args[j], config.stdin_tag); j++) {
        }
        if (j == n) {
            sdsfreesplitres(args, n);
            fprintf(stderr, "Using -X option but stdin tag not match.\n");
            return 1;
        }
        sdsfree(args[j]);
        args[j] = cliReadStdin();
    }
    size_t *lens = zmalloc(sizeof(size_t) * (size_t)n);
    for (int j = 0; j < n; j++) lens[j] = sdslen(args[j]);
    int ret = cliIssueCommand(n, args, lens, config.repeat);
    zfree(lens);
    sdsfreesplitres(args, n);
    return ret == CLI_ERR ? 1 : 0;
}

/* ---------------------------------------------------------------------------
 * Help, hints and preferences
 * ------------------------------------------------------------------------- */

/* Builds cli.help from the server's COMMAND DOCS (connecting quietly if
 * needed), unless it has it already. Without a server, or one without
 * COMMAND DOCS, the table is empty (no hints, help knows no command) and
 * the next call tries again. */
static void cliLoadHelp(void) {
    if (cli.help && cli.help->len) return;
    cliHelpFree(cli.help);
    cliReply *docs = NULL;
    if (cli.conn || cliConnect(CLI_CONNECT_QUIET) == CLI_OK || cli.conn)
        docs = cliCommandArgv(2, (char *[]){"COMMAND", "DOCS"});
    cli.help = cliHelpCreate(docs && docs->type != CLI_REPLY_ERROR ? docs : NULL);
    cliReplyFree(docs);
}

/* `help` alone. */
static void cliOutputGenericHelp(void) {
    printf("valkey-cli %s\n"
           "To get help about Valkey commands type:\n"
           "      \"help @<group>\" to get a list of commands in <group>\n"
           "      \"help <command>\" for help on <command>\n"
           "      \"help <tab>\" to get a list of possible help topics\n"
           "      \"quit\" to exit\n"
           "\n"
           "To set valkey-cli preferences:\n"
           "      \":set hints\" enable online hints\n"
           "      \":set nohints\" disable online hints\n"
           "Set your preferences in ~/.valkeyclirc\n",
           CLI_VERSION);
}

/* `help [<command> | @<group>]`, in the REPL or from argv. */
static void cliOutputHelp(int argc, char **argv) {
    if (argc == 0) {
        cliOutputGenericHelp();
        return;
    }
    cliLoadHelp();
    sds out = cliHelpFormat(cli.help, argc, argv);
    cliWriteOut(out);
    sdsfree(out);
}

/* The path of a dot file: $env if set (NULL for /dev/null), else
 * $HOME/name. A new sds or NULL. */
static sds cliDotfilePath(const char *env, const char *name) {
    const char *path = getenv(env);
    if (path && *path) return strcmp(path, "/dev/null") ? sdsnew(path) : NULL;
    const char *home = getenv("HOME");
    if (home && *home) return sdscatfmt(sdsempty(), "%s/%s", home, name);
    return NULL;
}

/* ":set hints", ":set nohints", ":get pubsub", typed in the REPL
 * (interactive) or read from ~/.valkeyclirc. */
static void cliSetPreferences(int argc, char **argv, int interactive) {
    const char *from = interactive ? "" : ".valkeyclirc: ";
    if (!strcasecmp(argv[0], ":set") && argc >= 2) {
        if (!strcasecmp(argv[1], "hints"))
            cli.hints = 1;
        else if (!strcasecmp(argv[1], "nohints"))
            cli.hints = 0;
        else
            printf("%sunknown valkey-cli preference '%s'\n", from, argv[1]);
    } else if (!strcasecmp(argv[0], ":get") && argc >= 2) {
        if (!strcasecmp(argv[1], "pubsub"))
            printf("%d\n", cli.blocking_cmd);
        else
            printf("%sunknown valkey-cli get option '%s'\n", from, argv[1]);
    } else {
        printf("%sunknown valkey-cli internal command '%s'\n", from, argv[0]);
    }
    fflush(stdout);
}

/* Applies the lines of ~/.valkeyclirc (or $VALKEYCLI_RCFILE). */
static void cliLoadPreferences(void) {
    sds path = cliDotfilePath(CLI_RCFILE_ENV, CLI_RCFILE_DEFAULT);
    FILE *fp = path ? fopen(path, "r") : NULL;
    char buf[1024];
    while (fp && fgets(buf, sizeof(buf), fp)) {
        int argc;
        sds *argv = sdssplitargs(buf, &argc);
        if (argv && argc > 0) cliSetPreferences(argc, argv, 0);
        sdsfreesplitres(argv, argc);
    }
    if (fp) fclose(fp);
    sdsfree(path);
}

/* The hint for the line typed so far, as Valkey shows it after the
 * cursor: with a leading space unless the line ends with one. A new sds,
 * or NULL for no hint. */
static sds cliHintForLine(const char *line) {
    /* The debugger's commands are not the server's: no hints for them. */
    if (!cli.hints || !cli.help || cli.ldb == LDB_RUNNING) return NULL;
    sds hint = cliHelpHint(cli.help, line);
    if (!hint || sdslen(hint) == 0) {
        sdsfree(hint);
        return NULL;
    }
    size_t len = strlen(line);
    if (len == 0 || !isspace((unsigned char)line[len - 1])) {
        sds spaced = sdscatsds(sdsnew(" "), hint);
        sdsfree(hint);
        hint = spaced;
    }
    return hint;
}

/* --test_hint <line>: prints the hint for the line. Valkey's test hook. */
static int cliTestHint(const char *line) {
    cliLoadHelp();
    sds hint = cliHelpHint(cli.help, line);
    printf("%s\n", hint ? hint : "");
    sdsfree(hint);
    return 0;
}

/* --test_hint_file <file>: each line (not starting with #) holds an input
 * and the hint expected for it, quoted. Prints the failures and
 * "SUCCESS: n/n passed" (or FAILURE); the exit status is the number of
 * failures. */
static int cliTestHintFile(const char *file) {
    FILE *fp = fopen(file, "r");
    if (!fp) {
        fprintf(stderr, "Can't open file '%s': %s\n", file, strerror(errno));
        return 255;
    }
    cliLoadHelp();
    int pass = 0, fail = 0;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, fp) != -1) {
        if (line[0] == '#') continue;
        int argc;
        sds *argv = sdssplitargs(line, &argc);
        if (!argv || argc == 0) {
            sdsfreesplitres(argv, argc);
            continue;
        }
        if (argc == 1) {
            fprintf(stderr, "Missing expected hint for input '%s'\n", argv[0]);
            exit(255);
        }
        sds hint = cliHelpHint(cli.help, argv[0]);
        if (config.verbose) printf("Input: '%s', Expected: '%s', Hint: '%s'\n", argv[0], argv[1], hint ? hint : "");
        while (hint && sdslen(hint) > 0 && hint[sdslen(hint) - 1] == ' ') sdsrange(hint, 0, -2);
        if (!hint || strcmp(hint, argv[1])) {
            fprintf(stderr, "Test case '%s' FAILED: expected '%s', got '%s'\n", argv[0], argv[1],
                    hint ? hint : "(null)");
            fail++;
        } else {
            pass++;
        }
        sdsfree(hint);
        sdsfreesplitres(argv, argc);
    }
    free(line);
    fclose(fp);
    printf("%s: %d/%d passed\n", fail == 0 ? "SUCCESS" : "FAILURE", pass, pass + fail);
    return fail;
}

/* ---------------------------------------------------------------------------
 * The REPL
 * ------------------------------------------------------------------------- */

static EditLine *replEl;
static History *replHist;
static char *replHistFile;
static char replPromptBuf[400];
static char replHintBuf[400];

/* "127.0.0.1:6379[2](TX)> ", "valkey /tmp/s.sock> ", "not connected> ", or
 * "lua debugger> " in a debugging session. */
static const char *replPromptText(void) {
    if (cli.ldb == LDB_RUNNING) return "lua debugger> ";
    if (!cli.conn) return "not connected> ";
    char db[32] = "";
    if (cli.db) snprintf(db, sizeof(db), "[%d]", cli.db);
    snprintf(replPromptBuf, sizeof(replPromptBuf), "%s%s%s%s> ", cli.addr.path ? "valkey " : "", cli.addrstr, db,
             cli.in_multi ? "(TX)" : "");
    return replPromptBuf;
}

static char *replPrompt(EditLine *el) {
    (void)el;
    return (char *)replPromptText();
}

/* The hint goes in libedit's right prompt, in grey (the \1 pairs tell
 * libedit that the colour codes take no room). Refreshed on each full
 * redraw, which the space key forces (replSpace). */
static char *replRightPrompt(EditLine *el) {
    const LineInfo *li = el_line(el);
    replHintBuf[0] = '\0';
    size_t len = (size_t)(li->lastchar - li->buffer);
    char line[1024];
    if (len >= sizeof(line)) return replHintBuf;
    memcpy(line, li->buffer, len);
    line[len] = '\0';
    sds hint = cliHintForLine(line);
    if (!hint) return replHintBuf;
    /* libedit hides a right prompt that does not fit: cut it to the room
     * left on the line. */
    int cols = 80;
    el_get(el, EL_GETTC, "co", &cols);
    long room = (long)cols - (long)strlen(replPromptText()) - (long)len - 2;
    if (room > (long)sizeof(replHintBuf) - 32) room = (long)sizeof(replHintBuf) - 32;
    if (room >= 8) {
        if ((long)sdslen(hint) > room)
            snprintf(replHintBuf, sizeof(replHintBuf), "\1\033[90m\1%.*s...\1\033[0m\1", (int)room - 3, hint);
        else
            snprintf(replHintBuf, sizeof(replHintBuf), "\1\033[90m\1%s\1\033[0m\1", hint);
    }
    sdsfree(hint);
    return replHintBuf;
}

/* Space: insert it and redraw, so the hint follows what was typed. */
static unsigned char replSpace(EditLine *el, int ch) {
    (void)ch;
    el_insertstr(el, " ");
    return CC_REFRESH;
}

/* Tab: completes the line from the help table (commands; after "help ",
 * groups too): one candidate replaces the line, several are listed and
 * their common prefix is kept. */
static unsigned char replComplete(EditLine *el, int ch) {
    (void)ch;
    const LineInfo *li = el_line(el);
    if (!cli.help || cli.ldb == LDB_RUNNING || li->cursor != li->lastchar) return CC_ERROR;
    sds buf = sdsnewlen(li->buffer, (size_t)(li->lastchar - li->buffer));
    size_t n;
    sds *c = cliHelpCompletions(cli.help, buf, &n);
    unsigned char ret = CC_REFRESH_BEEP;
    if (n > 0) {
        size_t common = sdslen(c[0]);
        for (size_t j = 1; j < n; j++) {
            size_t k = 0;
            while (k < common && k < sdslen(c[j]) &&
                   tolower((unsigned char)c[0][k]) == tolower((unsigned char)c[j][k]))
                k++;
            common = k;
        }
        if (n > 1 && common <= sdslen(buf)) {
            printf("\n");
            for (size_t j = 0; j < n; j++) printf("%s%s", c[j], j + 1 < n ? "  " : "\n");
            ret = CC_REDISPLAY;
        } else {
            el_deletestr(el, (int)sdslen(buf));
            sds repl = sdsnewlen(c[0], common);
            el_insertstr(el, repl);
            sdsfree(repl);
            ret = CC_REFRESH;
        }
    }
    for (size_t j = 0; j < n; j++) sdsfree(c[j]);
    zfree(c);
    sdsfree(buf);
    return ret;
}

/* Lines never written to the history: they may carry passwords (Valkey's
 * list: AUTH, ACL SETUSER/DELUSER/GETUSER, CONFIG SET of a password,
 * HELLO ... AUTH, MIGRATE ... AUTH/AUTH2, SENTINEL's auth settings). */
static int replIsSensitive(int argc, char **argv) {
    static const char *secret_configs[] = {"masterauth",        "masteruser",
                                           "primaryuser",       "primaryauth",
                                           "tls-key-file-pass", "tls-client-key-file-pass",
                                           "requirepass"};
    if (argc == 0) return 0;
    if (!strcasecmp(argv[0], "auth")) return 1;
    if (argc > 1 && !strcasecmp(argv[0], "acl"))
        return !strcasecmp(argv[1], "setuser") || !strcasecmp(argv[1], "deluser") || !strcasecmp(argv[1], "getuser");
    if (argc > 2 && !strcasecmp(argv[0], "config") && !strcasecmp(argv[1], "set")) {
        for (int j = 2; j < argc; j += 2)
            for (size_t k = 0; k < sizeof(secret_configs) / sizeof(secret_configs[0]); k++)
                if (!strcasecmp(argv[j], secret_configs[k])) return 1;
        return 0;
    }
    for (int j = 1; j < argc && !strcasecmp(argv[0], "hello"); j++)
        if (!strcasecmp(argv[j], "auth")) return 1;
    for (int j = 1; j < argc && !strcasecmp(argv[0], "migrate"); j++)
        if (!strcasecmp(argv[j], "auth") || !strcasecmp(argv[j], "auth2")) return 1;
    if (argc > 4 && !strcasecmp(argv[0], "sentinel")) {
        if (!strcasecmp(argv[1], "config") && !strcasecmp(argv[2], "set") &&
            (!strcasecmp(argv[3], "sentinel-pass") || !strcasecmp(argv[3], "sentinel-user")))
            return 1;
        if (!strcasecmp(argv[1], "set") && (!strcasecmp(argv[3], "auth-pass") || !strcasecmp(argv[3], "auth-user")))
            return 1;
    }
    return 0;
}

/* Sets up libedit, the history file and the preferences (a terminal only). */
static void replInit(void) {
    HistEvent ev;
    replEl = el_init("valkey-cli", stdin, stdout, stderr);
    replHist = history_init();
    history(replHist, &ev, H_SETSIZE, CLI_HISTORY_SIZE);
    history(replHist, &ev, H_SETUNIQUE, 1);
    el_set(replEl, EL_EDITOR, "emacs");
    el_set(replEl, EL_SIGNAL, 1);
    el_set(replEl, EL_PROMPT, replPrompt);
    el_set(replEl, EL_RPROMPT_ESC, replRightPrompt, '\1');
    el_set(replEl, EL_HIST, history, replHist);
    el_set(replEl, EL_ADDFN, "vk-space", "Insert a space and show the hint", replSpace);
    el_set(replEl, EL_BIND, " ", "vk-space", NULL);
    el_set(replEl, EL_ADDFN, "vk-complete", "Complete a command name", replComplete);
    el_set(replEl, EL_BIND, "^I", "vk-complete", NULL);
    el_source(replEl, NULL);
    replHistFile = cliDotfilePath(CLI_HISTFILE_ENV, CLI_HISTFILE_DEFAULT);
    if (replHistFile) history(replHist, &ev, H_LOAD, replHistFile);
    cliLoadPreferences();
}

static void replFree(void) {
    if (replEl) el_end(replEl);
    if (replHist) history_end(replHist);
    sdsfree(replHistFile);
    replEl = NULL;
    replHist = NULL;
    replHistFile = NULL;
}

/* The next line: from libedit on a terminal, else from stdin. A new sds
 * without the newline, or NULL at the end. */
static sds replReadLine(void) {
    if (replEl) {
        int count;
        const char *line = el_gets(replEl, &count);
        if (!line) return NULL;
        sds l = sdsnew(line);
        sdstrim(l, "\r\n");
        return l;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    sds l = n >= 0 ? sdsnewlen(line, (size_t)n) : NULL;
    free(line);
    if (l) sdstrim(l, "\r\n");
    return l;
}

static void replAddHistory(const char *line, int sensitive) {
    HistEvent ev;
    if (!replHist || sensitive) return;
    history(replHist, &ev, H_ENTER, line);
    if (replHistFile) history(replHist, &ev, H_SAVE, replHistFile);
}

/* "5 incr x": a leading count repeats the command. Returns the count (1
 * when there is none; *skip tells), 0 for a bad count. */
static long long replRepeatCount(int argc, char **argv, int *skip) {
    *skip = 0;
    if (argc < 2) return 1;
    char *end;
    errno = 0;
    long long n = strtoll(argv[0], &end, 10);
    if (*end != '\0' || end == argv[0]) return 1;
    *skip = 1;
    if (errno == ERANGE || n <= 0) return 0;
    return n;
}

/* Splits a typed line into words, quotes and escapes understood (NULL
 * for unbalanced quotes). In a debugging session the debugger's "eval
 * <code>" and "e <code>" keep the code as it was typed, as one word, so
 * that Lua's own quotes reach the server untouched (as in Valkey's cli). */
static sds *replSplitLine(const char *line, int *argc) {
    if (cli.ldb == LDB_RUNNING) {
        size_t cmdlen = !strncmp(line, "e ", 2) ? 1 : !strncmp(line, "eval ", 5) ? 4 : 0;
        if (cmdlen) {
            sds *argv = zmalloc(sizeof(sds) * 2);
            argv[0] = sdsnewlen(line, cmdlen);
            argv[1] = sdsnew(line + cmdlen + 1);
            *argc = 2;
            return argv;
        }
    }
    return sdssplitargs(line, argc);
}

/* Runs one line of the REPL. */
static void replRunLine(sds line) {
    int argc;
    sds *argv = replSplitLine(line, &argc);
    if (!argv) {
        printf("Invalid argument(s)\n");
        fflush(stdout);
        replAddHistory(line, 0);
        return;
    }
    if (argc == 0) {
        sdsfreesplitres(argv, argc);
        return;
    }
    int skip;
    long long times = replRepeatCount(argc, argv, &skip);
    if (times == 0) {
        printf("Invalid valkey-cli repeat command option value.\n");
        fflush(stdout);
        sdsfreesplitres(argv, argc);
        return;
    }
    replAddHistory(line, replIsSensitive(argc - skip, argv + skip));
    if (!strcasecmp(argv[0], "quit") || !strcasecmp(argv[0], "exit")) {
        /* In a debugging session too: closing the connection ends it. */
        sdsfreesplitres(argv, argc);
        replFree();
        cliDisconnect();
        exit(0);
    } else if (argv[0][0] == ':') {
        cliSetPreferences(argc, argv, 1);
    } else if (!strcasecmp(argv[0], "restart")) {
        if (config.eval_ldb)
            cli.ldb = LDB_RESTART; /* repl() returns to evalLdbMode(). */
        else
            printf("Use 'restart' only in Lua debugging mode.\n");
    } else if (argc == 3 && !strcasecmp(argv[0], "connect")) {
        if (!strcmp(cli.ct->name, CLI_CONN_UNIX)) cli.ct = cliConnTypeGetByName(CLI_CONN_TCP);
        cli.addr.path = NULL;
        cliSetAddress(argv[1], atoi(argv[2]));
        cli.want_db = 0;
        cli.ldb = LDB_IDLE; /* A session dies with its connection. */
        if (cliConnect(0) == CLI_OK) cliLoadHelp();
    } else if (argc == 1 && !strcasecmp(argv[0], "clear")) {
        printf("\033[H\033[2J");
    } else if (cli.ldb == LDB_RUNNING) {
        ldbRunCommand(argc - skip, argv + skip, times);
    } else {
        long long start = mstime();
        cliIssueCommand(argc - skip, argv + skip, NULL, times);
        long long elapsed = mstime() - start;
        if (elapsed >= CLI_SLOW_COMMAND_MS && cli.output == CLI_OUTPUT_STANDARD)
            printf("(%.2fs)\n", (double)elapsed / 1000);
    }
    fflush(stdout);
    sdsfreesplitres(argv, argc);
}

/* The REPL: reads lines until EOF, quit or exit, then exits 0; returns
 * only when `restart` asks for a new debugging session (the line editor
 * stays set up for the next call). Line editing, history, preferences and
 * hints only on a terminal; the server's help is not asked for during a
 * debugging session, whose connection belongs to the debugger. */
static void repl(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = cliInterruptBlockingCommand;
    sigemptyset(&sa.sa_mask);
    cli.interactive = 1;
    if (isatty(STDIN_FILENO) && !replEl) {
        if (cli.ldb != LDB_RUNNING) cliLoadHelp();
        replInit();
        sigaction(SIGINT, &sa, NULL);
    }
    sds line;
    while ((line = replReadLine()) != NULL) {
        replRunLine(line);
        sdsfree(line);
        if (cli.ldb == LDB_RESTART) return;
    }
    replFree();
    cliDisconnect();
    exit(0);
}

/* --askpass: reads a password from the terminal, echoing '*' per
 * character (from stdin without echo handling when it is not a terminal).
 * A new sds, or NULL when input ended. */
static sds cliAskPassword(const char *prompt) {
    if (!isatty(STDIN_FILENO)) return replReadLine();
    struct termios saved, raw;
    tcgetattr(STDIN_FILENO, &saved);
    raw = saved;
    raw.c_lflag &= ~(ECHO | ICANON);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
    printf("%s", prompt);
    fflush(stdout);
    sds pass = sdsempty();
    for (;;) {
        char c;
        ssize_t n = read(STDIN_FILENO, &c, 1);
        if (n <= 0 || c == 4 /* Ctrl-D */ || c == 3 /* Ctrl-C */) {
            if (n <= 0 || sdslen(pass) == 0 || c == 3) {
                sdsfree(pass);
                pass = NULL;
            }
            break;
        }
        if (c == '\r' || c == '\n') break;
        if (c == 127 || c == 8) {
            if (sdslen(pass)) {
                sdsrange(pass, 0, -2);
                printf("\b \b");
            }
        } else {
            pass = sdscatlen(pass, &c, 1);
            printf("*");
        }
        fflush(stdout);
    }
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    printf("\n");
    fflush(stdout);
    return pass;
}

/* ---------------------------------------------------------------------------
 * --pipe: mass insertion
 * ------------------------------------------------------------------------- */

/* The stream is stdin verbatim followed by "ECHO <marker>": the server
 * answers in order, so the reply that equals the marker is the last one.
 * The marker is random, so data that happens to ECHO something cannot be
 * mistaken for it. */
static struct pipeState {
    aeEventLoop *el;
    cliConn *conn;
    sds obuf;               /* Bytes to send; [opos, len) still pending. */
    size_t opos;
    int stdin_eof;          /* All of stdin is in obuf (marker included). */
    int all_sent;           /* ... and written to the server. */
    char marker[41];
    sds ibuf;
    long long replies, errors;
    long long last_reply_ms; /* For --pipe-timeout. */
    int done;
    int status;
} pipeState;

static void pipeWriteHandler(cliConn *conn);

/* Refills obuf from stdin (non-blocking); at EOF appends the marker. */
static void pipeFill(void) {
    if (pipeState.stdin_eof || sdslen(pipeState.obuf) - pipeState.opos > 64 * 1024) return;
    if (pipeState.opos > 0) {
        sdsrange(pipeState.obuf, (ssize_t)pipeState.opos, -1);
        pipeState.opos = 0;
    }
    pipeState.obuf = sdsMakeRoomFor(pipeState.obuf, 64 * 1024);
    ssize_t n = read(STDIN_FILENO, pipeState.obuf + sdslen(pipeState.obuf), 64 * 1024);
    if (n > 0) {
        sdsIncrLen(pipeState.obuf, n);
    } else if (n == 0) {
        char *argv[] = {"ECHO", pipeState.marker};
        pipeState.obuf = cliAppendCommand(pipeState.obuf, 2, argv, NULL);
        pipeState.stdin_eof = 1;
    } else if (errno != EAGAIN && errno != EINTR) {
        cliFatal("Error reading from stdin: %s", strerror(errno));
    }
}

static void pipeWriteHandler(cliConn *conn) {
    for (;;) {
        pipeFill();
        size_t pending = sdslen(pipeState.obuf) - pipeState.opos;
        if (pending == 0) {
            if (pipeState.stdin_eof) {
                pipeState.all_sent = 1;
                pipeState.last_reply_ms = mstime();
                cliConnSetWriteHandler(conn, NULL);
                printf("All data transferred. Waiting for the last reply...\n");
                fflush(stdout);
            }
            return; /* Nothing to send until stdin has more. */
        }
        ssize_t n = cliConnWrite(conn, pipeState.obuf + pipeState.opos, pending);
        if (n > 0) {
            pipeState.opos += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EAGAIN && cliConnGetState(conn) == CLI_CONN_CONNECTED) return;
        cliFatal("Error writing to the server: %s", cliConnGetLastError(conn));
    }
}

static void pipeReadHandler(cliConn *conn) {
    char perr[128];
    pipeState.ibuf = sdsMakeRoomFor(pipeState.ibuf, CLI_READ_CHUNK);
    ssize_t n = cliConnRead(conn, pipeState.ibuf + sdslen(pipeState.ibuf), sdsavail(pipeState.ibuf));
    if (n <= 0) {
        if (n < 0 && errno == EAGAIN && cliConnGetState(conn) == CLI_CONN_CONNECTED) return;
        cliFatal("Error reading from the server: %s",
                 n == 0 ? "Server closed the connection" : cliConnGetLastError(conn));
    }
    sdsIncrLen(pipeState.ibuf, n);
    pipeState.last_reply_ms = mstime();
    size_t pos = 0;
    while (pos < sdslen(pipeState.ibuf)) {
        cliReply *r;
        ssize_t len = cliReplyParse(pipeState.ibuf + pos, sdslen(pipeState.ibuf) - pos, &r, perr, sizeof(perr));
        if (len == 0) break;
        if (len < 0) cliFatal("Error: %s", perr);
        pos += (size_t)len;
        if (pipeState.stdin_eof && r->type == CLI_REPLY_STRING && r->len == strlen(pipeState.marker) &&
            !memcmp(r->str, pipeState.marker, r->len)) {
            pipeState.done = 1;
        } else {
            if (r->type == CLI_REPLY_ERROR) {
                fprintf(stderr, "%s\n", r->str);
                pipeState.errors++;
            }
            pipeState.replies++;
        }
        cliReplyFree(r);
        if (pipeState.done) break;
    }
    sdsrange(pipeState.ibuf, (ssize_t)pos, -1);
    if (pipeState.done) {
        printf("Last reply received from server.\n");
        aeStop(pipeState.el);
    }
}

/* Once a second: give up after --pipe-timeout seconds without replies
 * once everything was sent. */
static int pipeCron(struct aeEventLoop *el, long long id, void *data) {
    (void)el;
    (void)id;
    (void)data;
    if (pipeState.all_sent && config.pipe_timeout > 0 &&
        mstime() - pipeState.last_reply_ms > config.pipe_timeout * 1000) {
        fprintf(stderr, "No replies for %lld seconds: exiting.\n", config.pipe_timeout);
        pipeState.status = 1;
        aeStop(pipeState.el);
    }
    return 1000;
}

static void pipeConnected(cliConn *conn) {
    if (cliConnGetState(conn) != CLI_CONN_CONNECTED)
        cliFatal("Could not connect to Valkey at %s: %s", cli.addrstr, cliConnGetLastError(conn));
    if (cliConnSetReadHandler(conn, pipeReadHandler) == CLI_ERR ||
        cliConnSetWriteHandler(conn, pipeWriteHandler) == CLI_ERR)
        cliFatal("Error: cannot watch the connection");
}

static void pipeBeforeSleep(aeEventLoop *el) {
    cliConnBeforeSleep(el);
}

/* --pipe. AUTH and SELECT asked for by the options go out first in the
 * same stream; their replies are not counted. Returns the exit status: 0,
 * or 1 when a reply was an error or the wait timed out. */
static int pipeMode(void) {
    char err[CLI_ERR_LEN];
    unsigned char rnd[20];
    getRandomBytes(rnd, sizeof(rnd));
    for (size_t j = 0; j < sizeof(rnd); j++) snprintf(pipeState.marker + j * 2, 3, "%02x", rnd[j]);
    pipeState.obuf = sdsempty();
    pipeState.ibuf = sdsempty();
    long long prefix = 0;
    if (config.auth) {
        char *a[] = {"AUTH", (char *)(config.user ? config.user : config.auth), (char *)config.auth};
        pipeState.obuf = config.user ? cliAppendCommand(pipeState.obuf, 3, a, NULL)
                                     : cliAppendCommand(pipeState.obuf, 2, (char *[]){"AUTH", (char *)config.auth}, NULL);
        prefix++;
    }
    if (config.dbnum) {
        char db[32];
        snprintf(db, sizeof(db), "%d", config.dbnum);
        pipeState.obuf = cliAppendCommand(pipeState.obuf, 2, (char *[]){"SELECT", db}, NULL);
        prefix++;
    }
    int fl = fcntl(STDIN_FILENO, F_GETFL);
    if (fl != -1) fcntl(STDIN_FILENO, F_SETFL, fl | O_NONBLOCK);

    pipeState.el = aeCreateEventLoop(1024);
    if (!pipeState.el) cliFatal("Error: cannot create the event loop");
    aeSetBeforeSleepProc(pipeState.el, pipeBeforeSleep);
    aeCreateTimeEvent(pipeState.el, 1000, pipeCron, NULL, NULL);
    pipeState.conn = cliConnConnect(cli.ct, &cli.addr, pipeState.el, pipeConnected, NULL, err, sizeof(err));
    if (!pipeState.conn) cliFatal("Could not connect to Valkey at %s: %s", cli.addrstr, err);
    aeMain(pipeState.el);
    if (fl != -1) fcntl(STDIN_FILENO, F_SETFL, fl);

    pipeState.replies -= prefix;
    printf("errors: %lld, replies: %lld\n", pipeState.errors, pipeState.replies);
    cliConnClose(pipeState.conn);
    aeDeleteEventLoop(pipeState.el);
    sdsfree(pipeState.obuf);
    sdsfree(pipeState.ibuf);
    return pipeState.status || pipeState.errors ? 1 : 0;
}


/* ---------------------------------------------------------------------------
 * --scan, --bigkeys, --memkeys, --hotkeys
 * ------------------------------------------------------------------------- */

/* One SCAN call (MATCH --pattern, COUNT --count): returns the reply, its
 * key array in element[1], and sets *cursor. Exits on an error, with
 * Valkey's messages. The reply is owned by the caller. */
static cliReply *cliScanStep(sds *cursor) {
    int argc = 2;
    char *argv[6] = {"SCAN", *cursor};
    size_t lens[6] = {4, sdslen(*cursor)};
    char count[32];
    if (config.pattern) {
        argv[argc] = "MATCH";
        lens[argc++] = 5;
        argv[argc] = (char *)config.pattern;
        lens[argc++] = config.pattern_buf ? sdslen(config.pattern_buf) : strlen(config.pattern);
    }
    snprintf(count, sizeof(count), "%lld", config.count);
    argv[argc] = "COUNT";
    lens[argc++] = 5;
    argv[argc] = count;
    lens[argc++] = strlen(count);
    if (cliWriteCommand(argc, argv, lens) != CLI_OK) cliFatal("\nI/O error");
    cliReply *r;
    if (cliReadReply(&r) != CLI_OK) cliFatal("\nI/O error");
    if (r->type == CLI_REPLY_ERROR) cliFatal("SCAN error: %s", r->str);
    if (r->type != CLI_REPLY_ARRAY) cliFatal("Non ARRAY response from SCAN!");
    if (r->elements != 2 || !r->element[0]->str || !cliReplyIsAggregate(r->element[1]))
        cliFatal("Invalid element count from SCAN!");
    for (size_t j = 0; j < r->element[1]->elements; j++)
        if (r->element[1]->element[j]->type != CLI_REPLY_STRING) cliFatal("Non STRING key in the SCAN reply!");
    *cursor = sdscpylen(*cursor, r->element[0]->str, r->element[0]->len);
    return r;
}

/* --scan: prints every matching key, one per line (raw, or quoted in the
 * terminal format). -i sleeps between SCAN calls; Ctrl-C stops. */
static int scanMode(void) {
    sds cursor = sdsnew("0");
    cliCatchInterrupt();
    do {
        cliReply *r = cliScanStep(&cursor);
        const cliReply *keys = r->element[1];
        for (size_t j = 0; j < keys->elements; j++) {
            const cliReply *k = keys->element[j];
            if (cli.output == CLI_OUTPUT_STANDARD) {
                sds q = sdscatrepr(sdsempty(), k->str, k->len);
                printf("%s\n", q);
                sdsfree(q);
            } else {
                fwrite(k->str, 1, k->len, stdout);
                fputc('\n', stdout);
            }
        }
        cliReplyFree(r);
        cliSleep(config.interval);
    } while (!cliInterrupted && strcmp(cursor, "0") != 0);
    sdsfree(cursor);
    return 0;
}

/* DBSIZE, for the progress percentages. */
static unsigned long long cliDbSize(void) {
    cliReply *r = cliModeCommand(1, (char *[]){"DBSIZE"});
    if (r->type == CLI_REPLY_ERROR) cliFatal("Couldn't determine DBSIZE: %s", r->str);
    if (r->type != CLI_REPLY_INTEGER) cliFatal("Non INTEGER response from DBSIZE!");
    unsigned long long n = r->integer > 0 ? (unsigned long long)r->integer : 0;
    cliReplyFree(r);
    return n;
}

/* READONLY, for a cluster replica; a server without cluster support
 * refusing it is fine. */
static void cliSendReadOnly(void) {
    cliReply *r = cliModeCommand(1, (char *[]){"READONLY"});
    if (r->type == CLI_REPLY_ERROR && strcmp(r->str, "ERR This instance has cluster support disabled"))
        cliFatal("Error: %s", r->str);
    cliReplyFree(r);
}

/* Per-type statistics of --bigkeys / --memkeys. */
typedef struct keyTypeStats {
    sds name;            /* TYPE reply. */
    const char *sizecmd; /* Command giving the size, NULL if unknown (module types). */
    const char *unit;    /* "bytes", "items", ... */
    unsigned long long count, total, biggest;
    sds biggest_key;
} keyTypeStats;

/* The index of type name's stats, added as an "other" type (unit "?",
 * no size command: a module type) if new. The array may move. */
static size_t keyTypeFind(keyTypeStats **types, size_t *ntypes, const char *name) {
    for (size_t j = 0; j < *ntypes; j++)
        if (!strcmp((*types)[j].name, name)) return j;
    *types = zrealloc(*types, sizeof(keyTypeStats) * (*ntypes + 1));
    keyTypeStats *t = &(*types)[*ntypes];
    memset(t, 0, sizeof(*t));
    t->name = sdsnew(name);
    t->unit = "?";
    return (*ntypes)++;
}

/* "[12.34%] " progress, the share of DBSIZE sampled when the batch began. */
static double bigKeysPercent(unsigned long long sampled, unsigned long long total) {
    return total ? 100 * (double)sampled / (double)total : 0;
}

/* Pipelines one command per key of a SCAN batch: "<cmd> <key> [args]".
 * Returns the replies (caller frees them and the array). */
static cliReply **cliPipelinePerKey(const cliReply *keys, const char *const *cmd, int cmdargs,
                                    const char *const *after, int afterargs, const int *skip) {
    sds req = sdsempty();
    size_t n = 0;
    for (size_t j = 0; j < keys->elements; j++) {
        if (skip && skip[j]) continue;
        char *argv[8];
        size_t lens[8];
        int argc = 0;
        for (int a = 0; a < cmdargs; a++, argc++) {
            argv[argc] = (char *)cmd[a];
            lens[argc] = strlen(cmd[a]);
        }
        argv[argc] = keys->element[j]->str;
        lens[argc++] = keys->element[j]->len;
        for (int a = 0; a < afterargs; a++, argc++) {
            argv[argc] = (char *)after[a];
            lens[argc] = strlen(after[a]);
        }
        req = cliAppendCommand(req, argc, argv, lens);
        n++;
    }
    cliReply **replies = zcalloc(sizeof(cliReply *) * (n ? n : 1));
    if (n && cliPipeline(req, n, replies) != CLI_OK) cliFatal("\nI/O error");
    sdsfree(req);
    return replies;
}

/* Pipelines TYPE for a batch of keys; out[j] is the index of key j's type
 * stats, -1 when it vanished since SCAN. Exits on an error, as Valkey. */
static void bigKeysTypes(const cliReply *keys, keyTypeStats **types, size_t *ntypes, long *out) {
    const char *type_cmd[] = {"TYPE"};
    cliReply **r = cliPipelinePerKey(keys, type_cmd, 1, NULL, 0, NULL);
    for (size_t j = 0; j < keys->elements; j++) {
        if (r[j]->type != CLI_REPLY_STATUS) {
            if (r[j]->type == CLI_REPLY_ERROR) cliFatal("TYPE returned an error: %s", r[j]->str);
            cliFatal("Invalid reply type (%d) for TYPE on key '%s'!", (int)r[j]->type, keys->element[j]->str);
        }
        out[j] = strcmp(r[j]->str, "none") ? (long)keyTypeFind(types, ntypes, r[j]->str) : -1;
        cliReplyFree(r[j]);
    }
    zfree(r);
}

/* Pipelines the size command of each key's type (or MEMORY USAGE) and
 * fills sizes[]; 0 for vanished keys, unknown types, and non-integers. */
static void bigKeysSizes(const cliReply *keys, keyTypeStats **types, int memkeys, unsigned long long *sizes) {
    int *skip = zcalloc(sizeof(int) * (keys->elements ? keys->elements : 1));
    size_t asked = 0;
    for (size_t j = 0; j < keys->elements; j++) {
        skip[j] = !types[j] || (!memkeys && !types[j]->sizecmd);
        if (!skip[j]) asked++;
    }
    char samples[32];
    snprintf(samples, sizeof(samples), "%lld", config.memkeys_samples);
    const char *mem_cmd[] = {"MEMORY", "USAGE"}, *mem_after[] = {"SAMPLES", samples};
    cliReply **r = NULL;
    if (memkeys) {
        r = cliPipelinePerKey(keys, mem_cmd, 2, mem_after, config.memkeys_samples ? 2 : 0, skip);
    } else if (asked) {
        /* One pipeline of "<sizecmd> <key>", in key order. */
        sds req = sdsempty();
        for (size_t j = 0; j < keys->elements; j++) {
            if (skip[j]) continue;
            char *argv[2] = {(char *)types[j]->sizecmd, keys->element[j]->str};
            size_t lens[2] = {strlen(types[j]->sizecmd), keys->element[j]->len};
            req = cliAppendCommand(req, 2, argv, lens);
        }
        r = zcalloc(sizeof(cliReply *) * asked);
        if (cliPipeline(req, asked, r) != CLI_OK) cliFatal("\nI/O error");
        sdsfree(req);
    }
    for (size_t j = 0, k = 0; j < keys->elements; j++) {
        sizes[j] = 0;
        if (skip[j]) continue;
        cliReply *s = r[k++];
        if (s->type == CLI_REPLY_INTEGER) {
            sizes[j] = s->integer > 0 ? (unsigned long long)s->integer : 0;
        } else {
            fprintf(stderr, "Warning:  %s on '%s' failed (may have changed type)\n",
                    memkeys ? "MEMORY USAGE" : types[j]->sizecmd, keys->element[j]->str);
        }
        cliReplyFree(s);
    }
    zfree(r);
    zfree(skip);
}

/* The summary of --bigkeys / --memkeys. */
static void bigKeysSummary(keyTypeStats *types, size_t ntypes, int memkeys, unsigned long long sampled,
                           unsigned long long keylen, double pct) {
    printf("\n-------- summary -------\n\n");
    if (cliInterrupted) printf("[%05.2f%%] ", pct);
    printf("Sampled %llu keys in the keyspace!\n", sampled);
    printf("Total key length in bytes is %llu (avg len %.2f)\n\n", keylen,
           keylen ? (double)keylen / (double)sampled : 0);
    for (size_t j = 0; j < ntypes; j++) {
        if (types[j].biggest_key)
            printf("Biggest %6s found '%s' has %llu %s\n", types[j].name, types[j].biggest_key, types[j].biggest,
                   memkeys ? "bytes" : types[j].unit);
    }
    printf("\n");
    for (size_t j = 0; j < ntypes; j++) {
        keyTypeStats *t = &types[j];
        printf("%llu %ss with %llu %s (%05.2f%% of keys, avg size %.2f)\n", t->count, t->name, t->total,
               memkeys ? "bytes" : t->unit, sampled ? 100 * (double)t->count / (double)sampled : 0,
               t->count ? (double)t->total / (double)t->count : 0);
    }
}

/* --bigkeys (memkeys = 0) or --memkeys: scans the keyspace, pipelines the
 * type and size of each batch of keys, prints each type's biggest key as
 * found, then a summary. Ctrl-C stops the scan and prints the summary. */
static int bigKeysMode(int memkeys) {
    /* In the order Valkey's cli lists them (its hash table's order). */
    static const struct {
        const char *name, *sizecmd, *unit;
    } known[] = {{"list", "LLEN", "items"},      {"hash", "HLEN", "fields"}, {"string", "STRLEN", "bytes"},
                 {"stream", "XLEN", "entries"}, {"set", "SCARD", "members"}, {"zset", "ZCARD", "members"}};
    size_t ntypes = 0;
    keyTypeStats *types = NULL;
    for (size_t j = 0; j < sizeof(known) / sizeof(known[0]); j++) {
        size_t i = keyTypeFind(&types, &ntypes, known[j].name);
        keyTypeStats *t = &types[i];
        t->sizecmd = known[j].sizecmd;
        t->unit = known[j].unit;
    }
    cliCatchInterrupt();
    unsigned long long total_keys = cliDbSize(), sampled = 0, keylen = 0, scans = 0;
    printf("\n# Scanning the entire keyspace to find biggest keys as well as\n"
           "# average sizes per key type.  You can use -i 0.1 to sleep 0.1 sec\n"
           "# per 100 SCAN commands (not usually needed).\n\n");
    cliSendReadOnly();
    sds cursor = sdsnew("0");
    double pct = 0;
    do {
        pct = bigKeysPercent(sampled, total_keys);
        cliReply *scan = cliScanStep(&cursor);
        scans++;
        const cliReply *keys = scan->element[1];
        size_t n = keys->elements ? keys->elements : 1;
        long *idx = zmalloc(sizeof(long) * n);
        keyTypeStats **of = zcalloc(sizeof(keyTypeStats *) * n);
        unsigned long long *sizes = zcalloc(sizeof(unsigned long long) * n);
        bigKeysTypes(keys, &types, &ntypes, idx);
        for (size_t j = 0; j < keys->elements; j++) of[j] = idx[j] >= 0 ? &types[idx[j]] : NULL;
        bigKeysSizes(keys, of, memkeys, sizes);
        for (size_t j = 0; j < keys->elements; j++) {
            keyTypeStats *t = of[j];
            if (!t) continue; /* Deleted since SCAN. */
            t->total += sizes[j];
            t->count++;
            keylen += keys->element[j]->len;
            sampled++;
            if (t->biggest < sizes[j]) {
                sdsfree(t->biggest_key);
                t->biggest_key = sdscatrepr(sdsempty(), keys->element[j]->str, keys->element[j]->len);
                printf("[%05.2f%%] Biggest %-6s found so far '%s' with %llu %s\n", pct, t->name, t->biggest_key,
                       sizes[j], memkeys ? "bytes" : t->unit);
                t->biggest = sizes[j];
            }
            if (sampled % CLI_PROGRESS_EVERY == 0) printf("[%05.2f%%] Sampled %llu keys so far\n", pct, sampled);
        }
        zfree(idx);
        zfree(of);
        zfree(sizes);
        cliReplyFree(scan);
        if (config.interval > 0 && scans % CLI_SCAN_SLEEP_EVERY == 0) cliSleep(config.interval);
    } while (!cliInterrupted && strcmp(cursor, "0") != 0);
    sdsfree(cursor);
    bigKeysSummary(types, ntypes, memkeys, sampled, keylen, pct);
    for (size_t j = 0; j < ntypes; j++) {
        sdsfree(types[j].name);
        sdsfree(types[j].biggest_key);
    }
    zfree(types);
    return 0;
}

/* --hotkeys' table: the CLI_HOTKEYS_COUNT highest access counters seen,
 * in ascending order (0 = free slot). */
typedef struct hotKeys {
    unsigned long long counter[CLI_HOTKEYS_COUNT];
    sds key[CLI_HOTKEYS_COUNT];
} hotKeys;

/* Offers a key with its counter to the table. Returns the slot it took,
 * or -1 when it is not hotter than the coldest kept. */
static int hotKeysOffer(hotKeys *h, const char *key, size_t keylen, unsigned long long freq) {
    int below = 0; /* slots with a lower counter, from the coldest up */
    while (below < CLI_HOTKEYS_COUNT && freq > h->counter[below]) below++;
    if (below == 0) return -1;
    int slot = below - 1;
    if (slot > 0 && h->counter[slot] != 0) {
        /* Full up to here: drop the coldest, slide the others down. */
        sdsfree(h->key[0]);
        memmove(h->counter, h->counter + 1, sizeof(h->counter[0]) * (size_t)slot);
        memmove(h->key, h->key + 1, sizeof(h->key[0]) * (size_t)slot);
    } else {
        sdsfree(h->key[slot]);
    }
    h->counter[slot] = freq;
    h->key[slot] = sdscatrepr(sdsempty(), key, keylen);
    return slot;
}

/* --hotkeys: scans the keyspace with OBJECT FREQ (an LFU maxmemory-policy
 * is needed) and prints the 16 most accessed keys. */
static int hotKeysMode(void) {
    hotKeys hot;
    memset(&hot, 0, sizeof(hot));
    cliCatchInterrupt();
    unsigned long long total_keys = cliDbSize(), sampled = 0, scans = 0;
    printf("\n# Scanning the entire keyspace to find hot keys as well as\n"
           "# average sizes per key type.  You can use -i 0.1 to sleep 0.1 sec\n"
           "# per 100 SCAN commands (not usually needed).\n\n");
    cliSendReadOnly();
    sds cursor = sdsnew("0");
    double pct = 0;
    const char *freq_cmd[] = {"OBJECT", "FREQ"};
    do {
        pct = bigKeysPercent(sampled, total_keys);
        cliReply *scan = cliScanStep(&cursor);
        scans++;
        const cliReply *keys = scan->element[1];
        cliReply **r = cliPipelinePerKey(keys, freq_cmd, 2, NULL, 0, NULL);
        for (size_t j = 0; j < keys->elements; j++) {
            const cliReply *k = keys->element[j];
            unsigned long long freq = 0;
            if (r[j]->type == CLI_REPLY_ERROR) cliFatal("Error: %s", r[j]->str);
            if (r[j]->type == CLI_REPLY_INTEGER) {
                freq = r[j]->integer > 0 ? (unsigned long long)r[j]->integer : 0;
            } else {
                sds name = sdscatrepr(sdsempty(), k->str, k->len);
                fprintf(stderr, "Warning: OBJECT freq on '%s' failed (may have been deleted)\n", name);
                sdsfree(name);
            }
            cliReplyFree(r[j]);
            sampled++;
            if (sampled % CLI_PROGRESS_EVERY == 0) printf("[%05.2f%%] Sampled %llu keys so far\n", pct, sampled);
            int slot = hotKeysOffer(&hot, k->str, k->len, freq);
            if (slot >= 0)
                printf("[%05.2f%%] Hot key '%s' found so far with counter %llu\n", pct, hot.key[slot], freq);
        }
        zfree(r);
        cliReplyFree(scan);
        if (config.interval > 0 && scans % CLI_SCAN_SLEEP_EVERY == 0) cliSleep(config.interval);
    } while (!cliInterrupted && strcmp(cursor, "0") != 0);
    sdsfree(cursor);
    printf("\n-------- summary -------\n\n");
    if (cliInterrupted) printf("[%05.2f%%] ", pct);
    printf("Sampled %llu keys in the keyspace!\n", sampled);
    for (int j = CLI_HOTKEYS_COUNT - 1; j >= 0; j--) {
        if (hot.counter[j] > 0) printf("hot key found with counter: %llu\tkeyname: %s\n", hot.counter[j], hot.key[j]);
        sdsfree(hot.key[j]);
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * --stat
 * ------------------------------------------------------------------------- */

/* The value of field in an INFO text (at the start of a line), or 0. */
static long long infoField(const char *info, const char *field) {
    size_t flen = strlen(field);
    for (const char *p = info; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (!strncmp(p, field, flen) && p[flen] == ':') return strtoll(p + flen + 1, NULL, 10);
    }
    return 0;
}

/* Total keys over the "dbN:keys=..." lines of INFO, for N < databases. */
static long long infoKeys(const char *info, int databases) {
    long long keys = 0;
    for (const char *p = info; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        int db, used;
        long long n;
        if (sscanf(p, "db%d:keys=%lld%n", &db, &n, &used) == 2 && db >= 0 && db < databases) keys += n;
    }
    return keys;
}

/* Formats a byte count as Valkey's cli does (1015.00K, 3.40M). */
static void bytesToHuman(char *buf, size_t len, long long n) {
    const char *sign = n < 0 ? "-" : "";
    double d = (double)llabs(n);
    if (llabs(n) < 1024) {
        snprintf(buf, len, "%s%lldB", sign, llabs(n));
        return;
    }
    const char *units = "KMGT";
    int u = 0;
    d /= 1024;
    while (d >= 1024 && u < 3) {
        d /= 1024;
        u++;
    }
    snprintf(buf, len, "%s%.2f%c", sign, d, units[u]);
}

/* CONFIG GET databases (16 if the server will not tell). */
static int cliDatabases(void) {
    cliReply *r = cliModeCommand(3, (char *[]){"CONFIG", "GET", "databases"});
    int n = 16;
    if (r->type == CLI_REPLY_ERROR)
        fprintf(stderr, "CONFIG GET databases fails: %s, use default value 16 instead\n", r->str);
    else if (cliReplyIsAggregate(r) && r->elements == 2 && r->element[1]->str)
        n = atoi(r->element[1]->str);
    cliReplyFree(r);
    return n;
}

/* --stat: one line of server activity every -i seconds (default 1), the
 * header again every 20 lines; reconnects when the server goes away. */
static int statMode(void) {
    double interval = config.interval > 0 ? config.interval : 1.0;
    int databases = cliDatabases();
    long long prev_requests = 0;
    for (int lines = 0;; lines++) {
        cliReply *r = cliCommandReconnecting(1, (char *[]){"INFO"});
        if (r->type == CLI_REPLY_ERROR) cliFatal("ERROR: %s", r->str);
        const char *info = r->str ? r->str : "";
        if (lines % 20 == 0) {
            printf("------- data ------ --------------------- load -------------------- - child -\n"
                   "keys       mem      clients blocked requests            connections          \n");
        }
        char buf[64];
        snprintf(buf, sizeof(buf), "%lld", infoKeys(info, databases));
        printf("%-11s", buf);
        bytesToHuman(buf, sizeof(buf), infoField(info, "used_memory"));
        printf("%-8s", buf);
        snprintf(buf, sizeof(buf), "%lld", infoField(info, "connected_clients"));
        printf(" %-8s", buf);
        snprintf(buf, sizeof(buf), "%lld", infoField(info, "blocked_clients"));
        printf("%-8s", buf);
        long long requests = infoField(info, "total_commands_processed");
        snprintf(buf, sizeof(buf), "%lld (+%lld)", requests, prev_requests ? requests - prev_requests : 0);
        printf("%-19s", buf);
        prev_requests = requests;
        snprintf(buf, sizeof(buf), "%lld", infoField(info, "total_connections_received"));
        printf(" %-12s", buf);
        int child = (infoField(info, "rdb_bgsave_in_progress") ? 1 : 0) |
                    (infoField(info, "aof_rewrite_in_progress") ? 2 : 0) | (infoField(info, "loading") ? 4 : 0);
        static const char *children[] = {"", "SAVE", "AOF", "SAVE+AOF", "LOAD"};
        if (child <= 4) printf("%s", children[child]);
        printf("\n");
        fflush(stdout);
        cliReplyFree(r);
        cliSleep(interval);
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * --latency, --latency-history, --latency-dist, --intrinsic-latency
 * ------------------------------------------------------------------------- */

#define LATENCY_SAMPLE_MS 10
#define LATENCY_DIST_DEFAULT_MS 1000

/* One line of --latency in the output format. */
static void latencyPrint(long long min, long long max, double avg, long long count) {
    switch (cli.output) {
    case CLI_OUTPUT_STANDARD:
        printf("min: %lld, max: %lld, avg: %.2f (%lld samples)", min, max, avg, count);
        fflush(stdout);
        break;
    case CLI_OUTPUT_CSV: printf("%lld,%lld,%.2f,%lld\n", min, max, avg, count); break;
    case CLI_OUTPUT_RAW: printf("%lld %lld %.2f %lld\n", min, max, avg, count); break;
    case CLI_OUTPUT_JSON:
        printf("{\"min\": %lld, \"max\": %lld, \"avg\": %.2f, \"count\": %lld}\n", min, max, avg, count);
        break;
    case CLI_OUTPUT_QUOTED_JSON: break; /* Valkey prints nothing here either. */
    }
}

/* --latency: PINGs the server every 10 ms and shows min/max/avg in
 * milliseconds. On a terminal the line is redrawn in place, forever; in
 * the other formats one line after -i seconds (default 1), then exit.
 * --latency-history starts over every -i seconds (default 15) with a
 * " -- N seconds range" line. */
static int latencyMode(void) {
    long long min = 0, max = 0, count = 0, tot = 0;
    long long interval_ms = config.interval_set ? (long long)(config.interval * 1000) : 0;
    long long history_ms = interval_ms ? interval_ms : (long long)(CLI_DEFAULT_INTERVAL_LATENCY * 1000);
    long long once_ms = interval_ms ? interval_ms : 1000;
    long long start = mstime();
    for (;;) {
        long long t0 = mstime();
        cliReply *r = cliCommandReconnecting(1, (char *[]){"PING"});
        cliReplyFree(r);
        long long lat = mstime() - t0;
        count++;
        if (count == 1 || lat < min) min = lat;
        if (lat > max) max = lat;
        tot += lat;
        double avg = (double)tot / (double)count;
        if (cli.output == CLI_OUTPUT_STANDARD) {
            printf("\x1b[0G\x1b[2K"); /* Clear the line. */
            latencyPrint(min, max, avg, count);
        } else if (config.latency_history) {
            latencyPrint(min, max, avg, count);
        } else if (mstime() - start > once_ms) {
            latencyPrint(min, max, avg, count);
            return 0;
        }
        if (config.latency_history && mstime() - start > history_ms) {
            printf(" -- %.2f seconds range\n", (double)(mstime() - start) / 1000);
            start = mstime();
            min = max = tot = count = 0;
        }
        fflush(stdout);
        cliSleep(LATENCY_SAMPLE_MS / 1000.0);
    }
}

/* --latency-dist buckets: up to max microseconds (0 = the rest), and the
 * character that shows them. */
static const struct {
    long long max;
    char c;
} latencyBuckets[] = {
    {10, '.'},        {125, '-'},       {250, '*'},       {500, '#'},       {1000, '1'},      {2000, '2'},
    {3000, '3'},      {4000, '4'},      {5000, '5'},      {6000, '6'},      {7000, '7'},      {8000, '8'},
    {9000, '9'},      {10000, 'A'},     {20000, 'B'},     {30000, 'C'},     {40000, 'D'},     {50000, 'E'},
    {100000, 'F'},    {200000, 'G'},    {300000, 'H'},    {400000, 'I'},    {500000, 'J'},    {1000000, 'K'},
    {2000000, 'L'},   {4000000, 'M'},   {8000000, 'N'},   {16000000, 'O'},  {30000000, 'P'},  {60000000, 'Q'},
    {0, '?'},
};
#define LATENCY_BUCKETS (sizeof(latencyBuckets) / sizeof(latencyBuckets[0]))

/* xterm-256 background colours, from empty to full (--mono: greys). */
static const int latencyPaletteColor[] = {0, 233, 234, 235, 237, 239, 241, 243, 245, 247,
                                          144, 143, 142, 184, 226, 214, 208, 202, 196};
static const int latencyPaletteMono[] = {0, 233, 234, 235, 237, 239, 241, 243, 245, 247, 249, 251, 253};

static void latencyDistLegend(const int *palette, int size) {
    printf("---------------------------------------------\n");
    printf(". - * #          .01 .125 .25 .5 milliseconds\n");
    printf("1,2,3,...,9      from 1 to 9     milliseconds\n");
    printf("A,B,C,D,E        10,20,30,40,50  milliseconds\n");
    printf("F,G,H,I,J        .1,.2,.3,.4,.5       seconds\n");
    printf("K,L,M,N,O,P,Q,?  1,2,4,8,16,30,60,>60 seconds\n");
    printf("From 0 to 100%%: ");
    for (int j = 0; j < size; j++) printf("\033[48;5;%dm ", palette[j]);
    printf("\033[0m\n");
    printf("---------------------------------------------\n");
}

/* One spectrum line: each bucket's character on a colour for its share
 * of the samples. Empties the buckets. */
static void latencyDistLine(long long *counts, long long total, const int *palette, int size) {
    printf("\033[38;5;0m"); /* Black characters. */
    for (size_t j = 0; j < LATENCY_BUCKETS; j++) {
        int idx = (int)ceil((double)counts[j] / (double)total * (size - 1));
        printf("\033[48;5;%dm%c", palette[idx], latencyBuckets[j].c);
        counts[j] = 0;
    }
    printf("\033[0m\n");
    fflush(stdout);
}

/* --latency-dist: PINGs every 10 ms and prints one spectrum line of the
 * latencies every -i seconds (default 1), the legend every 20 lines. */
static int latencyDistMode(void) {
    const int *palette = config.latency_dist_mono ? latencyPaletteMono : latencyPaletteColor;
    int size = config.latency_dist_mono ? (int)(sizeof(latencyPaletteMono) / sizeof(int))
                                        : (int)(sizeof(latencyPaletteColor) / sizeof(int));
    long long interval_ms = config.interval_set && config.interval > 0 ? (long long)(config.interval * 1000)
                                                                       : LATENCY_DIST_DEFAULT_MS;
    long long counts[LATENCY_BUCKETS] = {0}, total = 0, start = ustime();
    int lines = 0;
    for (;;) {
        long long t0 = ustime();
        cliReply *r = cliCommandReconnecting(1, (char *[]){"PING"});
        cliReplyFree(r);
        long long lat = ustime() - t0;
        size_t b = 0;
        while (latencyBuckets[b].max != 0 && lat > latencyBuckets[b].max) b++;
        counts[b]++;
        total++;
        if ((ustime() - start) / 1000 > interval_ms) {
            if (lines++ % 20 == 0) latencyDistLegend(palette, size);
            latencyDistLine(counts, total, palette, size);
            start = ustime();
            total = 0;
        }
        cliSleep(LATENCY_SAMPLE_MS / 1000.0);
    }
    return 0;
}

/* Work the compiler cannot remove, a few microseconds long: shuffles a
 * byte table with a xorshift generator. */
static unsigned long intrinsicWork(void) {
    static volatile unsigned char table[256];
    unsigned long x = 88172645463325252UL, sum = 0;
    for (int j = 0; j < 1000; j++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        unsigned char a = (unsigned char)x, b = (unsigned char)(x >> 8), t = table[a];
        table[a] = table[b];
        table[b] = (unsigned char)(t + 1);
        sum += table[a];
    }
    return sum;
}

/* --intrinsic-latency <sec>: how long this machine leaves the process
 * without the CPU, measured around a short computation; no server. */
static int intrinsicLatencyMode(void) {
    long long run_us = config.intrinsic_latency_secs * 1000000, end = ustime() + run_us;
    long long max_latency = 0, runs = 0;
    cliCatchInterrupt();
    for (;;) {
        long long t0 = ustime();
        intrinsicWork();
        long long t1 = ustime(), latency = t1 - t0;
        runs++;
        if (latency <= 0) continue;
        if (latency > max_latency) {
            max_latency = latency;
            printf("Max latency so far: %lld microseconds.\n", max_latency);
        }
        if (cliInterrupted || t1 > end) {
            double avg_us = (double)run_us / (double)runs;
            printf("\n%lld total runs (avg latency: %.4f microseconds / %.2f nanoseconds per run).\n", runs, avg_us,
                   avg_us * 1e3);
            printf("Worst run took %.0fx longer than the average latency.\n", (double)max_latency / avg_us);
            return 0;
        }
    }
}

/* ---------------------------------------------------------------------------
 * --lru-test
 * ------------------------------------------------------------------------- */

#define LRU_CYCLE_MS 1000
#define LRU_PIPELINE 250

/* An integer in [min, max] from a power law: with alpha 6.2 a fifth of the
 * values take four fifths of the draws. */
static long long powerLawRand(long long min, long long max, double alpha) {
    double r = (double)rand() / RAND_MAX;
    double lo = pow((double)min, alpha + 1), hi = pow((double)(max + 1), alpha + 1);
    double pl = pow((hi - lo) * r + lo, 1.0 / (alpha + 1));
    long long v = max - (long long)pl + min;
    return v < min ? min : (v > max ? max : v);
}

/* Appends a pipeline of LRU_PIPELINE SETs (write = 1) or GETs of keys
 * "lru:<n>" drawn from the 80-20 distribution. */
static sds lruBatch(sds req, int write) {
    for (int j = 0; j < LRU_PIPELINE; j++) {
        char key[64], val[6];
        snprintf(key, sizeof(key), "lru:%lld", powerLawRand(1, config.lru_test_keys, 6.2));
        for (int i = 0; i < 5; i++) val[i] = (char)('A' + rand() % ('z' - 'A'));
        val[5] = '\0';
        req = write ? cliAppendCommand(req, 3, (char *[]){"SET", key, val}, NULL)
                    : cliAppendCommand(req, 2, (char *[]){"GET", key}, NULL);
    }
    return req;
}

/* --lru-test <keys>: a cache workload (half SETs, half GETs of keys in
 * an 80-20 distribution, pipelined) printing the GET hit rate every
 * second. Runs until stopped. */
static int lruTestMode(void) {
    srand((unsigned)(time(NULL) ^ getpid()));
    cliReply *replies[LRU_PIPELINE];
    for (;;) {
        long long start = mstime(), hits = 0, misses = 0;
        while (mstime() - start < LRU_CYCLE_MS) {
            for (int write = 1; write >= 0; write--) {
                sds req = lruBatch(sdsempty(), write);
                if (cliPipeline(req, LRU_PIPELINE, replies) != CLI_OK) cliFatal("I/O error during LRU test");
                sdsfree(req);
                for (int j = 0; j < LRU_PIPELINE; j++) {
                    if (replies[j]->type == CLI_REPLY_ERROR) fprintf(stderr, "%s\n", replies[j]->str);
                    else if (!write && replies[j]->type == CLI_REPLY_NIL) misses++;
                    else if (!write) hits++;
                    cliReplyFree(replies[j]);
                }
            }
        }
        long long gets = hits + misses;
        printf("%lld Gets/sec | Hits: %lld (%.2f%%) | Misses: %lld (%.2f%%)\n", gets, hits,
               gets ? (double)hits / (double)gets * 100 : 0, misses, gets ? (double)misses / (double)gets * 100 : 0);
        fflush(stdout);
    }
}

/* ---------------------------------------------------------------------------
 * --replica, --rdb, --functions-rdb: the replication handshake
 * ------------------------------------------------------------------------- */

/* REPLCONF <opt> <value>, announced on stderr as Valkey does. Returns 1 when
 * accepted, 0 when refused ("REPLCONF <opt> error: ..."); exits when the
 * connection is lost. */
static int cliReplconf(const char *opt, const char *value) {
    fprintf(stderr, "sending REPLCONF %s %s\n", opt, value);
    cliReply *r = cliCommandArgv(3, (char *[]){"REPLCONF", (char *)opt, (char *)value});
    if (!r) cliFatal("\nI/O error");
    int ok = r->type != CLI_REPLY_ERROR;
    if (!ok) fprintf(stderr, "REPLCONF %s error: %s\n", opt, r->str);
    cliReplyFree(r);
    return ok;
}

/* Reads the next line of the primary's answer (keep-alive newlines
 * skipped) into a new sds without its line end, or NULL when the
 * connection failed or no line end came within CLI_SYNC_LINE_MAX bytes.
 * Bytes after it stay in cli.ibuf. */
static sds cliReadSyncLine(void) {
    for (;;) {
        while (sdslen(cli.ibuf) && cli.ibuf[0] == '\n') sdsrange(cli.ibuf, 1, -1);
        char *nl = memchr(cli.ibuf, '\n', sdslen(cli.ibuf));
        if (nl && nl - cli.ibuf > CLI_SYNC_LINE_MAX) return NULL;
        if (nl) {
            sds line = sdsnewlen(cli.ibuf, (size_t)(nl - cli.ibuf));
            sdsrange(cli.ibuf, nl - cli.ibuf + 1, -1);
            if (sdslen(line) && line[sdslen(line) - 1] == '\r') sdsrange(line, 0, -2);
            return line;
        }
        /* Only the line counts against the limit, not what follows it
         * in the buffer: after keep-alive newlines, the line and the
         * payload may come in one read. */
        if (sdslen(cli.ibuf) > CLI_SYNC_LINE_MAX) return NULL;
        if (cliFillBuffer() != CLI_OK) return NULL;
    }
}

/* Sends SYNC (unless the caller already sent SYNC or PSYNC) and reads the
 * answer up to the payload. Returns 1 for a full sync with *p ready to
 * receive the payload, 0 for a partial one (+CONTINUE: no payload).
 * Exits with Valkey's messages when the sync fails. */
static int cliSyncStart(int send_sync, cliSyncPayload *p) {
    if (send_sync && cliWriteCommand(1, (char *[]){"SYNC"}, NULL) != CLI_OK) cliFatal("Error writing to primary");
    const char *what = "SYNCing";
    for (;;) {
        sds line = cliReadSyncLine();
        if (!line) cliFatal("Error reading bulk length while %s", what);
        cliSyncLine kind = cliSyncParseLine(line, sdslen(line), p);
        if (kind == CLI_SYNC_LINE_ERROR) cliFatal("SYNC with primary failed: %s", line);
        if (kind == CLI_SYNC_LINE_BAD) cliFatal("Unexpected answer to SYNC from primary: '%s'", line);
        if (kind == CLI_SYNC_LINE_FULLRESYNC || kind == CLI_SYNC_LINE_CONTINUE)
            fprintf(stderr, "PSYNC replied %s\n", line);
        sdsfree(line);
        if (kind == CLI_SYNC_LINE_PAYLOAD) return 1;
        if (kind == CLI_SYNC_LINE_CONTINUE) return 0;
        what = "PSYNCing"; /* +FULLRESYNC: the payload line follows. */
    }
}

/* Receives the payload, passing its bytes to sink (NULL: discard). Bytes
 * of the stream that follow it stay in cli.ibuf. Returns CLI_OK, or
 * CLI_ERR when the connection failed first. */
static int cliSyncReceive(cliSyncPayload *p, void (*sink)(const char *buf, size_t len, void *ctx), void *ctx) {
    sds out = sdsempty();
    while (!p->done) {
        if (sdslen(cli.ibuf) == 0 && cliFillBuffer() != CLI_OK) {
            sdsfree(out);
            return CLI_ERR;
        }
        size_t used = cliSyncPayloadFeed(p, cli.ibuf, sdslen(cli.ibuf), &out);
        sdsrange(cli.ibuf, (ssize_t)used, -1);
        if (sink && sdslen(out)) sink(out, sdslen(out), ctx);
        sdsclear(out);
    }
    sdsfree(out);
    return CLI_OK;
}

/* --replica, or SYNC/PSYNC typed as a command (send_sync = 0: already
 * sent): skips the snapshot, then prints every command the primary sends,
 * in CSV, until the connection ends (then exits 1, as Valkey does). */
static void replicaMode(int send_sync) {
    cliSyncPayload p;
    int full = cliSyncStart(send_sync, &p);
    const char *info = full ? "Full resync" : "Partial resync";
    if (full && p.use_mark)
        fprintf(stderr, "%s with primary, discarding bytes of bulk transfer until EOF marker...\n", info);
    else if (full)
        fprintf(stderr, "%s with primary, discarding %llu bytes of bulk transfer...\n", info, p.remaining);
    else
        fprintf(stderr, "%s with primary...\n", info);
    if (full && cliSyncReceive(&p, NULL, NULL) != CLI_OK) cliFatal("Error reading RDB payload while %sing", info);
    if (full && p.use_mark) {
        fprintf(stderr, "%s done after %llu bytes. Logging commands from primary.\n", info, p.total);
        /* A diskless primary streams once the replica acknowledges. */
        cliSleep(1);
        fprintf(stderr, "sending REPLCONF ACK 0\n");
        if (cliWriteCommand(3, (char *[]){"REPLCONF", "ACK", "0"}, NULL) != CLI_OK) cliFatal("\nI/O error");
    } else {
        fprintf(stderr, "%s done. Logging commands from primary.\n", info);
    }
    cliReply *r;
    while (cliReadReply(&r) == CLI_OK) {
        sds out = cliFormatCSV(sdsempty(), r);
        out = sdscat(out, "\n");
        cliWriteOut(out);
        sdsfree(out);
        cliReplyFree(r);
    }
    cliFatal("Error: %s", cli.lasterr);
}

/* Where --rdb writes: the file (or stdout) and what went wrong. */
typedef struct rdbSink {
    int fd;
    const char *filename;
} rdbSink;

static void rdbWrite(const char *buf, size_t len, void *ctx) {
    rdbSink *s = ctx;
    while (len > 0) {
        ssize_t n = write(s->fd, buf, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) cliFatal("Error writing data to file: %s", n < 0 ? strerror(errno) : "short write");
        buf += n;
        len -= (size_t)n;
    }
}

/* --rdb <file> / --functions-rdb <file>: asks for the snapshot alone
 * (REPLCONF rdb-only 1; rdb-filter-only functions for the functions),
 * sends SYNC and writes the payload to the file ("-" = stdout), without
 * the end mark of a diskless transfer. Exits 0 on success. */
static int rdbMode(void) {
    cliReplconf("capa", "eof");
    cliReplconf("rdb-only", "1");
    if (config.functions_rdb && !cliReplconf("rdb-filter-only", "functions"))
        cliFatal("Failed requesting functions only RDB from server, aborting");
    cliSyncPayload p;
    if (!cliSyncStart(1, &p)) cliFatal("Unexpected partial resync from primary");
    const char *filename = config.rdb_filename;
    if (p.use_mark)
        fprintf(stderr, "SYNC sent to primary, writing bytes of bulk transfer until EOF marker to '%s'\n", filename);
    else
        fprintf(stderr, "SYNC sent to primary, writing %llu bytes to '%s'\n", p.remaining, filename);
    int to_stdout = !strcmp(filename, "-");
    rdbSink sink = {.fd = to_stdout ? STDOUT_FILENO : open(filename, O_CREAT | O_WRONLY | O_TRUNC, 0644),
                    .filename = filename};
    if (sink.fd == -1) cliFatal("Error opening '%s': %s", filename, strerror(errno));
    if (cliSyncReceive(&p, rdbWrite, &sink) != CLI_OK) cliFatal("I/O Error reading RDB payload from socket");
    if (p.use_mark)
        fprintf(stderr, "Transfer finished with success after %llu bytes\n", p.total);
    else
        fprintf(stderr, "Transfer finished with success.\n");
    cliDisconnect(); /* Before fsync(), which may take a while. */
    if (!to_stdout && fsync(sink.fd) == -1) cliFatal("Fail to fsync '%s': %s", filename, strerror(errno));
    if (!to_stdout) close(sink.fd);
    return 0;
}

/* ---------------------------------------------------------------------------
 * --eval, and the Lua debugger (--ldb, --ldb-sync-mode)
 * ------------------------------------------------------------------------- */

/* The EVAL of --eval file [key ...] [, arg ...]: the file's text as the
 * script, the words before a lone "," as keys, those after it as args. */
typedef struct evalCommand {
    int argc;
    char **argv;  /* argv[1] is the script (owned), the rest borrowed. */
    size_t *lens;
    char numkeys[32];
} evalCommand;

/* Reads config.eval (exits with Valkey's message when it cannot be read)
 * and builds the EVAL for the words of argv; free with evalCommandFree(). */
static void evalCommandInit(evalCommand *ec, int argc, char **argv) {
    FILE *fp = fopen(config.eval, "r");
    if (!fp) cliFatal("Can't open file '%s': %s", config.eval, strerror(errno));
    sds script = sdsempty();
    char chunk[16384];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) script = sdscatlen(script, chunk, n);
    fclose(fp);

    int numkeys = argc, got_comma = 0, k = 0;
    ec->argv = zmalloc(sizeof(char *) * (size_t)(argc + 3));
    ec->lens = zmalloc(sizeof(size_t) * (size_t)(argc + 3));
    ec->argv[k++] = "EVAL";
    ec->argv[k++] = script;
    ec->argv[k++] = ec->numkeys;
    for (int j = 0; j < argc; j++) {
        if (!got_comma && !strcmp(argv[j], ",")) {
            numkeys = j;
            got_comma = 1;
            continue;
        }
        ec->argv[k++] = argv[j];
    }
    snprintf(ec->numkeys, sizeof(ec->numkeys), "%d", numkeys);
    for (int j = 0; j < k; j++) ec->lens[j] = j == 1 ? sdslen(script) : strlen(ec->argv[j]);
    ec->argc = k;
}

static void evalCommandFree(evalCommand *ec) {
    sdsfree(ec->argv[1]);
    zfree(ec->argv);
    zfree(ec->lens);
}

/* --eval without --ldb: runs the EVAL (-r/-i repeat it) and prints its
 * reply. Returns the exit status. */
static int evalMode(int argc, char **argv) {
    evalCommand ec;
    evalCommandInit(&ec, argc, argv);
    int ret = cliIssueCommand(ec.argc, ec.argv, ec.lens, config.repeat);
    evalCommandFree(&ec);
    return ret == CLI_ERR ? 1 : 0;
}

/* The session protocol (the server's side is script_debug.c): SCRIPT
 * DEBUG YES (a forked session, its changes rolled back) or SYNC (in the
 * server, changes kept) answers OK; the EVAL then answers with the
 * debugger's log instead of its reply, an array of status lines ("*
 * Stopped at 1, stop reason = step over", "-> 1   local a = 1"); every
 * debugger command, a RESP array of the words typed, gets such an array,
 * until one whose last line is "<endsession>". The EVAL's own reply (or
 * error) follows it, and the server closes the connection. */

/* Sends one command and reads its reply, printing push messages met on
 * the way. The reply (owned by the caller), or NULL with the connection
 * lost and the reason printed. */
static cliReply *ldbRequest(int argc, char **argv, const size_t *lens) {
    cliReply *r = NULL;
    if (cliWriteCommand(argc, argv, lens) != CLI_OK || cliReadCommandReply("", &r) != CLI_OK) {
        fprintf(stderr, "Error: %s\n", cli.lasterr);
        return NULL;
    }
    return r;
}

/* Prints a debugger answer, one line per element; returns 1 when it held
 * the end mark. */
static int ldbPrintAnswer(const cliReply *r) {
    int ended;
    sds out = cliFormatLdbReply(sdsempty(), r, cli.ldb_color, &ended);
    cliWriteOut(out);
    sdsfree(out);
    return ended;
}

/* Prints an EVAL's reply in the terminal format, as Valkey's cli does
 * after a session whatever the output options. */
static void ldbPrintEvalReply(const cliReply *r) {
    sds out = cliFormatReply(sdsempty(), r, CLI_OUTPUT_STANDARD);
    cliWriteOut(out);
    sdsfree(out);
}

/* Reads and prints the reply of a debugged EVAL, which follows the end
 * mark (a lost connection is reported instead). */
static void ldbReadEvalReply(void) {
    cliReply *r = NULL;
    if (cliReadCommandReply("", &r) != CLI_OK) {
        fprintf(stderr, "Error: %s\n", cli.lasterr);
        return;
    }
    ldbPrintEvalReply(r);
    cliReplyFree(r);
}

/* The session is over: lines are commands again, printed in the
 * terminal format from now on (as Valkey's cli prints them after a
 * session), with the help a terminal's hints need. */
static void ldbLeaveSession(void) {
    cli.ldb = LDB_IDLE;
    cli.output = CLI_OUTPUT_STANDARD;
    if (replEl) cliLoadHelp();
}

/* The debugger's answer held the end mark: prints the EVAL's reply and
 * that the session ended (its changes rolled back, unless SYNC), then
 * connects again, since the server has closed the connection. */
static void ldbEndSession(void) {
    ldbReadEvalReply();
    printf("\n(Lua debugging session ended%s)\n\n", config.eval_ldb_sync ? "" : " -- dataset changes rolled back");
    fflush(stdout);
    cliConnect(0);
    ldbLeaveSession();
}

/* A line typed in a session (not quit/exit or restart): sent to the
 * debugger as it was split, `times` times (a leading count), each answer
 * printed. An answer with the end mark ends the session; so does a lost
 * connection (reported; the REPL reconnects for the next line, and
 * `restart` starts a new session). */
static void ldbRunCommand(int argc, char **argv, long long times) {
    for (long long j = 0; j < times && cli.ldb == LDB_RUNNING; j++) {
        cliReply *r = ldbRequest(argc, argv, NULL);
        if (!r) {
            ldbLeaveSession();
            return;
        }
        int ended = ldbPrintAnswer(r);
        cliReplyFree(r);
        if (ended) ldbEndSession();
    }
}

/* Return of ldbStartSession() when the session runs. */
#define LDB_STARTED (-1)

/* Starts a session on the current connection: SCRIPT DEBUG YES|SYNC, the
 * banner, the EVAL of the file (read anew each time) and the debugger's
 * first answer. Returns LDB_STARTED with cli.ldb == LDB_RUNNING, or the
 * exit status when there is no session: 1 when SCRIPT DEBUG is refused
 * (its error printed) or the connection is lost, 0 when the session ended
 * at once ("Eval debugging session can't start:" and the EVAL's error,
 * e.g. a script that does not compile, as Valkey's cli exits). */
static int ldbStartSession(int argc, char **argv) {
    evalCommand ec;
    evalCommandInit(&ec, argc, argv);
    char *mode = config.eval_ldb_sync ? "sync" : "yes";
    char *debug_argv[] = {"SCRIPT", "DEBUG", mode};
    cliReply *r = ldbRequest(3, debug_argv, NULL);
    if (!r || r->type == CLI_REPLY_ERROR) {
        /* e.g. YES on a transport a forked child cannot serve (RDMA), or
         * a user without +script|debug. */
        if (r) fprintf(stderr, "%s\n", r->str);
        cliReplyFree(r);
        evalCommandFree(&ec);
        return 1;
    }
    cliReplyFree(r);

    printf("Lua debugging session started, please use:\n"
           "quit    -- End the session.\n"
           "restart -- Restart the script in debug mode again.\n"
           "help    -- Show Lua script debugging commands.\n\n");
    fflush(stdout);
    r = ldbRequest(ec.argc, ec.argv, ec.lens);
    evalCommandFree(&ec);
    if (!r) return 1;

    int status = LDB_STARTED;
    if (r->type != CLI_REPLY_ARRAY) {
        /* The EVAL ran without a session (refused before it started). */
        printf("Eval debugging session can't start:\n");
        ldbPrintEvalReply(r);
        status = 1;
    } else if (ldbPrintAnswer(r)) {
        printf("Eval debugging session can't start:\n");
        ldbReadEvalReply();
        status = 0;
    } else {
        cli.ldb = LDB_RUNNING;
    }
    cliReplyFree(r);
    return status;
}

/* --eval with --ldb or --ldb-sync-mode: a debugging session driven from
 * the REPL (`restart` starts it again on a new connection, re-reading the
 * file). Returns the exit status when no session could start; otherwise
 * the REPL exits (quit, exit, end of input). */
static int evalLdbMode(int argc, char **argv) {
    for (;;) {
        int status = ldbStartSession(argc, argv);
        if (status != LDB_STARTED) return status;
        repl(); /* Returns for `restart` only. */
        if (cliConnect(0) != CLI_OK && !cli.conn) return 1;
        printf("\n");
    }
}

/* ---------------------------------------------------------------------------
 * --cluster
 * ------------------------------------------------------------------------- */

/* The cluster manager's commands, as `--cluster help` lists them: name,
 * arity (negative: at least), arguments and --cluster-* options. */
static const struct {
    const char *name;
    int arity;
    const char *args;
    const char *options[8];
} clusterCommands[] = {
    {"create", -1, "host1:port1 ... hostN:portN", {"replicas <arg>"}},
    {"check", -1, "<host:port> or <host> <port> - separated by either colon or space", {"search-multiple-owners"}},
    {"info", -1, "<host:port> or <host> <port> - separated by either colon or space", {NULL}},
    {"fix",
     -1,
     "<host:port> or <host> <port> - separated by either colon or space",
     {"search-multiple-owners", "fix-with-unreachable-primaries"}},
    {"reshard",
     -1,
     "<host:port> or <host> <port> - separated by either colon or space",
     {"from <arg>", "to <arg>", "slots <arg>", "yes", "timeout <arg>", "pipeline <arg>", "replace"}},
    {"rebalance",
     -1,
     "<host:port> or <host> <port> - separated by either colon or space",
     {"weight <node1=w1...nodeN=wN>", "use-empty-primaries", "timeout <arg>", "simulate", "pipeline <arg>",
      "threshold <arg>", "replace"}},
    {"add-node", 2, "new_host:new_port existing_host:existing_port", {"replica", "primaries-id <arg>"}},
    {"del-node", 2, "host:port node_id", {NULL}},
    {"call", -2, "host:port command arg arg .. arg", {"only-primaries", "only-replicas"}},
    {"set-timeout", 2, "host:port milliseconds", {NULL}},
    {"import",
     1,
     "host:port",
     {"from <arg>", "from-user <arg>", "from-pass <arg>", "from-askpass", "copy", "replace"}},
    {"backup", 2, "host:port backup_directory", {NULL}},
    {"help", 0, NULL, {NULL}},
};

#define CLUSTER_HELP_PAD 15

/* `--cluster help`. */
static void clusterHelp(void) {
    printf("Cluster Manager Commands:\n");
    for (size_t j = 0; j < sizeof(clusterCommands) / sizeof(clusterCommands[0]); j++) {
        printf("  %-*s%s\n", CLUSTER_HELP_PAD, clusterCommands[j].name,
               clusterCommands[j].args ? clusterCommands[j].args : "");
        for (int o = 0; o < 8 && clusterCommands[j].options[o]; o++)
            printf("%*s  --cluster-%s\n", CLUSTER_HELP_PAD, "", clusterCommands[j].options[o]);
    }
    printf("\nFor check, fix, reshard, del-node, set-timeout, info, rebalance, call, import, backup you can specify "
           "the host and port of any working node in the cluster.\n");
    printf("\nCluster Manager Options:\n");
    printf("  %-*s%s\n", CLUSTER_HELP_PAD, "--cluster-yes", "Automatic yes to cluster commands prompts");
    printf("\n");
}

/* --cluster <command> [args]: checks the command as Valkey does; `help`
 * lists them. The other commands are not implemented in this cli yet.
 * Exits 1 in every case but a successful command, as Valkey's
 * (`--cluster help` included). */
static int clusterMode(void) {
    for (size_t j = 0; j < sizeof(clusterCommands) / sizeof(clusterCommands[0]); j++) {
        if (strcmp(clusterCommands[j].name, config.cluster_command)) continue;
        int arity = clusterCommands[j].arity, argc = config.cluster_argc;
        if ((arity > 0 && argc != arity) || (arity < 0 && argc < -arity)) {
            fprintf(stderr, "[ERR] Wrong number of arguments for specified --cluster sub command\n");
            return 1;
        }
        if (!strcmp(config.cluster_command, "help")) {
            clusterHelp();
            return 1;
        }
        fprintf(stderr, "[ERR] --cluster %s is not implemented in this valkey-cli yet\n", config.cluster_command);
        return 1;
    }
    fprintf(stderr, "Unknown --cluster subcommand\n");
    return 1;
}

/* ---------------------------------------------------------------------------
 * Options and main
 * ------------------------------------------------------------------------- */

/* --help (status 0, stdout) or a usage error (status 1, stderr): Valkey
 * 8's text, with the transports this build has. */
static void usage(int status) {
    FILE *fp = status ? stderr : stdout;
    const char *tls_usage =
#ifdef USE_TLS
        "  --tls              Establish a secure TLS connection.\n"
        "  --sni <host>       Server name indication for TLS.\n"
        "  --cacert <file>    CA Certificate file to verify with.\n"
        "  --cacertdir <dir>  Directory where trusted CA certificates are stored.\n"
        "                     If neither cacert nor cacertdir are specified, the default\n"
        "                     system-wide trusted root certs configuration will apply.\n"
        "  --insecure         Allow insecure TLS connection by skipping cert validation.\n"
        "  --cert <file>      Client certificate to authenticate with.\n"
        "  --key <file>       Private key file to authenticate with.\n"
        "  --tls-ciphers <list> Sets the list of preferred ciphers (TLSv1.2 and below)\n"
        "                     in order of preference from highest to lowest separated by colon (\":\").\n"
        "                     See the ciphers(1ssl) manpage for more information about the syntax of this string.\n"
        "  --tls-ciphersuites <list> Sets the list of preferred ciphersuites (TLSv1.3)\n"
        "                     in order of preference from highest to lowest separated by colon (\":\").\n"
        "                     See the ciphers(1ssl) manpage for more information about the syntax of this string,\n"
        "                     and specifically for TLSv1.3 ciphersuites.\n"
#endif
        "";
    const char *rdma_usage =
#ifdef USE_RDMA
        "  --rdma             Establish a RDMA connection.\n"
#endif
        "  --shm              Talk through shared memory, set up over the Unix socket\n"
        "                     given with -s (the server needs shm-enabled yes).\n";
    fprintf(fp,
            "valkey-cli %s\n"
            "\n"
            "Usage: valkey-cli [OPTIONS] [cmd [arg [arg ...]]]\n"
            "  -h <hostname>      Server hostname (default: 127.0.0.1).\n"
            "  -p <port>          Server port (default: 6379).\n"
            "  -t <timeout>       Server connection timeout in seconds (decimals allowed).\n"
            "                     Default timeout is 0, meaning no limit, depending on the OS.\n"
            "  -s <socket>        Server socket (overrides hostname and port).\n"
            "  -a <password>      Password to use when connecting to the server.\n"
            "                     You can also use the " CLI_AUTH_ENV " environment\n"
            "                     variable to pass this password more safely\n"
            "                     (if both are used, this argument takes precedence).\n"
            "  --user <username>  Used to send ACL style 'AUTH username pass'. Needs -a.\n"
            "  --pass <password>  Alias of -a for consistency with the new --user option.\n"
            "  --askpass          Force user to input password with mask from STDIN.\n"
            "                     If this argument is used, '-a' and " CLI_AUTH_ENV "\n"
            "                     environment variable will be ignored.\n"
            "  -u <uri>           Server URI on format valkey://user:password@host:port/dbnum\n"
            "                     User, password and dbnum are optional. For authentication\n"
            "                     without a username, use username 'default'. For TLS, use\n"
            "                     the scheme 'valkeys'.\n"
            "  -r <repeat>        Execute specified command N times.\n"
            "  -i <interval>      When -r is used, waits <interval> seconds per command.\n"
            "                     It is possible to specify sub-second times like -i 0.1.\n"
            "                     This interval is also used in --scan and --stat per cycle.\n"
            "                     and in --bigkeys, --memkeys, and --hotkeys per 100 cycles.\n"
            "  -n <db>            Database number.\n"
            "  -2                 Start session in RESP2 protocol mode.\n"
            "  -3                 Start session in RESP3 protocol mode.\n"
            "  -x                 Read last argument from STDIN (see example below).\n"
            "  -X                 Read <tag> argument from STDIN (see example below).\n"
            "  -d <delimiter>     Delimiter between response bulks for raw formatting (default: \\n).\n"
            "  -D <delimiter>     Delimiter between responses for raw formatting (default: \\n).\n"
            "  -c                 Enable cluster mode (follow -ASK and -MOVED redirections).\n"
            "  -e                 Return exit error code when command execution fails.\n"
            "  -4                 Prefer IPv4 over IPv6 on DNS lookup.\n"
            "  -6                 Prefer IPv6 over IPv4 on DNS lookup.\n"
            "%s"
            "%s"
            "  --raw              Use raw formatting for replies (default when STDOUT is\n"
            "                     not a tty).\n"
            "  --no-raw           Force formatted output even when STDOUT is not a tty.\n"
            "  --quoted-input     Force input to be handled as quoted strings.\n"
            "  --csv              Output in CSV format.\n"
            "  --json             Output in JSON format (default RESP3, use -2 if you want to use with RESP2).\n"
            "  --quoted-json      Same as --json, but produce ASCII-safe quoted strings, not Unicode.\n"
            "  --show-pushes <yn> Whether to print RESP3 PUSH messages.  Enabled by default when\n"
            "                     STDOUT is a tty but can be overridden with --show-pushes no.\n"
            "  --stat             Print rolling stats about server: mem, clients, ...\n",
            CLI_VERSION, tls_usage, rdma_usage);
    fprintf(fp,
            "  --latency          Enter a special mode continuously sampling latency.\n"
            "                     If you use this mode in an interactive session it runs\n"
            "                     forever displaying real-time stats. Otherwise if --raw or\n"
            "                     --csv is specified, or if you redirect the output to a non\n"
            "                     TTY, it samples the latency for 1 second (you can use\n"
            "                     -i to change the interval), then produces a single output\n"
            "                     and exits.\n"
            "  --latency-history  Like --latency but tracking latency changes over time.\n"
            "                     Default time interval is 15 sec. Change it using -i.\n"
            "  --latency-dist     Shows latency as a spectrum, requires xterm 256 colors.\n"
            "                     Default time interval is 1 sec. Change it using -i.\n"
            "  --lru-test <keys>  Simulate a cache workload with an 80-20 distribution.\n"
            "  --replica          Simulate a replica showing commands received from the primaries.\n"
            "  --rdb <filename>   Transfer an RDB dump from remote server to local file.\n"
            "                     Use filename of \"-\" to write to stdout.\n"
            "  --functions-rdb <filename> Like --rdb but only get the functions (not the keys)\n"
            "                     when getting the RDB dump file.\n"
            "  --pipe             Transfer raw RESP protocol from stdin to server.\n"
            "  --pipe-timeout <n> In --pipe mode, abort with error if after sending all data.\n"
            "                     no reply is received within <n> seconds.\n"
            "                     Default timeout: %d. Use 0 to wait forever.\n",
            CLI_DEFAULT_PIPE_TIMEOUT);
    fprintf(fp, "  --bigkeys          Sample keys looking for keys with many elements (complexity).\n"
                "  --memkeys          Sample keys looking for keys consuming a lot of memory.\n"
                "  --memkeys-samples <n> Sample keys looking for keys consuming a lot of memory.\n"
                "                     And define number of key elements to sample\n"
                "  --hotkeys          Sample keys looking for hot keys.\n"
                "                     only works when maxmemory-policy is *lfu.\n"
                "  --scan             List all keys using the SCAN command.\n"
                "  --pattern <pat>    Keys pattern when using the --scan, --bigkeys or --hotkeys\n"
                "                     options (default: *).\n"
                "  --count <count>    Count option when using the --scan, --bigkeys or --hotkeys (default: 10).\n"
                "  --quoted-pattern <pat> Same as --pattern, but the specified string can be\n"
                "                         quoted, in order to pass an otherwise non binary-safe string.\n"
                "  --intrinsic-latency <sec> Run a test to measure intrinsic system latency.\n"
                "                     The test will run for the specified amount of seconds.\n"
                "  --eval <file>      Send an EVAL command using the Lua script at <file>.\n"
                "  --ldb              Used with --eval enable the Server Lua debugger.\n"
                "  --ldb-sync-mode    Like --ldb but uses the synchronous Lua debugger, in\n"
                "                     this mode the server is blocked and script changes are\n"
                "                     not rolled back from the server memory.\n"
                "  --cluster <command> [args...] [opts...]\n"
                "                     Cluster Manager command and arguments (see below).\n"
                "  --verbose          Verbose mode.\n"
                "  --no-auth-warning  Don't show warning message when using password on command\n"
                "                     line interface.\n"
                "  --help             Output this help and exit.\n"
                "  --version          Output version and exit.\n"
                "\n");
    fprintf(fp, "Cluster Manager Commands:\n"
                "  Use --cluster help to list all available cluster manager commands.\n"
                "\n"
                "Examples:\n"
                "  valkey-cli -u valkey://default:PASSWORD@localhost:6379/0\n"
                "  cat /etc/passwd | valkey-cli -x set mypasswd\n"
                "  valkey-cli -D \"\" --raw dump key > key.dump && valkey-cli -X dump_tag restore key2 0 dump_tag "
                "replace < key.dump\n"
                "  valkey-cli -r 100 lpush mylist x\n"
                "  valkey-cli -r 100 -i 1 info | grep used_memory_human:\n"
                "  valkey-cli --quoted-input set '\"null-\\x00-separated\"' value\n"
                "  valkey-cli --eval myscript.lua key1 key2 , arg1 arg2 arg3\n"
                "  valkey-cli --scan --pattern '*:12345*'\n"
                "  valkey-cli --scan --pattern '*:12345*' --count 100\n"
                "\n"
                "  (Note: when using --eval the comma separates KEYS[] from ARGV[] items)\n"
                "\n"
                "When no command is given, valkey-cli starts in interactive mode.\n"
                "Type \"help\" in interactive mode for information on available commands\n"
                "and settings.\n"
                "\n");
    exit(status);
}

/* Where to connect, how to print, the password: from the options, the
 * environment and the terminal. */
static void cliSetup(void) {
    if (config.auth && !config.no_auth_warning)
        fputs("Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.\n",
              stderr);
    if (!config.auth) config.auth = getenv(CLI_AUTH_ENV);
    if (config.askpass) {
        sds pass = cliAskPassword("Please input password: ");
        config.auth = pass; /* Lives as long as the process. */
    }

    cli.ct = cliConnTypeGetByName(config.transport);
    if (!cli.ct) {
        if (!strcasecmp(config.transport, CLI_CONN_RDMA)) cliFatal("RDMA support is not built in");
        if (!strcasecmp(config.transport, CLI_CONN_TLS)) cliFatal("TLS support is not built in");
        cliFatal("Unknown transport '%s'", config.transport);
    }
    if (!strcmp(cli.ct->name, CLI_CONN_SHM) && !config.socket)
        cliFatal("--shm needs the server's Unix socket: -s <socket>");
    cli.addr.host = config.host;
    cli.addr.port = config.port;
    cli.addr.path = !strcmp(cli.ct->name, CLI_CONN_UNIX) || !strcmp(cli.ct->name, CLI_CONN_SHM) ? config.socket : NULL;
    cli.addr.tls = &config.tls;
    cli.addr.prefer_family = config.prefer_family;
    cliConnFormatAddr(cli.addrstr, sizeof(cli.addrstr), &cli.addr);
    cli.ibuf = sdsempty();
    cli.want_db = config.dbnum;
    cli.hints = 1;

    /* FAKETTY: Valkey's test hook for the terminal format. */
    int tty = isatty(STDOUT_FILENO) || getenv("FAKETTY");
    cli.output = config.output >= 0 ? (cliOutputMode)config.output : (tty ? CLI_OUTPUT_STANDARD : CLI_OUTPUT_RAW);
    cli.push_output = config.push_output >= 0 ? config.push_output : tty;
    /* The debugger's lines in colour on a terminal that has it (Valkey's
     * cli asks TERM for an xterm). */
    const char *term = getenv("TERM");
    cli.ldb_color = tty && term && strstr(term, "xterm");
}

/* Modes that need a connection: connect (exit 1 on failure), run. */
static int cliRunConnectedMode(int (*mode)(void)) {
    if (cliConnect(0) != CLI_OK) return 1;
    return mode();
}

static int replicaModeMain(void) {
    cliReplconf("capa", "eof");
    cliReplconf("rdb-filter-only", "");
    replicaMode(1);
    return 1;
}

static int memKeysMode(void) {
    return bigKeysMode(1);
}

static int bigKeysOnlyMode(void) {
    return bigKeysMode(0);
}

/* Entry point: options, transport, then the mode they ask for. Exits 0,
 * or 1 as described at the top of the file. */
int main(int argc, char **argv) {
    char err[512];
    cliOptionsInit(&config);
    int first = cliParseOptions(argc, argv, &config, err, sizeof(err));
    if (first < 0) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    if (config.mode == CLI_MODE_HELP) usage(config.usage_error);
    if (config.mode == CLI_MODE_VERSION) {
        printf("valkey-cli %s\n", CLI_VERSION);
        exit(0);
    }
    cliSetup();
    signal(SIGPIPE, SIG_IGN);

    int cmd_argc = argc - first;
    char **cmd_argv = argv + first;
    switch (config.mode) {
    case CLI_MODE_CLUSTER: return clusterMode();
    case CLI_MODE_LATENCY: return cliRunConnectedMode(latencyMode);
    case CLI_MODE_LATENCY_DIST: return cliRunConnectedMode(latencyDistMode);
    case CLI_MODE_REPLICA: return cliRunConnectedMode(replicaModeMain);
    case CLI_MODE_RDB: return cliRunConnectedMode(rdbMode);
    case CLI_MODE_PIPE: return pipeMode();
    case CLI_MODE_BIGKEYS: return cliRunConnectedMode(bigKeysOnlyMode);
    case CLI_MODE_MEMKEYS: return cliRunConnectedMode(memKeysMode);
    case CLI_MODE_HOTKEYS: return cliRunConnectedMode(hotKeysMode);
    case CLI_MODE_STAT: return cliRunConnectedMode(statMode);
    case CLI_MODE_SCAN: return cliRunConnectedMode(scanMode);
    case CLI_MODE_LRU_TEST: return cliRunConnectedMode(lruTestMode);
    case CLI_MODE_INTRINSIC_LATENCY: return intrinsicLatencyMode();
    case CLI_MODE_TEST_HINT:
        return config.test_hint ? cliTestHint(config.test_hint) : cliTestHintFile(config.test_hint_file);
    default: break;
    }

    if (cmd_argc == 0 && !config.eval) {
        cliConnect(0); /* Failing is fine: the prompt says "not connected". */
        repl();
    }
    if (config.eval) {
        if (cliConnect(0) != CLI_OK) return 1;
        return config.eval_ldb ? evalLdbMode(cmd_argc, cmd_argv) : evalMode(cmd_argc, cmd_argv);
    }
    cliConnect(CLI_CONNECT_QUIET); /* The command reports a failure. */
    return cliRunArgvCommand(cmd_argc, cmd_argv);
}
