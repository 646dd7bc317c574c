#!/usr/bin/env python3
"""Times how much faster a storage client that reads an object in parts on several threads reads with two cores than
with one, and the CPU it spends per byte on one: boto3's transfer manager (download_file, into a file) and a Go
stand-in for the AWS SDK for Go's downloader that discards what it reads (calibration/go/range_download.go). Writes
calibration/kernels/storage_client_cores.txt, the source of the profile's storage_client/@max_cores for
transfer_manager and of go_net_http_discard's CPU per byte.

Why: p2psim bounds what a storage client moves by the CPU it has (function_service/storage_client). A transfer
manager reads its parts on up to max_concurrency threads, but under one Python interpreter (the GIL) and with one
thread writing the file; whether it can use more than one core decides what a multi-vCPU function or an instance
moves through it.

How: nginx (Debian's nginx-light, one worker pinned to core 1) serves a 512 MiB object of random bytes from
/dev/shm twice: over TLS, as S3 does, and over plain HTTP with sendfile, where serving costs the server almost
nothing. Each client reads the object 4 times a round, on core 0 alone and then on cores 0 and 1, for each
TransferConfig below; the runs take turns, round after round, so that a busy moment falls on all of them.
- The ratio of the two-core rate to the one-core rate is taken over plain HTTP: over TLS the server takes about a
  third of the second core, which the client then cannot use, and a thread holding the interpreter that the server
  pre-empts stalls the others. Over plain HTTP the client also decrypts nothing; decryption releases the
  interpreter, so with TLS and a free server the ratio may be higher. Both are reported.
- The CPU per byte on one core is taken over TLS (user + system over bytes), as a client of S3 spends it.
The Go client's two-core ratio over TLS says nothing of its own bound: the server binds it there.

Needs nginx-light (or nginx), golang-go, openssl and Debian's python3-boto3, two cores; about ten minutes:
  /usr/bin/python3 calibration/python/storage_client_cores.py [--out calibration/kernels/storage_client_cores.txt] [--rounds 7]
"""
import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import boto3

from cpu_identity import cpu_identity

HERE = os.path.dirname(os.path.abspath(__file__))
OBJECT_BYTES = 512 << 20
# (client, max_concurrency, multipart_chunksize in MiB): TransferConfig's defaults, and s3bench's settings.
CONFIGS = [("transfer_manager", 10, 8), ("transfer_manager", 8, 16), ("transfer_manager", 16, 64),
           ("go_net_http_discard", 8, 16), ("go_net_http_discard", 16, 64)]
PLACEMENTS = {"one_core": "0", "two_cores": "0,1"}
ENDPOINTS = ("tls", "plain")

NGINX_CONF = """worker_processes 1;
worker_cpu_affinity 10;
daemon off;
pid {work}/nginx.pid;
error_log {work}/error.log;
events {{ worker_connections 256; }}
http {{
  access_log off;
  server {{
    listen 127.0.0.1:{port} ssl;
    ssl_certificate {work}/cert.pem;
    ssl_certificate_key {work}/key.pem;
    sendfile off;
    root {work}/www;
    location / {{ }}
  }}
  server {{
    listen 127.0.0.1:{plain_port};
    sendfile on;
    root {work}/www;
    location / {{ }}
  }}
}}
"""

CLIENT = r"""
import os, sys, time, warnings
import boto3, botocore, urllib3
from boto3.s3.transfer import TransferConfig
warnings.filterwarnings("ignore"); urllib3.disable_warnings()
url, concurrency, part_mib, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
s3 = boto3.client("s3", endpoint_url=url, verify=False, aws_access_key_id="x", aws_secret_access_key="y",
                  region_name="us-east-1",
                  config=botocore.config.Config(s3={"addressing_style": "path"}, max_pool_connections=64))
config = TransferConfig(max_concurrency=concurrency, multipart_chunksize=part_mib << 20)
s3.download_file("b", "k", out, Config=config)  # untimed: connections, page cache
before, wall, n = os.times(), time.perf_counter(), 0
for _ in range(4):
    s3.download_file("b", "k", out, Config=config)
    n += os.path.getsize(out)
wall, after = time.perf_counter() - wall, os.times()
cpu = after.user - before.user + after.system - before.system
print(f"rate {n / wall:.0f} B/s cores {cpu / wall:.3f}")
"""


def client_command(work, url, client, concurrency, part_mib, out):
    if client == "go_net_http_discard":  # as s3bench's and s3-benchmark's Go clients, which discard what they read
        return [os.path.join(work, "range_download"), url + "/b/k", str(concurrency), str(part_mib), "-", "4"]
    return [sys.executable, os.path.join(work, "client.py"), url, str(concurrency), str(part_mib), out]


def deciles(values):
    q = statistics.quantiles(values, n=10, method="inclusive")
    return f"{statistics.median(values):.3f} {q[0]:.3f} {q[-1]:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="calibration/kernels/storage_client_cores.txt")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--port", type=int, default=18601)
    args = parser.parse_args()
    urls = {"tls": f"https://127.0.0.1:{args.port}", "plain": f"http://127.0.0.1:{args.port + 1}"}
    # rate[config][endpoint][placement], cores[config][endpoint][placement]: one value a round
    rate = {c: {e: {p: [] for p in PLACEMENTS} for e in ENDPOINTS} for c in CONFIGS}
    cores = {c: {e: {p: [] for p in PLACEMENTS} for e in ENDPOINTS} for c in CONFIGS}
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory(dir="/dev/shm") as shm:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out",
                        "cert.pem", "-days", "2", "-subj", "/CN=127.0.0.1"], cwd=work, check=True, capture_output=True)
        os.makedirs(os.path.join(work, "www", "b"))
        for d in (work, shm):  # nginx's worker runs as another user
            os.chmod(d, 0o755)
        with open(os.path.join(shm, "k"), "wb") as f:
            f.write(os.urandom(OBJECT_BYTES))
        os.chmod(os.path.join(shm, "k"), 0o644)
        os.symlink(os.path.join(shm, "k"), os.path.join(work, "www", "b", "k"))
        with open(os.path.join(work, "nginx.conf"), "w") as f:
            f.write(NGINX_CONF.format(work=work, port=args.port, plain_port=args.port + 1))
        with open(os.path.join(work, "client.py"), "w") as f:
            f.write(CLIENT)
        subprocess.run(["go", "build", "-o", os.path.join(work, "range_download"),
                        os.path.join(HERE, "..", "go", "range_download.go")], check=True, cwd=work,
                       env=dict(os.environ, GOCACHE=os.path.join(work, "gocache"), GO111MODULE="off"))
        server = subprocess.Popen(["nginx", "-c", os.path.join(work, "nginx.conf")], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            time.sleep(1)
            for _ in range(args.rounds):
                for config in CONFIGS:
                    for endpoint in ENDPOINTS:
                        for placement, cpus in PLACEMENTS.items():
                            out = subprocess.run(["taskset", "-c", cpus]
                                                 + client_command(work, urls[endpoint], *config,
                                                                  os.path.join(shm, "out")),
                                                 check=True, capture_output=True, text=True).stdout
                            m = re.search(r"rate (\d+) B/s cores ([0-9.]+)", out)
                            rate[config][endpoint][placement].append(float(m.group(1)))
                            cores[config][endpoint][placement].append(float(m.group(2)))
        finally:
            server.terminate()
            server.wait()
    go_version = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip()
    with open(args.out, "w") as f:
        f.write("# How much faster a storage client reading in parts reads with two cores than with one, and its CPU "
                "per byte on one, on the calibration CPU: calibration/python/storage_client_cores.py, "
                f"{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}\n")
        f.write(f"# cpu_identity: {cpu_identity()}\n")
        f.write(f"# boto3 {boto3.__version__}, Python {sys.version.split()[0]}, {go_version}; a 512 MiB object from "
                f"nginx (one worker on core 1) over TLS and over plain HTTP with sendfile, read 4 times a round (into "
                f"/dev/shm, or discarded) by a client on core 0, then on cores 0-1; {args.rounds} rounds\n")
        f.write("# client max_concurrency part_mib | plain: ratio (two cores / one) median p10 p90 | plain: one-core "
                "MB/s, two-core MB/s, cores used with two (medians) | tls: ratio median p10 p90 | tls: one-core ns/B "
                "median p10 p90 | plain ratios of the rounds\n")
        for config in CONFIGS:
            ratio = {e: [two / one for one, two in zip(rate[config][e]["one_core"], rate[config][e]["two_cores"])]
                     for e in ENDPOINTS}
            tls_ns = [c / r * 1e9 for c, r in zip(cores[config]["tls"]["one_core"], rate[config]["tls"]["one_core"])]
            plain = rate[config]["plain"]
            f.write(f"{config[0]} {config[1]} {config[2]} | {deciles(ratio['plain'])} | "
                    f"{statistics.median(plain['one_core']) / 1e6:.0f} {statistics.median(plain['two_cores']) / 1e6:.0f} "
                    f"{statistics.median(cores[config]['plain']['two_cores']):.2f} | {deciles(ratio['tls'])} | "
                    f"{deciles(tls_ns)} | " + " ".join(f"{r:.3f}" for r in ratio["plain"]) + "\n")
    print(open(args.out).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
