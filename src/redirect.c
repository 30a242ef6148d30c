/* redirect.c - standalone replicas redirecting clients to their primary.
 *
 * Valkey 8 lets a client declare, with CLIENT CAPA redirect, that it can
 * follow a redirect. From then on, when this server is a replica (outside
 * cluster mode, the only mode this server has), a data command from that
 * client is not run here: the reply is "-REDIRECT host:port", the address
 * of the primary as this replica knows it (its replicaof host and port),
 * and the client sends the command there. "Data command" means what the
 * command table flags write or readonly, judged by processCommand()'s
 * effective flags (multiEffectiveCommandFlags()): EVAL* and FCALL* by the
 * flags their script or function declares, EXEC by its whole queue.
 * Commands that are neither (PING, INFO, CLIENT, MULTI, a script without
 * a shebang...) run here as for any client. READONLY lets the client read
 * on the replica: then only its writes are redirected. Other clients see
 * no change (a write still gets -READONLY), and a primary redirects
 * nobody. Our primary's own client is never redirected.
 *
 * Transactions, as Valkey handles them: a command redirected while
 * queueing marks the transaction, whose EXEC then answers EXECABORT (the
 * client is expected to give it up and start over at the primary); EXEC of
 * a queue that would now be redirected (the server became a replica since
 * the commands were queued) drops the transaction and answers -REDIRECT.
 * multiCommandRedirected() (multi.c) does both.
 *
 * FAILOVER: while the old primary hands its role over
 * (failover-in-progress), it is already a replica but its target may not
 * be the primary yet, so a redirect could bounce back here. A command that
 * would be redirected then is held like a paused client (networking.c's
 * paused list) and processed again when replication.c ends the failover
 * and unpauses clients: it is redirected to the new primary then, or runs
 * if the failover was aborted. Writes sent earlier, while the failover
 * waited for the replica to catch up, were already held by FAILOVER's
 * implicit CLIENT PAUSE WRITE and go through the same check when resumed.
 *
 * Called from processCommand() (server.c) and the command table (CLIENT
 * CAPA in networking.c, READONLY and READWRITE in admin.c). Reads
 * server.primary_host/port and repl.failover_state; changes neither. */
#include "redirect.h"

#include <strings.h>

#include "multi.h"
#include "replication.h"

/* 1 if c's command is one a redirect-capable client must send to the
 * primary: a write, or a read unless the client sent READONLY. */
static int redirectCommandIsDataAccess(client *c) {
    uint64_t flags = multiEffectiveCommandFlags(c);
    if (flags & CMD_WRITE) return 1;
    return (flags & CMD_READONLY) && !(c->flags & CLIENT_READONLY);
}

/* See redirect.h. */
int redirectCommandIfNeeded(client *c) {
    if (!(c->capa & CLIENT_CAPA_REDIRECT) || server.primary_host == NULL) return 0;
    if (c->flags & CLIENT_PRIMARY) return 0;
    if (!redirectCommandIsDataAccess(c)) return 0;
    if (repl.failover_state == FAILOVER_IN_PROGRESS) {
        blockClientForPause(c);
        return 1;
    }
    c->cmd->rejected_calls++;
    multiCommandRedirected(c);
    addReplyErrorSds(c, sdscatprintf(sdsempty(), "-REDIRECT %s:%d", server.primary_host, server.primary_port));
    return 1;
}

/* ---------------------------------------------------------------------------
 * Commands (event loop, for the calling client)
 * ------------------------------------------------------------------------- */

/* See redirect.h. */
void clientCapaCommand(client *c) {
    for (int j = 2; j < c->argc; j++) {
        if (!strcasecmp(objectGetVal(c->argv[j]), "redirect")) c->capa |= CLIENT_CAPA_REDIRECT;
    }
    addReply(c, shared.ok);
}

/* See redirect.h. */
void readonlyCommand(client *c) {
    c->flags |= CLIENT_READONLY;
    addReply(c, shared.ok);
}

/* See redirect.h. */
void readwriteCommand(client *c) {
    c->flags &= ~CLIENT_READONLY;
    addReply(c, shared.ok);
}
