#!/bin/bash
# tests/rdma/tools.sh - end-to-end tests of the client tools over RDMA
# (valkey-cli --rdma and valkey-benchmark --rdma, i.e. src/cli_conn_rdma.c)
# against our server on real (Soft-RoCE) RDMA. Runs inside the test VM:
#
#   make -C src && utils/rdma-vm tests/rdma/tools.sh
#
# One server listens for RDMA on $RDMA_SERVER_ADDR and for TCP on
# 127.0.0.1; the tools talk RDMA, and every result is checked afterwards
# over TCP (key contents, command statistics, error counters). Each check
# prints "ok" or "FAIL"; the last line is "N passed, N failed" and the exit
# status is non-zero when anything failed.
#
# Environment: VALKEY_SERVER, VALKEY_CLI, VALKEY_BENCHMARK (binaries; copy
# them somewhere private if others rebuild the tree meanwhile),
# RDMA_TOOLS_PORT (RDMA port, default 6420; TCP uses the next one),
# RDMA_TOOLS_N (requests per benchmark test, default 20000).
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SERVER=${VALKEY_SERVER:-$ROOT/src/valkey-server}
CLI=${VALKEY_CLI:-$ROOT/src/valkey-cli}
BENCH=${VALKEY_BENCHMARK:-$ROOT/src/valkey-benchmark}
A=${RDMA_SERVER_ADDR:?run this inside utils/rdma-vm (RDMA_SERVER_ADDR is not set)}
PORT=${RDMA_TOOLS_PORT:-6420}
TCPPORT=$((PORT + 1))
N=${RDMA_TOOLS_N:-20000}
DIR=$(mktemp -d /tmp/rdma-tools.XXXXXX)
LOG=$DIR/server.log
fails=0 passes=0 SPID=""
T0=$(date +%s)

ok() { printf 'ok    %s\n' "$*"; passes=$((passes + 1)); }
bad() { printf 'FAIL  %s\n' "$*"; fails=$((fails + 1)); }
section() { printf -- '-- %s (at %d s)\n' "$*" $(($(date +%s) - T0)); }
check() { # check NAME GOT WANT
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', want '$3'"; fi
}

# Every tool call is bounded: a hang is a failure, not a stuck CI job.
rcli() { timeout 120 "$CLI" --rdma -h "$A" -p "$PORT" "$@"; }
tcli() { timeout 60 "$CLI" -h 127.0.0.1 -p "$TCPPORT" "$@"; }
bench() { timeout 600 "$BENCH" --rdma -h "$A" -p "$PORT" "$@"; }
stat() { # stat FIELD: a field of INFO (e.g. cmdstat_set, total_error_replies)
    tcli INFO all | tr -d '\r' | sed -n "s/^$1:\\(calls=\\)\\{0,1\\}\\([0-9]*\\).*/\\2/p"
}

cleanup() {
    if [ -n "$SPID" ] && kill -0 "$SPID" 2>/dev/null; then kill -9 "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; fi
    rm -rf "$DIR"
}
trap cleanup EXIT

for f in "$SERVER" "$CLI" "$BENCH"; do
    [ -x "$f" ] || { echo "missing $f (make -C src)"; exit 1; }
done

# ------------------------------------------------------------------ server
"$SERVER" --port "$TCPPORT" --bind 127.0.0.1 --rdma-port "$PORT" --rdma-bind "$A" \
    --dir "$DIR" --logfile "$LOG" --protected-mode no --save "" --daemonize no > "$DIR/stdout" 2>&1 &
SPID=$!
up=0
for _ in $(seq 1 300); do
    if [ "$(tcli PING 2>/dev/null)" = PONG ]; then up=1; break; fi
    kill -0 $SPID 2>/dev/null || break
    sleep 0.2
done
if [ $up = 0 ]; then
    bad "server did not start"
    tail -n 30 "$LOG" "$DIR/stdout"
    echo "$passes passed, $fails failed"
    exit 1
fi

# ---------------------------------------------------------------- valkey-cli
section "valkey-cli --rdma"
check "cli PING" "$(rcli PING)" PONG
check "cli SET" "$(rcli SET foo bar)" OK
check "cli GET" "$(rcli GET foo)" bar
check "cli GET is seen over TCP" "$(tcli GET foo)" bar
check "cli GET of a missing key: as over TCP" "$(rcli GET nosuchkey | od -c)" "$(tcli GET nosuchkey | od -c)"
check "cli INCR returns an integer" "$(rcli INCR cnt)" 1
check "cli --no-raw INCR" "$(rcli --no-raw INCR cnt)" "(integer) 2"
check "cli -n 2 selects the database" "$(rcli -n 2 SET indb2 yes) $(tcli -n 2 GET indb2)" "OK yes"
check "cli --no-raw formats like a terminal" "$(rcli --no-raw GET foo)" '"bar"'
rcli HSET h f1 v1 f2 v2 > /dev/null
check "cli -3 (HELLO 3) HGETALL: as over TCP" "$(rcli -3 --no-raw HGETALL h)" "$(tcli -3 --no-raw HGETALL h)"

# Values larger than the RDMA window (1 MiB): 3 MiB each way.
head -c 2400000 /dev/urandom | base64 -w 0 | head -c 3145728 > "$DIR/big"
check "cli -x SET of a 3 MiB value" "$(rcli -x SET big < "$DIR/big")" OK
check "STRLEN over TCP of the 3 MiB value" "$(tcli STRLEN big)" 3145728
rcli GET big > "$DIR/big.out"
printf '\n' >> "$DIR/big"
if cmp -s "$DIR/big" "$DIR/big.out"; then
    ok "cli GET of the 3 MiB value is byte-identical"
else
    bad "cli GET of the 3 MiB value differs ($(wc -c < "$DIR/big.out") bytes)"
fi

# -r repeat on one connection, and -i with keepalives arriving meanwhile.
out=$(rcli -r 500 INCR rep)
check "cli -r 500 INCR: 500 replies" "$(wc -l <<<"$out")" 500
check "cli -r 500 INCR: last is 500" "$(tail -n 1 <<<"$out")" 500
out=$(rcli -r 3 -i 3.5 PING | tr '\n' ' ')
check "cli -r 3 -i 3.5 (server keepalives in between)" "$out" "PONG PONG PONG "

# Commands from stdin, one per line.
out=$(printf 'SET s1 v1\nGET s1\nDEL s1\nGET s1\n' | rcli | od -c)
check "cli commands from stdin: as over TCP" "$out" "$(printf 'SET s1 v1\nGET s1\nDEL s1\nGET s1\n' | tcli | od -c)"

# --pipe: 10000 commands of raw protocol (about 1.5 MiB: more than one RDMA
# window, so the writer waits for the server's re-advertisement), then the
# data is checked.
awk 'BEGIN { pad = sprintf("%100s", ""); gsub(/ /, "x", pad);
    for (i = 0; i < 10000; i++) {
    k = "pk:" i; v = "value-" i "-" pad;
    printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(v), v } }' > "$DIR/pipe"
before=$(tcli DBSIZE)
out=$(rcli --pipe < "$DIR/pipe")
prc=$?
check "cli --pipe exit status" "$prc" 0
check "cli --pipe counts" "$(tail -n 1 <<<"$out")" "errors: 0, replies: 10000"
check "cli --pipe stream is larger than a window" "$(($(wc -c < "$DIR/pipe") > 1048576))" 1
check "cli --pipe data: GET pk:9999 over TCP" "$(tcli GET pk:9999 | cut -c1-12)" value-9999-x
check "cli --pipe data: 10000 new keys" "$(($(tcli DBSIZE) - before))" 10000
printf 'SET a 1\r\nNOSUCHCMD\r\nSET b 2\r\n' > "$DIR/pipe.err"
out=$(rcli --pipe < "$DIR/pipe.err" 2>&1)
prc=$?
check "cli --pipe with an error reply exits 1" "$prc" 1
check "cli --pipe counts the error" "$(tail -n 1 <<<"$out")" "errors: 1, replies: 3"

# Error exits.
out=$(timeout 60 "$CLI" --rdma -h "$A" -p $((PORT + 7)) PING 2>&1)
prc=$?
check "cli to a port nobody listens on exits 1" "$prc" 1
check "cli reports the refused connection" "$out" "Could not connect to Valkey at $A:$((PORT + 7)): Connection refused"
out=$(rcli NOSUCHCOMMAND x 2>&1)
prc=$?
check "cli error reply without -e exits 0" "$prc" 0
check "cli prints the error reply" "${out:0:24}" "ERR unknown command 'NOS"
rcli -e NOSUCHCOMMAND x > /dev/null 2>&1
check "cli error reply with -e exits 1" "$?" 1
out=$(timeout 60 "$CLI" --rdma -h "$A" -p "$PORT" -a wrongpass PING 2>&1 | tail -n 1)
check "cli -a with no password configured still runs the command" "$out" PONG

# -------------------------------------------------------- valkey-benchmark
section "valkey-benchmark --rdma"
# bench_run NAME FORMAT ARGS...: runs -t ping_mbulk,set,get with -n $BN
# -c 20 and checks the output, that the server counted exactly BN of each
# command, and that there were no error replies.
BN=$N
bench_check() { # bench_check NAME OUTFILE FORMAT(q|csv)
    local name=$1 out=$2 fmt=$3 lines bad_rps
    if [ "$fmt" = q ]; then
        lines=$(grep -cE '^(PING_MBULK|SET|GET): [0-9.]+ requests per second, p50=[0-9.]+ msec$' "$out")
        bad_rps=$(awk -F': ' '/requests per second/ { split($2, a, " "); if (a[1] + 0 <= 0) print }' "$out")
    else
        check "$name: CSV header" "$(head -n 1 "$out")" \
            '"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"'
        lines=$(grep -cE '^"(PING_MBULK|SET|GET)",("[0-9.]+",){6}"[0-9.]+"$' "$out")
        bad_rps=$(tail -n +2 "$out" | tr -d '"' | awk -F, '$2 + 0 <= 0 || $5 + 0 > $7 + 0 { print }')
    fi
    check "$name: three results parsed" "$lines" 3
    check "$name: rates positive, p50 <= p99" "$bad_rps" ""
    check "$name: server saw $BN PING, SET, GET" "$(stat cmdstat_ping) $(stat cmdstat_set) $(stat cmdstat_get)" "$BN $BN $BN"
    check "$name: no error replies" "$(stat total_error_replies)" 0
    if grep -qi error "$out"; then bad "$name: the output mentions an error: $(grep -i -m 1 error "$out")"; fi
}

bench_run() { # bench_run NAME FORMAT ARGS...
    local name=$1 fmt=$2 t rc
    shift 2
    tcli CONFIG RESETSTAT > /dev/null
    t=$(date +%s.%N)
    bench -t ping_mbulk,set,get -n "$BN" -c 20 "$@" > "$DIR/bench.out" 2> "$DIR/bench.err"
    rc=$?
    check "$name: exit status ($(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s)" "$rc" 0
    [ -s "$DIR/bench.err" ] && bad "$name: stderr: $(head -n 3 "$DIR/bench.err")"
    bench_check "$name" "$DIR/bench.out" "$fmt"
    sed 's/^/      /' "$DIR/bench.out"
}

# At -P 1 the emulated VM manages ~500-700 requests/s: those runs send a
# quarter (one thread) and an eighth (two threads: many small wake-ups per
# thread) of the requests.
tcli FLUSHALL > /dev/null
BN=$((N / 4))
bench_run "benchmark -P 1 -q (-n $BN)" q -P 1 -q
check "benchmark SET stored key:__rand_int__" "$(tcli STRLEN key:__rand_int__)" 3
BN=$N
bench_run "benchmark -P 16 --csv" csv -P 16 --csv
BN=$((N / 8))
bench_run "benchmark --threads 2 -P 1 --csv (-n $BN)" csv --threads 2 -P 1 --csv
BN=$N
tcli FLUSHALL > /dev/null
bench_run "benchmark --threads 2 -P 16 -r 1000 -d 100 -q" q --threads 2 -P 16 -r 1000 -d 100 -q
keys=$(tcli DBSIZE)
if [ "$keys" -gt 900 ] 2>/dev/null && [ "$keys" -le 1000 ]; then
    ok "benchmark -r 1000: $keys keys exist afterwards"
else
    bad "benchmark -r 1000: DBSIZE is '$keys', want 901..1000"
fi
k=$(tcli RANDOMKEY)
check "benchmark -d 100: a random key holds 100 bytes" "$(tcli STRLEN "$k")" 100

# A big value through the benchmark (each request spans several windows).
tcli CONFIG RESETSTAT > /dev/null
out=$(bench -t set,get -n 200 -c 4 -P 4 -d 1500000 -q 2>&1)
check "benchmark -d 1500000 (values > window)" "$(grep -c 'requests per second' <<<"$out")" 2
check "benchmark -d 1500000: server saw 200 SET, 200 GET" "$(stat cmdstat_set) $(stat cmdstat_get)" "200 200"
check "benchmark -d 1500000: stored value" "$(tcli STRLEN key:__rand_int__)" 1500000

# The server is left with no RDMA clients once the tools are gone.
others() { tcli CLIENT LIST | tr -d '\r' | grep -v 'cmd=client|list' | grep -c .; }
for _ in $(seq 1 50); do [ "$(others)" = 0 ] && break; sleep 0.2; done
if [ "$(others)" = 0 ]; then
    ok "no client connections left"
else
    bad "client connections left: $(tcli CLIENT LIST | grep -v 'cmd=client|list' | head -n 3)"
fi
if grep -q 'RDMA:.*\(error\|fail\)' "$LOG"; then
    bad "server log has RDMA errors: $(grep -m 3 'RDMA:.*\(error\|fail\)' "$LOG")"
else
    ok "no RDMA errors in the server log"
fi
kill -0 $SPID 2>/dev/null && ok "server still running" || bad "server died"

echo "rdma tools: $passes passed, $fails failed ($(($(date +%s) - T0)) s)"
echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
