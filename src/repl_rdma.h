/* repl_rdma.h - full sync by one-sided RDMA READ of a snapshot region.
 *
 * The third replSnapshotMethod (after "disk" and "socket" in
 * replication.c): for a replica on an RDMA link that said "REPLCONF capa
 * rdma-read", a primary with repl-rdma-snapshot yes has a child write the
 * RDB into a ring of shared-memory segments; the parent exposes each
 * completed segment for remote READ on that replica's link only and
 * announces it there; the replica READs the segments and loads them as
 * they arrive, with no file on either side. The announcement protocol is
 * described at the top of repl_rdma.c and in docs/rdma.md. */
#ifndef VK_REPL_RDMA_H
#define VK_REPL_RDMA_H

#include "replication.h"

/* The payload header a region sync opens with, then its version. */
#define REPL_RDMA_HEADER "$RDMA-SNAPSHOT:"
#define REPL_RDMA_VERSION 1

/* Primary side. */
extern replSnapshotMethod replRdmaRegionMethod;
/* 1 if c's full sync is served by the region (see the top). */
int replRdmaServes(client *c);
/* REPLCONF rdma-read-done <seq>: c finished the segments up to seq. */
void replRdmaReadDone(client *c, robj *seq);
/* Drops replicas that stopped reading for repl-timeout (replication cron). */
void replRdmaCron(void);
/* The region's lines for INFO replication; bytes it maps (used_memory). */
sds replRdmaCatInfo(sds info);
size_t replRdmaRegionBytes(void);

/* DEBUG REPL-RDMA-BAD-CHECKSUM: announce a wrong CRC (tests). */
extern int replRdmaDebugBadChecksum;

/* Replica side. */
/* 1 if we can READ a region over conn (REPLCONF capa rdma-read). */
int replRdmaCanRead(connection *conn);
/* Prepares to read a region over conn after its header. C_OK / C_ERR. */
int replRdmaLoadBegin(connection *conn);
/* rio function-reader callback over the region (ctx: the connection). */
ssize_t replRdmaRead(void *ctx, void *buf, size_t len);
/* After the RDB loaded: C_OK if the whole region was read and its
 * checksum matches (logged otherwise). */
int replRdmaLoadFinish(void);
/* Releases what replRdmaLoadBegin() set up (success or not). */
void replRdmaLoadEnd(void);

#endif
