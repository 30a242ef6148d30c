#!/usr/bin/env python3
# peer.py - a scriptable shared-memory client for tests/integration/shm.tcl,
# written against the protocol of src/shm_ring.h (v1) and nothing else, so
# it can also misbehave: corrupt the ring indices, write to the socket after
# the upgrade, stop reading, or be killed half-way through a request.
#
#   peer.py SOCKET MODE [ARG]
#
# Modes (each prints one line the test checks, and flushes):
#   ping          upgrade, PING, print the reply ("+PONG")
#   corrupt-tail  upgrade, SET shmkey v, publish a request tail far beyond
#                 the ring and ring the server; print "closed" once the
#                 server closes the socket ("timeout" after 10 s)
#   corrupt-head  upgrade, move the reply ring's head past its tail, send
#                 PING; print "closed" / "timeout"
#   socket-bytes  upgrade, then send a byte on the socket; "closed"/"timeout"
#   partial       upgrade, write the first half of a SET, print "ready",
#                 sleep (the test kills it with SIGKILL)
#   no-read N     upgrade, send N x "GET bigkey" without reading a reply;
#                 print "closed" / "timeout"
#   raw HEX       send the bytes HEX on the socket, print what comes back
#                 (a hello: "hello N bytes fds=N"; else the repr of the
#                 first line and the number of fds), then "closed" if the
#                 server closes within 1 s, else "timeout"
import array
import mmap
import os
import select
import socket
import struct
import sys
import time

HELLO_LEN = 32
DATA_OFFSET = 4096
REQ_CTL, REP_CTL = 64, 64 + 256           # shmRingCtl offsets in the header
TAIL, HEAD, DATA_WAITER, SPACE_WAITER = 0, 64, 128, 192


class Peer:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)

    def upgrade(self):
        self.sock.sendall(b"\x16VKSHM 1\r\n")
        fds = array.array("i")
        msg, anc, _, _ = self.sock.recvmsg(HELLO_LEN, socket.CMSG_LEN(3 * fds.itemsize))
        if msg[:1] != b"\x16":
            print("refused %r" % msg)
            sys.exit(0)
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
        self.memfd, self.server_bell, self.bell = fds[0], fds[1], fds[2]
        self.ring = struct.unpack_from("<I", msg, 8)[0]
        size = struct.unpack_from("<Q", msg, 16)[0]
        self.mem = mmap.mmap(self.memfd, size)
        self.req_tail = 0
        self.rep_head = 0

    def ld64(self, off):
        return struct.unpack_from("<Q", self.mem, off)[0]

    def st64(self, off, v):
        struct.pack_into("<Q", self.mem, off, v)

    def ring_server(self):
        os.write(self.server_bell, struct.pack("<Q", 1))

    def send(self, data):
        """Writes data into the request ring (it must fit) and rings."""
        base = DATA_OFFSET
        for i in range(len(data)):
            self.mem[base + (self.req_tail + i) % self.ring] = data[i]
        self.req_tail += len(data)
        self.st64(REQ_CTL + TAIL, self.req_tail)
        self.ring_server()

    def recv(self, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            tail = self.ld64(REP_CTL + TAIL)
            if tail != self.rep_head:
                base = DATA_OFFSET + self.ring
                out = bytes(self.mem[base + (self.rep_head + i) % self.ring] for i in range(tail - self.rep_head))
                self.rep_head = tail
                self.st64(REP_CTL + HEAD, self.rep_head)
                return out
            time.sleep(0.001)
        return b""

    def wait_closed(self, timeout=10):
        """Prints "closed" once the server closes the socket."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            r, _, _ = select.select([self.sock], [], [], 0.1)
            if r:
                try:
                    if self.sock.recv(1) == b"":
                        print("closed")
                        return
                except ConnectionResetError:
                    print("closed")
                    return
        print("timeout")


def resp(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else a.encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def main():
    path, mode = sys.argv[1], sys.argv[2]
    arg = sys.argv[3] if len(sys.argv) > 3 else None
    p = Peer(path)
    if mode == "raw":
        p.sock.sendall(bytes.fromhex(arg))
        fds = array.array("i")
        msg, anc, _, _ = p.sock.recvmsg(256, socket.CMSG_LEN(3 * fds.itemsize))
        for level, kind, data in anc:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
        if msg[:1] == b"\x16":
            print("hello %d bytes fds=%d" % (len(msg), len(fds)))
        else:
            print("%r fds=%d" % (msg.split(b"\r\n")[0], len(fds)))
        sys.stdout.flush()
        p.wait_closed(1)
        return
    p.upgrade()
    if mode == "ping":
        p.send(resp("PING"))
        print(p.recv().decode().strip())
    elif mode == "corrupt-tail":
        p.send(resp("SET", "shmkey", "v"))
        p.recv()
        p.st64(REQ_CTL + TAIL, p.req_tail + (1 << 40))
        p.ring_server()
        p.wait_closed()
    elif mode == "corrupt-head":
        p.st64(REP_CTL + HEAD, 12345)
        p.send(resp("PING"))
        p.wait_closed()
    elif mode == "socket-bytes":
        p.send(resp("PING"))
        p.recv()
        p.sock.send(b"x")
        p.wait_closed()
    elif mode == "partial":
        req = resp("SET", "partialkey", "x" * 100)
        p.send(req[: len(req) // 2])
        print("ready")
        sys.stdout.flush()
        time.sleep(3600)
    elif mode == "no-read":
        cmd = resp("GET", "bigkey")
        for _ in range(int(arg)):
            # Wait for room: the server may stop reading once it stalls.
            deadline = time.time() + 5
            while p.req_tail + len(cmd) - p.ld64(REQ_CTL + HEAD) > p.ring and time.time() < deadline:
                time.sleep(0.001)
            if time.time() >= deadline:
                break
            p.send(cmd)
        p.wait_closed()
    else:
        print("unknown mode " + mode)
    sys.stdout.flush()


main()
