/* cli_hints.h - valkey-cli's command help, argument hints and completion,
 * built from the server's COMMAND DOCS (cli_hints.c, unit-tested in
 * unit/test_cli_hints.c). */
#ifndef VK_CLI_HINTS_H
#define VK_CLI_HINTS_H

#include <stddef.h>

#include "cli_reply.h"
#include "sds.h"

/* The "type" of a documented argument. */
typedef enum {
    CLI_ARG_STRING,
    CLI_ARG_INTEGER,
    CLI_ARG_DOUBLE,
    CLI_ARG_KEY,
    CLI_ARG_PATTERN,
    CLI_ARG_UNIX_TIME,
    CLI_ARG_PURE_TOKEN, /* the token alone, no value */
    CLI_ARG_ONEOF,      /* one of the sub-arguments */
    CLI_ARG_BLOCK       /* all the sub-arguments, in order */
} cliArgType;

/* cliCmdArg.flags, from the docs' "flags". */
#define CLI_ARG_OPTIONAL (1 << 0)
#define CLI_ARG_MULTIPLE (1 << 1)
#define CLI_ARG_MULTIPLE_TOKEN (1 << 2) /* the token repeats with each value */

/* One documented argument, and how far the words typed so far match it.
 * The match fields are scratch state of one cliHelpHint() call. */
typedef struct cliCmdArg {
    sds name;
    sds display; /* display_text, or NULL */
    sds token;   /* NULL when the argument has no token */
    cliArgType type;
    int flags;
    struct cliCmdArg *subargs;
    int numsubargs;
    int matched;       /* words (or sub-matches) matched so far, 0 = none */
    int matched_token; /* its token was typed */
    int matched_name;  /* its value was typed */
    int matched_all;   /* nothing of it is left to type */
} cliCmdArg;

/* One help entry: a command ("GET"), a subcommand ("CONFIG GET", argc 2)
 * or a command group ("@string"). */
typedef struct cliHelpEntry {
    int is_group;
    int argc;
    sds argv[2];  /* upper case */
    sds full;     /* the words joined by a space, or "@group" */
    sds summary, since, group;
    sds params;   /* the whole argument syntax, as help shows it */
    cliCmdArg *args; /* NULL when the docs list no arguments */
    int numargs;
} cliHelpEntry;

/* Every entry, sorted by full name. */
typedef struct cliHelp {
    cliHelpEntry *entries;
    size_t len;
} cliHelp;

cliHelp *cliHelpCreate(const cliReply *docs);
void cliHelpFree(cliHelp *h);
sds cliHelpHint(cliHelp *h, const char *input);
sds cliHelpFormat(cliHelp *h, int argc, char **argv);
sds *cliHelpCompletions(cliHelp *h, const char *buf, size_t *count);

#endif
