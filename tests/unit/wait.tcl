# WAIT and WAITAOF on a server without replicas or AOF: the counts are 0;
# asked for none they answer at once, asked for more they block until the
# timeout or CLIENT UNBLOCK; inside MULTI or a script they never block; bad arguments
# get Valkey's errors.

proc blocked_clients_now {} {
    regexp {blocked_clients:(\d+)} [r info clients] -> n
    return $n
}

start_server {tags {"wait"}} {
    test "WAIT for no replica answers 0 at once" {
        r set k v
        assert_equal 0 [r wait 0 0]
        assert_equal 0 [r wait -1 0]
    }

    test "WAIT for a replica that does not exist blocks until its timeout, then answers 0" {
        set rd [vk_deferring_client]
        $rd wait 1 300
        wait_for_condition 50 10 {[blocked_clients_now] == 1} { fail "WAIT did not block" }
        assert_equal 0 [$rd read]
        assert_equal 0 [blocked_clients_now]
        $rd close
    }

    test "WAIT with timeout 0 blocks until CLIENT UNBLOCK" {
        set rd [vk_deferring_client]
        $rd client id
        set id [$rd read]
        $rd wait 2 0
        wait_for_condition 50 10 {[blocked_clients_now] == 1} { fail "WAIT did not block" }
        assert_match "*flags=b*" [r client list id $id]
        assert_equal 1 [r client unblock $id]
        assert_equal 0 [$rd read]
        $rd wait 2 0
        wait_for_condition 50 10 {[blocked_clients_now] == 1} { fail "WAIT did not block" }
        assert_equal 1 [r client unblock $id error]
        assert_error "UNBLOCKED*" {$rd read}
        $rd close
    }

    test "WAIT inside MULTI does not block" {
        r multi
        r wait 1 0
        assert_equal {0} [r exec]
    }

    test "WAIT argument errors" {
        assert_error "ERR value is not an integer or out of range" {r wait abc 0}
        assert_error "ERR timeout is negative" {r wait 1 -1}
        assert_error "ERR timeout is not an integer or out of range" {r wait 1 1.5}
        assert_error "ERR wrong number of arguments for 'wait' command" {r wait 1}
    }

    # Redis 7.0 refused WAIT in scripts; Valkey 8 runs it without blocking.
    tags {valkey-only} {
        test "WAIT inside a script answers at once" {
            assert_equal 0 [r eval {return redis.call('wait', 1, 0)} 0]
        }
    }

    # WAITAOF is Valkey 8 / Redis 7.2: not in Redis 7.0.
    tags {valkey-only} {
        test "WAITAOF without AOF: numlocal is refused, replicas count 0" {
            assert_error "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled." {r waitaof 1 0 0}
            assert_equal {0 0} [r waitaof 0 0 0]
            set rd [vk_deferring_client]
            $rd waitaof 0 1 200
            wait_for_condition 50 10 {[blocked_clients_now] == 1} { fail "WAITAOF did not block" }
            assert_equal {0 0} [$rd read]
            $rd close
            assert_error "ERR value is not an integer or out of range" {r waitaof x 0 0}
            assert_error "ERR wrong number of arguments for 'waitaof' command" {r waitaof 0 0}
        }
    }
}
