# Replication with ACL users: a replica authenticates to its primary as
# primaryuser (masteruser) with primaryauth, and needs that user to have
# the replication commands. Helpers: tests/lib/replication.tcl.

start_server {tags {repl acl}} {
    r acl setuser replicator on >replpw -@all +psync +replconf +ping
    r acl setuser default resetpass >adminpw
    r auth adminpw
    set phost [srv host]
    set pport [srv port]
    start_server {} {
        test "masteruser: a replica authenticates as an ACL user" {
            r config set masteruser replicator
            r config set masterauth replpw
            r replicaof $phost $pport
            wait_for_sync
            r -1 set acl:key 1
            wait_for_condition 100 50 {[r exists acl:key]} { fail "the stream did not arrive" }
            # The primary sees the replica's connection as that user.
            assert_match "*user=replicator*" [r -1 client list type replica]
        }

        tags {valkey-only} {
            test "primaryuser is masteruser's new name" {
                assert_equal {primaryuser replicator} [r config get primaryuser]
                assert_equal {primaryauth replpw} [r config get primaryauth]
            }
        }

        test "A user without PSYNC cannot replicate" {
            r -1 acl setuser replicator -psync
            r -1 client kill type replica
            wait_for_condition 100 50 {[repl_info master_link_status] eq "down"} { fail "link still up" }
            after 1500
            assert_equal down [repl_info master_link_status]
            set entry [lindex [r -1 acl log 1] 0]
            # Valkey's replica retries a refused PSYNC with SYNC; ours does not.
            assert {[dict get $entry object] in {psync sync}}
            assert_equal replicator [dict get $entry username]
            r -1 acl setuser replicator +psync
            wait_for_sync
            r -1 set acl:key2 2
            wait_for_condition 100 50 {[r exists acl:key2]} { fail "the stream did not arrive" }
        }
    }
}
