#!/usr/bin/env bash
# `cmake --install` puts a working p2psim in a prefix, which still works once moved elsewhere: it finds its
# data beside itself (share/p2psim), not in the source or build tree. Usage: install_test.sh BUILD_DIR
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/first" >/dev/null
mv "$tmp/first" "$tmp/moved"  # relocated after installing
unset P2PSIM_DATA_DIR
cd "$tmp"
version=$("$tmp/moved/bin/p2psim" --version)
echo "$version"
grep -qx "data: $tmp/moved/share/p2psim" <<<"$version" || { echo "FAIL: data not found beside the binary"; exit 1; }
"$tmp/moved/bin/p2psim" run "$tmp/moved/share/p2psim/experiments/squeezenet_mnist.xml" -q --out "$tmp/out"
test -s "$tmp/out/result.csv" || { echo "FAIL: no result.csv"; exit 1; }
"$tmp/moved/bin/p2psim" report "$tmp/out" >/dev/null
test -s "$tmp/out/report/report.html" || { echo "FAIL: no report"; exit 1; }
# The validation cases travel with the data, and the guard's record with them.
"$tmp/moved/bin/p2psim" validate -q --check-recorded --out "$tmp/validation" >/dev/null
test -s "$tmp/validation/validation.png" || { echo "FAIL: no validation figure"; exit 1; }
"$tmp/moved/bin/p2psim" models --csv --classes 10 | grep -q '^mnist_cnn,' || { echo "FAIL: p2psim-torch not found"; exit 1; }
# The Python package travels too: imported from the moved prefix, it finds its data and binaries there.
PYTHONPATH="$tmp/moved/lib/p2psim/python" /usr/bin/python3 - "$tmp" <<'PY' || { echo "FAIL: the Python package"; exit 1; }
import os, sys
import p2psim
tmp = sys.argv[1]
assert p2psim.DATA_DIR == os.path.join(tmp, "moved", "share", "p2psim"), p2psim.DATA_DIR
r = p2psim.run(p2psim.Experiment(os.path.join(p2psim.DATA_DIR, "experiments", "squeezenet_mnist.xml")))
assert (r.summary["status"] == "ok").all(), r.summary
print(r.summary[["total_s", "total_usd"]])
PY
echo "1 passed, 0 failed"
