#!/bin/bash
# tests/rdma/run.sh - end-to-end tests of the server's RDMA transport over
# real (Soft-RoCE) RDMA. Runs inside the test VM:
#
#   make -C src && utils/rdma-vm tests/rdma/run.sh
#
# It starts src/valkey-server with an RDMA listener on $RDMA_SERVER_ADDR
# (plus a TCP one on 127.0.0.1 for comparisons) and drives it with the RDMA
# test client (src/rdma-test-client, built from tests/rdma/rdma-cli.c)
# connecting from $RDMA_CLIENT_ADDR, so the traffic crosses the veth pair.
# Every check prints "ok" or "FAIL"; the exit status is the number of
# failures (0 = all passed).
#
# Environment: VALKEY_SERVER, RDMA_CLI (binaries; copy them somewhere
# private if others rebuild the tree meanwhile), RDMA_TEST_PORT (default
# 6390), RDMA_TEST_BIG (bytes of the large-value timing test, default 64 MiB;
# 0 skips it).
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SERVER=${VALKEY_SERVER:-$ROOT/src/valkey-server}
CLI=${RDMA_CLI:-$ROOT/src/rdma-test-client}
A=${RDMA_SERVER_ADDR:?run this inside utils/rdma-vm (RDMA_SERVER_ADDR is not set)}
B=${RDMA_CLIENT_ADDR:-}
PORT=${RDMA_TEST_PORT:-6390}
TCPPORT=$((PORT + 1))
BIG=${RDMA_TEST_BIG:-67108864}
DIR=$(mktemp -d /tmp/rdma-test.XXXXXX)
LOG=$DIR/server.log
fails=0 passes=0 SPID=""

ok() { printf 'ok    %s\n' "$*"; passes=$((passes + 1)); }
bad() { printf 'FAIL  %s\n' "$*"; fails=$((fails + 1)); }
check() { # check NAME GOT WANT
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', want '$3'"; fi
}
secs() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

SRCOPT=()
[ -n "$B" ] && SRCOPT=(-I "$B")
CPORT=$PORT # the RDMA port cli() connects to
cli() { "$CLI" -h "$A" -p "$CPORT" "${SRCOPT[@]}" -t 120 "$@"; }
# For background clients: exec, so that $! is the client itself (kill -9).
clibg() { exec "$CLI" -h "$A" -p "$CPORT" "${SRCOPT[@]}" -t 120 "$@"; }
tcli() { redis-cli -h 127.0.0.1 -p "$TCPPORT" "$@"; }
nclients() { cli CLIENT LIST | grep -c '^id='; }

cleanup() {
    if [ -n "$SPID" ] && kill -0 "$SPID" 2>/dev/null; then kill -9 "$SPID" 2>/dev/null; fi
    jobs -p | xargs -r kill -9 2>/dev/null
}
trap cleanup EXIT

for f in "$SERVER" "$CLI"; do
    [ -x "$f" ] || { echo "missing $f (make -C src)"; exit 1; }
done

# ------------------------------------------------------------------ server
"$SERVER" --port "$TCPPORT" --bind 127.0.0.1 --rdma-port "$PORT" --rdma-bind "$A" \
    --dir "$DIR" --logfile "$LOG" --loglevel verbose --protected-mode no --save "" \
    --daemonize no > "$DIR/stdout" 2>&1 &
SPID=$!
t=$(date +%s.%N)
up=0
for _ in $(seq 1 300); do
    if [ "$(cli -t 5 PING 2>/dev/null)" = PONG ]; then up=1; break; fi
    kill -0 $SPID 2>/dev/null || break
    sleep 0.2
done
if [ $up = 0 ]; then
    bad "server did not answer PING over RDMA"
    echo "---- server log"; tail -n 30 "$LOG" "$DIR/stdout"
    exit 1
fi
ok "server answers PING over RDMA ($(secs $t) s to start)"

# ------------------------------------------------------------------ basics
check "PING" "$(cli PING)" PONG
check "SET" "$(cli SET foo bar)" OK
check "GET" "$(cli GET foo)" bar
check "GET over TCP sees the RDMA write" "$(tcli GET foo)" bar
check "GET missing key" "$(cli GET nosuchkey)" "(nil)"
check "error reply" "$(cli NOSUCHCOMMAND x | cut -c1-19)" "(error) ERR unknown"
check "CONFIG GET rdma-port" "$(cli CONFIG GET rdma-port | tail -n 1)" "$PORT"
check "CONFIG GET rdma-rx-size" "$(cli CONFIG GET rdma-rx-size | tail -n 1)" 1048576
info=$(cli INFO server | tr -d '\r')
if grep -q "^listener[0-9]*:name=rdma,bind=$A,port=$PORT\$" <<<"$info"; then
    ok "INFO lists the rdma listener"
else
    bad "INFO has no rdma listener line: $(grep listener <<<"$info")"
fi
check "GetServerFeature answered, select echoed" "$(cli --feature 5 PING | tr '\n' ' ')" "feature select=5 PONG "

# ------------------------------------------ protected mode and ACL users
# An RDMA peer is never loopback: with protected-mode yes and no password
# for the default user, an RDMA client gets Valkey's DENIED, as a remote
# TCP or TLS client would (the check is the accept path's, for every
# transport). ACL users then work over RDMA like over TCP.
tcli CONFIG SET protected-mode yes > /dev/null
out=$(cli PING 2>&1 | head -n 1 | cut -c1-74)
check "protected mode: an RDMA client is DENIED" "$out" "(error) DENIED Running in protected mode because protected mode is enabled"
tcli CONFIG SET protected-mode no > /dev/null
check "protected mode off: PING over RDMA" "$(cli PING)" PONG
tcli ACL SETUSER rdmauser on '>rpw' '~r:*' +get +set +acl\|whoami > /dev/null
out=$(printf 'AUTH rdmauser rpw\nACL WHOAMI\nSET r:1 v\nSET other v\nGET r:1\n' | cli 2>&1 | tr '\n' '|')
check "ACL user over RDMA: AUTH, WHOAMI, allowed and refused keys" "$out" \
    "OK|rdmauser|OK|(error) NOPERM No permissions to access a key|v|"
check "ACL user over RDMA: wrong password" "$(cli AUTH rdmauser nope 2>&1 | cut -c1-17)" "(error) WRONGPASS"
tcli ACL DELUSER rdmauser > /dev/null

# ------------------------------------------------------- values > window
out=$(cli --bigset big3 3145728) && out2=$(cli --bigget big3 3145728)
check "SET 3 MiB value (3 windows)" "${out%% *} ${out2%% *}" "OK OK"
check "STRLEN over TCP of the 3 MiB value" "$(tcli STRLEN big3)" 3145728
check "SET exactly one window" "$(cli --bigset big1 1048576 | cut -d' ' -f1)" OK
check "GET exactly one window" "$(cli --bigget big1 1048576 | cut -d' ' -f1)" OK
# A client with a small RX window receives a reply spanning many windows.
check "GET 3 MiB into a 64 KiB client window" "$(cli --rx-size 65536 --bigget big3 3145728 | cut -d' ' -f1)" OK
# A reply followed by the server's close (QUIT) arrives whole: the close
# waits for the posted writes, which an RDMA disconnect would discard (the
# last 1 MiB write of the reply was often lost before it did).
whole=0
for _ in $(seq 1 10); do
    out=$(printf 'GET big3\nQUIT\n' | cli 2>&1)
    [ "${#out}" = $((3145728 + 3)) ] && [ "${out: -3}" = $'\nOK' ] && whole=$((whole + 1))
done
check "GET 3 MiB then QUIT, 10 times: the reply and +OK arrive before the close" "$whole" 10

# A second server with the smallest RX window (rdma-rx-size 64 KiB), RDMA
# only (port 0), takes and returns a 1 MiB value in 16+ windows each way.
SP=$((PORT + 3))
"$SERVER" --port 0 --rdma-port $SP --rdma-bind "$A" --rdma-rx-size 65536 --dir "$DIR" \
    --logfile "$DIR/small.log" --protected-mode no --save "" > /dev/null 2>&1 &
spid2=$!
CPORT=$SP
for _ in $(seq 1 150); do [ "$(cli -t 5 PING 2>/dev/null)" = PONG ] && break; sleep 0.2; done
check "rdma-rx-size 64 KiB server: CONFIG GET" "$(cli CONFIG GET rdma-rx-size | tail -n 1)" 65536
check "rdma-rx-size 64 KiB server: SET 1 MiB" "$(cli --bigset v 1048576 | cut -d' ' -f1)" OK
check "rdma-rx-size 64 KiB server: GET 1 MiB" "$(cli --bigget v 1048576 | cut -d' ' -f1)" OK
out=$(for i in $(seq 1 3000); do echo "INCR n"; done | cli -q)
check "rdma-rx-size 64 KiB server: 3000 pipelined INCR (~80 KiB)" "$out" 3000
CPORT=$PORT
kill $spid2; wait $spid2 2>/dev/null

# ------------------------------------------------------------- pipelining
out=$(for i in $(seq 1 1000); do echo "INCR pipe"; done | cli -q)
check "1000 pipelined INCR" "$out" 1000
out=$(for i in $(seq 1 500); do echo "SET k$i v$i"; echo "GET k$i"; done | cli | awk 'NR % 2 == 0' | tail -n 1)
check "1000 pipelined SET/GET, last reply" "$out" v500
check "pipelined with -r: 1000 PINGs" "$(cli -q -r 1000 PING)" PONG

# ----------------------------------------------------------- many clients
t=$(date +%s.%N)
pids=()
for i in $(seq 1 20); do
    clibg -q -r 200 INCR many > "$DIR/many.$i" 2>&1 &
    pids+=($!)
done
rcs=0
for p in "${pids[@]}"; do wait "$p" || rcs=$((rcs + 1)); done
check "20 concurrent clients exit cleanly" "$rcs" 0
check "20 clients x 200 INCR ($(secs $t) s)" "$(cli GET many)" 4000

# ------------------------------------------- BGSAVE with RDMA clients open
# The BGSAVE child inherits the RDMA connections' descriptors, but not their
# registered memory (ibv_fork_init marks it do-not-fork). It must never touch
# them: clients connected before the fork keep working during and after it,
# new ones connect meanwhile, and the child exits with success.
seq 1 2000 | awk '{ printf "SET bg%d v%d\n", $1, $1 }' | cli -q > /dev/null
check "rdb-key-save-delay makes the save last" "$(tcli CONFIG SET rdb-key-save-delay 500)" OK
sp=()
for i in 1 2 3; do clibg --hold 600 CLIENT SETNAME "saver$i" > "$DIR/saver.$i" 2>&1 & sp+=($!); done
for _ in $(seq 1 100); do [ "$(cat "$DIR"/saver.* | grep -c OK)" = 3 ] && break; sleep 0.1; done
check "BGSAVE over RDMA" "$(cli BGSAVE)" "Background saving started"
pids=()
for i in $(seq 1 10); do clibg -q -r 100 INCR during > "$DIR/during.$i" 2>&1 & pids+=($!); done
rcs=0
for p in "${pids[@]}"; do wait "$p" || rcs=$((rcs + 1)); done
inprog=$(tcli INFO persistence | tr -d '\r' | awk -F: '$1 == "rdb_bgsave_in_progress" { print $2 }')
check "10 RDMA clients x 100 INCR while the child runs (in progress: $inprog)" "$rcs $(cli GET during)" "0 1000"
for _ in $(seq 1 300); do
    tcli INFO persistence | grep -q '^rdb_bgsave_in_progress:0' && break
    sleep 0.1
done
check "the child saved with success" "$(tcli INFO persistence | tr -d '\r' | grep '^rdb_last_bgsave_status')" "rdb_last_bgsave_status:ok"
[ -s "$DIR/dump.rdb" ] && ok "dump.rdb written ($(stat -c %s "$DIR/dump.rdb") bytes)" || bad "no dump.rdb after BGSAVE"
check "clients connected before the fork are still there" "$(cli CLIENT LIST | grep -c 'name=saver')" 3
check "and the server still serves RDMA" "$(cli PING)" PONG
kill -9 "${sp[@]}" 2>/dev/null; wait "${sp[@]}" 2>/dev/null
tcli CONFIG SET rdb-key-save-delay 0 > /dev/null
grep -q 'Background saving terminated with success' "$LOG" && ok "log: Background saving terminated with success" || bad "no 'Background saving terminated with success' in the log"

# ------------------------------------------------------ idle + keepalives
out=$(cli --idle 7 PING | tr '\n' ' ')
ka=$(sed -n 's/keepalives: \([0-9]*\).*/\1/p' <<<"$out")
if [ "${ka:-0}" -ge 1 ] && grep -q PONG <<<"$out"; then
    ok "idle 7 s: $ka keepalives received, then PING works"
else
    bad "idle 7 s: '$out'"
fi

# ------------------------------------------------ CLIENT LIST / CLIENT KILL
clibg --hold 60 CLIENT SETNAME victim > "$DIR/victim.out" 2>&1 &
vpid=$!
for _ in $(seq 1 100); do grep -q OK "$DIR/victim.out" && break; sleep 0.1; done
list=$(cli CLIENT LIST)
line=$(grep 'name=victim' <<<"$list")
if [ -n "$line" ]; then ok "CLIENT LIST shows the RDMA connection: ${line:0:100}"; else bad "CLIENT LIST: $list"; fi
if [ -n "$B" ]; then
    grep -q "addr=$B:" <<<"$line" && ok "CLIENT LIST addr is the client's address $B" || bad "CLIENT LIST addr: $line"
fi
grep -q "laddr=$A:$PORT" <<<"$line" && ok "CLIENT LIST laddr is $A:$PORT" || bad "CLIENT LIST laddr: $line"
id=$(sed -n 's/^id=\([0-9]*\) .*/\1/p' <<<"$line")
check "CLIENT KILL ID of the RDMA client" "$(cli CLIENT KILL ID "${id:-0}")" 1
wait $vpid
vrc=$?
check "killed client sees the server close (exit 3)" "$vrc $(tail -n 1 "$DIR/victim.out")" "3 closed by server"

# ------------------------------------------- re-listening at runtime
# CONFIG SET rdma-port moves the listener; a connection accepted through
# the old one keeps working (its CM events still arrive) until it closes.
P2=$((PORT + 2))
clibg --hold 60 CLIENT SETNAME old > "$DIR/old.out" 2>&1 &
opid=$!
for _ in $(seq 1 100); do grep -q OK "$DIR/old.out" && break; sleep 0.1; done
check "CONFIG SET rdma-port at runtime" "$(tcli CONFIG SET rdma-port $P2)" OK
CPORT=$P2
check "PING on the new RDMA port" "$(cli PING)" PONG
CPORT=$PORT
if cli -t 15 PING > /dev/null 2>&1; then bad "the old RDMA port still accepts"; else ok "the old RDMA port is closed"; fi
CPORT=$P2
id=$(cli CLIENT LIST | sed -n 's/^id=\([0-9]*\) .*name=old .*/\1/p')
check "CLIENT KILL a client of the closed listener" "$(cli CLIENT KILL ID "${id:-0}")" 1
wait $opid
check "it sees the close (exit 3)" "$?" 3
check "CONFIG SET rdma-bind '* -::*'" "$(tcli CONFIG SET rdma-bind '* -::*')" OK
info=$(cli INFO server | tr -d '\r')
grep -q "^listener[0-9]*:name=rdma,bind=\*,bind=-::\*,port=$P2\$" <<<"$info" &&
    ok "INFO shows the wildcard rdma listener" || bad "INFO: $(grep listener <<<"$info")"
check "PING through the wildcard listener" "$(cli PING)" PONG
check "CONFIG SET back to rdma-bind $A" "$(tcli CONFIG SET rdma-bind "$A")" OK
check "CONFIG SET back to rdma-port $PORT" "$(tcli CONFIG SET rdma-port $PORT)" OK
CPORT=$PORT
check "PING on the original port again" "$(cli PING)" PONG

# ------------------------------------------------ clients that go away
base=$(nclients)
check "disconnect mid-command" "$(cli --partial)" "sent partial command"
clibg --hold 600 PING > /dev/null 2>&1 &
kpid=$!
sleep 2
kill -9 $kpid 2>/dev/null; wait $kpid 2>/dev/null
n=0
for _ in $(seq 1 100); do n=$(nclients); [ "$n" -le "$base" ] && break; sleep 0.2; done
check "half-sent and kill -9'd clients are cleaned up" "$n" "$base"
# A client that vanishes in the middle of a multi-window reply.
check "SET a 16 MiB value" "$(cli --bigset big16 16777216 | cut -d' ' -f1)" OK
clibg --rx-size 65536 --bigget big16 16777216 > /dev/null 2>&1 &
gpid=$!
sleep 1
kill -9 $gpid 2>/dev/null; wait $gpid 2>/dev/null
n=0
for _ in $(seq 1 100); do n=$(nclients); [ "$n" -le "$base" ] && break; sleep 0.2; done
check "client killed during a 16 MiB reply is cleaned up" "$n" "$base"
check "server still serves after those" "$(cli GET foo)" bar

# The loop must sleep while connections are idle (no busy pending list).
clibg --idle 6 PING > /dev/null 2>&1 &
ipid=$!
sleep 1.5
cpu() { awk '{ print $14 + $15 }' /proc/$SPID/stat; }
c0=$(cpu); sleep 3; c1=$(cpu)
wait $ipid
hz=$(getconf CLK_TCK)
if [ $((c1 - c0)) -lt $((hz * 3 / 4)) ]; then
    ok "server idle with an RDMA client connected: $((c1 - c0)) ticks of CPU in 3 s"
else
    bad "server busy while idle: $((c1 - c0)) of $((hz * 3)) ticks in 3 s"
fi
check "no stray key from the half command" "$(cli EXISTS key)" 0

# ------------------------------------- Lua debugger: SYNC sessions
# SCRIPT DEBUG SYNC runs the session in the server itself, which serves
# nobody else while it waits (connWait) for the client's next debugger
# command. A client that goes away must end that wait, or the whole server
# hangs. Killed here: its kernel sends the disconnect, which arrives as a CM
# event, not on the connection's completion channel. (Cut off by the wire,
# where nothing arrives at all, at the end of this file.) Either way the
# script runs on to its end and the server serves again.
ldb_start() { # ldb_start KEY OUT: a SYNC session stopped at line 1, in the background ($lpid)
    printf 'SCRIPT DEBUG SYNC\nEVAL "server.call(%s, %s) return 1" 0\n' "'incr'" "'$1'" > "$DIR/ldb.in"
    clibg --hold 600 < "$DIR/ldb.in" > "$2" 2>&1 &
    lpid=$!
    for _ in $(seq 1 150); do grep -q 'Stopped at 1' "$2" && return 0; sleep 0.1; done
    return 1
}
until_pong() { # seconds until the server on TCP port $1 answers PING again (at most 90), or "never"
    local t=$(date +%s.%N)
    if [ "$(timeout 90 redis-cli -h 127.0.0.1 -p "$1" PING 2>/dev/null)" = PONG ]; then secs "$t"; else echo never; fi
}
if ldb_start ldbkill "$DIR/ldb.kill"; then ok "SCRIPT DEBUG SYNC session over RDMA stopped at line 1"; else bad "no SYNC session: $(head -c 200 "$DIR/ldb.kill")"; fi
if [ -z "$(timeout 2 redis-cli -h 127.0.0.1 -p "$TCPPORT" PING 2>/dev/null)" ]; then
    ok "the server serves nobody else during the SYNC session"
else
    bad "the server answered during a SYNC session"
fi
kill -9 $lpid 2>/dev/null; wait $lpid 2>/dev/null
took=$(until_pong "$TCPPORT")
if [ "$took" != never ] && awk -v t="$took" 'BEGIN { exit !(t < 30) }'; then
    ok "SYNC session whose client was killed -9 ends: the server answers again after $took s"
else
    bad "SYNC session whose client was killed -9: the server did not answer within 90 s"
fi
check "the killed client's script ran on to its end" "$(timeout 10 redis-cli -h 127.0.0.1 -p "$TCPPORT" GET ldbkill)" 1
grep -q 'synchronous debugging eval session ended' "$LOG" && ok "log: the session ended" || bad "no 'session ended' in the log"
check "RDMA clients served after the session" "$(cli -t 10 PING)" PONG

# ------------------------------------------------------------ maxclients
# Over maxclients the connection is accepted, told why, and closed: the same
# "-ERR max number of clients reached" a TCP client gets (and upstream sends).
check "CONFIG SET maxclients 2" "$(tcli CONFIG SET maxclients 2)" OK
hp=()
for i in 1 2; do clibg --hold 600 CLIENT SETNAME "holder$i" > "$DIR/holder.$i" 2>&1 & hp+=($!); done
for _ in $(seq 1 100); do [ "$(cat "$DIR"/holder.* | grep -c OK)" = 2 ] && break; sleep 0.1; done
out=$(cli -t 20 PING 2>&1)
case "$out" in
*"ERR max number of clients reached"*) ok "third client over maxclients gets Valkey's error" ;;
*) bad "third client over maxclients 2 got '${out:0:120}'" ;;
esac
kill -9 "${hp[@]}" 2>/dev/null; wait "${hp[@]}" 2>/dev/null
for _ in $(seq 1 100); do [ "$(cli -t 10 PING 2>/dev/null)" = PONG ] && break; sleep 0.2; done
check "CONFIG SET maxclients back" "$(tcli CONFIG SET maxclients 10000)" OK
check "clients accepted again" "$(cli PING)" PONG

# --------------------------------------------------------- hostile peers
for mode in badlen badop zeroxfer hugexfer overrun; do
    check "protocol violation '$mode' drops the connection" "$(cli -t 20 --evil $mode 2>&1)" dropped
done
check "server alive after hostile peers" "$(cli PING)" PONG
n=$(grep -c 'RDMA: dropping connection' "$LOG")
[ "$n" -ge 5 ] && ok "protocol violations logged with 'RDMA:' ($n lines)" || bad "only $n 'RDMA: dropping' log lines"

# --------------------------------------------- large value timing vs TCP
if [ "$BIG" -gt 0 ]; then
    out=$(cli -t 600 --bigset bigv "$BIG") || true
    out2=$(cli -t 600 --bigget bigv "$BIG") || true
    rset=$(cut -d' ' -f3 <<<"$out"); rget=$(cut -d' ' -f3 <<<"$out2")
    check "SET $BIG bytes over RDMA (${rset:-?} s)" "${out%% *}" OK
    check "GET $BIG bytes over RDMA (${rget:-?} s)" "${out2%% *}" OK
    head -c "$BIG" /dev/zero | tr '\0' 'x' > "$DIR/bigfile"
    t=$(date +%s.%N); r=$(tcli -x SET bigt < "$DIR/bigfile"); tset=$(secs $t)
    t=$(date +%s.%N); tcli GET bigt > "$DIR/bigout"; tget=$(secs $t)
    rm -f "$DIR/bigfile" "$DIR/bigout"
    check "SET $BIG bytes over TCP ($tset s)" "$r" OK
    echo "timing $BIG bytes: RDMA SET ${rset:-?} s GET ${rget:-?} s; TCP (redis-cli) SET $tset s GET $tget s"
    awk -v rs="$rset" -v rg="$rget" -v ts="$tset" -v tg="$tget" 'BEGIN {
        if (ts > 0 && tg > 0 && rs > 0 && rg > 0)
            printf "ratio RDMA/TCP: SET %.2fx GET %.2fx\n", rs / ts, rg / tg }'
    cli DEL bigv bigt > /dev/null
fi

# --------------------------------------------------------------- shutdown
cli SHUTDOWN NOSAVE > "$DIR/shutdown.out" 2>&1
gone=0
for _ in $(seq 1 100); do kill -0 $SPID 2>/dev/null || { gone=1; break; }; sleep 0.1; done
wait $SPID 2>/dev/null
src=$?
check "SHUTDOWN over RDMA stops the server" "$gone $src" "1 0"
SPID=""

# ------------------- Lua debugger: a SYNC session cut off by the wire
# The client vanishes without a disconnect (the wire is cut, then it is
# killed): nothing ever arrives. The wait sends keepalives, and a peer that
# acknowledged none for 30 s is dropped. Last in this file, with a server
# of its own: after a queue pair retransmitted into the cut wire, this VM's
# Soft-RoCE delivers no more RDMA traffic to the client's side, whatever
# the server (main's, which never drops that peer, leaves it so too).
NETDEV=${RDMA_CLIENT_NETDEV:-veth1}
CUTPORT=$((PORT + 4)) CUTTCP=$((PORT + 5))
"$SERVER" --port "$CUTTCP" --bind 127.0.0.1 --rdma-port "$CUTPORT" --rdma-bind "$A" --dir "$DIR" \
    --logfile "$DIR/cut.log" --loglevel verbose --protected-mode no --save "" > /dev/null 2>&1 &
SPID=$!
CPORT=$CUTPORT
for _ in $(seq 1 150); do [ "$(cli -t 5 PING 2>/dev/null)" = PONG ] && break; sleep 0.2; done
if ldb_start ldbcut "$DIR/ldb.cut"; then ok "SYNC session on a second server stopped at line 1"; else bad "no SYNC session on the second server"; fi
ip link set "$NETDEV" down
kill -9 $lpid 2>/dev/null; wait $lpid 2>/dev/null
took=$(until_pong "$CUTTCP")
ip link set "$NETDEV" up
if [ "$took" != never ] && awk -v t="$took" 'BEGIN { exit !(t < 60) }'; then
    ok "SYNC session whose client vanished with the wire cut ($NETDEV down) ends: the server answers again after $took s"
else
    bad "SYNC session cut off by the wire: the server did not answer within 90 s"
fi
check "the vanished client's script ran on to its end" "$(timeout 10 redis-cli -p "$CUTTCP" GET ldbcut)" 1
grep -q 'RDMA: dropping connection .*: peer unreachable: keepalives unacknowledged for 30 s' "$DIR/cut.log" &&
    ok "log: RDMA: dropping connection ...: peer unreachable" || bad "no 'peer unreachable' line in the log"
grep -q 'synchronous debugging eval session ended' "$DIR/cut.log" && ok "log: the session ended" || bad "no 'session ended' in the log"
timeout 10 redis-cli -p "$CUTTCP" SHUTDOWN NOSAVE > /dev/null 2>&1 || kill -9 $SPID 2>/dev/null
wait $SPID 2>/dev/null
SPID=""

if grep -qE 'Assertion|Segmentation|crashed' "$LOG" "$DIR/cut.log"; then bad "server log shows a crash"; fi
if grep -q 'ibv_fork_init failed' "$LOG"; then bad "ibv_fork_init failed (registered memory not fork-safe)"; else ok "ibv_fork_init succeeded"; fi
echo "---- server log: RDMA lines"
grep "RDMA" "$LOG" | cut -c1-200 | tail -n 25
echo "rdma tests: $passes passed, $fails failed"
exit $((fails > 125 ? 125 : fails))
