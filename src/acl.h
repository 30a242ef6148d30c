/* acl.h - users, their permissions and authentication (acl.c).
 *
 * A client runs as a user (client->user): the `default` user until it
 * authenticates as another one, or NULL for the server's own clients (our
 * primary's link, the script client), which are never checked. */
#ifndef ACL_H
#define ACL_H

#include "server.h"

typedef struct user user;

/* What a permission check found, in increasing order of relevance: when
 * no selector of a user allows a command, the most relevant denial is
 * reported. */
#define ACL_OK 0
#define ACL_DENIED_CMD 1
#define ACL_DENIED_KEY 2
#define ACL_DENIED_AUTH 3
#define ACL_DENIED_CHANNEL 4

/* Where a denied command ran, for ACL LOG. */
#define ACL_LOG_CTX_TOPLEVEL 0
#define ACL_LOG_CTX_MULTI 1
#define ACL_LOG_CTX_LUA 2

/* Creates the `default` user (on, nopass, every permission). Called once
 * at start-up after the command table is built and before the
 * configuration is read. */
void aclInit(void);

/* Applies the `user` lines of the configuration file, or loads `aclfile`.
 * Called once after the configuration was read; on an error logs it and
 * exits (as Valkey refuses to start). */
void aclLoadConfiguredUsers(void);

/* Checks a `user <name> <rules...>` configuration line (argv without the
 * word "user") and keeps it for aclLoadConfiguredUsers() (argv is copied).
 * Returns NULL, or the error for the config parser to report ("Error in
 * user declaration '<rule>': <why>"), a new sds. Config-file parser only. */
sds aclStoreConfigUser(sds *argv, int argc);

/* Writes the stored `user` lines for CONFIG REWRITE: appends one line per
 * user to buf and returns it (an aclfile keeps them instead: nothing). */
sds aclRewriteConfigUsers(sds buf);

/* The text ACL SAVE writes to the aclfile: one `user` line per user, as
 * ACL LIST shows it. Returns a new sds. Event loop. */
sds aclUsersFileText(void);

/* Reads text (len bytes) as the contents of an aclfile, as ACL LOAD does:
 * if every line is valid its users replace the live ones (clients of
 * dropped users are disconnected). Returns NULL, or the error ACL LOAD
 * replies, naming the file as name (a new sds; nothing changed then).
 * Event loop; the aclfile fuzz target calls it directly. */
sds aclLoadUsersText(const char *text, size_t len, const char *name);

/* requirepass changed: the default user gets that password only ("" or
 * NULL: nopass). Config setter; any time. */
void aclUpdateDefaultUserPassword(sds password);

/* 1 if the default user needs no password (nopass and on): unauthenticated
 * clients then run as it, and protected mode applies. */
int aclDefaultUserIsOpen(void);

/* Sets up a new or RESET client's identity: the default user, already
 * authenticated when that user needs no password. */
void aclClientInit(client *c);

/* The name of c's user ("default" for clients without one). */
const char *aclClientUserName(client *c);

/* 1 if c runs as the user named name (clients of the server itself run as
 * `default`). Returns -1 when no such user exists. */
int aclClientIsUser(client *c, const char *name);

/* AUTH/HELLO: checks username (NULL: "default") and password. On success
 * c runs as that user and C_OK is returned; on failure C_ERR, the failure
 * is counted and logged in ACL LOG. */
int aclAuthenticate(client *c, robj *username, robj *password);

/* Checks whether c's user may run c->cmd with c->argv. Returns ACL_OK or an
 * ACL_DENIED_* code with *errpos set to the argv index of the key or
 * channel refused. Clients without a user always pass. */
int aclCheckClientCommand(client *c, int *errpos);

/* The same check for an explicit user, command and arguments (scripts
 * check their caller's user with it). u NULL always passes. */
int aclCheckCommand(user *u, struct serverCommand *cmd, robj **argv, int argc, int *errpos);

/* c's user, or NULL. */
user *aclClientUser(client *c);

/* 1 if c (a script's caller for the script client) may read every key
 * with the command it is running: one selector that allows c->cmd has
 * allkeys or a readable "*" pattern. For SORT BY/GET, whose keys come
 * from patterns. */
int aclClientReadsAnyKey(client *c);

/* 1 if c's user has the skip-sanitize-payload flag (for
 * sanitize-dump-payload clients: RESTORE payloads of such users are not
 * deep-checked), 0 otherwise (also for clients without a user). */
int aclClientSkipsSanitizePayload(client *c);

/* Builds the message of a denial, as Valkey words it: "User <name> has no
 * permissions to run the '<cmd>' command", "No permissions to access a
 * key" (verbose: "User <name> has no permissions to access the '<k>' key"),
 * the same for channels. Returns a new sds the caller frees. */
sds aclDenialMessage(int result, user *u, struct serverCommand *cmd, robj **argv, int errpos, int verbose);

/* Records a denial in ACL LOG and the INFO counters. context is
 * ACL_LOG_CTX_*; for ACL_DENIED_AUTH object is the username tried. */
void aclLogDenial(client *c, int result, int context, struct serverCommand *cmd, robj **argv, int errpos,
                  const char *username);

/* processCommand()'s check: returns C_OK if c may run c->cmd; otherwise
 * logs the denial, puts the NOPERM error in *err (a new sds, without the
 * leading '-') and returns C_ERR. */
int aclCheckClientOrError(client *c, int context, sds *err);

/* INFO stats counters. */
long long aclDeniedCount(int result);
void aclResetStats(void);

#endif
