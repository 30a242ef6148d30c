/* adlist.h - a plain doubly linked list of void* values.
 *
 * Used wherever the server keeps an ordered set of things it appends to and
 * unlinks from in O(1) given the node: the client list, clients with pending
 * writes, reply blocks of one client, monitors. Values are owned by the list
 * only if a free method is set. */
#ifndef VK_ADLIST_H
#define VK_ADLIST_H

typedef struct listNode {
    struct listNode *prev;
    struct listNode *next;
    void *value;
} listNode;

typedef struct listIter {
    listNode *next;
    int direction;
} listIter;

typedef struct list {
    listNode *head;
    listNode *tail;
    void (*free)(void *ptr);
    unsigned long len;
} list;

#define AL_START_HEAD 0
#define AL_START_TAIL 1

#define listLength(l) ((l)->len)
#define listFirst(l) ((l)->head)
#define listLast(l) ((l)->tail)
#define listPrevNode(n) ((n)->prev)
#define listNextNode(n) ((n)->next)
#define listNodeValue(n) ((n)->value)
#define listSetFreeMethod(l, m) ((l)->free = (m))

list *listCreate(void);
void listRelease(list *list);
void listEmpty(list *list);
list *listAddNodeHead(list *list, void *value);
list *listAddNodeTail(list *list, void *value);
void listLinkNodeTail(list *list, listNode *node);
void listUnlinkNode(list *list, listNode *node);
void listDelNode(list *list, listNode *node);
listNode *listSearchKey(list *list, void *key);
listNode *listIndex(list *list, long index);
void listRewind(list *list, listIter *li);
void listRewindTail(list *list, listIter *li);
listNode *listNext(listIter *iter);
void listRotateTailToHead(list *list);
void listJoin(list *l, list *o);

#endif
