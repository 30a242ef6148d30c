/* valkey-cli.c - the command-line client, behaving like Valkey's.
 *
 * One blocking connection through the tools' transport layer
 * (cli_transport.h: "tcp", "unix" with -s, "tls" with --tls, "rdma" with
 * --rdma, when built in) carries every request; replies are parsed into trees by cli_reply.c
 * and printed by cli_output.c in the format the options and the terminal
 * choose. Options are parsed by cli_args.c. What runs then:
 *
 *   - a command from argv (repeated with -r/-i, last argument from stdin
 *     with -x), or one command per line of stdin when it is not a terminal;
 *   - the interactive REPL (stdin a terminal, no command): libedit line
 *     editing and history (~/.valkeycli_history or VALKEYCLI_HISTFILE),
 *     argument hints and `help <command>` from the server's COMMAND DOCS,
 *     a prompt that follows SELECT and MULTI, reconnection after a lost
 *     connection;
 *   - the special modes: --pipe (mass insert, event driven: stdin goes out
 *     as raw protocol while replies are counted, then an ECHO of a random
 *     marker tells when the last reply is in), --scan, --latency(-history),
 *     --stat, --bigkeys / --memkeys and --eval.
 *
 * Exit status: 0; 1 when the server cannot be reached, on a usage error,
 * and with -e when a command got an error reply. Nothing here is shared
 * with the server; only leaf libraries and cli_*.c are linked. */
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
#include <time.h>
#include <unistd.h>

#include "ae.h"
#include "cli_args.h"
#include "cli_output.h"
#include "cli_reply.h"
#include "cli_transport.h"
#include "sds.h"
#include "util.h"
#include "zmalloc.h"

#define CLI_VERSION "8.1.0"
#define CLI_READ_CHUNK (16 * 1024)
#define CLI_CONNECT_TIMEOUT_MS 10000
#define CLI_HISTFILE_DEFAULT ".valkeycli_history"
#define CLI_HISTFILE_ENV "VALKEYCLI_HISTFILE"
#define CLI_AUTH_ENV "VALKEYCLI_AUTH"
#define CLI_HISTORY_SIZE 1000
#define CLI_SCAN_SLEEP_EVERY 100 /* --bigkeys: -i sleeps once per this many SCANs. */

/* ---------------------------------------------------------------------------
 * State
 * ------------------------------------------------------------------------- */

static cliOptions config;

static struct cliState {
    const cliConnType *ct;
    cliConnAddr addr;
    char addrstr[300];    /* "host:port" or the socket path, for messages. */
    cliConn *conn;        /* NULL when not connected. */
    sds ibuf;             /* Received bytes not yet parsed. */
    cliOutputMode output;
    int resp;             /* Protocol the connection speaks (2 or 3). */
    int db;               /* Currently SELECTed database. */
    int in_multi;         /* Inside MULTI: the prompt says (TX). */
    int interactive;      /* The REPL is running. */
    char lasterr[CLI_ERR_LEN + 64]; /* Why the last I/O failed. */
    cliReply *docs;       /* COMMAND DOCS, for help and hints; may be NULL. */
} cli;

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

/* Sends one command. CLI_OK, or CLI_ERR (reason in cli.lasterr) with the
 * connection dropped. */
static int cliWriteCommand(int argc, char **argv, const size_t *lens) {
    if (!cli.conn) {
        snprintf(cli.lasterr, sizeof(cli.lasterr), "not connected");
        return CLI_ERR;
    }
    sds req = cliAppendCommand(sdsempty(), argc, argv, lens);
    int ret = cliConnWriteAll(cli.conn, req, sdslen(req));
    sdsfree(req);
    if (ret != CLI_OK) {
        snprintf(cli.lasterr, sizeof(cli.lasterr), "%s", cliConnGetLastError(cli.conn));
        cliDisconnect();
    }
    return ret;
}

/* Reads one reply (blocking). CLI_OK with *out owned by the caller, or
 * CLI_ERR with the reason in cli.lasterr and the connection dropped. */
static int cliReadReply(cliReply **out) {
    char perr[128];
    *out = NULL;
    for (;;) {
        if (!cli.conn) {
            snprintf(cli.lasterr, sizeof(cli.lasterr), "not connected");
            return CLI_ERR;
        }
        if (sdslen(cli.ibuf) > 0) {
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
        /* Read at least as much as we hold: a big reply is rescanned only
         * a logarithmic number of times. */
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
    }
}

/* Sends a command and returns its reply (NULL when the connection
 * failed; the reason is in cli.lasterr). Push messages are skipped. */
static cliReply *cliCommandArgv(int argc, char **argv) {
    cliReply *r;
    if (cliWriteCommand(argc, argv, NULL) != CLI_OK) return NULL;
    do {
        if (cliReadReply(&r) != CLI_OK) return NULL;
        if (r->type != CLI_REPLY_PUSH) return r;
        cliReplyFree(r);
    } while (1);
}

/* printf-like convenience over cliCommandArgv(): splits the formatted
 * line into arguments (quotes allowed). */
static cliReply *cliCommand(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static cliReply *cliCommand(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sds line = sdscatvprintf(sdsempty(), fmt, ap);
    va_end(ap);
    int argc;
    sds *argv = sdssplitargs(line, &argc);
    sdsfree(line);
    cliReply *r = cliCommandArgv(argc, argv);
    sdsfreesplitres(argv, argc);
    return r;
}

/* Opens the connection and runs the handshake: AUTH, HELLO 3 with -3,
 * SELECT of the current database. Returns CLI_OK or CLI_ERR after
 * printing "Could not connect to Valkey at ...". */
static int cliConnect(void) {
    char err[CLI_ERR_LEN];
    cliDisconnect();
    cli.conn = cliConnConnectBlocking(cli.ct, &cli.addr, CLI_CONNECT_TIMEOUT_MS, err, sizeof(err));
    if (!cli.conn) {
        fprintf(stderr, "Could not connect to Valkey at %s: %s\n", cli.addrstr, err);
        return CLI_ERR;
    }
    cliReply *r;
    if (config.auth) {
        if (config.user)
            r = cliCommandArgv(3, (char *[]){"AUTH", (char *)config.user, (char *)config.auth});
        else
            r = cliCommandArgv(2, (char *[]){"AUTH", (char *)config.auth});
        if (r && r->type == CLI_REPLY_ERROR) fprintf(stderr, "AUTH failed: %s\n", r->str);
        cliReplyFree(r);
    }
    cli.resp = 2;
    if (config.resp == 3) {
        r = cliCommandArgv(2, (char *[]){"HELLO", "3"});
        if (r && r->type == CLI_REPLY_ERROR)
            fprintf(stderr, "HELLO 3 failed: %s\n", r->str);
        else if (r)
            cli.resp = 3;
        cliReplyFree(r);
    }
    if (cli.db != 0) {
        char db[32];
        snprintf(db, sizeof(db), "%d", cli.db);
        r = cliCommandArgv(2, (char *[]){"SELECT", db});
        if (r && r->type == CLI_REPLY_ERROR) {
            fprintf(stderr, "SELECT %d failed: %s\n", cli.db, r->str);
            cli.db = 0;
        }
        cliReplyFree(r);
    }
    if (!cli.conn) {
        fprintf(stderr, "Could not connect to Valkey at %s: %s\n", cli.addrstr, cli.lasterr);
        return CLI_ERR;
    }
    return CLI_OK;
}

/* ---------------------------------------------------------------------------
 * Running commands
 * ------------------------------------------------------------------------- */

/* Set while running the lines of stdin (not argv). */
static int cliFromStdinLines;

/* Prints a reply on stdout. With -e outside the REPL an error reply is
 * reported on stderr as its bare message instead (as well, for lines read
 * from stdin), as Valkey's cli does. */
static void cliPrintReply(const cliReply *r) {
    if (r->type == CLI_REPLY_ERROR && config.set_errcode && !cli.interactive) {
        if (cliFromStdinLines) {
            sds out = cliFormatReply(sdsempty(), r, cli.output);
            fwrite(out, 1, sdslen(out), stdout);
            sdsfree(out);
        }
        fflush(stdout);
        fprintf(stderr, "%s\n", r->str);
        return;
    }
    sds out = cliFormatReply(sdsempty(), r, cli.output);
    fwrite(out, 1, sdslen(out), stdout);
    fflush(stdout);
    sdsfree(out);
}

/* Follows the state a command changes on the client side. */
static void cliTrackCommand(int argc, char **argv, const cliReply *r) {
    if (r->type == CLI_REPLY_ERROR) {
        if (!strcasecmp(argv[0], "exec")) cli.in_multi = 0;
        return;
    }
    if (!strcasecmp(argv[0], "select") && argc == 2) {
        cli.db = atoi(argv[1]);
    } else if (!strcasecmp(argv[0], "multi")) {
        cli.in_multi = 1;
    } else if (!strcasecmp(argv[0], "exec") || !strcasecmp(argv[0], "discard") || !strcasecmp(argv[0], "reset")) {
        cli.in_multi = 0;
        if (!strcasecmp(argv[0], "reset")) cli.db = 0;
    } else if (!strcasecmp(argv[0], "hello") && argc >= 2 && r->type != CLI_REPLY_ERROR) {
        int v = atoi(argv[1]);
        if (v == 2 || v == 3) cli.resp = v;
    }
}

/* Commands whose replies keep coming until the connection ends. */
static int cliIsStreamingCommand(const char *name) {
    return !strcasecmp(name, "monitor") || !strcasecmp(name, "subscribe") || !strcasecmp(name, "psubscribe") ||
           !strcasecmp(name, "ssubscribe");
}

/* Runs one command once and prints its reply. Returns CLI_OK, CLI_ERR on
 * a lost connection (already reported), or 1 for an error reply. In the
 * REPL a command whose connection was lost is retried once on a new one. */
static int cliRunCommandOnce(int argc, char **argv, size_t *lens) {
    cliReply *r = NULL;
    for (int attempt = 0;; attempt++) {
        if (!cli.conn && cli.interactive && cliConnect() != CLI_OK) return CLI_ERR;
        if (cliWriteCommand(argc, argv, lens) == CLI_OK) {
            /* Push messages arriving before the reply are shown in the
             * REPL and otherwise dropped. */
            while (cliReadReply(&r) == CLI_OK && r->type == CLI_REPLY_PUSH) {
                if (cli.interactive) cliPrintReply(r);
                cliReplyFree(r);
                r = NULL;
            }
        }
        if (r) break;
        if (!cli.interactive || attempt > 0) {
            fprintf(stderr, "Error: %s\n", cli.lasterr);
            return CLI_ERR;
        }
    }
    cliTrackCommand(argc, argv, r);
    cliPrintReply(r);
    int is_err = r->type == CLI_REPLY_ERROR;
    cliReplyFree(r);

    if (!is_err && cliIsStreamingCommand(argv[0])) {
        if (cli.output == CLI_OUTPUT_STANDARD && cli.interactive) printf("Reading messages... (press Ctrl-C to quit)\n");
        while (cliReadReply(&r) == CLI_OK) {
            cliPrintReply(r);
            cliReplyFree(r);
        }
        fprintf(stderr, "Error: %s\n", cli.lasterr);
        return CLI_ERR;
    }
    return is_err ? 1 : CLI_OK;
}

/* Sleeps for a number of seconds (fractions allowed). */
static void cliSleep(double secs) {
    if (secs <= 0) return;
    struct timespec ts = {.tv_sec = (time_t)secs, .tv_nsec = (long)((secs - floor(secs)) * 1e9)};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

/* Runs a command config.repeat times, config.interval apart. Returns
 * CLI_OK, CLI_ERR (connection lost) or 1 (an error reply; with -e the
 * repetition stops there). */
static int cliRunCommand(int argc, char **argv, size_t *lens) {
    int ret = CLI_OK;
    for (long long j = 0; config.repeat < 0 || j < config.repeat; j++) {
        ret = cliRunCommandOnce(argc, argv, lens);
        if (ret == CLI_ERR) return ret;
        if (ret == 1 && config.set_errcode) return ret;
        if (config.repeat < 0 || j + 1 < config.repeat) cliSleep(config.interval);
    }
    return ret;
}

/* Reads all of stdin into a new sds. */
static sds cliReadStdin(void) {
    sds s = sdsempty();
    char chunk[16384];
    ssize_t n;
    while ((n = read(STDIN_FILENO, chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR))
        if (n > 0) s = sdscatlen(s, chunk, (size_t)n);
    return s;
}

/* Executes each line of stdin as a command (stdin is not a terminal).
 * Returns the exit status. */
static int cliRunStdinLines(void) {
    sds all = cliReadStdin();
    int nlines, status = 0;
    cliFromStdinLines = 1;
    sds *lines = sdssplitlen(all, (ssize_t)sdslen(all), "\n", 1, &nlines);
    for (int j = 0; j < nlines; j++) {
        int argc;
        sds *argv = sdssplitargs(lines[j], &argc);
        if (!argv) {
            printf("Invalid argument(s)\n");
            continue;
        }
        if (argc > 0) {
            int ret = cliRunCommand(argc, argv, NULL);
            if (ret == CLI_ERR) {
                sdsfreesplitres(argv, argc);
                status = 1;
                break;
            }
            if (ret == 1 && config.set_errcode) status = 1;
        }
        sdsfreesplitres(argv, argc);
    }
    sdsfreesplitres(lines, nlines);
    sdsfree(all);
    return status;
}

/* ---------------------------------------------------------------------------
 * Command docs: help and hints
 * ------------------------------------------------------------------------- */

/* In a flat key/value list (RESP2 array or RESP3 map), the value of the
 * key name (case-insensitive), or NULL. */
static const cliReply *cliDocsField(const cliReply *list, const char *name) {
    if (!list || !cliReplyIsAggregate(list)) return NULL;
    for (size_t j = 0; j + 1 < list->elements; j += 2) {
        const cliReply *k = list->element[j];
        if (k->str && !strcasecmp(k->str, name)) return list->element[j + 1];
    }
    return NULL;
}

/* The docs of a command ("get") or subcommand ("config|get"), or NULL. */
static const cliReply *cliDocsFind(const char *cmd, const char *sub) {
    const cliReply *d = cliDocsField(cli.docs, cmd);
    if (!d || !sub) return d;
    sds full = sdscatfmt(sdsnew(cmd), "|%s", sub);
    sdstolower(full);
    const cliReply *s = cliDocsField(cliDocsField(d, "subcommands"), full);
    sdsfree(full);
    return s;
}

/* Appends the syntax of one argument description (COMMAND DOCS
 * "arguments" entry): tokens in capitals, [optional], repeats with
 * "[x ...]", alternatives joined by |. */
static sds cliCatArgSyntax(sds out, const cliReply *arg) {
    const cliReply *name = cliDocsField(arg, "name"), *type = cliDocsField(arg, "type");
    const cliReply *token = cliDocsField(arg, "token"), *flags = cliDocsField(arg, "flags");
    const cliReply *disp = cliDocsField(arg, "display_text"), *sub = cliDocsField(arg, "arguments");
    int optional = 0, multiple = 0;
    if (flags && cliReplyIsAggregate(flags)) {
        for (size_t j = 0; j < flags->elements; j++) {
            const char *f = flags->element[j]->str ? flags->element[j]->str : "";
            if (!strcmp(f, "optional")) optional = 1;
            if (!strcmp(f, "multiple")) multiple = 1;
        }
    }
    const char *t = type && type->str ? type->str : "";
    sds one = sdsempty();
    if (token && token->str) one = sdscat(one, token->str);
    if (!strcmp(t, "oneof") || !strcmp(t, "block")) {
        if (sdslen(one)) one = sdscat(one, " ");
        int oneof = !strcmp(t, "oneof");
        if (oneof && !optional) one = sdscat(one, "<");
        for (size_t j = 0; sub && cliReplyIsAggregate(sub) && j < sub->elements; j++) {
            if (j) one = sdscat(one, oneof ? " | " : " ");
            one = cliCatArgSyntax(one, sub->element[j]);
        }
        if (oneof && !optional) one = sdscat(one, ">");
    } else if (strcmp(t, "pure-token") != 0) {
        if (sdslen(one)) one = sdscat(one, " ");
        const cliReply *n = disp && disp->str ? disp : name;
        if (n && n->str) one = sdscat(one, n->str);
    }
    if (multiple) {
        sds again = sdsdup(one); /* one may move while it grows */
        one = sdscatfmt(one, " [%S ...]", again);
        sdsfree(again);
    }
    if (optional)
        out = sdscatfmt(out, "[%S]", one);
    else
        out = sdscatsds(out, one);
    sdsfree(one);
    return out;
}

/* The argument syntax of a command's docs ("key value [NX | XX]"), a new
 * sds (empty when the docs list no arguments). */
static sds cliDocsSyntax(const cliReply *docs) {
    sds out = sdsempty();
    const cliReply *args = cliDocsField(docs, "arguments");
    for (size_t j = 0; args && cliReplyIsAggregate(args) && j < args->elements; j++) {
        if (j) out = sdscat(out, " ");
        out = cliCatArgSyntax(out, args->element[j]);
    }
    return out;
}

/* Fetches COMMAND DOCS once for the REPL; without them there are simply
 * no hints and help says it knows nothing. */
static void cliLoadDocs(void) {
    if (!cli.conn) return;
    cliReply *r = cliCommandArgv(2, (char *[]){"COMMAND", "DOCS"});
    if (r && cliReplyIsAggregate(r)) {
        cli.docs = r;
    } else {
        cliReplyFree(r);
    }
}

/* `help`, `help <command>` and `help @<group>` in the REPL. */
static void cliHelp(int argc, char **argv) {
    if (argc == 1) {
        printf("valkey-cli %s\n"
               "To get help about commands, type:\n"
               "      \"help @<group>\" to get a list of commands in <group>\n"
               "      \"help <command>\" for help on <command>\n"
               "      \"quit\" to exit\n",
               CLI_VERSION);
        return;
    }
    if (!cli.docs) {
        printf("No help available: the server did not answer COMMAND DOCS.\n");
        return;
    }
    if (argv[1][0] == '@') {
        for (size_t j = 0; j + 1 < cli.docs->elements; j += 2) {
            const cliReply *group = cliDocsField(cli.docs->element[j + 1], "group");
            if (!group || !group->str || strcasecmp(group->str, argv[1] + 1)) continue;
            sds syn = cliDocsSyntax(cli.docs->element[j + 1]);
            sds name = sdsnew(cli.docs->element[j]->str);
            sdstoupper(name);
            printf("\n  %s %s\n", name, syn);
            const cliReply *sum = cliDocsField(cli.docs->element[j + 1], "summary");
            if (sum && sum->str) printf("  summary: %s\n", sum->str);
            sdsfree(name);
            sdsfree(syn);
        }
        printf("\n");
        return;
    }
    sds cmd = sdsnew(argv[1]);
    sdstolower(cmd);
    const cliReply *d = cliDocsFind(cmd, argc > 2 ? argv[2] : NULL);
    int sub = d && argc > 2;
    if (!d) d = cliDocsFind(cmd, NULL);
    if (!d) {
        sdsfree(cmd);
        return; /* Like Valkey's cli: nothing for unknown commands. */
    }
    sds name = sdsdup(cmd);
    if (sub) name = sdscatfmt(name, " %s", argv[2]);
    sdstoupper(name);
    sds syn = cliDocsSyntax(d);
    printf("\n  %s%s%s\n", name, sdslen(syn) ? " " : "", syn);
    static const char *fields[] = {"summary", "since", "group", "complexity"};
    for (size_t j = 0; j < sizeof(fields) / sizeof(fields[0]); j++) {
        const cliReply *f = cliDocsField(d, fields[j]);
        if (f && f->str) printf("  %s: %s\n", fields[j], f->str);
    }
    printf("\n");
    sdsfree(syn);
    sdsfree(name);
    sdsfree(cmd);
}

/* The hint for a partly typed line: the syntax of the command (or
 * subcommand) minus the arguments already typed. A new sds or NULL. */
static sds cliHintFor(const char *line) {
    if (!cli.docs) return NULL;
    int argc;
    sds *argv = sdssplitargs(line, &argc);
    if (!argv || argc == 0) {
        sdsfreesplitres(argv, argc);
        return NULL;
    }
    int ends_space = *line && line[strlen(line) - 1] == ' ';
    sds cmd = sdsnew(argv[0]);
    sdstolower(cmd);
    const cliReply *d = NULL;
    int typed = argc - 1;
    if (argc >= 2) {
        d = cliDocsFind(cmd, argv[1]);
        if (d) typed = argc - 2;
    }
    if (!d) d = cliDocsFind(cmd, NULL);
    sds hint = NULL;
    if (d && (ends_space || typed > 0)) {
        /* Drop one syntax word per typed argument: good enough for the
         * common fixed prefixes (key value ...). */
        sds syn = cliDocsSyntax(d);
        const char *p = syn;
        for (int j = 0; j < typed && p; j++) {
            p = strchr(p, ' ');
            if (p) p++;
        }
        if (p && *p && ends_space) hint = sdsnew(p);
        sdsfree(syn);
    }
    sdsfree(cmd);
    sdsfreesplitres(argv, argc);
    return hint;
}

/* ---------------------------------------------------------------------------
 * The interactive REPL (libedit)
 * ------------------------------------------------------------------------- */

static EditLine *replEl;
static History *replHist;
static char *replHistFile;
static char replPromptBuf[400];
static char replHintBuf[400];

/* "127.0.0.1:6379[2](TX)> " or "not connected> ". */
static char *replPrompt(EditLine *el) {
    (void)el;
    if (!cli.conn) {
        snprintf(replPromptBuf, sizeof(replPromptBuf), "not connected> ");
        return replPromptBuf;
    }
    char db[32] = "";
    if (cli.db) snprintf(db, sizeof(db), "[%d]", cli.db);
    snprintf(replPromptBuf, sizeof(replPromptBuf), "%s%s%s%s> ", config.socket ? "valkey " : "", cli.addrstr, db,
             cli.in_multi ? "(TX)" : "");
    return replPromptBuf;
}

/* libedit's right prompt doubles as the hint line: refreshed on every
 * full redraw, which the space key forces (replSpace). */
static char *replRightPrompt(EditLine *el) {
    const LineInfo *li = el_line(el);
    replHintBuf[0] = '\0';
    size_t len = (size_t)(li->lastchar - li->buffer);
    char line[1024];
    if (len >= sizeof(line)) return replHintBuf;
    memcpy(line, li->buffer, len);
    line[len] = '\0';
    sds hint = cliHintFor(line);
    if (hint) {
        /* libedit hides a right prompt that does not fit: cut it to the
         * room left on the line. */
        int cols = 80;
        el_get(el, EL_GETTC, "co", &cols);
        long room = (long)cols - (long)strlen(replPromptBuf) - (long)len - 3;
        if (room > (long)sizeof(replHintBuf) - 1) room = (long)sizeof(replHintBuf) - 1;
        if (room >= 8) {
            if ((long)sdslen(hint) > room) {
                snprintf(replHintBuf, sizeof(replHintBuf), "%.*s...", (int)room - 3, hint);
            } else {
                snprintf(replHintBuf, sizeof(replHintBuf), "%s", hint);
            }
        }
        sdsfree(hint);
    }
    return replHintBuf;
}

/* Space: insert it and redraw, so the hint follows what was typed. */
static unsigned char replSpace(EditLine *el, int ch) {
    (void)ch;
    el_insertstr(el, " ");
    return CC_REFRESH;
}

/* Tab: completes the command name from the docs. */
static unsigned char replComplete(EditLine *el, int ch) {
    (void)ch;
    const LineInfo *li = el_line(el);
    size_t len = (size_t)(li->cursor - li->buffer);
    if (!cli.docs || len == 0 || memchr(li->buffer, ' ', len)) return CC_ERROR;
    const char *match = NULL;
    int matches = 0;
    for (size_t j = 0; j + 1 < cli.docs->elements; j += 2) {
        const char *name = cli.docs->element[j]->str;
        if (name && !strncasecmp(name, li->buffer, len)) {
            match = name;
            matches++;
        }
    }
    if (matches != 1) return CC_REFRESH_BEEP;
    sds rest = sdsnew(match + len);
    if (isupper((unsigned char)li->buffer[0])) sdstoupper(rest);
    el_insertstr(el, rest);
    el_insertstr(el, " ");
    sdsfree(rest);
    return CC_REFRESH;
}

/* Lines never written to the history: they may carry passwords. */
static int replIsSensitive(int argc, char **argv) {
    if (argc == 0) return 0;
    if (!strcasecmp(argv[0], "auth")) return 1;
    if (argc > 1 && !strcasecmp(argv[0], "acl") && !strcasecmp(argv[1], "setuser")) return 1;
    if (argc > 2 && !strcasecmp(argv[0], "config") && !strcasecmp(argv[1], "set") &&
        (!strcasecmp(argv[2], "masterauth") || !strcasecmp(argv[2], "primaryauth") ||
         !strcasecmp(argv[2], "requirepass")))
        return 1;
    for (int j = 1; j < argc && !strcasecmp(argv[0], "hello"); j++)
        if (!strcasecmp(argv[j], "auth")) return 1;
    for (int j = 1; j < argc && !strcasecmp(argv[0], "migrate"); j++)
        if (!strcasecmp(argv[j], "auth") || !strcasecmp(argv[j], "auth2")) return 1;
    return 0;
}

/* Sets up libedit and loads the history file. */
static void replInit(void) {
    HistEvent ev;
    replEl = el_init("valkey-cli", stdin, stdout, stderr);
    replHist = history_init();
    history(replHist, &ev, H_SETSIZE, CLI_HISTORY_SIZE);
    history(replHist, &ev, H_SETUNIQUE, 1);
    el_set(replEl, EL_EDITOR, "emacs");
    el_set(replEl, EL_SIGNAL, 1);
    el_set(replEl, EL_PROMPT, replPrompt);
    el_set(replEl, EL_RPROMPT, replRightPrompt);
    el_set(replEl, EL_HIST, history, replHist);
    el_set(replEl, EL_ADDFN, "vk-space", "Insert a space and show the hint", replSpace);
    el_set(replEl, EL_BIND, " ", "vk-space", NULL);
    el_set(replEl, EL_ADDFN, "vk-complete", "Complete a command name", replComplete);
    el_set(replEl, EL_BIND, "^I", "vk-complete", NULL);
    el_source(replEl, NULL);

    const char *env = getenv(CLI_HISTFILE_ENV);
    if (env && *env) {
        replHistFile = strcmp(env, "/dev/null") ? sdsnew(env) : NULL;
    } else {
        const char *home = getenv("HOME");
        if (home && *home) replHistFile = sdscatfmt(sdsempty(), "%s/%s", home, CLI_HISTFILE_DEFAULT);
    }
    if (replHistFile) history(replHist, &ev, H_LOAD, replHistFile);
}

static void replFree(void) {
    if (replEl) el_end(replEl);
    if (replHist) history_end(replHist);
    sdsfree(replHistFile);
    replEl = NULL;
    replHist = NULL;
    replHistFile = NULL;
}

/* The REPL: reads lines until EOF, quit or exit. */
static void repl(void) {
    HistEvent ev;
    cli.interactive = 1;
    config.repeat = 1; /* A line may start with a count instead. */
    replInit();
    cliLoadDocs();
    for (;;) {
        int count;
        const char *line = el_gets(replEl, &count);
        if (!line) break;
        sds l = sdsnew(line);
        sdstrim(l, " \t\r\n");
        int argc;
        sds *argv = sdssplitargs(l, &argc);
        if (!argv) {
            printf("Invalid argument(s)\n");
            sdsfree(l);
            continue;
        }
        if (argc > 0 && !replIsSensitive(argc, argv)) {
            history(replHist, &ev, H_ENTER, l);
            if (replHistFile) history(replHist, &ev, H_SAVE, replHistFile);
        }
        sdsfree(l);
        if (argc == 0) {
            sdsfreesplitres(argv, argc);
            continue;
        }
        if (!strcasecmp(argv[0], "quit") || !strcasecmp(argv[0], "exit")) {
            sdsfreesplitres(argv, argc);
            break;
        }
        /* "3 incr x" repeats the command, as in Valkey's cli. */
        long long times = 1;
        int skip = 0;
        if (argc > 1 && string2ll(argv[0], sdslen(argv[0]), &times) && times > 0) skip = 1;
        else times = 1;
        if (!strcasecmp(argv[skip], "help") || argv[skip][0] == '?') {
            cliHelp(argc - skip, argv + skip);
        } else if (!strcasecmp(argv[skip], "clear")) {
            printf("\033[H\033[2J");
        } else if (!strcasecmp(argv[skip], "connect") && argc - skip >= 2) {
            config.host = sdsnew(argv[skip + 1]); /* Leaked once per connect. */
            config.port = argc - skip >= 3 ? atoi(argv[skip + 2]) : CLI_DEFAULT_PORT;
            config.socket = NULL;
            cli.addr.host = config.host;
            cli.addr.port = config.port;
            cli.addr.path = NULL;
            cli.addr.tls = &config.tls;
            cli.ct = cliConnTypeGetByName(CLI_CONN_TCP);
            cliConnFormatAddr(cli.addrstr, sizeof(cli.addrstr), &cli.addr);
            cli.db = 0;
            cli.in_multi = 0;
            if (cliConnect() == CLI_OK && !cli.docs) cliLoadDocs();
        } else {
            for (long long j = 0; j < times; j++)
                if (cliRunCommandOnce(argc - skip, argv + skip, NULL) == CLI_ERR) break;
        }
        sdsfreesplitres(argv, argc);
    }
    replFree();
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
 * --scan, --bigkeys, --memkeys
 * ------------------------------------------------------------------------- */

/* One SCAN call: returns the reply's key array and sets *cursor, or exits
 * on an error. The reply is owned by the caller. */
static cliReply *cliScanStep(sds *cursor) {
    int argc = 2;
    char *argv[6] = {"SCAN", *cursor};
    char count[32];
    if (config.pattern) {
        argv[argc++] = "MATCH";
        argv[argc++] = (char *)config.pattern;
    }
    if (config.count) {
        snprintf(count, sizeof(count), "%lld", config.count);
        argv[argc++] = "COUNT";
        argv[argc++] = count;
    }
    cliReply *r = cliCommandArgv(argc, argv);
    if (!r) cliFatal("Error: %s", cli.lasterr);
    if (r->type == CLI_REPLY_ERROR) cliFatal("Error: %s", r->str);
    if (r->type != CLI_REPLY_ARRAY || r->elements != 2 || !r->element[0]->str ||
        !cliReplyIsAggregate(r->element[1]))
        cliFatal("Error: unexpected SCAN reply");
    *cursor = sdscpy(*cursor, r->element[0]->str);
    return r;
}

/* --scan: prints every matching key, one per line (raw, or quoted in the
 * terminal format). */
static void scanMode(void) {
    sds cursor = sdsnew("0");
    do {
        cliReply *r = cliScanStep(&cursor);
        const cliReply *keys = r->element[1];
        for (size_t j = 0; j < keys->elements; j++) {
            const cliReply *k = keys->element[j];
            if (!k->str) continue;
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
    } while (strcmp(cursor, "0") != 0);
    sdsfree(cursor);
}

/* Per-type statistics of --bigkeys / --memkeys. */
typedef struct keyTypeStats {
    const char *name;     /* TYPE reply. */
    const char *sizecmd;  /* Command giving the size, NULL if unknown. */
    const char *unit;     /* "bytes", "items", ... */
    unsigned long long count, total, biggest;
    sds biggest_key;
} keyTypeStats;

/* --bigkeys (memkeys = 0) or --memkeys: scans the keyspace, sizes every
 * key, prints the biggest of each type as found, then a summary. */
static void bigKeysMode(int memkeys) {
    keyTypeStats types[] = {
        {"string", "STRLEN", "bytes"}, {"list", "LLEN", "items"},    {"set", "SCARD", "members"},
        {"zset", "ZCARD", "members"},  {"hash", "HLEN", "fields"},   {"stream", "XLEN", "entries"},
    };
    size_t ntypes = sizeof(types) / sizeof(types[0]);
    if (memkeys)
        for (size_t j = 0; j < ntypes; j++) types[j].unit = "bytes";
    unsigned long long sampled = 0, keylen_total = 0, scans = 0;
    cliReply *r = cliCommand("DBSIZE");
    long long dbsize = r && r->type == CLI_REPLY_INTEGER ? r->integer : 0;
    cliReplyFree(r);

    printf("\n# Scanning the entire keyspace to find biggest keys as well as\n"
           "# average sizes per key type.  You can use -i 0.1 to sleep 0.1 sec\n"
           "# per 100 SCAN commands (not usually needed).\n\n");
    sds cursor = sdsnew("0");
    do {
        cliReply *scan = cliScanStep(&cursor);
        const cliReply *keys = scan->element[1];
        for (size_t j = 0; j < keys->elements; j++) {
            const cliReply *k = keys->element[j];
            if (!k->str) continue;
            cliReply *t = cliCommandArgv(2, (char *[]){"TYPE", k->str});
            if (!t) cliFatal("Error: %s", cli.lasterr);
            keyTypeStats *ts = NULL;
            for (size_t i = 0; t->str && i < ntypes; i++)
                if (!strcmp(t->str, types[i].name)) ts = &types[i];
            cliReplyFree(t);
            if (!ts) continue; /* Vanished, or a type we do not know. */
            cliReply *s = memkeys ? cliCommandArgv(5, (char *[]){"MEMORY", "USAGE", k->str, "SAMPLES", "0"})
                                  : cliCommandArgv(2, (char *[]){(char *)ts->sizecmd, k->str});
            if (!s) cliFatal("Error: %s", cli.lasterr);
            unsigned long long size = s->type == CLI_REPLY_INTEGER && s->integer > 0 ? (unsigned long long)s->integer : 0;
            cliReplyFree(s);
            sampled++;
            keylen_total += k->len;
            ts->count++;
            ts->total += size;
            if (!ts->biggest_key || size > ts->biggest) {
                ts->biggest = size;
                sdsfree(ts->biggest_key);
                ts->biggest_key = sdscatrepr(sdsempty(), k->str, k->len);
                double pct = dbsize > 0 ? 100.0 * (double)sampled / (double)dbsize : 0;
                if (pct > 100) pct = 100;
                printf("[%05.2f%%] Biggest %-6s found so far '%s' with %llu %s\n", pct, ts->name, ts->biggest_key,
                       size, ts->unit);
            }
        }
        cliReplyFree(scan);
        if (config.interval > 0 && ++scans % CLI_SCAN_SLEEP_EVERY == 0) cliSleep(config.interval);
    } while (strcmp(cursor, "0") != 0);
    sdsfree(cursor);

    printf("\n-------- summary -------\n\n");
    printf("Sampled %llu keys in the keyspace!\n", sampled);
    printf("Total key length in bytes is %llu (avg len %.2f)\n\n", keylen_total,
           sampled ? (double)keylen_total / (double)sampled : 0);
    for (size_t j = 0; j < ntypes; j++) {
        if (types[j].biggest_key)
            printf("Biggest %6s found '%s' has %llu %s\n", types[j].name, types[j].biggest_key, types[j].biggest,
                   types[j].unit);
    }
    printf("\n");
    for (size_t j = 0; j < ntypes; j++) {
        keyTypeStats *ts = &types[j];
        printf("%llu %ss with %llu %s (%05.2f%% of keys, avg size %.2f)\n", ts->count, ts->name, ts->total, ts->unit,
               sampled ? 100.0 * (double)ts->count / (double)sampled : 0,
               ts->count ? (double)ts->total / (double)ts->count : 0);
        sdsfree(ts->biggest_key);
    }
}

/* ---------------------------------------------------------------------------
 * --latency, --latency-history, --stat
 * ------------------------------------------------------------------------- */

#define LATENCY_SAMPLE_MS 10

/* Pings the server every 10 ms. On a terminal the line is redrawn in
 * place; otherwise one "min max avg samples" line after a second. With
 * --latency-history a new line starts every -i seconds (default 15). */
static void latencyMode(void) {
    long long min = 0, max = 0, count = 0, tot = 0;
    double interval = config.interval_set ? config.interval : CLI_DEFAULT_INTERVAL_LATENCY;
    long long start = mstime();
    int tty = cli.output == CLI_OUTPUT_STANDARD;
    for (;;) {
        long long t0 = ustime();
        cliReply *r = cliCommandArgv(1, (char *[]){"PING"});
        if (!r) cliFatal("\nI/O error");
        cliReplyFree(r);
        long long lat = (ustime() - t0) / 1000;
        if (count == 0 || lat < min) min = lat;
        if (lat > max) max = lat;
        tot += lat;
        count++;
        double avg = (double)tot / (double)count;
        if (!tty) {
            if (mstime() - start >= 1000) {
                printf("%lld %lld %.2f %lld\n", min, max, avg, count);
                return;
            }
        } else {
            printf("\x1b[0G\x1b[2Kmin: %lld, max: %lld, avg: %.2f (%lld samples)", min, max, avg, count);
            fflush(stdout);
            if (config.latency_history && mstime() - start > (long long)(interval * 1000)) {
                printf(" -- %.2f seconds range\n", (double)(mstime() - start) / 1000);
                start = mstime();
                min = max = tot = count = 0;
            }
        }
        cliSleep(LATENCY_SAMPLE_MS / 1000.0);
    }
}

/* The value of field in an INFO text, or 0. */
static long long infoField(const char *info, const char *field) {
    size_t flen = strlen(field);
    for (const char *p = info; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (!strncmp(p, field, flen) && p[flen] == ':') return strtoll(p + flen + 1, NULL, 10);
    }
    return 0;
}

/* Total keys over the "dbN:keys=..." lines of INFO. */
static long long infoKeys(const char *info) {
    long long keys = 0;
    for (const char *p = info; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (!strncmp(p, "db", 2) && strstr(p, ":keys=")) {
            const char *k = strstr(p, ":keys=");
            const char *nl = strchr(p, '\n');
            if (!nl || k < nl) keys += strtoll(k + 6, NULL, 10);
        }
    }
    return keys;
}

/* Formats a byte count as Valkey's INFO does (1.23M). */
static void bytesToHuman(char *buf, size_t len, long long n) {
    const char *units = "BKMGTP";
    double d = (double)n;
    int u = 0;
    while (d >= 1024 && u < 5) {
        d /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%lldB", n);
    else
        snprintf(buf, len, "%.2f%c", d, units[u]);
}

/* --stat: one line of server activity every -i seconds (default 1). */
static void statMode(void) {
    double interval = config.interval_set && config.interval > 0 ? config.interval : 1.0;
    long long prev_requests = 0;
    for (int lines = 0;; lines++) {
        cliReply *r = cliCommandArgv(1, (char *[]){"INFO"});
        if (!r) cliFatal("Error: %s", cli.lasterr);
        if (r->type == CLI_REPLY_ERROR) cliFatal("ERROR: %s", r->str);
        const char *info = r->str ? r->str : "";
        if (lines % 20 == 0) {
            printf("------- data ------ --------------------- load -------------------- - child -\n"
                   "keys       mem      clients blocked requests            connections          \n");
        }
        char mem[32], buf[64];
        bytesToHuman(mem, sizeof(mem), infoField(info, "used_memory"));
        long long requests = infoField(info, "total_commands_processed");
        snprintf(buf, sizeof(buf), "%lld (+%lld)", requests, lines ? requests - prev_requests : 0);
        printf("%-11lld%-9s%-8lld%-8lld%-20s%-12lld%s\n", infoKeys(info), mem, infoField(info, "connected_clients"),
               infoField(info, "blocked_clients"), buf, infoField(info, "total_connections_received"),
               infoField(info, "rdb_bgsave_in_progress") ? "SAVE" : "");
        fflush(stdout);
        prev_requests = requests;
        cliReplyFree(r);
        cliSleep(interval);
    }
}

/* ---------------------------------------------------------------------------
 * --eval
 * ------------------------------------------------------------------------- */

/* --eval file [key ...] [, arg ...]: EVAL with the file as the script;
 * the words before a lone "," are keys. Returns the exit status. */
static int evalMode(int argc, char **argv) {
    FILE *fp = fopen(config.eval, "r");
    if (!fp) cliFatal("Can't open file '%s': %s", config.eval, strerror(errno));
    sds script = sdsempty();
    char chunk[16384];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) script = sdscatlen(script, chunk, n);
    fclose(fp);
    /* A leading "#!" line (shebang) is not Lua. */
    if (sdslen(script) > 1 && script[0] == '#' && script[1] == '!') {
        char *nl = strchr(script, '\n');
        sdsrange(script, nl ? nl - script : (ssize_t)sdslen(script), -1);
    }

    int numkeys = argc;
    int got_comma = 0;
    char **args = zmalloc(sizeof(char *) * (size_t)(argc + 3));
    int k = 0;
    char nkbuf[32];
    args[k++] = "EVAL";
    args[k++] = script;
    args[k++] = nkbuf;
    for (int j = 0; j < argc; j++) {
        if (!got_comma && !strcmp(argv[j], ",")) {
            numkeys = j;
            got_comma = 1;
            continue;
        }
        args[k++] = argv[j];
    }
    snprintf(nkbuf, sizeof(nkbuf), "%d", numkeys);
    long long saved = config.repeat;
    config.repeat = 1;
    int ret = cliRunCommand(k, args, NULL);
    config.repeat = saved;
    zfree(args);
    sdsfree(script);
    if (ret == CLI_ERR) return 1;
    return ret == 1 && config.set_errcode ? 1 : 0;
}

/* ---------------------------------------------------------------------------
 * Options and main
 * ------------------------------------------------------------------------- */

static void usage(int status) {
    FILE *fp = status ? stderr : stdout;
    fprintf(fp,
            "valkey-cli %s\n\n"
            "Usage: valkey-cli [OPTIONS] [cmd [arg [arg ...]]]\n"
            "  -h <hostname>      Server hostname (default: 127.0.0.1).\n"
            "  -p <port>          Server port (default: 6379).\n"
            "  -s <socket>        Server socket (overrides hostname and port).\n"
            "  -a <password>      Password to use when connecting to the server.\n"
            "                     You can also use the " CLI_AUTH_ENV " environment\n"
            "                     variable to pass this password more safely\n"
            "                     (if both are used, this argument takes precedence).\n"
            "  --user <username>  Used to send ACL style 'AUTH username pass'. Needs -a.\n"
            "  --pass <password>  Alias of -a for consistency with the new --user option.\n"
            "  --no-auth-warning  Don't show warning message when using password on command\n"
            "                     line interface.\n"
            "  -r <repeat>        Execute specified command N times (-1 = forever).\n"
            "  -i <interval>      When -r is used, waits <interval> seconds per command.\n"
            "                     It is possible to specify sub-second times like -i 0.1.\n"
            "                     This interval is also used in --scan and --stat per cycle,\n"
            "                     and in --bigkeys and --memkeys per 100 cycles.\n"
            "  -n <db>            Database number.\n"
            "  -2                 Start session in RESP2 protocol mode.\n"
            "  -3                 Start session in RESP3 protocol mode.\n"
            "  -x                 Read last argument from STDIN.\n"
            "  -e                 Return exit error code when command execution fails.\n"
            "  --raw              Use raw formatting for replies (default when STDOUT is\n"
            "                     not a tty).\n"
            "  --no-raw           Force formatted output even when STDOUT is not a tty.\n"
            "  --quoted-input     Force input to be handled as quoted strings.\n"
            "  --csv              Output in CSV format.\n"
            "  --json             Output in JSON format (default RESP3, use -2 if you want\n"
            "                     to use with RESP2).\n"
            "  --quoted-json      Same as --json, but produce ASCII-safe quoted strings,\n"
            "                     not Unicode.\n"
            "  --stat             Print rolling stats about server: mem, clients, ...\n"
            "  --latency          Enter a special mode continuously sampling latency.\n"
            "  --latency-history  Like --latency but tracking latency changes over time.\n"
            "                     Default time interval is 15 sec. Change it using -i.\n"
            "  --pipe             Transfer raw RESP protocol from stdin to server.\n"
            "  --pipe-timeout <n> In --pipe mode, abort with error if after sending all data.\n"
            "                     no reply is received within <n> seconds.\n"
            "                     Default timeout: %d. Use 0 to wait forever.\n"
            "  --bigkeys          Sample keys looking for keys with many elements (complexity).\n"
            "  --memkeys          Sample keys looking for keys consuming a lot of memory.\n"
            "  --scan             List all keys using the SCAN command.\n"
            "  --pattern <pat>    Keys pattern when using the --scan, --bigkeys or --memkeys\n"
            "                     options (default: *).\n"
            "  --quoted-pattern <pat> Same as --pattern, but the specified string can be\n"
            "                     quoted, in order to pass an otherwise non binary-safe string.\n"
            "  --count <count>    Count option when using the --scan, --bigkeys or --memkeys.\n"
            "  --eval <file>      Send an EVAL command using the Lua script at <file>.\n"
            CLI_TLS_OPTIONS_HELP("  ")
            "  --rdma             Establish an RDMA connection.\n"
            "  --verbose          Verbose mode.\n"
            "  --help             Output this help and exit.\n"
            "  --version          Output version and exit.\n\n"
            "Examples:\n"
            "  valkey-cli -r 100 lpush mylist x\n"
            "  valkey-cli -r 100 -i 1 info | grep used_memory_human:\n"
            "  valkey-cli --quoted-input set '\"null-\\x00-separated\"' value\n"
            "  valkey-cli --eval myscript.lua key1 key2 , arg1 arg2 arg3\n"
            "  valkey-cli --scan --pattern '*:12345*'\n"
            "  (Note: when using --eval the comma separates KEYS[] from ARGV[] items)\n\n"
            "When no command is given, valkey-cli starts in interactive mode.\n"
            "Type \"help\" in interactive mode for information on available commands\n"
            "and settings.\n\n",
            CLI_VERSION, CLI_DEFAULT_PIPE_TIMEOUT);
    exit(status);
}

/* Entry point: options, transport, then the mode they ask for. Exits 0,
 * or 1 as described at the top of the file. */
int main(int argc, char **argv) {
    char err[256];
    cliOptionsInit(&config);
    int first = cliParseOptions(argc, argv, &config, err, sizeof(err));
    if (first < 0) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    if (config.mode == CLI_MODE_HELP) usage(0);
    if (config.mode == CLI_MODE_VERSION) {
        printf("valkey-cli %s\n", CLI_VERSION);
        exit(0);
    }
    if (!config.auth) {
        const char *env = getenv(CLI_AUTH_ENV);
        if (env) config.auth = env;
    } else if (!config.no_auth_warning && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "Warning: Using a password with '-a' or '-u' option on the command line interface "
                        "may not be safe.\n");
    }

    cli.ct = cliConnTypeGetByName(config.transport);
    if (!cli.ct) {
        if (!strcasecmp(config.transport, CLI_CONN_RDMA)) cliFatal("RDMA support is not built in");
        if (!strcasecmp(config.transport, CLI_CONN_TLS)) cliFatal("TLS support is not built in");
        cliFatal("Unknown transport '%s'", config.transport);
    }
    cli.addr.host = config.host;
    cli.addr.port = config.port;
    cli.addr.path = !strcmp(cli.ct->name, CLI_CONN_UNIX) ? config.socket : NULL;
    cli.addr.tls = &config.tls;
    cliConnFormatAddr(cli.addrstr, sizeof(cli.addrstr), &cli.addr);
    cli.ibuf = sdsempty();
    cli.db = config.dbnum;

    if (config.output >= 0)
        cli.output = (cliOutputMode)config.output;
    else
        cli.output = isatty(STDOUT_FILENO) ? CLI_OUTPUT_STANDARD : CLI_OUTPUT_RAW;
    if (config.resp == 0)
        config.resp = (cli.output == CLI_OUTPUT_JSON || cli.output == CLI_OUTPUT_QUOTED_JSON) ? 3 : 2;
    signal(SIGPIPE, SIG_IGN);

    int cmd_argc = argc - first;
    char **cmd_argv = argv + first;
    switch (config.mode) {
    case CLI_MODE_PIPE: return pipeMode();
    case CLI_MODE_SCAN:
        if (cliConnect() != CLI_OK) return 1;
        scanMode();
        return 0;
    case CLI_MODE_BIGKEYS:
    case CLI_MODE_MEMKEYS:
        if (cliConnect() != CLI_OK) return 1;
        bigKeysMode(config.mode == CLI_MODE_MEMKEYS);
        return 0;
    case CLI_MODE_LATENCY:
        if (cliConnect() != CLI_OK) return 1;
        latencyMode();
        return 0;
    case CLI_MODE_STAT:
        if (cliConnect() != CLI_OK) return 1;
        statMode();
        return 0;
    default: break;
    }

    if (config.eval) {
        if (cliConnect() != CLI_OK) return 1;
        return evalMode(cmd_argc, cmd_argv);
    }

    if (cmd_argc == 0 && !config.stdin_last_arg && isatty(STDIN_FILENO)) {
        cliConnect(); /* Failing is fine: the prompt says "not connected". */
        repl();
        return 0;
    }

    if (cliConnect() != CLI_OK) return 1;
    if (cmd_argc == 0) return cliRunStdinLines();

    /* A command from argv, -x appending stdin as its last argument. */
    int n = cmd_argc + (config.stdin_last_arg ? 1 : 0);
    char **args = zmalloc(sizeof(char *) * (size_t)n);
    size_t *lens = zmalloc(sizeof(size_t) * (size_t)n);
    sds in = NULL;
    for (int j = 0; j < cmd_argc; j++) {
        args[j] = cmd_argv[j];
        lens[j] = strlen(cmd_argv[j]);
    }
    if (config.stdin_last_arg) {
        in = cliReadStdin();
        args[cmd_argc] = in;
        lens[cmd_argc] = sdslen(in);
    }
    int ret = cliRunCommand(n, args, lens);
    zfree(args);
    zfree(lens);
    sdsfree(in);
    if (ret == CLI_ERR) return 1;
    return ret == 1 && config.set_errcode ? 1 : 0;
}
