/* sidmap.c - stream IDs (arithmetic, text form) and the skiplist that maps
 * them to pointers. See sidmap.h for the contract.
 *
 * The skiplist keeps a sentinel header with SIDMAP_MAXLEVEL forward links
 * and, per node, a back link so walks run both ways. Every update first
 * records, for each level, the last node before the target ("update[]"),
 * then splices at those positions. Levels are drawn with p = 1/4 from a
 * small xorshift generator private to this file, so results do not depend
 * on (or disturb) the server's rand() sequence.
 *
 * Used by t_stream.c for the node index of a stream and for the pending
 * entries lists of consumer groups and consumers. Leaf: zmalloc only. */
#include "sidmap.h"

#include <string.h>

#include "zmalloc.h"

/* ---------------------------------------------------------------------------
 * IDs
 * ------------------------------------------------------------------------- */

/* See sidmap.h. */
int streamIncrID(streamID *id) {
    if (id->seq != UINT64_MAX) {
        id->seq++;
        return 0;
    }
    if (id->ms == UINT64_MAX) return -1;
    id->ms++;
    id->seq = 0;
    return 0;
}

/* See sidmap.h. */
int streamDecrID(streamID *id) {
    if (id->seq != 0) {
        id->seq--;
        return 0;
    }
    if (id->ms == 0) return -1;
    id->ms--;
    id->seq = UINT64_MAX;
    return 0;
}

/* Writes v in decimal at buf, returns the number of digits. */
static int u64ToText(uint64_t v, char *buf) {
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    return n;
}

/* See sidmap.h. */
int streamIDToString(const streamID *id, char *buf) {
    int n = u64ToText(id->ms, buf);
    buf[n++] = '-';
    n += u64ToText(id->seq, buf + n);
    buf[n] = '\0';
    return n;
}

/* Parses s[0..len) as an unsigned decimal that fits 64 bits. No sign, no
 * spaces, at least one digit. Returns 0 or -1. */
static int textToU64(const char *s, size_t len, uint64_t *out) {
    if (len == 0 || len > 20) return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* See sidmap.h. */
int streamParseIDText(const char *s, size_t len, uint64_t missing_seq, streamID *id, int *seq_star) {
    if (seq_star) *seq_star = 0;
    const char *dash = memchr(s, '-', len);
    if (dash == NULL) {
        if (textToU64(s, len, &id->ms) != 0) return -1;
        id->seq = missing_seq;
        return 0;
    }
    size_t mslen = (size_t)(dash - s), seqlen = len - mslen - 1;
    if (textToU64(s, mslen, &id->ms) != 0) return -1;
    if (seq_star && seqlen == 1 && dash[1] == '*') {
        *seq_star = 1;
        id->seq = 0;
        return 0;
    }
    return textToU64(dash + 1, seqlen, &id->seq);
}

/* ---------------------------------------------------------------------------
 * Skiplist
 * ------------------------------------------------------------------------- */

static sidmapNode *nodeCreate(int level, streamID id, void *value) {
    sidmapNode *n = zmalloc(sizeof(*n) + sizeof(sidmapNode *) * (size_t)level);
    n->id = id;
    n->value = value;
    n->prev = NULL;
    n->level = level;
    for (int i = 0; i < level; i++) n->next[i] = NULL;
    return n;
}

/* A level in 1..SIDMAP_MAXLEVEL, each further level with probability 1/4. */
static int randomLevel(void) {
    static uint64_t state = 0x9e3779b97f4a7c15ULL;
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    uint64_t r = state;
    int level = 1;
    while ((r & 3) == 0 && level < SIDMAP_MAXLEVEL) {
        level++;
        r >>= 2;
    }
    return level;
}

/* See sidmap.h. */
sidmap *sidmapNew(void) {
    sidmap *m = zmalloc(sizeof(*m));
    streamID zero = {0, 0};
    m->header = nodeCreate(SIDMAP_MAXLEVEL, zero, NULL);
    m->tail = NULL;
    m->len = 0;
    m->level = 1;
    return m;
}

/* See sidmap.h. */
void sidmapFree(sidmap *m, void (*free_value)(void *)) {
    if (m == NULL) return;
    sidmapNode *n = m->header->next[0];
    while (n) {
        sidmapNode *next = n->next[0];
        if (free_value) free_value(n->value);
        zfree(n);
        n = next;
    }
    zfree(m->header);
    zfree(m);
}

/* Fills update[i] with the last node at level i whose ID is < id. */
static void findPredecessors(sidmap *m, const streamID *id, sidmapNode **update) {
    sidmapNode *x = m->header;
    for (int i = m->level - 1; i >= 0; i--) {
        while (x->next[i] && streamCompareID(&x->next[i]->id, id) < 0) x = x->next[i];
        update[i] = x;
    }
}

/* See sidmap.h. */
sidmapNode *sidmapInsert(sidmap *m, streamID id, void *value) {
    sidmapNode *update[SIDMAP_MAXLEVEL];
    findPredecessors(m, &id, update);
    sidmapNode *at = update[0]->next[0];
    if (at && streamCompareID(&at->id, &id) == 0) return NULL;
    int level = randomLevel();
    if (level > m->level) {
        for (int i = m->level; i < level; i++) update[i] = m->header;
        m->level = level;
    }
    sidmapNode *n = nodeCreate(level, id, value);
    for (int i = 0; i < level; i++) {
        n->next[i] = update[i]->next[i];
        update[i]->next[i] = n;
    }
    n->prev = update[0] == m->header ? NULL : update[0];
    if (n->next[0]) n->next[0]->prev = n;
    else m->tail = n;
    m->len++;
    return n;
}

/* See sidmap.h. */
sidmapNode *sidmapSeekGE(sidmap *m, streamID id) {
    sidmapNode *x = m->header;
    for (int i = m->level - 1; i >= 0; i--)
        while (x->next[i] && streamCompareID(&x->next[i]->id, &id) < 0) x = x->next[i];
    return x->next[0];
}

/* See sidmap.h. */
sidmapNode *sidmapSeekLE(sidmap *m, streamID id) {
    sidmapNode *x = m->header;
    for (int i = m->level - 1; i >= 0; i--)
        while (x->next[i] && streamCompareID(&x->next[i]->id, &id) <= 0) x = x->next[i];
    return x == m->header ? NULL : x;
}

/* See sidmap.h. */
sidmapNode *sidmapFind(sidmap *m, streamID id) {
    sidmapNode *n = sidmapSeekGE(m, id);
    return (n && streamCompareID(&n->id, &id) == 0) ? n : NULL;
}

/* See sidmap.h. */
int sidmapDelete(sidmap *m, streamID id, void **old_value) {
    sidmapNode *update[SIDMAP_MAXLEVEL];
    findPredecessors(m, &id, update);
    sidmapNode *n = update[0]->next[0];
    if (n == NULL || streamCompareID(&n->id, &id) != 0) return 0;
    for (int i = 0; i < m->level; i++)
        if (update[i]->next[i] == n) update[i]->next[i] = n->next[i];
    if (n->next[0]) n->next[0]->prev = n->prev;
    else m->tail = n->prev;
    while (m->level > 1 && m->header->next[m->level - 1] == NULL) m->level--;
    m->len--;
    if (old_value) *old_value = n->value;
    zfree(n);
    return 1;
}

/* See sidmap.h. */
size_t sidmapMemory(const sidmap *m) {
    /* Expected links per node with p = 1/4 is 4/3. */
    size_t per_node = sizeof(sidmapNode) + sizeof(sidmapNode *) * 4 / 3;
    return sizeof(*m) + sizeof(sidmapNode) + sizeof(sidmapNode *) * SIDMAP_MAXLEVEL + per_node * m->len;
}

/* ---------------------------------------------------------------------------
 * Active defragmentation
 * ------------------------------------------------------------------------- */

/* See sidmap.h. */
int sidmapDefrag(sidmap *m, int first, streamID after, unsigned long count, void *(*defragfn)(void *),
                 void (*visit)(sidmapNode *node, void *privdata), void *privdata, streamID *last) {
    if (first) {
        sidmapNode *h = defragfn(m->header);
        if (h) m->header = h;
    }
    /* update[i]: the last node on level i before the next node to offer
     * (whose ID is the first after `after`). */
    sidmapNode *update[SIDMAP_MAXLEVEL];
    sidmapNode *x = m->header;
    for (int i = m->level - 1; i >= 0; i--) {
        while (!first && x->next[i] && streamCompareID(&x->next[i]->id, &after) <= 0) x = x->next[i];
        update[i] = x;
    }
    x = update[0]->next[0];
    while (x && count--) {
        sidmapNode *next = x->next[0];
        int level = x->level;
        sidmapNode *moved = defragfn(x);
        if (moved) {
            for (int i = 0; i < level; i++) update[i]->next[i] = moved;
            if (next) next->prev = moved;
            else m->tail = moved;
            x = moved;
        }
        visit(x, privdata);
        for (int i = 0; i < level; i++) update[i] = x;
        *last = x->id;
        x = next;
    }
    return x != NULL;
}
