/* cluster_msg.c - decoding and encoding cluster bus messages.
 *
 * The layout is declared once, in cluster_msg.h (the clusterWire* structs
 * with a _Static_assert on every offset that matters); this file is the
 * only place that reads or writes those structs, and the only place where
 * byte order is converted: decoding copies each wire struct out of the
 * buffer (memcpy: received bytes need not be aligned) and converts every
 * field to host order into a clusterMsg; encoding does the reverse into a
 * zeroed buffer. The layout was checked against the traffic of a real
 * cluster of redis-server 7.0 nodes (utils/cluster-capture; the captured
 * messages are the unit tests' vectors and the fuzz target's seeds).
 *
 * Decoding checks everything a peer controls before anything is trusted,
 * in the order a reader meets it: the frame (signature, totlen equal to
 * the bytes read), the version and type (a version or type we do not know
 * is skipped, as Valkey skips it, not treated as an attack), the header's
 * node names and strings, then the type's data, whose expected length is
 * recomputed from what the message says (gossip count, extension lengths,
 * publish lengths) in 64-bit arithmetic and must equal totlen exactly.
 * Messages of Valkey's log wording keep Valkey's text; the checks Valkey
 * does not make (node names, strings, padding, duplicates) have their own.
 *
 * Encoding runs the same field checks on what the bus hands it, so a
 * message we send always decodes on our side, and, for a message decoded
 * from a peer, gives back the same bytes except where the peer left
 * garbage in reserved bytes or after a string's terminator. */
#include "cluster_msg.h"
#include "zmalloc.h"

#include <arpa/inet.h>
#include <endian.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * Names, strings and errors
 * ------------------------------------------------------------------------ */

const char *clusterMsgTypeName(int type) {
    switch (type) {
    case CLUSTERMSG_TYPE_PING: return "ping";
    case CLUSTERMSG_TYPE_PONG: return "pong";
    case CLUSTERMSG_TYPE_MEET: return "meet";
    case CLUSTERMSG_TYPE_FAIL: return "fail";
    case CLUSTERMSG_TYPE_PUBLISH: return "publish";
    case CLUSTERMSG_TYPE_PUBLISHSHARD: return "publishshard";
    case CLUSTERMSG_TYPE_FAILOVER_AUTH_REQUEST: return "auth-req";
    case CLUSTERMSG_TYPE_FAILOVER_AUTH_ACK: return "auth-ack";
    case CLUSTERMSG_TYPE_UPDATE: return "update";
    case CLUSTERMSG_TYPE_MFSTART: return "mfstart";
    case CLUSTERMSG_TYPE_MODULE: return "module";
    }
    return "unknown";
}

static void msgError(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void msgError(char *err, const char *fmt, ...) {
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, CLUSTER_MSG_ERR_LEN, fmt, ap);
    va_end(ap);
}

int clusterIsValidNodeName(const char *name) {
    for (int j = 0; j < CLUSTER_NAMELEN; j++) {
        char c = name[j];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return 0;
    }
    return 1;
}

static int isAllZero(const void *p, size_t len) {
    const unsigned char *b = p;
    for (size_t j = 0; j < len; j++)
        if (b[j]) return 0;
    return 1;
}

int clusterIsValidAddress(const char *s, size_t len) {
    for (size_t j = 0; j < len; j++) {
        char c = s[j];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == ':' ||
              c == '-' || c == '_' || c == '%'))
            return 0;
    }
    return len < CLUSTER_IPLEN;
}

int clusterIsValidHostname(const char *s, size_t len) {
    for (size_t j = 0; j < len; j++) {
        char c = s[j];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '-' ||
              c == '_'))
            return 0;
    }
    return len <= CLUSTER_HOSTNAME_MAXLEN;
}

int clusterIsValidHumanNodename(const char *s, size_t len) {
    for (size_t j = 0; j < len; j++) {
        unsigned char c = (unsigned char)s[j];
        if (c <= ' ' || c >= 0x7f || c == ',' || c == '=') return 0;
    }
    return len <= CLUSTER_HOSTNAME_MAXLEN;
}

/* Text of at most CLUSTER_HOSTNAME_MAXLEN bytes without control bytes. */
static int isPrintableText(const char *s, size_t len) {
    for (size_t j = 0; j < len; j++) {
        unsigned char c = (unsigned char)s[j];
        if (c < ' ' || c == 0x7f) return 0;
    }
    return len <= CLUSTER_HOSTNAME_MAXLEN;
}

/* A NUL-terminated address inside an array of CLUSTER_IPLEN bytes. */
static int isAddressArray(const char *arr) {
    const char *nul = memchr(arr, '\0', CLUSTER_IPLEN);
    return nul && clusterIsValidAddress(arr, (size_t)(nul - arr));
}

/* Bytes an extension of data length n takes: its header and n rounded up
 * to a multiple of 8. */
static uint64_t extLength(uint64_t n) {
    return CLUSTERMSG_EXT_HEADER_LEN + ((n + 7) & ~(uint64_t)7);
}

static int isPingType(int type) {
    return type == CLUSTERMSG_TYPE_PING || type == CLUSTERMSG_TYPE_PONG || type == CLUSTERMSG_TYPE_MEET;
}

/* Types that may travel with the light header. */
static int isLightCapableType(int type) {
    return type == CLUSTERMSG_TYPE_PUBLISH || type == CLUSTERMSG_TYPE_PUBLISHSHARD || type == CLUSTERMSG_TYPE_MODULE;
}

/* Copies a 40-byte node name from the wire into a NUL-terminated buffer. */
static void copyName(char *dst, const char *wire) {
    memcpy(dst, wire, CLUSTER_NAMELEN);
    dst[CLUSTER_NAMELEN] = '\0';
}

/* ---------------------------------------------------------------------------
 * Framing
 * ------------------------------------------------------------------------ */

int clusterMsgFrameLength(const unsigned char *buf, size_t len, uint64_t maxlen, uint32_t *totlen, char *err) {
    if (len < CLUSTERMSG_MIN_READ_LEN) return CLUSTER_MSG_NEED_MORE;
    clusterWireLightHeader h;
    memcpy(&h, buf, sizeof(h));
    uint32_t n = ntohl(h.totlen);
    uint32_t min = (ntohs(h.type) & CLUSTERMSG_LIGHT) ? CLUSTERMSG_LIGHT_HEADER_LEN : CLUSTERMSG_HEADER_LEN;
    if (memcmp(h.sig, "RCmb", 4) != 0 || n < min || n > maxlen) {
        msgError(err, "Bad message length or signature received from Cluster bus.");
        return CLUSTER_MSG_INVALID;
    }
    *totlen = n;
    return CLUSTER_MSG_OK;
}

/* ---------------------------------------------------------------------------
 * Decoding
 * ------------------------------------------------------------------------ */

/* A reader over the data part of a message: p moves forward, left says how
 * many bytes remain. */
typedef struct msgCursor {
    const unsigned char *p;
    uint64_t left;
} msgCursor;

static int checkLength(const clusterMsg *m, uint64_t totlen, uint64_t expected, char *err) {
    if (totlen == expected) return C_OK;
    msgError(err, "Received invalid %s packet of length %lld but expected length %lld", clusterMsgTypeName(m->type),
             (long long)totlen, (long long)expected);
    return C_ERR;
}

/* The header fields after the 16 bytes every frame shares. */
static int decodeFullHeader(const unsigned char *buf, clusterMsg *m, char *err) {
    clusterWireHeader h;
    memcpy(&h, buf, sizeof(h));
    m->port = ntohs(h.port);
    m->count = ntohs(h.count);
    m->current_epoch = be64toh(h.current_epoch);
    m->config_epoch = be64toh(h.config_epoch);
    m->offset = be64toh(h.offset);
    m->extensions = ntohs(h.extensions);
    m->pport = ntohs(h.pport);
    m->cport = ntohs(h.cport);
    m->flags = ntohs(h.flags);
    m->state = h.state;
    memcpy(m->mflags, h.mflags, sizeof(m->mflags));
    memcpy(m->myslots, h.myslots, sizeof(m->myslots));

    const char *type = clusterMsgTypeName(m->type);
    if (!clusterIsValidNodeName(h.sender)) {
        msgError(err, "Received %s packet with an invalid sender node name", type);
        return C_ERR;
    }
    copyName(m->sender, h.sender);
    if (isAllZero(h.replicaof, CLUSTER_NAMELEN)) {
        m->replicaof[0] = '\0';
    } else if (clusterIsValidNodeName(h.replicaof)) {
        copyName(m->replicaof, h.replicaof);
    } else {
        msgError(err, "Received %s packet with an invalid primary node name", type);
        return C_ERR;
    }
    if (!isAddressArray(h.myip)) {
        msgError(err, "Received %s packet with an invalid sender address", type);
        return C_ERR;
    }
    strcpy(m->myip, h.myip);
    if (m->state != CLUSTER_STATE_OK && m->state != CLUSTER_STATE_FAIL) {
        msgError(err, "Received %s packet with invalid cluster state %d", type, m->state);
        return C_ERR;
    }
    return C_OK;
}

static int decodeGossip(msgCursor *c, clusterMsg *m, char *err) {
    const char *type = clusterMsgTypeName(m->type);
    if ((uint64_t)m->count * CLUSTERMSG_GOSSIP_LEN > c->left) {
        msgError(err, "Received invalid %s packet with gossip count %d that exceeds total packet length (%lld)", type,
                 m->count, (long long)m->totlen);
        return C_ERR;
    }
    if (m->count == 0) return C_OK;
    m->data.ping.gossip = zcalloc(sizeof(clusterMsgGossip) * m->count);
    for (int i = 0; i < m->count; i++) {
        clusterWireGossip w;
        clusterMsgGossip *g = &m->data.ping.gossip[i];
        memcpy(&w, c->p, sizeof(w));
        c->p += sizeof(w);
        c->left -= sizeof(w);
        if (!clusterIsValidNodeName(w.nodename)) {
            msgError(err, "Received %s packet with an invalid node name in gossip entry %d", type, i);
            return C_ERR;
        }
        if (!isAddressArray(w.ip)) {
            msgError(err, "Received %s packet with an invalid address in gossip entry %d", type, i);
            return C_ERR;
        }
        copyName(g->nodename, w.nodename);
        strcpy(g->ip, w.ip);
        g->ping_sent = ntohl(w.ping_sent);
        g->pong_received = ntohl(w.pong_received);
        g->port = ntohs(w.port);
        g->cport = ntohs(w.cport);
        g->flags = ntohs(w.flags);
        g->pport = ntohs(w.pport);
    }
    return C_OK;
}

/* A string extension (HOSTNAME, HUMAN_NODENAME): NUL-terminated, padded
 * with zeros to exactly the next multiple of 8. */
static int decodeStringExt(const unsigned char *data, uint32_t datalen, clusterMsg *m, clusterMsgExt *e, char *err) {
    const char *type = clusterMsgTypeName(m->type);
    const unsigned char *nul = memchr(data, '\0', datalen);
    if (!nul) {
        msgError(err, "Received %s packet with missing null terminator in extension type %d", type, e->type);
        return C_ERR;
    }
    size_t slen = (size_t)(nul - data);
    /* A human node name is only shown, so any text without control bytes
     * passes here (Valkey 8 lets CONFIG SET put spaces in one); whether
     * it can be stored is the receiver's business (processPingExtensions). */
    int valid = e->type == CLUSTERMSG_EXT_TYPE_HOSTNAME ? clusterIsValidHostname((const char *)data, slen)
                                                         : isPrintableText((const char *)data, slen);
    if (extLength(slen + 1) != CLUSTERMSG_EXT_HEADER_LEN + (uint64_t)datalen || !isAllZero(nul, datalen - slen) ||
        !valid) {
        msgError(err, "Received %s packet with an invalid string in extension type %d", type, e->type);
        return C_ERR;
    }
    e->str = (const char *)data;
    return C_OK;
}

/* A node name extension (SHARDID: 40 bytes; FORGOTTEN_NODE: 40 bytes and
 * a ttl): exactly its size. */
static int decodeNameExt(const unsigned char *data, uint32_t datalen, clusterMsg *m, clusterMsgExt *e, char *err) {
    uint32_t want = e->type == CLUSTERMSG_EXT_TYPE_SHARDID ? CLUSTER_NAMELEN : sizeof(clusterWireForgotten);
    if (datalen != want || !clusterIsValidNodeName((const char *)data)) {
        msgError(err, "Received %s packet with an invalid extension of type %d", clusterMsgTypeName(m->type), e->type);
        return C_ERR;
    }
    copyName(e->name, (const char *)data);
    if (e->type == CLUSTERMSG_EXT_TYPE_FORGOTTEN_NODE) {
        clusterWireForgotten w;
        memcpy(&w, data, sizeof(w));
        e->ttl = be64toh(w.ttl);
    }
    return C_OK;
}

static int decodeExtensions(msgCursor *c, clusterMsg *m, char *err) {
    const char *type = clusterMsgTypeName(m->type);
    uint64_t totlen = m->totlen;
    if (!(m->mflags[0] & CLUSTERMSG_FLAG0_EXT_DATA)) {
        if (m->extensions == 0) return C_OK;
        msgError(err, "Received %s packet with %d extensions but without the extension flag", type, m->extensions);
        return C_ERR;
    }
    if (m->extensions == 0) return C_OK;
    m->data.ping.ext = zcalloc(sizeof(clusterMsgExt) * m->extensions);
    unsigned seen = 0; /* Bit t: a singleton extension of type t was seen. */
    for (int i = 0; i < m->extensions; i++) {
        clusterMsgExt *e = &m->data.ping.ext[i];
        clusterWireExtHeader h;
        if (c->left < sizeof(h)) {
            msgError(err, "Received invalid %s packet with extension data that exceeds total packet length (%lld)",
                     type, (long long)totlen);
            return C_ERR;
        }
        memcpy(&h, c->p, sizeof(h));
        uint32_t extlen = ntohl(h.length);
        e->type = ntohs(h.type);
        if (extlen < sizeof(h) || extlen % 8 != 0) {
            msgError(err, "Received a %s packet without proper padding (%d bytes)", type, (int)extlen);
            return C_ERR;
        }
        if (extlen > c->left) {
            msgError(err, "Received invalid %s packet with extension data that exceeds total packet length (%lld)",
                     type, (long long)totlen);
            return C_ERR;
        }
        const unsigned char *data = c->p + sizeof(h);
        uint32_t datalen = extlen - (uint32_t)sizeof(h);
        c->p += extlen;
        c->left -= extlen;
        int ok;
        switch (e->type) {
        case CLUSTERMSG_EXT_TYPE_HOSTNAME:
        case CLUSTERMSG_EXT_TYPE_HUMAN_NODENAME: ok = decodeStringExt(data, datalen, m, e, err); break;
        case CLUSTERMSG_EXT_TYPE_SHARDID:
        case CLUSTERMSG_EXT_TYPE_FORGOTTEN_NODE: ok = decodeNameExt(data, datalen, m, e, err); break;
        default:
            /* A later version's extension: kept, as Valkey skips it. */
            e->data = data;
            e->datalen = datalen;
            ok = C_OK;
        }
        if (ok != C_OK) return C_ERR;
        if (e->type <= CLUSTERMSG_EXT_TYPE_SHARDID && e->type != CLUSTERMSG_EXT_TYPE_FORGOTTEN_NODE) {
            if (seen & (1u << e->type)) {
                msgError(err, "Received %s packet with a repeated extension of type %d", type, e->type);
                return C_ERR;
            }
            seen |= 1u << e->type;
        }
    }
    return C_OK;
}

static int decodePing(msgCursor *c, clusterMsg *m, char *err) {
    if (decodeGossip(c, m, err) != C_OK || decodeExtensions(c, m, err) != C_OK) return C_ERR;
    return checkLength(m, m->totlen, m->totlen - c->left, err);
}

static int decodeFail(msgCursor *c, clusterMsg *m, uint64_t hdrlen, char *err) {
    if (checkLength(m, m->totlen, hdrlen + CLUSTERMSG_FAIL_LEN, err) != C_OK) return C_ERR;
    if (!clusterIsValidNodeName((const char *)c->p)) {
        msgError(err, "Received fail packet with an invalid node name");
        return C_ERR;
    }
    copyName(m->data.fail.nodename, (const char *)c->p);
    return C_OK;
}

static int decodePublish(msgCursor *c, clusterMsg *m, uint64_t hdrlen, char *err) {
    clusterWirePublish w;
    if (c->left < sizeof(w)) return checkLength(m, m->totlen, hdrlen + sizeof(w), err);
    memcpy(&w, c->p, sizeof(w));
    m->data.publish.channel_len = ntohl(w.channel_len);
    m->data.publish.message_len = ntohl(w.message_len);
    uint64_t expected = hdrlen + sizeof(w) + (uint64_t)m->data.publish.channel_len + m->data.publish.message_len;
    if (checkLength(m, m->totlen, expected, err) != C_OK) return C_ERR;
    m->data.publish.channel = c->p + sizeof(w);
    m->data.publish.message = m->data.publish.channel + m->data.publish.channel_len;
    return C_OK;
}

static int decodeUpdate(msgCursor *c, clusterMsg *m, uint64_t hdrlen, char *err) {
    if (checkLength(m, m->totlen, hdrlen + CLUSTERMSG_UPDATE_LEN, err) != C_OK) return C_ERR;
    clusterWireUpdate w;
    memcpy(&w, c->p, sizeof(w));
    if (!clusterIsValidNodeName(w.nodename)) {
        msgError(err, "Received update packet with an invalid node name");
        return C_ERR;
    }
    m->data.update.config_epoch = be64toh(w.config_epoch);
    copyName(m->data.update.nodename, w.nodename);
    memcpy(m->data.update.slots, w.slots, sizeof(w.slots));
    return C_OK;
}

static int decodeModule(msgCursor *c, clusterMsg *m, uint64_t hdrlen, char *err) {
    clusterWireModule w;
    if (c->left < CLUSTERMSG_MODULE_FIXED_LEN) return checkLength(m, m->totlen, hdrlen + CLUSTERMSG_MODULE_FIXED_LEN, err);
    memcpy(&w, c->p, CLUSTERMSG_MODULE_FIXED_LEN);
    m->data.module.module_id = be64toh(w.module_id);
    m->data.module.len = ntohl(w.len);
    m->data.module.type = w.type;
    if (checkLength(m, m->totlen, hdrlen + CLUSTERMSG_MODULE_FIXED_LEN + (uint64_t)m->data.module.len, err) != C_OK)
        return C_ERR;
    m->data.module.payload = c->p + CLUSTERMSG_MODULE_FIXED_LEN;
    return C_OK;
}

/* The type's data, after a header of hdrlen bytes. */
static int decodeData(const unsigned char *buf, clusterMsg *m, uint64_t hdrlen, char *err) {
    msgCursor c = {buf + hdrlen, m->totlen - hdrlen};
    switch (m->type) {
    case CLUSTERMSG_TYPE_PING:
    case CLUSTERMSG_TYPE_PONG:
    case CLUSTERMSG_TYPE_MEET: return decodePing(&c, m, err);
    case CLUSTERMSG_TYPE_FAIL: return decodeFail(&c, m, hdrlen, err);
    case CLUSTERMSG_TYPE_PUBLISH:
    case CLUSTERMSG_TYPE_PUBLISHSHARD: return decodePublish(&c, m, hdrlen, err);
    case CLUSTERMSG_TYPE_FAILOVER_AUTH_REQUEST:
    case CLUSTERMSG_TYPE_FAILOVER_AUTH_ACK:
    case CLUSTERMSG_TYPE_MFSTART: return checkLength(m, m->totlen, hdrlen, err);
    case CLUSTERMSG_TYPE_UPDATE: return decodeUpdate(&c, m, hdrlen, err);
    case CLUSTERMSG_TYPE_MODULE: return decodeModule(&c, m, hdrlen, err);
    }
    return C_ERR; /* Not reached: the type was checked. */
}

int clusterMsgDecode(const unsigned char *buf, size_t len, clusterMsg *msg, char *err) {
    memset(msg, 0, sizeof(*msg));
    clusterWireLightHeader h;
    if (len < sizeof(h)) {
        msgError(err, "Bad message length or signature received from Cluster bus.");
        return CLUSTER_MSG_INVALID;
    }
    memcpy(&h, buf, sizeof(h));
    uint16_t rawtype = ntohs(h.type);
    msg->totlen = ntohl(h.totlen);
    msg->ver = ntohs(h.ver);
    msg->type = rawtype & ~CLUSTERMSG_LIGHT;
    msg->light = (rawtype & CLUSTERMSG_LIGHT) != 0;
    uint64_t hdrlen = msg->light ? CLUSTERMSG_LIGHT_HEADER_LEN : CLUSTERMSG_HEADER_LEN;
    if (memcmp(h.sig, "RCmb", 4) != 0 || msg->totlen != len || len < hdrlen) {
        msgError(err, "Bad message length or signature received from Cluster bus.");
        return CLUSTER_MSG_INVALID;
    }
    if (msg->ver != CLUSTER_PROTO_VER) {
        msgError(err, "Received packet of protocol version %d: only version %d is supported", msg->ver,
                 CLUSTER_PROTO_VER);
        return CLUSTER_MSG_IGNORE;
    }
    if (msg->type >= CLUSTERMSG_TYPE_COUNT) {
        msgError(err, "Received unknown packet type: %d", rawtype);
        return CLUSTER_MSG_IGNORE;
    }
    if (msg->light && !isLightCapableType(msg->type)) {
        msgError(err, "Received %s packet with a light header, which that type never has",
                 clusterMsgTypeName(msg->type));
        return CLUSTER_MSG_INVALID;
    }
    if ((!msg->light && decodeFullHeader(buf, msg, err) != C_OK) || decodeData(buf, msg, hdrlen, err) != C_OK) {
        clusterMsgRelease(msg);
        return CLUSTER_MSG_INVALID;
    }
    return CLUSTER_MSG_OK;
}

void clusterMsgRelease(clusterMsg *msg) {
    if (!isPingType(msg->type)) return;
    zfree(msg->data.ping.gossip);
    zfree(msg->data.ping.ext);
    msg->data.ping.gossip = NULL;
    msg->data.ping.ext = NULL;
}

/* ---------------------------------------------------------------------------
 * Encoding
 * ------------------------------------------------------------------------ */

/* Checks one extension to send and returns its encoded length, or 0 with
 * err set. */
static uint64_t extEncodedLength(const clusterMsgExt *e, char *err) {
    switch (e->type) {
    case CLUSTERMSG_EXT_TYPE_HOSTNAME:
    case CLUSTERMSG_EXT_TYPE_HUMAN_NODENAME: {
        size_t n = e->str ? strlen(e->str) : 0;
        int valid = e->type == CLUSTERMSG_EXT_TYPE_HOSTNAME ? clusterIsValidHostname(e->str, n)
                                                             : isPrintableText(e->str, n);
        if (!e->str || !valid) break;
        return extLength(n + 1);
    }
    case CLUSTERMSG_EXT_TYPE_SHARDID:
        if (!clusterIsValidNodeName(e->name)) break;
        return extLength(CLUSTER_NAMELEN);
    case CLUSTERMSG_EXT_TYPE_FORGOTTEN_NODE:
        if (!clusterIsValidNodeName(e->name)) break;
        return extLength(sizeof(clusterWireForgotten));
    default:
        if (e->datalen % 8 != 0 || (e->datalen && !e->data) || e->datalen > UINT32_MAX - CLUSTERMSG_EXT_HEADER_LEN)
            break;
        return CLUSTERMSG_EXT_HEADER_LEN + (uint64_t)e->datalen;
    }
    msgError(err, "Can't encode extension of type %d: invalid content", e->type);
    return 0;
}

/* Checks the header fields of a full message to send. */
static int checkHeaderToSend(const clusterMsg *m, char *err) {
    if (!clusterIsValidNodeName(m->sender) || m->sender[CLUSTER_NAMELEN] != '\0') {
        msgError(err, "Can't encode %s packet: invalid sender node name", clusterMsgTypeName(m->type));
        return C_ERR;
    }
    if (m->replicaof[0] && (!clusterIsValidNodeName(m->replicaof) || m->replicaof[CLUSTER_NAMELEN] != '\0')) {
        msgError(err, "Can't encode %s packet: invalid primary node name", clusterMsgTypeName(m->type));
        return C_ERR;
    }
    if (!isAddressArray(m->myip)) {
        msgError(err, "Can't encode %s packet: invalid address", clusterMsgTypeName(m->type));
        return C_ERR;
    }
    if (m->state != CLUSTER_STATE_OK && m->state != CLUSTER_STATE_FAIL) {
        msgError(err, "Can't encode %s packet: invalid cluster state %d", clusterMsgTypeName(m->type), m->state);
        return C_ERR;
    }
    return C_OK;
}

/* Checks a PING/PONG/MEET's gossip and extensions and returns the data
 * length; *ok is 0 (err set) when they may not be sent. */
static uint64_t pingDataLength(const clusterMsg *m, int *ok, char *err) {
    *ok = 0;
    uint64_t n = (uint64_t)m->count * CLUSTERMSG_GOSSIP_LEN;
    if (m->count && !m->data.ping.gossip) {
        msgError(err, "Can't encode %s packet: gossip entries missing", clusterMsgTypeName(m->type));
        return 0;
    }
    for (int i = 0; i < m->count; i++) {
        const clusterMsgGossip *g = &m->data.ping.gossip[i];
        if (!clusterIsValidNodeName(g->nodename) || g->nodename[CLUSTER_NAMELEN] != '\0' ||
            !isAddressArray(g->ip)) {
            msgError(err, "Can't encode %s packet: invalid gossip entry %d", clusterMsgTypeName(m->type), i);
            return 0;
        }
    }
    if (m->extensions && !m->data.ping.ext) {
        msgError(err, "Can't encode %s packet: extensions missing", clusterMsgTypeName(m->type));
        return 0;
    }
    unsigned seen = 0;
    for (int i = 0; i < m->extensions; i++) {
        const clusterMsgExt *e = &m->data.ping.ext[i];
        uint64_t elen = extEncodedLength(e, err);
        if (!elen) return 0;
        if (e->type <= CLUSTERMSG_EXT_TYPE_SHARDID && e->type != CLUSTERMSG_EXT_TYPE_FORGOTTEN_NODE) {
            if (seen & (1u << e->type)) {
                msgError(err, "Can't encode %s packet: repeated extension of type %d", clusterMsgTypeName(m->type),
                         e->type);
                return 0;
            }
            seen |= 1u << e->type;
        }
        n += elen;
    }
    *ok = 1;
    return n;
}

/* The data length of msg's type, checking the data; *ok says whether it
 * may be sent. */
static uint64_t dataLength(const clusterMsg *m, int *ok, char *err) {
    *ok = 1;
    switch (m->type) {
    case CLUSTERMSG_TYPE_PING:
    case CLUSTERMSG_TYPE_PONG:
    case CLUSTERMSG_TYPE_MEET: return pingDataLength(m, ok, err);
    case CLUSTERMSG_TYPE_FAIL:
        if (clusterIsValidNodeName(m->data.fail.nodename) && m->data.fail.nodename[CLUSTER_NAMELEN] == '\0')
            return CLUSTERMSG_FAIL_LEN;
        break;
    case CLUSTERMSG_TYPE_PUBLISH:
    case CLUSTERMSG_TYPE_PUBLISHSHARD:
        if ((m->data.publish.channel || !m->data.publish.channel_len) &&
            (m->data.publish.message || !m->data.publish.message_len))
            return CLUSTERMSG_PUBLISH_FIXED_LEN + (uint64_t)m->data.publish.channel_len + m->data.publish.message_len;
        break;
    case CLUSTERMSG_TYPE_FAILOVER_AUTH_REQUEST:
    case CLUSTERMSG_TYPE_FAILOVER_AUTH_ACK:
    case CLUSTERMSG_TYPE_MFSTART: return 0;
    case CLUSTERMSG_TYPE_UPDATE:
        if (clusterIsValidNodeName(m->data.update.nodename) && m->data.update.nodename[CLUSTER_NAMELEN] == '\0')
            return CLUSTERMSG_UPDATE_LEN;
        break;
    case CLUSTERMSG_TYPE_MODULE:
        if (m->data.module.payload || !m->data.module.len)
            return CLUSTERMSG_MODULE_FIXED_LEN + (uint64_t)m->data.module.len;
        break;
    default: msgError(err, "Can't encode packet of unknown type %d", m->type); *ok = 0; return 0;
    }
    msgError(err, "Can't encode %s packet: invalid content", clusterMsgTypeName(m->type));
    *ok = 0;
    return 0;
}

static void encodeFullHeader(const clusterMsg *m, uint32_t totlen, unsigned char *buf) {
    clusterWireHeader h;
    memset(&h, 0, sizeof(h));
    memcpy(h.sig, "RCmb", 4);
    h.totlen = htonl(totlen);
    h.ver = htons(CLUSTER_PROTO_VER);
    h.port = htons(m->port);
    h.type = htons(m->type);
    h.count = htons(m->count);
    h.current_epoch = htobe64(m->current_epoch);
    h.config_epoch = htobe64(m->config_epoch);
    h.offset = htobe64(m->offset);
    memcpy(h.sender, m->sender, CLUSTER_NAMELEN);
    memcpy(h.myslots, m->myslots, sizeof(h.myslots));
    if (m->replicaof[0]) memcpy(h.replicaof, m->replicaof, CLUSTER_NAMELEN);
    memcpy(h.myip, m->myip, strlen(m->myip));
    h.extensions = htons(m->extensions);
    h.pport = htons(m->pport);
    h.cport = htons(m->cport);
    h.flags = htons(m->flags);
    h.state = m->state;
    memcpy(h.mflags, m->mflags, sizeof(h.mflags));
    if (isPingType(m->type) && m->extensions) h.mflags[0] |= CLUSTERMSG_FLAG0_EXT_DATA;
    memcpy(buf, &h, sizeof(h));
}

static void encodeLightHeader(const clusterMsg *m, uint32_t totlen, unsigned char *buf) {
    clusterWireLightHeader h;
    memset(&h, 0, sizeof(h));
    memcpy(h.sig, "RCmb", 4);
    h.totlen = htonl(totlen);
    h.ver = htons(CLUSTER_PROTO_VER);
    h.type = htons(m->type | CLUSTERMSG_LIGHT);
    memcpy(buf, &h, sizeof(h));
}

static unsigned char *encodeExt(const clusterMsgExt *e, unsigned char *p) {
    unsigned char *data = p + CLUSTERMSG_EXT_HEADER_LEN;
    uint64_t len;
    switch (e->type) {
    case CLUSTERMSG_EXT_TYPE_HOSTNAME:
    case CLUSTERMSG_EXT_TYPE_HUMAN_NODENAME:
        len = extLength(strlen(e->str) + 1);
        memcpy(data, e->str, strlen(e->str));
        break;
    case CLUSTERMSG_EXT_TYPE_SHARDID:
        len = extLength(CLUSTER_NAMELEN);
        memcpy(data, e->name, CLUSTER_NAMELEN);
        break;
    case CLUSTERMSG_EXT_TYPE_FORGOTTEN_NODE: {
        clusterWireForgotten w;
        memcpy(w.name, e->name, CLUSTER_NAMELEN);
        w.ttl = htobe64(e->ttl);
        memcpy(data, &w, sizeof(w));
        len = extLength(sizeof(w));
        break;
    }
    default:
        len = CLUSTERMSG_EXT_HEADER_LEN + (uint64_t)e->datalen;
        if (e->datalen) memcpy(data, e->data, e->datalen);
    }
    clusterWireExtHeader h = {htonl((uint32_t)len), htons(e->type), 0};
    memcpy(p, &h, sizeof(h));
    return p + len;
}

static void encodePing(const clusterMsg *m, unsigned char *p) {
    for (int i = 0; i < m->count; i++) {
        const clusterMsgGossip *g = &m->data.ping.gossip[i];
        clusterWireGossip w;
        memset(&w, 0, sizeof(w));
        memcpy(w.nodename, g->nodename, CLUSTER_NAMELEN);
        w.ping_sent = htonl(g->ping_sent);
        w.pong_received = htonl(g->pong_received);
        memcpy(w.ip, g->ip, strlen(g->ip));
        w.port = htons(g->port);
        w.cport = htons(g->cport);
        w.flags = htons(g->flags);
        w.pport = htons(g->pport);
        memcpy(p, &w, sizeof(w));
        p += sizeof(w);
    }
    for (int i = 0; i < m->extensions; i++) p = encodeExt(&m->data.ping.ext[i], p);
}

static void encodeData(const clusterMsg *m, unsigned char *p) {
    switch (m->type) {
    case CLUSTERMSG_TYPE_PING:
    case CLUSTERMSG_TYPE_PONG:
    case CLUSTERMSG_TYPE_MEET: encodePing(m, p); break;
    case CLUSTERMSG_TYPE_FAIL: memcpy(p, m->data.fail.nodename, CLUSTER_NAMELEN); break;
    case CLUSTERMSG_TYPE_PUBLISH:
    case CLUSTERMSG_TYPE_PUBLISHSHARD: {
        clusterWirePublish w = {htonl(m->data.publish.channel_len), htonl(m->data.publish.message_len)};
        memcpy(p, &w, sizeof(w));
        p += sizeof(w);
        if (m->data.publish.channel_len) memcpy(p, m->data.publish.channel, m->data.publish.channel_len);
        p += m->data.publish.channel_len;
        if (m->data.publish.message_len) memcpy(p, m->data.publish.message, m->data.publish.message_len);
        break;
    }
    case CLUSTERMSG_TYPE_UPDATE: {
        clusterWireUpdate w;
        w.config_epoch = htobe64(m->data.update.config_epoch);
        memcpy(w.nodename, m->data.update.nodename, CLUSTER_NAMELEN);
        memcpy(w.slots, m->data.update.slots, sizeof(w.slots));
        memcpy(p, &w, sizeof(w));
        break;
    }
    case CLUSTERMSG_TYPE_MODULE: {
        clusterWireModule w;
        memset(&w, 0, sizeof(w));
        w.module_id = htobe64(m->data.module.module_id);
        w.len = htonl(m->data.module.len);
        w.type = m->data.module.type;
        memcpy(p, &w, CLUSTERMSG_MODULE_FIXED_LEN);
        if (m->data.module.len) memcpy(p + CLUSTERMSG_MODULE_FIXED_LEN, m->data.module.payload, m->data.module.len);
        break;
    }
    }
}

unsigned char *clusterMsgEncode(const clusterMsg *msg, size_t *len, char *err) {
    int ok;
    if (msg->light && !isLightCapableType(msg->type)) {
        msgError(err, "Can't encode %s packet with a light header", clusterMsgTypeName(msg->type));
        return NULL;
    }
    uint64_t datalen = dataLength(msg, &ok, err);
    if (!ok) return NULL;
    if (!msg->light && checkHeaderToSend(msg, err) != C_OK) return NULL;
    uint64_t hdrlen = msg->light ? CLUSTERMSG_LIGHT_HEADER_LEN : CLUSTERMSG_HEADER_LEN;
    uint64_t total = hdrlen + datalen;
    if (total > UINT32_MAX) {
        msgError(err, "Can't encode %s packet of %llu bytes", clusterMsgTypeName(msg->type), (unsigned long long)total);
        return NULL;
    }
    unsigned char *buf = zcalloc(total);
    if (msg->light)
        encodeLightHeader(msg, (uint32_t)total, buf);
    else
        encodeFullHeader(msg, (uint32_t)total, buf);
    encodeData(msg, buf + hdrlen);
    *len = (size_t)total;
    return buf;
}

/* ---------------------------------------------------------------------------
 * Comparison
 * ------------------------------------------------------------------------ */

static int bytesEqual(const void *a, const void *b, size_t len) {
    return len == 0 || memcmp(a, b, len) == 0;
}

static int extEqual(const clusterMsgExt *a, const clusterMsgExt *b) {
    if (a->type != b->type) return 0;
    switch (a->type) {
    case CLUSTERMSG_EXT_TYPE_HOSTNAME:
    case CLUSTERMSG_EXT_TYPE_HUMAN_NODENAME: return strcmp(a->str, b->str) == 0;
    case CLUSTERMSG_EXT_TYPE_SHARDID: return strcmp(a->name, b->name) == 0;
    case CLUSTERMSG_EXT_TYPE_FORGOTTEN_NODE: return strcmp(a->name, b->name) == 0 && a->ttl == b->ttl;
    }
    return a->datalen == b->datalen && bytesEqual(a->data, b->data, a->datalen);
}

static int pingEqual(const clusterMsg *a, const clusterMsg *b) {
    for (int i = 0; i < a->count; i++) {
        const clusterMsgGossip *x = &a->data.ping.gossip[i], *y = &b->data.ping.gossip[i];
        if (strcmp(x->nodename, y->nodename) || strcmp(x->ip, y->ip) || x->ping_sent != y->ping_sent ||
            x->pong_received != y->pong_received || x->port != y->port || x->cport != y->cport ||
            x->flags != y->flags || x->pport != y->pport)
            return 0;
    }
    for (int i = 0; i < a->extensions; i++)
        if (!extEqual(&a->data.ping.ext[i], &b->data.ping.ext[i])) return 0;
    return 1;
}

static int dataEqual(const clusterMsg *a, const clusterMsg *b) {
    switch (a->type) {
    case CLUSTERMSG_TYPE_PING:
    case CLUSTERMSG_TYPE_PONG:
    case CLUSTERMSG_TYPE_MEET: return pingEqual(a, b);
    case CLUSTERMSG_TYPE_FAIL: return strcmp(a->data.fail.nodename, b->data.fail.nodename) == 0;
    case CLUSTERMSG_TYPE_PUBLISH:
    case CLUSTERMSG_TYPE_PUBLISHSHARD:
        return a->data.publish.channel_len == b->data.publish.channel_len &&
               a->data.publish.message_len == b->data.publish.message_len &&
               bytesEqual(a->data.publish.channel, b->data.publish.channel, a->data.publish.channel_len) &&
               bytesEqual(a->data.publish.message, b->data.publish.message, a->data.publish.message_len);
    case CLUSTERMSG_TYPE_UPDATE:
        return a->data.update.config_epoch == b->data.update.config_epoch &&
               strcmp(a->data.update.nodename, b->data.update.nodename) == 0 &&
               memcmp(a->data.update.slots, b->data.update.slots, sizeof(a->data.update.slots)) == 0;
    case CLUSTERMSG_TYPE_MODULE:
        return a->data.module.module_id == b->data.module.module_id && a->data.module.type == b->data.module.type &&
               a->data.module.len == b->data.module.len &&
               bytesEqual(a->data.module.payload, b->data.module.payload, a->data.module.len);
    }
    return 1;
}

int clusterMsgEqual(const clusterMsg *a, const clusterMsg *b) {
    if (a->type != b->type || a->light != b->light) return 0;
    if (!a->light &&
        (a->port != b->port || a->count != b->count || a->current_epoch != b->current_epoch ||
         a->config_epoch != b->config_epoch || a->offset != b->offset || strcmp(a->sender, b->sender) ||
         memcmp(a->myslots, b->myslots, sizeof(a->myslots)) || strcmp(a->replicaof, b->replicaof) ||
         strcmp(a->myip, b->myip) || a->extensions != b->extensions || a->pport != b->pport ||
         a->cport != b->cport || a->flags != b->flags || a->state != b->state ||
         memcmp(a->mflags, b->mflags, sizeof(a->mflags))))
        return 0;
    return dataEqual(a, b);
}
