# RDB files move between this server and Redis 7.0: a dump.rdb written by
# /usr/bin/redis-server (RDB version 10) loads here with the same keys,
# values, TTLs and stream state, and a file written here loads there when
# it holds no type newer than RDB 10.
#
# redis-server is started by hand on TCP, so the file is tagged
# rdma:skip:own-server; without the binary every test skips with a reason.

source [file join $::vk::cfg(root) tests assets rdb-dataset.tcl]

source [file join $::vk::cfg(root) tests assets redis-server.tcl]

tags {"rdb" "needs:debug" "external:skip" "rdma:skip:own-server"} {
    set have_redis [file executable $::redis_binary]

    set rdir [tmp_path redis-written]
    file mkdir $rdir
    set expected ""
    test "redis-server 7.0 writes a dump.rdb holding every type" {
        if {!$have_redis} { skip "no $::redis_binary to write a reference file" }
        set h [redis_start $rdir]
        set c [::vk::client_open 127.0.0.1 [lindex $h 1]]
        rdb_fill_every_type $c
        set expected [rdb_dataset_dump $c]
        assert_equal OK [$c save]
        $c close
        redis_stop $h
        set fh [open [file join $rdir dump.rdb] rb]
        set magic [read $fh 9]
        close $fh
        assert_equal REDIS0010 $magic
    }

    start_server [list overrides [list dir $rdir enable-debug-command yes]] {
        test "... loads here with the same keys, values, TTLs and stream state" {
            if {$expected eq ""} { skip "no file from redis-server" }
            assert_dumps_equal $expected [rdb_dataset_dump r]
            assert_match "*DB loaded from disk*" [::vk::log_tail [srv stdout] 100]
        }

        test "... and survives a save and reload here" {
            if {$expected eq ""} { skip "no file from redis-server" }
            r save
            r debug reload
            assert_dumps_equal $expected [rdb_dataset_dump r]
        }
    }

    # The other way: our files are RDB 11 (as Valkey 7.2+ writes them);
    # Redis 7.0 reads up to 10. Without the two types RDB 11 added (sets
    # as listpacks, 20; streams as STREAM_LISTPACKS_3, 21) the rest of the
    # file is valid RDB 10, so with the version bytes changed to 10 (and
    # no checksum to recompute: rdbchecksum no writes zeros, which every
    # loader accepts) redis-server must load exactly our dataset.
    set vdir [tmp_path valkey-written]
    file mkdir $vdir
    set ours ""
    start_server [list overrides [list dir $vdir rdbchecksum no]] {
        test "A dump.rdb written here (without RDB 11-only types) ..." {
            rdb_fill_every_type r
            r del set:small stream:s stream:empty
            set ours [rdb_dataset_dump r]
            assert_equal OK [r save]
        }
    }

    test "... loads in redis-server 7.0 with the same keys, values and TTLs" {
        if {!$have_redis} { skip "no $::redis_binary to read the file" }
        set f [file join $vdir dump.rdb]
        set fh [open $f rb]
        set data [read $fh]
        close $fh
        # (REDIS0010 already when the server under test is Redis 7.0.)
        assert_match {REDIS001[01]} [string range $data 0 8]
        assert_equal [string repeat "\x00" 8] [string range $data end-7 end]
        set fh [open $f wb]
        puts -nonewline $fh "REDIS0010[string range $data 9 end]"
        close $fh
        set h [redis_start $vdir]
        set c [::vk::client_open 127.0.0.1 [lindex $h 1]]
        set theirs [rdb_dataset_dump $c]
        $c close
        redis_stop $h
        assert_dumps_equal $ours $theirs
    }
}
