# Cluster mode: command routing. Every command with keys runs on the node
# serving their slot; the others answer Valkey 8's redirections and errors
# (MOVED with the endpoint cluster-preferred-endpoint-type names, CROSSSLOT,
# CLUSTERDOWN in its three forms), transactions and scripts are judged as
# a whole (declared keys) and command by command (what a script touches),
# valkey-cli -c follows MOVED across the cluster, and the data each node
# holds is exactly the keys of its slots.

tags {cluster rdma:skip:cluster} {

# A key whose slot node c serves (its CLUSTER SLOTS range), made of prefix
# and a counter.
proc rt_key_on {c lo hi prefix} {
    for {set i 0} {$i < 100000} {incr i} {
        set k "$prefix$i"
        set s [$c cluster keyslot $k]
        if {$s >= $lo && $s <= $hi} { return $k }
    }
    fail "no key found for slots $lo-$hi"
}

start_cluster 3 {tags {cluster} overrides {enable-debug-command yes}} {
    set cs [cluster_clients]
    lassign $cs c0 c1 c2
    set ports [cluster_ports]
    cluster_meet_all $cs $ports
    cluster_share_slots $cs
    cluster_wait_ok $cs
    cluster_wait_agree $cs
    # Slots: node 0 0-5460, node 1 5461-10922, node 2 10923-16383.
    set k0 [rt_key_on $c0 0 5460 k]
    set k1 [rt_key_on $c0 5461 10922 k]
    set k2 [rt_key_on $c0 10923 16383 k]
    set s1 [$c0 cluster keyslot $k1]
    set s2 [$c0 cluster keyslot $k2]

    test "A key of another node's slot gets -MOVED <slot> <ip>:<port>, its own node serves it" {
        assert_equal OK [$c0 set $k0 v0]
        assert_error "MOVED $s1 127.0.0.1:[lindex $ports 1]" { $c0 set $k1 v1 }
        assert_error "MOVED $s2 127.0.0.1:[lindex $ports 2]" { $c0 get $k2 }
        assert_equal OK [$c1 set $k1 v1]
        assert_equal OK [$c2 set $k2 v2]
        assert_error "MOVED [$c0 cluster keyslot $k0] 127.0.0.1:[lindex $ports 0]" { $c2 get $k0 }
        # Commands without keys run anywhere.
        assert_equal PONG [$c0 ping]
        assert_equal 1 [$c0 dbsize]
        assert_equal 1 [$c1 dbsize]
        # cluster-preferred-endpoint-type names the endpoint.
        $c0 config set cluster-preferred-endpoint-type hostname
        assert_error "MOVED $s1 ?:[lindex $ports 1]" { $c0 get $k1 }
        $c0 config set cluster-preferred-endpoint-type unknown-endpoint
        assert_error "MOVED $s1 :[lindex $ports 1]" { $c0 get $k1 }
        $c0 config set cluster-preferred-endpoint-type ip
        # A redirected command counts as rejected.
        assert {[regexp {cmdstat_get:[^\r]*rejected_calls=(\d+)} [$c0 info commandstats] -> rejected] && $rejected >= 3}
    }

    test "Multi-key commands need one slot: -CROSSSLOT, hash tags put keys together" {
        assert_error "CROSSSLOT Keys in request don't hash to the same slot" { $c0 mset "{a}x" 1 "{b}x" 2 }
        assert_error "CROSSSLOT Keys in request don't hash to the same slot" { $c0 del $k0 "${k0}x" }
        set tag [rt_key_on $c0 0 5460 t]
        assert_equal OK [$c0 mset "{$tag}1" a "{$tag}2" b]
        assert_equal {a b} [$c0 mget "{$tag}1" "{$tag}2"]
        assert_equal 2 [$c0 del "{$tag}1" "{$tag}2"]
        # Keys of a slot elsewhere: MOVED, even when all in one slot.
        set tag1 [rt_key_on $c0 5461 10922 t]
        assert_error "MOVED * 127.0.0.1:[lindex $ports 1]" { $c0 mset "{$tag1}1" a "{$tag1}2" b }
    }

    test "MULTI: a queued command of another slot aborts the transaction; EXEC judges the whole queue" {
        set tag [rt_key_on $c0 0 5460 m]
        $c0 multi
        assert_equal QUEUED [$c0 set "{$tag}a" 1]
        assert_error "MOVED $s1 *" { $c0 set $k1 x }
        assert_error "EXECABORT*" { $c0 exec }
        assert_equal 0 [$c0 exists "{$tag}a"]

        # Every command local, but two slots: EXEC answers CROSSSLOT and the
        # transaction is gone.
        set other [rt_key_on $c0 0 5460 n]
        $c0 multi
        assert_equal QUEUED [$c0 set "{$tag}a" 1]
        assert_equal QUEUED [$c0 set "{$other}b" 2]
        assert_error "CROSSSLOT Keys in request don't hash to the same slot" { $c0 exec }
        assert_error "*EXEC without MULTI*" { $c0 exec }
        assert_equal 0 [$c0 exists "{$tag}a"]

        $c0 multi
        $c0 set "{$tag}a" 1
        $c0 incr "{$tag}b"
        assert_equal {OK 1} [$c0 exec]
    }

    test "Scripts and functions: declared keys are routed, and what the script touches must be local and in one slot" {
        assert_error "MOVED $s1 *" { $c0 eval {return redis.call('get', KEYS[1])} 1 $k1 }
        assert_error "CROSSSLOT*" { $c0 eval {return 1} 2 $k0 $k1 }
        assert_equal v0 [$c0 eval {return redis.call('get', KEYS[1])} 1 $k0]
        # An undeclared key of another node.
        assert_error "ERR Script attempted to access a non local key in a cluster node script: *" {
            $c0 eval {return redis.call('get', ARGV[1])} 0 $k1
        }
        assert_equal "ERR Script attempted to access a non local key in a cluster node" \
            [$c0 eval {local ok, e = pcall(redis.call, 'get', ARGV[1]); return e} 0 $k1]
        # Two local slots: refused, unless allow-cross-slot-keys.
        set other [rt_key_on $c0 0 5460 z]
        assert_error "ERR Script attempted to access keys that do not hash to the same slot*" {
            $c0 eval {redis.call('set', KEYS[1], 1); return redis.call('set', ARGV[1], 2)} 1 $k0 $other
        }
        assert_equal OK [$c0 eval "#!lua flags=allow-cross-slot-keys
            redis.call('set', KEYS\[1\], 1); return redis.call('set', ARGV\[1\], 2)" 1 $k0 $other]
        assert_equal 2 [$c0 get $other]
        assert_error "ERR Script attempted to access a non local key in a cluster node*" {
            $c0 eval "#!lua flags=allow-cross-slot-keys
                return redis.call('get', ARGV\[1\])" 0 $k2
        }
        $c0 del $other
        $c0 set $k0 v0

        $c0 function load replace {#!lua name=rt
            server.register_function('rt_get', function(keys, args) return server.call('get', keys[1]) end)
            server.register_function('rt_peek', function(keys, args) return server.call('get', args[1]) end)
        }
        assert_equal v0 [$c0 fcall rt_get 1 $k0]
        assert_error "MOVED $s2 *" { $c0 fcall rt_get 1 $k2 }
        assert_error "ERR Script attempted to access a non local key in a cluster node*" { $c0 fcall rt_peek 0 $k2 }
        $c0 function delete rt
    }

    test "Sharded pub/sub: SPUBLISH and SSUBSCRIBE are routed by the channel's slot" {
        set ch0 [rt_key_on $c0 0 5460 ch]
        set ch1 [rt_key_on $c0 5461 10922 ch]
        assert_error "MOVED [$c0 cluster keyslot $ch1] *" { $c0 spublish $ch1 hello }
        assert_equal 0 [$c0 spublish $ch0 hello]
        set sub [vk_deferring_client [cluster_level 0]]
        $sub ssubscribe $ch0
        assert_equal [list ssubscribe $ch0 1] [$sub read]
        assert_equal 1 [$c0 spublish $ch0 hi]
        assert_equal [list smessage $ch0 hi] [$sub read]
        $sub ssubscribe $ch1
        assert_match "MOVED *" [catch {$sub read} e; set e]
        $sub close
    }

    test "CLUSTERDOWN: an unserved slot, a failed cluster, and reads allowed when down" {
        # Node 2 stops serving k2's slot: the slot is unserved there and
        # its cluster state fails (full coverage required).
        assert_equal OK [$c2 cluster delslots $s2]
        wait_for_condition 100 50 {[cluster_info_field $c2 cluster_state] eq "fail"} {
            fail "node 2 still says ok"
        }
        set other2 [rt_key_on $c0 10923 16383 d]
        assert {[$c0 cluster keyslot $other2] != $s2}
        assert_error "CLUSTERDOWN Hash slot not served" { $c2 get $k2 }
        assert_error "CLUSTERDOWN The cluster is down" { $c2 get $other2 }
        assert_equal PONG [$c2 ping]
        # Reads allowed while down: writes are still refused.
        $c2 config set cluster-allow-reads-when-down yes
        assert_equal {} [$c2 get $other2]
        assert_error "CLUSTERDOWN The cluster is down and only accepts read commands" { $c2 set $other2 1 }
        assert_error "CLUSTERDOWN Hash slot not served" { $c2 get $k2 }
        $c2 config set cluster-allow-reads-when-down no
        # Sharded pub/sub has its own switch (on by default).
        set ch2 [rt_key_on $c0 10923 16383 sc]
        assert {[$c0 cluster keyslot $ch2] != $s2}
        assert_equal 0 [$c2 spublish $ch2 x]
        $c2 config set cluster-allow-pubsubshard-when-down no
        assert_error "CLUSTERDOWN The cluster is down" { $c2 spublish $ch2 x }
        $c2 config set cluster-allow-pubsubshard-when-down yes
        # Without full coverage the rest is served.
        $c2 config set cluster-require-full-coverage no
        wait_for_condition 100 50 {[cluster_info_field $c2 cluster_state] eq "ok"} { fail "node 2 not ok" }
        assert_equal OK [$c2 set $other2 x]
        assert_error "CLUSTERDOWN Hash slot not served" { $c2 get $k2 }
        $c2 config set cluster-require-full-coverage yes
        assert_equal OK [$c2 cluster addslots $s2]
        cluster_wait_ok $cs
        assert_equal v2 [$c2 get $k2]
        assert_equal 1 [$c2 del $other2]
    }

    test "valkey-cli -c writes and reads keys across the nodes, and each node holds exactly its slots' keys" {
        set cli [file join [file dirname $::vk::cfg(binary)] valkey-cli]
        if {![file executable $cli]} { set cli [cli_binary] }
        if {$cli eq ""} { skip "no valkey-cli" }
        if {[catch {::vk::transport_cli_args} targs]} { skip $targs }
        set cli [list $cli {*}$targs]
        foreach c $cs { $c flushall }
        set want {}
        for {set i 0} {$i < 60} {incr i} {
            set port [lindex $ports [expr {$i % 3}]]
            assert_equal OK [exec {*}$cli -c -p $port set "cli:$i" "val:$i"]
            lappend want "cli:$i"
        }
        for {set i 0} {$i < 60} {incr i} {
            set port [lindex $ports [expr {($i + 1) % 3}]]
            assert_equal "val:$i" [exec {*}$cli -c -p $port get "cli:$i"]
        }
        set all {}
        foreach c $cs range {{0 5460} {5461 10922} {10923 16383}} {
            foreach k [$c keys *] {
                set s [$c cluster keyslot $k]
                assert {$s >= [lindex $range 0] && $s <= [lindex $range 1]}
                lappend all $k
            }
        }
        assert_equal [lsort $want] [lsort $all]
    }

    test "A client blocked on a key is told -CLUSTERDOWN when the cluster fails, -MOVED when its slot moves" {
        # Node 2 fails (an unserved slot): its blocked client is released.
        set other2 [rt_key_on $c0 10923 16383 e]
        set s_other2 [$c0 cluster keyslot $other2]
        assert {$s_other2 != $s2}
        set b2 [vk_deferring_client [cluster_level 2]]
        $b2 blpop $k2 0
        wait_for_condition 100 20 {[regexp {blocked_clients:1\r} [$c2 info clients]]} { fail "not blocked" }
        assert_equal OK [$c2 cluster delslots $s_other2]
        assert_error "CLUSTERDOWN The cluster is down" { $b2 read }
        assert_equal OK [$c2 cluster addslots $s_other2]
        cluster_wait_ok $cs
        $b2 close

        # Node 1 takes a slot of node 0 (a greater config epoch): node 0's
        # client blocked on a key of that slot is sent to node 1.
        set kb [rt_key_on $c0 0 5460 blk]
        set sb [$c0 cluster keyslot $kb]
        set b0 [vk_deferring_client [cluster_level 0]]
        $b0 blpop $kb 0
        wait_for_condition 100 20 {[regexp {blocked_clients:1\r} [$c0 info clients]]} { fail "not blocked" }
        $c1 cluster bumpepoch
        $c1 multi
        $c1 cluster delslots $sb
        $c1 cluster addslots $sb
        assert_equal {OK OK} [$c1 exec]
        assert_error "MOVED $sb 127.0.0.1:[lindex $ports 1]" { $b0 read }
        assert_equal 0 [lindex [regexp -inline {blocked_clients:(\d+)} [$c0 info clients]] 1]
        $b0 close
        assert_error "MOVED $sb 127.0.0.1:[lindex $ports 1]" { $c0 lpush $kb x }
        assert_equal 1 [$c1 lpush $kb x]
    }
}

}

# Open slots (ASK, TRYAGAIN, ASKING): until CLUSTER SETSLOT lands, node A
# gets a migrating and an importing slot the way a restarted node does,
# from its nodes.conf ("[slot->-id]", "[slot-<-id]").
tags {cluster rdma:skip:cluster} {

start_cluster 1 {tags {cluster}} {
    set adir ""
    start_server [list tags {cluster} overrides [concat [cluster_overrides] {appendonly yes}]] {
        set ca [vk_client 0]
        set cb [vk_client -1]
        cluster_meet_all [list $cb $ca] [list [srv -1 port] [srv 0 port]]
        assert_equal OK [$ca cluster addslotsrange 0 8191]
        assert_equal OK [$cb cluster addslotsrange 8192 16383]
        cluster_wait_ok [list $ca $cb]
        cluster_wait_agree [list $ca $cb]
        set ytag [rt_key_on $ca 0 8191 y]      ;# A's slot, to migrate to B
        set xtag [rt_key_on $ca 8192 16383 x]  ;# B's slot, to import into A
        set yslot [$ca cluster keyslot $ytag]
        set xslot [$ca cluster keyslot $xtag]
        assert_equal OK [$ca set "{$ytag}1" one]
        set aid [$ca cluster myid]
        set bid [$cb cluster myid]
        set adir [srv 0 dir]
    }
    # A is stopped (its nodes.conf saved): it comes back migrating yslot
    # to B and importing xslot from B.
    set path [file join $adir nodes.conf]
    set conf [cluster_file_text $path]
    set out {}
    foreach line [split [string trimright $conf "\n"] "\n"] {
        if {[string match "$aid *" $line]} { append line " \[$yslot->-$bid\] \[$xslot-<-$bid\]" }
        append out $line "\n"
    }
    set fh [open $path w]
    puts -nonewline $fh $out
    close $fh

    start_server [list tags {cluster} overrides [concat [cluster_overrides] [list dir $adir appendonly yes]]] {
        set ca [vk_client 0]
        set cb [vk_client -1]
        set bport [srv -1 port]
        set aport [srv 0 port]
        cluster_wait_ok [list $ca $cb]
        # (CLUSTER NODES differ by the migration marks: wait for the links
        # and A's new address instead of cluster_wait_agree.)
        wait_for_condition 200 50 {
            [string match "*$aid 127.0.0.1:$aport@* master * connected 0-8191*" [$cb cluster nodes]] &&
            [string match "*$bid 127.0.0.1:$bport@* master * connected 8192-16383*" [$ca cluster nodes]]
        } {
            fail "A and B do not see each other: [$ca cluster nodes] / [$cb cluster nodes]"
        }

        test "A migrating slot serves the keys it still has, sends -ASK for the others, -TRYAGAIN for a mix" {
            assert_match "*\[$yslot->-$bid\]*" [$ca cluster nodes]
            assert_equal one [$ca get "{$ytag}1"]
            assert_error "ASK $yslot 127.0.0.1:$bport" { $ca get "{$ytag}2" }
            assert_error "ASK $yslot 127.0.0.1:$bport" { $ca set "{$ytag}2" two }
            assert_error "TRYAGAIN Multiple keys request during rehashing of slot" { $ca mget "{$ytag}1" "{$ytag}2" }
            assert_error "ASK $yslot 127.0.0.1:$bport" { $ca eval {return 1} 1 "{$ytag}2" }
            # B, which does not know it is importing, sends the client back.
            assert_error "MOVED $yslot *" { $cb get "{$ytag}2" }
        }

        test "An importing slot serves a client after ASKING, for one command or one transaction" {
            assert_match "*\[$xslot-<-$bid\]*" [$ca cluster nodes]
            assert_error "MOVED $xslot 127.0.0.1:$bport" { $ca get "{$xtag}1" }
            assert_equal OK [$ca asking]
            assert_equal {} [$ca get "{$xtag}1"]
            assert_error "MOVED $xslot *" { $ca get "{$xtag}1" }
            assert_equal OK [$ca asking]
            assert_equal OK [$ca set "{$xtag}1" v]
            # A multi-key command missing some of its keys: TRYAGAIN; one key
            # twice is one key.
            assert_equal OK [$ca asking]
            assert_error "TRYAGAIN Multiple keys request during rehashing of slot" { $ca mget "{$xtag}1" "{$xtag}2" }
            assert_equal OK [$ca asking]
            assert_equal {v v} [$ca mget "{$xtag}1" "{$xtag}1"]
            # ASKING before MULTI covers the whole transaction.
            assert_equal OK [$ca asking]
            $ca multi
            assert_equal QUEUED [$ca set "{$xtag}1" w]
            assert_equal QUEUED [$ca get "{$xtag}1"]
            assert_equal {OK w} [$ca exec]
            assert_error "MOVED $xslot *" { $ca get "{$xtag}1" }
            # RESTORE-ASKING needs no ASKING.
            set payload [$ca dump "{$ytag}1"]
            assert_equal OK [$ca restore-asking "{$xtag}r" 0 $payload]
            assert_equal OK [$ca asking]
            assert_equal one [$ca get "{$xtag}r"]
            assert_equal 2 [$ca cluster countkeysinslot $xslot]
        }
    }
}

}
