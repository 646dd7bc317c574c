#!/usr/bin/env python3
"""Times `p2psim replay` (median of N runs, cache off): the MNIST CNN on Fashion-MNIST, a synchronous schedule of
P peers x I iterations, each peer's iteration a pass over S samples in minibatches of 64, one thread, evaluated
every 5 iterations on 2,000 test images. The issue's target: 4 peers x 200 iterations in under 5 minutes.

    /usr/bin/python3 bench/replay.py --peers 4 --iterations 200 --shard 256 --repeats 3
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "build", "p2psim-torch"))
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--shard", type=int, default=256, help="samples per peer (a multiple of 64)")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    training = {"model": "mnist_cnn", "input_shape": "1x28x28", "dataset": "fashion_mnist", "classes": 10,
                "train_samples": a.peers * a.shard, "peers": a.peers, "shard_samples": a.shard,
                "minibatch_sizes": [64] * (a.shard // 64), "iterations": a.iterations, "codec": "none",
                "topk_ratio": 0.01, "error_feedback": False, "learning_rate": 0.1, "momentum": 0.9, "eval_every": 5,
                "test_samples": 2000, "data_dir": "", "target_accuracy": 0.7}
    updates = [[p, t, t + 1.0, 0.0, "all"] for t in range(a.iterations) for p in range(a.peers)]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "schedule.json")
        with open(path, "w") as f:
            json.dump({"format": "p2psim-schedule/1", "experiment": "bench", "seed": 1, "training": training,
                       "cost_includes_broker": True, "systems": [{"name": "sync", "strategy": "p2p_all_to_all",
                                                                  "replayable": True, "why_not": "",
                                                                  "updates": updates}]}, f)
        print(f"load average before: {os.getloadavg()[0]:.2f}", file=sys.stderr)
        times = []
        for r in range(a.repeats):
            start = time.monotonic()
            subprocess.run([a.bin, "replay", path, "--cache", "", "--out", os.path.join(d, "a.csv")], check=True,
                           stderr=subprocess.DEVNULL)
            times.append(time.monotonic() - start)
            print(f"  run {r + 1}: {times[-1]:.1f} s", file=sys.stderr)
        print(f"load average after: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print(f"{a.peers} peers x {a.iterations} iterations x {a.shard} samples: median {statistics.median(times):.1f} s "
          f"of {a.repeats} ({', '.join(f'{t:.1f}' for t in times)})")


if __name__ == "__main__":
    main()
