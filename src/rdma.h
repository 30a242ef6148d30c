/* rdma.h - the Valkey-over-RDMA protocol engine: verbs objects of one
 * connection and the control/data plane on top of them.
 *
 * The wire protocol (see RDMA-PROTOCOL.md) in short: each side owns one RX
 * buffer registered for remote write and tells the peer its address, length
 * and rkey in a 32-byte RegisterXferMemory SEND. Payload travels as RDMA
 * WRITE WITH IMM into the peer's RX buffer at the sender's tx_offset, the
 * immediate being the byte count. There is no ring: a sender fills the
 * window to its end and then waits until the peer, having consumed all of
 * it, advertises the buffer again; both restart at offset 0.
 *
 * An rdmaEndpoint holds every verbs object of one connection plus that
 * protocol state. It knows nothing about event loops or servers: the owner
 * (conn_rdma.c in the server, the RDMA test client) waits on
 * ep->comp_channel->fd, calls rdmaEndpointPoll() when it is readable and
 * then moves bytes with rdmaEndpointRead() / rdmaEndpointWritev(). Errors
 * are returned as C_ERR / -1 with a description in ep->err; nothing here
 * logs, asserts on peer input or exits. This is a leaf library: it must not
 * include server.h. */
#ifndef VK_RDMA_H
#define VK_RDMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#ifndef C_OK
#define C_OK 0
#define C_ERR -1
#endif

/* ---------------------------------------------------------------------------
 * Control messages: 32 bytes, big-endian on the wire
 * ------------------------------------------------------------------------- */

#define RDMA_CTRL_MSG_LEN 32

typedef enum {
    RDMA_OP_GET_SERVER_FEATURE = 0,  /* Client asks; server answers. */
    RDMA_OP_SET_CLIENT_FEATURE = 1,  /* Client tells; server accepts. */
    RDMA_OP_KEEPALIVE = 2,           /* Server -> client every few seconds. */
    RDMA_OP_REGISTER_XFER_MEMORY = 3 /* "Here is my RX buffer": both ways. */
} rdmaOpcode;

/* The wire image of one control message. Only the fields of its opcode are
 * meaningful; every other byte is reserved and sent as zero. The struct
 * documents the layout; encoding goes through rdmaCtrlEncode(). */
typedef struct rdmaCtrlWire {
    uint8_t opcode[2];    /* 0: u16 opcode */
    uint8_t select[2];    /* 2: u16 feature selector (opcodes 0, 1) */
    uint8_t reserved[12]; /* 4..15 */
    uint8_t addr[8];      /* 16: u64 RX buffer address (opcode 3) */
    uint8_t word24[4];    /* 24: u64 features (0, 1), or u32 length (3) ... */
    uint8_t word28[4];    /* 28: ... low half of features, or u32 rkey (3) */
} rdmaCtrlWire;
_Static_assert(sizeof(rdmaCtrlWire) == RDMA_CTRL_MSG_LEN, "control message must be 32 bytes");

/* A decoded control message, host byte order. */
typedef struct rdmaCtrlMsg {
    uint16_t opcode;
    uint16_t select;   /* GetServerFeature / SetClientFeature */
    uint64_t features; /* GetServerFeature / SetClientFeature */
    uint64_t addr;     /* RegisterXferMemory */
    uint32_t length;   /* RegisterXferMemory */
    uint32_t rkey;     /* RegisterXferMemory */
} rdmaCtrlMsg;

/* Encodes msg into the 32-byte wire image out (reserved bytes zeroed). */
void rdmaCtrlEncode(const rdmaCtrlMsg *msg, unsigned char *out);
/* Decodes a 32-byte wire image. Any opcode is decoded (the caller rejects
 * unknown ones); only the opcode's own fields are filled, others are 0. */
void rdmaCtrlDecode(const unsigned char *in, rdmaCtrlMsg *msg);

/* ---------------------------------------------------------------------------
 * Sizes (upstream's defaults; peers do not depend on them except where said)
 * ------------------------------------------------------------------------- */

#define RDMA_CQ_ENTRIES 2048   /* One CQ shared by sends and receives. */
#define RDMA_MAX_SEND_WR 1024
#define RDMA_MAX_RECV_WR 1024  /* Receives of control messages, posted up front. */
#define RDMA_SEND_RESERVE 16   /* Send WRs kept free for control messages. */
#define RDMA_DEFAULT_RX_SIZE (1024 * 1024)
#define RDMA_MIN_XFER_LEN 1
/* Largest RX buffer we accept from a peer (our TX staging copy matches it,
 * so this bounds what one peer can make us allocate). */
#define RDMA_MAX_XFER_LEN (64u * 1024 * 1024)
#define RDMA_ERR_LEN 160
/* One-sided READs a connection may have in flight (posted, not polled). */
#define RDMA_MAX_READS 64
/* READs the initiator may have outstanding at the responder at once (the
 * CM's initiator_depth/responder_resources), capped by the device. */
#define RDMA_READ_DEPTH 16

/* Local buffer registered with the PD: mmap()ed so that it owns whole
 * pages (MADV_DONTFORK under ibv_fork_init() then affects nothing else). */
typedef struct rdmaBuf {
    char *base;
    size_t len;
    struct ibv_mr *mr;
} rdmaBuf;

/* Every verbs object of one connection and its protocol state. Created by
 * rdmaEndpointCreate(), released by rdmaEndpointRelease(). */
typedef struct rdmaEndpoint {
    struct rdma_cm_id *cm_id;              /* Not owned: the caller's CM id. */
    struct ibv_pd *pd;                     /* Protection domain of all MRs below. */
    struct ibv_comp_channel *comp_channel; /* Its fd is what the owner polls. */
    struct ibv_cq *cq;                     /* Shared send/recv CQ, armed on the channel. */
    int is_server;      /* Answers GetServerFeature; the client side rejects it. */

    rdmaBuf ctrl_recv;  /* RDMA_MAX_RECV_WR slots of 32 bytes, local write only. */
    rdmaBuf ctrl_send;  /* RDMA_MAX_SEND_WR slots of 32 bytes, local only. */
    uint64_t ctrl_send_seq; /* Next ctrl_send slot (mod RDMA_MAX_SEND_WR). */
    int send_inflight;  /* Posted send WRs whose completion was not polled yet. */

    /* Receiving: the peer writes into rx; [rx_consumed, rx_landed) is data
     * the owner has not read yet. When rx_consumed reaches rx.len the window
     * is re-advertised and both restart at 0. */
    rdmaBuf rx;         /* The ONLY buffer registered for remote write. */
    size_t rx_landed;
    size_t rx_consumed;

    /* Sending: tx mirrors the peer's RX window (same length); bytes are
     * staged at tx_offset and written to the same offset remotely. */
    rdmaBuf tx;         /* Local staging; (re)allocated to the peer's length. */
    int peer_known;     /* A RegisterXferMemory has arrived. */
    uint64_t peer_addr;
    uint32_t peer_len;
    uint32_t peer_rkey;
    size_t tx_offset;

    /* Counters, for tests and introspection. */
    unsigned long long keepalives_received;
    unsigned long long features_received; /* GetServerFeature answers (client). */
    uint16_t last_feature_select;
    int feature_requested; /* Client side: a GetServerFeature is outstanding. */

    /* Memory registered on this PD besides the protocol's buffers: regions
     * exposed for remote READ and local targets of our own READs
     * (rdmaEndpointRegister). Deregistered by rdmaEndpointRelease(). */
    struct ibv_mr **extra_mrs;
    int extra_count, extra_cap;
    /* One-sided READs (rdmaEndpointPostRead): in flight, and the tags of
     * those completed and not yet collected (rdmaEndpointReadsDone). */
    int reads_inflight;
    int reads_done_count;
    uint64_t reads_done[RDMA_MAX_READS];

    int failed;             /* A protocol or completion error happened. */
    int failed_flushed;     /* ... and it was only a flush (QP torn down). */
    char err[RDMA_ERR_LEN]; /* Description of the first failure. */
} rdmaEndpoint;

/* Creates PD, completion channel (fd non-blocking), CQ, the QP on cm_id and
 * every buffer, and posts all receives. rx_size is our RX window; comp_vector
 * -1 picks one at random. Returns C_OK, or C_ERR with ep->err set and
 * everything created here released again. Must precede rdma_accept() /
 * rdma_connect(). ep must be zeroed by the caller. */
int rdmaEndpointCreate(rdmaEndpoint *ep, struct rdma_cm_id *cm_id, size_t rx_size, int comp_vector, int is_server);

/* Destroys the QP and every object rdmaEndpointCreate() made, in reverse
 * order. Safe on a partially created or already released endpoint. Does
 * not destroy the CM id. */
void rdmaEndpointRelease(rdmaEndpoint *ep);

/* The completion-channel handler: collects CQ events, acknowledges them,
 * re-arms notification and then drains the CQ completely, so nothing that
 * completed before this call is left unseen. Handles control messages
 * itself. Returns the number of completions handled, or -1 (ep->err) on an
 * error completion or protocol violation; the connection is then unusable. */
int rdmaEndpointPoll(rdmaEndpoint *ep);

/* Sends one control message. Returns C_OK, or C_ERR (ep->err) if the send
 * queue is full or the post failed. */
int rdmaEndpointSendCtrl(rdmaEndpoint *ep, const rdmaCtrlMsg *msg);

/* Advertises our RX buffer (RegisterXferMemory). C_OK / C_ERR. */
int rdmaEndpointAdvertise(rdmaEndpoint *ep);

/* Bytes received and not read yet. */
static inline size_t rdmaEndpointReadable(const rdmaEndpoint *ep) {
    return ep->rx_landed - ep->rx_consumed;
}

/* Bytes that may be written right now (0 = wait for the peer). */
size_t rdmaEndpointWritable(const rdmaEndpoint *ep);

/* Copies up to len received bytes into buf; when the whole window has been
 * consumed, re-advertises it. Returns bytes copied (0 if none are there),
 * or -1 (ep->err) if re-advertising failed. */
ssize_t rdmaEndpointRead(rdmaEndpoint *ep, void *buf, size_t len);

/* Stages up to rdmaEndpointWritable() bytes of iov and posts them as one
 * RDMA WRITE WITH IMM. Returns bytes accepted (0 = no room now), or -1
 * (ep->err) if the post failed. */
ssize_t rdmaEndpointWritev(rdmaEndpoint *ep, const struct iovec *iov, int iovcnt);

/* Registers len bytes at addr on the endpoint's PD with access (e.g.
 * IBV_ACCESS_REMOTE_READ only, to expose memory to the peer of this queue
 * pair and nobody else; IBV_ACCESS_LOCAL_WRITE for a READ target). The
 * endpoint keeps it until rdmaEndpointDeregister() or its release. Returns
 * the MR, or NULL (ep->err set, the endpoint stays usable). */
struct ibv_mr *rdmaEndpointRegister(rdmaEndpoint *ep, void *addr, size_t len, int access);
/* Deregisters an MR of rdmaEndpointRegister(). */
void rdmaEndpointDeregister(rdmaEndpoint *ep, struct ibv_mr *mr);

/* Posts a one-sided READ of len bytes at the peer's raddr (rkey) into
 * local (inside local_mr); tag comes back from rdmaEndpointReadsDone()
 * once it completed. Returns 1 when posted, 0 when there is no room now
 * (RDMA_MAX_READS in flight or uncollected, or the send queue full), -1
 * with ep->err set if the post failed. A READ that fails at the
 * peer (bad rkey, no access) fails the endpoint like any error completion. */
int rdmaEndpointPostRead(rdmaEndpoint *ep, struct ibv_mr *local_mr, void *local, uint64_t raddr, uint32_t rkey,
                         uint32_t len, uint64_t tag);
/* Moves up to max tags of completed READs into tags. Returns how many. */
int rdmaEndpointReadsDone(rdmaEndpoint *ep, uint64_t *tags, int max);

#endif
