# What ACL rules may hold, and the aclfile and `user` lines that store them
# (src/acl.c): whitespace and NUL bytes are refused in usernames, key and
# channel patterns and first arguments, at the top level and inside
# "(...)" selectors, so a rule cannot smuggle a second line or rule into
# the file ("~x\nuser evil on nopass ~* &* +@all"); every other byte is
# kept, and whatever ACL SAVE or CONFIG REWRITE writes loads back (ACL
# LOAD, and a restart on the aclfile or on the `user` lines) to the same
# users: checked on quotes, backslashes, parentheses and control bytes in
# each kind of rule, on lines of several hundred KB, and on many randomly
# generated users (reproducible: the seed is in the test's name;
# ACLFILE_SEED in the environment replays a run). An aclfile is read as
# Valkey reads one: lines split at single spaces with no quoting, except
# inside a selector, whose rules are split as sdssplitargs() splits.

set ::aclfile_seed [expr {[info exists ::env(ACLFILE_SEED)] ? $::env(ACLFILE_SEED) : [clock milliseconds] % 1000000}]
expr {srand($::aclfile_seed)}

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

# A random byte that a pattern may hold: mostly glob and quoting
# characters, sometimes any byte but whitespace and NUL.
proc random_pattern_byte {} {
    if {rand() < 0.7} {
        set set {a b c z 0 9 * ? [ ] ^ - \\ \" ' ( ) # % ~ & | : @ + ! < > = , . / \{ \}}
        return [lindex $set [expr {int(rand() * [llength $set])}]]
    }
    while 1 {
        set b [expr {1 + int(rand() * 255)}]
        if {$b != 32 && ($b < 9 || $b > 13)} { return [format %c $b] }
    }
}

proc random_pattern {{minlen 0}} {
    set n [expr {$minlen + int(rand() * 12)}]
    set s ""
    for {set i 0} {$i < $n} {incr i} { append s [random_pattern_byte] }
    return $s
}

proc random_bytes {maxlen} {
    set n [expr {int(rand() * $maxlen)}]
    set s ""
    for {set i 0} {$i < $n} {incr i} { append s [format %c [expr {int(rand() * 256)}]] }
    return $s
}

proc pick {args} { lindex $args [expr {int(rand() * [llength $args])}] }

# One rule that a selector takes (key, channel or command rule).
proc random_selector_rule {} {
    switch [expr {int(rand() * 9)}] {
        0 - 1 { return "[pick ~ %R~ %W~ %RW~ %r~ %w~]" }
        2 { return "[pick ~ ~ %R~ %W~ %RW~][random_pattern]" }
        3 { return "&[random_pattern]" }
        4 { return "+select|[string map {| {}} [random_pattern 1]]" }
        5 { return [pick +get -get +set +@read -@write +@hash -@dangerous +config|get -config|set +client|getname] }
        6 { return [pick allkeys resetkeys allchannels resetchannels allcommands nocommands +@all -@all] }
        7 { return "~[random_pattern]" }
        8 { return "[pick %R~ %W~ ~][random_pattern])" }
    }
}

# A "(...)" selector: each rule quoted for sdssplitargs() when it has to
# be (a quote, a backslash or ')' at its end), and sometimes when not.
proc random_selector {} {
    set rules {}
    set n [expr {1 + int(rand() * 5)}]
    for {set i 0} {$i < $n} {incr i} {
        set r [random_selector_rule]
        if {[regexp {["'\\]|\)$|[^\x20-\x7e]} $r] || rand() < 0.2} { set r [splitargs_quote $r] }
        lappend rules $r
    }
    return "([join $rules { }])"
}

# One rule for ACL SETUSER: the kinds above, flags, passwords of any bytes
# (only their SHA-256 is kept), hashes, and sometimes random bytes, which
# may be refused.
proc random_user_rule {} {
    switch [expr {int(rand() * 12)}] {
        0 { return [pick on off nopass resetpass sanitize-payload skip-sanitize-payload] }
        1 { return ">[random_bytes 20]" }
        2 {
            set h ""
            for {set i 0} {$i < 64} {incr i} { append h [pick 0 1 2 3 4 5 6 7 8 9 a b c d e f] }
            return "#$h"
        }
        3 - 4 - 5 { return [random_selector_rule] }
        6 - 7 { return [random_selector] }
        8 { return [pick clearselectors reset] }
        9 { return [random_bytes 16] }
        default { return "~[random_pattern]" }
    }
}

proc random_username {} {
    while 1 {
        set name [random_pattern 1]
        if {$name ne "default"} { return $name }
    }
}

# Creates n random users, one ACL SETUSER per rule; a refused rule must be
# refused with an error (whichever), and a later rule goes on.
proc make_random_users {n} {
    set refused 0
    for {set i 0} {$i < $n} {incr i} {
        set name [random_username]
        r acl setuser $name
        set nrules [expr {int(rand() * 12)}]
        for {set j 0} {$j < $nrules} {incr j} {
            if {[catch {r acl setuser $name [random_user_rule]} err]} {
                assert_match "ERR *" $err
                incr refused
            }
        }
    }
    return $refused
}

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
        # Unbalanced quotes in a selector are refused (Valkey would add an
        # empty selector).
        assert_error "ERR Error in ACL SETUSER modifier '(~a\" +get)': Syntax error" {r acl setuser victim {(~a" +get)}}
        assert_equal $before [acl_state]
        assert_equal {default victim} [r acl users]
        r acl deluser victim
    }

    test "Quotes, backslashes, parentheses and control bytes in rules survive ACL SAVE and ACL LOAD" {
        # ('|' would end a first argument's command name.)
        set odd "a\"b'c\\d(e)f\x01\x1b\x7f\xe9#%&"
        r acl setuser odd on ">pass word\n\"quoted\"" ~$odd* %R~r$odd %W~w$odd) "&$odd|" "~(" "~)" "~\"" "~'" "~" \
            "+select|$odd" "+select|x)" -@all +get +set +select +publish \
            "([splitargs_quote ~s$odd] [splitargs_quote &c$odd] +get [splitargs_quote +select|$odd])" \
            "(~p) +get [splitargs_quote +select|y)])" "([splitargs_quote %W~\")\"] +set)"
        set before [acl_state]
        assert_equal OK [r acl save]
        assert_equal OK [r acl load]
        assert_equal $before [acl_state]
        # The rules still mean what they meant (as glob patterns, where
        # "\d" matches "d").
        set key [string map {\\d d} $odd]
        assert_equal OK [r acl dryrun odd get "${key}x"]
        assert_equal OK [r acl dryrun odd get "r$key"]
        assert_equal OK [r acl dryrun odd get "s$key"]
        assert_match "*no permissions*" [r acl dryrun odd get "s${key}x"]
        assert_equal OK [r acl dryrun odd get "p)"]
        assert_equal OK [r acl dryrun odd set "\")\"" v]
        assert_equal OK [r acl dryrun odd publish "$key|" m]
        set c [vk_client]
        assert_equal OK [$c auth odd "pass word\n\"quoted\""]
        $c close
        set sels [dict get [r acl getuser odd] selectors]
        assert_equal "~s$odd" [dict get [lindex $sels 0] keys]
        assert_equal "&c$odd" [dict get [lindex $sels 0] channels]
        assert_equal "-@all +get +select|[string tolower $odd]" [dict get [lindex $sels 0] commands]
        assert_equal "~p)" [dict get [lindex $sels 1] keys]
        assert_equal "%W~\")\"" [dict get [lindex $sels 2] keys]
        # Selector rules that hold a quote or end in ')' are written quoted;
        # the other rules as they are.
        set line [lindex [r acl list] [lsearch [r acl users] odd]]
        set quoted "([splitargs_quote ~s$odd] resetchannels [splitargs_quote &c$odd] -@all +get [splitargs_quote +select|$odd])"
        foreach part [list " ~$odd* " " &$odd| " $quoted {("~p)" resetchannels -@all +get "+select|y)")}] {
            assert {[string first $part $line] >= 0} "'$part' in '$line'"
        }
    }

    test "Valkey's aclfile format: no quoting at the top level, sdssplitargs() inside selectors" {
        write_text $aclfile [join [list \
            "user default on nopass ~* &* +@all" \
            "user q on nopass ~a\"b %R~'c' &\"d\" -@all +select|\"x\" (~\"e\\\"f\" +get)" \
            "" \
            "  user spaced on  nopass   ~s*  " \
            "user crlf on nopass ~c*\r"] "\n"]
        assert_equal OK [r acl load]
        assert_equal {crlf default q spaced} [r acl users]
        set q [r acl getuser q]
        assert_equal {~a"b %R~'c'} [dict get $q keys]
        assert_equal {&"d"} [dict get $q channels]
        assert_equal {-@all +select|"x"} [dict get $q commands]
        assert_equal {~e"f} [dict get [lindex [dict get $q selectors] 0] keys]
        assert_equal {~s*} [dict get [r acl getuser spaced] keys]
        assert_equal {~c*} [dict get [r acl getuser crlf] keys]
    }

    test "ACL LOAD reports every bad line as Valkey does, and changes nothing" {
        set before [acl_state]
        write_text $aclfile [join [list \
            "user a on +nosuch -@nosuch" \
            "notuser x" \
            "user a on" \
            "user b on #zz +nosuch2" \
            "user c on (~x" \
            "user d\tx on"] "\n"]
        set f $aclfile
        assert_error "ERR $f:1: Error in applying operation '+nosuch': Unknown command or category name in ACL. $f:1: Error in applying operation '-@nosuch': Unknown command or category name in ACL. $f:2 should start with user keyword followed by the username. WARNING: Duplicate user 'a' found on line 3. $f:4: The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters. $f:4: Error in applying operation '+nosuch2': Unknown command or category name in ACL. $f:5: Unmatched parenthesis in selector definition.'$f:6: username 'd\tx' contains invalid characters. WARNING: ACL errors detected, no change to the previously active ACL rules was performed" {r acl load}
        assert_equal $before [acl_state]
    }
}

# A key pattern of 400 KB: its aclfile line is far longer than any read
# buffer, at the top level and in a selector.
set long_aclfile [file join $acl_dir long.acl]
write_text $long_aclfile ""
set long_pattern "long:[string repeat k 400000]*"
start_server [list tags {"acl external:skip"} overrides [list aclfile $long_aclfile]] {
    test "ACL SAVE and ACL LOAD of a 400 KB key pattern" {
        r acl setuser long on nopass +get ~$long_pattern %R~other "(~sel:$long_pattern +set)"
        set ::long_state [acl_state]
        assert_equal OK [r acl save]
        assert_range [file size $long_aclfile] 800000 900000
        r acl deluser long
        assert_equal OK [r acl load]
        assert_equal $::long_state [acl_state]
        assert_equal OK [r acl dryrun long get "long:[string repeat k 400000]x"]
        assert_match "*no permissions*" [r acl dryrun long get "long:[string repeat k 399999]"]
        assert_equal OK [r acl dryrun long set "sel:long:[string repeat k 400000]" v]
    }
}
start_server [list tags {"acl external:skip"} overrides [list aclfile $long_aclfile]] {
    test "A server started on that aclfile has the same users" {
        assert_equal $::long_state [acl_state]
    }
}

# Many random users: ACL SAVE, ACL LOAD, a restart on the aclfile, and
# CONFIG REWRITE with a restart on the `user` lines it wrote.
set random_aclfile [file join $acl_dir random.acl]
write_text $random_aclfile ""
start_server [list tags {"acl external:skip"} overrides [list aclfile $random_aclfile]] {
    test "Random users and rules (seed $::aclfile_seed) survive ACL SAVE and ACL LOAD" {
        set refused [make_random_users 150]
        set ::random_state [acl_state]
        assert_equal OK [r acl save]
        # Some random rules were refused, and some selector rules written
        # quoted.
        assert {$refused > 0}
        assert {[regexp {\(([^\n]* )?"} [read_text $random_aclfile]]}
        # Changes after the save are undone by the load.
        r acl setuser notsaved on
        r acl deluser [lindex [r acl users] end]
        assert_equal OK [r acl load]
        assert_equal $::random_state [acl_state]
        # And saving again writes the same file.
        set text [read_text $random_aclfile]
        assert_equal OK [r acl save]
        assert_equal $text [read_text $random_aclfile]
        assert_range [llength [r acl users]] 100 151
    }
}
start_server [list tags {"acl external:skip"} overrides [list aclfile $random_aclfile]] {
    test "A server started on the random users' aclfile has the same users" {
        assert_equal $::random_state [acl_state]
    }
}

start_server {tags {"acl external:skip"}} {
    test "Random users and rules (seed $::aclfile_seed) survive CONFIG REWRITE and a restart on its user lines" {
        make_random_users 150
        set ::rewrite_state [acl_state]
        r config rewrite
        set lines {}
        foreach line [split [read_text [srv config_file]] "\n"] {
            if {[string match "user *" $line]} { lappend lines $line }
        }
        assert_range [llength $lines] 100 151
        write_text [file join $acl_dir users.conf] "[join $lines "\n"]\n"
    }
}
start_server [list tags {"acl external:skip"} overrides [list include [file join $acl_dir users.conf]]] {
    test "A server started on those user lines has the same users" {
        assert_equal $::rewrite_state [acl_state]
    }
}
