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

#endif
