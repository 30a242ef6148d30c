/* test_rdma.c - unit tests of the RDMA protocol engine's wire format
 * (rdma.c): the 32-byte control messages, byte for byte. Needs no RDMA
 * device; built only with BUILD_RDMA=yes (it links libibverbs). */
#include <stdint.h>
#include <string.h>

#include "rdma.h"
#include "unittest.h"

int main(int argc, char **argv) {
    UT_BEGIN(argv[0]);
    unsigned char wire[RDMA_CTRL_MSG_LEN];
    rdmaCtrlMsg m;

    TEST("rdma: RegisterXferMemory is big-endian at offsets 0/16/24/28") {
        rdmaCtrlMsg reg = {.opcode = RDMA_OP_REGISTER_XFER_MEMORY,
                           .addr = 0x0102030405060708ULL,
                           .length = 0x00100000,
                           .rkey = 0xa1b2c3d4};
        memset(wire, 0xee, sizeof(wire));
        rdmaCtrlEncode(&reg, wire);
        static const unsigned char want[RDMA_CTRL_MSG_LEN] = {
            0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00, 0x10, 0x00, 0x00, 0xa1, 0xb2, 0xc3, 0xd4};
        ASSERT(memcmp(wire, want, sizeof(want)) == 0);
        rdmaCtrlDecode(wire, &m);
        ASSERT_EQ_LL(m.opcode, RDMA_OP_REGISTER_XFER_MEMORY);
        ASSERT(m.addr == reg.addr);
        ASSERT_EQ_LL(m.length, reg.length);
        ASSERT_EQ_LL(m.rkey, reg.rkey);
    }

    TEST("rdma: GetServerFeature carries select at 2 and features at 24") {
        rdmaCtrlMsg f = {.opcode = RDMA_OP_GET_SERVER_FEATURE, .select = 0x1234, .features = 0x8000000000000001ULL};
        rdmaCtrlEncode(&f, wire);
        ASSERT_EQ_LL(wire[0], 0);
        ASSERT_EQ_LL(wire[1], 0);
        ASSERT_EQ_LL(wire[2], 0x12);
        ASSERT_EQ_LL(wire[3], 0x34);
        for (int j = 4; j < 24; j++) ASSERT_EQ_LL(wire[j], 0);
        ASSERT_EQ_LL(wire[24], 0x80);
        ASSERT_EQ_LL(wire[31], 0x01);
        rdmaCtrlDecode(wire, &m);
        ASSERT_EQ_LL(m.select, 0x1234);
        ASSERT(m.features == f.features);
        ASSERT_EQ_LL(m.length, 0);
    }

    TEST("rdma: Keepalive is opcode 2 and 30 zero bytes") {
        rdmaCtrlMsg k = {.opcode = RDMA_OP_KEEPALIVE, .addr = 99, .select = 7};
        rdmaCtrlEncode(&k, wire);
        ASSERT_EQ_LL(wire[1], 2);
        for (int j = 2; j < RDMA_CTRL_MSG_LEN; j++) ASSERT_EQ_LL(wire[j], 0);
    }

    TEST("rdma: unknown opcodes decode without their fields") {
        memset(wire, 0xff, sizeof(wire));
        rdmaCtrlDecode(wire, &m);
        ASSERT_EQ_LL(m.opcode, 0xffff);
        ASSERT(m.addr == 0 && m.length == 0 && m.rkey == 0 && m.features == 0);
    }
    return UT_END();
}
