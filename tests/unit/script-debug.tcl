# The Lua debugger (LDB): SCRIPT DEBUG YES|SYNC|NO and the session
# protocol valkey-cli --ldb speaks. After SCRIPT DEBUG, an EVAL answers
# with the debugger's log (an array of status lines) instead of its reply;
# debugger commands go as RESP arrays on the same connection, each
# answered with such an array, until "<endsession>" comes followed by the
# EVAL's own reply and the connection is closed. SYNC runs the session in
# the server and keeps the changes, YES forks a child and drops them.

# The pids of the server's children (forked debugging sessions).
proc ldb_children {pid} {
    set kids {}
    foreach f [glob -nocomplain /proc/$pid/task/*/children] {
        set fd [open $f]
        append kids " " [read $fd]
        close $fd
    }
    return [string trim $kids]
}

# Starts a session on a new client: SCRIPT DEBUG mode, then EVAL with
# numkeys, keys and args (none: 0 keys). Returns {client first-reply}.
proc ldb_start {mode script args} {
    if {[llength $args] == 0} { set args 0 }
    set c [vk_client]
    assert_equal OK [$c script debug $mode]
    set first [$c eval $script {*}$args]
    return [list $c $first]
}

start_server {tags {scripting ldb}} {
    test {SCRIPT DEBUG - mode errors and NO} {
        assert_error {ERR Use SCRIPT DEBUG YES/SYNC/NO} {r script debug maybe}
        assert_equal OK [r script debug no]
        # Debug mode off again: EVAL replies at once.
        assert_equal OK [r script debug sync]
        assert_equal OK [r script debug no]
        r eval {return 'plain'} 0
    } {plain}

    test {SCRIPT DEBUG - EVAL stops before the first line} {
        lassign [ldb_start sync {local a = 1
return a}] c first
        $c close
        set first
    } {{* Stopped at 1, stop reason = step over} {-> 1   local a = 1}}

    test {SCRIPT DEBUG - step shows commands and replies, the session ends with the reply} {
        r del k1
        lassign [ldb_start sync {local a = 'x'
redis.call('set', KEYS[1], a)
local v = server.call('get', KEYS[1])
return {v, 'done'}} 1 k1] c first
        assert_equal {{* Stopped at 2, stop reason = step over} {-> 2   redis.call('set', KEYS[1], a)}} [$c s]
        assert_equal {{<redis> set k1 x} {<reply> "+OK"} {* Stopped at 3, stop reason = step over} {-> 3   local v = server.call('get', KEYS[1])}} [$c next]
        assert_equal {{<redis> get k1} {<reply> "x"} {* Stopped at 4, stop reason = step over} {-> 4   return {v, 'done'}}} [$c step]
        assert_equal {<endsession>} [$c s]
        assert_equal {x done} [$c read]
        # The session's end closes the connection.
        assert_error {*} {$c ping}
        $c close
        # SYNC keeps what the script did.
        r get k1
    } {x}

    test {SCRIPT DEBUG - print, eval, list, whole and trace} {
        lassign [ldb_start sync {local function twice(n)
  local r = n * 2
  return r
end
local t = {1, 2, 'three'}
local m = {k = true}
local y = twice(21)
return y} 2 ka kb a1] c first
        $c b 3
        $c c
        set out {}
        lappend out [$c p n]
        lappend out [$c print]
        lappend out [$c p t]
        lappend out [$c p KEYS]
        lappend out [$c p ARGV]
        lappend out [$c p nosuch]
        lappend out [$c e 1 + 1]
        lappend out [$c eval {server.sha1hex('foo')}]
        lappend out [$c e {x =}]
        lappend out [$c t]
        lappend out [$c l 3 1]
        set whole [$c w]
        assert_equal {{<value> n = 21} {<value> r = 42}} [lindex $out 1]
        assert_equal 8 [llength $whole]
        assert_equal {->#3     return r} [lindex $whole 2]
        $c c
        assert_equal 42 [$c read]
        $c close
        lreplace $out 1 1
    } {{{<value> 21}} {{<value> {1; 2; "three"}}} {{<value> {"ka"; "kb"}}} {{<value> {"a1"}}} {{No such variable.}} {{<retval> 2}} {{<retval> "0beec7b5ea3f0fdbc95d0dd47f3c5bc275da8a33"}} {{<error> ldb_eval:1: unexpected symbol near '<eof>'}} {{In twice:} {->#3     return r} {From top level:} {   7   local y = twice(21)}} {{   2     local r = n * 2} {->#3     return r} {   4   end}}}

    test {SCRIPT DEBUG - breakpoints: add, list, remove, clear} {
        lassign [ldb_start sync {local a = 1
local b = 2
local c = 3
return a + b + c}] c first
        set out {}
        lappend out [$c b]
        lappend out [$c b 2 4 99 x]
        lappend out [$c break]
        lappend out [$c b -2]
        lappend out [$c b -2]
        lappend out [$c b 0]
        lappend out [$c b]
        $c b 3
        lappend out [$c c]
        $c c
        assert_equal 6 [$c read]
        $c close
        set out
    } {{{No breakpoints set. Use 'b <line>' to add one.}} {{-> 1   local a = 1} {  #2   local b = 2} {   3   local c = 3} {   3   local c = 3} {  #4   return a + b + c} {Wrong line number.} {Invalid argument:'x'}} {{2 breakpoints set:} {  #2   local b = 2} {  #4   return a + b + c}} {{Breakpoint removed.}} {{No breakpoint in the specified line.}} {{All breakpoints removed.}} {{No breakpoints set. Use 'b <line>' to add one.}} {{* Stopped at 3, stop reason = break point} {->#3   local c = 3}}}

    test {SCRIPT DEBUG - server.debug, server.breakpoint and the redis command} {
        r del counter
        lassign [ldb_start sync {local t = {a = 1}
server.debug('hello', 3.5, t, false, nil)
if 1 then server.breakpoint() end
return server.call('incr', 'counter')}] c first
        set logs [$c c]
        assert_equal {{<debug> line 2: "hello", 3.5, {["a"]=1}, false, nil} {* Stopped at 4, stop reason = redis.breakpoint() called} {-> 4   return server.call('incr', 'counter')}} $logs
        assert_equal {{<redis> incr counter} {<reply> 1}} [$c redis incr counter]
        assert_equal {{<redis> incr counter} {<reply> 2}} [$c server incr counter]
        assert_equal {{<redis> nosuchcommand} {<error> ERR Unknown command called from script}} [$c r nosuchcommand]
        $c c
        assert_equal 3 [$c read]
        $c close
        list [r get counter] [r eval {return server.breakpoint()} 0]
    } {3 {}}

    test {SCRIPT DEBUG - maxlen trims long values, once with a hint} {
        lassign [ldb_start sync {local s = string.rep('x', 300)
return #s}] c first
        $c s
        set first_print [$c p s]
        set second_print [$c p s]
        set shown [$c maxlen]
        set set60 [$c m 10]
        set short [$c p s]
        $c m 0
        set all [$c p s]
        $c c
        assert_equal 300 [$c read]
        $c close
        assert_equal 2 [llength $first_print]
        assert_equal "<value> \"[string repeat x 247] ..." [lindex $first_print 0]
        assert_equal {<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming.} [lindex $first_print 1]
        assert_equal 1 [llength $second_print]
        assert_equal "<value> \"[string repeat x 51] ..." [lindex $short 0]
        assert_equal "<value> \"[string repeat x 300]\"" [lindex $all 0]
        list $shown $set60
    } {{{<value> replies are truncated at 256 bytes.}} {{<value> replies are truncated at 60 bytes.}}}

    test {SCRIPT DEBUG - help and unknown commands} {
        lassign [ldb_start sync {return 1}] c first
        set help [$c help]
        set h [$c h]
        set unknown [$c nosuch]
        set nul [$c "s\x00x"]
        set bare [$c "\x00s"]
        $c c
        assert_equal 1 [$c read]
        $c close
        assert_equal $help $h
        assert_equal {Valkey Lua debugger help:} [lindex $help 0]
        assert_match {*\[a\]bort*} $help
        assert_equal $unknown $nul
        assert_equal $unknown $bare
        set unknown
    } {{<error> Unknown Valkey Lua debugger command or wrong number of arguments.}}

    test {SCRIPT DEBUG - abort in SYNC mode keeps what the script did} {
        r del before after
        lassign [ldb_start sync {redis.call('set', 'before', 1)
redis.call('set', 'after', 1)
return 1}] c first
        $c s
        assert_equal {<endsession>} [$c abort]
        assert_error {ERR script aborted for user request script: *, on @user_script:2.} {$c read}
        $c close
        list [r exists before] [r exists after]
    } {1 0}

    test {SCRIPT DEBUG - debugger commands pipelined right after EVAL} {
        set c [vk_client]
        assert_equal OK [$c script debug sync]
        set script "local a = 5\nreturn a"
        $c write "*3\r\n\$4\r\nEVAL\r\n\$[string length $script]\r\n$script\r\n\$1\r\n0\r\n*1\r\n\$1\r\ns\r\n*2\r\n\$1\r\np\r\n\$1\r\na\r\n*1\r\n\$1\r\nc\r\n"
        $c flush
        set out [list [$c read] [$c read] [$c read] [$c read] [$c read]]
        $c close
        set out
    } {{{* Stopped at 1, stop reason = step over} {-> 1   local a = 5}} {{* Stopped at 2, stop reason = step over} {-> 2   return a}} {{<value> 5}} <endsession> 5}

    test {SCRIPT DEBUG - a protocol error ends the script} {
        lassign [ldb_start sync {return 1}] c first
        $c write "garbage\r\n"
        $c flush
        assert_equal {<endsession>} [$c read]
        assert_error {ERR protocol error script:*} {$c read}
        $c close
        r ping
    } {PONG}

    test {SCRIPT DEBUG - EVALSHA is refused, EVAL_RO is debugged} {
        set c [vk_client]
        $c script debug sync
        set sha [r script load {return 'ro'}]
        assert_error {ERR Please use EVAL instead of EVALSHA for debugging} {$c evalsha $sha 0}
        assert_error {NOSCRIPT*} {$c evalsha_ro short 0}
        assert_equal {{* Stopped at 1, stop reason = step over} {-> 1   return 'ro'}} [$c eval_ro {return 'ro'} 0]
        $c c
        assert_equal ro [$c read]
        $c close
    }

    test {SCRIPT DEBUG - a debug-mode EVAL inside MULTI runs without a session} {
        set c [vk_client]
        $c script debug sync
        $c multi
        $c eval {return 'in exec'} 0
        set r [$c exec]
        $c close
        set r
    } {{in exec}}

    test {SCRIPT DEBUG SYNC - a client that leaves mid-session: the script runs on, the server serves others} {
        # The server blocks in the session, waiting for the client's next
        # command; the client's close must end that wait (over RDMA the
        # disconnect is a CM event, not EOF on the connection's fd).
        r del left
        lassign [ldb_start sync {redis.call('set', 'left', 'a')
redis.call('set', 'left', 'b')
return 1}] c first
        assert_equal {{<redis> set left a} {<reply> "+OK"} {* Stopped at 2, stop reason = step over} {-> 2   redis.call('set', 'left', 'b')}} [$c s]
        $c close
        list [r ping] [r get left]
    } {PONG b}

    test {SCRIPT DEBUG YES where a forked child cannot serve the connection (RDMA) is refused} {
        # Over RDMA the connection's buffers are registered do-not-fork: a
        # forked session could not answer its client, so YES is refused
        # and the client stays out of debug mode. Other transports fork.
        set c [vk_client]
        if {$::vk::transport eq "rdma"} {
            assert_error {ERR SCRIPT DEBUG YES forks a session, and a forked child cannot serve a rdma connection. Use SCRIPT DEBUG SYNC instead.} {$c script debug yes}
            assert_equal plain [$c eval {return 'plain'} 0]
        } else {
            assert_equal OK [$c script debug yes]
        }
        $c close
    }

    tags {rdma:skip:fork} {
        test {SCRIPT DEBUG YES - a forked session: the server serves others, changes are rolled back} {
            r set forked original
            set pid [srv pid]
            lassign [ldb_start yes {redis.call('set', 'forked', 'changed')
return redis.call('get', 'forked')}] c first
            # Stopped in the child: the server answers meanwhile.
            assert_equal PONG [r ping]
            assert_equal 1 [llength [ldb_children $pid]]
            assert_equal {{<redis> set forked changed} {<reply> "+OK"} {* Stopped at 2, stop reason = step over} {-> 2   return redis.call('get', 'forked')}} [$c s]
            assert_equal {<endsession>} [$c c]
            assert_equal changed [$c read]
            $c close
            wait_for_condition 50 100 {[ldb_children $pid] eq {}} { fail "the session's child is still there" }
            r get forked
        } {original}

        test {SCRIPT DEBUG YES - a client killed mid-way leaves no child behind} {
            set pid [srv pid]
            lassign [ldb_start yes {local i = 0
i = i + 1
return i}] c first
            assert_equal 1 [llength [ldb_children $pid]]
            $c close
            wait_for_condition 50 100 {[ldb_children $pid] eq {}} { fail "the session's child is still there" }
            r ping
        } {PONG}

        test {SCRIPT DEBUG YES - a looping script whose client is gone is ended at the timeout} {
            set pid [srv pid]
            r config set busy-reply-threshold 100
            lassign [ldb_start yes {local i = 0
while true do i = i + 1 end}] c first
            $c close
            wait_for_condition 50 100 {[ldb_children $pid] eq {}} { fail "the looping session's child is still there" }
            r config set busy-reply-threshold 5000
            r ping
        } {PONG}
    }
}

start_server {tags {scripting ldb} overrides {busy-reply-threshold 100}} {
    test {SCRIPT DEBUG - a long run stops with "timeout reached"} {
        lassign [ldb_start sync {local i = 0
while true do
  i = i + 1
end}] c first
        set stop [$c c]
        assert_match {{* Stopped at * stop reason = timeout reached, infinite loop?} *} $stop
        assert_equal {<endsession>} [$c a]
        assert_error {ERR script aborted for user request*} {$c read}
        $c close
        r ping
    } {PONG}

    tags {rdma:skip:fork} {
        test {SCRIPT DEBUG YES - forked sessions die with the server} {
            set pid [srv pid]
            lassign [ldb_start yes {return 1}] c first
            set kids [ldb_children $pid]
            assert_equal 1 [llength $kids]
            expect_server_exit
            catch {r shutdown nosave}
            wait_for_condition 50 100 {![::vk::pid_alive $pid]} { fail "server did not exit" }
            wait_for_condition 50 100 {![file exists /proc/$kids]} { fail "the session's child outlived the server" }
            $c close
        }
    }
}
