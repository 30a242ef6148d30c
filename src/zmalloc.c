/* zmalloc.c - allocation wrappers over jemalloc with used-memory accounting.
 *
 * Debian's libjemalloc is built unprefixed, so malloc()/free() here *are*
 * jemalloc once we link -ljemalloc; including <jemalloc/jemalloc.h> gives us
 * its extras (mallctl, malloc_usable_size).
 *
 * Accounting: used_memory counts the allocator's usable size of every live
 * block handed out by these functions, added and subtracted with relaxed
 * atomics. Relaxed is enough: the counter is a statistic read by the main
 * thread (INFO, eviction); it needs no ordering with the memory it counts.
 * Counting usable size rather than requested size means a block's
 * contribution is the same when it is freed as when it was allocated, so the
 * counter never drifts. The usable size of a new small block comes from a
 * table of jemalloc's size classes (see "size classes" below), which saves
 * a lookup per allocation.
 *
 * Who calls what: the whole server allocates through z*(); callers that can
 * survive failure (a dict resize, sdstrynewlen) use ztry*(). OOM in z*()
 * calls the handler set by zmalloc_set_oom_handler(); the default logs and
 * aborts, since continuing with a NULL would only crash later and worse. */
#include "zmalloc.h"

#include <jemalloc/jemalloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static size_t used_memory = 0;

static inline void updateUsed(ptrdiff_t delta) {
    __atomic_add_fetch(&used_memory, (size_t)delta, __ATOMIC_RELAXED);
}

static void defaultOomHandler(size_t size) {
    serverLog(LL_WARNING, "zmalloc: Out of memory trying to allocate %zu bytes", size);
    fflush(stderr);
    abort();
}

static void (*oom_handler)(size_t) = defaultOomHandler;

/* Installs the function called when a z*() allocation fails. It receives
 * the requested size; if it returns, the allocating function aborts. */
void zmalloc_set_oom_handler(void (*handler)(size_t)) {
    oom_handler = handler ? handler : defaultOomHandler;
}

static void oom(size_t size) {
    oom_handler(size);
    abort(); /* A handler that returns leaves us nothing valid to return. */
}

/* ------------------------------- size classes ---------------------------- */

/* Asking jemalloc for a block's usable size (malloc_usable_size) costs a
 * radix-tree lookup, paid on every allocation. For small requests the
 * answer only depends on the requested size: jemalloc rounds it up to a
 * size class, every class boundary being a multiple of 8. So the usable
 * size of a new block of n <= SIZE_CLASS_TABLE_MAX bytes is read from
 * size_class[(n + 7) / 8], filled once at start-up from nallocx() and
 * checked against it for every n. If anything disagrees (a different
 * allocator under valgrind, an odd jemalloc build), the table stays zero
 * and every allocation asks malloc_usable_size() as before. Frees still
 * ask: the size of an arbitrary block is not known. */
#define SIZE_CLASS_TABLE_MAX 4096
static uint16_t size_class[SIZE_CLASS_TABLE_MAX / 8 + 1];

static int sizeClassesAgree(void) {
    for (size_t n = 1; n <= SIZE_CLASS_TABLE_MAX; n++)
        if (nallocx(n, 0) != size_class[(n + 7) / 8]) return 0;
    /* And real blocks report what nallocx() promised. */
    for (size_t n = 1; n <= SIZE_CLASS_TABLE_MAX; n += 333) {
        void *p = malloc(n);
        int same = p && malloc_usable_size(p) == size_class[(n + 7) / 8];
        free(p);
        if (!same) return 0;
    }
    return 1;
}

__attribute__((constructor)) static void sizeClassTableInit(void) {
    for (size_t i = 1; i <= SIZE_CLASS_TABLE_MAX / 8; i++) {
        size_t u = nallocx(i * 8, 0);
        size_class[i] = u <= UINT16_MAX ? u : 0;
    }
    if (!sizeClassesAgree()) memset(size_class, 0, sizeof(size_class));
}

/* Usable size of p, just allocated with size bytes. */
static inline size_t newBlockUsableSize(void *p, size_t size) {
    size_t u = size <= SIZE_CLASS_TABLE_MAX ? size_class[(size + 7) / 8] : 0;
    return u ? u : malloc_usable_size(p);
}

/* The usable size a request of size bytes would get: what realloc() to
 * that size would leave, so callers can skip a realloc that cannot shrink
 * anything. When the size classes could not be checked (the table is
 * zero), it returns size itself. */
size_t zmalloc_good_size(size_t size) {
    if (size == 0) size = 1;
    if (size_class[1] == 0) return size;
    if (size <= SIZE_CLASS_TABLE_MAX) return size_class[(size + 7) / 8];
    size_t u = nallocx(size, 0);
    return u ? u : size;
}

/* ------------------------------- try variants ---------------------------- */

/* Returns a block of at least size bytes or NULL; *usable (if not NULL)
 * receives its usable size. The caller owns the block (free with zfree). */
void *ztrymalloc_usable(size_t size, size_t *usable) {
    if (size == 0) size = 1;
    void *p = malloc(size);
    if (!p) return NULL;
    size_t u = newBlockUsableSize(p, size);
    updateUsed((ptrdiff_t)u);
    if (usable) *usable = u;
    return p;
}

/* As ztrymalloc_usable() but the block is zero-filled. */
void *ztrycalloc_usable(size_t size, size_t *usable) {
    if (size == 0) size = 1;
    void *p = calloc(1, size);
    if (!p) return NULL;
    size_t u = newBlockUsableSize(p, size);
    updateUsed((ptrdiff_t)u);
    if (usable) *usable = u;
    return p;
}

/* Resizes ptr (NULL allocates; size 0 frees and returns NULL). On failure
 * returns NULL and ptr is untouched and still owned by the caller. */
void *ztryrealloc_usable(void *ptr, size_t size, size_t *usable) {
    if (ptr == NULL) return ztrymalloc_usable(size, usable);
    if (size == 0) {
        zfree(ptr);
        if (usable) *usable = 0;
        return NULL;
    }
    size_t old = malloc_usable_size(ptr);
    void *p = realloc(ptr, size);
    if (!p) return NULL;
    size_t u = malloc_usable_size(p);
    updateUsed((ptrdiff_t)u - (ptrdiff_t)old);
    if (usable) *usable = u;
    return p;
}

/* NULL-on-failure allocators; see the _usable forms. */
void *ztrymalloc(size_t size) { return ztrymalloc_usable(size, NULL); }
void *ztrycalloc(size_t size) { return ztrycalloc_usable(size, NULL); }
void *ztryrealloc(void *ptr, size_t size) { return ztryrealloc_usable(ptr, size, NULL); }

/* ----------------------------- never-NULL variants ----------------------- */

/* Returns a block of at least size bytes; never NULL (OOM aborts). */
void *zmalloc_usable(size_t size, size_t *usable) {
    void *p = ztrymalloc_usable(size, usable);
    if (!p) oom(size);
    return p;
}

/* Zero-filled zmalloc_usable(). */
void *zcalloc_usable(size_t size, size_t *usable) {
    void *p = ztrycalloc_usable(size, usable);
    if (!p) oom(size);
    return p;
}

/* Resizes ptr; never fails for size > 0. Size 0 frees and returns NULL. */
void *zrealloc_usable(void *ptr, size_t size, size_t *usable) {
    void *p = ztryrealloc_usable(ptr, size, usable);
    if (!p && size) oom(size);
    return p;
}

void *zmalloc(size_t size) { return zmalloc_usable(size, NULL); }
void *zcalloc(size_t size) { return zcalloc_usable(size, NULL); }
void *zrealloc(void *ptr, size_t size) { return zrealloc_usable(ptr, size, NULL); }

/* Returns a zmalloc'ed copy of the C string s; the caller frees it. */
char *zstrdup(const char *s) {
    size_t l = strlen(s) + 1;
    char *p = zmalloc(l);
    memcpy(p, s, l);
    return p;
}

/* Frees a block from this allocator; NULL is a no-op. *usable (if not NULL)
 * receives the size that was released. */
void zfree_usable(void *ptr, size_t *usable) {
    if (ptr == NULL) {
        if (usable) *usable = 0;
        return;
    }
    size_t u = malloc_usable_size(ptr);
    updateUsed(-(ptrdiff_t)u);
    if (usable) *usable = u;
    free(ptr);
}

void zfree(void *ptr) { zfree_usable(ptr, NULL); }

/* zfree() of a non-NULL block whose usable size the caller knows exactly
 * (what zmalloc_size() would return), which spares asking the allocator. */
void zfree_with_size(void *ptr, size_t usable) {
    updateUsed(-(ptrdiff_t)usable);
    free(ptr);
}

/* zfree() of a non-NULL block allocated with a request of exactly size
 * bytes: its usable size comes from the size-class table when that is
 * valid, sparing the allocator query (keyspace objects know their layout,
 * object.c). */
void zfree_requested(void *ptr, size_t size) {
    size_t u = size <= SIZE_CLASS_TABLE_MAX ? size_class[(size + 7) / 8] : 0;
    if (u == 0) u = malloc_usable_size(ptr);
    updateUsed(-(ptrdiff_t)u);
    free(ptr);
}

/* Frees memory allocated by libc or a library on our behalf, which the
 * counter never saw. With unprefixed jemalloc this is the same free(). */
void zlibc_free(void *ptr) { free(ptr); }

/* Usable size of ptr, as counted in used memory. */
size_t zmalloc_size(void *ptr) { return malloc_usable_size(ptr); }
size_t zmalloc_usable_size(void *ptr) { return malloc_usable_size(ptr); }

/* Bytes currently allocated through z*(); cheap, callable from any thread. */
size_t zmalloc_used_memory(void) { return __atomic_load_n(&used_memory, __ATOMIC_RELAXED); }

/* ------------------------------- process stats --------------------------- */

/* Resident set size of the process in bytes, from /proc/self/stat (the
 * 24th field, in pages). Returns 0 if it cannot be read. */
size_t zmalloc_get_rss(void) {
    char buf[4096];
    FILE *fp = fopen("/proc/self/stat", "r");
    if (!fp) return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    /* Field 2 (comm) may contain spaces; count fields after its ')'. */
    char *p = strrchr(buf, ')');
    if (!p) return 0;
    p++; /* Now at " S ..." : field 3 starts after this space. */
    int field = 2;
    while (*p && field < 24) {
        if (*p == ' ') field++;
        p++;
    }
    if (field != 24) return 0;
    long long pages = strtoll(p, NULL, 10);
    long page = sysconf(_SC_PAGESIZE);
    if (pages < 0 || page <= 0) return 0;
    return (size_t)pages * (size_t)page;
}

/* Fills jemalloc's view of memory after refreshing its statistics epoch:
 * allocated (bytes in live allocations), active (bytes in active pages),
 * resident (bytes physically mapped by the allocator). Returns 1 on
 * success, 0 if jemalloc did not answer (values then zero). */
int zmalloc_get_allocator_info(size_t *allocated, size_t *active, size_t *resident) {
    uint64_t epoch = 1;
    size_t sz = sizeof(epoch);
    *allocated = *active = *resident = 0;
    if (mallctl("epoch", &epoch, &sz, &epoch, sz) != 0) return 0;
    sz = sizeof(size_t);
    if (mallctl("stats.allocated", allocated, &sz, NULL, 0) != 0) return 0;
    sz = sizeof(size_t);
    if (mallctl("stats.active", active, &sz, NULL, 0) != 0) return 0;
    sz = sizeof(size_t);
    if (mallctl("stats.resident", resident, &sz, NULL, 0) != 0) return 0;
    return 1;
}

/* Asks jemalloc to return dirty pages of every arena to the OS (MEMORY
 * PURGE). Returns 0 on success, -1 on failure. */
int zmalloc_purge(void) {
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "arena.%u.purge", (unsigned)MALLCTL_ARENAS_ALL);
    return mallctl(cmd, NULL, NULL, NULL, 0) == 0 ? 0 : -1;
}

static void zmallocStatsWrite(void *opaque, const char *text) {
    zmallocStatsCallback *cb = opaque;
    cb->write(cb->ctx, text);
}

/* Writes jemalloc's statistics report through cb (MEMORY MALLOC-STATS). */
void zmalloc_stats_print(zmallocStatsCallback *cb) {
    malloc_stats_print(zmallocStatsWrite, cb, NULL);
}

/* Physical memory of the machine in bytes (INFO total_system_memory), or 0
 * if unknown. */
size_t zmalloc_get_memory_size(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return 0;
    return (size_t)pages * (size_t)page;
}

/* ------------------------------ defragmentation -------------------------- */

/* Debian's jemalloc 5.3 has no defragmentation hint of its own, but its
 * experimental.utilization.query mallctl tells, for any pointer, how full
 * the slab holding it is, how full its size class (bin) is on average, and
 * which slab new blocks of that class come from. That is all defrag.c
 * needs to decide whether moving a block helps; the move itself allocates
 * and frees past the thread cache (MALLOCX_TCACHE_NONE), so the new block
 * comes from the arena's current slab and the old region goes back to its
 * own slab, which is released once empty.
 *
 * None of this works when the process's malloc is not jemalloc (the ASan
 * build, valgrind): the query would look the pointer up in jemalloc's
 * tables, which do not know it, and crash. zmalloc_defrag_available()
 * finds out once whether malloc() feeds jemalloc's per-thread allocation
 * counter, and everything here answers "no" when it does not. */

/* What experimental.utilization.query writes for one pointer: the address
 * of the bin's current slab, then five counts (jemalloc's ctl.c documents
 * this layout; oldlen must be exactly its size). */
typedef struct jeUtilization {
    void *slabcur;    /* first region of the slab new blocks come from, or NULL */
    size_t nfree;     /* free regions in the pointer's slab */
    size_t nregs;     /* regions per slab of its class (1: a large block) */
    size_t size;      /* bytes of the slab (or of the large block) */
    size_t bin_nfree; /* free regions in every slab of the class */
    size_t bin_nregs; /* regions in every slab of the class */
} jeUtilization;

_Static_assert(sizeof(jeUtilization) == sizeof(void *) + 5 * sizeof(size_t), "utilization query layout");

/* Looked up once by defragInit(): the query's MIB, and per small size
 * class its region size, regions per slab and the MIBs of its current
 * region and slab counts summed over all arenas. */
static int defrag_available = -1; /* -1: not decided yet */
static size_t util_mib[3], util_miblen = 3;
static unsigned defrag_nbins;
static size_t *bin_region_size;
static uint32_t *bin_slab_regions;
static size_t curregs_mib[6], curslabs_mib[6], bin_miblen = 6;

/* 1 if malloc() is jemalloc's: the thread's allocated-bytes counter moves
 * when we allocate. The volatile accesses keep the compiler from assuming
 * malloc leaves the counter alone or dropping the malloc/free pair. */
static int jemallocServesMalloc(void) {
    volatile uint64_t *counter;
    size_t sz = sizeof(counter);
    if (mallctl("thread.allocatedp", (void *)&counter, &sz, NULL, 0) != 0) return 0;
    uint64_t before = *counter;
    void *volatile p = malloc(64);
    uint64_t after = *counter;
    free(p);
    return after != before;
}

/* Reads size_t (or uint32_t, by sz) named value; 0 on success. */
static int mallctlRead(const char *name, void *out, size_t sz) {
    size_t len = sz;
    return mallctl(name, out, &len, NULL, 0) == 0 && len == sz ? 0 : -1;
}

/* Fills the per-bin tables; returns 1 if every name answered. */
static int defragLoadBins(void) {
    if (mallctlRead("arenas.nbins", &defrag_nbins, sizeof(defrag_nbins)) != 0 || defrag_nbins == 0) return 0;
    if (mallctlnametomib("stats.arenas.0.bins.0.curregs", curregs_mib, &bin_miblen) != 0 || bin_miblen != 6)
        return 0;
    if (mallctlnametomib("stats.arenas.0.bins.0.curslabs", curslabs_mib, &bin_miblen) != 0 || bin_miblen != 6)
        return 0;
    curregs_mib[2] = curslabs_mib[2] = MALLCTL_ARENAS_ALL;
    bin_region_size = malloc(sizeof(size_t) * defrag_nbins);
    bin_slab_regions = malloc(sizeof(uint32_t) * defrag_nbins);
    if (!bin_region_size || !bin_slab_regions) return 0;
    for (unsigned j = 0; j < defrag_nbins; j++) {
        char name[64];
        snprintf(name, sizeof(name), "arenas.bin.%u.size", j);
        if (mallctlRead(name, &bin_region_size[j], sizeof(size_t)) != 0) return 0;
        snprintf(name, sizeof(name), "arenas.bin.%u.nregs", j);
        if (mallctlRead(name, &bin_slab_regions[j], sizeof(uint32_t)) != 0) return 0;
    }
    return 1;
}

/* Decides defrag_available: jemalloc serves malloc, keeps statistics (the
 * bin counts need them) and answers the utilization query for a small
 * block as documented. */
static int defragInit(void) {
    bool stats = false;
    if (!jemallocServesMalloc() || mallctlRead("config.stats", &stats, sizeof(stats)) != 0 || !stats) return 0;
    if (mallctlnametomib("experimental.utilization.query", util_mib, &util_miblen) != 0) return 0;
    if (!defragLoadBins()) return 0;
    void *probe = malloc(48);
    jeUtilization u;
    size_t sz = sizeof(u);
    int ok = mallctlbymib(util_mib, util_miblen, &u, &sz, &probe, sizeof(probe)) == 0 && sz == sizeof(u) &&
             u.nregs > 1 && u.nfree < u.nregs && u.bin_nregs >= u.nregs;
    free(probe);
    return ok;
}

/* See zmalloc.h. */
int zmalloc_defrag_available(void) {
    if (defrag_available < 0) defrag_available = defragInit();
    return defrag_available;
}

/* See zmalloc.h. */
int zmalloc_defrag_hint(void *ptr) {
    if (!zmalloc_defrag_available()) return 0;
    jeUtilization u;
    size_t sz = sizeof(u);
    if (mallctlbymib(util_mib, util_miblen, &u, &sz, &ptr, sizeof(ptr)) != 0) return 0;
    /* A large block (no slab), or a full slab: moving frees nothing. */
    if (u.nregs <= 1 || u.nfree == 0 || u.bin_nregs == 0) return 0;
    /* The current slab is where the moved block would land. */
    char *cur = u.slabcur;
    if (cur && (char *)ptr >= cur && (char *)ptr < cur + u.size) return 0;
    /* Move out of slabs used no more than the class's average: the
     * slab's used regions over nregs <= the bin's used over its regions,
     * cross-multiplied (slabs = bin_nregs / nregs). */
    size_t slabs = u.bin_nregs / u.nregs, bin_used = u.bin_nregs - u.bin_nfree;
    if (slabs < 2) return 0;
    return (u.nregs - u.nfree) * slabs <= bin_used;
}

/* See zmalloc.h. */
void *zmalloc_defrag_move(void *ptr) {
    size_t size = malloc_usable_size(ptr);
    void *p = zmalloc_defrag_available() ? mallocx(size, MALLOCX_TCACHE_NONE) : malloc(size);
    if (!p) oom(size);
    memcpy(p, ptr, size);
    if (zmalloc_defrag_available()) dallocx(ptr, MALLOCX_TCACHE_NONE);
    else free(ptr);
    updateUsed((ptrdiff_t)malloc_usable_size(p) - (ptrdiff_t)size);
    return p;
}

/* See zmalloc.h. */
size_t zmalloc_get_frag_smallbins(void) {
    if (!zmalloc_defrag_available()) return 0;
    uint64_t epoch = 1;
    size_t sz = sizeof(epoch);
    if (mallctl("epoch", &epoch, &sz, &epoch, sz) != 0) return 0;
    size_t frag = 0;
    for (unsigned j = 0; j < defrag_nbins; j++) {
        size_t curregs, curslabs, len = sizeof(size_t);
        curregs_mib[4] = curslabs_mib[4] = j;
        if (mallctlbymib(curregs_mib, bin_miblen, &curregs, &len, NULL, 0) != 0) return 0;
        len = sizeof(size_t);
        if (mallctlbymib(curslabs_mib, bin_miblen, &curslabs, &len, NULL, 0) != 0) return 0;
        size_t regions = curslabs * bin_slab_regions[j];
        if (regions > curregs) frag += (regions - curregs) * bin_region_size[j];
    }
    return frag;
}

/* See zmalloc.h. */
int zmalloc_thread_arena(int arena) {
    if (!zmalloc_defrag_available()) return -1;
    unsigned a;
    size_t sz = sizeof(a);
    if (arena < 0) return mallctl("thread.arena", &a, &sz, NULL, 0) == 0 ? (int)a : -1;
    a = (unsigned)arena;
    return mallctl("thread.arena", NULL, NULL, &a, sizeof(a)) == 0 ? arena : -1;
}
