# What ACL rules may hold (src/acl.c): whitespace and NUL bytes are
# refused in usernames, key and channel patterns and first arguments, at
# the top level and inside "(...)" selectors, as Valkey refuses them in
# usernames and patterns, so a rule cannot smuggle a second line or rule
# into the aclfile ("~x\nuser evil on nopass ~* &* +@all").

# Everything ACL says of every user: ACL LIST, then ACL GETUSER of each.
proc acl_state {} {
    set state [list [r acl list]]
    foreach u [r acl users] { lappend state $u [r acl getuser $u] }
    return $state
}

proc read_text {path} {
    set fh [open $path]
    fconfigure $fh -translation binary
    set text [read $fh]
    close $fh
    return $text
}

proc write_text {path text} {
    set fh [open $path w]
    fconfigure $fh -translation binary
    puts -nonewline $fh $text
    close $fh
}

# s as a double-quoted string that sdssplitargs() reads back as s.
proc splitargs_quote {s} {
    set out "\""
    foreach ch [split $s ""] {
        scan $ch %c b
        if {$ch eq "\\" || $ch eq "\""} {
            append out "\\$ch"
        } elseif {$b < 32 || $b > 126} {
            append out [format {\x%02x} $b]
        } else {
            append out $ch
        }
    }
    return "$out\""
}

# The bytes a rule refuses in a pattern, a first argument or a username.
set ::acl_bad_bytes [list " " "\t" "\n" "\x0b" "\x0c" "\r" "\x00"]

set acl_dir [tmp_path acl-file]
file mkdir $acl_dir
set aclfile [file join $acl_dir users.acl]
write_text $aclfile ""

start_server [list tags {"acl external:skip"} overrides [list aclfile $aclfile]] {
    test "A rule holding a newline cannot add a user to the aclfile" {
        assert_error "ERR Error in ACL SETUSER modifier '~app:x user evil on nopass ~\* &\* +@all': Syntax error" {
            r acl setuser app on >pw +@all "~app:x\nuser evil on nopass ~* &* +@all"
        }
        assert_equal {} [r acl getuser app]
        # The same through every other place a rule can hold text.
        foreach rule [list "&app:x\nuser evil on nopass ~* &* +@all" "%R~x\nuser evil on nopass" \
                          "+select|0\nuser evil on nopass ~* &* +@all" \
                          "(~x\nuser evil on nopass ~* &* +@all)" "(\"~x\\nuser\" +get)" "(\"+select|0\\nuser\")"] {
            assert_error "ERR Error in ACL SETUSER modifier '*': Syntax error" {r acl setuser app on >pw $rule}
        }
        assert_error "ERR Usernames can't contain spaces or null characters" {
            r acl setuser "app\nuser evil on nopass ~* &* +@all" on
        }
        assert_equal OK [r acl save]
        assert_equal OK [r acl load]
        assert_equal {default} [r acl users]
        assert_error "WRONGPASS*" {r auth evil anything}
        assert {![string match "*evil*" [read_text $aclfile]]}
    }

    test "Whitespace and NUL are refused in patterns, channels, first arguments and usernames, in and out of selectors" {
        r acl setuser victim on nopass +@all ~v:* &v:*
        set before [acl_state]
        foreach b $::acl_bad_bytes {
            # The error names the rule as Valkey's does: cut at a NUL, and
            # with CR and LF sent as spaces.
            set shown [string map [list "\r" " " "\n" " "] [lindex [split "x${b}y" "\x00"] 0]]
            foreach prefix {~ %R~ %W~ %RW~ & +select|} {
                assert_error "ERR Error in ACL SETUSER modifier '$prefix$shown': Syntax error" {
                    r acl setuser victim "${prefix}x${b}y"
                }
                # Inside a selector, quoted so that the byte reaches the rule.
                set q [splitargs_quote "${prefix}x${b}y"]
                assert_error "ERR Error in ACL SETUSER modifier '*': Syntax error" {r acl setuser victim "($q)"}
                assert_error "ERR Error in ACL SETUSER modifier '*': Syntax error" {r acl setuser victim "(${prefix}x${b}y)"}
            }
            assert_error "ERR Usernames can't contain spaces or null characters" {r acl setuser "x${b}y" on}
        }
        assert_equal $before [acl_state]
        assert_equal {default victim} [r acl users]
        r acl deluser victim
    }
}
