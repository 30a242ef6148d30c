# harness.tcl -- the DSL test files are written in: servers, tests, tags.
#
# A worker process (tests/lib/worker.tcl) sources this file, fills
# ::vk::cfg from the options ./runtest passed it, then sources one test
# file.  Results are not printed here: every outcome is sent to the parent
# as one "@@vk {...}" line (see ::vk::emit) and ./runtest formats and counts
# them, so the parent's totals never depend on parsing human text.
#
# State kept while a file runs:
#   ::vk::servers     stack of server dicts, innermost last
#   ::vk::tag_stack   tags of the enclosing start_server / tags blocks
#   ::vk::line_stack  file line where each enclosing block body starts,
#                     so failures can be reported as file:line

namespace eval ::vk {
    variable cfg            ;# array: options from ./runtest
    variable servers {}
    variable tag_stack {}
    variable line_stack {}
    variable next_port 0
    variable server_seq 0
    variable crashed 0      ;# set when any server of this file crashed

    # Log lines that mean the server died or hit a bug.
    variable crash_patterns {
        "*crashed by signal*"
        "*Guru Meditation*"
        "*ThreadSanitizer*"
        "*ASSERTION FAILED*"
        "*BUG REPORT START*"
        "*ERROR: AddressSanitizer*"
        "*runtime error:*"
    }
    # "WARNING" lines that any healthy server prints on a developer box or a
    # CI container; anything else containing WARNING fails the file.
    variable benign_warnings {
        "*WARNING Memory overcommit must be enabled*"
        "*WARNING: The TCP backlog setting*"
        "*WARNING you have Transparent Huge Pages*"
        "*WARNING: Transparent Huge Pages*"
        "*WARNING supervised by*"
        "*WARNING: 32 bit instance detected*"
        "*WARNING: the new maxmemory value set via CONFIG SET*"
    }
}

# ---------------------------------------------------------------- messages

# Sends one result message to ./runtest.  Each message is a Tcl list on a
# single line; backslashes and newlines are escaped so details may span
# several lines.
proc ::vk::emit {args} {
    puts stdout "@@vk [string map [list \\ \\\\ \n \\n] $args]"
    flush stdout
}

# ---------------------------------------------------------------- locations

# Absolute "file:line" of a frame dict returned by [info frame].
proc ::vk::frame_where {frame} {
    if {![dict exists $frame line]} { return "" }
    set line [dict get $frame line]
    switch -- [dict get $frame type] {
        source {
            return "[file tail [dict get $frame file]]:$line"
        }
        eval {
            if {[llength $::vk::line_stack] == 0} { return "" }
            set base [lindex $::vk::line_stack end]
            return "[file tail $::vk::cfg(file)]:[expr {$base + $line - 1}]"
        }
    }
    return ""
}

# Called by block-like procs (start_server, test, tags) with the frame of
# their caller and their body: pushes the file line where the body starts.
proc ::vk::push_body_line {frame body} {
    set where [::vk::frame_where $frame]
    set start 0
    if {$where ne ""} {
        set start [lindex [split $where :] end]
        set cmd [dict get $frame cmd]
        set idx [string last $body $cmd]
        if {$idx > 0} {
            incr start [regexp -all "\n" [string range $cmd 0 [expr {$idx - 1}]]]
        }
    }
    lappend ::vk::line_stack $start
}

proc ::vk::pop_body_line {} {
    set ::vk::line_stack [lrange $::vk::line_stack 0 end-1]
}

# ---------------------------------------------------------------- tags

proc ::vk::current_tags {} {
    return [concat {*}$::vk::tag_stack]
}

# Returns "" if tests carrying `tags` should run, else the reason not to.
proc ::vk::tags_skip_reason {tags} {
    foreach t $tags {
        if {$t in $::vk::cfg(tags_out)} {
            return "tag '$t' excluded"
        }
    }
    if {[llength $::vk::cfg(tags_in)]} {
        set hit 0
        foreach t $tags {
            if {$t in $::vk::cfg(tags_in)} { set hit 1 }
        }
        if {!$hit} {
            return "no tag in '[join $::vk::cfg(tags_in)]'"
        }
    }
    if {$::vk::cfg(external) && "external:skip" in $tags} {
        return "not run against an external server"
    }
    if {[::vk::io_threads_mode] && "io-threads:skip" in $tags} {
        return "not applicable with --io-threads (tagged io-threads:skip)"
    }
    # rdma:skip and the like (see transport.tcl).
    return [::vk::transport_skip_reason $tags]
}

# 1 under ./runtest --io-threads: every server started gets the lines of
# ::vk::io_threads_server_config, so that I/O threads serve every client
# they can, however light the load (events-per-io-thread 0).
proc ::vk::io_threads_mode {} {
    return [expr {[info exists ::vk::cfg(io_threads)] && $::vk::cfg(io_threads)}]
}

proc ::vk::io_threads_server_config {} {
    if {![::vk::io_threads_mode]} { return {} }
    return {io-threads 4 events-per-io-thread 0}
}

# tags {list} {body}: adds tags to every test inside body.
proc tags {tags body} {
    ::vk::push_body_line [info frame -1] $body
    # {"a b"} and {a b} both mean the two tags a and b.
    lappend ::vk::tag_stack [concat {*}$tags]
    set code [catch {uplevel 1 $body} result opts]
    set ::vk::tag_stack [lrange $::vk::tag_stack 0 end-1]
    ::vk::pop_body_line
    return -options $opts $result
}

# ---------------------------------------------------------------- tests

# test name body ?expected?
# Runs body in the caller's scope.  With `expected`, the body's result must
# equal it.  Assertion failures, Tcl errors and `skip` inside the body are
# reported for this test; the file goes on with the next test.
proc test {name body {expected {__vk_no_expected__}}} {
    if {[llength $::vk::cfg(only)]} {
        set hit 0
        foreach pattern $::vk::cfg(only) {
            if {[string match $pattern $name]} { set hit 1 }
        }
        if {!$hit} { return }
    }
    set reason [::vk::tags_skip_reason [::vk::current_tags]]
    if {[string match "no tag in*" $reason]} {
        # Not selected by --tags: as silent as a name --only rules out.
        return
    }
    if {$reason ne ""} {
        ::vk::emit skip $name $reason
        return
    }
    set caller [info frame -1]
    set where [::vk::frame_where $caller]
    ::vk::push_body_line $caller $body
    set start_line [lindex $::vk::line_stack end]
    ::vk::emit running $name
    set start [clock milliseconds]
    set code [catch {uplevel 1 $body} result opts]
    set elapsed [expr {[clock milliseconds] - $start}]
    ::vk::pop_body_line

    if {$code == 1} {
        set ecode [dict get $opts -errorcode]
        switch -- [lindex $ecode 0] {
            VKSKIP {
                ::vk::emit skip $name $result
            }
            VKASSERT {
                ::vk::emit err $name "$result[::vk::dead_server_note]" [lindex $ecode 1]
            }
            default {
                lassign [::vk::trim_errorinfo [dict get $opts -errorinfo]] info line
                if {$line ne "" && [llength $::vk::line_stack]} {
                    set where "[file tail $::vk::cfg(file)]:[expr {$start_line + $line - 1}]"
                }
                ::vk::emit err $name "Exception: $result\n$info[::vk::dead_server_note]" $where
            }
        }
        return
    }
    if {$expected ne "__vk_no_expected__" && $result ne $expected} {
        ::vk::emit err $name "Expected '$expected', got '$result'" $where
        return
    }
    ::vk::emit ok $name $elapsed
}

# Cuts a test's errorInfo down to the frames inside the test body and finds
# the body line that raised.  Returns {text line}.
proc ::vk::trim_errorinfo {info} {
    set cut [string first "\"uplevel 1 \$body\"" $info]
    if {$cut > 0} { set info [string range $info 0 $cut-1] }
    set line ""
    regexp {.*\("uplevel" body line ([0-9]+)\)} $info -> line
    set lines [split [string trimright $info] \n]
    # Drop the message (already shown) and the client's internal frames.
    set keep {}
    set skipping 1
    foreach l [lrange $lines 1 end] {
        if {$skipping && [regexp {::vk::|^\s*invoked from within$|^\s*while executing$|\{\*\}\$args|procedure "r"} $l]} {
            continue
        }
        set skipping 0
        lappend keep $l
    }
    while {[llength $keep] && [regexp {^\s*invoked from within$} [lindex $keep end]]} {
        set keep [lrange $keep 0 end-1]
    }
    return [list [join $keep \n] $line]
}

# If the innermost server died during a test, say so with its log tail.
proc ::vk::dead_server_note {} {
    if {[llength $::vk::servers] == 0} { return "" }
    set s [lindex $::vk::servers end]
    if {[dict get $s external] || [::vk::pid_alive [dict get $s pid]]} {
        return ""
    }
    return "\n(the server is gone; log tail follows)\n[::vk::log_tail [dict get $s stdout]]"
}

# skip reason: stop the current test and report it as skipped.
proc skip {reason} {
    return -code error -errorcode [list VKSKIP] $reason
}

# fail message: stop the current test and report it as failed, with the
# caller's file:line.
proc fail {message} {
    ::vk::assert_failed $message 2
}

# Raises the assertion error; `level` frames up is the line to blame.
proc ::vk::assert_failed {message {level 2}} {
    set where [::vk::frame_where [info frame -$level]]
    return -code error -level 2 -errorcode [list VKASSERT $where] $message
}

# ---------------------------------------------------------------- assertions

proc assert {condition {message ""}} {
    if {![uplevel 1 [list expr $condition]]} {
        if {$message eq ""} { set message "Expected \[$condition\] to be true" }
        ::vk::assert_failed $message
    }
}

proc assert_equal {expected actual {detail ""}} {
    if {$expected ne $actual} {
        ::vk::assert_failed "Expected '$expected', got '$actual'[::vk::detail $detail]"
    }
}

proc assert_not_equal {unexpected actual {detail ""}} {
    if {$unexpected eq $actual} {
        ::vk::assert_failed "Expected something other than '$unexpected'[::vk::detail $detail]"
    }
}

proc assert_match {pattern actual {detail ""}} {
    if {![string match $pattern $actual]} {
        ::vk::assert_failed "Expected '$actual' to match '$pattern'[::vk::detail $detail]"
    }
}

# assert_error pattern script: script must raise an error matching pattern.
proc assert_error {pattern script} {
    if {![catch {uplevel 1 $script} err]} {
        ::vk::assert_failed "Expected an error matching '$pattern', got the result '$err'"
    }
    if {![string match $pattern $err]} {
        ::vk::assert_failed "Expected an error matching '$pattern', got '$err'"
    }
}

proc assert_range {value min max {detail ""}} {
    if {!($value >= $min && $value <= $max)} {
        ::vk::assert_failed "Expected '$value' to be between $min and $max[::vk::detail $detail]"
    }
}

# assert_encoding encoding key ?level?: OBJECT ENCODING of key.
proc assert_encoding {encoding key {level 0}} {
    set actual [r $level object encoding $key]
    if {$actual ne $encoding} {
        ::vk::assert_failed "Expected encoding '$encoding' for '$key', got '$actual'"
    }
}

# assert_type type key ?level?: TYPE of key.
proc assert_type {type key {level 0}} {
    set actual [r $level type $key]
    if {$actual ne $type} {
        ::vk::assert_failed "Expected type '$type' for '$key', got '$actual'"
    }
}

proc ::vk::detail {detail} {
    if {$detail eq ""} { return "" }
    return " ($detail)"
}

# wait_for_condition maxtries delay_ms condition else_body
# Re-evaluates the expr `condition` in the caller up to maxtries times,
# sleeping delay_ms between tries; if it never holds, runs else_body (which
# normally calls `fail`).
proc wait_for_condition {maxtries delay condition else_body} {
    for {set i 0} {$i < $maxtries} {incr i} {
        if {[uplevel 1 [list expr $condition]]} { return }
        after $delay
    }
    uplevel 1 $else_body
}

# ---------------------------------------------------------------- servers

# start_server options body
# options (a dict): tags {..}  overrides {key value ..}  log_allow {glob ..}
# Starts a server (or, in external mode, points at the external server),
# runs body with `r` and `srv` bound to it, then stops it and checks its log.
proc start_server {options body} {
    set tags {}
    set overrides {}
    set log_allow {}
    dict for {key value} $options {
        switch -- $key {
            tags      { set tags [concat {*}$value] }
            overrides { set overrides $value }
            log_allow { set log_allow $value }
            default   { error "start_server: unknown option '$key'" }
        }
    }
    set caller [info frame -1]
    set where [::vk::frame_where $caller]

    # A whole block whose own tags rule it out is skipped without starting
    # a server: one skip line for the block.
    set reason [::vk::tags_skip_reason [concat [::vk::current_tags] $tags]]
    if {$reason ne "" && ![::vk::only_includes_left $tags]} {
        ::vk::emit skip "server block at $where" $reason
        return
    }

    if {$::vk::cfg(external)} {
        set s [::vk::external_attach $overrides reason]
        if {$s eq ""} {
            ::vk::emit skip "server block at $where" $reason
            return
        }
    } else {
        set s [::vk::server_spawn $overrides]
    }
    set s [dict merge $s [list log_allow $log_allow clients {} expect_exit 0]]
    lappend ::vk::servers $s
    lappend ::vk::tag_stack $tags
    ::vk::push_body_line $caller $body

    set code [catch {uplevel 1 $body} result opts]

    ::vk::pop_body_line
    set ::vk::tag_stack [lrange $::vk::tag_stack 0 end-1]
    set s [lindex $::vk::servers end]
    set ::vk::servers [lrange $::vk::servers 0 end-1]
    set problems [::vk::server_stop $s]
    if {$problems ne ""} {
        set ::vk::crashed 1
        ::vk::emit crash "server block at $where" $problems
    }
    return -options $opts $result
}

# The only reason the tags rule the block out is a missing include tag:
# inner tests may still carry it, so the block must run.
proc ::vk::only_includes_left {tags} {
    set saved $::vk::cfg(tags_in)
    set ::vk::cfg(tags_in) {}
    set reason [::vk::tags_skip_reason [concat [::vk::current_tags] $tags]]
    set ::vk::cfg(tags_in) $saved
    return [expr {$reason eq ""}]
}

proc ::vk::alloc_port {{bus 0}} {
    variable next_port
    for {set tries 0} {$tries < $::vk::cfg(port_count)} {incr tries} {
        set port [expr {$::vk::cfg(port_base) + ($next_port % $::vk::cfg(port_count))}]
        incr next_port
        if {![::vk::port_is_free $port]} continue
        # A cluster node also listens on port + 10000 (its cluster bus).
        if {$bus && ![::vk::port_is_free [expr {$port + 10000}]]} continue
        return $port
    }
    error "no free port in $::vk::cfg(port_base)..+$::vk::cfg(port_count)"
}

# True when the overrides make a cluster node without its own
# cluster-port: the node then needs port + 10000 free too.
proc ::vk::needs_bus_port {overrides} {
    if {![dict exists $overrides cluster-enabled] || [dict exists $overrides cluster-port]} { return 0 }
    return [string equal -nocase [dict get $overrides cluster-enabled] yes]
}

# Writes the config file, starts the binary and waits until it logs that
# it is ready.  Returns the server dict; raises with the log tail if the
# server exits or is not ready within cfg(start_timeout) seconds.
proc ::vk::server_spawn {overrides} {
    set id [incr ::vk::server_seq]
    set dir [file join $::vk::cfg(run_dir) server.$id]
    file mkdir $dir
    set stdout [file join $dir stdout]
    set stderr [file join $dir stderr]
    set conf [file join $dir server.conf]

    for {set attempt 1} {1} {incr attempt} {
        set port [::vk::alloc_port [::vk::needs_bus_port $overrides]]
        set lines {}
        set base [file join $::vk::cfg(root) tests assets default.conf]
        set fh [open $base]
        append lines [read $fh]
        close $fh
        append lines "\n# added by the test harness\n"
        append lines "dir [::vk::conf_quote $dir]\n"
        foreach {k v} [::vk::transport_server_config $port] {
            append lines "$k [::vk::conf_quote $v]\n"
        }
        foreach {k v} [::vk::io_threads_server_config] {
            append lines "$k [::vk::conf_quote $v]\n"
        }
        foreach {k v} $overrides {
            append lines "$k [::vk::conf_quote $v]\n"
        }
        set fh [open $conf w]
        puts -nonewline $fh $lines
        close $fh

        set pid [exec $::vk::cfg(binary) $conf >$stdout 2>$stderr &]
        ::vk::emit server-up $pid $port
        set status [::vk::wait_ready $pid $stdout]
        if {$status eq "ready"} { break }
        ::vk::kill_pid $pid
        ::vk::emit server-down $pid
        set log [::vk::log_tail $stdout][::vk::log_tail $stderr]
        if {$attempt < 3 && [string match "*Address already in use*" $log]} {
            continue
        }
        error "server did not start ($status): $::vk::cfg(binary) $conf\n$log"
    }
    if {$::vk::cfg(verbose)} {
        ::vk::emit info "started server pid $pid on port $port ($dir)"
    }
    return [dict create host 127.0.0.1 port $port pid $pid dir $dir \
                stdout $stdout stderr $stderr config_file $conf \
                external 0 saved {}]
}

# Quotes a config value for the server's config-file parser.
proc ::vk::conf_quote {value} {
    if {$value eq "" || [regexp {[\s"'\\]} $value]} {
        return "\"[string map [list \\ \\\\ \" \\\"] $value]\""
    }
    return $value
}

# Starts the server by hand on dir (not through start_server: for tests of
# start-up itself) with extra command-line arguments, and waits until it
# is ready or exits. Returns {status log}: its exit status, or "running"
# (it is then stopped), and what it printed. ::vk::by_hand_prefix, a
# command prefix (e.g. {sh -c {ulimit -v N; exec "$0" "$@"}}), runs the
# server under it.
namespace eval ::vk { variable by_hand_prefix {} }
proc start_server_by_hand {dir args} {
    set port [::vk::alloc_port]
    set out [file join $dir out.log]
    set chan [open [list | {*}$::vk::by_hand_prefix $::vk::cfg(binary) --port $port --bind 127.0.0.1 --save "" --dir $dir \
                        {*}$args >& $out] w]
    set pid [pid $chan]
    set status running
    ::vk::wait_ready $pid $out
    if {[::vk::pid_alive $pid]} {
        ::vk::kill_pid $pid
        catch {close $chan}
    } else {
        set status 0
        if {[catch {close $chan} err opts]} {
            set ec [dict get $opts -errorcode]
            if {[lindex $ec 0] eq "CHILDSTATUS"} { set status [lindex $ec 2] }
        }
    }
    set fh [open $out rb]
    set log [read $fh]
    close $fh
    return [list $status $log]
}

# Returns "ready", "exited" or "timed out".
proc ::vk::wait_ready {pid stdout} {
    set deadline [expr {[clock milliseconds] + 1000 * $::vk::cfg(start_timeout)}]
    while {[clock milliseconds] < $deadline} {
        if {[file exists $stdout]} {
            set fh [open $stdout]
            set log [read $fh]
            close $fh
            if {[string match "*Ready to accept connections*" $log]} {
                return ready
            }
        }
        if {![::vk::pid_alive $pid]} { return exited }
        after 20
    }
    return "timed out after $::vk::cfg(start_timeout) s"
}

# External mode: use the --host/--port server.  Overrides are applied with
# CONFIG SET and undone at block end.  Returns "" (and sets reason) when an
# override cannot be applied.
proc ::vk::external_attach {overrides reasonVar} {
    upvar 1 $reasonVar reason
    set host $::vk::cfg(host)
    set port $::vk::cfg(port)
    set c [::vk::client_open $host $port]
    set saved {}
    set reason ""
    foreach {k v} $overrides {
        if {[catch {$c config get $k} old] || [llength $old] != 2} {
            set reason "cannot read config '$k' of the external server"
            break
        }
        if {[catch {$c config set $k $v} err]} {
            set reason "cannot apply override '$k $v' with CONFIG SET: $err"
            break
        }
        lappend saved $k [lindex $old 1]
    }
    if {$reason ne ""} {
        foreach {k v} $saved { catch {$c config set $k $v} }
        $c close
        return ""
    }
    $c flushall
    $c close
    return [dict create host $host port $port pid "" dir "" stdout "" \
                stderr "" config_file "" external 1 saved $saved]
}

# Closes the block's clients, stops the server and checks its log.
# Returns "" when all is well, else a description of what went wrong
# (server died early, crash lines, unexpected WARNINGs) with the log tail.
proc ::vk::server_stop {s} {
    foreach c [dict get $s clients] {
        if {[info commands $c] ne ""} { catch {$c close} }
    }
    if {[dict get $s external]} {
        if {[llength [dict get $s saved]]} {
            set c [::vk::client_open [dict get $s host] [dict get $s port]]
            foreach {k v} [dict get $s saved] { catch {$c config set $k $v} }
            $c close
        }
        return ""
    }
    set pid [dict get $s pid]
    set problems {}
    if {[dict get $s expect_exit]} {
        ::vk::kill_pid $pid
        ::vk::emit server-down $pid
        return ""
    }
    if {![::vk::pid_alive $pid]} {
        lappend problems "the server exited before the end of its block"
    } else {
        ::vk::kill_pid $pid
    }
    ::vk::emit server-down $pid

    set fh [open [dict get $s stdout]]
    set log [read $fh]
    close $fh
    set fh [open [dict get $s stderr]]
    append log [read $fh]
    close $fh
    foreach line [split $log \n] {
        if {[::vk::match_any $::vk::crash_patterns $line]} {
            lappend problems "crash in log: [string trim $line]"
        } elseif {[string match "*WARNING*" $line] &&
                  ![::vk::match_any $::vk::benign_warnings $line] &&
                  ![::vk::match_any [dict get $s log_allow] $line]} {
            lappend problems "unexpected warning in log: [string trim $line]"
        }
    }
    if {[llength $problems] == 0} { return "" }
    return "[join $problems \n]\n--- log tail of pid $pid ([dict get $s dir]) ---\n[::vk::log_tail [dict get $s stdout]]"
}

proc ::vk::match_any {patterns text} {
    foreach p $patterns {
        if {[string match $p $text]} { return 1 }
    }
    return 0
}

# True while pid exists and is not a zombie (Linux /proc).
proc ::vk::pid_alive {pid} {
    if {$pid eq ""} { return 0 }
    if {[catch {open /proc/$pid/stat} fh]} { return 0 }
    set stat [read $fh]
    close $fh
    set state [lindex [string range $stat [expr {[string last ")" $stat] + 2}] end] 0]
    return [expr {$state ne "Z"}]
}

# SIGTERM, then SIGKILL if the process is still there after 10 s.
proc ::vk::kill_pid {pid} {
    catch {exec kill -TERM $pid}
    for {set i 0} {$i < 500} {incr i} {
        if {![::vk::pid_alive $pid]} { return }
        after 20
    }
    catch {exec kill -KILL $pid}
    for {set i 0} {$i < 100 && [::vk::pid_alive $pid]} {incr i} { after 20 }
}

proc ::vk::log_tail {path {lines 30}} {
    if {$path eq "" || [catch {open $path} fh]} { return "" }
    set text [read $fh]
    close $fh
    set all [split [string trimright $text \n] \n]
    return "[join [lrange $all end-[expr {$lines - 1}] end] \n]\n"
}

# ---------------------------------------------------------------- accessors

# The server dict at `level` (0 innermost, -1 the one around it, ...).
proc ::vk::server_at {level} {
    if {[llength $::vk::servers] == 0} {
        error "no server: use this inside start_server"
    }
    set s [lindex $::vk::servers end+$level]
    if {$s eq ""} { error "no server at level $level" }
    return $s
}

# srv ?level? key: host port pid dir stdout stderr config_file
proc srv {args} {
    set level 0
    if {[llength $args] == 2} { lassign $args level args }
    return [dict get [::vk::server_at $level] [lindex $args 0]]
}

# Opens a client to the server at `level` that the block closes at its end.
proc ::vk::client_for_level {level deferred} {
    set idx [expr {[llength $::vk::servers] - 1 + $level}]
    set s [::vk::server_at $level]
    set c [::vk::client_open [dict get $s host] [dict get $s port] $deferred]
    dict lappend s clients $c
    lset ::vk::servers $idx $s
    return $c
}

proc vk_client {{level 0}} {
    return [::vk::client_for_level $level 0]
}

proc vk_deferring_client {{level 0}} {
    return [::vk::client_for_level $level 1]
}

# r_pipeline cmds: sends every command of `cmds` (a list of argument
# lists) on the default client before reading any reply, so a batch costs
# one round trip (bulk loads; round trips dominate over slow transports
# such as Soft-RoCE in the emulated VM). Returns the replies; if any was
# an error, raises the first one after every reply has been read. Keep
# the replies small (the client reads none until it has sent all).
proc r_pipeline {cmds} {
    foreach cmd $cmds { r send {*}$cmd }
    set replies {}
    set failure ""
    foreach cmd $cmds {
        if {[catch {r read} reply]} {
            if {$failure eq ""} { set failure $reply }
        } else {
            lappend replies $reply
        }
    }
    if {$failure ne ""} { error $failure }
    return $replies
}

# r ?level? command args..: run a command on the server's default client
# (opened on first use, reopened after `r close`).
proc r {args} {
    set level 0
    if {[regexp {^-?[0-9]+$} [lindex $args 0]]} {
        set level [lindex $args 0]
        set args [lrange $args 1 end]
    }
    set idx [expr {[llength $::vk::servers] - 1 + $level}]
    set s [::vk::server_at $level]
    if {![dict exists $s r] || [info commands [dict get $s r]] eq ""} {
        set c [::vk::client_for_level $level 0]
        set s [lindex $::vk::servers $idx]
        dict set s r $c
        lset ::vk::servers $idx $s
    }
    return [[dict get $s r] {*}$args]
}

# ---------------------------------------------------------------- helpers

# expect_server_exit ?level?: the server at `level` is going to exit or
# crash on purpose (SHUTDOWN, DEBUG SEGFAULT, ...), so the end of its block
# must not report it.  Its log is left for the test to inspect.
proc expect_server_exit {{level 0}} {
    set idx [expr {[llength $::vk::servers] - 1 + $level}]
    set s [::vk::server_at $level]
    dict set s expect_exit 1
    lset ::vk::servers $idx $s
}

# wait_lazyfree_done: waits until the server's lazy free thread has freed
# everything handed to it (INFO lazyfree_pending_objects is 0). DEL, UNLINK
# and FLUSHALL free big values in the background by default, so a test
# that measures used_memory after one waits for this first.
proc wait_lazyfree_done {} {
    wait_for_condition 500 10 {[regexp {lazyfree_pending_objects:0\r} [r info memory]]} {
        fail "lazy freeing did not finish: [regexp -inline {lazyfree_pending_objects:\d+} [r info memory]]"
    }
}

# needs_debug: skip the current test unless the DEBUG command works.
proc needs_debug {} {
    if {[catch {r debug help} err]} {
        skip "DEBUG is not available: $err"
    }
}

# debug_sleep seconds: block the server for a while with DEBUG SLEEP.
proc debug_sleep {seconds} {
    r debug sleep $seconds
}

# The command-line client to use: --cli-binary, else redis-cli on PATH.
# "" if there is none.
proc cli_binary {} {
    if {$::vk::cfg(cli_binary) ne ""} { return $::vk::cfg(cli_binary) }
    return [lindex [auto_execok redis-cli] 0]
}

# run_cli ?-stdin data? args..: runs the command-line client against the
# innermost server; returns {exit_status output} (stdout and stderr mixed,
# final newline stripped by exec).  Skips the test if there is no client.
proc run_cli {args} {
    set stdin_data ""
    if {[lindex $args 0] eq "-stdin"} {
        set stdin_data [lindex $args 1]
        set args [lrange $args 2 end]
    }
    set cli [cli_binary]
    if {$cli eq ""} { skip "no redis-cli/valkey-cli binary found" }
    if {[catch {::vk::transport_cli_args} transport_args]} { skip $transport_args }
    set cmd [list $cli -h [srv host] -p [srv port] {*}$transport_args {*}$args]
    set code [catch {exec {*}$cmd << $stdin_data 2>@1} out opts]
    set status 0
    if {$code} {
        set ec [dict get $opts -errorcode]
        if {[lindex $ec 0] eq "CHILDSTATUS"} {
            set status [lindex $ec 2]
        } elseif {[lindex $ec 0] ne "NONE"} {
            error $out
        }
    }
    return [list $status $out]
}

# tmp_path name: a path inside this file's private temp dir (for unix
# sockets, files handed to the server, ...).
proc tmp_path {name} {
    return [file join $::vk::cfg(run_dir) $name]
}

# needs_commands name ...: skip the current test unless the server knows
# every named command (used by tests that need data types or features a
# server under test may not have yet). The reason names what is missing.
proc needs_commands {args} {
    foreach name $args {
        if {[r command info $name] eq {{}} || [r command info $name] eq {}} {
            skip "needs the [string toupper $name] command"
        }
    }
}
