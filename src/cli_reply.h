/* cli_reply.h - RESP2/RESP3 replies as a tree, for valkey-cli.
 *
 * cliReplyParse() turns the bytes of one reply (read by the tool itself
 * through cli_transport) into a cliReply tree; cli_output.c formats trees.
 * Our own parser rather than hiredis's redisReader: Debian's hiredis 0.14
 * predates RESP3 (no maps, sets, doubles, booleans, big numbers, verbatim
 * strings or attributes), which the cli must print.
 *
 * Leaf code: needs only sds/zmalloc/util. */
#ifndef VK_CLI_REPLY_H
#define VK_CLI_REPLY_H

#include <stddef.h>
#include <sys/types.h>

typedef enum {
    CLI_REPLY_STRING,  /* $ bulk string */
    CLI_REPLY_STATUS,  /* + simple string */
    CLI_REPLY_ERROR,   /* - or ! (blob error) */
    CLI_REPLY_INTEGER, /* : */
    CLI_REPLY_NIL,     /* _ or $-1 / *-1 */
    CLI_REPLY_DOUBLE,  /* , (text kept in str) */
    CLI_REPLY_BOOL,    /* # (integer is 0/1) */
    CLI_REPLY_BIGNUM,  /* ( (digits kept in str) */
    CLI_REPLY_VERB,    /* = (str is the text after "fmt:", vtype the fmt) */
    CLI_REPLY_ARRAY,   /* * */
    CLI_REPLY_SET,     /* ~ */
    CLI_REPLY_MAP,     /* % (elements holds key, value, key, value...) */
    CLI_REPLY_PUSH     /* > */
} cliReplyType;

typedef struct cliReply {
    cliReplyType type;
    long long integer;         /* INTEGER, BOOL. */
    char *str;                 /* Scalars with text; NUL terminated. */
    size_t len;
    char vtype[4];             /* VERB: "txt", "mkd". */
    size_t elements;           /* Aggregates; for MAP 2 * pairs. */
    struct cliReply **element;
} cliReply;

#define CLI_REPLY_MAX_DEPTH 512

ssize_t cliReplyParse(const char *buf, size_t len, cliReply **out, char *err, size_t errlen);
void cliReplyFree(cliReply *r);
int cliReplyIsAggregate(const cliReply *r);
cliReply *cliReplyCreateString(cliReplyType type, const char *s, size_t len);

#endif
