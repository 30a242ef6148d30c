/* slowlog.h - the slow log: commands that ran longer than
 * slowlog-log-slower-than microseconds, newest first, at most
 * slowlog-max-len entries. State lives in server.slowlog (a list of
 * slowlogEntry*, head = newest) and server.slowlog_entry_id. */
#ifndef VK_SLOWLOG_H
#define VK_SLOWLOG_H

#include "server.h"

#define SLOWLOG_ENTRY_MAX_ARGC 32    /* Arguments kept per entry. */
#define SLOWLOG_ENTRY_MAX_STRING 128 /* Bytes kept per argument. */

/* One logged command. Owns argv (and every object in it) and the sds. */
typedef struct slowlogEntry {
    robj **argv;
    int argc;
    long long id;       /* Unique, increasing; survives SLOWLOG RESET. */
    long long duration; /* Microseconds. */
    time_t time;        /* Unix time the command finished. */
    sds cname;          /* Client name, "" if none. */
    sds peerid;         /* Client address "ip:port". */
} slowlogEntry;

void slowlogInit(void);
void slowlogPushEntryIfNeeded(client *c, robj **argv, int argc, long long duration);
void slowlogReset(void);
void slowlogTrim(void); /* CONFIG SET slowlog-max-len */
void slowlogCommand(client *c);

#endif
