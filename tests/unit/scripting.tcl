# Lua scripting: EVAL/EVALSHA/EVAL_RO/EVALSHA_RO, SCRIPT, reply conversions
# both ways (RESP2 and RESP3), errors and pcall, the sandbox, shebang flags,
# and busy scripts with SCRIPT KILL.  Valkey-only behaviour (the server.*
# alias, SERVER_* constants, Valkey's BUSY wording) is tagged valkey-only.

start_server {tags {scripting} log_allow {"*maxmemory value set via CONFIG SET*"}} {
    # ------------------------------------------------------------ Lua -> reply
    test {EVAL - Lua integer -> integer reply} {
        r eval {return 100.5} 0
    } 100

    test {EVAL - Lua string -> bulk reply} {
        r eval {return 'hello world'} 0
    } {hello world}

    test {EVAL - Lua true boolean -> integer reply 1} {
        r eval {return true} 0
    } 1

    test {EVAL - Lua false boolean -> null reply} {
        r eval {return false} 0
    } {}

    test {EVAL - Lua nil -> null reply} {
        r eval {return nil} 0
    } {}

    test {EVAL - Lua status table -> status reply} {
        r eval {return {ok='fine'}} 0
    } fine

    test {EVAL - Lua error table -> error reply} {
        assert_error {My Error} {r eval {return {err='My Error'}} 0}
    }

    test {EVAL - Lua table -> array reply, stops at the first nil} {
        r eval {return {1,2,3,'ciao',{1,2},nil,'after nil'}} 0
    } {1 2 3 ciao {1 2}}

    test {EVAL - Lua table with only hash part -> empty array} {
        r eval {return {a=1}} 0
    } {}

    test {EVAL - nested error inside an array} {
        set c [vk_client]
        $c readraw 1
        set first [$c eval {return {1, {err='XY nested'}}} 0]
        set lines [list $first [$c read] [$c read]]
        $c close
        set lines
    } {*2 :1 {-XY nested}}

    test {EVAL - error_reply and status_reply helpers} {
        # A message without a space has no code of its own: ERR is added.
        assert_error {ERR boom} {r eval {return redis.error_reply('boom')} 0}
        assert_error {ERR boom} {r eval {return redis.error_reply('-boom')} 0}
        assert_error {my error} {r eval {return redis.error_reply('my error')} 0}
        assert_error {MYCODE with code} {r eval {return redis.error_reply('-MYCODE with code')} 0}
        r eval {return redis.status_reply('STATUSY')} 0
    } STATUSY

    # ------------------------------------------------------------ reply -> Lua
    test {EVAL - server.call integer reply -> Lua number} {
        r set x 10
        r eval {local v = redis.call('incr', KEYS[1]); return {type(v), v}} 1 x
    } {number 11}

    test {EVAL - bulk reply -> Lua string} {
        r set mykey myval
        r eval {return redis.call('get', KEYS[1])} 1 mykey
    } myval

    test {EVAL - nil bulk reply -> Lua false} {
        r del nokey
        r eval {local v = redis.call('get', 'nokey'); return type(v) .. ':' .. tostring(v)} 0
    } {boolean:false}

    test {EVAL - status reply -> Lua table with ok field} {
        r eval {local v = redis.call('set', 'k', 'v'); return v['ok']} 0
    } OK

    test {EVAL - array reply -> Lua table} {
        r del mylist
        r rpush mylist a b c
        r eval {local t = redis.call('lrange', 'mylist', 0, -1); return {#t, t[1], t[3]}} 0
    } {3 a c}

    test {EVAL - empty array reply -> empty Lua table} {
        r del mylist
        r eval {return #redis.call('lrange', 'mylist', 0, -1)} 0
    } 0

    test {EVAL - error reply via pcall -> Lua table with err field} {
        r del mylist
        r rpush mylist a
        r eval {local e = redis.pcall('incr', 'mylist'); return e['err']} 0
    } {WRONGTYPE Operation against a key holding the wrong kind of value}

    test {EVAL - integer arguments are converted to strings} {
        r eval {redis.call('set', 'm', 10); redis.call('set', 'n', -7); return {redis.call('get','m'), redis.call('get','n')}} 0
    } {10 -7}

    tags {valkey-only} {
        # Redis 7.0 formats with %.17g ("3.1400000000000001"); Valkey uses
        # the shortest text that reads back the same number.
        test {EVAL - float arguments use the shortest round-trip text} {
            r eval {redis.call('set', 'n', 3.14); return redis.call('get','n')} 0
        } 3.14
    }

    test {EVAL - KEYS and ARGV by numkeys} {
        r eval {return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}} 2 k1 k2 a1 a2
    } {k1 k2 a1 a2 2 2}

    test {EVAL - numkeys errors} {
        assert_error {*Number of keys can't be greater than number of args*} {r eval {return 1} 3 a}
        assert_error {*Number of keys can't be negative*} {r eval {return 1} -1}
        assert_error {*value is not an integer*} {r eval {return 1} abc}
    }

    test {COMMAND GETKEYS for EVAL} {
        r command getkeys eval {return 1} 2 a b c
    } {a b}

    # ----------------------------------------------------------------- RESP3
    test {EVAL - RESP3 replies in Lua after setresp(3)} {
        r del h s z
        r hset h f v
        r sadd s m
        r zadd z 1.5 m
        set r1 [r eval {redis.setresp(3); local t = redis.call('hgetall', 'h'); return t['map']['f']} 0]
        set r2 [r eval {redis.setresp(3); local t = redis.call('smembers', 's'); return tostring(t['set']['m'])} 0]
        set r3 [r eval {redis.setresp(3); local t = redis.call('zscore', 'z', 'm'); return tostring(t['double'])} 0]
        set r4 [r eval {redis.setresp(3); return type(redis.call('get', 'nokey'))} 0]
        list $r1 $r2 $r3 $r4
    } {v true 1.5 nil}

    test {EVAL - RESP2 parsing of the same replies} {
        r eval {local t = redis.call('hgetall', 'h'); return {#t, t[1], t[2]}} 0
    } {2 f v}

    test {EVAL - Lua RESP3 tables -> RESP3 replies} {
        r hello 3
        set m [r eval {return {map={a=1}}} 0]
        set s [r eval {return {set={x=true}}} 0]
        set d [r eval {return {double=3.5}} 0]
        set b [r eval {return {big_number='123456789012345678901234567890'}} 0]
        set v [r eval {return {verbatim_string={format='txt', string='hello'}}} 0]
        set t [r eval {redis.setresp(3); return {true, false}} 0]
        set t2 [r eval {return {true, false}} 0]
        r hello 2
        list $m $s $d $b $v $t $t2
    } {{a 1} x 3.5 123456789012345678901234567890 hello {1 0} {1 {}}}

    test {EVAL - Lua RESP3 tables to a RESP2 client} {
        list [r eval {return {map={a=1}}} 0] [r eval {return {double=3.5}} 0] \
             [r eval {redis.setresp(3); return {true, false}} 0]
    } {{a 1} 3.5 {1 0}}

    test {EVAL - setresp argument errors} {
        assert_error {*RESP version must be 2 or 3*} {r eval {redis.setresp(4)} 0}
        assert_error {*requires one argument*} {r eval {redis.setresp()} 0}
    }

    # ------------------------------------------------------------- errors
    tags {valkey-only} {
        test {EVAL - server.call errors are raised with the script position} {
            catch {r eval {return redis.call('nosuchcommand')} 0} e
            assert_match {ERR Unknown command called from script script: *, on @user_script:1.} $e
            catch {r eval {return server.call('nosuchcommand')} 0} e
            assert_match {ERR Unknown command called from script script: *, on @user_script:1.} $e
        }

        test {EVAL - wrong arity from a script} {
            assert_error {ERR Wrong number of args calling command from script*} {r eval {return redis.call('get')} 0}
        }
    }

    test {EVAL - command errors keep their code} {
        r del mylist
        r rpush mylist a
        assert_error {WRONGTYPE*script: *, on @user_script:1.} {r eval {return redis.call('incr','mylist')} 0}
    }

    test {EVAL - redis.call needs an argument and string/number arguments} {
        assert_error {*Please specify at least one argument*} {r eval {return redis.call()} 0}
        assert_error {*must be strings or integers*} {r eval {return redis.call('ping', {})} 0}
    }

    tags {valkey-only} {
        test {EVAL - server.call argument errors in Valkey's words} {
            assert_error {ERR Please specify at least one argument for this call script:*} {r eval {return redis.call()} 0}
            assert_error {ERR Command arguments must be strings or integers script:*} {r eval {return redis.call('ping', {})} 0}
            assert_equal {ERR Please specify at least one argument for this call} [r eval {return redis.pcall()['err']} 0]
        }
    }

    test {EVAL - error() with a string gets ERR and the position} {
        assert_error {ERR user_script:1: boom script: *, on @user_script:1.} {r eval {error('boom')} 0}
        assert_error {ERR plain script: *} {r eval {error('plain', 0)} 0}
    }

    test {EVAL - error() with a table keeps its code} {
        assert_error {MYERR custom script: *} {r eval {error({err='MYERR custom'})} 0}
    }

    test {EVAL - runtime error on a later line} {
        assert_error {ERR user_script:3: attempt to index*on @user_script:3.} {r eval "local a = 1\nlocal t = nil\nreturn t.x" 0}
    }

    test {EVAL - compile errors} {
        assert_error {ERR Error compiling script (new function): user_script:1: *} {r eval {return x(} 0}
    }

    tags {valkey-only} {
        test {EVAL - pcall returns the error text of a failed server.call} {
            r eval {local ok, e = pcall(function() redis.call('nosuchcommand') end); return {tostring(ok), e}} 0
        } {false {ERR Unknown command called from script}}
    }

    test {EVAL - pcall with a Lua error} {
        r eval {local ok, e = pcall(function() error('x') end); return e} 0
    } {user_script:1: x}

    test {EVAL - redis.pcall does not raise} {
        r eval {local e = redis.pcall('nosuchcommand'); return type(e)} 0
    } table

    test {EVAL - noscript commands are refused} {
        assert_error {*This Redis command is not allowed from script*} {r eval {return redis.call('hello')} 0}
        assert_error {*This Redis command is not allowed from script*} {r eval {return redis.call('eval', 'return 1', 0)} 0}
    }

    # ------------------------------------------------------------- sandbox
    test {Globals protection reading an undeclared global variable} {
        assert_error {ERR user_script:1: Script attempted to access nonexistent global variable 'a'*} {r eval {return a} 0}
    }

    test {Globals protection setting an undeclared global*} {
        assert_error {*Attempt to modify a readonly table*} {r eval {a=10} 0}
    }

    test {Library tables are read-only} {
        assert_error {*Attempt to modify a readonly table*} {r eval {string.x = 1} 0}
        assert_error {*Attempt to modify a readonly table*} {r eval {redis.call = nil} 0}
        assert_error {*Attempt to modify a readonly table*} {r eval {rawset(_G, 'x', 1)} 0}
        assert_error {*Attempt to modify a readonly table*} {r eval {setmetatable(_G, nil)} 0}
    }

    test {No io, loadfile, dofile, print in the sandbox} {
        foreach name {io loadfile dofile print require package} {
            assert_error "*nonexistent global variable '$name'*" [list r eval "return $name" 0]
        }
    }

    tags {valkey-only} {
        # Valkey 8 keeps every global of its allow lists: the Lua base
        # functions but dofile/loadfile/print, the libraries, redis and its
        # alias server, KEYS/ARGV and the EVAL error handler.
        test {The global table holds exactly Valkey 8's names} {
            r eval {local t = {} for k in pairs(_G) do t[#t + 1] = k end table.sort(t) return t} 0
        } {ARGV KEYS _G _VERSION __redis__err__handler assert bit cjson cmsgpack collectgarbage coroutine error gcinfo getfenv getmetatable ipairs load loadstring math newproxy next os pairs pcall rawequal rawget rawset redis select server setfenv setmetatable string struct table tonumber tostring type unpack xpcall}

        test {getfenv, setfenv and newproxy work, the globals stay read-only} {
            assert_equal {1 1 userdata 1 7} [r eval {
                local p = newproxy(true)
                getmetatable(p).__index = function() return 7 end
                local function f() return y end
                setfenv(f, {y = 7})
                return {getfenv(1) == _G and 1 or 0, getfenv(0) == _G and 1 or 0, type(p),
                        type(getmetatable(p)) == 'table' and 1 or 0, f()}} 0]
            assert_error {*Attempt to modify a readonly table*} {r eval {getfenv(1).x = 1} 0}
            assert_error {*Attempt to modify a readonly table*} {r eval {rawset(getfenv(0), 'x', 1)} 0}
            assert_error {*Attempt to modify a readonly table*} {r eval {setmetatable(getfenv(1), {})} 0}
            # The thread's environment is what later scripts compile with.
            assert_error {*'setfenv' cannot change environment of given object*} {r eval {setfenv(0, {})} 0}
            assert_error {*'setfenv' cannot change environment of given object*} {r eval {setfenv(tostring, {})} 0}
            r eval {return type(redis.call)} 0
        } {function}

        test {__redis__err__handler turns an error into the error table} {
            r eval {local e = __redis__err__handler('boom') return {e.err, e.source, e.line}} 0
        } {{ERR boom} @user_script 1}

        test {server.acl_check_cmd argument errors} {
            assert_error {ERR Please specify at least one argument for this call script:*} {r eval {return server.acl_check_cmd()} 0}
            assert_error {ERR Command arguments must be strings or integers script:*} {r eval {return server.acl_check_cmd({})} 0}
            assert_error {ERR Command arguments must be strings or integers script:*} {r eval {return server.acl_check_cmd('get', {})} 0}
            assert_error {ERR Invalid command passed to server.acl_check_cmd() script:*} {r eval {return server.acl_check_cmd('nosuch')} 0}
            r eval {return {server.acl_check_cmd('get', 'k') and 1 or 0, redis.acl_check_cmd('set', 'k', 1) and 1 or 0}} 0
        } {1 1}
    }

    test {TIME returns the same value for the whole script} {
        r eval {
            local t0 = redis.call('time')
            local stop = os.clock() + 0.02
            while os.clock() < stop do end
            local t1 = redis.call('time')
            return t0[1] == t1[1] and t0[2] == t1[2]
        } 0
    } {1}

    test {SCRIPT SHOW returns the body of a cached script} {
        set body "#!lua flags=no-writes\nreturn 'shown'"
        set sha [r script load $body]
        assert_equal $body [r script show $sha]
        assert_equal $body [r script show [string toupper $sha]]
        r eval {return 'by eval'} 0
        assert_equal {return 'by eval'} [r script show [r eval {return redis.sha1hex("return 'by eval'")} 0]]
        assert_error {NOSCRIPT*} {r script show ffffffffffffffffffffffffffffffffffffffff}
        assert_error {NOSCRIPT*} {r script show short}
        assert_error {ERR wrong number of arguments for 'script|show' command} {r script show}
        r script flush
        assert_error {NOSCRIPT*} {r script show $sha}
    }

    tags {valkey-only} {
        test {os has clock and nothing else} {
            assert_equal 1 [r eval {return type(os.clock()) == 'number' and os.clock() >= 0} 0]
            foreach f {execute exit getenv remove rename time date tmpname setlocale} {
                assert_error "*attempt to call field '$f' (a nil value)*" [list r eval "return os.${f}()" 0]
            }
            assert_error {*Attempt to modify a readonly table*} {r eval {os.execute = 1} 0}
        }
    }

    test {Standard libraries available: string, table, math, cjson, bit} {
        list [r eval {return string.upper('abc')} 0] \
             [r eval {return table.concat({'a','b'}, '-')} 0] \
             [r eval {return math.floor(2.5)} 0] \
             [r eval {return cjson.encode({1,2})} 0] \
             [r eval {return cjson.decode('{"a":5}')['a']} 0] \
             [r eval {return bit.band(7, 3)} 0] \
             [r eval {return bit.tohex(255)} 0]
    } {ABC a-b 2 {[1,2]} 5 3 000000ff}

    tags {valkey-only} {
        # Each of these crashed the server or leaked between scripts.
        test {bit.tohex with any digit count is safe} {
            list [r eval {return bit.tohex(65535, -2147483648)} 0] \
                 [r eval {return bit.tohex(65535, 2147483647)} 0] \
                 [r eval {return bit.tohex(65535, -4)} 0] \
                 [r eval {return bit.tohex(65535, 0)} 0] \
                 [r eval {return bit.tohex(-1)} 0]
        } {0000FFFF 0000ffff FFFF {} ffffffff}

        test {bit library follows LuaBitOp} {
            r eval {return {bit.tobit(0xffffffff), bit.tobit(2^32 + 5), bit.tobit(1.5), bit.tobit(2.5),
                            bit.bnot(0), bit.band(0xff, 0x0f, 0x3), bit.bor(1, 2, 4), bit.bxor(3, 1, 8),
                            bit.lshift(1, 31), bit.lshift(1, 33), bit.rshift(-1, 28), bit.arshift(-256, 4),
                            bit.arshift(256, 4), bit.rol(0x12345678, 12), bit.ror(0x12345678, 12),
                            bit.tohex(bit.bswap(0x12345678)), bit.tobit(0/0), bit.tobit(1/0)}} 0
        } {-1 5 2 2 -1 3 7 10 -2147483648 2 15 -16 16 1164411171 1736516421 78563412 0 0}

        test {bit argument errors} {
            assert_error {*bad argument #1 to 'tohex' (number expected*} {r eval {return bit.tohex('x')} 0}
            assert_error {*bad argument #2 to 'band' (number expected*} {r eval {return bit.band(1, {})} 0}
        }

        test {unpack refuses a range the stack cannot hold} {
            assert_error {*too many results to unpack*} {r eval {return select('#', unpack({}, -2147483648, 2147483647))} 0}
            assert_error {*too many results to unpack*} {r eval {return select('#', unpack({}, 0, 2147483647))} 0}
            list [r eval {return {unpack({1, 2, 3})}} 0] [r eval {return {unpack({1, 2, 3}, 2)}} 0] \
                 [r eval {return select('#', unpack({}, 1, 0))} 0] [r eval {return select('#', unpack({}, 1, 5))} 0]
        } {{1 2 3} {2 3} 0 5}

        test {string.rep refuses results bigger than proto-max-bulk-len} {
            assert_error {*resulting string too large*} {r eval {return string.rep('x', 1e12)} 0}
            assert_error {*resulting string too large*} {r eval {return string.rep('abc', 2^31)} 0}
            list [r eval {return string.rep('ab', 3)} 0] [r eval {return string.rep('ab', 0)} 0] [r eval {return string.rep('', 1e12)} 0]
        } {ababab {} {}}

        test {Numbers that are no integer reply as Valkey's do} {
            list [r eval {return cjson.decode('1e999999')} 0] [r eval {return -1/0} 0] [r eval {return 0/0} 0] \
                 [r eval {return 2^70} 0] [r eval {return string.rep('x', 0/0)} 0]
        } {-9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 {}}

        test {Script bodies and loadstring refuse precompiled bytecode} {
            assert_equal {nil {[string "?LuaQ"]:1: unexpected symbol near 'char(27)'}} \
                [string map [list "\x1b" ?] [r eval {local f, e = loadstring(string.dump(function() return 7 end)) return {tostring(f), e}} 0]]
            assert_match {*unexpected symbol near 'char(27)'} \
                [r eval {local s = string.dump(function() return 7 end) local f, e = load(function() local r = s s = nil return r end) return e} 0]
            assert_error {ERR Error compiling script (new function): user_script:1: unexpected symbol near 'char(27)'} \
                {r eval "\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00" 0}
            assert_error {ERR Error compiling function: user_function:2: unexpected symbol near 'char(27)'} \
                {r function load "#!lua name=bc\n\x1bLuaQ\x00"}
            # Text still loads.
            list [r eval {return loadstring('return 5')()} 0] [r eval {local s = 'return 6' return load(function() local r = s s = nil return r end)()} 0]
        } {5 6}

        test {The string metatable cannot be changed by a script} {
            assert_error {*Attempt to modify a readonly table*} {r eval {getmetatable('').__index = function() return 'x' end} 0}
            assert_error {*Attempt to modify a readonly table*} {r eval {getmetatable('').__index.upper = function() return 'x' end} 0}
            assert_error {*Attempt to modify a readonly table*} {r eval {rawset(getmetatable(''), '__index', {})} 0}
            assert_error {*Attempt to modify a readonly table*} {r eval {setmetatable(getmetatable(''), {})} 0}
            # Later scripts still see the real string methods.
            list [r eval {return ('abc'):upper()} 0] [r eval {return ('abc'):len()} 0] [r eval {return type(getmetatable('').__index.format)} 0]
        } {ABC 3 function}

        test {cmsgpack round trips every type} {
            r eval {
                local big = string.rep('x', 70000)
                local s = cmsgpack.pack({1, 2, {x = 'y', [5] = false}}, 'abc', string.rep('z', 40), big,
                                        -1, -33, -200, -40000, -3000000000, 0, 127, 200, 60000, 4000000000, 2^53,
                                        1.5, 0.1, true, false, {}, 1/0)
                local t = {cmsgpack.unpack(s)}
                return {#t, t[1][1], t[1][2], t[1][3].x, tostring(t[1][3][5]), t[2], #t[3], #t[4] == 70000 and t[4] == big,
                        t[5], t[6], t[7], t[8], tostring(t[9]), t[10], t[11], t[12], t[13], tostring(t[14]), tostring(t[15]),
                        tostring(t[16]), tostring(t[17]), tostring(t[18]), tostring(t[19]), type(t[20]), tostring(t[21])}
            } 0
        } {21 1 2 y false abc 40 1 -1 -33 -200 -40000 -3000000000 0 127 200 60000 4000000000 9.007199254741e+15 1.5 0.1 true false table inf}

        test {cmsgpack encodings follow the MessagePack spec} {
            r eval {
                local function hex(s) return (string.gsub(s, '.', function(c) return string.format('%02x', string.byte(c)) end)) end
                return {hex(cmsgpack.pack(nil, true, false, 5, -5, 200, -100, 300, -300, 70000, -70000)),
                        hex(cmsgpack.pack(5000000000, -5000000000, 1.5, 0.1)),
                        hex(cmsgpack.pack('ab', {1, 2}, {a = 1}, {})),
                        hex(string.sub(cmsgpack.pack(string.rep('a', 32)), 1, 2)),
                        hex(string.sub(cmsgpack.pack(string.rep('a', 256)), 1, 3)),
                        hex(string.sub(cmsgpack.pack(string.rep('a', 65536)), 1, 5))}
            } 0
        } {c0c3c205fbccc8d09ccd012cd1fed4ce00011170d2fffeee90 cf000000012a05f200d3fffffffed5fa0e00ca3fc00000cb3fb999999999999a a2616292010281a1610190 d920 da0100 db00010000}

        test {cmsgpack unpack_one and unpack_limit walk a string} {
            r eval {
                local s = cmsgpack.pack(1, 'two', {3})
                local o1, v1 = cmsgpack.unpack_one(s)
                local o2, v2 = cmsgpack.unpack_one(s, o1)
                local o3, v3 = cmsgpack.unpack_one(s, o2)
                local l = {cmsgpack.unpack_limit(s, 2)}
                local l2 = {cmsgpack.unpack_limit(s, 5, 1)}
                return {o1, v1, o2, v2, o3, v3[1], l[1], l[2], l[3], #l, l2[1], l2[2], #l2}
            } 0
        } {1 1 5 two -1 3 5 1 two 3 -1 two 3}

        test {cmsgpack refuses hostile input without crashing} {
            assert_error {*Missing bytes in input.*} {r eval {return cmsgpack.unpack('\221\255\255\255\255')} 0}
            assert_error {*Missing bytes in input.*} {r eval {return cmsgpack.unpack('\219\255\255\255\255abc')} 0}
            assert_error {*Missing bytes in input.*} {r eval {return cmsgpack.unpack('\203\1\2')} 0}
            assert_error {*Missing bytes in input.*} {r eval {return cmsgpack.unpack('\223\0\0\0\2\1')} 0}
            assert_error {*Bad data format in input.*} {r eval {return cmsgpack.unpack('\193')} 0}
            assert_error {*Bad data format in input.*} {r eval {return cmsgpack.unpack('\212\1\2')} 0}
            assert_error {*table index is nil*} {r eval {return cmsgpack.unpack('\129\192\1')} 0}
            assert_error {*stack overflow*} {r eval {return cmsgpack.unpack(string.rep('\145', 1000000))} 0}
            assert_error {*Start offset 10 greater than input length 1.*} {r eval {return cmsgpack.unpack_one('\1', 10)} 0}
            assert_error {*Invalid request to unpack with offset of -1 and limit of 1.*} {r eval {return cmsgpack.unpack_one('\1', -1)} 0}
            assert_error {*MessagePack pack needs input.*} {r eval {return cmsgpack.pack()} 0}
            # A table containing itself stops at the nesting limit (16).
            r eval {local t = {} t[1] = t return #cmsgpack.pack(t)} 0
        } 17

        test {struct pack, unpack and size} {
            r eval {
                local s = struct.pack('>i2I4bBhHc3sd', -2, 4000000000, -1, 255, -300, 65000, 'abc', 'zt', 1.25)
                local t = {struct.unpack('>i2I4bBhHc3sd', s)}
                return {#s, struct.size('>i2I4bBhHc3'), t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], tostring(t[9]), t[10],
                        struct.pack('<i3', 0x010203) == '\3\2\1', struct.pack('>i3', 0x010203) == '\1\2\3',
                        struct.size('!4bi'), struct.size('bi'), struct.unpack('>I2', '\0\1\0\2', 3),
                        struct.unpack('bc0', struct.pack('bc0', 3, 'xyz')), struct.unpack('i16', string.rep('\255', 16))}
            } 0
        } {26 15 -2 4000000000 -1 255 -300 65000 abc zt 1.25 27 1 1 8 5 2 xyz -1 17}

        test {struct refuses bad formats and short data without crashing} {
            assert_error {*integral size 33 is larger than limit of 32*} {r eval {return struct.pack('i33', 1)} 0}
            assert_error {*integral size overflow*} {r eval {return struct.size('c99999999999999999999')} 0}
            assert_error {*integral size overflow*} {r eval {return struct.size('i2147483648')} 0}
            assert_error {*alignment 3 is not a power of 2*} {r eval {return struct.size('!3i')} 0}
            assert_error {*invalid format option 'q'*} {r eval {return struct.pack('q', 1)} 0}
            assert_error {*data string too short*} {r eval {return struct.unpack('i4', 'ab')} 0}
            assert_error {*data string too short*} {r eval {return struct.unpack('c2147483647', 'ab')} 0}
            assert_error {*data string too short*} {r eval {return struct.unpack('bc0', '\127ab')} 0}
            assert_error {*data string too short*} {r eval {return struct.unpack('bc0', '\255ab')} 0}
            assert_error {*format 'c0' needs a previous size*} {r eval {return struct.unpack('c0', 'ab')} 0}
            assert_error {*unfinished string in data*} {r eval {return struct.unpack('s', 'ab')} 0}
            assert_error {*string too short*} {r eval {return struct.pack('c5', 'ab')} 0}
            assert_error {*offset must be 1 or greater*} {r eval {return struct.unpack('b', 'ab', 0)} 0}
            assert_error {*data string too short*} {r eval {return struct.unpack('b', 'ab', 2^40)} 0}
            assert_error {*undefined sizes*} {r eval {return struct.size('s')} 0}
            # Out-of-range numbers pack without undefined behaviour.
            r eval {return {#struct.pack('i8i4f', 2^70, -2^70, 1e300), struct.pack('I2', -1) == '\255\255'}} 0
        } {16 1}

        test {Pattern functions behave as Lua 5.1's} {
            # Expected values come from stock Lua 5.1 (lua5.1) on the same code.
            r eval {local r = {}
local function add(...) local t = {} for i = 1, select('#', ...) do t[#t+1] = tostring((select(i, ...))) end r[#r+1] = table.concat(t, ',') end
add(string.find('hello world', 'o w'))
add(string.find('hello world', 'l+'))
add(string.find('hello', 'l', -2))
add(string.find('a.b', '.', 1, true))
add(string.match('key=val; k2=v2', '(%w+)=(%w+)'))
add(string.match('  trim  ', '^%s*(.-)%s*$'))
add(string.match('THE (quick) fox', '%((%a+)%)'))
add(string.match('hello', '()ll()'))
add(string.match('f(a(b)c)d', '%b()'))
add(string.match('THE quick', '%f[%a]%a+', 4))
add(string.match('abcabc', '(abc)%1'))
add(string.gsub('hello world', '(%w+)', '<%1>'))
add(string.gsub('abc', '', '-'))
add(string.gsub('$name is $age', '%$(%w+)', {name = 'bob', age = 7}))
add(string.gsub('1 2 3', '%d', function(d) return d * 2 end, 2))
add(string.gsub('x^2', '%^', '**'))
local t = {} for k, v in string.gmatch('a=1, b=2', '(%w+)=(%w+)') do t[#t+1] = k .. v end add(table.concat(t, ';'))
add(pcall(string.find, 'a', '[a'))
add(pcall(string.gsub, 'a', '(a)', '%2'))
return table.concat(r, ' / ')} 0
        } {5,7 / 3,4 / 4,4 / 2,2 / key,val / trim / quick / 3,5 / (a(b)c) / quick / abc / <hello> <world>,2 / -a-b-c-,4 / bob is 7,2 / 2 4 3,2 / x**2,1 / a1;b2 / false,malformed pattern (missing ']') / false,invalid capture index}

        test {Patterns too deep for the matcher's recursion are refused} {
            # 300,000 quantifiers overflowed the C stack inside string.find.
            foreach call {"string.find(s, p)" "string.match(s, p)" "string.gsub(s, p, '')" "string.gmatch(s, p)()"} {
                assert_error {*pattern too complex*} [list r eval "local s, p = string.rep('a', 300000), string.rep('a?', 300000) return $call" 0]
            }
            # Sets, escapes and plain finds are not quantifiers; ordinary patterns work.
            list [r eval {return string.find('a+b', string.rep('+', 300), 1, true)} 0] \
                 [r eval {return string.find('x-y', string.rep('[?*+-]', 300))} 0] \
                 [r eval {return string.find('x-y', string.rep('%-', 300))} 0] \
                 [r eval {return string.match('key:123', '(%a+):(%d+)')} 0] \
                 [r eval {return string.gsub('abc', '%w', '%0%0')} 0] \
                 [r eval {local n = 0 for w in string.gmatch('one two three', '%a+') do n = n + 1 end return n} 0] \
                 [r eval {return ('abc'):find('b+')} 0]
        } {{} {} {} key aabbcc 3 2}

        test {cjson.encode refuses output its int lengths cannot hold} {
            # 25 references to one 100 MB string killed the server ("BUG:
            # Invalid strbuf length requested"); the bound is checked first.
            assert_error {*Cannot serialise: the JSON text would be too large*} \
                {r eval {local s = string.rep('a', 1000000) local t = {} for i = 1, 1100 do t[i] = s end return cjson.encode(t)} 0}
            assert_error {*Cannot serialise: the JSON text would be too large*} \
                {r eval {local a = {'x'} for i = 1, 60 do a = {a, a} end return cjson.encode(a)} 0}
            assert_error {*Cannot serialise, excessive nesting (1001)*} {r eval {local t = {} t.x = t return cjson.encode(t)} 0}
            assert_error {*bad argument #1 to 'encode' (expected 1 argument)*} {r eval {return cjson.encode()} 0}
            list [r eval {return cjson.encode({a = {1, 2, 'x/y'}})} 0] \
                 [r eval {local s = string.rep('a', 1000) local t = {} for i = 1, 100 do t[i] = s end return #cjson.encode(t)} 0] \
                 [r eval {local t = {} local c = t for i = 1, 999 do c[1] = {} c = c[1] end return #cjson.encode(t)} 0]
        } {{{"a":[1,2,"x\/y"]}} 100301 2000}

        test {cmsgpack and struct are read-only} {
            assert_error {*Attempt to modify a readonly table*} {r eval {cmsgpack.pack = nil} 0}
            assert_error {*Attempt to modify a readonly table*} {r eval {struct.x = 1} 0}
        }

        test {WAIT and WAITAOF run inside a script without blocking} {
            r set waitkey 1
            list [r eval {return redis.call('wait', 0, 0)} 0] \
                 [r eval {return redis.call('wait', 1, 0)} 0] \
                 [r eval {return server.call('waitaof', 0, 1, 0)} 0]
        } {0 0 {0 0}}
    }

    test {Globals can be iterated} {
        r eval {local n = 0; for k, v in pairs(_G) do n = n + 1 end; return n > 10} 0
    } 1

    test {math.random is a drand48 sequence after randomseed} {
        list [r eval {math.randomseed(0); return tostring(math.random())} 0] \
             [r eval {math.randomseed(0); math.random(); return math.random(100)} 0]
    } {0.17082803611217 75}

    test {math.random argument errors} {
        assert_error {*interval is empty*} {r eval {return math.random(0)} 0}
        assert_error {*wrong number of arguments*} {r eval {return math.random(1,2,3)} 0}
        # The widest range overflowed an int in the arithmetic (UBSan).
        r eval {local x = math.random(-2147483648, 2147483647) return x >= -2147483648 and x <= 2147483647} 0
    } 1

    test {sha1hex} {
        list [r eval {return redis.sha1hex('')} 0] [r eval {return redis.sha1hex('Pizza & Mandolino')} 0]
    } {da39a3ee5e6b4b0d3255bfef95601890afd80709 74822d82031af7493c20eefa13bd07ec4fada82f}

    test {sha1hex argument errors} {
        assert_error {ERR wrong number of arguments*} {r eval {return redis.sha1hex()} 0}
    }

    test {redis.log levels} {
        r eval {redis.log(redis.LOG_DEBUG, 'debug'); redis.log(redis.LOG_NOTICE, 'notice', 'two'); return 1} 0
        assert_error {*Invalid debug level*} {r eval {redis.log(99, 'x')} 0}
        assert_error {*requires two arguments or more*} {r eval {redis.log(1)} 0}
    }

    test {Constants and no-op helpers} {
        list [r eval {return redis.LOG_WARNING} 0] [r eval {return redis.REPL_ALL} 0] \
             [r eval {return redis.replicate_commands()} 0] [r eval {return redis.set_repl(redis.REPL_NONE)} 0] \
             [r eval {return redis.breakpoint()} 0] [r eval {return redis.debug('x')} 0] \
             [r eval {return type(redis.REDIS_VERSION)} 0] [r eval {return redis.REDIS_VERSION_NUM > 0} 0]
    } {3 3 1 {} {} {} string 1}

    tags {valkey-only} {
        test {server.* is an alias of redis.*} {
            r set aliaskey 5
            list [r eval {return server.call('get', 'aliaskey')} 0] [r eval {return rawequal(server, redis)} 0]
        } {5 1}

        test {SERVER_NAME and SERVER_VERSION} {
            r eval {return {server.SERVER_NAME, type(server.SERVER_VERSION), server.SERVER_VERSION_NUM > 0}} 0
        } {valkey string 1}
    }

    test {SELECT inside a script does not change the caller's db} {
        r select 9
        r set dbkey db9
        r eval {redis.call('select', 10); redis.call('set', 'dbkey', 'db10')} 0
        set here [r get dbkey]
        r select 10
        set there [r get dbkey]
        r select 9
        list $here $there
    } {db9 db10}

    test {Blocking commands never block a script} {
        # Either refused as noscript or run as non-blocking: never a hang.
        r del emptylist
        if {[catch {r eval {return redis.call('blpop', 'emptylist', 0)} 0} e]} {
            assert_match {*not allowed from script*} $e
        } else {
            assert_equal {} $e
            assert_equal {emptylist x} [r eval {redis.call('rpush', 'emptylist', 'x'); return redis.call('blpop', 'emptylist', 0)} 0]
        }
        r ping
    } PONG

    # ----------------------------------------------------------- EVALSHA
    test {EVALSHA - run a script by its SHA1} {
        r eval {return 'shaval'} 0
        r evalsha [r eval {return redis.sha1hex("return 'shaval'")} 0] 0
    } shaval

    test {EVALSHA - upper case SHA1 works} {
        r evalsha [string toupper [r script load {return 'upper'}]] 0
    } upper

    test {EVALSHA - unknown SHA1 and wrong length} {
        assert_error {NOSCRIPT No matching script. Please use EVAL.} {r evalsha ffffffffffffffffffffffffffffffffffffffff 0}
        assert_error {NOSCRIPT*} {r evalsha abc 0}
    }

    test {SCRIPT LOAD, EXISTS, FLUSH} {
        set sha [r script load {return 'loaded'}]
        assert_equal {1 0} [r script exists $sha ffffffffffffffffffffffffffffffffffffffff]
        assert_equal loaded [r evalsha $sha 0]
        assert_equal OK [r script flush]
        assert_equal {0} [r script exists $sha]
        assert_equal OK [r script flush sync]
        assert_equal OK [r script flush async]
        assert_error {*SCRIPT FLUSH only support SYNC|ASYNC option*} {r script flush nosuch}
        assert_equal [r eval {return redis.sha1hex("return 'loaded'")} 0] $sha
    }

    test {SCRIPT LOAD of a bad script} {
        assert_error {ERR Error compiling script*} {r script load {return x(}}
    }

    test {SCRIPT HELP} {
        assert_match {*LOAD <script>*} [r script help]
    }

    test {SCRIPT KILL when nothing runs} {
        assert_error {NOTBUSY No scripts in execution right now.} {r script kill}
    }

    # --------------------------------------------------- read-only variants
    test {EVAL_RO - reads work, writes are refused} {
        r set rokey val
        assert_equal val [r eval_ro {return redis.call('get', KEYS[1])} 1 rokey]
        assert_error {ERR Write commands are not allowed from read-only scripts.*} {r eval_ro {return redis.call('set', 'rokey', 'x')} 1 rokey}
        r get rokey
    } val

    test {EVALSHA_RO} {
        set sha [r script load {return redis.call('get', KEYS[1])}]
        assert_equal val [r evalsha_ro $sha 1 rokey]
        set wsha [r script load {return redis.call('set', KEYS[1], 'y')}]
        assert_error {*Write commands are not allowed from read-only scripts*} {r evalsha_ro $wsha 1 rokey}
    }

    # ------------------------------------------------------ shebang flags
    test {Shebang: no-writes refuses writes, reports line 2} {
        assert_error {ERR Write commands are not allowed from read-only scripts. script: *, on @user_script:2.} {
            r eval "#!lua flags=no-writes\nreturn redis.call('set','a','b')" 0
        }
    }

    test {Shebang: no-writes script runs with EVAL_RO} {
        r eval_ro "#!lua flags=no-writes\nreturn redis.call('get','rokey')" 0
    } val

    test {Shebang: a script that may write is refused by EVAL_RO} {
        assert_error {ERR Can not execute a script with write flag using \*_ro command.} {r eval_ro "#!lua\nreturn 1" 0}
    }

    test {Shebang: empty flags, several flags, errors} {
        assert_equal 1 [r eval "#!lua flags=\nreturn 1" 0]
        assert_equal 2 [r eval "#!lua flags=no-writes,allow-oom,allow-stale\nreturn 2" 0]
        assert_error {ERR Unexpected flag in script shebang: bad} {r eval "#!lua flags=bad\nreturn 1" 0}
        assert_error {ERR Unknown lua shebang option: name=x} {r eval "#!lua name=x\nreturn 1" 0}
        assert_error {ERR Unexpected engine in script shebang: #!luax} {r eval "#!luax\nreturn 1" 0}
    }

    test {Shebang: OOM refuses a script that may write, allow-oom runs it} {
        r set oomkey 1
        r config set maxmemory 1
        catch {r eval "#!lua\nreturn redis.call('get','oomkey')" 0} e1
        set ok1 [r eval "#!lua flags=allow-oom\nreturn redis.call('get','oomkey')" 0]
        set ok2 [r eval "#!lua flags=no-writes\nreturn redis.call('get','oomkey')" 0]
        catch {r eval {return redis.call('set','oomkey','2')} 0} e2
        r config set maxmemory 0
        assert_match {OOM command not allowed when used memory > 'maxmemory'.*} $e2
        list $e1 $ok1 $ok2
    } {{OOM command not allowed when used memory > 'maxmemory'.} 1 1}
}

# ------------------------------------------------------------ busy scripts
start_server {tags {scripting} overrides {busy-reply-threshold 50} log_allow {"*Slow script detected*"}} {
    test {Timedout read-only scripts can be killed by SCRIPT KILL} {
        set rd [vk_deferring_client]
        $rd eval {while true do end} 0
        after 200
        catch {r ping} e
        assert_match {BUSY*} $e
        assert_equal OK [r script kill]
        assert_error {ERR Script killed by user with SCRIPT KILL... script: *} {$rd read}
        r ping
    } PONG

    test {Timedout script does not cause a false dead client} {
        set rd [vk_deferring_client]
        $rd eval {local i = 0; while true do i = i + 1 end} 0
        after 200
        assert_error {BUSY*} {r get foo}
        assert_equal OK [r script kill]
        catch {$rd read}
        $rd ping
        assert_equal PONG [$rd read]
        r ping
    } PONG

    # Stock Lua's matcher (Redis 7.0, Valkey) never returns to the VM: such
    # a script cannot be killed there. Ours checks for the kill itself.
    tags {valkey-only} {
        test {A script stuck in an exponential pattern match can be killed} {
            set rd [vk_deferring_client]
            $rd eval {return string.find(string.rep('a', 1000), string.rep('a?', 150) .. '[?*+-]')} 0
            wait_for_condition 100 10 {[catch {r ping} e] && [string match BUSY* $e]} {
                fail "the script did not become busy"
            }
            assert_equal OK [r script kill]
            assert_error {*Script killed by user with SCRIPT KILL*} {$rd read}
            $rd close
            r ping
        } PONG
    }

    test {Timedout script that called pcall cannot swallow the kill} {
        set rd [vk_deferring_client]
        $rd eval {while true do pcall(function() local x = 1 end) end} 0
        after 200
        r script kill
        assert_error {*killed by user*} {$rd read}
        r ping
    } PONG

    test {FUNCTION KILL does not kill an EVAL script} {
        set rd [vk_deferring_client]
        $rd eval {while true do end} 0
        after 200
        assert_error {BUSY*} {r function kill}
        r script kill
        catch {$rd read}
        r ping
    } PONG

    test {SHUTDOWN without NOSAVE is refused while busy} {
        set rd [vk_deferring_client]
        $rd eval {while true do end} 0
        after 200
        assert_error {BUSY*} {r shutdown}
        r script kill
        catch {$rd read}
        r ping
    } PONG

    tags {valkey-only} {
        test {BUSY error wording} {
            set rd [vk_deferring_client]
            $rd eval {while true do end} 0
            after 200
            catch {r ping} e
            r script kill
            catch {$rd read}
            set e
        } {BUSY Valkey is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.}
    }
}

start_server {tags {scripting} overrides {busy-reply-threshold 50} log_allow {"*Slow script detected*"}} {
    test {SHUTDOWN NOSAVE can kill a timedout script anyway} {
        set rd [vk_deferring_client]
        $rd eval {redis.call('set', 'x', 'y'); while true do end} 0
        after 200
        assert_error {UNKILLABLE*} {r script kill}
        expect_server_exit
        catch {r shutdown nosave}
        # Watched through the pid: a TLS channel to a dead server waits
        # instead of reporting the end of the connection.
        wait_for_condition 50 100 {![::vk::pid_alive [srv pid]]} { fail "server did not exit" }
    }
}
