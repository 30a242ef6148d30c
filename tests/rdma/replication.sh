#!/bin/bash
# tests/rdma/replication.sh - replication over the RDMA transport
# (rdma-replication yes: the replica's link to its primary is an outgoing
# RDMA connection, src/conn_rdma.c) on real (Soft-RoCE) RDMA. Runs inside
# the test VM:
#
#   make -C src && utils/rdma-vm tests/rdma/replication.sh
#
# The primary listens for RDMA on $RDMA_SERVER_ADDR; replicas reach it
# there with replicaof + rdma-replication yes, and a chained replica
# reaches the first replica's RDMA listener on $RDMA_CLIENT_ADDR. Every
# server also listens for TCP, on 127.0.0.1 only, which this script uses
# to drive and inspect them (redis-cli); so a replica whose CLIENT LIST
# address is not 127.0.0.1 came over RDMA, which each test checks.
# Covered: full sync from a file and streamed (diskless; loaded from the
# link into a 64 KiB RX window, and with swapdb), the command stream and
# WAIT (REPLCONF ACK), partial resync after CLIENT KILL TYPE master, a
# chained replica, DEBUG DIGEST equal everywhere; a replica whose primary
# has no RDMA listener logs why, retries and never falls back to TCP; a
# primary that dies is noticed at once. Each check prints "ok" or "FAIL";
# the exit status is the number of failures.
#
# First it runs src/unit/test_conn_rdma (the transport's connects in one
# process: listen, connect, windows, EOF, blocking connect, refused).
#
# Environment: VALKEY_SERVER, TEST_CONN_RDMA (binaries; copy them somewhere
# private if others rebuild the tree meanwhile), RDMA_REPL_PORT (first
# port, default 6450; the script uses the next twelve).
set -u

BASE_DEFAULT=6450
# shellcheck source=tests/rdma/repl-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/repl-lib.sh"

# ------------------------------------------------------ the transport alone
UNIT=${TEST_CONN_RDMA:-$ROOT/src/unit/test_conn_rdma}
if [ -x "$UNIT" ]; then
    section "src/unit/test_conn_rdma: the transport's outgoing connections"
    out=$(timeout 300 "$UNIT" 2>&1)
    st=$?
    if [ $st = 0 ] && grep -q "3 passed, 0 failed" <<<"$out"; then ok "$(tail -n 1 <<<"$out")"; else
        bad "test_conn_rdma (exit $st)"; echo "$out" | tail -n 20; fi
else
    echo "skip  $UNIT not built (make -C src unit/test_conn_rdma)"
fi

# ---------------------------------------------------------------- primary
section "primary on $A:$(rport 0), data"
start 0 "$A" --repl-rdma-snapshot no
c 0 DEBUG POPULATE 3000 key 64 > /dev/null
{
    for i in $(seq 1 200); do
        echo "RPUSH list e$i"
        echo "HSET hash f$i v$i"
        echo "SADD set m$i"
        echo "ZADD zset $i z$i"
        echo "XADD stream * n $i"
    done
    echo "SET big $(head -c 1000000 /dev/urandom | base64 -w0)" # the snapshot spans windows
    echo "EXPIRE key:1 1000"
} | c 0 > /dev/null
check "primary has the data" "$(c 0 DBSIZE)" 3006

# ------------------------------------------------- full sync from a file
section "replica 1: full sync over RDMA (disk)"
start 1 "$B" --rdma-replication yes --replicaof "$A" "$(rport 0)"
if wait_link 1; then ok "replica 1 linked over RDMA"; else bad "replica 1 link not up"; fi
check "CONFIG GET rdma-replication" "$(c 1 CONFIG GET rdma-replication | tail -n 1)" yes
check "replica 1: master_host/master_port are the RDMA listener" \
    "$(field 1 replication master_host):$(field 1 replication master_port)" "$A:$(rport 0)"
check "primary: the replica's connection is RDMA" "$(rdma_replicas 0)" 1
grep -q "Starting BGSAVE for SYNC with target: disk" "$(logof 0)" && ok "primary sent a file snapshot" ||
    bad "no disk BGSAVE in the primary's log"
wait_sync 0 1 || bad "replica 1 did not reach the primary's offset"
check "replica 1: DBSIZE" "$(c 1 DBSIZE)" 3006
check_digest "replica 1: DEBUG DIGEST equals the primary's" 1

# --------------------------------------------------------- command stream
section "command stream"
{
    for i in $(seq 1 300); do
        echo "INCR counter"
        echo "SET s$i v$i"
    done
    echo "LPOP list 5"
    echo "HDEL hash f1 f2"
    echo "DEL set"
    echo "SELECT 3"
    echo "SET indb3 yes"
} | c 0 > /dev/null
wait_sync 0 1 || bad "replica 1 did not catch up with the stream"
check "replica 1: streamed INCRs" "$(c 1 GET counter)" 300
check "WAIT: the replica's REPLCONF ACK arrives over RDMA" "$(c 0 WAIT 1 20000)" 1
check "replica 1: streamed write in db 3" "$(c 1 -n 3 GET indb3)" yes
check_digest "replica 1: DEBUG DIGEST after the stream" 1
check "replica 1 is read-only" "$(c 1 SET x y | cut -c1-8)" READONLY

# -------------------------------------------------------- partial resync
section "partial resync after CLIENT KILL TYPE master"
full=$(field 0 stats sync_full)
pok=$(field 0 stats sync_partial_ok)
c 1 CLIENT KILL TYPE master > /dev/null
c 0 SET after-kill 1 > /dev/null
sleep 1
if wait_link 1; then ok "replica 1 relinked"; else bad "replica 1 did not relink"; fi
wait_sync 0 1 || bad "replica 1 did not catch up after the partial resync"
check "primary: sync_partial_ok went up by one" "$(field 0 stats sync_partial_ok)" $((pok + 1))
check "primary: no new full sync" "$(field 0 stats sync_full)" "$full"
check "replica 1: write made while it was away" "$(c 1 GET after-kill)" 1
check_digest "replica 1: DEBUG DIGEST after the partial resync" 1
check "primary: the relinked replica is on RDMA" "$(rdma_replicas 0)" 1

# -------------------------------------------- diskless sync, loaded from the link
section "replica 2: diskless full sync over RDMA into a 64 KiB window, loaded from the link"
c 0 CONFIG SET repl-diskless-sync yes > /dev/null
start 2 - --rdma-replication yes --repl-diskless-load on-empty-db --rdma-rx-size 65536 \
    --replicaof "$A" "$(rport 0)"
if wait_link 2; then ok "replica 2 linked over RDMA"; else bad "replica 2 link not up"; fi
grep -q "Starting BGSAVE for SYNC with target: replicas sockets" "$(logof 0)" &&
    ok "primary streamed the snapshot (diskless)" || bad "no diskless BGSAVE in the primary's log"
check "primary: full syncs" "$(field 0 stats sync_full)" $((full + 1))
check "primary: both replicas on RDMA" "$(rdma_replicas 0)" 2
c 0 INCRBY counter 5 > /dev/null
synced 2
ls "$(sdir 2)" | grep -q 'temp-.*rdb' && bad "replica 2 wrote a temporary RDB" || ok "replica 2 wrote no file"

# ------------------------------------------------------- chained replica
section "replica 3: chained behind replica 1 (RDMA at $B:$(rport 1)), repl-diskless-load swapdb"
start 3 - --rdma-replication yes --repl-diskless-load swapdb --replicaof "$B" "$(rport 1)"
if wait_link 3; then ok "replica 3 linked to replica 1 over RDMA"; else bad "replica 3 link not up"; fi
check "replica 1: its replica is on RDMA" "$(rdma_replicas 1)" 1
for i in $(seq 1 50); do echo "RPUSH chain $i"; done | c 0 > /dev/null
wait_sync 0 1 && wait_sync 0 3 || bad "the chain did not reach the primary's offset"
check "replica 3: write from the top of the chain" "$(c 3 LLEN chain)" 50
check "replica 3: same replid as the primary" "$(field 3 replication master_replid)" \
    "$(field 0 replication master_replid)"
check_digest "replica 3: DEBUG DIGEST equals the primary's" 3
for n in 1 2 3; do
    # (The primary's periodic PING moves its offset: compare by waiting.)
    if wait_sync 0 $n; then ok "replica $n: offset reaches the primary's"; else
        bad "replica $n: offset $(field $n replication master_repl_offset), primary's $(field 0 replication master_repl_offset)"; fi
done

# ------------------------------------------------- primary without RDMA
section "replica 4: rdma-replication yes, primary without an RDMA listener"
# Server 5 listens for TCP only; its TCP port is asked for over RDMA.
start 5 -
start 4 - --rdma-replication yes --replicaof "$A" "$(tport 5)"
sleep 4
n=$(grep -c "# RDMA: cannot connect to $A:$(tport 5): connection refused (no RDMA listener" "$(logof 4)")
if [ "$n" -ge 2 ]; then ok "replica 4 logs why it cannot connect, and retries ($n attempts)"; else
    bad "replica 4: $n 'RDMA: cannot connect' lines in its log"; grep -i rdma "$(logof 4)" | tail -n 5; fi
grep "RDMA: cannot connect" "$(logof 4)" | head -n 1 | cut -d' ' -f4-
check "replica 4: link down" "$(field 4 replication master_link_status)" down
check "replica 4: still running" "$(c 4 PING)" PONG
check "no fall-back to TCP: the TCP-only primary has no replica" "$(field 5 replication connected_slaves)" 0
check "CONFIG SET rdma-replication no" "$(c 4 CONFIG SET rdma-replication no)" OK
c 4 REPLICAOF 127.0.0.1 "$(tport 5)" > /dev/null
if wait_link 4 60; then ok "replica 4 linked over TCP"; else bad "replica 4 did not link over TCP"; fi

# ------------------------------------------------------- primary killed
section "primary killed: its replica sees the link drop"
kill -9 "${PIDS[0]}"
wait "${PIDS[0]}" 2> /dev/null
down=0
for _ in $(seq 1 75); do
    [ "$(field 1 replication master_link_status)" = down ] && { down=1; break; }
    sleep 0.2
done
check "replica 1: link down within 15 s of the primary's death" "$down" 1
sleep 2
grep -q "# RDMA: cannot connect to $A:$(rport 0): connection refused" "$(logof 1)" &&
    ok "replica 1 retries over RDMA and logs why it fails" || bad "replica 1: no failed RDMA reconnect logged"
check "replica 3 keeps its link to replica 1" "$(field 3 replication master_link_status)" up

# ------------------------------------------------------------------ end
section "logs"
for n in 0 1 2 3 4 5; do
    if [ "$n" != 0 ] && ! kill -0 "${PIDS[$n]}" 2> /dev/null; then bad "server $n died"; fi
    if grep -qE 'Assertion|Segmentation|crashed|AddressSanitizer' "$(logof "$n")" "$DIR/s$n.out"; then
        bad "server $n log shows a crash"
        tail -n 30 "$(logof "$n")"
    fi
done
echo "---- replica 1 log: replication lines"
grep -E "PRIMARY|RDMA|resync|sync" "$(logof 1)" | cut -c1-160 | tail -n 15
echo "rdma replication tests: $passes passed, $fails failed"
exit $((fails > 125 ? 125 : fails))
