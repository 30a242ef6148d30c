# Limits on connections: maxclients, idle timeout, output and query buffer
# limits, and the largest bulk argument accepted.

# The value of an INFO field ("" if absent).
proc info_field {section name} {
    foreach line [split [r info $section] "\r\n"] {
        if {[string match "$name:*" $line]} {
            return [string range $line [expr {[string length $name] + 1}] end]
        }
    }
    return ""
}

# True once the server closed c's connection (the ping fails reading or
# writing).
proc conn_closed {c} {
    if {![catch {$c ping} reply]} { return 0 }
    return [expr {[string match "*connection closed*" $reply] || [string match "*broken pipe*" $reply] ||
                  [string match "*connection reset*" $reply]}]
}

# Number of connections, counted from a new one (minus itself): works
# when the default client may have been closed by a timeout.
proc connections {} {
    set c [vk_client]
    set n [llength [split [string trim [$c client list]] \n]]
    $c close
    return [expr {$n - 1}]
}

start_server {tags {"limits"} overrides {maxclients 3}} {
    tags {shm:skip:maxclients} {
        test "maxclients: the client after the limit gets an error and is closed" {
            r ping
            set c1 [vk_client]
            set c2 [vk_client]
            $c1 ping
            $c2 ping
            set c3 [vk_client]
            assert_error "ERR max number of clients reached" {$c3 ping}
            assert {[conn_closed $c3]}
            $c3 close
            assert_equal 3 [info_field clients connected_clients]
            assert_equal 1 [info_field stats rejected_connections]
            $c1 close
            $c2 close
        }
    }

    tags {shm:skip:maxclients} {
        test "maxclients: a slot freed by a closed client can be taken again" {
            wait_for_condition 50 20 {[info_field clients connected_clients] == 1} {
                fail "the closed clients are still counted"
            }
            set c1 [vk_client]
            set c2 [vk_client]
            assert_equal PONG [$c1 ping]
            assert_equal PONG [$c2 ping]
            set c3 [vk_client]
            assert_error "ERR max number of clients reached" {$c3 ping}
            $c3 close
            $c2 close
            wait_for_condition 50 20 {[info_field clients connected_clients] == 2} {
                fail "the closed client is still counted"
            }
            set c4 [vk_client]
            assert_equal PONG [$c4 ping]
            assert_equal 2 [info_field stats rejected_connections]
        }
    }

    test "maxclients can be raised at runtime" {
        r config set maxclients 10
        set c5 [vk_client]
        assert_equal PONG [$c5 ping]
        assert_equal 10 [lindex [r config get maxclients] 1]
    }
}

# With timeout 1 a client idle for more than a second is closed within the
# next second, the test's default client included: every test opens its own.
start_server {tags {"limits"} overrides {timeout 1}} {
    test "timeout: an idle client is closed" {
        set c [vk_client]
        $c ping
        after 3000
        assert {[conn_closed $c]}
        $c close
    }

    test "timeout: a busy client is not closed" {
        set c [vk_client]
        for {set i 0} {$i < 25} {incr i} {
            assert_equal PONG [$c ping]
            after 100
        }
        $c close
    }

    test "timeout: a client waiting for a CLIENT PAUSE is not closed" {
        set w [vk_deferring_client]
        set p [vk_client]
        $p client pause 3000 write
        $w set k v
        assert_equal OK [$w read]
        set c [vk_client]
        assert_equal v [$c get k]
        $c close
    }

    test "timeout: a MONITOR client is not closed" {
        set m [vk_deferring_client]
        $m monitor
        assert_equal OK [$m read]
        after 3000
        set c [vk_client]
        $c set k2 v2
        assert_match {*"set" "k2" "v2"*} [$m read]
        $c close
    }

    test "timeout: a client blocked in BLPOP is not closed" {
        set c [vk_client]
        if {[$c command info blpop] eq {{}}} { skip "needs the BLPOP command" }
        $c close
        set b [vk_deferring_client]
        $b blpop list 0
        set c [vk_client]
        wait_for_condition 50 100 {[string match "*blocked_clients:1*" [$c info clients]]} {
            fail "BLPOP did not block"
        }
        $c close
        after 3000
        set c [vk_client]
        $c rpush list x
        assert_equal {list x} [$b read]
    }

    test "timeout 0 disables the idle timeout" {
        set c [vk_client]
        $c config set timeout 0
        after 2500
        assert_equal PONG [$c ping]
        $c config set timeout 1
        $c close
    }
}

# The id if a connection with this id is listed, else "".
proc client_id_listed {id} {
    if {[regexp {id=([0-9]+)} [r client list id $id] -> found]} { return $found }
    return ""
}

start_server {tags {"limits"}} {
    test "Output buffer hard limit closes a client that reads nothing" {
        r config set client-output-buffer-limit "normal 5mb 0 0"
        r set big [string repeat x 1000000]
        set rd [vk_deferring_client]
        # 100 MB of replies asked for in one go, none read.
        set req ""
        for {set i 0} {$i < 100} {incr i} { append req "GET big\r\n" }
        $rd write $req
        $rd flush
        wait_for_condition 50 100 {[llength [split [string trim [r client list]] \n]] == 1} {
            fail "the client was not disconnected"
        }
        # The replies it did get stop short of all 100.
        fconfigure [$rd channel] -blocking 1 -translation binary
        set got [string length [read [$rd channel]]]
        assert {$got < 100 * 1000000}
        r config set client-output-buffer-limit "normal 0 0 0"
    }

    test "Output buffer: no limit, no disconnection" {
        r config set client-output-buffer-limit "normal 0 0 0"
        set rd [vk_deferring_client]
        for {set i 0} {$i < 20} {incr i} { $rd get big }
        for {set i 0} {$i < 20} {incr i} { assert_equal 1000000 [string length [$rd read]] }
    }

    test "Replies with deferred lengths count at their size against the limit" {
        # Each ZRANGEBYSCORE reply opens with a deferred length, and EXEC
        # builds all 300 before writing any. Blocks of a full 16 KiB behind
        # every placeholder would add up to ~5 MB for ~6 KB of replies.
        r config set client-output-buffer-limit "normal 1mb 0 0"
        r del z
        r zadd z 1 a 2 b
        r multi
        for {set i 0} {$i < 300} {incr i} { r zrangebyscore z -inf +inf }
        set replies [r exec]
        assert_equal 300 [llength $replies]
        assert_equal {a b} [lindex $replies 299]
        # COMMAND DOCS nests a deferred length per command and argument.
        assert {[llength [r command docs]] > 200}
        r config set client-output-buffer-limit "normal 0 0 0"
    }

    test "Output buffer soft limit: tolerated for its seconds, then closed by the cron" {
        r config set client-output-buffer-limit "normal 0 1mb 2"
        set rd [vk_deferring_client]
        $rd client id
        set id [$rd read]
        set req ""
        for {set i 0} {$i < 30} {incr i} { append req "GET big\r\n" }
        $rd write $req
        $rd flush
        # Over the soft limit, but not yet for 2 seconds: still connected.
        wait_for_condition 50 100 {[regexp {omem=([0-9]+)} [r client list id $id] -> omem] && $omem > 1000000} {
            fail "the output did not pile up"
        }
        after 1000
        assert_equal $id [client_id_listed $id]
        # Nothing more is asked: the server's cron notices the time is up.
        wait_for_condition 40 100 {[client_id_listed $id] eq ""} {
            fail "the client over the soft limit was not disconnected"
        }
        r config set client-output-buffer-limit "normal 0 0 0"
    }

    tags {valkey-only} {
        test "INFO stats counts output buffer limit disconnections" {
            assert_equal 2 [info_field stats client_output_buffer_limit_disconnections]
        }
    }

    test "client-output-buffer-limit reads back and rejects bad values" {
        r config set client-output-buffer-limit "normal 1mb 2mb 10"
        assert_match "*normal 1048576 2097152 10*" [lindex [r config get client-output-buffer-limit] 1]
        assert_error "*client-output-buffer-limit*" {r config set client-output-buffer-limit "normal 1mb"}
        assert_error "*client-output-buffer-limit*" {r config set client-output-buffer-limit "foo 1 2 3"}
        r config set client-output-buffer-limit "normal 0 0 0"
    }

    test "A huge negative SRANDMEMBER/HRANDFIELD/ZRANDMEMBER count ends at the output buffer limit" {
        # Each asks for about 2^62 draws: the command must stop drawing once
        # its client is dropped, not run (and grow) until memory runs out.
        r del rs rh rz rsbig
        r sadd rs a b c
        r hset rh f1 v1 f2 v2
        r zadd rz 1 a 2 b
        for {set i 0} {$i < 200} {incr i} { r sadd rsbig m$i }
        r config set client-output-buffer-limit "normal 1mb 0 0"
        foreach req {{srandmember rs -4611686018427387903}
                     {srandmember rsbig -4611686018427387903}
                     {hrandfield rh -4611686018427387903}
                     {hrandfield rh -2305843009213693951 withvalues}
                     {zrandmember rz -4611686018427387903}
                     {zrandmember rz -2305843009213693951 withscores}} {
            set c [vk_client]
            $c timeout 20
            assert_error "*connection*" {$c {*}$req}
            $c close
        }
        assert_equal PONG [r ping]
        r config set client-output-buffer-limit "normal 0 0 0"
        r del rs rh rz rsbig
    }

    test "client-query-buffer-limit closes a client sending a too big request" {
        r config set client-query-buffer-limit 1mb
        set c [vk_client]
        # An argument announced bigger than the limit, sent in part.
        # The server may close the socket while we are still writing.
        catch {
            $c write "*2\r\n\$4\r\necho\r\n\$5000000\r\n"
            $c write [string repeat z 1500000]
            $c flush
        }
        assert_error "*connection*" {$c read}
        $c close
        r config set client-query-buffer-limit 1gb
    }

    tags {valkey-only} {
        test "INFO stats counts query buffer limit disconnections" {
            assert_equal 1 [info_field stats client_query_buffer_limit_disconnections]
        }
    }

    test "client-query-buffer-limit: requests under the limit are fine" {
        r config set client-query-buffer-limit 1mb
        set c [vk_client]
        set v [string repeat q 500000]
        assert_equal $v [$c echo $v]
        $c close
        r config set client-query-buffer-limit 1gb
    }

    test "proto-max-bulk-len at runtime: bigger bulks are a protocol error" {
        r config set proto-max-bulk-len 1mb
        assert_equal 1048576 [lindex [r config get proto-max-bulk-len] 1]
        set c [vk_client]
        $c readraw 1
        $c write "*2\r\n\$4\r\necho\r\n\$2000000\r\n"
        $c flush
        assert_equal "-ERR Protocol error: invalid bulk length" [$c read]
        assert_error "*connection closed*" {$c read}
        $c close
        set c [vk_client]
        set v [string repeat p 1000000]
        assert_equal $v [$c echo $v]
        $c close
        r config set proto-max-bulk-len 512mb
    }

    test "proto-max-bulk-len refuses values under 1mb" {
        assert_error "*proto-max-bulk-len*" {r config set proto-max-bulk-len 100}
    }
}

# A client holding `size` bytes of query buffer: a bulk argument of that
# size declared and `sent` bytes of it sent (the server sizes the buffer of
# a big argument for all of it at once). The server may disconnect it
# while it writes.
# A client that sent all but the last 1000 bytes of an argument of size
# bytes: the server holds what arrived (it reserves nothing ahead of it).
proc client_with_partial_arg {size} {
    set c [vk_deferring_client]
    $c client id
    set id [$c read]
    catch {
        $c write "*2\r\n\$4\r\necho\r\n\$$size\r\n[string repeat a [expr {$size - 1000}]]"
        $c flush
    }
    return [list $c $id]
}

start_server {tags {"limits"}} {
    test "maxmemory-clients takes a memory value or a percentage of maxmemory" {
        assert_equal {maxmemory-clients 0} [r config get maxmemory-clients]
        r config set maxmemory-clients 10mb
        assert_equal {maxmemory-clients 10485760} [r config get maxmemory-clients]
        r config set maxmemory-clients 5%
        assert_equal {maxmemory-clients 5%} [r config get maxmemory-clients]
        assert_error "*percentage argument must be less or equal to 100*" {r config set maxmemory-clients 101%}
        assert_error "*argument must be a memory or percent value*" {r config set maxmemory-clients abc}
        assert_error "*argument must be a memory or percent value*" {r config set maxmemory-clients -1}
        assert_equal {maxmemory-clients 5%} [r config get maxmemory-clients]
        r config set maxmemory-clients 0
    }

    test "maxmemory-clients disconnects a client whose query buffer goes over it" {
        r config resetstat
        r config set maxmemory-clients 2mb
        lassign [client_with_partial_arg 3000000] c id
        wait_for_condition 50 100 {[client_id_listed $id] eq ""} {
            fail "the client over maxmemory-clients is still connected"
        }
        assert_equal 1 [info_field stats evicted_clients]
        assert_equal PONG [r ping]
        $c close
        r config set maxmemory-clients 0
    }

    test "maxmemory-clients disconnects a client whose replies pile up" {
        r config resetstat
        r set big [string repeat x 1000000]
        r config set maxmemory-clients 5mb
        set rd [vk_deferring_client]
        $rd client id
        set id [$rd read]
        # 30 MB of replies asked for, none read: more than the socket takes.
        set req ""
        for {set i 0} {$i < 30} {incr i} { append req "GET big\r\n" }
        $rd write $req
        $rd flush
        wait_for_condition 50 100 {[client_id_listed $id] eq ""} {
            fail "the client over maxmemory-clients is still connected"
        }
        assert_equal 1 [info_field stats evicted_clients]
        $rd close
        r config set maxmemory-clients 0
    }

    test "maxmemory-clients disconnects the biggest clients first" {
        r config resetstat
        r config set maxmemory-clients 3mb
        lassign [client_with_partial_arg 1000000] small small_id
        wait_for_condition 50 100 {[regexp {tot-mem=([0-9]+)} [r client list id $small_id] -> m] && $m > 1000000} {
            fail "the first client's buffer did not grow"
        }
        lassign [client_with_partial_arg 2500000] big big_id
        wait_for_condition 50 100 {[client_id_listed $big_id] eq ""} {
            fail "the biggest client is still connected"
        }
        assert_equal $small_id [client_id_listed $small_id]
        assert_equal 1 [info_field stats evicted_clients]
        $small close
        $big close
        r config set maxmemory-clients 0
    }

    test "CLIENT NO-EVICT on exempts a client from maxmemory-clients" {
        r config resetstat
        # Exempt clients still count: over the limit, the test's own client
        # would be the one to go.
        r client no-evict on
        r config set maxmemory-clients 2mb
        set c [vk_deferring_client]
        $c client no-evict on
        assert_equal OK [$c read]
        $c client id
        set id [$c read]
        assert_match "*flags=e*" [r client list id $id]
        $c write "*2\r\n\$4\r\necho\r\n\$3000000\r\n[string repeat a [expr {3000000 - 1000}]]"
        $c flush
        wait_for_condition 50 100 {[regexp {tot-mem=([0-9]+)} [r client list id $id] -> m] && $m > 2999000} {
            fail "the client's buffer did not grow"
        }
        after 200
        assert_equal $id [client_id_listed $id]
        assert_equal 0 [info_field stats evicted_clients]
        # The rest of the argument arrives and the command runs as usual.
        $c write [string repeat a 1000]
        $c write "\r\n"
        $c flush
        assert_equal 3000000 [string length [$c read]]
        $c close
        r config set maxmemory-clients 0
        r client no-evict off
    }

    test "maxmemory-clients as a percentage of maxmemory" {
        r config resetstat
        r config set maxmemory 100mb
        r config set maxmemory-clients 2%
        # The big client's buffer grows as its bytes arrive: the small one
        # must stay under half the limit, so that the big one is the bigger
        # whenever the sum goes over.
        lassign [client_with_partial_arg 500000] small small_id
        lassign [client_with_partial_arg 3000000] big big_id
        wait_for_condition 50 100 {[client_id_listed $big_id] eq ""} {
            fail "the client over 2% of maxmemory is still connected"
        }
        assert_equal $small_id [client_id_listed $small_id]
        # Without maxmemory, a percentage is no limit at all.
        r config set maxmemory 0
        lassign [client_with_partial_arg 3000000] big2 big2_id
        after 200
        assert_equal $big2_id [client_id_listed $big2_id]
        assert_equal 1 [info_field stats evicted_clients]
        foreach c [list $small $big $big2] { $c close }
        r config set maxmemory-clients 0
    }
}
