"""Plain TCP in a ring of namespace hosts, to see what the kernel's congestion control does to streams that never
run empty: each host sends to the next over two connections for SECONDS and counts what it receives from the one
before in 100 ms buckets, then prints its mean and every bucket under half the mean (after the first and before
the last half second). No collective library is in the way. Under BBR every host shows a bucket or two at a
fraction of the rate about every 10 s (its PROBE_RTT); under cubic none. Run one copy on each host k of N at once:

    ip netns exec jc-h<k> python3 tcp_ring.py 10.77.0.<k+1> 10.77.0.<(k+1)%N+1> SECONDS [ALGORITHM]

ALGORITHM, when given, is set on the sending sockets (TCP_CONGESTION; root may pick any the kernel has), else the
host's default applies.
"""
import socket
import sys
import threading
import time

PORT = 7711
me, succ, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
algorithm = sys.argv[4] if len(sys.argv) > 4 else None
buckets = {}
start = time.monotonic()
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind((me, PORT))
listener.listen(2)


def drain(conn):
    buf = memoryview(bytearray(1 << 20))
    while True:
        n = conn.recv_into(buf)
        if n == 0:
            return
        k = int((time.monotonic() - start) * 10)
        buckets[k] = buckets.get(k, 0) + n


def accept():
    for _ in range(2):
        threading.Thread(target=drain, args=(listener.accept()[0],), daemon=True).start()


def send():
    s = socket.create_connection((succ, PORT))
    if algorithm:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, algorithm.encode())
    used = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b"\0")[0].decode()
    senders_cc.add(used)
    data = bytes(1 << 20)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        s.sendall(data)
    s.close()


senders_cc = set()
threading.Thread(target=accept, daemon=True).start()
time.sleep(1)  # every host listens before any connects
senders = [threading.Thread(target=send) for _ in range(2)]
for t in senders:
    t.start()
for t in senders:
    t.join()
time.sleep(1)
keys = sorted(buckets)[5:-5]
mean = sum(buckets[k] for k in keys) / max(1, len(keys))
low = ["%.1f s: %.2f MB" % (k / 10, buckets[k] / 1e6) for k in keys if buckets[k] < mean / 2]
print("%s (sending with %s): %.2f MB per 100 ms (%.3f of 1 Gbit/s); buckets under half of it: %s"
      % (me, ",".join(sorted(senders_cc)), mean / 1e6, mean * 10 * 8 / 1e9, ", ".join(low) or "none"))
