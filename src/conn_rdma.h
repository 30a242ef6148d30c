/* conn_rdma.h - what the RDMA transport offers beyond connection.h.
 *
 * Everything else reaches RDMA connections through connection.h like any
 * transport. The replication snapshot region (repl_rdma.c) needs two more
 * things that only RDMA has: memory exposed for one-sided READ to the peer
 * of one connection (registered on that connection's own protection
 * domain, so no other connection can use the key, whoever learns it), and
 * READs of such memory at the peer. Event-loop thread only; a forked child
 * never calls these. Only built with USE_RDMA. */
#ifndef VK_CONN_RDMA_H
#define VK_CONN_RDMA_H

#include <stddef.h>
#include <stdint.h>

#include "connection.h"

/* 1 if conn is an RDMA connection. */
int connIsRdma(connection *conn);

/* Registers len bytes at addr for remote READ (and nothing else) by the
 * peer of conn. Returns a handle for connRdmaUnregister() and sets *rkey,
 * or NULL (errno) if conn is not a live RDMA connection or the
 * registration failed. Registrations left at close are released with it. */
void *connRdmaExpose(connection *conn, void *addr, size_t len, uint32_t *rkey);
/* Registers len bytes at addr as the local target of our READs on conn.
 * Returns a handle or NULL. */
void *connRdmaRegisterLocal(connection *conn, void *addr, size_t len);
/* Releases a registration of either kind (no-op once conn is closed). */
void connRdmaUnregister(connection *conn, void *handle);

/* Posts a READ of len bytes at the peer's raddr/rkey into local (inside the
 * registration local_handle). Returns 1 posted, 0 no room now (collect
 * completions first), -1 if conn failed (connGetLastError()). */
int connRdmaPostRead(connection *conn, void *local_handle, void *local, uint64_t raddr, uint32_t rkey, uint32_t len,
                     uint64_t tag);
/* Polls conn and moves up to max tags of completed READs into tags.
 * Returns how many, or -1 if conn failed (a READ the peer refused, a
 * broken link). Received stream bytes stay for connRead(). */
int connRdmaReadsDone(connection *conn, uint64_t *tags, int max);

#endif
