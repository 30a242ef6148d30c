# Cluster mode: nodes.conf. A node saves its view in Valkey 8's format,
# restarts from it under the same name and rejoins (even on another
# port); a corrupt or foreign file stops start-up with a clear message; a
# file redis-server 7.0 wrote loads; two servers never share one file.

tags {cluster rdma:skip:cluster} {

# A nodes.conf line's address field: ip:port@cport,hostname,aux...
proc conf_line_of {conf id} {
    foreach line [split $conf "\n"] {
        if {[string match "$id *" $line]} { return $line }
    }
    return ""
}

start_cluster 2 {tags {cluster}} {
    set ids {}
    start_server [list tags {cluster} overrides [cluster_overrides]] {
        set cs [list [vk_client -2] [vk_client -1] [vk_client 0]]
        set ports [list [srv -2 port] [srv -1 port] [srv 0 port]]
        cluster_meet_all $cs $ports
        cluster_share_slots $cs
        cluster_wait_ok $cs
        cluster_wait_agree $cs
        set dir [srv 0 dir]
        foreach c $cs { lappend ids [$c cluster myid] }
        set view_before [cluster_view [lindex $cs 0]]

        test "nodes.conf holds every node in Valkey 8's format, myself flagged, and the epochs" {
            if {![string match "*valkey*" [r info server]]} { skip "redis-server 7.0 writes no aux fields" }
            [lindex $cs 2] cluster saveconfig
            set conf [cluster_file_text [file join $dir nodes.conf]]
            assert_equal 4 [llength [split [string trim $conf] "\n"]]
            set tls [expr {$::vk::transport eq "tls"}]
            set aux [expr {$tls ? "tcp-port=0" : "tls-port=0"}]
            foreach id $ids port $ports range {0-5460 5461-10922 10923-16383} {
                set line [conf_line_of $conf $id]
                set flags [expr {$id eq [lindex $ids 2] ? "myself,master" : "master"}]
                assert_match "$id 127.0.0.1:$port@[expr {$port + 10000}],,$aux,shard-id=* $flags - * * * connected $range" \
                    $line
            }
            assert_match "*\nvars currentEpoch [cluster_info_field [lindex $cs 2] cluster_current_epoch] lastVoteEpoch 0\n" $conf
        }
    }

    test "A node restarted from its nodes.conf keeps its name and slots and rejoins, on a new port too" {
        # The harness gives the restarted node a new port: the others learn
        # it from its pings (the address update).
        start_server [list tags {cluster} overrides [concat [cluster_overrides] [list dir $dir]]] {
            set c2 [vk_client 0]
            assert_equal [lindex $ids 2] [$c2 cluster myid]
            assert_match "*Node configuration loaded, I'm [lindex $ids 2]*" [cluster_file_text [srv 0 stdout]]
            set cs [list [vk_client -2] [vk_client -1] $c2]
            cluster_wait_ok $cs
            cluster_wait_agree $cs
            set newport [srv 0 port]
            set n [lsearch -inline -index 1 [cluster_nodes_parsed [lindex $cs 0]] [lindex $ids 2]]
            assert_equal "127.0.0.1:$newport@[expr {$newport + 10000}]" [dict get $n addr]
            assert_equal {10923-16383} [dict get $n slots]
        }
    }
}

tags {own-server valkey-only} {
test "A corrupt or foreign nodes.conf stops start-up with the line and the reason" {
    foreach {text reason} {
        "0123456789012345678901234567890123456789 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-16384\n"
        "*nodes.conf line 1: invalid slot range '0-16384'*"
        "not a node line at all\n"
        "*nodes.conf line 1: a node line has at least 8 fields, this one 6*"
        "REDIS0011\0\0\0binary"
        "*nodes.conf line 1: NUL byte: this is not a nodes.conf file*"
        "0123456789012345678901234567890123456789 127.0.0.1:7000@17000 master - 0 0 1 connected\n"
        "*nodes.conf: no node is flagged myself*"
    } {
        set dir [tmp_path corrupt.[incr ::corrupt_seq]]
        file mkdir $dir
        set fh [open [file join $dir nodes.conf] wb]
        puts -nonewline $fh $text
        close $fh
        lassign [start_server_by_hand $dir --cluster-enabled yes] status log
        assert_equal 1 $status
        assert_match "*Unrecoverable error: corrupted cluster config file*" $log
        assert_match $reason $log
    }
}
}

tags {valkey-only} {
test "A nodes.conf written by redis-server 7.0 loads: its nodes, slots, epochs and migrations" {
    set dir [tmp_path redis70conf]
    file mkdir $dir
    set me 1111111111111111111111111111111111111111
    set other 2222222222222222222222222222222222222222
    set fh [open [file join $dir nodes.conf] w]
    puts $fh "$other 127.0.0.1:7001@17001 master - 0 1700000000000 2 disconnected 8192-16383"
    puts $fh "$me 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-8191 \[8191->-$other\]"
    puts $fh "vars currentEpoch 2 lastVoteEpoch 0"
    close $fh
    start_server [list tags {cluster} overrides [concat [cluster_overrides] [list dir $dir]]] {
        set c [vk_client]
        assert_equal $me [$c cluster myid]
        assert_equal 2 [cluster_info_field $c cluster_current_epoch]
        assert_equal 16384 [cluster_info_field $c cluster_slots_assigned]
        set mine [lsearch -inline -index 1 [cluster_nodes_parsed $c] $me]
        assert_equal [list 0-8191 "\[8191->-$other\]"] [dict get $mine slots]
        assert_equal 2 [dict get [lsearch -inline -index 1 [cluster_nodes_parsed $c] $other] epoch]
        # Saved again in Valkey 8's format, with the aux fields.
        r cluster saveconfig
        set conf [cluster_file_text [file join $dir nodes.conf]]
        set line [conf_line_of $conf $me]
        assert_match "$me 127.0.0.1:*@*,,*shard-id=* myself,master - 0 0 1 connected 0-8191 *" $line
        assert_equal "\[8191->-$other\]" [lindex [split $line " "] end]
        assert_match "*$other 127.0.0.1:7001@17001,,*shard-id=* master - * 2 disconnected 8192-16383*" $conf
    }
}
}

tags {own-server valkey-only} {
test "Two servers never share a nodes.conf: the second stops with Valkey's message" {
    start_server [list tags {cluster} overrides [cluster_overrides]] {
        lassign [start_server_by_hand [srv 0 dir] --cluster-enabled yes] status log
        assert_equal 1 $status
        assert_match "*Sorry, the cluster configuration file nodes.conf is already used by a different Cluster node.*" $log
    }
}
}

}
