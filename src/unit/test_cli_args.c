/* test_cli_args.c - unit tests for cli_args.c, valkey-cli's option parser.
 *
 * Checks the defaults, every option family (connection, auth, repetition,
 * output formats, protocol, modes and their parameters), that parsing
 * stops at the first command word (so command arguments may start with
 * '-'), --quoted-pattern unquoting, the transport chosen by -s / --rdma,
 * and the error messages for unknown options, missing values and bad
 * numbers. */
#include "cli_args.h"
#include "cli_transport.h"
#include "unittest.h"

/* Parses a NULL-terminated list of words as argv[1..]. */
static int parse(cliOptions *o, char *err, const char **words) {
    char *argv[64] = {"valkey-cli"};
    int argc = 1;
    while (*words) argv[argc++] = (char *)*words++;
    cliOptionsInit(o);
    return cliParseOptions(argc, argv, o, err, 256);
}

#define PARSE(o, err, ...) parse(o, err, (const char *[]){__VA_ARGS__, NULL})

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    cliOptions o;
    char err[256];

    TEST("cli_args: defaults") {
        ASSERT_EQ_LL(parse(&o, err, (const char *[]){NULL}), 1);
        ASSERT_STREQ(o.host, "127.0.0.1");
        ASSERT_EQ_LL(o.port, 6379);
        ASSERT_EQ_LL(o.repeat, 1);
        ASSERT_EQ_LL(o.output, -1);
        ASSERT_EQ_LL(o.resp, 0);
        ASSERT_EQ_LL(o.mode, CLI_MODE_COMMANDS);
        ASSERT_EQ_LL(o.pipe_timeout, 30);
        ASSERT_STREQ(o.transport, CLI_CONN_TCP);
        ASSERT_EQ_LL(o.push_output, -1);
        ASSERT(o.connect_timeout < 0);
    }

    TEST("cli_args: connection and auth options") {
        ASSERT_EQ_LL(PARSE(&o, err, "-h", "10.0.0.1", "-p", "7000", "-a", "pw", "--user", "bob", "-n", "3"), 11);
        ASSERT_STREQ(o.host, "10.0.0.1");
        ASSERT_EQ_LL(o.port, 7000);
        ASSERT_STREQ(o.auth, "pw");
        ASSERT_STREQ(o.user, "bob");
        ASSERT_EQ_LL(o.dbnum, 3);
        ASSERT_EQ_LL(PARSE(&o, err, "--pass", "x", "--no-auth-warning"), 4);
        ASSERT_STREQ(o.auth, "x");
        ASSERT_EQ_LL(o.no_auth_warning, 1);
    }

    TEST("cli_args: -s picks unix, --rdma picks rdma") {
        ASSERT_EQ_LL(PARSE(&o, err, "-s", "/tmp/v.sock", "ping"), 3);
        ASSERT_STREQ(o.transport, CLI_CONN_UNIX);
        ASSERT_STREQ(o.socket, "/tmp/v.sock");
        ASSERT_EQ_LL(PARSE(&o, err, "--rdma", "ping"), 2);
        ASSERT_STREQ(o.transport, CLI_CONN_RDMA);
    }

    TEST("cli_args: --tls picks tls and its options fill cliTlsOptions") {
        ASSERT(PARSE(&o, err, "--tls", "--cacert", "ca.crt", "--cert", "c.crt", "--key", "c.key", "--sni", "db",
                     "--insecure", "--cacertdir", "/etc/ssl", "--tls-ciphers", "HIGH", "--tls-ciphersuites",
                     "TLS_AES_128_GCM_SHA256", "ping") == 17);
        ASSERT_STREQ(o.transport, CLI_CONN_TLS);
        ASSERT_STREQ(o.tls.cacert, "ca.crt");
        ASSERT_STREQ(o.tls.cert, "c.crt");
        ASSERT_STREQ(o.tls.key, "c.key");
        ASSERT_STREQ(o.tls.sni, "db");
        ASSERT_STREQ(o.tls.cacertdir, "/etc/ssl");
        ASSERT_STREQ(o.tls.ciphers, "HIGH");
        ASSERT_STREQ(o.tls.ciphersuites, "TLS_AES_128_GCM_SHA256");
        ASSERT(o.tls.insecure == 1);
        ASSERT(PARSE(&o, err, "--cacert") == -1);
        ASSERT_STREQ(err, "Unrecognized option or bad number of args for: '--cacert'");
    }

    TEST("cli_args: the command starts at the first non-option") {
        ASSERT_EQ_LL(PARSE(&o, err, "-r", "5", "incrby", "x", "-1", "--raw"), 3);
        ASSERT_EQ_LL(o.repeat, 5);
        ASSERT_EQ_LL(o.output, -1); /* --raw was an argument of INCRBY. */
        ASSERT_EQ_LL(PARSE(&o, err, "-", "x"), 1); /* A lone dash is a word. */
    }

    TEST("cli_args: repetition, interval, -x, -e") {
        ASSERT_EQ_LL(PARSE(&o, err, "-r", "-1", "-i", "0.25", "-x", "-e", "set", "k"), 7);
        ASSERT_EQ_LL(o.repeat, -1);
        ASSERT(o.interval > 0.249 && o.interval < 0.251);
        ASSERT_EQ_LL(o.interval_set, 1);
        ASSERT_EQ_LL(o.stdin_last_arg, 1);
        ASSERT_EQ_LL(o.set_errcode, 1);
    }

    TEST("cli_args: output formats, last one wins") {
        PARSE(&o, err, "--raw");
        ASSERT_EQ_LL(o.output, CLI_OUTPUT_RAW);
        PARSE(&o, err, "--raw", "--no-raw");
        ASSERT_EQ_LL(o.output, CLI_OUTPUT_STANDARD);
        PARSE(&o, err, "--csv");
        ASSERT_EQ_LL(o.output, CLI_OUTPUT_CSV);
        PARSE(&o, err, "--json");
        ASSERT_EQ_LL(o.output, CLI_OUTPUT_JSON);
        PARSE(&o, err, "--quoted-json");
        ASSERT_EQ_LL(o.output, CLI_OUTPUT_QUOTED_JSON);
    }

    TEST("cli_args: protocol") {
        PARSE(&o, err, "-3");
        ASSERT_EQ_LL(o.resp, 3);
        PARSE(&o, err, "--resp3", "-2");
        ASSERT_EQ_LL(o.resp, 2);
        PARSE(&o, err, "--resp2");
        ASSERT_EQ_LL(o.resp, 2);
    }

    TEST("cli_args: modes and their parameters") {
        PARSE(&o, err, "--pipe", "--pipe-timeout", "5");
        ASSERT_EQ_LL(o.mode, CLI_MODE_PIPE);
        ASSERT_EQ_LL(o.pipe_timeout, 5);
        PARSE(&o, err, "--scan", "--pattern", "user:*", "--count", "100");
        ASSERT_EQ_LL(o.mode, CLI_MODE_SCAN);
        ASSERT_STREQ(o.pattern, "user:*");
        ASSERT_EQ_LL(o.count, 100);
        PARSE(&o, err, "--latency-history", "-i", "2");
        ASSERT_EQ_LL(o.mode, CLI_MODE_LATENCY);
        ASSERT_EQ_LL(o.latency_history, 1);
        PARSE(&o, err, "--latency");
        ASSERT_EQ_LL(o.latency_history, 0);
        PARSE(&o, err, "--stat");
        ASSERT_EQ_LL(o.mode, CLI_MODE_STAT);
        PARSE(&o, err, "--bigkeys");
        ASSERT_EQ_LL(o.mode, CLI_MODE_BIGKEYS);
        PARSE(&o, err, "--memkeys");
        ASSERT_EQ_LL(o.mode, CLI_MODE_MEMKEYS);
        ASSERT_EQ_LL(PARSE(&o, err, "--eval", "s.lua", "k1", ",", "a1"), 3);
        ASSERT_STREQ(o.eval, "s.lua");
        PARSE(&o, err, "--help");
        ASSERT_EQ_LL(o.mode, CLI_MODE_HELP);
        PARSE(&o, err, "-v");
        ASSERT_EQ_LL(o.mode, CLI_MODE_VERSION);
        PARSE(&o, err, "--version");
        ASSERT_EQ_LL(o.mode, CLI_MODE_VERSION);
    }

    TEST("cli_args: Valkey 8's other options") {
        ASSERT_EQ_LL(PARSE(&o, err, "-t", "1.5", "-X", "tag", "-d", "|", "-D", "", "-c", "-4", "--quoted-input",
                           "--askpass", "--show-pushes", "no", "restore", "k", "0", "tag"),
                     15);
        ASSERT(o.connect_timeout > 1.49 && o.connect_timeout < 1.51);
        ASSERT_STREQ(o.stdin_tag, "tag");
        ASSERT_STREQ(o.mb_delim, "|");
        ASSERT_STREQ(o.cmd_delim, "");
        ASSERT_EQ_LL(o.cluster_mode, 1);
        ASSERT_EQ_LL(o.prefer_family, CLI_PREFER_IPV4);
        ASSERT_EQ_LL(o.quoted_input, 1);
        ASSERT_EQ_LL(o.askpass, 1);
        ASSERT_EQ_LL(o.push_output, 0);
        PARSE(&o, err, "--show-pushes", "Yes");
        ASSERT_EQ_LL(o.push_output, 1);
        PARSE(&o, err, "-6");
        ASSERT_EQ_LL(o.prefer_family, CLI_PREFER_IPV6);
        ASSERT_EQ_LL(o.count, 10); /* SCAN COUNT default */
        ASSERT_STREQ(o.mb_delim, "\n");
        ASSERT_STREQ(o.cmd_delim, "\n");
    }

    TEST("cli_args: the special modes and their parameters") {
        PARSE(&o, err, "--rdb", "dump.rdb");
        ASSERT_EQ_LL(o.mode, CLI_MODE_RDB);
        ASSERT_STREQ(o.rdb_filename, "dump.rdb");
        ASSERT_EQ_LL(o.functions_rdb, 0);
        PARSE(&o, err, "--functions-rdb", "-");
        ASSERT_EQ_LL(o.mode, CLI_MODE_RDB);
        ASSERT_EQ_LL(o.functions_rdb, 1);
        PARSE(&o, err, "--replica");
        ASSERT_EQ_LL(o.mode, CLI_MODE_REPLICA);
        PARSE(&o, err, "--slave");
        ASSERT_EQ_LL(o.mode, CLI_MODE_REPLICA);
        PARSE(&o, err, "--hotkeys");
        ASSERT_EQ_LL(o.mode, CLI_MODE_HOTKEYS);
        PARSE(&o, err, "--memkeys-samples", "5");
        ASSERT_EQ_LL(o.mode, CLI_MODE_MEMKEYS);
        ASSERT_EQ_LL(o.memkeys_samples, 5);
        PARSE(&o, err, "--memkeys-samples", "5", "--memkeys");
        ASSERT_EQ_LL(o.memkeys_samples, 0);
        PARSE(&o, err, "--intrinsic-latency", "3");
        ASSERT_EQ_LL(o.mode, CLI_MODE_INTRINSIC_LATENCY);
        ASSERT_EQ_LL(o.intrinsic_latency_secs, 3);
        PARSE(&o, err, "--latency-dist", "--mono");
        ASSERT_EQ_LL(o.mode, CLI_MODE_LATENCY_DIST);
        ASSERT_EQ_LL(o.latency_dist_mono, 1);
        PARSE(&o, err, "--lru-test", "1000");
        ASSERT_EQ_LL(o.mode, CLI_MODE_LRU_TEST);
        ASSERT_EQ_LL(o.lru_test_keys, 1000);
        PARSE(&o, err, "--test_hint", "set k ");
        ASSERT_EQ_LL(o.mode, CLI_MODE_TEST_HINT);
        ASSERT_STREQ(o.test_hint, "set k ");
        ASSERT_EQ_LL(PARSE(&o, err, "--eval", "s.lua", "--ldb-sync-mode"), 4);
        ASSERT_EQ_LL(o.eval_ldb, 1);
        ASSERT_EQ_LL(o.eval_ldb_sync, 1);
    }

    TEST("cli_args: several modes: the one Valkey runs first wins") {
        PARSE(&o, err, "--scan", "--bigkeys");
        ASSERT_EQ_LL(o.mode, CLI_MODE_BIGKEYS);
        PARSE(&o, err, "--bigkeys", "--scan");
        ASSERT_EQ_LL(o.mode, CLI_MODE_BIGKEYS);
        PARSE(&o, err, "--stat", "--latency", "--pipe");
        ASSERT_EQ_LL(o.mode, CLI_MODE_LATENCY);
    }

    TEST("cli_args: --help, --version and a final -h stop at once") {
        ASSERT_EQ_LL(PARSE(&o, err, "--help", "--nosuch"), 2);
        ASSERT_EQ_LL(o.mode, CLI_MODE_HELP);
        ASSERT_EQ_LL(PARSE(&o, err, "-p", "1", "-h"), 4);
        ASSERT_EQ_LL(o.mode, CLI_MODE_HELP);
        ASSERT_EQ_LL(PARSE(&o, err, "--nosuch", "--help"), -1);
    }

    TEST("cli_args: --cluster <command> and the --cluster-* options") {
        ASSERT_EQ_LL(PARSE(&o, err, "--cluster", "create", "h1:1", "h2:2", "--cluster-replicas", "1", "--cluster-yes"),
                     8);
        ASSERT_EQ_LL(o.mode, CLI_MODE_CLUSTER);
        ASSERT_STREQ(o.cluster_command, "create");
        ASSERT_EQ_LL(o.cluster_argc, 2);
        ASSERT_STREQ(o.cluster_argv[0], "h1:1");
        ASSERT_STREQ(o.cluster_argv[1], "h2:2");
        ASSERT_EQ_LL(PARSE(&o, err, "--cluster", "rebalance", "h:1", "--cluster-weight", "a=1", "b=2",
                           "--cluster-simulate"),
                     8);
        ASSERT_EQ_LL(PARSE(&o, err, "--cluster"), 2); /* usage, as an error */
        ASSERT_EQ_LL(o.mode, CLI_MODE_HELP);
        ASSERT_EQ_LL(o.usage_error, 1);
        ASSERT_EQ_LL(PARSE(&o, err, "--cluster-from"), -1);
    }

    TEST("cli_args: combinations Valkey refuses") {
        ASSERT_EQ_LL(PARSE(&o, err, "-2", "-3"), -1);
        ASSERT_STREQ(err, "Options -2 and -3 are mutually exclusive.");
        ASSERT_EQ_LL(PARSE(&o, err, "-c", "-s", "/tmp/x"), -1);
        ASSERT_STREQ(err, "Options -c and -s are mutually exclusive.");
        ASSERT_EQ_LL(PARSE(&o, err, "--ldb"), -1);
        ASSERT_STREQ(err,
                     "Options --ldb and --ldb-sync-mode require --eval.\nTry valkey-cli --help for more information.");
        ASSERT_EQ_LL(PARSE(&o, err, "--rdb", "a", "--functions-rdb", "b"), -1);
        ASSERT_STREQ(err, "Option --functions-rdb and --rdb are mutually exclusive.");
        ASSERT_EQ_LL(PARSE(&o, err, "-x", "-X", "t"), -1);
        ASSERT_STREQ(err, "Options -x and -X are mutually exclusive.");
        ASSERT_EQ_LL(PARSE(&o, err, "-4", "-6"), -1);
        ASSERT_STREQ(err, "Options -4 and -6 are mutually exclusive.");
        /* --json asks for RESP3 only when -2 does not say otherwise. */
        PARSE(&o, err, "-2", "--json");
        ASSERT_EQ_LL(o.resp, 2);
        PARSE(&o, err, "--json", "-2");
        ASSERT_EQ_LL(o.resp, 2);
        PARSE(&o, err, "--json");
        ASSERT_EQ_LL(o.resp, 3);
        ASSERT_EQ_LL(o.resp3_implicit, 1);
        PARSE(&o, err, "--json", "-3");
        ASSERT_EQ_LL(o.resp3_implicit, 0);
    }

    TEST("cli_args: -u URIs") {
        ASSERT_EQ_LL(PARSE(&o, err, "-u", "valkey://bob:p%40ss%3a@db.example:7000/3", "ping"), 3);
        ASSERT_STREQ(o.user, "bob");
        ASSERT_STREQ(o.auth, "p@ss:");
        ASSERT_STREQ(o.host, "db.example");
        ASSERT_EQ_LL(o.port, 7000);
        ASSERT_EQ_LL(o.dbnum, 3);
        ASSERT_STREQ(o.transport, CLI_CONN_TCP);
        cliOptionsFree(&o);
        PARSE(&o, err, "-u", "redis://secret@localhost");
        ASSERT(o.user == NULL);
        ASSERT_STREQ(o.auth, "secret");
        ASSERT_STREQ(o.host, "localhost");
        ASSERT_EQ_LL(o.port, 6379);
        cliOptionsFree(&o);
        PARSE(&o, err, "-u", "valkeys://[::1]:6380");
        ASSERT_STREQ(o.host, "::1");
        ASSERT_EQ_LL(o.port, 6380);
        ASSERT_STREQ(o.transport, CLI_CONN_TLS);
        cliOptionsFree(&o);
        PARSE(&o, err, "-u", "VALKEY://h", "-p", "9");
        ASSERT_STREQ(o.host, "h");
        ASSERT_EQ_LL(o.port, 9);
        cliOptionsFree(&o);
        ASSERT_EQ_LL(PARSE(&o, err, "-u", "http://h"), -1);
        ASSERT_STREQ(err, "Invalid URI scheme");
        ASSERT_EQ_LL(PARSE(&o, err, "-u", "valkey://a%4@h"), -1);
        ASSERT_STREQ(err, "Incomplete URI encoding");
        ASSERT_EQ_LL(PARSE(&o, err, "-u", "valkey://a%zz@h"), -1);
        ASSERT_STREQ(err, "Illegal character in URI encoding");
        ASSERT_EQ_LL(PARSE(&o, err, "-u", "valkey://h:99999"), -1);
        ASSERT_STREQ(err, "Invalid server port.");
        ASSERT_EQ_LL(PARSE(&o, err, "-u", "valkey://h/x"), -1);
        ASSERT_STREQ(err, "Invalid database number in URI: 'x'");
        cliOptionsFree(&o);
    }

    TEST("cli_args: --quoted-pattern is unquoted") {
        ASSERT_EQ_LL(PARSE(&o, err, "--scan", "--quoted-pattern", "\"a\\x00b*\""), 4);
        ASSERT(o.pattern != NULL && o.pattern[0] == 'a' && o.pattern[1] == '\0' && o.pattern[2] == 'b');
        cliOptionsFree(&o);
        ASSERT_EQ_LL(PARSE(&o, err, "--quoted-pattern", "\"unbalanced"), -1);
        ASSERT_STREQ(err, "Invalid quoted string specified for --quoted-pattern.");
    }

    TEST("cli_args: errors") {
        ASSERT_EQ_LL(PARSE(&o, err, "--foo"), -1);
        ASSERT_STREQ(err, "Unrecognized option or bad number of args for: '--foo'");
        ASSERT_EQ_LL(PARSE(&o, err, "-p"), -1);
        ASSERT_STREQ(err, "Unrecognized option or bad number of args for: '-p'");
        ASSERT_EQ_LL(PARSE(&o, err, "-p", "notaport"), -1);
        ASSERT_STREQ(err, "Invalid server port.");
        ASSERT_EQ_LL(PARSE(&o, err, "-p", "70000"), -1);
        ASSERT_STREQ(err, "Invalid server port.");
        ASSERT_EQ_LL(PARSE(&o, err, "-t", "-1"), -1);
        ASSERT_STREQ(err, "Invalid connection timeout for -t.");
        ASSERT_EQ_LL(PARSE(&o, err, "-t", "nan"), -1);
        ASSERT_EQ_LL(PARSE(&o, err, "--lru-test", "0"), -1);
        ASSERT_EQ_LL(PARSE(&o, err, "--intrinsic-latency", "x"), -1);
        ASSERT_EQ_LL(PARSE(&o, err, "--show-pushes", "maybe"), -1);
        ASSERT_STREQ(err, "Unknown --show-pushes value 'maybe' (valid: '[y]es', '[n]o')");
        ASSERT_EQ_LL(PARSE(&o, err, "--rdb"), -1);
        ASSERT_STREQ(err, "Unrecognized option or bad number of args for: '--rdb'");
        ASSERT_EQ_LL(PARSE(&o, err, "-i", "-1"), -1);
        ASSERT_EQ_LL(PARSE(&o, err, "--count", "0"), -1);
    }
    return UT_END();
}
