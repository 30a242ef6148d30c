# tests/assets/dump-payload.tcl - building DUMP payloads by hand in tests.
#
# A DUMP payload is a value's RDB type byte and body, the RDB version as 2
# little-endian bytes, and the CRC-64 of everything before it as 8
# little-endian bytes. dump.tcl, type/rdb-types.tcl and type/stream-rdb.tcl
# source this to seal bodies they write byte by byte, to re-seal payloads
# they damage on purpose and to check ours.

# CRC-64/Jones, reflected (polynomial 0xad93d23594c935a9), one table.
set ::dump_payload_crc_table {}
for {set n 0} {$n < 256} {incr n} {
    set c $n
    for {set k 0} {$k < 8} {incr k} {
        set c [expr {($c & 1) ? (($c >> 1) ^ 0x95ac9329ac4bc9b5) : ($c >> 1)}]
    }
    lappend ::dump_payload_crc_table $c
}

proc crc64 {data} {
    set crc 0
    binary scan $data cu* bytes
    foreach b $bytes {
        set crc [expr {[lindex $::dump_payload_crc_table [expr {($crc ^ $b) & 0xff}]] ^ ($crc >> 8)}]
    }
    return $crc
}

# The 8 little-endian bytes of a 64-bit value.
proc le64 {v} {
    binary format ii [expr {$v & 0xffffffff}] [expr {($v >> 32) & 0xffffffff}]
}

# A payload of body (type byte first) for RDB version ver.
proc seal_payload {body {ver 11}} {
    set head "$body[binary format s $ver]"
    return "$head[le64 [crc64 $head]]"
}

# The payload with its checksum recomputed (after editing its bytes).
proc fix_checksum {payload} {
    set head [string range $payload 0 end-8]
    return "$head[le64 [crc64 $head]]"
}

# Bytes from hex digits (spaces and newlines ignored).
proc unhex {hex} { binary format H* [string map {" " "" "\n" ""} $hex] }

# An RDB length (6, 14, 32 or 64 bits).
proc rdb_len {n} {
    if {$n < 64} { return [binary format c $n] }
    if {$n < 16384} { return [binary format S [expr {0x4000 | $n}]] }
    if {$n <= 0xffffffff} { return "\x80[binary format I $n]" }
    return "\x81[binary format W $n]"
}

# An RDB string in its raw form (no integer or LZF encoding).
proc rdb_str {s} { return "[rdb_len [string length $s]]$s" }
