# Replication over RDMA (rdma-replication), the parts that need no RDMA
# link: the option itself, and a replica that asks for an RDMA link its
# primary cannot give (no RDMA device on this host, or no RDMA listener at
# that address): it logs why, keeps retrying, and never falls back to TCP.
# The link itself over real RDMA (full sync, stream, partial resync,
# chained replicas) is tests/rdma/replication.sh, run by `make test-rdma`.

# Lines of the server log at `level` that contain `pattern` (glob).
proc rdma_repl_log_count {level pattern} {
    set fh [open [srv $level stdout]]
    set n 0
    foreach line [split [read $fh] \n] {
        if {[string match $pattern $line]} { incr n }
    }
    close $fh
    return $n
}

start_server {tags {repl valkey-only} overrides {repl-diskless-sync-delay 0}} {
    test "rdma-replication defaults to no; CONFIG SET and GET" {
        assert_equal {rdma-replication no} [r config get rdma-replication]
        assert_equal OK [r config set rdma-replication yes]
        assert_equal {rdma-replication yes} [r config get rdma-replication]
        assert_equal OK [r config set rdma-replication no]
        assert_error "*argument 'rdma-replication'*" {r config set rdma-replication maybe}
        r config get rdma-replication
    } {rdma-replication no}

    start_server {} {
        set phost [srv -1 host]
        set pport [srv -1 port]

        test "rdma-replication yes without an RDMA path: logged, retried, no TCP fall-back" {
            r config set rdma-replication yes
            r replicaof $phost $pport
            # Each attempt logs the transport's reason and the handshake's.
            wait_for_condition 200 50 {
                [rdma_repl_log_count 0 "*# RDMA: cannot connect to $phost:$pport: *"] >= 2
            } {
                fail "no failed RDMA connects logged: [::vk::log_tail [srv stdout] 10]"
            }
            assert_match "*master_link_status:down*" [r info replication]
            assert_match "*connected_slaves:0*" [r -1 info replication]
            assert_equal PONG [r ping]
        }

        test "CONFIG SET rdma-replication no: the next attempt links over the usual transport" {
            r config set rdma-replication no
            wait_for_condition 200 50 {
                [string match "*master_link_status:up*" [r info replication]]
            } {
                fail "the replica did not link after rdma-replication no"
            }
            assert_match "*connected_slaves:1*" [r -1 info replication]
            r replicaof no one
        } {OK}
    }
}
