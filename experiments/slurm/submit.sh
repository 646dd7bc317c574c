#!/usr/bin/env bash
# Submits a sweep as a Slurm job array of TASKS shards plus a merge job that runs after all of them.
#   experiments/slurm/submit.sh EXPERIMENT.xml OUT TASKS [extra sbatch options...]
# Prints the array job id and the merge job id.
set -euo pipefail
here=$(dirname "$(realpath "$0")")
experiment=$(realpath "$1"); out=$(realpath -m "$2"); tasks=$3; shift 3
mkdir -p "$out"
array=$(sbatch --parsable --chdir="$out" --array="0-$((tasks - 1))" "$@" "$here/sweep_array.sbatch" "$experiment" "$out")
array=${array%%;*}
merge=$(sbatch --parsable --chdir="$out" --dependency="afterany:$array" "$@" "$here/merge.sbatch" "$out")
echo "$array $merge"
