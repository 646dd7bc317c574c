#!/usr/bin/env bash
# End to end on a real (single-node, localhost) Slurm: a small sweep as a job array of 3 tasks plus the merge job;
# every scenario must be in the merged results exactly once. Debian's slurm-wlm and munge come from
# scripts/setup.sh (a test installs nothing); without them the test fails, saying so.
# Usage: slurm_test.sh P2PSIM_BINARY SOURCE_DIR
set -euo pipefail
p2psim=$(realpath "$1"); src=$(realpath "$2")
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "FAIL: slurmctld or munged missing: run scripts/setup.sh (it installs slurm-wlm and munge)"
  exit 1
fi
work=$(mktemp -d)
chmod 755 "$work"  # the munge daemon runs as its own user
trap '"$src/experiments/slurm/local_cluster.sh" stop "$work/cluster"; rm -rf "$work"' EXIT
cluster_env=$("$src/experiments/slurm/local_cluster.sh" start "$work/cluster")
eval "$cluster_env"

cat > "$work/sweep.xml" <<XML
<experiment name="slurm" seed="5">
  <calibration files="$src/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="4" iterations="1"/>
  <peers count="4" instance_type="t2.medium"/>
  <sweep>
    <axis select="peers/@count" values="2 3 4"/>
    <axis select="functions/@memory_mb" values="1024 2048"/>
  </sweep>
</experiment>
XML
read -r array merge < <("$src/experiments/slurm/submit.sh" "$work/sweep.xml" "$work/out" 3 \
  --export="ALL,P2PSIM=$p2psim")
echo "submitted array job $array and merge job $merge"
for _ in $(seq 180); do
  [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
  sleep 1
done
[ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] || { echo "FAIL: jobs still queued after 180 s"; squeue; exit 1; }

expected=$("$p2psim" sweep "$work/sweep.xml" --out "$work/unused" --list | sed 's/.*"scenario_id":"\([0-9a-f]*\)".*/\1/' | sort)
[ "$(echo "$expected" | wc -l)" = 6 ] || { echo "FAIL: expected 6 scenarios"; exit 1; }
[ -f "$work/out/results.csv" ] || { echo "FAIL: no merged results.csv"; cat "$work"/out/*.out; exit 1; }
got=$(tail -n +2 "$work/out/results.csv" | cut -d, -f1 | sort | uniq)
rows=$(tail -n +2 "$work/out/results.csv" | wc -l)
[ "$got" = "$expected" ] || { echo "FAIL: merged scenarios differ"; echo "$got"; exit 1; }
[ "$rows" = 12 ] || { echo "FAIL: $rows rows, expected 12 (6 scenarios x 2 architectures)"; exit 1; }
for i in 0 1 2; do [ -d "$work/out/shard-$i/runs" ] || { echo "FAIL: shard $i did not run"; exit 1; }; done
echo "slurm job array: 6 scenarios from 3 tasks, each exactly once"
