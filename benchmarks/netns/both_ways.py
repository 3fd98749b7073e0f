"""Plain TCP both ways at once between two namespace hosts: the most a ring step can carry on these links.

Each host sends BYTES to the other over STREAMS connections while receiving as much, as every host of a ring does
(data one way, the acknowledgements of what it receives the other), with no collective library in the way. Prints
the time until this host has received everything and the rate as a fraction of a 1 Gbit/s link. Run one copy on
each host (allgather-floor.sh does):

    python3 both_ways.py MY_ADDRESS PEER_ADDRESS BYTES STREAMS
"""
import socket
import sys
import threading
import time

PORT = 7700
me, peer, total, streams = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
each = total // streams
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind((me, PORT))
listener.listen(streams)
received_at = []


def drain(conn):
    buf = memoryview(bytearray(1 << 20))
    got = 0
    while got < each:
        n = conn.recv_into(buf)
        if n == 0:
            raise SystemExit(f"{me}: the peer closed after {got} of {each} bytes")
        got += n
    received_at.append(time.monotonic())


def accept_all():
    drains = [threading.Thread(target=drain, args=(listener.accept()[0],)) for _ in range(streams)]
    for t in drains:
        t.start()
    for t in drains:
        t.join()


acceptor = threading.Thread(target=accept_all)
acceptor.start()
conns = []
deadline = time.monotonic() + 30
while len(conns) < streams:
    try:
        c = socket.create_connection((peer, PORT))
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conns.append(c)
    except OSError:
        if time.monotonic() > deadline:
            raise
        time.sleep(0.1)
time.sleep(1.0)  # both hosts connected before either starts: the two directions overlap
payload = b"\x01" * each
start = time.monotonic()
senders = [threading.Thread(target=c.sendall, args=(payload,)) for c in conns]
for t in senders:
    t.start()
for t in senders:
    t.join()
acceptor.join()
seconds = max(received_at) - start
print(f"{me}: received {total / 1e6:.0f} MB in {seconds:.3f} s, {total / seconds / 125e6:.4f} of 1 Gbit/s")
