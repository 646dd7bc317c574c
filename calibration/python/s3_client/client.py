"""One S3 read pattern against server.py, on one core: the client process's CPU time (user + system) per byte.
  taskset -c 1 python3 client.py PORT PATTERN REPEATS
  (PATTERN: lithops, plain_read, whole_body, gradsharding, download_file; driven by
  calibration/python/storage_client_cpu.py)
The patterns are the reads of the sources: Lithops's benchmark (1 MiB reads, each hashed with md5), the same
without the hash, get_object's Body.read() of the whole object (the modelled designs' functions: the paper's,
GradsSharding's, LambdaML's), GradsSharding's reducer (that, then np.load), SeBS's download_file (boto3's
TransferConfig defaults: 8 MiB ranged GETs on up to 10 threads, into a file)."""
import hashlib
import io
import os
import sys
import time
import warnings

import boto3
import botocore
import numpy as np
import urllib3

warnings.filterwarnings("ignore")
urllib3.disable_warnings()
port, pattern, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
s3 = boto3.client("s3", endpoint_url=f"https://127.0.0.1:{port}", verify=False, aws_access_key_id="x",
                  aws_secret_access_key="y", region_name="us-east-1",
                  config=botocore.config.Config(s3={"addressing_style": "path"}))
OUT = "/tmp/s3_client_cpu.bin"


def lithops(hash_each_block=True):
    md5, body, n = hashlib.md5(), s3.get_object(Bucket="b", Key="k")["Body"], 0
    block = body.read(1 << 20)
    while block:
        n += len(block)
        if hash_each_block:
            md5.update(block)
        block = body.read(1 << 20)
    return n


def plain_read():
    return lithops(hash_each_block=False)


def whole_body():
    return len(s3.get_object(Bucket="b", Key="k")["Body"].read())


def gradsharding():
    data = s3.get_object(Bucket="b", Key="k")["Body"].read()
    np.load(io.BytesIO(data))
    return len(data)


def download_file():
    s3.download_file("b", "k", OUT)
    return os.path.getsize(OUT)


read = {"lithops": lithops, "plain_read": plain_read, "whole_body": whole_body, "gradsharding": gradsharding,
        "download_file": download_file}[pattern]
read()  # untimed: the connection and the page cache
before, wall = os.times(), time.perf_counter()
n = sum(read() for _ in range(repeats))
after, wall = os.times(), time.perf_counter() - wall
cpu = after.user - before.user + after.system - before.system
print(f"{pattern:14s} {n / 1e6:6.0f} MB  cpu {cpu / n * 1e9:5.2f} ns/B (user {(after.user - before.user) / n * 1e9:4.2f}, "
      f"system {(after.system - before.system) / n * 1e9:4.2f})  wall {wall:6.3f} s")
