/* test_cli_hints.c - unit tests for cli_hints.c, valkey-cli's help table,
 * argument hints and completion.
 *
 * The docs are built here as cliReply trees shaped like COMMAND DOCS
 * replies (the argument trees of Valkey 8's commands), and the hint cases
 * are those of Valkey's tests/assets/test_cli_hint_suite.txt for these
 * commands, so the hint rules (optional runs in any order, one-of choices,
 * repeated blocks, typed values that must parse, and the unbalanced
 * bracket Valkey leaves after a started repeated block) stay Valkey's. */
#include <stdarg.h>
#include <string.h>

#include "cli_hints.h"
#include "cli_reply.h"
#include "unittest.h"
#include "zmalloc.h"

/* ---------------------------------------------------------------------------
 * Building docs trees
 * ------------------------------------------------------------------------- */

static cliReply *str(const char *s) {
    return cliReplyCreateString(CLI_REPLY_STRING, s, strlen(s));
}

static cliReply *status(const char *s) {
    return cliReplyCreateString(CLI_REPLY_STATUS, s, strlen(s));
}

/* An aggregate of the NULL-terminated replies that follow. */
static cliReply *agg(cliReplyType type, ...) {
    cliReply *r = zcalloc(sizeof(*r));
    r->type = type;
    va_list ap;
    va_start(ap, type);
    cliReply *e;
    while ((e = va_arg(ap, cliReply *)) != NULL) {
        r->element = zrealloc(r->element, sizeof(cliReply *) * (r->elements + 1));
        r->element[r->elements++] = e;
    }
    va_end(ap);
    return r;
}

#define LIST(...) agg(CLI_REPLY_ARRAY, __VA_ARGS__, NULL)
#define EMPTY agg(CLI_REPLY_ARRAY, NULL)

/* One argument: name ("name=display text" adds a display_text), type,
 * token (or NULL), space-separated flags (or NULL), sub-arguments (or
 * NULL). As a RESP3 map, the way the server's docs come with -3. */
static cliReply *arg(const char *name, const char *type, const char *token, const char *flags, cliReply *subargs) {
    const char *eq = strchr(name, '=');
    cliReply *m = agg(CLI_REPLY_MAP, str("name"),
                      eq ? cliReplyCreateString(CLI_REPLY_STRING, name, (size_t)(eq - name)) : str(name), str("type"),
                      str(type), NULL);
    cliReply *extra[8];
    int n = 0;
    if (eq) {
        extra[n++] = str("display_text");
        extra[n++] = str(eq + 1);
    }
    if (token) {
        extra[n++] = str("token");
        extra[n++] = str(token);
    }
    if (flags) {
        cliReply *f = EMPTY;
        char buf[128];
        snprintf(buf, sizeof(buf), "%s", flags);
        for (char *w = strtok(buf, " "); w; w = strtok(NULL, " ")) {
            f->element = zrealloc(f->element, sizeof(cliReply *) * (f->elements + 1));
            f->element[f->elements++] = status(w);
        }
        extra[n++] = str("flags");
        extra[n++] = f;
    }
    if (subargs) {
        extra[n++] = str("arguments");
        extra[n++] = subargs;
    }
    m->element = zrealloc(m->element, sizeof(cliReply *) * (m->elements + (size_t)n));
    for (int j = 0; j < n; j++) m->element[m->elements++] = extra[j];
    return m;
}

/* A command's docs (a flat RESP2 list of fields). */
static cliReply *cmd(const char *group, cliReply *arguments, cliReply *subcommands) {
    cliReply *d = LIST(str("summary"), str("Does things."), str("since"), str("1.0.0"), str("group"), str(group));
    cliReply *extra[4];
    int n = 0;
    if (arguments) {
        extra[n++] = str("arguments");
        extra[n++] = arguments;
    }
    if (subcommands) {
        extra[n++] = str("subcommands");
        extra[n++] = subcommands;
    }
    d->element = zrealloc(d->element, sizeof(cliReply *) * (d->elements + (size_t)n));
    for (int j = 0; j < n; j++) d->element[d->elements++] = extra[j];
    return d;
}

static cliReply *key(const char *name) {
    return arg(name, "key", NULL, NULL, NULL);
}

/* The docs of the commands the hint cases use, as in Valkey 8. */
static cliReply *buildDocs(void) {
    return agg(
        CLI_REPLY_MAP,
        str("get"), cmd("string", LIST(key("key")), NULL),
        str("decrby"), cmd("string", LIST(key("key"), arg("decrement", "integer", NULL, NULL, NULL)), NULL),
        str("lpop"), cmd("list", LIST(key("key"), arg("count", "integer", NULL, "optional", NULL)), NULL),
        str("xrange"),
        cmd("stream",
            LIST(key("key"), arg("start", "string", NULL, NULL, NULL), arg("end", "string", NULL, NULL, NULL),
                 arg("count", "integer", "COUNT", "optional", NULL)),
            NULL),
        str("bitfield_ro"),
        cmd("bitmap",
            LIST(key("key"), arg("get-block", "block", "GET", "optional multiple multiple_token",
                                 LIST(arg("encoding", "string", NULL, NULL, NULL),
                                      arg("offset", "integer", NULL, NULL, NULL)))),
            NULL),
        str("config"),
        cmd("server", NULL,
            agg(CLI_REPLY_MAP, str("config|set"),
                cmd("server", LIST(arg("data", "block", NULL, "multiple",
                                       LIST(arg("parameter", "string", NULL, NULL, NULL),
                                            arg("value", "string", NULL, NULL, NULL)))),
                    NULL),
                str("config|get"),
                cmd("server", LIST(arg("parameter", "string", NULL, "multiple", NULL)), NULL), NULL)),
        str("zrandmember"),
        cmd("sorted_set",
            LIST(key("key"), arg("options", "block", NULL, "optional",
                                 LIST(arg("count", "integer", NULL, NULL, NULL),
                                      arg("withscores", "pure-token", "WITHSCORES", "optional", NULL)))),
            NULL),
        str("mget"), cmd("string", LIST(arg("key", "key", NULL, "multiple", NULL)), NULL),
        str("scan"),
        cmd("generic",
            LIST(arg("cursor", "integer", NULL, NULL, NULL), arg("pattern", "pattern", "MATCH", "optional", NULL),
                 arg("count", "integer", "COUNT", "optional", NULL), arg("type", "string", "TYPE", "optional", NULL)),
            NULL),
        str("blmove"),
        cmd("list",
            LIST(key("source"), key("destination"),
                 arg("wherefrom", "oneof", NULL, NULL,
                     LIST(arg("left", "pure-token", "LEFT", NULL, NULL),
                          arg("right", "pure-token", "RIGHT", NULL, NULL))),
                 arg("whereto", "oneof", NULL, NULL,
                     LIST(arg("left", "pure-token", "LEFT", NULL, NULL),
                          arg("right", "pure-token", "RIGHT", NULL, NULL))),
                 arg("timeout", "double", NULL, NULL, NULL)),
            NULL),
        str("zrange"),
        cmd("sorted_set",
            LIST(key("key"), arg("start", "string", NULL, NULL, NULL), arg("stop", "string", NULL, NULL, NULL),
                 arg("sortby", "oneof", NULL, "optional",
                     LIST(arg("byscore", "pure-token", "BYSCORE", NULL, NULL),
                          arg("bylex", "pure-token", "BYLEX", NULL, NULL))),
                 arg("rev", "pure-token", "REV", "optional", NULL),
                 arg("limit", "block", "LIMIT", "optional",
                     LIST(arg("offset", "integer", NULL, NULL, NULL), arg("count", "integer", NULL, NULL, NULL))),
                 arg("withscores", "pure-token", "WITHSCORES", "optional", NULL)),
            NULL),
        str("set"),
        cmd("string",
            LIST(key("key"), arg("value", "string", NULL, NULL, NULL),
                 arg("condition", "oneof", NULL, "optional",
                     LIST(arg("nx", "pure-token", "NX", NULL, NULL), arg("xx", "pure-token", "XX", NULL, NULL))),
                 arg("get", "pure-token", "GET", "optional", NULL),
                 arg("expiration", "oneof", NULL, "optional",
                     LIST(arg("seconds", "integer", "EX", NULL, NULL), arg("milliseconds", "integer", "PX", NULL, NULL),
                          arg("unix-time-seconds", "unix-time", "EXAT", NULL, NULL),
                          arg("unix-time-milliseconds", "unix-time", "PXAT", NULL, NULL),
                          arg("keepttl", "pure-token", "KEEPTTL", NULL, NULL)))),
            NULL),
        str("georadius"),
        cmd("geo",
            LIST(key("key"), arg("longitude", "double", NULL, NULL, NULL), arg("latitude", "double", NULL, NULL, NULL),
                 arg("radius", "double", NULL, NULL, NULL),
                 arg("unit", "oneof", NULL, NULL,
                     LIST(arg("m", "pure-token", "M", NULL, NULL), arg("km", "pure-token", "KM", NULL, NULL),
                          arg("ft", "pure-token", "FT", NULL, NULL), arg("mi", "pure-token", "MI", NULL, NULL))),
                 arg("withcoord", "pure-token", "WITHCOORD", "optional", NULL),
                 arg("withdist", "pure-token", "WITHDIST", "optional", NULL),
                 arg("withhash", "pure-token", "WITHHASH", "optional", NULL),
                 arg("count-block", "block", NULL, "optional",
                     LIST(arg("count", "integer", "COUNT", NULL, NULL),
                          arg("any", "pure-token", "ANY", "optional", NULL))),
                 arg("order", "oneof", NULL, "optional",
                     LIST(arg("asc", "pure-token", "ASC", NULL, NULL), arg("desc", "pure-token", "DESC", NULL, NULL))),
                 arg("store", "oneof", NULL, "optional",
                     LIST(arg("storekey=key", "key", "STORE", NULL, NULL),
                          arg("storedistkey=key", "key", "STOREDIST", NULL, NULL)))),
            NULL),
        str("zadd"),
        cmd("sorted_set",
            LIST(key("key"),
                 arg("condition", "oneof", NULL, "optional",
                     LIST(arg("nx", "pure-token", "NX", NULL, NULL), arg("xx", "pure-token", "XX", NULL, NULL))),
                 arg("comparison", "oneof", NULL, "optional",
                     LIST(arg("gt", "pure-token", "GT", NULL, NULL), arg("lt", "pure-token", "LT", NULL, NULL))),
                 arg("change", "pure-token", "CH", "optional", NULL),
                 arg("increment", "pure-token", "INCR", "optional", NULL),
                 arg("data", "block", NULL, "multiple",
                     LIST(arg("score", "double", NULL, NULL, NULL), arg("member", "string", NULL, NULL, NULL)))),
            NULL),
        str("migrate"),
        cmd("generic",
            LIST(arg("host", "string", NULL, NULL, NULL), arg("port", "integer", NULL, NULL, NULL),
                 arg("key-selector", "oneof", NULL, NULL,
                     LIST(key("key"), arg("empty-string", "pure-token", "", NULL, NULL))),
                 arg("destination-db", "integer", NULL, NULL, NULL), arg("timeout", "integer", NULL, NULL, NULL),
                 arg("copy", "pure-token", "COPY", "optional", NULL),
                 arg("replace", "pure-token", "REPLACE", "optional", NULL),
                 arg("authentication", "oneof", NULL, "optional",
                     LIST(arg("auth=password", "string", "AUTH", NULL, NULL),
                          arg("auth2", "block", "AUTH2", NULL,
                              LIST(arg("username", "string", NULL, NULL, NULL),
                                   arg("password", "string", NULL, NULL, NULL))))),
                 arg("keys=key", "key", "KEYS", "optional multiple", NULL)),
            NULL),
        str("ping"), cmd("connection", LIST(arg("message", "string", NULL, "optional", NULL)), NULL),
        str("dbsize"), cmd("server", NULL, NULL),
        NULL);
}

/* Strips trailing spaces (they do not show), as Valkey's hint suite does. */
static int hintIs(cliHelp *h, const char *input, const char *expected) {
    sds hint = cliHelpHint(h, input);
    if (!hint) {
        printf("  hint of '%s' is NULL, expected '%s'\n", input, expected);
        return 0;
    }
    while (sdslen(hint) && hint[sdslen(hint) - 1] == ' ') sdsrange(hint, 0, -2);
    int ok = !strcmp(hint, expected);
    if (!ok) printf("  hint of '%s' is '%s', expected '%s'\n", input, hint, expected);
    sdsfree(hint);
    return ok;
}

#define HINT(input, expected) ASSERT(hintIs(h, input, expected))

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    cliReply *docs = buildDocs();
    cliHelp *h = cliHelpCreate(docs);

    TEST("cli_hints: the table has commands, subcommands and groups, sorted") {
        int seen_config_set = 0, seen_group = 0, sorted = 1;
        for (size_t j = 0; j < h->len; j++) {
            if (!strcmp(h->entries[j].full, "CONFIG SET")) seen_config_set = h->entries[j].argc == 2;
            if (!strcmp(h->entries[j].full, "@sorted_set")) seen_group = h->entries[j].is_group;
            if (j && strcmp(h->entries[j - 1].full, h->entries[j].full) >= 0) sorted = 0;
        }
        ASSERT(seen_config_set);
        ASSERT(seen_group);
        ASSERT(sorted);
    }

    TEST("cli_hints: fixed arguments") {
        HINT("GET ", "key");
        HINT("GET abc ", "");
        HINT("get ", "key");
        HINT("DECRBY xyz 2 ", "");
        HINT("DECRBY xyz ", "decrement");
        HINT("DECRBY ", "key decrement");
    }

    TEST("cli_hints: no hint before the space after the command, none for unknown commands") {
        sds hint = cliHelpHint(h, "GET");
        ASSERT(hint == NULL);
        sdsfree(hint);
        hint = cliHelpHint(h, "NOSUCHCOMMAND ");
        ASSERT(hint == NULL);
        sdsfree(hint);
        hint = cliHelpHint(h, "GET \"unbalanced");
        ASSERT(hint == NULL);
        sdsfree(hint);
        HINT("GET k", "key"); /* The last word counts once a space follows. */
    }

    TEST("cli_hints: optional and token arguments") {
        HINT("LPOP key ", "[count]");
        HINT("LPOP key 3 ", "");
        HINT("XRANGE ", "key start end [COUNT count]");
        HINT("XRANGE k 4 2 ", "[COUNT count]");
        HINT("XRANGE k 4 2 COU", "[COUNT count]");
        HINT("XRANGE k 4 2 COUNT", "[COUNT count]");
        HINT("XRANGE k 4 2 COUNT ", "count");
    }

    TEST("cli_hints: repeated token blocks keep Valkey's unbalanced bracket") {
        HINT("BITFIELD_RO k ", "[GET encoding offset [GET encoding offset ...]]");
        HINT("BITFIELD_RO k GE", "[GET encoding offset [GET encoding offset ...]]");
        HINT("BITFIELD_RO k GET", "[GET encoding offset [GET encoding offset ...]]");
        HINT("BITFIELD_RO k GET ", "encoding offset [GET encoding offset ...]]");
        HINT("BITFIELD_RO k GET xyz ", "offset [GET encoding offset ...]]");
        HINT("BITFIELD_RO k GET xyz 12 ", "[GET encoding offset ...]]");
        HINT("BITFIELD_RO k GET xyz 12 GET ", "encoding offset [GET encoding offset ...]]");
        HINT("BITFIELD_RO k GET enc1 12 GET enc2 ", "offset [GET encoding offset ...]]");
        HINT("BITFIELD_RO k GET enc1 12 GET enc2 34 ", "[GET encoding offset ...]]");
    }

    TEST("cli_hints: subcommands and repeated blocks") {
        HINT("CONFIG SET param ", "value [parameter value ...]");
        HINT("CONFIG SET param val ", "[parameter value ...]");
        HINT("CONFIG SET param val param2 val2 ", "[parameter value ...]");
        HINT("config get ", "parameter [parameter ...]");
        HINT("MGET ", "key [key ...]");
        HINT("MGET k ", "[key ...]");
        HINT("MGET k k ", "[key ...]");
    }

    TEST("cli_hints: nested optionals and typed values") {
        HINT("ZRANDMEMBER k ", "[count [WITHSCORES]]");
        HINT("ZRANDMEMBER k 3 ", "[WITHSCORES]");
        HINT("ZRANDMEMBER k 3 WI", "[WITHSCORES]");
        HINT("ZRANDMEMBER k 3 WITHSCORES ", "");
        HINT("ZRANDMEMBER k cnt ", ""); /* count must be an integer */
    }

    TEST("cli_hints: optionals in any order") {
        HINT("SCAN 2 MATCH ", "pattern [COUNT count] [TYPE type]");
        HINT("SCAN 2 COUNT ", "count [MATCH pattern] [TYPE type]");
        HINT("BLMOVE src dst LEFT ", "LEFT|RIGHT timeout");
        HINT("ZRANGE k 1 2 ", "[BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]");
        HINT("ZRANGE k 1 2 bylex ", "[REV] [LIMIT offset count] [WITHSCORES]");
        HINT("ZRANGE k 1 2 bylex rev ", "[LIMIT offset count] [WITHSCORES]");
        HINT("ZRANGE k 1 2 limit 2 4 ", "[BYSCORE|BYLEX] [REV] [WITHSCORES]");
        HINT("ZRANGE k 1 2 bylex rev limit 2 4 WITHSCORES ", "");
        HINT("ZRANGE k 1 2 rev ", "[BYSCORE|BYLEX] [LIMIT offset count] [WITHSCORES]");
        HINT("ZRANGE k 1 2 WITHSCORES ", "[BYSCORE|BYLEX] [REV] [LIMIT offset count]");
    }

    TEST("cli_hints: one-of choices with values") {
        const char *all = "[NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|"
                          "PXAT unix-time-milliseconds|KEEPTTL]";
        HINT("SET key value ", all);
        HINT("SET key value EX", all);
        HINT("SET key value EX ", "seconds [NX|XX] [GET]");
        HINT("SET key value EX 23 ", "[NX|XX] [GET]");
        HINT("SET key value EXAT ", "unix-time-seconds [NX|XX] [GET]");
        HINT("SET key value PXAT ", "unix-time-milliseconds [NX|XX] [GET]");
        HINT("SET key value KEEPTTL ", "[NX|XX] [GET]");
        HINT("SET key value XX ", "[GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|"
                                  "PXAT unix-time-milliseconds|KEEPTTL]");
        HINT("SET key value FOOBAR ", "");
        HINT("SET key value EX sec ", "");
    }

    TEST("cli_hints: a started optional block is completed when the next one starts") {
        const char *rest = "[WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC|DESC] [STORE key|STOREDIST key]";
        char buf[256];
        snprintf(buf, sizeof(buf), "longitude latitude radius M|KM|FT|MI %s", rest);
        HINT("GEORADIUS key ", buf);
        HINT("GEORADIUS key 1 2 3 M ", rest);
        const char *after_count = "[WITHCOORD] [WITHDIST] [WITHHASH] [ASC|DESC] [STORE key|STOREDIST key]";
        snprintf(buf, sizeof(buf), "count [ANY] %s", after_count);
        HINT("GEORADIUS key 1 2 3 M COUNT ", buf);
        snprintf(buf, sizeof(buf), "[ANY] %s", after_count);
        HINT("GEORADIUS key 1 2 3 M COUNT 12 ", buf);
        HINT("GEORADIUS key 1 -2.345 3 M COUNT 12 ", buf);
        HINT("GEORADIUS key 1 X ", "");
        HINT("GEORADIUS key 1 2 3 M COUNT 12 ASC ", "[WITHCOORD] [WITHDIST] [WITHHASH] [STORE key|STOREDIST key]");
    }

    TEST("cli_hints: optionals before a required argument, empty tokens") {
        HINT("ZADD key ", "[NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]");
        HINT("ZADD key CH LT ", "[NX|XX] [INCR] score member [score member ...]");
        HINT("ZADD key 0 ", "member [score member ...]");
        HINT("MIGRATE ", "host port key|\"\" destination-db timeout [COPY] [REPLACE] "
                         "[AUTH password|AUTH2 username password] [KEYS key [key ...]]");
    }

    TEST("cli_hints: commands without argument docs") {
        HINT("DBSIZE ", "");
        HINT("PING ", "[message]");
    }

    TEST("cli_hints: help text of a command, a command family and a group") {
        char *set[] = {"set"};
        sds out = cliHelpFormat(h, 1, set);
        const char *expected = "\r\n  \x1b[1mSET\x1b[0m \x1b[90mkey value [NX|XX] [GET] [EX seconds|PX milliseconds|"
                          "EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]\x1b[0m\r\n"
                          "  \x1b[33msummary:\x1b[0m Does things.\r\n"
                          "  \x1b[33msince:\x1b[0m 1.0.0\r\n"
                          "  \x1b[33mgroup:\x1b[0m string\r\n\r\n";
        ASSERT_STREQ(out, expected);
        sdsfree(out);
        char *config[] = {"CONFIG"};
        out = cliHelpFormat(h, 1, config);
        /* The container, then its subcommands in name order. */
        char *c = strstr(out, "\x1b[1mCONFIG\x1b[0m"), *g = strstr(out, "CONFIG GET"), *s = strstr(out, "CONFIG SET");
        ASSERT(c && g && s && c < g && g < s);
        sdsfree(out);
        char *group[] = {"@list"};
        out = cliHelpFormat(h, 1, group);
        ASSERT(strstr(out, "BLMOVE") && strstr(out, "LPOP") && !strstr(out, "GET") && !strstr(out, "group:"));
        sdsfree(out);
        char *none[] = {"nosuch"};
        out = cliHelpFormat(h, 1, none);
        ASSERT_STREQ(out, "\r\n");
        sdsfree(out);
    }

    TEST("cli_hints: TAB completions") {
        size_t n;
        sds *c = cliHelpCompletions(h, "zr", &n);
        ASSERT_EQ_LL(n, 2);
        if (n == 2) {
            ASSERT_STREQ(c[0], "ZRANDMEMBER");
            ASSERT_STREQ(c[1], "ZRANGE");
        }
        for (size_t j = 0; j < n; j++) sdsfree(c[j]);
        zfree(c);
        c = cliHelpCompletions(h, "config s", &n);
        ASSERT_EQ_LL(n, 1);
        if (n == 1) ASSERT_STREQ(c[0], "CONFIG SET");
        for (size_t j = 0; j < n; j++) sdsfree(c[j]);
        zfree(c);
        c = cliHelpCompletions(h, "help @so", &n);
        ASSERT_EQ_LL(n, 1);
        if (n == 1) ASSERT_STREQ(c[0], "help @sorted_set");
        for (size_t j = 0; j < n; j++) sdsfree(c[j]);
        zfree(c);
        c = cliHelpCompletions(h, "@so", &n); /* groups only after help */
        ASSERT_EQ_LL(n, 0);
        zfree(c);
    }

    TEST("cli_hints: odd docs (an empty repeated block) do not hang the hint") {
        cliReply *odd = agg(CLI_REPLY_MAP, str("odd"),
                            cmd("generic", LIST(arg("empty", "block", NULL, "multiple", EMPTY)), NULL), NULL);
        cliHelp *oh = cliHelpCreate(odd);
        sds hint = cliHelpHint(oh, "ODD a b ");
        ASSERT(hint != NULL);
        sdsfree(hint);
        cliHelpFree(oh);
        cliReplyFree(odd);
    }

    TEST("cli_hints: a reply that is not COMMAND DOCS gives an empty table") {
        cliReply *bad = str("ERR unknown command");
        cliHelp *empty = cliHelpCreate(bad);
        ASSERT_EQ_LL(empty->len, 0);
        sds hint = cliHelpHint(empty, "GET ");
        ASSERT(hint == NULL);
        cliHelpFree(empty);
        cliReplyFree(bad);
    }

    cliHelpFree(h);
    cliReplyFree(docs);
    return UT_END();
}
