/* rdma.c - the Valkey-over-RDMA protocol engine (see rdma.h for the
 * protocol in short and RDMA-PROTOCOL.md for the whole of it).
 *
 * Used by the server's RDMA transport (conn_rdma.c) and by the RDMA test
 * client (tests/rdma/rdma-cli.c): both own a CM id and an rdmaEndpoint, wait
 * on the endpoint's completion channel and call in here. Everything runs in
 * the caller's thread; nothing blocks except where the verbs calls do.
 *
 * Invariants that matter:
 * - Only the RX buffer is registered with remote access; control buffers and
 *   the TX staging copy are local-only.
 * - Every receive WR carries a control slot index in its wr_id and is
 *   re-posted as soon as its completion has been decoded, so the peer never
 *   runs out of receives (each WRITE WITH IMM consumes one too).
 * - send_inflight counts signalled sends not yet polled; data writes leave
 *   RDMA_SEND_RESERVE WRs free so control messages can always go out, and
 *   control slots are reused in posting order, which is safe because an RC
 *   send queue completes in order and never holds more than RDMA_MAX_SEND_WR.
 * - Peer input is never trusted: a bad length, opcode, immediate or window
 *   fails the endpoint with a message in ep->err instead of asserting. */
#include "rdma.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <arpa/inet.h>

/* wr_id layout: the kind in the top byte, the control slot below. */
#define RDMA_WRID_RECV 1ULL
#define RDMA_WRID_CTRL_SEND 2ULL
#define RDMA_WRID_DATA 3ULL
#define RDMA_WRID_READ 4ULL
#define RDMA_WRID(kind, slot) (((uint64_t)(kind) << 56) | (uint64_t)(slot))
#define RDMA_WRID_KIND(id) ((id) >> 56)
#define RDMA_WRID_SLOT(id) ((id) & ((1ULL << 56) - 1))

#define RDMA_POLL_BATCH 32

/* ---------------------------------------------------------------------------
 * Control message encoding (the one place byte order is converted)
 * ------------------------------------------------------------------------- */

static void put16(unsigned char *p, uint16_t v) {
    p[0] = v >> 8;
    p[1] = v;
}

static void put32(unsigned char *p, uint32_t v) {
    for (int j = 0; j < 4; j++) p[j] = v >> (24 - 8 * j);
}

static void put64(unsigned char *p, uint64_t v) {
    put32(p, v >> 32);
    put32(p + 4, (uint32_t)v);
}

static uint16_t get16(const unsigned char *p) {
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const unsigned char *p) {
    return (uint64_t)get32(p) << 32 | get32(p + 4);
}

void rdmaCtrlEncode(const rdmaCtrlMsg *msg, unsigned char *out) {
    memset(out, 0, RDMA_CTRL_MSG_LEN);
    put16(out, msg->opcode);
    switch (msg->opcode) {
    case RDMA_OP_GET_SERVER_FEATURE:
    case RDMA_OP_SET_CLIENT_FEATURE:
        put16(out + 2, msg->select);
        put64(out + 24, msg->features);
        break;
    case RDMA_OP_REGISTER_XFER_MEMORY:
        put64(out + 16, msg->addr);
        put32(out + 24, msg->length);
        put32(out + 28, msg->rkey);
        break;
    default: /* Keepalive and anything else: opcode only. */
        break;
    }
}

void rdmaCtrlDecode(const unsigned char *in, rdmaCtrlMsg *msg) {
    memset(msg, 0, sizeof(*msg));
    msg->opcode = get16(in);
    switch (msg->opcode) {
    case RDMA_OP_GET_SERVER_FEATURE:
    case RDMA_OP_SET_CLIENT_FEATURE:
        msg->select = get16(in + 2);
        msg->features = get64(in + 24);
        break;
    case RDMA_OP_REGISTER_XFER_MEMORY:
        msg->addr = get64(in + 16);
        msg->length = get32(in + 24);
        msg->rkey = get32(in + 28);
        break;
    default:
        break;
    }
}

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

/* Records the first failure of ep; later ones are less informative. */
static void rdmaFail(rdmaEndpoint *ep, const char *fmt, ...) {
    if (ep->failed) return;
    ep->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ep->err, sizeof(ep->err), fmt, ap);
    va_end(ap);
}

/* Maps len bytes (rounded up to pages) and registers them with access.
 * Returns C_OK or C_ERR (ep->err set, nothing left allocated). */
static int rdmaBufCreate(rdmaEndpoint *ep, rdmaBuf *buf, size_t len, int access, const char *what) {
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        rdmaFail(ep, "mmap of %zu bytes for the %s buffer failed: %s", len, what, strerror(errno));
        return C_ERR;
    }
    buf->mr = ibv_reg_mr(ep->pd, p, len, access);
    if (buf->mr == NULL) {
        rdmaFail(ep, "ibv_reg_mr of the %s buffer (%zu bytes) failed: %s", what, len, strerror(errno));
        munmap(p, len);
        return C_ERR;
    }
    buf->base = p;
    buf->len = len;
    return C_OK;
}

static void rdmaBufRelease(rdmaBuf *buf) {
    if (buf->mr) ibv_dereg_mr(buf->mr);
    if (buf->base) munmap(buf->base, buf->len);
    buf->mr = NULL;
    buf->base = NULL;
    buf->len = 0;
}

static int rdmaPostRecv(rdmaEndpoint *ep, uint32_t slot) {
    struct ibv_sge sge = {
        .addr = (uintptr_t)(ep->ctrl_recv.base + (size_t)slot * RDMA_CTRL_MSG_LEN),
        .length = RDMA_CTRL_MSG_LEN,
        .lkey = ep->ctrl_recv.mr->lkey,
    };
    struct ibv_recv_wr wr = {.wr_id = RDMA_WRID(RDMA_WRID_RECV, slot), .sg_list = &sge, .num_sge = 1};
    struct ibv_recv_wr *bad;
    int err = ibv_post_recv(ep->cm_id->qp, &wr, &bad);
    if (err) {
        rdmaFail(ep, "ibv_post_recv failed: %s", strerror(err));
        return C_ERR;
    }
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * Setup and teardown
 * ------------------------------------------------------------------------- */

int rdmaEndpointCreate(rdmaEndpoint *ep, struct rdma_cm_id *cm_id, size_t rx_size, int comp_vector, int is_server) {
    struct ibv_context *verbs = cm_id->verbs;
    ep->cm_id = cm_id;
    ep->is_server = is_server;
    if (verbs == NULL) {
        rdmaFail(ep, "CM id is not bound to an RDMA device");
        return C_ERR;
    }
    if (rx_size < RDMA_MIN_XFER_LEN || rx_size > RDMA_MAX_XFER_LEN) {
        rdmaFail(ep, "invalid RX buffer size %zu", rx_size);
        return C_ERR;
    }

    ep->pd = ibv_alloc_pd(verbs);
    if (ep->pd == NULL) {
        rdmaFail(ep, "ibv_alloc_pd failed: %s", strerror(errno));
        goto err;
    }
    ep->comp_channel = ibv_create_comp_channel(verbs);
    if (ep->comp_channel == NULL) {
        rdmaFail(ep, "ibv_create_comp_channel failed: %s", strerror(errno));
        goto err;
    }
    int flags = fcntl(ep->comp_channel->fd, F_GETFL);
    if (flags == -1 || fcntl(ep->comp_channel->fd, F_SETFL, flags | O_NONBLOCK) == -1) {
        rdmaFail(ep, "fcntl(O_NONBLOCK) on the completion channel failed: %s", strerror(errno));
        goto err;
    }
    fcntl(ep->comp_channel->fd, F_SETFD, FD_CLOEXEC);

    int nvec = verbs->num_comp_vectors > 0 ? verbs->num_comp_vectors : 1;
    int vec = comp_vector < 0 ? rand() % nvec : comp_vector % nvec;
    ep->cq = ibv_create_cq(verbs, RDMA_CQ_ENTRIES, NULL, ep->comp_channel, vec);
    if (ep->cq == NULL) {
        rdmaFail(ep, "ibv_create_cq failed: %s", strerror(errno));
        goto err;
    }
    int err = ibv_req_notify_cq(ep->cq, 0);
    if (err) {
        rdmaFail(ep, "ibv_req_notify_cq failed: %s", strerror(err));
        goto err;
    }

    struct ibv_qp_init_attr qpa = {
        .send_cq = ep->cq,
        .recv_cq = ep->cq,
        .qp_type = IBV_QPT_RC,
        .cap = {.max_send_wr = RDMA_MAX_SEND_WR, .max_recv_wr = RDMA_MAX_RECV_WR, .max_send_sge = 1,
                .max_recv_sge = 1},
    };
    if (rdma_create_qp(cm_id, ep->pd, &qpa) != 0) {
        rdmaFail(ep, "rdma_create_qp failed: %s", strerror(errno));
        goto err;
    }

    if (rdmaBufCreate(ep, &ep->ctrl_recv, (size_t)RDMA_MAX_RECV_WR * RDMA_CTRL_MSG_LEN, IBV_ACCESS_LOCAL_WRITE,
                      "control receive") != C_OK)
        goto err;
    if (rdmaBufCreate(ep, &ep->ctrl_send, (size_t)RDMA_MAX_SEND_WR * RDMA_CTRL_MSG_LEN, 0, "control send") != C_OK)
        goto err;
    if (rdmaBufCreate(ep, &ep->rx, rx_size, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, "RX") != C_OK)
        goto err;
    for (uint32_t slot = 0; slot < RDMA_MAX_RECV_WR; slot++) {
        if (rdmaPostRecv(ep, slot) != C_OK) goto err;
    }
    return C_OK;

err:
    rdmaEndpointRelease(ep);
    return C_ERR;
}

void rdmaEndpointRelease(rdmaEndpoint *ep) {
    /* The QP goes first: nothing may still target the buffers or the CQ. */
    if (ep->cm_id && ep->cm_id->qp) rdma_destroy_qp(ep->cm_id);
    for (int j = 0; j < ep->extra_count; j++) ibv_dereg_mr(ep->extra_mrs[j]);
    free(ep->extra_mrs);
    ep->extra_mrs = NULL;
    ep->extra_count = ep->extra_cap = 0;
    ep->reads_inflight = ep->reads_done_count = 0;
    rdmaBufRelease(&ep->tx);
    rdmaBufRelease(&ep->rx);
    rdmaBufRelease(&ep->ctrl_send);
    rdmaBufRelease(&ep->ctrl_recv);
    if (ep->cq) ibv_destroy_cq(ep->cq);
    ep->cq = NULL;
    if (ep->comp_channel) ibv_destroy_comp_channel(ep->comp_channel);
    ep->comp_channel = NULL;
    if (ep->pd) ibv_dealloc_pd(ep->pd);
    ep->pd = NULL;
    ep->peer_known = 0;
    ep->send_inflight = 0;
}

/* ---------------------------------------------------------------------------
 * Control plane
 * ------------------------------------------------------------------------- */

int rdmaEndpointSendCtrl(rdmaEndpoint *ep, const rdmaCtrlMsg *msg) {
    if (ep->cm_id == NULL || ep->cm_id->qp == NULL) {
        rdmaFail(ep, "control send on a released endpoint");
        return C_ERR;
    }
    if (ep->send_inflight >= RDMA_MAX_SEND_WR) {
        rdmaFail(ep, "send queue full, cannot send control message %u", msg->opcode);
        return C_ERR;
    }
    uint32_t slot = ep->ctrl_send_seq++ % RDMA_MAX_SEND_WR;
    unsigned char *p = (unsigned char *)ep->ctrl_send.base + (size_t)slot * RDMA_CTRL_MSG_LEN;
    rdmaCtrlEncode(msg, p);
    struct ibv_sge sge = {.addr = (uintptr_t)p, .length = RDMA_CTRL_MSG_LEN, .lkey = ep->ctrl_send.mr->lkey};
    struct ibv_send_wr wr = {
        .wr_id = RDMA_WRID(RDMA_WRID_CTRL_SEND, slot),
        .sg_list = &sge,
        .num_sge = 1,
        .opcode = IBV_WR_SEND,
        .send_flags = IBV_SEND_SIGNALED,
    };
    struct ibv_send_wr *bad;
    int err = ibv_post_send(ep->cm_id->qp, &wr, &bad);
    if (err) {
        rdmaFail(ep, "ibv_post_send of control message %u failed: %s", msg->opcode, strerror(err));
        return C_ERR;
    }
    ep->send_inflight++;
    return C_OK;
}

int rdmaEndpointAdvertise(rdmaEndpoint *ep) {
    rdmaCtrlMsg msg = {
        .opcode = RDMA_OP_REGISTER_XFER_MEMORY,
        .addr = (uintptr_t)ep->rx.base,
        .length = (uint32_t)ep->rx.len,
        .rkey = ep->rx.mr->rkey,
    };
    return rdmaEndpointSendCtrl(ep, &msg);
}

/* The peer's RX window: point TX at it and restart at offset 0. The TX
 * staging buffer is re-created only when the length changes. */
static int rdmaHandleRegister(rdmaEndpoint *ep, const rdmaCtrlMsg *msg) {
    if (msg->length < RDMA_MIN_XFER_LEN || msg->length > RDMA_MAX_XFER_LEN) {
        rdmaFail(ep, "protocol error: RegisterXferMemory with invalid length %u", msg->length);
        return C_ERR;
    }
    if (ep->tx.len != msg->length) {
        rdmaBufRelease(&ep->tx);
        if (rdmaBufCreate(ep, &ep->tx, msg->length, 0, "TX staging") != C_OK) return C_ERR;
    }
    ep->peer_addr = msg->addr;
    ep->peer_len = msg->length;
    ep->peer_rkey = msg->rkey;
    ep->tx_offset = 0;
    ep->peer_known = 1;
    return C_OK;
}

/* One received control message (already copied out of its slot). */
static int rdmaHandleCtrl(rdmaEndpoint *ep, const rdmaCtrlMsg *msg) {
    switch (msg->opcode) {
    case RDMA_OP_REGISTER_XFER_MEMORY: return rdmaHandleRegister(ep, msg);
    case RDMA_OP_KEEPALIVE: ep->keepalives_received++; return C_OK;
    case RDMA_OP_GET_SERVER_FEATURE:
        if (ep->is_server) {
            /* No feature bits are defined yet: answer 0, echo the selector. */
            rdmaCtrlMsg reply = {.opcode = RDMA_OP_GET_SERVER_FEATURE, .select = msg->select, .features = 0};
            return rdmaEndpointSendCtrl(ep, &reply);
        }
        if (!ep->feature_requested) {
            rdmaFail(ep, "protocol error: unsolicited GetServerFeature from the server");
            return C_ERR;
        }
        ep->feature_requested = 0;
        ep->features_received++;
        ep->last_feature_select = msg->select;
        return C_OK;
    case RDMA_OP_SET_CLIENT_FEATURE:
        if (ep->is_server) return C_OK; /* Accepted; nothing to switch on yet. */
        rdmaFail(ep, "protocol error: SetClientFeature sent to a client");
        return C_ERR;
    default: rdmaFail(ep, "protocol error: unknown control opcode %u", msg->opcode); return C_ERR;
    }
}

/* One completion. Returns C_OK or C_ERR (ep->err set). */
static int rdmaHandleCompletion(rdmaEndpoint *ep, const struct ibv_wc *wc) {
    uint64_t kind = RDMA_WRID_KIND(wc->wr_id);

    if (wc->status != IBV_WC_SUCCESS) {
        if (wc->status == IBV_WC_WR_FLUSH_ERR) ep->failed_flushed = !ep->failed;
        rdmaFail(ep, "%s completion failed: %s (status %d, vendor error 0x%x)",
                 kind == RDMA_WRID_RECV   ? "receive"
                 : kind == RDMA_WRID_DATA ? "RDMA write"
                 : kind == RDMA_WRID_READ ? "RDMA read"
                                          : "send",
                 ibv_wc_status_str(wc->status), wc->status, wc->vendor_err);
        return C_ERR;
    }

    switch (wc->opcode) {
    case IBV_WC_SEND:
    case IBV_WC_RDMA_WRITE:
        if (ep->send_inflight > 0) ep->send_inflight--;
        return C_OK;

    case IBV_WC_RDMA_READ:
        if (kind != RDMA_WRID_READ || ep->reads_inflight == 0) {
            rdmaFail(ep, "RDMA read completion with a foreign wr_id 0x%llx", (unsigned long long)wc->wr_id);
            return C_ERR;
        }
        if (ep->send_inflight > 0) ep->send_inflight--;
        ep->reads_inflight--;
        ep->reads_done[ep->reads_done_count++] = RDMA_WRID_SLOT(wc->wr_id);
        return C_OK;

    case IBV_WC_RECV: {
        uint64_t slot = RDMA_WRID_SLOT(wc->wr_id);
        if (kind != RDMA_WRID_RECV || slot >= RDMA_MAX_RECV_WR) {
            rdmaFail(ep, "receive completion with a foreign wr_id 0x%llx", (unsigned long long)wc->wr_id);
            return C_ERR;
        }
        if (wc->byte_len != RDMA_CTRL_MSG_LEN) {
            rdmaFail(ep, "protocol error: control message of %u bytes (expected %d)", wc->byte_len,
                     RDMA_CTRL_MSG_LEN);
            return C_ERR;
        }
        rdmaCtrlMsg msg;
        rdmaCtrlDecode((unsigned char *)ep->ctrl_recv.base + slot * RDMA_CTRL_MSG_LEN, &msg);
        if (rdmaPostRecv(ep, (uint32_t)slot) != C_OK) return C_ERR;
        return rdmaHandleCtrl(ep, &msg);
    }

    case IBV_WC_RECV_RDMA_WITH_IMM: {
        uint64_t slot = RDMA_WRID_SLOT(wc->wr_id);
        if (kind != RDMA_WRID_RECV || slot >= RDMA_MAX_RECV_WR) {
            rdmaFail(ep, "receive completion with a foreign wr_id 0x%llx", (unsigned long long)wc->wr_id);
            return C_ERR;
        }
        if (!(wc->wc_flags & IBV_WC_WITH_IMM)) {
            rdmaFail(ep, "protocol error: RDMA write without an immediate");
            return C_ERR;
        }
        uint32_t n = ntohl(wc->imm_data);
        if (n > ep->rx.len - ep->rx_landed) {
            rdmaFail(ep, "protocol error: RDMA write of %u bytes at offset %zu overruns the %zu-byte RX buffer", n,
                     ep->rx_landed, ep->rx.len);
            return C_ERR;
        }
        ep->rx_landed += n;
        return rdmaPostRecv(ep, (uint32_t)slot);
    }

    default: rdmaFail(ep, "unexpected completion opcode %d", wc->opcode); return C_ERR;
    }
}

int rdmaEndpointPoll(rdmaEndpoint *ep) {
    if (ep->cq == NULL) {
        rdmaFail(ep, "poll on a released endpoint");
        return -1;
    }

    /* Collect and acknowledge the notification (even on a failed
     * endpoint, or its fd would stay readable), then re-arm BEFORE
     * draining: a completion that lands after the final empty poll will
     * raise a new event instead of being lost. The CQ raises at most one
     * event per arming, so one read of the channel finds it; without one
     * the CQ is still armed and is not re-armed (each is a system call
     * with Soft-RoCE: this is the hot path of every request). */
    struct ibv_cq *ev_cq;
    void *ev_ctx;
    int got_event = ibv_get_cq_event(ep->comp_channel, &ev_cq, &ev_ctx) == 0;
    if (got_event) ibv_ack_cq_events(ep->cq, 1);
    if (ep->failed) return -1;
    if (got_event) {
        int err = ibv_req_notify_cq(ep->cq, 0);
        if (err) {
            rdmaFail(ep, "ibv_req_notify_cq failed: %s", strerror(err));
            return -1;
        }
    }

    int handled = 0;
    struct ibv_wc wc[RDMA_POLL_BATCH];
    for (;;) {
        int n = ibv_poll_cq(ep->cq, RDMA_POLL_BATCH, wc);
        if (n < 0) {
            rdmaFail(ep, "ibv_poll_cq failed");
            return -1;
        }
        if (n == 0) break;
        for (int j = 0; j < n; j++) {
            if (rdmaHandleCompletion(ep, &wc[j]) != C_OK) return -1;
        }
        handled += n;
    }
    return handled;
}

/* ---------------------------------------------------------------------------
 * Data plane
 * ------------------------------------------------------------------------- */

size_t rdmaEndpointWritable(const rdmaEndpoint *ep) {
    if (ep->failed || !ep->peer_known || ep->cm_id == NULL || ep->cm_id->qp == NULL) return 0;
    if (ep->send_inflight >= RDMA_MAX_SEND_WR - RDMA_SEND_RESERVE) return 0;
    return ep->peer_len - ep->tx_offset;
}

ssize_t rdmaEndpointRead(rdmaEndpoint *ep, void *buf, size_t len) {
    size_t avail = rdmaEndpointReadable(ep);
    if (len > avail) len = avail;
    if (len == 0) return 0;
    memcpy(buf, ep->rx.base + ep->rx_consumed, len);
    ep->rx_consumed += len;
    if (ep->rx_consumed == ep->rx.len) {
        /* The peer filled the whole window and we read all of it: hand it
         * back, starting again at the beginning. */
        ep->rx_consumed = ep->rx_landed = 0;
        if (rdmaEndpointAdvertise(ep) != C_OK) return -1;
    }
    return (ssize_t)len;
}

ssize_t rdmaEndpointWritev(rdmaEndpoint *ep, const struct iovec *iov, int iovcnt) {
    size_t room = rdmaEndpointWritable(ep);
    if (ep->failed) return -1;
    if (room == 0) return 0;

    size_t off = ep->tx_offset, n = 0;
    for (int j = 0; j < iovcnt && n < room; j++) {
        size_t take = iov[j].iov_len;
        if (take > room - n) take = room - n;
        memcpy(ep->tx.base + off + n, iov[j].iov_base, take);
        n += take;
    }
    if (n == 0) return 0;

    struct ibv_sge sge = {.addr = (uintptr_t)(ep->tx.base + off), .length = (uint32_t)n, .lkey = ep->tx.mr->lkey};
    struct ibv_send_wr wr = {
        .wr_id = RDMA_WRID(RDMA_WRID_DATA, 0),
        .sg_list = &sge,
        .num_sge = 1,
        .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
        .send_flags = IBV_SEND_SIGNALED,
        .imm_data = htonl((uint32_t)n),
        .wr.rdma = {.remote_addr = ep->peer_addr + off, .rkey = ep->peer_rkey},
    };
    struct ibv_send_wr *bad;
    int err = ibv_post_send(ep->cm_id->qp, &wr, &bad);
    if (err) {
        rdmaFail(ep, "ibv_post_send of an RDMA write (%zu bytes) failed: %s", n, strerror(err));
        return -1;
    }
    ep->send_inflight++;
    ep->tx_offset += n;
    return (ssize_t)n;
}

/* ---------------------------------------------------------------------------
 * Extra registrations and one-sided READs
 * ------------------------------------------------------------------------- */

struct ibv_mr *rdmaEndpointRegister(rdmaEndpoint *ep, void *addr, size_t len, int access) {
    if (ep->pd == NULL) {
        rdmaFail(ep, "registration on a released endpoint");
        return NULL;
    }
    if (ep->extra_count == ep->extra_cap) {
        int cap = ep->extra_cap ? ep->extra_cap * 2 : 16;
        struct ibv_mr **grown = realloc(ep->extra_mrs, sizeof(*grown) * (size_t)cap);
        if (grown == NULL) return NULL;
        ep->extra_mrs = grown;
        ep->extra_cap = cap;
    }
    struct ibv_mr *mr = ibv_reg_mr(ep->pd, addr, len, access);
    if (mr == NULL) return NULL; /* errno says why; the endpoint is fine */
    ep->extra_mrs[ep->extra_count++] = mr;
    return mr;
}

void rdmaEndpointDeregister(rdmaEndpoint *ep, struct ibv_mr *mr) {
    for (int j = 0; j < ep->extra_count; j++) {
        if (ep->extra_mrs[j] != mr) continue;
        ep->extra_mrs[j] = ep->extra_mrs[--ep->extra_count];
        ibv_dereg_mr(mr);
        return;
    }
}

int rdmaEndpointPostRead(rdmaEndpoint *ep, struct ibv_mr *local_mr, void *local, uint64_t raddr, uint32_t rkey,
                         uint32_t len, uint64_t tag) {
    if (ep->failed || ep->cm_id == NULL || ep->cm_id->qp == NULL) {
        rdmaFail(ep, "RDMA read on an unusable endpoint");
        return -1;
    }
    if (ep->reads_inflight + ep->reads_done_count >= RDMA_MAX_READS ||
        ep->send_inflight >= RDMA_MAX_SEND_WR - RDMA_SEND_RESERVE)
        return 0;
    struct ibv_sge sge = {.addr = (uintptr_t)local, .length = len, .lkey = local_mr->lkey};
    struct ibv_send_wr wr = {
        .wr_id = RDMA_WRID(RDMA_WRID_READ, tag),
        .sg_list = &sge,
        .num_sge = 1,
        .opcode = IBV_WR_RDMA_READ,
        .send_flags = IBV_SEND_SIGNALED,
        .wr.rdma = {.remote_addr = raddr, .rkey = rkey},
    };
    struct ibv_send_wr *bad;
    int err = ibv_post_send(ep->cm_id->qp, &wr, &bad);
    if (err) {
        rdmaFail(ep, "ibv_post_send of an RDMA read (%u bytes) failed: %s", len, strerror(err));
        return -1;
    }
    ep->send_inflight++;
    ep->reads_inflight++;
    return 1;
}

int rdmaEndpointReadsDone(rdmaEndpoint *ep, uint64_t *tags, int max) {
    int n = ep->reads_done_count < max ? ep->reads_done_count : max;
    memcpy(tags, ep->reads_done, sizeof(*tags) * (size_t)n);
    memmove(ep->reads_done, ep->reads_done + n, sizeof(*tags) * (size_t)(ep->reads_done_count - n));
    ep->reads_done_count -= n;
    return n;
}
