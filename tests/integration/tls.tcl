# The TLS transport, next to TCP in one server: commands, big values and
# pipelines over TLS, client certificates (tls-auth-clients yes, optional,
# no), CONFIG SET of the certificate, Debian's redis-cli with --tls, INFO
# and CLIENT LIST, protocol errors. (./runtest --tls runs the whole suite
# over TLS instead.) Skipped when tcl-tls is missing.

set ::tls_why [::vk::tls_unavailable]
set ::tls_dir $::vk::tls_dir

# A client of the harness over TLS to port, with the test client
# certificate (or without any when nocert is set).
proc tls_client {port {deferred 0}} {
    set saved $::vk::transport
    set ::vk::transport tls
    set err [catch {::vk::client_open 127.0.0.1 $port $deferred} c]
    set ::vk::transport $saved
    if {$err} { error $c }
    return $c
}

# Whether a TLS connection without a client certificate gets an answer.
proc tls_ping_without_cert {port} {
    package require tls
    set fd [tls::socket -cafile [file join $::tls_dir ca.crt] -command ::vk::tls_callback 127.0.0.1 $port]
    fconfigure $fd -translation binary -blocking 1
    set reply ""
    catch {
        tls::handshake $fd
        puts -nonewline $fd "PING\r\n"
        flush $fd
        set reply [string trim [gets $fd]]
    }
    catch {close $fd}
    return $reply
}

proc tls_cli {port args} {
    exec redis-cli -p $port --tls --cacert [file join $::tls_dir ca.crt] \
        --cert [file join $::tls_dir client.crt] --key [file join $::tls_dir client.key] {*}$args
}

if {$::tls_why ne ""} {
    puts "tls.tcl: skipped: $::tls_why"
    return
}

set ::tls_port [::vk::alloc_port]
start_server [list tags {tls rdma:skip:tls-transport} overrides [list tls-port $::tls_port \
        tls-cert-file [file join $::tls_dir server.crt] tls-key-file [file join $::tls_dir server.key] \
        tls-ca-cert-file [file join $::tls_dir ca.crt]]] {

    test "TLS: commands, a 3 MB value and a 1000-command pipeline" {
        set c [tls_client $::tls_port]
        assert_equal PONG [$c ping]
        set big [string repeat "tls-payload-" 262144]
        assert_equal OK [$c set big $big]
        assert_equal $big [$c get big]
        set d [tls_client $::tls_port 1]
        for {set i 0} {$i < 1000} {incr i} { $d incr counter }
        for {set i 1} {$i <= 1000} {incr i} { assert_equal $i [$d read] }
        # The same data over TCP: one keyspace behind both listeners.
        assert_equal 1000 [r get counter]
        $c close
        $d close
    }

    test "TLS: replies larger than the socket takes are written whole" {
        set d [tls_client $::tls_port 1]
        for {set i 0} {$i < 8} {incr i} { $d get big }
        for {set i 0} {$i < 8} {incr i} { assert_equal 3145728 [string length [$d read]] }
        $d close
    }

    test "TLS: a client without a certificate is refused while tls-auth-clients is yes" {
        assert_equal "" [tls_ping_without_cert $::tls_port]
        r config set tls-auth-clients optional
        assert_equal "+PONG" [tls_ping_without_cert $::tls_port]
        r config set tls-auth-clients no
        assert_equal "+PONG" [tls_ping_without_cert $::tls_port]
        r config set tls-auth-clients yes
        assert_equal "" [tls_ping_without_cert $::tls_port]
    }

    test "TLS: Debian's redis-cli talks to it with --tls" {
        assert_equal PONG [tls_cli $::tls_port ping]
        assert_equal 1000 [tls_cli $::tls_port get counter]
    }

    test "TLS: our valkey-cli and valkey-benchmark with --tls" {
        set root $::vk::cfg(root)
        set certs [list --cacert [file join $::tls_dir ca.crt] --cert [file join $::tls_dir client.crt] \
                       --key [file join $::tls_dir client.key]]
        set cli [file join $root src valkey-cli]
        set bench [file join $root src valkey-benchmark]
        assert_equal PONG [exec $cli -p $::tls_port --tls {*}$certs ping]
        assert_equal 1000 [exec $cli -p $::tls_port --tls {*}$certs get counter]
        # A server certificate from another CA is refused.
        set code [catch {exec $cli -p $::tls_port --tls --cacert [file join $::tls_dir other-ca.crt] \
                             --cert [file join $::tls_dir client.crt] --key [file join $::tls_dir client.key] \
                             ping 2>@1} out]
        assert_equal 1 $code
        assert_match "*Could not connect to Valkey at 127.0.0.1:$::tls_port:*certificate*" $out
        # The benchmark over TLS, with pipelining and two threads.
        set out [exec $bench -p $::tls_port --tls {*}$certs -t set,get -n 2000 -P 16 --threads 2 -q]
        assert_match "*SET: * requests per second*GET: * requests per second*" $out
    }

    test "TLS: INFO lists the listener, CLIENT LIST the connection" {
        assert_match "*name=tls,bind=*port=$::tls_port*" [r info server]
        set c [tls_client $::tls_port]
        set id [$c client id]
        assert_match "*id=$id *laddr=127.0.0.1:$::tls_port *" [r client list id $id]
        $c close
    }

    test "TLS: CONFIG SET of the certificate applies to new connections; a bad one is refused" {
        r config set tls-cert-file [file join $::tls_dir other.crt] tls-key-file [file join $::tls_dir other.key]
        # redis-cli checks the server against our CA: the other one fails.
        assert_error "*" {tls_cli $::tls_port ping}
        r config set tls-cert-file [file join $::tls_dir server.crt] tls-key-file [file join $::tls_dir server.key]
        assert_equal PONG [tls_cli $::tls_port ping]
        assert_error "*Unable to update TLS configuration*" {r config set tls-cert-file /nonexistent/cert.pem}
        assert_equal [file join $::tls_dir server.crt] [lindex [r config get tls-cert-file] 1]
        assert_equal PONG [tls_cli $::tls_port ping]
    }

    test "TLS: a certificate set while the TLS port is off is used when it comes back" {
        r config set tls-port 0
        r config set tls-cert-file [file join $::tls_dir other.crt] tls-key-file [file join $::tls_dir other.key]
        r config set tls-port $::tls_port
        assert_error "*" {tls_cli $::tls_port ping}
        r config set tls-cert-file [file join $::tls_dir server.crt] tls-key-file [file join $::tls_dir server.key]
        assert_equal PONG [tls_cli $::tls_port ping]
    }

    test "TLS: protocol garbage gets the protocol error and the connection closes" {
        set c [tls_client $::tls_port]
        $c readraw 1
        $c write "*1\r\n\$-5\r\n"
        $c flush
        assert_match "-ERR Protocol error*" [$c read]
        assert_error "*connection closed*" {$c read}
        $c close
        assert_equal PONG [r ping]
    }

    test "TLS: the tls-* options read back" {
        assert_equal [list tls-port $::tls_port] [r config get tls-port]
        assert_equal {tls-auth-clients yes} [r config get tls-auth-clients]
        r config set tls-protocols "TLSv1.2 TLSv1.3"
        assert_equal PONG [tls_cli $::tls_port ping]
        assert_error "*Unable to update TLS configuration*" {r config set tls-protocols "SSLv3"}
    }
}

# An encrypted copy of the server key (passphrase s3cret) and standard DH
# parameters, made with the openssl tool.
set ::tls_enc_key [tmp_path enc-server.key]
set ::tls_dh [tmp_path dh.pem]
exec openssl pkey -in [file join $::tls_dir server.key] -aes256 -passout pass:s3cret -out $::tls_enc_key
exec openssl genpkey -genparam -algorithm DH -pkeyopt group:ffdhe2048 -out $::tls_dh 2>@1

set ::tls_port [::vk::alloc_port]
start_server [list tags {tls rdma:skip:tls-transport} overrides [list tls-port $::tls_port \
        tls-cert-file [file join $::tls_dir server.crt] tls-key-file $::tls_enc_key tls-key-file-pass s3cret \
        tls-dh-params-file $::tls_dh tls-ca-cert-file [file join $::tls_dir ca.crt]]] {

    test "TLS: an encrypted key with tls-key-file-pass, and tls-dh-params-file" {
        assert_equal PONG [tls_cli $::tls_port ping]
        # A wrong passphrase or a bad DH file is refused; the context stays.
        assert_error "*Unable to update TLS configuration*" {r config set tls-key-file-pass wrong}
        assert_error "*Unable to update TLS configuration*" \
            {r config set tls-dh-params-file [file join $::tls_dir ca.crt]}
        assert_equal PONG [tls_cli $::tls_port ping]
        # The passphrase is a secret CONFIG GET still shows, as in Valkey.
        assert_equal {tls-key-file-pass s3cret} [r config get tls-key-file-pass]
    }

    test "TLS: the session cache options apply to new connections" {
        r config set tls-session-caching no
        assert_equal PONG [tls_cli $::tls_port ping]
        r config set tls-session-caching yes tls-session-cache-size 10 tls-session-cache-timeout 60
        assert_equal PONG [tls_cli $::tls_port ping]
        list [r config get tls-session-cache-size] [r config get tls-session-cache-timeout]
    } {{tls-session-cache-size 10} {tls-session-cache-timeout 60}}
}

tags {tls rdma:skip:tls-transport} {
    test "TLS: an encrypted key without its passphrase stops the start-up" {
        set dir [tmp_path tls-nopass]
        file mkdir $dir
        set port [::vk::alloc_port]
        set status [catch {exec $::vk::cfg(binary) --port 0 --tls-port $port --dir $dir \
                               --tls-cert-file [file join $::tls_dir server.crt] --tls-key-file $::tls_enc_key \
                               --tls-key-file-pass wrong --tls-ca-cert-file [file join $::tls_dir ca.crt] \
                               </dev/null 2>@1} out]
        assert_equal 1 $status
        assert_match "*Failed to load private key*" $out
    }

    test "TLS: a tls-port without a certificate stops the start-up" {
        set dir [tmp_path tls-nocert]
        file mkdir $dir
        set port [::vk::alloc_port]
        set status [catch {exec $::vk::cfg(binary) --port 0 --tls-port $port --dir $dir 2>@1} out]
        assert_equal 1 $status
        assert_match "*Failed to configure TLS*" $out
    }
}
