# Cluster mode: failure detection. A node silent past cluster-node-timeout
# is PFAIL ("fail?") to each node that pinged it; once a majority of the
# primaries serving slots reports it, it is FAIL everywhere; it leaves
# FAIL when it answers again. Three primaries, node timeout 1 s.

tags {cluster rdma:skip:cluster} {

start_cluster 3 {tags {cluster} log_allow {"*Cluster state changed: fail*"}} {
    set cs [cluster_clients]
    lassign $cs c0 c1 c2
    cluster_meet_all $cs [cluster_ports]
    cluster_share_slots $cs
    cluster_wait_ok $cs
    cluster_wait_agree $cs
    set id1 [$c1 cluster myid]
    set id2 [$c2 cluster myid]
    set pid1 [srv [cluster_level 1] pid]
    set pid2 [srv [cluster_level 2] pid]

    test "Two nodes stopped: the third sees both PFAIL, cannot reach a quorum, and its cluster is down" {
        exec kill -STOP $pid1 $pid2
        wait_for_condition 100 50 {"fail?" in [cluster_flags_of $c0 $id1] && "fail?" in [cluster_flags_of $c0 $id2]} {
            fail "no PFAIL: [$c0 cluster nodes]"
        }
        # One vote (its own) of the two needed: they stay PFAIL.
        after 1500
        assert_equal {master fail?} [cluster_flags_of $c0 $id1]
        assert_equal {master fail?} [cluster_flags_of $c0 $id2]
        assert_equal 0 [$c0 cluster count-failure-reports $id2]
        cluster_wait_state [list $c0] fail
        assert_equal 10923 [cluster_info_field $c0 cluster_slots_pfail]
        exec kill -CONT $pid1 $pid2
        cluster_wait_ok $cs
        cluster_wait_agree $cs
    }

    test "One node stopped past the node timeout: FAIL on the two others, by quorum" {
        exec kill -STOP $pid2
        foreach c [list $c0 $c1] {
            wait_for_condition 100 50 {"fail" in [cluster_flags_of $c $id2]} {
                fail "no FAIL: [$c cluster nodes]"
            }
        }
        cluster_wait_state [list $c0 $c1] fail
        assert_equal 5461 [cluster_info_field $c0 cluster_slots_fail]
        # One of the two reached the quorum (its vote and the other's
        # report); the other may have too, or heard the FAIL message.
        set logs [cluster_file_text [srv [cluster_level 0] stdout]][cluster_file_text [srv [cluster_level 1] stdout]]
        assert_match "*Marking node $id2 * as failing (quorum reached).*" $logs
    }

    test "It answers again (SIGCONT): FAIL is cleared and the cluster is ok" {
        exec kill -CONT $pid2
        foreach c [list $c0 $c1] {
            wait_for_condition 100 50 {"fail" ni [cluster_flags_of $c $id2]} {
                fail "still FAIL: [$c cluster nodes]"
            }
        }
        cluster_wait_ok $cs
        cluster_wait_agree $cs
    }

    test "A killed node (SIGKILL) is FAIL on the others" {
        expect_server_exit [cluster_level 2]
        exec kill -KILL $pid2
        foreach c [list $c0 $c1] {
            wait_for_condition 100 50 {"fail" in [cluster_flags_of $c $id2]} {
                fail "no FAIL: [$c cluster nodes]"
            }
            wait_for_condition 100 50 {
                [dict get [lsearch -inline -index 1 [cluster_nodes_parsed $c] $id2] link] eq "disconnected"
            } {
                fail "still connected: [$c cluster nodes]"
            }
        }
        cluster_wait_state [list $c0 $c1] fail
    }
}

}
