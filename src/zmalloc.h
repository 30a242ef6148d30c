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

/* ---- Active defragmentation (defrag.c) ----------------------------------
 * jemalloc keeps small blocks in slabs of equal-sized regions; once most
 * regions of many slabs are freed, those slabs stay mapped for the few
 * that remain. These calls let defrag.c find such blocks and move them. */

/* 1 if jemalloc is the allocator behind z*() (not ASan's or valgrind's)
 * and answers the queries below (experimental.utilization.query, bin
 * statistics). Decided once, at the first call; any thread. */
int zmalloc_defrag_available(void);

/* 1 if moving ptr (a live z*() block) would help: it sits in a slab that
 * has free regions, is not the slab new blocks come from, and is no more
 * used than the average slab of its size class. 0 for large blocks, full
 * slabs, or when zmalloc_defrag_available() is 0. */
int zmalloc_defrag_hint(void *ptr);

/* Moves ptr's block: a fresh block of the same size class, taken from the
 * arena directly (past the thread cache, so it fills the fullest slabs),
 * gets ptr's bytes, and ptr is freed past the cache too (so its slab can
 * empty and be released). Returns the new block; used memory is unchanged.
 * Without jemalloc (sanitizer builds) it is a plain malloc, copy, free.
 * Never NULL: on OOM the handler runs. */
void *zmalloc_defrag_move(void *ptr);

/* The jemalloc arena the calling thread allocates from: with arena -1
 * returns it; otherwise moves the thread to that arena (its thread cache
 * stays its own) and returns it. -1 where jemalloc does not serve malloc.
 * I/O threads take the main thread's, so that what they allocate for the
 * dataset (argument objects that become values) lives where the main
 * thread's does, for one set of slabs to defragment and release. */
int zmalloc_thread_arena(int arena);

/* Bytes of free regions in the slabs of every small size class, over all
 * arenas: the fragmentation that moving blocks can recover (INFO
 * allocator_frag_bytes). Refreshes jemalloc's statistics first. 0 when
 * zmalloc_defrag_available() is 0. */
size_t zmalloc_get_frag_smallbins(void);

#endif
