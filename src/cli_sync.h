/* cli_sync.h - the replica's side of a SYNC/PSYNC answer, for valkey-cli's
 * --rdb, --functions-rdb and --replica (cli_sync.c, unit-tested in
 * unit/test_cli_sync.c). */
#ifndef VK_CLI_SYNC_H
#define VK_CLI_SYNC_H

#include <stddef.h>

#include "sds.h"

#define CLI_SYNC_MARK_LEN 40 /* The random end mark of an "$EOF:" payload. */

/* What one line of the primary's answer said (cliSyncParseLine()). */
typedef enum {
    CLI_SYNC_LINE_FULLRESYNC, /* "+FULLRESYNC <replid> <offset>": the payload line follows */
    CLI_SYNC_LINE_CONTINUE,   /* "+CONTINUE [<replid>]": no payload, the stream follows */
    CLI_SYNC_LINE_PAYLOAD,    /* "$<len>" or "$EOF:<mark>": the payload follows */
    CLI_SYNC_LINE_ERROR,      /* "-ERR ...": the sync was refused */
    CLI_SYNC_LINE_BAD         /* anything else */
} cliSyncLine;

/* A payload being received: either a length, or bytes up to an end mark
 * that is not part of the payload. */
typedef struct cliSyncPayload {
    int use_mark;                        /* "$EOF:<mark>" framing */
    unsigned long long remaining;        /* length framing: bytes still to come */
    char mark[CLI_SYNC_MARK_LEN];
    char held[CLI_SYNC_MARK_LEN];        /* mark framing: bytes that may start the mark */
    size_t held_len;
    unsigned long long total;            /* payload bytes delivered so far */
    int done;                            /* the whole payload arrived */
} cliSyncPayload;

cliSyncLine cliSyncParseLine(const char *line, size_t len, cliSyncPayload *p);
size_t cliSyncPayloadFeed(cliSyncPayload *p, const char *buf, size_t len, sds *out);

#endif
