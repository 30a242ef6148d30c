/* commands.c - assembles the command table and answers questions about it.
 *
 * Each subsystem declares the commands it implements as an array of
 * struct serverCommand rows (terminated by a row whose name is NULL) next to
 * their implementation: t_string.c has stringCommands[], db.c
 * keyspaceCommands[], and so on. serverCommandTables lists those arrays;
 * serverPopulateCommandTable() (server.c) turns them into server.commands.
 * Adding a subsystem = one extern line and one entry below. */
#include "server.h"

extern struct serverCommand connectionCommands[];
extern struct serverCommand keyspaceCommands[];
extern struct serverCommand stringCommands[];
extern struct serverCommand listCommands[];
extern struct serverCommand setCommands[];
extern struct serverCommand hashCommands[];
extern struct serverCommand zsetCommands[];
extern struct serverCommand geoCommands[]; /* geo.c */
extern struct serverCommand streamCommands[];
extern struct serverCommand bitmapCommands[];
extern struct serverCommand expireCommands[];
extern struct serverCommand configCommands[];
extern struct serverCommand serverAdminCommands[];
extern struct serverCommand scriptingCommands[]; /* eval.c */
extern struct serverCommand functionCommands[];  /* functions.c */
extern struct serverCommand hyperloglogCommands[];
extern struct serverCommand sortCommands[];
extern struct serverCommand pubsubCommands[];      /* pubsub.c */
extern struct serverCommand transactionCommands[]; /* multi.c */
extern struct serverCommand dumpCommands[];        /* dump.c */
extern struct serverCommand snapshotCommands[];    /* snapshot.c */
extern struct serverCommand aofCommands[];         /* aof.c */
extern struct serverCommand replicationCommands[]; /* replication.c */
extern struct serverCommand migrateCommands[];     /* migrate.c */
extern struct serverCommand moduleCommands[];      /* module.c */
extern struct serverCommand aclCommands[];         /* acl.c */
extern struct serverCommand clusterCommands[];     /* cluster_cmd.c */

struct serverCommand *serverCommandTables[] = {
    connectionCommands, keyspaceCommands, stringCommands,      bitmapCommands,
    expireCommands,     configCommands,   serverAdminCommands, listCommands, setCommands, hashCommands, zsetCommands,
    geoCommands,         hyperloglogCommands, sortCommands,
    streamCommands, /* t_stream.c */
    scriptingCommands, functionCommands, /* eval.c, functions.c */
    pubsubCommands, transactionCommands, /* pubsub.c, multi.c */
    dumpCommands,                        /* dump.c */
    snapshotCommands,                    /* snapshot.c */
    aofCommands,                         /* aof.c */
    replicationCommands,                 /* replication.c */
    migrateCommands,                     /* migrate.c */
    moduleCommands,                      /* module.c */
    aclCommands,                         /* acl.c */
    clusterCommands,                     /* cluster_cmd.c */
    NULL,
};
