/* redirect.h - a standalone replica sends clients able to follow it to its
 * primary: CLIENT CAPA redirect, READONLY / READWRITE, and the -REDIRECT
 * check processCommand() makes (redirect.c). The per-client state is two
 * bits: CLIENT_CAPA_REDIRECT in c->capa and CLIENT_READONLY in c->flags
 * (server.h, beside the client structure that carries them). */
#ifndef VK_REDIRECT_H
#define VK_REDIRECT_H

#include "server.h"

/* Called by processCommand() once the command is known to be authorized
 * (after the NOAUTH, ACL and no-multi checks), before anything that could
 * run or queue it. Returns 1 when it took charge of c's command: c got
 * "-REDIRECT host:port" (the replicaof address of this replica), or, while
 * a FAILOVER is handing the primary role over (failover-in-progress), c is
 * held like a paused client and the command is processed again when the
 * failover ends (redirected then, since this server is a replica by then,
 * or run if the failover was aborted). Returns 0 when the command goes on
 * through processCommand(). Event loop, for c's own command. */
int redirectCommandIfNeeded(client *c);

/* CLIENT CAPA capability [capability ...]: declares what the connection
 * can handle; "redirect" (any case) is the one known, others are ignored
 * as Valkey ignores them. Always replies OK. */
void clientCapaCommand(client *c);

/* READONLY: a redirect-capable client may read on this replica (only its
 * writes are redirected). READWRITE undoes it; RESET too. Both reply OK,
 * on a primary as on a replica, as Valkey 8 does outside cluster mode. */
void readonlyCommand(client *c);
void readwriteCommand(client *c);

#endif
