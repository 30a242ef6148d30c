/* aof_check.c - valkey-check-aof: checks an append-only file and can cut
 * off a bad tail.
 *
 *   valkey-check-aof [--fix|--truncate-to-timestamp <unix time>] <file>
 *
 * <file> is a manifest (appenddirname/appendonly.aof.manifest: every file
 * it lists is checked, the base first) or one AOF file (an RDB base, or
 * commands, maybe after an RDB preamble). As in Valkey, valkey-check-aof
 * is the server binary under another name (a link made by the Makefile):
 * main() hands over to aofCheckMain() when argv[0] names the tool, after
 * initialising the dataset, so that an RDB base is checked by loading it
 * with the server's own RDB loader.
 *
 * The manifest is read with the server's own parser (aofManifestParse)
 * before any file it names is opened, so the tool refuses what the server
 * refuses: among others a name that is a path ("../x", "/etc/x"), which
 * would have the tool read, or with --fix truncate, a file outside the
 * manifest's directory.
 *
 * Commands are checked for their RESP framing (the server refuses unknown
 * commands and wrong numbers of arguments only when it loads), MULTI/EXEC
 * pairing and "#" annotations.
 * The first bad offset is reported; with --fix the last file (only it) is
 * truncated to its last complete command after asking; with
 * --truncate-to-timestamp the last file is cut before the first "#TS:"
 * annotation later than the given time. Exit status 0 when the AOF is
 * valid (or was fixed), 1 otherwise. Runs alone, no event loop. */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aof.h"
#include "rdb.h"

/* What checking one file found. */
typedef struct aofCheckResult {
    off_t size;
    off_t valid_up_to;   /* offset after the last complete command */
    long long valid_line; /* its line number */
    int truncated;       /* the end of file came in the middle of something */
    char error[256];     /* what is wrong, "" if nothing */
    off_t ts_cut;        /* --truncate-to-timestamp: where to cut, -1 for nowhere */
} aofCheckResult;

static long long check_ts_limit = -1;

/* A small buffered reader over FILE with line counting. */
typedef struct checkReader {
    FILE *fp;
    off_t pos;
    long long line;
} checkReader;

/* Reads a line ending in "\r\n" (at most 1024 bytes). 1, 0 at EOF before
 * any byte, -1 on EOF inside the line, -2 when not CRLF terminated. */
static int checkReadLine(checkReader *r, char *buf, size_t size) {
    if (fgets(buf, (int)size, r->fp) == NULL) return 0;
    size_t len = strlen(buf);
    r->pos += (off_t)len;
    if (len == 0 || buf[len - 1] != '\n') return feof(r->fp) ? -1 : -2;
    if (len < 2 || buf[len - 2] != '\r') return -2;
    buf[len - 2] = '\0';
    r->line++;
    return 1;
}

static void checkError(aofCheckResult *res, checkReader *r, const char *fmt, const char *detail) {
    char msg[200];
    snprintf(msg, sizeof(msg), fmt, detail);
    snprintf(res->error, sizeof(res->error), "0x%16llx: %s", (unsigned long long)r->pos, msg);
}

/* Checks one command at the reader's position. 1 ok (*is_multi / *is_exec
 * tell what it was), 0 clean end of file, -1 error (res filled). */
static int checkCommand(checkReader *r, aofCheckResult *res, int *is_multi, int *is_exec) {
    char line[1030];
    int ok;
    *is_multi = *is_exec = 0;
    for (;;) {
        off_t start = r->pos;
        ok = checkReadLine(r, line, sizeof(line));
        if (ok == 0) return 0;
        if (ok == -1) {
            res->truncated = 1;
            checkError(res, r, "%s", "Reached EOF before reading EOL for bulk string");
            return -1;
        }
        if (ok == -2) {
            checkError(res, r, "%s", "Expected \\r\\n at the end of the line");
            return -1;
        }
        if (line[0] != '#') break;
        long long ts;
        if (check_ts_limit >= 0 && res->ts_cut == -1 && sscanf(line, "#TS:%lld", &ts) == 1 && ts > check_ts_limit)
            res->ts_cut = start;
    }
    if (line[0] != '*') {
        char got[2] = {line[0], 0};
        checkError(res, r, "Expected prefix '*', got: '%s'", got);
        return -1;
    }
    long long argc;
    if (!string2ll(line + 1, strlen(line + 1), &argc) || argc < 1) {
        checkError(res, r, "%s", "Invalid number of arguments");
        return -1;
    }
    for (long long j = 0; j < argc; j++) {
        long long len;
        ok = checkReadLine(r, line, sizeof(line));
        if (ok <= 0) {
            res->truncated = ok >= -1;
            checkError(res, r, "%s", "Reached EOF before reading all the arguments");
            return -1;
        }
        if (line[0] != '$') {
            char got[2] = {line[0], 0};
            checkError(res, r, "Expected prefix '$', got: '%s'", got);
            return -1;
        }
        if (!string2ll(line + 1, strlen(line + 1), &len) || len < 0) {
            checkError(res, r, "%s", "Invalid bulk length");
            return -1;
        }
        char first[8] = {0};
        size_t want = (size_t)len, got = 0;
        while (got < want) {
            char chunk[4096];
            size_t n = fread(chunk, 1, want - got < sizeof(chunk) ? want - got : sizeof(chunk), r->fp);
            if (n == 0) break;
            if (j == 0 && got < sizeof(first) - 1) memcpy(first + got, chunk, n < sizeof(first) - 1 - got ? n : sizeof(first) - 1 - got);
            got += n;
        }
        r->pos += (off_t)got;
        char crlf[2];
        size_t n = got == want ? fread(crlf, 1, 2, r->fp) : 0;
        r->pos += (off_t)n;
        if (got < want || n < 2) {
            res->truncated = 1;
            checkError(res, r, "%s", "Reached EOF before reading EOL for bulk string");
            return -1;
        }
        if (crlf[0] != '\r' || crlf[1] != '\n') {
            checkError(res, r, "%s", "Expected \\r\\n after the bulk string");
            return -1;
        }
        r->line++;
        if (j == 0 && len == 5 && !strcasecmp(first, "multi")) *is_multi = 1;
        if (j == 0 && len == 4 && !strcasecmp(first, "exec")) *is_exec = 1;
    }
    return 1;
}

/* Checks the commands of fp from its current position (offset start). */
static void checkCommands(FILE *fp, off_t start, aofCheckResult *res) {
    checkReader r = {.fp = fp, .pos = start, .line = 1};
    off_t before_multi = start;
    long long before_multi_line = 1;
    int in_multi = 0, is_multi, is_exec, ok;
    res->valid_up_to = start;
    res->valid_line = 1;
    while ((ok = checkCommand(&r, res, &is_multi, &is_exec)) == 1) {
        if (is_multi) {
            if (in_multi) {
                checkError(res, &r, "%s", "Unexpected MULTI");
                return;
            }
            in_multi = 1;
            before_multi = res->valid_up_to;
            before_multi_line = res->valid_line;
        } else if (is_exec) {
            if (!in_multi) {
                checkError(res, &r, "%s", "Unexpected EXEC");
                return;
            }
            in_multi = 0;
        }
        res->valid_up_to = r.pos;
        res->valid_line = r.line;
    }
    if (ok == 0 && in_multi) {
        res->truncated = 1;
        checkError(res, &r, "%s", "Reached EOF before reading EXEC for MULTI");
    }
    if (in_multi) {
        res->valid_up_to = before_multi;
        res->valid_line = before_multi_line;
    }
}

/* Checks an RDB from fd's start with the server's loader; *end gets its
 * length. C_OK or C_ERR (the loader logged why). */
static int checkRdb(int fd, off_t *end) {
    rio r;
    lseek(fd, 0, SEEK_SET);
    rioInitFdReader(&r, fd);
    int ret = rdbLoadRioWithFlags(&r, RDBFLAGS_NONE);
    *end = (off_t)r.processed_bytes;
    rioRelease(&r);
    emptyData(-1, EMPTYDB_NO_FLAGS, NULL);
    functionsEmpty();
    return ret;
}

/* Checks one file (path) of the AOF. */
static int checkFile(const char *path, aofCheckResult *res, int *is_rdb) {
    memset(res, 0, sizeof(*res));
    res->ts_cut = -1;
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        printf("Cannot open file %s: %s, aborting...\n", path, strerror(errno));
        exit(1);
    }
    struct stat st;
    if (fstat(fileno(fp), &st) == 0) res->size = st.st_size;
    char magic[5];
    off_t start = 0;
    *is_rdb = fread(magic, 1, 5, fp) == 5 && memcmp(magic, "REDIS", 5) == 0;
    if (*is_rdb) {
        if (checkRdb(fileno(fp), &start) != C_OK) {
            snprintf(res->error, sizeof(res->error), "RDB preamble of %s is not valid", path);
            fclose(fp);
            return C_ERR;
        }
        printf("RDB preamble is OK, proceeding with AOF tail...\n");
    }
    fseeko(fp, start, SEEK_SET);
    checkCommands(fp, start, res);
    fclose(fp);
    return res->error[0] ? C_ERR : C_OK;
}

/* Asks on stdin; 1 for yes. */
static int checkAsk(void) {
    char buf[16];
    if (fgets(buf, sizeof(buf), stdin) == NULL) return 0;
    return buf[0] == 'y' || buf[0] == 'Y';
}

/* Reports one file's result; truncates the last file with fix. Returns 1
 * when the file is (now) valid. */
static int checkReport(const char *path, const char *name, aofCheckResult *res, int last, int fix) {
    if (res->ts_cut != -1 && last) {
        if (truncate(path, res->ts_cut) == -1) {
            printf("Failed to truncate AOF %s to timestamp %lld: %s\n", name, check_ts_limit, strerror(errno));
            return 0;
        }
        printf("Successfully truncated AOF %s to timestamp %lld\n", name, check_ts_limit);
        return 1;
    }
    if (res->ts_cut != -1) {
        printf("AOF %s has annotations after the timestamp but is not the last file: can't truncate it\n", name);
        return 0;
    }
    if (!res->error[0]) return 1;
    off_t diff = res->size - res->valid_up_to;
    printf("%s\n", res->error);
    printf("AOF analyzed: filename=%s, size=%lld, ok_up_to=%lld, ok_up_to_line=%lld, diff=%lld\n", name,
           (long long)res->size, (long long)res->valid_up_to, res->valid_line, (long long)diff);
    if (!fix) {
        printf("AOF %s is not valid. Use the --fix option to try fixing it.\n", name);
        return 0;
    }
    if (!last) {
        printf("AOF %s is not the last file: it can't be fixed\n", name);
        return 0;
    }
    printf("This will shrink the AOF %s from %lld bytes, with %lld bytes, to %lld bytes\n", name,
           (long long)res->size, (long long)diff, (long long)res->valid_up_to);
    printf("Continue? [y/N]: ");
    fflush(stdout);
    if (!checkAsk()) {
        printf("Aborting...\n");
        return 0;
    }
    if (truncate(path, res->valid_up_to) == -1) {
        printf("Failed to truncate AOF %s\n", name);
        return 0;
    }
    printf("Successfully truncated AOF %s\n", name);
    return 1;
}

/* Reads the manifest at path with the server's own parser, so that the
 * tool refuses what the server refuses (a name that is a path among them)
 * before it opens any file the manifest names. Returns the manifest, or
 * NULL when it cannot be opened or is not valid (printed). */
static aofManifest *checkReadManifest(const char *path) {
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        printf("Cannot open file %s: %s, aborting...\n", path, strerror(errno));
        return NULL;
    }
    aofManifestError err;
    aofManifest *m = aofManifestParse(fp, &err);
    fclose(fp);
    if (m == NULL) aofManifestErrorLog(&err);
    return m;
}

/* Checks one file the manifest lists, in dir; last when it is the last one
 * (the only one --fix may truncate). Returns 1 when it is (now) valid. */
static int checkManifestFile(const char *dir, aofInfo *ai, int last, int fix) {
    sds path = sdscatfmt(sdsempty(), "%s/%s", dir, ai->name);
    aofCheckResult res;
    int is_rdb;
    if (ai->type == AOF_FILE_BASE) {
        FILE *fp = fopen(path, "r");
        char magic[5] = {0};
        if (fp) {
            if (fread(magic, 1, 5, fp) != 5) magic[0] = 0;
            fclose(fp);
        }
        printf("Start to check BASE AOF (%s format).\n", memcmp(magic, "REDIS", 5) ? "AOF" : "RDB");
    }
    checkFile(path, &res, &is_rdb);
    int valid = checkReport(path, ai->name, &res, last, fix);
    if (valid && !res.error[0]) printf("%s AOF %s is valid\n", ai->type == AOF_FILE_BASE ? "BASE" : "INCR", ai->name);
    sdsfree(path);
    return valid;
}

/* Checks every file of a manifest, the base first. Exit status. */
static int checkMultiPart(const char *manifest, int fix) {
    printf("Start checking Multi Part AOF\n");
    aofManifest *m = checkReadManifest(manifest);
    if (m == NULL) return 1;
    char *copy = zstrdup(manifest);
    sds dir = sdsnew(dirname(copy));
    zfree(copy);
    int n = (m->base ? 1 : 0) + (int)listLength(m->incr), checked = 0, valid = 1;
    if (m->base) valid = checkManifestFile(dir, m->base, ++checked == n, fix);
    listIter li;
    listNode *ln;
    listRewind(m->incr, &li);
    while (valid && (ln = listNext(&li))) {
        if (ln == listFirst(m->incr)) printf("Start to check INCR files.\n");
        valid = checkManifestFile(dir, listNodeValue(ln), ++checked == n, fix);
    }
    if (valid) printf("All AOF files and manifest are valid\n");
    aofManifestFree(m);
    sdsfree(dir);
    return valid ? 0 : 1;
}

/* The tool's main(); see the top. Returns the exit status. */
int aofCheckMain(int argc, char **argv) {
    int fix = 0;
    const char *file = NULL;
    for (int j = 1; j < argc; j++) {
        if (!strcmp(argv[j], "--fix")) {
            fix = 1;
        } else if (!strcmp(argv[j], "--truncate-to-timestamp") && j + 1 < argc) {
            long long ts;
            if (!string2ll(argv[j + 1], strlen(argv[j + 1]), &ts) || ts < 0) {
                printf("Invalid timestamp: %s\n", argv[j + 1]);
                return 1;
            }
            check_ts_limit = ts;
            j++;
        } else if (file == NULL && argv[j][0] != '-') {
            file = argv[j];
        } else {
            file = NULL;
            break;
        }
    }
    if (file == NULL) {
        printf("Usage: %s [--fix|--truncate-to-timestamp $timestamp] <file.manifest|file.aof>\n", argv[0]);
        return 1;
    }
    serverLogConfig.verbosity = LL_WARNING; /* the RDB loader's notices are not the tool's output */
    setvbuf(stdout, NULL, _IOLBF, 0);       /* its lines and the log's (written directly) in order */
    size_t len = strlen(file);
    if (len > 9 && !strcmp(file + len - 9, ".manifest")) return checkMultiPart(file, fix);
    printf("Start checking Old-Style AOF\n");
    aofCheckResult res;
    int is_rdb;
    checkFile(file, &res, &is_rdb);
    if (!checkReport(file, file, &res, 1, fix)) return 1;
    if (!res.error[0]) printf("AOF %s is valid\n", file);
    return 0;
}
