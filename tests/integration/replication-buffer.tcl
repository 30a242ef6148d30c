# The replication buffer: one list of blocks shared by the backlog and
# every replica (Valkey 7+). Its size is INFO mem_total_replication_buffers;
# it grows with the stream, and falls back to about repl-backlog-size once
# the replicas have everything. A replica that stops reading holds the
# blocks it was not sent (its omem, counted against client-output-buffer-
# limit replica), which also keeps that history for partial resyncs of
# other replicas, beyond repl-backlog-size. What lagging replicas hold is
# not counted for eviction (mem_not_counted_for_evict), and creating a big
# backlog costs nothing until the stream fills it. A replica's link
# carries the stream only: a reply to a command it sent on it drops it.
# Every scenario ends with equal DEBUG DIGESTs.

# Integer field of an INFO section of the server at level.
proc rb_info {field {level 0} {section memory}} {
    return [repl_info $field $level $section]
}

# The CLIENT LIST line (a dict of its fields) of the only replica of the
# server at level, or {} if none.
proc rb_replica_client {{level 0}} {
    set line [string trim [r $level client list type replica]]
    if {$line eq ""} { return {} }
    set d {}
    foreach kv [split [lindex [split $line "\n"] 0] " "] {
        set i [string first = $kv]
        dict set d [string range $kv 0 [expr {$i - 1}]] [string range $kv [expr {$i + 1}] end]
    }
    return $d
}

# Writes mb megabytes of stream to the server at level by overwriting the
# same 20 keys with 100 KB values, so that the dataset does not grow.
proc rb_write_mb {mb {level 0} {prefix big}} {
    set val [string repeat x 100000]
    set cmds {}
    for {set i 0} {$i < $mb * 10} {incr i} { lappend cmds [list set $prefix:[expr {$i % 20}] $val] }
    r_pipeline_at $level $cmds
}

# The id of the primary's client for the replica at replica_level, found by
# the replica's own end of the link (its primary client's laddr).
proc rb_replica_link_id {primary_level replica_level} {
    set mine [string trim [r $replica_level client list type master]]
    regexp {laddr=(\S+)} $mine -> laddr
    foreach line [split [string trim [r $primary_level client list type replica]] "\n"] {
        if {[regexp {^id=(\d+) addr=(\S+)} $line -> id addr] && $addr eq $laddr} { return $id }
    }
    error "no link of the replica at $replica_level on the primary at $primary_level"
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-backlog-size 1mb
                                                 repl-diskless-sync yes repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes}} {
        set phost [srv -1 host]
        set pport [srv -1 port]

        test "Without a replica the replication buffer is empty" {
            assert_equal 0 [rb_info mem_total_replication_buffers -1]
            assert_equal 0 [rb_info mem_replication_backlog -1]
            assert_equal 0 [rb_info repl_backlog_active -1 replication]
        }

        test "mem_total_replication_buffers grows with the stream and falls back once the replica has it" {
            r replicaof $phost $pport
            wait_for_sync
            wait_replicas_online 1 -1
            set empty [rb_info mem_total_replication_buffers -1]
            # A little stream: the buffer holds it, as the backlog.
            rb_write_mb 1 -1
            wait_for_ofs_sync -1 0
            set one [rb_info mem_total_replication_buffers -1]
            assert {$one > $empty + 900000} "buffer $one after 1 MB of stream (empty: $empty)"
            assert_equal $one [rb_info mem_replication_backlog -1]
            # The replica stops reading: what it was not sent stays.
            set rpid [srv 0 pid]
            exec kill -STOP $rpid
            rb_write_mb 30 -1
            set held [rb_info mem_total_replication_buffers -1]
            set lag [dict get [rb_replica_client -1] omem]
            exec kill -CONT $rpid
            # Socket buffers of both ends take a few MB; the rest waits.
            assert {$held > 12 * 1024 * 1024} "buffer $held with a stopped replica"
            assert {$lag > 12 * 1024 * 1024} "replica omem $lag"
            assert {$lag <= $held}
            assert {[rb_info repl_backlog_histlen -1 replication] > 12 * 1024 * 1024}
            # Once it caught up, the buffer is trimmed to about the backlog.
            wait_for_ofs_sync -1 0
            wait_for_condition 100 50 {[rb_info mem_total_replication_buffers -1] < 1300000} {
                fail "buffer not trimmed: [rb_info mem_total_replication_buffers -1]"
            }
            assert {[rb_info mem_total_replication_buffers -1] >= 1024 * 1024}
            assert_range [rb_info repl_backlog_histlen -1 replication] [expr {1024 * 1024}] 1200000
            assert {[dict get [rb_replica_client -1] omem] < 1300000}
            assert_digests_equal {-1 0}
        }

        test "INFO memory and MEMORY STATS split the buffer into backlog and replicas as Valkey does" {
            set rpid [srv 0 pid]
            exec kill -STOP $rpid
            rb_write_mb 20 -1
            set info [r -1 info memory]
            set stats [r -1 memory stats]
            exec kill -CONT $rpid
            regexp {mem_total_replication_buffers:(\d+)} $info -> total
            regexp {mem_replication_backlog:(\d+)} $info -> backlog
            regexp {mem_clients_slaves:(\d+)} $info -> slaves
            regexp {mem_not_counted_for_evict:(\d+)} $info -> not_counted
            # Beyond repl-backlog-size, the buffer is the replicas' memory,
            # and is not counted for eviction.
            assert_equal [expr {1024 * 1024}] $backlog
            assert {$total > 8 * 1024 * 1024}
            assert {$slaves >= $total - $backlog} "mem_clients_slaves $slaves, buffer $total"
            assert_range $not_counted [expr {$total - $backlog - 10000}] [expr {$total - $backlog}]
            assert_equal $backlog [dict get $stats replication.backlog]
            assert {[dict get $stats clients.slaves] >= $total - $backlog}
            wait_for_ofs_sync -1 0
            assert_digests_equal {-1 0}
        }

        test "CONFIG SET repl-backlog-size smaller trims the buffer" {
            assert {[rb_info mem_total_replication_buffers -1] > 1000000}
            r -1 config set repl-backlog-size 16384
            wait_for_condition 100 50 {[rb_info mem_total_replication_buffers -1] < 100000} {
                fail "buffer not trimmed: [rb_info mem_total_replication_buffers -1]"
            }
            assert {[rb_info repl_backlog_histlen -1 replication] >= 16384}
            r -1 config set repl-backlog-size 1mb
            r -1 set after:shrink 1
            wait_for_ofs_sync -1 0
            assert_digests_equal {-1 0}
        }
    }
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-backlog-size 1mb repl-diskless-sync-delay 0}
              log_allow {"*scheduled to be closed ASAP for overcoming of output buffer limits*"
                         "*closed for overcoming of output buffer limits*"}} {
    start_server {overrides {enable-debug-command yes}} {
        set phost [srv -1 host]
        set pport [srv -1 port]

        test "A stopped replica's lag counts against its output limit; past it, it is dropped with Valkey's log line" {
            r replicaof $phost $pport
            wait_for_sync
            wait_replicas_online 1 -1
            r -1 config set client-output-buffer-limit "replica 16mb 0 0"
            set rpid [srv 0 pid]
            exec kill -STOP $rpid
            # Below the limit: connected, its omem is what it lags.
            rb_write_mb 8 -1
            assert_equal 1 [rb_info connected_slaves -1 replication]
            set omem [dict get [rb_replica_client -1] omem]
            set total [rb_info mem_total_replication_buffers -1]
            # Past it: dropped, and its blocks go back to the backlog's size.
            for {set i 0} {$i < 20 && [rb_info connected_slaves -1 replication] == 1} {incr i} {
                rb_write_mb 4 -1
            }
            set dropped [rb_info connected_slaves -1 replication]
            exec kill -CONT $rpid
            assert {$omem > 1024 * 1024 && $omem <= $total} "omem $omem, buffer $total"
            assert_equal 0 $dropped
            assert {[log_has_line "*Client id=* flags=S *omem=* scheduled to be closed ASAP for overcoming of output buffer limits.*" -1]}
            assert {[rb_info client_output_buffer_limit_disconnections -1 stats] >= 1}
            wait_for_condition 100 50 {[rb_info mem_total_replication_buffers -1] < 1300000} {
                fail "blocks of the dropped replica not freed: [rb_info mem_total_replication_buffers -1]"
            }
            # It comes back and resyncs.
            r -1 config set client-output-buffer-limit "replica 256mb 64mb 60"
            wait_for_sync
            wait_replicas_online 1 -1
            wait_for_ofs_sync -1 0
            assert_digests_equal {-1 0}
        }
    }
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-backlog-size 16384 repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes}} {
        start_server {overrides {enable-debug-command yes}} {
            set phost [srv -2 host]
            set pport [srv -2 port]

            test "PSYNC older than repl-backlog-size is served while a lagging replica still holds it" {
                r -1 replicaof $phost $pport
                r replicaof $phost $pport
                wait_for_sync -1
                wait_for_sync 0
                wait_replicas_online 2 -2
                wait_for_ofs_sync -2 -1
                wait_for_ofs_sync -2 0
                set full [rb_info sync_full -2 stats]
                set partial [rb_info sync_partial_ok -2 stats]
                # B (level -1) stops reading: it pins the stream from here.
                set bpid [srv -1 pid]
                exec kill -STOP $bpid
                rb_write_mb 12 -2 p1
                # A (level 0) got all of it; now it stops too, and misses
                # far more than the 16 KB backlog.
                wait_for_ofs_sync -2 0
                set alink [rb_replica_link_id -2 0]
                set apid [srv 0 pid]
                exec kill -STOP $apid
                rb_write_mb 20 -2 p2
                # A's link is cut; resumed, it asks to continue from its
                # offset, which only B's place in the buffer still holds.
                r -2 client kill id $alink
                exec kill -CONT $apid
                wait_for_condition 200 50 {
                    [rb_info sync_partial_ok -2 stats] == $partial + 1
                } {
                    exec kill -CONT $bpid
                    fail "no partial resync: [r -2 info stats]"
                }
                exec kill -CONT $bpid
                assert_equal $full [rb_info sync_full -2 stats]
                set accepted 0
                set fh [open [srv -2 stdout]]
                foreach line [split [read $fh] "\n"] {
                    if {[regexp {Partial resynchronization request from .* accepted\. Sending (\d+) bytes of backlog} \
                             $line -> sent]} { set accepted $sent }
                }
                close $fh
                assert {$accepted > 16384} "sent $accepted bytes of backlog"
                wait_for_sync 0
                wait_for_ofs_sync -2 0
                wait_for_ofs_sync -2 -1
                # Everyone caught up: back to about the backlog's size.
                wait_for_condition 100 50 {[rb_info mem_total_replication_buffers -2] < 100000} {
                    fail "buffer not trimmed: [rb_info mem_total_replication_buffers -2]"
                }
                assert_digests_equal {-2 -1 0}
            }
        }
    }
}

start_server {tags {repl needs:debug maxmemory} overrides {enable-debug-command yes maxmemory-policy allkeys-random
                                                        repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes}} {
        set phost [srv -1 host]
        set pport [srv -1 port]

        test "A big repl-backlog-size costs nothing until the stream fills it: no eviction" {
            for {set i 0} {$i < 200} {incr i} { r -1 set keep:$i [string repeat k 100] }
            r -1 config set repl-backlog-size 64mb
            r -1 config set maxmemory [expr {[rb_info used_memory -1] + 8 * 1024 * 1024}]
            r replicaof $phost $pport
            wait_for_sync
            wait_replicas_online 1 -1
            for {set i 0} {$i < 100} {incr i} { r -1 set more:$i [string repeat m 100] }
            wait_for_ofs_sync -1 0
            assert_equal 0 [rb_info evicted_keys -1 stats]
            assert_equal 300 [r -1 dbsize]
            assert {[rb_info mem_total_replication_buffers -1] < 1024 * 1024}
            assert_digests_equal {-1 0}
        }

        test "What a lagging replica holds does not count for eviction" {
            r -1 config set repl-backlog-size 1mb
            set rpid [srv 0 pid]
            exec kill -STOP $rpid
            rb_write_mb 30 -1
            set used [rb_info used_memory -1]
            set not_counted [rb_info mem_not_counted_for_evict -1]
            set limit [r -1 config get maxmemory]
            # Commands run (and would evict) with the buffer that big.
            r -1 set one more
            exec kill -CONT $rpid
            assert {$used > [lindex $limit 1]} "used $used under maxmemory $limit: nothing tested"
            assert {$not_counted > 10 * 1024 * 1024} "mem_not_counted_for_evict $not_counted"
            assert_equal 0 [rb_info evicted_keys -1 stats]
            assert_equal 321 [r -1 dbsize]
            wait_for_ofs_sync -1 0
            assert_digests_equal {-1 0}
        }
    }
}

start_server {tags {repl} log_allow {"*Replica generated a reply to command*"}} {
    test "A replica whose command gets a reply is disconnected (Valkey's log line)" {
        set c [vk_client]
        $c write "SYNC\r\nPING\r\n"
        $c flush
        # Whatever comes until the server closes the link (5 s at most).
        set fd [$c channel]
        fconfigure $fd -blocking 0
        set got ""
        set deadline [expr {[clock milliseconds] + 5000}]
        while {[clock milliseconds] < $deadline} {
            if {[catch {append got [read $fd]}] || [eof $fd]} break
            after 20
        }
        $c close
        assert {![string match "*PONG*" $got]} "the reply went down the link: $got"
        wait_for_condition 50 20 {[log_has_line "*Replica generated a reply to command 'ping', disconnecting it: id=*"]} {
            fail "no log line"
        }
        assert_equal PONG [r ping]
        assert_equal 0 [repl_info connected_slaves]
    }
}
