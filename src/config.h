/* config.h - types the configuration subsystem shares with the rest of the
 * server. The option table itself is private to config.c; everything else
 * reaches configuration through the fields of `server` and the functions
 * declared under "config.c" in server.h. */
#ifndef VK_CONFIG_H
#define VK_CONFIG_H

#include <time.h>

/* One "save <seconds> <changes>" rule: snapshot when at least `changes`
 * writes happened and `seconds` have passed since the last save. */
struct saveparam {
    time_t seconds;
    int changes;
};

/* Values of enable-debug-command / enable-protected-configs. */
#define PROTECTED_ACTION_ALLOWED_NO 0
#define PROTECTED_ACTION_ALLOWED_YES 1
#define PROTECTED_ACTION_ALLOWED_LOCAL 2

/* Values of tls-auth-clients. */
#define TLS_CLIENT_AUTH_NO 0
#define TLS_CLIENT_AUTH_YES 1
#define TLS_CLIENT_AUTH_OPTIONAL 2

/* Values of supervised. */
#define SUPERVISED_NONE 0
#define SUPERVISED_AUTODETECT 1
#define SUPERVISED_SYSTEMD 2
#define SUPERVISED_UPSTART 3

/* Values of propagation-error-behavior. */
#define PROPAGATION_ERR_BEHAVIOR_IGNORE 0
#define PROPAGATION_ERR_BEHAVIOR_PANIC 1
#define PROPAGATION_ERR_BEHAVIOR_PANIC_ON_REPLICAS 2

/* Values of oom-score-adj ("yes" is relative), and the classes of
 * oom-score-adj-values. */
#define OOM_SCORE_ADJ_NO 0
#define OOM_SCORE_RELATIVE 2
#define OOM_SCORE_ABSOLUTE 3
#define CONFIG_OOM_PRIMARY 0
#define CONFIG_OOM_REPLICA 1
#define CONFIG_OOM_BGCHILD 2
#define CONFIG_OOM_COUNT 3

/* Values of appendfsync. */
#define AOF_FSYNC_NO 0
#define AOF_FSYNC_ALWAYS 1
#define AOF_FSYNC_EVERYSEC 2

/* Values of acl-pubsub-default. */
#define ACL_PUBSUB_RESETCHANNELS 0
#define ACL_PUBSUB_ALLCHANNELS 1

/* Values of cluster-preferred-endpoint-type. */
#define CLUSTER_ENDPOINT_TYPE_IP 0
#define CLUSTER_ENDPOINT_TYPE_HOSTNAME 1
#define CLUSTER_ENDPOINT_TYPE_UNKNOWN_ENDPOINT 2

#endif
