/* cluster_msg.h - the cluster bus wire format (Valkey 8's, byte for byte):
 * every message's layout, declared once, and the decoder and encoder that
 * turn received bytes into a checked host-order clusterMsg and back.
 *
 * A leaf library: no server state, no I/O. The cluster bus (a later
 * subsystem) reads a frame with clusterMsgFrameLength(), hands it to
 * clusterMsgDecode() and acts on the result; it builds what it sends as a
 * clusterMsg and calls clusterMsgEncode(). Everything read from a peer is
 * validated here, once: a message that decodes is safe to act on field by
 * field, and one that does not says why (in Valkey's log wording where
 * Valkey has one), so the bus closes that link and logs the reason.
 *
 * The layout (all integers big endian, offsets in bytes):
 *
 *   Full header, 2256 bytes, then the type's data:
 *     0 sig "RCmb"      4 totlen u32     8 ver u16 (1)   10 port u16
 *    12 type u16       14 count u16     16 currentEpoch u64
 *    24 configEpoch u64                 32 offset u64 (replication)
 *    40 sender[40]     80 myslots[2048] 2128 replicaof[40] (zeros: none)
 *  2168 myip[46]     2214 extensions u16 2216 reserved[30]
 *  2246 pport u16    2248 cport u16     2250 flags u16   2252 state u8
 *  2253 mflags[3]    2256 data
 *
 *   Light header (Valkey 8: PUBLISH and PUBLISHSHARD, Valkey 8.1 also
 *   MODULE, to peers that advertise CLUSTER_NODE_LIGHT_HDR_SUPPORTED), 16
 *   bytes, then the data:
 *     0 sig  4 totlen  8 ver  10 reserved u16  12 type | 0x8000  14 reserved
 *
 *   Data by type:
 *     PING, PONG, MEET  count gossip entries of 104 bytes, then (mflags[0]
 *                       has EXT_DATA) `extensions` extensions, each an
 *                       8-byte header (u32 length of the whole extension,
 *                       a multiple of 8; u16 type; u16 reserved) and data
 *     FAIL              nodename[40]                              (40)
 *     PUBLISH(SHARD)    channel_len u32, message_len u32, channel, message
 *     AUTH_REQ/ACK,     nothing
 *     MFSTART
 *     UPDATE            configEpoch u64, nodename[40], slots[2048] (2096)
 *     MODULE            module_id u64, len u32, type u8, len bytes
 *
 *   Gossip entry: 0 nodename[40] 40 ping_sent u32 (s) 44 pong_received u32
 *   (s) 48 ip[46] 94 port u16 96 cport u16 98 flags u16 100 pport u16
 *   102 reserved u16.
 *   Extensions: HOSTNAME (0) and HUMAN_NODENAME (1), a NUL-terminated
 *   string zero-padded to 8 bytes; FORGOTTEN_NODE (2), nodename[40] and a
 *   u64 ttl in seconds; SHARDID (3), shard_id[40].
 *
 * What a decoded message guarantees: totlen equals the bytes given and the
 * type's exact length (gossip and extensions included); the version is 1
 * and the type known (otherwise CLUSTER_MSG_IGNORE: Valkey skips those
 * without closing the link); node names and shard ids are 40 lowercase hex
 * digits (replicaof may be all zeros); every string is NUL-terminated
 * inside its array and made of address or name characters; extension
 * lengths are multiples of 8 within the message, known extensions have
 * their exact size, strings their exact zero padding, and appear at most
 * once (FORGOTTEN_NODE excepted); unknown extension types are kept, as
 * Valkey skips them. Reserved bytes are ignored on receipt and zero when
 * sent: that is what lets a later version use them.
 *
 * Ownership: a decoded clusterMsg borrows the buffer it was decoded from
 * (channel, message, module data, extension strings point into it) and
 * owns its gossip and extension arrays: clusterMsgRelease() frees them. */
#ifndef VK_CLUSTER_MSG_H
#define VK_CLUSTER_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "cluster_slot.h"

#ifndef C_OK
#define C_OK 0
#define C_ERR -1
#endif

#define CLUSTER_NAMELEN 40  /* A node name: 160 random bits in hex. */
#define CLUSTER_IPLEN 46    /* An address in the header and gossip (INET6_ADDRSTRLEN). */
#define CLUSTER_PROTO_VER 1 /* The only bus protocol version there is. */
#define CLUSTER_HOSTNAME_MAXLEN 255 /* Longest hostname or human node name string. */

/* Message types (the header's type field). */
#define CLUSTERMSG_TYPE_PING 0
#define CLUSTERMSG_TYPE_PONG 1
#define CLUSTERMSG_TYPE_MEET 2
#define CLUSTERMSG_TYPE_FAIL 3
#define CLUSTERMSG_TYPE_PUBLISH 4
#define CLUSTERMSG_TYPE_FAILOVER_AUTH_REQUEST 5
#define CLUSTERMSG_TYPE_FAILOVER_AUTH_ACK 6
#define CLUSTERMSG_TYPE_UPDATE 7
#define CLUSTERMSG_TYPE_MFSTART 8
#define CLUSTERMSG_TYPE_MODULE 9
#define CLUSTERMSG_TYPE_PUBLISHSHARD 10
#define CLUSTERMSG_TYPE_COUNT 11
/* Or'ed into the type of a message sent with the light header. */
#define CLUSTERMSG_LIGHT 0x8000

/* Node flags: the header's and the gossip entries' flags field (and, by
 * name, nodes.conf's flags). */
#define CLUSTER_NODE_PRIMARY (1 << 0)
#define CLUSTER_NODE_REPLICA (1 << 1)
#define CLUSTER_NODE_PFAIL (1 << 2)
#define CLUSTER_NODE_FAIL (1 << 3)
#define CLUSTER_NODE_MYSELF (1 << 4)
#define CLUSTER_NODE_HANDSHAKE (1 << 5)
#define CLUSTER_NODE_NOADDR (1 << 6)
#define CLUSTER_NODE_MEET (1 << 7)
#define CLUSTER_NODE_MIGRATE_TO (1 << 8)
#define CLUSTER_NODE_NOFAILOVER (1 << 9)
/* Capabilities a node announces in its header's flags. These two and the
 * light header's layout come from Valkey's public descriptions of the
 * format (redis-server 7.0 sends neither); no Valkey 8 node has been
 * observed here yet. */
#define CLUSTER_NODE_EXTENSIONS_SUPPORTED (1 << 10)
#define CLUSTER_NODE_LIGHT_HDR_SUPPORTED (1 << 11)

/* mflags[0] bits. */
#define CLUSTERMSG_FLAG0_PAUSED (1 << 0)   /* Primary paused for a manual failover. */
#define CLUSTERMSG_FLAG0_FORCEACK (1 << 1) /* Vote even though the primary is up. */
#define CLUSTERMSG_FLAG0_EXT_DATA (1 << 2) /* PING/PONG/MEET carry extensions. */

/* The header's state field. */
#define CLUSTER_STATE_OK 0
#define CLUSTER_STATE_FAIL 1

/* Ping extension types. */
#define CLUSTERMSG_EXT_TYPE_HOSTNAME 0
#define CLUSTERMSG_EXT_TYPE_HUMAN_NODENAME 1
#define CLUSTERMSG_EXT_TYPE_FORGOTTEN_NODE 2
#define CLUSTERMSG_EXT_TYPE_SHARDID 3

/* ---------------------------------------------------------------------------
 * The wire layout. These structs are the bytes on the wire (integers in
 * network order); only cluster_msg.c reads or writes them, copying them in
 * and out of buffers with memcpy and converting byte order there.
 * ------------------------------------------------------------------------ */

typedef struct clusterWireHeader {
    char sig[4];
    uint32_t totlen;
    uint16_t ver;
    uint16_t port;
    uint16_t type;
    uint16_t count;
    uint64_t current_epoch;
    uint64_t config_epoch;
    uint64_t offset;
    char sender[CLUSTER_NAMELEN];
    unsigned char myslots[CLUSTER_SLOT_BITMAP_LEN];
    char replicaof[CLUSTER_NAMELEN];
    char myip[CLUSTER_IPLEN];
    uint16_t extensions;
    unsigned char reserved[30];
    uint16_t pport;
    uint16_t cport;
    uint16_t flags;
    uint8_t state;
    uint8_t mflags[3];
} clusterWireHeader;

typedef struct clusterWireLightHeader {
    char sig[4];
    uint32_t totlen;
    uint16_t ver;
    uint16_t reserved1;
    uint16_t type;
    uint16_t reserved2;
} clusterWireLightHeader;

typedef struct clusterWireGossip {
    char nodename[CLUSTER_NAMELEN];
    uint32_t ping_sent;
    uint32_t pong_received;
    char ip[CLUSTER_IPLEN];
    uint16_t port;
    uint16_t cport;
    uint16_t flags;
    uint16_t pport;
    uint16_t reserved;
} clusterWireGossip;

typedef struct clusterWireExtHeader {
    uint32_t length;
    uint16_t type;
    uint16_t reserved;
} clusterWireExtHeader;

typedef struct clusterWireForgotten {
    char name[CLUSTER_NAMELEN];
    uint64_t ttl;
} clusterWireForgotten;

typedef struct clusterWirePublish {
    uint32_t channel_len;
    uint32_t message_len;
    /* channel_len + message_len bytes follow. */
} clusterWirePublish;

typedef struct clusterWireUpdate {
    uint64_t config_epoch;
    char nodename[CLUSTER_NAMELEN];
    unsigned char slots[CLUSTER_SLOT_BITMAP_LEN];
} clusterWireUpdate;

typedef struct clusterWireModule {
    uint64_t module_id;
    uint32_t len;
    uint8_t type;
    unsigned char data[3]; /* len bytes start here, at offset 13. */
} clusterWireModule;

#define CLUSTERMSG_HEADER_LEN 2256
#define CLUSTERMSG_LIGHT_HEADER_LEN 16
#define CLUSTERMSG_GOSSIP_LEN 104
#define CLUSTERMSG_EXT_HEADER_LEN 8
#define CLUSTERMSG_FAIL_LEN CLUSTER_NAMELEN
#define CLUSTERMSG_PUBLISH_FIXED_LEN 8
#define CLUSTERMSG_UPDATE_LEN 2096
#define CLUSTERMSG_MODULE_FIXED_LEN 13
/* Bytes a reader needs to know a frame's length and kind. */
#define CLUSTERMSG_MIN_READ_LEN 16

_Static_assert(sizeof(clusterWireHeader) == CLUSTERMSG_HEADER_LEN, "header size");
_Static_assert(offsetof(clusterWireHeader, totlen) == 4, "totlen offset");
_Static_assert(offsetof(clusterWireHeader, ver) == 8, "ver offset");
_Static_assert(offsetof(clusterWireHeader, port) == 10, "port offset");
_Static_assert(offsetof(clusterWireHeader, type) == 12, "type offset");
_Static_assert(offsetof(clusterWireHeader, count) == 14, "count offset");
_Static_assert(offsetof(clusterWireHeader, current_epoch) == 16, "currentEpoch offset");
_Static_assert(offsetof(clusterWireHeader, config_epoch) == 24, "configEpoch offset");
_Static_assert(offsetof(clusterWireHeader, offset) == 32, "offset offset");
_Static_assert(offsetof(clusterWireHeader, sender) == 40, "sender offset");
_Static_assert(offsetof(clusterWireHeader, myslots) == 80, "myslots offset");
_Static_assert(offsetof(clusterWireHeader, replicaof) == 2128, "replicaof offset");
_Static_assert(offsetof(clusterWireHeader, myip) == 2168, "myip offset");
_Static_assert(offsetof(clusterWireHeader, extensions) == 2214, "extensions offset");
_Static_assert(offsetof(clusterWireHeader, reserved) == 2216, "reserved offset");
_Static_assert(offsetof(clusterWireHeader, pport) == 2246, "pport offset");
_Static_assert(offsetof(clusterWireHeader, cport) == 2248, "cport offset");
_Static_assert(offsetof(clusterWireHeader, flags) == 2250, "flags offset");
_Static_assert(offsetof(clusterWireHeader, state) == 2252, "state offset");
_Static_assert(offsetof(clusterWireHeader, mflags) == 2253, "mflags offset");
_Static_assert(sizeof(clusterWireLightHeader) == CLUSTERMSG_LIGHT_HEADER_LEN, "light header size");
_Static_assert(offsetof(clusterWireLightHeader, type) == offsetof(clusterWireHeader, type), "light type offset");
_Static_assert(offsetof(clusterWireLightHeader, totlen) == offsetof(clusterWireHeader, totlen), "light totlen");
_Static_assert(sizeof(clusterWireGossip) == CLUSTERMSG_GOSSIP_LEN, "gossip size");
_Static_assert(offsetof(clusterWireGossip, ping_sent) == 40, "gossip ping_sent offset");
_Static_assert(offsetof(clusterWireGossip, pong_received) == 44, "gossip pong_received offset");
_Static_assert(offsetof(clusterWireGossip, ip) == 48, "gossip ip offset");
_Static_assert(offsetof(clusterWireGossip, port) == 94, "gossip port offset");
_Static_assert(offsetof(clusterWireGossip, cport) == 96, "gossip cport offset");
_Static_assert(offsetof(clusterWireGossip, flags) == 98, "gossip flags offset");
_Static_assert(offsetof(clusterWireGossip, pport) == 100, "gossip pport offset");
_Static_assert(offsetof(clusterWireGossip, reserved) == 102, "gossip reserved offset");
_Static_assert(sizeof(clusterWireExtHeader) == CLUSTERMSG_EXT_HEADER_LEN, "extension header size");
_Static_assert(sizeof(clusterWireForgotten) == 48, "forgotten node extension size");
_Static_assert(offsetof(clusterWireForgotten, ttl) == 40, "forgotten ttl offset");
_Static_assert(sizeof(clusterWirePublish) == CLUSTERMSG_PUBLISH_FIXED_LEN, "publish size");
_Static_assert(sizeof(clusterWireUpdate) == CLUSTERMSG_UPDATE_LEN, "update size");
_Static_assert(offsetof(clusterWireUpdate, nodename) == 8, "update nodename offset");
_Static_assert(offsetof(clusterWireUpdate, slots) == 48, "update slots offset");
_Static_assert(offsetof(clusterWireModule, data) == CLUSTERMSG_MODULE_FIXED_LEN, "module data offset");
_Static_assert(offsetof(clusterWireModule, type) == 12, "module type offset");

/* ---------------------------------------------------------------------------
 * Decoded messages, in host order.
 * ------------------------------------------------------------------------ */

/* One gossip entry: what the sender knows of another node. */
typedef struct clusterMsgGossip {
    char nodename[CLUSTER_NAMELEN + 1];
    uint32_t ping_sent;     /* Seconds (the sender's clock), 0: no ping pending. */
    uint32_t pong_received; /* Seconds. */
    char ip[CLUSTER_IPLEN]; /* NUL-terminated; "" when unknown. */
    uint16_t port;          /* Client port (TLS port when the bus is TLS). */
    uint16_t cport;         /* Bus port. */
    uint16_t flags;         /* CLUSTER_NODE_*. */
    uint16_t pport;         /* Plaintext port when port is TLS, else 0. */
} clusterMsgGossip;

/* One ping extension. str/data point into the decoded buffer (or, for a
 * message being built, at the caller's memory). */
typedef struct clusterMsgExt {
    uint16_t type;                    /* CLUSTERMSG_EXT_TYPE_* or another. */
    const char *str;                  /* HOSTNAME, HUMAN_NODENAME: NUL-terminated. */
    char name[CLUSTER_NAMELEN + 1];   /* SHARDID: the shard id; FORGOTTEN_NODE: the node. */
    uint64_t ttl;                     /* FORGOTTEN_NODE: seconds to keep it forgotten. */
    const unsigned char *data;        /* Unknown types: the bytes after the header. */
    uint32_t datalen;                 /* Their count (a multiple of 8). */
} clusterMsgExt;

typedef struct clusterMsg {
    uint16_t type;     /* CLUSTERMSG_TYPE_*, without CLUSTERMSG_LIGHT. */
    int light;         /* Sent with the light header: only type and the data count. */
    uint32_t totlen;   /* Filled by decode; encode computes its own. */
    uint16_t ver;      /* CLUSTER_PROTO_VER. */
    uint16_t port;
    uint16_t count;    /* PING/PONG/MEET: number of gossip entries. */
    uint64_t current_epoch;
    uint64_t config_epoch;
    uint64_t offset;
    char sender[CLUSTER_NAMELEN + 1];
    unsigned char myslots[CLUSTER_SLOT_BITMAP_LEN];
    char replicaof[CLUSTER_NAMELEN + 1]; /* "" for a primary. */
    char myip[CLUSTER_IPLEN];            /* "" when the sender did not announce one. */
    uint16_t extensions;                 /* PING/PONG/MEET: number of extensions. */
    uint16_t pport;
    uint16_t cport;
    uint16_t flags;
    uint8_t state; /* CLUSTER_STATE_OK or CLUSTER_STATE_FAIL. */
    uint8_t mflags[3];
    union {
        struct { /* PING, PONG, MEET */
            clusterMsgGossip *gossip; /* count entries (owned). */
            clusterMsgExt *ext;       /* extensions entries (owned). */
        } ping;
        struct { /* FAIL */
            char nodename[CLUSTER_NAMELEN + 1];
        } fail;
        struct { /* PUBLISH, PUBLISHSHARD */
            const unsigned char *channel;
            uint32_t channel_len;
            const unsigned char *message;
            uint32_t message_len;
        } publish;
        struct { /* UPDATE */
            uint64_t config_epoch;
            char nodename[CLUSTER_NAMELEN + 1];
            unsigned char slots[CLUSTER_SLOT_BITMAP_LEN];
        } update;
        struct { /* MODULE */
            uint64_t module_id;
            uint8_t type;
            const unsigned char *payload;
            uint32_t len;
        } module;
    } data;
} clusterMsg;

/* clusterMsgDecode() and clusterMsgFrameLength() results. */
#define CLUSTER_MSG_OK 0       /* Decoded: every field checked. */
#define CLUSTER_MSG_IGNORE 1   /* Well framed, but another version or an unknown type: skip it. */
#define CLUSTER_MSG_INVALID -1 /* Malformed or hostile: close the link. */
#define CLUSTER_MSG_NEED_MORE 2 /* clusterMsgFrameLength(): fewer than 16 bytes so far. */

/* Size of the err buffers the functions below fill. */
#define CLUSTER_MSG_ERR_LEN 256

/* Looks at the first bytes of a frame (the reader has len of them): returns
 * CLUSTER_MSG_NEED_MORE below CLUSTERMSG_MIN_READ_LEN bytes; CLUSTER_MSG_OK
 * with *totlen the whole frame's length when the signature is right and
 * the length is at least a header's (light or full, by the type) and at most
 * maxlen; CLUSTER_MSG_INVALID otherwise, with err set to Valkey's "Bad
 * message length or signature received from Cluster bus." Pure. */
int clusterMsgFrameLength(const unsigned char *buf, size_t len, uint64_t maxlen, uint32_t *totlen, char *err);

/* Decodes one whole message of len bytes into *msg (overwritten). Returns
 * CLUSTER_MSG_OK; CLUSTER_MSG_IGNORE for another protocol version or an
 * unknown type (only msg->type, light, ver and totlen are set);
 * or CLUSTER_MSG_INVALID. Anything but OK fills err (CLUSTER_MSG_ERR_LEN
 * bytes) with the reason and leaves nothing to release. After OK the
 * caller calls clusterMsgRelease(msg); msg borrows buf until then. */
int clusterMsgDecode(const unsigned char *buf, size_t len, clusterMsg *msg, char *err);

/* Frees what a decoded message owns (its gossip and extension arrays) and
 * clears those pointers; safe on a zeroed or already released message. */
void clusterMsgRelease(clusterMsg *msg);

/* Encodes msg (a decoded message, or one the bus built: a zeroed clusterMsg
 * with its fields set; for PING/PONG/MEET count and extensions are the
 * lengths of the gossip and ext arrays) and returns a zmalloc'ed buffer of
 * *len bytes that the caller frees. The signature, totlen and version are
 * written by the encoder (msg->totlen and ver are not read), and so is the
 * EXT_DATA flag of a ping with extensions. Returns NULL with err set when msg would not
 * pass clusterMsgDecode() (an unknown type, a bad node name, a string that
 * does not fit, ...): what we send is held to what we accept. */
unsigned char *clusterMsgEncode(const clusterMsg *msg, size_t *len, char *err);

/* Returns 1 when two messages hold the same content (every field the type
 * uses, compared by value: gossip, extensions and borrowed bytes
 * included), else 0. For the unit tests and the fuzz target's round trip. */
int clusterMsgEqual(const clusterMsg *a, const clusterMsg *b);

/* The name Valkey gives a type in logs and CLUSTER INFO ("ping", "pong",
 * "meet", "fail", "publish", "publishshard", "auth-req", "auth-ack",
 * "update", "mfstart", "module"), or "unknown". */
const char *clusterMsgTypeName(int type);

/* The string rules of the bus, shared with nodes.conf (cluster_conf.c).
 * Each returns 1 when len bytes at s are valid, else 0:
 * - an address (a node's ip): letters, digits, '.', ':', '-', '_', '%'
 *   (IPv4, IPv6 with a zone, a host name), shorter than CLUSTER_IPLEN;
 *   never a space, ',' or '@', which would break "ip:port@cport,hostname";
 * - a hostname: letters, digits, '-', '.', '_' (what Valkey's
 *   cluster-announce-hostname takes, and '_'), at most 255 bytes;
 * - a human node name: printable ASCII but space, ',' and '=' (it lives in
 *   nodes.conf as "nodename=<name>"), at most 255 bytes.
 * The empty string is valid for all three ("none"). */
int clusterIsValidAddress(const char *s, size_t len);
int clusterIsValidHostname(const char *s, size_t len);
int clusterIsValidHumanNodename(const char *s, size_t len);

/* Returns 1 when name is 40 lowercase hex digits (a node name or shard id
 * as Valkey generates them), else 0. Reads at most 40 bytes. */
int clusterIsValidNodeName(const char *name);

#endif
