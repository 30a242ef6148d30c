/* log.c - writes the server's log lines (see log.h for the format).
 *
 * The log file is opened and closed for every line, as Valkey does, so that
 * log rotation by renaming the file needs no signal. Messages above
 * LOG_MAX_LEN are cut. serverLogFromHandler() is the one entry that may run
 * inside a signal handler: it formats with no stdio and no allocation. */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

logConfig serverLogConfig = {
    .verbosity = LL_NOTICE,
    .logfile = "",
    .syslog_enabled = 0,
    .role = 'M',
    .timestamps = 1,
};

static const char LEVEL_MARKS[] = ".-*#";
static const int SYSLOG_LEVELS[] = {LOG_DEBUG, LOG_INFO, LOG_NOTICE, LOG_WARNING};

/* Opens the configured log destination. Returns a fd the caller must close
 * when it is not STDOUT_FILENO, or -1 if the file cannot be opened. */
int logOpenForWrite(int *fd_out) {
    const char *f = serverLogConfig.logfile;
    int fd = (f == NULL || f[0] == '\0') ? STDOUT_FILENO : open(f, O_APPEND | O_CREAT | O_WRONLY, 0644);
    *fd_out = fd;
    return fd;
}

void serverLogRaw(int level, const char *msg) {
    int raw = level & LL_RAW;
    level &= 0xff;
    if (level < serverLogConfig.verbosity || level > LL_WARNING) return;

    int fd;
    if (logOpenForWrite(&fd) == -1) return;

    char line[LOG_MAX_LEN + 128];
    int len;
    if (raw) {
        len = snprintf(line, sizeof(line), "%s", msg);
    } else {
        struct timeval tv;
        char when[64];
        gettimeofday(&tv, NULL);
        struct tm tm;
        localtime_r(&tv.tv_sec, &tm);
        size_t off = strftime(when, sizeof(when), "%d %b %Y %H:%M:%S.", &tm);
        snprintf(when + off, sizeof(when) - off, "%03d", (int)(tv.tv_usec / 1000));
        len = snprintf(line, sizeof(line), "%d:%c %s %c %s\n", (int)getpid(), serverLogConfig.role, when,
                       LEVEL_MARKS[level], msg);
    }
    if (len > (int)sizeof(line) - 1) len = sizeof(line) - 1;
    if (raw && len > 0 && line[len - 1] != '\n' && len < (int)sizeof(line) - 1) line[len++] = '\n';
    ssize_t ignored = write(fd, line, len);
    (void)ignored;
    if (fd != STDOUT_FILENO) close(fd);
    if (serverLogConfig.syslog_enabled) syslog(SYSLOG_LEVELS[level], "%s", msg);
}

void serverLog(int level, const char *fmt, ...) {
    if ((level & 0xff) < serverLogConfig.verbosity) return;
    char msg[LOG_MAX_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    serverLogRaw(level, msg);
}

/* Appends s to buf (capacity cap, current length *len) without libc stdio. */
static void appendStr(char *buf, size_t cap, size_t *len, const char *s) {
    while (*s && *len < cap - 1) buf[(*len)++] = *s++;
}

static void appendInt(char *buf, size_t cap, size_t *len, long v) {
    char tmp[24];
    int n = 0;
    unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
    do {
        tmp[n++] = '0' + u % 10;
        u /= 10;
    } while (u);
    if (v < 0 && *len < cap - 1) buf[(*len)++] = '-';
    while (n && *len < cap - 1) buf[(*len)++] = tmp[--n];
}

void serverLogFromHandler(int level, const char *msg) {
    if ((level & 0xff) < serverLogConfig.verbosity) return;
    int fd;
    int saved = errno;
    if (logOpenForWrite(&fd) == -1) return;
    char line[LOG_MAX_LEN];
    size_t len = 0;
    appendInt(line, sizeof(line), &len, (long)getpid());
    appendStr(line, sizeof(line), &len, ":signal-handler (");
    appendInt(line, sizeof(line), &len, (long)time(NULL));
    appendStr(line, sizeof(line), &len, ") ");
    appendStr(line, sizeof(line), &len, msg);
    appendStr(line, sizeof(line), &len, "\n");
    ssize_t ignored = write(fd, line, len);
    (void)ignored;
    if (fd != STDOUT_FILENO) close(fd);
    errno = saved;
}
