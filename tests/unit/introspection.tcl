# Introspection: COMMAND, SLOWLOG, LATENCY, MONITOR, DEBUG, TIME and the
# crash report.  Tests of Valkey-specific output are tagged valkey-only so
# the file can be checked against a Redis 7.0 binary as well.

start_server {tags {introspection}} {
    test "COMMAND COUNT reports the size of the command table" {
        assert {[r command count] > 50}
    }

    test "COMMAND without arguments describes every command" {
        assert_equal [r command count] [llength [r command]]
    }

    test "COMMAND INFO get: arity, flags and key positions" {
        set info [lindex [r command info get] 0]
        assert_equal get [lindex $info 0]
        assert_equal 2 [lindex $info 1]
        assert {"readonly" in [lindex $info 2]}
        assert {"fast" in [lindex $info 2]}
        assert_equal {1 1 1} [lrange $info 3 5]
        assert {"@read" in [lindex $info 6] && "@string" in [lindex $info 6] && "@fast" in [lindex $info 6]}
        assert_equal 10 [llength $info]
    }

    test "COMMAND INFO derives @write and @slow from the flags" {
        set info [lindex [r command info set] 0]
        assert_equal -3 [lindex $info 1]
        assert {"write" in [lindex $info 2] && "denyoom" in [lindex $info 2]}
        assert {"@write" in [lindex $info 6] && "@slow" in [lindex $info 6]}
    }

    test "COMMAND INFO of several commands, one unknown" {
        set reply [r command info get nosuchcommand set]
        assert_equal 3 [llength $reply]
        assert_equal {} [lindex $reply 1]
        assert_equal set [lindex $reply 2 0]
    }

    test "COMMAND INFO of a container lists its subcommands" {
        set info [lindex [r command info config] 0]
        set subs {}
        foreach sub [lindex $info 9] { lappend subs [lindex $sub 0] }
        assert {"config|get" in $subs && "config|set" in $subs}
        set get [lindex [r command info config|get] 0]
        assert_equal config|get [lindex $get 0]
        assert_equal -3 [lindex $get 1]
    }

    test "COMMAND INFO key specs of get" {
        set spec [lindex [r command info get] 0 8 0]
        assert_equal {index 1} [dict get $spec begin_search spec]
        assert_equal range [dict get $spec find_keys type]
        assert_equal 0 [dict get $spec find_keys spec lastkey]
    }

    test "COMMAND LIST, with and without filters" {
        set all [r command list]
        assert {"get" in $all && "config|get" in $all}
        set cfg [lsort [r command list filterby pattern config*]]
        assert {"config" in $cfg && "config|get" in $cfg && "get" ni $cfg}
        set strings [r command list filterby aclcat string]
        assert {"get" in $strings && "set" in $strings && "ping" ni $strings}
        assert_equal {} [r command list filterby aclcat nosuchcategory]
        assert_equal {} [r command list filterby module nosuchmodule]
        assert_error "*syntax*" {r command list filterby nosuch x}
    }

    test "COMMAND GETKEYS finds the keys of a command line" {
        assert_equal {k} [r command getkeys set k v]
        assert_equal {a b} [r command getkeys mset a 1 b 2]
        assert_equal {k} [r command getkeys get k]
    }

    test "COMMAND GETKEYS errors" {
        assert_error "*Invalid command specified*" {r command getkeys nosuchcmd a b}
        assert_error "*The command has no key arguments*" {r command getkeys ping x}
        assert_error "*Invalid number of arguments specified for command*" {r command getkeys get a b}
    }

    test "COMMAND GETKEYSANDFLAGS returns each key with its flags" {
        set reply [r command getkeysandflags set k v]
        assert_equal 1 [llength $reply]
        assert_equal k [lindex $reply 0 0]
        assert {[llength [lindex $reply 0 1]] > 0}
    }

    test "COMMAND GETKEYSANDFLAGS reports Valkey's key-spec flags per key" {
        assert_equal {{k1 {OW update}}} [r command getkeysandflags set k1 v1]
        assert_equal {{k1 {RW access update}}} [r command getkeysandflags set k1 v1 get]
        assert_equal {{k1 {OW update}} {k2 {OW update}}} [r command getkeysandflags mset k1 v1 k2 v2]
        assert_equal {{k1 {RW access delete}} {k2 {RW insert}}} [r command getkeysandflags lmove k1 k2 left right]
        assert_equal {{k1 {RO access}} {k2 {OW update}}} [r command getkeysandflags sort k1 store k2]
        assert_equal {{d {OW update}} {a {RO access}} {b {RO access}}} \
            [r command getkeysandflags zunionstore d 2 a b]
        assert_equal {{k {RM delete}}} [r command getkeysandflags del k]
        assert_equal {{k {RO access}}} [r command getkeysandflags bitfield k get u8 0]
        assert_equal {{k {RW access update}}} [r command getkeysandflags bitfield k incrby u8 0 1]
        assert_equal {{k {RW access delete}}} [r command getkeysandflags lmpop 1 k left]
        assert_equal {{s {RW insert}}} [r command getkeysandflags xgroup create s g $]
    }

    test "COMMAND LIST FILTERBY matches subcommands across parents and exact names" {
        assert_equal {set} [r command list filterby pattern set]
        assert_equal {client|help cluster|help} [lsort [r command list filterby pattern cl*help]]
        set re [r command list filterby pattern config|*re*]
        assert {"config|resetstat" in $re && "config|rewrite" in $re && "config|get" ni $re}
        set scripting [r command list filterby aclcat scripting]
        assert {"eval" in $scripting && "script|kill" in $scripting && "set" ni $scripting}
        assert_equal {} [r command list filterby pattern non_exists*]
    }

    test "COMMAND DOCS get has a summary, a group and a version" {
        set docs [r command docs get]
        assert_equal get [lindex $docs 0]
        set d [lindex $docs 1]
        assert {[string length [dict get $d summary]] > 0}
        assert_equal string [dict get $d group]
        assert_equal 1.0.0 [dict get $d since]
        assert_equal {} [r command docs nosuchcommand]
    }

    test "COMMAND DOCS of a container includes its subcommands" {
        set d [lindex [r command docs config] 1]
        assert {[dict exists [dict get $d subcommands] config|get]}
    }

    # The argument maps of COMMAND DOCS, by position, as Tcl dicts.
    proc docs_args {name} {
        dict get [lindex [r command docs $name] 1] arguments
    }
    proc docs_arg_with_token {args token} {
        foreach a $args {
            if {[dict exists $a token] && [dict get $a token] eq $token} { return $a }
        }
        return {}
    }

    # Argument trees as this server reports them: Redis 7.0 adds per-argument
    # history (since, deprecated_since) and groups a few arguments differently.
    tags {valkey-only} {
        test "COMMAND DOCS set: arguments with types, tokens, flags and nested oneofs" {
            set args [docs_args set]
            assert_equal 5 [llength $args]
            assert_equal {name key type key key_spec_index 0} [lindex $args 0]
            assert_equal {name value type string} [lindex $args 1]
            set cond [lindex $args 2]
            assert_equal condition [dict get $cond name]
            assert_equal oneof [dict get $cond type]
            assert_equal optional [dict get $cond flags]
            assert_equal {{name nx type pure-token token NX} {name xx type pure-token token XX}} \
                [dict get $cond arguments]
            assert_equal {name get type pure-token token GET flags optional} [lindex $args 3]
            set exp [dict get [lindex $args 4] arguments]
            assert_equal 5 [llength $exp]
            assert_equal {name seconds type integer token EX} [lindex $exp 0]
            assert_equal {name unix-time-milliseconds type unix-time token PXAT} [lindex $exp 3]
            assert_equal {name keepttl type pure-token token KEEPTTL} [lindex $exp 4]
        }
    }

    tags {valkey-only} {
        test "COMMAND DOCS zadd: a repeated block of score and member" {
            set args [docs_args zadd]
            assert_equal {key condition comparison change increment score_member} \
                [lmap a $args {dict get $a name}]
            assert_equal {name change type pure-token token CH flags optional} [lindex $args 3]
            set sm [lindex $args 5]
            assert_equal block [dict get $sm type]
            assert_equal multiple [dict get $sm flags]
            assert_equal {{name score type double} {name member type string}} [dict get $sm arguments]
        }
    }

    tags {valkey-only} {
        test "COMMAND DOCS client|kill: old and new formats, repeated filters" {
            set args [docs_args client|kill]
            assert_equal 1 [llength $args]
            set filter [lindex $args 0]
            assert_equal oneof [dict get $filter type]
            lassign [dict get $filter arguments] old new
            assert_equal {name ip:port type string} $old
            assert_equal oneof [dict get $new type]
            assert_equal multiple [dict get $new flags]
            set byname [dict create]
            foreach a [dict get $new arguments] { dict set byname [dict get $a token] $a }
            assert_equal {name client-id type integer token ID flags optional} [dict get $byname ID]
            assert_equal {NORMAL MASTER SLAVE REPLICA PUBSUB} \
                [lmap a [dict get $byname TYPE arguments] {dict get $a token}]
            assert_equal {name maxage type integer token MAXAGE flags optional} [dict get $byname MAXAGE]
        }
    }

    tags {valkey-only} {
        test "COMMAND DOCS of subcommands: config|set, and through the container" {
            set args [docs_args config|set]
            assert_equal 1 [llength $args]
            assert_equal {name parameter_value type block flags multiple arguments {{name parameter type string} {name value type string}}} \
                [lindex $args 0]
            set subs [dict get [lindex [r command docs config] 1] subcommands]
            assert_equal {{name parameter type string flags multiple}} [dict get $subs config|get arguments]
            # Repeated tokens: SORT's GET pattern [GET pattern ...].
            set get [docs_arg_with_token [docs_args sort] GET]
            assert_equal {name pattern type pattern token GET flags {optional multiple multiple_token}} $get
            # Token blocks: [LIMIT offset count].
            set limit [docs_arg_with_token [docs_args zrangebyscore] LIMIT]
            assert_equal offset_count [dict get $limit name]
            assert_equal {{name offset type integer} {name count type integer}} [dict get $limit arguments]
        }
    }

    tags {valkey-only} {
        test "COMMAND DOCS: every command that takes arguments documents them" {
            set missing {}
            foreach {name d} [r command docs] {
                set info [lindex [r command info $name] 0]
                set arity [lindex $info 1]
                # A container's own arguments are its subcommands.
                if {[dict exists $d subcommands]} {
                    foreach {sub sd} [dict get $d subcommands] {
                        set sarity [lindex [lsearch -inline -index 0 [lindex $info 9] $sub] 1]
                        if {($sarity > 2 || $sarity < -2) && ![dict exists $sd arguments]} { lappend missing $sub }
                    }
                    continue
                }
                if {($arity > 1 || $arity < -1) && ![dict exists $d arguments]} { lappend missing $name }
            }
            assert_equal {} $missing
        }
    }

    test "COMMAND DOCS groups use Valkey's names (sorted-set)" {
        assert_equal sorted-set [dict get [lindex [r command docs zadd] 1] group]
    }

    test "COMMAND HELP" {
        set help [r command help]
        assert {[llength $help] > 5}
        assert_match "*COMMAND <subcommand>*" [lindex $help 0]
    }

    test "TIME returns seconds and microseconds as close to our clock" {
        lassign [r time] secs usecs
        assert_range $secs [expr {[clock seconds] - 2}] [expr {[clock seconds] + 2}]
        assert_range $usecs 0 999999
    }

    test "LASTSAVE returns a unix time" {
        assert_range [r lastsave] 1 [expr {[clock seconds] + 1}]
    }

    test "ROLE of a primary: its offset and no replicas" {
        assert_equal {master 0 {}} [r role]
        assert_error "*wrong number of arguments for 'role'*" {r role x}
    }

    test "CLUSTER and ASKING: cluster support is disabled" {
        foreach cmd {{cluster info} {cluster slots} {cluster nodes} asking} {
            assert_error "ERR This instance has cluster support disabled" [list r {*}$cmd]
        }
        assert_error "*wrong number of arguments for 'cluster'*" {r cluster}
    }

    tags {valkey-only} {
        # Valkey 8 serves them outside cluster mode too (standalone
        # replicas, tests/integration/replication-redirect.tcl).
        test "READONLY and READWRITE answer OK without cluster support" {
            assert_equal OK [r readonly]
            assert_equal OK [r readwrite]
            assert_error "*wrong number of arguments for 'readonly'*" {r readonly x}
        }
    }
}


start_server {tags {introspection slowlog} overrides {enable-debug-command yes}} {
    test "SLOWLOG: nothing is logged under the default threshold" {
        r slowlog reset
        r ping
        r slowlog len
    } 0

    test "SLOWLOG: slowlog-log-slower-than 0 logs every command" {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r set foo bar
        r get foo
        # The second RESET is logged too: it runs before its own entry is added.
        assert_range [r slowlog len] 2 3
    }

    test "SLOWLOG GET: entry format" {
        r client setname slowclient
        r slowlog reset
        r set foo bar
        set e [lindex [r slowlog get 1] 0]
        assert_equal 6 [llength $e]
        assert {[string is integer -strict [lindex $e 0]]}
        assert_range [lindex $e 1] [expr {[clock seconds] - 5}] [expr {[clock seconds] + 1}]
        assert {[lindex $e 2] >= 0}
        assert_equal {set foo bar} [lindex $e 3]
        assert_match "[::vk::transport_client_addr]:*" [lindex $e 4]
        assert_equal slowclient [lindex $e 5]
        r client setname ""
    }

    test "SLOWLOG GET count, -1 and errors" {
        r slowlog reset
        for {set i 0} {$i < 15} {incr i} { r ping }
        assert_equal 10 [llength [r slowlog get]]
        assert_equal 3 [llength [r slowlog get 3]]
        assert {[llength [r slowlog get -1]] >= 15}
        assert_equal {} [r slowlog get 0]
        assert_error "*count should be greater than or equal to -1*" {r slowlog get -2}
    }

    test "SLOWLOG GET returns the newest entry first, ids increase" {
        r slowlog reset
        r set first 1
        r set second 2
        set entries [r slowlog get 2]
        assert_equal {set second 2} [lindex $entries 0 3]
        assert_equal {set first 1} [lindex $entries 1 3]
        assert {[lindex $entries 0 0] > [lindex $entries 1 0]}
    }

    test "SLOWLOG truncates long arguments and long argument lists" {
        r slowlog reset
        r set big [string repeat x 200]
        set args [lindex [r slowlog get 1] 0 3]
        assert_equal "[string repeat x 128]... (72 more bytes)" [lindex $args 2]
        r slowlog reset
        set pairs {}
        for {set i 0} {$i < 20} {incr i} { lappend pairs k$i v$i }
        r mset {*}$pairs
        # 41 arguments: 31 kept, the 32nd says how many were left out.
        set args [lindex [r slowlog get 1] 0 3]
        assert_equal 32 [llength $args]
        assert_equal "... (10 more arguments)" [lindex $args end]
        assert_equal {mset k0 v0} [lrange $args 0 2]
    }

    test "SLOWLOG respects slowlog-max-len" {
        r config set slowlog-max-len 5
        for {set i 0} {$i < 20} {incr i} { r ping }
        assert_equal 5 [r slowlog len]
        # A shorter log drops its oldest entries at once, slow or not.
        r config set slowlog-log-slower-than 100000000
        r config set slowlog-max-len 2
        assert_equal 2 [r slowlog len]
        r config set slowlog-log-slower-than 0
        r config set slowlog-max-len 128
    }

    test "SLOWLOG: only commands slower than the threshold" {
        r config set slowlog-log-slower-than 100000
        r slowlog reset
        r ping
        assert_equal 0 [r slowlog len]
        debug_sleep 0.2
        assert_equal 1 [r slowlog len]
        assert_equal {debug sleep 0.2} [lindex [r slowlog get] 0 3]
    }

    proc assert_no_blpop {cmds} {
        foreach cmd $cmds { assert {[lindex $cmd 0] ne "blpop"} "blpop logged: $cmds" }
    }

    # The arguments of every entry, oldest first.
    proc slowlog_commands {} {
        set cmds {}
        foreach e [r slowlog get -1] { set cmds [linsert $cmds 0 [lindex $e 3]] }
        return $cmds
    }

    tags {valkey-only} {
        test "SLOWLOG shows secrets as (redacted): AUTH, HELLO AUTH, ACL users, sensitive CONFIG SET" {
            r config set slowlog-log-slower-than 0
            r slowlog reset
            catch {r auth badpass} e
            assert_match "*without any password configured*" $e
            catch {r auth someuser somepass}
            catch {r auth a b c}
            catch {r hello 2 auth someuser somepass setname shown}
            r acl setuser slowlog-user on >supersecret +get
            catch {r acl setuser "bad name" >badsecret}
            set c [vk_client]
            assert_equal OK [$c auth slowlog-user supersecret]
            $c close
            r acl getuser slowlog-user
            r acl deluser slowlog-user nosuchuser
            r config set primaryauth "" masterauth ""
            r config set primaryuser ""
            r config set requirepass ""
            catch {r config set tls-key-file-pass ""}
            catch {r config set tls-client-key-file-pass ""}
            catch {r config set requirepass notset nosuch-option y} e
            assert_match "*Unknown option*nosuch-option*" $e
            assert_equal {requirepass {}} [r config get requirepass]
            r config set slowlog-log-slower-than -1
            set cmds [slowlog_commands]
            set expected {
                {slowlog reset}
                {auth (redacted)}
                {auth (redacted) (redacted)}
                {auth (redacted) (redacted) (redacted)}
                {hello 2 auth (redacted) (redacted) setname shown}
                {acl setuser (redacted) (redacted) (redacted) (redacted)}
                {acl setuser (redacted) (redacted)}
                {auth (redacted) (redacted)}
                {acl getuser (redacted)}
                {acl deluser (redacted) (redacted)}
                {config set primaryauth (redacted) masterauth (redacted)}
                {config set primaryuser (redacted)}
                {config set requirepass (redacted)}
                {config set tls-key-file-pass (redacted)}
                {config set tls-client-key-file-pass (redacted)}
                {config set requirepass (redacted) nosuch-option y}
                {config get requirepass}
            }
            assert_equal [list {*}$expected] $cmds
            foreach secret {badpass somepass supersecret badsecret notset} {
                assert {![string match "*$secret*" $cmds]} "$secret in SLOWLOG"
            }
        }

        test "SLOWLOG logs a blocking command once, when it is served, times out or is unblocked" {
            r config set slowlog-log-slower-than 0
            r del bl src dst
            set rd [vk_deferring_client]
            $rd client setname blocked-client
            $rd read
            $rd client id
            set id [$rd read]
            r slowlog reset
            $rd blpop bl 0
            wait_for_condition 50 20 {[string match "*flags=b*" [r client list id $id]]} { fail "not blocked" }
            assert_no_blpop [slowlog_commands]
            r rpush bl x
            assert_equal {bl x} [$rd read]
            # Served: logged with the command as sent, its client and name.
            set e [lsearch -inline -index 3 [r slowlog get -1] {blpop bl 0}]
            assert_equal {blpop bl 0} [lindex $e 3]
            assert_equal blocked-client [lindex $e 5]
            # A timeout and CLIENT UNBLOCK complete it too; BLMOVE is shown as
            # sent although it is propagated as LMOVE.
            $rd blpop bl 0.05
            assert_equal {} [$rd read]
            $rd bzpopmin z 0
            wait_for_condition 50 20 {[string match "*flags=b*" [r client list id $id]]} { fail "not blocked" }
            r client unblock $id
            assert_equal {} [$rd read]
            $rd blmove src dst left right 0
            wait_for_condition 50 20 {[string match "*flags=b*" [r client list id $id]]} { fail "not blocked" }
            r rpush src y
            assert_equal y [$rd read]
            set cmds [slowlog_commands]
            foreach cmd {{blpop bl 0} {blpop bl 0.05} {bzpopmin z 0} {blmove src dst left right 0}} {
                assert_equal 1 [llength [lsearch -all -exact $cmds $cmd]] "$cmd in $cmds"
            }
            $rd close
        }

        test "SLOWLOG logs the commands a script runs, with the address and name of its caller" {
            r function load replace {#!lua name=slowlib
                server.register_function('slowfunc', function(keys, args) return server.call('incr', keys[1]) end)}
            r client setname script-caller
            r config set slowlog-log-slower-than 0
            foreach {kind run} {
                eval {r eval {return server.call('set', KEYS[1], 'v')} 1 evalkey}
                fcall {r fcall slowfunc 1 fcallkey}
            } {
                r slowlog reset
                eval $run
                r config set slowlog-log-slower-than -1
                set entries [r slowlog get 3]
                r config set slowlog-log-slower-than 0
                # Newest first: the script, then the command it ran (the
                # CONFIG SET that turned logging off is not logged).
                set script [lindex $entries 0]
                set inner [lindex $entries 1]
                if {$kind eq "eval"} {
                    assert_equal {eval {return server.call('set', KEYS[1], 'v')} 1 evalkey} [lindex $script 3]
                    assert_equal {set evalkey v} [lindex $inner 3]
                } else {
                    assert_equal {fcall slowfunc 1 fcallkey} [lindex $script 3]
                    assert_equal {incr fcallkey} [lindex $inner 3]
                }
                assert_equal [lindex $script 4] [lindex $inner 4]
                assert_match "[::vk::transport_client_addr]:*" [lindex $inner 4]
                assert_equal script-caller [lindex $script 5]
                assert_equal script-caller [lindex $inner 5]
                assert {[lindex $inner 0] < [lindex $script 0]}
            }
            r client setname ""
            r function flush
        }
    }
}

start_server {tags {introspection latency} overrides {enable-debug-command yes}} {
    test "LATENCY: no events while the monitor is off" {
        r config set latency-monitor-threshold 0
        r latency reset
        debug_sleep 0.05
        r latency latest
    } {}

    test "LATENCY LATEST records a slow command above the threshold" {
        r config set latency-monitor-threshold 200
        r latency reset
        debug_sleep 0.3
        set events [r latency latest]
        assert_equal 1 [llength $events]
        lassign [lindex $events 0] name time latest max
        assert_equal command $name
        assert_range $time [expr {[clock seconds] - 5}] [expr {[clock seconds] + 1}]
        assert_range $latest 300 1000
        assert_range $max 300 1000
    }

    test "LATENCY HISTORY returns time/latency pairs" {
        set hist [r latency history command]
        assert {[llength $hist] >= 1}
        assert_range [lindex $hist end 1] 300 1000
        assert_equal {} [r latency history nosuchevent]
    }

    test "LATENCY GRAPH and DOCTOR produce text" {
        assert_match "*command*high*" [r latency graph command]
        assert_error "*No samples available for event*" {r latency graph nosuchevent}
        assert {[string length [r latency doctor]] > 0}
    }

    test "LATENCY RESET returns the number of events reset" {
        assert_equal 0 [r latency reset nosuchevent]
        assert_equal 1 [r latency reset]
        assert_equal {} [r latency latest]
        r config set latency-monitor-threshold 0
    }

    test "LATENCY HISTOGRAM of selected commands" {
        r config set latency-tracking yes
        r config resetstat
        r set a 1
        r set a 2
        r get a
        set h [r latency histogram set get nosuchcommand]
        assert_equal {get set} [lsort [dict keys $h]]
        assert_equal 2 [dict get $h set calls]
        set buckets [dict get $h set histogram_usec]
        assert {[llength $buckets] >= 2}
        # Cumulative counts: the last one is the total.
        assert_equal 2 [lindex $buckets end]
    }

    test "LATENCY HISTOGRAM without arguments covers every called command" {
        set h [r latency histogram]
        assert {[dict exists $h set] && [dict exists $h config|resetstat]}
    }

    test "LATENCY HELP" {
        assert {[llength [r latency help]] > 5}
    }

    test "LATENCY LATEST records a slow active expire cycle as expire-cycle" {
        r latency reset
        r flushall
        r config set lazyfree-lazy-expire no
        r debug set-active-expire 0
        r config set latency-monitor-threshold 1
        # A big set freed synchronously by the expire cycle.
        r eval {for i = 1, tonumber(ARGV[1]) do redis.call('sadd', KEYS[1], i) end} 1 bigset 300000
        r pexpire bigset 1
        after 50
        assert_equal 1 [r dbsize]
        r debug set-active-expire 1
        wait_for_condition 50 100 {[r dbsize] == 0} { fail "the key did not expire" }
        set events {}
        foreach e [r latency latest] { lappend events [lindex $e 0] }
        assert_match "*expire-cycle*" $events
        assert {[llength [r latency history expire-cycle]] >= 1}
        r config set latency-monitor-threshold 0
        r config set lazyfree-lazy-expire yes
    }
}

start_server {tags {introspection monitor}} {
    test "MONITOR streams the commands of other clients" {
        set rd [vk_deferring_client]
        $rd monitor
        assert_equal OK [$rd read]
        r set foo bar
        r get foo
        assert_match {*"set" "foo" "bar"} [$rd read]
        assert_match {*"get" "foo"} [$rd read]
        $rd close
    }

    tags {shm:skip:tcp-addr} {
        test "MONITOR line format: time, db, address, quoted arguments" {
            set rd [vk_deferring_client]
            $rd monitor
            $rd read
            r select 5
            r set "with space" "a\nb"
            r select 0
            $rd read ;# select 5
            set line [$rd read]
            set addr [string map {. \\.} [::vk::transport_client_addr]]
            set re [format {^\d+\.\d{6} \[5 %s:\d+\] "set" "with space" "a\\nb"$} $addr]
            assert {[regexp $re $line]}
            $rd close
        }
    }

    test "MONITOR shows EVAL before the commands its script runs" {
        set rd [vk_deferring_client]
        $rd monitor
        $rd read
        r eval {redis.call('set', KEYS[1], ARGV[1]) return redis.call('get', KEYS[1])} 1 mk mv
        assert_match {*"eval" *"1" "mk" "mv"} [$rd read]
        assert_match {*\[0 lua\] "set" "mk" "mv"} [$rd read]
        assert_match {*\[0 lua\] "get" "mk"} [$rd read]
        # Refused scripts are shown too, as in Valkey.
        catch {r evalsha 0000000000000000000000000000000000000000 0}
        assert_match {*"evalsha" "0000000000000000000000000000000000000000" "0"} [$rd read]
        # EVAL_RO is shown once, before its commands, too.
        r eval_ro {return redis.call('get', KEYS[1])} 1 mk
        r ping
        assert_match {*"eval_ro" *"1" "mk"} [$rd read]
        assert_match {*\[0 lua\] "get" "mk"} [$rd read]
        assert_match {*"ping"} [$rd read]
        $rd close
    }

    test "MONITOR shows FCALL before the commands its function runs" {
        r function load replace "#!lua name=monlib\nredis.register_function('monf', function(keys) return redis.call('get', keys\[1\]) end)"
        set rd [vk_deferring_client]
        $rd monitor
        $rd read
        r fcall monf 1 mk
        assert_match {*"fcall" "monf" "1" "mk"} [$rd read]
        assert_match {*\[0 lua\] "get" "mk"} [$rd read]
        $rd close
    }

    test "MONITOR order in a transaction: MULTI, EVAL, its commands, EXEC" {
        set rd [vk_deferring_client]
        $rd monitor
        $rd read
        r multi
        r eval {return redis.call('ping')} 0
        r set mk2 v
        r exec
        assert_match {*"multi"} [$rd read]
        assert_match {*"eval" "return redis.call('ping')" "0"} [$rd read]
        assert_match {*\[0 lua\] "ping"} [$rd read]
        assert_match {*"set" "mk2" "v"} [$rd read]
        assert_match {*"exec"} [$rd read]
        $rd close
    }

    test "MONITOR redacts AUTH and HELLO AUTH arguments" {
        set rd [vk_deferring_client]
        $rd monitor
        $rd read
        catch {r auth secret1}
        catch {r auth someuser secret2}
        catch {r hello 2 AUTH someuser secret3}
        catch {r hello 2 SETNAME auth}
        r ping
        assert_match {*"auth" "(redacted)"} [$rd read]
        assert_match {*"auth" "(redacted)" "(redacted)"} [$rd read]
        assert_match {*"hello" "2" "AUTH" "(redacted)" "(redacted)"} [$rd read]
        assert_match {*"hello" "2" "SETNAME" "auth"} [$rd read]
        assert_match {*"ping"} [$rd read]
        $rd close
    }

    test "MONITOR redacts MIGRATE's AUTH and AUTH2 passwords" {
        if {[lindex [r command info migrate] 0] eq ""} { skip "no MIGRATE in this build" }
        set rd [vk_deferring_client]
        $rd monitor
        $rd read
        # Missing keys: MIGRATE answers NOKEY without connecting anywhere.
        catch {r migrate 127.0.0.1 6 nokey 0 100 AUTH secret}
        catch {r migrate 127.0.0.1 6 nokey 0 100 COPY AUTH2 user secret}
        catch {r migrate 127.0.0.1 6 "" 0 100 REPLACE AUTH secret KEYS nokey1 auth nokey2}
        assert_match {*"migrate" "127.0.0.1" "6" "nokey" "0" "100" "AUTH" "(redacted)"} [$rd read]
        assert_match {*"migrate" "127.0.0.1" "6" "nokey" "0" "100" "COPY" "AUTH2" "(redacted)" "(redacted)"} [$rd read]
        assert_match {*"migrate" "127.0.0.1" "6" "" "0" "100" "REPLACE" "AUTH" "(redacted)" "KEYS" "nokey1" "auth" "nokey2"} [$rd read]
        $rd close
    }

    test "MONITOR does not show admin commands" {
        set rd [vk_deferring_client]
        $rd monitor
        $rd read
        r config get maxmemory
        r ping
        assert_match {*"ping"} [$rd read]
        $rd close
    }
}

# The contents of a file ("" if it cannot be read).
proc read_text_file {path} {
    if {[catch {open $path} fh]} { return "" }
    set text [read $fh]
    close $fh
    return $text
}

start_server {tags {introspection debug needs:debug} overrides {enable-debug-command yes}} {
    test "DEBUG SET-DISABLE-DENY-SCRIPTS lets scripts run noscript commands" {
        assert_error "*not allowed from script*" {r eval {return redis.call('client', 'id')} 0}
        r debug set-disable-deny-scripts 1
        assert_match {[0-9]*} [r eval {return redis.call('client', 'id')} 0]
        r debug set-disable-deny-scripts 0
        assert_error "*not allowed from script*" {r eval {return redis.call('client', 'id')} 0}
    }

    tags {external:skip rdma:skip:own-server} {
        test "DEBUG CONFIG-REWRITE-FORCE-ALL writes every option, and the file starts a server" {
            r config set maxmemory-samples 7
            assert_equal OK [r debug config-rewrite-force-all]
            set text [read_text_file [srv config_file]]
            # Options at their default are written too.
            assert_match "*\nmaxmemory-samples 7\n*" $text
            assert_match "*\nhz 10\n*" $text
            assert_match "*\nmaxmemory-policy noeviction\n*" $text
            # A server starts from the file and reads the same values.
            set dir [tmp_path force-all]
            file mkdir $dir
            set port [::vk::alloc_port]
            set log [file join $dir log]
            set pid [exec $::vk::cfg(binary) [srv config_file] --port $port --dir $dir --logfile $log \
                         --unixsocket "" >/dev/null 2>@1 &]
            wait_for_condition 200 20 {[string match "*Ready to accept*" [read_text_file $log]]} {
                catch {exec kill -KILL $pid}
                fail "no server from the rewritten file: [read_text_file $log]"
            }
            set c [::vk::client_open 127.0.0.1 $port]
            assert_equal {maxmemory-samples 7} [$c config get maxmemory-samples]
            assert_equal {hz 10} [$c config get hz]
            $c close
            exec kill -KILL $pid
            r config set maxmemory-samples 5
        }
    }

    test "DEBUG PAUSE-CRON stops the server's cron until it is resumed" {
        r flushall
        r debug pause-cron 1
        r set k v px 100
        after 500
        # Nothing reads the key, and the cron that would expire it is stopped.
        assert_equal 0 [regexp {expired_keys:([1-9])} [r info stats]]
        assert_equal 1 [r dbsize]
        r debug pause-cron 0
        wait_for_condition 50 100 {[r dbsize] == 0} { fail "the cron did not resume" }
    }

    test "DEBUG DIGEST of an empty dataset is all zeros" {
        r flushall
        r debug digest
    } [string repeat 0 40]

    test "DEBUG DIGEST changes with the data and is the same for the same data" {
        r flushall
        r set a 1
        r set b 2
        set d1 [r debug digest]
        assert_equal 40 [string length $d1]
        assert_not_equal [string repeat 0 40] $d1
        r set b 3
        set d2 [r debug digest]
        assert_not_equal $d1 $d2
        r set b 2
        assert_equal $d1 [r debug digest]
        # Insertion order does not matter.
        r flushall
        r set b 2
        r set a 1
        assert_equal $d1 [r debug digest]
    }

    test "DEBUG DIGEST depends on expire times and on the database" {
        r flushall
        r set a 1
        set d1 [r debug digest]
        r pexpireat a 4000000000000
        assert_not_equal $d1 [r debug digest]
        r flushall
        r select 3
        r set a 1
        set d3 [r debug digest]
        r select 0
        assert_not_equal $d1 $d3
        r flushall
    }

    test "DEBUG DIGEST-VALUE digests values only" {
        r flushall
        r set a hello
        r set b hello
        r set c world
        lassign [r debug digest-value a b c nosuch] da db dc dn
        assert_equal $da $db
        assert_not_equal $da $dc
        assert_equal [string repeat 0 40] $dn
        r set i 12345
        r set s "12345 "
        assert_not_equal [lindex [r debug digest-value i] 0] [lindex [r debug digest-value s] 0]
    }

    test "DEBUG OBJECT format" {
        r set foo bar
        set o [r debug object foo]
        assert {[regexp {^Value at:0x[0-9a-f]+ refcount:1 encoding:embstr serializedlength:\d+ lru:\d+ lru_seconds_idle:\d+$} $o]}
        r set n 123456789
        assert_match {*encoding:int*} [r debug object n]
        assert_error "*no such key*" {r debug object nosuchkey}
    }

    test "DEBUG HTSTATS-KEY reports the hash table of a set, hash or sorted set" {
        r flushall
        r sadd s {*}[lsort -unique [lmap i [lrepeat 600 x] {incr n}]]
        r sadd s x
        assert_match "*Hash table 0 stats (main hash table):*number of elements: 601*" [r debug htstats-key s]
        assert_match "*Chain length distribution:*" [r debug htstats-key s full]
        r config set zset-max-listpack-entries 1
        r zadd z 1 a 2 b
        assert_match "*number of elements: 2*" [r debug htstats-key z]
        r config set zset-max-listpack-entries 128
        r hset h f v
        r set str x
        assert_error "ERR The value stored at the specified key is not represented using an hash table" {r debug htstats-key h}
        assert_error "ERR The value stored at the specified key is not represented using an hash table" {r debug htstats-key str}
        assert_error "ERR no such key" {r debug htstats-key nokey}
    }

    test "DEBUG OBJECT serializedlength is the value's RDB body, as DUMP encodes it" {
        needs_commands dump
        r flushall
        r set str bar
        r set int 123456789
        r set long [string repeat abcdefgh 100]
        r rpush list a b c
        r sadd set 1 2 3
        r hset hash f v
        r zadd zset 1 a
        r xadd stream 1-1 f v
        foreach k {str int long list set hash zset stream} {
            regexp {serializedlength:(\d+)} [r debug object $k] -> len
            # DUMP adds a type byte before and 10 bytes of trailer after.
            assert_equal [expr {[string length [r dump $k]] - 11}] $len
        }
        # "bar": one length byte and three bytes.
        assert_match {*serializedlength:4 *} [r debug object str]
    }

    test "DEBUG SLEEP blocks the server" {
        set start [clock milliseconds]
        assert_equal OK [r debug sleep 0.2]
        assert {[clock milliseconds] - $start >= 190}
        r debug sleep 0
    } OK

    test "DEBUG POPULATE creates keys and keeps existing ones" {
        r flushall
        r set key:0 mine
        r debug populate 10
        assert_equal 10 [r dbsize]
        assert_equal mine [r get key:0]
        assert_equal value:5 [r get key:5]
        r debug populate 3 pfx 20
        assert_equal 20 [r strlen pfx:1]
        r flushall
    }

    test "DEBUG POPULATE values take the memory of a SET of the same size" {
        r flushall
        r debug populate 1 big 1000
        r set bigx [string repeat x 1000]
        assert_equal 1000 [r strlen big:0]
        set populated [r memory usage big:0]
        set set [r memory usage bigx]
        assert {abs($populated - $set) <= 16}
        r flushall
    }

    test "DEBUG PROTOCOL in RESP2" {
        list [r debug protocol string] [r debug protocol integer] [r debug protocol array] \
            [r debug protocol true] [r debug protocol false] [r debug protocol null]
    } {{Hello World} 12345 {0 1 2} 1 0 {}}

    test "DEBUG PROTOCOL in RESP3" {
        r hello 3
        set res [list [r debug protocol double] [r debug protocol bignum] [r debug protocol map] \
                     [r debug protocol set] [r debug protocol verbatim] [r debug protocol attrib]]
        lappend res [r attributes]
        r hello 2
        set res
    } {3.141 1234567999999999999999999999999999999 {0 0 1 1 2 0} {0 1 2} {This is a verbatim
string} {Some real reply following the attribute} {key-popularity {key:123 90}}}

    test "DEBUG PROTOCOL with an unknown type" {
        assert_error "*Wrong protocol type name*" {r debug protocol nosuch}
    }

    test "DEBUG SET-ACTIVE-EXPIRE and DEBUG LOG" {
        assert_equal OK [r debug set-active-expire 0]
        assert_equal OK [r debug set-active-expire 1]
        assert_equal OK [r debug log "hello from the test"]
        set fh [open [srv stdout]]
        set log [read $fh]
        close $fh
        assert_match "*DEBUG LOG: hello from the test*" $log
    }

    test "DEBUG HELP and unknown subcommands" {
        assert {[llength [r debug help]] > 10}
        assert_error "*unknown subcommand*" {r debug nosuchsubcommand}
    }
}

start_server {tags {introspection debug}} {
    test "DEBUG is refused when enable-debug-command is no" {
        assert_error "*DEBUG command not allowed*enable-debug-command*" {r debug digest}
    }
}

# The crash report.  These servers crash on purpose, so they are started by
# hand rather than with start_server (whose log check fails on any crash).
proc crash_server_start {name} {
    set dir [tmp_path $name]
    file mkdir $dir
    set port [::vk::alloc_port]
    set log [file join $dir log]
    set pid [exec $::vk::cfg(binary) --port $port --bind 127.0.0.1 --enable-debug-command yes \
                 --save "" --dir $dir --logfile $log --crash-log-enabled yes --hide-user-data-from-log no \
                 >/dev/null 2>@1 &]
    wait_for_condition 200 20 {[file exists $log] && [string match "*Ready to accept*" [read_text_file $log]]} {
        catch {exec kill -KILL $pid}
        fail "crash test server did not start: [crash_read $log]"
    }
    return [list $pid $port $log]
}

proc crash_read {path} {
    if {[catch {open $path} fh]} { return "" }
    set text [read $fh]
    close $fh
    return $text
}

proc crash_and_wait {pid port args} {
    set c [::vk::client_open 127.0.0.1 $port]
    catch {$c {*}$args}
    catch {$c close}
    wait_for_condition 250 20 {![::vk::pid_alive $pid]} {
        catch {exec kill -KILL $pid}
        fail "server did not die after: $args"
    }
}

tags {introspection crash needs:debug external:skip valkey-only rdma:skip:crash} {
    test "Crash report: DEBUG SEGFAULT logs the report and a backtrace" {
        lassign [crash_server_start segfault] pid port log
        crash_and_wait $pid $port debug segfault
        set text [crash_read $log]
        assert_match "*=== VALKEY BUG REPORT START: Cut & paste starting from here ===*" $text
        assert_match "*crashed by signal: 11, si_code: *" $text
        assert_match "*Accessing address: 0x*" $text
        assert_match "*------ STACK TRACE ------*" $text
        assert_match "*debugCommand*" $text
        assert_match "*------ INFO OUTPUT ------*# Server*" $text
        assert_match {*CURRENT CLIENT INFO*argv?0?: 'debug'*} $text
        assert_match "*=== VALKEY BUG REPORT END. Make sure to include from START to END. ===*" $text
    }

    test "Crash report: DEBUG PANIC logs the Guru Meditation" {
        lassign [crash_server_start panic] pid port log
        crash_and_wait $pid $port debug panic
        set text [crash_read $log]
        assert_match "*!!! Software Failure. Press left mouse button to continue*" $text
        assert_match "*Guru Meditation: DEBUG PANIC called at Unix time * #debug.c:*" $text
        assert_match "*BUG REPORT END*" $text
    }

    test "Crash report: DEBUG ASSERT logs the failed assertion" {
        lassign [crash_server_start assert] pid port log
        crash_and_wait $pid $port debug assert
        set text [crash_read $log]
        assert_match "*=== ASSERTION FAILED ===*" $text
        assert_match "*==> debug.c:* '1 == 2' is not true*" $text
        assert_match "*BUG REPORT END*" $text
    }
}

# The software watchdog (watchdog-period, hidden as in Valkey): a command
# that keeps the event loop away from its cron for longer than the period
# gets a stack trace in the log, and the server goes on.
start_server {tags {introspection watchdog needs:debug valkey-only} overrides {enable-debug-command yes}} {
    proc watchdog_log {} {
        set fd [open [srv stdout]]
        set text [read $fd]
        close $fd
        return $text
    }

    test "Watchdog: a command longer than watchdog-period logs where the server is" {
        assert_equal {watchdog-period 0} [r config get watchdog-period]
        assert_equal {} [r config get *watchdog*]
        r config set watchdog-period 200
        assert_equal {watchdog-period 200} [r config get watchdog-period]
        r debug sleep 1
        wait_for_condition 50 20 {[string match "*--- WATCHDOG TIMER EXPIRED ---*" [watchdog_log]]} {
            fail "no watchdog report in the log"
        }
        set text [watchdog_log]
        assert_match "*WATCHDOG TIMER EXPIRED*STACK TRACE*debugCommand*--------*" $text
        r config set watchdog-period 0
        assert_equal PONG [r ping]
    }

    test "Watchdog: an idle server does not trigger it, and 0 turns it off" {
        set before [regexp -all {WATCHDOG TIMER EXPIRED} [watchdog_log]]
        r config set watchdog-period 300
        after 1000
        r config set watchdog-period 0
        r debug sleep 0.5
        assert_equal $before [regexp -all {WATCHDOG TIMER EXPIRED} [watchdog_log]]
    }

    test "Watchdog: a period under two cron ticks is raised to two ticks" {
        set hz [lindex [r config get hz] 1]
        r config set watchdog-period 1
        assert_equal [expr {2 * (1000 / $hz)}] [lindex [r config get watchdog-period] 1]
        r config set watchdog-period 0
    }

    test "SIGALRM sent by hand logs a stack trace, and the server goes on" {
        exec kill -ALRM [srv pid]
        wait_for_condition 50 20 {[string match "*Received SIGALRM*" [watchdog_log]]} {
            fail "no SIGALRM report in the log"
        }
        assert_equal PONG [r ping]
    }
}
