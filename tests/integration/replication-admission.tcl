# Admission of scripts, functions and transactions by the replication
# state (server.c processCommand(), multi.c, eval.c, functions.c,
# script_lua.c). What refuses a plain write refuses the scripts and the
# transactions that would make it:
#   - min-replicas-to-write without enough good replicas: NOREPLICAS;
#   - replica-serve-stale-data no with the primary link down: MASTERDOWN;
#   - replica-read-only: READONLY.
# A script with a shebang and a function are judged before they run by the
# flags they declare (no-writes, allow-stale, allow-oom); a script without
# a shebang declares nothing, so its first write fails inside it, as a
# script error. EXEC is judged at EXEC time by everything it queued; a
# function replaced after it was queued is judged again when it starts.
# Every test asserts the exact error and that nothing was written.
# Helpers: tests/lib/replication.tcl.

# Fails unless body raises exactly the error expected.
proc assert_refused {expected body} {
    if {![catch {uplevel 1 $body} err]} {
        fail "expected the error '$expected', got the reply '$err'"
    }
    assert_equal $expected $err
}

set ::adm_noreplicas {NOREPLICAS Not enough good replicas to write.}
set ::adm_masterdown {MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.}
set ::adm_readonly {READONLY You can't write against a read only replica.}
set ::adm_stale_cmd {ERR Can not execute the command on a stale replica}
set ::adm_execabort_prev {EXECABORT Transaction discarded because of previous errors.}

# One function per line, so that errors name their line: adm_write may
# write; adm_read declares no-writes; adm_stale (no-writes, allow-stale)
# runs the command in its arguments; adm_stale_write (allow-stale) may write.
set ::adm_lib [join {
    {#!lua name=adm}
    {redis.register_function('adm_write', function(keys, args) return redis.call('set', keys[1], args[1]) end)}
    {redis.register_function{function_name='adm_read', flags={'no-writes'}, callback=function(keys) return redis.call('get', keys[1]) end}}
    {redis.register_function{function_name='adm_stale', flags={'no-writes', 'allow-stale'}, callback=function(keys, args) return redis.call(unpack(args)) end}}
    {redis.register_function{function_name='adm_stale_write', flags={'allow-stale'}, callback=function(keys, args) return redis.call('set', keys[1], args[1]) end}}
} "\n"]

# A library of one function adm_swap with the given flags (a Lua list
# such as {'no-writes'}) that sets KEYS[1]: loaded again with other flags
# while a MULTI holds a call to it.
proc adm_swap_lib {flags} {
    return "#!lua name=adm_swap\nredis.register_function{function_name='adm_swap', flags=$flags, callback=function(keys) return redis.call('set', keys\[1\], 'swapped') end}"
}

# Scripts without a shebang (judged as they write) and with one.
set ::adm_compat_set {return redis.call('set', KEYS[1], ARGV[1])}
set ::adm_compat_get {return redis.call('get', KEYS[1])}
set ::adm_shebang_set "#!lua\nreturn redis.call('set', KEYS\[1\], ARGV\[1\])"
set ::adm_shebang_oom_set "#!lua flags=allow-oom\nreturn redis.call('set', KEYS\[1\], ARGV\[1\])"
set ::adm_shebang_get "#!lua flags=no-writes\nreturn redis.call('get', KEYS\[1\])"
set ::adm_shebang_stale "#!lua flags=no-writes,allow-stale\nreturn redis.call(unpack(ARGV))"

# The error a script without a shebang answers when command line `line`
# of body failed with err.
proc adm_script_error {err body line} {
    return "$err script: [r script load $body], on @user_script:$line."
}

tags {"repl" "scripting"} {

# ---------------------------------------------------------------------------
# min-replicas-to-write on a primary with no replica at all
# ---------------------------------------------------------------------------

start_server {} {
    r function load $::adm_lib
    r function load [adm_swap_lib {{'no-writes'}}]
    r config set min-replicas-max-lag 10
    r config set min-replicas-to-write 1

    test "min-replicas-to-write: SET gets NOREPLICAS (what the rest is compared with)" {
        assert_refused $::adm_noreplicas {r set k v}
        assert_equal 0 [r dbsize]
    }

    test "min-replicas-to-write: EVAL and EVALSHA without a shebang fail at their first write, as a script error" {
        set err [adm_script_error $::adm_noreplicas $::adm_compat_set 1]
        assert_refused $err {r eval $::adm_compat_set 1 k v}
        assert_refused $err {r evalsha [r script load $::adm_compat_set] 1 k v}
        # What ran before the write ran; the write stopped the script.
        set body "redis.call('get', KEYS\[1\])\nreturn redis.call('incr', KEYS\[1\])"
        assert_refused [adm_script_error $::adm_noreplicas $body 2] {r eval $body 1 k}
        # server.pcall hands the error back to the script.
        assert_equal $::adm_noreplicas [r eval {return redis.pcall('set', KEYS[1], 'v')['err']} 1 k]
        assert_equal 0 [r dbsize]
    }

    test "min-replicas-to-write: scripts without a shebang that only read still run (EVAL, EVAL_RO)" {
        assert_equal {} [r eval $::adm_compat_get 1 k]
        assert_equal {} [r eval_ro $::adm_compat_get 1 k]
        assert_equal PONG [r eval {return redis.call('ping')} 0]
    }

    test "min-replicas-to-write: a shebang script that may write is refused before it runs" {
        assert_refused $::adm_noreplicas {r eval $::adm_shebang_set 1 k v}
        assert_refused $::adm_noreplicas {r eval $::adm_shebang_oom_set 1 k v}
        assert_refused $::adm_noreplicas {r evalsha [r script load $::adm_shebang_set] 1 k v}
        # The flags make it a write: NOREPLICAS comes before the _RO error.
        assert_refused $::adm_noreplicas {r eval_ro $::adm_shebang_set 1 k v}
        assert_equal 0 [r dbsize]
    }

    test "min-replicas-to-write: shebang scripts with no-writes still run (EVAL, EVALSHA, EVAL_RO)" {
        assert_equal {} [r eval $::adm_shebang_get 1 k]
        assert_equal {} [r evalsha [r script load $::adm_shebang_get] 1 k]
        assert_equal {} [r eval_ro $::adm_shebang_get 1 k]
    }

    test "min-replicas-to-write: FCALL and FCALL_RO of a function without no-writes get NOREPLICAS" {
        assert_refused $::adm_noreplicas {r fcall adm_write 1 k v}
        assert_refused $::adm_noreplicas {r fcall_ro adm_write 1 k v}
        assert_refused $::adm_noreplicas {r fcall adm_stale_write 1 k v}
        assert_equal 0 [r dbsize]
    }

    test "min-replicas-to-write: FCALL and FCALL_RO of a no-writes function still run" {
        assert_equal {} [r fcall adm_read 1 k]
        assert_equal {} [r fcall_ro adm_read 1 k]
        assert_equal hi [r fcall adm_stale 0 echo hi]
    }

    test "min-replicas-to-write: inside MULTI a writing FCALL or shebang script is refused when queued" {
        foreach cmd [list {fcall adm_write 1 k v} [list eval $::adm_shebang_set 1 k v] {set k v}] {
            r multi
            assert_refused $::adm_noreplicas {r {*}$cmd}
            assert_refused $::adm_execabort_prev {r exec}
        }
        assert_equal 0 [r dbsize]
    }

    test "min-replicas-to-write: inside MULTI a script without a shebang fails at its write when EXEC runs it" {
        set err [adm_script_error $::adm_noreplicas $::adm_compat_set 1]
        r multi
        assert_equal QUEUED [r eval $::adm_compat_set 1 k v]
        assert_equal QUEUED [r fcall adm_read 1 k]
        assert_equal QUEUED [r eval $::adm_shebang_get 1 k]
        assert_equal [list $err {} {}] [r exec]
        assert_equal 0 [r dbsize]
    }

    test "min-replicas-to-write: EXEC of writes queued while it was met gets EXECABORT with NOREPLICAS" {
        set other [vk_client]
        set queued [list {set k v} {fcall adm_write 1 k v} [list eval $::adm_shebang_set 1 k v] \
                        {get k} {fcall adm_read 1 k}]
        # Each write alone, then all of them behind reads.
        foreach tx [list {{set k v}} {{fcall adm_write 1 k v}} [list [list eval $::adm_shebang_set 1 k v]] $queued] {
            $other config set min-replicas-to-write 0
            r multi
            foreach cmd $tx { assert_equal QUEUED [r {*}$cmd] }
            $other config set min-replicas-to-write 1
            assert_refused "EXECABORT Transaction discarded because of: $::adm_noreplicas" {r exec}
            assert_equal 0 [r dbsize]
        }
        # Reads and no-writes functions queued the same way still run.
        $other config set min-replicas-to-write 0
        r multi
        r get k
        r fcall adm_read 1 k
        $other config set min-replicas-to-write 1
        assert_equal {{} {}} [r exec]
    }

    test "min-replicas-to-write: a function queued as no-writes and replaced by a writing one is refused when EXEC runs it" {
        set other [vk_client]
        $other config set min-replicas-to-write 0
        r multi
        assert_equal QUEUED [r fcall adm_swap 1 k]
        $other function load replace [adm_swap_lib {{}}]
        $other config set min-replicas-to-write 1
        assert_equal [list $::adm_noreplicas] [r exec]
        assert_equal 0 [r dbsize]
    }

    test "min-replicas-to-write 0 again: the same scripts and functions write" {
        r config set min-replicas-to-write 0
        assert_equal OK [r eval $::adm_compat_set 1 k1 v]
        assert_equal OK [r eval $::adm_shebang_set 1 k2 v]
        assert_equal OK [r fcall adm_write 1 k3 v]
        assert_equal OK [r fcall adm_swap 1 k4]
        assert_equal swapped [r get k4]
        assert_equal 4 [r dbsize]
    }

    # The same flags decide what CLIENT PAUSE WRITE holds.
    test "CLIENT PAUSE WRITE holds scripts and functions that may write, not those declaring no-writes" {
        set reader [vk_client]
        $reader timeout 10
        set fn_writer [vk_deferring_client]
        set eval_writer [vk_deferring_client]
        r client pause 100000 write
        assert_equal v [$reader fcall adm_read 1 k1]
        assert_equal v [$reader fcall_ro adm_read 1 k1]
        assert_equal v [$reader eval $::adm_shebang_get 1 k1]
        assert_equal v [$reader eval_ro $::adm_compat_get 1 k1]
        $fn_writer fcall adm_write 1 k1 paused
        $eval_writer eval {return 1} 0
        wait_for_condition 50 20 {[regexp -all {flags=b[^\n]*cmd=(fcall|eval) } [r client list]] == 2} {
            fail "the FCALL and the EVAL were not held: [r client list]"
        }
        assert_equal v [r get k1]
        r client unpause
        assert_equal OK [$fn_writer read]
        assert_equal 1 [$eval_writer read]
        assert_equal paused [r get k1]
    }
}

# ---------------------------------------------------------------------------
# min-replicas-to-write with a real replica that then goes away
# ---------------------------------------------------------------------------

start_server {tags {needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0
                                            min-replicas-max-lag 10}} {
    start_server {overrides {enable-debug-command yes}} {
        r -1 function load $::adm_lib
        r -1 config set min-replicas-to-write 1
        r replicaof [srv -1 host] [srv -1 port]
        wait_for_sync
        wait_for_condition 100 50 {[repl_info min_slaves_good_slaves -1] == 1} {
            fail "the replica is not counted as good: [r -1 info replication]"
        }

        test "min-replicas-to-write met: scripts and functions write and replicate" {
            assert_equal OK [r -1 eval $::adm_compat_set 1 a 1]
            assert_equal OK [r -1 eval $::adm_shebang_set 1 b 2]
            assert_equal OK [r -1 fcall adm_write 1 c 3]
            set tx [vk_client -1]
            $tx multi
            $tx fcall adm_write 1 d 4
            $tx eval $::adm_compat_set 1 e 5
            assert_equal {OK OK} [$tx exec]
            wait_for_ofs_sync -1 0
            assert_equal 5 [r dbsize]
            assert_digests_equal {-1 0}
        }

        test "The replica goes: EXEC of what was queued meanwhile and new scripts get NOREPLICAS" {
            set tx [vk_client -1]
            $tx multi
            assert_equal QUEUED [$tx fcall adm_write 1 f 6]
            r replicaof no one
            wait_for_condition 100 50 {[repl_info min_slaves_good_slaves -1] == 0} {
                fail "the replica still counts as good: [r -1 info replication]"
            }
            assert_refused "EXECABORT Transaction discarded because of: $::adm_noreplicas" {$tx exec}
            assert_refused $::adm_noreplicas {r -1 fcall adm_write 1 g 7}
            assert_refused $::adm_noreplicas {r -1 eval $::adm_shebang_set 1 g 7}
            assert_refused [adm_script_error $::adm_noreplicas $::adm_compat_set 1] {r -1 eval $::adm_compat_set 1 g 7}
            # The old primary holds what it held when the replica left.
            assert_digests_equal {-1 0}
        }
    }
}

# ---------------------------------------------------------------------------
# replica-read-only and replica-serve-stale-data no on a replica. The
# replica is the outer server: ending the inner block stops its primary,
# and the replica's link goes down.
# ---------------------------------------------------------------------------

start_server {tags {needs:debug} overrides {enable-debug-command yes replica-serve-stale-data no}} {
    set tx_get [vk_client]
    set tx_read_fn [vk_client]
    set tx_stale_fn [vk_client]
    set tx_set [vk_client]
    set tx_write_fn [vk_client]
    set tx_swap [vk_client]
    set tx_swap_ro [vk_client]
    set tx_compat [vk_client]

    start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
        r function load $::adm_lib
        r function load [adm_swap_lib {{'no-writes', 'allow-stale'}}]
        r set k primary
        r -1 replicaof [srv host] [srv port]
        wait_for_sync -1
        wait_for_ofs_sync 0 -1

        test "replica-read-only: scripts and functions that write are refused" {
            assert_refused [adm_script_error $::adm_readonly $::adm_compat_set 1] {r -1 eval $::adm_compat_set 1 k v}
            assert_equal $::adm_readonly [r -1 eval {return redis.pcall('set', KEYS[1], 'v')['err']} 1 k]
            assert_refused $::adm_readonly {r -1 eval $::adm_shebang_set 1 k v}
            assert_refused $::adm_readonly {r -1 fcall adm_write 1 k v}
            assert_refused $::adm_readonly {r -1 fcall adm_stale_write 1 k v}
            # Reads and no-writes functions run.
            assert_equal primary [r -1 eval $::adm_compat_get 1 k]
            assert_equal primary [r -1 fcall_ro adm_read 1 k]
            assert_equal primary [r -1 eval $::adm_shebang_get 1 k]
            wait_for_ofs_sync 0 -1
            assert_digests_equal {0 -1}
        }

        test "replica-read-only: a function queued as no-writes and replaced by a writing one is refused when EXEC runs it" {
            $tx_swap_ro multi
            assert_equal QUEUED [$tx_swap_ro fcall adm_swap 1 k]
            r function load replace [adm_swap_lib {{}}]
            wait_for_ofs_sync 0 -1
            assert_equal {{READONLY Can not run script with write flag on readonly replica}} [$tx_swap_ro exec]
            assert_equal primary [r -1 get k]
            r function load replace [adm_swap_lib {{'no-writes', 'allow-stale'}}]
            wait_for_ofs_sync 0 -1
        }

        test "Transactions are queued on the replica while its link is up" {
            foreach {c cmds} [list $tx_get {{get k}} \
                                  $tx_read_fn {{fcall adm_read 1 k}} \
                                  $tx_stale_fn {{fcall adm_stale 0 echo hi} {fcall_ro adm_stale 0 time}} \
                                  $tx_swap {{fcall adm_swap 0}} \
                                  $tx_compat {{eval {return 1} 0}}] {
                assert_equal OK [$c multi]
                foreach cmd $cmds { assert_equal QUEUED [$c {*}$cmd] }
            }
            # Writes need a writable replica to be queued at all.
            r -1 config set replica-read-only no
            foreach {c cmd} [list $tx_set {set k replica} $tx_write_fn {fcall adm_write 1 k replica}] {
                assert_equal OK [$c multi]
                assert_equal QUEUED [$c {*}$cmd]
            }
            r -1 config set replica-read-only yes
            # adm_swap loses allow-stale after it was queued.
            r function load replace [adm_swap_lib {{'no-writes'}}]
            wait_for_ofs_sync 0 -1
            assert_digests_equal {0 -1}
        }
        set ::adm_digest [r debug digest]
    }

    # The primary stopped with its block.
    wait_for_condition 100 50 {[repl_info master_link_status] eq "down"} {
        fail "the link to the stopped primary is still up"
    }

    test "Stale replica: GET gets MASTERDOWN (what the rest is compared with)" {
        assert_refused $::adm_masterdown {r get k}
    }

    test "Stale replica: EXEC of a transaction queued before the link went down gets EXECABORT with MASTERDOWN" {
        foreach c [list $tx_get $tx_read_fn] {
            assert_refused "EXECABORT Transaction discarded because of: $::adm_masterdown" {$c exec}
        }
        r config set replica-read-only no
        foreach c [list $tx_set $tx_write_fn] {
            assert_refused "EXECABORT Transaction discarded because of: $::adm_masterdown" {$c exec}
        }
        r config set replica-read-only yes
        assert_equal $::adm_digest [r debug digest]
    }

    test "Stale replica: EXEC of allow-stale functions queued before still runs" {
        set reply [$tx_stale_fn exec]
        assert_equal hi [lindex $reply 0]
        assert_equal 2 [llength [lindex $reply 1]]
    }

    test "Stale replica: a function that lost allow-stale after it was queued is refused when EXEC runs it" {
        assert_equal {{MASTERDOWN Link with MASTER is down, replica-serve-stale-data is set to 'no' and 'allow-stale' flag is not set on the script.}} \
            [$tx_swap exec]
    }

    test "Stale replica: a script without a shebang queued before is refused when EXEC runs it" {
        assert_equal [list $::adm_masterdown] [$tx_compat exec]
    }

    test "Stale replica: EVAL* without a shebang get MASTERDOWN, whatever they do" {
        assert_refused $::adm_masterdown {r eval $::adm_compat_get 1 k}
        assert_refused $::adm_masterdown {r eval {return 1} 0}
        assert_refused $::adm_masterdown {r eval_ro $::adm_compat_get 1 k}
        assert_refused $::adm_masterdown {r evalsha [r script load {return 1}] 0}
    }

    test "Stale replica: shebang scripts without allow-stale get MASTERDOWN" {
        assert_refused $::adm_masterdown {r eval $::adm_shebang_get 1 k}
        assert_refused $::adm_masterdown {r eval_ro $::adm_shebang_get 1 k}
        assert_refused $::adm_masterdown {r evalsha [r script load $::adm_shebang_get] 1 k}
        # A write script is a write first: READONLY on a read-only replica.
        assert_refused $::adm_readonly {r eval $::adm_shebang_set 1 k v}
        r config set replica-read-only no
        assert_refused $::adm_masterdown {r eval $::adm_shebang_set 1 k v}
        r config set replica-read-only yes
    }

    test "Stale replica: allow-stale scripts run, but only commands allowed while stale" {
        assert_equal hi [r eval $::adm_shebang_stale 0 echo hi]
        assert_equal hi [r eval_ro $::adm_shebang_stale 0 echo hi]
        assert_refused "$::adm_stale_cmd script: [r script load $::adm_shebang_stale], on @user_script:2." \
            {r eval $::adm_shebang_stale 0 get k}
    }

    test "Stale replica: FCALL and FCALL_RO of functions without allow-stale get MASTERDOWN" {
        assert_refused $::adm_masterdown {r fcall adm_read 1 k}
        assert_refused $::adm_masterdown {r fcall_ro adm_read 1 k}
        assert_refused $::adm_readonly {r fcall adm_write 1 k v}
        r config set replica-read-only no
        assert_refused $::adm_masterdown {r fcall adm_write 1 k v}
        r config set replica-read-only yes
    }

    test "Stale replica: allow-stale functions run, but only commands allowed while stale" {
        assert_equal hi [r fcall adm_stale 0 echo hi]
        assert_equal hi [r fcall_ro adm_stale 0 echo hi]
        assert_refused "$::adm_stale_cmd script: adm_stale, on @user_function:4." {r fcall adm_stale 1 k get k}
        r config set replica-read-only no
        assert_refused "$::adm_stale_cmd script: adm_stale_write, on @user_function:5." \
            {r fcall adm_stale_write 1 k v}
        r config set replica-read-only yes
    }

    test "Stale replica: inside MULTI a function without allow-stale is refused when queued" {
        r multi
        assert_refused $::adm_masterdown {r fcall adm_read 1 k}
        assert_refused $::adm_execabort_prev {r exec}
        r multi
        assert_equal QUEUED [r fcall adm_stale 0 echo hi]
        assert_equal QUEUED [r eval $::adm_shebang_stale 0 echo ho]
        assert_equal {hi ho} [r exec]
    }

    test "Stale replica: nothing was written" {
        assert_equal $::adm_digest [r debug digest]
        r config set replica-serve-stale-data yes
        assert_equal primary [r get k]
    }
}

# ---------------------------------------------------------------------------
# An AOF is obeyed: what it holds was accepted, whatever our state now
# ---------------------------------------------------------------------------

# A directory whose AOF (one incr file) holds an EVAL that writes k.
proc adm_aof_dir {name} {
    set dir [tmp_path $name]
    file mkdir [file join $dir appendonlydir]
    set eval [list eval {return redis.call('set', KEYS[1], ARGV[1])} 1 k from-aof]
    set resp "*2\r\n\$6\r\nSELECT\r\n\$1\r\n0\r\n*[llength $eval]\r\n"
    foreach a $eval { append resp "\$[string length $a]\r\n$a\r\n" }
    set fh [open [file join $dir appendonlydir appendonly.aof.1.incr.aof] wb]
    puts -nonewline $fh $resp
    close $fh
    set fh [open [file join $dir appendonlydir appendonly.aof.manifest] wb]
    puts -nonewline $fh "file appendonly.aof.1.incr.aof seq 1 type i\n"
    close $fh
    return $dir
}

# Redis 7.0 crashes on the first and loses the key of the second.
tags {"valkey-only" "external:skip"} {
    start_server [list overrides [list dir [adm_aof_dir aof-minrepl] appendonly yes \
                                      min-replicas-to-write 1 min-replicas-max-lag 10]] {
        test "An EVAL in the AOF writes at load time despite min-replicas-to-write" {
            assert_equal from-aof [r get k]
            assert_refused $::adm_noreplicas {r set k2 v}
        }
    }

    # (The host goes with the key: overrides quote a value with a space.)
    start_server [list overrides [list dir [adm_aof_dir aof-stale] appendonly yes {replicaof 127.0.0.1} 1 \
                                      replica-serve-stale-data no]] {
        test "An EVAL in the AOF writes at load time on a stale read-only replica" {
            assert_refused $::adm_masterdown {r get k}
            assert_match "*db0:keys=1,*" [r info keyspace]
            r config set replica-serve-stale-data yes
            assert_equal from-aof [r get k]
        }
    }
}

}
