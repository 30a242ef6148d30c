/* test_cmdargs.c - unit tests for cmdargs.c: the argument-syntax notation
 * of the command table, the trees it produces, its errors, and every
 * `.args = "..."` string actually written in the tables (read from the
 * sources in src/, so a bad string fails here before a server is built). */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "cmdargs.h"
#include "unittest.h"
#include "zmalloc.h"

/* Parses s, which must succeed. */
static cmdArg *parseOk(const char *s, int *n) {
    cmdArg *args;
    char err[256];
    if (cmdArgsParse(s, &args, n, err, sizeof(err)) != 0) {
        printf("unexpected parse error: %s\n", err);
        return NULL;
    }
    return args;
}

static int parseFails(const char *s) {
    cmdArg *args;
    int n;
    char err[256];
    int rc = cmdArgsParse(s, &args, &n, err, sizeof(err));
    if (rc == 0) cmdArgsFree(args, n);
    return rc == -1 && args == NULL && strstr(err, "offset") != NULL;
}

/* True if a has the given name, type, token (NULL = none) and flags. */
static int argIs(const cmdArg *a, const char *name, cmdArgType type, const char *token, int flags) {
    if (strcmp(a->name, name) != 0 || a->type != type || a->flags != flags) return 0;
    if ((token == NULL) != (a->token == NULL)) return 0;
    return token == NULL || !strcmp(token, a->token);
}

/* ---------------------------------------------------------------------------
 * Reading the tables' strings from the sources
 * ------------------------------------------------------------------------- */

/* Appends the C string literals starting at p (concatenated, separated by
 * white space) to out; returns the end. The only escapes our strings use
 * are \" and \\ (MIGRATE's "" token): a backslash takes the next
 * character as it is. */
static const char *readLiterals(const char *p, char *out, size_t outlen) {
    size_t len = 0;
    for (;;) {
        while (*p == ' ' || *p == '\n' || *p == '\t') p++;
        if (*p != '"') break;
        p++;
        while (*p && *p != '"') {
            if (*p == '\\' && p[1]) p++;
            if (len + 1 < outlen) out[len++] = *p;
            p++;
        }
        if (*p == '"') p++;
    }
    out[len] = '\0';
    return p;
}

static char *readFile(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = zmalloc(size + 1);
    size_t got = fread(buf, 1, size, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

/* Parses every ".args = " string of dir/<file>.c; returns how many, or -1
 * if one fails (after printing it). */
static int parseTableStrings(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *de;
    int count = 0, bad = 0;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (l < 3 || strcmp(de->d_name + l - 2, ".c")) continue;
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        char *src = readFile(path);
        if (!src) continue;
        for (const char *p = src; (p = strstr(p, ".args = \"")) != NULL;) {
            char syntax[2048], err[512];
            p = readLiterals(p + strlen(".args = "), syntax, sizeof(syntax));
            cmdArg *args;
            int n;
            if (cmdArgsParse(syntax, &args, &n, err, sizeof(err)) != 0) {
                printf("%s: %s\n", path, err);
                bad = 1;
            } else {
                if (n == 0) printf("%s: empty .args string\n", path), bad = 1;
                cmdArgsFree(args, n);
            }
            count++;
        }
        zfree(src);
    }
    closedir(d);
    return bad ? -1 : count;
}

int main(int argc, char **argv) {
    UT_BEGIN(argv[0]);

    TEST("cmdargs: plain arguments get their type from the name") {
        int n;
        cmdArg *a = parseOk("key destination newkey count pattern unix-time-seconds value", &n);
        ASSERT(a && n == 7);
        if (a && n == 7) {
            ASSERT(argIs(&a[0], "key", CMDARG_KEY, NULL, 0));
            ASSERT(argIs(&a[1], "destination", CMDARG_KEY, NULL, 0));
            ASSERT(argIs(&a[2], "newkey", CMDARG_KEY, NULL, 0));
            ASSERT(argIs(&a[3], "count", CMDARG_INTEGER, NULL, 0));
            ASSERT(argIs(&a[4], "pattern", CMDARG_PATTERN, NULL, 0));
            ASSERT(argIs(&a[5], "unix-time-seconds", CMDARG_UNIX_TIME, NULL, 0));
            ASSERT(argIs(&a[6], "value", CMDARG_STRING, NULL, 0));
        }
        cmdArgsFree(a, n);
    }

    TEST("cmdargs: explicit types, and a colon that is part of the name") {
        int n;
        cmdArg *a = parseOk("score:double key1:key start:string ip:port", &n);
        ASSERT(a && n == 4);
        if (a && n == 4) {
            ASSERT(argIs(&a[0], "score", CMDARG_DOUBLE, NULL, 0));
            ASSERT(argIs(&a[1], "key1", CMDARG_KEY, NULL, 0));
            ASSERT(argIs(&a[2], "start", CMDARG_STRING, NULL, 0));
            ASSERT(argIs(&a[3], "ip:port", CMDARG_STRING, NULL, 0));
        }
        cmdArgsFree(a, n);
    }

    TEST("cmdargs: SET's tree (tokens, oneof, labels, optional)") {
        int n;
        cmdArg *a = parseOk("key value [condition=[NX | XX]] [GET] [expiration=[EX seconds | PX milliseconds | "
                            "EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]]",
                            &n);
        ASSERT(a && n == 5);
        if (a && n == 5) {
            ASSERT(argIs(&a[2], "condition", CMDARG_ONEOF, NULL, CMDARG_OPTIONAL));
            ASSERT(a[2].numsubargs == 2);
            ASSERT(argIs(&a[2].subargs[0], "nx", CMDARG_PURE_TOKEN, "NX", 0));
            ASSERT(argIs(&a[2].subargs[1], "xx", CMDARG_PURE_TOKEN, "XX", 0));
            ASSERT(argIs(&a[3], "get", CMDARG_PURE_TOKEN, "GET", CMDARG_OPTIONAL));
            ASSERT(argIs(&a[4], "expiration", CMDARG_ONEOF, NULL, CMDARG_OPTIONAL));
            ASSERT(a[4].numsubargs == 5);
            if (a[4].numsubargs == 5) {
                ASSERT(argIs(&a[4].subargs[0], "seconds", CMDARG_INTEGER, "EX", 0));
                ASSERT(argIs(&a[4].subargs[3], "unix-time-milliseconds", CMDARG_UNIX_TIME, "PXAT", 0));
                ASSERT(argIs(&a[4].subargs[4], "keepttl", CMDARG_PURE_TOKEN, "KEEPTTL", 0));
            }
        }
        cmdArgsFree(a, n);
    }

    TEST("cmdargs: repetition of one item and of several (ZADD)") {
        int n;
        cmdArg *a = parseOk("key [key ...] score:double member [score:double member ...]", &n);
        ASSERT(a && n == 2);
        if (a && n == 2) {
            ASSERT(argIs(&a[0], "key", CMDARG_KEY, NULL, CMDARG_MULTIPLE));
            ASSERT(argIs(&a[1], "score_member", CMDARG_BLOCK, NULL, CMDARG_MULTIPLE));
            ASSERT(a[1].numsubargs == 2);
            ASSERT(argIs(&a[1].subargs[0], "score", CMDARG_DOUBLE, NULL, 0));
            ASSERT(argIs(&a[1].subargs[1], "member", CMDARG_STRING, NULL, 0));
        }
        cmdArgsFree(a, n);
    }

    TEST("cmdargs: optional repeated arguments and repeated tokens (SORT)") {
        int n;
        cmdArg *a = parseOk("[arg [arg ...]] [GET pattern [GET pattern ...]] [WEIGHTS weight:integer "
                            "[weight:integer ...]] [LIMIT offset count]",
                            &n);
        ASSERT(a && n == 4);
        if (a && n == 4) {
            ASSERT(argIs(&a[0], "arg", CMDARG_STRING, NULL, CMDARG_OPTIONAL | CMDARG_MULTIPLE));
            ASSERT(argIs(&a[1], "pattern", CMDARG_PATTERN, "GET",
                         CMDARG_OPTIONAL | CMDARG_MULTIPLE | CMDARG_MULTIPLE_TOKEN));
            ASSERT(argIs(&a[2], "weight", CMDARG_INTEGER, "WEIGHTS", CMDARG_OPTIONAL | CMDARG_MULTIPLE));
            ASSERT(argIs(&a[3], "offset_count", CMDARG_BLOCK, "LIMIT", CMDARG_OPTIONAL));
            ASSERT(a[3].numsubargs == 2);
        }
        cmdArgsFree(a, n);
    }

    TEST("cmdargs: CLIENT KILL (nested oneof, bare '...', labels on tokens)") {
        int n;
        cmdArg *a = parseOk("filter=<old-format=ip:port | new-format=<[ID client-id:integer] | [TYPE "
                            "client-type=<NORMAL | MASTER>] | [SKIPME skipme=<YES | NO>]> ...> [auto-id=*]",
                            &n);
        ASSERT(a && n == 2);
        if (a && n == 2) {
            ASSERT(argIs(&a[0], "filter", CMDARG_ONEOF, NULL, 0));
            ASSERT(a[0].numsubargs == 2);
            ASSERT(argIs(&a[0].subargs[0], "old-format", CMDARG_STRING, NULL, 0));
            cmdArg *nf = &a[0].subargs[1];
            ASSERT(argIs(nf, "new-format", CMDARG_ONEOF, NULL, CMDARG_MULTIPLE));
            ASSERT(nf->numsubargs == 3);
            if (nf->numsubargs == 3) {
                ASSERT(argIs(&nf->subargs[0], "client-id", CMDARG_INTEGER, "ID", CMDARG_OPTIONAL));
                ASSERT(argIs(&nf->subargs[1], "client-type", CMDARG_ONEOF, "TYPE", CMDARG_OPTIONAL));
                ASSERT(argIs(&nf->subargs[2].subargs[0], "yes", CMDARG_PURE_TOKEN, "YES", 0));
            }
            ASSERT(argIs(&a[1], "auto-id", CMDARG_PURE_TOKEN, "*", CMDARG_OPTIONAL));
        }
        cmdArgsFree(a, n);
    }

    TEST("cmdargs: token-introduced block of several arguments (XREADGROUP)") {
        int n;
        cmdArg *a = parseOk("<GROUP group consumer> streams=<STREAMS key [key ...] id [id ...]>", &n);
        ASSERT(a && n == 2);
        if (a && n == 2) {
            ASSERT(argIs(&a[0], "group_consumer", CMDARG_BLOCK, "GROUP", 0));
            ASSERT(argIs(&a[1], "streams", CMDARG_BLOCK, "STREAMS", 0));
            ASSERT(a[1].numsubargs == 2);
            ASSERT(argIs(&a[1].subargs[0], "key", CMDARG_KEY, NULL, CMDARG_MULTIPLE));
            ASSERT(argIs(&a[1].subargs[1], "id", CMDARG_STRING, NULL, CMDARG_MULTIPLE));
        }
        cmdArgsFree(a, n);
    }

    TEST("cmdargs: the empty string has no arguments") {
        int n = 7;
        cmdArg *a = parseOk("", &n);
        ASSERT(a == NULL && n == 0);
    }

    TEST("cmdargs: malformed strings fail with a position") {
        ASSERT(parseFails("[NX | XX"));
        ASSERT(parseFails("key ]"));
        ASSERT(parseFails("<a | b]"));
        ASSERT(parseFails("[]"));
        ASSERT(parseFails("[a | ]"));
        ASSERT(parseFails("... key"));
        ASSERT(parseFails("Key"));
        ASSERT(parseFails("label= key"));
        ASSERT(parseFails("key >"));
    }

    TEST("cmdargs: a repetition that does not match is an optional repeated item") {
        int n;
        cmdArg *a = parseOk("key [member ...]", &n);
        ASSERT(a && n == 2);
        if (a && n == 2) ASSERT(argIs(&a[1], "member", CMDARG_STRING, NULL, CMDARG_OPTIONAL | CMDARG_MULTIPLE));
        cmdArgsFree(a, n);
    }

    TEST("cmdargs: every .args string in the command tables parses") {
        int count = parseTableStrings(".");
        if (count == 0) count = parseTableStrings("src");
        ASSERT(count > 200);
    }

    return UT_END();
}
