# Cluster mode: three of our nodes form a cluster over the cluster bus
# (CLUSTER MEET, ADDSLOTSRANGE) and agree on it; the CLUSTER subcommands
# that need no keyspace by slot answer as Valkey 8's do; PUBLISH reaches
# every node's subscribers through the bus; CLUSTER FORGET spreads with the
# forgotten-node extension; CLUSTER RESET HARD makes a new node. Runs over
# TCP and, with ./runtest --tls, with every link (bus included) on TLS.

tags {cluster rdma:skip:cluster} {

start_cluster 3 {tags {cluster}} {
    set cs [cluster_clients]
    lassign $cs c0 c1 c2
    set ports [cluster_ports]

    tags {valkey-only} {
        test "cluster-enabled yes starts a cluster node: INFO cluster, a node id, a fresh nodes.conf" {
            assert_match "*cluster_enabled:1*" [r info cluster]
            set id [$c0 cluster myid]
            assert_match {[0-9a-f]*} $id
            assert_equal 40 [string length $id]
            assert_equal 40 [string length [$c0 cluster myshardid]]
            assert_equal 1 [cluster_info_field $c0 cluster_known_nodes]
            assert_equal fail [cluster_info_field $c0 cluster_state]
            set conf [cluster_file_text [file join [srv [cluster_level 0] dir] nodes.conf]]
            assert_match "$id *myself,master - 0 0 0 connected\nvars currentEpoch 0 lastVoteEpoch 0\n" $conf
        }
    }

    test "Three nodes formed with CLUSTER MEET and ADDSLOTSRANGE reach cluster_state:ok on every node" {
        cluster_meet_all $cs $ports
        cluster_share_slots $cs
        cluster_wait_ok $cs
        cluster_wait_agree $cs
        foreach c $cs {
            assert_equal 3 [cluster_info_field $c cluster_known_nodes]
            assert_equal 3 [cluster_info_field $c cluster_size]
            assert_equal 16384 [cluster_info_field $c cluster_slots_ok]
            assert_equal 0 [cluster_info_field $c cluster_slots_pfail]
        }
    }

    test "The nodes agree on CLUSTER NODES and CLUSTER SLOTS, with distinct config epochs" {
        set view [cluster_view $c0]
        set epochs {}
        foreach line $view {
            lassign $line id addr flags primary epoch slots
            assert_equal master $flags
            assert_equal - $primary
            lappend epochs $epoch
        }
        # The three started at epoch 0: the collision rule gave each its own.
        assert_equal 3 [llength [lsort -unique $epochs]]
        assert_equal [$c0 cluster slots] [$c1 cluster slots]
        assert_equal [$c0 cluster slots] [$c2 cluster slots]
        set slots [$c0 cluster slots]
        assert_equal 3 [llength $slots]
        set ids [list [$c0 cluster myid] [$c1 cluster myid] [$c2 cluster myid]]
        set want {{0 5460} {5461 10922} {10923 16383}}
        foreach range $slots expect $want id $ids port $ports {
            assert_equal $expect [lrange $range 0 1]
            lassign [lindex $range 2] ip p nodeid meta
            assert_equal [list 127.0.0.1 $port $id] [list $ip $p $nodeid]
            assert_equal {} $meta
        }
        # CLUSTER NODES reports each node's own address and bus port.
        foreach n [cluster_nodes_parsed $c1] {
            set i [lsearch $ids [dict get $n id]]
            assert_equal "127.0.0.1:[lindex $ports $i]@[expr {[lindex $ports $i] + 10000}]" [dict get $n addr]
        }
    }

    test "CLUSTER SHARDS: one shard per primary, its slots and its node" {
        set shards [$c0 cluster shards]
        assert_equal 3 [llength $shards]
        set seen {}
        foreach shard $shards {
            set node [lindex [dict get $shard nodes] 0]
            assert_equal 1 [llength [dict get $shard nodes]]
            assert_equal {master 0 online 127.0.0.1 127.0.0.1} \
                [list [dict get $node role] [dict get $node replication-offset] [dict get $node health] \
                     [dict get $node ip] [dict get $node endpoint]]
            # Over --tls the client port is TLS's and the bus too (tls-cluster yes).
            set tls [expr {$::vk::transport eq "tls"}]
            assert_equal [list $tls [expr {!$tls}]] [list [dict exists $node tls-port] [dict exists $node port]]
            lappend seen [list [dict get $node id] [dict get $shard slots]]
        }
        set ids [list [$c0 cluster myid] [$c1 cluster myid] [$c2 cluster myid]]
        assert_equal [lsort [list [list [lindex $ids 0] {0 5460}] [list [lindex $ids 1] {5461 10922}] \
                                  [list [lindex $ids 2] {10923 16383}]]] [lsort $seen]
    }

    test "CLUSTER LINKS: a link to and a link from every other node" {
        set links [$c0 cluster links]
        assert_equal 4 [llength $links]
        set dirs {}
        foreach l $links {
            lappend dirs [dict get $l direction]
            assert_match {*r*} [dict get $l events]
            assert_equal 40 [string length [dict get $l node]]
        }
        assert_equal {from from to to} [lsort $dirs]
        assert_match "*cluster_connections:4*" [$c0 info clients]
        assert_equal 1 [expr {[string match "*mem_cluster_links:0\r*" [$c0 info memory]] == 0}]
    }

    test "CLUSTER KEYSLOT, MYID, COUNT-FAILURE-REPORTS and BUMPEPOCH" {
        assert_equal 12182 [$c0 cluster keyslot foo]
        assert_equal [$c0 cluster keyslot "{user1000}.following"] [$c0 cluster keyslot "{user1000}.followers"]
        assert_equal 0 [$c0 cluster count-failure-reports [$c1 cluster myid]]
        assert_error "ERR Unknown node nosuchnode" {$c0 cluster count-failure-reports nosuchnode}
        # The node with the greatest epoch keeps it; another one takes a new one.
        set max 0
        foreach c $cs { set e [cluster_info_field $c cluster_my_epoch]; if {$e > $max} { set max $e } }
        foreach c $cs {
            if {[cluster_info_field $c cluster_my_epoch] == $max} {
                assert_equal "STILL $max" [$c cluster bumpepoch]
            } else {
                set other $c
            }
        }
        assert_equal "BUMPED [expr {$max + 1}]" [$other cluster bumpepoch]
        wait_for_condition 100 50 {[cluster_info_field $c0 cluster_current_epoch] == $max + 1} {
            fail "the new epoch did not spread"
        }
        cluster_wait_agree $cs
    }

    test "ADDSLOTS, DELSLOTS and their ranges refuse bad slots as Valkey does, changing nothing" {
        assert_error "ERR Slot 0 is already busy" {$c1 cluster addslots 0}
        assert_error "ERR Invalid or out of range slot" {$c0 cluster addslots 16384}
        assert_error "ERR Invalid or out of range slot" {$c0 cluster addslots -1}
        assert_error "ERR Invalid or out of range slot" {$c0 cluster delslots abc}
        assert_error "ERR start slot number 10 is greater than end slot number 5" {$c0 cluster delslotsrange 10 5}
        assert_error "ERR wrong number of arguments for 'cluster|addslotsrange' command" \
            {$c0 cluster addslotsrange 1 2 3}
        assert_error "ERR Slot 7 specified multiple times" {$c0 cluster delslots 7 7}
        assert_error "ERR Slot 3 specified multiple times" {$c0 cluster delslotsrange 0 5 3 4}
        assert_equal OK [$c0 cluster delslots 100 101]
        assert_error "ERR Slot 100 is already unassigned" {$c0 cluster delslots 100}
        assert_equal 16382 [cluster_info_field $c0 cluster_slots_assigned]
        assert_equal OK [$c0 cluster addslotsrange 100 101]
        assert_equal 16384 [cluster_info_field $c0 cluster_slots_assigned]
        cluster_wait_agree $cs
    }

    # Node c claims slot: DELSLOTS and ADDSLOTS in one transaction, so that
    # no PONG of the slot's owner can give it back to that owner between the
    # two (on a loaded machine one did: "Slot 0 is already busy").
    proc cluster_take_slot {c slot} {
        $c multi
        $c cluster delslots $slot
        $c cluster addslots $slot
        assert_equal {OK OK} [$c exec]
    }

    test "Slot ownership goes by config epoch: a stale claim is corrected (UPDATE), a newer one wins everywhere" {
        # The nodes with the smallest and the greatest config epoch.
        set byepoch {}
        foreach c $cs { lappend byepoch [list [cluster_info_field $c cluster_my_epoch] $c] }
        set byepoch [lsort -integer -index 0 $byepoch]
        set low [lindex $byepoch 0 1]
        set high [lindex $byepoch end 1]
        set lowid [$low cluster myid]
        set highid [$high cluster myid]
        set highslot [lindex [split [lindex [dict get [lsearch -inline -index 1 [cluster_nodes_parsed $high] $highid] slots] 0] -] 0]
        set lowslot [lindex [split [lindex [dict get [lsearch -inline -index 1 [cluster_nodes_parsed $low] $lowid] slots] 0] -] 0]
        set updates [cluster_info_field $high cluster_stats_messages_update_sent]
        if {$updates eq ""} { set updates 0 }
        # The low-epoch node takes a slot of the high-epoch one: it loses it again.
        cluster_take_slot $low $highslot
        wait_for_condition 100 50 {[cluster_info_field $high cluster_stats_messages_update_sent] ne "" &&
                                   [cluster_info_field $high cluster_stats_messages_update_sent] > $updates} {
            fail "no UPDATE sent: [$high cluster info]"
        }
        cluster_wait_agree $cs
        assert_equal $highid [cluster_slot_owner $low $highslot]
        # The high-epoch node takes a slot of the low-epoch one: everyone agrees it is its own now.
        cluster_take_slot $high $lowslot
        wait_for_condition 100 50 {[cluster_slot_owner $low $lowslot] eq $highid} {
            fail "the newer claim did not win: [$low cluster nodes]"
        }
        cluster_wait_agree $cs
        # Given back the same way: the low-epoch node bumps its epoch first.
        assert_match "BUMPED *" [$low cluster bumpepoch]
        cluster_take_slot $low $lowslot
        wait_for_condition 100 50 {[cluster_slot_owner $high $lowslot] eq $lowid} {
            fail "the slot did not come back: [$high cluster nodes]"
        }
        cluster_wait_agree $cs
        cluster_wait_ok $cs
    }

    tags {valkey-only} {
        test "MEET, FORGET, SET-CONFIG-EPOCH, RESET and FLUSHSLOTS errors" {
            assert_error "ERR Invalid base port specified: x" {$c0 cluster meet 127.0.0.1 x}
            assert_error "ERR Invalid bus port specified: y" {$c0 cluster meet 127.0.0.1 7000 y}
            assert_error "ERR Invalid node address specified: nosuchhost:7000" {$c0 cluster meet nosuchhost 7000}
            assert_error "ERR Invalid node address specified: 127.0.0.1:70000" {$c0 cluster meet 127.0.0.1 70000}
            assert_error "ERR Unknown node abc" {$c0 cluster forget abc}
            assert_error "ERR I tried hard but I can't forget myself..." {$c0 cluster forget [$c0 cluster myid]}
            assert_error "ERR The user can assign a config epoch only when the node does not know any other node." \
                {$c0 cluster set-config-epoch 10}
            assert_error "ERR Invalid config epoch specified: -1" {$c0 cluster set-config-epoch -1}
            assert_error "ERR syntax error" {$c0 cluster reset medium}
            $c0 set bar 1 ;# slot 5061: node 0's (keys of other slots are redirected)
            assert_error "ERR CLUSTER RESET can't be called with master nodes containing keys" {$c0 cluster reset}
            assert_error "ERR DB must be empty to perform CLUSTER FLUSHSLOTS." {$c0 cluster flushslots}
            $c0 del bar
            assert_error "ERR unknown subcommand 'setslot'. Try CLUSTER HELP." {$c0 cluster setslot 1 stable}
            assert_error "ERR REPLICAOF not allowed in cluster mode." {$c0 replicaof 127.0.0.1 [lindex $ports 1]}
            assert_equal OK [$c0 cluster saveconfig]
            set help [$c0 cluster help]
            assert_match "CLUSTER <subcommand>*" [lindex $help 0]
            assert {[lsearch -exact $help {MEET <ip> <port> [<bus-port>]}] > 0}
            assert_equal OK [$c0 asking]
        }
    }

    test "PUBLISH on one node reaches the subscribers of the others over the bus" {
        set sub [vk_deferring_client [cluster_level 2]]
        $sub subscribe news
        assert_equal {subscribe news 1} [$sub read]
        set psub [vk_deferring_client [cluster_level 1]]
        $psub psubscribe n*
        assert_equal {psubscribe n* 1} [$psub read]
        assert_equal 0 [$c0 publish news "hello from node 0"]
        assert_equal {message news {hello from node 0}} [$sub read]
        assert_equal {pmessage n* news {hello from node 0}} [$psub read]
        # A message bigger than a socket buffer, with binary bytes.
        set big [string repeat "x\r\n\0y" 100000]
        $c1 publish news $big
        assert_equal [list message news $big] [$sub read]
        assert_match "*cluster_stats_messages_publish_sent:2*" [$c0 cluster info][$c1 cluster info]
        $sub close
        $psub close
    }

    tags {valkey-only} {
        test "CLUSTER FORGET: the node is forgotten, and the forgotten-node extension tells the others" {
            set id2 [$c2 cluster myid]
            assert_equal OK [$c0 cluster forget $id2]
            assert_equal 2 [cluster_info_field $c0 cluster_known_nodes]
            # Node 1 forgets it too, from node 0's pings; gossip does not bring it back.
            wait_for_condition 100 50 {[cluster_flags_of $c1 $id2] eq ""} {
                fail "node 1 still knows the forgotten node: [$c1 cluster nodes]"
            }
            after 1500
            assert_equal "" [cluster_flags_of $c0 $id2]
            assert_equal "" [cluster_flags_of $c1 $id2]
            # Forgetting it again is fine while it is forgotten.
            assert_equal OK [$c0 cluster forget $id2]
            # Node 2's slots are unassigned now: the cluster is down for 0 and 1.
            assert_equal 10923 [cluster_info_field $c0 cluster_slots_assigned]
            cluster_wait_state [list $c0 $c1] fail
        }
    }

    tags {valkey-only} {
        test "CLUSTER RESET HARD: a new node id and epochs back to 0; SET-CONFIG-EPOCH works again" {
            set old [$c2 cluster myid]
            assert_equal OK [$c2 cluster reset hard]
            assert_not_equal $old [$c2 cluster myid]
            assert_equal 1 [cluster_info_field $c2 cluster_known_nodes]
            assert_equal 0 [cluster_info_field $c2 cluster_current_epoch]
            assert_equal 0 [cluster_info_field $c2 cluster_slots_assigned]
            assert_equal OK [$c2 cluster set-config-epoch 10]
            assert_equal 10 [cluster_info_field $c2 cluster_my_epoch]
            assert_error "ERR Node config epoch is already non-zero" {$c2 cluster set-config-epoch 11}
            set conf [cluster_file_text [file join [srv [cluster_level 2] dir] nodes.conf]]
            assert_match "[$c2 cluster myid] *myself,master - 0 * 10 connected\nvars currentEpoch 10 *" $conf
            # It joins again under its new name and takes the free slots.
            assert_equal OK [$c2 cluster meet 127.0.0.1 [lindex $ports 0]]
            assert_equal OK [$c2 cluster addslotsrange 10923 16383]
            cluster_wait_ok $cs
            cluster_wait_agree $cs
        }
    }
}

test "Without cluster-enabled, CLUSTER subcommands and ASKING say cluster support is disabled" {
    start_server {tags {cluster}} {
        foreach cmd {{cluster info} {cluster myid} {cluster meet 127.0.0.1 1} asking} {
            assert_error "ERR This instance has cluster support disabled" [list r {*}$cmd]
        }
        assert_match "*cluster_enabled:0*" [r info cluster]
    }
}

}
