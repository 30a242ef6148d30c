# WAITAOF counting replicas' fsyncs: a replica with appendonly yes sends
# REPLCONF ACK <offset> FACK <offset its AOF fsynced> (Valkey 7.2+), one
# without sends no FACK and is never counted; the primary answers
# WAITAOF numlocal numreplicas timeout with [local fsync, replicas whose
# FACK reached the writes made before it] (src/aof.c, src/admin.c,
# src/replication.c's ACK handling).

source [file join $::vk::cfg(root) tests lib replication.tcl]

proc aof_read_file {path} {
    set fh [open $path rb]
    set data [read $fh]
    close $fh
    return $data
}

proc waitaof_info {field level} {
    return [repl_info $field $level persistence]
}

proc waitaof_rewrite_done {level} {
    wait_for_condition 500 20 {
        [waitaof_info aof_rewrite_in_progress $level] == 0 && [waitaof_info aof_rewrite_scheduled $level] == 0
    } {
        fail "the AOF rewrite at level $level did not finish"
    }
}

# Reads one RESP command (an array of bulk strings) from a blocking channel.
proc waitaof_read_command {chan} {
    if {[gets $chan line] < 0} { return "" }
    set argc [string range [string trimright $line "\r"] 1 end]
    set args {}
    for {set i 0} {$i < $argc} {incr i} {
        gets $chan len
        set arg [read $chan [string range [string trimright $len "\r"] 1 end]]
        read $chan 2
        lappend args $arg
    }
    return $args
}

proc waitaof_accept {chan addr port} { set ::waitaof_link $chan }

# A primary played by the test: answers the handshake of the replica at
# level 0 with a full sync of rdb, then returns the link.
proc waitaof_fake_primary {rdb} {
    set ::waitaof_link ""
    set listener [socket -server waitaof_accept -myaddr 127.0.0.1 0]
    set port [lindex [fconfigure $listener -sockname] 2]
    r replicaof 127.0.0.1 $port
    # The connection may have been accepted while the client waited for
    # REPLICAOF's reply (the event loop ran).
    if {$::waitaof_link eq ""} {
        set timer [after 10000 {set ::waitaof_link timeout}]
        vwait ::waitaof_link
        after cancel $timer
    }
    close $listener
    if {$::waitaof_link eq "timeout"} { fail "the replica did not connect" }
    set chan $::waitaof_link
    fconfigure $chan -translation binary -blocking 1 -buffering none
    while {1} {
        set cmd [waitaof_read_command $chan]
        if {$cmd eq ""} { fail "the replica closed the link during the handshake" }
        switch -- [string tolower [lindex $cmd 0]] {
            ping { puts -nonewline $chan "+PONG\r\n" }
            psync {
                puts -nonewline $chan "+FULLRESYNC [string repeat ab 20] 0\r\n\$[string length $rdb]\r\n$rdb"
                break
            }
            default { puts -nonewline $chan "+OK\r\n" }
        }
    }
    wait_for_sync
    return $chan
}

# The next REPLCONF ACK the replica sends on chan.
proc waitaof_next_ack {chan} {
    set cmd [waitaof_read_command $chan]
    assert_equal {replconf ack} [string tolower [lrange $cmd 0 1]]
    return $cmd
}

tags {"aof" "repl" "needs:debug" "external:skip"} {
    start_server {overrides {save "" enable-debug-command yes}} {
        r save
        set rdb [aof_read_file [file join [srv dir] dump.rdb]]
    }

    start_server {overrides {appendonly no tls-replication no}} {
        test "A replica without appendonly sends REPLCONF ACK <offset> without FACK" {
            set chan [waitaof_fake_primary $rdb]
            set ack [waitaof_next_ack $chan]
            assert_equal {REPLCONF ACK 0} $ack
            close $chan
            r replicaof no one
        }
    }

    start_server {overrides {appendonly yes appendfsync always tls-replication no}} {
        test "A replica with appendonly yes adds FACK: the replication offset its AOF fsynced" {
            set chan [waitaof_fake_primary $rdb]
            waitaof_rewrite_done 0 ;# the AOF starts over after the full sync
            set set_cmd "*3\r\n\$3\r\nSET\r\n\$1\r\nk\r\n\$1\r\nv\r\n"
            set getack "*3\r\n\$8\r\nREPLCONF\r\n\$6\r\nGETACK\r\n\$1\r\n*\r\n"
            puts -nonewline $chan "$set_cmd$getack"
            set end [expr {[string length $set_cmd] + [string length $getack]}]
            set deadline [expr {[clock milliseconds] + 5000}]
            while {1} {
                set ack [waitaof_next_ack $chan]
                assert_equal 5 [llength $ack] "ACK without FACK: $ack"
                assert_equal FACK [lindex $ack 3]
                if {[lindex $ack 4] == $end} break
                assert {[clock milliseconds] < $deadline} "FACK did not reach $end: $ack"
            }
            assert_equal v [r get k]
            close $chan
            r replicaof no one
        }
    }

    start_server {overrides {appendonly yes appendfsync always enable-debug-command yes}} {
        start_server {overrides {appendonly yes appendfsync always enable-debug-command yes}} {
            start_server {overrides {appendonly no enable-debug-command yes}} {
                # -2 the primary, -1 a replica with appendonly yes, 0 one without.
                set phost [srv -2 host]
                set pport [srv -2 port]
                r -1 replicaof $phost $pport
                r 0 replicaof $phost $pport
                wait_for_sync -1
                wait_for_sync 0
                wait_replicas_online 2 -2
                waitaof_rewrite_done -1

                test {WAITAOF counts the replica whose FACK reached the writes: WAITAOF 1 1 is [1 1]} {
                    r -2 incr foo
                    assert_equal {1 1} [r -2 waitaof 1 1 5000]
                }

                test {... the replica without appendonly is not counted: WAITAOF 0 2 times out with [1 1]} {
                    r -2 incr foo
                    set start [clock milliseconds]
                    assert_equal {1 1} [r -2 waitaof 0 2 300]
                    assert {[clock milliseconds] - $start >= 290}
                }

                test "... while WAIT counts both" {
                    assert_equal 2 [r -2 wait 2 5000]
                }

                tags {"rdma:skip:timing"} {
                    test "A replica with appendfsync always answers the GETACK's wait after its fsync, not a second later" {
                        set start [clock milliseconds]
                        for {set i 0} {$i < 10} {incr i} {
                            r -2 incr foo
                            assert_equal {1 1} [r -2 waitaof 0 1 5000]
                        }
                        # An ACK once a second would take ~5 s for ten waits.
                        assert {[clock milliseconds] - $start < 3000}
                    }
                }

                tags {"rdma:skip:timing"} {
                    test "A replica with appendfsync no reports no new fsync; with everysec it counts within a second or so" {
                        r -1 config set appendfsync no
                        after 1200 ;# an fsync still running finishes
                        r -2 incr foo
                        assert_equal {1 0} [r -2 waitaof 1 1 300]
                        r -1 config set appendfsync everysec
                        set start [clock milliseconds]
                        assert_equal {1 1} [r -2 waitaof 1 1 5000]
                        assert {[clock milliseconds] - $start < 4000}
                    }
                }

                test "A stopped replica is not counted until it runs again" {
                    set pid [srv -1 pid]
                    exec kill -STOP $pid
                    r -2 incr foo
                    set rd [vk_deferring_client -2]
                    $rd waitaof 0 1 0
                    after 300
                    assert_equal {1 0} [r -2 waitaof 0 1 100]
                    exec kill -CONT $pid
                    assert_equal {1 1} [$rd read]
                    $rd close
                }

                test "A replica that turns appendonly off stops counting, and counts again once its AOF is back" {
                    r -1 config set appendonly no
                    r -2 incr foo
                    assert_equal {1 0} [r -2 waitaof 1 1 300]
                    r -1 config set appendonly yes
                    waitaof_rewrite_done -1
                    r -2 incr foo
                    assert_equal {1 1} [r -2 waitaof 1 1 5000]
                }

                test "WAITAOF on a replica is refused" {
                    assert_error "*WAITAOF cannot be used with replica instances*" {r -1 waitaof 0 0 0}
                }

                test {A primary without appendonly refuses numlocal > 0 and still counts replicas: [0 1]} {
                    r -2 config set appendonly no
                    assert_error "*WAITAOF cannot be used when numlocal is set but appendonly is disabled.*" \
                        {r -2 waitaof 1 0 0}
                    r -2 incr foo
                    assert_equal {0 1} [r -2 waitaof 0 1 5000]
                }

                test "A local wait blocked when appendonly is turned off gets that error" {
                    r -2 config set appendonly yes
                    waitaof_rewrite_done -2
                    r -2 config set appendfsync no
                    set rd [vk_deferring_client -2]
                    $rd incr foo
                    $rd read
                    $rd waitaof 1 0 0
                    wait_for_condition 50 20 {[repl_info blocked_clients -2 clients] == 1} {
                        fail "WAITAOF did not block"
                    }
                    r -2 config set appendonly no
                    assert_error "*WAITAOF cannot be used when numlocal is set but appendonly is disabled.*" {$rd read}
                    $rd close
                }

                test "The primary and both replicas hold the same dataset" {
                    wait_for_ofs_sync -2 -1
                    wait_for_ofs_sync -2 0
                    assert_digests_equal {-2 -1 0}
                }
            }
        }
    }
}
