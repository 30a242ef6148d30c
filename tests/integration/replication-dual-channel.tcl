# Dual-channel full syncs (dual-channel-replication-enabled, Valkey 8):
# the snapshot travels on a second link, the rdb channel, while the
# primary's stream goes to the main link from the snapshot's offset on.
#
# The primary's side is driven here by hand, as a Valkey 8 replica speaks
# it: the main link's PSYNC gets "+DUALCHANNELSYNC", the rdb channel
# (REPLCONF rdb-channel 1, SYNC) gets "$ENDOFF:<offset> <replid> <db>
# <client id>" then the snapshot, and the main link continues with
# REPLCONF set-rdb-client-id and PSYNC <replid> <offset+1>. What it gets
# must be exactly the writes made after the snapshot, however many, with
# a tiny repl-backlog-size.
# Helpers: tests/lib/replication.tcl, tests/lib/replstream.tcl.

# Sends REPLCONF <k> <v> for each pair of opts on client c; each must
# answer +OK.
proc dc_replconf {c opts} {
    set fd [$c channel]
    foreach {k v} $opts {
        ::vk::send_command $fd [list replconf $k $v]
        set reply [::vk::repl_stream_line $fd]
        if {$reply ne "+OK"} { error "REPLCONF $k $v: $reply" }
    }
}

# Opens a main channel to the server at level and sends PSYNC replid
# offset after the capabilities of a dual-channel replica; returns
# {client reply-line}.
proc dc_main_psync {level replid offset {capas {eof psync2 dual-channel}}} {
    set c [::vk::client_open [srv $level host] [srv $level port]]
    set opts {}
    foreach capa $capas { lappend opts capa $capa }
    dc_replconf $c [concat {listening-port 0} $opts]
    ::vk::send_command [$c channel] [list psync $replid $offset]
    return [list $c [::vk::repl_stream_line [$c channel]]]
}

# Opens an rdb channel to the server at level and sends SYNC; returns
# {client endoff-line}.
proc dc_rdb_channel {level} {
    set c [::vk::client_open [srv $level host] [srv $level port]]
    dc_replconf $c {capa eof rdb-only 1 rdb-channel 1 listening-port 0}
    ::vk::send_command [$c channel] {sync}
    return [list $c [::vk::repl_stream_line [$c channel]]]
}

# The EOF-framed snapshot that follows "$ENDOFF" on rdb channel c.
proc dc_read_snapshot {c} {
    set fd [$c channel]
    set line [::vk::repl_stream_line $fd]
    if {![string match {$EOF:*} $line]} { error "rdb channel: expected \$EOF:, got '$line'" }
    set mark [string range $line 5 end]
    set payload ""
    while {[string range $payload end-39 end] ne $mark} {
        append payload [::vk::repl_stream_exact $fd 1]
    }
    return [string range $payload 0 end-40]
}

# 1 if the server closes the link of client c within ms milliseconds
# (after what it still had to send).
proc dc_link_closed {c ms} {
    set fd [$c channel]
    fconfigure $fd -blocking 0 -translation binary
    set deadline [expr {[clock milliseconds] + $ms}]
    while {[clock milliseconds] < $deadline} {
        read $fd
        if {[eof $fd]} { return 1 }
        after 20
    }
    return 0
}

# Writes data (a snapshot) to dir/dump.rdb.
proc dc_write_rdb {dir data} {
    file mkdir $dir
    set fh [open [file join $dir dump.rdb] wb]
    puts -nonewline $fh $data
    close $fh
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0
                                                 repl-backlog-size 16kb}} {
    repl_populate_all_types 20 0 dc

    test "dual-channel-replication-enabled: default no, settable at run time" {
        assert_equal {dual-channel-replication-enabled no} [r config get dual-channel-replication-enabled]
        r config set dual-channel-replication-enabled yes
        assert_equal {dual-channel-replication-enabled yes} [r config get dual-channel-replication-enabled]
    }

    test "Dual channel: PSYNC that cannot continue gets +DUALCHANNELSYNC only when both sides do it" {
        r config set dual-channel-replication-enabled yes
        lassign [dc_main_psync 0 ? -1] c line
        assert_equal "+DUALCHANNELSYNC" $line
        # The main link stays open, as a plain client: not a replica yet.
        assert_equal 0 [repl_info connected_slaves]
        assert_equal PONG [$c ping]
        $c close
        assert [log_has_line "*Replica * is capable of dual channel synchronization, and partial sync isn't possible. Full sync will continue with dedicated RDB channel.*"]
        # A replica without the capability gets an ordinary full sync.
        lassign [dc_main_psync 0 ? -1 {eof psync2}] c line
        assert_match "+FULLRESYNC *" $line
        $c close
        # Switched off at run time: ordinary full syncs again.
        r config set dual-channel-replication-enabled no
        lassign [dc_main_psync 0 ? -1] c line
        assert_match "+FULLRESYNC *" $line
        $c close
        wait_for_condition 100 20 {[repl_info connected_slaves] == 0} { fail "replicas left" }
    }

    test "Dual channel: REPLCONF set-rdb-client-id of no rdb channel is refused with Valkey's error" {
        set c [vk_client]
        assert_error "ERR Unrecognized RDB client id 424242" {$c replconf set-rdb-client-id 424242}
        assert_error "*not an integer*" {$c replconf set-rdb-client-id abc}
        assert_error "*value is out of range*" {$c replconf rdb-channel 2}
        $c close
    }

    test "Dual channel: \$ENDOFF, the snapshot, then PSYNC at its offset gets every later write from the shared buffer" {
        r config set dual-channel-replication-enabled yes
        r config set repl-diskless-sync no ;# an rdb channel is streamed anyway
        set before [r debug digest]
        lassign [dc_main_psync 0 ? -1] main line
        assert_equal "+DUALCHANNELSYNC" $line
        lassign [dc_rdb_channel 0] rdb endoff
        assert {[regexp {^\$ENDOFF:(\d+) ([0-9a-f]{40}) (\d+) (\d+)$} $endoff -> off replid dbid rdbid]}
        assert_equal [repl_info master_replid] $replid
        assert_equal 1 [repl_info replicas_waiting_psync]
        # Writes after the snapshot started: many times repl-backlog-size,
        # so only the rdb channel's hold keeps them in the buffer.
        set n 400
        set val [string repeat x 1000]
        for {set i 0} {$i < $n} {incr i} { r set dcw:$i $val }
        r incr dcw:counter
        assert {[repl_info repl_backlog_histlen] > 300000}
        # The snapshot is the dataset as it was.
        set payload [dc_read_snapshot $rdb]
        # The main channel continues right after the snapshot.
        dc_replconf $main [list set-rdb-client-id $rdbid]
        ::vk::send_command [$main channel] [list psync $replid [expr {$off + 1}]]
        assert_equal "+CONTINUE $replid" [::vk::repl_stream_line [$main channel]]
        assert_match "*state=bg_transfer*" [r info replication]
        assert_match "*type=main-channel*" [r info replication]
        assert_equal 0 [repl_info replicas_waiting_psync]
        set s $main
        assert_replication_stream $s {{select *}}
        for {set i 0} {$i < $n} {incr i} {
            set cmd [repl_stream_read $s]
            if {$cmd ne [list set dcw:$i $val]} { fail "write $i: got [string range $cmd 0 60]" }
        }
        assert_replication_stream $s {{incr dcw:counter}}
        # Online from its first ACK (the replica has loaded).
        ::vk::send_command [$main channel] [list replconf ack [repl_info master_repl_offset]]
        wait_for_condition 100 20 {[string match "*state=online*" [r info replication]]} {
            fail "not online after its ACK: [r info replication]"
        }
        # The rdb channel is closed once its snapshot is out.
        assert_equal 1 [dc_link_closed $rdb 3000]
        $rdb close
        set dir [tmp_path dual-snapshot]
        dc_write_rdb $dir $payload
        set after [r debug digest]
        start_server [list overrides [list dir $dir enable-debug-command yes]] {
            assert_equal $before [r debug digest]
        }
        assert_equal $after [r debug digest]
        $main close
        r config set repl-diskless-sync yes
        wait_for_condition 100 20 {[repl_info connected_slaves] == 0} { fail "replicas left" }
        r flushall
        repl_populate_all_types 20 0 dc
    }

    test "Dual channel: a delivered snapshot's stream waits repl-timeout for its main channel, then goes" {
        r config set dual-channel-replication-enabled yes
        r config set repl-timeout 1
        lassign [dc_rdb_channel 0] rdb endoff
        assert {[regexp {^\$ENDOFF:(\d+) [0-9a-f]{40} \d+ (\d+)$} $endoff -> off rdbid]}
        dc_read_snapshot $rdb
        assert_equal 1 [dc_link_closed $rdb 3000]
        $rdb close
        # The rdb channel is gone; what follows its snapshot is still held.
        assert_equal 1 [repl_info replicas_waiting_psync]
        wait_for_condition 100 50 {[repl_info replicas_waiting_psync] == 0} {
            fail "the hold did not expire: [r info replication]"
        }
        assert [log_has_line "*Dropping the replication buffer reference of RDB client $rdbid: no main channel PSYNC within repl-timeout*"]
        set c [vk_client]
        assert_error "ERR Unrecognized RDB client id $rdbid" {$c replconf set-rdb-client-id $rdbid}
        $c close
        r config set repl-timeout 60
    }

    test "Dual channel: an rdb channel that fails before its snapshot is out lets the buffer go" {
        r config set dual-channel-replication-enabled yes
        r config set rdb-key-save-delay 200000 ;# the child stays on the first key
        lassign [dc_rdb_channel 0] rdb endoff
        assert {[regexp {^\$ENDOFF:(\d+) [0-9a-f]{40} \d+ (\d+)$} $endoff -> off rdbid]}
        $rdb close
        wait_for_condition 100 50 {[repl_info connected_slaves] == 0} { fail "the rdb channel is still listed" }
        set c [vk_client]
        assert_error "ERR Unrecognized RDB client id $rdbid" {$c replconf set-rdb-client-id $rdbid}
        $c close
        r config set rdb-key-save-delay 0
        wait_for_condition 100 50 {[repl_info rdb_bgsave_in_progress 0 persistence] == 0} { fail "the snapshot child did not end" }
    }
}

# ---------------------------------------------------------------------------
# Our replica of our primary, both with dual-channel-replication-enabled.
# ---------------------------------------------------------------------------

# Starts a background writer on the server at level: n SETs and INCRs of
# a counter through a deferring client, fired without waiting. Returns it.
proc dc_writer_start {level prefix n} {
    set rd [vk_deferring_client $level]
    for {set i 0} {$i < $n} {incr i} {
        $rd set $prefix:$i [string repeat v 100]
        $rd incr $prefix:counter
    }
    $rd flush
    return $rd
}

proc dc_writer_finish {rd n} {
    for {set i 0} {$i < 2 * $n} {incr i} { $rd read }
    $rd close
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0
                                                 dual-channel-replication-enabled yes}} {
    repl_populate_all_types 30 0 pdc
    start_server {overrides {enable-debug-command yes dual-channel-replication-enabled yes}} {
        foreach load {disabled swapdb} {
            test "Dual channel sync with writes during the snapshot (repl-diskless-load $load)" {
                r -1 config set rdb-key-save-delay 3000 ;# a snapshot of ~0.5 s
                r config set repl-diskless-load $load
                r replicaof [srv -1 host] [srv -1 port]
                wait_for_condition 100 20 {[string match "*state=wait_bgsave*" [r -1 info replication]]} {
                    fail "no rdb channel: [r -1 info replication]"
                }
                set rd [dc_writer_start -1 w$load 2000]
                wait_for_condition 100 20 {[string match "*state=bg_transfer*" [r -1 info replication]]} {
                    fail "the main channel did not attach during the snapshot: [r -1 info replication]"
                }
                dc_writer_finish $rd 2000
                r -1 config set rdb-key-save-delay 0
                wait_for_sync
                wait_for_ofs_sync -1 0
                assert_equal 2000 [r get w$load:counter]
                assert_digests_equal {-1 0}
                wait_replicas_online 1 -1
                assert [log_has_line "*Replica * is capable of dual channel synchronization*" -1]
                assert [log_has_line "*the main channel continues after the snapshot*" 0]
                assert {[repl_info replicas_repl_buffer_peak] > 0}
                assert_equal 0 [repl_info replicas_repl_buffer_size]
                assert_equal 1 [repl_info sync_full -1 stats]
                r replicaof no one
                r -1 config resetstat
            }
        }
    }
}

# INFO field of a plain client.
proc dc_info_field {c field} {
    if {[regexp "(?:^|\n)$field:(\[^\r\n\]*)" [$c info] -> v]} { return $v }
    return ""
}

# The id the primary gave our replica's last rdb channel (its log says it).
proc dc_last_rdb_client_id {{level 0}} {
    set fh [open [srv $level stdout]]
    set log [read $fh]
    close $fh
    set ids [regexp -all -inline {the snapshot comes on the RDB channel \(client id (\d+)\)} $log]
    if {$ids eq {}} { error "no rdb channel in the log" }
    return [lindex $ids end]
}

# The id of the replica client at the primary at level whose last command
# was cmd (psync: the main channel, sync: the rdb channel).
proc dc_replica_client_id {level cmd} {
    foreach line [split [r $level client list type replica] "\n"] {
        if {[regexp {^id=(\d+) .* cmd=(\S+)} $line -> id c] && $c eq $cmd} { return $id }
    }
    error "no replica client with cmd=$cmd: [r $level client list type replica]"
}

# Number of lines of the log of the server at level matching pattern.
proc dc_log_count {pattern {level 0}} {
    set fh [open [srv $level stdout]]
    set log [read $fh]
    close $fh
    set n 0
    foreach line [split $log "\n"] { if {[string match $pattern $line]} { incr n } }
    return $n
}

# Gives the primary at level -1 the same small dataset (120 keys: with
# rdb-key-save-delay 4000 its snapshot takes ~0.5 s).
proc dc_primary_dataset {} {
    r -1 flushall
    repl_populate_all_types 20 -1 pdc
}

# Makes the replica at level 0 start over with a full sync from the
# primary at level -1: promoted, its history is its own.
proc dc_resync_from_scratch {} {
    r replicaof no one
    r flushall
    r replicaof [srv -1 host] [srv -1 port]
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0
                                                 dual-channel-replication-enabled yes}} {
    start_server {overrides {enable-debug-command yes dual-channel-replication-enabled yes}} {
        test "Dual channel: switched off at run time on either side, the sync is an ordinary one" {
            dc_primary_dataset
            set dual [dc_log_count "*capable of dual channel synchronization*" -1]
            r -1 config set dual-channel-replication-enabled no
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_sync
            assert_equal $dual [dc_log_count "*capable of dual channel synchronization*" -1]
            assert_match "*type=replica*" [r -1 info replication]
            assert_digests_equal {-1 0}
            # Back on at run time on the primary: the next full sync uses it.
            r -1 config set dual-channel-replication-enabled yes
            dc_resync_from_scratch
            wait_for_sync
            assert_equal [expr {$dual + 1}] [dc_log_count "*capable of dual channel synchronization*" -1]
            assert_digests_equal {-1 0}
            # Off on the replica: it no longer says it can.
            r config set dual-channel-replication-enabled no
            dc_resync_from_scratch
            wait_for_sync
            assert_equal [expr {$dual + 1}] [dc_log_count "*capable of dual channel synchronization*" -1]
            assert_digests_equal {-1 0}
            r config set dual-channel-replication-enabled yes
            r replicaof no one
        }

        foreach {which load} {rdb disabled rdb swapdb main disabled main swapdb} {
            test "Dual channel: the $which channel dropped mid-sync, the replica syncs again, no write lost or doubled (repl-diskless-load $load)" {
                r config set repl-diskless-load $load
                dc_primary_dataset
                r -1 config set rdb-key-save-delay 4000
                set key dc$which$load
                dc_resync_from_scratch
                wait_for_condition 200 20 {[string match "*state=bg_transfer*" [r -1 info replication]]} {
                    fail "the main channel did not attach: [r -1 info replication]"
                }
                set rd [dc_writer_start -1 $key 500]
                dc_writer_finish $rd 500
                set syncs [repl_info sync_full -1 stats]
                if {$which eq "rdb"} {
                    r -1 client kill id [dc_last_rdb_client_id]
                } else {
                    r -1 client kill id [dc_replica_client_id -1 psync]
                }
                r -1 config set rdb-key-save-delay 0
                set rd [dc_writer_start -1 $key 500]
                dc_writer_finish $rd 500
                wait_for_sync 0 400
                wait_for_ofs_sync -1 0
                assert_equal 1000 [r get $key:counter]
                assert_digests_equal {-1 0}
                wait_replicas_online 1 -1
            }
        }

        test "Dual channel: the stream kept during the load stops at client-output-buffer-limit replica" {
            r config set client-output-buffer-limit "replica 16384 0 0"
            dc_primary_dataset
            r -1 config set rdb-key-save-delay 4000
            dc_resync_from_scratch
            wait_for_condition 200 20 {[string match "*state=bg_transfer*" [r -1 info replication]]} {
                fail "the main channel did not attach: [r -1 info replication]"
            }
            set rd [dc_writer_start -1 dclimit 2000]
            dc_writer_finish $rd 2000
            wait_for_condition 200 20 {[log_has_line "*Replication buffer limit reached, stopping buffering.*"]} {
                fail "buffering did not stop: [r info replication]"
            }
            assert {[repl_info replicas_repl_buffer_size] >= 16384}
            assert {[repl_info replicas_repl_buffer_size] < 16384 + 16384}
            r -1 config set rdb-key-save-delay 0
            wait_for_sync 0 400
            wait_for_ofs_sync -1 0
            assert_equal 2000 [r get dclimit:counter]
            assert_digests_equal {-1 0}
            r config set client-output-buffer-limit "replica 268435456 67108864 60"
        }

        test "Dual channel: rdb-only and filtered replicas syncing at the same time" {
            dc_primary_dataset
            r -1 config set rdb-key-save-delay 4000
            dc_resync_from_scratch
            wait_for_condition 200 20 {[string match "*state=bg_transfer*" [r -1 info replication]]} {
                fail "the main channel did not attach: [r -1 info replication]"
            }
            set only [::vk::client_open [srv -1 host] [srv -1 port]]
            dc_replconf $only {capa eof rdb-only 1}
            ::vk::send_command [$only channel] {sync}
            set filtered [::vk::client_open [srv -1 host] [srv -1 port]]
            dc_replconf $filtered {capa eof rdb-only 1 rdb-filter-only functions}
            ::vk::send_command [$filtered channel] {sync}
            set rd [dc_writer_start -1 dcmix 300]
            dc_writer_finish $rd 300
            r -1 config set rdb-key-save-delay 0
            set payload [dc_read_snapshot $only]
            set fpayload [dc_read_snapshot $filtered]
            assert_match "REDIS0011*" $payload
            assert_match "REDIS0011*" $fpayload
            assert {[string length $fpayload] < [string length $payload]}
            assert_equal 1 [dc_link_closed $only 3000]
            assert_equal 1 [dc_link_closed $filtered 3000]
            $only close
            $filtered close
            wait_for_sync 0 400
            wait_for_ofs_sync -1 0
            assert_equal 300 [r get dcmix:counter]
            assert_digests_equal {-1 0}
            assert_equal 0 [repl_info replicas_waiting_psync -1]
        }
    }
}

source [file join $::vk::cfg(root) tests assets rdb-dataset.tcl]
source [file join $::vk::cfg(root) tests assets redis-server.tcl]

tags {repl external:skip rdma:skip:own-server} {
    start_server {overrides {tls-replication no enable-debug-command yes dual-channel-replication-enabled yes}} {
        test "Dual channel: a redis-server 7.0 primary does not know it, the sync is an ordinary one" {
            if {![file executable $::redis_binary]} { skip "no $::redis_binary" }
            set h [redis_start [tmp_path redis-primary-dual] --repl-diskless-sync-delay 0]
            set rport [lindex $h 1]
            set rc [::vk::client_open 127.0.0.1 $rport]
            if {[catch {
                rdb_fill_every_type $rc
                r replicaof 127.0.0.1 $rport
                wait_for_sync
                $rc set after:sync 1
                wait_for_condition 100 50 {[r get after:sync] eq 1} { fail "no stream" }
                wait_for_condition 100 50 {
                    [dc_info_field $rc master_repl_offset] eq [repl_info master_repl_offset]
                } { fail "offsets differ" }
                assert_dumps_equal [rdb_dataset_dump $rc] [rdb_dataset_dump r]
                assert_equal 0 [dc_log_count "*initialize RDB channel*"]
            } err opts]} {
                $rc close
                redis_stop $h
                return -options $opts $err
            }
            $rc close
            r replicaof no one
            redis_stop $h
        }
    }
}
