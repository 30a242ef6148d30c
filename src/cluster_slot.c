/* cluster_slot.c - key to hash slot, and slot bitmap scans.
 *
 * keyHashSlot() follows the cluster spec: HASH_SLOT = CRC16(key) mod 16384
 * (CRC-16/XMODEM, crc16.c; 16384 is a power of two, so the modulo is a
 * mask of the low 14 bits), except that a hash tag routes keys by part of
 * their name: only the bytes between the first '{' and the first '}' after
 * it are hashed, if there is at least one. So "{user1000}.following" and
 * "{user1000}.followers" share a slot, "foo{}{bar}" is hashed whole (the
 * first tag is empty and the search stops there), and "foo{{bar}}zap"
 * hashes "{bar".
 *
 * The bitmap scans serve the formats that list slots as ranges. Nothing
 * here keeps state; callers own every buffer. */
#include "cluster_slot.h"
#include "crc16.h"

#include <stdint.h>
#include <string.h>

unsigned int keyHashSlot(const char *key, size_t keylen) {
    const char *open = keylen ? memchr(key, '{', keylen) : NULL;
    if (open) {
        size_t after = (size_t)(open - key) + 1;
        const char *close = memchr(open + 1, '}', keylen - after);
        if (close && close > open + 1) return crc16(open + 1, (size_t)(close - open - 1)) & (CLUSTER_SLOTS - 1);
    }
    return crc16(key, keylen) & (CLUSTER_SLOTS - 1);
}

/* See cluster_slot.h. Walks the pattern once: a glob character or an
 * escape before the slot is known makes any slot possible; the first '{'
 * opens the tag, the first '}' after it closes it ("{}" leaves the key
 * hashed whole, as keyHashSlot() does). */
int patternHashSlot(const char *pattern, size_t len) {
    size_t open = SIZE_MAX; /* position of the tag's '{', SIZE_MAX before it */
    int tag_empty = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = pattern[i];
        if (ch == '*' || ch == '?' || ch == '[' || ch == '\\') return -1;
        if (tag_empty) continue; /* the key is hashed whole: every byte must be literal */
        if (open == SIZE_MAX && ch == '{') {
            open = i;
        } else if (open != SIZE_MAX && ch == '}') {
            if (i == open + 1) {
                tag_empty = 1;
                continue;
            }
            return crc16(pattern + open + 1, i - open - 1) & (CLUSTER_SLOTS - 1);
        }
    }
    return crc16(pattern, len) & (CLUSTER_SLOTS - 1);
}

void clusterSlotBitmapSetRange(unsigned char *bitmap, int first, int last) {
    int s = first;
    while (s <= last && (s & 7)) clusterSlotBitmapSet(bitmap, s++);
    if (s + 7 <= last) {
        memset(bitmap + (s >> 3), 0xff, (size_t)((last + 1 - s) >> 3));
        s += ((last + 1 - s) >> 3) << 3;
    }
    while (s <= last) clusterSlotBitmapSet(bitmap, s++);
}

int clusterSlotBitmapCount(const unsigned char *bitmap) {
    int n = 0;
    for (int j = 0; j < CLUSTER_SLOT_BITMAP_LEN; j++) n += __builtin_popcount(bitmap[j]);
    return n;
}

int clusterSlotBitmapNextRange(const unsigned char *bitmap, int *slot, int *start, int *end) {
    int s = *slot;
    while (s < CLUSTER_SLOTS && !clusterSlotBitmapTest(bitmap, s)) {
        /* Whole empty bytes at once: most of a bitmap is usually empty. */
        if ((s & 7) == 0 && bitmap[s >> 3] == 0)
            s += 8;
        else
            s++;
    }
    if (s >= CLUSTER_SLOTS) {
        *slot = CLUSTER_SLOTS;
        return 0;
    }
    *start = s;
    while (s < CLUSTER_SLOTS && clusterSlotBitmapTest(bitmap, s)) {
        if ((s & 7) == 0 && bitmap[s >> 3] == 0xff)
            s += 8;
        else
            s++;
    }
    *end = s - 1;
    *slot = s;
    return 1;
}
