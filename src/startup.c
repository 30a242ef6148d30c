/* startup.c - what the server does to its own process when it starts, and
 * when the options behind it change.
 *
 *   logStartupBanner()   the ASCII-art logo (ours; like Valkey's it names
 *                        the version, mode, port and " PID: <pid>", which
 *                        tools and test harnesses wait for) with
 *                        always-show-logo yes or when logging to a
 *                        terminal, else Valkey's one-line "Running
 *                        mode=..." notice;
 *   serverSetProcTitle() the command line ps/top show, from
 *                        proc-title-template (set-proc-title yes only);
 *   setOOMScoreAdj()     /proc/self/oom_score_adj from oom-score-adj and
 *                        oom-score-adj-values;
 *   applyProcessSettings() disable-thp, jemalloc-bg-thread and the OOM
 *                        score at start-up;
 *   applyUnixSocketGroup() chowns the Unix socket to unixsocketgroup;
 *   applySocketMark()    marks TCP and TLS listening sockets (SO_MARK) with
 *                        socket-mark-id, each time they are opened;
 *   setCpuAffinity()     server-cpulist (main thread, at start-up),
 *                        bio-cpulist (the lazy-free thread), bgsave-cpulist
 *                        (a background save child).
 *
 * main() (server.c) calls these once the configuration is loaded; the
 * apply functions of config.c call serverSetProcTitle() and
 * setOOMScoreAdj() again on CONFIG SET, and a background save child calls
 * them for itself (snapshot.c). Main thread (or that child) only. */
#include "server.h"
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <jemalloc/jemalloc.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

extern char **environ;

/* ---------------------------------------------------------------------------
 * Start-up banner
 * ------------------------------------------------------------------------- */

/* A key lying on its side: our own drawing. Filled in with version, bits,
 * mode, port and pid. */
static const char *logoFormat =
    "\n"
    "        .-----.\n"
    "       /  .-.  \\_______________________     Valkey-compatible server %s (%d bit)\n"
    "      |  (   )  ____   ____   ____   __|    Running in %s mode\n"
    "       \\  '-'  /    |_|    |_|    |_|       Port: %d\n"
    "        '-----'                             PID: %ld\n"
    "                                            valkey-rdma: RESP over TCP, TLS, Unix sockets and RDMA\n"
    "\n";

/* Logs the logo, or the one-line notice Valkey prints instead. The logo
 * goes out with always-show-logo yes, or when the log is standard output
 * on a terminal and syslog is off, as in Valkey. */
void logStartupBanner(void) {
    const char *mode = server.cluster_enabled ? "cluster" : "standalone";
    int on_tty = (server.logfile == NULL || server.logfile[0] == '\0') && isatty(fileno(stdout));
    if (server.always_show_logo || (!server.syslog_enabled && on_tty)) {
        char *buf = zmalloc(1024);
        snprintf(buf, 1024, logoFormat, VALKEY_VERSION, (int)(sizeof(long) * 8), mode, server.port,
                 (long)getpid());
        serverLogRaw(LL_NOTICE | LL_RAW, buf);
        zfree(buf);
    } else {
        serverLog(LL_NOTICE, "Running mode=%s, port=%d.", mode, server.port);
    }
}

/* ---------------------------------------------------------------------------
 * Process title
 * ------------------------------------------------------------------------- */

/* The title is written over the bytes of argv (and of the environment
 * strings that follow them, once the environment is moved to the heap), so
 * it can be longer than the original command line. */
static char *title_area = NULL;
static size_t title_room = 0; /* bytes usable, the final NUL excluded */
static char *argv0_copy = NULL;

static void procTitleInit(void) {
    char **argv = server.exec_argv;
    if (title_area || argv == NULL || argv[0] == NULL) return;
    argv0_copy = zstrdup(argv[0]);
    char *start = argv[0], *end = argv[0] + strlen(argv[0]);
    for (int j = 1; argv[j] && argv[j] == end + 1; j++) end = argv[j] + strlen(argv[j]);
    /* Take over the environment strings that directly follow. */
    int envc = 0;
    while (environ && environ[envc]) envc++;
    if (envc && environ[0] == end + 1) {
        char **copy = zmalloc(sizeof(char *) * (envc + 1));
        for (int j = 0; j < envc; j++) {
            if (environ[j] == end + 1) end = environ[j] + strlen(environ[j]);
            copy[j] = zstrdup(environ[j]);
        }
        copy[envc] = NULL;
        environ = copy;
    }
    title_area = start;
    title_room = (size_t)(end - start);
}

/* Expands proc-title-template; {title} is `title`. Returns a new sds. */
static sds expandProcTitle(const char *tmpl, const char *title) {
    sds out = sdsempty();
    for (const char *p = tmpl; *p; p++) {
        const char *end = (*p == '{') ? strchr(p, '}') : NULL;
        if (end == NULL) {
            out = sdscatlen(out, p, 1);
            continue;
        }
        sds var = sdsnewlen(p + 1, (size_t)(end - p - 1));
        if (!strcmp(var, "title")) {
            out = sdscat(out, title);
        } else if (!strcmp(var, "listen-addr")) {
            if (server.port || server.tls_port)
                out = sdscatprintf(out, "%s:%d", server.bindaddr_count ? server.bindaddr[0] : "*",
                                   server.port ? server.port : server.tls_port);
            else
                out = sdscat(out, server.unixsocket ? server.unixsocket : "");
        } else if (!strcmp(var, "server-mode")) {
            if (server.cluster_enabled) out = sdscat(out, "[cluster]"); /* standalone: nothing, as in Valkey */
        } else if (!strcmp(var, "port")) {
            out = sdscatfmt(out, "%i", server.port);
        } else if (!strcmp(var, "tls-port")) {
            out = sdscatfmt(out, "%i", server.tls_port);
        } else if (!strcmp(var, "unixsocket")) {
            out = sdscat(out, server.unixsocket ? server.unixsocket : "");
        } else if (!strcmp(var, "config-file")) {
            out = sdscat(out, server.configfile ? server.configfile : "");
        }
        sdsfree(var);
        p = end;
    }
    return sdstrim(out, " ");
}

/* Sets the process title from proc-title-template; title NULL means the
 * name the server was executed as. Does nothing with set-proc-title no. */
void serverSetProcTitle(const char *title) {
    if (!server.set_proc_title || server.proc_title_template == NULL) return;
    procTitleInit();
    if (title_area == NULL) return;
    sds t = expandProcTitle(server.proc_title_template, title ? title : argv0_copy);
    size_t len = sdslen(t);
    if (len > title_room) len = title_room;
    memcpy(title_area, t, len);
    memset(title_area + len, 0, title_room - len + 1);
    sdsfree(t);
}

/* ---------------------------------------------------------------------------
 * OOM score
 * ------------------------------------------------------------------------- */

static int oom_base_read = 0;
static int oom_changed = 0;

static int readOOMScoreAdj(int *out) {
    FILE *fp = fopen("/proc/self/oom_score_adj", "r");
    if (fp == NULL) return C_ERR;
    int ok = fscanf(fp, "%d", out) == 1;
    fclose(fp);
    return ok ? C_OK : C_ERR;
}

/* Writes our oom_score_adj for process_class (CONFIG_OOM_*; -1: primary
 * or replica, whichever we are): the class's value, added to the score the
 * process started with when oom-score-adj is yes/relative, and clamped to
 * [-1000, 1000]. With oom-score-adj no, puts back the starting score if we
 * changed it. Returns C_OK, or C_ERR with the reason logged. */
int setOOMScoreAdj(int process_class) {
    if (!oom_base_read) {
        if (readOOMScoreAdj(&server.oom_score_adj_base) == C_ERR) {
            serverLog(LL_WARNING, "Unable to read oom_score_adj: %s", strerror(errno));
            return C_ERR;
        }
        oom_base_read = 1;
    }
    if (process_class == -1) process_class = server.primary_host ? CONFIG_OOM_REPLICA : CONFIG_OOM_PRIMARY;

    int val;
    if (server.oom_score_adj == OOM_SCORE_ADJ_NO) {
        if (!oom_changed) return C_OK;
        val = server.oom_score_adj_base;
    } else {
        val = server.oom_score_adj_values[process_class];
        if (server.oom_score_adj != OOM_SCORE_ABSOLUTE) val += server.oom_score_adj_base;
        if (val > 1000) val = 1000;
        if (val < -1000) val = -1000;
    }

    FILE *fp = fopen("/proc/self/oom_score_adj", "w");
    if (fp == NULL) {
        serverLog(LL_WARNING, "Unable to write oom_score_adj: %s", strerror(errno));
        return C_ERR;
    }
    int ok = fprintf(fp, "%d", val) > 0;
    if (fclose(fp) != 0) ok = 0;
    if (!ok) {
        serverLog(LL_WARNING, "Unable to write oom_score_adj (%d): %s", val, strerror(errno));
        return C_ERR;
    }
    oom_changed = server.oom_score_adj != OOM_SCORE_ADJ_NO;
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * Other process settings
 * ------------------------------------------------------------------------- */

/* server-cpulist, disable-thp, jemalloc-bg-thread and oom-score-adj, once
 * at start-up. */
void applyProcessSettings(void) {
    setCpuAffinity(server.server_cpulist);
    if (server.disable_thp && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == -1)
        serverLog(LL_WARNING, "Failed to disable transparent huge pages: %s", strerror(errno));
    bool on = server.jemalloc_bg_thread != 0;
    mallctl("background_thread", NULL, NULL, &on, sizeof(on));
    if (server.oom_score_adj != OOM_SCORE_ADJ_NO) setOOMScoreAdj(-1);
}

/* Gives the Unix socket to unixsocketgroup (a name or a numeric gid).
 * Returns C_OK (also when there is nothing to do), C_ERR with the reason
 * logged. */
int applyUnixSocketGroup(void) {
    if (server.unixsocket == NULL || server.unixsocketgroup == NULL) return C_OK;
    gid_t gid;
    struct group *gr = getgrnam(server.unixsocketgroup);
    long long num;
    if (gr) {
        gid = gr->gr_gid;
    } else if (string2ll(server.unixsocketgroup, strlen(server.unixsocketgroup), &num) && num >= 0) {
        gid = (gid_t)num;
    } else {
        serverLog(LL_WARNING, "Failed to set group of the unix socket %s: unknown group '%s'", server.unixsocket,
                  server.unixsocketgroup);
        return C_ERR;
    }
    if (chown(server.unixsocket, (uid_t)-1, gid) == -1) {
        serverLog(LL_WARNING, "Failed to set group of the unix socket %s to '%s': %s", server.unixsocket,
                  server.unixsocketgroup, strerror(errno));
        return C_ERR;
    }
    return C_OK;
}

/* Sets SO_MARK = socket-mark-id on the listening sockets of a TCP or TLS
 * listener just opened (a no-op for 0 and for other transports). Returns
 * C_OK, or C_ERR with the reason logged (the mark needs CAP_NET_ADMIN). */
int applySocketMark(connListener *listener) {
    if (server.socket_mark_id == 0) return C_OK;
    if (listener->ct != connectionTypeTcp() && listener->ct != connTypeGetByName(CONN_NAME_TLS)) return C_OK;
    unsigned int mark = server.socket_mark_id;
    for (int j = 0; j < listener->count; j++) {
        if (setsockopt(listener->fd[j], SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) == -1) {
            serverLog(LL_WARNING, "Failed to set socket mark id %u on a listening socket: %s", mark,
                      strerror(errno));
            return C_ERR;
        }
    }
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * CPU affinity
 * ------------------------------------------------------------------------- */

/* Parses a CPU list in taskset's syntax: comma-separated CPUs or ranges,
 * a range optionally with a stride ("0-7:2" is 0,2,4,6). Fills set when
 * not NULL. Returns 1 if the list is valid and names at least one CPU. */
static int cpuListParse(const char *list, cpu_set_t *set) {
    if (set) CPU_ZERO(set);
    int any = 0;
    const char *p = list;
    while (*p) {
        char *end;
        long lo = strtol(p, &end, 10), hi, stride = 1;
        if (end == p || lo < 0) return 0;
        hi = lo;
        p = end;
        if (*p == '-') {
            hi = strtol(p + 1, &end, 10);
            if (end == p + 1 || hi < lo) return 0;
            p = end;
            if (*p == ':') {
                stride = strtol(p + 1, &end, 10);
                if (end == p + 1 || stride < 1) return 0;
                p = end;
            }
        }
        if (hi >= CPU_SETSIZE) return 0;
        for (long cpu = lo; cpu <= hi; cpu += stride) {
            if (set) CPU_SET((int)cpu, set);
            any = 1;
        }
        if (*p == ',') p++;
        else if (*p != '\0') return 0;
    }
    return any;
}

/* Returns 1 if cpulist is "" or a valid CPU list (for config checks). */
int cpuListIsValid(const char *cpulist) {
    return cpulist[0] == '\0' || cpuListParse(cpulist, NULL);
}

/* Binds the calling thread (and what it creates afterwards) to the CPUs
 * of cpulist (server-cpulist, bio-cpulist, bgsave-cpulist); NULL or ""
 * leaves the affinity alone. A failure is logged, not fatal. Any thread. */
void setCpuAffinity(const char *cpulist) {
    cpu_set_t set;
    if (cpulist == NULL || cpulist[0] == '\0' || !cpuListParse(cpulist, &set)) return;
    if (sched_setaffinity(0, sizeof(set), &set) == -1)
        serverLog(LL_WARNING, "Failed to set CPU affinity to %s: %s", cpulist, strerror(errno));
}
