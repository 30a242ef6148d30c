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
        test "primaryuser: a replica authenticates as an ACL user" {
            r config set primaryuser replicator
            r config set primaryauth replpw
            r replicaof $phost $pport
            wait_for_sync
            r -1 set acl:key 1
            wait_for_condition 100 50 {[r exists acl:key]} { fail "the stream did not arrive" }
            # The primary sees the replica's connection as that user.
            assert_match "*user=replicator*" [r -1 client list type replica]
        }

        test "masteruser is the alias, and a user without PSYNC cannot replicate" {
            assert_equal {masteruser replicator} [r config get masteruser]
            r -1 acl setuser replicator -psync
            r -1 client kill type replica
            wait_for_condition 100 50 {[repl_info master_link_status] eq "down"} { fail "link still up" }
            after 1500
            assert_equal down [repl_info master_link_status]
            set entry [lindex [r -1 acl log 1] 0]
            assert_equal psync [dict get $entry object]
            assert_equal replicator [dict get $entry username]
            r -1 acl setuser replicator +psync
            wait_for_sync
            r -1 set acl:key2 2
            wait_for_condition 100 50 {[r exists acl:key2]} { fail "the stream did not arrive" }
        }
    }
}
