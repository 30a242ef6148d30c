/* fuzz_config.c - libFuzzer target for the configuration file parser
 * (config.c: line splitting, quoting, comments, every directive's value
 * parser: numbers with units, percentages, enums and flag lists, save
 * points, client output buffer limits, bind lists, rename-command, ...).
 *
 * Input: the text of a configuration file. It is loaded over the current
 * values as start-up loads a file (loadServerConfigText, which reports
 * the error start-up would print and exit with). Whatever the outcome,
 * every option is then written out as CONFIG REWRITE writes it; that text
 * must load back without error and, written out again, give the same
 * text. Two directives are dropped before loading because they reach
 * outside the process: include (reads files; /dev/zero would never end)
 * and dir (changes the working directory). The command table is restored
 * after each input (rename-command edits it). */
#include "fuzz_server.h"

static int ncommands;
static sds *command_names;
static struct serverCommand **commands;

/* Called by libFuzzer once, before the first input: sets the server up.
 * Returns 0. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzzServerInit("loglevel warning");
    ncommands = (int)dictSize(server.commands);
    command_names = zmalloc(sizeof(sds) * ncommands);
    commands = zmalloc(sizeof(*commands) * ncommands);
    dictIterator *di = dictGetIterator(server.commands);
    dictEntry *de;
    int j = 0;
    while ((de = dictNext(di)) != NULL) {
        command_names[j] = sdsdup(dictGetKey(de));
        commands[j++] = dictGetVal(de);
    }
    dictReleaseIterator(di);
    return 0;
}

static void restoreCommandTable(void) {
    if ((int)dictSize(server.commands) == ncommands) {
        int same = 1;
        for (int j = 0; j < ncommands && same; j++) same = dictFetchValue(server.commands, command_names[j]) == commands[j];
        if (same) return;
    }
    dictEmpty(server.commands, NULL);
    for (int j = 0; j < ncommands; j++) dictAdd(server.commands, sdsdup(command_names[j]), commands[j]);
}

/* Comments out the lines whose directive is include or dir. */
static sds dropOutsideDirectives(sds text) {
    int n;
    sds *lines = sdssplitlen(text, (ssize_t)sdslen(text), "\n", 1, &n);
    sds out = sdsempty();
    for (int i = 0; i < n; i++) {
        int argc;
        sds trimmed = sdstrim(sdsdup(lines[i]), " \t\r\n");
        sds *argv = sdssplitargs(trimmed, &argc);
        int drop = argv && argc > 0 && (!strcasecmp(argv[0], "include") || !strcasecmp(argv[0], "dir"));
        if (argv) sdsfreesplitres(argv, argc);
        sdsfree(trimmed);
        if (drop) out = sdscat(out, "#");
        out = sdscatsds(out, lines[i]);
        out = sdscat(out, "\n");
    }
    sdsfreesplitres(lines, n);
    sdsfree(text);
    return out;
}

/* Called by libFuzzer for each input (data is only read, owned by
 * libFuzzer). Returns 0; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (memchr(data, '\0', size)) return 0; /* config text is a C string */
    sds text = dropOutsideDirectives(sdsnewlen(data, size));
    sds err = NULL;
    if (loadServerConfigText(text, &err) != C_OK) sdsfree(err);
    sdsfree(text);
    restoreCommandTable();

    sds dump = configRewriteAll(sdsempty());
    if (loadServerConfigText(dump, &err) != C_OK) {
        fprintf(stderr, "fuzz_config: CONFIG REWRITE output does not load back: %s\n", err);
        abort();
    }
    sds again = configRewriteAll(sdsempty());
    if (sdscmp(dump, again) != 0) {
        fprintf(stderr, "fuzz_config: CONFIG REWRITE output changes when loaded back:\n%s\n---\n%s\n", dump, again);
        abort();
    }
    sdsfree(again);
    sdsfree(dump);
    return 0;
}
