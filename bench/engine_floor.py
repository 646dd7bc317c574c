#!/usr/bin/env python3
"""SimGrid's own cost per transfer as the number of clients transferring at once grows (bench/engine_floor.cpp):
N clients fetch objects one after another from one server, the same number of transfers in all, with S4U's
detached Comm::sendto (as p2psim does) and with a courier actor at the other end of a mailbox transfer.

Prints, per number of clients, the median wall time per transfer of each way, their ratio (measured in the same
run, alternating) and the growth from the previous row. With --instructions, also the instructions per transfer
(callgrind, one run each: deterministic, unlike wall time on a shared machine). Fails if the two ways do not
give the same simulated end time.
Usage: bench/engine_floor.py [--binary build/engine_floor] [--clients 64,256,1024,4096]
                             [--transfers 400000] [--repeats 3] [--instructions]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = ("sendto", "courier")


def run(binary, clients, per_client, mode, callgrind_out=None):
    cmd = [binary, str(clients), str(per_client), mode, "--log=root.thres:critical"]
    if callgrind_out:  # count the simulation only, not building the platform
        cmd = ["valgrind", "--tool=callgrind", "--toggle-collect=simgrid::kernel::EngineImpl::run(double)",
               f"--callgrind-out-file={callgrind_out}"] + cmd
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    fields = dict(f.split("=") for f in out.split())
    return float(fields["run_wall_s"]), fields["simulated_end_s"]


def instructions(path):
    for line in open(path):
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    sys.exit(f"no instruction count in {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "engine_floor"))
    parser.add_argument("--clients", default="64,256,1024,4096")
    parser.add_argument("--transfers", type=int, default=400000, help="in all, split evenly among the clients")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--instructions", action="store_true", help="also count instructions (valgrind; slow)")
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"{args.binary} not found: build it first (cmake --build build --target engine_floor)")
    if args.instructions and not shutil.which("valgrind"):
        sys.exit("--instructions needs valgrind (Debian package valgrind)")
    print(f"{'clients':>8} | {'sendto us/transfer':>18} | {'courier us/transfer':>19} | {'courier/sendto':>14} | "
          f"{'growth sendto':>13} | {'growth courier':>14}" + (" | instructions/transfer sendto, courier"
                                                                 if args.instructions else ""))
    previous = None
    for clients in (int(c) for c in args.clients.split(",")):
        per_client = max(1, args.transfers // clients)
        total = clients * per_client
        walls = {m: [] for m in MODES}
        ends = set()
        for _ in range(args.repeats):
            for mode in MODES:  # alternating, so that both see the same load
                wall_s, end = run(args.binary, clients, per_client, mode)
                walls[mode].append(wall_s)
                ends.add(end)
        if len(ends) != 1:
            sys.exit(f"{clients} clients: the two ways end at different simulated times: {sorted(ends)}")
        us = {m: statistics.median(walls[m]) / total * 1e6 for m in MODES}
        growth = {m: f"x{us[m] / previous[m]:.2f}" if previous else "-" for m in MODES}
        line = (f"{clients:>8} | {us['sendto']:>18.2f} | {us['courier']:>19.2f} | {us['courier'] / us['sendto']:>14.2f} | "
                f"{growth['sendto']:>13} | {growth['courier']:>14}")
        if args.instructions:
            per = max(1, 64000 // clients)  # fewer transfers: valgrind runs ~50x slower
            with tempfile.TemporaryDirectory() as tmp:
                counts = []
                for mode in MODES:
                    out = os.path.join(tmp, mode)
                    run(args.binary, clients, per, mode, callgrind_out=out)
                    counts.append(instructions(out) // (clients * per))
            line += f" | {counts[0]:,}, {counts[1]:,}"
        print(line, flush=True)
        previous = us


if __name__ == "__main__":
    main()
