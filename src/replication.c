/* replication.c - the primary/replica link (see replication.h).
 *
 * Work in progress: the primary side (backlog, SYNC/PSYNC, full sync by
 * file or stream) and the replica side come next. Until then the stream
 * goes nowhere. */
#include "replication.h"

/* See replication.h. 0 until the primary side keeps a backlog. */
int repl_stream_active = 0;

void replicationFeedReplicas(int dictid, robj **argv, int argc) {
    (void)dictid;
    (void)argv;
    (void)argc;
}
