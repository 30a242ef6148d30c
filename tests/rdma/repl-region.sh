#!/bin/bash
# tests/rdma/repl-region.sh - full sync by one-sided RDMA READ of the
# primary's snapshot region (src/repl_rdma.c), on real (Soft-RoCE) RDMA.
# Runs inside the test VM:
#
#   make -C src && utils/rdma-vm tests/rdma/repl-region.sh
#
# The primary listens for RDMA on $RDMA_SERVER_ADDR with
# repl-rdma-snapshot yes; replicas (rdma-replication yes) reach it there
# and READ the region across the wire from $RDMA_CLIENT_ADDR. Servers are
# driven over TCP on 127.0.0.1 (tests/rdma/repl-lib.sh). A replica is held
# in the middle of its READs with SIGSTOP, which makes the timing of
# "arrives mid-snapshot", "killed mid-READ" and "stops reading"
# deterministic. Covered: every data type synced by READ while clients
# write, then the stream and a partial resync; three replicas sharing one
# snapshot, the third joining while the region is still read; a ring
# smaller than the snapshot (the child waits for the readers); a TCP
# replica (no capa rdma-read) streamed from the same region; a replica
# killed mid-READ, a replica that stops reading (dropped after
# repl-timeout, the others go on), the wire cut (ip link set down) during
# the region sync and during streaming, the primary killed mid-snapshot, a
# wrong checksum (DEBUG REPL-RDMA-BAD-CHECKSUM), and a client that steals
# a replica's rkey (its READ is refused: the region is registered on the
# replica's protection domain only). Each ends with equal DEBUG DIGEST,
# no crash, the region released (INFO), and no file written: no RDB or
# temp file in any server's directory, and /proc/PID/io write_bytes of the
# primary and the replicas unchanged by the syncs (the servers' directories
# are on an ext4 file system, where that counter sees every write; a SAVE
# on a replica at the end shows it does). The exit status is the number of failures.
#
# Environment: VALKEY_SERVER, RDMA_CLI (binaries), RDMA_REPL_PORT (first
# port, default 6480; the script uses the next 26).
set -u

BASE_DEFAULT=6480
# shellcheck source=tests/rdma/repl-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/repl-lib.sh"
RDMA_CLI=${RDMA_CLI:-$ROOT/src/rdma-test-client}

# region_active N: INFO rdma_snapshot_active of server N.
region_active() { field "$1" replication rdma_snapshot_active; }
# wait_region_free N: waits until server N has no region; 0 if so.
wait_region_free() {
    for _ in $(seq 1 150); do
        [ "$(region_active "$1")" = 0 ] && return 0
        sleep 0.2
    done
    return 1
}
# wait_log N PATTERN [SECS]: waits for a line in server N's log.
wait_log() {
    for _ in $(seq 1 $((${3:-60} * 5))); do
        grep -q "$2" "$(logof "$1")" && return 0
        sleep 0.2
    done
    return 1
}
# wbytes N: write_bytes of server N (what it made the kernel write to disk).
wbytes() { sed -n 's/^write_bytes: //p' "/proc/${PIDS[$1]}/io"; }
# no_disk_writes NAME N...: servers N (replicas, started for this sync)
# wrote nothing to disk since they started.
no_disk_writes() {
    local name=$1 n
    shift
    for n in "$@"; do check "$name: replica $n wrote no bytes to disk" "$(wbytes "$n")" 0; done
}
# no_files NAME N...: no RDB or temp file in the servers' directories.
no_files() {
    local name=$1 found=
    shift
    for n in "$@"; do found+=$(ls "$(sdir "$n")" 2> /dev/null | grep -E '\.rdb$|^temp-'); done
    if [ -z "$found" ]; then ok "$name: no RDB or temp file written"; else bad "$name: files written: $found"; fi
}
# asks: how many replicas asked the primary for a sync so far.
asks() { grep -c "asks for synchronization" "$(logof 0)"; }
# wait_asks K: waits until more than K replicas asked.
wait_asks() {
    for _ in $(seq 1 300); do
        [ "$(asks)" -gt "$1" ] && return 0
        sleep 0.1
    done
    bad "no replica asked for a sync"
    return 1
}
# regions: how many region snapshots the primary started so far.
regions() { grep -c "Starting BGSAVE.*RDMA snapshot region" "$(logof 0)"; }
# hold_replica N: starts replica N, stops it (SIGSTOP) as soon as it asked
# for its sync, then waits until the primary started a region for it.
hold_replica() {
    local k r
    k=$(asks)
    r=$(regions)
    replica "$1"
    wait_asks "$k"
    kill -STOP "${PIDS[$1]}"
    for _ in $(seq 1 100); do
        [ "$(regions)" -gt "$r" ] && return 0
        sleep 0.1
    done
    bad "no region started for replica $1"
}
# replica N: starts server N as an RDMA replica of server 0 reading regions.
replica() {
    local n=$1
    shift
    start "$n" - --rdma-replication yes --repl-diskless-load disabled --replicaof "$A" "$(rport 0)" "$@"
}
synced_by_read() { # synced_by_read N: replica N's log says it read a region
    grep -q "RDMA snapshot of [0-9]* bytes read and verified" "$(logof "$1")"
}

# ------------------------------------------------------------ the data
section "primary on $A:$(rport 0), repl-rdma-snapshot yes, every data type"
data_on_disk
start 0 "$A" --repl-rdma-snapshot yes --repl-diskless-sync yes --repl-diskless-sync-delay 5
c 0 DEBUG POPULATE 20000 key 100 > /dev/null
{
    for i in $(seq 1 300); do
        echo "RPUSH list e$i"
        echo "HSET hash f$i v$i"
        echo "SADD set m$i"
        echo "SADD intset $i"
        echo "ZADD zset $i z$i"
        echo "XADD stream * n $i"
        echo "PFADD hll h$i"
        echo "SETBIT bits $((i * 7)) 1"
    done
    echo "XGROUP CREATE stream g 0"
    echo "XREADGROUP GROUP g alice COUNT 5 STREAMS stream >"
    echo "SET big $(head -c 1500000 /dev/urandom | base64 -w0)"
    echo "SET volatile v"
    echo "PEXPIRE volatile 100000000"
    echo "SELECT 5"
    echo "SET in-db-5 yes"
    echo "FUNCTION LOAD \"#!lua name=lib\\nserver.register_function{function_name='f', callback=function() return 1 end, flags={'no-writes'}}\""
} | c 0 > /dev/null
check "primary has the data" "$(c 0 DBSIZE)" 20010
mem0=$(field 0 memory used_memory)

# ------------------------------------- two replicas, a third mid-snapshot
section "replicas 1 and 2 share one region; replica 3 joins while replica 1 is held mid-READ"
writer() { # clients keep writing during the syncs
    for i in $(seq 1 400); do echo "INCR during"; echo "SET w$i $i"; done | c 0 > /dev/null
}
w0=$(wbytes 0)
wp0=$w0 # the primary, from here to its end
k=$(asks)
replica 1
wait_asks "$k"
kill -STOP "${PIDS[1]}" # it holds the region: it asked, and reads nothing
replica 2
wait_log 0 "Starting BGSAVE for SYNC with target: replicas RDMA snapshot region" 30 ||
    bad "the primary started no region snapshot"
writer &
wpid=$!
if wait_link 2 120; then ok "replica 2 linked"; else bad "replica 2 link not up"; fi
synced_by_read 2 && ok "replica 2 read the region" || bad "replica 2: no region read in its log"
check "primary: region still held for replica 1" "$(region_active 0)" 1
replica 3
if wait_link 3 120; then ok "replica 3 linked"; else bad "replica 3 link not up"; fi
synced_by_read 3 && ok "replica 3 read the region" || bad "replica 3: no region read in its log"
kill -CONT "${PIDS[1]}"
if wait_link 1 120; then ok "replica 1 linked after SIGCONT"; else bad "replica 1 link not up"; fi
wait "$wpid"
check "one snapshot served all three" \
    "$(grep -c "Starting BGSAVE for SYNC with target: replicas RDMA snapshot region" "$(logof 0)")" 1
check "primary: three full syncs" "$(field 0 stats sync_full)" 3
grep -q "Waiting for end of BGSAVE for SYNC" "$(logof 0)" && ok "replica 3 joined the running region" ||
    bad "replica 3 did not join the region"
synced 1 2 3
check "replica 1: write streamed after the READ" "$(c 1 GET during)" 400
check "replica 2: db 5" "$(c 2 -n 5 GET in-db-5)" yes
check "replica 3: the function" "$(c 3 FCALL f 0)" 1
check "replica 1: the TTL" "$([ "$(c 1 PTTL volatile)" -gt 1000 ] && echo kept)" kept
if wait_region_free 0; then ok "primary: region released"; else bad "primary: region still active"; fi
check "primary: used_memory back without the region" \
    "$(($(field 0 memory used_memory) < mem0 + 4000000))" 1
no_files "first syncs" 0 1 2 3
check "primary: no disk writes for the syncs" "$(($(wbytes 0) - w0))" 0
no_disk_writes "first syncs" 1 2 3

# ------------------------------------------------ stream and partial resync
section "stream over RDMA, partial resync after CLIENT KILL TYPE master"
pok=$(field 0 stats sync_partial_ok)
c 2 CLIENT KILL TYPE master > /dev/null
c 0 SET after-kill 1 > /dev/null
sleep 1
if wait_link 2; then ok "replica 2 relinked"; else bad "replica 2 did not relink"; fi
check "primary: partial resync" "$(field 0 stats sync_partial_ok)" $((pok + 1))
wait_sync 0 2 || bad "replica 2 did not catch up"
check "replica 2: write made while away" "$(c 2 GET after-kill)" 1
check_digest "replica 2: DEBUG DIGEST after the partial resync" 2

# ------------------------------------------------ ring smaller than the snapshot
section "a 1 MB ring for a bigger snapshot: the child waits for the readers"
c 0 CONFIG SET repl-rdma-snapshot-buffer 1mb > /dev/null
w0=$(wbytes 0)
replica 4
if wait_link 4 180; then ok "replica 4 linked"; else bad "replica 4 link not up"; fi
synced_by_read 4 && ok "replica 4 read the region" || bad "replica 4: no region read"
grep -q "RDMA snapshot region (1048576 bytes, 2 segments)" "$(logof 0)" && ok "primary used a 2-segment ring" ||
    bad "no 1 MB ring in the primary's log"
segs=$(grep "RDMA snapshot complete" "$(logof 0)" | tail -n 1 | sed -n 's/.* in \([0-9]*\) segments.*/\1/p')
check "the snapshot needed more segments than the ring has" "$((${segs:-0} > 4))" 1
synced 4
wait_region_free 0 && ok "primary: region released" || bad "primary: region still active"
check "primary: no disk writes for the sync" "$(($(wbytes 0) - w0))" 0
no_disk_writes "1 MB ring" 4

# ------------------------------------- a replica that cannot READ, same sync
section "replica 10 over TCP (no capa rdma-read) and reader 11 share one region (1 MB ring)"
r=$(regions)
start 10 - --repl-diskless-load on-empty-db --replicaof 127.0.0.1 "$(tport 0)"
replica 11
if wait_link 10 180; then ok "replica 10 linked over TCP"; else bad "replica 10 link not up"; fi
if wait_link 11 180; then ok "replica 11 linked over RDMA"; else bad "replica 11 link not up"; fi
check "one region for both" "$(regions)" $((r + 1))
grep -q "receiving streamed RDB from primary with EOF" "$(logof 10)" && ok "replica 10 got the EOF-framed stream" ||
    bad "replica 10 did not get a streamed RDB"
synced_by_read 11 && ok "replica 11 read the region" || bad "replica 11: no region read"
grep -q "Streamed RDB transfer with replica 127.0.0.1:$(tport 10) succeeded" "$(logof 0)" &&
    ok "primary streamed the region to replica 10" || bad "primary: no streamed transfer to replica 10"
synced 10 11
wait_region_free 0 && ok "primary: region released" || bad "primary: region still active"

# ----------------------------------------------------------- faults
section "replica 5 killed mid-READ"
hold_replica 5
sleep 1
kill -9 "${PIDS[5]}"
wait "${PIDS[5]}" 2> /dev/null
if wait_region_free 0; then ok "primary released the region of the killed replica"; else
    bad "region still active after the replica died"; fi
check "primary answers" "$(c 0 PING)" PONG

section "replica 6 stops reading: dropped after repl-timeout, replica 7 goes on"
c 0 CONFIG SET repl-timeout 4 > /dev/null
c 0 CONFIG SET repl-rdma-snapshot-buffer 64mb > /dev/null
k=$(asks)
replica 6
wait_asks "$k"
kill -STOP "${PIDS[6]}"
replica 7
wait_log 0 "Disconnecting timedout replica (RDMA snapshot read)" 30 && ok "primary dropped the stalled replica" ||
    bad "the stalled replica was not dropped"
if wait_link 7 120; then ok "replica 7 linked"; else bad "replica 7 link not up"; fi
kill -CONT "${PIDS[6]}"
c 0 CONFIG SET repl-timeout 60 > /dev/null
if wait_link 6 180; then ok "replica 6 linked after it resumed (a new sync)"; else bad "replica 6 link not up"; fi
synced 6 7
wait_region_free 0 && ok "primary: region released" || bad "primary: region still active"

section "a wrong checksum: the replica refuses the region and retries"
c 0 DEBUG REPL-RDMA-BAD-CHECKSUM 1 > /dev/null
replica 8
wait_log 8 "RDMA snapshot: checksum mismatch" 120 && ok "replica 8 detected the wrong checksum" ||
    bad "replica 8 did not log a checksum mismatch"
check "replica 8: link not up with a bad region" "$(field 8 replication master_link_status)" down
check "replica 8: no keys from the refused region" "$(c 8 DBSIZE)" 0
c 0 DEBUG REPL-RDMA-BAD-CHECKSUM 0 > /dev/null
if wait_link 8 120; then ok "replica 8 linked on a later attempt"; else bad "replica 8 link not up"; fi
synced 8

section "a client with a stolen rkey"
out=$(timeout 120 "$RDMA_CLI" -h "$A" -p "$(rport 0)" -I "$B" --steal-region 2>&1)
st=$?
echo "$out" | sed 's/^/    /'
check "rdma-cli --steal-region: refused for the thief, READ for the replica" "$st" 0
grep -q "stolen READ refused" <<< "$out" && ok "the stolen READ was refused" || bad "the stolen READ was not refused"
check "primary answers" "$(c 0 PING)" PONG
wait_region_free 0 && ok "primary: region released after the fake replica left" || bad "region still active"

NETDEV=${RDMA_CLIENT_NETDEV:-veth1}
section "the wire cut ($NETDEV down for 3 s) during a region sync, then during streaming"
hold_replica 12
ip link set "$NETDEV" down
kill -CONT "${PIDS[12]}"
sleep 3
ip link set "$NETDEV" up
if wait_link 12 180; then ok "replica 12 linked after the cut"; else bad "replica 12 link not up after the cut"; fi
wait_sync 0 12 || bad "replica 12 did not reach the primary's offset"
check_digest "replica 12: DEBUG DIGEST after a cut during the region sync" 12
ip link set "$NETDEV" down
for i in $(seq 1 200); do echo "SET cut$i $i"; done | c 0 > /dev/null
sleep 3
ip link set "$NETDEV" up
wait_sync 0 12 || bad "replica 12 did not catch up after the cut"
check "replica 12: writes made during the cut" "$(c 12 GET cut200)" 200
check_digest "replica 12: DEBUG DIGEST after a cut during streaming" 12
wait_region_free 0 && ok "primary: region released" || bad "primary: region still active"

check "primary: no disk writes through every sync and fault above" "$(($(wbytes 0) - wp0))" 0
section "primary killed mid-snapshot"
hold_replica 9
sleep 0.5
kill -9 "${PIDS[0]}"
wait "${PIDS[0]}" 2> /dev/null
kill -CONT "${PIDS[9]}"
wait_log 9 "RDMA snapshot: \|Failed trying to load the PRIMARY synchronization DB" 60 &&
    ok "replica 9 logs the broken snapshot" || bad "replica 9 logged nothing about the broken snapshot"
sleep 2
check "replica 9 still answers" "$(c 9 PING)" PONG
check "replica 9: link down" "$(field 9 replication master_link_status)" down

# ------------------------------------------------------------------ end
section "logs"
for n in 1 2 3 4 6 7 8 9 10 11 12; do
    kill -0 "${PIDS[$n]}" 2> /dev/null || bad "server $n died"
done
for n in 0 1 2 3 4 6 7 8 9 10 11 12; do
    if grep -qE 'Assertion|Segmentation|crashed|AddressSanitizer' "$(logof "$n")" "$DIR/s$n.out"; then
        bad "server $n log shows a crash"
        tail -n 30 "$(logof "$n")"
    fi
done
no_files "all syncs" 1 2 3 4 6 7 8 9 11 12
no_disk_writes "all syncs, faults included" 1 2 3 4 6 7 8 9 10 11 12
w0=$(wbytes 1)
c 1 SAVE > /dev/null
check "control: a SAVE on replica 1 counts in write_bytes" "$(($(wbytes 1) > w0))" 1
echo "---- primary log: region lines"
grep -E "RDMA snapshot|region" "$(logof 0)" | cut -c1-160 | tail -n 20
echo "rdma region replication tests: $passes passed, $fails failed"
exit $((fails > 125 ? 125 : fails))
