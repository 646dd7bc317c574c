#!/usr/bin/env python3
"""Times the CPU a Python storage client spends per byte it reads, for each way of reading an object that the
profile knows (function_service/storage_client), on one core of this machine. Writes
calibration/kernels/storage_client_cpu.txt, the source of the profile's storage_client/@cpu_s_per_byte_on_reference_cpu.

Why: the one measurement of a Lambda function's storage client CPU (Lithops's benchmark, the profile's
storage_client_bps_per_vcpu) hashed every block it read with md5 (lithops-cloud/applications,
benchmarks/object_storage/os_benchmark.py, read_object: m.update(buf)), which no modelled design does; and designs that
read with boto3's transfer manager (download_file: 8 MiB ranged GETs on up to 10 threads, into a file) do other work
per byte than one get_object. p2psim takes the difference between two loops timed here, over Lambda's CPU speed
factor, as the difference on Lambda (FunctionServiceParams::client_bps_per_vcpu).

How: s3_client/server.py (pinned to core 0) serves one 64 MiB .npy object over TLS from memory; s3_client/client.py
(pinned to core 1) reads it 4 times after one untimed read, with one loop, and prints its process's CPU time (user +
system) per byte. The loops take turns, round after round, so that a busy moment falls on all of them.

Needs openssl and Debian's python3-boto3 and python3-numpy, two cores; about a minute:
  /usr/bin/python3 calibration/python/storage_client_cpu.py [--out calibration/kernels/storage_client_cpu.txt] [--rounds 11]
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
import numpy

from cpu_identity import cpu_identity

HERE = os.path.dirname(os.path.abspath(__file__))
# profile name -> client.py's loop. get_object_chunks is no profile's client: beside get_object_md5 it shows what
# the md5 costs alone.
LOOPS = {"get_object_md5": "lithops", "get_object": "whole_body", "get_object_chunks": "plain_read",
         "transfer_manager": "download_file"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="calibration/kernels/storage_client_cpu.txt")
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--port", type=int, default=18443)
    args = parser.parse_args()
    ns = {name: [] for name in LOOPS}
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out",
                        "cert.pem", "-days", "2", "-subj", "/CN=127.0.0.1"], cwd=work, check=True, capture_output=True)
        server = subprocess.Popen(["taskset", "-c", "0", sys.executable, os.path.join(HERE, "s3_client", "server.py"),
                                   str(args.port)], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(2)
            for _ in range(args.rounds):
                for name, loop in LOOPS.items():
                    out = subprocess.run(["taskset", "-c", "1", sys.executable, os.path.join(HERE, "s3_client", "client.py"),
                                          str(args.port), loop, "4"], cwd=work, check=True, capture_output=True,
                                         text=True).stdout
                    ns[name].append(float(re.search(r"cpu\s+([0-9.]+) ns/B", out).group(1)))
        finally:
            server.terminate()
            server.wait()
    with open(args.out, "w") as f:
        f.write("# CPU per byte a Python storage client spends reading, by loop, on one core of the calibration CPU: "
                f"calibration/python/storage_client_cpu.py, "
                f"{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}\n")
        f.write(f"# cpu_identity: {cpu_identity()}\n")
        f.write(f"# boto3 {boto3.__version__}, numpy {numpy.__version__}, Python {sys.version.split()[0]}; a 64 MiB "
                f"object over TLS from a local endpoint on core 0, read 4 times a round on core 1 (user + system CPU)\n")
        f.write("# loops: get_object_md5 = get_object, 1 MiB reads, each hashed with md5 (Lithops's benchmark); "
                "get_object = get_object and Body.read() of the whole object (the modelled designs'); "
                "get_object_chunks = 1 MiB reads without the hash; transfer_manager = boto3's download_file "
                "(TransferConfig defaults) into a file\n")
        f.write("# name median_ns_per_byte p10 p90 | rounds\n")
        for name, values in ns.items():
            deciles = statistics.quantiles(values, n=10, method="inclusive")
            f.write(f"{name} {statistics.median(values):.3f} {deciles[0]:.3f} {deciles[-1]:.3f} | "
                    + " ".join(f"{v:.2f}" for v in values) + "\n")
    print(open(args.out).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
