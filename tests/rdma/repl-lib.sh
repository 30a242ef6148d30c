# tests/rdma/repl-lib.sh - what the RDMA replication scripts share
# (sourced by tests/rdma/replication.sh and tests/rdma/repl-region.sh,
# inside utils/rdma-vm): servers started on numbered ports, commands and
# INFO fields over TCP on 127.0.0.1, waits for links and offsets, digests,
# and the ok/FAIL tally. Set BASE_DEFAULT before sourcing.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SERVER=${VALKEY_SERVER:-$ROOT/src/valkey-server}
A=${RDMA_SERVER_ADDR:?run this inside utils/rdma-vm (RDMA_SERVER_ADDR is not set)}
B=${RDMA_CLIENT_ADDR:-$A}
BASE=${RDMA_REPL_PORT:-$BASE_DEFAULT}
DIR=${RDMA_REPL_DIR:-$(mktemp -d /tmp/rdma-repl.XXXXXX)} # RDMA_REPL_DIR: keep the logs (with RDMA_VM_RW)
DATA=$DIR # where the servers' directories are (see data_on_disk)
fails=0 passes=0 PIDS=()
T0=$(date +%s)

ok() { printf 'ok    %s\n' "$*"; passes=$((passes + 1)); }
bad() { printf 'FAIL  %s\n' "$*"; fails=$((fails + 1)); }
section() { printf -- '-- %s (at %d s)\n' "$*" $(($(date +%s) - T0)); }
check() { # check NAME GOT WANT
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', want '$3'"; fi
}

cleanup() {
    { # reaped here, so that bash prints no "Killed" line for each
        for p in "${PIDS[@]}"; do kill -9 "$p"; done
        wait
    } 2> /dev/null
    if [ "$DATA" != "$DIR" ]; then
        sleep 0.5 # the killed servers' files close
        umount "$DATA" 2> /dev/null && losetup -d "$DATA_DEV" 2> /dev/null
    fi
}
trap cleanup EXIT

[ -x "$SERVER" ] || { echo "missing $SERVER (make -C src)"; exit 1; }
command -v redis-cli > /dev/null || { echo "missing redis-cli (deps/install)"; exit 1; }

# Server N: TCP port BASE+2N on 127.0.0.1, RDMA port BASE+2N+1.
tport() { echo $((BASE + 2 * $1)); }
rport() { echo $((BASE + 2 * $1 + 1)); }
c() { # c N command...: a command to server N over TCP
    local n=$1
    shift
    timeout 60 redis-cli -h 127.0.0.1 -p "$(tport "$n")" "$@"
}
field() { # field N SECTION NAME: one INFO field of server N
    c "$1" INFO "$2" | tr -d '\r' | sed -n "s/^$3://p"
}
logof() { echo "$DIR/s$1.log"; }
sdir() { echo "$DATA/s$1"; } # server N's --dir

# data_on_disk: from now on, servers' directories are on an ext4 file
# system (a loop device over a sparse file; utils/rdma-vm loads loop and
# ext4), so that /proc/PID/io write_bytes counts every byte a server writes
# to a file there. The VM's /tmp is a tmpfs, whose writes it never counts.
# Logs stay in $DIR: they are not what such a check looks for.
data_on_disk() {
    truncate -s 512M "$DIR/disk.img" &&
        DATA_DEV=$(losetup -f --show "$DIR/disk.img") &&
        mkfs.ext4 -q -F "$DATA_DEV" &&
        mkdir -p "$DIR/disk" &&
        mount -t ext4 "$DATA_DEV" "$DIR/disk" || {
        bad "cannot mount an ext4 file system for the servers' directories"
        exit 1
    }
    DATA=$DIR/disk
}

# start N RDMA-ADDR|- [options...]: starts server N (RDMA listener on
# RDMA-ADDR, none with -) and waits until it answers PING.
start() {
    local n=$1 addr=$2
    shift 2
    local rdma=(--rdma-port 0)
    [ "$addr" != - ] && rdma=(--rdma-port "$(rport "$n")" --rdma-bind "$addr")
    mkdir -p "$(sdir "$n")"
    "$SERVER" --port "$(tport "$n")" --bind 127.0.0.1 "${rdma[@]}" --dir "$(sdir "$n")" \
        --logfile "$(logof "$n")" --loglevel verbose --protected-mode no --save "" --enable-debug-command yes \
        --repl-diskless-sync no --repl-diskless-sync-delay 0 --daemonize no "$@" > "$DIR/s$n.out" 2>&1 &
    PIDS[$n]=$!
    for _ in $(seq 1 300); do
        [ "$(c "$n" PING 2>/dev/null)" = PONG ] && return 0
        kill -0 "${PIDS[$n]}" 2>/dev/null || break
        sleep 0.2
    done
    bad "server $n did not start"
    tail -n 20 "$(logof "$n")" "$DIR/s$n.out"
    exit 1
}

# wait_link N [SECS]: waits until replica N's link is up; 0 if it is.
wait_link() {
    for _ in $(seq 1 $((${2:-120} * 5))); do
        [ "$(field "$1" replication master_link_status)" = up ] && return 0
        sleep 0.2
    done
    return 1
}

# wait_sync PRIMARY REPLICA: waits until the replica's offset reached the
# primary's; 0 if it did.
wait_sync() {
    local want
    for _ in $(seq 1 600); do
        want=$(field "$1" replication master_repl_offset)
        [ -n "$want" ] && [ "$(field "$2" replication master_repl_offset)" = "$want" ] && return 0
        sleep 0.2
    done
    return 1
}

digest() { c "$1" DEBUG DIGEST; }
check_digest() { # check_digest NAME N: server N's digest equals the primary's (and is one)
    local d
    d=$(digest "$2")
    if [[ ! $d =~ ^[0-9a-f]{40}$ ]]; then bad "$1: DEBUG DIGEST answered '$d'"; return; fi
    check "$1" "$d" "$(digest 0)"
}

# synced N...: each replica N reaches the primary's (server 0's) offset and
# then has its DEBUG DIGEST.
synced() {
    local n
    for n in "$@"; do
        wait_sync 0 "$n" || bad "replica $n did not reach the primary's offset"
        check_digest "replica $n: DEBUG DIGEST equals the primary's" "$n"
    done
}

# The primary's replicas that are on RDMA: TCP listens on 127.0.0.1 only,
# so a replica with another address came over the RDMA listener.
rdma_replicas() { c "$1" CLIENT LIST TYPE replica | grep -c " addr=\($A\|$B\):"; }

