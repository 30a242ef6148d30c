# Cluster mode: the cluster-* options the bus uses. cluster-port moves the
# bus; cluster-announce-hostname, -human-nodename, -port and -ip change
# what the other nodes see, at once (CONFIG SET); cluster-preferred-
# endpoint-type picks what CLUSTER SLOTS and SHARDS report; cluster-
# require-full-coverage no keeps a cluster with unassigned slots up.

tags {cluster rdma:skip:cluster} {

start_cluster 1 {tags {cluster}} {
    # The second node listens for the bus on a port of its own.
    set busport [::vk::alloc_port]
    start_server [list tags {cluster} overrides [concat [cluster_overrides] [list cluster-port $busport]] \
            log_allow {"*cluster-announce-* has characters the cluster bus cannot carry*"}] {
        set c0 [vk_client -1]
        set c1 [vk_client 0]
        set cs [list $c0 $c1]
        set port1 [srv 0 port]
        set id1 [$c1 cluster myid]

        test "cluster-port: the bus listens there, and CLUSTER MEET with that bus port joins the node" {
            assert_equal OK [$c0 cluster meet 127.0.0.1 $port1 $busport]
            assert_equal OK [$c0 cluster addslotsrange 0 8191]
            assert_equal OK [$c1 cluster addslotsrange 8192 16383]
            cluster_wait_ok $cs
            cluster_wait_agree $cs
            assert_equal "127.0.0.1:$port1@$busport" [dict get [lsearch -inline -index 1 [cluster_nodes_parsed $c0] $id1] addr]
        }

        test "cluster-announce-hostname: the other node shows it in CLUSTER NODES, SLOTS and SHARDS" {
            assert_equal OK [$c1 config set cluster-announce-hostname node-1.example]
            wait_for_condition 100 50 {[dict get [lsearch -inline -index 1 [cluster_nodes_parsed $c0] $id1] hostname] eq "node-1.example"} {
                fail "hostname not seen: [$c0 cluster nodes]"
            }
            set range [lindex [$c0 cluster slots] 1]
            assert_equal [list 127.0.0.1 $port1 $id1 {hostname node-1.example}] [lindex $range 2]
            assert_equal OK [$c0 config set cluster-preferred-endpoint-type hostname]
            set node [lindex [$c0 cluster slots] 1 2]
            assert_equal [list node-1.example $port1 $id1 {ip 127.0.0.1}] $node
            foreach shard [$c0 cluster shards] {
                set n [lindex [dict get $shard nodes] 0]
                if {[dict get $n id] eq $id1} { assert_equal node-1.example [dict get $n endpoint] }
            }
            assert_equal OK [$c0 config set cluster-preferred-endpoint-type unknown-endpoint]
            assert_equal [list {} $port1 $id1 {ip 127.0.0.1 hostname node-1.example}] [lindex [$c0 cluster slots] 1 2]
            $c0 config set cluster-preferred-endpoint-type ip
            # Cleared: gone from the other node's view too.
            assert_equal OK [$c1 config set cluster-announce-hostname ""]
            wait_for_condition 100 50 {[dict get [lsearch -inline -index 1 [cluster_nodes_parsed $c0] $id1] hostname] eq ""} {
                fail "hostname still seen: [$c0 cluster nodes]"
            }
        }

        tags {valkey-only} {
        test "cluster-announce-human-nodename reaches the other node's nodes.conf and logs" {
                assert_equal OK [$c1 config set cluster-announce-human-nodename shard-b.1]
                wait_for_condition 100 50 {
                    [string match "*$id1 *nodename=shard-b.1,*" [cluster_file_text [file join [srv -1 dir] nodes.conf]]]
                } {
                    $c0 cluster saveconfig
                    fail "human node name not saved: [cluster_file_text [file join [srv -1 dir] nodes.conf]]"
                }
                # Valkey 8 takes a name with a space; the bus cannot carry it: not announced, said so.
                assert_equal OK [$c1 config set cluster-announce-human-nodename "node 1"]
                assert_match "*cluster-announce-human-nodename 'node 1' has characters the cluster bus cannot carry*" \
                    [cluster_file_text [srv 0 stdout]]
                assert_equal OK [$c1 cluster saveconfig]
                assert {![string match "*nodename=*" [cluster_file_text [file join [srv 0 dir] nodes.conf]]]}
                assert_equal OK [$c1 config set cluster-announce-human-nodename ""]
            }

            tags {valkey-only} {
        test "cluster-announce-port and cluster-announce-ip: the other node takes the announced address" {
                    # A TLS client is shown the TLS port: with --tls that is the one announced.
                    set opt [expr {$::vk::transport eq "tls" ? "cluster-announce-tls-port" : "cluster-announce-port"}]
                    assert_equal OK [$c1 config set $opt 7777]
                    wait_for_condition 100 50 {
                        [dict get [lsearch -inline -index 1 [cluster_nodes_parsed $c0] $id1] addr] eq "127.0.0.1:7777@$busport"
                    } {
                        fail "announced port not seen: [$c0 cluster nodes]"
                    }
                    assert_equal OK [$c1 config set $opt 0]
                    # An announced IP that is no address is not announced (and said so).
                    assert_equal OK [$c1 config set cluster-announce-ip "not an ip"]
                    assert_match "*cluster-announce-ip 'not an ip' has characters the cluster bus cannot carry*" \
                        [cluster_file_text [srv 0 stdout]]
                    assert_equal OK [$c1 config set cluster-announce-ip 127.0.0.1]
                    assert_equal OK [$c1 config set cluster-announce-ip ""]
                    cluster_wait_agree $cs
                    assert_equal "127.0.0.1:$port1@$busport" [dict get [lsearch -inline -index 1 [cluster_nodes_parsed $c0] $id1] addr]
                }

                test "cluster-require-full-coverage no: unassigned slots leave the cluster up" {
                    # DELSLOTS changes the local view only (node 0 still sees the
                    # slot as node 1's, as in Valkey): node 1's cluster is down.
                    assert_equal OK [$c1 cluster delslots 16383]
                    cluster_wait_state [list $c1] fail
                    assert_equal 16384 [cluster_info_field $c0 cluster_slots_assigned]
                    assert_equal OK [$c1 config set cluster-require-full-coverage no]
                    cluster_wait_ok [list $c1]
                    assert_equal 16383 [cluster_info_field $c1 cluster_slots_assigned]
                    $c1 config set cluster-require-full-coverage yes
                    assert_equal OK [$c1 cluster addslots 16383]
                    cluster_wait_ok $cs
                }
            }
        }
    }
}

}
