# Cluster mode: a hostile peer on the cluster bus. Malformed messages (bad
# signature, a length claim of 4 GB, a bad sender name, a gossip count
# past the end) close that link and are logged, and the node is fine; a
# well-formed PING from an unknown node is answered with a PONG but adds
# nothing; a MEET from an address where nobody listens leaves a handshake
# that times out. Raw frames go through the run's transport (TCP, or TLS
# with ./runtest --tls).

tags {cluster valkey-only rdma:skip:cluster} {

# A full bus header of 2256 bytes (cluster_msg.h has the layout).
proc bus_header {type totlen sender args} {
    set o [dict merge {count 0 port 0 cport 0 flags 1 current 0 config 0 replicaof "" myip "" extensions 0} $args]
    binary format a4ISSSSWWWa40a2048a40a46Sa30SSSca3 RCmb $totlen 1 [dict get $o port] $type \
        [dict get $o count] [dict get $o current] [dict get $o config] 0 $sender "" [dict get $o replicaof] \
        [dict get $o myip] [dict get $o extensions] "" 0 [dict get $o cport] [dict get $o flags] 0 ""
}

proc bus_connect {} {
    set fd [::vk::transport_connect 127.0.0.1 [expr {[srv 0 port] + 10000}]]
    fconfigure $fd -translation binary -buffering none
    return $fd
}

# Reads until the node closes the link or ms pass: {eof|open data}.
proc bus_read {fd {ms 3000} {want 0}} {
    fconfigure $fd -blocking 0
    set data ""
    set deadline [expr {[clock milliseconds] + $ms}]
    while {[clock milliseconds] < $deadline} {
        if {[catch {append data [read $fd]}] || [eof $fd]} { return [list eof $data] }
        if {$want && [string length $data] >= $want} { return [list open $data] }
        after 10
    }
    return [list open $data]
}

proc bus_send_expect_close {bytes} {
    set fd [bus_connect]
    puts -nonewline $fd $bytes
    flush $fd
    lassign [bus_read $fd] state data
    catch {close $fd}
    assert_equal eof $state
    assert_equal "" $data
}

set ::fake 00000000000000000000000000000000000000aa

proc used_memory {} {
    regexp {used_memory:(\d+)} [r info memory] -> used
    return $used
}

start_server [list tags {cluster} overrides [cluster_overrides] log_allow {
        "*Bad message length or signature*" "*Received * packet*" "*Closing the cluster bus link*"}] {

    test "A bad signature closes the link and is logged; the node is fine" {
        bus_send_expect_close [string repeat "X" 2256]
        assert_match "*Bad message length or signature received on the Cluster bus from 127.0.0.1:*" \
            [cluster_file_text [srv 0 stdout]]
        assert_equal PONG [r ping]
    }

    test "A length claim of 4 GB closes the link at once, before any such allocation" {
        set used [used_memory]
        bus_send_expect_close [binary format a4ISSSS RCmb 0xfffffff0 1 0 0 0]
        assert_range [used_memory] 0 [expr {$used + 10000000}]
    }

    test "A PING with a bad sender name closes the link, with the reason logged" {
        bus_send_expect_close [bus_header 0 2256 [string repeat Z 40]]
        set log [cluster_file_text [srv 0 stdout]]
        assert_match "*Received ping packet with an invalid sender node name*" $log
        assert_match "*Closing the cluster bus link with 127.0.0.1:* (node unknown): invalid message.*" $log
    }

    test "A gossip count past the end of the message closes the link" {
        bus_send_expect_close [bus_header 0 2256 $::fake count 1000]
        assert_match "*Received invalid ping packet with gossip count 1000 that exceeds total packet length (2256)*" \
            [cluster_file_text [srv 0 stdout]]
    }

    test "A well-formed PING from an unknown node gets a PONG, and adds no node" {
        set fd [bus_connect]
        puts -nonewline $fd [bus_header 0 2256 $::fake port 7000 cport 17000]
        flush $fd
        lassign [bus_read $fd 3000 2256] state data
        catch {close $fd}
        assert_equal open $state
        binary scan $data a4ISSSS sig totlen ver port type count
        assert_equal {RCmb 1 1} [list $sig $ver $type]
        assert_equal [string length $data] $totlen
        binary scan $data x40a40 sender
        assert_equal [r cluster myid] $sender
        assert_equal 1 [cluster_info_field [vk_client] cluster_known_nodes]
        assert_equal 1 [cluster_info_field [vk_client] cluster_stats_messages_ping_received]
    }

    test "A MEET from an address nobody listens on: a handshake node that times out" {
        set fd [bus_connect]
        # Port and bus port where nothing listens (the harness's range ends 100 below).
        puts -nonewline $fd [bus_header 2 2256 $::fake port 1 cport 1]
        flush $fd
        bus_read $fd 300 2256
        wait_for_condition 50 20 {[string match "*handshake*" [r cluster nodes]]} {
            fail "no handshake node: [r cluster nodes]"
        }
        # node timeout 1 s: the handshake is dropped after it.
        wait_for_condition 100 50 {![string match "*handshake*" [r cluster nodes]]} {
            fail "the handshake did not time out: [r cluster nodes]"
        }
        catch {close $fd}
        assert_equal 1 [cluster_info_field [vk_client] cluster_known_nodes]
        assert_match "*cluster_enabled:1*" [r info cluster]
    }
}

}
