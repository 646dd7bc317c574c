#!/usr/bin/env python3
"""Wall time, peak memory and modelled transfers per second of `p2psim run` as the number of peers doubles.

Designs: the paper's serverless all-to-all (VGG-11 on CIFAR-10, 10 iterations by default), ring all-reduce,
sharded serverless aggregation (16 shards), a serverless aggregation tree (two levels) and a parameter server (4
servers); --workload mnist_cnn trains the MNIST CNN instead (4.8 MB gradients: the federated scale, where VGG-11's
515 MB gradients would not fit an aggregator). --timeout ends a run that takes longer and reports it as such. Prints the median of --repeats runs, the growth per doubling, and
the transfers the run modelled per second of wall time (object-storage GETs and PUTs plus broker deliveries, from
result.json, plus for the ring its 2(N-1) chunks per peer and iteration, which the ring models though it simulates
one step of each phase and repeats its time, and for the parameter server each peer's push to and pull from each
server).

With --instructions, wall time is not measured; instead each size runs twice under callgrind, with --iterations
and twice as many, and the table gives the instructions of the extra iterations: the simulator's work per
iteration and per modelled transfer, without setting up and writing results, and without this machine's noise
(a shared virtual machine's wall time at 1,024 peers varies 2-4x from one run to the next). The growth per
doubling of that is the simulator's own growth; wall time adds the memory hierarchy's. With --cache-mb N as well,
cachegrind simulates a last-level cache of N MB (16-way, 64-byte lines) and the table adds its misses per
iteration: where they jump, the run's working set has outgrown that cache.
Usage: bench/scaling.py [--p2psim build/p2psim] [--design all_to_all|ring|sharded|tree|ps] [--peers 16,32,64,128]
                        [--workload vgg11_cifar|mnist_cnn] [--timeout SECONDS]
                        [--iterations 10] [--repeats 3] [--baseline OTHER_P2PSIM]   (ratios in the same run)
                        [--baseline-max-peers N] [--instructions [--cache-mb 8]]
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYSTEMS = {
    "all_to_all": '<architectures run="serverless"/>',
    "ring": '<systems><system name="ring" strategy="ring_allreduce"/></systems>',
    "sharded": '<systems><system name="sharded" strategy="serverless_sharded" shards="16"/></systems>',
    "tree": '<systems><system name="tree" strategy="serverless_tree"/></systems>',
    # Servers with a fixed 10 Gbit/s NIC: "up to" servers would run out of credits serving 1,000 peers (their
    # peers are then actors, refused past 4,096).
    "ps": '<systems><system name="ps" strategy="parameter_server" servers="4" server_type="m5.8xlarge"/></systems>',
}
WORKLOADS = {
    "vgg11_cifar": 'model="vgg11" input_shape="3x32x32" dataset="cifar10"',
    "mnist_cnn": 'model="mnist_cnn" input_shape="1x28x28" dataset="mnist"',
}
EXPERIMENT = """<experiment name="bench_{peers}" seed="1">
  <workload {workload} batch_size="{batch}" iterations="{iterations}"/>
  <peers count="{peers}" instance_type="t2.large"/>
  {systems}
</experiment>
"""


class TimedOut(Exception):
    pass


def one_run(binary, path, out, timeout_s=0):
    start = time.perf_counter()
    proc = subprocess.Popen([binary, "run", "-q", path, "--out", out], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,  # progress lines of long runs
                            env=dict(os.environ, P2PSIM_DATA_DIR=ROOT))
    while timeout_s:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - start > timeout_s:
            proc.terminate()  # p2psim ends its simulation children with it
            os.wait4(proc.pid, 0)
            raise TimedOut()
        time.sleep(0.05)
    else:
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"{binary} run {path} failed (status {status})")
    # ru_maxrss: KiB, the largest of the run and its simulation
    return wall, usage.ru_maxrss / 1024, modelled_transfers(out)


def instructions_of_run(binary, path, out, cache_mb):
    """Instructions (and, with cache_mb, last-level cache misses) of `p2psim run` and the processes it forks:
    valgrind writes one file per process."""
    os.makedirs(out, exist_ok=True)
    if cache_mb:
        tool = ["--tool=cachegrind", "--cache-sim=yes", f"--LL={cache_mb << 20},16,64",
                f"--cachegrind-out-file={out}/profile.%p"]
    else:
        tool = ["--tool=callgrind", f"--callgrind-out-file={out}/profile.%p"]
    subprocess.run(["valgrind"] + tool + [binary, "run", "-q", path, "--out", out], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True, env=dict(os.environ, P2PSIM_DATA_DIR=ROOT))
    instructions = ll_misses = 0
    for name in glob.glob(os.path.join(out, "profile.*")):
        counts = next(line.split()[1:] for line in open(name) if line.startswith(("summary:", "totals:")))
        instructions += int(counts[0])
        if cache_mb:  # cachegrind's events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
            ll_misses += int(counts[5]) + int(counts[8])
    return instructions, ll_misses, modelled_transfers(out)


def modelled_transfers(out):
    systems = json.load(open(os.path.join(out, "result.json")))["systems"]
    return sum(s["usage"]["storage_gets"] + s["usage"]["storage_puts"] + s["usage"]["gradient_deliveries"]
               for s in systems.values())


def unrecorded_transfers(design, peers):
    """Transfers an iteration that result.json does not count: the ring's 2(N-1) chunks per peer, the parameter
    server's push to and pull from each of its 4 servers per peer."""
    return 2 * peers * (peers - 1) if design == "ring" else 2 * 4 * peers if design == "ps" else 0


def measure(binary, path, repeats, tmp, unrecorded=0, timeout_s=0):
    runs = [one_run(binary, path, os.path.join(tmp, f"out{i}"), timeout_s) for i in range(repeats)]
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs), runs[0][2] + unrecorded


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--p2psim", default=os.path.join(ROOT, "build", "p2psim"))
    parser.add_argument("--baseline", help="another p2psim binary, timed in the same run for ratios")
    parser.add_argument("--baseline-max-peers", type=int, default=1 << 30,
                        help="time the baseline only up to this many peers (an old binary may take hours beyond)")
    parser.add_argument("--design", choices=sorted(SYSTEMS), default="all_to_all")
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="vgg11_cifar")
    parser.add_argument("--timeout", type=float, default=0, help="end a run after this many seconds (0: never)")
    parser.add_argument("--peers", default="16,32,64,128")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions per iteration with callgrind instead of timing (slow)")
    parser.add_argument("--cache-mb", type=int, default=0,
                        help="with --instructions: also simulate a last-level cache of this size (cachegrind)")
    args = parser.parse_args()
    if args.instructions:
        if not shutil.which("valgrind"):
            sys.exit("--instructions needs valgrind (Debian package valgrind)")
        return count_instructions(args)
    print(f"load average at start: {os.getloadavg()[0]:.2f}; design {args.design}, {args.workload}, {args.iterations} iterations, "
          f"median of {args.repeats}")
    header = f"{'peers':>6} {'wall_s':>9} {'x/doubling':>10} {'peak_MB':>8} {'transfers':>10} {'transfers/s':>11}"
    print(header + (f" {'baseline_s':>10} {'speed-up':>8}" if args.baseline else ""))
    previous = None
    with tempfile.TemporaryDirectory() as tmp:
        for peers in (int(p) for p in args.peers.split(",")):
            path = write_experiment(tmp, args, peers, args.iterations)
            unrecorded = unrecorded_transfers(args.design, peers) * args.iterations
            try:
                wall, peak_mb, transfers = measure(args.p2psim, path, args.repeats, tmp, unrecorded, args.timeout)
            except TimedOut:
                print(f"{peers:>6} {'> ' + str(int(args.timeout)):>9}  (timed out)")
                sys.stdout.flush()
                previous = None
                continue
            growth = f"{wall / previous:.2f}" if previous else "-"
            line = f"{peers:>6} {wall:>9.3f} {growth:>10} {peak_mb:>8.0f} {transfers:>10} {transfers / wall:>11.0f}"
            if args.baseline and peers <= args.baseline_max_peers:
                try:
                    base, _, _ = measure(args.baseline, path, args.repeats, tmp, 0, args.timeout)
                    line += f" {base:>10.3f} {base / wall:>8.2f}"
                except TimedOut:
                    line += f" {'> ' + str(int(args.timeout)):>10} {'-':>8}"
            print(line)
            sys.stdout.flush()
            previous = wall
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


def write_experiment(tmp, args, peers, iterations):
    path = os.path.join(tmp, f"bench_{peers}_{iterations}.xml")
    with open(path, "w") as f:
        f.write(EXPERIMENT.format(peers=peers, iterations=iterations, batch=args.batch, systems=SYSTEMS[args.design],
                                  workload=WORKLOADS[args.workload]))
    return path


def count_instructions(args):
    print(f"design {args.design}; instructions of iterations {args.iterations + 1}..{2 * args.iterations} "
          f"(a run of {2 * args.iterations} less one of {args.iterations}), "
          f"{'cachegrind' if args.cache_mb else 'callgrind'}")
    print(f"{'peers':>6} {'G_instr/iteration':>17} {'x/doubling':>10} {'transfers/iteration':>19} "
          f"{'instr/transfer':>14}" + (f" {f'{args.cache_mb}MB_LL_misses/iteration':>24} {'x/doubling':>10}"
                                       if args.cache_mb else ""))
    previous = None
    with tempfile.TemporaryDirectory() as tmp:
        for peers in (int(p) for p in args.peers.split(",")):
            runs = [instructions_of_run(args.p2psim, write_experiment(tmp, args, peers, its),
                                        os.path.join(tmp, f"out_{peers}_{its}"), args.cache_mb)
                    for its in (args.iterations, 2 * args.iterations)]
            per_iteration, misses, transfers = ((b - a) / args.iterations for a, b in zip(*runs))
            transfers += unrecorded_transfers(args.design, peers)
            line = (f"{peers:>6} {per_iteration / 1e9:>17.4f} "
                    f"{f'{per_iteration / previous[0]:.2f}' if previous else '-':>10} {transfers:>19.0f} "
                    f"{per_iteration / transfers:>14.0f}")
            if args.cache_mb:
                line += f" {misses:>24.0f} {f'{misses / previous[1]:.2f}' if previous else '-':>10}"
            print(line)
            sys.stdout.flush()
            previous = (per_iteration, max(misses, 1))


if __name__ == "__main__":
    main()
