/* cli_args.c - parses valkey-cli's command-line options.
 *
 * cliParseOptions() walks argv like Valkey's cli: options come first and
 * the first word that is not an option starts the command (so command
 * arguments may begin with '-'). It fills a cliOptions and returns the
 * index of that first command word; on a bad option it returns -1 with
 * Valkey's message ("Unrecognized option or bad number of args for:
 * '...'", "Invalid server port.", "Options -2 and -3 are mutually
 * exclusive.", ...; or a more precise one for a bad number) and the caller
 * prints it and exits 1. --help and --version (and -h as the last word)
 * stop the parse at once, as they do in Valkey.
 *
 * Every option of Valkey 8's `valkey-cli --help` is known here, the
 * cluster manager's --cluster-* options included: `--cluster <command>
 * [args]` is parsed (its words are kept for the caller), the --cluster-*
 * options are accepted and checked for their values.
 *
 * -u <uri> (valkey://, valkeys://, redis://, rediss://) is decoded here by
 * cliParseUri(): user, password, host, port and database, with %XX escapes
 * in the user and password.
 *
 * Parsing is pure: it reads no files and opens no connections, so
 * unit/test_cli_args.c covers it. Environment variables (VALKEYCLI_AUTH)
 * and choices that depend on the terminal (raw vs terminal output) are left
 * to valkey-cli.c. --quoted-pattern is unquoted here with sdssplitargs(). */
#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    o->push_output = -1;
    o->connect_timeout = -1;
    o->pipe_timeout = CLI_DEFAULT_PIPE_TIMEOUT;
    o->count = CLI_DEFAULT_SCAN_COUNT;
    o->mb_delim = "\n";
    o->cmd_delim = "\n";
}

/* Frees what the parser allocated (the unquoted pattern, -u's parts). */
void cliOptionsFree(cliOptions *o) {
    sdsfree(o->pattern_buf);
    sdsfree(o->owned_host);
    sdsfree(o->owned_auth);
    sdsfree(o->owned_user);
    o->pattern_buf = o->owned_host = o->owned_auth = o->owned_user = NULL;
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

/* Parses a non-negative finite number of seconds (fractions allowed) into
 * *out. Returns 0, or -1 when v is not one. */
static int parseSeconds(const char *v, double *out) {
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end != '\0' || isnan(d) || isinf(d) || d < 0) return -1;
    *out = d;
    return 0;
}

/* Parses the seconds value of option argv[i]. 0 ok, -1 error. */
static int optSeconds(argParser *p, double *out) {
    const char *opt = p->argv[p->i];
    const char *v = optValue(p);
    if (!v) return badOption(p);
    if (parseSeconds(v, out) < 0) {
        snprintf(p->err, p->errlen, "Invalid value for %s: '%s'", opt, v);
        return -1;
    }
    return 0;
}

/* Raises the mode to m unless a mode Valkey runs first is already set. */
static void setMode(cliOptions *o, cliMode m) {
    if (m > o->mode) o->mode = m;
}

/* ---------------------------------------------------------------------------
 * -u <uri>
 * ------------------------------------------------------------------------- */

static int hexValue(int c) {
    c = tolower(c);
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Decodes %XX escapes of s[0..len) into a new sds (NULL + err on a bad
 * escape, with Valkey's messages). */
static sds uriDecode(const char *s, size_t len, char *err, size_t errlen) {
    sds out = sdsempty();
    for (size_t j = 0; j < len; j++) {
        if (s[j] != '%') {
            out = sdscatlen(out, s + j, 1);
            continue;
        }
        if (len - j < 3) {
            snprintf(err, errlen, "Incomplete URI encoding");
            sdsfree(out);
            return NULL;
        }
        int hi = hexValue((unsigned char)s[j + 1]), lo = hexValue((unsigned char)s[j + 2]);
        if (hi < 0 || lo < 0) {
            snprintf(err, errlen, "Illegal character in URI encoding");
            sdsfree(out);
            return NULL;
        }
        char c = (char)(hi * 16 + lo);
        out = sdscatlen(out, &c, 1);
        j += 2;
    }
    return out;
}

/* Length of the scheme prefix of uri ("valkey://" ...), 0 if none; *tls
 * tells a TLS scheme. */
static size_t uriScheme(const char *uri, int *tls) {
    static const struct {
        const char *prefix;
        int tls;
    } schemes[] = {{"valkey://", 0}, {"redis://", 0}, {"valkeys://", 1}, {"rediss://", 1}};
    for (size_t j = 0; j < sizeof(schemes) / sizeof(schemes[0]); j++) {
        size_t n = strlen(schemes[j].prefix);
        if (!strncasecmp(uri, schemes[j].prefix, n)) {
            *tls = schemes[j].tls;
            return n;
        }
    }
    return 0;
}

/* Fills host and port from the authority part [host][:port] or
 * [ipv6]:port (len bytes at s). Returns 0, or -1 with err. */
static int uriHostPort(const char *s, size_t len, cliOptions *o, char *err, size_t errlen) {
    const char *end = s + len, *host = s, *host_end = end, *port = NULL;
    if (len > 0 && s[0] == '[') {
        const char *close = memchr(s, ']', len);
        if (close) {
            host = s + 1;
            host_end = close;
            if (close + 1 < end && close[1] == ':') port = close + 2;
        }
    } else {
        const char *colon = memchr(s, ':', len);
        if (colon) {
            host_end = colon;
            port = colon + 1;
        }
    }
    if (port) {
        long long n;
        if (!string2ll(port, (size_t)(end - port), &n) || n < 0 || n > 65535) {
            snprintf(err, errlen, "Invalid server port.");
            return -1;
        }
        o->port = (int)n;
    }
    if (host_end > host) {
        sdsfree(o->owned_host);
        o->owned_host = sdsnewlen(host, (size_t)(host_end - host));
        o->host = o->owned_host;
    }
    return 0;
}

/* Applies a URI `scheme://[[user:]password@][host[:port]][/db]` to o.
 * Returns 0, or -1 with Valkey's message in err ("Invalid URI scheme",
 * "Invalid server port.", ...). */
int cliParseUri(const char *uri, cliOptions *o, char *err, size_t errlen) {
    int tls = 0;
    size_t skip = uriScheme(uri, &tls);
    if (!skip) {
        snprintf(err, errlen, "Invalid URI scheme");
        return -1;
    }
    if (tls) o->transport = CLI_CONN_TLS;
    const char *p = uri + skip, *end = uri + strlen(uri);

    const char *at = strchr(p, '@');
    if (at) {
        const char *colon = memchr(p, ':', (size_t)(at - p));
        if (colon) {
            sds user = uriDecode(p, (size_t)(colon - p), err, errlen);
            if (!user) return -1;
            sdsfree(o->owned_user);
            o->owned_user = user;
            o->user = user;
            p = colon + 1;
        }
        sds auth = uriDecode(p, (size_t)(at - p), err, errlen);
        if (!auth) return -1;
        sdsfree(o->owned_auth);
        o->owned_auth = auth;
        o->auth = auth;
        p = at + 1;
    }

    const char *slash = strchr(p, '/');
    const char *auth_end = slash ? slash : end;
    if (uriHostPort(p, (size_t)(auth_end - p), o, err, errlen) < 0) return -1;
    if (slash && slash[1] != '\0') {
        long long db;
        if (!string2ll(slash + 1, strlen(slash + 1), &db) || db < 0 || db > INT_MAX) {
            snprintf(err, errlen, "Invalid database number in URI: '%s'", slash + 1);
            return -1;
        }
        o->dbnum = (int)db;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * The cluster manager's options
 * ------------------------------------------------------------------------- */

/* --cluster-* options: name and whether a value follows. They are accepted
 * so that a cluster manager command line parses as in Valkey. */
static const struct {
    const char *name;
    int has_value;
} clusterOptions[] = {
    {"--cluster-only-masters", 0}, {"--cluster-only-primaries", 0},    {"--cluster-only-replicas", 0},
    {"--cluster-replicas", 1},     {"--cluster-master-id", 1},          {"--cluster-primary-id", 1},
    {"--cluster-from", 1},         {"--cluster-to", 1},                 {"--cluster-from-user", 1},
    {"--cluster-from-pass", 1},    {"--cluster-from-askpass", 0},       {"--cluster-slots", 1},
    {"--cluster-timeout", 1},      {"--cluster-pipeline", 1},           {"--cluster-threshold", 1},
    {"--cluster-yes", 0},          {"--cluster-simulate", 0},           {"--cluster-replace", 0},
    {"--cluster-copy", 0},         {"--cluster-slave", 0},              {"--cluster-replica", 0},
    {"--cluster-use-empty-masters", 0}, {"--cluster-use-empty-primaries", 0},
    {"--cluster-search-multiple-owners", 0}, {"--cluster-fix-with-unreachable-masters", 0},
    {"--cluster-fix-with-unreachable-primaries", 0},
};

/* Parses one --cluster-* option at argv[i]. Returns 1 if it was one (i
 * advanced past its value), 0 if not, -1 on a missing value. */
static int parseClusterOption(argParser *p) {
    const char *a = p->argv[p->i];
    if (!strcmp(a, "--cluster-weight")) {
        /* A list of node=weight words follows. */
        if (p->i + 1 >= p->argc) return -1;
        while (p->i + 1 < p->argc && strncmp(p->argv[p->i + 1], "--", 2) && strchr(p->argv[p->i + 1], '=')) p->i++;
        return 1;
    }
    for (size_t j = 0; j < sizeof(clusterOptions) / sizeof(clusterOptions[0]); j++) {
        if (strcmp(a, clusterOptions[j].name)) continue;
        if (clusterOptions[j].has_value && !optValue(p)) return -1;
        return 1;
    }
    return 0;
}

/* --cluster <command> [args...]: the words up to the next option. Returns
 * 0, or 1 for a usage error (--cluster last, or twice). */
static int parseClusterCommand(argParser *p, cliOptions *o) {
    const char *cmd = optValue(p);
    if (!cmd || o->cluster_command) {
        /* Valkey answers a bare or second --cluster with its usage, as an
         * error. */
        o->mode = CLI_MODE_HELP;
        o->usage_error = 1;
        return 1;
    }
    o->cluster_command = cmd;
    o->cluster_argv = p->argv + p->i + 1;
    while (p->i + 1 < p->argc && p->argv[p->i + 1][0] != '-') {
        p->i++;
        o->cluster_argc++;
    }
    setMode(o, CLI_MODE_CLUSTER);
    return 0;
}

/* ---------------------------------------------------------------------------
 * The options
 * ------------------------------------------------------------------------- */

/* Options without a value that set one int field of cliOptions to 1. */
static const struct {
    const char *name;
    size_t offset;
} flagOptions[] = {
    {"--no-auth-warning", offsetof(cliOptions, no_auth_warning)},
    {"--askpass", offsetof(cliOptions, askpass)},
    {"-x", offsetof(cliOptions, stdin_last_arg)},
    {"-e", offsetof(cliOptions, set_errcode)},
    {"-c", offsetof(cliOptions, cluster_mode)},
    {"--quoted-input", offsetof(cliOptions, quoted_input)},
    {"--mono", offsetof(cliOptions, latency_dist_mono)},
    {"--ldb", offsetof(cliOptions, eval_ldb)},
    {"--verbose", offsetof(cliOptions, verbose)},
};

/* Options without a value that choose a mode. */
static const struct {
    const char *name;
    cliMode mode;
} modeOptions[] = {
    {"--pipe", CLI_MODE_PIPE},       {"--scan", CLI_MODE_SCAN},
    {"--latency", CLI_MODE_LATENCY}, {"--latency-history", CLI_MODE_LATENCY},
    {"--latency-dist", CLI_MODE_LATENCY_DIST},
    {"--replica", CLI_MODE_REPLICA}, {"--slave", CLI_MODE_REPLICA},
    {"--stat", CLI_MODE_STAT},       {"--bigkeys", CLI_MODE_BIGKEYS},
    {"--memkeys", CLI_MODE_MEMKEYS}, {"--hotkeys", CLI_MODE_HOTKEYS},
};

/* Options choosing the output format; the last one given wins. */
static const struct {
    const char *name;
    cliOutputMode output;
} outputOptions[] = {
    {"--raw", CLI_OUTPUT_RAW},   {"--no-raw", CLI_OUTPUT_STANDARD},       {"--csv", CLI_OUTPUT_CSV},
    {"--json", CLI_OUTPUT_JSON}, {"--quoted-json", CLI_OUTPUT_QUOTED_JSON},
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The options above, and those without a value that need a line of their
 * own. Returns 1 if a was one of them. */
static int parseFlagOption(const char *a, cliOptions *o) {
    for (size_t j = 0; j < ARRAY_LEN(flagOptions); j++) {
        if (!strcmp(a, flagOptions[j].name)) {
            *(int *)((char *)o + flagOptions[j].offset) = 1;
            return 1;
        }
    }
    for (size_t j = 0; j < ARRAY_LEN(modeOptions); j++) {
        if (!strcmp(a, modeOptions[j].name)) {
            setMode(o, modeOptions[j].mode);
            if (!strcmp(a, "--latency-history")) o->latency_history = 1;
            if (!strcmp(a, "--memkeys")) o->memkeys_samples = 0;
            return 1;
        }
    }
    for (size_t j = 0; j < ARRAY_LEN(outputOptions); j++) {
        if (!strcmp(a, outputOptions[j].name)) {
            o->output = outputOptions[j].output;
            /* JSON shows RESP3 types: ask for RESP3 unless -2 or -3 said. */
            if ((o->output == CLI_OUTPUT_JSON || o->output == CLI_OUTPUT_QUOTED_JSON) && o->resp == 0) {
                o->resp = 3;
                o->resp3_implicit = 1;
            }
            return 1;
        }
    }
    if (!strcmp(a, "-2") || !strcmp(a, "--resp2")) {
        o->resp = 2;
        o->resp2_explicit = 1;
        o->resp3_implicit = 0;
    } else if (!strcmp(a, "-3") || !strcmp(a, "--resp3")) {
        o->resp = 3;
        o->resp3_explicit = 1;
        o->resp3_implicit = 0;
    } else if (!strcmp(a, "-4")) {
        o->prefer_ipv4 = 1;
        o->prefer_family = CLI_PREFER_IPV4;
    } else if (!strcmp(a, "-6")) {
        o->prefer_ipv6 = 1;
        o->prefer_family = CLI_PREFER_IPV6;
    } else if (!strcmp(a, "--ldb-sync-mode")) {
        o->eval_ldb = o->eval_ldb_sync = 1;
    } else if (!strcmp(a, "--rdma")) {
        o->transport = CLI_CONN_RDMA;
    } else if (!strcmp(a, "--shm")) {
        o->transport = CLI_CONN_SHM;
    } else {
        return 0;
    }
    return 1;
}

/* Options followed by a string value kept as given. Returns 1 (i advanced)
 * if a was one, 0 if not, -1 when its value is missing. */
static int parseStringOption(argParser *p, cliOptions *o) {
    static const struct {
        const char *name;
        size_t offset;
        cliMode mode; /* chosen by the option, or CLI_MODE_COMMANDS */
    } stringOptions[] = {
        {"-h", offsetof(cliOptions, host), CLI_MODE_COMMANDS},
        {"-s", offsetof(cliOptions, socket), CLI_MODE_COMMANDS},
        {"-a", offsetof(cliOptions, auth), CLI_MODE_COMMANDS},
        {"--pass", offsetof(cliOptions, auth), CLI_MODE_COMMANDS},
        {"--user", offsetof(cliOptions, user), CLI_MODE_COMMANDS},
        {"-X", offsetof(cliOptions, stdin_tag), CLI_MODE_COMMANDS},
        {"-d", offsetof(cliOptions, mb_delim), CLI_MODE_COMMANDS},
        {"-D", offsetof(cliOptions, cmd_delim), CLI_MODE_COMMANDS},
        {"--pattern", offsetof(cliOptions, pattern), CLI_MODE_COMMANDS},
        {"--eval", offsetof(cliOptions, eval), CLI_MODE_COMMANDS},
        {"--rdb", offsetof(cliOptions, rdb_filename), CLI_MODE_RDB},
        {"--functions-rdb", offsetof(cliOptions, rdb_filename), CLI_MODE_RDB},
        {"--test_hint", offsetof(cliOptions, test_hint), CLI_MODE_TEST_HINT},
        {"--test_hint_file", offsetof(cliOptions, test_hint_file), CLI_MODE_TEST_HINT},
    };
    const char *a = p->argv[p->i];
    for (size_t j = 0; j < ARRAY_LEN(stringOptions); j++) {
        if (strcmp(a, stringOptions[j].name)) continue;
        const char *v = optValue(p);
        if (!v) return -1;
        *(const char **)((char *)o + stringOptions[j].offset) = v;
        setMode(o, stringOptions[j].mode);
        if (!strcmp(a, "--rdb")) o->rdb_filename_plain = 1;
        if (!strcmp(a, "--functions-rdb")) o->functions_rdb = 1;
        return 1;
    }
    return 0;
}

/* Options followed by a number. Returns 1 if a was one (parsed), 0 if not,
 * -1 on an error (message in p->err). */
static int parseNumberOption(argParser *p, cliOptions *o) {
    const char *a = p->argv[p->i];
    long long n;
    if (!strcmp(a, "-p")) {
        const char *v = optValue(p);
        if (!v) return badOption(p);
        if (!string2ll(v, strlen(v), &n) || n < 0 || n > 65535) {
            snprintf(p->err, p->errlen, "Invalid server port.");
            return -1;
        }
        o->port = (int)n;
    } else if (!strcmp(a, "-t")) {
        const char *v = optValue(p);
        if (!v) return badOption(p);
        if (parseSeconds(v, &o->connect_timeout) < 0) {
            snprintf(p->err, p->errlen, "Invalid connection timeout for -t.");
            return -1;
        }
    } else if (!strcmp(a, "-n")) {
        if (optLongLong(p, 0, INT_MAX, &n) < 0) return -1;
        o->dbnum = (int)n;
    } else if (!strcmp(a, "-r")) {
        if (optLongLong(p, -1, LLONG_MAX, &o->repeat) < 0) return -1;
    } else if (!strcmp(a, "-i")) {
        if (optSeconds(p, &o->interval) < 0) return -1;
        o->interval_set = 1;
    } else if (!strcmp(a, "--pipe-timeout")) {
        if (optLongLong(p, 0, LLONG_MAX / 1000, &o->pipe_timeout) < 0) return -1;
    } else if (!strcmp(a, "--count")) {
        if (optLongLong(p, 1, LLONG_MAX, &o->count) < 0) return -1;
    } else if (!strcmp(a, "--memkeys-samples")) {
        if (optLongLong(p, 0, LLONG_MAX, &o->memkeys_samples) < 0) return -1;
        setMode(o, CLI_MODE_MEMKEYS);
    } else if (!strcmp(a, "--lru-test")) {
        if (optLongLong(p, 1, LLONG_MAX, &o->lru_test_keys) < 0) return -1;
        setMode(o, CLI_MODE_LRU_TEST);
    } else if (!strcmp(a, "--intrinsic-latency")) {
        if (optLongLong(p, 0, LLONG_MAX / 1000000, &o->intrinsic_latency_secs) < 0) return -1;
        setMode(o, CLI_MODE_INTRINSIC_LATENCY);
    } else {
        return 0;
    }
    return 1;
}

/* --show-pushes yes|no (only the first letter counts, as in Valkey). */
static int parseShowPushes(argParser *p, cliOptions *o) {
    const char *v = optValue(p);
    if (!v) return badOption(p);
    if (!strncasecmp(v, "n", 1)) {
        o->push_output = 0;
    } else if (!strncasecmp(v, "y", 1)) {
        o->push_output = 1;
    } else {
        snprintf(p->err, p->errlen, "Unknown --show-pushes value '%s' (valid: '[y]es', '[n]o')", v);
        return -1;
    }
    return 0;
}

/* The combinations Valkey refuses, once every option is known. Returns 0,
 * or -1 with its message. */
static int checkCombinations(cliOptions *o, const char *argv0, char *err, size_t errlen) {
    if (o->socket && o->cluster_mode) {
        snprintf(err, errlen, "Options -c and -s are mutually exclusive.");
    } else if (o->resp2_explicit && o->resp3_explicit) {
        snprintf(err, errlen, "Options -2 and -3 are mutually exclusive.");
    } else if (o->eval_ldb && !o->eval) {
        snprintf(err, errlen, "Options --ldb and --ldb-sync-mode require --eval.\nTry %s --help for more information.",
                 argv0);
    } else if (o->functions_rdb && o->rdb_filename_plain) {
        snprintf(err, errlen, "Option --functions-rdb and --rdb are mutually exclusive.");
    } else if (o->stdin_last_arg && o->stdin_tag) {
        snprintf(err, errlen, "Options -x and -X are mutually exclusive.");
    } else if (o->prefer_ipv4 && o->prefer_ipv6) {
        snprintf(err, errlen, "Options -4 and -6 are mutually exclusive.");
    } else {
        return 0;
    }
    return -1;
}

/* Unquotes --quoted-pattern's value into o->pattern. 0 ok, -1 error. */
static int unquotePattern(const char *quoted, cliOptions *o, char *err, size_t errlen) {
    int count = 0;
    sds *parts = sdssplitargs(quoted, &count);
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
    return 0;
}

/* Parses argv[1..]. Returns the index of the first command word (argc if
 * none), or -1 with a message in err. String options point into argv. */
int cliParseOptions(int argc, char **argv, cliOptions *o, char *err, size_t errlen) {
    argParser p = {.argc = argc, .argv = argv, .err = err, .errlen = errlen};
    const char *quoted_pattern = NULL;
    int ret;
    for (p.i = 1; p.i < argc; p.i++) {
        const char *a = argv[p.i];
        if (a[0] != '-' || a[1] == '\0') break; /* The command starts here. */
        if (!strcmp(a, "--help") || (!strcmp(a, "-h") && p.i == argc - 1)) {
            o->mode = CLI_MODE_HELP;
            return p.i + 1;
        }
        if (!strcmp(a, "-v") || !strcmp(a, "--version")) {
            o->mode = CLI_MODE_VERSION;
            return p.i + 1;
        }
        int tls_on = 0, tls = cliParseTlsOption(argc, argv, &p.i, &o->tls, &tls_on);
        if (tls < 0) return badOption(&p);
        if (tls > 0) {
            if (tls_on) o->transport = CLI_CONN_TLS;
            continue;
        }
        if (parseFlagOption(a, o)) continue;
        if ((ret = parseStringOption(&p, o)) != 0) {
            if (ret < 0) return badOption(&p);
            continue;
        }
        if ((ret = parseNumberOption(&p, o)) != 0) {
            if (ret < 0) return -1;
            continue;
        }
        if ((ret = parseClusterOption(&p)) != 0) {
            if (ret < 0) return badOption(&p);
            continue;
        }
        if (!strcmp(a, "-u")) {
            const char *v = optValue(&p);
            if (!v) return badOption(&p);
            if (cliParseUri(v, o, err, errlen) < 0) return -1;
        } else if (!strcmp(a, "--quoted-pattern")) {
            if (!(quoted_pattern = optValue(&p))) return badOption(&p);
        } else if (!strcmp(a, "--show-pushes")) {
            if (parseShowPushes(&p, o) < 0) return -1;
        } else if (!strcmp(a, "--cluster")) {
            if (parseClusterCommand(&p, o)) return p.i + 1; /* The usage, at once. */
        } else {
            return badOption(&p);
        }
    }

    if (quoted_pattern && unquotePattern(quoted_pattern, o, err, errlen) < 0) return -1;
    if (checkCombinations(o, argv[0], err, errlen) < 0) return -1;
    if (!o->transport) o->transport = o->socket ? CLI_CONN_UNIX : CLI_CONN_TCP;
    return p.i;
}
