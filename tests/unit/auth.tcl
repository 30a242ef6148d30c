# requirepass and the commands that authenticate a connection: AUTH, HELLO
# AUTH, RESET, and the protocol limits that apply before authentication.

start_server {tags {"auth"}} {
    test "AUTH without a configured password" {
        assert_error "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?" {r auth foo}
    }

    test "AUTH default <anything> succeeds while the default user has no password" {
        assert_equal OK [r auth default whatever]
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {r auth nosuchuser whatever}
    }

    test "HELLO AUTH default <anything> succeeds without a password" {
        set reply [r hello 2 auth default whatever]
        assert_equal 2 [dict get $reply proto]
    }

    test "AUTH with too many arguments is a syntax error" {
        assert_error "ERR syntax error" {r auth a b c}
        assert_error "ERR wrong number of arguments for 'auth' command" {r auth}
    }

    test "CONFIG SET requirepass at runtime: new connections must authenticate" {
        r config set requirepass secret
        # The connection that set it was already authenticated.
        assert_equal PONG [r ping]
        set c [vk_client]
        assert_error "NOAUTH Authentication required." {$c ping}
        assert_equal OK [$c auth secret]
        assert_equal PONG [$c ping]
        $c close
        assert_equal secret [lindex [r config get requirepass] 1]
    }

    test "A binary requirepass is compared whole, past a NUL byte" {
        r config set requirepass "ab\x00cd"
        assert_equal "ab\x00cd" [lindex [r config get requirepass] 1]
        set c [vk_client]
        assert_error "WRONGPASS*" {$c auth "ab"}
        assert_error "WRONGPASS*" {$c auth "ab\x00xx"}
        assert_error "WRONGPASS*" {$c auth "ab\x00cdx"}
        assert_error "WRONGPASS*" {$c auth "default\x00x" "ab\x00cd"}
        assert_error "WRONGPASS*" {$c hello 3 auth default "ab\x00"}
        assert_error "NOAUTH*" {$c ping}
        assert_equal OK [$c auth "ab\x00cd"]
        assert_equal OK [$c auth default "ab\x00cd"]
        assert_equal PONG [$c ping]
        $c close
        r config set requirepass secret
    }

    test "CONFIG SET requirepass to empty: no password needed any more" {
        set c [vk_client]
        assert_error "NOAUTH Authentication required." {$c ping}
        r config set requirepass ""
        # Even a connection that never authenticated may now run commands.
        assert_equal PONG [$c ping]
        set c2 [vk_client]
        assert_equal PONG [$c2 ping]
        $c close
        $c2 close
    }
}

start_server {tags {"auth"} overrides {requirepass foobar}} {
    test "Commands are refused with NOAUTH before AUTH" {
        set c [vk_client]
        foreach cmd {{ping} {ping hi} {echo x} {get k} {set k v} {del k} {dbsize} {info}
                     {select 1} {client id} {client list} {client setname x}
                     {config get maxmemory} {command count} {object encoding k}
                     {memory usage k} {flushall} {keys *} {incr n}} {
            assert_error "NOAUTH Authentication required." {$c {*}$cmd}
        }
        $c close
    }

    test "Nothing runs before AUTH: no key was written" {
        r auth foobar
        assert_equal 0 [r dbsize]
    }

    test "Unknown commands and wrong arity are reported before NOAUTH" {
        set c [vk_client]
        assert_error "ERR unknown command 'nosuchcommand', with args beginning with: 'a' 'b' " {$c nosuchcommand a b}
        assert_error "ERR wrong number of arguments for 'get' command" {$c get}
        $c close
    }

    test "Inline commands before AUTH get NOAUTH too" {
        set c [vk_client]
        $c readraw 1
        $c write "PING\r\n"
        $c flush
        assert_equal "-NOAUTH Authentication required." [$c read]
        $c close
    }

    test "AUTH with the wrong password" {
        set c [vk_client]
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth wrong}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth default wrong}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth someone foobar}
        assert_error "NOAUTH Authentication required." {$c ping}
        $c close
    }

    test "AUTH with the right password, then commands work" {
        set c [vk_client]
        assert_equal OK [$c auth foobar]
        assert_equal PONG [$c ping]
        assert_equal OK [$c set k v]
        assert_equal v [$c get k]
        $c close
    }

    test "AUTH default <password>" {
        set c [vk_client]
        assert_equal OK [$c auth default foobar]
        assert_equal PONG [$c ping]
        $c close
    }

    test "A failed AUTH keeps an authenticated connection authenticated" {
        set c [vk_client]
        $c auth foobar
        catch {$c auth wrong}
        assert_equal PONG [$c ping]
        $c close
    }

    test "AUTH and a command pipelined in one write" {
        set c [vk_client]
        $c readraw 1
        $c write "AUTH foobar\r\nPING\r\n"
        $c flush
        assert_equal "+OK" [$c read]
        assert_equal "+PONG" [$c read]
        $c close
    }

    test "Wrong passwords are counted in INFO errorstats" {
        set c [vk_client]
        $c auth foobar
        $c config resetstat
        catch {$c auth wrong}
        assert_match "*errorstat_WRONGPASS:count=1*" [$c info errorstats]
        $c close
    }

    # acl_access_denied_auth is in INFO since Valkey 8 / Redis 7.2.
    tags {valkey-only} {
        test "Failed authentications are counted in INFO acl_access_denied_auth" {
            set c [vk_client]
            $c auth foobar
            $c config resetstat
            catch {$c auth nosuchuser foobar}
            assert_match "*acl_access_denied_auth:1\r*" [$c info stats]
            catch {$c hello 3 auth default wrong}
            catch {$c auth wrong}
            assert_match "*acl_access_denied_auth:3\r*" [$c info stats]
            $c config resetstat
            assert_match "*acl_access_denied_auth:0\r*" [$c info stats]
            $c close
        }
    }

    test "HELLO before AUTH is refused" {
        set c [vk_client]
        assert_error "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO *AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time" {$c hello 3}
        assert_error "NOAUTH HELLO must be called with the client already authenticated*" {$c hello}
        $c close
    }

    test "HELLO AUTH with the right password, and SETNAME" {
        set c [vk_client]
        set reply [$c hello 3 auth default foobar setname myconn]
        assert_equal 3 [dict get $reply proto]
        assert_equal [$c client id] [dict get $reply id]
        assert_equal myconn [$c client getname]
        assert_equal PONG [$c ping]
        $c close
    }

    test "HELLO 2 AUTH keeps RESP2" {
        set c [vk_client]
        set reply [$c hello 2 auth default foobar]
        assert_equal 2 [dict get $reply proto]
        assert_equal standalone [dict get $reply mode]
        assert_equal master [dict get $reply role]
        assert_equal {} [dict get $reply modules]
        $c close
    }

    test "HELLO AUTH with a wrong password" {
        set c [vk_client]
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c hello 3 auth default nope}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c hello 3 auth bob foobar}
        assert_error "NOAUTH Authentication required." {$c ping}
        $c close
    }

    test "HELLO errors" {
        set c [vk_client]
        $c auth foobar
        assert_error "NOPROTO unsupported protocol version" {$c hello 4}
        assert_error "NOPROTO unsupported protocol version" {$c hello 1}
        assert_error "ERR Protocol version is not an integer or out of range" {$c hello abc}
        assert_error "ERR Syntax error in HELLO option 'foo'" {$c hello 3 foo}
        assert_error "ERR Syntax error in HELLO option 'auth'" {$c hello 3 auth default}
        assert_error "ERR Syntax error in HELLO option 'setname'" {$c hello 3 setname}
        assert_error "ERR Client names cannot contain spaces, newlines or special characters." \
            {$c hello 3 setname "a b"}
        # A failed HELLO changes nothing.
        assert_match "* resp=2*" [$c client info]
        $c close
    }

    tags {valkey-only} {
        test "HELLO before AUTH: the error names HELLO <proto> AUTH" {
            set c [vk_client]
            assert_error "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time" {$c hello 3}
            $c close
        }

        test "HELLO reports the server's name and version" {
            set c [vk_client]
            set reply [$c hello 2 auth default foobar]
            assert_equal valkey [dict get $reply server]
            assert_match "8.*" [dict get $reply version]
            $c close
        }
    }

    test "RESET de-authenticates the connection" {
        set c [vk_client]
        $c auth foobar
        assert_equal PONG [$c ping]
        assert_equal RESET [$c reset]
        assert_error "NOAUTH Authentication required." {$c ping}
        assert_equal OK [$c auth foobar]
        assert_equal PONG [$c ping]
        $c close
    }

    test "QUIT works before AUTH" {
        set c [vk_client]
        assert_equal OK [$c quit]
        $c close
    }

    test "Unauthenticated clients: multibulk length is limited" {
        set c [vk_client]
        $c readraw 1
        $c write "*100\r\n"
        $c flush
        assert_equal "-ERR Protocol error: unauthenticated multibulk length" [$c read]
        assert_error "*connection closed*" {$c read}
        $c close
    }

    test "Unauthenticated clients: bulk length is limited" {
        set c [vk_client]
        $c readraw 1
        $c write "*1\r\n\$100000000\r\n"
        $c flush
        assert_equal "-ERR Protocol error: unauthenticated bulk length" [$c read]
        assert_error "*connection closed*" {$c read}
        $c close
    }

    test "Unauthenticated clients: small requests get NOAUTH, not a protocol error" {
        set c [vk_client]
        $c readraw 1
        set arg [string repeat x 16384]
        $c write "*10\r\n\$3\r\ndel\r\n[string repeat "\$1\r\na\r\n" 8]\$16384\r\n$arg\r\n"
        $c flush
        assert_equal "-NOAUTH Authentication required." [$c read]
        $c readraw 0
        assert_equal OK [$c auth foobar]
        $c close
    }

    test "Authenticated clients may send long requests" {
        set c [vk_client]
        $c auth foobar
        set args {}
        for {set i 0} {$i < 100} {incr i} { lappend args $i }
        assert_equal 0 [$c del {*}$args]
        set big [string repeat y 100000]
        assert_equal $big [$c echo $big]
        $c close
    }
}
