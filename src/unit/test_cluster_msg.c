/* test_cluster_msg.c - unit tests for cluster_msg.c, the cluster bus wire
 * format.
 *
 * Real traffic first: every message captured from redis-server 7.0 nodes
 * (cluster_bus_vectors.h: MEET, PING, PONG with gossip and the hostname
 * extension, FAIL, PUBLISH, PUBLISHSHARD, FAILOVER_AUTH_REQUEST/ACK, MFSTART,
 * UPDATE) decodes to the fields that run had and encodes back to the same
 * bytes. Then what 7.0 does not send and Valkey 8 does (the human node
 * name, shard id and forgotten node extensions, the light header), built by
 * the encoder and checked byte by byte against the layout. Then hostile
 * input: every kind of malformed message is refused with its reason, every
 * truncation and random corruption of the vectors is either refused or
 * decodes to a message that survives an encode/decode round trip. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_msg.h"
#include "zmalloc.h"
#include "unittest.h"

typedef struct busVectorRun {
    unsigned offset;
    const char *hex;
} busVectorRun;

typedef struct busVector {
    const char *name;
    unsigned len;
    const busVectorRun *runs;
} busVector;

#include "cluster_bus_vectors.h"

#define NODE1 "39132bd6190e3d374d92462d2bcf684fa4758269"
#define NODE2 "6d9076468571188c48f5731f4df0bf971232f9ea"
#define NODE3 "66777e766799b2a8792e24ff29af478fe83f2bf8"
#define NODE4 "a53f57a2d21a75b6df7274d9d9183cf73ad1a32a"

#define NVECTORS (sizeof(busVectors) / sizeof(busVectors[0]))

static int hexNibble(char c) {
    return c <= '9' ? c - '0' : c - 'a' + 10;
}

/* Writes the bytes of a hex string at p; returns how many. */
static size_t fromHex(const char *hex, unsigned char *p) {
    size_t n = strlen(hex) / 2;
    for (size_t j = 0; j < n; j++) p[j] = (unsigned char)(hexNibble(hex[2 * j]) << 4 | hexNibble(hex[2 * j + 1]));
    return n;
}

/* Rebuilds a captured message (zmalloc'ed, v->len bytes). */
static unsigned char *vectorBytes(const busVector *v) {
    unsigned char *buf = zcalloc(v->len);
    for (const busVectorRun *r = v->runs; r->hex; r++) fromHex(r->hex, buf + r->offset);
    return buf;
}

static const busVector *findVector(const char *name) {
    for (size_t j = 0; j < NVECTORS; j++)
        if (!strcmp(busVectors[j].name, name)) return &busVectors[j];
    return NULL;
}

/* Decodes the named vector into *m (released by the caller); the bytes
 * are returned and must outlive m. */
static unsigned char *decodeVector(const char *name, clusterMsg *m, int *rc) {
    const busVector *v = findVector(name);
    unsigned char *buf = vectorBytes(v);
    char err[CLUSTER_MSG_ERR_LEN] = "";
    *rc = clusterMsgDecode(buf, v->len, m, err);
    if (*rc != CLUSTER_MSG_OK) printf("  %s: %s\n", name, err);
    return buf;
}

/* Slots [first, last] set and no other. */
static int slotsAreRange(const unsigned char *bitmap, int first, int last) {
    for (int s = 0; s < CLUSTER_SLOTS; s++)
        if (clusterSlotBitmapTest(bitmap, s) != (s >= first && s <= last)) return 0;
    return 1;
}

static void putBE16(unsigned char *p, uint16_t v) {
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

static void putBE32(unsigned char *p, uint32_t v) {
    for (int j = 0; j < 4; j++) p[j] = (unsigned char)(v >> (24 - 8 * j));
}

/* Decodes len bytes and expects rc and, when given, err to start with
 * want; releases what a success decoded. */
static int decodeExpect(const unsigned char *buf, size_t len, int rc, const char *want) {
    clusterMsg m;
    char err[CLUSTER_MSG_ERR_LEN] = "";
    int got = clusterMsgDecode(buf, len, &m, err);
    if (got == CLUSTER_MSG_OK) clusterMsgRelease(&m);
    int ok = got == rc && (!want || strncmp(err, want, strlen(want)) == 0);
    if (!ok) printf("  decode gave %d \"%s\", wanted %d \"%s\"\n", got, err, rc, want ? want : "");
    return ok;
}

/* The round trip every decodable input must survive: encode succeeds, the
 * encoding is as long as the input and decodes to an equal message. */
static int roundTrips(const unsigned char *buf, size_t len) {
    clusterMsg a, b;
    char err[CLUSTER_MSG_ERR_LEN];
    if (clusterMsgDecode(buf, len, &a, err) != CLUSTER_MSG_OK) return 1;
    size_t elen = 0;
    unsigned char *enc = clusterMsgEncode(&a, &elen, err);
    int ok = enc != NULL && elen == len;
    if (enc && clusterMsgDecode(enc, elen, &b, err) == CLUSTER_MSG_OK) {
        ok = ok && clusterMsgEqual(&a, &b);
        clusterMsgRelease(&b);
    } else {
        ok = 0;
    }
    if (!ok) printf("  round trip failed: %s\n", enc ? "re-decode differs" : err);
    zfree(enc);
    clusterMsgRelease(&a);
    return ok;
}

/* A minimal valid PING from node 1: header, no gossip, no extensions. */
static void basePing(clusterMsg *m) {
    memset(m, 0, sizeof(*m));
    m->type = CLUSTERMSG_TYPE_PING;
    m->port = 30001;
    m->cport = 40001;
    m->flags = CLUSTER_NODE_PRIMARY | CLUSTER_NODE_MYSELF;
    strcpy(m->sender, NODE1);
    for (int s = 0; s <= 5460; s++) clusterSlotBitmapSet(m->myslots, s);
}

/* Encodes m or fails the test; the caller frees. */
static unsigned char *mustEncode(const clusterMsg *m, size_t *len) {
    char err[CLUSTER_MSG_ERR_LEN] = "";
    unsigned char *buf = clusterMsgEncode(m, len, err);
    if (!buf) printf("  encode failed: %s\n", err);
    return buf;
}

/* A ping of 1 gossip entry and the four extensions Valkey 8 sends. */
static unsigned char *valkeyPing(size_t *len) {
    clusterMsg m;
    basePing(&m);
    clusterMsgGossip g[1];
    memset(g, 0, sizeof(g));
    strcpy(g[0].nodename, NODE2);
    strcpy(g[0].ip, "10.0.0.2");
    g[0].port = 30002;
    g[0].cport = 40002;
    g[0].flags = CLUSTER_NODE_PRIMARY;
    clusterMsgExt ext[4];
    memset(ext, 0, sizeof(ext));
    ext[0].type = CLUSTERMSG_EXT_TYPE_HOSTNAME;
    ext[0].str = "host-1.example";
    ext[1].type = CLUSTERMSG_EXT_TYPE_HUMAN_NODENAME;
    ext[1].str = "cache-1";
    ext[2].type = CLUSTERMSG_EXT_TYPE_FORGOTTEN_NODE;
    strcpy(ext[2].name, NODE3);
    ext[2].ttl = 60;
    ext[3].type = CLUSTERMSG_EXT_TYPE_SHARDID;
    strcpy(ext[3].name, "0123456789abcdef0123456789abcdef01234567");
    m.count = 1;
    m.extensions = 4;
    m.data.ping.gossip = g;
    m.data.ping.ext = ext;
    return mustEncode(&m, len);
}

static void testCapturedVectors(void) {
    TEST("bus: every captured message decodes and encodes to the same bytes") {
        ASSERT_EQ_LL(NVECTORS, 13);
        for (size_t j = 0; j < NVECTORS; j++) {
            const busVector *v = &busVectors[j];
            unsigned char *buf = vectorBytes(v);
            clusterMsg m;
            char err[CLUSTER_MSG_ERR_LEN] = "";
            int rc = clusterMsgDecode(buf, v->len, &m, err);
            if (rc != CLUSTER_MSG_OK) printf("  %s: %s\n", v->name, err);
            ASSERT(rc == CLUSTER_MSG_OK);
            if (rc == CLUSTER_MSG_OK) {
                size_t len = 0;
                unsigned char *enc = clusterMsgEncode(&m, &len, err);
                ASSERT(enc != NULL);
                if (enc && (len != v->len || memcmp(enc, buf, len) != 0)) {
                    printf("  %s: re-encoding differs\n", v->name);
                    ASSERT(0);
                }
                zfree(enc);
                clusterMsgRelease(&m);
            }
            zfree(buf);
        }
    }

    TEST("bus: a MEET with the hostname extension (redis 7.0)") {
        clusterMsg m;
        int rc;
        unsigned char *buf = decodeVector("vecMeetHostname", &m, &rc);
        ASSERT(rc == CLUSTER_MSG_OK);
        ASSERT_EQ_LL(m.type, CLUSTERMSG_TYPE_MEET);
        ASSERT_EQ_LL(m.totlen, 2280);
        ASSERT_EQ_LL(m.ver, 1);
        ASSERT_STREQ(m.sender, NODE1);
        ASSERT_EQ_LL(m.port, 52101);
        ASSERT_EQ_LL(m.cport, 62201);
        ASSERT_EQ_LL(m.pport, 0);
        ASSERT_EQ_LL(m.flags, CLUSTER_NODE_PRIMARY | CLUSTER_NODE_MYSELF);
        ASSERT_EQ_LL(m.state, CLUSTER_STATE_FAIL);
        ASSERT(slotsAreRange(m.myslots, 0, 5460));
        ASSERT_STREQ(m.replicaof, "");
        ASSERT_STREQ(m.myip, "");
        ASSERT_EQ_LL(m.count, 0);
        ASSERT_EQ_LL(m.mflags[0], CLUSTERMSG_FLAG0_EXT_DATA);
        ASSERT_EQ_LL(m.extensions, 1);
        if (m.extensions == 1) {
            ASSERT_EQ_LL(m.data.ping.ext[0].type, CLUSTERMSG_EXT_TYPE_HOSTNAME);
            ASSERT_STREQ(m.data.ping.ext[0].str, "node-1.example");
        }
        clusterMsgRelease(&m);
        zfree(buf);
    }

    TEST("bus: a PONG with gossip and the hostname extension (redis 7.0)") {
        clusterMsg m;
        int rc;
        unsigned char *buf = decodeVector("vecPongHostname", &m, &rc);
        ASSERT(rc == CLUSTER_MSG_OK);
        ASSERT_EQ_LL(m.type, CLUSTERMSG_TYPE_PONG);
        ASSERT_EQ_LL(m.totlen, 2256 + 2 * 104 + 24);
        ASSERT_EQ_LL(m.count, 2);
        if (rc == CLUSTER_MSG_OK && m.count == 2) {
            const clusterMsgGossip *g = m.data.ping.gossip;
            ASSERT_STREQ(g[0].nodename, NODE2);
            ASSERT_STREQ(g[0].ip, "127.0.0.1");
            ASSERT_EQ_LL(g[0].port, 52102);
            ASSERT_EQ_LL(g[0].cport, 62202);
            ASSERT_EQ_LL(g[0].flags, CLUSTER_NODE_PRIMARY);
            ASSERT_EQ_LL(g[0].ping_sent, 0);
            ASSERT_EQ_LL(g[0].pong_received, 1795912116u);
            ASSERT_EQ_LL(g[0].pport, 0);
            ASSERT_STREQ(g[1].nodename, NODE3);
            ASSERT_EQ_LL(g[1].port, 52103);
            ASSERT_STREQ(m.data.ping.ext[0].str, "node-1.example");
        }
        clusterMsgRelease(&m);
        zfree(buf);
    }

    TEST("bus: a replica's PING names its primary and gossips a failed node (redis 7.0)") {
        clusterMsg m;
        int rc;
        unsigned char *buf = decodeVector("vecPingReplica", &m, &rc);
        ASSERT(rc == CLUSTER_MSG_OK);
        ASSERT_EQ_LL(m.type, CLUSTERMSG_TYPE_PING);
        ASSERT_STREQ(m.sender, NODE1);
        ASSERT_STREQ(m.replicaof, NODE4);
        ASSERT_EQ_LL(m.flags, CLUSTER_NODE_REPLICA | CLUSTER_NODE_MYSELF);
        ASSERT_EQ_LL(m.config_epoch, 4);
        ASSERT_EQ_LL(m.current_epoch, 4);
        ASSERT_EQ_LL(m.offset, 14);
        /* Node 3 has failed: the sender sees the cluster down. */
        ASSERT_EQ_LL(m.state, CLUSTER_STATE_FAIL);
        /* A replica advertises its primary's slots. */
        ASSERT(slotsAreRange(m.myslots, 0, 5460));
        ASSERT_EQ_LL(m.count, 2);
        if (rc == CLUSTER_MSG_OK && m.count == 2) {
            ASSERT_STREQ(m.data.ping.gossip[1].nodename, NODE3);
            ASSERT_EQ_LL(m.data.ping.gossip[1].flags, CLUSTER_NODE_PRIMARY | CLUSTER_NODE_FAIL);
            ASSERT_EQ_LL(m.data.ping.gossip[1].ping_sent, 1795912124u);
        }
        ASSERT_EQ_LL(m.extensions, 1);
        if (rc == CLUSTER_MSG_OK && m.extensions == 1) ASSERT_STREQ(m.data.ping.ext[0].str, "node-1.example");
        clusterMsgRelease(&m);
        zfree(buf);
    }

    TEST("bus: a PING of three gossip entries, one about a node in PFAIL (redis 7.0)") {
        clusterMsg m;
        int rc;
        unsigned char *buf = decodeVector("vecPingGossip3", &m, &rc);
        ASSERT(rc == CLUSTER_MSG_OK);
        ASSERT_EQ_LL(m.totlen, 2256 + 3 * 104);
        ASSERT_EQ_LL(m.offset, 14);
        ASSERT_STREQ(m.replicaof, "");
        ASSERT_EQ_LL(m.config_epoch, 4);
        ASSERT_EQ_LL(m.flags, CLUSTER_NODE_PRIMARY | CLUSTER_NODE_MYSELF | CLUSTER_NODE_MIGRATE_TO);
        ASSERT_EQ_LL(m.state, CLUSTER_STATE_OK);
        ASSERT_EQ_LL(m.count, 3);
        ASSERT_STREQ(m.sender, NODE4);
        if (rc == CLUSTER_MSG_OK && m.count == 3) {
            ASSERT_STREQ(m.data.ping.gossip[2].nodename, NODE3);
            ASSERT_EQ_LL(m.data.ping.gossip[2].flags, CLUSTER_NODE_PRIMARY | CLUSTER_NODE_PFAIL);
            ASSERT_EQ_LL(m.data.ping.gossip[2].ping_sent, 1795912124u);
            ASSERT_EQ_LL(m.data.ping.gossip[2].pong_received, 1795912123u);
            ASSERT_STREQ(m.data.ping.gossip[1].nodename, NODE1);
            ASSERT_EQ_LL(m.data.ping.gossip[1].flags, CLUSTER_NODE_REPLICA);
        }
        clusterMsgRelease(&m);
        zfree(buf);
    }

    TEST("bus: an announced IP is the header's myip (redis 7.0)") {
        clusterMsg m;
        int rc;
        unsigned char *buf = decodeVector("vecPongMyip", &m, &rc);
        ASSERT(rc == CLUSTER_MSG_OK);
        ASSERT_STREQ(m.sender, NODE2);
        ASSERT_STREQ(m.myip, "127.0.0.1");
        /* 5461-10922 and 16383. */
        ASSERT_EQ_LL(clusterSlotBitmapCount(m.myslots), 5463);
        ASSERT(clusterSlotBitmapTest(m.myslots, 16383) && clusterSlotBitmapTest(m.myslots, 5461));
        ASSERT(!clusterSlotBitmapTest(m.myslots, 16382) && !clusterSlotBitmapTest(m.myslots, 5460));
        clusterMsgRelease(&m);
        zfree(buf);
    }

    TEST("bus: FAIL, PUBLISH, PUBLISHSHARD, failover and UPDATE messages (redis 7.0)") {
        clusterMsg m;
        int rc;
        unsigned char *buf = decodeVector("vecFail", &m, &rc);
        ASSERT(rc == CLUSTER_MSG_OK && m.type == CLUSTERMSG_TYPE_FAIL && m.totlen == 2296);
        ASSERT_STREQ(m.data.fail.nodename, NODE3);
        zfree(buf);

        buf = decodeVector("vecPublish", &m, &rc);
        ASSERT(rc == CLUSTER_MSG_OK && m.type == CLUSTERMSG_TYPE_PUBLISH && m.totlen == 2256 + 8 + 4 + 5);
        ASSERT_MEMEQ(m.data.publish.channel, m.data.publish.channel_len, "news");
        ASSERT_MEMEQ(m.data.publish.message, m.data.publish.message_len, "hello");
        zfree(buf);

        buf = decodeVector("vecPublishShard", &m, &rc);
        ASSERT(rc == CLUSTER_MSG_OK && m.type == CLUSTERMSG_TYPE_PUBLISHSHARD);
        ASSERT_MEMEQ(m.data.publish.channel, m.data.publish.channel_len, "b");
        ASSERT_MEMEQ(m.data.publish.message, m.data.publish.message_len, "sharded message");
        zfree(buf);

        buf = decodeVector("vecAuthRequest", &m, &rc);
        ASSERT(rc == CLUSTER_MSG_OK && m.type == CLUSTERMSG_TYPE_FAILOVER_AUTH_REQUEST && m.totlen == 2256);
        ASSERT_EQ_LL(m.mflags[0], CLUSTERMSG_FLAG0_FORCEACK);
        ASSERT_STREQ(m.sender, NODE4);
        ASSERT_STREQ(m.replicaof, NODE1);
        ASSERT_EQ_LL(m.current_epoch, 4);
        zfree(buf);

        buf = decodeVector("vecAuthAck", &m, &rc);
        ASSERT(rc == CLUSTER_MSG_OK && m.type == CLUSTERMSG_TYPE_FAILOVER_AUTH_ACK && m.totlen == 2256);
        ASSERT_STREQ(m.sender, NODE3);
        zfree(buf);

        buf = decodeVector("vecMfstart", &m, &rc);
        ASSERT(rc == CLUSTER_MSG_OK && m.type == CLUSTERMSG_TYPE_MFSTART && m.totlen == 2256);
        ASSERT_STREQ(m.sender, NODE4);
        zfree(buf);

        buf = decodeVector("vecUpdate", &m, &rc);
        ASSERT(rc == CLUSTER_MSG_OK && m.type == CLUSTERMSG_TYPE_UPDATE && m.totlen == 2256 + 2096);
        ASSERT_EQ_LL(m.data.update.config_epoch, 4);
        ASSERT_STREQ(m.data.update.nodename, NODE4);
        ASSERT(slotsAreRange(m.data.update.slots, 0, 5460));
        zfree(buf);
    }
}

static void testValkeyExtensions(void) {
    TEST("bus: Valkey 8's extensions, byte by byte") {
        size_t len = 0;
        unsigned char *buf = valkeyPing(&len);
        /* header, 1 gossip entry, then: hostname 8+16, human nodename 8+8,
         * forgotten node 8+48, shard id 8+40. */
        ASSERT_EQ_LL(len, 2256 + 104 + 24 + 16 + 56 + 48);
        if (buf && len == 2504) {
            unsigned char want[144];
            size_t n = 0;
            n += fromHex("00000018" "0000" "0000" "686f73742d312e6578616d706c650000", want + n);
            n += fromHex("00000010" "0001" "0000" "63616368652d3100", want + n);
            n += fromHex("00000038" "0002" "0000", want + n);
            memcpy(want + n, NODE3, 40);
            n += 40;
            n += fromHex("000000000000003c", want + n);
            n += fromHex("00000030" "0003" "0000", want + n);
            memcpy(want + n, "0123456789abcdef0123456789abcdef01234567", 40);
            n += 40;
            ASSERT_EQ_LL(n, 144);
            ASSERT(memcmp(buf + 2256 + 104, want, n) == 0);
            /* The header says 4 extensions and sets EXT_DATA. */
            ASSERT(buf[2214] == 0 && buf[2215] == 4);
            ASSERT_EQ_LL(buf[2253], CLUSTERMSG_FLAG0_EXT_DATA);
            /* The gossip entry: name, 0 ping, 0 pong, ip, ports, flags. */
            ASSERT(memcmp(buf + 2256, NODE2, 40) == 0);
            ASSERT(memcmp(buf + 2256 + 48, "10.0.0.2\0", 9) == 0);
            ASSERT(buf[2256 + 94] == 0x75 && buf[2256 + 95] == 0x32); /* 30002 */
            ASSERT(buf[2256 + 96] == 0x9c && buf[2256 + 97] == 0x42); /* 40002 */

            clusterMsg m;
            char err[CLUSTER_MSG_ERR_LEN] = "";
            ASSERT_EQ_LL(clusterMsgDecode(buf, len, &m, err), CLUSTER_MSG_OK);
            ASSERT_EQ_LL(m.extensions, 4);
            if (m.extensions == 4) {
                ASSERT_STREQ(m.data.ping.ext[0].str, "host-1.example");
                ASSERT_STREQ(m.data.ping.ext[1].str, "cache-1");
                ASSERT_STREQ(m.data.ping.ext[2].name, NODE3);
                ASSERT_EQ_LL(m.data.ping.ext[2].ttl, 60);
                ASSERT_STREQ(m.data.ping.ext[3].name, "0123456789abcdef0123456789abcdef01234567");
            }
            clusterMsgRelease(&m);
            ASSERT(roundTrips(buf, len));
        }
        zfree(buf);
    }

    TEST("bus: the light header of Valkey 8's PUBLISH and PUBLISHSHARD") {
        clusterMsg m;
        memset(&m, 0, sizeof(m));
        m.type = CLUSTERMSG_TYPE_PUBLISHSHARD;
        m.light = 1;
        m.data.publish.channel = (const unsigned char *)"ch";
        m.data.publish.channel_len = 2;
        m.data.publish.message = (const unsigned char *)"msg";
        m.data.publish.message_len = 3;
        size_t len = 0;
        unsigned char *buf = mustEncode(&m, &len);
        unsigned char want[29];
        fromHex("52436d62" "0000001d" "0001" "0000" "800a" "0000" "00000002" "00000003" "6368" "6d7367", want);
        ASSERT(buf && len == 29 && memcmp(buf, want, 29) == 0);
        clusterMsg d;
        char err[CLUSTER_MSG_ERR_LEN] = "";
        ASSERT_EQ_LL(clusterMsgDecode(want, 29, &d, err), CLUSTER_MSG_OK);
        ASSERT(d.light && d.type == CLUSTERMSG_TYPE_PUBLISHSHARD);
        ASSERT_MEMEQ(d.data.publish.message, d.data.publish.message_len, "msg");
        uint32_t totlen = 0;
        ASSERT_EQ_LL(clusterMsgFrameLength(want, 29, 1 << 20, &totlen, err), CLUSTER_MSG_OK);
        ASSERT_EQ_LL(totlen, 29);
        zfree(buf);
    }

    TEST("bus: MODULE messages, full and light") {
        clusterMsg m;
        basePing(&m);
        m.type = CLUSTERMSG_TYPE_MODULE;
        m.data.module.module_id = 0x0102030405060708ULL;
        m.data.module.type = 7;
        m.data.module.payload = (const unsigned char *)"payload";
        m.data.module.len = 7;
        size_t len = 0;
        unsigned char *buf = mustEncode(&m, &len);
        ASSERT(buf && len == 2256 + 13 + 7);
        if (buf) {
            unsigned char want[20];
            fromHex("0102030405060708" "00000007" "07" "7061796c6f6164", want);
            ASSERT(memcmp(buf + 2256, want, 20) == 0);
            ASSERT(roundTrips(buf, len));
        }
        zfree(buf);
        m.light = 1;
        buf = mustEncode(&m, &len);
        ASSERT(buf && len == 16 + 13 + 7 && buf[12] == 0x80 && buf[13] == 9);
        if (buf) ASSERT(roundTrips(buf, len));
        zfree(buf);
    }

    TEST("bus: an unknown extension type is kept and re-sent, as Valkey skips it") {
        clusterMsg m;
        basePing(&m);
        clusterMsgExt ext[2];
        memset(ext, 0, sizeof(ext));
        ext[0].type = 77;
        ext[0].data = (const unsigned char *)"futurex!";
        ext[0].datalen = 8;
        ext[1].type = CLUSTERMSG_EXT_TYPE_SHARDID;
        strcpy(ext[1].name, NODE4);
        m.extensions = 2;
        m.data.ping.ext = ext;
        size_t len = 0;
        unsigned char *buf = mustEncode(&m, &len);
        ASSERT(buf && len == 2256 + 16 + 48);
        if (buf) {
            clusterMsg d;
            char err[CLUSTER_MSG_ERR_LEN];
            ASSERT_EQ_LL(clusterMsgDecode(buf, len, &d, err), CLUSTER_MSG_OK);
            ASSERT(d.extensions == 2 && d.data.ping.ext[0].type == 77 && d.data.ping.ext[0].datalen == 8);
            ASSERT(memcmp(d.data.ping.ext[0].data, "futurex!", 8) == 0);
            ASSERT_STREQ(d.data.ping.ext[1].name, NODE4);
            clusterMsgRelease(&d);
            ASSERT(roundTrips(buf, len));
        }
        zfree(buf);
    }
}

static void testFraming(void) {
    TEST("bus: frame length from the first 16 bytes") {
        const busVector *v = findVector("vecPingGossip3");
        unsigned char *buf = vectorBytes(v);
        uint32_t totlen = 0;
        char err[CLUSTER_MSG_ERR_LEN] = "";
        ASSERT_EQ_LL(clusterMsgFrameLength(buf, 15, 1 << 20, &totlen, err), CLUSTER_MSG_NEED_MORE);
        ASSERT_EQ_LL(clusterMsgFrameLength(buf, 16, 1 << 20, &totlen, err), CLUSTER_MSG_OK);
        ASSERT_EQ_LL(totlen, v->len);
        /* Above the reader's limit. */
        ASSERT_EQ_LL(clusterMsgFrameLength(buf, 16, 2000, &totlen, err), CLUSTER_MSG_INVALID);
        ASSERT_STREQ(err, "Bad message length or signature received from Cluster bus.");
        /* Shorter than a full header. */
        putBE32(buf + 4, 2255);
        ASSERT_EQ_LL(clusterMsgFrameLength(buf, 16, 1 << 20, &totlen, err), CLUSTER_MSG_INVALID);
        /* ... which a light type may be. */
        putBE16(buf + 12, 0x8004);
        putBE32(buf + 4, 24);
        ASSERT_EQ_LL(clusterMsgFrameLength(buf, 16, 1 << 20, &totlen, err), CLUSTER_MSG_OK);
        putBE32(buf + 4, 15);
        ASSERT_EQ_LL(clusterMsgFrameLength(buf, 16, 1 << 20, &totlen, err), CLUSTER_MSG_INVALID);
        putBE32(buf + 4, 24);
        buf[3] = 'c';
        ASSERT_EQ_LL(clusterMsgFrameLength(buf, 16, 1 << 20, &totlen, err), CLUSTER_MSG_INVALID);
        zfree(buf);
    }
}

/* A copy of vector name (*len bytes) for a test to damage. */
static unsigned char *copyVector(const char *name, size_t *len) {
    const busVector *v = findVector(name);
    *len = v->len;
    return vectorBytes(v);
}

static void testMalformedHeader(void) {
    TEST("bus: malformed frames and headers are refused with their reason") {
        size_t len;
        unsigned char *buf = copyVector("vecPingGossip3", &len);
        const char *bad = "Bad message length or signature received from Cluster bus.";
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_OK, NULL));
        ASSERT(decodeExpect(buf, 0, CLUSTER_MSG_INVALID, bad));
        ASSERT(decodeExpect(buf, 15, CLUSTER_MSG_INVALID, bad));
        ASSERT(decodeExpect(buf, len - 1, CLUSTER_MSG_INVALID, bad)); /* totlen says more */
        buf[0] = 'X';
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID, bad));
        buf[0] = 'R';

        /* Another version or an unknown type: skipped, not an attack. */
        putBE16(buf + 8, 2);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_IGNORE, "Received packet of protocol version 2"));
        putBE16(buf + 8, 1);
        putBE16(buf + 12, 11);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_IGNORE, "Received unknown packet type: 11"));
        putBE16(buf + 12, 0x8000);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID, "Received ping packet with a light header"));
        putBE16(buf + 12, 0);

        /* Node names: 40 lowercase hex digits. */
        buf[40] = 'A';
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID, "Received ping packet with an invalid sender node name"));
        buf[40] = '6';
        buf[2128] = 'z';
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID, "Received ping packet with an invalid primary node name"));
        memcpy(buf + 2128, NODE1, 40);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_OK, NULL));
        memset(buf + 2128, 0, 40);

        /* myip: terminated inside its 46 bytes, address characters only. */
        memset(buf + 2168, 'a', 46);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID, "Received ping packet with an invalid sender address"));
        memset(buf + 2168, 0, 46);
        memcpy(buf + 2168, "1.2.3.4 x", 9);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID, "Received ping packet with an invalid sender address"));
        memset(buf + 2168, 0, 46);
        memcpy(buf + 2168, "fe80::1%eth0", 12);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_OK, NULL));
        memset(buf + 2168, 0, 46);

        buf[2252] = 2;
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID, "Received ping packet with invalid cluster state 2"));
        buf[2252] = 0;

        /* Reserved bytes are not looked at (a later version may use them). */
        memset(buf + 2216, 0xab, 30);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_OK, NULL));
        zfree(buf);
    }
}

static void testMalformedPing(void) {
    TEST("bus: gossip counts and entries are checked") {
        size_t len;
        unsigned char *buf = copyVector("vecPingGossip3", &len);
        putBE16(buf + 14, 4);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received invalid ping packet with gossip count 4 that exceeds total packet length (2568)"));
        putBE16(buf + 14, 2);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received invalid ping packet of length 2568 but expected length 2464"));
        putBE16(buf + 14, 65535);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID, "Received invalid ping packet with gossip count 65535"));
        putBE16(buf + 14, 3);
        buf[2256 + 104 + 5] = 'G';
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received ping packet with an invalid node name in gossip entry 1"));
        buf[2256 + 104 + 5] = '6';
        memset(buf + 2256 + 2 * 104 + 48, '9', 46);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received ping packet with an invalid address in gossip entry 2"));
        zfree(buf);
    }

    TEST("bus: extension lengths, padding, terminators and duplicates are checked") {
        size_t len = 0;
        unsigned char *orig = valkeyPing(&len);
        unsigned char *buf = zmalloc(len);
        size_t ext0 = 2256 + 104; /* hostname extension: 24 bytes */
        size_t ext1 = ext0 + 24;  /* human nodename: 16 */
        size_t ext2 = ext1 + 16;  /* forgotten node: 56 */
        size_t ext3 = ext2 + 56;  /* shard id: 48 */
#define RESET() memcpy(buf, orig, len)
        RESET();
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_OK, NULL));

        putBE32(buf + ext0, 20);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID, "Received a ping packet without proper padding (20 bytes)"));
        /* A zero length would never move forward. */
        putBE32(buf + ext0, 0);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID, "Received a ping packet without proper padding (0 bytes)"));
        putBE32(buf + ext0, 0x7ffffff8);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received invalid ping packet with extension data that exceeds total packet length (2504)"));
        RESET();
        putBE16(buf + 2214, 5); /* one more extension than there are */
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received invalid ping packet with extension data that exceeds total packet length"));
        RESET();
        putBE16(buf + 2214, 3); /* one extension left over */
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received invalid ping packet of length 2504 but expected length 2456"));
        RESET();
        buf[2253] = 0; /* extensions without the flag */
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received ping packet with 4 extensions but without the extension flag"));

        RESET();
        memset(buf + ext0 + 8, 'a', 16); /* no terminator */
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received ping packet with missing null terminator in extension type 0"));
        RESET();
        buf[ext0 + 8 + 15] = 'x'; /* garbage in the padding */
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received ping packet with an invalid string in extension type 0"));
        RESET();
        buf[ext0 + 8 + 4] = ' ';
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received ping packet with an invalid string in extension type 0"));
        RESET();
        buf[ext1 + 8 + 2] = '\x01'; /* a control byte in a human node name */
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received ping packet with an invalid string in extension type 1"));
        RESET();
        buf[ext1 + 8 + 2] = ' '; /* a space is text: the receiver decides (Valkey 8 allows it) */
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_OK, NULL));
        RESET();
        buf[ext2 + 8] = 'Q';
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received ping packet with an invalid extension of type 2"));
        RESET();
        buf[ext3 + 8 + 39] = '.';
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received ping packet with an invalid extension of type 3"));
        RESET();
        putBE16(buf + ext1 + 4, CLUSTERMSG_EXT_TYPE_HOSTNAME); /* two hostnames */
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received ping packet with a repeated extension of type 0"));
        RESET();
        putBE16(buf + ext3 + 4, CLUSTERMSG_EXT_TYPE_FORGOTTEN_NODE); /* 48 bytes where 56 are due */
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received ping packet with an invalid extension of type 2"));
        RESET();
        /* A string extension with a whole block of padding too many:
         * "ab" in 16 bytes where 8 hold it. */
        memset(buf + ext0 + 8, 0, 16);
        memcpy(buf + ext0 + 8, "ab", 2);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received ping packet with an invalid string in extension type 0"));
#undef RESET
        zfree(buf);
        zfree(orig);
    }
}

static void testMalformedOthers(void) {
    TEST("bus: the other types' lengths and names are checked") {
        size_t len;
        unsigned char *buf = copyVector("vecPublish", &len);
        putBE32(buf + 2256, 5); /* channel_len one more */
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID,
                            "Received invalid publish packet of length 2273 but expected length 2274"));
        /* 32-bit lengths that would wrap around in 32-bit arithmetic. */
        putBE32(buf + 2256, 0xffffffff);
        putBE32(buf + 2260, 10);
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID, "Received invalid publish packet of length 2273"));
        /* Too short for the two lengths. */
        putBE32(buf + 4, 2260);
        ASSERT(decodeExpect(buf, 2260, CLUSTER_MSG_INVALID,
                            "Received invalid publish packet of length 2260 but expected length 2264"));
        zfree(buf);

        buf = copyVector("vecFail", &len);
        buf[2256 + 39] = 'X';
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID, "Received fail packet with an invalid node name"));
        putBE32(buf + 4, 2295);
        ASSERT(decodeExpect(buf, 2295, CLUSTER_MSG_INVALID,
                            "Received invalid fail packet of length 2295 but expected length 2296"));
        zfree(buf);

        buf = copyVector("vecUpdate", &len);
        buf[2256 + 8] = '-';
        ASSERT(decodeExpect(buf, len, CLUSTER_MSG_INVALID, "Received update packet with an invalid node name"));
        zfree(buf);

        buf = copyVector("vecMfstart", &len);
        unsigned char *longer = zcalloc(len + 8);
        memcpy(longer, buf, len);
        putBE32(longer + 4, (uint32_t)len + 8);
        ASSERT(decodeExpect(longer, len + 8, CLUSTER_MSG_INVALID,
                            "Received invalid mfstart packet of length 2264 but expected length 2256"));
        zfree(longer);
        zfree(buf);

        /* A light PUBLISH whose lengths overrun. */
        unsigned char light[29];
        fromHex("52436d62" "0000001d" "0001" "0000" "8004" "0000" "00000003" "00000003" "6368" "6d7367", light);
        ASSERT(decodeExpect(light, 29, CLUSTER_MSG_INVALID,
                            "Received invalid publish packet of length 29 but expected length 30"));
        /* A light MODULE shorter than its fixed part. */
        fromHex("52436d62" "00000014" "0001" "0000" "8009" "0000" "0000000000000001", light);
        ASSERT(decodeExpect(light, 20, CLUSTER_MSG_INVALID,
                            "Received invalid module packet of length 20 but expected length 29"));
    }

    TEST("bus: the encoder refuses what the decoder would refuse") {
        clusterMsg m;
        size_t len;
        char err[CLUSTER_MSG_ERR_LEN] = "";
        basePing(&m);
        m.sender[3] = 'X';
        ASSERT(clusterMsgEncode(&m, &len, err) == NULL);
        ASSERT_STREQ(err, "Can't encode ping packet: invalid sender node name");
        basePing(&m);
        strcpy(m.myip, "1.2.3.4,5");
        ASSERT(clusterMsgEncode(&m, &len, err) == NULL);
        basePing(&m);
        m.type = 11;
        ASSERT(clusterMsgEncode(&m, &len, err) == NULL);
        ASSERT_STREQ(err, "Can't encode packet of unknown type 11");
        basePing(&m);
        m.light = 1;
        ASSERT(clusterMsgEncode(&m, &len, err) == NULL);
        basePing(&m);
        m.state = 3;
        ASSERT(clusterMsgEncode(&m, &len, err) == NULL);

        clusterMsgExt ext[2];
        memset(ext, 0, sizeof(ext));
        basePing(&m);
        m.extensions = 1;
        m.data.ping.ext = ext;
        ext[0].type = CLUSTERMSG_EXT_TYPE_HOSTNAME;
        ext[0].str = "two words";
        ASSERT(clusterMsgEncode(&m, &len, err) == NULL);
        ASSERT_STREQ(err, "Can't encode extension of type 0: invalid content");
        char longname[300];
        memset(longname, 'h', sizeof(longname) - 1);
        longname[299] = '\0';
        ext[0].str = longname;
        ASSERT(clusterMsgEncode(&m, &len, err) == NULL);
        ext[0].str = "ok";
        ext[1] = ext[0];
        m.extensions = 2;
        ASSERT(clusterMsgEncode(&m, &len, err) == NULL);
        ASSERT_STREQ(err, "Can't encode ping packet: repeated extension of type 0");
        ext[1].type = 99;
        ext[1].datalen = 3;
        ext[1].data = (const unsigned char *)"abc";
        ASSERT(clusterMsgEncode(&m, &len, err) == NULL);
        m.extensions = 1;
        unsigned char *buf = mustEncode(&m, &len);
        ASSERT(buf && len == 2256 + 16);
        zfree(buf);
    }
}

/* Damages copies of the vectors at random and decodes them: never a crash
 * (the sanitized build checks every access), and what decodes round-trips.
 * Damage goes mostly into the header fields and the data. */
static void testRandomDamage(void) {
    TEST("bus: truncated messages are refused at every length") {
        for (size_t j = 0; j < NVECTORS; j++) {
            size_t len;
            unsigned char *buf = copyVector(busVectors[j].name, &len);
            int refused = 1;
            for (size_t n = 0; n < len; n += 1 + n / 64) {
                /* The frame says n bytes, the data is cut: a length error. */
                putBE32(buf + 4, (uint32_t)n);
                clusterMsg m;
                char err[CLUSTER_MSG_ERR_LEN];
                int rc = clusterMsgDecode(buf, n, &m, err);
                if (rc == CLUSTER_MSG_OK) {
                    clusterMsgRelease(&m);
                    refused = 0;
                }
            }
            ASSERT(refused);
            zfree(buf);
        }
    }

    TEST("bus: random damage is refused or round-trips") {
        size_t vlen = 0;
        unsigned char *valkey = valkeyPing(&vlen);
        int decoded = 0, refused = 0, bad = 0;
        for (int round = 0; round < 30000; round++) {
            size_t j = (size_t)rand() % (NVECTORS + 1);
            size_t len;
            unsigned char *buf;
            if (j == NVECTORS) {
                len = vlen;
                buf = zmalloc(len);
                memcpy(buf, valkey, len);
            } else {
                buf = copyVector(busVectors[j].name, &len);
            }
            int hits = 1 + rand() % 4;
            for (int h = 0; h < hits; h++) {
                size_t at;
                switch (rand() % 3) {
                case 0: at = (size_t)rand() % 16; break;                   /* frame */
                case 1: at = 2200 + (size_t)rand() % 56; break;            /* header tail */
                default: at = 2256 + (size_t)rand() % (len - 2255); break; /* data */
                }
                if (at < len) buf[at] = (unsigned char)(rand() % 4 ? rand() : buf[at] ^ (1 << (rand() % 8)));
            }
            /* Keep the frame length honest half of the time, so the
             * damage reaches the checks behind it. */
            if (rand() % 2) putBE32(buf + 4, (uint32_t)len);
            clusterMsg m;
            char err[CLUSTER_MSG_ERR_LEN];
            int rc = clusterMsgDecode(buf, len, &m, err);
            if (rc == CLUSTER_MSG_OK) {
                decoded++;
                clusterMsgRelease(&m);
                if (!roundTrips(buf, len)) bad++;
            } else {
                refused++;
            }
            zfree(buf);
        }
        ASSERT_EQ_LL(bad, 0);
        ASSERT(decoded > 1000 && refused > 1000);
        zfree(valkey);
    }
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    srand(2256);
    testCapturedVectors();
    testValkeyExtensions();
    testFraming();
    testMalformedHeader();
    testMalformedPing();
    testMalformedOthers();
    testRandomDamage();
    return UT_END();
}
