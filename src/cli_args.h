/* cli_args.h - valkey-cli's command-line options (parsed by cli_args.c,
 * unit-tested in unit/test_cli_args.c). */
#ifndef VK_CLI_ARGS_H
#define VK_CLI_ARGS_H

#include "cli_transport.h"

#include <stddef.h>

#include "cli_output.h"

#define CLI_DEFAULT_HOST "127.0.0.1"
#define CLI_DEFAULT_PORT 6379
#define CLI_DEFAULT_PIPE_TIMEOUT 30 /* Seconds without replies in --pipe. */
#define CLI_DEFAULT_INTERVAL_LATENCY 15.0 /* --latency-history, seconds. */

/* What the cli does instead of running commands. */
typedef enum {
    CLI_MODE_COMMANDS = 0, /* argv command, stdin lines, or the REPL. */
    CLI_MODE_PIPE,         /* --pipe */
    CLI_MODE_SCAN,         /* --scan */
    CLI_MODE_LATENCY,      /* --latency / --latency-history */
    CLI_MODE_STAT,         /* --stat */
    CLI_MODE_BIGKEYS,      /* --bigkeys */
    CLI_MODE_MEMKEYS,      /* --memkeys */
    CLI_MODE_HELP,         /* --help */
    CLI_MODE_VERSION       /* --version */
} cliMode;

typedef struct cliOptions {
    const char *host;
    int port;
    const char *socket;    /* -s */
    const char *transport; /* "tcp", "unix", "tls" (--tls) or "rdma" (--rdma). */
    cliTlsOptions tls;     /* --cacert, --cert, --key, ... */
    const char *auth;      /* -a / --pass */
    const char *user;      /* --user */
    int no_auth_warning;
    int dbnum;             /* -n */
    long long repeat;      /* -r; -1 = forever. */
    double interval;       /* -i, seconds; also --latency-history/--stat. */
    int interval_set;
    int stdin_last_arg;    /* -x */
    int set_errcode;       /* -e */
    int output;            /* cliOutputMode; -1 = by isatty(stdout). */
    int resp;              /* 2 or 3; 0 = not chosen (2, or 3 for --json). */
    cliMode mode;
    int latency_history;
    long long pipe_timeout; /* Seconds; 0 = wait forever. */
    const char *pattern;   /* --pattern (already unquoted if --quoted-pattern) */
    char *pattern_buf;     /* Owns an unquoted pattern; free with cliOptionsFree. */
    long long count;       /* --count; 0 = not given. */
    const char *eval;      /* --eval file */
    int verbose;
} cliOptions;

void cliOptionsInit(cliOptions *o);
void cliOptionsFree(cliOptions *o);
int cliParseOptions(int argc, char **argv, cliOptions *o, char *err, size_t errlen);

#endif
