/* test_cluster_conf.c - unit tests for cluster_conf.c, nodes.conf.
 *
 * Files redis-server 7.0 wrote (a cluster of three primaries and a replica
 * with a hostname, an open slot migration, a manual failover, a failed
 * node and a forgotten one: utils/cluster-capture's conf/ copies) and
 * Valkey 8 lines with their aux fields, written by hand after Valkey 8's
 * format, parse to what they say and are written back to the same text.
 * Every kind of corrupt or foreign file is refused with its line and
 * reason; random damage to good files is refused or round-trips. Saving is
 * atomic and keeps the file locked; a second lock is refused with Valkey's
 * message. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster_conf.h"
#include "log.h"
#include "zmalloc.h"
#include "unittest.h"

#define NODE1 "39132bd6190e3d374d92462d2bcf684fa4758269"
#define NODE2 "6d9076468571188c48f5731f4df0bf971232f9ea"
#define NODE3 "66777e766799b2a8792e24ff29af478fe83f2bf8"
#define NODE4 "a53f57a2d21a75b6df7274d9d9183cf73ad1a32a"

/* ---- Files written by redis-server 7.0.15 (utils/cluster-capture) ---- */

/* stage1-node1.conf */
static const char redisStage1Node1[] =
    "a53f57a2d21a75b6df7274d9d9183cf73ad1a32a 127.0.0.1:52104@62204 slave 39132bd6190e3d374d92462d2bcf684fa4758269 0 1795912120586 1 connected\n"
    "39132bd6190e3d374d92462d2bcf684fa4758269 127.0.0.1:52101@62201,node-1.example myself,master - 0 1795912120000 1 connected 0-5460 [100->-6d9076468571188c48f5731f4df0bf971232f9ea]\n"
    "66777e766799b2a8792e24ff29af478fe83f2bf8 127.0.0.1:52103@62203 master - 0 1795912120085 3 connected 10923-16382\n"
    "6d9076468571188c48f5731f4df0bf971232f9ea 127.0.0.1:52102@62202 master - 0 1795912120000 2 connected 5461-10922 16383\n"
    "vars currentEpoch 3 lastVoteEpoch 0\n";

/* stage1-node2.conf */
static const char redisStage1Node2[] =
    "66777e766799b2a8792e24ff29af478fe83f2bf8 127.0.0.1:52103@62203 master - 0 1795912119659 3 connected 10923-16382\n"
    "39132bd6190e3d374d92462d2bcf684fa4758269 127.0.0.1:52101@62201,node-1.example master - 0 1795912120655 1 connected 0-5460\n"
    "a53f57a2d21a75b6df7274d9d9183cf73ad1a32a 127.0.0.1:52104@62204 slave 39132bd6190e3d374d92462d2bcf684fa4758269 0 1795912120053 1 connected\n"
    "6d9076468571188c48f5731f4df0bf971232f9ea 127.0.0.1:52102@62202 myself,master - 0 1795912120000 2 connected 5461-10922 16383 [100-<-39132bd6190e3d374d92462d2bcf684fa4758269]\n"
    "vars currentEpoch 3 lastVoteEpoch 0\n";

/* stage1-node4.conf */
static const char redisStage1Node4[] =
    "6d9076468571188c48f5731f4df0bf971232f9ea 127.0.0.1:52102@62202 master - 0 1795912120000 2 connected 5461-10922 16383\n"
    "66777e766799b2a8792e24ff29af478fe83f2bf8 127.0.0.1:52103@62203 master - 0 1795912120137 3 connected 10923-16382\n"
    "39132bd6190e3d374d92462d2bcf684fa4758269 127.0.0.1:52101@62201,node-1.example master - 0 1795912120036 1 connected 0-5460\n"
    "a53f57a2d21a75b6df7274d9d9183cf73ad1a32a 127.0.0.1:52104@62204 myself,slave 39132bd6190e3d374d92462d2bcf684fa4758269 0 1795912120000 1 connected\n"
    "vars currentEpoch 3 lastVoteEpoch 0\n";

/* stage2-node1.conf */
static const char redisStage2Node1[] =
    "a53f57a2d21a75b6df7274d9d9183cf73ad1a32a 127.0.0.1:52104@62204 master - 0 1795912150906 4 connected 0-5460\n"
    "39132bd6190e3d374d92462d2bcf684fa4758269 127.0.0.1:52101@62201,node-1.example myself,slave a53f57a2d21a75b6df7274d9d9183cf73ad1a32a 0 1795912149000 4 connected\n"
    "66777e766799b2a8792e24ff29af478fe83f2bf8 127.0.0.1:52103@62203 master - 0 1795912150104 3 connected 10923-16382\n"
    "6d9076468571188c48f5731f4df0bf971232f9ea 127.0.0.1:52102@62202 master - 0 1795912150104 2 connected 5461-10922 16383\n"
    "vars currentEpoch 4 lastVoteEpoch 0\n";

/* stage2-node2.conf */
static const char redisStage2Node2[] =
    "66777e766799b2a8792e24ff29af478fe83f2bf8 127.0.0.1:52103@62203 master - 0 1795912151007 3 connected 10923-16382\n"
    "a53f57a2d21a75b6df7274d9d9183cf73ad1a32a 127.0.0.1:52104@62204 master - 0 1795912151008 4 connected 0-5460\n"
    "6d9076468571188c48f5731f4df0bf971232f9ea 127.0.0.1:52102@62202 myself,master - 0 1795912150000 2 connected 5461-10922 16383\n"
    "vars currentEpoch 4 lastVoteEpoch 4\n";

/* stage2-node4.conf */
static const char redisStage2Node4[] =
    "6d9076468571188c48f5731f4df0bf971232f9ea 127.0.0.1:52102@62202 master - 0 1795912151087 2 connected 5461-10922 16383\n"
    "66777e766799b2a8792e24ff29af478fe83f2bf8 127.0.0.1:52103@62203 master - 0 1795912151000 3 connected 10923-16382\n"
    "39132bd6190e3d374d92462d2bcf684fa4758269 127.0.0.1:52101@62201,node-1.example slave a53f57a2d21a75b6df7274d9d9183cf73ad1a32a 0 1795912150985 4 connected\n"
    "a53f57a2d21a75b6df7274d9d9183cf73ad1a32a 127.0.0.1:52104@62204 myself,master - 0 1795912150000 4 connected 0-5460\n"
    "vars currentEpoch 4 lastVoteEpoch 0\n";

/* fail-node2.conf */
static const char redisFailNode2[] =
    "66777e766799b2a8792e24ff29af478fe83f2bf8 127.0.0.1:52103@62203 master,fail - 1795912125090 1795912124084 3 connected 10923-16382\n"
    "39132bd6190e3d374d92462d2bcf684fa4758269 127.0.0.1:52101@62201,node-1.example slave a53f57a2d21a75b6df7274d9d9183cf73ad1a32a 0 1795912147941 4 connected\n"
    "a53f57a2d21a75b6df7274d9d9183cf73ad1a32a 127.0.0.1:52104@62204 master - 0 1795912147942 4 connected 0-5460\n"
    "6d9076468571188c48f5731f4df0bf971232f9ea 127.0.0.1:52102@62202 myself,master - 0 1795912147000 2 connected 5461-10922 16383\n"
    "vars currentEpoch 4 lastVoteEpoch 4\n";

/* ---- Valkey 8 lines, by hand after Valkey 8's format ---- */

/* A primary with a shard id and no hostname (",,"), a replica with a
 * hostname and a human node name, a TLS node (the port field is the TLS
 * port, tcp-port the plaintext one), tls-port=0 as Valkey 7.2+ may write
 * it, a node without an address in handshake, and flags of every kind. */
static const char valkey8Conf[] =
    "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@40001,,shard-id=4a1ad1e1b0cb5f0be6e1cb18b3e4ffe1d8bba4b1 myself,master - 0 0 1 connected 0-5460 [5461-<-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]\n"
    "67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@40002,cache-2.example,nodename=cache-2,shard-id=0b8d2a5b4c77a3ee1ac5d6ff4b0d8d8ec0a7d1c3 master - 0 1717000000123 2 connected 5461-10922\n"
    "292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 10.0.0.3:6380@16380,,tcp-port=6379,shard-id=7d0c0f0e1b2a39485766574839201a2b3c4d5e6f master,nofailover - 0 1717000000456 3 connected 10923-16383\n"
    "824fe116063bc5fcf9f4ffd895bc17aee7731ac3 127.0.0.1:30004@40004,,tls-port=0,shard-id=4a1ad1e1b0cb5f0be6e1cb18b3e4ffe1d8bba4b1 slave,fail? e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 1717000000789 1717000000001 1 disconnected\n"
    "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00 :0@0,,shard-id=c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00 master,handshake,noaddr - 1717000001000 0 0 disconnected\n"
    "f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed ::1:30006@40006,node-6,shard-id=f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed slave,fail 67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 0 0 2 disconnected\n"
    "0123456789abcdef0123456789abcdef01234567 fe80::1:30007@40007 noflags - 0 0 0 connected\n"
    "vars currentEpoch 18446744073709551615 lastVoteEpoch 7\n";

typedef struct namedConf {
    const char *name;
    const char *text;
} namedConf;

static const namedConf goodConfs[] = {
    {"redis stage1 node1", redisStage1Node1}, {"redis stage1 node2", redisStage1Node2},
    {"redis stage1 node4", redisStage1Node4}, {"redis stage2 node1", redisStage2Node1},
    {"redis stage2 node2", redisStage2Node2}, {"redis stage2 node4", redisStage2Node4},
    {"redis fail node2", redisFailNode2},     {"valkey 8", valkey8Conf},
};
#define NGOOD (sizeof(goodConfs) / sizeof(goodConfs[0]))

/* Parses text; on success returns the description, else NULL with *err. */
static clusterConf *parse(const char *text, clusterConfError *err) {
    clusterConf *conf = NULL;
    if (clusterConfParse(text, strlen(text), &conf, err) != C_OK) return NULL;
    return conf;
}

/* Parses text and checks it is refused at line with a reason starting
 * with want. */
static int refused(const char *text, int line, const char *want) {
    clusterConfError err;
    clusterConf *conf = NULL;
    int rc = clusterConfParse(text, strlen(text), &conf, &err);
    int ok = rc == C_ERR && conf == NULL && err.corrupt && err.line == line &&
             strncmp(err.reason, want, strlen(want)) == 0;
    if (!ok) printf("  refused: rc %d, line %d \"%s\", wanted line %d \"%s\"\n", rc, err.line, err.reason, line, want);
    clusterConfFree(conf);
    return ok;
}

/* A one-node file with line as the only node line (myself added when the
 * line does not say it). */
static const char *myselfLine = "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@40001 myself,master - 0 0 1 connected\n";

static int refusedLine(const char *line, const char *want) {
    char text[2048];
    snprintf(text, sizeof(text), "%s%s\n", myselfLine, line);
    return refused(text, 2, want);
}

static int slotsAre(const clusterConfNode *n, int first, int last) {
    if (!n->slots) return 0;
    for (int s = 0; s < CLUSTER_SLOTS; s++)
        if (clusterSlotBitmapTest(n->slots, s) != (s >= first && s <= last)) return 0;
    return 1;
}

/* parse(format(parse(text))) formats to the same text: what the fuzz
 * target checks, for the unit test's own damaged files. */
static int roundTrips(const char *text, size_t len) {
    clusterConf *a = NULL, *b = NULL;
    clusterConfError err;
    if (clusterConfParse(text, len, &a, &err) != C_OK) return 1;
    int ok = clusterConfValidate(a, &err) == C_OK;
    sds s1 = clusterConfFormat(a);
    ok = ok && clusterConfParse(s1, sdslen(s1), &b, &err) == C_OK;
    if (ok) {
        sds s2 = clusterConfFormat(b);
        ok = sdscmp(s1, s2) == 0;
        sdsfree(s2);
    }
    if (!ok) printf("  round trip failed: %s\n", err.reason);
    sdsfree(s1);
    clusterConfFree(a);
    clusterConfFree(b);
    return ok;
}

static void testGoodFiles(void) {
    TEST("nodes.conf: redis 7.0's and Valkey 8's files are written back to the same text") {
        for (size_t j = 0; j < NGOOD; j++) {
            clusterConfError err;
            clusterConf *conf = parse(goodConfs[j].text, &err);
            if (!conf) printf("  %s: line %d: %s\n", goodConfs[j].name, err.line, err.reason);
            ASSERT(conf != NULL);
            if (!conf) continue;
            ASSERT(clusterConfValidate(conf, &err) == C_OK);
            sds out = clusterConfFormat(conf);
            if (strcmp(out, goodConfs[j].text) != 0) {
                printf("  %s: written back as:\n%s", goodConfs[j].name, out);
                ASSERT(0);
            }
            sdsfree(out);
            clusterConfFree(conf);
        }
    }

    TEST("nodes.conf: redis 7.0's file with an open migration, field by field") {
        clusterConfError err;
        clusterConf *conf = parse(redisStage1Node1, &err);
        ASSERT(conf && conf->numnodes == 4);
        if (conf && conf->numnodes == 4) {
            ASSERT_EQ_LL(conf->current_epoch, 3);
            ASSERT_EQ_LL(conf->last_vote_epoch, 0);
            clusterConfNode *me = clusterConfFindNode(conf, NODE1);
            ASSERT(me == conf->nodes[1]);
            ASSERT_STREQ(me->ip, "127.0.0.1");
            ASSERT_EQ_LL(me->port, 52101);
            ASSERT_EQ_LL(me->cport, 62201);
            ASSERT_STREQ(me->hostname, "node-1.example");
            ASSERT_EQ_LL(me->numaux, 0);
            ASSERT_EQ_LL(me->flags, CLUSTER_NODE_MYSELF | CLUSTER_NODE_PRIMARY);
            ASSERT_STREQ(me->primary, "");
            ASSERT_EQ_LL(me->ping_sent, 0);
            ASSERT_EQ_LL(me->pong_received, 1795912120000LL);
            ASSERT_EQ_LL(me->config_epoch, 1);
            ASSERT_EQ_LL(me->connected, 1);
            ASSERT(slotsAre(me, 0, 5460));
            ASSERT_EQ_LL(me->nummoves, 1);
            if (me->nummoves == 1) {
                ASSERT_EQ_LL(me->moves[0].slot, 100);
                ASSERT_EQ_LL(me->moves[0].importing, 0);
                ASSERT_STREQ(me->moves[0].node, NODE2);
            }
            clusterConfNode *replica = conf->nodes[0];
            ASSERT_STREQ(replica->name, NODE4);
            ASSERT(replica->hostname == NULL);
            ASSERT_EQ_LL(replica->flags, CLUSTER_NODE_REPLICA);
            ASSERT_STREQ(replica->primary, NODE1);
            ASSERT(replica->slots == NULL);
            clusterConfNode *n2 = clusterConfFindNode(conf, NODE2);
            ASSERT(n2 && n2->slots && clusterSlotBitmapCount(n2->slots) == 5463 &&
                   clusterSlotBitmapTest(n2->slots, 16383));
        }
        clusterConfFree(conf);

        conf = parse(redisStage1Node2, &err);
        clusterConfNode *me = conf ? clusterConfFindNode(conf, NODE2) : NULL;
        ASSERT(me && (me->flags & CLUSTER_NODE_MYSELF) && me->nummoves == 1);
        if (me && me->nummoves == 1) {
            ASSERT_EQ_LL(me->moves[0].slot, 100);
            ASSERT_EQ_LL(me->moves[0].importing, 1);
            ASSERT_STREQ(me->moves[0].node, NODE1);
        }
        clusterConfFree(conf);

        conf = parse(redisFailNode2, &err);
        clusterConfNode *failed = conf ? clusterConfFindNode(conf, NODE3) : NULL;
        ASSERT(failed && failed->flags == (CLUSTER_NODE_PRIMARY | CLUSTER_NODE_FAIL));
        ASSERT(failed && failed->ping_sent == 1795912125090LL && failed->pong_received == 1795912124084LL);
        clusterConfFree(conf);
    }

    TEST("nodes.conf: Valkey 8's aux fields, addresses and flags, field by field") {
        clusterConfError err;
        clusterConf *conf = parse(valkey8Conf, &err);
        ASSERT(conf && conf->numnodes == 7);
        if (conf && conf->numnodes == 7) {
            ASSERT(conf->current_epoch == 18446744073709551615ULL);
            clusterConfNode **n = conf->nodes;
            ASSERT_STREQ(n[0]->hostname, "");
            ASSERT_STREQ(clusterConfGetAux(n[0], "shard-id"), "4a1ad1e1b0cb5f0be6e1cb18b3e4ffe1d8bba4b1");
            ASSERT(n[0]->nummoves == 1 && n[0]->moves[0].importing && n[0]->moves[0].slot == 5461);
            ASSERT_STREQ(n[1]->hostname, "cache-2.example");
            ASSERT_STREQ(clusterConfGetAux(n[1], "nodename"), "cache-2");
            ASSERT(clusterConfGetAux(n[1], "tls-port") == NULL);
            ASSERT_STREQ(clusterConfGetAux(n[2], "tcp-port"), "6379");
            ASSERT_EQ_LL(n[2]->port, 6380);
            ASSERT_EQ_LL(n[2]->flags, CLUSTER_NODE_PRIMARY | CLUSTER_NODE_NOFAILOVER);
            ASSERT_STREQ(clusterConfGetAux(n[3], "tls-port"), "0");
            ASSERT_EQ_LL(n[3]->flags, CLUSTER_NODE_REPLICA | CLUSTER_NODE_PFAIL);
            ASSERT_EQ_LL(n[3]->connected, 0);
            ASSERT_STREQ(n[4]->ip, "");
            ASSERT(n[4]->port == 0 && n[4]->cport == 0);
            ASSERT_EQ_LL(n[4]->flags, CLUSTER_NODE_PRIMARY | CLUSTER_NODE_HANDSHAKE | CLUSTER_NODE_NOADDR);
            /* IPv6: the port is after the last ':'. */
            ASSERT_STREQ(n[5]->ip, "::1");
            ASSERT_EQ_LL(n[5]->port, 30006);
            ASSERT_EQ_LL(n[5]->flags, CLUSTER_NODE_REPLICA | CLUSTER_NODE_FAIL);
            ASSERT_STREQ(n[6]->ip, "fe80::1");
            ASSERT_EQ_LL(n[6]->port, 30007);
            ASSERT_EQ_LL(n[6]->flags, 0);
            ASSERT(n[6]->hostname == NULL);
        }
        clusterConfFree(conf);
    }

    TEST("nodes.conf: what Valkey tolerates: blank lines, no cport, unknown vars, no trailing newline") {
        clusterConfError err;
        const char *text = "\n"
                           "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001 myself,master - 0 0 1 connected 0 2 4-6\n"
                           "   \n"
                           "vars currentEpoch 5 futureVariable 9 lastVoteEpoch 4";
        clusterConf *conf = parse(text, &err);
        ASSERT(conf != NULL);
        if (conf) {
            ASSERT_EQ_LL(conf->nodes[0]->cport, -1);
            ASSERT_EQ_LL(clusterSlotBitmapCount(clusterConfNodeSlots(conf->nodes[0])), 5);
            ASSERT_EQ_LL(conf->current_epoch, 5);
            ASSERT_EQ_LL(conf->last_vote_epoch, 4);
            ASSERT(conf->numskipped == 1 && !strcmp(conf->skipped_vars[0], "futureVariable"));
            sds out = clusterConfFormat(conf);
            ASSERT(!strcmp(out, "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001 myself,master - 0 0 1 "
                                "connected 0 2 4-6\nvars currentEpoch 5 lastVoteEpoch 4\n"));
            sdsfree(out);
        }
        clusterConfFree(conf);
    }
}

static void testCorruptFiles(void) {
    TEST("nodes.conf: corrupt node lines are refused with their line and reason") {
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@40002 master - 0 0 2",
                           "a node line has at least 8 fields, this one 7"));
        ASSERT(refusedLine("67ED2DB8D677E59EC4A4CEFB06858CF2A1A89FA1 127.0.0.1:30002@40002 master - 0 0 2 connected",
                           "invalid node name"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa 127.0.0.1:30002@40002 master - 0 0 2 connected",
                           "invalid node name"));
        ASSERT(refusedLine("e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30002@40002 master - 0 0 2 connected",
                           "node e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca is listed twice"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 localhost master - 0 0 2 connected",
                           "invalid address"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:70000@40002 master - 0 0 2 connected",
                           "invalid port"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@x master - 0 0 2 connected",
                           "invalid port"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:+3@4 master - 0 0 2 connected",
                           "invalid port"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 1.2.3.4/8:1@2 master - 0 0 2 connected",
                           "invalid address"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2,host!name master - 0 0 2 connected",
                           "invalid hostname"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2,,color=blue master - 0 0 2 connected",
                           "unknown aux field 'color'"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2,,shard-id master - 0 0 2 connected",
                           "aux field 'shard-id' is not key=value"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2,,shard-id=xyz master - 0 0 2 connected",
                           "invalid or repeated aux field 'shard-id=xyz'"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2,,tls-port=1,tls-port=2 master - 0 0 2 connected",
                           "invalid or repeated aux field 'tls-port=2'"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2,,tcp-port=65536 master - 0 0 2 connected",
                           "invalid or repeated aux field"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2,,nodename=a=b master - 0 0 2 connected",
                           "invalid or repeated aux field"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2 leader - 0 0 2 connected",
                           "unknown flag 'leader'"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2 master,,slave - 0 0 2 connected",
                           "unknown flag ''"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2 slave nobody 0 0 2 connected",
                           "invalid primary 'nobody'"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2 slave "
                           "67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 0 0 2 connected",
                           "invalid primary"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2 master - -1 0 2 connected",
                           "invalid ping sent or pong received time"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2 master - 0 1e3 2 connected",
                           "invalid ping sent or pong received time"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2 master - 0 0 18446744073709551616 connected",
                           "invalid config epoch"));
        ASSERT(refusedLine("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2 master - 0 0 2 up",
                           "invalid link state 'up'"));
    }

    TEST("nodes.conf: bad slots, overlapping slots and migrations are refused") {
        const char *head = "67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2 master - 0 0 2 connected ";
        const char *bad[] = {"16384", "5-3", "-1", "1-", "a-b", "0-16384", "[1->-67ed2db8]", "[1-?-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]",
                             "[16384->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]", "[1->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1",
                             "[]"};
        for (size_t j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
            char line[512];
            snprintf(line, sizeof(line), "%s%s", head, bad[j]);
            ASSERT(refusedLine(line, "invalid slot"));
        }
        char line[512];
        snprintf(line, sizeof(line), "%s0-10 [5->-e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca] [5-<-e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca]", head);
        ASSERT(refusedLine(line, "slot 5 is migrating twice"));
        const char *overlap = "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:1@2 myself,master - 0 0 1 connected 0-100\n"
                              "67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:3@4 master - 0 0 2 connected 200 100\n";
        ASSERT(refused(overlap, 2, "slot 100 is already assigned to another node"));
        /* A node may list its own slots twice (Valkey sets the bits again). */
        const char *twice = "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:1@2 myself,master - 0 0 1 connected 0-100 50\n";
        clusterConfError err;
        clusterConf *conf = parse(twice, &err);
        ASSERT(conf != NULL);
        clusterConfFree(conf);
    }

    TEST("nodes.conf: vars lines, myself, and foreign files are refused") {
        char text[1024];
        snprintf(text, sizeof(text), "%svars currentEpoch\n", myselfLine);
        ASSERT(refused(text, 2, "vars line without a value for 'currentEpoch'"));
        snprintf(text, sizeof(text), "%svars currentEpoch 1 lastVoteEpoch -2\n", myselfLine);
        ASSERT(refused(text, 2, "invalid value '-2' for lastVoteEpoch"));
        ASSERT(refused("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2 master - 0 0 2 connected\n", 0,
                       "no node is flagged myself"));
        snprintf(text, sizeof(text), "%s%s", myselfLine,
                 "67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:1@2 myself,slave - 0 0 2 connected\n");
        ASSERT(refused(text, 0, "more than one node is flagged myself"));
        ASSERT(refused("vars currentEpoch 0 lastVoteEpoch 0\n", 0, "no node is flagged myself"));
        /* A server config file, a binary file, unbalanced quotes. */
        ASSERT(refused("# Valkey configuration\nport 6379\nbind 127.0.0.1\n", 1,
                       "a node line has at least 8 fields, this one 3"));
        memcpy(text, myselfLine, strlen(myselfLine));
        memcpy(text + strlen(myselfLine), "RDB\0\1\2\n", 7);
        clusterConfError err;
        clusterConf *conf = NULL;
        ASSERT(clusterConfParse(text, strlen(myselfLine) + 7, &conf, &err) == C_ERR);
        ASSERT(err.line == 2 && !strcmp(err.reason, "NUL byte: this is not a nodes.conf file"));
        ASSERT(refused("\"e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:1@2\n", 1, "unbalanced quotes"));
        /* The offending line is kept for Valkey's log line. */
        ASSERT(clusterConfParse("x y z\n", 6, &conf, &err) == C_ERR);
        ASSERT_STREQ(err.text, "x y z");
    }
}

/* Damages good files at random: never a crash, and what parses
 * round-trips. */
static void testRandomDamage(void) {
    TEST("nodes.conf: random damage is refused or round-trips") {
        const char alphabet[] = "0123456789abcdef:@,-[]<> \n=xq?\"\\";
        int parsed = 0, refusedCount = 0, bad = 0;
        for (int round = 0; round < 20000; round++) {
            const char *orig = goodConfs[(size_t)rand() % NGOOD].text;
            size_t len = strlen(orig);
            char *buf = zmalloc(len + 16);
            memcpy(buf, orig, len);
            int hits = 1 + rand() % 3;
            for (int h = 0; h < hits; h++) {
                size_t at = (size_t)rand() % len;
                switch (rand() % 3) {
                case 0: buf[at] = alphabet[rand() % (int)(sizeof(alphabet) - 1)]; break;
                case 1: memmove(buf + at, buf + at + 1, len - at - 1); len--; break; /* delete */
                default: memmove(buf + at + 1, buf + at, len - at); len++; break;  /* repeat */
                }
                if (len + 4 > strlen(orig) + 16 || len < 2) break;
            }
            clusterConf *conf = NULL;
            clusterConfError err;
            if (clusterConfParse(buf, len, &conf, &err) == C_OK) {
                parsed++;
                if (!roundTrips(buf, len)) bad++;
            } else {
                refusedCount++;
                if (err.reason[0] == '\0') bad++;
            }
            clusterConfFree(conf);
            zfree(buf);
        }
        ASSERT_EQ_LL(bad, 0);
        ASSERT(parsed > 500 && refusedCount > 500);
    }
}

static void testBuilding(void) {
    TEST("nodes.conf: a description built in memory is checked before it is written") {
        clusterConf *conf = clusterConfCreate();
        clusterConfError err;
        ASSERT(clusterConfAddNode(conf, "not-a-node-name") == NULL);
        clusterConfNode *a = clusterConfAddNode(conf, NODE1);
        ASSERT(a != NULL);
        ASSERT(clusterConfAddNode(conf, NODE1) == NULL);
        a->flags = CLUSTER_NODE_MYSELF | CLUSTER_NODE_PRIMARY;
        a->ip = sdscpy(a->ip, "10.1.2.3");
        a->port = 7000;
        a->cport = 17000;
        for (int s = 0; s < 100; s++) clusterSlotBitmapSet(clusterConfNodeSlots(a), s);
        ASSERT(clusterConfSetAux(a, "shard-id", "0123456789abcdef0123456789abcdef01234567") == C_OK);
        ASSERT(clusterConfSetAux(a, "colour", "blue") == C_ERR);
        ASSERT(clusterConfSetAux(a, "tls-port", "123456") == C_ERR);
        ASSERT(clusterConfAddSlotMove(a, 100, 0, NODE2) == C_OK);
        ASSERT(clusterConfAddSlotMove(a, 100, 1, NODE2) == C_ERR);
        ASSERT(clusterConfAddSlotMove(a, 16384, 1, NODE2) == C_ERR);
        clusterConfNode *b = clusterConfAddNode(conf, NODE2);
        b->flags = CLUSTER_NODE_REPLICA;
        memcpy(b->primary, NODE1, sizeof(b->primary));
        ASSERT(clusterConfValidate(conf, &err) == C_OK);
        sds out = clusterConfFormat(conf);
        const char *want = NODE1 " 10.1.2.3:7000@17000,,shard-id=0123456789abcdef0123456789abcdef01234567 "
                                 "myself,master - 0 0 0 connected 0-99 [100->-" NODE2 "]\n" NODE2
                                 " :0@0 slave " NODE1 " 0 0 0 connected\nvars currentEpoch 0 lastVoteEpoch 0\n";
        if (strcmp(out, want) != 0) printf("  written as:\n%s", out);
        ASSERT(strcmp(out, want) == 0);
        sdsfree(out);

        /* What validation refuses. */
        clusterSlotBitmapSet(clusterConfNodeSlots(b), 5);
        ASSERT(clusterConfValidate(conf, &err) == C_ERR);
        ASSERT_STREQ(err.reason, "slot 5 is already assigned to another node");
        ASSERT_EQ_LL(err.line, 2);
        clusterSlotBitmapClear(b->slots, 5);
        b->ip = sdscpy(b->ip, "1.2.3.4 5");
        ASSERT(clusterConfValidate(conf, &err) == C_ERR && err.line == 2);
        b->ip = sdscpy(b->ip, "");
        b->flags |= CLUSTER_NODE_MEET;
        ASSERT(clusterConfValidate(conf, &err) == C_ERR);
        b->flags = CLUSTER_NODE_REPLICA;
        b->hostname = sdsnew("bad,host");
        ASSERT(clusterConfValidate(conf, &err) == C_ERR);
        sdsfree(b->hostname);
        b->hostname = NULL;
        a->flags = CLUSTER_NODE_PRIMARY;
        ASSERT(clusterConfValidate(conf, &err) == C_ERR);
        ASSERT_STREQ(err.reason, "no node is flagged myself");
        a->flags |= CLUSTER_NODE_MYSELF;
        ASSERT(clusterConfValidate(conf, &err) == C_OK);
        clusterConfFree(conf);
    }
}

/* A fresh directory under /tmp for the file tests (removed by the test). */
static char *makeTempDir(void) {
    static char dir[64];
    strcpy(dir, "/tmp/test_cluster_conf.XXXXXX");
    return mkdtemp(dir);
}

/* Files in dir (to see that no temporary file is left behind). */
static int countFiles(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    if (d) closedir(d);
    return n;
}

static sds readFile(const char *path) {
    FILE *fp = fopen(path, "r");
    sds s = sdsempty();
    char buf[4096];
    size_t n;
    while (fp && (n = fread(buf, 1, sizeof(buf), fp)) > 0) s = sdscatlen(s, buf, n);
    if (fp) fclose(fp);
    return s;
}

static void testFiles(void) {
    char *dir = makeTempDir();
    ASSERT(dir != NULL);
    if (!dir) return;
    char path[256], other[256], logpath[256];
    snprintf(path, sizeof(path), "%s/nodes.conf", dir);
    snprintf(other, sizeof(other), "%s/missing/nodes.conf", dir);
    snprintf(logpath, sizeof(logpath), "%s/log", dir);

    TEST("nodes.conf: load: absent and empty files mean a new node; unreadable ones are refused") {
        clusterConf *conf = NULL;
        clusterConfError err;
        ASSERT_EQ_LL(clusterConfLoad(path, &conf, &err), CLUSTER_CONF_ABSENT);
        ASSERT(conf == NULL);
        FILE *fp = fopen(path, "w");
        fclose(fp);
        ASSERT_EQ_LL(clusterConfLoad(path, &conf, &err), CLUSTER_CONF_ABSENT);
        ASSERT_EQ_LL(clusterConfLoad(dir, &conf, &err), C_ERR);
        ASSERT(!err.corrupt && strstr(err.reason, "Loading the cluster node config from ") == err.reason);
        fp = fopen(path, "w");
        fputs("port 6379\n", fp);
        fclose(fp);
        ASSERT_EQ_LL(clusterConfLoad(path, &conf, &err), C_ERR);
        ASSERT(err.corrupt && err.line == 1);
        unlink(path);
    }

    TEST("nodes.conf: save writes atomically and loads back the same") {
        clusterConfError err;
        clusterConf *conf = parse(valkey8Conf, &err);
        char errbuf[CLUSTER_MSG_ERR_LEN] = "";
        ASSERT(conf != NULL);
        if (!conf) conf = clusterConfCreate(); /* (and fail below, without a crash) */
        ASSERT(clusterConfSave(conf, path, 1, NULL, errbuf) == C_OK);
        sds text = readFile(path);
        ASSERT_STREQ(text, valkey8Conf);
        sdsfree(text);
        ASSERT_EQ_LL(countFiles(dir), 1);
        clusterConf *back = NULL;
        ASSERT_EQ_LL(clusterConfLoad(path, &back, &err), C_OK);
        ASSERT(back && back->numnodes == 7);
        clusterConfFree(back);
        struct stat st;
        ASSERT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);

        /* An invalid description is refused and the file left as it was. */
        clusterConfNode *second = clusterConfAddNode(conf, "0000000000000000000000000000000000000001");
        second->flags = CLUSTER_NODE_MYSELF;
        ASSERT(clusterConfSave(conf, path, 1, NULL, errbuf) == C_ERR);
        ASSERT(!strcmp(errbuf, "Refusing to save an invalid cluster config (node 0): more than one node is flagged myself"));
        text = readFile(path);
        ASSERT_STREQ(text, valkey8Conf);
        sdsfree(text);
        second->flags = 0;
        /* A directory that is not there: nothing is left behind either. */
        ASSERT(clusterConfSave(conf, other, 0, NULL, errbuf) == C_ERR);
        ASSERT(strstr(errbuf, "Could not open temp cluster config file ") == errbuf);
        ASSERT_EQ_LL(countFiles(dir), 1);
        clusterConfFree(conf);
    }

    TEST("nodes.conf: the lock is Valkey's, and saving keeps the file locked") {
        char errbuf[CLUSTER_MSG_ERR_LEN] = "";
        int lockfd = -1, second = -1;
        ASSERT(clusterConfLock(path, &lockfd, errbuf) == C_OK);
        ASSERT(clusterConfLock(path, &second, errbuf) == C_ERR);
        char want[512];
        snprintf(want, sizeof(want),
                 "Sorry, the cluster configuration file %s is already used by a different Cluster node. Please make "
                 "sure that different nodes use different cluster configuration files.",
                 path);
        ASSERT(!strcmp(errbuf, want));

        /* Saving replaces the file; the lock moves to the new one. */
        clusterConfError err;
        clusterConf *conf = parse(redisStage2Node4, &err);
        ASSERT(conf != NULL);
        if (!conf) conf = clusterConfCreate();
        int before = lockfd;
        ASSERT(clusterConfSave(conf, path, 1, &lockfd, errbuf) == C_OK);
        ASSERT(lockfd >= 0 && lockfd != before);
        ASSERT(fcntl(before, F_GETFD) == -1); /* the old descriptor was closed */
        ASSERT(clusterConfLock(path, &second, errbuf) == C_ERR);
        ASSERT(!strcmp(errbuf, want));

        /* Without the handover, the new file would be free to take. */
        ASSERT(clusterConfSave(conf, path, 0, NULL, errbuf) == C_OK);
        ASSERT(clusterConfLock(path, &second, errbuf) == C_OK);
        close(second);
        close(lockfd);
        ASSERT_EQ_LL(countFiles(dir), 1);
        clusterConfFree(conf);

        ASSERT(clusterConfLock(other, &second, errbuf) == C_ERR);
        snprintf(want, sizeof(want), "Can't open %s in order to acquire a lock: No such file or directory", other);
        ASSERT(!strcmp(errbuf, want));
    }

    TEST("nodes.conf: a refused file is logged with Valkey's line, then ours") {
        clusterConfError err;
        clusterConf *conf = NULL;
        const char *text = "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@40001 myself,leader - 0 0 1 connected\n";
        ASSERT(clusterConfParse(text, strlen(text), &conf, &err) == C_ERR);
        serverLogConfig.logfile = logpath;
        serverLogConfig.verbosity = LL_NOTICE;
        clusterConfLogError("nodes.conf", &err);
        serverLogConfig.logfile = "";
        sds log = readFile(logpath);
        ASSERT(strstr(log, "# Unrecoverable error: corrupted cluster config file \"e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca "
                           "127.0.0.1:30001@40001 myself,leader - 0 0 1 connected\".\n") != NULL);
        ASSERT(strstr(log, "# nodes.conf line 1: unknown flag 'leader'\n") != NULL);
        sdsfree(log);
        unlink(logpath);
    }

    unlink(path);
    rmdir(dir);
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    srand(16383);
    testGoodFiles();
    testCorruptFiles();
    testRandomDamage();
    testBuilding();
    testFiles();
    return UT_END();
}
