/* zmalloc.h - the server's allocator: jemalloc plus a used-memory counter.
 *
 * Every allocation the server makes goes through these wrappers so that
 * zmalloc_used_memory() (INFO used_memory, maxmemory eviction) is exact to
 * the allocator's usable size. The plain z* functions never return NULL:
 * on failure they call the OOM handler, which by default logs and aborts.
 * The ztry* variants return NULL instead and leave the decision to the
 * caller (large, optional allocations such as a hash table resize). */
#ifndef VK_ZMALLOC_H
#define VK_ZMALLOC_H

#include <stddef.h>

#define ZMALLOC_LIB "jemalloc"

/* Allocate, never NULL (the OOM handler runs instead). */
void *zmalloc(size_t size);
void *zcalloc(size_t size);
void *zrealloc(void *ptr, size_t size);
char *zstrdup(const char *s);

/* As above but *usable receives the usable size of the block, which may be
 * larger than asked for; the caller may use all of it. */
void *zmalloc_usable(size_t size, size_t *usable);
void *zcalloc_usable(size_t size, size_t *usable);
void *zrealloc_usable(void *ptr, size_t size, size_t *usable);

/* Allocate or return NULL; usable may be NULL. */
void *ztrymalloc(size_t size);
void *ztrycalloc(size_t size);
void *ztryrealloc(void *ptr, size_t size);
void *ztrymalloc_usable(size_t size, size_t *usable);
void *ztrycalloc_usable(size_t size, size_t *usable);
void *ztryrealloc_usable(void *ptr, size_t size, size_t *usable);

void zfree(void *ptr);
void zfree_usable(void *ptr, size_t *usable);
void zfree_with_size(void *ptr, size_t usable);
void zfree_requested(void *ptr, size_t size);

/* Frees memory that libc itself allocated (e.g. backtrace_symbols()). */
void zlibc_free(void *ptr);

/* Usable size of a block returned by this allocator. */
size_t zmalloc_size(void *ptr);
size_t zmalloc_good_size(size_t size);
size_t zmalloc_usable_size(void *ptr);

size_t zmalloc_used_memory(void);
void zmalloc_set_oom_handler(void (*handler)(size_t));
size_t zmalloc_get_rss(void);
int zmalloc_get_allocator_info(size_t *allocated, size_t *active, size_t *resident);
int zmalloc_purge(void);
/* Receives the allocator's statistics report in pieces. */
typedef struct zmallocStatsCallback {
    void (*write)(void *ctx, const char *text);
    void *ctx;
} zmallocStatsCallback;
void zmalloc_stats_print(zmallocStatsCallback *cb);
size_t zmalloc_get_memory_size(void);

#endif
