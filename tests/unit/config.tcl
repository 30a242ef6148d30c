# CONFIG GET / SET / REWRITE / RESETSTAT and config-file loading.
#
# Error texts are Valkey 8's exactly, because tools match on them.  Tests
# whose expected behaviour differs from Redis 7 (new options, new defaults,
# new enum values, the FATAL banner's version text) are tagged valkey-only, so
# `./runtest --single tests/unit/config --tags -valkey-only --server-binary
# /usr/bin/redis-server` checks the rest against Redis.

# ---------------------------------------------------------------- helpers

# Starts the server binary directly with `args` (config file and/or
# --options), waits until it is ready and returns {pid port client}.
# Used where the harness's own start_server cannot express the test
# (a server started from a rewritten file, or without any config file).
# Every pid is remembered: servers a failed test left running are stopped
# when the worker exits, even if the file was aborted.
set ::cfg_raw_pids {}
proc cfg_stop_leftovers {args} {
    foreach pid $::cfg_raw_pids {
        if {[::vk::pid_alive $pid]} { ::vk::kill_pid $pid }
    }
}
trace add execution exit enter cfg_stop_leftovers
proc cfg_start_raw {port args} {
    set dir [tmp_path raw.$port]
    file mkdir $dir
    set out [file join $dir stdout]
    set pid [exec $::vk::cfg(binary) {*}$args >$out 2>@1 &]
    lappend ::cfg_raw_pids $pid
    set status [::vk::wait_ready $pid $out]
    if {$status ne "ready"} {
        ::vk::kill_pid $pid
        error "raw server did not start ($status): [::vk::log_tail $out]"
    }
    return [list $pid $port [::vk::client_open 127.0.0.1 $port]]
}

proc cfg_stop_raw {srv} {
    lassign $srv pid port c
    catch {$c close}
    ::vk::kill_pid $pid
}

# Runs the binary with `args`, expecting it to exit at once. Returns
# {exit_code output}; a server that keeps running is killed after 20 s
# (exit code 124).
proc cfg_run_and_exit {args} {
    set code [catch {exec timeout 20 $::vk::cfg(binary) {*}$args 2>@1} out opts]
    set status 0
    if {$code} {
        set ec [dict get $opts -errorcode]
        if {[lindex $ec 0] eq "CHILDSTATUS"} { set status [lindex $ec 2] }
    }
    return [list $status $out]
}

proc cfg_write_file {name text} {
    set path [tmp_path $name]
    set fh [open $path w]
    puts -nonewline $fh $text
    close $fh
    return $path
}

proc cfg_read_file {path} {
    set fh [open $path]
    set text [read $fh]
    close $fh
    return $text
}

# Sets `name` to `value`, checks CONFIG GET returns `expected`, restores.
proc cfg_roundtrip {name value expected} {
    set old [lindex [r config get $name] 1]
    assert_equal OK [r config set $name $value] "CONFIG SET $name $value"
    assert_equal [list $name $expected] [r config get $name] "CONFIG GET $name"
    r config set $name $old
    assert_equal [list $name $old] [r config get $name] "restoring $name"
}

# ---------------------------------------------------------------- GET / SET

# Redis logs a WARNING when maxmemory goes below the memory in use.
start_server {tags {"config"} log_allow {"*maxmemory value set via CONFIG SET*"}} {
    test "CONFIG SET then GET reads back every modifiable option" {
        foreach {name value expected} {
            protected-mode no no
            timeout 100 100
            tcp-keepalive 60 60
            maxclients 100 100
            loglevel warning warning
            crash-log-enabled no no
            hz 20 20
            dynamic-hz no no
            maxmemory 10mb 10485760
            maxmemory 1gb 1073741824
            maxmemory 100 100
            maxmemory-policy allkeys-lru allkeys-lru
            maxmemory-policy VOLATILE-TTL volatile-ttl
            maxmemory-samples 10 10
            maxmemory-eviction-tenacity 50 50
            lfu-log-factor 5 5
            lfu-decay-time 2 2
            active-expire-effort 5 5
            lazyfree-lazy-eviction no no
            lazyfree-lazy-expire no no
            lazyfree-lazy-server-del no no
            lazyfree-lazy-user-del no no
            lazyfree-lazy-user-flush no no
            client-query-buffer-limit 2mb 2097152
            proto-max-bulk-len 2mb 2097152
            slowlog-log-slower-than -1 -1
            slowlog-max-len 10 10
            latency-monitor-threshold 100 100
            latency-tracking no latency-tracking-placeholder
            busy-reply-threshold 1000 1000
            notify-keyspace-events KEA AKE
            notify-keyspace-events Exg gxE
            notify-keyspace-events "" ""
            replica-serve-stale-data no no
            replica-read-only no no
            appendonly no no
            save "100 10" "100 10"
            save "100 10 200 20" "100 10 200 20"
            save "" ""
        } {
            if {$expected eq "latency-tracking-placeholder"} { set expected $value }
            cfg_roundtrip $name $value $expected
        }
    }

    test "Boolean options accept YES/No in any case" {
        cfg_roundtrip protected-mode NO no
        cfg_roundtrip dynamic-hz Yes yes
    }

    test "client-output-buffer-limit: set one class, GET shows all" {
        cfg_roundtrip client-output-buffer-limit "normal 1mb 2mb 3" \
            "normal 1048576 2097152 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60"
        cfg_roundtrip client-output-buffer-limit "replica 1mb 2mb 3 pubsub 0 0 0" \
            "normal 0 0 0 slave 1048576 2097152 3 pubsub 0 0 0"
        cfg_roundtrip client-output-buffer-limit "slave 1gb 512mb 10" \
            "normal 0 0 0 slave 1073741824 536870912 10 pubsub 33554432 8388608 60"
    }

    test "hz above the maximum is clamped to 500" {
        r config set hz 1000
        set v [r config get hz]
        r config set hz 10
        set v
    } {hz 500}

    test "requirepass is set, read back and cleared with an empty string" {
        r config set requirepass s3cret
        catch {r auth s3cret}
        assert_equal {requirepass s3cret} [r config get requirepass]
        r config set requirepass ""
        r config get requirepass
    } {requirepass {}}

    tags {valkey-only} {
        test "event-loop-busy-poll (this server's own option) reads back, bounded to 1000" {
            cfg_roundtrip event-loop-busy-poll 0 0
            cfg_roundtrip event-loop-busy-poll 50 50
            assert_error "ERR CONFIG SET failed (possibly related to argument 'event-loop-busy-poll') - argument must be between 0 and 1000 inclusive" {
                r config set event-loop-busy-poll 1001
            }
        }
    }

    tags {valkey-only} {
        test "loglevel nothing is accepted" {
            cfg_roundtrip loglevel nothing nothing
        }
    }

    test "Aliases: lua-time-limit, slave-read-only, slave-serve-stale-data" {
        r config set lua-time-limit 1234
        assert_equal {busy-reply-threshold 1234} [r config get busy-reply-threshold]
        assert_equal {lua-time-limit 1234} [r config get lua-time-limit]
        r config set busy-reply-threshold 5000
        r config set slave-read-only no
        assert_equal {replica-read-only no} [r config get replica-read-only]
        r config set replica-read-only yes
        assert_equal {slave-read-only yes} [r config get slave-read-only]
        r config set slave-serve-stale-data yes
        r config get replica-serve-stale-data
    } {replica-serve-stale-data yes}

    tags {rdma:skip:tcp-config shm:skip:tcp-config} {
        test "Defaults of the documented options" {
            set got [dict create {*}[r config get *]]
            foreach {name value} {
                port-skip {} tcp-backlog 511 timeout 0 tcp-keepalive 300
                hz 10 dynamic-hz yes maxmemory 0 maxmemory-policy noeviction
                maxmemory-samples 5 maxmemory-eviction-tenacity 10
                lfu-log-factor 10 lfu-decay-time 1 active-expire-effort 1
                client-query-buffer-limit 1073741824 proto-max-bulk-len 536870912
                client-output-buffer-limit {normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60}
                slowlog-log-slower-than 10000 slowlog-max-len 128
                latency-monitor-threshold 0 latency-tracking yes
                busy-reply-threshold 5000 enable-debug-command no
                enable-protected-configs no crash-log-enabled yes
                set-proc-title yes io-threads 1 replica-serve-stale-data yes
                replica-read-only yes notify-keyspace-events {} tls-port 0
                protected-mode yes unixsocketperm 0 requirepass {}
                dbfilename dump.rdb loglevel notice
                hash-max-listpack-entries 512 hash-max-listpack-value 64
                set-max-intset-entries 512 zset-max-listpack-entries 128
                zset-max-listpack-value 64 list-max-listpack-size -2
                list-compress-depth 0 hll-sparse-max-bytes 3000
                stream-node-max-bytes 4096 stream-node-max-entries 100
            } {
                if {$name eq "port-skip"} continue
                # ./runtest --io-threads starts every server with io-threads 4.
                if {$name eq "io-threads" && [::vk::io_threads_mode]} continue
                assert_equal $value [dict get $got $name] "default of $name"
            }
        }
    }

    tags {valkey-only rdma:skip:tcp-config} {
        test "Valkey 8 defaults: lazyfree yes, syslog-ident valkey, RDMA options" {
            set got [dict create {*}[r config get *]]
            foreach {name value} {
                lazyfree-lazy-eviction yes lazyfree-lazy-expire yes
                lazyfree-lazy-server-del yes lazyfree-lazy-user-del yes
                lazyfree-lazy-user-flush yes syslog-ident valkey
                rdma-port 0 rdma-bind {} rdma-rx-size 1048576
                rdma-completion-vector -1 set-max-listpack-entries 128
                set-max-listpack-value 64
            } {
                assert_equal $value [dict get $got $name] "default of $name"
            }
        }
    }

    test "valkey.conf documents every option CONFIG GET lists (old names too)" {
        # A name counts as documented when it appears as a whole word (an
        # example directive "# name value" or an "Old name:" mention).
        set text [cfg_read_file [file join $::vk::cfg(root) valkey.conf]]
        set words [dict create]
        foreach w [regexp -all -inline {[a-z][a-z0-9_-]*} $text] { dict set words $w 1 }
        set missing {}
        foreach {name value} [r config get *] {
            if {![dict exists $words $name]} { lappend missing $name }
        }
        assert_equal {} $missing
    }

    test "CONFIG GET dir returns the working directory" {
        assert_equal [list dir [file normalize [srv dir]]] [r config get dir]
    }

    test "CONFIG GET bind shows every address" {
        r config get bind
    } {bind 127.0.0.1}

    test "CONFIG GET with a glob matches names and aliases" {
        set got [dict create {*}[r config get maxmemory*]]
        foreach name {maxmemory maxmemory-policy maxmemory-samples maxmemory-eviction-tenacity} {
            assert {[dict exists $got $name]}
        }
        foreach name [dict keys $got] { assert_match maxmemory* $name }
        set got [dict create {*}[r config get *read-only]]
        assert {[dict exists $got replica-read-only]}
        assert {[dict exists $got slave-read-only]}
    }

    tags {tls:skip:tcp-port} {
        test "CONFIG GET with several patterns, each name once" {
            set got [r config get port hz]
            assert_equal 4 [llength $got]
            assert_equal 10 [dict get $got hz]
            assert_equal [srv port] [dict get $got port]
            assert_equal 2 [llength [r config get port port]]
            assert_equal 2 [llength [r config get port p?rt]]
            assert_equal 6 [llength [r config get lazyfree-lazy-user-* port]]
        }
    }

    test "CONFIG GET is case-insensitive and ignores unknown names" {
        # An exact name is echoed as typed; a glob reports the real name.
        assert_equal {HZ 10} [r config get HZ]
        assert_equal {hz 10} [r config get H?]
        assert_equal {} [r config get no-such-option]
        assert_equal {} [r config get no-such-*]
    }

    test "CONFIG GET replies with a map under RESP3" {
        set c [vk_client]
        $c hello 3
        $c readraw 1
        $c send config get hz
        $c flush
        set first [$c read]
        $c readraw 0
        $c close
        set first
    } {%1}

    test "CONFIG SET of several options at once" {
        assert_equal OK [r config set maxmemory 10mb hz 20 timeout 7]
        assert_equal {hz 20 maxmemory 10485760 timeout 7} [lsort -stride 2 [r config get hz maxmemory timeout]]
        r config set maxmemory 0 hz 10 timeout 0
    } OK

    test "CONFIG SET with one bad value changes nothing" {
        r config set hz 10 timeout 0 maxmemory-policy noeviction
        assert_error "*CONFIG SET failed (possibly related to argument 'maxmemory-policy')*" {
            r config set hz 30 timeout 5 maxmemory-policy bogus
        }
        lsort -stride 2 [r config get hz timeout maxmemory-policy]
    } {hz 10 maxmemory-policy noeviction timeout 0}

    test "CONFIG SET with an unknown option changes nothing" {
        assert_error "ERR Unknown option or number of arguments for CONFIG SET - 'foo'" {
            r config set hz 30 foo bar
        }
        r config get hz
    } {hz 10}

    test "CONFIG SET errors are Valkey's" {
        foreach {name value err} {
            port abc "argument couldn't be parsed into an integer"
            port 70000 "argument must be between 0 and 65535 inclusive"
            port -1 "argument must be between 0 and 65535 inclusive"
            maxmemory 1zz "argument must be a memory value"
            maxmemory -1 "argument must be a memory value"
            client-query-buffer-limit 1000 "argument must be between 1048576 and 9223372036854775807 inclusive"
            proto-max-bulk-len 10 "argument must be between 1048576 and 9223372036854775807 inclusive"
            maxclients 0 "argument must be between 1 and 4294967295 inclusive"
            active-expire-effort 11 "argument must be between 1 and 10 inclusive"
            active-expire-effort 0 "argument must be between 1 and 10 inclusive"
            lfu-log-factor -1 "argument must be between 0 and 2147483647 inclusive"
            timeout -1 "argument must be between 0 and 2147483647 inclusive"
            slowlog-max-len -1 "argument must be between 0 and 9223372036854775807 inclusive"
            busy-reply-threshold -1 "argument must be between 0 and 9223372036854775807 inclusive"
            maxclients -1 "argument must be between 1 and 4294967295 inclusive"
            hz x "argument couldn't be parsed into an integer"
            appendonly maybe "argument must be 'yes' or 'no'"
            protected-mode 1 "argument must be 'yes' or 'no'"
            maxmemory-policy foo "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"
            notify-keyspace-events Q "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
            save "100 x" "Invalid save parameters"
            save "100" "Invalid save parameters"
            client-output-buffer-limit "foo 1 2 3" "Invalid client class specified in buffer limit configuration."
            client-output-buffer-limit "normal 1 2" "Wrong number of arguments in buffer limit configuration."
            client-output-buffer-limit "normal 0 0 -1" "Error in hard, soft or soft_seconds setting in buffer limit configuration."
            client-output-buffer-limit "normal x 0 0" "Error in hard, soft or soft_seconds setting in buffer limit configuration."
        } {
            assert_error "ERR CONFIG SET failed (possibly related to argument '$name') - $err" {
                r config set $name $value
            }
        }
    }

    tags {valkey-only} {
        test "loglevel error lists 'nothing'" {
            assert_error "*must be one of the following: debug, verbose, notice, warning, nothing" {
                r config set loglevel foo
            }
        }
    }

    test "Immutable options refuse CONFIG SET" {
        foreach name {daemonize databases io-threads tcp-backlog unixsocket unixsocketperm
                      logfile syslog-enabled syslog-ident enable-debug-command
                      enable-protected-configs set-proc-title pidfile} {
            assert_error "ERR CONFIG SET failed (possibly related to argument '$name') - can't set immutable config" {
                r config set $name 1
            }
        }
    }

    tags {valkey-only} {
        test "rdma-completion-vector refuses CONFIG SET; rdma-rx-size takes it (for new connections)" {
            assert_error "*argument 'rdma-completion-vector') - can't set immutable config" {
                r config set rdma-completion-vector 1
            }
            assert_equal OK [r config set rdma-rx-size 65536]
            assert_equal {rdma-rx-size 65536} [r config get rdma-rx-size]
            r config set rdma-rx-size 1048576
        }
    }

    test "Protected options refuse CONFIG SET by default" {
        foreach name {dir dbfilename} {
            assert_error "ERR CONFIG SET failed (possibly related to argument '$name') - can't set protected config" {
                r config set $name /tmp
            }
        }
    }

    test "A duplicated option (or its alias) is refused" {
        assert_error "ERR CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter" {
            r config set hz 1 hz 2
        }
        # A name and its alias are distinct arguments: the later one wins.
        assert_equal OK [r config set lua-time-limit 1 busy-reply-threshold 2]
        assert_equal {busy-reply-threshold 2} [r config get busy-reply-threshold]
        r config set busy-reply-threshold 5000
        r config get hz
    } {hz 10}

    test "CONFIG SET with a missing value is an error" {
        assert_error "ERR syntax error" {
            r config set hz 1 timeout
        }
        assert_error "ERR wrong number of arguments for 'config|set' command" {
            r config set hz
        }
        assert_error "ERR wrong number of arguments for 'config|get' command" {
            r config get
        }
    }

    tags {valkey-only rdma:skip:tcp-config} {
        test "Transports not built in refuse a non-default port" {
            set info [r config get rdma-port]
            if {[catch {r config set rdma-port 0} err]} { fail "rdma-port 0: $err" }
            if {[catch {r config set rdma-port [expr {[srv port] + 50}]} err]} {
                # Not built in: refused by the config layer. Built in, on a
                # host without RDMA devices: the listener cannot be opened.
                if {![string match "*RDMA support is not built into this server*" $err]} {
                    assert_match "*Unable to listen on this port*" $err
                }
            } else {
                r config set rdma-port 0
            }
            if {[catch {r config set rdma-bind 127.0.0.1} err]} {
                assert_match "*RDMA support is not built into this server*" $err
            } else {
                r config set rdma-bind ""
            }
        }
    }

    tags {rdma:skip:tcp-config} {
        test "CONFIG SET port moves the listener" {
            set newport [::vk::alloc_port]
            r config set port $newport
            set c [::vk::client_open 127.0.0.1 $newport]
            assert_equal PONG [$c ping]
            assert_equal [list port $newport] [$c config get port]
            $c config set port [srv port]
            $c close
            r close
            r ping
        } PONG
    }

    test "CONFIG RESETSTAT" {
        r config resetstat
    } OK

    test "CONFIG HELP lists the subcommands" {
        set help [r config help]
        assert_match "*GET <pattern>*" $help
        assert_match "*REWRITE*" $help
    }
}

start_server {tags {"config"} log_allow {"*listen*" "*bind*" "*Address already in use*" "*ailed*"}} {
    tags {tls:skip:tcp-port} {
        test "A failing apply (port in use) rolls every option back" {
            set busy [::vk::alloc_port]
            set sock [socket -server {apply {{c a p} {close $c}}} -myaddr 127.0.0.1 $busy]
            r config set hz 10
            set code [catch {r config set hz 33 port $busy} err]
            close $sock
            assert_equal 1 $code
            assert_match "*argument 'port')*" $err
            r close
            list [r config get hz] [r config get port]
        } [list {hz 10} [list port [srv port]]]
    }
}

# ---------------------------------------------------------------- CONFIG SET, value by value

# Reads tests/assets/config-set-table.txt: a list of cases {name value
# outcome text condition} (the file's header says what each word means).
proc cfg_set_table {} {
    set path [file join $::vk::cfg(root) tests assets config-set-table.txt]
    set cases {}
    foreach line [split [cfg_read_file $path] \n] {
        if {$line eq "" || [string index $line 0] eq "#"} continue
        if {[llength $line] != 5} { error "config-set-table.txt: bad line: $line" }
        lappend cases $line
    }
    return $cases
}

# The table's conditions that do not hold for the server under test.
proc cfg_set_table_unmet {} {
    set unmet {}
    # tlsidle: TLS built in but not in use (no TLS port, no certificate).
    set tls_in_use [expr {[lindex [r config get tls-port] 1] != 0 || [lindex [r config get tls-cert-file] 1] ne ""}]
    set protocols [lindex [r config get tls-protocols] 1]
    set built [expr {![catch {r config set tls-protocols TLSv1.2}]}]
    if {$built} { r config set tls-protocols $protocols }
    if {$tls_in_use || !$built} { lappend unmet tlsidle }
    return $unmet
}

# Runs the cases of one option; each is set, checked, and the option put
# back. Returns the cases whose outcome differed, one line each.
proc cfg_check_set_cases {name cases} {
    set wrong {}
    foreach case $cases {
        lassign $case - value outcome text
        set before [lindex [r config get $name] 1]
        set code [catch {r config set $name $value} reply]
        set after [lindex [r config get $name] 1]
        if {$outcome eq "ok"} {
            if {$code || $reply ne "OK" || $after ne $text} {
                lappend wrong "'$value': expected OK and '$text', got '$reply' and '$after'"
            }
        } else {
            set expected "ERR CONFIG SET failed (possibly related to argument '$name') - $text"
            if {!$code || $reply ne $expected || $after ne $before} {
                lappend wrong "'$value': expected '$expected', got '$reply' (value '$before' -> '$after')"
            }
        }
        if {$after ne $before} { r config set $name $before }
    }
    return $wrong
}

# One test per option (and per alias): the values the table lists are
# accepted or refused as Valkey 8 does, with its error texts, and CONFIG
# GET shows what Valkey shows. Cases where Valkey 8 differs from Redis 7.0
# are a second, valkey-only test, so that `--server-binary
# /usr/bin/redis-server --tags -valkey-only` checks the rest of the table.
start_server {tags {"config"} overrides {enable-protected-configs yes}
              log_allow {"*maxmemory value set via CONFIG SET*" "*No tls-cert-file or tls-key-file configured*"
                         "*Failed applying new configuration*" "*oom-score-adj-values configuration may not work*"}} {
    set unmet [cfg_set_table_unmet]
    set cases [cfg_set_table]
    set names {}
    foreach case $cases {
        set name [lindex $case 0]
        if {$name ni $names} { lappend names $name }
        if {[lindex $case 4] in $unmet} continue
        dict lappend by_kind $name,[expr {[lindex $case 4] eq "valkey" ? "valkey" : "common"}] $case
    }
    foreach name $names {
        foreach kind {common valkey} {
            if {![dict exists $by_kind $name,$kind]} continue
            set these [dict get $by_kind $name,$kind]
            set title "CONFIG SET $name accepts and refuses values as Valkey 8 does ([llength $these] cases)"
            if {$kind eq "valkey"} {
                tags {valkey-only} {
                    test "$title (Valkey 8 only)" { assert_equal {} [cfg_check_set_cases $name $these] }
                }
            } else {
                test $title { assert_equal {} [cfg_check_set_cases $name $these] }
            }
        }
    }
}

start_server {tags {"config"}} {
    test "CONFIG SET names a refused value's option as Valkey spells it (the alias if one was used)" {
        assert_error "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value" {
            r config set MAXMEMORY abc
        }
        assert_error "ERR CONFIG SET failed (possibly related to argument 'slave-read-only') - argument must be 'yes' or 'no'" {
            r config set SLAVE-READ-ONLY maybe
        }
    }

    test "CONFIG SET reports the first problem among the names" {
        assert_error "ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config" {
            r config set daemonize no nosuch-option 1
        }
        assert_error "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch-option'" {
            r config set nosuch-option 1 daemonize no
        }
        # Names are all checked before any value.
        assert_error "ERR CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter" {
            r config set maxmemory abc hz 1 hz 2
        }
    }
}

tags {valkey-only rdma:skip:own-server} {
    test "Hidden test directives load from the command line; CONFIG GET finds them by exact name only" {
        set port [::vk::alloc_port]
        set raw [cfg_start_raw $port --port $port --dir [tmp_path {}] --use-exit-on-panic yes --watchdog-period 0 \
                     --events-per-io-thread 5 --cluster-ping-interval 100 --enable-debug-assert yes \
                     --key-load-delay -10 --rdb-key-save-delay 7 --loading-process-events-interval-bytes 4096 \
                     --aof-disable-auto-gc yes]
        set c [lindex $raw 2]
        set got {}
        foreach name {use-exit-on-panic watchdog-period events-per-io-thread cluster-ping-interval
                      enable-debug-assert key-load-delay rdb-key-save-delay loading-process-events-interval-bytes
                      aof-disable-auto-gc} {
            lappend got {*}[$c config get $name]
        }
        set all [dict keys [$c config get *]]
        cfg_stop_raw $raw
        assert_equal {use-exit-on-panic yes watchdog-period 0 events-per-io-thread 5 cluster-ping-interval 100 enable-debug-assert yes key-load-delay -10 rdb-key-save-delay 7 loading-process-events-interval-bytes 4096 aof-disable-auto-gc yes} $got
        foreach name {use-exit-on-panic watchdog-period events-per-io-thread enable-debug-assert} {
            assert {$name ni $all} "$name is hidden from CONFIG GET *"
        }
    }

    test "Deprecated directives are accepted in a config file and are no options" {
        set port [::vk::alloc_port]
        set conf [cfg_write_file deprecated.conf "bind 127.0.0.1\nport $port\ndir [tmp_path {}]\nlist-max-ziplist-entries 5\nlist-max-ziplist-value 64\nlua-replicate-commands yes\n"]
        set raw [cfg_start_raw $port $conf]
        set c [lindex $raw 2]
        set got [list [$c config get lua-replicate-commands] [$c config get list-max-ziplist-entries]]
        set code [catch {$c config set lua-replicate-commands yes} err]
        cfg_stop_raw $raw
        assert_equal {{} {}} $got
        assert_equal 1 $code
        assert_equal "ERR Unknown option or number of arguments for CONFIG SET - 'lua-replicate-commands'" $err
        # With any other number of arguments the line is an error, as in Valkey.
        set conf [cfg_write_file deprecated.conf "lua-replicate-commands yes no\n"]
        lassign [cfg_run_and_exit $conf] status out
        assert_equal 1 $status
        assert_match "*>>> 'lua-replicate-commands yes no'\nBad directive or wrong number of arguments*" $out
    }

    test "use-exit-on-panic yes: a panic ends the server with exit status 1 (no abort)" {
        set port [::vk::alloc_port]
        set out [tmp_path panic.out]
        set status [tmp_path panic.status]
        file delete $status
        set cmd "'$::vk::cfg(binary)' --port $port --bind 127.0.0.1 --save '' --dir '[tmp_path {}]' --use-exit-on-panic yes --enable-debug-command yes --crash-log-enabled no >'$out' 2>&1; echo \$? >'$status'"
        set pid [exec sh -c $cmd &]
        lappend ::cfg_raw_pids $pid
        wait_for_condition 100 50 {![catch {::vk::client_open 127.0.0.1 $port} c]} { fail "server did not start" }
        catch {$c debug panic}
        catch {$c close}
        wait_for_condition 100 50 {[file exists $status] && [file size $status] > 0} { fail "server did not exit" }
        assert_equal 1 [string trim [cfg_read_file $status]]
    }
}

foreach {what text line shown err} {
    "an empty dbfilename" "dbfilename \"\"\n" 1 {dbfilename ""} "dbfilename can't be empty"
    "an empty appendfilename" "appendfilename \"\"\n" 1 {appendfilename ""} "appendfilename can't be empty"
    "an empty appenddirname" "appenddirname \"\"\n" 1 {appenddirname ""} "appenddirname can't be empty"
    "an empty cluster-config-file" "cluster-config-file \"\"\n" 1 {cluster-config-file ""} "cluster-config-file can't be empty"
    "a hidden option out of range" "watchdog-period -1\n" 1 {watchdog-period -1} "argument must be between 0 and 2147483647 inclusive"
    "a save rule of 0 seconds" "save 0 10\n" 1 {save 0 10} "Invalid save parameters"
} {
    tags {valkey-only} {
        test "A config file with $what makes the server exit with a FATAL message" {
            set conf [cfg_write_file fatal.conf $text]
            lassign [cfg_run_and_exit $conf] status out
            assert_equal 1 $status
            assert_match "*Reading the configuration file, at line $line\n>>> '$shown'\n$err*" $out
        }
    }
}

# ---------------------------------------------------------------- REWRITE

start_server {tags {"config"} overrides {maxmemory-samples 7 save "100 10"}} {
    test "CONFIG REWRITE keeps comments and order, replaces lines, appends new options" {
        r config set maxmemory-samples 9 maxmemory 32mb notify-keyspace-events KEA hz 22
        r config set lua-time-limit 1234 client-output-buffer-limit "pubsub 1mb 0 0" save "200 20"
        assert_equal OK [r config rewrite]
        set text [cfg_read_file [srv config_file]]
        # The harness's comment and base lines are still there, in order.
        set comment [string first "# added by the test harness" $text]
        set samples [string first "maxmemory-samples 9" $text]
        set marker [string first "# Generated by CONFIG REWRITE" $text]
        assert {$comment >= 0 && $samples > $comment && $marker > $samples}
        assert_match "*\nbind 127.0.0.1\n*" $text
        # Changed lines replaced in place, one line per option.
        assert_equal 1 [regexp -all -line {^maxmemory-samples } $text]
        assert_equal 1 [regexp -all -line {^save } $text]
        assert_equal 0 [regexp -all -line {^save 100 10$} $text]
        # New options appended below the marker, memory in units.
        assert_match "*maxmemory 32mb*" $text
        assert_match "*notify-keyspace-events*AKE*" $text
        # Options at their default that were not in the file are not added.
        assert_equal 0 [regexp -all -line {^tcp-keepalive } $text]
        assert_equal 0 [regexp -all -line {^maxmemory-policy } $text]
    }

    # Redis 7.0 moves client-output-buffer-limit lines on a second rewrite.
    tags {valkey-only} {
        test "CONFIG REWRITE twice gives the same file" {
            set before [cfg_read_file [srv config_file]]
            r config rewrite
            assert_equal $before [cfg_read_file [srv config_file]]
        }
    }

    tags {rdma:skip:own-server} {
        test "A server started from the rewritten file has the same values" {
            set port [::vk::alloc_port]
            # --port on the command line overrides the file's port line.
            set raw [cfg_start_raw $port [srv config_file] --port $port]
            set c [lindex $raw 2]
            set bad {}
            foreach name {maxmemory-samples maxmemory notify-keyspace-events hz busy-reply-threshold
                          client-output-buffer-limit save bind dir databases appendonly} {
                if {[r config get $name] ne [$c config get $name]} {
                    lappend bad "$name: [r config get $name] vs [$c config get $name]"
                }
            }
            set got_port [$c config get port]
            cfg_stop_raw $raw
            assert_equal {} $bad
            assert_equal [list port $port] $got_port
        }
    }

    test "An option set back to its default is rewritten, not duplicated" {
        r config set maxmemory 0
        r config rewrite
        set text [cfg_read_file [srv config_file]]
        assert_equal 1 [regexp -all -line {^maxmemory 0$} $text]
        assert_equal 1 [regexp -all -line {^# Generated by CONFIG REWRITE$} $text]
    }
}

tags {rdma:skip:own-server} {
    test "CONFIG REWRITE without a config file is an error" {
        set port [::vk::alloc_port]
        file mkdir [tmp_path noconf]
        set raw [cfg_start_raw $port --port $port --bind 127.0.0.1 --save "" --dir [tmp_path noconf]]
        set c [lindex $raw 2]
        set code [catch {$c config rewrite} err]
        cfg_stop_raw $raw
        list $code $err
    } {1 {ERR The server is running without a config file}}
}

# ---------------------------------------------------------------- loading

tags {rdma:skip:own-server} {
    test "Command-line options override the config file" {
        set port [::vk::alloc_port]
        set conf [cfg_write_file cmdline.conf "bind 127.0.0.1\nport 1\nhz 15\nsave \"\"\nmaxmemory 1mb\ndir [tmp_path {}]\n"]
        set raw [cfg_start_raw $port $conf --port $port --hz 25 --save "60 1 30 2"]
        set c [lindex $raw 2]
        set got [list [$c config get hz] [$c config get save] [$c config get maxmemory]]
        cfg_stop_raw $raw
        set got
    } {{hz 25} {save {60 1 30 2}} {maxmemory 1048576}}
}

tags {rdma:skip:own-server} {
    test "Several save lines in a file add up and replace the default" {
        set port [::vk::alloc_port]
        set conf [cfg_write_file save.conf "bind 127.0.0.1\nport $port\nsave 900 1\nsave 300 10\ndir [tmp_path {}]\n"]
        set raw [cfg_start_raw $port $conf]
        set got [[lindex $raw 2] config get save]
        cfg_stop_raw $raw
        set got
    } {save {900 1 300 10}}
}

foreach {what text line shown err} {
    "a bad value" "bind 127.0.0.1\nport \"abc\"\n" 2 {port "abc"} "argument couldn't be parsed into an integer"
    "an unknown directive" "# comment\n\nfoo bar\n" 3 {foo bar} "Bad directive or wrong number of arguments"
    "too many arguments" "port 1 2\n" 1 {port 1 2} "wrong number of arguments"
    "unbalanced quotes" "port \"abc\n" 1 {port "abc} "Unbalanced quotes in configuration line"
    "an out-of-range value" "hz 10\nport 70000\n" 2 {port 70000} "argument must be between 0 and 65535 inclusive"
    "a bad enum" "maxmemory-policy lru\n" 1 {maxmemory-policy lru} "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"
} {
    test "A config file with $what makes the server exit with a FATAL message" {
        set conf [cfg_write_file fatal.conf $text]
        lassign [cfg_run_and_exit $conf] status out
        assert_equal 1 $status
        assert_match "*\*\*\* FATAL CONFIG FILE ERROR (*) \*\*\**" $out
        assert_match "*Reading the configuration file, at line $line\n>>> '$shown'\n$err*" $out
    }
}

tags {valkey-only} {
    test "The FATAL banner names the Valkey version" {
        set conf [cfg_write_file fatal.conf "foo bar\n"]
        lassign [cfg_run_and_exit $conf] status out
        assert_match "*FATAL CONFIG FILE ERROR (Version 8.*) ***" $out
    }
}

test "A bad command-line option is reported like a config line" {
    lassign [cfg_run_and_exit --port 1 --hz abc] status out
    assert_equal 1 $status
    assert_match "*>>> 'hz \"abc\"'\nargument couldn't be parsed into an integer*" $out
}

test "A missing config file makes the server exit" {
    lassign [cfg_run_and_exit [tmp_path no-such.conf]] status out
    assert_equal 1 $status
    assert_match "*Fatal error, can't open config file '*no-such.conf': No such file or directory*" $out
}

# ---------------------------------------------------------------- Valkey 8.0's valkey.conf

# Everything below is about this server's coverage of Valkey 8.0's
# valkey.conf and of features it refuses (Redis 7.0 has neither).
tags {valkey-only} {

    proc cfg_refute_match {pattern actual} {
        if {[string match $pattern $actual]} { fail "'$pattern' should not match: $actual" }
    }

    # Reads tests/assets/valkey-8.0-full.conf into a dict: option name -> the
    # value CONFIG GET should show (memory units turned into bytes, the three
    # client-output-buffer-limit lines into one value, "replica" shown as
    # "slave" as Valkey 8 does).
    proc cfg_full_expected {} {
        set text [cfg_read_file [file join $::vk::cfg(root) tests assets valkey-8.0-full.conf]]
        set expected [dict create]
        set obuf {}
        foreach line [split $text \n] {
            set line [string trim $line]
            if {$line eq "" || [string index $line 0] eq "#"} continue
            set words {}
            foreach w [lrange $line 1 end] {
                if {[regexp {^([0-9]+)(kb|mb|gb)$} $w -> n unit]} {
                    set w [expr {$n * [dict get {kb 1024 mb 1048576 gb 1073741824} $unit]}]
                }
                lappend words $w
            }
            set name [lindex $line 0]
            if {$name eq "client-output-buffer-limit"} {
                if {[lindex $words 0] eq "replica"} { lset words 0 slave }
                lappend obuf {*}$words
                dict set expected $name [join $obuf " "]
            } else {
                dict set expected $name [join $words " "]
            }
        }
        return $expected
    }

    tags {rdma:skip:own-server} {
        test "Valkey 8.0's full valkey.conf loads and CONFIG GET reports every default" {
            set expected [cfg_full_expected]
            assert {[dict size $expected] > 180}
            set port [::vk::alloc_port]
            set dir [tmp_path full-conf]
            file mkdir $dir
            set conf [file join $::vk::cfg(root) tests assets valkey-8.0-full.conf]
            # The file's port and dir lines are overridden: the test needs its own.
            set raw [cfg_start_raw $port $conf --port $port --dir $dir]
            set c [lindex $raw 2]
            set bad {}
            dict for {name value} $expected {
                if {$name in {port dir}} continue
                set got [$c config get $name]
                if {$got ne [list $name $value]} { lappend bad "$name: expected '$value', got '$got'" }
            }
            cfg_stop_raw $raw
            assert_equal {} $bad
        }
    }

    start_server {tags {"config"}} {
        test "CONFIG SET then GET of the options added for Valkey 8.0's valkey.conf" {
            foreach {name value expected} {
                hide-user-data-from-log no no
                extended-redis-compatibility yes yes
                bind-source-addr 127.0.0.1 127.0.0.1
                crash-memcheck-enabled no no
                shutdown-timeout 3 3
                shutdown-on-sigterm "nosave now" "nosave now"
                shutdown-on-sigterm "force save" "save force"
                shutdown-on-sigint default default
                shutdown-on-sigint NOW now
                propagation-error-behavior panic panic
                propagation-error-behavior panic-on-replicas panic-on-replicas
                oom-score-adj-values "1 2 3" "1 2 3"
                jemalloc-bg-thread no no
                activerehashing no no
                active-defrag-ignore-bytes 1mb 1048576
                active-defrag-threshold-lower 20 20
                active-defrag-cycle-max 50 50
                max-new-connections-per-cycle 50 50
                max-new-tls-connections-per-cycle 5 5
                loading-process-events-interval-bytes 4096 4096
                ignore-warnings ARM64-COW-BUG ARM64-COW-BUG
                availability-zone az-1 az-1
                acllog-max-len 10 10
                acl-pubsub-default allchannels allchannels
                tls-session-cache-size 100 100
                appendfsync always always
                appendfsync no no
                no-appendfsync-on-rewrite yes yes
                auto-aof-rewrite-percentage 50 50
                auto-aof-rewrite-min-size 1mb 1048576
                aof-load-truncated no no
                aof-use-rdb-preamble no no
                aof-timestamp-enabled yes yes
                aof-rewrite-incremental-fsync no no
                primaryauth secret secret
                primaryuser repl repl
                repl-diskless-sync no no
                repl-diskless-sync-delay 0 0
                repl-diskless-sync-max-replicas 2 2
                repl-diskless-load swapdb swapdb
                repl-diskless-load on-empty-db on-empty-db
                dual-channel-replication-enabled yes yes
                repl-ping-replica-period 3 3
                repl-timeout 30 30
                repl-disable-tcp-nodelay yes yes
                repl-backlog-size 10mb 10485760
                repl-backlog-ttl 0 0
                replica-priority 5 5
                replica-announced no no
                replica-ignore-disk-write-errors yes yes
                min-replicas-to-write 2 2
                min-replicas-max-lag 3 3
                replica-announce-ip 10.0.0.1 10.0.0.1
                replica-announce-port 7000 7000
                replica-lazy-flush no no
                replica-ignore-maxmemory no no
                cluster-node-timeout 5000 5000
                cluster-require-full-coverage no no
                cluster-preferred-endpoint-type hostname hostname
                cluster-announce-hostname node1 node1
                cluster-link-sendbuf-limit 1mb 1048576
                latency-tracking-info-percentiles "50 99.99" "50 99.99"
                latency-tracking-info-percentiles "" ""
                locale-collate C C
            } {
                cfg_roundtrip $name $value $expected
            }
        }

        test "Old names of the replication options are aliases" {
            r config set masterauth pw1 masteruser u1 slave-priority 7 min-slaves-to-write 1
            r config set min-slaves-max-lag 4 repl-ping-slave-period 2 slave-announce-ip 1.2.3.4
            r config set slave-announce-port 1234 slave-lazy-flush no slave-ignore-maxmemory no
            set got [list [r config get primaryauth] [r config get primaryuser] [r config get replica-priority] \
                         [r config get min-replicas-to-write] [r config get min-replicas-max-lag] \
                         [r config get repl-ping-replica-period] [r config get replica-announce-ip] \
                         [r config get replica-announce-port] [r config get replica-lazy-flush] \
                         [r config get replica-ignore-maxmemory] [r config get masterauth]]
            r config set primaryauth "" primaryuser "" replica-priority 100 min-replicas-to-write 0
            r config set min-replicas-max-lag 10 repl-ping-replica-period 10 replica-announce-ip ""
            r config set replica-announce-port 0 replica-lazy-flush yes replica-ignore-maxmemory yes
            set got
        } {{primaryauth pw1} {primaryuser u1} {replica-priority 7} {min-replicas-to-write 1} {min-replicas-max-lag 4} {repl-ping-replica-period 2} {replica-announce-ip 1.2.3.4} {replica-announce-port 1234} {replica-lazy-flush no} {replica-ignore-maxmemory no} {masterauth pw1}}

        test "Bad values of the new options are refused with Valkey's errors" {
            assert_error "*shutdown options SAVE and NOSAVE can't be used simultaneously*" \
                {r config set shutdown-on-sigterm "save nosave"}
            assert_error "*must be one of the following: default, save, nosave, now, force*" \
                {r config set shutdown-on-sigint "soon"}
            assert_error "*must be one of the following: ignore, panic, panic-on-replicas*" \
                {r config set propagation-error-behavior crash}
            assert_error "*must be one of the following: disabled, on-empty-db, swapdb*" \
                {r config set repl-diskless-load maybe}
            assert_error "*Invalid oom-score-adj-values*" {r config set oom-score-adj-values "0 200 3000"}
            assert_error "*wrong number of arguments*" {r config set oom-score-adj-values "0 200"}
            assert_error "*template format is invalid or contains unknown variables*" \
                {r config set proc-title-template "{title} {nosuch}"}
            assert_error "*template format is invalid*" {r config set proc-title-template "\{title"}
            assert_error "*template format is invalid*" {r config set proc-title-template "  "}
            assert_error "*Invalid locale name*" {r config set locale-collate no-such-locale}
            assert_error "*latency-tracking-info-percentiles*" {r config set latency-tracking-info-percentiles "50 101"}
            assert_error "*can't set immutable config*" {r config set always-show-logo yes}
            assert_error "*can't set immutable config*" {r config set enable-module-command yes}
            assert_error "*can't set immutable config*" {r config set cluster-enabled no}
            assert_error "*can't set immutable config*" {r config set appendfilename x.aof}
            assert_error "*can't set immutable config*" {r config set disable-thp no}
            # Nothing changed.
            list [r config get shutdown-on-sigterm] [r config get oom-score-adj-values] \
                [r config get proc-title-template]
        } {{shutdown-on-sigterm default} {oom-score-adj-values {0 200 800}} {proc-title-template {{title} {listen-addr} {server-mode}}}}

        test "activedefrag yes: taken where jemalloc serves malloc, else Valkey's refusal (memefficiency.tcl)" {
            # jemalloc's count of allocated bytes covers used_memory only
            # when it serves our allocations (not under ASan or valgrind).
            regexp {allocator_allocated:(\d+)} [r info memory] -> allocated
            regexp {used_memory:(\d+)} [r info memory] -> used
            if {$allocated > $used / 2} {
                r config set activedefrag yes
                assert_equal {activedefrag yes} [r config get activedefrag]
                r config set activedefrag no
            } else {
                assert_error "*DISABLED Active defragmentation cannot be enabled*" {r config set activedefrag yes}
                assert_equal {activedefrag no} [r config get activedefrag]
            }
        }

        test "latency-tracking-info-percentiles chooses the INFO latencystats percentiles" {
            r config set latency-tracking-info-percentiles "50 99.99"
            r config resetstat
            r set k v
            set info [r info latencystats]
            r config set latency-tracking-info-percentiles "50 99 99.9"
            assert_match "*latency_percentiles_usec_set:p50=*,p99.99=*" $info
            cfg_refute_match "*p99.9=*" $info
        }

        test "availability-zone, when set, is reported by HELLO and INFO server" {
            set before [r hello 3]
            r config set availability-zone us-east-1a
            set during [r hello 3]
            set info [r info server]
            r config set availability-zone ""
            r hello 2
            assert_match "*availability_zone:us-east-1a\r\n*" $info
            list [dict exists $before availability_zone] [dict get $during availability_zone]
        } {0 us-east-1a}

        test "extended-redis-compatibility makes HELLO answer as Redis 7.2.4" {
            r config set extended-redis-compatibility yes
            set h [r hello 2]
            r config set extended-redis-compatibility no
            set h2 [r hello 2]
            list [dict get $h server] [dict get $h version] [dict get $h2 server]
        } {redis 7.2.4 valkey}

        tags {external:skip} {
            test "proc-title-template sets the process title, at start-up and by CONFIG SET" {
                set pid [srv pid]
                set before [string map {"\0" " "} [cfg_read_file /proc/$pid/cmdline]]
                r config set proc-title-template "{title} {port} {tls-port} custom-title-[srv port]"
                set after [string trim [string map {"\0" " "} [cfg_read_file /proc/$pid/cmdline]]]
                r config set proc-title-template "{title} {listen-addr} {server-mode}"
                assert_match "*:[srv port]*" $before
                # (A run over TLS listens on tls-port, with port 0.)
                assert_match "* *[srv port]* custom-title-[srv port]" $after
            }

            test "oom-score-adj writes /proc/self/oom_score_adj, relative or absolute, and no restores it" {
                set pid [srv pid]
                set base [string trim [cfg_read_file /proc/$pid/oom_score_adj]]
                r config set oom-score-adj-values "100 200 300" oom-score-adj yes
                set rel [string trim [cfg_read_file /proc/$pid/oom_score_adj]]
                r config set oom-score-adj absolute oom-score-adj-values "150 200 300"
                set abs [string trim [cfg_read_file /proc/$pid/oom_score_adj]]
                r config set oom-score-adj no oom-score-adj-values "0 200 800"
                set back [string trim [cfg_read_file /proc/$pid/oom_score_adj]]
                assert_equal [expr {min(1000, $base + 100)}] $rel
                assert_equal 150 $abs
                assert_equal $base $back
            }

            test "A background save child: the third oom-score-adj value, its title from the template" {
                set pid [srv pid]
                set base [string trim [cfg_read_file /proc/$pid/oom_score_adj]]
                r config set oom-score-adj-values "0 50 300" oom-score-adj relative rdb-key-save-delay 1000000
                r set oom-k1 v
                r bgsave
                wait_for_condition 100 20 {[string trim [cfg_read_file /proc/$pid/task/$pid/children]] ne ""} {
                    fail "no background save child"
                }
                set child [lindex [cfg_read_file /proc/$pid/task/$pid/children] 0]
                wait_for_condition 100 20 {
                    [string trim [cfg_read_file /proc/$child/oom_score_adj]] == min(1000, $base + 300)
                } {
                    fail "child oom_score_adj is [cfg_read_file /proc/$child/oom_score_adj]"
                }
                set parent [string trim [cfg_read_file /proc/$pid/oom_score_adj]]
                # The child's title comes from proc-title-template too.
                set title [string map {"\0" " "} [cfg_read_file /proc/$child/cmdline]]
                assert_match "valkey-rdb-bgsave *:[srv port]*" $title
                r bgsave cancel
                r config set oom-score-adj no oom-score-adj-values "0 200 800" rdb-key-save-delay 0
                r del oom-k1
                assert_equal $base $parent
            }
        }
    }

    tags {rdma:skip:own-server} {
        # Starts a server from `text` (a config file) plus our own port and dir;
        # returns {pid port client dir}.
        proc cfg_start_with {name text args} {
            set port [::vk::alloc_port]
            set dir [tmp_path $name]
            file mkdir $dir
            set conf [cfg_write_file $name.conf "bind 127.0.0.1\nport $port\ndir [::vk::conf_quote $dir]\n$text"]
            return [concat [cfg_start_raw $port $conf {*}$args] [list $dir]]
        }

        # Sends sig to the server and waits for it to exit; returns its log.
        proc cfg_signal_and_wait {raw sig} {
            lassign $raw pid port c dir
            catch {$c close}
            exec kill -$sig $pid
            wait_for_condition 250 20 {![::vk::pid_alive $pid]} {
                catch {exec kill -KILL $pid}
                fail "server did not exit on SIG$sig"
            }
            return [cfg_read_file [file join [tmp_path raw.$port] stdout]]
        }

        foreach {sig opt} {TERM shutdown-on-sigterm INT shutdown-on-sigint} {
            test "$opt nosave: SIG$sig with save rules exits without saving" {
                set raw [cfg_start_with nosave-$sig "save 900 1\n$opt nosave\n"]
                [lindex $raw 2] set k v
                set log [cfg_signal_and_wait $raw $sig]
                assert_match "*Received SIG$sig scheduling shutdown*" $log
                assert_match "*ready to exit, bye bye*" $log
                file exists [file join [lindex $raw 3] dump.rdb]
            } 0

            test "$opt save: SIG$sig without save rules saves before exiting" {
                set raw [cfg_start_with save-$sig "save \"\"\n$opt save\n"]
                [lindex $raw 2] set k v
                cfg_signal_and_wait $raw $sig
                file exists [file join [lindex $raw 3] dump.rdb]
            } 1

            test "$opt default: SIG$sig without save rules does not save" {
                set raw [cfg_start_with default-$sig "save \"\"\n"]
                [lindex $raw 2] set k v
                cfg_signal_and_wait $raw $sig
                file exists [file join [lindex $raw 3] dump.rdb]
            } 0
        }

        test "The configuration Valkey's own test suite starts servers with is accepted" {
            # The lines Valkey 8's tests/assets/default.conf is made of (paths
            # replaced by ours), the file the issue says failed at its first line.
            set pidfile [tmp_path harness.pid]
            set raw [cfg_start_with harness [join [list \
                "always-show-logo yes" "notify-keyspace-events KEA" "daemonize no" "pidfile $pidfile" \
                "timeout 0" "loglevel verbose" "logfile ''" "databases 16" "latency-monitor-threshold 1" \
                "repl-diskless-sync-delay 0" "save 900 1" "save 300 10" "save 60 10000" "rdbcompression yes" \
                "dbfilename dump.rdb" "replica-serve-stale-data yes" "appendonly no" "appendfsync everysec" \
                "no-appendfsync-on-rewrite no" "activerehashing yes" "enable-protected-configs yes" \
                "enable-debug-command yes" "enable-module-command yes" "propagation-error-behavior panic" \
                "shutdown-on-sigterm force" "enable-debug-assert yes" ""] \n]]
            lassign $raw pid port c
            set got [list [$c config get propagation-error-behavior] [$c config get shutdown-on-sigterm] \
                         [$c config get enable-debug-assert] [$c config get repl-diskless-sync-delay] [$c module list]]
            set log [cfg_read_file [file join [tmp_path raw.$port] stdout]]
            cfg_stop_raw $raw
            assert_match "* PID: $pid*" $log
            set got
        } {{propagation-error-behavior panic} {shutdown-on-sigterm force} {enable-debug-assert yes} {repl-diskless-sync-delay 0} {}}

        test "always-show-logo yes prints the logo with the PID, mode and port" {
            set raw [cfg_start_with logo "always-show-logo yes\n"]
            lassign $raw pid port
            set log [cfg_read_file [file join [tmp_path raw.$port] stdout]]
            cfg_stop_raw $raw
            assert_match "* PID: $pid\n*" $log
            assert_match "*Port: $port*" $log
            assert_match "*standalone mode*" $log
            cfg_refute_match "*Running mode=*" $log
        }

        test "Without always-show-logo and not on a terminal, one start-up line instead of the logo" {
            set raw [cfg_start_with nologo ""]
            lassign $raw pid port
            set log [cfg_read_file [file join [tmp_path raw.$port] stdout]]
            cfg_stop_raw $raw
            assert_match "*Running mode=standalone, port=$port.*" $log
            cfg_refute_match "* PID: *" $log
        }

        test "rename-command renames a command, and \"\" removes one" {
            set raw [cfg_start_with rename "rename-command set my-set\nrename-command FLUSHALL \"\"\n"]
            set c [lindex $raw 2]
            set r1 [$c my-set k v]
            set r2 [$c get k]
            catch {$c set k w} e1
            catch {$c flushall} e2
            cfg_stop_raw $raw
            list $r1 $r2 $e1 $e2
        } {OK v {ERR unknown command 'set', with args beginning with: 'k' 'w' } {ERR unknown command 'flushall', with args beginning with: }}

        test "include with a wildcard reads every matching file in order" {
            set incdir [tmp_path inc.d]
            file mkdir $incdir
            cfg_write_file inc.d/10-a.conf "hz 11\nmaxmemory-samples 6\n"
            cfg_write_file inc.d/20-b.conf "hz 12\n"
            set raw [cfg_start_with include "include [file join $incdir *.conf]\ninclude [file join $incdir none-*.conf]\n"]
            set c [lindex $raw 2]
            set got [list [$c config get hz] [$c config get maxmemory-samples]]
            cfg_stop_raw $raw
            set got
        } {{hz 12} {maxmemory-samples 6}}

        test "unixsocketgroup gives the Unix socket to that group" {
            set group [exec id -gn]
            set sock [tmp_path group.sock]
            set raw [cfg_start_with sockgroup "unixsocket [::vk::conf_quote $sock]\nunixsocketperm 770\nunixsocketgroup $group\n"]
            set got [file attributes $sock -group]
            cfg_stop_raw $raw
            assert_equal $group $got
        }

        test "socket-mark-id marks the listening socket, also when CONFIG SET port reopens it" {
            if {[catch {exec which ss}] || [exec id -u] != 0} { skip "needs ss and CAP_NET_ADMIN (root)" }
            set raw [cfg_start_with sockmark "socket-mark-id 7\n"]
            lassign $raw pid port c
            set first [exec ss -tlne "sport = :$port"]
            set port2 [::vk::alloc_port]
            $c config set port $port2
            set c2 [::vk::client_open 127.0.0.1 $port2]
            set second [exec ss -tlne "sport = :$port2"]
            $c2 close
            cfg_stop_raw [list $pid $port2 $c]
            assert_match "*fwmark:0x7*" $first
            assert_match "*fwmark:0x7*" $second
        }

        # The Cpus_allowed_list line of /proc/<pid>[/task/<tid>]/status.
        proc cfg_cpus_allowed {path} {
            regexp -line {^Cpus_allowed_list:\s*(\S+)} [cfg_read_file $path/status] -> cpus
            return $cpus
        }

        test "server-cpulist, bio-cpulist and bgsave-cpulist bind the main thread, the lazy-free thread and a save child" {
            if {[exec nproc] < 2} { skip "needs 2 CPUs" }
            set raw [cfg_start_with cpulist "server-cpulist 0-1\nbio-cpulist 1\nbgsave-cpulist 0\nsave \"\"\n"]
            lassign $raw pid port c
            set main [cfg_cpus_allowed /proc/$pid]
            # A big value freed asynchronously starts the lazy-free thread.
            for {set i 0} {$i < 200} {incr i} { $c sadd bigset m$i }
            $c unlink bigset
            set bio ""
            wait_for_condition 100 20 {
                [set bio [lindex [lmap t [glob -nocomplain /proc/$pid/task/*] {
                    expr {[string trim [cfg_read_file $t/comm]] eq "bio_lazy_free" ? $t : [continue]}
                }] 0]] ne ""
            } {
                fail "no lazy-free thread"
            }
            # The thread pins itself as it starts.
            wait_for_condition 100 20 {[cfg_cpus_allowed $bio] eq "1"} {
                fail "lazy-free thread CPUs: [cfg_cpus_allowed $bio]"
            }
            set bio_cpus [cfg_cpus_allowed $bio]
            $c config set rdb-key-save-delay 1000000
            $c set k v
            $c bgsave
            wait_for_condition 100 20 {[string trim [cfg_read_file /proc/$pid/task/$pid/children]] ne ""} {
                fail "no background save child"
            }
            set child [lindex [cfg_read_file /proc/$pid/task/$pid/children] 0]
            wait_for_condition 100 20 {[cfg_cpus_allowed /proc/$child] eq "0"} {
                fail "child CPUs: [cfg_cpus_allowed /proc/$child]"
            }
            $c bgsave cancel
            cfg_stop_raw $raw
            list $main $bio_cpus
        } {0-1 1}

        test "A CONFIG REWRITE of the new options reads back the same after a restart" {
            set raw [cfg_start_with rewrite-new "repl-backlog-size 2mb\n"]
            set c [lindex $raw 2]
            $c config set shutdown-on-sigterm "nosave now" oom-score-adj-values "10 20 30" repl-diskless-load swapdb
            $c config set primaryauth "p w" latency-tracking-info-percentiles "90 99.5" appendfsync always
            $c config set proc-title-template "{title} x" repl-backlog-size 5mb propagation-error-behavior panic
            assert_equal OK [$c config rewrite]
            set names {shutdown-on-sigterm oom-score-adj-values repl-diskless-load primaryauth
                       latency-tracking-info-percentiles appendfsync proc-title-template repl-backlog-size
                       propagation-error-behavior}
            set want {}
            foreach n $names { lappend want [$c config get $n] }
            set conf [file join [lindex $raw 3] .. rewrite-new.conf]
            set text [cfg_read_file [tmp_path rewrite-new.conf]]
            cfg_stop_raw $raw
            assert_match "*repl-backlog-size 5mb*" $text
            set port [::vk::alloc_port]
            set raw [cfg_start_raw $port [tmp_path rewrite-new.conf] --port $port]
            set c [lindex $raw 2]
            set got {}
            foreach n $names { lappend got [$c config get $n] }
            cfg_stop_raw $raw
            assert_equal $want $got
        }

        test "A crash report hides the client's arguments (hide-user-data-from-log yes)" {
            set raw [cfg_start_with redact "enable-debug-command yes\n"]
            lassign $raw pid port c
            catch {$c debug segfault}
            catch {$c close}
            wait_for_condition 250 20 {![::vk::pid_alive $pid]} {
                catch {exec kill -KILL $pid}
                fail "server did not crash"
            }
            set log [cfg_read_file [file join [tmp_path raw.$port] stdout]]
            assert_match "*CURRENT CLIENT INFO*argv?0?: '\\*redacted\\*'*" $log
            cfg_refute_match "*argv?1?: 'segfault'*" $log
        }
    }

    foreach {what text err} {
        "loadmodule" "loadmodule /usr/lib/nosuch.so a b\n" "loadmodule: this server has no module support, it cannot load the module '/usr/lib/nosuch.so'"
        "rename-command of an unknown command" "rename-command nosuch other\n" "No such command in rename-command"
        "rename-command to an existing name" "rename-command set get\n" "Target command name already exists"
        "a bad CPU list" "server-cpulist 3-1\n" "Invalid CPU list (taskset syntax, e.g. 0-3,8 or 0-7:2)"
        "a bad user line" "user alice on >pw nosuchrule\n" "Error in user declaration 'nosuchrule': Syntax error"
    } {
        test "Start-up stops with a message naming it: $what" {
            set conf [cfg_write_file refused.conf $text]
            lassign [cfg_run_and_exit $conf] status out
            assert_equal 1 $status
            assert_match "*FATAL CONFIG FILE ERROR*>>> '[string trim $text]'\n$err*" $out
        }
    }


    test "Start-up stops with a message naming it: replicaof in cluster mode" {
        set conf [cfg_write_file refused.conf "cluster-enabled yes\nreplicaof 127.0.0.1 6379\n"]
        lassign [cfg_run_and_exit $conf] status out
        assert_equal 1 $status
        assert_match "*FATAL CONFIG FILE ERROR*line 2\n>>> 'replicaof 127.0.0.1 6379'\nreplicaof directive not allowed in cluster mode*" $out
    }

    start_server {tags {"config needs:debug"} overrides {enable-debug-command yes}} {
        test "activerehashing: the cron finishes a started rehash only when yes" {
            r config set activerehashing no
            r debug populate 1000
            # Add keys until one makes the keyspace table grow: a rehash starts.
            for {set i 0} {$i < 10000} {incr i} {
                r set one-more:$i v
                if {[string match "*rehashing target*" [r debug htstats 0]]} break
            }
            after 300
            set idle [string match "*rehashing target*" [r debug htstats 0]]
            r config set activerehashing yes
            wait_for_condition 100 20 {![string match "*rehashing target*" [r debug htstats 0]]} {
                fail "the rehash was not finished by the cron"
            }
            r flushall
            set idle
        } {1}
    }

    # ---------------------------------------------------------------- MODULE

    start_server {tags {"config modules"}} {
        test "MODULE is refused while enable-module-command is no" {
            assert_error "*MODULE command not allowed. If the enable-module-command option is set to \"local\"*" \
                {r module list}
            assert_error "*MODULE command not allowed*" {r module load /tmp/x.so}
            # HELP is not protected.
            assert_match "*MODULE <subcommand>*LIST*LOAD*LOADEX*UNLOAD*" [r module help]
        }
    }

    start_server {tags {"config modules"} overrides {enable-module-command yes}} {
        test "MODULE LIST is empty, LOAD/LOADEX fail, UNLOAD finds nothing" {
            assert_equal {} [r module list]
            assert_error "ERR Error loading the extension. Please check the server logs." \
                {r module load /no/such/module.so}
            assert_error "ERR Error loading the extension. Please check the server logs." \
                {r module loadex /no/such/module.so CONFIG a b ARGS x}
            assert_error "ERR Error unloading module: no such module with that name" {r module unload foo}
            assert_error "*wrong number of arguments for 'module|unload' command*" {r module unload}
            assert_error "*unknown subcommand*" {r module nosuch}
        }
    }
}
