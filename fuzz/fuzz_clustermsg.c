/* fuzz_clustermsg.c - libFuzzer target for the cluster bus message decoder
 * and encoder (src/cluster_msg.c), what every byte a cluster peer sends
 * goes through.
 *
 * Input: the bytes of one message. They are decoded twice: as given, and
 * with the frame's totlen field set to the input's length (so that
 * mutations reach the checks behind the frame check). Every decode must
 * return one of its three results and fill the error text unless it
 * succeeds; clusterMsgFrameLength() must agree with the frame. Whatever
 * decodes must encode, to exactly as many bytes as the input, and the
 * encoding must decode to an equal message. Any difference aborts.
 * Seeds: fuzz/corpus/clustermsg/, messages captured from redis-server 7.0
 * (utils/cluster-capture) and Valkey 8's extensions and light header. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_msg.h"
#include "zmalloc.h"

/* Decodes buf; on success checks the encode/decode round trip. */
static void decodeAndRoundTrip(const unsigned char *buf, size_t len) {
    clusterMsg a, b;
    char err[CLUSTER_MSG_ERR_LEN];
    err[0] = '\0';
    int rc = clusterMsgDecode(buf, len, &a, err);
    if (rc != CLUSTER_MSG_OK) {
        if ((rc != CLUSTER_MSG_INVALID && rc != CLUSTER_MSG_IGNORE) || err[0] == '\0') abort();
        return;
    }
    uint32_t totlen = 0;
    if (clusterMsgFrameLength(buf, len, UINT32_MAX, &totlen, err) != CLUSTER_MSG_OK || totlen != len) abort();
    size_t elen = 0;
    unsigned char *enc = clusterMsgEncode(&a, &elen, err);
    if (!enc || elen != len) abort();
    if (clusterMsgDecode(enc, elen, &b, err) != CLUSTER_MSG_OK) abort();
    if (!clusterMsgEqual(&a, &b)) abort();
    /* A second encoding is byte for byte the first: encoding is canonical. */
    size_t elen2 = 0;
    unsigned char *enc2 = clusterMsgEncode(&b, &elen2, err);
    if (!enc2 || elen2 != elen || memcmp(enc, enc2, elen) != 0) abort();
    zfree(enc2);
    clusterMsgRelease(&b);
    zfree(enc);
    clusterMsgRelease(&a);
}

/* Called by libFuzzer for each input (only read, owned by libFuzzer).
 * Returns 0; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    decodeAndRoundTrip(data, size);
    if (size >= 8) {
        unsigned char *copy = zmalloc(size);
        memcpy(copy, data, size);
        uint32_t n = (uint32_t)size;
        copy[4] = (unsigned char)(n >> 24);
        copy[5] = (unsigned char)(n >> 16);
        copy[6] = (unsigned char)(n >> 8);
        copy[7] = (unsigned char)n;
        decodeAndRoundTrip(copy, size);
        zfree(copy);
    }
    return 0;
}
