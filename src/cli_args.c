/* cli_args.c - parses valkey-cli's command-line options.
 *
 * cliParseOptions() walks argv like Valkey's cli: options come first and
 * the first word that is not an option starts the command (so command
 * arguments may begin with '-'). It fills a cliOptions and returns the
 * index of that first command word; on a bad option it returns -1 with
 * Valkey's "Unrecognized option or bad number of args for: '...'" (or a
 * more precise message for a bad number) and the caller prints it and
 * exits 1.
 *
 * Parsing is pure: it reads no files and opens no connections, so
 * unit/test_cli_args.c covers it. Environment variables (VALKEYCLI_AUTH)
 * and choices that depend on the terminal (raw vs terminal output) are left
 * to valkey-cli.c. --quoted-pattern is unquoted here with sdssplitargs(). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_transport.h"
#include "sds.h"
#include "util.h"
#include "zmalloc.h"

/* Sets every option to its default. */
void cliOptionsInit(cliOptions *o) {
    memset(o, 0, sizeof(*o));
    o->host = CLI_DEFAULT_HOST;
    o->port = CLI_DEFAULT_PORT;
    o->repeat = 1;
    o->output = -1;
    o->pipe_timeout = CLI_DEFAULT_PIPE_TIMEOUT;
}

/* Frees what the parser allocated (the unquoted pattern). */
void cliOptionsFree(cliOptions *o) {
    sdsfree(o->pattern_buf);
    o->pattern_buf = NULL;
}

/* Parsing context shared by the helpers below. */
typedef struct argParser {
    int argc;
    char **argv;
    int i;
    char *err;
    size_t errlen;
} argParser;

static int badOption(argParser *p) {
    snprintf(p->err, p->errlen, "Unrecognized option or bad number of args for: '%s'", p->argv[p->i]);
    return -1;
}

/* The value after option argv[i] (advancing i), or NULL if it is missing. */
static const char *optValue(argParser *p) {
    if (p->i + 1 >= p->argc) return NULL;
    return p->argv[++p->i];
}

/* Parses an integer option value within [min, max]. 0 ok, -1 error. */
static int optLongLong(argParser *p, long long min, long long max, long long *out) {
    const char *opt = p->argv[p->i];
    const char *v = optValue(p);
    if (!v) return badOption(p);
    if (!string2ll(v, strlen(v), out) || *out < min || *out > max) {
        snprintf(p->err, p->errlen, "Invalid value for %s: '%s'", opt, v);
        return -1;
    }
    return 0;
}

/* Parses a non-negative number of seconds (fractions allowed). */
static int optSeconds(argParser *p, double *out) {
    const char *opt = p->argv[p->i];
    const char *v = optValue(p);
    if (!v) return badOption(p);
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end != '\0' || d < 0) {
        snprintf(p->err, p->errlen, "Invalid value for %s: '%s'", opt, v);
        return -1;
    }
    *out = d;
    return 0;
}

/* Parses argv[1..]. Returns the index of the first command word (argc if
 * none), or -1 with a message in err. String options point into argv. */
int cliParseOptions(int argc, char **argv, cliOptions *o, char *err, size_t errlen) {
    argParser p = {.argc = argc, .argv = argv, .err = err, .errlen = errlen};
    long long n;
    const char *quoted_pattern = NULL;
    for (p.i = 1; p.i < argc; p.i++) {
        const char *a = argv[p.i];
        if (a[0] != '-' || a[1] == '\0') break; /* The command starts here. */
        int tls_on = 0, tls = cliParseTlsOption(argc, argv, &p.i, &o->tls, &tls_on);
        if (tls < 0) return badOption(&p);
        if (tls > 0) {
            if (tls_on) o->transport = CLI_CONN_TLS;
            continue;
        }
        if (!strcmp(a, "-h")) {
            if (!(o->host = optValue(&p))) return badOption(&p);
        } else if (!strcmp(a, "-p")) {
            if (optLongLong(&p, 0, 65535, &n) < 0) return -1;
            o->port = (int)n;
        } else if (!strcmp(a, "-s")) {
            if (!(o->socket = optValue(&p))) return badOption(&p);
        } else if (!strcmp(a, "-a") || !strcmp(a, "--pass")) {
            if (!(o->auth = optValue(&p))) return badOption(&p);
        } else if (!strcmp(a, "--user")) {
            if (!(o->user = optValue(&p))) return badOption(&p);
        } else if (!strcmp(a, "--no-auth-warning")) {
            o->no_auth_warning = 1;
        } else if (!strcmp(a, "-n")) {
            if (optLongLong(&p, 0, 1 << 30, &n) < 0) return -1;
            o->dbnum = (int)n;
        } else if (!strcmp(a, "-r")) {
            if (optLongLong(&p, -1, LLONG_MAX, &n) < 0) return -1;
            o->repeat = n;
        } else if (!strcmp(a, "-i")) {
            if (optSeconds(&p, &o->interval) < 0) return -1;
            o->interval_set = 1;
        } else if (!strcmp(a, "-x")) {
            o->stdin_last_arg = 1;
        } else if (!strcmp(a, "-e")) {
            o->set_errcode = 1;
        } else if (!strcmp(a, "--raw")) {
            o->output = CLI_OUTPUT_RAW;
        } else if (!strcmp(a, "--no-raw")) {
            o->output = CLI_OUTPUT_STANDARD;
        } else if (!strcmp(a, "--csv")) {
            o->output = CLI_OUTPUT_CSV;
        } else if (!strcmp(a, "--json")) {
            o->output = CLI_OUTPUT_JSON;
        } else if (!strcmp(a, "--quoted-json")) {
            o->output = CLI_OUTPUT_QUOTED_JSON;
        } else if (!strcmp(a, "-2") || !strcmp(a, "--resp2")) {
            o->resp = 2;
        } else if (!strcmp(a, "-3") || !strcmp(a, "--resp3")) {
            o->resp = 3;
        } else if (!strcmp(a, "--pipe")) {
            o->mode = CLI_MODE_PIPE;
        } else if (!strcmp(a, "--pipe-timeout")) {
            if (optLongLong(&p, 0, LLONG_MAX / 1000, &o->pipe_timeout) < 0) return -1;
        } else if (!strcmp(a, "--scan")) {
            o->mode = CLI_MODE_SCAN;
        } else if (!strcmp(a, "--pattern")) {
            if (!(o->pattern = optValue(&p))) return badOption(&p);
        } else if (!strcmp(a, "--quoted-pattern")) {
            if (!(quoted_pattern = optValue(&p))) return badOption(&p);
        } else if (!strcmp(a, "--count")) {
            if (optLongLong(&p, 1, LLONG_MAX, &o->count) < 0) return -1;
        } else if (!strcmp(a, "--latency")) {
            o->mode = CLI_MODE_LATENCY;
        } else if (!strcmp(a, "--latency-history")) {
            o->mode = CLI_MODE_LATENCY;
            o->latency_history = 1;
        } else if (!strcmp(a, "--stat")) {
            o->mode = CLI_MODE_STAT;
        } else if (!strcmp(a, "--bigkeys")) {
            o->mode = CLI_MODE_BIGKEYS;
        } else if (!strcmp(a, "--memkeys")) {
            o->mode = CLI_MODE_MEMKEYS;
        } else if (!strcmp(a, "--eval")) {
            if (!(o->eval = optValue(&p))) return badOption(&p);
        } else if (!strcmp(a, "--rdma")) {
            o->transport = CLI_CONN_RDMA;
        } else if (!strcmp(a, "--verbose")) {
            o->verbose = 1;
        } else if (!strcmp(a, "--help")) {
            o->mode = CLI_MODE_HELP;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--version")) {
            o->mode = CLI_MODE_VERSION;
        } else {
            return badOption(&p);
        }
    }

    if (quoted_pattern) {
        int count = 0;
        sds *parts = sdssplitargs(quoted_pattern, &count);
        if (!parts || count != 1) {
            sdsfreesplitres(parts, count);
            snprintf(err, errlen, "Invalid quoted string specified for --quoted-pattern.");
            return -1;
        }
        sdsfree(o->pattern_buf);
        o->pattern_buf = parts[0];
        parts[0] = NULL;
        sdsfreesplitres(parts, count);
        o->pattern = o->pattern_buf;
    }
    if (!o->transport) o->transport = o->socket ? CLI_CONN_UNIX : CLI_CONN_TCP;
    return p.i;
}
