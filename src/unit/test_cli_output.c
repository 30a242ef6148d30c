/* test_cli_output.c - unit tests for cli_reply.c (the RESP parser of
 * valkey-cli) and cli_output.c (its reply formats).
 *
 * Every reply is given as wire bytes, parsed, and printed in a format;
 * the expected texts are those of Valkey's cli (checked side by side with
 * redis-cli 7.0 against a server). Also: incomplete input asks for more,
 * bad input is refused with a message, attributes are skipped, and deep
 * nesting is refused; and the Lua debugger's answers (--ldb): one line per
 * element, colours by tag, the end mark. */
#include "cli_output.h"
#include "cli_reply.h"
#include "unittest.h"

/* Parses wire (which must be exactly one reply) and formats it. Returns a
 * new sds, or "<parse error>". */
static sds fmt(const char *wire, cliOutputMode mode) {
    cliReply *r;
    char err[128];
    ssize_t n = cliReplyParse(wire, strlen(wire), &r, err, sizeof(err));
    if (n != (ssize_t)strlen(wire)) return sdsnew("<parse error>");
    sds out = cliFormatReply(sdsempty(), r, mode);
    cliReplyFree(r);
    return out;
}

#define CHECK(wire, mode, expected)                                                                                    \
    do {                                                                                                               \
        sds s_ = fmt(wire, mode);                                                                                      \
        ASSERT_STREQ(s_, expected);                                                                                    \
        sdsfree(s_);                                                                                                   \
    } while (0)

#define STD CLI_OUTPUT_STANDARD
#define RAW CLI_OUTPUT_RAW
#define CSV CLI_OUTPUT_CSV
#define JSON CLI_OUTPUT_JSON
#define QJSON CLI_OUTPUT_QUOTED_JSON

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);

    TEST("cli_reply: incomplete, complete, trailing bytes") {
        cliReply *r;
        char err[128];
        ASSERT_EQ_LL(cliReplyParse("$5\r\nhel", 8, &r, err, sizeof(err)), 0);
        ASSERT_EQ_LL(cliReplyParse("*2\r\n:1\r\n", 8, &r, err, sizeof(err)), 0);
        ASSERT_EQ_LL(cliReplyParse("+OK\r\n+NEXT\r\n", 12, &r, err, sizeof(err)), 5);
        ASSERT_EQ_LL(r->type, CLI_REPLY_STATUS);
        ASSERT_STREQ(r->str, "OK");
        cliReplyFree(r);
    }

    TEST("cli_reply: bad input is refused") {
        cliReply *r;
        char err[128];
        ASSERT_EQ_LL(cliReplyParse("?x\r\n", 4, &r, err, sizeof(err)), -1);
        ASSERT_STREQ(err, "Protocol error, got \"?\" as reply type byte");
        ASSERT_EQ_LL(cliReplyParse(":abc\r\n", 6, &r, err, sizeof(err)), -1);
        ASSERT_EQ_LL(cliReplyParse("$3\r\nabcd\r\n", 10, &r, err, sizeof(err)), -1);
        /* Found by fuzz/fuzz_reply.c: a map or attribute of more than
         * LLONG_MAX/2 pairs overflowed when doubled into an element count
         * (and then parsed as an empty map). */
        ASSERT_EQ_LL(cliReplyParse("%9223372036854775807\r\n", 22, &r, err, sizeof(err)), -1);
        ASSERT_EQ_LL(cliReplyParse("|4611686018427387904\r\n+a\r\n", 27, &r, err, sizeof(err)), -1);
        ASSERT_EQ_LL(cliReplyParse("%4611686018427387903\r\n", 22, &r, err, sizeof(err)), 0);
        sds deep = sdsempty();
        for (int j = 0; j < CLI_REPLY_MAX_DEPTH + 2; j++) deep = sdscat(deep, "*1\r\n");
        deep = sdscat(deep, ":1\r\n");
        ASSERT_EQ_LL(cliReplyParse(deep, sdslen(deep), &r, err, sizeof(err)), -1);
        sdsfree(deep);
    }

    TEST("cli_reply: attributes are dropped") {
        cliReply *r;
        char err[128];
        const char *w = "|1\r\n+key-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$4\r\nreal\r\n";
        ASSERT_EQ_LL(cliReplyParse(w, strlen(w), &r, err, sizeof(err)), (long long)strlen(w));
        ASSERT_EQ_LL(r->type, CLI_REPLY_STRING);
        ASSERT_STREQ(r->str, "real");
        cliReplyFree(r);
    }

    TEST("cli_output: terminal format of scalars") {
        CHECK("$5\r\nhello\r\n", STD, "\"hello\"\n");
        CHECK("$4\r\na\"\n\x01\r\n", STD, "\"a\\\"\\n\\x01\"\n");
        CHECK("+OK\r\n", STD, "OK\n");
        CHECK("-ERR bad\r\n", STD, "(error) ERR bad\n");
        CHECK(":42\r\n", STD, "(integer) 42\n");
        CHECK("$-1\r\n", STD, "(nil)\n");
        CHECK("_\r\n", STD, "(nil)\n");
        CHECK(",3.141\r\n", STD, "(double) 3.141\n");
        CHECK("#t\r\n", STD, "(true)\n");
        CHECK("#f\r\n", STD, "(false)\n");
        CHECK("(12345678901234567890\r\n", STD, "(big number) 12345678901234567890\n");
        CHECK("=14\r\ntxt:two\nlines!\r\n", STD, "two\nlines!\n");
        CHECK("!9\r\nERR blob!\r\n", STD, "(error) ERR blob!\n");
    }

    TEST("cli_output: terminal format of aggregates") {
        CHECK("*0\r\n", STD, "(empty array)\n");
        CHECK("~0\r\n", STD, "(empty set)\n");
        CHECK("%0\r\n", STD, "(empty hash)\n");
        CHECK("*3\r\n$1\r\na\r\n:1\r\n$-1\r\n", STD, "1) \"a\"\n2) (integer) 1\n3) (nil)\n");
        CHECK("*2\r\n$1\r\n1\r\n*2\r\n$1\r\nx\r\n$1\r\ny\r\n", STD, "1) \"1\"\n2) 1) \"x\"\n   2) \"y\"\n");
        CHECK("~2\r\n:0\r\n:1\r\n", STD, "1~ (integer) 0\n2~ (integer) 1\n");
        CHECK("%2\r\n:0\r\n#f\r\n:1\r\n#t\r\n", STD, "1# (integer) 0 => (false)\n2# (integer) 1 => (true)\n");
        /* A map value that takes several lines starts on its own line; one
         * that fits on one line (a single scalar pair) stays, as in Valkey. */
        CHECK("%1\r\n$3\r\nget\r\n%2\r\n$5\r\nsince\r\n$5\r\n1.0.0\r\n$1\r\na\r\n:1\r\n", STD,
              "1# \"get\" => \n   1# \"since\" => \"1.0.0\"\n   2# \"a\" => (integer) 1\n");
        CHECK("%1\r\n$3\r\nget\r\n%1\r\n$5\r\nsince\r\n$5\r\n1.0.0\r\n", STD,
              "1# \"get\" => 1# \"since\" => \"1.0.0\"\n");
        CHECK("%1\r\n$1\r\nk\r\n*1\r\n*2\r\n:1\r\n:2\r\n", STD,
              "1# \"k\" => \n   1) 1) (integer) 1\n      2) (integer) 2\n");
        CHECK("%1\r\n$1\r\nm\r\n*0\r\n", STD, "1# \"m\" => (empty array)\n");
    }

    TEST("cli_output: index width grows with the element count") {
        sds w = sdsnew("*10\r\n");
        for (int j = 0; j < 10; j++) w = sdscat(w, ":7\r\n");
        sds s = fmt(w, STD);
        ASSERT(!strncmp(s, " 1) (integer) 7\n 2) ", 20));
        ASSERT(strstr(s, "\n10) (integer) 7\n") != NULL);
        sdsfree(s);
        sdsfree(w);
        /* Nested under a wide index, continuation lines align. */
        w = sdsnew("*10\r\n");
        for (int j = 0; j < 9; j++) w = sdscat(w, ":7\r\n");
        w = sdscat(w, "*2\r\n:1\r\n:2\r\n");
        s = fmt(w, STD);
        ASSERT(strstr(s, "\n10) 1) (integer) 1\n    2) (integer) 2\n") != NULL);
        sdsfree(s);
        sdsfree(w);
    }

    TEST("cli_output: raw format") {
        CHECK("$5\r\nhe\nlo\r\n", RAW, "he\nlo\n");
        CHECK(":5\r\n", RAW, "5\n");
        CHECK("$-1\r\n", RAW, "\n");
        CHECK("-ERR x\r\n", RAW, "ERR x\n\n");
        CHECK("*3\r\n$1\r\na\r\n$-1\r\n:2\r\n", RAW, "a\n\n2\n");
        CHECK("*0\r\n", RAW, "\n");
        CHECK("%2\r\n:0\r\n#f\r\n:1\r\n#t\r\n", RAW, "0 (false)\n1 (true)\n");
        CHECK(",1.5\r\n", RAW, "1.5\n");
    }

    TEST("cli_output: raw format with a -d delimiter") {
        cliReply *r;
        char err[128];
        const char *wire = "*3\r\n$1\r\na\r\n*2\r\n:1\r\n:2\r\n%1\r\n$1\r\nk\r\n$1\r\nv\r\n";
        ASSERT(cliReplyParse(wire, strlen(wire), &r, err, sizeof(err)) > 0);
        sds s = cliFormatRawDelim(sdsempty(), r, "|");
        ASSERT_STREQ(s, "a|1|2|k v");
        sdsfree(s);
        s = cliFormatRawDelim(sdsempty(), r, "");
        ASSERT_STREQ(s, "a12k v");
        sdsfree(s);
        cliReplyFree(r);
    }

    TEST("cli_output: CSV") {
        CHECK("*3\r\n$1\r\na\r\n$3\r\nb c\r\n:3\r\n", CSV, "\"a\",\"b c\",3\n");
        CHECK("*2\r\n$1\r\na\r\n$-1\r\n", CSV, "\"a\",NULL\n");
        CHECK("-ERR x\r\n", CSV, "ERROR,\"ERR x\"\n");
        CHECK("%1\r\n:0\r\n#f\r\n", CSV, "0,false\n");
        CHECK("*0\r\n", CSV, "\n");
        CHECK("$3\r\na\"b\r\n", CSV, "\"a\\\"b\"\n");
    }

    TEST("cli_output: JSON and quoted JSON") {
        CHECK("*3\r\n$1\r\na\r\n$-1\r\n:3\r\n", JSON, "[\"a\",null,3]\n");
        CHECK("%2\r\n$2\r\nf1\r\n$2\r\nv1\r\n:7\r\n#t\r\n", JSON, "{\"f1\":\"v1\",\"7\":true}\n");
        CHECK("-ERR x\r\n", JSON, "error:\"ERR x\"\n");
        CHECK("*0\r\n", JSON, "[]\n");
        CHECK("%0\r\n", JSON, "{}\n");
        CHECK("$6\r\na\"\\\n\x01\xc3\r\n", JSON, "\"a\\\"\\\\\\n\\u0001\xc3\"\n");
        CHECK("$2\r\n\x01\xff\r\n", QJSON, "\"\\\\x01\\\\xff\"\n");
        CHECK(",3.141\r\n", JSON, "3.141\n");
        CHECK("~1\r\n$1\r\nx\r\n", JSON, "[\"x\"]\n");
    }

    TEST("cli_output: Lua debugger answers, one line each, the end mark") {
        cliReply *r;
        char err[128];
        int ended = -1;
        const char *wire = "*2\r\n+* Stopped at 1, stop reason = step over\r\n+-> 1   local a = 1\r\n";
        cliReplyParse(wire, strlen(wire), &r, err, sizeof(err));
        sds s = cliFormatLdbReply(sdsempty(), r, 0, &ended);
        ASSERT_STREQ(s, "* Stopped at 1, stop reason = step over\n-> 1   local a = 1\n");
        ASSERT_EQ_LL(ended, 0);
        sdsfree(s);
        cliReplyFree(r);

        /* The mark alone is an empty line; after other lines, it adds a
         * line break of its own (an empty line follows them). */
        wire = "*1\r\n+<endsession>\r\n";
        cliReplyParse(wire, strlen(wire), &r, err, sizeof(err));
        s = cliFormatLdbReply(sdsempty(), r, 1, &ended);
        ASSERT_STREQ(s, "\n");
        ASSERT_EQ_LL(ended, 1);
        sdsfree(s);
        cliReplyFree(r);
        wire = "*2\r\n+<debug> line 1: 5\r\n+<endsession>\r\n";
        cliReplyParse(wire, strlen(wire), &r, err, sizeof(err));
        s = cliFormatLdbReply(sdsempty(), r, 0, &ended);
        ASSERT_STREQ(s, "<debug> line 1: 5\n\n");
        ASSERT_EQ_LL(ended, 1);
        sdsfree(s);
        cliReplyFree(r);

        /* Not the debugger's: as the raw format prints it. A bulk string
         * with the mark's text is data, not the mark. */
        wire = "*3\r\n:7\r\n$12\r\n<endsession>\r\n*1\r\n$1\r\nx\r\n";
        cliReplyParse(wire, strlen(wire), &r, err, sizeof(err));
        s = cliFormatLdbReply(sdsempty(), r, 1, &ended);
        ASSERT_STREQ(s, "7\n<endsession>\nx\n");
        ASSERT_EQ_LL(ended, 0);
        sdsfree(s);
        cliReplyFree(r);
    }

    TEST("cli_output: Lua debugger lines coloured by tag, as Valkey's cli") {
        static const struct {
            const char *line, *sgr;
        } cases[] = {
            {"* Stopped at 2, stop reason = step over", "0;37"},
            {"-> 2   return a", "0;33"},         /* The current line. */
            {"->#2   return a", "0;33"},         /* ... on a breakpoint. */
            {"  #4   return a", "1;37"},         /* A breakpoint. */
            {"   3   local b = '<error>'", "0;37"}, /* Source: not its text. */
            {"<debug> line 1: \"x\"", "1;37"},
            {"<hint> The above reply was trimmed.", "1;37"},
            {"<redis> set k v", "0;32"},
            {"<reply> \"+OK\"", "0;36"},
            {"<error> ERR x", "0;31"},
            {"<value> {1; 2}", "0;35"},
            {"<retval> 2", "0;35"},
            {"", "0;37"},
        };
        for (size_t j = 0; j < sizeof(cases) / sizeof(cases[0]); j++) {
            cliReply *line = cliReplyCreateString(CLI_REPLY_STATUS, cases[j].line, strlen(cases[j].line));
            int ended;
            sds s = cliFormatLdbReply(sdsempty(), line, 1, &ended);
            sds want = sdscatprintf(sdsempty(), "\033[%s;49m%s\033[0m\n", cases[j].sgr, cases[j].line);
            ASSERT_STREQ(s, want);
            sdsfree(want);
            sdsfree(s);
            cliReplyFree(line);
        }
    }
    return UT_END();
}
