# The command table against Valkey 8's: every command and subcommand's
# COMMAND INFO (arity, flags, ACL categories, legacy key positions, key
# specs, tips) and COMMAND DOCS group are compared with the reference list
# tests/assets/command-reference.txt, which also names the Valkey commands
# left out on purpose. Every mismatch is printed before the test fails, so
# one run shows all the drift. COMMAND GETKEYS / GETKEYSANDFLAGS are checked
# against the key specs for the commands whose keys move.

# Reads the reference: a dict name -> {arity flags cats first last step specs
# tips group}, and the list of absent names.
proc cmdref_load {path} {
    set fd [open $path r]
    set ref [dict create]
    set absent {}
    while {[gets $fd line] >= 0} {
        set line [string trim $line]
        if {$line eq "" || [string index $line 0] eq "#"} continue
        if {[lindex $line 0] eq "absent"} {
            lappend absent [lindex $line 1]
            continue
        }
        if {[llength $line] != 10} { error "bad reference line: $line" }
        dict set ref [lindex $line 0] [lrange $line 1 end]
    }
    close $fd
    list $ref $absent
}

# "a,b,c" or "-" as a sorted Tcl list.
proc cmdref_set {field} {
    if {$field eq "-"} { return {} }
    lsort [split $field ,]
}

# Key-spec flags in the order COMMAND INFO lists them.
set ::cmdref_kflag_order {RO RW OW RM access update insert delete not_key incomplete variable_flags}
proc cmdref_kflags {flags} {
    set out {}
    foreach f $::cmdref_kflag_order { if {$f in $flags} { lappend out $f } }
    foreach f $flags { if {$f ni $::cmdref_kflag_order} { lappend out $f } }
    join $out ,
}

# One COMMAND INFO key spec (a flat key/value list) in the reference's
# notation flags/begin/find.
proc cmdref_spec_text {spec} {
    set flags [cmdref_kflags [dict get $spec flags]]
    set bs [dict get $spec begin_search]
    set bsspec [dict get $bs spec]
    switch -- [dict get $bs type] {
        index { set begin "index:[dict get $bsspec index]" }
        keyword { set begin "keyword:[dict get $bsspec keyword]:[dict get $bsspec startfrom]" }
        default { set begin [dict get $bs type] }
    }
    set fk [dict get $spec find_keys]
    set fkspec [dict get $fk spec]
    switch -- [dict get $fk type] {
        range { set find "range:[dict get $fkspec lastkey]:[dict get $fkspec keystep]:[dict get $fkspec limit]" }
        keynum { set find "keynum:[dict get $fkspec keynumidx]:[dict get $fkspec firstkey]:[dict get $fkspec keystep]" }
        default { set find [dict get $fk type] }
    }
    return "$flags/$begin/$find"
}

# The reference's key specs with each spec's flags put in canonical order.
proc cmdref_norm_specs {field} {
    if {$field eq "-"} { return "-" }
    set out {}
    foreach spec [split $field ";"] {
        lassign [split $spec /] flags begin find
        lappend out "[cmdref_kflags [split $flags ,]]/$begin/$find"
    }
    join $out ";"
}

# Compares one COMMAND INFO entry with the reference row; appends a line per
# difference to the caller's list named by errvar.
proc cmdref_compare {info row group errvar} {
    upvar $errvar errs
    lassign $row arity flags cats first last step specs tips refgroup
    set name [lindex $info 0]
    set got(arity) [lindex $info 1]
    set got(flags) [lsort [lindex $info 2]]
    set got(pos) [lrange $info 3 5]
    set c {}
    foreach cat [lindex $info 6] { lappend c [string trimleft $cat @] }
    set got(cats) [lsort $c]
    set got(tips) [lsort [lindex $info 7]]
    set s {}
    foreach spec [lindex $info 8] { lappend s [cmdref_spec_text $spec] }
    set got(specs) [expr {[llength $s] ? [join $s ";"] : "-"}]

    if {$got(arity) != $arity} { lappend errs "$name: arity $got(arity), Valkey $arity" }
    if {$got(flags) ne [cmdref_set $flags]} { lappend errs "$name: flags {$got(flags)}, Valkey {[cmdref_set $flags]}" }
    if {$got(cats) ne [cmdref_set $cats]} { lappend errs "$name: categories {$got(cats)}, Valkey {[cmdref_set $cats]}" }
    if {$got(pos) ne [list $first $last $step]} { lappend errs "$name: first/last/step {$got(pos)}, Valkey {$first $last $step}" }
    if {$got(specs) ne [cmdref_norm_specs $specs]} { lappend errs "$name: key specs $got(specs), Valkey [cmdref_norm_specs $specs]" }
    if {$got(tips) ne [cmdref_set $tips]} { lappend errs "$name: tips {$got(tips)}, Valkey {[cmdref_set $tips]}" }
    if {$group ne $refgroup} { lappend errs "$name: group $group, Valkey $refgroup" }
}

# COMMAND DOCS group of every command and subcommand: name -> group.
proc cmdref_groups {} {
    set groups [dict create]
    foreach {name docs} [r command docs] {
        dict set groups $name [dict get $docs group]
        if {[dict exists $docs subcommands]} {
            foreach {sub subdocs} [dict get $docs subcommands] {
                dict set groups $sub [dict get $subdocs group]
            }
        }
    }
    return $groups
}

lassign [cmdref_load [file join [pwd] tests assets command-reference.txt]] ::cmdref ::cmdref_absent

start_server {tags {introspection valkey-only}} {
    test "Every command is in the Valkey reference list, and every listed command exists" {
        set ours [r command list]
        set errs {}
        foreach name $ours {
            if {$name in $::cmdref_absent} {
                lappend errs "$name: implemented but listed as absent"
            } elseif {![dict exists $::cmdref $name]} {
                lappend errs "$name: not in the reference"
            }
        }
        foreach name [dict keys $::cmdref] {
            if {$name ni $ours} { lappend errs "$name: in the reference but not implemented" }
        }
        foreach e $errs { puts "  $e" }
        assert_equal {} $errs
    }

    test "COMMAND INFO and COMMAND DOCS of every command match Valkey 8's" {
        set groups [cmdref_groups]
        set errs {}
        set seen 0
        foreach entry [r command info] {
            set todo [list $entry]
            foreach sub [lindex $entry 9] { lappend todo $sub }
            foreach info $todo {
                set name [lindex $info 0]
                if {![dict exists $::cmdref $name]} continue
                incr seen
                set group [expr {[dict exists $groups $name] ? [dict get $groups $name] : "?"}]
                cmdref_compare $info [dict get $::cmdref $name] $group errs
            }
        }
        foreach e $errs { puts "  $e" }
        assert_equal {} $errs
        assert_equal [dict size $::cmdref] $seen
    }

    test "COMMAND GETKEYSANDFLAGS reports each key with its spec's flags" {
        assert_equal {{src {RW access delete}} {dst {RW insert}}} \
            [r command getkeysandflags lmove src dst left right]
        assert_equal {{d {OW update}} {a {RO access}} {b {RO access}}} \
            [r command getkeysandflags sinterstore d a b]
        assert_equal {{d {OW update}} {a {RO access}} {b {RO access}}} \
            [r command getkeysandflags zunionstore d 2 a b]
        assert_equal {{k {RW access delete}}} [r command getkeysandflags migrate host 6379 k 0 5000]
        assert_equal {{k {RW access delete incomplete}} {k2 {RW access delete incomplete}}} \
            [r command getkeysandflags migrate host 6379 "" 0 5000 keys k k2]
        assert_equal {{src {RO access}} {dst {OW update}}} \
            [r command getkeysandflags sort src store dst]
        assert_equal {{s1 {RO access}} {s2 {RO access}}} \
            [r command getkeysandflags xreadgroup group g c streams s1 s2 0 0]
        assert_equal {{k {RW access}} {k2 {RW access}}} [r command getkeysandflags pfcount k k2]
        assert_equal {{k {RW delete}}} [r command getkeysandflags xautoclaim k g c 0 0]
    }

    test "COMMAND GETKEYS finds the keys the key specs describe" {
        assert_equal {a b} [r command getkeys mset a 1 b 2]
        assert_equal {k1 k2} [r command getkeys eval "return 1" 2 k1 k2 arg]
        assert_equal {s1 s2} [r command getkeys xread count 1 streams s1 s2 0 0]
        assert_equal {l1 l2} [r command getkeys blmpop 0 2 l1 l2 left]
        assert_equal {k dst} [r command getkeys georadius k 0 0 1 km store dst]
        assert_equal {k1 k2} [r command getkeys lcs k1 k2]
        assert_error {*no key arguments*} {r command getkeys keys *}
    }
}
