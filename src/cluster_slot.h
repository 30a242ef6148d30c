/* cluster_slot.h - the cluster's key space by slot: which of the 16384 hash
 * slots a key belongs to, and the slot bitmaps that the bus messages and
 * nodes.conf carry.
 *
 * A leaf library: no server state. keyHashSlot() is what command routing
 * will consult for every key; the bitmap helpers read and write the
 * 2048-byte slot sets of cluster_msg.c (myslots, UPDATE) and cluster_conf.c
 * (a node's slots), where slot s is bit (s & 7) of byte s >> 3, least
 * significant bit first, as on the wire. */
#ifndef VK_CLUSTER_SLOT_H
#define VK_CLUSTER_SLOT_H

#include <stddef.h>

#define CLUSTER_SLOTS 16384
#define CLUSTER_SLOT_BITS 14 /* CLUSTER_SLOTS == 1 << CLUSTER_SLOT_BITS */
#define CLUSTER_SLOT_BITMAP_LEN (CLUSTER_SLOTS / 8)

/* Returns the hash slot (0..16383) of a key: the CRC-16 of the key modulo
 * 16384, or, when the key has a hash tag -- a '{' followed later by a '}'
 * with at least one byte between the first '{' and the first '}' after
 * it -- the CRC-16 of those bytes only. Binary safe; pure; any thread. */
unsigned int keyHashSlot(const char *key, size_t keylen);

/* The slot of every key a glob-style pattern (KEYS, SCAN MATCH) can match,
 * when the pattern fixes it, else -1. It does when the pattern up to the
 * end of its first non-empty hash tag, or the whole pattern when it has
 * none, is made of literal bytes: "{user1}:*" -> the slot of "user1",
 * "exact" -> the slot of "exact"; "*{user1}", "{us*r}:x" and "a\\{b}"
 * (an escape) -> -1. Pure; any thread. */
int patternHashSlot(const char *pattern, size_t len);

/* Slot bitmaps of CLUSTER_SLOT_BITMAP_LEN bytes; slot must be in range. */
static inline int clusterSlotBitmapTest(const unsigned char *bitmap, int slot) {
    return (bitmap[slot >> 3] >> (slot & 7)) & 1;
}

static inline void clusterSlotBitmapSet(unsigned char *bitmap, int slot) {
    bitmap[slot >> 3] |= (unsigned char)(1 << (slot & 7));
}

static inline void clusterSlotBitmapClear(unsigned char *bitmap, int slot) {
    bitmap[slot >> 3] &= (unsigned char)~(1 << (slot & 7));
}

/* Sets slots first..last (in range, first <= last) a byte at a time where
 * it can. */
void clusterSlotBitmapSetRange(unsigned char *bitmap, int first, int last);

/* Returns the number of slots set in a bitmap. Pure. */
int clusterSlotBitmapCount(const unsigned char *bitmap);

/* Finds the next run of set slots starting at or after *slot: returns 1
 * with [*start, *end] the run and *slot moved past it, or 0 when no slot
 * at or after *slot is set. Iterates a bitmap as the ranges "0-5460 5462"
 * that nodes.conf and CLUSTER NODES print. */
int clusterSlotBitmapNextRange(const unsigned char *bitmap, int *slot, int *start, int *end);

#endif
