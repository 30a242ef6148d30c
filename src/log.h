/* log.h - the server's log, in Valkey's line format.
 *
 * Every subsystem (leaf libraries included) logs through serverLog(), so
 * there is exactly one place that knows where log lines go and how they look:
 *
 *     <pid>:<role> <dd Mon yyyy hh:mm:ss.mmm> <level-mark> <message>
 *
 * with role one of M (primary), S (replica), C (forked child), X (sentinel)
 * and the level mark '.' debug, '-' verbose, '*' notice, '#' warning. */
#ifndef VK_LOG_H
#define VK_LOG_H

#define LL_DEBUG 0
#define LL_VERBOSE 1
#define LL_NOTICE 2
#define LL_WARNING 3
#define LL_NOTHING 4
#define LL_RAW (1 << 10) /* OR'ed with a level: print the message bare. */

#define LOG_MAX_LEN 1024 /* Longer messages are truncated. */

/* Where the log goes and what passes. Set by config; read by serverLog(). */
typedef struct logConfig {
    int verbosity;       /* Lowest level that is printed (LL_*). */
    const char *logfile; /* "" means standard output. */
    int syslog_enabled;
    char role;           /* 'M', 'S', 'C' or 'X'. */
    int timestamps;      /* 0 only in tests that want stable output. */
} logConfig;

extern logConfig serverLogConfig;

void serverLog(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void serverLogRaw(int level, const char *msg);
/* Async-signal-safe variant for signal handlers and the crash report: no
 * stdio, no allocation, fixed buffer, writes straight to the log fd. */
void serverLogFromHandler(int level, const char *msg);
int logOpenForWrite(int *fd_out); /* Returns the fd to write to, C_ERR-ish -1. */

#endif
