# Lua's string hash (deps/lua5.1-strhash.patch): every byte of a string is
# hashed under a per-process random key.
#
# Stock Lua 5.1 hashes one byte in (len>>5)+1, so strings that differ only
# between those samples share a hash, pile into one chain of Lua's string
# table and make interning quadratic (10,000 such 1,006-byte list values
# read by one EVAL_RO took seconds). The speed is utils/bench-lua-strings'
# business; these tests check the cause without a clock. The hash is
# visible to scripts in one place: it orders a table's string keys. A
# table with two string keys has two hash slots; when both keys' hashes
# choose the same slot, the first key inserted takes it and the other the
# remaining one, so next() starts with a key that depends on the insertion
# order, and otherwise it does not. Each pair of strings that differ only
# in unsampled bytes would therefore "depend on the order" every time under
# Lua 5.1's hash, and about half of the time under a full keyed hash.
#
# The key is drawn once per process: the same script sees the same order
# in every Lua VM of one server (EVAL's after SCRIPT FLUSH, FUNCTION's) and
# another order in another server process.

# Lua helpers shared by the scripts below.
set lua_strhash_helpers {
    -- Stock Lua 5.1's luaS_newlstr() hash, in unsigned 32-bit arithmetic.
    local function lua51_hash(s)
        local l = #s
        local h = bit.tobit(l)
        local step = bit.rshift(l, 5) + 1
        local l1 = l
        while l1 >= step do
            h = bit.bxor(h, bit.tobit(bit.lshift(h, 5) + bit.rshift(h, 2) + string.byte(s, l1)))
            l1 = l1 - step
        end
        return h
    end
    local function first_key(a, b)
        local t = {}
        t[a] = true
        t[b] = true
        return (next(t))
    end
    -- True when a and b chose the same slot of a two-slot table.
    local function same_slot(a, b)
        return first_key(a, b) ~= first_key(b, a)
    end
    -- {pairs sharing a slot, distinct stock Lua 5.1 hashes} over the pairs
    -- (v[1], v[2]), (v[3], v[4]), ...
    local function survey(v)
        local shared, hashes, distinct = 0, {}, 0
        for i = 1, #v - 1, 2 do
            if same_slot(v[i], v[i + 1]) then shared = shared + 1 end
        end
        for i = 1, #v do
            local h = lua51_hash(v[i])
            if not hashes[h] then hashes[h] = true; distinct = distinct + 1 end
        end
        return {shared, distinct}
    end
}

# 1,006 bytes that differ only in bytes 501-506 (1-based), none of which
# stock Lua samples at this length (it reads bytes 46, 78, ..., 1006).
proc lua_strhash_value {i} {
    return "[string repeat x 500][format %06d $i][string repeat y 500]"
}

start_server {tags {scripting}} {
    test {Values differing only in Lua 5.1's unsampled bytes hash apart (read by EVAL_RO)} {
        set vals {}
        for {set i 0} {$i < 400} {incr i} { lappend vals [lua_strhash_value $i] }
        r del strhash
        r rpush strhash {*}$vals
        lassign [r eval_ro "$lua_strhash_helpers
            return survey(redis.call('lrange', KEYS\[1\], 0, -1))" 1 strhash] shared distinct
        # The data is what stock Lua cannot tell apart: one hash for all.
        assert_equal 1 $distinct
        # 200 pairs: the sampled hash puts all of them in one slot; a keyed
        # full hash about 100 (outside 50..150 has odds under 1e-11).
        assert_range $shared 50 150
    }

    test {Strings built by a script differing only in unsampled bytes hash apart} {
        lassign [r eval "$lua_strhash_helpers
            local a, b, v = string.rep('x', 500), string.rep('y', 500), {}
            for i = 1, 400 do v\[i\] = a .. string.format('%06d', i) .. b end
            return survey(v)" 0] shared distinct
        assert_equal 1 $distinct
        assert_range $shared 50 150
    }

    set order_script {
        local t = {}
        for i = 1, 32 do t['key' .. i] = i end
        local keys = {}
        for k in pairs(t) do keys[#keys + 1] = k end
        return table.concat(keys, ',')
    }

    test {One server orders string keys the same in every Lua VM it makes} {
        set before [r eval $order_script 0]
        r script flush
        set after [r eval $order_script 0]
        r function load replace "#!lua name=strhashorder
            server.register_function('strhash_order', function() $order_script end)"
        set in_function [r fcall strhash_order 0]
        r function delete strhashorder
        list [expr {$before eq $after}] [expr {$before eq $in_function}] [llength [split $before ,]]
    } {1 1 32}

    test {Another server process orders the same string keys differently} {
        set here [r eval $order_script 0]
        start_server {} {
            set there [r eval $order_script 0]
        }
        # Both hold the same 32 keys; the same order in two processes would
        # mean a hash key that is not drawn per process.
        assert_equal [lsort [split $here ,]] [lsort [split $there ,]]
        assert_not_equal $here $there
    }
}
