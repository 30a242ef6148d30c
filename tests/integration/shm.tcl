# shm.tcl -- the shared-memory transport (src/conn_shm.c, src/libvkshm.c):
# the upgrade over the Unix socket and the ways it is refused, values
# bigger than a ring, the doorbells with shm-spin-us 0, peers that corrupt
# the rings, write on the socket, stop reading or die mid-request (the
# scriptable peer tests/shm/peer.py), fds and mappings after thousands of
# connections, client eviction by ring memory, the tools' --shm and the
# shm-* options. Every test connects to its server's own Unix socket
# through tests/shm/libtclshm.so, whatever transport the run uses.

set ::shm_peer_py [file join $::vk::cfg(root) tests shm peer.py]
set ::shm_src [file join $::vk::cfg(root) src]

# Runs the peer script against the innermost server's socket; returns its
# output (one line per mode, see peer.py).
proc shm_peer {args} {
    return [exec python3 $::shm_peer_py [lindex [r config get unixsocket] 1] {*}$args]
}

# A RESP client through shared memory to the innermost server.
proc shm_client {} {
    return [::vk::client_open shm:[lindex [r config get unixsocket] 1] 0]
}

# A raw channel to the innermost server's socket, upgraded (options go to
# shm::connect: -fallback).
proc shm_raw {args} {
    ::vk::shm_load
    set fd [shm::connect [lindex [r config get unixsocket] 1] {*}$args]
    fconfigure $fd -translation binary -buffering full
    return $fd
}

# Sends one command on a raw channel and returns its first reply line.
proc shm_raw_cmd {fd args} {
    set out "*[llength $args]\r\n"
    foreach a $args { append out "\$[string length $a]\r\n$a\r\n" }
    puts -nonewline $fd $out
    flush $fd
    return [string trimright [gets $fd] "\r"]
}

proc shm_client_line {c} {
    return [string trim [$c client info]]
}

proc shm_count_fds {pid} {
    return [llength [glob -nocomplain /proc/$pid/fd/*]]
}

# Mappings of shared-memory regions in the server (memfd "vkshm").
proc shm_count_maps {pid} {
    set fh [open /proc/$pid/maps]
    set n [regexp -all -line {memfd:vkshm} [read $fh]]
    close $fh
    return $n
}

proc shm_log_has {pattern} {
    set fh [open [srv stdout]]
    set log [read $fh]
    close $fh
    return [string match $pattern $log]
}

proc shm_connected {} {
    return [info_field clients connected_clients]
}

proc info_field {section field} {
    foreach line [split [r info $section] \n] {
        if {[string match "$field:*" $line]} { return [string trim [string range $line [string length $field]+1 end]] }
    }
    return ""
}

set shm_overrides [list unixsocket [tmp_path shm.sock] unixsocketperm 700 shm-enabled yes]

start_server [list tags {shm external:skip} overrides $shm_overrides \
                  log_allow {"*Shared memory: the client on * corrupted its * ring*"
                             "*Shared memory: the client on * sent bytes on its socket after the upgrade*"
                             "*scheduled to be closed ASAP for overcoming of output buffer limits*"
                             "*Client * evicted due to client eviction*"}] {
    test "A RESP client on the Unix socket is served as before" {
        set c [::vk::client_open [lindex [r config get unixsocket] 1] 0]
        assert_equal PONG [$c ping]
        $c set plain 1
        set line [string trim [$c client info]]
        assert_match "*flags=U *" $line
        assert {![string match "*shm=*" $line]}
        $c close
        r get plain
    } {1}

    test "An upgraded connection: commands, CLIENT LIST shm=, no U flag, INFO shm_clients" {
        set c [shm_client]
        assert_equal PONG [$c ping]
        assert_equal OK [$c set greeting hello]
        assert_equal hello [r get greeting]
        set line [shm_client_line $c]
        assert_match "* flags=N *" $line
        assert_match "*laddr=[lindex [r config get unixsocket] 1]:0 *" $line
        assert_match "* tot-cmds=* shm=65536" $line
        # The rings (4 KB + 2 x 64 KB) are the client's memory.
        regexp {tot-mem=([0-9]+)} $line -> totmem
        assert_range $totmem [expr {4096 + 2 * 65536}] [expr {4096 + 2 * 65536 + 65536}]
        set base [info_field clients shm_clients]
        assert {$base >= 1}
        $c close
        wait_for_condition 50 20 {[info_field clients shm_clients] == $base - 1} {
            fail "the closed shared-memory client is still counted"
        }
        assert_match "*listener1:name=unix,bind=*,shm=yes*" [r info server]
    }

    test "Values bigger than a 4 KB ring, and a pipeline of 2000 commands" {
        r config set shm-ring-size 4kb
        set c [shm_client]
        assert_match "* shm=4096" [shm_client_line $c]
        set big [string repeat "abcdefghij" 100000]
        assert_equal OK [$c set big $big]
        assert_equal $big [$c get big]
        assert_equal 1000000 [$c strlen big]
        $c deferred 1
        for {set i 0} {$i < 2000} {incr i} { $c incr counter }
        for {set i 1} {$i <= 2000} {incr i} { assert_equal $i [$c read] }
        $c close
        r config set shm-ring-size 64kb
        r get counter
    } {2000}

    test "shm-spin-us 0: every request rings a doorbell, and replies still come" {
        r config set shm-spin-us 0
        set c [shm_client]
        for {set i 0} {$i < 500} {incr i} { assert_equal PONG [$c ping] }
        set big [string repeat x 300000]
        $c set big0 $big
        assert_equal $big [$c get big0]
        $c close
        r config set shm-spin-us 20
    }

    test "MONITOR, pub/sub and a blocking command over shared memory" {
        set sub [shm_client]
        $sub deferred 1
        $sub subscribe news
        assert_equal {subscribe news 1} [$sub read]
        set blk [shm_client]
        $blk deferred 1
        $blk blpop queue 10
        wait_for_condition 50 20 {[info_field clients blocked_clients] == 1} { fail "BLPOP did not block" }
        set mon [shm_client]
        $mon deferred 1
        $mon monitor
        assert_equal OK [$mon read]
        assert_equal 1 [r publish news hello]
        assert_equal {message news hello} [$sub read]
        r rpush queue item
        assert_equal {queue item} [$blk read]
        assert_match "*\"publish\" \"news\" \"hello\"*" [$mon read]
        assert_match "*\"rpush\" \"queue\" \"item\"*" [$mon read]
        foreach c [list $sub $blk $mon] { $c close }
    }

    test "shm-enabled no: the upgrade is refused with an error, the socket stays a plain connection" {
        r config set shm-enabled no
        assert_error "*the server refused shared memory: ERR shared memory connections are disabled (shm-enabled no)*" {
            shm_raw
        }
        set fd [shm_raw -fallback]
        assert_equal 0 [fconfigure $fd -shared]
        assert_match "*shm-enabled no*" [fconfigure $fd -error]
        assert_equal +PONG [shm_raw_cmd $fd PING]
        assert_equal +OK [shm_raw_cmd $fd SET downgraded yes]
        close $fd
        r config set shm-enabled yes
        r get downgraded
    } {yes}

    test "A malformed upgrade request is answered with an error and closed; version 0 is refused" {
        # "\x16VKSHM x\r\n": no version number.
        assert_equal "b'-ERR Protocol error: invalid shared memory upgrade request' fds=0\nclosed" \
            [shm_peer raw 16564b53484d20780d0a]
        # A valid preface followed by more bytes before the answer.
        assert_equal "b'-ERR Protocol error: invalid shared memory upgrade request' fds=0\nclosed" \
            [shm_peer raw 16564b53484d20310d0a2a310d0a]
        # Version 0 is refused; the socket stays open as a plain one.
        assert_equal "b'-ERR unsupported shared memory protocol version 0' fds=0\ntimeout" \
            [shm_peer raw 16564b53484d20300d0a]
        # Accepted: the 32-byte hello carries three fds.
        assert_equal "hello 32 bytes fds=3\ntimeout" [shm_peer raw 16564b53484d20310d0a]
    }

    test "A peer that corrupts its request ring is dropped with a warning; nothing else is lost" {
        set before [shm_connected]
        assert_equal closed [shm_peer corrupt-tail]
        assert {[shm_log_has "*Shared memory: the client on * corrupted its request ring*"]}
        # What it sent before the corruption was executed.
        assert_equal v [r get shmkey]
        wait_for_condition 50 20 {[shm_connected] == $before} { fail "the peer is still connected" }
        r ping
    } {PONG}

    test "A peer that corrupts its reply ring is dropped" {
        assert_equal closed [shm_peer corrupt-head]
        assert {[shm_log_has "*Shared memory: the client on * corrupted its reply ring*"]}
        r ping
    } {PONG}

    test "A peer writing on the socket after the upgrade is dropped" {
        assert_equal closed [shm_peer socket-bytes]
        assert {[shm_log_has "*Shared memory: the client on * sent bytes on its socket after the upgrade*"]}
        r ping
    } {PONG}

    test "A peer killed with SIGKILL mid-request: the half request is dropped, the server goes on" {
        set before [shm_connected]
        set chan [open |[list python3 $::shm_peer_py [lindex [r config get unixsocket] 1] partial] r]
        assert_equal ready [gets $chan]
        assert_equal [expr {$before + 1}] [shm_connected]
        exec kill -9 [pid $chan]
        catch {close $chan}
        wait_for_condition 50 20 {[shm_connected] == $before} { fail "the killed peer is still connected" }
        assert_equal 0 [r exists partialkey]
        set c [shm_client]
        assert_equal PONG [$c ping]
        $c close
    }

    test "A peer that stops reading reaches its output buffer limit and is closed, alone" {
        r config set client-output-buffer-limit "normal 1mb 0 0"
        r set bigkey [string repeat v 100000]
        set c [shm_client]
        assert_equal closed [shm_peer no-read 200]
        assert_equal PONG [$c ping]
        assert_equal 100000 [$c strlen bigkey]
        $c close
        r config set client-output-buffer-limit "normal 0 0 0"
        assert {[info_field stats client_output_buffer_limit_disconnections] >= 1}
    }

    test "maxmemory-clients counts the rings: shared-memory clients are evicted" {
        r client no-evict on
        r config resetstat
        set clients {}
        for {set i 0} {$i < 4} {incr i} { lappend clients [shm_client] }
        foreach c $clients { $c ping }
        # Four clients hold over 540 KB of rings; allow 300 KB.
        r config set maxmemory-clients 300kb
        r ping
        wait_for_condition 50 20 {[info_field stats evicted_clients] >= 2} { fail "no client was evicted" }
        r config set maxmemory-clients 0
        foreach c $clients { catch {$c close} }
        r client no-evict off
    } {OK}

    test "Over maxclients the upgrade is answered with the error" {
        set max [lindex [r config get maxclients] 1]
        r config set maxclients [shm_connected]
        catch {shm_raw} err
        r config set maxclients $max
        assert_match "*ERR max number of clients reached*" $err
        r ping
    } {PONG}

    test "Thousands of connects and closes leave no fd and no mapping behind" {
        set pid [srv pid]
        set before [shm_connected]
        set fds [shm_count_fds $pid]
        for {set i 0} {$i < 3} {incr i} {
            after 10
            set n [shm_count_fds $pid]
            if {$n < $fds} { set fds $n }
        }
        set maps [shm_count_maps $pid]
        for {set i 0} {$i < 2000} {incr i} {
            set fd [shm_raw]
            if {$i % 100 == 0} { assert_equal +PONG [shm_raw_cmd $fd PING] }
            close $fd
        }
        wait_for_condition 100 20 {[shm_connected] == $before} { fail "closed clients are still connected" }
        # The server's cron may hold a file of its own open for a moment
        # (/proc reads): counts are compared once that is closed again.
        wait_for_condition 50 20 {[shm_count_fds $pid] == $fds} { fail "fds: [shm_count_fds $pid], before: $fds" }
        assert_equal $maps [shm_count_maps $pid]
        set fd [shm_raw]
        assert_equal [expr {$maps + 1}] [shm_count_maps $pid]
        wait_for_condition 50 20 {[shm_count_fds $pid] == $fds + 3} {
            fail "fds with one client: [shm_count_fds $pid], before: $fds"
        }
        close $fd
        wait_for_condition 100 20 {[shm_count_maps $pid] == $maps} { fail "the last mapping stays" }
    }

    test "shm-enabled, shm-ring-size, shm-spin-us: set, read back, rewritten; bad ring sizes refused" {
        r config set shm-ring-size 256kb shm-spin-us 5
        assert_equal {shm-ring-size 262144} [r config get shm-ring-size]
        assert_equal {shm-spin-us 5} [r config get shm-spin-us]
        assert_equal {shm-enabled yes} [r config get shm-enabled]
        assert_error "*shm-ring-size*argument must be a power of two*" {r config set shm-ring-size 12kb}
        assert_error "*shm-ring-size*argument must be between 4096 and 67108864 inclusive*" {r config set shm-ring-size 2048}
        assert_error "*shm-ring-size*argument must be between 4096 and 67108864 inclusive*" {r config set shm-ring-size 128mb}
        assert_error "*shm-spin-us*argument must be between 0 and 1000000 inclusive*" {r config set shm-spin-us -1}
        assert_error "*shm-enabled*argument must be 'yes' or 'no'*" {r config set shm-enabled maybe}
        assert_equal {shm-ring-size 262144} [r config get shm-ring-size]
        r config rewrite
        set fh [open [srv config_file]]
        set conf [read $fh]
        close $fh
        assert_match "*\nshm-ring-size 256kb\n*" $conf
        assert_match "*\nshm-spin-us 5\n*" $conf
        assert_match "*\nshm-enabled yes\n*" $conf
        set c [shm_client]
        assert_match "* shm=262144" [shm_client_line $c]
        $c close
        r config set shm-ring-size 64kb shm-spin-us 20
    } {OK}

    tags {cli} {
        test "valkey-cli --shm and valkey-benchmark --shm" {
            set sock [lindex [r config get unixsocket] 1]
            assert_equal PONG [exec $::shm_src/valkey-cli --shm -s $sock ping]
            assert_equal OK [exec $::shm_src/valkey-cli --shm -s $sock set clikey clivalue]
            assert_equal clivalue [exec $::shm_src/valkey-cli --shm -s $sock get clikey]
            assert_match "*shm=65536*" [exec $::shm_src/valkey-cli --shm -s $sock client info]
            set out [exec $::shm_src/valkey-benchmark --shm -s $sock -n 5000 -c 4 -t ping,set,get -q]
            assert_match "*PING_INLINE: * requests per second*" $out
            assert_match "*GET: * requests per second*" $out
            catch {exec $::shm_src/valkey-cli --shm ping} err
            assert_match "*--shm needs the server's Unix socket*" $err
            catch {exec $::shm_src/valkey-benchmark --shm -n 10 -t ping -q} err
            assert_match "*--shm needs the server's Unix socket*" $err
            r config set shm-enabled no
            catch {exec $::shm_src/valkey-cli --shm -s $sock ping} err
            assert_match "*refused shared memory*shm-enabled no*" $err
            r config set shm-enabled yes
        }
    }
}

# A server without the transport (Debian's Redis 7) reads the preface as a
# command it does not know: a clean refusal, and the socket goes on as a
# plain connection.
start_server [list tags {shm external:skip}] {
    test "A server without shared memory refuses the upgrade cleanly (Redis 7), and the socket goes on" {
        set redis /usr/bin/redis-server
        if {![file executable $redis]} { skip "no $redis" }
        set sock [tmp_path redis.sock]
        file delete $sock
        set pid [exec $redis --port 0 --unixsocket $sock --save "" --appendonly no >/dev/null 2>@1 &]
        wait_for_condition 100 20 {[file exists $sock]} { fail "redis-server did not start" }
        ::vk::shm_load
        catch {shm::connect $sock} err
        assert_match "*refused shared memory: ERR unknown command*VKSHM*" $err
        set fd [shm::connect $sock -fallback]
        fconfigure $fd -translation binary -buffering full
        assert_equal 0 [fconfigure $fd -shared]
        assert_equal +PONG [shm_raw_cmd $fd PING]
        close $fd
        exec kill $pid
    }
}
