/* kvstore.c - numbered hash tables with per-table counts (see kvstore.h).
 *
 * One table (bits 0): tables[0] always exists and every function is a
 * direct call on it; nothing else is kept, so standalone mode pays one
 * pointer load per lookup and nothing per change.
 *
 * Several tables (bits > 0, cluster mode): a table is created by the first
 * operation that may add to it and freed by kvstoreCronStep() (or
 * kvstoreEmpty()) once it is empty and not paused (no iterator, scan or
 * two-phase operation holds bucket pointers into it). Every change of a
 * table's size goes through this file, which keeps in step:
 *
 *   key_count          the total;
 *   non_empty_tables   how many tables have entries;
 *   fenwick[1..n]      a Fenwick tree over the table sizes: fenwick[i]
 *                      holds the sum of the sizes of tables
 *                      (i - lowbit(i), i] (1-based), so a prefix sum, an
 *                      update and "which table holds the k-th entry" each
 *                      take `bits` steps.
 *
 * The k-th-entry search walks the tree from its top: at each power of two
 * it skips the whole block of tables when their entries are fewer than
 * what is left to skip. It gives the fair random table (weighted by size)
 * and the next non-empty table, which iteration and SCAN use to jump over
 * empty slots. */
#include "kvstore.h"

#include <stdio.h>
#include <string.h>

#include "util.h"
#include "zmalloc.h"

/* ---------------------------------------------------------------------------
 * Counts (several tables only)
 * ------------------------------------------------------------------------- */

/* Adds delta to table idx's size in the Fenwick tree. */
static void fenwickAdd(kvstore *kvs, int idx, long long delta) {
    for (int i = idx + 1; i <= kvs->num_tables; i += i & -i) kvs->fenwick[i] += (unsigned long long)delta;
}

/* Entries in tables 0..idx (0 for idx < 0). */
static size_t fenwickPrefix(const kvstore *kvs, int idx) {
    size_t sum = 0;
    for (int i = idx + 1; i > 0; i -= i & -i) sum += kvs->fenwick[i];
    return sum;
}

/* Table idx grew (delta 1) or shrank (delta -1) by one entry, its size now
 * being now. */
static void countChange(kvstore *kvs, int idx, long long delta, size_t now) {
    kvs->key_count += (size_t)delta;
    fenwickAdd(kvs, idx, delta);
    if (delta > 0 && now == (size_t)delta) kvs->non_empty_tables++;
    else if (delta < 0 && now == 0) kvs->non_empty_tables--;
}

/* See kvstore.h. */
int kvstoreFindTableIndexByKeyIndex(const kvstore *kvs, size_t target) {
    if (target == 0 || target > kvstoreSize(kvs)) return -1;
    if (kvs->bits == 0) return 0;
    int pos = 0;
    for (int step = kvs->num_tables; step > 0; step >>= 1) {
        int next = pos + step;
        if (next <= kvs->num_tables && kvs->fenwick[next] < target) {
            pos = next;
            target -= kvs->fenwick[next];
        }
    }
    return pos; /* 1-based pos + 1 holds the entry: 0-based index pos */
}

/* ---------------------------------------------------------------------------
 * Create, empty, release
 * ------------------------------------------------------------------------- */

/* See kvstore.h. */
kvstore *kvstoreCreate(hashtableType *type, int bits) {
    kvstore *kvs = zcalloc(sizeof(*kvs));
    kvs->type = type;
    kvs->bits = bits;
    kvs->num_tables = 1 << bits;
    kvs->tables = zcalloc(sizeof(hashtable *) * (size_t)kvs->num_tables);
    if (bits == 0) {
        kvs->tables[0] = kvs->only = hashtableCreate(type);
        kvs->allocated_tables = 1;
    } else {
        kvs->fenwick = zcalloc(sizeof(unsigned long long) * (size_t)(kvs->num_tables + 1));
    }
    return kvs;
}

/* Table idx, created if missing. */
static hashtable *tableForWrite(kvstore *kvs, int idx) {
    hashtable *ht = kvs->tables[idx];
    if (ht == NULL) {
        ht = kvs->tables[idx] = hashtableCreate(kvs->type);
        kvs->allocated_tables++;
    }
    return ht;
}

/* Frees table idx (several tables only), entries included (callback as
 * hashtableEmpty()'s). */
static void freeTable(kvstore *kvs, int idx, void (*callback)(hashtable *)) {
    hashtable *ht = kvs->tables[idx];
    size_t size = hashtableSize(ht);
    if (size) {
        kvs->key_count -= size;
        fenwickAdd(kvs, idx, -(long long)size);
        kvs->non_empty_tables--;
    }
    hashtableEmpty(ht, callback);
    hashtableRelease(ht);
    kvs->tables[idx] = NULL;
    kvs->allocated_tables--;
}

/* See kvstore.h. */
void kvstoreEmpty(kvstore *kvs, void (*callback)(hashtable *)) {
    if (kvs->bits == 0) {
        hashtableEmpty(kvs->tables[0], callback);
        return;
    }
    for (int idx = 0; idx < kvs->num_tables && kvs->allocated_tables; idx++) {
        hashtable *ht = kvs->tables[idx];
        if (ht == NULL) continue;
        freeTable(kvs, idx, callback);
    }
    kvs->cron_cursor = 0;
}

/* See kvstore.h. */
void kvstoreRelease(kvstore *kvs) {
    kvstoreEmpty(kvs, NULL);
    if (kvs->bits == 0) hashtableRelease(kvs->tables[0]);
    zfree(kvs->tables);
    zfree(kvs->fenwick);
    zfree(kvs);
}

/* ---------------------------------------------------------------------------
 * Sizes
 * ------------------------------------------------------------------------- */

/* See kvstore.h. */
size_t kvstoreSize(const kvstore *kvs) {
    return kvs->bits == 0 ? hashtableSize(kvs->tables[0]) : kvs->key_count;
}

int kvstoreNumTables(const kvstore *kvs) {
    return kvs->num_tables;
}

int kvstoreNumAllocatedTables(const kvstore *kvs) {
    return kvs->allocated_tables;
}

int kvstoreNumNonEmptyTables(const kvstore *kvs) {
    if (kvs->bits == 0) return hashtableSize(kvs->tables[0]) > 0;
    return kvs->non_empty_tables;
}

/* See kvstore.h. */
size_t kvstoreTableSize(const kvstore *kvs, int idx) {
    hashtable *ht = kvs->tables[idx];
    return ht ? hashtableSize(ht) : 0;
}

/* ---------------------------------------------------------------------------
 * Changes
 * ------------------------------------------------------------------------- */

/* See kvstore.h: the slow paths of its inline kvstoreFindRefOrPosition()
 * and kvstoreInsertAtPosition(). */
hashtable *kvstoreCreateTableAt(kvstore *kvs, int idx) {
    return tableForWrite(kvs, idx);
}

void kvstoreCountInserted(kvstore *kvs, int idx) {
    countChange(kvs, idx, 1, hashtableSize(kvs->tables[idx]));
}

/* See kvstore.h. */
int kvstoreAdd(kvstore *kvs, int idx, void *entry) {
    hashtable *ht = tableForWrite(kvs, idx);
    if (!hashtableAdd(ht, entry)) return 0;
    if (kvs->bits) countChange(kvs, idx, 1, hashtableSize(ht));
    return 1;
}

/* See kvstore.h. */
int kvstorePop(kvstore *kvs, int idx, const void *key, void **popped) {
    hashtable *ht = kvs->tables[idx];
    if (ht == NULL || !hashtablePop(ht, key, popped)) return 0;
    if (kvs->bits) countChange(kvs, idx, -1, hashtableSize(ht));
    return 1;
}

/* See kvstore.h. */
int kvstoreDelete(kvstore *kvs, int idx, const void *key) {
    hashtable *ht = kvs->tables[idx];
    if (ht == NULL || !hashtableDelete(ht, key)) return 0;
    if (kvs->bits) countChange(kvs, idx, -1, hashtableSize(ht));
    return 1;
}

/* ---------------------------------------------------------------------------
 * Navigation and sampling
 * ------------------------------------------------------------------------- */

/* See kvstore.h. */
int kvstoreNextNonEmptyTable(const kvstore *kvs, int idx) {
    if (kvs->bits == 0) return idx < 0 && hashtableSize(kvs->tables[0]) ? 0 : -1;
    if (idx >= kvs->num_tables - 1) return -1;
    return kvstoreFindTableIndexByKeyIndex(kvs, fenwickPrefix(kvs, idx) + 1);
}

/* A random number in [0, n): rand()-free, cheap, not for secrets. */
static size_t randomBelow(size_t n) {
    static uint64_t state = 0;
    if (state == 0) state = getMonotonicUs() ^ (uint64_t)(uintptr_t)&state ^ 0x9E3779B97F4A7C15ULL;
    state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (size_t)(z % n);
}

/* See kvstore.h. */
int kvstoreFairRandomTableIndex(const kvstore *kvs) {
    size_t total = kvstoreSize(kvs);
    if (total == 0) return -1;
    if (kvs->bits == 0) return 0;
    return kvstoreFindTableIndexByKeyIndex(kvs, randomBelow(total) + 1);
}

/* See kvstore.h. */
int kvstoreFairRandomEntry(kvstore *kvs, void **found) {
    int idx = kvstoreFairRandomTableIndex(kvs);
    if (idx < 0) return 0;
    return hashtableFairRandomEntry(kvs->tables[idx], found);
}

/* ---------------------------------------------------------------------------
 * SCAN
 * ------------------------------------------------------------------------- */

/* One step of kvstoreScan()/kvstoreScanRefs(): fn or reffn. */
static size_t scanGeneric(kvstore *kvs, size_t cursor, int only_idx, hashtableScanFunction fn,
                          hashtableScanRefFunction reffn, void *privdata) {
    if (kvs->bits == 0) {
        hashtable *ht = kvs->tables[0];
        return fn ? hashtableScan(ht, cursor, fn, privdata) : hashtableScanRefs(ht, cursor, reffn, privdata);
    }
    int idx = (int)(cursor & (size_t)(kvs->num_tables - 1));
    size_t table_cursor = cursor >> kvs->bits;
    if (only_idx >= 0 && idx != only_idx) {
        idx = only_idx; /* a cursor of another table: start this one */
        table_cursor = 0;
    }
    /* A scan that starts on (or comes back to) an empty table moves to
     * the next one with entries at once. */
    if (only_idx < 0 && kvstoreTableSize(kvs, idx) == 0) {
        idx = kvstoreNextNonEmptyTable(kvs, idx);
        if (idx < 0) return 0;
        table_cursor = 0;
    }
    hashtable *ht = kvs->tables[idx];
    size_t next = 0;
    if (ht && hashtableSize(ht)) {
        next = fn ? hashtableScan(ht, table_cursor, fn, privdata)
                  : hashtableScanRefs(ht, table_cursor, reffn, privdata);
    }
    if (next == 0) {
        if (only_idx >= 0) return 0;
        idx = kvstoreNextNonEmptyTable(kvs, idx);
        return idx < 0 ? 0 : (size_t)idx; /* the next table, from its start */
    }
    return (next << kvs->bits) | (size_t)idx;
}

/* See kvstore.h. */
size_t kvstoreScan(kvstore *kvs, size_t cursor, int only_idx, hashtableScanFunction fn, void *privdata) {
    return scanGeneric(kvs, cursor, only_idx, fn, NULL, privdata);
}

/* See kvstore.h. */
size_t kvstoreScanRefs(kvstore *kvs, size_t cursor, hashtableScanRefFunction fn, void *privdata) {
    return scanGeneric(kvs, cursor, -1, NULL, fn, privdata);
}

/* ---------------------------------------------------------------------------
 * Sizing, upkeep, memory
 * ------------------------------------------------------------------------- */

/* See kvstore.h. */
int kvstoreExpand(kvstore *kvs, size_t size, int try_expand, int (*skip)(void *privdata, int idx), void *privdata) {
    if (kvs->bits == 0) {
        hashtable *ht = kvs->tables[0];
        if (!try_expand) {
            hashtableExpand(ht, size);
            return 1;
        }
        /* 0 from TryExpand is also "nothing to do": only an allocation
         * that failed leaves the table smaller than asked. */
        return hashtableTryExpand(ht, size) || hashtableEntryCapacity(ht) >= size ||
               hashtableIsRehashing(ht);
    }
    int chosen = 0;
    for (int idx = 0; idx < kvs->num_tables; idx++)
        if (skip == NULL || !skip(privdata, idx)) chosen++;
    if (chosen == 0) return 1;
    size_t share = size / (size_t)chosen;
    if (share == 0) return 1;
    for (int idx = 0; idx < kvs->num_tables; idx++) {
        if (skip && skip(privdata, idx)) continue;
        hashtable *ht = tableForWrite(kvs, idx);
        if (!try_expand) {
            hashtableExpand(ht, share);
        } else if (!hashtableTryExpand(ht, share) && hashtableEntryCapacity(ht) < share && !hashtableIsRehashing(ht)) {
            return 0;
        }
    }
    return 1;
}

/* See kvstore.h. */
int kvstoreCronStep(kvstore *kvs, int max_tables, int shrink, uint64_t rehash_us) {
    if (kvs->bits == 0) {
        hashtable *ht = kvs->tables[0];
        if (shrink) hashtableShrinkIfNeeded(ht);
        if (rehash_us == 0 || !hashtableIsRehashing(ht)) return 0;
        hashtableRehashMicroseconds(ht, rehash_us);
        return 1;
    }
    uint64_t start = rehash_us ? getMonotonicUs() : 0;
    int rehashed = 0;
    for (int n = 0; n < max_tables && n < kvs->num_tables; n++) {
        int idx = kvs->cron_cursor;
        kvs->cron_cursor = (idx + 1) & (kvs->num_tables - 1);
        hashtable *ht = kvs->tables[idx];
        if (ht == NULL) continue;
        if (hashtableIsRehashingPaused(ht)) continue;
        if (shrink && hashtableSize(ht) == 0) {
            freeTable(kvs, idx, NULL);
            continue;
        }
        if (shrink) hashtableShrinkIfNeeded(ht);
        if (rehash_us == 0 || !hashtableIsRehashing(ht)) continue;
        uint64_t spent = getMonotonicUs() - start;
        if (spent >= rehash_us) break;
        hashtableRehashMicroseconds(ht, rehash_us - spent);
        rehashed = 1;
    }
    return rehashed;
}

/* See kvstore.h. */
size_t kvstoreMemUsage(const kvstore *kvs) {
    size_t mem = sizeof(*kvs) + sizeof(hashtable *) * (size_t)kvs->num_tables;
    if (kvs->fenwick) mem += sizeof(unsigned long long) * (size_t)(kvs->num_tables + 1);
    for (int idx = 0, seen = 0; idx < kvs->num_tables && seen < kvs->allocated_tables; idx++) {
        if (kvs->tables[idx] == NULL) continue;
        mem += hashtableMemUsage(kvs->tables[idx]);
        seen++;
    }
    return mem;
}

/* See kvstore.h. */
size_t kvstoreRehashingMemUsage(const kvstore *kvs, int *rehashing_tables) {
    size_t mem = 0;
    int count = 0;
    for (int idx = 0, seen = 0; idx < kvs->num_tables && seen < kvs->allocated_tables; idx++) {
        hashtable *ht = kvs->tables[idx];
        if (ht == NULL) continue;
        seen++;
        if (!hashtableIsRehashing(ht)) continue;
        mem += hashtableRehashingMemUsage(ht);
        count++;
    }
    if (rehashing_tables) *rehashing_tables = count;
    return mem;
}

/* See kvstore.h. */
size_t kvstoreEntryCapacity(const kvstore *kvs) {
    size_t slots = 0;
    for (int idx = 0, seen = 0; idx < kvs->num_tables && seen < kvs->allocated_tables; idx++) {
        if (kvs->tables[idx] == NULL) continue;
        slots += hashtableEntryCapacity(kvs->tables[idx]);
        seen++;
    }
    return slots;
}

/* See kvstore.h. */
int kvstoreIsRehashing(const kvstore *kvs) {
    int rehashing = 0;
    kvstoreRehashingMemUsage(kvs, &rehashing);
    return rehashing > 0;
}

/* See kvstore.h. */
void kvstoreDefragTables(kvstore *kvs, void *(*defragfn)(void *)) {
    for (int idx = 0, seen = 0; idx < kvs->num_tables && seen < kvs->allocated_tables; idx++) {
        if (kvs->tables[idx] == NULL) continue;
        hashtableDefragTables(kvs->tables[idx], defragfn);
        seen++;
    }
}

/* See kvstore.h. */
void kvstoreGetStats(kvstore *kvs, char *buf, size_t bufsize, int full) {
    if (bufsize == 0) return;
    if (kvs->bits == 0) {
        hashtableGetStats(buf, bufsize, kvs->tables[0], full);
        return;
    }
    int biggest = -1;
    for (int idx = 0; idx < kvs->num_tables; idx++)
        if (kvs->tables[idx] && (biggest < 0 || kvstoreTableSize(kvs, idx) > kvstoreTableSize(kvs, biggest)))
            biggest = idx;
    int len = snprintf(buf, bufsize,
                       "Tables: %d (one per slot), %d created, %d with entries\n"
                       "number of elements: %zu\n"
                       "table slots allocated: %zu\n",
                       kvs->num_tables, kvs->allocated_tables, kvs->non_empty_tables, kvs->key_count,
                       kvstoreEntryCapacity(kvs));
    if (biggest < 0 || len < 0 || (size_t)len >= bufsize) return;
    int more = snprintf(buf + len, bufsize - (size_t)len, "Biggest table: %d\n", biggest);
    if (more < 0 || (size_t)(len + more) >= bufsize) return;
    len += more;
    hashtableGetStats(buf + len, bufsize - (size_t)len, kvs->tables[biggest], full);
}

/* ---------------------------------------------------------------------------
 * Iteration
 * ------------------------------------------------------------------------- */

/* See kvstore.h. */
void kvstoreIteratorInit(kvstoreIterator *iter, kvstore *kvs, int only_idx, int flags) {
    iter->kvs = kvs;
    iter->flags = flags;
    iter->idx = -1;
    iter->only_idx = only_idx;
}

/* The table to iterate after iter->idx, or -1 when there is none. */
static int nextTableToIterate(const kvstoreIterator *iter) {
    const kvstore *kvs = iter->kvs;
    if (iter->only_idx >= 0) return iter->idx < 0 && kvs->tables[iter->only_idx] ? iter->only_idx : -1;
    return kvstoreNextNonEmptyTable(kvs, iter->idx);
}

/* See kvstore.h. 1 with *entry, 0 at the end. */
int kvstoreIteratorNext(kvstoreIterator *iter, void **entry) {
    kvstore *kvs = iter->kvs;
    for (;;) {
        if (iter->idx >= kvs->num_tables) return 0; /* finished */
        if (iter->idx >= 0) {
            if (hashtableNext(&iter->it, entry)) return 1;
            hashtableResetIterator(&iter->it);
        }
        int next = nextTableToIterate(iter);
        if (next < 0) {
            iter->idx = kvs->num_tables;
            return 0;
        }
        iter->idx = next;
        hashtableInitIterator(&iter->it, kvs->tables[next], iter->flags);
    }
}

/* See kvstore.h. */
void kvstoreIteratorReset(kvstoreIterator *iter) {
    if (iter->idx >= 0 && iter->idx < iter->kvs->num_tables) hashtableResetIterator(&iter->it);
    iter->idx = -1;
}
