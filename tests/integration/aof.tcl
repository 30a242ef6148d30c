# The append-only file (src/aof.c): Valkey 7+'s multi-part layout in
# appenddirname (base, incr files, manifest), commands appended from the
# propagation path, loading at start-up (the AOF wins over dump.rdb),
# truncated and corrupt files, BGREWRITEAOF and automatic rewrites,
# CONFIG SET appendonly at run time, DEBUG LOADAOF and the INFO fields.
#
# A restart is two start_server blocks on the same directory (see
# tests/integration/rdb.tcl): the harness stops a server with SIGTERM,
# which writes and fsyncs the AOF.

source [file join $::vk::cfg(root) tests assets rdb-dataset.tcl]
source [file join $::vk::cfg(root) tests assets aof-helpers.tcl]

# start_server_by_hand (tests/lib/harness.tcl) with appendonly yes.
proc aof_start_by_hand {dir args} {
    return [start_server_by_hand $dir --appendonly yes {*}$args]
}

# An AOF directory holding one incr file with the given commands (RESP)
# and no base, as a manifest lists it.
proc aof_make_dir {dir resp} {
    file mkdir [file join $dir appendonlydir]
    aof_write [file join $dir appendonlydir appendonly.aof.1.incr.aof] $resp
    aof_write [file join $dir appendonlydir appendonly.aof.manifest] \
        "file appendonly.aof.1.incr.aof seq 1 type i\n"
}

tags {"aof" "external:skip"} {
    start_server {overrides {appendonly yes enable-debug-command yes}} {
        set dir [srv dir]
        test "appendonly yes at start-up creates the base, the incr file and the manifest as Valkey names them" {
            assert_equal {appendonly.aof.1.base.rdb appendonly.aof.1.incr.aof appendonly.aof.manifest} \
                [aof_dir_files $dir]
            assert_equal "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" \
                [aof_manifest $dir]
            set base [aof_read [file join $dir appendonlydir appendonly.aof.1.base.rdb]]
            assert_equal REDIS0011 [string range $base 0 8]
            assert_match "*aof-base*" $base
            assert_match "*Creating AOF base file appendonly.aof.1.base.rdb on server start*" [aof_log]
            assert_match "*Creating AOF incr file appendonly.aof.1.incr.aof on server start*" [aof_log]
        }

        test "Writes reach the incr file in RESP, with SELECT when the database changes, before the reply" {
            r set foo bar
            r select 3
            r incrby n 5
            r select 0
            r expire foo 100
            set incr [aof_read [file join $dir appendonlydir appendonly.aof.1.incr.aof]]
            assert_match "[aof_resp {SELECT 0} {set foo bar} {SELECT 3} {incrby n 5} {SELECT 0}]*" $incr
            assert_match "*\$9\r\nPEXPIREAT\r\n\$3\r\nfoo\r\n*" $incr
            r get foo ;# reads are not appended
            assert_equal $incr [aof_read [file join $dir appendonlydir appendonly.aof.1.incr.aof]]
        }

        test "A transaction is appended wrapped in MULTI/EXEC, a script as its effects" {
            r multi
            r set t1 1
            r set t2 2
            r exec
            r eval {redis.call('set', KEYS[1], 'x'); redis.call('incr', 'cnt')} 1 s1
            set incr [aof_read [file join $dir appendonlydir appendonly.aof.1.incr.aof]]
            assert_match "*[aof_resp MULTI {set t1 1} {set t2 2} EXEC]*" $incr
            assert_match "*[aof_resp MULTI {set s1 x} {incr cnt} EXEC]*" $incr
        }

        test "INFO persistence shows the AOF enabled with its sizes" {
            assert_equal 1 [aof_info aof_enabled]
            assert_equal ok [aof_info aof_last_write_status]
            assert_equal 0 [aof_info aof_buffer_length]
            set size [expr {[file size [file join $dir appendonlydir appendonly.aof.1.base.rdb]] +
                            [file size [file join $dir appendonlydir appendonly.aof.1.incr.aof]]}]
            assert_equal $size [aof_info aof_current_size]
            assert_equal 0 [aof_info aof_rewrite_in_progress]
        }

        test "DEBUG LOADAOF empties the dataset and loads the AOF back" {
            set digest [r debug digest]
            r debug loadaof
            assert_equal $digest [r debug digest]
            assert_equal bar [r get foo]
            assert_match "*Append Only File loaded by DEBUG LOADAOF*" [aof_log]
        }

        test "Every type survives a rewrite and DEBUG LOADAOF" {
            r flushall
            rdb_fill_every_type r
            set dump [rdb_dataset_dump r]
            set digest [r debug digest]
            r bgrewriteaof
            wait_aof_rewrite_done
            r debug loadaof
            assert_equal $digest [r debug digest]
            assert_dumps_equal $dump [rdb_dataset_dump r]
        }
        r set after-rewrite 1
        set digest [r debug digest]
    }

    start_server [list overrides [list dir $dir appendonly yes enable-debug-command yes]] {
        test "A restart loads the AOF: the same dataset" {
            assert_equal $digest [r debug digest]
            assert_match "*DB loaded from base file appendonly.aof.2.base.rdb*" [aof_log]
            assert_match "*DB loaded from incr file appendonly.aof.2.incr.aof*" [aof_log]
            assert_match "*DB loaded from append only file*" [aof_log]
        }
    }

    start_server {overrides {appendonly yes enable-debug-command yes}} {
        set dir [srv dir]
        test "BGREWRITEAOF: a new base and incr file, the manifest switched, the old files removed" {
            r set a 1
            assert_match "Background append only file rewriting*" [r bgrewriteaof]
            wait_aof_rewrite_done
            r set b 2
            assert_equal "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n" \
                [aof_manifest $dir]
            wait_for_condition 50 20 {[llength [aof_dir_files $dir]] == 3} {
                fail "history files were not removed: [aof_dir_files $dir]"
            }
            assert_equal {appendonly.aof.2.base.rdb appendonly.aof.2.incr.aof appendonly.aof.manifest} \
                [aof_dir_files $dir]
            assert_equal [aof_resp {SELECT 0} {set b 2}] \
                [aof_read [file join $dir appendonlydir appendonly.aof.2.incr.aof]]
            assert_equal ok [aof_info aof_last_bgrewrite_status]
            assert_equal 1 [aof_info aof_rewrites]
            assert_match "*Background AOF rewrite terminated with success*" [aof_log]
            assert_match "*Background AOF rewrite finished successfully*" [aof_log]
        }

        test "BGREWRITEAOF while a BGSAVE runs is scheduled; BGSAVE while a rewrite runs is refused" {
            r config set rdb-key-save-delay 100000
            r debug populate 20
            r bgsave
            assert_equal "Background append only file rewriting scheduled" [r bgrewriteaof]
            assert_equal 1 [aof_info aof_rewrite_scheduled]
            r bgsave cancel
            r config set rdb-key-save-delay 0
            wait_aof_rewrite_done
            assert_equal 2 [aof_info aof_rewrites]
            r config set rdb-key-save-delay 100000
            # the rewrite child writes the base through the RDB encoder too
            r bgrewriteaof
            assert_equal 1 [aof_info aof_rewrite_in_progress]
            assert_error "*Another child process is active (AOF?)*" {r bgsave}
            assert_error "*already in progress*" {r bgrewriteaof}
            assert_equal "Background saving scheduled" [r bgsave schedule]
            r config set rdb-key-save-delay 0
            exec kill -USR1 [lindex [regexp -all -inline {rewriting started by pid ([0-9]+)} [aof_log]] end]
            wait_aof_rewrite_done
            wait_for_condition 100 50 {[aof_info rdb_bgsave_in_progress] == 0 && [aof_info rdb_saves] >= 2} {
                fail "the scheduled BGSAVE did not run"
            }
            r bgrewriteaof
            wait_aof_rewrite_done
        }

        test "Automatic rewrite when the AOF grew by auto-aof-rewrite-percentage" {
            set before [aof_info aof_rewrites]
            r config set auto-aof-rewrite-min-size 1
            r config set auto-aof-rewrite-percentage 100
            for {set j 0} {$j < 50} {incr j} { r set key$j [string repeat x 100] }
            wait_for_condition 100 50 {[aof_info aof_rewrites] > $before} {
                fail "no automatic rewrite"
            }
            wait_aof_rewrite_done
            assert_match "*Starting automatic rewriting of AOF on*growth*" [aof_log]
            r config set auto-aof-rewrite-percentage 0
        }
        set digest [r debug digest]
    }

    start_server {overrides {save "" enable-debug-command yes}} {
        set dir [srv dir]
        test "CONFIG SET appendonly yes at run time writes the first base with a rewrite" {
            r set before 1
            r save
            assert_equal OK [r config set appendonly yes]
            r set during 2
            wait_aof_rewrite_done
            r set after 3
            assert_equal 1 [aof_info aof_enabled]
            assert_equal "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" \
                [aof_manifest $dir]
            r config set appendonly no
            assert_equal 0 [aof_info aof_enabled]
            r set ignored 4
            r config set appendonly yes
            wait_aof_rewrite_done
            r set last 5
            set digest [r debug digest]
        }
    }

    start_server [list overrides [list dir $dir appendonly yes enable-debug-command yes]] {
        test "... and a restart with appendonly yes loads it" {
            assert_equal $digest [r debug digest]
            assert_equal {1 2 3 4 5} [r mget before during after ignored last]
        }
    }

    start_server {overrides {save ""}} {
        set dir [srv dir]
        test "BGREWRITEAOF with appendonly no writes a base alone" {
            r set k v
            r bgrewriteaof
            wait_aof_rewrite_done
            assert_equal "file appendonly.aof.1.base.rdb seq 1 type b\n" [aof_manifest $dir]
            assert_equal {appendonly.aof.1.base.rdb appendonly.aof.manifest} [aof_dir_files $dir]
        }
    }
    start_server [list overrides [list dir $dir appendonly yes]] {
        test "... which a restart with appendonly yes loads" {
            assert_equal v [r get k]
        }
    }

    start_server {overrides {save "" enable-debug-command yes} log_allow {"*Writing initial AOF, can't exit*"}} {
        test "SHUTDOWN is refused while the first base after appendonly yes is being written" {
            r debug populate 100
            r config set rdb-key-save-delay 100000 ;# the child takes 10 s
            r config set appendonly yes
            assert_equal 1 [aof_info aof_rewrite_in_progress]
            assert_error "*Errors trying to SHUTDOWN*" {r shutdown}
            assert_match "*Writing initial AOF, can't exit.*" [aof_log]
            r config set rdb-key-save-delay 0
            r config set appendonly no ;# stops the child
            assert_equal 0 [aof_info aof_rewrite_in_progress]
        }
    }

    start_server {overrides {save "" enable-debug-command yes}} {
        set dir [srv dir]
        test "With appendonly yes the AOF wins over dump.rdb" {
            r set k rdb
            r save
            r config set appendonly yes
            wait_aof_rewrite_done
            r set k aof
        }
    }
    start_server [list overrides [list dir $dir appendonly yes]] {
        test "... the restarted server has the AOF's value" {
            assert_equal aof [r get k]
        }
    }
    start_server [list overrides [list dir $dir appendonly no]] {
        test "... and with appendonly no the RDB's" {
            assert_equal rdb [r get k]
        }
    }

    set dir [tmp_path ts]
    file mkdir $dir
    start_server [list overrides [list dir $dir appendonly yes aof-timestamp-enabled yes]] {
        test "aof-timestamp-enabled writes #TS annotations, which loading skips" {
            r set x 1
            set incr [aof_read [file join $dir appendonlydir appendonly.aof.1.incr.aof]]
            assert_match "#TS:*\r\n*set*" $incr
        }
    }
    start_server [list overrides [list dir $dir appendonly yes]] {
        test "... the annotated file loads" {
            assert_equal 1 [r get x]
        }
    }

    # The incr file appended to, as the manifest says.
    proc aof_current_incr {dir} {
        regexp {file (\S+) seq \d+ type i\n$} [aof_manifest $dir] _ name
        return [file join $dir appendonlydir $name]
    }

    # The "#TS:" values in the files, in order.
    proc aof_timestamps {args} {
        set out {}
        foreach path $args {
            foreach {_ ts} [regexp -all -inline {#TS:([0-9]+)\r\n} [aof_read $path]] { lappend out $ts }
        }
        return $out
    }

    start_server {overrides {appendonly yes aof-timestamp-enabled yes aof-use-rdb-preamble no aof-disable-auto-gc yes
                             enable-debug-command yes}} {
        set dir [srv dir]
        set aofdir [file join $dir appendonlydir]
        test "aof-timestamp-enabled with aof-use-rdb-preamble no: a base opens with a #TS line, as Valkey writes it" {
            # The first base, written at start-up...
            assert_match "#TS:*\r\n" [aof_read [file join $aofdir appendonly.aof.1.base.aof]]
            r set a 1
            r bgrewriteaof
            wait_aof_rewrite_done
            # ... and one a rewrite writes, which loads.
            set base [aof_read [file join $aofdir appendonly.aof.2.base.aof]]
            assert_match "#TS:*\r\n*SELECT*" $base
            assert_equal "*" [string index $base [expr {[string first "\n" $base] + 1}]]
            set digest [r debug digest]
            r debug loadaof
            assert_equal $digest [r debug digest]
        }

        test "A new incr file gets no #TS line of its own within the second; a later second gets one" {
            # Into a second no annotation was written for yet (the first
            # base counted as one)...
            set known [aof_timestamps {*}[glob -directory $aofdir *.aof]]
            set latest [lindex [lsort -integer $known] end]
            wait_for_condition 300 10 {[lindex [r time] 0] > $latest} { fail "the clock did not move" }
            # ... three commands in one round trip: they run within a few
            # microseconds (a fork), the new incr file opening between.
            set old [aof_current_incr $dir]
            r_pipeline {{set b 1} {bgrewriteaof} {set c 2}}
            wait_aof_rewrite_done
            set new [aof_current_incr $dir]
            assert_not_equal $old $new
            assert_match "*\$1\r\nc\r\n*" [aof_read $new]
            # Never the same second twice, whatever file it is in.
            set seen [aof_timestamps $old $new]
            assert {[llength $seen] > 0}
            assert_equal [lsort -integer -unique $seen] $seen
            set last [lindex $seen end]
            wait_for_condition 300 10 {[lindex [r time] 0] > $last} { fail "the clock did not move" }
            r set d 3
            set now [aof_timestamps $new]
            assert {[lindex $now end] > $last}
            assert_match "*#TS:[lindex $now end]\r\n*\$1\r\nd\r\n*" [aof_read $new]
        }
    }

    test "An incomplete last command loads with aof-load-truncated yes, the file cut to the last command" {
        set dir [tmp_path truncated]
        set full [aof_resp {SELECT 0} {set a 1} {set b 2}]
        aof_make_dir $dir "$full*3\r\n\$3\r\nset\r\n\$1\r\nc"
        lassign [aof_start_by_hand $dir] status log
        assert_equal running $status
        assert_match "*!!! Warning: short read while loading the AOF file appendonly.aof.1.incr.aof!!!*" $log
        assert_match "*AOF appendonly.aof.1.incr.aof loaded anyway because aof-load-truncated is enabled*" $log
        assert_equal $full [aof_read [file join $dir appendonlydir appendonly.aof.1.incr.aof]]
    }

    test "... and stops the server with aof-load-truncated no" {
        set dir [tmp_path truncated-no]
        aof_make_dir $dir "[aof_resp {set a 1}]*2\r\n\$3\r\nget"
        lassign [aof_start_by_hand $dir --aof-load-truncated no] status log
        assert_equal 1 $status
        assert_match "*Unexpected end of file reading the append only file appendonly.aof.1.incr.aof*valkey-check-aof --fix*" $log
    }

    test "An incomplete MULTI at the end is reverted" {
        set dir [tmp_path multi]
        aof_make_dir $dir [aof_resp {set a 1} MULTI {set b 2}]
        lassign [aof_start_by_hand $dir] status log
        assert_equal running $status
        assert_match "*Revert incomplete MULTI/EXEC transaction in AOF file appendonly.aof.1.incr.aof*" $log
        assert_equal [aof_resp {set a 1}] [aof_read [file join $dir appendonlydir appendonly.aof.1.incr.aof]]
    }

    # The argument vector of a command grows as its arguments arrive: a
    # damaged count such as *1000000000 (8 GB of pointers) at the end of the
    # last file is truncated away like any short command, without asking the
    # allocator for what the count claims. Run under a 3 GB address-space
    # limit, when the build can start under one at all (ASan cannot).
    test "A huge argument count costs only what the file holds" {
        unset -nocomplain log ;# an earlier test's: the skip below asks whether this one got one
        set ::vk::by_hand_prefix {sh -c {ulimit -v 3000000; exec "$0" "$@"}}
        set dir [tmp_path hugecount-control]
        file mkdir $dir
        set status [lindex [start_server_by_hand $dir] 0]
        if {$status eq "running"} {
            set dir [tmp_path hugecount]
            set good [aof_resp {set a 1}]
            aof_make_dir $dir "$good*1000000000\r\n\$3\r\nSET\r\n"
            lassign [aof_start_by_hand $dir] status log
        }
        set ::vk::by_hand_prefix {}
        if {$status ne "running" && ![info exists log]} { skip "this build does not start under ulimit -v" }
        assert_equal running $status
        assert_match "*Truncating the AOF appendonly.aof.1.incr.aof at offset [string length $good]*" $log
    }

    # The AOF's client has no connection to feed a snapshot to (PSYNC used
    # to dereference it and crash the server).
    test "SYNC and PSYNC in the AOF are refused and loading goes on" {
        set dir [tmp_path psync]
        aof_make_dir $dir [aof_resp {psync ? -1} SYNC {set a 1}]
        lassign [aof_start_by_hand $dir] status log
        assert_equal running $status
        assert_match "*DB loaded from append only file*" $log
    }

    test "Garbage in the middle stops the server pointing at valkey-check-aof" {
        set dir [tmp_path corrupt]
        aof_make_dir $dir "[aof_resp {set a 1}]xxx[aof_resp {set b 2}]"
        lassign [aof_start_by_hand $dir] status log
        assert_equal 1 $status
        assert_match "*Bad file format reading the append only file appendonly.aof.1.incr.aof: make a backup of your AOF file, then use ./valkey-check-aof --fix <filename.manifest>*" $log
    }

    test "An unknown command in the AOF stops the server" {
        set dir [tmp_path unknown]
        aof_make_dir $dir [aof_resp {nosuchcmd a}]
        lassign [aof_start_by_hand $dir] status log
        assert_equal 1 $status
        assert_match "*Unknown command 'nosuchcmd' reading the append only file appendonly.aof.1.incr.aof*" $log
    }

    # Redis 7.0 runs these (and crashes) or logs no offset.
    tags {valkey-only} {
        test "... the log gives its offset" {
            set dir [tmp_path unknown-offset]
            set before [aof_resp {set a 1}]
            aof_make_dir $dir "$before[aof_resp {nosuchcmd a}]"
            lassign [aof_start_by_hand $dir] status log
            assert_equal 1 $status
            assert_match "*Unknown command 'nosuchcmd' reading the append only file appendonly.aof.1.incr.aof*The command is at offset [string length $before] of the append only file appendonly.aof.1.incr.aof: AOF loading aborted*" $log
        }

        # Each of these reached its command procedure, which read past its
        # arguments (SET k: AddressSanitizer heap-buffer-overflow in setCommand).
        foreach {cmd fullname} {{SET k} set {GET} get {HSET h f} hset {EXPIRE k} expire {CONFIG} config
                                {CONFIG GET} config|get {OBJECT ENCODING} object|encoding {ZADD z 1} zadd
                                {PFCOUNT} pfcount {SELECT 0 1} select} {
            test "A command with the wrong number of arguments in the AOF stops the server: $cmd" {
                set dir [tmp_path arity]
                file delete -force $dir
                set before [aof_resp {SELECT 0} {set a 1}]
                aof_make_dir $dir "$before[aof_resp $cmd {set b 2}]"
                lassign [aof_start_by_hand $dir] status log
                assert_equal 1 $status
                assert_match "*Wrong number of arguments for '$fullname' command reading the append only file appendonly.aof.1.incr.aof*" $log
                assert_match "*The command is at offset [string length $before] of the append only file appendonly.aof.1.incr.aof: AOF loading aborted*" $log
            }
        }

        test "... also inside a transaction, before it is queued" {
            set dir [tmp_path arity-multi]
            set before "[aof_resp {set a 1}]#TS:1700000000\r\n[aof_resp MULTI]"
            aof_make_dir $dir "$before[aof_resp {SET k} EXEC]"
            lassign [aof_start_by_hand $dir] status log
            assert_equal 1 $status
            assert_match "*Wrong number of arguments for 'set' command*at offset [string length $before] of*" $log
        }

        test "... and in an unknown command, a name that is not text is escaped in the log" {
            set dir [tmp_path unknown-binary]
            aof_make_dir $dir [aof_resp [list "bad\nname\x01" x]]
            lassign [aof_start_by_hand $dir] status log
            assert_equal 1 $status
            assert_match {*Unknown command '"bad\\nname\\x01"' reading the append only file appendonly.aof.1.incr.aof*} $log
        }
    }

    test "A bad manifest stops the server" {
        set dir [tmp_path badmanifest]
        file mkdir [file join $dir appendonlydir]
        aof_write [file join $dir appendonlydir appendonly.aof.manifest] "file x seq\n"
        lassign [aof_start_by_hand $dir] status log
        assert_equal 1 $status
        assert_match "*Invalid AOF manifest file format*" $log
    }

    # A directory whose incr file holds a key, and whose manifest is then
    # replaced by $manifest. Returns the incr file's path.
    proc aof_dir_with_manifest {dir manifest} {
        aof_make_dir $dir [aof_resp {set k v}]
        aof_write [file join $dir appendonlydir appendonly.aof.manifest] $manifest
        return [file join $dir appendonlydir appendonly.aof.1.incr.aof]
    }

    test "An empty manifest stops the server as Valkey does, the AOF files left as they are" {
        set dir [tmp_path empty-manifest]
        set incr [aof_dir_with_manifest $dir ""]
        lassign [aof_start_by_hand $dir] status log
        assert_equal 1 $status
        assert_match "*FATAL AOF MANIFEST FILE ERROR*Found an empty AOF manifest*" $log
        # Nothing replaced it, no new base orphaning the incr file.
        assert_equal "" [aof_manifest $dir]
        assert_equal {appendonly.aof.1.incr.aof appendonly.aof.manifest} [aof_dir_files $dir]
        assert_equal [aof_resp {set k v}] [aof_read $incr]
    }

    # Redis 7.0 logs no line number for these.
    tags {valkey-only} {
        test "A manifest whose first line is binary junk stops the server with the line number" {
            set good "file appendonly.aof.1.incr.aof seq 1 type i\n"
            foreach junk [list "\x00\x00\x00\x00\n" "\x01\xfe\x80\x7f junk\x00\xff\n" "\x89PNG\r\n"] {
                set dir [tmp_path junk-manifest]
                file delete -force $dir
                aof_dir_with_manifest $dir "$junk$good"
                lassign [aof_start_by_hand $dir] status log
                assert_equal 1 $status
                assert_match "*Reading the manifest file, at line 1*>>> '*'*Invalid AOF manifest file format*" $log
                assert_equal "$junk$good" [aof_manifest $dir]
            }
        }

        test "A manifest whose last line has no newline stops the server with the line number" {
            set dir [tmp_path unterminated-manifest]
            set manifest "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i"
            aof_dir_with_manifest $dir $manifest
            aof_write [file join $dir appendonlydir appendonly.aof.1.base.aof] [aof_resp {set b 1}]
            lassign [aof_start_by_hand $dir] status log
            assert_equal 1 $status
            assert_match "*Reading the manifest file, at line 2*>>> 'file appendonly.aof.1.incr.aof seq 1 type i'*The AOF manifest file contains too long line*" $log
            assert_equal $manifest [aof_manifest $dir]
        }
    }

    tags {valkey-only} {
        test "A manifest entry whose name this server would write back too long for a line stops the server" {
            # 300 bytes that the manifest writer escapes as \xff: 1200 bytes
            # on a line, which the next start would refuse.
            set dir [tmp_path long-written-manifest]
            set name [string repeat "\xff" 300]
            aof_dir_with_manifest $dir "file $name seq 1 type h\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
            lassign [aof_start_by_hand $dir --aof-disable-auto-gc yes] status log
            assert_equal 1 $status
            assert_match "*at line 1*The AOF manifest file contains too long line*" $log
        }
    }

    tags {valkey-only needs:debug} {
        start_server {overrides {appendonly yes enable-debug-command yes}} {
            test "DEBUG LOADAOF with an unreadable manifest on disk is an error, the dataset kept" {
                set manifest [file join [srv dir] appendonlydir appendonly.aof.manifest]
                r set kept 1
                set good [aof_read $manifest]
                aof_write $manifest ""
                assert_error "*Error reading the AOF manifest*" {r debug loadaof}
                assert_equal 1 [r get kept]
                aof_write $manifest $good
                assert_equal OK [r debug loadaof]
                assert_equal 1 [r get kept]
            }
        }
    }

    test "A blank line in the manifest stops the server, as Valkey refuses it" {
        set dir [tmp_path blank-manifest]
        aof_dir_with_manifest $dir "\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
        lassign [aof_start_by_hand $dir] status log
        assert_equal 1 $status
        assert_match "*at line 1*Invalid AOF manifest file format*" $log
    }

    # Redis 7.0 loads "." and "..", and writes over an empty manifest at run time.
    tags {valkey-only} {
        test "A manifest naming a path instead of a file name stops the server" {
            set dir [tmp_path path-manifest]
            foreach name {../outside.aof /etc/hostname appendonlydir/../x .. .} {
                file delete -force $dir
                aof_dir_with_manifest $dir "file appendonly.aof.1.incr.aof seq 1 type i\nfile $name seq 2 type i\n"
                lassign [aof_start_by_hand $dir] status log
                assert_equal 1 $status
                assert_match "*at line 2*>>> 'file $name seq 2 type i'*File can't be a path, just a filename*" $log
            }
        }

        test "CONFIG SET appendonly yes refuses an empty manifest instead of writing over it" {
            set dir [tmp_path empty-manifest-runtime]
            set incr [aof_dir_with_manifest $dir ""]
            start_server [list overrides [list dir $dir]] {
                assert_error "*Unable to turn on AOF*" {r config set appendonly yes}
                assert_equal PONG [r ping]
                assert_match "*Found an empty AOF manifest*" [aof_log]
                assert_error "*Can't execute an AOF background rewriting*" {r bgrewriteaof}
                assert_equal 0 [aof_info aof_rewrite_in_progress]
            }
            assert_equal "" [aof_manifest $dir]
            assert_equal {appendonly.aof.1.incr.aof appendonly.aof.manifest} [aof_dir_files $dir]
            assert_equal [aof_resp {set k v}] [aof_read $incr]
        }
    }

    test "A truncated file that is not the last one stops the server" {
        set dir [tmp_path notlast]
        file mkdir [file join $dir appendonlydir]
        aof_write [file join $dir appendonlydir appendonly.aof.1.incr.aof] "[aof_resp {set a 1}]*2\r\n"
        aof_write [file join $dir appendonlydir appendonly.aof.2.incr.aof] [aof_resp {set b 1}]
        aof_write [file join $dir appendonlydir appendonly.aof.manifest] \
            "file appendonly.aof.1.incr.aof seq 1 type i\nfile appendonly.aof.2.incr.aof seq 2 type i\n"
        lassign [aof_start_by_hand $dir] status log
        assert_equal 1 $status
        assert_match "*the truncated file is not the last file*" $log
    }

    # An AOF of Redis 6 and older: one file, appendfilename in dir.
    set old_cmds {{SELECT 0} {set k1 v1} {rpush list a b c} {hset h f1 v1 f2 v2} {SELECT 3}
                  {incrby n 7} {sadd s x y z} {zadd z 1 a 2 b} {SELECT 0} {set k2 v2} {del k1}}
    start_server {overrides {save "" enable-debug-command yes}} {
        foreach cmd $old_cmds { r {*}$cmd }
        r select 0
        set expected_digest [r debug digest]
    }
    set dir [tmp_path old-aof]
    file mkdir $dir
    aof_write [file join $dir appendonly.aof] [aof_resp {*}$old_cmds]
    start_server [list overrides [list dir $dir appendonly yes enable-debug-command yes]] {
        test "An old single-file AOF in dir loads and is moved into appenddirname as the base of a new manifest" {
            assert_equal $expected_digest [r debug digest]
            assert_equal {a b c} [r lrange list 0 -1]
            r select 3
            assert_equal 7 [r get n]
            r select 0
            assert_equal 0 [file exists [file join $dir appendonly.aof]]
            assert_equal {appendonly.aof appendonly.aof.1.incr.aof appendonly.aof.manifest} [aof_dir_files $dir]
            assert_equal "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" \
                [aof_manifest $dir]
            assert_match "*Successfully migrated an old-style AOF file (appendonly.aof) into the AOF directory (appendonlydir).*" \
                [aof_log]
            r set k3 v3
            set digest [r debug digest]
        }
    }
    start_server [list overrides [list dir $dir appendonly yes enable-debug-command yes]] {
        test "... a restart loads it from the directory" {
            assert_equal $digest [r debug digest]
            assert_equal v3 [r get k3]
            assert {![string match "*migrated*" [aof_log]]}
        }
        test "... and the first rewrite replaces the old file with a base of its own" {
            r bgrewriteaof
            wait_aof_rewrite_done
            assert_equal "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n" \
                [aof_manifest $dir]
            wait_for_condition 50 20 {[lsearch [aof_dir_files $dir] appendonly.aof] == -1} {
                fail "the old file was not removed"
            }
            r debug loadaof
            assert_equal $digest [r debug digest]
        }
    }

    start_server {overrides {save "" enable-debug-command yes}} {
        set sdir [srv dir]
        rdb_fill_every_type r
        r save
        set rdb [aof_read [file join $sdir dump.rdb]]
        r select 9
        r set tail-key 1
        r select 0
        set expected_digest [r debug digest]
        set expected_dump [rdb_dataset_dump r]
    }
    set dir [tmp_path old-aof-preamble]
    file mkdir $dir
    aof_write [file join $dir appendonly.aof] "$rdb[aof_resp {SELECT 9} {set tail-key 1}]"
    start_server [list overrides [list dir $dir appendonly yes enable-debug-command yes]] {
        test "An old single-file AOF with an RDB preamble loads and is moved the same way" {
            assert_equal $expected_digest [r debug digest]
            assert_dumps_equal $expected_dump [rdb_dataset_dump r]
            assert_equal "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" \
                [aof_manifest $dir]
            assert_equal 0 [file exists [file join $dir appendonly.aof]]
            assert_match "*Reading RDB base file on AOF loading*" [aof_log]
            r set after-upgrade 1
            set digest [r debug digest]
        }
    }
    start_server [list overrides [list dir $dir appendonly yes enable-debug-command yes]] {
        test "... and a restart loads it from the directory" {
            assert_equal $digest [r debug digest]
        }
    }

    test "An upgrade interrupted after the manifest was written is finished at the next start" {
        set dir [tmp_path old-aof-interrupted]
        file mkdir [file join $dir appendonlydir]
        aof_write [file join $dir appendonly.aof] [aof_resp {set k1 v1}]
        aof_write [file join $dir appendonlydir appendonly.aof.manifest] "file appendonly.aof seq 1 type b\n"
        lassign [aof_start_by_hand $dir] status log
        assert_equal running $status
        assert_match "*Successfully migrated an old-style AOF file*" $log
        assert_equal 0 [file exists [file join $dir appendonly.aof]]
        assert_equal [aof_resp {set k1 v1}] [aof_read [file join $dir appendonlydir appendonly.aof]]
        assert_equal "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" \
            [aof_manifest $dir]
    }

    set dir [tmp_path old-aof-both]
    file mkdir $dir
    aof_write [file join $dir appendonly.aof] [aof_resp {set old 1}]
    aof_make_dir $dir [aof_resp {set new 1}]
    start_server [list overrides [list dir $dir appendonly yes]] {
        test "With an AOF directory of its own, an old file in dir is left alone" {
            assert_equal 0 [r exists old]
            assert_equal 1 [r get new]
            assert_equal [aof_resp {set old 1}] [aof_read [file join $dir appendonly.aof]]
            assert_equal "file appendonly.aof.1.incr.aof seq 1 type i\n" [aof_manifest $dir]
            assert {![string match "*migrated*" [aof_log]]}
        }
    }

    test "A manifest naming the old file, missing in both places, stops the server" {
        set dir [tmp_path old-aof-missing]
        file mkdir [file join $dir appendonlydir]
        aof_write [file join $dir appendonlydir appendonly.aof.manifest] "file appendonly.aof seq 1 type b\n"
        lassign [aof_start_by_hand $dir] status log
        assert_equal 1 $status
        assert_match "*appendonly.aof*No such file or directory*" $log
    }

    start_server {overrides {appendonly yes appendfsync always}} {
        test "WAITAOF counts the local fsync: at once with appendfsync always" {
            r set w 1
            assert_equal {1 0} [r waitaof 1 0 0]
        }
        test "... within a second or so with everysec (the background fsync)" {
            r config set appendfsync everysec
            set rd [vk_deferring_client]
            $rd set w 2
            $rd read
            set start [clock milliseconds]
            $rd waitaof 1 0 5000
            assert_equal {1 0} [$rd read]
            assert {[clock milliseconds] - $start < 3000}
            $rd close
        }
        test "... and 0 replicas when none is connected (the wait times out)" {
            assert_equal {1 0} [r waitaof 1 1 100]
        }
    }

    start_server {overrides {appendonly yes}} {
        test "appendfsync always, everysec and no all keep writes" {
            foreach policy {always everysec no} {
                r config set appendfsync $policy
                r set p-$policy 1
                assert_equal $policy [lindex [r config get appendfsync] 1]
            }
            set incr [aof_read [file join [srv dir] appendonlydir appendonly.aof.1.incr.aof]]
            foreach policy {always everysec no} { assert_match "*p-$policy*" $incr }
        }
    }
}

# Starts the server by hand on dir (appendonly yes) with extra arguments,
# through `prefix` (a command line put before the binary, e.g. prlimit),
# and waits until it is ready. Returns {pid port chan out}.
proc aof_spawn {dir prefix args} {
    set port [::vk::alloc_port]
    set out [file join $dir out.log]
    set chan [open [list | sh -c {trap '' XFSZ; exec "$@"} sh {*}$prefix $::vk::cfg(binary) --port $port \
                        --bind 127.0.0.1 --save "" --dir $dir --appendonly yes {*}$args >>& $out] w]
    set pid [lindex [pid $chan] 0]
    wait_for_condition 250 20 {[regexp -all {Ready to accept connections} [aof_read $out]] >
                                [regexp -all {Ready to accept connections} $::aof_spawn_seen]} {
        ::vk::kill_pid $pid
        fail "the server did not start: [aof_read $out]"
    }
    set ::aof_spawn_seen [aof_read $out]
    return [list $pid $port $chan $out]
}
set ::aof_spawn_seen ""

proc aof_kill9 {h} {
    lassign $h pid port chan
    catch {exec kill -KILL $pid}
    wait_for_condition 100 20 {![::vk::pid_alive $pid]} { fail "the server survived SIGKILL" }
    catch {close $chan}
}

tags {"aof" "external:skip" "rdma:skip:own-server" "slow"} {
    test "Crash test, appendfsync always: every acknowledged write survives SIGKILL at random moments" {
        set dir [tmp_path crash-always]
        file mkdir $dir
        set ::aof_spawn_seen ""
        set acked 0
        for {set round 0} {$round < 15} {incr round} {
            set h [aof_spawn $dir {} --appendfsync always]
            set c [::vk::client_open 127.0.0.1 [lindex $h 1]]
            # more than acknowledged may be there (written, not yet answered)
            set len [$c llen l]
            assert {$len >= $acked} "round $round: acknowledged writes lost ($len < $acked)"
            if {$len} { assert_equal [expr {$len - 1}] [$c lindex l -1] }
            set acked $len
            # A pipeline of writes in flight; the kill lands in its middle.
            set burst [expr {200 + int(rand() * 800)}]
            $c deferred 1
            for {set j 0} {$j < $burst} {incr j} { $c rpush l [expr {$acked + $j}] }
            $c flush
            set stop [expr {int(rand() * $burst)}]
            for {set j 0} {$j < $stop} {incr j} {
                set n [$c read]
                assert_equal [expr {$acked + $j + 1}] $n
            }
            aof_kill9 $h
            catch {$c close}
            set acked [expr {$acked + $stop}]
        }
        set h [aof_spawn $dir {} --appendfsync always]
        set c [::vk::client_open 127.0.0.1 [lindex $h 1]]
        set len [$c llen l]
        assert {$len >= $acked}
        # every element in order, nothing but whole commands
        assert_equal [$c lrange l 0 9] {0 1 2 3 4 5 6 7 8 9}
        assert_equal [expr {$len - 1}] [$c lindex l -1]
        $c close
        aof_kill9 $h
    }

    test "Crash test, appendfsync everysec: SIGKILL loses at most the last seconds" {
        set dir [tmp_path crash-everysec]
        file mkdir $dir
        set ::aof_spawn_seen ""
        for {set round 0} {$round < 3} {incr round} {
            set h [aof_spawn $dir {} --appendfsync everysec]
            set c [::vk::client_open 127.0.0.1 [lindex $h 1]]
            $c del l
            set start [clock milliseconds]
            set acked {}
            set until [expr {$start + 1500 + int(rand() * 1500)}]
            while {[clock milliseconds] < $until} {
                set now [clock milliseconds]
                $c rpush l $now
                lappend acked $now
            }
            set killed [clock milliseconds]
            aof_kill9 $h
            catch {$c close}
            set h [aof_spawn $dir {} --appendfsync everysec]
            set c [::vk::client_open 127.0.0.1 [lindex $h 1]]
            set got [$c lrange l 0 -1]
            assert_equal [lrange $acked 0 [expr {[llength $got] - 1}]] $got "round $round: not a prefix"
            set last [expr {[llength $got] ? [lindex $got end] : $start}]
            assert {$killed - $last <= 3000} "round $round: lost [expr {$killed - $last}] ms of writes"
            $c close
            aof_kill9 $h
        }
    }

    test "A failing AOF write refuses writes with -MISCONF, reads go on, and it recovers by itself" {
        set dir [tmp_path misconf]
        file mkdir $dir
        set ::aof_spawn_seen ""
        # 64 KB per file at most (soft limit; SIGXFSZ ignored: writes fail with EFBIG)
        set h [aof_spawn $dir {prlimit --fsize=65536:unlimited} --appendfsync everysec]
        set pid [lindex $h 0]
        set c [::vk::client_open 127.0.0.1 [lindex $h 1]]
        $c set small 1
        $c set big [string repeat x 100000]
        wait_for_condition 50 20 {[catch {$c set other 1} err] && [string match "MISCONF*" $err]} {
            fail "writes were not refused"
        }
        assert_equal "MISCONF Errors writing to the AOF file: File too large" $err
        assert_error "MISCONF*" {$c ping}
        assert_equal 1 [$c get small]
        assert_match "*aof_last_write_status:err*" [$c info persistence]
        exec prlimit --pid $pid --fsize=unlimited:unlimited
        wait_for_condition 100 50 {![catch {$c set other 2}]} { fail "the server did not recover" }
        assert_match "*aof_last_write_status:ok*" [$c info persistence]
        set log [aof_read [lindex $h 3]]
        assert_match "*Error writing to the AOF file: File too large*" $log
        assert_match "*AOF write error looks solved, Valkey can write again.*" $log
        $c close
        aof_kill9 $h
        set h [aof_spawn $dir {}]
        set c [::vk::client_open 127.0.0.1 [lindex $h 1]]
        assert_equal {1 100000 2} [list [$c get small] [$c strlen big] [$c get other]]
        $c close
        aof_kill9 $h
    }

    test "With appendfsync always a failing write ends the server (an acknowledged write could be lost)" {
        set dir [tmp_path misconf-always]
        file mkdir $dir
        set ::aof_spawn_seen ""
        set h [aof_spawn $dir {prlimit --fsize=65536:unlimited} --appendfsync always]
        set c [::vk::client_open 127.0.0.1 [lindex $h 1]]
        catch {$c set big [string repeat x 100000]}
        wait_for_condition 100 20 {![::vk::pid_alive [lindex $h 0]]} { fail "the server did not exit" }
        catch {close [lindex $h 2]}
        assert_match "*Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...*" \
            [aof_read [lindex $h 3]]
        catch {$c close}
    }
}

# Interoperability with Debian's redis-server 7.0, which writes the same
# multi-part layout: its AOF directory (a base of commands with
# aof-use-rdb-preamble no, or an RDB 10 base, and incr files with
# timestamp annotations) loads here with the same dataset.
source [file join $::vk::cfg(root) tests assets redis-server.tcl]

tags {"aof" "needs:debug" "external:skip" "rdma:skip:own-server"} {
    foreach preamble {no yes} {
        set rdir [tmp_path redis-aof-$preamble]
        file mkdir $rdir
        set expected ""
        test "redis-server 7.0 writes an AOF directory (aof-use-rdb-preamble $preamble)" {
            if {![file executable $::redis_binary]} { skip "no $::redis_binary" }
            set h [redis_start $rdir --appendonly yes --aof-use-rdb-preamble $preamble --aof-timestamp-enabled yes]
            set c [::vk::client_open 127.0.0.1 [lindex $h 1]]
            rdb_fill_every_type $c
            $c bgrewriteaof
            wait_for_condition 250 20 {[string match "*aof_rewrite_in_progress:0*" [$c info persistence]] &&
                                        [string match "*aof_rewrites:1*" [$c info persistence]]} {
                fail "redis-server did not rewrite"
            }
            $c select 9
            $c set after-rewrite 1
            $c multi
            $c incr counter
            $c lpush after-list a b
            $c exec
            set expected [rdb_dataset_dump $c]
            $c close
            redis_stop $h
            set ext [expr {$preamble eq "yes" ? "rdb" : "aof"}]
            assert_match "file appendonly.aof.2.base.$ext seq 2 type b*" [aof_manifest $rdir]
        }

        start_server [list overrides [list dir $rdir appendonly yes enable-debug-command yes]] {
            test "... loads here with the same dataset (aof-use-rdb-preamble $preamble)" {
                if {$expected eq ""} { skip "no AOF from redis-server" }
                assert_dumps_equal $expected [rdb_dataset_dump r]
                assert_equal 1 [r -0 eval {redis.call('select', 9) return redis.call('get', 'after-rewrite')} 0]
                assert_match "*DB loaded from append only file*" [aof_log]
            }
        }
    }
}

# valkey-check-aof: the server binary under that name (src/aof_check.c).
proc aof_check {args} {
    set tool [tmp_path valkey-check-aof]
    if {![file exists $tool]} { file link -symbolic $tool [file normalize $::vk::cfg(binary)] }
    set stdin ""
    if {[lindex $args 0] eq "-stdin"} {
        set stdin [lindex $args 1]
        set args [lrange $args 2 end]
    }
    set status 0
    if {[catch {exec $tool {*}$args << $stdin 2>@1} out opts]} {
        set ec [dict get $opts -errorcode]
        if {[lindex $ec 0] eq "CHILDSTATUS"} { set status [lindex $ec 2] } else { error $out }
    }
    return [list $status $out]
}

tags {"aof" "external:skip"} {
    set dir [tmp_path check]
    file mkdir $dir
    start_server [list overrides [list dir $dir appendonly yes aof-timestamp-enabled yes]] {
        r set a 1
        r rpush l x y
    }
    set manifest [file join $dir appendonlydir appendonly.aof.manifest]
    set incr [file join $dir appendonlydir appendonly.aof.1.incr.aof]

    test "valkey-check-aof: a manifest whose files are all valid" {
        lassign [aof_check $manifest] status out
        assert_equal 0 $status
        assert_match "*Start checking Multi Part AOF*BASE AOF appendonly.aof.1.base.rdb is valid*INCR AOF appendonly.aof.1.incr.aof is valid*All AOF files and manifest are valid*" $out
    }

    test "valkey-check-aof: a cut last command is reported with its offset, --fix truncates it after asking" {
        set good [file size $incr]
        aof_write $incr "*2\r\n\$3\r\nget" ab
        lassign [aof_check $manifest] status out
        assert_equal 1 $status
        assert_match "*AOF analyzed: filename=appendonly.aof.1.incr.aof, size=[expr {$good + 11}], ok_up_to=$good,*diff=11*Use the --fix option*" $out
        lassign [aof_check -stdin "n\n" --fix $manifest] status out
        assert_equal 1 $status
        assert_equal [expr {$good + 11}] [file size $incr]
        lassign [aof_check -stdin "y\n" --fix $manifest] status out
        assert_equal 0 $status
        assert_match "*Successfully truncated AOF appendonly.aof.1.incr.aof*" $out
        assert_equal $good [file size $incr]
    }

    test "valkey-check-aof: garbage and an unmatched MULTI are found in a single file" {
        set f [tmp_path single.aof]
        aof_write $f "[aof_resp {set a 1}]x\r\n"
        lassign [aof_check $f] status out
        assert_equal 1 $status
        assert_match "*Expected prefix '\\*', got: 'x'*AOF*is not valid*" $out
        aof_write $f [aof_resp {set a 1} MULTI {set b 2}]
        lassign [aof_check $f] status out
        assert_equal 1 $status
        assert_match "*Reached EOF before reading EXEC for MULTI*ok_up_to=[string length [aof_resp {set a 1}]],*" $out
    }

    test "valkey-check-aof: a corrupt RDB base is refused" {
        set f [tmp_path bad-base.rdb]
        set base [aof_read [file join $dir appendonlydir appendonly.aof.1.base.rdb]]
        aof_write $f [string range $base 0 end-3]
        lassign [aof_check $f] status out
        assert_equal 1 $status
        assert_match "*RDB preamble of*is not valid*" $out
    }

    test "valkey-check-aof refuses a manifest naming a file outside its directory, reading and truncating nothing" {
        set edir [tmp_path check-escape]
        file mkdir [file join $edir appendonlydir]
        set sentinel [file join $edir outside.txt]
        set keep "not an AOF: --fix would cut all of it\n"
        aof_write $sentinel $keep
        set emanifest [file join $edir appendonlydir appendonly.aof.manifest]
        foreach name [list ../outside.txt [file normalize $sentinel] sub/../../outside.txt ./../outside.txt] {
            foreach type {i b} {
                aof_write $emanifest "file $name seq 1 type $type\n"
                foreach fix {{} --fix} {
                    lassign [aof_check -stdin "y\n" {*}$fix $emanifest] status out
                    assert_equal 1 $status
                    assert_match "*at line 1*File can't be a path, just a filename*" $out
                    assert ![string match "*AOF analyzed*" $out] $out
                    assert ![string match "*truncated*" $out] $out
                    assert_equal $keep [aof_read $sentinel]
                }
            }
        }
    }

    test "valkey-check-aof refuses an empty or unterminated manifest as the server does" {
        set edir [tmp_path check-empty]
        file mkdir [file join $edir appendonlydir]
        set emanifest [file join $edir appendonlydir appendonly.aof.manifest]
        aof_write $emanifest ""
        lassign [aof_check $emanifest] status out
        assert_equal 1 $status
        assert_match "*Found an empty AOF manifest*" $out
        aof_write [file join $edir appendonlydir appendonly.aof.1.incr.aof] [aof_resp {set a 1}]
        aof_write $emanifest "file appendonly.aof.1.incr.aof seq 1 type i"
        lassign [aof_check $emanifest] status out
        assert_equal 1 $status
        assert_match "*at line 1*The AOF manifest file contains too long line*" $out
        aof_write $emanifest "file appendonly.aof.1.incr.aof seq 1 type i\n"
        lassign [aof_check $emanifest] status out
        assert_equal 0 $status
        assert_match "*All AOF files and manifest are valid*" $out
    }

    test "valkey-check-aof --truncate-to-timestamp cuts the last file before a later annotation" {
        set f [tmp_path ts.aof]
        aof_write $f "#TS:100\r\n[aof_resp {set a 1}]#TS:200\r\n[aof_resp {set b 2}]"
        lassign [aof_check --truncate-to-timestamp 150 $f] status out
        assert_equal 0 $status
        assert_match "*Successfully truncated AOF*to timestamp 150*" $out
        assert_equal "#TS:100\r\n[aof_resp {set a 1}]" [aof_read $f]
    }
}

source [file join $::vk::cfg(root) tests lib replication.tcl]

tags {"aof" "repl" "needs:debug" "external:skip"} {
    start_server {overrides {enable-debug-command yes}} {
        r set before-sync 1
        r debug populate 1000
        start_server {overrides {appendonly yes enable-debug-command yes}} {
            set rdir [srv dir]
            test "A replica with appendonly yes starts its AOF over from the primary's snapshot" {
                r replicaof [srv -1 host] [srv -1 port]
                wait_for_sync
                r -1 set after-sync 2
                wait_for_ofs_sync -1 0
                wait_aof_rewrite_done
                assert_equal 1 [aof_info aof_enabled]
                r -1 incr after-sync
                wait_for_ofs_sync -1 0
                set digest [r -1 debug digest]
                assert_equal $digest [r debug digest]
            }
        }
        start_server [list overrides [list dir $rdir appendonly yes enable-debug-command yes]] {
            test "... and restarted on its own it has the primary's dataset from its AOF" {
                assert_equal $digest [r debug digest]
                assert_equal 3 [r get after-sync]
            }
        }
    }
}

# aof-use-rdb-preamble no: bases made of commands (src/aof_rewrite.c).
tags {"aof" "needs:debug" "external:skip"} {
    start_server {overrides {appendonly yes aof-use-rdb-preamble no enable-debug-command yes}} {
        set dir [srv dir]
        test "aof-use-rdb-preamble no: the base is commands (.base.aof) and every type survives a rewrite" {
            assert_equal "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" \
                [aof_manifest $dir]
            rdb_fill_every_type r
            r function load {#!lua name=mylib
                server.register_function('myfunc', function() return 1 end)}
            r select 9
            r xadd empty-stream MAXLEN 0 5-1 a b
            r xadd pel-stream 1-1 f v
            r xgroup create pel-stream g 0
            r xgroup createconsumer pel-stream g idle
            r xreadgroup group g busy streams pel-stream >
            r set ttl-key v px 100000000
            r zadd zs -inf a 0.1 b 3 c inf d
            r select 0
            set digest [r debug digest]
            set dump [rdb_dataset_dump r]
            r bgrewriteaof
            wait_aof_rewrite_done
            set base [aof_read [file join $dir appendonlydir appendonly.aof.2.base.aof]]
            foreach word {FUNCTION XSETID ENTRIESADDED MAXDELETEDID ENTRIESREAD XCLAIM CREATECONSUMER PEXPIREAT RPUSH SADD ZADD HSET} {
                assert_match "*\r\n$word\r\n*" $base
            }
            r debug loadaof
            assert_equal $digest [r debug digest]
            assert_dumps_equal $dump [rdb_dataset_dump r]
            assert_equal 1 [r fcall myfunc 0]
        }
    }
    start_server [list overrides [list dir $dir appendonly yes enable-debug-command yes]] {
        test "... and a restart loads it" {
            assert_equal $digest [r debug digest]
        }
    }

    set vdir [tmp_path valkey-aof-for-redis]
    file mkdir $vdir
    set expected ""
    start_server [list overrides [list dir $vdir appendonly yes aof-use-rdb-preamble no]] {
        test "An AOF written here with aof-use-rdb-preamble no ..." {
            rdb_fill_every_type r
            r bgrewriteaof
            wait_aof_rewrite_done
            r select 9
            r incr after-rewrite
            set expected [rdb_dataset_dump r]
        }
    }
    tags {"rdma:skip:own-server"} {
        test "... loads in redis-server 7.0 with the same dataset" {
            if {![file executable $::redis_binary]} { skip "no $::redis_binary" }
            set h [redis_start $vdir --appendonly yes]
            set c [::vk::client_open 127.0.0.1 [lindex $h 1]]
            set got [rdb_dataset_dump $c]
            $c close
            redis_stop $h
            assert_dumps_equal $expected $got
        }
    }
}
