/* replication.h - the primary/replica link: what the rest of the server
 * calls to feed the replication stream, and the replication state.
 *
 * Propagation (propagate.c) decides WHAT goes into the stream: commands as
 * executed, rewritten where they are not deterministic, wrapped in
 * MULTI/EXEC when one execution unit produced several. Replication
 * (replication.c) decides WHERE it goes: the backlog and every attached
 * replica's output buffer. The one call between them is
 * replicationFeedReplicas(). */
#ifndef VK_REPLICATION_H
#define VK_REPLICATION_H

#include "server.h"

/* Appends one command (already rewritten for propagation) to the
 * replication stream of database dictid: a SELECT first when the stream's
 * database differs, then the command in RESP multibulk form, into the
 * backlog and to every online replica. Event loop only. */
void replicationFeedReplicas(int dictid, robj **argv, int argc);

/* 1 while there is a replication stream to feed: this server is a primary
 * (not a replica: a replica passes its primary's stream on as it came) and
 * keeps a backlog, which exists once a replica ever attached. While 0,
 * propagation collects nothing (propagate.c). Written by replication.c. */
extern int repl_stream_active;
static inline int replicationStreamIsActive(void) {
    return repl_stream_active;
}

#endif
