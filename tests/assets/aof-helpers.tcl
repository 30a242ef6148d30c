# Helpers of the AOF test files (tests/integration/aof*.tcl): INFO
# persistence fields, the files of a server's appenddirname, its log, and
# waiting for a rewrite to end.

proc aof_info {field {level 0}} {
    foreach line [split [r $level info persistence] "\r\n"] {
        if {[string match "$field:*" $line]} { return [string range $line [expr {[string length $field] + 1}] end] }
    }
    return ""
}

proc aof_read {path} {
    set fh [open $path rb]
    set data [read $fh]
    close $fh
    return $data
}

proc aof_write {path data {mode wb}} {
    set fh [open $path $mode]
    puts -nonewline $fh $data
    close $fh
}

proc aof_manifest {dir} {
    return [aof_read [file join $dir appendonlydir appendonly.aof.manifest]]
}

proc aof_dir_files {dir} {
    return [lsort [glob -nocomplain -tails -directory [file join $dir appendonlydir] *]]
}

proc aof_log {{level 0}} {
    return [aof_read [srv $level stdout]]
}

# Both fields from one INFO: read one by one, the cron could start a
# scheduled rewrite between the two reads.
proc aof_rewrite_idle {level} {
    set info [r $level info persistence]
    return [expr {[string match "*aof_rewrite_in_progress:0*" $info] &&
                  [string match "*aof_rewrite_scheduled:0*" $info]}]
}

proc wait_aof_rewrite_done {{level 0}} {
    wait_for_condition 500 20 {[aof_rewrite_idle $level]} {
        fail "the AOF rewrite did not finish"
    }
}

# The pid of the last rewrite child the server started (from its log).
proc aof_child_pid {{level 0}} {
    return [lindex [regexp -all -inline {rewriting started by pid ([0-9]+)} [aof_log $level]] end]
}

# How many log lines of the server match the glob.
proc aof_log_count {pattern {level 0}} {
    set n 0
    foreach line [split [aof_log $level] "\n"] {
        if {[string match $pattern $line]} { incr n }
    }
    return $n
}

# RESP of each command (a list of words), as the AOF holds it.
proc aof_resp {args} {
    set out ""
    foreach cmd $args {
        append out "*[llength $cmd]\r\n"
        foreach a $cmd { append out "\$[string length $a]\r\n$a\r\n" }
    }
    return $out
}
