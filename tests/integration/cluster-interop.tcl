# Cluster mode: a mixed cluster of our nodes and Debian's redis-server 7.0
# (whose cluster bus is the one Valkey 8 speaks), formed both ways: one of
# ours meets the redis-server, the redis-server meets the other one of
# ours. Everyone agrees on CLUSTER NODES and CLUSTER SLOTS, each side
# redirects keys to the other (valkey-cli -c and redis-cli -c reach them
# all), pub/sub crosses the bus both ways, and failure detection works
# across implementations.
# redis-server listens on TCP only: skipped over --tls and --rdma.

tags {cluster own-server rdma:skip:own-server} {

# A key (interop:<n>) whose slot is in lo..hi, as node c hashes it.
proc interop_key_on {c lo hi} {
    for {set i 0} {$i < 100000} {incr i} {
        set slot [$c cluster keyslot "interop:$i"]
        if {$slot >= $lo && $slot <= $hi} { return "interop:$i" }
    }
    fail "no key for slots $lo-$hi"
}

start_cluster 2 {tags {cluster} log_allow {"*Cluster state changed: fail*"}} {
    set ours [cluster_clients]
    lassign $ours c0 c1
    set ports [cluster_ports]
    set rdir [tmp_path redis-node]
    set redis [redis_cluster_start $rdir]
    try {
        set rport [lindex $redis 1]
        set rc [::vk::client_open 127.0.0.1 $rport]
        set all [list $c0 $c1 $rc]

        test "Ours meets redis-server 7.0, redis-server meets ours: one cluster of three, ok everywhere" {
            assert_equal OK [$c0 cluster meet 127.0.0.1 $rport]
            assert_equal OK [$rc cluster meet 127.0.0.1 [lindex $ports 1]]
            assert_equal OK [$c0 cluster addslotsrange 0 5460]
            assert_equal OK [$c1 cluster addslotsrange 5461 10922]
            assert_equal OK [$rc cluster addslotsrange 10923 16383]
            cluster_wait_ok $all
            cluster_wait_agree $all
            foreach c $all { assert_equal 3 [cluster_info_field $c cluster_size] }
        }

        test "They agree on CLUSTER NODES and CLUSTER SLOTS" {
            set view [cluster_view $rc]
            assert_equal $view [cluster_view $c0]
            assert_equal $view [cluster_view $c1]
            assert_equal [$rc cluster slots] [$c0 cluster slots]
            assert_equal [$rc cluster slots] [$c1 cluster slots]
            # Each knows the others' addresses as they announce them.
            set rid [$rc cluster myid]
            assert_equal "127.0.0.1:$rport@[expr {$rport + 10000}]" \
                [dict get [lsearch -inline -index 1 [cluster_nodes_parsed $c0] $rid] addr]
            # Redis counts our messages as we count its: pings both ways.
            assert {[cluster_info_field $rc cluster_stats_messages_received] > 0}
            assert {[cluster_info_field $c0 cluster_stats_messages_ping_received] > 0}
        }

        test "Keys across the mixed cluster: each side redirects to the other, valkey-cli -c and redis-cli -c reach every key" {
            set k0 [interop_key_on $c0 0 5460]
            set kr [interop_key_on $c0 10923 16383]
            assert_error "MOVED [$c0 cluster keyslot $kr] 127.0.0.1:$rport" { $c0 set $kr x }
            assert_error "MOVED [$c0 cluster keyslot $k0] 127.0.0.1:[lindex $ports 0]" { $rc set $k0 x }
            set vcli [file join [file dirname $::vk::cfg(binary)] valkey-cli]
            if {![file executable $vcli]} { set vcli [cli_binary] }
            set rcli /usr/bin/redis-cli
            set nodeports [list {*}$ports $rport]
            set want {}
            for {set i 0} {$i < 60} {incr i} {
                set cli [expr {$i % 2 ? $rcli : $vcli}]
                set port [lindex $nodeports [expr {$i % 3}]]
                assert_equal OK [exec $cli -c -p $port set "mixed:$i" "v$i"]
                lappend want "mixed:$i"
            }
            for {set i 0} {$i < 60} {incr i} {
                set cli [expr {$i % 2 ? $vcli : $rcli}]
                set port [lindex $nodeports [expr {($i + 1) % 3}]]
                assert_equal "v$i" [exec $cli -c -p $port get "mixed:$i"]
            }
            # Each node holds the keys of its own slots, and no key is lost
            # or written twice.
            set have {}
            foreach c $all range {{0 5460} {5461 10922} {10923 16383}} {
                foreach k [$c keys mixed:*] {
                    set slot [$c cluster keyslot $k]
                    assert {$slot >= [lindex $range 0] && $slot <= [lindex $range 1]}
                    lappend have $k
                }
            }
            assert_equal [lsort $want] [lsort $have]
            foreach c $all { $c flushall }
        }

        test "PUBLISH crosses the bus both ways between our nodes and redis-server" {
            set sub [vk_deferring_client [cluster_level 1]]
            $sub subscribe mixed
            assert_equal {subscribe mixed 1} [$sub read]
            set rsub [::vk::client_open 127.0.0.1 $rport 1]
            $rsub subscribe mixed
            assert_equal {subscribe mixed 1} [$rsub read]
            $rc publish mixed "from redis"
            assert_equal {message mixed {from redis}} [$sub read]
            assert_equal {message mixed {from redis}} [$rsub read]
            $c0 publish mixed "from ours"
            assert_equal {message mixed {from ours}} [$sub read]
            assert_equal {message mixed {from ours}} [$rsub read]
            $sub close
            $rsub close
        }

        test "redis-server stopped past the node timeout: our nodes mark it FAIL; back, it is cleared" {
            set rid [$rc cluster myid]
            exec kill -STOP [lindex $redis 0]
            foreach c $ours {
                wait_for_condition 100 50 {"fail" in [cluster_flags_of $c $rid]} {
                    fail "no FAIL: [$c cluster nodes]"
                }
            }
            exec kill -CONT [lindex $redis 0]
            cluster_wait_ok $all
            cluster_wait_agree $all
        }

        test "One of ours stopped: redis-server and our other node mark it FAIL" {
            set id1 [$c1 cluster myid]
            set pid1 [srv [cluster_level 1] pid]
            exec kill -STOP $pid1
            foreach c [list $c0 $rc] {
                wait_for_condition 100 50 {"fail" in [cluster_flags_of $c $id1]} {
                    fail "no FAIL: [$c cluster nodes]"
                }
            }
            exec kill -CONT $pid1
            cluster_wait_ok $all
            cluster_wait_agree $all
        }

        test "A redis-server 7.0 replica of one of ours: everyone knows its role, SLOTS and SHARDS list it with its primary" {
            set rep [redis_cluster_start [tmp_path redis-replica]]
            try {
                set repc [::vk::client_open 127.0.0.1 [lindex $rep 1]]
                assert_equal OK [$repc cluster meet 127.0.0.1 [lindex $ports 0]]
                set id0 [$c0 cluster myid]
                wait_for_condition 100 50 {[cluster_flags_of $repc $id0] eq "master"} {
                    fail "the replica-to-be does not know our node: [$repc cluster nodes]"
                }
                # (Its replication itself fails: redis 7.0 reads no RDB 11. The bus
                # does not care.)
                assert_equal OK [$repc cluster replicate $id0]
                set four [concat $all [list $repc]]
                cluster_wait_agree $four
                set repid [$repc cluster myid]
                foreach c $four {
                    set n [lsearch -inline -index 1 [cluster_nodes_parsed $c] $repid]
                    assert_equal $id0 [dict get $n primary]
                    assert {"slave" in [dict get $n flags]}
                }
                # SHARDS lists it with its primary; SLOTS only once it has synced
                # (announced a replication offset), as Valkey lists replicas.
                foreach shard [$c1 cluster shards] {
                    set ids {}
                    foreach n [dict get $shard nodes] { lappend ids [dict get $n id] }
                    if {$id0 ni $ids} continue
                    assert_equal [list $id0 $repid] $ids
                    set health [dict get [lindex [dict get $shard nodes] 1] health]
                    set offset [dict get [lindex [dict get $shard nodes] 1] replication-offset]
                }
                set range [lindex [$c1 cluster slots] 0]
                assert_equal [list 0 5460 $id0] [list {*}[lrange $range 0 1] [lindex $range 2 2]]
                if {$offset == 0} {
                    assert_equal {loading 3} [list $health [llength $range]]
                } else {
                    assert_equal $repid [lindex $range 3 2]
                }
                if {[string match "*valkey*" [$c0 info server]]} {
                    # Ours: redis 7.0 cannot load our RDB 11, so it never syncs.
                    assert_equal 0 $offset
                }
                $repc close
            } finally {
                redis_cluster_stop $rep
            }
        }
    } finally {
        catch {$rc close}
        redis_cluster_stop $redis
    }
}

}
