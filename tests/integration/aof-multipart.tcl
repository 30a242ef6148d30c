# The life of a multi-part AOF across rewrites (src/aof.c), as Valkey 8
# runs it: the manifest's history (newest first, kept while
# aof-disable-auto-gc is yes, removed at once when it is set back to no
# and when DEBUG LOADAOF reads the manifest), sequence numbers carried on
# from the manifest on disk after a reload, BGREWRITEAOF and DEBUG LOADAOF
# with appendonly no, appendonly yes while a BGSAVE runs or when its
# first rewrite fails (the temp incr file removed), the limit on
# automatic rewrites after three failures in a row, and a change of
# aof-use-rdb-preamble while a rewrite runs.
#
# Rewrites are made to last with rdb-key-save-delay (microseconds per
# key in the child) and made to fail by killing the child, whose pid the
# server logs.

source [file join $::vk::cfg(root) tests assets aof-helpers.tcl]

proc aof_file_exists {dir name} {
    return [file exists [file join $dir appendonlydir $name]]
}

# Asserts the manifest holds these lines (a list), in this order.
proc aof_assert_manifest {dir lines} {
    assert_equal "[join $lines "\n"]\n" [aof_manifest $dir]
}

# Kills the running rewrite child with SIGKILL and waits until the server
# has counted the failure: INFO answers from the event loop, so by then
# everything the end of a rewrite does has been done.
proc aof_kill_rewrite {} {
    assert_equal 1 [aof_info aof_rewrite_in_progress]
    set failures [aof_info aof_rewrites_consecutive_failures]
    exec kill -9 [aof_child_pid]
    wait_for_condition 500 20 {[aof_info aof_rewrites_consecutive_failures] > $failures} {
        fail "the killed rewrite was not counted as failed"
    }
}

tags {"aof" "external:skip" "needs:debug"} {
    start_server {overrides {appendonly yes enable-debug-command yes}} {
        set dir [srv dir]

        test "History is listed newest first and kept while aof-disable-auto-gc is yes" {
            r set k1 v1
            r config set aof-disable-auto-gc yes
            r bgrewriteaof
            wait_aof_rewrite_done
            r set k2 v2
            r bgrewriteaof
            wait_aof_rewrite_done
            # Each rewrite puts its old base, then the incr files it
            # covers, in front of the history already there.
            aof_assert_manifest $dir {
                {file appendonly.aof.3.base.rdb seq 3 type b}
                {file appendonly.aof.2.incr.aof seq 2 type h}
                {file appendonly.aof.2.base.rdb seq 2 type h}
                {file appendonly.aof.1.incr.aof seq 1 type h}
                {file appendonly.aof.1.base.rdb seq 1 type h}
                {file appendonly.aof.3.incr.aof seq 3 type i}
            }
            foreach f {appendonly.aof.1.base.rdb appendonly.aof.2.base.rdb appendonly.aof.1.incr.aof
                       appendonly.aof.2.incr.aof} {
                assert_equal 1 [aof_file_exists $dir $f]
            }
        }

        test "Setting aof-disable-auto-gc back to no removes the history at once" {
            r config set aof-disable-auto-gc no
            # The manifest is rewritten by CONFIG SET itself, not later.
            aof_assert_manifest $dir {
                {file appendonly.aof.3.base.rdb seq 3 type b}
                {file appendonly.aof.3.incr.aof seq 3 type i}
            }
            wait_for_condition 100 20 {[llength [aof_dir_files $dir]] == 3} {
                fail "history files left: [aof_dir_files $dir]"
            }
            assert_equal {appendonly.aof.3.base.rdb appendonly.aof.3.incr.aof appendonly.aof.manifest} \
                [aof_dir_files $dir]
            assert_match "*Removing the history file appendonly.aof.1.base.rdb in the background*" [aof_log]
        }

        test "DEBUG LOADAOF reads the manifest on disk, removes its history, and the next rewrite numbers on from it" {
            # A history entry added on disk behind the server's back.
            aof_write [file join $dir appendonlydir appendonly.aof.old.aof] [aof_resp {set junk 1}]
            aof_write [file join $dir appendonlydir appendonly.aof.manifest] \
                "file appendonly.aof.old.aof seq 1 type h\n" a
            set digest [r debug digest]
            assert_equal OK [r debug loadaof]
            assert_equal $digest [r debug digest]
            aof_assert_manifest $dir {
                {file appendonly.aof.3.base.rdb seq 3 type b}
                {file appendonly.aof.3.incr.aof seq 3 type i}
            }
            assert_equal 0 [aof_file_exists $dir appendonly.aof.old.aof]
            r bgrewriteaof
            wait_aof_rewrite_done
            aof_assert_manifest $dir {
                {file appendonly.aof.4.base.rdb seq 4 type b}
                {file appendonly.aof.4.incr.aof seq 4 type i}
            }
        }
    }

    start_server {overrides {appendonly yes enable-debug-command yes}} {
        set dir [srv dir]
        test "BGREWRITEAOF with appendonly no: a base alone, which DEBUG LOADAOF loads" {
            r set k1 v1
            r bgrewriteaof
            wait_aof_rewrite_done
            r config set appendonly no
            r set k2 v2
            assert_equal "Background append only file rewriting started" [r bgrewriteaof]
            wait_aof_rewrite_done
            aof_assert_manifest $dir {{file appendonly.aof.3.base.rdb seq 3 type b}}
            wait_for_condition 100 20 {[aof_dir_files $dir] eq {appendonly.aof.3.base.rdb appendonly.aof.manifest}} {
                fail "old files left: [aof_dir_files $dir]"
            }
            assert_equal 0 [aof_info aof_enabled]
            set digest [r debug digest]
            assert_equal OK [r debug loadaof]
            assert_equal $digest [r debug digest]
            assert_equal {v1 v2} [r mget k1 k2]
        }

        test "... then appendonly yes numbers the incr file on from the manifest DEBUG LOADAOF read: 1, none listed" {
            r config set appendonly yes
            wait_aof_rewrite_done
            aof_assert_manifest $dir {
                {file appendonly.aof.4.base.rdb seq 4 type b}
                {file appendonly.aof.1.incr.aof seq 1 type i}
            }
            r set k3 v3
            set digest [r debug digest]
            r debug loadaof
            assert_equal $digest [r debug digest]
        }
    }

    start_server {overrides {appendonly yes enable-debug-command yes}} {
        set dir [srv dir]
        test "appendonly yes during a BGSAVE: the rewrite waits for it and nothing is collected meanwhile" {
            r set k0 v0
            r config set appendonly no
            r config set rdb-key-save-delay 10000000
            r set k1 v1
            r bgsave
            assert_equal OK [r config set appendonly yes]
            set info [r info persistence]
            assert_match "*aof_enabled:1*" $info
            assert_match "*aof_rewrite_scheduled:1*" $info
            assert_match "*aof_rewrite_in_progress:0*" $info
            assert_match "*AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.*" [aof_log]
            # No incr file opened, no temp incr file: the manifest is the
            # one of before, and so is what DEBUG LOADAOF loads.
            aof_assert_manifest $dir {
                {file appendonly.aof.1.base.rdb seq 1 type b}
                {file appendonly.aof.1.incr.aof seq 1 type i}
            }
            assert_equal 0 [aof_file_exists $dir temp-appendonly.aof.incr]
            r set k2 v2
            assert_equal OK [r debug loadaof]
            assert_equal {v0 0 0} [list [r get k0] [r exists k1] [r exists k2]]
            assert_equal 1 [aof_info rdb_bgsave_in_progress]
            r config set rdb-key-save-delay 0
            r bgsave cancel
            wait_for_condition 500 20 {[aof_rewrite_idle 0] && [aof_file_exists $dir appendonly.aof.2.base.rdb]} {
                fail "the scheduled rewrite did not run"
            }
            aof_assert_manifest $dir {
                {file appendonly.aof.2.base.rdb seq 2 type b}
                {file appendonly.aof.2.incr.aof seq 2 type i}
            }
            r set k3 v3
            r debug loadaof
            assert_equal {v0 v3} [r mget k0 k3]
        }
    }

    start_server {overrides {appendonly yes enable-debug-command yes}
                  log_allow {"*terminated by signal 9*" "*triggered the limit*"}} {
        set dir [srv dir]
        test "Three failed rewrites in a row: each left an incr file, INFO counts them" {
            r config set rdb-key-save-delay 10000000
            r config set auto-aof-rewrite-percentage 1
            r config set auto-aof-rewrite-min-size 1kb
            r set k v ;# one key: the child sleeps in it
            for {set j 0} {$j < 3} {incr j} {
                r bgrewriteaof
                aof_kill_rewrite
            }
            assert_equal 3 [aof_info aof_rewrites_consecutive_failures]
            assert_equal err [aof_info aof_last_bgrewrite_status]
            aof_assert_manifest $dir {
                {file appendonly.aof.1.base.rdb seq 1 type b}
                {file appendonly.aof.1.incr.aof seq 1 type i}
                {file appendonly.aof.2.incr.aof seq 2 type i}
                {file appendonly.aof.3.incr.aof seq 3 type i}
                {file appendonly.aof.4.incr.aof seq 4 type i}
            }
        }

        test "... then an automatic rewrite is held back and logged as limited, not started" {
            r set x [string repeat x 1024] ;# the AOF grows past auto-aof-rewrite-min-size
            wait_for_condition 100 50 {[aof_log_count "*triggered the limit*"] == 1} {
                fail "the rewrite limit was not logged"
            }
            assert_match "*Background AOF rewrite has repeatedly failed and triggered the limit, will retry in 1 minutes*" \
                [aof_log]
            assert_equal 0 [aof_info aof_rewrite_in_progress]
            assert_equal 3 [aof_info aof_rewrites_consecutive_failures]
            assert_match "*4.incr.aof seq 4 type i\n" [aof_manifest $dir] ;# no new incr file
        }

        test "... BGREWRITEAOF scheduled behind a BGSAVE resets the count and runs despite the limit" {
            r config set auto-aof-rewrite-percentage 0
            r bgsave
            assert_equal "Background append only file rewriting scheduled" [r bgrewriteaof]
            assert_equal 0 [aof_info aof_rewrites_consecutive_failures]
            r config set rdb-key-save-delay 0
            r bgsave cancel
            wait_for_condition 500 20 {[aof_rewrite_idle 0] && [aof_info aof_last_bgrewrite_status] eq "ok"} {
                fail "the scheduled rewrite did not run"
            }
            aof_assert_manifest $dir {
                {file appendonly.aof.2.base.rdb seq 2 type b}
                {file appendonly.aof.5.incr.aof seq 5 type i}
            }
            set digest [r debug digest]
            r debug loadaof
            assert_equal $digest [r debug digest]
        }
    }

    start_server {overrides {appendonly yes enable-debug-command yes aof-use-rdb-preamble yes}} {
        set dir [srv dir]
        test "aof-use-rdb-preamble changed while a rewrite runs: the base has the format and name it started with" {
            r debug populate 4
            r config set rdb-key-save-delay 200000 ;# the child takes 0.8 s
            r bgrewriteaof
            r config set aof-use-rdb-preamble no
            assert_equal 1 [aof_info aof_rewrite_in_progress] ;# the change came while it ran
            wait_aof_rewrite_done
            assert_match "file appendonly.aof.2.base.rdb seq 2 type b\n*" [aof_manifest $dir]
            set base [aof_read [file join $dir appendonlydir appendonly.aof.2.base.rdb]]
            assert_equal REDIS [string range $base 0 4]
        }

        test "... and the other way: a base written as commands keeps its .aof name" {
            r bgrewriteaof
            r config set aof-use-rdb-preamble yes
            assert_equal 1 [aof_info aof_rewrite_in_progress]
            wait_aof_rewrite_done
            assert_match "file appendonly.aof.3.base.aof seq 3 type b\n*" [aof_manifest $dir]
            set base [aof_read [file join $dir appendonlydir appendonly.aof.3.base.aof]]
            assert_equal "*" [string index $base 0]
            r config set rdb-key-save-delay 0
            set digest [r debug digest]
            r debug loadaof
            assert_equal $digest [r debug digest]
        }
    }

    start_server {overrides {appendonly no save "" enable-debug-command yes}
                  log_allow {"*terminated by signal 9*"}} {
        set dir [srv dir]
        test "appendonly yes whose first rewrite fails: the temp incr file is removed and a new rewrite starts" {
            r debug populate 5
            r config set rdb-key-save-delay 10000000
            r config set appendonly yes
            assert_equal 1 [aof_file_exists $dir temp-appendonly.aof.incr]
            r set during 1 ;# collected for the rewrite that is about to fail
            aof_kill_rewrite
            assert_equal 1 [aof_log_count "*Removing the temp incr aof file temp-appendonly.aof.incr in the background*"]
            assert_equal 0 [aof_file_exists $dir appendonly.aof.manifest]
            # Started over at once (one failure is below the limit), with
            # a new temp incr file.
            wait_for_condition 100 20 {[aof_info aof_rewrite_in_progress] == 1} {
                fail "no new rewrite after the failed one"
            }
            assert_equal 1 [aof_file_exists $dir temp-appendonly.aof.incr]
            r set after 2
            r config set rdb-key-save-delay 0
            aof_kill_rewrite ;# its child still has the delay: one more failure
            assert_equal 2 [aof_log_count "*Removing the temp incr aof file*"]
            wait_for_condition 500 20 {[aof_info aof_last_bgrewrite_status] eq "ok" && [aof_rewrite_idle 0]} {
                fail "the third rewrite did not succeed"
            }
            assert_equal 2 [aof_log_count "*Removing the temp incr aof file*"]
            assert_equal "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" \
                [aof_manifest $dir]
            assert_match "*Successfully renamed the temporary AOF incr file temp-appendonly.aof.incr into appendonly.aof.1.incr.aof*" [aof_log]
            r set last 3
            set digest [r debug digest]
            r debug loadaof
            assert_equal $digest [r debug digest]
            assert_equal {1 2 3} [r mget during after last]
        }
    }
}
