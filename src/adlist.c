/* adlist.c - doubly linked list (see adlist.h).
 *
 * Nodes are allocated with zmalloc. Iteration with listNext() tolerates the
 * deletion of the node just returned, which is how callers remove elements
 * while walking a list. */
#include "adlist.h"

#include "zmalloc.h"

/* Returns a new empty list; never fails (zmalloc aborts on OOM). */
list *listCreate(void) {
    list *l = zmalloc(sizeof(*l));
    l->head = l->tail = NULL;
    l->len = 0;
    l->free = NULL;
    return l;
}

/* Removes every node, freeing values with the free method if set. */
void listEmpty(list *l) {
    listNode *cur = l->head;
    while (cur) {
        listNode *next = cur->next;
        if (l->free) l->free(cur->value);
        zfree(cur);
        cur = next;
    }
    l->head = l->tail = NULL;
    l->len = 0;
}

/* Frees the list, its nodes and (with a free method) its values. */
void listRelease(list *l) {
    if (!l) return;
    listEmpty(l);
    zfree(l);
}

list *listAddNodeHead(list *l, void *value) {
    listNode *node = zmalloc(sizeof(*node));
    node->value = value;
    node->prev = NULL;
    node->next = l->head;
    if (l->head) l->head->prev = node;
    else l->tail = node;
    l->head = node;
    l->len++;
    return l;
}

list *listAddNodeTail(list *l, void *value) {
    listNode *node = zmalloc(sizeof(*node));
    node->value = value;
    listLinkNodeTail(l, node);
    return l;
}

/* Appends a node the caller allocated (or unlinked from another list). */
void listLinkNodeTail(list *l, listNode *node) {
    node->next = NULL;
    node->prev = l->tail;
    if (l->tail) l->tail->next = node;
    else l->head = node;
    l->tail = node;
    l->len++;
}

/* Detaches node from the list without freeing it. */
void listUnlinkNode(list *l, listNode *node) {
    if (node->prev) node->prev->next = node->next;
    else l->head = node->next;
    if (node->next) node->next->prev = node->prev;
    else l->tail = node->prev;
    node->prev = node->next = NULL;
    l->len--;
}

/* Unlinks and frees node (and its value if the list has a free method). */
void listDelNode(list *l, listNode *node) {
    listUnlinkNode(l, node);
    if (l->free) l->free(node->value);
    zfree(node);
}

/* Returns the first node whose value pointer equals key, or NULL. */
listNode *listSearchKey(list *l, void *key) {
    for (listNode *n = l->head; n; n = n->next)
        if (n->value == key) return n;
    return NULL;
}

/* Returns the node at index (negative counts from the tail), or NULL. */
listNode *listIndex(list *l, long index) {
    listNode *n;
    if (index < 0) {
        index = (-index) - 1;
        n = l->tail;
        while (index-- && n) n = n->prev;
    } else {
        n = l->head;
        while (index-- && n) n = n->next;
    }
    return n;
}

void listRewind(list *l, listIter *li) {
    li->next = l->head;
    li->direction = AL_START_HEAD;
}

void listRewindTail(list *l, listIter *li) {
    li->next = l->tail;
    li->direction = AL_START_TAIL;
}

/* Returns the next node or NULL; the returned node may be deleted safely. */
listNode *listNext(listIter *iter) {
    listNode *cur = iter->next;
    if (cur) iter->next = iter->direction == AL_START_HEAD ? cur->next : cur->prev;
    return cur;
}

/* Moves the tail node to the head (round-robin over a list). */
void listRotateTailToHead(list *l) {
    if (l->len <= 1) return;
    listNode *tail = l->tail;
    l->tail = tail->prev;
    l->tail->next = NULL;
    l->head->prev = tail;
    tail->prev = NULL;
    tail->next = l->head;
    l->head = tail;
}

/* Appends all of o's nodes to l, leaving o empty. */
void listJoin(list *l, list *o) {
    if (o->len == 0) return;
    o->head->prev = l->tail;
    if (l->tail) l->tail->next = o->head;
    else l->head = o->head;
    l->tail = o->tail;
    l->len += o->len;
    o->head = o->tail = NULL;
    o->len = 0;
}
