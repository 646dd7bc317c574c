#!/usr/bin/env bash
# Which malloc should the calibration use? Times the same training steps under glibc's default malloc, glibc
# with a fixed mmap threshold and no trimming (activations then stay mapped between steps), and jemalloc
# (Debian's libjemalloc2, preloaded), and prints each one's median step time, CPU time and minor page faults,
# with ratios to glibc's default measured in the same run. Run it on an idle machine; see calibration/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
P2PSIM=${P2PSIM:-./build/p2psim}
out=${1:-$(mktemp -d)}
common="-m mnist_cnn@1x28x28 -m vgg11_cifar@3x32x32 --batch-sizes 32,128,512 --threads 1 --repeats 5 --min-repeats 3 --budget-s 6 --no-tensor-ops"
"$P2PSIM" calibrate $common -o "$out/glibc_default.csv" 2>/dev/null
MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296 MALLOC_TOP_PAD_=536870912 \
  "$P2PSIM" calibrate $common -o "$out/glibc_tuned.csv" 2>/dev/null
jemalloc=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -1 || true)
if [ -n "$jemalloc" ]; then LD_PRELOAD="$jemalloc" "$P2PSIM" calibrate $common -o "$out/jemalloc.csv" 2>/dev/null; fi
python3 - "$out" <<'PY'
import csv, glob, os, statistics, sys
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    name = os.path.basename(f)[:-4]
    for r in csv.DictReader(open(f)):
        rows.setdefault((r["model"], int(r["batch_size"])), {}).setdefault(name, []).append(r)
print(f"{'model':<12}{'batch':>6}  {'allocator':<14}{'median_s':>10}{'cpu_s':>9}{'minor_faults':>13}{'vs_default':>11}")
for (model, batch), by in sorted(rows.items()):
    base = statistics.median(float(r["seconds"]) for r in by["glibc_default"])
    for name, rs in by.items():
        med = statistics.median(float(r["seconds"]) for r in rs)
        print(f"{model:<12}{batch:>6}  {name:<14}{med:>10.4f}{statistics.median(float(r['cpu_s']) for r in rs):>9.4f}"
              f"{statistics.median(int(r['minor_faults']) for r in rs):>13.0f}{med / base:>11.2f}")
PY
