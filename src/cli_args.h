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
#define CLI_DEFAULT_SCAN_COUNT 10   /* SCAN ... COUNT of --scan, --bigkeys, ... */
#define CLI_HOTKEYS_COUNT 16        /* Keys --hotkeys reports. */

/* What the cli does instead of running commands. When several modes are
 * asked for, the one Valkey's cli would run first wins: the order of this
 * enum, from CLI_MODE_HELP (highest) down to CLI_MODE_COMMANDS. */
typedef enum {
    CLI_MODE_COMMANDS = 0,     /* argv command, stdin lines, or the REPL. */
    CLI_MODE_TEST_HINT,        /* --test_hint / --test_hint_file */
    CLI_MODE_INTRINSIC_LATENCY,/* --intrinsic-latency <sec> (no server) */
    CLI_MODE_LRU_TEST,         /* --lru-test <keys> */
    CLI_MODE_SCAN,             /* --scan */
    CLI_MODE_STAT,             /* --stat */
    CLI_MODE_HOTKEYS,          /* --hotkeys */
    CLI_MODE_MEMKEYS,          /* --memkeys / --memkeys-samples */
    CLI_MODE_BIGKEYS,          /* --bigkeys */
    CLI_MODE_PIPE,             /* --pipe */
    CLI_MODE_RDB,              /* --rdb / --functions-rdb */
    CLI_MODE_REPLICA,          /* --replica (--slave) */
    CLI_MODE_LATENCY_DIST,     /* --latency-dist */
    CLI_MODE_LATENCY,          /* --latency / --latency-history */
    CLI_MODE_CLUSTER,          /* --cluster <command> */
    CLI_MODE_VERSION,          /* --version */
    CLI_MODE_HELP              /* --help */
} cliMode;

typedef struct cliOptions {
    const char *host;
    int port;
    const char *socket;    /* -s */
    const char *transport; /* "tcp", "unix", "tls" (--tls), "rdma" (--rdma) or "shm" (--shm). */
    cliTlsOptions tls;     /* --cacert, --cert, --key, ... */
    double connect_timeout; /* -t, seconds; 0 = no limit; -1 = not given. */
    int prefer_family;     /* -4 / -6: CLI_PREFER_IPV4 / CLI_PREFER_IPV6, or 0 */
    int prefer_ipv4, prefer_ipv6; /* -4 / -6 given (both: an error) */
    const char *auth;      /* -a / --pass / -u */
    const char *user;      /* --user / -u */
    int askpass;           /* --askpass: read the password from the terminal */
    int no_auth_warning;
    int dbnum;             /* -n */
    long long repeat;      /* -r; -1 = forever. */
    double interval;       /* -i, seconds; also --latency-history/--stat. */
    int interval_set;
    int stdin_last_arg;    /* -x */
    const char *stdin_tag; /* -X <tag>: the argument replaced by stdin */
    int set_errcode;       /* -e */
    int quoted_input;      /* --quoted-input */
    int output;            /* cliOutputMode; -1 = by isatty(stdout). */
    int push_output;       /* --show-pushes; -1 = by isatty(stdout). */
    const char *mb_delim;  /* -d: between the elements of a raw reply */
    const char *cmd_delim; /* -D: after each raw reply */
    int resp;              /* 2 or 3; 0 = not chosen (2, or 3 for --json). */
    int resp3_implicit;    /* 3 asked for by --json, not by -3 */
    int resp2_explicit, resp3_explicit; /* -2 / -3 given (both: an error) */
    int cluster_mode;      /* -c: follow -MOVED and -ASK */
    cliMode mode;
    int latency_history;
    int latency_dist_mono; /* --mono: --latency-dist in grey levels */
    long long pipe_timeout; /* Seconds; 0 = wait forever. */
    const char *pattern;   /* --pattern (already unquoted if --quoted-pattern) */
    char *pattern_buf;     /* Owns an unquoted pattern; free with cliOptionsFree. */
    long long count;       /* --count (SCAN COUNT), default 10. */
    long long memkeys_samples; /* --memkeys-samples; 0 = the server's default. */
    long long lru_test_keys;   /* --lru-test */
    long long intrinsic_latency_secs; /* --intrinsic-latency */
    const char *rdb_filename;  /* --rdb / --functions-rdb; "-" = stdout */
    int functions_rdb;         /* --functions-rdb */
    int rdb_filename_plain;    /* --rdb (both: an error) */
    const char *eval;      /* --eval file */
    int eval_ldb;          /* --ldb / --ldb-sync-mode */
    int eval_ldb_sync;     /* --ldb-sync-mode */
    const char *cluster_command; /* --cluster <command> */
    int cluster_argc;      /* and its arguments (into argv) */
    char **cluster_argv;
    const char *test_hint;      /* --test_hint <line> (Valkey's test hook) */
    const char *test_hint_file; /* --test_hint_file <file> */
    int verbose;
    int usage_error;       /* CLI_MODE_HELP for a usage error: help on stderr, exit 1 */
    /* Owned copies made while parsing (-u); freed by cliOptionsFree. */
    char *owned_host, *owned_auth, *owned_user;
} cliOptions;

#define CLI_PREFER_IPV4 4
#define CLI_PREFER_IPV6 6

void cliOptionsInit(cliOptions *o);
void cliOptionsFree(cliOptions *o);
int cliParseOptions(int argc, char **argv, cliOptions *o, char *err, size_t errlen);
int cliParseUri(const char *uri, cliOptions *o, char *err, size_t errlen);

#endif
