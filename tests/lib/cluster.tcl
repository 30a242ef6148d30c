# cluster.tcl -- helpers for the tests of cluster mode: start N nodes,
# join them with CLUSTER MEET, share the slots out, and wait until every
# node has the same view of the cluster.
#
#   start_cluster 3 {tags {cluster} overrides {..}} {
#       set cs [cluster_clients 3]          ;# one client per node, node 0 first
#       cluster_meet_all $cs [cluster_ports 3]
#       cluster_share_slots $cs
#       cluster_wait_ok $cs
#       cluster_wait_agree $cs
#   }
#
# start_cluster nests n start_server blocks: node i is the server at level
# i - (n - 1) (node 0 the outermost, the last node the innermost, so a test
# can end and restart the last one). Every node gets the overrides of
# cluster_overrides (cluster mode, a short node timeout, nodes.conf in its
# dir) before the block's own. The helpers that wait take a list of clients
# (harness clients, or ::vk::client_open to a redis-server), so the same
# checks serve mixed clusters.

# The config of every cluster node the tests start: short timeouts keep
# failure detection (and the suite) fast.
proc cluster_overrides {} {
    return {cluster-enabled yes cluster-node-timeout 1000 cluster-config-file nodes.conf}
}

# Starts n cluster nodes (nested start_server blocks) and runs body with
# ::cluster_n set. options as start_server's; its overrides come after
# cluster_overrides.
proc start_cluster {n options body} {
    set overrides [cluster_overrides]
    if {[dict exists $options overrides]} { lappend overrides {*}[dict get $options overrides] }
    dict set options overrides $overrides
    set script [list set ::cluster_n $n]
    append script \n $body
    for {set i 0} {$i < $n} {incr i} { set script [list start_server $options $script] }
    uplevel 1 $script
}

# The harness level of node i of the n nodes of start_cluster.
proc cluster_level {i {n ""}} {
    if {$n eq ""} { set n $::cluster_n }
    return [expr {$i - ($n - 1)}]
}

# One client per node (node 0 first), closed with the blocks.
proc cluster_clients {{n ""}} {
    if {$n eq ""} { set n $::cluster_n }
    set cs {}
    for {set i 0} {$i < $n} {incr i} { lappend cs [vk_client [cluster_level $i $n]] }
    return $cs
}

# The client ports of the nodes (node 0 first): what CLUSTER MEET takes.
proc cluster_ports {{n ""}} {
    if {$n eq ""} { set n $::cluster_n }
    set ports {}
    for {set i 0} {$i < $n} {incr i} { lappend ports [srv [cluster_level $i $n] port] }
    return $ports
}

# The first node meets every other one (gossip does the rest).
proc cluster_meet_all {clients ports} {
    set first [lindex $clients 0]
    foreach p [lrange $ports 1 end] { assert_equal OK [$first cluster meet 127.0.0.1 $p] }
}

# Shares the 16384 slots out in contiguous ranges, one per node.
proc cluster_share_slots {clients} {
    set n [llength $clients]
    set start 0
    for {set i 0} {$i < $n} {incr i} {
        set end [expr {round(($i + 1) * 16384.0 / $n) - 1}]
        assert_equal OK [[lindex $clients $i] cluster addslotsrange $start $end]
        set start [expr {$end + 1}]
    }
}

# A field of CLUSTER INFO.
proc cluster_info_field {c field} {
    foreach line [split [$c cluster info] "\r\n"] {
        if {[string match "$field:*" $line]} { return [string range $line [string length $field:] end] }
    }
    return ""
}

# Waits until every node says cluster_state:ok.
proc cluster_wait_ok {clients {tries 200}} {
    foreach c $clients {
        wait_for_condition $tries 50 {[cluster_info_field $c cluster_state] eq "ok"} {
            fail "cluster_state is not ok: [$c cluster info]\n[$c cluster nodes]"
        }
    }
}

# Waits until every node says cluster_state:<state>.
proc cluster_wait_state {clients state {tries 200}} {
    foreach c $clients {
        wait_for_condition $tries 50 {[cluster_info_field $c cluster_state] eq $state} {
            fail "cluster_state is not $state: [$c cluster info]"
        }
    }
}

# CLUSTER NODES as a list of dicts: id addr (ip:port@cport) hostname flags
# (a list) primary epoch link slots.
proc cluster_nodes_parsed {c} {
    set out {}
    foreach line [split [string trim [$c cluster nodes]] "\n"] {
        set f [split [string trim $line] " "]
        set addr [lindex $f 1]
        set host ""
        if {[string first , $addr] >= 0} { lassign [split $addr ,] addr host }
        lappend out [dict create id [lindex $f 0] addr $addr hostname $host flags [split [lindex $f 2] ,] \
                         primary [lindex $f 3] epoch [lindex $f 6] link [lindex $f 7] slots [lrange $f 8 end]]
    }
    return $out
}

# The node's view of the cluster, comparable between nodes: one sorted
# line per node, id addr flags (myself removed) primary epoch slots.
proc cluster_view {c} {
    set lines {}
    foreach n [cluster_nodes_parsed $c] {
        set flags [lsort [lsearch -all -inline -not [dict get $n flags] myself]]
        lappend lines [list [dict get $n id] [dict get $n addr] $flags [dict get $n primary] \
                           [dict get $n epoch] [dict get $n slots]]
    }
    return [lsort $lines]
}

# The node ids a node knows, sorted.
proc cluster_known_ids {c} {
    set ids {}
    foreach n [cluster_nodes_parsed $c] { lappend ids [dict get $n id] }
    return [lsort $ids]
}

# Waits until every node knows all n nodes, none in the handshake or
# failing, every link up, and all views are the same.
proc cluster_wait_agree {clients {tries 200}} {
    set n [llength $clients]
    wait_for_condition $tries 50 {[cluster_views_agree $clients $n]} {
        set msg ""
        foreach c $clients { append msg "--\n[$c cluster nodes]" }
        fail "the nodes do not agree on the cluster:\n$msg"
    }
}

proc cluster_views_agree {clients n} {
    set first ""
    foreach c $clients {
        set nodes [cluster_nodes_parsed $c]
        if {[llength $nodes] != $n} { return 0 }
        foreach node $nodes {
            if {[dict get $node link] ne "connected"} { return 0 }
            foreach bad {handshake fail? fail noaddr} {
                if {$bad in [dict get $node flags]} { return 0 }
            }
        }
        set view [cluster_view $c]
        if {$first eq ""} { set first $view } elseif {$view ne $first} { return 0 }
    }
    return 1
}

# The id of the node that node c's CLUSTER SLOTS says serves slot, or "".
proc cluster_slot_owner {c slot} {
    foreach range [$c cluster slots] {
        if {$slot >= [lindex $range 0] && $slot <= [lindex $range 1]} { return [lindex $range 2 2] }
    }
    return ""
}

# The flags a node shows for the node with id, or "" if it does not know it.
proc cluster_flags_of {c id} {
    foreach n [cluster_nodes_parsed $c] {
        if {[dict get $n id] eq $id} { return [dict get $n flags] }
    }
    return ""
}

# Starts Debian's redis-server 7.0 as a cluster node on dir (port and
# port + 10000 free), with args; returns {pid port chan}.
proc redis_cluster_start {dir args} {
    file mkdir $dir
    set port [::vk::alloc_port 1]
    set out [file join $dir redis.log]
    set chan [open [list | /usr/bin/redis-server --port $port --bind 127.0.0.1 --save "" --appendonly no \
                        --dir $dir --cluster-enabled yes --cluster-config-file nodes.conf \
                        --cluster-node-timeout 1000 {*}$args >& $out] w]
    set pid [pid $chan]
    wait_for_condition 250 20 {[string match "*Ready to accept connections*" [cluster_file_text $out]]} {
        ::vk::kill_pid $pid
        fail "redis-server did not start: [cluster_file_text $out]"
    }
    return [list $pid $port $chan]
}

proc cluster_file_text {path} {
    if {![file exists $path]} { return "" }
    set fh [open $path]
    set text [read $fh]
    close $fh
    return $text
}

proc redis_cluster_stop {handle} {
    lassign $handle pid port chan
    ::vk::kill_pid $pid
    catch {close $chan}
}
