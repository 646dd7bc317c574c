#!/usr/bin/env bash
# Starts a single-node Slurm cluster on localhost (munged, slurmctld, slurmd) for testing the job-array path.
# Usage: local_cluster.sh start STATE_DIR   (prints `export SLURM_CONF=...` to eval)
#        local_cluster.sh stop STATE_DIR
# Needs Debian's slurm-wlm and munge, and root. Everything it writes lives in STATE_DIR.
set -euo pipefail
cmd=$1
state=$(realpath -m "$2")
conf="$state/slurm.conf"

stop() {
  for pidfile in "$state"/slurmd.pid "$state"/slurmctld.pid "$state"/munged.pid; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  sleep 1
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop STATE_DIR" >&2; exit 2; }

mkdir -p "$state"/{spool,ctld,log,munge}
host=$(hostname -s)
cpus=$(nproc)
cat > "$conf" <<CONF
ClusterName=p2psim-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SwitchType=switch/none
ReturnToService=2
SchedulerType=sched/backfill
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

# munge: its own key and socket under STATE_DIR, run as the munge user (who must be able to reach it).
chmod 755 "$state"
chown munge:munge "$state/munge"
runuser -u munge -- test -w "$state/munge" ||
  { echo "the munge user cannot reach $state/munge: make its parent folders traversable" >&2; exit 1; }
runuser -u munge -- mungekey --create --keyfile "$state/munge/munge.key" --force 2>/dev/null
runuser -u munge -- munged --key-file "$state/munge/munge.key" --socket "$state/munge/munge.socket" \
  --pid-file "$state/munge/munged.pid" --log-file "$state/munge/munged.log" --seed-file "$state/munge/munged.seed"
cp "$state/munge/munged.pid" "$state/munged.pid"
# Slurm finds munge's socket through its auth options.
echo "AuthInfo=socket=$state/munge/munge.socket" >> "$conf"

export SLURM_CONF="$conf"
slurmctld -f "$conf"
slurmd -f "$conf"
for _ in $(seq 60); do
  if sinfo -h -o %T 2>/dev/null | grep -qE '^idle'; then
    echo "export SLURM_CONF=$conf"
    exit 0
  fi
  sleep 1
done
echo "slurm did not come up; logs in $state/log" >&2
exit 1
