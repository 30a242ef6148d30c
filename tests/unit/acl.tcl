# ACL users and rules (src/acl.c): ACL SETUSER and its rules, selectors,
# AUTH/HELLO as a user, the NOPERM checks of commands, keys and channels
# (top level, MULTI/EXEC, scripts), ACL LOG, DRYRUN, CAT, GENPASS, DELUSER,
# CLIENT LIST/KILL by user, INFO counters, `user` lines in the
# configuration, aclfile with ACL LOAD/SAVE, and protected mode. Tests of
# what Redis 7.0 says or shows otherwise (messages reworded in 7.2,
# sanitize-payload on new users, ACL LOG's entry ids, INFO's counters) are
# tagged valkey-only.

proc acl_client {user pass} {
    set c [vk_client]
    $c auth $user $pass
    return $c
}

start_server {tags {"acl"}} {
    tags {valkey-only} {
        test "The default user: on, nopass, every permission" {
            assert_equal {{user default on nopass sanitize-payload ~* &* +@all}} [r acl list]
            set u [r acl getuser default]
            assert_equal {on nopass sanitize-payload} [dict get $u flags]
            assert_equal {} [dict get $u passwords]
            assert_equal {+@all} [dict get $u commands]
            assert_equal {~*} [dict get $u keys]
            assert_equal {&*} [dict get $u channels]
            assert_equal {} [dict get $u selectors]
            assert_equal default [r acl whoami]
            assert_equal {default} [r acl users]
        }
    }

    tags {valkey-only} {
        test "ACL SETUSER creates a user that is off with no permissions" {
            assert_equal OK [r acl setuser newbie]
            assert_equal {user newbie off sanitize-payload resetchannels -@all} [lindex [r acl list] 1]
            assert_equal {default newbie} [r acl users]
            assert_equal {} [r acl getuser nosuchuser]
        }
    }

    tags {valkey-only} {
        test "ACL LIST shows passwords as SHA-256, key patterns, channels, commands and selectors" {
            r acl setuser alice on >pw ~foo* %R~bar %W~baz &ch* +get +set {(~x* +incr)}
            set line [lsearch -inline [r acl list] "user alice *"]
            assert_equal "user alice on sanitize-payload #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~foo* %R~bar %W~baz resetchannels &ch* -@all +get +set (~x* resetchannels -@all +incr)" $line
            set u [r acl getuser alice]
            assert_equal {30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4} [dict get $u passwords]
            assert_equal {~foo* %R~bar %W~baz} [dict get $u keys]
            assert_equal {&ch*} [dict get $u channels]
            assert_equal {-@all +get +set} [dict get $u commands]
            set sel [lindex [dict get $u selectors] 0]
            assert_equal {-@all +incr} [dict get $sel commands]
            assert_equal {~x*} [dict get $sel keys]
        }
    }

    tags {valkey-only} {
        test "Command rules are kept compacted: a later rule replaces an earlier one for the same name" {
            r acl setuser rules reset +@all -@hash -@slow +hget
            assert_equal {+@all -@hash -@slow +hget} [dict get [r acl getuser rules] commands]
            r acl setuser rules -@all +@hash +@slow +@hash
            assert_equal {-@all +@slow +@hash} [dict get [r acl getuser rules] commands]
            r acl setuser rules -@all +hget +hset -hget
            assert_equal {-@all +hset -hget} [dict get [r acl getuser rules] commands]
            r acl setuser rules -@all +client -client|id -client|kill
            assert_equal {-@all +client -client|id -client|kill} [dict get [r acl getuser rules] commands]
            r acl setuser rules -@all +config|get +config
            assert_equal {-@all +config} [dict get [r acl getuser rules] commands]
            r acl setuser rules allcommands
            assert_equal {+@all} [dict get [r acl getuser rules] commands]
            r acl setuser rules nocommands
            assert_equal {-@all} [dict get [r acl getuser rules] commands]
        }
    }

    tags {valkey-only} {
        test "ACL SETUSER errors name the rule, and change nothing" {
            r acl setuser atomic on >pw +get
            set before [r acl getuser atomic]
            assert_error "ERR Error in ACL SETUSER modifier 'foo': Syntax error" {r acl setuser atomic +set foo}
            assert_error "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL" {r acl setuser atomic +nosuch}
            assert_error "ERR Error in ACL SETUSER modifier '+@nosuch': Unknown command or category name in ACL" {r acl setuser atomic +@nosuch}
            assert_error "ERR Error in ACL SETUSER modifier '-select|0': Unknown command or category name in ACL" {r acl setuser atomic -select|0}
            assert_error "ERR Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a subcommand is not supported" {r acl setuser atomic +config|get|x}
            assert_error "ERR Error in ACL SETUSER modifier '%X~a': Syntax error" {r acl setuser atomic %X~a}
            assert_error "ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters" {r acl setuser atomic #abc}
            assert_error "ERR Error in ACL SETUSER modifier '<nosuch': The password you are trying to remove from the user does not exist" {r acl setuser atomic <nosuch}
            assert_error "ERR Error in ACL SETUSER modifier '~b': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns" {r acl setuser atomic allkeys ~b}
            assert_error "ERR Error in ACL SETUSER modifier '&x': Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels" {r acl setuser atomic allchannels &x}
            # Valkey names the argument that opened the selector.
            assert_error "ERR Unmatched parenthesis in acl selector starting at '(+get'." {r acl setuser atomic (+get ~a}
            assert_error "ERR Error in ACL SETUSER modifier '(nosuch)': Syntax error" {r acl setuser atomic (nosuch)}
            assert_equal $before [r acl getuser atomic]
            assert_error "ERR Usernames can't contain spaces or null characters" {r acl setuser "a b" on}
            # allkeys / allchannels may be repeated.
            assert_equal OK [r acl setuser atomic allkeys allkeys allchannels allchannels]
            # A failed SETUSER of a new user does not create it.
            assert_error "*Syntax error*" {r acl setuser ghost on foo}
            assert_equal {} [r acl getuser ghost]
        }
    }

    tags {valkey-only} {
        test "Passwords: >, <, #, !, nopass, resetpass" {
            set h [string repeat a 64]
            r acl setuser pw on >one >two #$h
            assert_equal 3 [llength [dict get [r acl getuser pw] passwords]]
            r acl setuser pw <one !$h
            assert_equal {3fc4ccfe745870e2c0d99f71f30ff0656c8dedd41cc1d7d3d376b0dbe685e2f3} [dict get [r acl getuser pw] passwords]
            r acl setuser pw nopass
            assert_equal {on nopass sanitize-payload} [dict get [r acl getuser pw] flags]
            assert_equal {} [dict get [r acl getuser pw] passwords]
            r acl setuser pw resetpass
            assert_equal {on sanitize-payload} [dict get [r acl getuser pw] flags]
            r acl setuser pw skip-sanitize-payload
            assert_equal {on skip-sanitize-payload} [dict get [r acl getuser pw] flags]
        }
    }

    test "AUTH user pass: right, wrong, disabled, nopass" {
        r acl setuser bob on >secret +@all ~*
        set c [vk_client]
        assert_equal OK [$c auth bob secret]
        assert_equal bob [$c acl whoami]
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth bob nope}
        # A failed AUTH keeps the identity the connection had.
        assert_equal bob [$c acl whoami]
        r acl setuser bob off
        assert_error "WRONGPASS*" {$c auth bob secret}
        # Disabling a user does not disconnect its clients (as Valkey).
        assert_equal bob [$c acl whoami]
        r acl setuser bob on nopass
        assert_equal OK [$c auth bob anything]
        assert_error "WRONGPASS*" {$c auth nosuchuser x}
        $c close
    }

    test "HELLO AUTH authenticates as a user; RESET goes back to default" {
        r acl setuser carol on >pc +@all ~*
        set c [vk_client]
        set reply [$c hello 3 auth carol pc]
        assert_equal 3 [dict get $reply proto]
        assert_equal carol [$c acl whoami]
        assert_error "WRONGPASS*" {$c hello 3 auth carol wrong}
        assert_equal RESET [$c reset]
        assert_equal default [$c acl whoami]
        $c close
    }

    tags {valkey-only} {
        test "NOPERM for a command, with the user's name and the command's full name" {
            r acl setuser limited on >p ~* +get +acl|whoami
            set c [acl_client limited p]
            assert_equal {} [$c get x]
            assert_error "NOPERM User limited has no permissions to run the 'set' command" {$c set x 1}
            assert_error "NOPERM User limited has no permissions to run the 'acl|list' command" {$c acl list}
            assert_equal limited [$c acl whoami]
            $c close
        }
    }

    tags {valkey-only} {
        test "Key permissions follow the key specs: %R~ reads, %W~ writes, ~ both" {
            r acl setuser keys on >p +@all %R~r* %W~w* ~rw*
            set c [acl_client keys p]
            r set r1 v
            assert_equal v [$c get r1]
            assert_error "NOPERM No permissions to access a key" {$c set r1 x}
            assert_equal OK [$c set w1 x]
            assert_error "NOPERM No permissions to access a key" {$c get w1}
            # SET with GET reads the old value too.
            assert_error "NOPERM No permissions to access a key" {$c set w1 y get}
            assert_equal OK [$c set rw1 a]
            assert_equal a [$c set rw1 b get]
            # A command that neither reads nor writes data (EXISTS) is allowed
            # by any pattern.
            assert_equal 1 [$c exists w1]
            # LPOS reads the list (its key spec is RO access).
        assert_error "NOPERM No permissions to access a key" {$c lpos w1 a}
        # Every key of a multi-key command is checked.
            assert_error "NOPERM No permissions to access a key" {$c mget r1 x1}
            # COPY reads its source and writes its destination.
            assert_equal 1 [$c copy r1 w2]
            assert_error "NOPERM No permissions to access a key" {$c copy w1 w3}
            $c close
        }
    }

    test "Key patterns: literals, prefix*, globs (also starting with a wildcard) and escapes match as glob patterns do" {
        r acl setuser pat on >p +get ~exact ~pre:* {~g?b[0-9]*x} {~esc\*} {~?q*} ~e2
        set c [acl_client pat p]
        foreach {key ok} {exact 1 exactly 0 exac 0 pre: 1 pre:anything 1 pre 0 gab3x 1 gab3yyx 1 gb3x 0 gab3 0
                          esc* 1 escx 0 {} 0 e2 1 e 0 eq 1 zqzz 1 qz 0} {
            if {$ok} {
                assert_equal {} [$c get $key]
            } else {
                assert_error "NOPERM*" {$c get $key}
            }
        }
        $c close
    }

    tags {valkey-only} {
        test "Channel permissions: PUBLISH, SUBSCRIBE match patterns; PSUBSCRIBE must be granted literally" {
            r acl setuser chan on >p +@all ~* resetchannels &news.* &lit*
            set c [acl_client chan p]
            assert_equal 0 [$c publish news.today hi]
            assert_error "NOPERM No permissions to access a channel" {$c publish other hi}
            assert_error "NOPERM No permissions to access a channel" {$c psubscribe news.t*}
            $c close
            set c [acl_client chan p]
            assert_equal {psubscribe lit* 1} [$c psubscribe lit*]
            $c close
            set c [acl_client chan p]
            assert_error "NOPERM No permissions to access a channel" {$c subscribe news.x other}
            assert_equal {subscribe news.x 1} [$c subscribe news.x]
            $c close
        }
    }

    tags {valkey-only} {
        test "SORT BY and GET need a user that may read every key" {
            r acl setuser sorter on >p +@all ~s* ~w*
            r rpush slist 3 1 2
            set c [acl_client sorter p]
            assert_equal {1 2 3} [$c sort slist]
            assert_error "ERR BY option of SORT denied due to insufficient ACL permissions." {$c sort slist by w_*}
            assert_error "ERR GET option of SORT denied due to insufficient ACL permissions." {$c sort slist get w_*}
            assert_error "ERR BY option of SORT denied*" {$c eval {return redis.call('sort', KEYS[1], 'by', 'nosort')} 1 slist}
            r acl setuser sorter %R~*
            assert_equal {3 1 2} [$c sort slist by nosort]
            $c close
        }
    }

    tags {valkey-only} {
        test "Selectors: a command is allowed if one selector allows it all" {
            r acl setuser sel on >p resetkeys -@all +get ~app:* {(+set ~cache:*)} {(%R~ro:* +get)}
            set c [acl_client sel p]
            assert_equal {} [$c get app:1]
            assert_equal {} [$c get ro:1]
            assert_equal OK [$c set cache:1 v]
            assert_error "NOPERM No permissions to access a key" {$c set app:1 v}
            assert_error "NOPERM User sel has no permissions to run the 'del' command" {$c del app:1}
            r acl setuser sel clearselectors
            assert_error "NOPERM*" {$c set cache:1 v}
            assert_equal {} [dict get [r acl getuser sel] selectors]
            $c close
        }
    }

    tags {valkey-only} {
        test "Subcommands and first arguments" {
            r acl setuser sub on >p ~* -@all +config|get +select|0 +client -client|kill
            set c [acl_client sub p]
            assert_match {maxmemory *} [$c config get maxmemory]
            assert_error "NOPERM User sub has no permissions to run the 'config|set' command" {$c config set maxmemory 0}
            assert_equal OK [$c select 0]
            assert_error "NOPERM User sub has no permissions to run the 'select' command" {$c select 1}
            assert_match {*} [$c client id]
            assert_error "NOPERM User sub has no permissions to run the 'client|kill' command" {$c client kill id 999999}
            $c close
        }
    }

    test "MULTI: refused commands abort EXEC; EXEC checks again with the rules of the moment" {
        r acl setuser tx on >p ~* +multi +exec +get +set
        set c [acl_client tx p]
        $c multi
        assert_error "NOPERM*" {$c incr n}
        assert_error "EXECABORT*" {$c exec}
        $c multi
        $c set k v
        $c get k
        r acl setuser tx -get
        $c readraw 1
        $c send exec
        assert_equal {*2} [$c read]
        assert_equal {+OK} [$c read]
        assert_equal {-NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: no permission to execute the command or subcommand} [$c read]
        $c close
        set entry [lindex [r acl log 1] 0]
        assert_equal multi [dict get $entry context]
        assert_equal get [dict get $entry object]
        assert_equal v [r get k]
    }

    tags {valkey-only} {
        test "Scripts run with the caller's permissions" {
            r acl setuser lua on >p ~a* +eval +get +incr
            set c [acl_client lua p]
            r set a1 5
            assert_equal 5 [$c eval {return redis.call('get', KEYS[1])} 1 a1]
            assert_error "*ACL failure in script: No permissions to access a key*" {$c eval {return redis.call('get', 'b1')} 0}
            assert_error "*ACL failure in script: User lua has no permissions to run the 'set' command*" {$c eval {return redis.call('set', 'a1', 1)} 0}
            assert_equal {0 1} [$c eval {return {redis.acl_check_cmd('set', 'a1', 1) and 1 or 0, redis.acl_check_cmd('incr', 'a1') and 1 or 0}} 0]
            set entry [lindex [r acl log 1] 0]
            assert_equal lua [dict get $entry context]
            assert_equal set [dict get $entry object]
            # EVAL's own keys are checked before the script runs.
            assert_error "NOPERM No permissions to access a key" {$c eval {return 1} 1 b1}
            $c close
        }
    }

    tags {valkey-only} {
        test "Functions run with the caller's permissions too" {
            r function load replace "#!lua name=acllib\nredis.register_function('setit', function(keys, args) return redis.call('set', keys\[1\], args\[1\]) end)"
            r acl setuser fn on >p ~f:* +fcall +get
            set c [acl_client fn p]
            assert_error "*ACL failure in script: User fn has no permissions to run the 'set' command*" {$c fcall setit 1 f:1 v}
            r acl setuser fn +set
            assert_equal OK [$c fcall setit 1 f:1 v]
            assert_error "NOPERM No permissions to access a key" {$c fcall setit 1 other v}
            $c close
            r function flush
        }
    }

    tags {valkey-only} {
        test "ACL DRYRUN" {
            r acl setuser dry on ~app:* +get
            assert_equal OK [r acl dryrun dry get app:1]
            assert_equal "User dry has no permissions to run the 'set' command" [r acl dryrun dry set app:1 v]
            assert_equal "User dry has no permissions to access the 'other' key" [r acl dryrun dry get other]
            assert_error "ERR User 'nouser' not found" {r acl dryrun nouser get x}
            assert_error "ERR Command 'nosuchcmd' not found" {r acl dryrun dry nosuchcmd}
            assert_error "ERR wrong number of arguments for 'get' command" {r acl dryrun dry get}
        }
    }

    tags {valkey-only} {
        test "ACL LOG: entries, grouping of repeats, auth failures, RESET, acllog-max-len" {
            r acl log reset
            r acl setuser logged on >p ~k* +get
            set c [acl_client logged p]
            catch {$c get other}
            catch {$c get other}
            catch {$c set k 1}
            catch {$c auth logged wrong}
            set log [r acl log]
            assert_equal 3 [llength $log]
            set auth [lindex $log 0]
            assert_equal auth [dict get $auth reason]
            assert_equal toplevel [dict get $auth context]
            assert_equal logged [dict get $auth username]
            set cmd [lindex $log 1]
            assert_equal command [dict get $cmd reason]
            assert_equal set [dict get $cmd object]
            set key [lindex $log 2]
            assert_equal key [dict get $key reason]
            assert_equal other [dict get $key object]
            assert_equal 2 [dict get $key count]
            assert_match "*user=logged*" [dict get $key client-info]
            foreach f {age-seconds entry-id timestamp-created timestamp-last-updated} { assert [dict exists $key $f] }
            assert_equal 1 [llength [r acl log 1]]
            r config set acllog-max-len 2
            catch {$c get other2}
            assert_equal 2 [llength [r acl log]]
            r config set acllog-max-len 128
            assert_equal OK [r acl log reset]
            assert_equal {} [r acl log]
            assert_error "ERR value is not an integer*" {r acl log x}
            $c close
        }
    }

    tags {valkey-only} {
        test "INFO counts denials by kind" {
            r config resetstat
            r acl setuser counted on >p ~k* &c* +get +publish
            set c [acl_client counted p]
            catch {$c set k 1}
            catch {$c get x}
            catch {$c publish x m}
            catch {$c auth counted wrong}
            set info [r info stats]
            assert_match "*acl_access_denied_auth:1*" $info
            assert_match "*acl_access_denied_cmd:1*" $info
            assert_match "*acl_access_denied_key:1*" $info
            assert_match "*acl_access_denied_channel:1*" $info
            $c close
        }
    }

    test "CLIENT LIST shows the user; CLIENT KILL USER kills its clients" {
        r acl setuser lister on >p +@all ~*
        set c [acl_client lister p]
        assert_match "*user=lister*" [r client list id [$c client id]]
        assert_match "*user=default*" [r client list id [r client id]]
        assert_equal 1 [r client kill user lister]
        assert_error "*" {$c ping}
        assert_error "ERR No such user 'nosuch'" {r client kill user nosuch}
    }

    test "ACL DELUSER disconnects the user's clients; default cannot be removed" {
        r acl setuser doomed on >p +@all ~*
        set c [acl_client doomed p]
        assert_equal PONG [$c ping]
        assert_error "ERR The 'default' user cannot be removed" {r acl deluser default}
        assert_equal 1 [r acl deluser doomed nosuch]
        assert_error "*" {$c ping}
        assert_equal {} [r acl getuser doomed]
        assert_equal 0 [r acl deluser doomed]
    }

    test "Revoking a channel disconnects the user's subscribers to it" {
        r acl setuser subber on >p +@all ~* &feed
        set rd [vk_deferring_client]
        $rd auth subber p
        $rd read
        $rd subscribe feed
        $rd read
        r acl setuser subber resetchannels &other
        wait_for_condition 50 20 {[r pubsub numsub feed] eq {feed 0}} { fail "subscriber not disconnected" }
    }

    test "ACL CAT lists categories, and the commands of one" {
        set cats [r acl cat]
        foreach c {keyspace read write set sortedset list hash string bitmap hyperloglog geo stream pubsub admin fast slow blocking dangerous connection transaction scripting} {
            assert {[lsearch $cats $c] >= 0}
        }
        set hash [r acl cat hash]
        assert {[lsearch $hash hget] >= 0}
        assert {[lsearch $hash get] < 0}
        assert {[lsearch [r acl cat dangerous] flushall] >= 0}
        assert {[lsearch [r acl cat admin] config|set] >= 0}
        # Containers are listed too; CLIENT's is only @slow, as in Valkey.
        assert {[lsearch [r acl cat slow] client] >= 0}
        assert {[lsearch [r acl cat connection] client] < 0}
        assert {[lsearch [r acl cat connection] client|id] >= 0}
        assert_error "ERR Unknown category 'nosuch'" {r acl cat nosuch}
    }

    test "ACL GENPASS" {
        assert_match {[0-9a-f]*} [r acl genpass]
        assert_equal 64 [string length [r acl genpass]]
        assert_equal 2 [string length [r acl genpass 5]]
        assert_error "ERR ACL GENPASS argument must be the number of bits*" {r acl genpass 0}
        assert_error "ERR ACL GENPASS argument must be the number of bits*" {r acl genpass 5000}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'genpass'. Try ACL HELP." {r acl genpass 1 2}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'cat'. Try ACL HELP." {r acl cat read x}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'log'. Try ACL HELP." {r acl log 1 2}
        # ~* and &* may be given again; another pattern after them may not.
        assert_equal OK [r acl setuser stars ~* ~* &* &*]
    }

    tags {valkey-only} {
        test "ACL LOAD and SAVE need an aclfile" {
            assert_error "ERR This Valkey instance is not configured to use an ACL file*" {r acl load}
            assert_error "ERR This Valkey instance is not configured to use an ACL file*" {r acl save}
        }
    }

    tags {valkey-only} {
        test "requirepass is the default user's password" {
            r config set requirepass s3cret
            assert_equal {on sanitize-payload} [dict get [r acl getuser default] flags]
            set c [vk_client]
            assert_error "NOAUTH*" {$c ping}
            assert_equal OK [$c auth default s3cret]
            $c close
            r config set requirepass ""
            assert_equal {on nopass sanitize-payload} [dict get [r acl getuser default] flags]
        }
    }

    tags {valkey-only} {
        test "ACL SETUSER default: the default user's rules apply to unauthenticated clients" {
            r acl setuser default -flushall
            set c [vk_client]
            assert_error "NOPERM User default has no permissions to run the 'flushall' command" {$c flushall}
            $c close
            r acl setuser default +@all
        }
    }

    test "acl-pubsub-default allchannels gives new users every channel" {
        r config set acl-pubsub-default allchannels
        r acl setuser pubnew
        assert_equal {&*} [dict get [r acl getuser pubnew] channels]
        r config set acl-pubsub-default resetchannels
        r acl setuser pubnew2
        assert_equal {} [dict get [r acl getuser pubnew2] channels]
    }
}

start_server {tags {"acl external:skip"}} {
    tags {valkey-only} {
        test "CONFIG REWRITE writes ACL users as user lines, which load back" {
            r acl setuser saved on >pw ~s:* +get
            r acl setuser default -debug
            r config rewrite
            set fh [open [srv config_file]]
            set text [read $fh]
            close $fh
            assert_match "*\nuser saved on sanitize-payload #*~s:* resetchannels -@all +get\n*" $text
            assert_match "*\nuser default on nopass sanitize-payload ~* &* +@all -debug\n*" $text
            # Once more: the user lines are replaced, not added to.
            r config rewrite
            set fh [open [srv config_file]]
            set text2 [read $fh]
            close $fh
            assert_equal 1 [regexp -all {\nuser saved } $text2]
        }
    }
}

set acl_dir [tmp_path acl-files]
file mkdir $acl_dir
set users_conf [file join $acl_dir users.conf]
set fh [open $users_conf w]
puts $fh "user app on >apppw ~app:* +@read +@write (~shared:* +get)"
puts $fh "user default on nopass ~* &* +@all -flushall"
close $fh

start_server [list tags {"acl external:skip"} overrides [list include $users_conf]] {
    test "user lines of the configuration file define users" {
        set c [acl_client app apppw]
        assert_equal OK [$c set app:1 v]
        assert_error "NOPERM*" {$c set other v}
        assert_equal {} [$c get shared:1]
        $c close
        assert_error "NOPERM*" {r flushall}
        assert_equal {app default} [r acl users]
    }
}

set aclfile [file join $acl_dir users.acl]
set fh [open $aclfile w]
puts $fh "user fileuser on >fpw ~f:* +get +set"
puts $fh "user default on nopass ~* &* +@all"
close $fh

start_server [list tags {"acl external:skip"} overrides [list aclfile $aclfile]] {
    test "aclfile: users are loaded at start-up" {
        assert_equal {default fileuser} [r acl users]
        set c [acl_client fileuser fpw]
        assert_equal OK [$c set f:1 v]
        $c close
    }

    tags {valkey-only} {
        test "ACL SAVE writes the users; ACL LOAD reads them back, dropping users not in the file" {
            r acl setuser extra on >x +get
            assert_equal OK [r acl save]
            set fh [open $aclfile]
            set text [read $fh]
            close $fh
            assert_match "*user extra on sanitize-payload #* resetchannels -@all +get*" $text
            r acl setuser notsaved on >x +get
            set c [acl_client notsaved x]
            assert_equal OK [r acl load]
            assert_equal {default extra fileuser} [r acl users]
            # Its user is gone: the client was disconnected.
            assert_error "*" {$c ping}
        }
    }

    test "ACL LOAD of a broken file changes nothing and names the line" {
        r acl setuser live on nopass +get
        set before [r acl users]
        set fh [open $aclfile a]
        puts $fh "user broken on +nosuchcmd"
        close $fh
        assert_error "ERR *users.acl:?: Error in applying operation '+nosuchcmd': Unknown command or category name in ACL. WARNING: ACL errors detected, no change to the previously active ACL rules was performed" {r acl load}
        assert_equal $before [r acl users]
    }
}

test "user lines and aclfile together stop start-up" {
    set conf [file join $acl_dir both.conf]
    set fh [open $conf w]
    puts $fh "port [::vk::alloc_port]"
    puts $fh "aclfile $aclfile"
    puts $fh "user x on nopass +@all"
    close $fh
    set code [catch {exec timeout 20 $::vk::cfg(binary) $conf 2>@1} out]
    assert_equal 1 $code
    assert_match "*users defined in * and at the same setting an ACL file path is invalid*" $out
}

start_server {tags {"acl external:skip rdma:skip:loopback"}} {
    # Over RDMA: tests/rdma/run.sh (an RDMA peer is never loopback).
    tags {valkey-only} {
        test "Protected mode: a non-loopback client gets DENIED while the default user has no password" {
            set addr {}
            catch {
                foreach a [split [exec hostname -I]] {
                    if {[regexp {^\d+\.\d+\.\d+\.\d+$} $a] && ![string match 127.* $a]} { set addr $a; break }
                }
            }
            if {$addr eq {}} { skip "no non-loopback IPv4 address" }
            r config set bind "127.0.0.1 $addr"
            r config set protected-mode yes
            set port [srv port]
            # Through the suite's client, so that a run over TLS connects over TLS.
            set c [::vk::client_open $addr $port]
            $c readraw 1
            $c write "PING\r\n"
            $c flush
            set line [$c read]
            catch {$c close}
            assert_match "-DENIED Running in protected mode because protected mode is enabled and no password is set for the default user.*" $line
            # With a password for the default user the client may connect (and
            # must authenticate).
            r acl setuser default >pw
            set c [::vk::client_open $addr $port]
            assert_error "NOAUTH*" {$c ping}
            catch {$c close}
            r auth pw
            r acl setuser default nopass
            r config set bind 127.0.0.1
        }
    }
}
