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
