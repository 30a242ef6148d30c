# Helpers of the replication tests (tests/integration/replication*.tcl).
# Levels are start_server nesting levels as `r` and `srv` take them.

# A field of INFO replication (or another section) of the server at level.
proc repl_info {field {level 0} {section replication}} {
    set info [r $level info $section]
    if {[regexp "(?:^|\n)$field:(\[^\r\n\]*)" $info -> value]} { return $value }
    return ""
}

# Waits until the replica at level has its link to the primary up.
proc wait_for_sync {{level 0} {tries 200}} {
    wait_for_condition $tries 50 {[repl_info master_link_status $level] eq "up"} {
        fail "replica at level $level did not sync: [r $level info replication]"
    }
}

# Waits until the replica at replica_level applied everything the primary
# at primary_level wrote (equal master_repl_offset).
proc wait_for_ofs_sync {primary_level replica_level {tries 200}} {
    wait_for_condition $tries 50 {
        [repl_info master_repl_offset $primary_level] eq [repl_info master_repl_offset $replica_level]
    } {
        fail "offsets differ: primary [repl_info master_repl_offset $primary_level],\
              replica [repl_info master_repl_offset $replica_level]"
    }
}

# The len bytes of the replication stream that follow offset, as the
# backlog of the server at level holds them: what a PSYNC asking for them
# gets after its +CONTINUE. The link is closed afterwards.
proc repl_backlog_bytes {level offset len} {
    set c [::vk::client_open [srv $level host] [srv $level port]]
    set fd [$c channel]
    ::vk::send_command $fd [list psync [repl_info master_replid $level] [expr {$offset + 1}]]
    set line [::vk::repl_stream_line $fd]
    if {![string match {+CONTINUE*} $line]} {
        $c close
        error "PSYNC from $offset at level $level: $line"
    }
    set bytes [::vk::repl_stream_exact $fd $len]
    $c close
    return $bytes
}

# Waits until the primary at level counts n replicas online.
proc wait_replicas_online {n {level 0} {tries 200}} {
    wait_for_condition $tries 50 {
        [regexp -all {state=online} [r $level info replication]] == $n
    } {
        fail "expected $n online replicas: [r $level info replication]"
    }
}

# Asserts that every server of levels holds the same dataset.
proc assert_digests_equal {levels} {
    set first [lindex $levels 0]
    set d [r $first debug digest]
    foreach l [lrange $levels 1 end] {
        assert_equal $d [r $l debug digest] "digest of level $l differs from level $first"
    }
}

# Fills the server at level with keys of every type (n of each), a third
# of them with a TTL far away.
proc repl_populate_all_types {n {level 0} {prefix k}} {
    set cmds {}
    for {set i 0} {$i < $n} {incr i} {
        lappend cmds [list set $prefix:s:$i "value $i"]
        lappend cmds [list rpush $prefix:l:$i a b c $i]
        lappend cmds [list sadd $prefix:set:$i x y $i]
        lappend cmds [list hset $prefix:h:$i f1 v1 f2 $i]
        lappend cmds [list zadd $prefix:z:$i 1 a 2 b $i c]
        lappend cmds [list xadd $prefix:x:$i * f $i]
        if {$i % 3 == 0} { lappend cmds [list pexpire $prefix:s:$i 1000000] }
        if {[llength $cmds] >= 600} {
            r_pipeline_at $level $cmds
            set cmds {}
        }
    }
    if {[llength $cmds]} { r_pipeline_at $level $cmds }
}

# r_pipeline on the server at level.
proc r_pipeline_at {level cmds} {
    set c [vk_client $level]
    foreach cmd $cmds { $c send {*}$cmd }
    foreach cmd $cmds { $c read }
    $c close
}

# Stops the server at level (SIGTERM: it saves if its config says so;
# with kill9 1, SIGKILL) and starts it again on the same config, port and
# dir. Its log continues in a new stdout file, which the block's end
# checks like the first.
proc restart_server_at {level {kill9 0}} {
    set idx [expr {[llength $::vk::servers] - 1 + $level}]
    set s [lindex $::vk::servers $idx]
    if {[dict exists $s r]} {
        catch {[dict get $s r] close}
        dict unset s r
    }
    set pid [dict get $s pid]
    if {$kill9} { catch {exec kill -KILL $pid} }
    ::vk::kill_pid $pid
    ::vk::emit server-down $pid
    set n [incr ::vk::server_seq]
    set stdout "[dict get $s stdout].$n"
    set pid [exec $::vk::cfg(binary) [dict get $s config_file] >$stdout 2>>[dict get $s stderr] &]
    ::vk::emit server-up $pid [dict get $s port]
    set status [::vk::wait_ready $pid $stdout]
    if {$status ne "ready"} { error "server did not restart ($status):\n[::vk::log_tail $stdout]" }
    dict set s pid $pid
    dict set s stdout $stdout
    lset ::vk::servers $idx $s
}

# A command as RESP multibulk bytes, as a primary sends it in its stream.
proc resp_multibulk {args} {
    set out "*[llength $args]\r\n"
    foreach a $args { append out "\$[string length $a]\r\n$a\r\n" }
    return $out
}

# 1 if the log of the server at level holds a line matching glob pattern.
proc log_has_line {pattern {level 0}} {
    set fh [open [srv $level stdout]]
    set log [read $fh]
    close $fh
    foreach line [split $log "\n"] {
        if {[string match $pattern $line]} { return 1 }
    }
    return 0
}
