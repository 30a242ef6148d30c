/* cmdargs.h - the argument syntax of a command, from one string to a tree.
 *
 * Every row of the command table may carry `.args`, the command's
 * arguments written the way the command reference writes them, e.g. for
 * SET:
 *
 *     key value [condition=[NX | XX]] [GET]
 *     [expiration=[EX seconds | PX milliseconds | EXAT unix-time-seconds |
 *                  PXAT unix-time-milliseconds | KEEPTTL]]
 *
 * cmdArgsParse() turns such a string into the tree that COMMAND DOCS
 * reports under "arguments" (cmdinfo.c) and valkey-cli turns back into its
 * hints and `help` text. The notation:
 *
 *   word         a lower-case word names an argument; its type comes from
 *                the name (below) unless written as `name:type`, where type
 *                is one of key, string, integer, double, pattern, unix-time.
 *                A colon followed by anything else is part of the name
 *                ("ip:port").
 *   WORD         a word without lower-case letters is a literal token
 *                (NX, WITHSCORES, *, $, ~, =): a "pure-token" argument.
 *   [ ... ]      the content is optional.
 *   < ... >      the content is required (only needed to group).
 *   a | b        inside brackets: exactly one of the alternatives ("oneof").
 *   TOKEN x      an alternative (or bracket content) made of a token and one
 *                argument is that argument introduced by the token
 *                ([EX seconds]); a token followed by several arguments is a
 *                block introduced by the token ([LIMIT offset count]);
 *                several arguments without a leading token form a block.
 *   x [x ...]    x repeats: the bracket's text before " ..." must be exactly
 *                the text of the item(s) just before it. One item becomes
 *                "multiple"; several become a "multiple" block (named by
 *                joining their names with '_'). If the repeated text starts
 *                with the token, the result is also "multiple_token".
 *   x ...        a bare "..." after an item: the item repeats (used when the
 *                item is too long to write twice).
 *   label=x      names the element x instead of the derived name (oneof and
 *                blocks need this to get a readable name).
 *
 * Types derived from names: key, destination, source, and names ending in
 * "key" (newkey, destkey, sourcekey) are keys; pattern is a pattern;
 * unix-time-seconds and unix-time-milliseconds are unix-time; count,
 * cursor, numkeys, offset, start, end, stop, index, seconds, milliseconds,
 * db, increment, decrement, limit, timeout and port are integers; anything
 * else is a string. Derived names (as Valkey derives them): a pure token is
 * named after its token in lower case, a block or oneof by joining its
 * children's names with '_' ("offset_count" for [LIMIT offset count]).
 *
 * A leaf library (zmalloc only, never server.h), so the parser and every
 * table's string can be checked by src/unit/test_cmdargs.c. The server
 * parses all strings once at start-up and refuses to start on an error. */
#ifndef VK_CMDARGS_H
#define VK_CMDARGS_H

#include <stddef.h>

typedef enum {
    CMDARG_STRING,
    CMDARG_INTEGER,
    CMDARG_DOUBLE,
    CMDARG_KEY,
    CMDARG_PATTERN,
    CMDARG_UNIX_TIME,
    CMDARG_PURE_TOKEN,
    CMDARG_ONEOF, /* exactly one of subargs */
    CMDARG_BLOCK, /* all of subargs, in order */
} cmdArgType;

/* cmdArg.flags */
#define CMDARG_OPTIONAL (1 << 0)
#define CMDARG_MULTIPLE (1 << 1)
#define CMDARG_MULTIPLE_TOKEN (1 << 2) /* the token is repeated before each value */

typedef struct cmdArg {
    char *name;             /* zmalloc'ed; never NULL */
    cmdArgType type;
    char *token;            /* zmalloc'ed literal that introduces it, or NULL */
    int flags;              /* CMDARG_OPTIONAL | ... */
    struct cmdArg *subargs; /* ONEOF and BLOCK only: numsubargs children */
    int numsubargs;
} cmdArg;

/* Parses syntax into a new array of *numargs arguments (NULL when the
 * string is empty). Returns 0 on success; on error returns -1, leaves
 * *args NULL and writes a message naming the offset into err. The caller
 * owns the array and frees it with cmdArgsFree(). */
int cmdArgsParse(const char *syntax, cmdArg **args, int *numargs, char *err, size_t errlen);

/* Frees an array returned by cmdArgsParse(). NULL is fine. */
void cmdArgsFree(cmdArg *args, int numargs);

/* The name COMMAND DOCS uses for the type ("pure-token", "unix-time"). */
const char *cmdArgTypeName(cmdArgType type);

#endif
