/* fuzz_nodesconf.c - libFuzzer target for the nodes.conf parser and writer
 * (src/cluster_conf.c), what a cluster node reads from its config file at
 * start-up.
 *
 * Input: the bytes of a file. Parsing must either refuse it with a reason
 * (and a line number within the file) or give a description that passes
 * clusterConfValidate(); its text must parse again and be written back
 * byte for byte the same (parse, write, parse, write: the two texts are
 * equal). Any difference aborts. Seeds: fuzz/corpus/nodesconf/, files
 * redis-server 7.0 wrote (utils/cluster-capture) and Valkey 8 lines. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_conf.h"

/* Called by libFuzzer for each input (only read, owned by libFuzzer).
 * Returns 0; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    clusterConf *a = NULL, *b = NULL;
    clusterConfError err;
    size_t lines = 1;
    for (size_t j = 0; j < size; j++)
        if (data[j] == '\n') lines++;
    if (clusterConfParse((const char *)data, size, &a, &err) != C_OK) {
        if (a || !err.corrupt || err.reason[0] == '\0' || err.line < 0 || (size_t)err.line > lines) abort();
        return 0;
    }
    if (clusterConfValidate(a, &err) != C_OK) abort();
    sds first = clusterConfFormat(a);
    if (clusterConfParse(first, sdslen(first), &b, &err) != C_OK) abort();
    sds second = clusterConfFormat(b);
    if (sdscmp(first, second) != 0) abort();
    if (a->numnodes != b->numnodes || a->current_epoch != b->current_epoch || a->last_vote_epoch != b->last_vote_epoch)
        abort();
    sdsfree(first);
    sdsfree(second);
    clusterConfFree(a);
    clusterConfFree(b);
    return 0;
}
