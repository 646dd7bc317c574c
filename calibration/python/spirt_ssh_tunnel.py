#!/usr/bin/env python3
"""Times the SSH tunnel through which SPIRT's functions reach a peer's Redis, on one core of this machine, so that
p2psim's `spirt` design can charge it (platforms/aws_us_east_1.xml, kv_store/ssh_tunnel). SPIRT's averaging function
(https://github.com/AmineBarrak/TrainingML_P2P_Serverless at 16ebf1793c4d25d2ed8f9b76e06442085b8fa062,
SPIRT/Functions/Trigger_Average_Gradient_sync.zip, lambda_function.py) opens `with SSHTunnelForwarder((ec2_ip, 22),
ssh_username=..., ssh_pkey=<the .pem key>, remote_bind_address=('localhost', port))` and talks to Redis through it;
so do its CheckHeartbeat, Aggregation, Update, CheckConvergence, next-epoch, Init_model and Init_peers functions (the
gradient functions reach Redis directly). The kernel, written again here from that description, is the protocol
every such tunnel pays, whatever sshtunnel's version: paramiko's Transport to an OpenSSH server on this host (key exchange, the host key's signature,
public-key authentication with a 2,048-bit RSA key in PEM, as an EC2 .pem is), a direct-tcpip channel to a local
Redis, one PING through it, and the transport closed. This sshd has an RSA host key only; an EC2 instance's has
ed25519 and ECDSA keys too, which paramiko prefers, and whose signatures cost sshd less. sshtunnel's own threads (its local listener, the check of the
tunnel when it starts, the wait for its handlers when it stops) are left out: Debian's sshtunnel 0.1.4 is not the
release a Lambda layer of 2023 would hold, and its stop() waited for ever for a client connection left open, as
SPIRT's code leaves its Redis client.

Each sample is a fresh interpreter pinned to one core (calibration/python/pinned_sample.py) running TUNNELS tunnels
one after another; sshd and Redis are its children on the same core. A tunnel's wall time is three parts, each a
sample's mean: the client's CPU (its process, paramiko's threads included: loading the key, the key exchange, the
signature), the servers' (sshd's processes for the connection, its key exchange and host key signature, its
forwarding; Redis's PING is next to nothing: /proc's clock ticks, read once sshd has reaped every connection's
process), and waits with the core idle, about two thirds of it. The waits are TCP's delayed acknowledgements meeting Nagle's algorithm (paramiko does not set TCP_NODELAY:
setting it here took 40 ms off the authentication), which a real network would hold as well; they are taken as they
are, in seconds, and the round trips of a real network come on top (the profile's round_trips). The CPU of both
sides is paired with SeBS's zip kernel (calibration/python/paired_stand_in.py), which carries it to the calibration
CPU (scalar work: Python's loops, big-number arithmetic, short hashes and ciphers on short messages; sshd's fork and
exec for each connection are the kernel's work, carried alike); the client's share of it and the waits come from
samples of their own.
  /usr/bin/python3 calibration/python/spirt_ssh_tunnel.py \\
      --zip-data DIR/300.utilities/311.compression/acmart-master [--out FILE] [--samples 61] [--quiet-zip-s 0.2171]
  /usr/bin/python3 calibration/python/spirt_ssh_tunnel.py --derive [--kernels calibration/kernels]
needs openssh-server, python3-paramiko, redis-server and python3-redis; --derive only reads the file and prints the
profile's constants."""
import os
import re
import statistics
import sys

import paired_stand_in
from lambda_cpu_speed import deciles

TUNNELS = 20
KERNEL_FILE = "spirt_ssh_tunnel.txt"

# Prints, for a tunnel (the mean of TUNNELS): the CPU both sides spent, the client's, the servers' (sshd with its
# per-connection processes, and Redis: from /proc, in clock ticks) and the rest of the wall time, when the core was
# idle.
CHILD = """
import resource, sys, time
sys.path.insert(0, {here!r})
import paramiko
import ssh_redis

with ssh_redis.running() as servers:
    wall_s = cpu_s = 0.0
    pids = (servers.sshd.pid, servers.redis.pid)
    servers_begin = ssh_redis.reaped_cpu_s(pids)
    for _ in range({tunnels}):
        cpu_begin, begin = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        transport = paramiko.Transport(("127.0.0.1", servers.ssh_port))
        transport.connect(username=servers.user, pkey=paramiko.RSAKey.from_private_key_file(servers.user_key))
        channel = transport.open_channel("direct-tcpip", ("127.0.0.1", servers.redis_port), ("127.0.0.1", 0))
        channel.sendall(b"*1\\r\\n$4\\r\\nPING\\r\\n")
        reply = channel.recv(16)
        channel.close()
        transport.close()
        end, cpu_end = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        if reply != b"+PONG\\r\\n":
            raise RuntimeError(f"Redis answered {{reply!r}} through the tunnel")
        wall_s += end - begin
        cpu_s += (cpu_end.ru_utime + cpu_end.ru_stime) - (cpu_begin.ru_utime + cpu_begin.ru_stime)
    server_s = ssh_redis.reaped_cpu_s(pids) - servers_begin
print((cpu_s + server_s) / {tunnels}, cpu_s / {tunnels}, server_s / {tunnels}, (wall_s - cpu_s - server_s) / {tunnels})
"""


def child_code():
    return CHILD.format(tunnels=TUNNELS, here=os.path.dirname(os.path.abspath(__file__)))


def measure(args):
    shares, waits = [], []

    def write(pairs, retried):
        p10, median, p90 = deciles(waits)
        details = (f"one tunnel: paramiko {paramiko_version()}'s Transport (RSA-2048 PEM key) to OpenSSH's sshd, a "
                   f"direct-tcpip channel, a Redis PING, closed; each sample the mean of {TUNNELS} tunnels, its "
                   f"first number the CPU of both sides; over {len(shares)} samples of their own, the client's share "
                   f"of that CPU (median) {statistics.median(shares):.4f} and the waits with the core idle "
                   f"{median:.4f} s (p10 {p10:.4f}, p90 {p90:.4f})")
        return paired_stand_in.write_pairs_file(args.out, "tunnel_cpu", "SPIRT's SSH tunnel", "spirt_ssh_tunnel.py",
                                                details, pairs, retried)

    code = child_code()
    # The client's share and the waits come from samples of their own: time_pairs keeps only the first number.
    for _ in range(min(args.samples, 21)):
        both, client, _, idle = (float(v) for v in
                                 paired_stand_in.quiet_sample(code, max(os.sched_getaffinity(0)))[0].split())
        shares.append(client / both)
        waits.append(idle)
    return paired_stand_in.run(args, code, write)


def paramiko_version():
    import paramiko
    return paramiko.__version__


def derive(kernels_dir):
    """The profile's kv_store/ssh_tunnel constants from the kernel file: the CPU of both sides on the calibration CPU
    (its ratio over the zip times the zip's seconds there), split into the client's and the servers' by the client's
    share, and the waits as measured. Returns the lines to print."""
    path = os.path.join(kernels_dir, KERNEL_FILE)
    with open(path) as f:
        text = f.read()
    m = re.search(r"the client's share of that CPU \(median\) ([0-9.]+) and the waits with the core idle ([0-9.]+) s "
                  r"\(p10 ([0-9.]+), p90 ([0-9.]+)\)", text)
    pairs = re.findall(r"^([0-9.]+) ([0-9.]+) [0-9.]+ [0-9.]+$", text, re.M)
    if not m or len(pairs) < 3 or any(float(zip_s) <= 0 for _, zip_s in pairs):
        raise ValueError(f"{path}: no client share and waits, fewer than 3 pairs, or a zip of no time")
    zip_s = paired_stand_in.zip_on_calibration_cpu_s(kernels_dir)
    client, waits = float(m.group(1)), [float(m.group(i)) for i in (2, 3, 4)]
    ratio = paired_stand_in.pairs_file_ratio(path)
    p10, _, p90 = deciles([float(cpu) / float(zip_) for cpu, zip_ in pairs])
    lines = [f"zip on the calibration CPU: {zip_s} s; the client's share {client}"]
    for name, part in (("client_cpu_s_on_reference_cpu", client), ("server_cpu_s_on_reference_cpu", 1 - client)):
        lines.append(f"{name}: {ratio * zip_s * part:.4g} (p10 {p10 * zip_s * part:.4g}, p90 {p90 * zip_s * part:.4g})")
    lines.append(f"wait_s: {waits[0]:.4g} (p10 {waits[1]:.4g}, p90 {waits[2]:.4g})")
    return lines


def main():
    return paired_stand_in.tool_main(__doc__, derive, measure, out=os.path.join("calibration/kernels", KERNEL_FILE))

if __name__ == "__main__":
    sys.exit(main())
