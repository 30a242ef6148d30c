# valkey-cli --ldb / --ldb-sync-mode: Lua debugging sessions driven by our
# src/valkey-cli against the test server's debugger (SCRIPT DEBUG, whose
# protocol tests/unit/script-debug.tcl checks). The cli is driven through a
# pipe (no prompt, no colour: the transcripts below are byte for byte
# those of Debian's redis-cli 7.0 --ldb against the same server, fed the
# same lines) and through a pseudo-terminal (the prompt, the colours).
# Covered: stepping, breakpoints, print, eval, server calls, help, restart
# with an edited file, quit, SYNC keeping changes and forked sessions
# rolling them back, and the failures: SCRIPT DEBUG refused, a script that
# does not compile, a session whose connection is lost.

set ::vcli_binary [file join $::vk::cfg(root) src valkey-cli]
# VALKEY_CLI_BINARY runs these tests against another build of the cli.
if {[info exists ::env(VALKEY_CLI_BINARY)]} { set ::vcli_binary $::env(VALKEY_CLI_BINARY) }

# The cli's command line against the innermost server.
proc ldb_cli_cmd {args} {
    if {![file executable $::vcli_binary]} { skip "$::vcli_binary is not built (make)" }
    if {[catch {::vk::transport_cli_args} transport_args]} { skip $transport_args }
    return [list $::vcli_binary -h [srv host] -p [srv port] {*}$transport_args {*}$args]
}

# ldb_write_script name text: writes a Lua file; returns its path.
proc ldb_write_script {name text} {
    set path [tmp_path $name]
    set fd [open $path w]
    puts -nonewline $fd $text
    close $fd
    return $path
}

# ldb_run input args..: runs the cli with `input` as its whole stdin;
# returns {exit_status output} (stdout and stderr mixed, as they came).
proc ldb_run {input args} {
    set cmd [ldb_cli_cmd {*}$args]
    set code [catch {exec {*}$cmd << $input 2>@1} out opts]
    set status 0
    if {$code} {
        set ec [dict get $opts -errorcode]
        if {[lindex $ec 0] ne "CHILDSTATUS"} { error $out }
        set status [lindex $ec 2]
    }
    regsub {\n?child process exited abnormally$} $out {} out
    return [list $status $out]
}

# A cli kept running on a pipe, for sessions where the test acts between
# lines: ldb_open starts it, ldb_send types a line, ldb_expect waits for
# output matching a glob and returns what came since the last
# ldb_expect, ldb_finish closes its stdin and returns {status rest}.
proc ldb_open {args} {
    set fd [open "|[list {*}[ldb_cli_cmd {*}$args] 2>@1]" r+]
    fconfigure $fd -blocking 0 -buffering line -translation binary
    set ::ldb_buf($fd) ""
    return $fd
}

proc ldb_send {fd line} {
    puts $fd $line
    flush $fd
}

proc ldb_expect {fd pattern {timeout_ms 10000}} {
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while {![string match $pattern $::ldb_buf($fd)]} {
        append ::ldb_buf($fd) [read $fd]
        if {[string match $pattern $::ldb_buf($fd)]} break
        if {[eof $fd] || [clock milliseconds] > $deadline} {
            set got $::ldb_buf($fd)
            catch {close $fd}
            fail "valkey-cli output does not match '$pattern': '$got'"
        }
        after 20
    }
    set out $::ldb_buf($fd)
    set ::ldb_buf($fd) ""
    return $out
}

proc ldb_finish {fd} {
    chan close $fd write
    fconfigure $fd -blocking 1
    append ::ldb_buf($fd) [read $fd]
    set out $::ldb_buf($fd)
    unset ::ldb_buf($fd)
    set status 0
    if {[catch {close $fd} err opts]} {
        set ec [dict get $opts -errorcode]
        if {[lindex $ec 0] ne "CHILDSTATUS"} { error $err }
        set status [lindex $ec 2]
    }
    return [list $status $out]
}

# ldb_tty keys args..: runs the cli on a pseudo-terminal (util-linux
# `script`) with TERM=xterm, typing each key followed by Enter with a
# pause between them; returns what the terminal showed, carriage returns
# removed.
proc ldb_tty {keys args} {
    if {[auto_execok script] eq ""} { skip "no script(1) for a pseudo-terminal" }
    set cli [join [ldb_cli_cmd {*}$args] " "]
    set typing ""
    foreach k $keys { append typing "printf '%s\\r' '$k'; sleep 0.4; " }
    set env "TERM=xterm VALKEYCLI_HISTFILE=/dev/null"
    set out [exec sh -c "($typing) | $env script -q -c '$cli' /dev/null" 2>@1]
    return [string map [list "\r" ""] $out]
}

# The pids of a server's children (its forked debugging sessions).
proc ldb_children {pid} {
    set kids {}
    foreach f [glob -nocomplain /proc/$pid/task/*/children] {
        set fd [open $f]
        append kids " " [read $fd]
        close $fd
    }
    return [string trim $kids]
}

# Waits until the innermost server has no session child left (those of
# earlier tests are reaped by a timer).
proc ldb_wait_no_children {} {
    wait_for_condition 50 100 {[ldb_children [srv pid]] eq {}} { fail "a debugging session's child is still there" }
}

set ::ldb_banner "Lua debugging session started, please use:
quit    -- End the session.
restart -- Restart the script in debug mode again.
help    -- Show Lua script debugging commands.
"

set ::ldb_set_get_script {local a = 'x'
redis.call('set', KEYS[1], ARGV[1])
local v = redis.call('get', KEYS[1])
return {v, a}
}

start_server {tags {"cli ldb rdma:skip:tcp-tool"}} {
    test "valkey-cli --ldb-sync-mode: stepping to the end, SYNC keeps the changes" {
        r del k1
        set f [ldb_write_script step.lua $::ldb_set_get_script]
        lassign [ldb_run "s\ns\ns\ns\nget k1\n" --ldb-sync-mode --eval $f k1 , hello] status out
        assert_equal 0 $status
        assert_equal "$::ldb_banner
* Stopped at 1, stop reason = step over
-> 1   local a = 'x'
* Stopped at 2, stop reason = step over
-> 2   redis.call('set', KEYS\[1\], ARGV\[1\])
<redis> set k1 hello
<reply> \"+OK\"
* Stopped at 3, stop reason = step over
-> 3   local v = redis.call('get', KEYS\[1\])
<redis> get k1
<reply> \"hello\"
* Stopped at 4, stop reason = step over
-> 4   return {v, a}

1) \"hello\"
2) \"x\"

(Lua debugging session ended)

\"hello\"" $out
        # After the session a line is a command again, in the terminal
        # format (above: "hello" quoted), on a new connection.
        r get k1
    } {hello}

    test "valkey-cli --ldb: breakpoint, print, eval as typed, server calls" {
        r del k2 counter
        set f [ldb_write_script bp.lua $::ldb_set_get_script]
        # "e <code>" goes as typed (Lua's quotes would not split as words).
        set lines [join [list "b 4" b c p "p a" \
                             {e return redis.call('get', KEYS[1]) .. "!"} \
                             "r incr counter" "redis incr counter" "l 2 0" "nosuch" \
                             {"unbalanced} c] "\n"]
        lassign [ldb_run "$lines\n" --ldb --eval $f k2 , v2] status out
        assert_equal 0 $status
        assert_equal "$::ldb_banner
* Stopped at 1, stop reason = step over
-> 1   local a = 'x'
   3   local v = redis.call('get', KEYS\[1\])
  #4   return {v, a}
1 breakpoints set:
  #4   return {v, a}
* Stopped at 4, stop reason = break point
->#4   return {v, a}
<value> a = \"x\"
<value> v = \"v2\"
<value> \"x\"
<retval> \"v2!\"
<redis> incr counter
<reply> 1
<redis> incr counter
<reply> 2
   2   redis.call('set', KEYS\[1\], ARGV\[1\])
<error> Unknown Valkey Lua debugger command or wrong number of arguments.
Invalid argument(s)

1) \"v2\"
2) \"x\"

(Lua debugging session ended -- dataset changes rolled back)
" $out
        # A forked session: what the script and `redis` did is gone.
        list [r exists k2] [r exists counter]
    } {0 0}

    test "valkey-cli --ldb: help is the debugger's, sent to the server" {
        set f [ldb_write_script help.lua "return 1\n"]
        lassign [ldb_run "help\nc\n" --ldb --eval $f] status out
        assert_equal 0 $status
        assert_match "*\n-> 1   return 1\nValkey Lua debugger help:\n\\\[h\\\]elp               Show this help.\n*" $out
        assert_match "*\n\\\[r\\\]edis <cmd>        Execute a Valkey command.\n*" $out
        assert_match "*\n\n(integer) 1\n\n(Lua debugging session ended -- dataset changes rolled back)\n" $out
    }

    test "valkey-cli --ldb: the server serves others while a forked session waits" {
        r set k3 before
        ldb_wait_no_children
        set f [ldb_write_script forked.lua $::ldb_set_get_script]
        set fd [ldb_open --ldb --eval $f k3 , during]
        ldb_expect $fd "*-> 1   local a = 'x'\n"
        ldb_send $fd s
        ldb_send $fd s
        ldb_expect $fd "*<reply> \"+OK\"\n*-> 3 *\n"
        # The child has set k3; the server has not, and answers meanwhile.
        assert_equal before [r get k3]
        assert_equal 1 [llength [ldb_children [srv pid]]]
        ldb_send $fd c
        ldb_expect $fd "*(Lua debugging session ended -- dataset changes rolled back)\n\n"
        lassign [ldb_finish $fd] status rest
        assert_equal {0 {}} [list $status $rest]
        ldb_wait_no_children
        r get k3
    } {before}

    test "valkey-cli --ldb: restart reads the edited file and starts a new session" {
        set f [ldb_write_script restart.lua "local n = 1\nreturn n\n"]
        set fd [ldb_open --ldb --eval $f]
        ldb_expect $fd "*-> 1   local n = 1\n"
        ldb_send $fd s
        ldb_expect $fd "*-> 2   return n\n"
        ldb_write_script restart.lua "local n = 2\nreturn n * 10\n"
        ldb_send $fd restart
        set out [ldb_expect $fd "*-> 1   local n = 2\n"]
        assert_equal "\n$::ldb_banner\n* Stopped at 1, stop reason = step over\n-> 1   local n = 2\n" $out
        ldb_send $fd c
        assert_equal "\n(integer) 20\n\n(Lua debugging session ended -- dataset changes rolled back)\n\n" \
            [ldb_expect $fd "*ended*\n\n"]
        # restart after the end: the script again, from its first line.
        ldb_send $fd restart
        ldb_expect $fd "\n$::ldb_banner\n* Stopped at 1, stop reason = step over\n-> 1   local n = 2\n"
        ldb_send $fd quit
        ldb_finish $fd
    } {0 {}}

    test "valkey-cli --ldb: quit ends the session and the cli" {
        r set k4 before
        set f [ldb_write_script quit.lua $::ldb_set_get_script]
        lassign [ldb_run "s\ns\nquit\nc\n" --ldb --eval $f k4 , after] status out
        assert_equal 0 $status
        # Nothing after quit: the "c" was never read, the session did not
        # reach its end here.
        assert_match "*<reply> \"+OK\"\n\\* Stopped at 3, stop reason = step over\n-> 3   local v = redis.call('get', KEYS\\\[1\\\])" $out
        assert {![string match "*ended*" $out]}
        ldb_wait_no_children
        r get k4
    } {before}

    test "valkey-cli --ldb-sync-mode: quit lets the script run to its end, kept" {
        r del k5
        set f [ldb_write_script quitsync.lua $::ldb_set_get_script]
        lassign [ldb_run "quit\n" --ldb-sync-mode --eval $f k5 , kept] status out
        assert_equal 0 $status
        wait_for_condition 50 100 {[r get k5] eq "kept"} { fail "the script did not run to its end" }
    }

    test "valkey-cli --ldb: a script that does not compile cannot start a session" {
        set f [ldb_write_script bad.lua "return (\n"]
        ldb_run "s\n" --ldb --eval $f
    } [list 0 "$::ldb_banner

Eval debugging session can't start:
(error) ERR Error compiling script (new function): user_script:2: unexpected symbol near '<eof>'"]

    test "valkey-cli --ldb: SCRIPT DEBUG refused, the error is printed and nothing runs" {
        r acl setuser nodebug on >pw +@all -script|debug ~*
        r del k6
        set f [ldb_write_script refused.lua $::ldb_set_get_script]
        set out [ldb_run "s\n" --user nodebug -a pw --no-auth-warning --ldb --eval $f k6 , v]
        # Without a debugger the EVAL would have set k6.
        assert_equal 0 [r exists k6]
        r acl deluser nodebug
        set out
    } {1 {NOPERM User nodebug has no permissions to run the 'script|debug' command}}

    test "valkey-cli --ldb: a session whose connection is lost ends, the next line reconnects" {
        ldb_wait_no_children
        set f [ldb_write_script lost.lua $::ldb_set_get_script]
        set fd [ldb_open --ldb --eval $f k7 , v]
        ldb_expect $fd "*-> 1   local a = 'x'\n"
        set kids [ldb_children [srv pid]]
        assert_equal 1 [llength $kids]
        exec kill -9 {*}$kids
        ldb_send $fd s
        # "Server closed the connection", or a reset: the server's side
        # may have had unread bytes.
        ldb_expect $fd "Error: *\n"
        # No session any more: a command, not a debugger line.
        ldb_send $fd ping
        ldb_expect $fd "PONG\n"
        ldb_finish $fd
    } {0 {}}

    test "valkey-cli --ldb on a terminal: the prompt, coloured lines, then the plain prompt" {
        set f [ldb_write_script tty.lua $::ldb_set_get_script]
        set out [ldb_tty {"b 4" "s" "s" "c" "c" "ping" "quit"} --ldb --eval $f k8 , v]
        set port [srv port]
        assert_match "*lua debugger> *" $out
        # Valkey's colours: the current line yellow, a breakpoint bold,
        # <redis> green, <reply> cyan, other lines white.
        assert_match "*\x1b\\\[0;37;49m\\* Stopped at 1, stop reason = step over\x1b\\\[0m\n\x1b\\\[0;33;49m-> 1   local a = 'x'\x1b\\\[0m\n*" $out
        assert_match "*\x1b\\\[1;37;49m  #4   return {v, a}\x1b\\\[0m\n*" $out
        assert_match "*\x1b\\\[0;32;49m<redis> set k8 v\x1b\\\[0m\n\x1b\\\[0;36;49m<reply> \"+OK\"\x1b\\\[0m\n*" $out
        assert_match "*\x1b\\\[0;33;49m->#4   return {v, a}\x1b\\\[0m\n*" $out
        # Then the plain prompt, commands in the terminal format.
        assert_match "*(Lua debugging session ended -- dataset changes rolled back)\n*127.0.0.1:$port> ping\nPONG\n*" $out
    }
}
