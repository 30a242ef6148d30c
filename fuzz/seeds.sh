#!/usr/bin/env bash
# fuzz/seeds.sh - writes the seed corpora fuzz/corpus/<target>/ (committed;
# rerun only to refresh them). Hand-written samples for resp, request,
# reply, rdma, manifest (AOF manifests) and primary (replication streams);
# DUMP payloads and RDB files of every type and encoding, made by the
# server itself (src/valkey-server, built); config files cut from
# tests/assets/. Also dict/config.dict (option names, from
# the server); the other dict/*.dict files are written by hand.
set -euo pipefail
cd "$(dirname "$0")"
C=corpus
# Only the corpora this script writes are replaced: clustermsg and nodesconf
# come from utils/cluster-capture (real redis-server 7.0 traffic and files);
# clusterbus is clustermsg's messages behind option bytes (written at the
# end: see fuzz_clusterbus.c).
rm -rf $C/{resp,request,reply,rdma,restore,rdb,config,manifest,primary,aclfile,shmring}
mkdir -p $C/{resp,request,reply,rdma,restore,rdb,config,manifest,primary,shmring}

# resp, request: one option byte, then client bytes (see the targets).
n=0
seed() { # seed <dir> <option byte as \ooo> <printf text>
    n=$((n + 1))
    printf "$2$3" > "$C/$1/seed-$n"
}
for d in resp request; do
    seed $d '\000' '*1\r\n$4\r\nPING\r\n'
    seed $d '\003' '*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n'
    seed $d '\200' 'PING\r\nSET "a b" '"'"'c\\x41'"'"'\r\nGET k\n'
    seed $d '\101' '*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n*0\r\n*-1\r\n'
    seed $d '\010' '*12\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n$1\r\nf\r\n$1\r\ng\r\n$1\r\nh\r\n$1\r\ni\r\n$1\r\nj\r\n$1\r\nk\r\n$1\r\nl\r\n'
    seed $d '\000' '*1\r\n$-1\r\n'
    seed $d '\000' '*2\r\n$3\r\nGET\r\n$999999999999\r\n'
    seed $d '\007' "*2\r\n\$4\r\nECHO\r\n\$300\r\n$(head -c 300 /dev/zero | tr '\0' x)\r\n*1\r\n\$4\r\nPING\r\n"
done

# shmring: a ring-size byte, then operations (fuzz_shmring.c): the peer
# publishes 10 bytes and we read 16; we write 16 and the peer consumes 8;
# a tail far beyond the ring; then a preface and a hello as whole inputs.
printf '\000\000\012\000\002\020\000' > $C/shmring/read
printf '\001\006\020\000\004\010\000\006\000\020\010\001\000' > $C/shmring/write
printf '\002\001\377\377\000\000\000\000\000\000\002\100\000\010' > $C/shmring/corrupt
printf '\026VKSHM 1\r\n' > $C/shmring/preface
printf '\026VKSHM\001\003\000\000\001\000\024\000\000\000\000\020\002\000\000\000\000\000\000\000\000\000\000\000\000\000' > $C/shmring/hello

# reply: RESP2 and RESP3 replies.
seed reply '' '+OK\r\n-ERR wrong\r\n:42\r\n$5\r\nhello\r\n$-1\r\n*-1\r\n'
seed reply '' '*3\r\n:1\r\n*2\r\n+a\r\n$1\r\nb\r\n$0\r\n\r\n'
seed reply '' '%%2\r\n+k1\r\n:1\r\n+k2\r\n~2\r\n,3.14\r\n,inf\r\n'
seed reply '' '_\r\n#t\r\n#f\r\n(123456789012345678901234567890\r\n=15\r\ntxt:Some string\r\n!9\r\nERR oops\r\n'
seed reply '' '|1\r\n+key-popularity\r\n%%2\r\n$1\r\na\r\n,0.19\r\n$1\r\nb\r\n,0.03\r\n*2\r\n:2039123\r\n:9543892\r\n'
seed reply '' '>3\r\n$7\r\nmessage\r\n$3\r\nch1\r\n$5\r\nhello\r\n'

# primary: one option byte (see fuzz_primary.c), then a replication
# stream: what a primary sends, blocking commands, and bad bytes.
mb() { # mb ARG... : one RESP multibulk command
    printf '*%d\r\n' $#
    for a in "$@"; do printf '$%d\r\n%s\r\n' ${#a} "$a"; done
}
pseed() { # pseed <name> <option byte as \ooo> <stream bytes ending in \r\n>
    # (the command substitution that made them ate the final \n)
    { printf "$2"; printf '%s\n' "$3"; } > "$C/primary/$1"
}
pseed writes '\200' "$(mb SELECT 0; mb SET k v; mb MULTI; mb INCR n; mb RPUSH l a b; mb EXEC; mb PING)$(mb REPLCONF GETACK '*'; mb PEXPIREAT k 99999999999999)"
pseed types '\003' "$(mb HSET h f v; mb SADD s m; mb ZADD z 1 m; mb XADD x 1-1 f v; mb XGROUP CREATE x g '$'; mb PFADD p a; mb SETRANGE r 10 x; mb SWAPDB 0 1; mb DEL k; mb FLUSHALL)"
pseed blocking '\200' "$(mb BLPOP nolist 0; mb RPUSH l a; mb BLMOVE l d LEFT RIGHT 0; mb BZPOPMIN z 0; mb XREAD BLOCK 0 STREAMS x '$'; mb XREADGROUP GROUP g c BLOCK 0 STREAMS x '>'; mb WAIT 1 0; mb SET after 1)"
pseed keepalive '\000' "$(printf '\n\r\n'; mb SET k v; printf '\n'; mb GET k)"
pseed bad-arity '\200' "$(mb SET a 1; printf '*2\r\n$3\r\nSET\r\n$1\r\nk\r\n'; mb SET b 2)"
pseed bad-multi '\200' "$(mb MULTI; mb SET a 1; mb GET; mb EXEC)"
pseed unknown '\200' "$(mb SET a 1; mb NOSUCHCMD x; mb OBJECT NOSUCHSUB k)"
pseed inline '\007' "$(mb SET a 1; printf 'SET k v\r\n+OK\r\n')"
pseed link '\200' "$(mb SET a 1; mb SUBSCRIBE ch; mb REPLICAOF NO ONE; mb PSYNC '?' -1; mb QUIT)"
pseed bigarg '\001' "$(mb SET big "$(head -c 300 /dev/zero | tr '\0' x)"; mb APPEND big y)"
pseed proto-error '\200' "$(mb SET a 1; printf '*2\r\n$3\r\nGET\r\n$x\r\n*-x\r\n')"

# rdma: 32-byte control messages (u16 opcode, u16 selector, reserved,
# u64 address, u32 length, u32 rkey; big endian).
printf '\000\000\000\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\007' > $C/rdma/get-feature
printf '\000\001\000\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\001' > $C/rdma/set-feature
printf '\000\002\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' > $C/rdma/keepalive
printf '\000\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\177\022\064\126\000\000\000\020\000\000\000\000\022\064' > $C/rdma/register

# manifest: AOF manifests as Valkey writes them, and the refused kinds.
seed manifest '' 'file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n'
seed manifest '' 'file appendonly.aof.3.base.aof seq 3 type b\nfile appendonly.aof.2.base.rdb seq 2 type h\nfile appendonly.aof.4.incr.aof seq 4 type h\nfile appendonly.aof.5.incr.aof seq 5 type i\nfile appendonly.aof.6.incr.aof seq 6 type i\n'
seed manifest '' '# a comment\nfile "name with spaces\\x01\\xff" seq 1 type i future-key future-value\n'
seed manifest '' 'file appendonly.aof.1.incr.aof seq 1 type i'
seed manifest '' 'file ../outside.aof seq 1 type i\nfile /etc/passwd seq 2 type i\n'
seed manifest '' '\000\001\377junk\n\nfile x seq 2 type i\nfile y seq 1 type i\nfile z seq 1 type q\n'
printf '' > $C/manifest/empty

# config: valkey.conf's directives, a few per file, and a full Valkey 8.0 file.
grep -v -E "^(#|$|include |dir )" ../tests/assets/default.conf | split -l 8 - $C/config/default-conf-
grep -v -E "^(#|$|include |dir )" ../tests/assets/valkey-8.0-full.conf | split -l 40 - $C/config/full-conf-
printf 'save ""\nsave 900 1 300 10\nclient-output-buffer-limit replica 256mb 64mb 60\nbind 127.0.0.1 -::1\nrename-command CONFIG ""\nmaxmemory 1gb\nnotify-keyspace-events KEA\n' > $C/config/special

# aclfile: ACL files as Valkey writes and reads them (lines split at single
# spaces, sdssplitargs() quoting only inside "(...)" selectors), and broken
# ones.
mkdir -p $C/aclfile
H=4d8c6a0e6f2d7b2f5e8b7c7c0a7c1f0bd0c6f8cba3cf8e3f6e1b1b2a8c9d0e1f
printf 'user default on nopass sanitize-payload ~* &* +@all\nuser app on #%s ~app:* %%R~ro:* %%W~wo:* resetchannels &news.* -@all +@read +set +select|0 (~other:* resetchannels -@all +get)\n' $H > $C/aclfile/valkey-save
printf 'user q on nopass ~a"b %%R~'"'"'c'"'"' &"d" -@all +select|"x" ("~e\\"f" +get "+select|y)")\n  user s off  skip-sanitize-payload   ~s*  \r\nuser t reset on >pw allkeys allchannels allcommands -debug clearselectors (~a %%RW~b &c)\n\n' > $C/aclfile/quotes-selectors
printf 'user a on +nosuch\nnotuser x\nuser a on\nuser b on #zz\nuser c on (~x\nuser d\tx on\nuser e on (~a" +get)\nuser f allkeys ~x\n' > $C/aclfile/errors

# restore, rdb: made by the server.
PORT=${SEED_PORT:-21999}
TMP=$(mktemp -d)
../src/valkey-server --port $PORT --dir "$TMP" --save '' --rdbchecksum no --daemonize no >/dev/null &
PID=$!
trap 'kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT
cli() { redis-cli -p $PORT "$@"; }
for _ in $(seq 50); do cli ping >/dev/null 2>&1 && break; sleep 0.1; done
cli rpush list-small a b 1 2 >/dev/null
for i in $(seq 200); do echo "RPUSH list-big element-$i"; done | cli >/dev/null
cli sadd set-int 1 2 3 -5 100000 >/dev/null
cli sadd set-small a b c >/dev/null
for i in $(seq 200); do echo "SADD set-big member-$i"; done | cli >/dev/null
cli hset hash-small f1 v1 f2 2 >/dev/null
for i in $(seq 200); do echo "HSET hash-big field-$i value-$i"; done | cli >/dev/null
cli zadd zset-small 1 a 2.5 b -3 c >/dev/null
for i in $(seq 200); do echo "ZADD zset-big $i m-$i"; done | cli >/dev/null
cli set str-int 12345 >/dev/null
cli set str-raw "hello world" >/dev/null
cli set str-lzf "$(head -c 300 /dev/zero | tr '\0' a)" >/dev/null
cli xadd stream '*' f v >/dev/null
cli xadd stream '*' f2 v2 a b >/dev/null
cli xgroup create stream g1 0 >/dev/null
cli xreadgroup group g1 c1 count 1 streams stream '>' >/dev/null
cli pfadd hll a b c d >/dev/null
cli set with-ttl x px 100000000 >/dev/null
for k in $(cli --raw keys '*'); do
    # DUMP's reply in hex, without the 10-byte version/CRC trailer.
    python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
k = sys.argv[2].encode()
s.sendall(b"*2\r\n$4\r\nDUMP\r\n$%d\r\n%s\r\n" % (len(k), k))
buf = b""
while True:
    buf += s.recv(65536)
    if b"\r\n" in buf:
        n = int(buf[1:buf.index(b"\r\n")])
        start = buf.index(b"\r\n") + 2
        if len(buf) >= start + n + 2: break
body = buf[start:start + n - 10]
open(sys.argv[3], "wb").write(b"\0" + body)  # sanitize-dump-payload no
' $PORT "$k" "$C/restore/$k"
done
# The config dictionary: every option name, and values that parse.
{
    echo "# Option names and values for the config target (libFuzzer -dict), made by seeds.sh."
    cli --raw config get '*' | awk 'NR % 2 == 1 { printf "\"%s\"\n", $0 }'
    for w in yes no '""' 1gb 10mb 100kb 0 -1 2147483647 9223372036854775807 18446744073709551616 \
        '"a b"' "'x'" '\x41' include dir rename-command user loadmodule normal replica pubsub; do
        printf '"%s"\n' "$(printf '%s' "$w" | sed 's/\\/\\\\/g; s/"/\\"/g')"
    done
} > dict/config.dict
cli function load "#!lua name=seedlib
server.register_function('seedfn', function(keys, args) return 1 end)" >/dev/null
cli save >/dev/null
# A first byte for sanitize-dump-payload (see fuzz_rdb.c), then the file.
{ printf '\001'; cat "$TMP/dump.rdb"; } > $C/rdb/all-types-nocksum
cli config set rdbchecksum yes >/dev/null
cli flushall >/dev/null
cli set a b >/dev/null
cli -n 3 set c d >/dev/null
cli save >/dev/null
{ printf '\000'; cat "$TMP/dump.rdb"; } > $C/rdb/small-cksum
printf '\000' > $C/rdb/empty

# clusterbus: each captured message on an inbound link at once (\200), on
# the outbound link to its sender's node at once (\201), and in chunks of
# one byte (\000); then two messages back to back.
rm -rf $C/clusterbus
mkdir -p $C/clusterbus
for f in $C/clustermsg/*.bin; do
    b=$(basename "$f" .bin)
    { printf '\200'; cat "$f"; } > "$C/clusterbus/$b-in"
    { printf '\201'; cat "$f"; } > "$C/clusterbus/$b-out"
    { printf '\000'; cat "$f"; } > "$C/clusterbus/$b-bytes"
done
{ printf '\200'; cat $C/clustermsg/redis70-ping-gossip3.bin $C/clustermsg/redis70-fail.bin; } > "$C/clusterbus/two-messages"
echo "seeds: $(find $C -type f | wc -l) files"
