#!/usr/bin/env python3
"""Times the bytes that cross SPIRT's SSH tunnel, per MB, on one core of this machine, so that p2psim's `spirt` design
can charge them (platforms/aws_us_east_1.xml, kv_store/ssh_tunnel's *_per_mb_* attributes). SPIRT's averaging function
(https://github.com/AmineBarrak/TrainingML_P2P_Serverless at 16ebf1793c4d25d2ed8f9b76e06442085b8fa062,
SPIRT/Functions/Trigger_Average_Gradient_sync.zip, lambda_function.py) reaches its peer's Redis through sshtunnel's
SSHTunnelForwarder: redis-py and the RedisAI client talk to a local port, and sshtunnel's handler thread relays each
connection to a paramiko channel. Two payloads cross it each iteration: the averaged gradient as JSON text, the Lua
script's reply (a download), and that average written back as a tensor (TENSORSET, an upload).

sshtunnel's relay is the cost: its last release, 0.4.0 (PyPI, 2021-01-11, what a Lambda layer built with pip holds),
reads 1,024 bytes a turn of its select loop and formats each chunk in hex for a trace log line it rarely prints
(`_ForwardHandler._redirect`; the 16 KiB reads of its repository's 2021-10 commit 2a27c07 were never released).
Debian's python3-sshtunnel is 0.1.4, whose relay reads and formats alike but whose stop() waits for ever here, so the
tool loads 0.4.0's sshtunnel.py from --sshtunnel (PyPI's sdist, or `git show 0.4.0:sshtunnel.py` of
https://github.com/pahaz/sshtunnel).

Each sample is a fresh interpreter pinned to one core (calibration/python/pinned_sample.py) with sshd and Redis as its
children on the same core (ssh_redis.py). It reads a value of VALUE_BYTES from Redis ROUNDS times and writes one
ROUNDS times, first directly and then through the tunnel; per MB (10^6 bytes) of each direction:
- the client's CPU through the tunnel less its CPU directly (redis-py's own parsing is not the tunnel's): paramiko's
  transport thread (decryption, MACs, its packets), sshtunnel's relay and the local socket's copies;
- sshd's CPU for the connection (its processes' clock ticks in /proc, read while the tunnel is open);
- Redis's own CPU is left out: it serves the same bytes either way.
The tunnel's idle time on the one core is not kept: three processes taking turns on one core wait for each other,
where on a network the function's and the database host's cores work at once. The first number a sample prints, both
directions' CPU of both sides, is paired with SeBS's zip kernel (calibration/python/paired_stand_in.py), which carries
it to the calibration CPU (scalar work: Python's loop, AES and HMAC on 32 KiB packets, memory copies); each part's
share of it comes from samples of their own (up to 21, before the pairs). sshd's parts rest on 7 to 10 of /proc's
clock ticks a sample.
  /usr/bin/python3 calibration/python/spirt_tunnel_bytes.py --sshtunnel DIR_WITH_0.4.0 \\
      --zip-data DIR/300.utilities/311.compression/acmart-master [--out FILE] [--samples 21] [--quiet-zip-s 0.2171]
  /usr/bin/python3 calibration/python/spirt_tunnel_bytes.py --derive [--kernels calibration/kernels]
needs openssh-server, python3-paramiko, redis-server and python3-redis; --derive only reads the file and prints the
profile's constants."""
import os
import re
import statistics
import sys

import paired_stand_in
from lambda_cpu_speed import deciles

VALUE_BYTES = 8 << 20
ROUNDS = 4
KERNEL_FILE = "spirt_tunnel_bytes.txt"
SSHTUNNEL_VERSION = "0.4.0"
# The parts a sample prints after its total, in order, each in CPU seconds per MB.
PARTS = ("download_client", "download_server", "upload_client", "upload_server")

# Prints, per MB: the tunnel's CPU of both sides in both directions, then each part (PARTS).
CHILD = """
import resource, sys, time
sys.path.insert(0, {sshtunnel!r})
sys.path.insert(0, {here!r})
import redis, sshtunnel
import ssh_redis

if sshtunnel.__version__ != {version!r}:
    raise RuntimeError(f"sshtunnel {{sshtunnel.__version__}} loaded, not {version}")
value = (b"[0.0012345678901234, -0.0098765432109876, " * ({value_bytes} // 42 + 1))[:{value_bytes}]

def cpu_s():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

def per_mb(client, sshd_pid):
    # (client CPU, sshd CPU) per MB of reading the value ROUNDS times, then of writing it ROUNDS times.
    def read():
        if len(client.get("read")) != {value_bytes}:
            raise RuntimeError("Redis returned a value of another size")

    client.set("read", value)
    read()  # untimed: the first turn's allocations
    out = []
    for step in (read, lambda: client.set("written", value)):
        sshd_begin = ssh_redis.live_tree_cpu_s(sshd_pid) if sshd_pid else 0.0
        begin = cpu_s()
        for _ in range({rounds}):
            step()
        client_s = cpu_s() - begin
        sshd_s = ssh_redis.live_tree_cpu_s(sshd_pid) - sshd_begin if sshd_pid else 0.0
        megabytes = {rounds} * {value_bytes} / 1e6
        out += [client_s / megabytes, sshd_s / megabytes]
    return out

with ssh_redis.running() as servers:
    direct = redis.Redis(host="127.0.0.1", port=servers.redis_port)
    read_direct, _, write_direct, _ = per_mb(direct, None)
    direct.close()
    tunnel = sshtunnel.SSHTunnelForwarder(("127.0.0.1", servers.ssh_port), ssh_username=servers.user,
                                          ssh_pkey=servers.user_key,
                                          remote_bind_address=("127.0.0.1", servers.redis_port))
    tunnel.start()
    through = redis.Redis(host="127.0.0.1", port=tunnel.local_bind_port)
    read_client, read_sshd, write_client, write_sshd = per_mb(through, servers.sshd.pid)
    through.close()
    tunnel.stop()
parts = [read_client - read_direct, read_sshd, write_client - write_direct, write_sshd]
print(sum(parts), *parts)
"""


def child_code(sshtunnel_dir):
    return CHILD.format(sshtunnel=os.path.abspath(sshtunnel_dir), here=os.path.dirname(os.path.abspath(__file__)),
                        version=SSHTUNNEL_VERSION, value_bytes=VALUE_BYTES, rounds=ROUNDS)


def measure(args):
    code = child_code(args.sshtunnel)
    shares = {part: [] for part in PARTS}
    for _ in range(min(args.samples, 21)):
        numbers = [float(v) for v in paired_stand_in.quiet_sample(code, max(os.sched_getaffinity(0)))[0].split()]
        for part, value in zip(PARTS, numbers[1:]):
            shares[part].append(value / numbers[0])

    def write(pairs, retried):
        medians = ", ".join(f"{part} {statistics.median(shares[part]):.4f}" for part in PARTS)
        details = (f"per MB through sshtunnel {SSHTUNNEL_VERSION}'s forwarder (paramiko {paramiko_version()}, RSA-2048 "
                   f"PEM key, OpenSSH's sshd), a {VALUE_BYTES}-byte value read {ROUNDS} times and written {ROUNDS} "
                   f"times by redis-py, less the same directly; each sample's first number the CPU of both sides in "
                   f"both directions, s per MB; over {len(shares[PARTS[0]])} samples of their own, each part's share "
                   f"of it (medians): {medians}")
        return paired_stand_in.write_pairs_file(args.out, "tunnel_bytes_cpu", "SPIRT's SSH tunnel's bytes",
                                                "spirt_tunnel_bytes.py", details, pairs, retried)

    return paired_stand_in.run(args, code, write)


def paramiko_version():
    import paramiko
    return paramiko.__version__


def derive(kernels_dir):
    """The profile's kv_store/ssh_tunnel per-MB constants from the kernel file: the CPU per MB of both sides in both
    directions on the calibration CPU (its ratio over the zip times the zip's seconds there), split by each part's
    median share. Returns the lines to print."""
    path = os.path.join(kernels_dir, KERNEL_FILE)
    with open(path) as f:
        text = f.read()
    found = {part: re.search(rf"\b{part} ([0-9.]+)\b", text) for part in PARTS}
    pairs = re.findall(r"^([0-9.]+) ([0-9.]+) [0-9.]+ [0-9.]+$", text, re.M)
    if not all(found.values()) or len(pairs) < 3 or any(float(zip_s) <= 0 for _, zip_s in pairs):
        raise ValueError(f"{path}: not every part's share, fewer than 3 pairs, or a zip of no time")
    zip_s = paired_stand_in.zip_on_calibration_cpu_s(kernels_dir)
    ratio = paired_stand_in.pairs_file_ratio(path)
    p10, _, p90 = deciles([float(cpu) / float(zip_) for cpu, zip_ in pairs])
    lines = [f"zip on the calibration CPU: {zip_s} s"]
    for part in PARTS:
        share = float(found[part].group(1))
        lines.append(f"{part}_cpu_s_per_mb_on_reference_cpu: {ratio * zip_s * share:.4g} "
                     f"(p10 {p10 * zip_s * share:.4g}, p90 {p90 * zip_s * share:.4g})")
    return lines


def main():
    def add_options(parser):
        parser.add_argument("--sshtunnel", required=True,
                            help=f"a folder holding sshtunnel {SSHTUNNEL_VERSION}'s sshtunnel.py")

    def own_checks(args):
        return [(not os.path.isfile(os.path.join(args.sshtunnel, "sshtunnel.py")),
                 f"--sshtunnel {args.sshtunnel}: no sshtunnel.py in it")]

    return paired_stand_in.tool_main(__doc__, derive, measure, out=os.path.join("calibration/kernels", KERNEL_FILE),
                                     samples=21, add_options=add_options, own_checks=own_checks)

if __name__ == "__main__":
    sys.exit(main())
