# FUNCTION libraries and FCALL: load/replace, the load-time sandbox,
# register_function forms and errors, FCALL/FCALL_RO, LIST, DELETE, FLUSH,
# DUMP/RESTORE, STATS, KILL.

proc get_function_code {name funcname body} {
    return [format "#!lua name=%s\nredis.register_function('%s', function(KEYS, ARGV)\n %s \nend)" $name $funcname $body]
}

start_server {tags {scripting functions}} {
    test {FUNCTION - basic usage} {
        r function load [get_function_code test test {return 'hello'}]
        r fcall test 0
    } hello

    test {FUNCTION - load returns the library name and refuses duplicates} {
        assert_error {ERR Library 'test' already exists} {r function load [get_function_code test test {return 'x'}]}
        r fcall test 0
    } hello

    test {FUNCTION - REPLACE} {
        assert_equal test [r function load replace [get_function_code test test {return 'hello1'}]]
        r fcall test 0
    } hello1

    test {FUNCTION - a function name is unique across libraries} {
        assert_error {ERR Function test already exists} {r function load [get_function_code test2 test {return 1}]}
    }

    test {FUNCTION - a failed REPLACE keeps the old library} {
        catch {r function load replace "#!lua name=test\nreturn 1"} e
        assert_match {*No functions registered*} $e
        r fcall test 0
    } hello1

    test {FUNCTION - KEYS and ARGV are passed as arguments} {
        r function load [get_function_code kv kv {return {KEYS[1], ARGV[1], #KEYS, #ARGV}}]
        r fcall kv 1 k a
    } {k a 1 1}

    test {FUNCTION - metadata errors} {
        assert_error {ERR Missing library metadata} {r function load {return 1}}
        assert_error {ERR Engine 'luax' not found} {r function load "#!luax name=x\n"}
        assert_error {ERR Library name was not given} {r function load "#!lua\n"}
        assert_error {ERR Invalid metadata value given: foo=bar} {r function load "#!lua name=x foo=bar\n"}
        assert_error {ERR Library names can only contain letters, numbers, or underscores(_)*} {r function load "#!lua name=a-b\n"}
    }

    test {FUNCTION - metadata is checked in Valkey's order} {
        # The shebang line first, then its options, the name, the engine.
        assert_error {ERR Invalid library metadata} {r function load "#!lua name=x"}
        assert_error {ERR Invalid library metadata} {r function load "#!lua name=\"x\n"}
        assert_error {ERR Library name was not given} {r function load "#!luax\n"}
        assert_error {ERR Library names can only contain letters, numbers, or underscores(_)*} {r function load "#!luax name=a-b\n"}
        assert_error {ERR Library names can only contain letters, numbers, or underscores(_)*} {r function load "#!lua name=\n"}
        assert_error {ERR Invalid metadata value, name argument was given multiple times} {r function load "#!lua name=a name=b\n"}
        assert_error {ERR Invalid metadata value given: foo=bar} {r function load "#!luax name=x foo=bar\n"}
        assert_error {ERR Invalid metadata value given: lua} {r function load "#! lua name=x\n"}
        assert_error {ERR Engine '' not found} {r function load "#! name=x\n"}
        # Quotes group as in a shell line; "name=" is case-insensitive.
        r function load "#!LUA NAME=\"quoted\"\nredis.register_function('fq', function() return 'q' end)"
        assert_error {ERR Library 'quoted' already exists} {r function load "#!lua name=quoted\nredis.register_function('fq', function() return 1 end)"}
        set r [r fcall fq 0]
        r function delete quoted
        set r
    } {q}

    test {FUNCTION - the environment getfenv shows is read-only} {
        r function load replace "#!lua name=envlib\nredis.register_function('envw', function() rawset(getfenv(1), 'redis', 1) end)\nredis.register_function('envm', function() setmetatable(getfenv(1), {}) end)\nredis.register_function('envr', function() local n = 0 for k in pairs(getfenv(1)) do n = n + 1 end return n > 10 and 1 or 0 end)"
        assert_error {*Attempt to modify a readonly table*} {r fcall envw 0}
        assert_error {*Attempt to modify a readonly table*} {r fcall envm 0}
        set r [r fcall envr 0]
        r function delete envlib
        set r
    } {1}

    test {FUNCTION - compile and registration errors} {
        assert_error {ERR Error compiling function: user_function:2:*} {r function load "#!lua name=bad\nredis.register_function('f', function() return 1 end"}
        assert_error {ERR No functions registered} {r function load "#!lua name=bad\nreturn 1"}
        assert_error {*wrong number of arguments to *.register_function*} {r function load "#!lua name=bad\nredis.register_function('f', function() end, 'x')"}
        assert_error {*second argument to *.register_function must be a function*} {r function load "#!lua name=bad\nredis.register_function('f', 1)"}
        assert_error {*unknown flag given*} {r function load "#!lua name=bad\nredis.register_function{function_name='f', callback=function() end, flags={'nosuch'}}"}
        assert_error {*can only contain letters, numbers, or underscores*} {r function load "#!lua name=bad\nredis.register_function('f f', function() end)"}
        catch {r function list libraryname bad} e
        set e
    } {}

    test {FUNCTION - the load environment is restricted} {
        assert_error {*Script attempted to access nonexistent global variable 'call'*} {r function load "#!lua name=bad\nredis.call('ping')"}
        assert_error {*Script attempted to access nonexistent global variable 'error'*} {r function load "#!lua name=bad\nerror('x')"}
    }

    test {FUNCTION - runtime errors carry the function name and position} {
        r function load "#!lua name=errs\nlocal function f() return redis.call('nosuch') end\nredis.register_function('errf', f)\nredis.register_function('glob', function() return undefined_global end)"
        assert_error {ERR Unknown*command called from script script: errf, on @user_function:2.} {r fcall errf 0}
        assert_error {ERR user_function:4: Script attempted to access nonexistent global variable 'undefined_global' script: glob, on @user_function:4.} {r fcall glob 0}
    }

    test {FUNCTION - table form with flags and description, FCALL_RO} {
        r function load "#!lua name=ro\nredis.register_function{function_name='rof', callback=function(keys) return redis.call('get', keys\[1\]) end, flags={'no-writes'}, description='reads'}\nredis.register_function('rwf', function(keys) return redis.call('set', keys\[1\], 'v') end)\nredis.register_function{function_name='badro', callback=function(keys) return redis.call('set', keys\[1\], 'v') end, flags={'no-writes'}}"
        r set rokey 5
        assert_equal 5 [r fcall_ro rof 1 rokey]
        assert_error {ERR Can not execute a script with write flag using \*_ro command.} {r fcall_ro rwf 1 rokey}
        assert_error {ERR Write commands are not allowed from read-only scripts. script: badro*} {r fcall badro 1 rokey}
        assert_equal OK [r fcall rwf 1 rokey]
        r get rokey
    } v

    test {FCALL errors} {
        assert_error {ERR Function not found} {r fcall nosuchfunction 0}
        assert_error {*Number of keys can't be greater than number of args*} {r fcall test 1}
        assert_error {*Number of keys can't be negative*} {r fcall test -1}
    }

    test {COMMAND GETKEYS for FCALL} {
        r command getkeys fcall test 2 a b c
    } {a b}

    test {FUNCTION LIST} {
        set l [r function list libraryname ro]
        assert_equal 1 [llength $l]
        set lib [lindex $l 0]
        assert_equal ro [dict get $lib library_name]
        assert_equal LUA [dict get $lib engine]
        set byname {}
        foreach f [dict get $lib functions] { dict set byname [dict get $f name] $f }
        assert_equal {badro rof rwf} [lsort [dict keys $byname]]
        assert_equal reads [dict get $byname rof description]
        assert_equal {no-writes} [dict get $byname rof flags]
        assert_equal {} [dict get $byname rwf description]
        assert_equal {} [dict get $byname rwf flags]
        assert {![dict exists $lib library_code]}
    }

    test {FUNCTION LIST WITHCODE and patterns} {
        set l [r function list withcode libraryname te*]
        assert_equal 1 [llength $l]
        assert_match "#!lua name=test*hello1*" [dict get [lindex $l 0] library_code]
        assert_equal {} [r function list libraryname nomatch*]
        assert_equal 4 [llength [r function list]]
    }

    test {FUNCTION DELETE} {
        assert_error {ERR Library not found} {r function delete nosuchlib}
        assert_equal OK [r function delete kv]
        assert_error {ERR Function not found} {r fcall kv 0}
        llength [r function list]
    } 3

    test {FUNCTION STATS} {
        set s [r function stats]
        assert_equal {} [dict get $s running_script]
        set lua [dict get [dict get $s engines] LUA]
        list [dict get $lua libraries_count] [dict get $lua functions_count]
    } {3 6}

    test {FUNCTION DUMP and RESTORE} {
        set dump [r function dump]
        assert_equal OK [r function flush]
        assert_equal {} [r function list]
        assert_equal OK [r function restore $dump]
        assert_equal hello1 [r fcall test 0]
        assert_error {ERR Library*already exists*} {r function restore $dump}
        assert_equal OK [r function restore $dump replace]
        assert_equal OK [r function restore $dump flush]
        assert_error {*payload version or checksum are wrong*} {r function restore "bad payload"}
        assert_error {*Wrong restore policy*} {r function restore $dump nosuch}
        llength [r function list]
    } 3

    test {FUNCTION FLUSH} {
        assert_error {*FUNCTION FLUSH only supports SYNC|ASYNC option*} {r function flush nosuch}
        assert_equal OK [r function flush sync]
        assert_equal OK [r function flush async]
        r function list
    } {}

    test {FUNCTION KILL when nothing runs} {
        assert_error {NOTBUSY No scripts in execution right now.} {r function kill}
    }

    test {FUNCTION HELP} {
        assert_match {*LOAD \[REPLACE\]*} [r function help]
    }

    test {FUNCTION - RESP3 conversions inside a function} {
        r hset fh a 1
        r function load "#!lua name=resp3\nredis.register_function('r3', function() redis.setresp(3); return redis.call('hgetall', 'fh') end)"
        r hello 3
        set m [r fcall r3 0]
        r hello 2
        set m
    } {a 1}

    tags {valkey-only} {
        test {FUNCTION - register_function errors in Valkey's words} {
            set cases {
                {redis.register_function('f')}
                {ERR Error registering functions: ERR calling server.register_function with a single argument is only applicable to Lua table (representing named arguments).}
                {redis.register_function()}
                {ERR Error registering functions: ERR wrong number of arguments to server.register_function}
                {redis.register_function(1, function() end)}
                {ERR Error registering functions: ERR first argument to server.register_function must be a string}
                {redis.register_function('f', 'nope')}
                {ERR Error registering functions: ERR second argument to server.register_function must be a function}
                {redis.register_function{function_name='f'}}
                {ERR Error registering functions: ERR server.register_function must get a callback argument}
                {redis.register_function{callback=function() return 1 end}}
                {ERR Error registering functions: ERR server.register_function must get a function name argument}
                {redis.register_function{function_name='f', callback=function() return 1 end, foo=1}}
                {ERR Error registering functions: ERR unknown argument given to server.register_function}
                {redis.register_function{function_name='f', callback=function() return 1 end, flags='no-writes'}}
                {ERR Error registering functions: ERR flags argument to server.register_function must be a table representing function flags}
                {redis.register_function{function_name='f', callback=function() return 1 end, flags={'bogus'}}}
                {ERR Error registering functions: ERR unknown flag given}
                {redis.register_function{function_name='f', callback=function() return 1 end, description={}}}
                {ERR Error registering functions: ERR description argument given to server.register_function must be a string}
                {redis.register_function('bad-name', function() return 1 end)}
                {ERR Function names can only contain letters, numbers, or underscores(_) and must be at least one character long}
                {redis.register_function('f', function() return 1 end) redis.register_function('f', function() return 2 end)}
                {ERR Function already exists in the library}
            }
            foreach {code expected} $cases {
                catch {r function load "#!lua name=lib\n$code"} e
                assert_equal $expected $e
            }
            assert_equal {} [r function list libraryname lib]
        }

        test {FUNCTION LOAD - options and metadata errors} {
            assert_error {ERR Unknown option given: BADOPT} {r function load BADOPT "#!lua name=x\n"}
            assert_error {ERR Invalid library metadata} {r function load "#!lua name=x"}
            assert_error {ERR Missing library metadata} {r function load replace}
            r function load replace replace [get_function_code optlib optf {return 'opt'}]
            r fcall optf 0
        } opt

        test {FUNCTION LOAD - a library whose code never ends times out} {
            set start [clock milliseconds]
            catch {r function load "#!lua name=spin\nlocal a = 1\nwhile true do a = a + 1 end"} e
            assert_match {*FUNCTION LOAD timeout*} $e
            assert_range [expr {[clock milliseconds] - $start}] 400 5000
            assert_equal {} [r function list libraryname spin]
            r ping
        } PONG

        test {FCALL - a numkeys that is not a number} {
            assert_error {ERR Bad number of keys provided} {r fcall optf one}
            assert_error {ERR Bad number of keys provided} {r fcall optf +1 k}
        }

        test {FUNCTION - function names are case-insensitive} {
            r function load [get_function_code caselib MixedCase {return 'mixed'}]
            assert_equal mixed [r fcall mixedcase 0]
            assert_equal mixed [r fcall MIXEDCASE 0]
            assert_error {ERR Function mixedCASE already exists} {r function load [get_function_code caselib2 mixedCASE {return 1}]}
            assert_error {ERR Function already exists in the library} {r function load "#!lua name=caselib3\nredis.register_function('ab', function() end)\nredis.register_function('AB', function() end)"}
            r function delete caselib
            assert_error {ERR Function not found} {r fcall mixedcase 0}
        }

        test {FUNCTION LOAD - a library whose code calls math.random} {
            # The load run sees only the server API: math is for the functions.
            assert_error {*attempted to access nonexistent global variable 'math'*} {r function load "#!lua name=rndlib\nreturn math.random()"}
            r function load "#!lua name=rndlib\nredis.register_function('rnd', function() return math.random(10) >= 1 end)"
            r fcall rnd 0
        } 1

        test {FUNCTION - server.call errors in Valkey's words} {
            r function load "#!lua name=callerr\nredis.register_function('unk', function() return server.call('nope') end)\nredis.register_function('ar', function() return redis.call('get') end)"
            assert_error {ERR Unknown command called from script script: unk, on @user_function:2.} {r fcall unk 0}
            assert_error {ERR Wrong number of args calling command from script script: ar, on @user_function:3.} {r fcall ar 0}
        }

        test {FUNCTION - server.register_function alias} {
            r function load "#!lua name=alias\nserver.register_function('viaserver', function() return server.call('ping') end)"
            r fcall viaserver 0
        } PONG
    }
}

start_server {tags {scripting functions} overrides {busy-reply-threshold 50} log_allow {"*Slow script detected*"}} {
    test {FUNCTION KILL stops a busy read-only function} {
        r function load "#!lua name=busy\nredis.register_function{function_name='spin', callback=function() while true do end end, flags={'no-writes'}}"
        set rd [vk_deferring_client]
        $rd fcall spin 0
        after 200
        assert_error {BUSY*} {r ping}
        set st [r function stats]
        assert_equal spin [dict get [dict get $st running_script] name]
        assert_error {BUSY*} {r script kill}
        assert_equal OK [r function kill]
        assert_error {*killed by user*} {$rd read}
        r ping
    } PONG
}

set fdir ""
start_server {tags {scripting functions needs:debug} overrides {enable-debug-command yes}} {
    set fdir [srv dir]
    test {Functions survive DEBUG RELOAD} {
        r function load "#!lua name=keep\nredis.register_function('kept', function(keys) return redis.call('get', keys\[1\]) end)"
        r set kk vv
        assert_equal OK [r debug reload]
        assert_equal vv [r fcall kept 1 kk]
        assert_equal keep [dict get [lindex [r function list] 0] library_name]
    }

    test {Functions are saved in the RDB file} {
        r save
    } OK
}

start_server [list tags {scripting functions} overrides [list dir $fdir]] {
    test {Functions survive an RDB round trip (restart on the saved file)} {
        assert_equal vv [r fcall KEPT 1 kk]
        assert_equal keep [dict get [lindex [r function list] 0] library_name]
    }
}
