/* info.c - the INFO command and the statistics helpers behind it.
 *
 * genValkeyInfoString() builds the INFO text: sections in Valkey's order
 * ("# Server", "# Clients", ...), one "field:value\r\n" line per metric and
 * an empty line between sections. The field names are the ones Valkey 8
 * prints, because monitoring tools and client libraries parse them; a
 * metric whose subsystem does not exist yet (AOF, replication) is printed
 * with the value an idle server would show; the persistence section comes
 * from snapshot.c.
 *
 * Which sections are produced is decided by a set of lower-case section
 * names (genInfoSectionDict()): no argument means the default sections,
 * "all" adds commandstats and latencystats, "everything" adds module
 * sections too; "debug" (event loop worst cases) only comes when named. INFO is also used by the crash report (debug.c).
 *
 * This file also owns the counters that feed INFO but are updated
 * elsewhere: the instantaneous metrics sampled by serverCron()
 * (trackInstantaneousMetric / getInstantaneousMetric), the event loop
 * durations server.c measures (durationAddSample) and the resets done
 * by CONFIG RESETSTAT (resetServerStats / resetCommandTableStats).
 *
 * Everything here runs in the event-loop thread (or in the crash handler,
 * where INFO is produced on a best-effort basis). */
#include "server.h"

#include "acl.h"
#include "aof.h"
#include "blocked.h"
#include "cluster.h"
#include "defrag.h"
#include "migrate.h"
#include "multi.h"
#include "pubsub.h"
#include "repl_rdma.h"
#include "replication.h"
#include "snapshot.h"
#include "tracking.h"

#include <strings.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<jemalloc/jemalloc.h>)
#include <jemalloc/jemalloc.h>
#endif
#endif

#include "latency.h"

/* ---------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------- */

/* Formats n bytes for humans into s: "512B", "1.00K", "10.00M", ... up to
 * petabytes. Used by INFO memory and MEMORY DOCTOR-style outputs. */
void bytesToHuman(char *s, size_t size, unsigned long long n) {
    static const char units[] = "KMGTP";
    if (n < 1024) {
        snprintf(s, size, "%lluB", n);
        return;
    }
    double d = (double)n;
    int u = -1;
    while (d >= 1024 && u < 4) {
        d /= 1024;
        u++;
    }
    snprintf(s, size, "%.2f%c", d, units[u]);
}

/* Records one sample of a rate: (current_value - last value) scaled by
 * factor / (current_base - last base). With base in milliseconds and factor
 * 1000 this is a per-second rate. Called by serverCron() every 100 ms. */
void trackInstantaneousMetric(int metric, long long current_value, long long current_base, long long factor) {
    if (metric < 0 || metric >= STATS_METRIC_COUNT) return;
    typeof(server.inst_metric[0]) *m = &server.inst_metric[metric];
    if (m->last_sample_base > 0) {
        long long elapsed = current_base - m->last_sample_base;
        long long delta = current_value - m->last_sample_value;
        m->samples[m->idx] = elapsed > 0 ? delta * factor / elapsed : 0;
        m->idx = (m->idx + 1) % STATS_METRIC_SAMPLES;
    }
    m->last_sample_base = current_base;
    m->last_sample_value = current_value;
}

/* Adds one duration (usec) of the given EL_DURATION_TYPE_* to the event
 * loop statistics. Event-loop thread. */
void durationAddSample(int type, unsigned long long duration) {
    if (type < 0 || type >= EL_DURATION_TYPES) return;
    server.el_duration[type].cnt++;
    server.el_duration[type].sum += duration;
    if (duration > server.el_duration[type].max) server.el_duration[type].max = duration;
}

/* Returns the mean of the last STATS_METRIC_SAMPLES samples of metric. */
long long getInstantaneousMetric(int metric) {
    if (metric < 0 || metric >= STATS_METRIC_COUNT) return 0;
    long long sum = 0;
    for (int j = 0; j < STATS_METRIC_SAMPLES; j++) sum += server.inst_metric[metric].samples[j];
    return sum / STATS_METRIC_SAMPLES;
}

/* Zeroes the counters CONFIG RESETSTAT is documented to reset, including
 * the error table and the memory peak. */
void resetServerStats(void) {
    server.stat_numcommands = 0;
    server.stat_numconnections = 0;
    server.stat_auth_failures = 0;
    aclResetStats();
    server.stat_expiredkeys = 0;
    server.stat_expired_stale_perc = 0;
    server.stat_expired_time_cap_reached_count = 0;
    server.stat_expire_cycle_time_used = 0;
    server.stat_evictedkeys = 0;
    server.stat_evictedclients = 0;
    server.stat_evictedscripts = 0;
    server.stat_total_eviction_exceeded_time = 0;
    server.stat_keyspace_hits = 0;
    server.stat_keyspace_misses = 0;
    server.stat_rejected_conn = 0;
    server.stat_net_input_bytes = 0;
    server.stat_net_output_bytes = 0;
    server.stat_net_repl_input_bytes = 0;
    server.stat_net_repl_output_bytes = 0;
    replicationResetStats(); /* sync_full, sync_partial_ok, sync_partial_err */
    server.stat_unexpected_error_replies = 0;
    server.stat_total_error_replies = 0;
    server.stat_dump_payload_sanitizations = 0;
    ioThreadsResetStats();
    server.stat_total_reads_processed = 0;
    server.stat_total_writes_processed = 0;
    server.stat_client_qbuf_limit_disconnections = 0;
    server.stat_client_outbuf_limit_disconnections = 0;
    server.stat_reply_buffer_shrinks = 0;
    server.stat_reply_buffer_expands = 0;
    defragResetStats();
    memset(server.inst_metric, 0, sizeof(server.inst_metric));
    memset(server.el_duration, 0, sizeof(server.el_duration));
    server.el_cmd_per_cycle_max = 0;
    if (server.errors) dictEmpty(server.errors, NULL);
    server.stat_peak_memory = 0;
    lazyfreeResetStats();
    server.stat_peak_memory_time = server.unixtime;
}

static void resetCommandStats(struct serverCommand *cmd) {
    cmd->calls = 0;
    cmd->microseconds = 0;
    cmd->failed_calls = 0;
    cmd->rejected_calls = 0;
    if (cmd->subcommands)
        for (struct serverCommand *sub = cmd->subcommands; sub->name; sub++) resetCommandStats(sub);
}

/* Zeroes calls/usec/failed/rejected of every command and subcommand in
 * commands (normally server.commands) and drops the latency histograms. */
void resetCommandTableStats(dict *commands) {
    dictIterator *di = dictGetIterator(commands);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) resetCommandStats(dictGetVal(de));
    dictReleaseIterator(di);
    latencyResetCommandHistograms();
}

/* ---------------------------------------------------------------------------
 * Section selection
 * ------------------------------------------------------------------------- */

static uint64_t infoSdsCaseHash(const void *key) {
    return dictGenCaseHashFunction(key, sdslen((sds)key));
}

static int infoSdsCaseCompare(const void *a, const void *b) {
    return strcasecmp(a, b) == 0;
}

static void infoSdsFree(void *p) {
    sdsfree(p);
}

static dictType infoSectionDictType = {
    .hashFunction = infoSdsCaseHash,
    .keyCompare = infoSdsCaseCompare,
    .keyDestructor = infoSdsFree,
};

static const char *infoDefaultSections[] = {"server", "clients", "memory",    "persistence", "stats",    "replication",
                                            "cpu",    "modules", "errorstats", "cluster",    "keyspace", NULL};

static void infoAddSection(dict *d, const char *name) {
    sds s = sdsnew(name);
    sdstolower(s);
    if (dictAdd(d, s, NULL) != DICT_OK) sdsfree(s);
}

/* Builds the set of sections requested by argv (the arguments after INFO).
 * Sets *all for "all"/"everything" and *everything for "everything".
 * The caller owns the dict and frees it with releaseInfoSectionDict(). */
dict *genInfoSectionDict(robj **argv, int argc, int *all, int *everything) {
    dict *d = dictCreate(&infoSectionDictType);
    *all = 0;
    *everything = 0;
    if (argc == 0) {
        for (int j = 0; infoDefaultSections[j]; j++) infoAddSection(d, infoDefaultSections[j]);
        return d;
    }
    for (int i = 0; i < argc; i++) {
        const char *arg = objectGetVal(argv[i]);
        if (!strcasecmp(arg, "all")) {
            *all = 1;
        } else if (!strcasecmp(arg, "everything")) {
            *all = 1;
            *everything = 1;
        } else if (!strcasecmp(arg, "default")) {
            for (int j = 0; infoDefaultSections[j]; j++) infoAddSection(d, infoDefaultSections[j]);
        } else {
            infoAddSection(d, arg);
        }
    }
    return d;
}

void releaseInfoSectionDict(dict *d) {
    dictRelease(d);
}

/* ---------------------------------------------------------------------------
 * Sections
 * ------------------------------------------------------------------------- */

static const char *infoMaxmemoryPolicyName(int policy) {
    switch (policy) {
    case MAXMEMORY_VOLATILE_LRU: return "volatile-lru";
    case MAXMEMORY_VOLATILE_LFU: return "volatile-lfu";
    case MAXMEMORY_VOLATILE_TTL: return "volatile-ttl";
    case MAXMEMORY_VOLATILE_RANDOM: return "volatile-random";
    case MAXMEMORY_ALLKEYS_LRU: return "allkeys-lru";
    case MAXMEMORY_ALLKEYS_LFU: return "allkeys-lfu";
    case MAXMEMORY_ALLKEYS_RANDOM: return "allkeys-random";
    case MAXMEMORY_NO_EVICTION: return "noeviction";
    }
    return "unknown";
}

static const char *infoAllocatorName(void) {
#if defined(JEMALLOC_VERSION_MAJOR)
#define INFO_STR2(x) #x
#define INFO_STR(x) INFO_STR2(x)
    return "jemalloc-" INFO_STR(JEMALLOC_VERSION_MAJOR) "." INFO_STR(JEMALLOC_VERSION_MINOR) "." INFO_STR(
        JEMALLOC_VERSION_BUGFIX);
#else
    return ZMALLOC_LIB;
#endif
}

static sds infoServer(sds info) {
    static struct utsname name;
    static int uname_done = 0;
    if (!uname_done) {
        uname(&name);
        uname_done = 1;
    }
    long long uptime = (long long)(server.unixtime - server.stat_starttime);
    info = sdscatprintf(info,
                        "# Server\r\n"
                        "redis_version:%s\r\n"
                        "server_name:valkey\r\n"
                        "valkey_version:%s\r\n"
                        "redis_git_sha1:00000000\r\n"
                        "redis_git_dirty:0\r\n"
                        "redis_build_id:0\r\n"
                        "redis_mode:%s\r\n"
                        "os:%s %s %s\r\n"
                        "arch_bits:%d\r\n"
                        "monotonic_clock:POSIX clock_gettime\r\n"
                        "multiplexing_api:%s\r\n"
                        "atomicvar_api:c11-builtin\r\n"
                        "gcc_version:%d.%d.%d\r\n"
                        "process_id:%lld\r\n"
                        "process_supervised:no\r\n"
                        "run_id:%s\r\n"
                        "tcp_port:%d\r\n"
                        "server_time_usec:%lld\r\n"
                        "uptime_in_seconds:%lld\r\n"
                        "uptime_in_days:%lld\r\n"
                        "hz:%d\r\n"
                        "configured_hz:%d\r\n"
                        "lru_clock:%u\r\n"
                        "executable:%s\r\n"
                        "config_file:%s\r\n"
                        "io_threads_active:%d\r\n"
                        "availability_zone:%s\r\n",
                        REDIS_COMPAT_VERSION, VALKEY_VERSION, server.sentinel_mode ? "sentinel" : "standalone",
                        name.sysname, name.release, name.machine, (int)sizeof(void *) * 8, aeGetApiName(),
#ifdef __GNUC__
                        __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__,
#else
                        0, 0, 0,
#endif
                        (long long)getpid(), server.runid, server.port, (long long)ustime(), uptime,
                        uptime / 86400, server.hz, server.config_hz, (unsigned int)server.lru_clock,
                        server.executable ? server.executable : "", server.configfile ? server.configfile : "",
                        ioThreadsActive(), server.availability_zone ? server.availability_zone : "");
    /* Only while a shutdown waits for lagging replicas: how long it may
     * still wait. */
    if (isShutdownInitiated())
        info = sdscatprintf(info, "shutdown_in_milliseconds:%lld\r\n", (long long)shutdownMillisecondsLeft());

    /* One line per listener, numbered by its slot in server.listeners. */
    int nlisteners = (int)(sizeof(server.listeners) / sizeof(server.listeners[0]));
    for (int j = 0; j < nlisteners; j++) {
        connListener *l = &server.listeners[j];
        if (l->ct == NULL || l->count == 0) continue;
        /* The Unix socket is served by the shared-memory transport when it
         * is built in; it is still the "unix" listener. */
        const char *type = j == CONN_TYPE_UNIX ? CONN_NAME_UNIX : l->ct->get_type(NULL);
        info = sdscatprintf(info, "listener%d:name=%s", j, type);
        if (j == CONN_TYPE_UNIX) {
            connUnixListenerConfig *uc = l->priv;
            info = sdscatprintf(info, ",bind=%s", uc && uc->path ? uc->path : "");
            if (server.shm_enabled && !strcmp(l->ct->get_type(NULL), CONN_NAME_SHM))
                info = sdscat(info, ",shm=yes");
        } else {
            if (l->bindaddr_count == 0) {
                info = sdscat(info, ",bind=*,bind=-::*");
            } else {
                for (int i = 0; i < l->bindaddr_count; i++) info = sdscatprintf(info, ",bind=%s", l->bindaddr[i]);
            }
            info = sdscatprintf(info, ",port=%d", l->port);
        }
        info = sdscat(info, "\r\n");
    }
    return info;
}

static sds infoClients(sds info) {
    size_t maxout, maxin;
    getClientsMaxBuffers(&maxout, &maxin);
    unsigned long replicas = 0, blocked = 0, pubsub = 0, shm = 0;
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li)) != NULL) {
        client *c = listNodeValue(ln);
        if (c->conn && !strcmp(connGetType(c->conn), CONN_NAME_SHM)) shm++;
        if ((c->flags & CLIENT_REPLICA) && !(c->flags & CLIENT_MONITOR)) replicas++;
        if (c->flags & CLIENT_BLOCKED) blocked++; /* on keys (blocked.c) or held by CLIENT PAUSE */
        if (c->flags & CLIENT_PUBSUB) pubsub++;
    }
    return sdscatprintf(info,
                        "# Clients\r\n"
                        "connected_clients:%lu\r\n"
                        "cluster_connections:%lu\r\n"
                        "maxclients:%u\r\n"
                        "client_recent_max_input_buffer:%zu\r\n"
                        "client_recent_max_output_buffer:%zu\r\n"
                        "blocked_clients:%lu\r\n"
                        "tracking_clients:%lu\r\n"
                        "pubsub_clients:%lu\r\n"
                        "watching_clients:%lu\r\n"
                        "clients_in_timeout_table:%lu\r\n"
                        "total_watched_keys:%lu\r\n"
                        "total_blocking_keys:%lu\r\n"
                        "total_blocking_keys_on_nokey:%lu\r\n"
                        "shm_clients:%lu\r\n",
                        listLength(server.clients) - replicas, clusterConnectionsCount(), server.maxclients, maxin,
                        maxout, blocked,
                        server.tracking_clients, pubsub,
                        multiWatchingClients(), blockedClientsWithTimeoutCount(), multiTotalWatchedKeys(),
                        blockedKeysCount(), blockedKeysOnNokeyCount(), shm);
}

/* See server.h. */
void getMemoryOverhead(memoryOverhead *m) {
    memset(m, 0, sizeof(*m));
    updatePeakMemory(); /* so that peak >= used holds in the report */
    m->used = zmalloc_used_memory() + replRdmaRegionBytes(); /* the region is mmap()ed */
    m->peak = server.stat_peak_memory;
    m->rss = zmalloc_get_rss();
    zmalloc_get_allocator_info(&m->allocated, &m->active, &m->resident);
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li)) != NULL) {
        client *c = listNodeValue(ln);
        size_t mem = getClientMemoryUsage(c, NULL);
        if ((c->flags & CLIENT_REPLICA) && !(c->flags & CLIENT_MONITOR)) m->clients_replicas += mem;
        else m->clients_normal += mem;
    }
    /* Each replica's memory above includes its share of the replication
     * buffer (as its omem); besides, the buffer counts as the backlog up
     * to repl-backlog-size and as the replicas' beyond, as in Valkey. */
    m->repl_buffer = replicationBufferMemory();
    if (listLength(repl.replicas) && m->repl_buffer > (size_t)server.repl_backlog_size) {
        m->clients_replicas += m->repl_buffer - (size_t)server.repl_backlog_size;
        m->repl_backlog = (size_t)server.repl_backlog_size;
    } else {
        m->repl_backlog = m->repl_buffer;
    }
    for (int j = 0; j < server.dbnum; j++) {
        kvstore *keys = server.db[j].keys;
        hashtable *expires = server.db[j].expires;
        size_t mem = kvstoreMemUsage(keys) + hashtableMemUsage(expires);
        m->db_tables += mem;
        m->db_lut += mem;
        int rehashing = 0;
        m->db_rehashing += kvstoreRehashingMemUsage(keys, &rehashing);
        m->db_rehashing_count += rehashing;
        if (hashtableIsRehashing(expires)) {
            m->db_rehashing += hashtableRehashingMemUsage(expires);
            m->db_rehashing_count++;
        }
    }
    scriptingGetMemory(&m->scripts);
    m->startup = server.initial_memory_usage;
    m->overhead = m->startup + m->repl_backlog + m->clients_normal + m->clients_replicas + m->db_tables +
                  m->scripts.eval_cache + m->scripts.functions_cache;
    m->dataset = m->used > m->overhead ? m->used - m->overhead : 0;
    m->net = m->used > m->startup ? m->used - m->startup : 0;
    m->dataset_perc = m->net ? (double)m->dataset * 100 / m->net : 0;
    m->peak_perc = m->peak ? (double)m->used * 100 / m->peak : 0;
    /* As Valkey 8: only the free regions of small-class slabs count as the
     * allocator's fragmentation (what active defragmentation recovers). */
    size_t frag_smallbins = zmalloc_get_frag_smallbins();
    m->alloc_frag = m->allocated ? (double)frag_smallbins / m->allocated + 1 : 0;
    m->alloc_frag_bytes = (long long)frag_smallbins;
    m->alloc_rss = m->active ? (double)m->resident / m->active : 0;
    m->alloc_rss_bytes = (long long)m->resident - (long long)m->active;
    m->rss_overhead = m->resident ? (double)m->rss / m->resident : 0;
    m->rss_overhead_bytes = (long long)m->rss - (long long)m->resident;
    m->frag = m->used ? (double)m->rss / m->used : 0;
    m->frag_bytes = (long long)m->rss - (long long)m->used;
}

static sds infoMemory(sds info) {
    char used_h[64], rss_h[64], peak_h[64], sys_h[64], maxmem_h[64], lua_h[64], vm_h[64], scripts_h[64];
    memoryOverhead mo;
    getMemoryOverhead(&mo);
    size_t used = mo.used, rss = mo.rss, peak = mo.peak;
    size_t allocated = mo.allocated, active = mo.active, resident = mo.resident;
    size_t sysmem = zmalloc_get_memory_size();
    size_t startup = mo.startup, overhead = mo.overhead, dataset = mo.dataset;
    size_t clients_normal = mo.clients_normal, clients_replicas = mo.clients_replicas;
    scriptingMemory sm = mo.scripts;

    bytesToHuman(used_h, sizeof(used_h), used);
    bytesToHuman(rss_h, sizeof(rss_h), rss);
    bytesToHuman(peak_h, sizeof(peak_h), peak);
    bytesToHuman(sys_h, sizeof(sys_h), sysmem);
    bytesToHuman(maxmem_h, sizeof(maxmem_h), server.maxmemory);
    bytesToHuman(lua_h, sizeof(lua_h), sm.eval_vm);
    bytesToHuman(vm_h, sizeof(vm_h), sm.eval_vm + sm.functions_vm);
    bytesToHuman(scripts_h, sizeof(scripts_h), sm.eval_cache + sm.functions_cache);

    return sdscatprintf(
        info,
        "# Memory\r\n"
        "used_memory:%zu\r\n"
        "used_memory_human:%s\r\n"
        "used_memory_rss:%zu\r\n"
        "used_memory_rss_human:%s\r\n"
        "used_memory_peak:%zu\r\n"
        "used_memory_peak_time:%lld\r\n"
        "used_memory_peak_human:%s\r\n"
        "used_memory_peak_perc:%.2f%%\r\n"
        "used_memory_overhead:%zu\r\n"
        "used_memory_startup:%zu\r\n"
        "used_memory_dataset:%zu\r\n"
        "used_memory_dataset_perc:%.2f%%\r\n"
        "allocator_allocated:%zu\r\n"
        "allocator_active:%zu\r\n"
        "allocator_resident:%zu\r\n"
        "allocator_muzzy:0\r\n"
        "total_system_memory:%zu\r\n"
        "total_system_memory_human:%s\r\n"
        "used_memory_lua:%zu\r\n"
        "used_memory_vm_eval:%zu\r\n"
        "used_memory_lua_human:%s\r\n"
        "used_memory_scripts_eval:%zu\r\n"
        "number_of_cached_scripts:%lu\r\n"
        "number_of_functions:%lu\r\n"
        "number_of_libraries:%lu\r\n"
        "used_memory_vm_functions:%zu\r\n"
        "used_memory_vm_total:%zu\r\n"
        "used_memory_vm_total_human:%s\r\n"
        "used_memory_functions:%zu\r\n"
        "used_memory_scripts:%zu\r\n"
        "used_memory_scripts_human:%s\r\n"
        "maxmemory:%llu\r\n"
        "maxmemory_human:%s\r\n"
        "maxmemory_policy:%s\r\n"
        "allocator_frag_ratio:%.2f\r\n"
        "allocator_frag_bytes:%lld\r\n"
        "allocator_rss_ratio:%.2f\r\n"
        "allocator_rss_bytes:%lld\r\n"
        "rss_overhead_ratio:%.2f\r\n"
        "rss_overhead_bytes:%lld\r\n"
        "mem_fragmentation_ratio:%.2f\r\n"
        "mem_fragmentation_bytes:%lld\r\n"
        "mem_not_counted_for_evict:%zu\r\n"
        "mem_replication_backlog:%zu\r\n"
        "mem_total_replication_buffers:%zu\r\n"
        "mem_clients_slaves:%zu\r\n"
        "mem_clients_normal:%zu\r\n"
        "mem_cluster_links:%zu\r\n"
        "mem_aof_buffer:%zu\r\n"
        "mem_allocator:%s\r\n"
        "mem_overhead_db_hashtable_rehashing:%zu\r\n"
        "active_defrag_running:%d\r\n"
        "lazyfree_pending_objects:%zu\r\n"
        "lazyfreed_objects:%zu\r\n",
        used, used_h, rss, rss_h, peak, (long long)server.stat_peak_memory_time, peak_h, mo.peak_perc, overhead,
        startup, dataset, mo.dataset_perc, allocated, active, resident, sysmem, sys_h, sm.eval_vm, sm.eval_vm, lua_h,
        sm.eval_cache, sm.scripts, sm.functions, sm.libraries, sm.functions_vm, sm.eval_vm + sm.functions_vm, vm_h,
        sm.functions_cache, sm.eval_cache + sm.functions_cache, scripts_h,
        server.maxmemory, maxmem_h, infoMaxmemoryPolicyName(server.maxmemory_policy), mo.alloc_frag,
        mo.alloc_frag_bytes, mo.alloc_rss, mo.alloc_rss_bytes, mo.rss_overhead, mo.rss_overhead_bytes, mo.frag,
        mo.frag_bytes, freeMemoryGetNotCountedMemory(), mo.repl_backlog, mo.repl_buffer, clients_replicas,
        clients_normal, clusterLinksMemory(), aofBufferLength(), infoAllocatorName(), mo.db_rehashing, defrag.running,
        lazyfreeGetPendingObjectsCount(),
        lazyfreeGetFreedObjectsCount());
}

/* The fields belong to the snapshot subsystem (snapshot.c), the aof_*
 * ones to aof.c. */
static sds infoPersistence(sds info) {
    return snapshotCatInfoPersistence(info);
}

static sds infoStats(sds info) {
    unsigned long long tracked_keys, tracked_items, tracked_prefixes;
    trackingGetStats(&tracked_keys, &tracked_items, &tracked_prefixes);
    ioThreadsStats iost;
    ioThreadsGetStats(&iost);
    return sdscatprintf(
        info,
        "# Stats\r\n"
        "total_connections_received:%lld\r\n"
        "total_commands_processed:%lld\r\n"
        "instantaneous_ops_per_sec:%lld\r\n"
        "total_net_input_bytes:%lld\r\n"
        "total_net_output_bytes:%lld\r\n"
        "total_net_repl_input_bytes:%lld\r\n"
        "total_net_repl_output_bytes:%lld\r\n"
        "instantaneous_input_kbps:%.2f\r\n"
        "instantaneous_output_kbps:%.2f\r\n"
        "instantaneous_input_repl_kbps:%.2f\r\n"
        "instantaneous_output_repl_kbps:%.2f\r\n"
        "rejected_connections:%lld\r\n"
        "sync_full:%lld\r\n"
        "sync_partial_ok:%lld\r\n"
        "sync_partial_err:%lld\r\n"
        "expired_keys:%lld\r\n"
        "expired_stale_perc:%.2f\r\n"
        "expired_time_cap_reached_count:%lld\r\n"
        "expire_cycle_cpu_milliseconds:%lld\r\n"
        "evicted_keys:%lld\r\n"
        "evicted_clients:%lld\r\n"
        "evicted_scripts:%lld\r\n"
        "total_eviction_exceeded_time:%lld\r\n"
        "current_eviction_exceeded_time:0\r\n"
        "keyspace_hits:%lld\r\n"
        "keyspace_misses:%lld\r\n"
        "pubsub_channels:%lu\r\n"
        "pubsub_patterns:%lu\r\n"
        "pubsubshard_channels:%lu\r\n"
        "latest_fork_usec:%lld\r\n"
        "total_forks:%lld\r\n"
        "migrate_cached_sockets:%zu\r\n"
        "slave_expires_tracked_keys:%zu\r\n"
        "active_defrag_hits:%lld\r\n"
        "active_defrag_misses:%lld\r\n"
        "active_defrag_key_hits:%lld\r\n"
        "active_defrag_key_misses:%lld\r\n"
        "total_active_defrag_time:%lld\r\n"
        "current_active_defrag_time:%lld\r\n"
        "tracking_total_keys:%llu\r\n"
        "tracking_total_items:%llu\r\n"
        "tracking_total_prefixes:%llu\r\n"
        "unexpected_error_replies:%lld\r\n"
        "total_error_replies:%lld\r\n"
        "dump_payload_sanitizations:%lld\r\n"
        "total_reads_processed:%lld\r\n"
        "total_writes_processed:%lld\r\n"
        "io_threaded_reads_processed:%lld\r\n"
        "io_threaded_writes_processed:%lld\r\n"
        "io_threaded_freed_objects:%lld\r\n"
        "io_threaded_poll_processed:%lld\r\n"
        "io_threaded_total_prefetch_batches:%lld\r\n"
        "io_threaded_total_prefetch_entries:%lld\r\n"
        "client_query_buffer_limit_disconnections:%lld\r\n"
        "client_output_buffer_limit_disconnections:%lld\r\n"
        "reply_buffer_shrinks:%lld\r\n"
        "reply_buffer_expands:%lld\r\n"
        "eventloop_cycles:%llu\r\n"
        "eventloop_duration_sum:%llu\r\n"
        "eventloop_duration_cmd_sum:%llu\r\n"
        "instantaneous_eventloop_cycles_per_sec:%llu\r\n"
        "instantaneous_eventloop_duration_usec:%llu\r\n"
        "acl_access_denied_auth:%lld\r\n"
        "acl_access_denied_cmd:%lld\r\n"
        "acl_access_denied_key:%lld\r\n"
        "acl_access_denied_channel:%lld\r\n",
        server.stat_numconnections, server.stat_numcommands, getInstantaneousMetric(STATS_METRIC_COMMAND),
        server.stat_net_input_bytes, server.stat_net_output_bytes, server.stat_net_repl_input_bytes,
        server.stat_net_repl_output_bytes,
        (double)getInstantaneousMetric(STATS_METRIC_NET_INPUT) / 1024,
        (double)getInstantaneousMetric(STATS_METRIC_NET_OUTPUT) / 1024,
        (double)getInstantaneousMetric(STATS_METRIC_NET_INPUT_REPLICATION) / 1024,
        (double)getInstantaneousMetric(STATS_METRIC_NET_OUTPUT_REPLICATION) / 1024, server.stat_rejected_conn,
        repl.stat_sync_full, repl.stat_sync_partial_ok, repl.stat_sync_partial_err,
        server.stat_expiredkeys, (double)server.stat_expired_stale_perc * 100,
        server.stat_expired_time_cap_reached_count, server.stat_expire_cycle_time_used / 1000,
        server.stat_evictedkeys, server.stat_evictedclients, server.stat_evictedscripts,
        server.stat_total_eviction_exceeded_time / 1000, server.stat_keyspace_hits, server.stat_keyspace_misses,
        pubsubTotal(PUBSUB_CHANNEL), pubsubTotal(PUBSUB_PATTERN), pubsubTotal(PUBSUB_SHARD),
        snapshot.stat_fork_time, snapshot.stat_total_forks, migrateCachedSocketsCount(),
        expireReplicaKeysTracked(),
        defrag.stat_hits, defrag.stat_misses, defrag.stat_key_hits, defrag.stat_key_misses,
        defrag.stat_total_time_us / 1000,
        defragCurrentTimeMs(),
        tracked_keys, tracked_items, tracked_prefixes, server.stat_unexpected_error_replies,
        server.stat_total_error_replies, server.stat_dump_payload_sanitizations, server.stat_total_reads_processed,
        server.stat_total_writes_processed, iost.reads_processed, iost.writes_processed, iost.freed_objects,
        iost.poll_processed, iost.prefetch_batches, iost.prefetch_entries,
        server.stat_client_qbuf_limit_disconnections, server.stat_client_outbuf_limit_disconnections,
        server.stat_reply_buffer_shrinks, server.stat_reply_buffer_expands,
        server.el_duration[EL_DURATION_TYPE_EL].cnt, server.el_duration[EL_DURATION_TYPE_EL].sum,
        server.el_duration[EL_DURATION_TYPE_CMD].sum,
        (unsigned long long)getInstantaneousMetric(STATS_METRIC_EL_CYCLE),
        (unsigned long long)getInstantaneousMetric(STATS_METRIC_EL_DURATION), server.stat_auth_failures,
        aclDeniedCount(ACL_DENIED_CMD), aclDeniedCount(ACL_DENIED_KEY), aclDeniedCount(ACL_DENIED_CHANNEL));
}

/* INFO DEBUG only (not in "all" or "everything"): the event loop's worst
 * cases and the time spent in the cron and the AOF. */
static sds infoDebug(sds info) {
    return sdscatprintf(info,
                        "# Debug\r\n"
                        "eventloop_duration_aof_sum:%llu\r\n"
                        "eventloop_duration_cron_sum:%llu\r\n"
                        "eventloop_duration_max:%llu\r\n"
                        "eventloop_cmd_per_cycle_max:%lld\r\n",
                        server.el_duration[EL_DURATION_TYPE_AOF].sum, server.el_duration[EL_DURATION_TYPE_CRON].sum,
                        server.el_duration[EL_DURATION_TYPE_EL].max, server.el_cmd_per_cycle_max);
}

static sds infoCpu(sds info) {
    struct rusage self, children, thread;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
#ifdef RUSAGE_THREAD
    getrusage(RUSAGE_THREAD, &thread);
#else
    thread = self;
#endif
#define TV(t) (long)(t).tv_sec, (long)(t).tv_usec
    return sdscatprintf(info,
                        "# CPU\r\n"
                        "used_cpu_sys:%ld.%06ld\r\n"
                        "used_cpu_user:%ld.%06ld\r\n"
                        "used_cpu_sys_children:%ld.%06ld\r\n"
                        "used_cpu_user_children:%ld.%06ld\r\n"
                        "used_cpu_sys_main_thread:%ld.%06ld\r\n"
                        "used_cpu_user_main_thread:%ld.%06ld\r\n",
                        TV(self.ru_stime), TV(self.ru_utime), TV(children.ru_stime), TV(children.ru_utime),
                        TV(thread.ru_stime), TV(thread.ru_utime));
#undef TV
}

static int infoCompareErrorEntries(const void *a, const void *b) {
    const dictEntry *ea = *(const dictEntry *const *)a, *eb = *(const dictEntry *const *)b;
    return strcmp(dictGetKey(ea), dictGetKey(eb));
}

static sds infoErrorstats(sds info) {
    info = sdscat(info, "# Errorstats\r\n");
    if (server.errors == NULL || dictSize(server.errors) == 0) return info;
    /* Sorted, so the output does not depend on hash table order. */
    size_t n = dictSize(server.errors), i = 0;
    dictEntry **entries = zmalloc(sizeof(dictEntry *) * n);
    dictIterator *di = dictGetIterator(server.errors);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL && i < n) entries[i++] = de;
    dictReleaseIterator(di);
    qsort(entries, i, sizeof(dictEntry *), infoCompareErrorEntries);
    for (size_t j = 0; j < i; j++) {
        info = sdscatprintf(info, "errorstat_%s:count=%lld\r\n", (char *)dictGetKey(entries[j]),
                            (long long)dictGetSignedIntegerVal(entries[j]));
    }
    zfree(entries);
    return info;
}

static sds infoCommandStat(sds info, struct serverCommand *cmd) {
    if (cmd->calls || cmd->failed_calls || cmd->rejected_calls) {
        info = sdscatprintf(info,
                            "cmdstat_%s:calls=%lld,usec=%lld,usec_per_call=%.2f,rejected_calls=%lld,"
                            "failed_calls=%lld\r\n",
                            cmd->fullname ? cmd->fullname : cmd->name, cmd->calls, cmd->microseconds,
                            cmd->calls ? (double)cmd->microseconds / cmd->calls : 0.0, cmd->rejected_calls,
                            cmd->failed_calls);
    }
    if (cmd->subcommands)
        for (struct serverCommand *sub = cmd->subcommands; sub->name; sub++) info = infoCommandStat(info, sub);
    return info;
}

static sds infoLatencyStat(sds info, struct serverCommand *cmd) {
    info = latencyCatInfoPercentiles(info, cmd);
    if (cmd->subcommands)
        for (struct serverCommand *sub = cmd->subcommands; sub->name; sub++) info = infoLatencyStat(info, sub);
    return info;
}

static int infoCompareCommands(const void *a, const void *b) {
    const struct serverCommand *ca = *(struct serverCommand *const *)a, *cb = *(struct serverCommand *const *)b;
    return strcmp(ca->name, cb->name);
}

/* Walks the command table in name order, appending fn's lines. */
static sds infoForEachCommand(sds info, sds (*fn)(sds, struct serverCommand *)) {
    size_t n = dictSize(server.commands), i = 0;
    struct serverCommand **cmds = zmalloc(sizeof(*cmds) * (n ? n : 1));
    dictIterator *di = dictGetIterator(server.commands);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL && i < n) cmds[i++] = dictGetVal(de);
    dictReleaseIterator(di);
    qsort(cmds, i, sizeof(*cmds), infoCompareCommands);
    for (size_t j = 0; j < i; j++) info = fn(info, cmds[j]);
    zfree(cmds);
    return info;
}

static sds infoKeyspace(sds info) {
    info = sdscat(info, "# Keyspace\r\n");
    for (int j = 0; j < server.dbnum; j++) {
        long long keys = kvstoreSize(server.db[j].keys);
        long long vkeys = hashtableSize(server.db[j].expires);
        if (keys || vkeys)
            info = sdscatprintf(info, "db%d:keys=%lld,expires=%lld,avg_ttl=%lld\r\n", j, keys, vkeys,
                                server.db[j].avg_ttl);
    }
    return info;
}

/* True if section_dict holds name (a C string; the dict holds sds). */
static int infoSectionWanted(dict *section_dict, const char *name) {
    if (section_dict == NULL) return 0;
    sds key = sdsnew(name);
    int found = dictFind(section_dict, key) != NULL;
    sdsfree(key);
    return found;
}

/* Builds the INFO text for the sections in section_dict (lower-case names),
 * or every section if all_sections; everything additionally asks modules
 * for their sections (none exist yet). Returns a new sds owned by the
 * caller. Safe to call from the crash handler on a best-effort basis. */
sds genValkeyInfoString(dict *section_dict, int all_sections, int everything) {
    (void)everything;
    sds info = sdsempty();
    int sections = 0;
#define WANT(name) (all_sections || infoSectionWanted(section_dict, name))
#define SECTION(name, fn)                                 \
    if (WANT(name)) {                                     \
        if (sections++) info = sdscatlen(info, "\r\n", 2); \
        info = fn(info);                                  \
    }
    SECTION("server", infoServer);
    SECTION("clients", infoClients);
    SECTION("memory", infoMemory);
    SECTION("persistence", infoPersistence);
    SECTION("stats", infoStats);
    SECTION("replication", replicationCatInfo);
    SECTION("cpu", infoCpu);
    if (WANT("modules")) {
        if (sections++) info = sdscatlen(info, "\r\n", 2);
        info = sdscat(info, "# Modules\r\n");
    }
    if (WANT("commandstats")) {
        if (sections++) info = sdscatlen(info, "\r\n", 2);
        info = sdscat(info, "# Commandstats\r\n");
        info = infoForEachCommand(info, infoCommandStat);
    }
    SECTION("errorstats", infoErrorstats);
    if (WANT("latencystats")) {
        if (sections++) info = sdscatlen(info, "\r\n", 2);
        info = sdscat(info, "# Latencystats\r\n");
        if (server.latency_tracking_enabled) info = infoForEachCommand(info, infoLatencyStat);
    }
    if (WANT("cluster")) {
        if (sections++) info = sdscatlen(info, "\r\n", 2);
        info = sdscatprintf(info, "# Cluster\r\ncluster_enabled:%d\r\n", server.cluster_enabled ? 1 : 0);
    }
    SECTION("keyspace", infoKeyspace);
    if (infoSectionWanted(section_dict, "debug")) {
        if (sections++) info = sdscatlen(info, "\r\n", 2);
        info = infoDebug(info);
    }
#undef SECTION
#undef WANT
    return info;
}

/* INFO [section ...] */
void infoCommand(client *c) {
    int all, everything;
    dict *sections = genInfoSectionDict(c->argv + 1, c->argc - 1, &all, &everything);
    sds info = genValkeyInfoString(sections, all, everything);
    addReplyVerbatim(c, info, sdslen(info), "txt");
    sdsfree(info);
    releaseInfoSectionDict(sections);
}
