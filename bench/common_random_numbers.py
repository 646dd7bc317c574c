#!/usr/bin/env python3
"""How much of the difference between two function memory sizes is noise: the serverless all-to-all (VGG-11 on
CIFAR-10, 4 t2.large peers, 4 iterations) at two sizes, for seeds 1..N, and the spread (standard deviation over
the seeds) of each size's gradient time per iteration and of their difference. With draws named by participant
(sim/simulation/random.hpp) the same invocation draws the same step noise at both sizes, so the difference
spreads less than either size does. --baseline BIN runs another binary on the same files, for before/after.

Usage: bench/common_random_numbers.py [--p2psim build/p2psim] [--baseline OTHER] [--seeds 20]
                                      [--sizes 5307,10240] [--batch 1024]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPERIMENT = """<experiment name="crn" seed="{seed}">
  <workload model="vgg11" input_shape="3x32x32" dataset="cifar10" batch_size="{batch}" iterations="4"/>
  <peers count="4" instance_type="t2.large"/>
  <functions memory_mb="{memory}"/>
</experiment>
"""


def gradient_s(binary, tmp, seed, memory, batch):
    path = os.path.join(tmp, f"s{seed}_m{memory}.xml")
    with open(path, "w") as f:
        f.write(EXPERIMENT.format(seed=seed, memory=memory, batch=batch))
    out = os.path.join(tmp, f"out_{os.path.basename(binary)}_{seed}_{memory}")
    subprocess.run([binary, "run", path, "-q", "--out", out], check=True, env=dict(os.environ, P2PSIM_DATA_DIR=ROOT))
    with open(os.path.join(out, "result.json")) as f:
        return json.load(f)["systems"]["serverless"]["gradient_s_per_iteration"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--p2psim", default=os.path.join(ROOT, "build", "p2psim"))
    p.add_argument("--baseline")
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--sizes", default="5307,10240")
    p.add_argument("--batch", type=int, default=1024)
    a = p.parse_args()
    small, large = (int(x) for x in a.sizes.split(","))
    binaries = [("this", a.p2psim)] + ([("baseline", a.baseline)] if a.baseline else [])
    print(f"gradient seconds per iteration, serverless, {a.seeds} seeds; sd = standard deviation over the seeds")
    with tempfile.TemporaryDirectory() as tmp:
        for name, binary in binaries:
            at_small, at_large = [], []
            for seed in range(1, a.seeds + 1):
                at_small.append(gradient_s(binary, tmp, seed, small, a.batch))
                at_large.append(gradient_s(binary, tmp, seed, large, a.batch))
            diff = [s - l for s, l in zip(at_small, at_large)]
            print(f"{name:>9}: {small} MB mean {statistics.mean(at_small):.3f} sd {statistics.stdev(at_small):.3f}; "
                  f"{large} MB mean {statistics.mean(at_large):.3f} sd {statistics.stdev(at_large):.3f}; "
                  f"difference mean {statistics.mean(diff):.3f} sd {statistics.stdev(diff):.3f}")


if __name__ == "__main__":
    main()
