/* fuzz_rdma.c - libFuzzer target for the RDMA control-message decoder
 * (src/rdma.c, rdmaCtrlDecode): every 32-byte message a peer posts is
 * decoded by it before the protocol engine looks at the opcode.
 *
 * Input: any bytes, taken 32 at a time as received control messages. Each
 * is decoded; the decoded message, encoded again and decoded again, must
 * give the same message (the decoder keeps exactly the opcode's own
 * fields), the re-encoded image must have every reserved byte zero, and
 * the fields of other opcodes must be zero. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdma.h"

static void checkOne(const unsigned char *in) {
    rdmaCtrlMsg msg, again;
    unsigned char wire[RDMA_CTRL_MSG_LEN];
    rdmaCtrlDecode(in, &msg);
    rdmaCtrlEncode(&msg, wire);
    rdmaCtrlDecode(wire, &again);
    if (memcmp(&msg, &again, sizeof(msg)) != 0) abort();
    for (int j = 4; j < 16; j++)
        if (wire[j] != 0) abort(); /* reserved */
    switch (msg.opcode) {
    case RDMA_OP_GET_SERVER_FEATURE:
    case RDMA_OP_SET_CLIENT_FEATURE:
        if (msg.addr || msg.length || msg.rkey) abort();
        break;
    case RDMA_OP_REGISTER_XFER_MEMORY:
        if (msg.select || msg.features) abort();
        break;
    default:
        if (msg.select || msg.features || msg.addr || msg.length || msg.rkey) abort();
        break;
    }
    /* Only the opcode's own bytes survive: the rest of the image is zero. */
    static const unsigned char zero[RDMA_CTRL_MSG_LEN];
    if (msg.opcode > RDMA_OP_REGISTER_XFER_MEMORY && memcmp(wire + 2, zero, RDMA_CTRL_MSG_LEN - 2) != 0) abort();
}

/* Called by libFuzzer for each input (data is only read, owned by
 * libFuzzer). Returns 0; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    for (size_t off = 0; off + RDMA_CTRL_MSG_LEN <= size; off += RDMA_CTRL_MSG_LEN) checkOne(data + off);
    /* A short tail is what a receive of the wrong length would hold: the
     * engine refuses it before decoding (rdmaHandleCompletion). */
    return 0;
}
