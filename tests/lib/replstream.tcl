# replstream.tcl -- reading a server's replication stream, as a replica
# would, to check what it propagates.
#
#     set s [repl_stream_attach]          ;# SYNC on the innermost server
#     r set foo bar
#     assert_replication_stream $s {
#         {select *}
#         {set foo bar}
#     }
#     repl_stream_close $s
#
# repl_stream_attach connects a plain client, sends SYNC and skips the
# snapshot that comes first: "\n" keep-alives while the primary prepares
# it, then either "$<len>" and len bytes (disk-based; no CRLF after the
# payload) or "$EOF:<40-byte mark>" and bytes up to that mark (diskless).
# What follows is the stream: commands in RESP multibulk form.
#
# repl_stream_read returns the next command as a Tcl list with the command
# name lowercased, skipping the PINGs a primary sends periodically.
# assert_replication_stream reads one command per pattern and matches each
# with [string match] against the command as a list, so {set foo *} or
# {xclaim mystream *} work; on a mismatch it fails showing both lists.
#
# repl_stream_supported tells whether the server answers SYNC at all, so a
# file can skip its tests on a server without replication.
#
# The AOF receives the same stream. aof_stream_attach opens the server's
# current incr AOF file (the last "type i" file of its manifest) at its
# end: repl_stream_read and assert_replication_stream then read, on that
# handle, the commands appended from now on ("#TS:" annotations skipped),
# so one list of patterns can be checked against both consumers. Unlike a
# fresh SYNC, the AOF does not start with a SELECT: it has been writing in
# the database of its last command.

namespace eval ::vk {
    variable repl_stream_timeout 10 ;# seconds to wait for the next command
}

# 1 if the server at level answers SYNC with a snapshot (it is then
# dropped), 0 if SYNC is refused (an error reply).
proc repl_stream_supported {{level 0}} {
    set c [::vk::client_open [srv $level host] [srv $level port]]
    set fd [$c channel]
    ::vk::send_command $fd {sync}
    set ok 0
    catch {
        set line [::vk::repl_stream_line $fd]
        set ok [string match {$*} $line]
    }
    $c close
    return $ok
}

# Attaches to the replication stream of the server at level; returns the
# handle the other procs take. The snapshot is skipped.
proc repl_stream_attach {{level 0}} {
    set c [::vk::client_open [srv $level host] [srv $level port]]
    set fd [$c channel]
    ::vk::send_command $fd {sync}
    set line [::vk::repl_stream_line $fd]
    if {[string match {$EOF:*} $line]} {
        ::vk::repl_stream_skip_eof_payload $fd [string range $line 5 end]
    } elseif {[string match {$*} $line]} {
        ::vk::repl_stream_exact $fd [string range $line 1 end]
    } else {
        $c close
        error "SYNC refused: $line"
    }
    return $c
}

# Opens the incr AOF file of the server at level (appendonly yes) at its
# end; returns a handle for repl_stream_read, assert_replication_stream and
# repl_stream_close.
proc aof_stream_attach {{level 0}} {
    set dir [file join [srv $level dir] [lindex [r $level config get appenddirname] 1]]
    set manifest [file join $dir [lindex [r $level config get appendfilename] 1].manifest]
    set incr {}
    set f [open $manifest r]
    foreach line [split [read $f] "\n"] {
        if {[regexp {^file (\S+) seq \d+ type i} $line -> name]} { set incr $name }
    }
    close $f
    if {$incr eq {}} { error "no incr file in $manifest" }
    set fd [open [file join $dir $incr] r]
    fconfigure $fd -translation binary -blocking 0
    seek $fd 0 end
    return [list aof $fd]
}

# The next command of the stream, as a list (command name lowercased).
proc repl_stream_read {s} {
    if {[lindex $s 0] eq "aof"} { return [::vk::aof_stream_command [lindex $s 1]] }
    set fd [$s channel]
    while 1 {
        set cmd [::vk::repl_stream_command $fd]
        if {[string tolower [lindex $cmd 0]] ne "ping"} break
    }
    return [lreplace $cmd 0 0 [string tolower [lindex $cmd 0]]]
}

# Reads one command per pattern and checks that each matches.
proc assert_replication_stream {s patterns} {
    set got {}
    set bad 0
    foreach pattern $patterns {
        if {[catch {repl_stream_read $s} cmd]} {
            set bad 1
            lappend got "<$cmd>"
            break
        }
        lappend got $cmd
        if {![string match $pattern $cmd]} { set bad 1 }
    }
    if {$bad} {
        set exp [join [lmap p $patterns {list $p}] "\n    "]
        set act [join [lmap g $got {list $g}] "\n    "]
        ::vk::assert_failed "replication stream mismatch:\nexpected:\n    $exp\ngot:\n    $act"
    }
}

proc repl_stream_close {s} {
    if {[lindex $s 0] eq "aof"} {
        close [lindex $s 1]
    } else {
        $s close
    }
}

# ---------------------------------------------------------------- internals

# One line without its CRLF, skipping the empty keep-alive lines a primary
# sends while it prepares the snapshot.
proc ::vk::repl_stream_line {fd} {
    set ::vk::deadline [expr {[clock milliseconds] + 1000 * $::vk::repl_stream_timeout}]
    fconfigure $fd -blocking 0
    try {
        while 1 {
            set line [::vk::read_line $fd]
            if {$line ne ""} { return $line }
        }
    } finally {
        fconfigure $fd -blocking 1
    }
}

proc ::vk::repl_stream_exact {fd len} {
    set ::vk::deadline [expr {[clock milliseconds] + 1000 * $::vk::repl_stream_timeout}]
    fconfigure $fd -blocking 0
    try {
        return [::vk::read_exact $fd $len]
    } finally {
        fconfigure $fd -blocking 1
    }
}

# Diskless framing: the payload ends with the same 40 bytes as the mark.
proc ::vk::repl_stream_skip_eof_payload {fd mark} {
    set tail ""
    while {$tail ne $mark} {
        append tail [::vk::repl_stream_exact $fd 1]
        if {[string length $tail] > 40} { set tail [string range $tail end-39 end] }
    }
}

# One RESP multibulk command of the stream.
proc ::vk::repl_stream_command {fd} {
    set line [::vk::repl_stream_line $fd]
    if {![string match {\**} $line]} {
        error "replication stream: expected a multibulk, got '$line'"
    }
    set cmd {}
    for {set i 0} {$i < [string range $line 1 end]} {incr i} {
        set hdr [::vk::repl_stream_line $fd]
        if {![string match {$*} $hdr]} {
            error "replication stream: expected a bulk, got '$hdr'"
        }
        lappend cmd [::vk::repl_stream_exact $fd [string range $hdr 1 end]]
        ::vk::repl_stream_exact $fd 2
    }
    return $cmd
}

# The AOF side: the file grows while we read it, so a read that finds too
# few bytes waits and tries again until ::vk::repl_stream_timeout.

# n bytes of the AOF file at fd.
proc ::vk::aof_stream_exact {fd n} {
    set deadline [expr {[clock milliseconds] + 1000 * $::vk::repl_stream_timeout}]
    set got ""
    while {[string length $got] < $n} {
        append got [read $fd [expr {$n - [string length $got]}]]
        if {[string length $got] == $n} break
        if {[clock milliseconds] > $deadline} {
            error "AOF stream: timeout after [string length $got] of $n bytes"
        }
        after 10
        seek $fd 0 current ;# clears the end-of-file state
    }
    return $got
}

# One line of the AOF file without its CRLF.
proc ::vk::aof_stream_line {fd} {
    set line ""
    while {![string match "*\r\n" $line]} {
        append line [::vk::aof_stream_exact $fd 1]
        if {[string length $line] > 1024} { error "AOF stream: line too long: [string range $line 0 60]..." }
    }
    return [string range $line 0 end-2]
}

# The next command of the AOF file, name lowercased, "#TS:" lines skipped.
proc ::vk::aof_stream_command {fd} {
    while {[string match {#*} [set line [::vk::aof_stream_line $fd]]]} {}
    if {![string match {\**} $line]} { error "AOF stream: expected a multibulk, got '$line'" }
    set cmd {}
    for {set i 0} {$i < [string range $line 1 end]} {incr i} {
        set hdr [::vk::aof_stream_line $fd]
        if {![string match {$*} $hdr]} { error "AOF stream: expected a bulk, got '$hdr'" }
        lappend cmd [::vk::aof_stream_exact $fd [string range $hdr 1 end]]
        ::vk::aof_stream_exact $fd 2
    }
    return [lreplace $cmd 0 0 [string tolower [lindex $cmd 0]]]
}
