# MIGRATE between two servers of ours: every type and encoding moved with
# its TTL, COPY, REPLACE, BUSYKEY without REPLACE, the KEYS form, NOKEY,
# del events here, MULTI, AUTH/AUTH2 against a target with requirepass,
# errors of the target and of the arguments, IOERR when the target cannot
# be reached or never answers, the cached connection (reused, SELECT only
# when the db changes, retried once when stale, closed after 10 s idle),
# COMMAND GETKEYS, SLOWLOG redaction of passwords, and a Redis 7.0 target
# refusing our RDB-11 payloads with a clear error.
#
# MIGRATE connects over TCP to the target's host and port (servers listen
# on TCP under --rdma too); the Redis 7.0 test starts its server by hand,
# so it is tagged rdma:skip:own-server.

source [file join $::vk::cfg(root) tests assets rdb-dataset.tcl]

# A dataset dump (rdb_dataset_dump) without the absolute expire times, and
# the expire times alone as a dict key -> ms: a TTL moves as a relative
# value, so the target's absolute time may be a few ms later.
proc migrate_split_dump {dump} {
    set values {}
    set expires {}
    foreach item $dump {
        lassign $item db key type expire val
        lappend values [list $db $key $type $val]
        dict set expires "$db/$key" $expire
    }
    return [list $values $expires]
}

# The INFO field name of server level (as r's level) as an integer.
proc migrate_info_field {level section name} {
    set info [r $level info $section]
    if {![regexp "\r\n$name:(\[^\r\]*)" "\r\n$info" -> value]} { fail "no $name in INFO $section" }
    return $value
}

# A TCP port where a socket accepts connections (the kernel completes them
# from the backlog) and never answers; returns {listening-channel port}.
proc migrate_silent_server {} {
    set s [socket -server {apply {{ch addr port} { lappend ::migrate_silent_clients $ch }}} -myaddr 127.0.0.1 0]
    return [list $s [lindex [fconfigure $s -sockname] 2]]
}

# A TCP port nothing listens on.
proc migrate_closed_port {} {
    lassign [migrate_silent_server] s port
    close $s
    return $port
}

tags {"migrate" "external:skip"} {
start_server {} {
start_server {} {
    # r -1: the source; r: the target.
    set src_host [srv -1 host]
    set dst_host [srv 0 host]
    set dst_port [srv 0 port]

    test "MIGRATE moves every type and encoding with its TTL, and deletes it here" {
        r flushall
        r -1 flushall
        rdb_fill_every_type [vk_client -1]
        set before [rdb_dataset_dump [vk_client -1]]
        foreach db $::rdb_dataset_dbs {
            r -1 select $db
            set keys [r -1 keys *]
            assert_equal OK [r -1 migrate $dst_host $dst_port "" $db 5000 KEYS {*}$keys]
            assert_equal 0 [r -1 dbsize]
        }
        r -1 select 0
        set after [rdb_dataset_dump [vk_client 0]]
        lassign [migrate_split_dump $before] want_values want_expires
        lassign [migrate_split_dump $after] got_values got_expires
        assert_dumps_equal $want_values $got_values
        foreach {key want} $want_expires {
            set got [dict get $got_expires $key]
            if {$want == -1} {
                assert_equal -1 $got
            } else {
                assert_range $got $want [expr {$want + 2000}]
            }
        }
    }

    test "MIGRATE of one key into another db, with a value bigger than a write chunk" {
        r flushall
        r -1 flushall
        set big [string repeat "0123456789abcdef" 20000]
        r -1 set key $big
        r -1 pexpire key 500000
        assert_equal OK [r -1 migrate $dst_host $dst_port key 5 5000]
        assert_equal 0 [r -1 exists key]
        r select 5
        assert_equal $big [r get key]
        assert_range [r pttl key] 490000 500000
        r select 0
        assert_equal 0 [r exists key]
    }

    test "MIGRATE COPY keeps the key here" {
        r flushall
        r -1 flushall
        r -1 rpush list a b c
        assert_equal OK [r -1 migrate $dst_host $dst_port list 0 5000 COPY]
        assert_equal {a b c} [r -1 lrange list 0 -1]
        assert_equal {a b c} [r lrange list 0 -1]
        assert_equal -1 [r ttl list]
    }

    test "MIGRATE without REPLACE to an existing key: BUSYKEY, the key stays here" {
        r flushall
        r -1 flushall
        r -1 set k source
        r set k target
        assert_error "ERR Target instance replied with error: BUSYKEY Target key name already exists." {
            r -1 migrate $dst_host $dst_port k 0 5000
        }
        assert_equal source [r -1 get k]
        assert_equal target [r get k]
    }

    test "MIGRATE REPLACE overwrites the target's key; COPY REPLACE keeps ours" {
        r set k target
        r -1 set k source2
        assert_equal OK [r -1 migrate $dst_host $dst_port k 0 5000 COPY REPLACE]
        assert_equal source2 [r get k]
        assert_equal source2 [r -1 get k]
        r -1 set k source3
        assert_equal OK [r -1 migrate $dst_host $dst_port k 0 5000 REPLACE]
        assert_equal source3 [r get k]
        assert_equal 0 [r -1 exists k]
    }

    test "MIGRATE KEYS moves the keys that exist and skips the others" {
        r flushall
        r -1 flushall
        r -1 set a 1
        r -1 sadd b x y
        r -1 hset c f v
        assert_equal OK [r -1 migrate $dst_host $dst_port "" 0 5000 KEYS a missing b c]
        assert_equal 0 [r -1 dbsize]
        assert_equal 1 [r get a]
        assert_equal {x y} [lsort [r smembers b]]
        assert_equal v [r hget c f]
        assert_equal 0 [r exists missing]
    }

    test "MIGRATE KEYS where one key exists on the target: the others move, the error is reported" {
        r flushall
        r -1 flushall
        r -1 mset a 1 b 2 c 3
        r set b old
        assert_error "*BUSYKEY*" {r -1 migrate $dst_host $dst_port "" 0 5000 KEYS a b c}
        assert_equal {{} 2 {}} [r -1 mget a b c]
        assert_equal {1 old 3} [r mget a b c]
    }

    test "MIGRATE signals a del event here for each key the target took, none with COPY" {
        r flushall
        r -1 flushall
        r -1 mset a 1 b 2
        r -1 config set notify-keyspace-events Eg
        set rd [vk_deferring_client -1]
        $rd subscribe __keyevent@0__:del
        $rd read
        assert_equal OK [r -1 migrate $dst_host $dst_port a 0 5000 COPY]
        assert_equal OK [r -1 migrate $dst_host $dst_port "" 0 5000 REPLACE KEYS a b]
        assert_equal {message __keyevent@0__:del a} [$rd read]
        assert_equal {message __keyevent@0__:del b} [$rd read]
        $rd close
        r -1 config set notify-keyspace-events ""
    }

    test "MIGRATE inside MULTI" {
        r flushall
        r -1 mset a 1 b 2
        r -1 multi
        r -1 migrate $dst_host $dst_port a 0 5000
        r -1 migrate $dst_host $dst_port b 0 5000 COPY
        assert_equal {OK OK} [r -1 exec]
        assert_equal {{} 2} [r -1 mget a b]
        assert_equal {1 2} [r mget a b]
    }

    test "MIGRATE of keys that do not exist replies NOKEY without connecting" {
        set port [migrate_closed_port]
        assert_equal NOKEY [r -1 migrate 127.0.0.1 $port nosuchkey 0 5000]
        assert_equal NOKEY [r -1 migrate 127.0.0.1 $port "" 0 5000 KEYS nokey1 nokey2]
    }

    test "MIGRATE argument errors" {
        r -1 set k v
        assert_error "ERR wrong number of arguments for 'migrate' command" {r -1 migrate $dst_host $dst_port k 0}
        assert_error "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string" {
            r -1 migrate $dst_host $dst_port k 0 5000 KEYS k
        }
        assert_error "ERR syntax error" {r -1 migrate $dst_host $dst_port k 0 5000 MOVE}
        assert_error "ERR syntax error" {r -1 migrate $dst_host $dst_port k 0 5000 AUTH}
        assert_error "ERR syntax error" {r -1 migrate $dst_host $dst_port k 0 5000 AUTH2 user}
        assert_error "ERR value is not an integer or out of range" {r -1 migrate $dst_host $dst_port k x 5000}
        assert_error "ERR value is not an integer or out of range" {r -1 migrate $dst_host $dst_port k 0 soon}
        assert_equal v [r -1 get k]
    }

    test "MIGRATE to a db the target does not have: the target's SELECT error" {
        r -1 set k v
        assert_error "ERR Target instance replied with error: ERR DB index is out of range" {
            r -1 migrate $dst_host $dst_port k 100 5000
        }
        assert_equal v [r -1 get k]
        # The failed SELECT is not remembered: the next MIGRATE selects again.
        r flushall
        assert_equal OK [r -1 migrate $dst_host $dst_port k 2 5000]
        r select 2
        assert_equal v [r get k]
        r select 0
    }

    test "MIGRATE to a host that does not resolve: IOERR connecting" {
        r -1 set k v
        assert_error "IOERR error or timeout connecting to the client" {r -1 migrate nosuchhost.invalid 1 k 0 1000}
        assert_equal v [r -1 get k]
    }

    test "MIGRATE to a port nothing listens on: IOERR, the key stays" {
        # We notice the refusal when connecting; Redis 7.0 only when it
        # writes ("... writing to target instance").
        r -1 set k v
        set port [migrate_closed_port]
        assert_error "IOERR error or timeout *" {r -1 migrate 127.0.0.1 $port k 0 1000}
        assert_equal v [r -1 get k]
    }

    test "MIGRATE to a server that never answers: IOERR reading after the timeout" {
        r -1 set k v
        set cached [migrate_info_field -1 stats migrate_cached_sockets]
        lassign [migrate_silent_server] s port
        set ::migrate_silent_clients {}
        set start [clock milliseconds]
        # Over TLS (tls-cluster) the handshake is what times out.
        set expected [expr {$::vk::transport eq "tls" ? "connecting to the client" : "reading to target instance"}]
        assert_error "IOERR error or timeout $expected" {r -1 migrate 127.0.0.1 $port k 0 300}
        set elapsed [expr {[clock milliseconds] - $start}]
        # Accept what the kernel queued: one connection, as a timeout is
        # not retried.
        after 100
        update
        set accepted [llength $::migrate_silent_clients]
        foreach ch $::migrate_silent_clients { close $ch }
        close $s
        assert_equal 1 $accepted
        assert_range $elapsed 250 10000
        assert_equal v [r -1 get k]
        assert_equal $cached [migrate_info_field -1 stats migrate_cached_sockets]
    }

    test "MIGRATE caches its connection and SELECTs only when the db changes" {
        r flushall
        # Start without a usable cached connection (the next MIGRATE finds
        # it closed and connects again).
        r client kill type normal skipme yes
        r config resetstat
        set conns [migrate_info_field 0 stats total_connections_received]
        foreach k {a b c} {
            r -1 set $k v
            assert_equal OK [r -1 migrate $dst_host $dst_port $k 3 5000]
        }
        r -1 set d v
        assert_equal OK [r -1 migrate $dst_host $dst_port d 4 5000]
        assert_equal 1 [migrate_info_field -1 stats migrate_cached_sockets]
        assert_equal [expr {$conns + 1}] [migrate_info_field 0 stats total_connections_received]
        assert_match "*cmdstat_select:calls=2,*" [r info commandstats]
        assert_match "*cmdstat_restore:calls=4,*" [r info commandstats]
    }

    test "MIGRATE retries once on a cached connection the target closed" {
        r -1 set k v
        assert_equal OK [r -1 migrate $dst_host $dst_port k 0 5000 REPLACE]
        set killed 0
        foreach line [split [r client list] "\n"] {
            if {[regexp {^id=(\d+) .* cmd=restore } $line -> id]} { incr killed [r client kill id $id] }
        }
        assert_equal 1 $killed
        r -1 set k v2
        assert_equal OK [r -1 migrate $dst_host $dst_port k 0 5000 REPLACE]
        assert_equal v2 [r get k]
        assert_equal 1 [migrate_info_field -1 stats migrate_cached_sockets]
    }

    test "MIGRATE's cached connection is closed after 10 seconds idle" {
        r -1 set k v
        assert_equal OK [r -1 migrate $dst_host $dst_port k 0 5000 REPLACE]
        assert_equal 1 [migrate_info_field -1 stats migrate_cached_sockets]
        assert_equal 2 [migrate_info_field 0 clients connected_clients]
        after 9000
        assert_equal 1 [migrate_info_field -1 stats migrate_cached_sockets]
        wait_for_condition 60 100 {[migrate_info_field -1 stats migrate_cached_sockets] == 0} {
            fail "the cached MIGRATE connection is still open"
        }
        wait_for_condition 50 100 {[migrate_info_field 0 clients connected_clients] == 1} {
            fail "the target still sees the MIGRATE connection"
        }
    }

    test "COMMAND GETKEYS MIGRATE: the key, or the keys after KEYS" {
        assert_equal {k} [r command getkeys migrate h 1 k 0 5000]
        assert_equal {k} [r command getkeys migrate h 1 k 0 5000 COPY REPLACE AUTH pw]
        assert_equal {a b c} [r command getkeys migrate h 1 "" 0 5000 KEYS a b c]
        # A password spelled "keys" is not the KEYS option.
        assert_equal {a b} [r command getkeys migrate h 1 "" 0 5000 AUTH keys KEYS a b]
        assert_equal {a} [r command getkeys migrate h 1 "" 0 5000 AUTH2 keys keys REPLACE KEYS a]
    }

    test "SLOWLOG shows MIGRATE's AUTH and AUTH2 arguments redacted" {
        r -1 config set slowlog-log-slower-than 0
        r -1 slowlog reset
        r -1 migrate $dst_host $dst_port nokey 9 5000 AUTH secret
        r -1 migrate $dst_host $dst_port nokey 9 5000 AUTH2 someuser secret2
        set entries [r -1 slowlog get 2]
        r -1 config set slowlog-log-slower-than 10000
        assert_equal [list migrate $dst_host $dst_port nokey 9 5000 AUTH2 (redacted) (redacted)] \
            [lindex $entries 0 3]
        assert_equal [list migrate $dst_host $dst_port nokey 9 5000 AUTH (redacted)] [lindex $entries 1 3]
    }
}
}

start_server {} {
start_server {overrides {requirepass targetpw}} {
    set dst_host [srv 0 host]
    set dst_port [srv 0 port]
    r auth targetpw

    test "MIGRATE AUTH with the target's password" {
        r -1 set k v
        assert_equal OK [r -1 migrate $dst_host $dst_port k 0 5000 AUTH targetpw]
        assert_equal v [r get k]
        assert_equal 0 [r -1 exists k]
    }

    test "MIGRATE AUTH2 default and the target's password" {
        r -1 set k2 v2
        assert_equal OK [r -1 migrate $dst_host $dst_port k2 0 5000 AUTH2 default targetpw]
        assert_equal v2 [r get k2]
    }

    test "MIGRATE with no password or a wrong one: the target's error, the key stays" {
        r -1 set k3 v3
        # A new connection to the target is not authenticated (a failed
        # AUTH would leave an authenticated one as it was).
        r client kill type normal skipme yes
        assert_error "ERR Target instance replied with error: NOAUTH Authentication required." {
            r -1 migrate $dst_host $dst_port k3 0 5000
        }
        assert_error "ERR Target instance replied with error: WRONGPASS*" {
            r -1 migrate $dst_host $dst_port k3 0 5000 AUTH wrong
        }
        assert_error "ERR Target instance replied with error: WRONGPASS*" {
            r -1 migrate $dst_host $dst_port k3 0 5000 AUTH2 default wrong
        }
        assert_equal v3 [r -1 get k3]
        assert_equal 0 [r exists k3]
        assert_equal OK [r -1 migrate $dst_host $dst_port k3 0 5000 AUTH targetpw]
        assert_equal v3 [r get k3]
    }
}
}

# Redis 7.0 reads DUMP payloads up to RDB version 10; ours are RDB 11, as
# Valkey 8's are, so Redis 7.0 refuses them as Valkey 8's: the error says so.
set ::migrate_redis_binary /usr/bin/redis-server
start_server {tags {"valkey-only" "rdma:skip:own-server"}} {
    test "MIGRATE to Redis 7.0: the payload is refused with a clear error, the key stays" {
        if {![file executable $::migrate_redis_binary]} { skip "no $::migrate_redis_binary" }
        set dir [tmp_path redis-target]
        file mkdir $dir
        set port [::vk::alloc_port]
        set log [file join $dir redis.log]
        set pid [exec $::migrate_redis_binary --port $port --bind 127.0.0.1 --save "" --dir $dir \
                     --logfile $log >/dev/null 2>@1 &]
        wait_for_condition 200 20 {[file exists $log] && [string match "*Ready to accept*" [exec cat $log]]} {
            catch {exec kill -KILL $pid}
            fail "redis-server did not start"
        }
        r set k v
        catch {r migrate 127.0.0.1 $port k 0 5000} err
        set c [::vk::client_open 127.0.0.1 $port]
        set target_has [$c exists k]
        $c close
        exec kill -KILL $pid
        assert_equal "ERR Target instance replied with error: ERR DUMP payload version or checksum are wrong" $err
        assert_equal v [r get k]
        assert_equal 0 $target_has
    }
} ;# start_server
} ;# tags
