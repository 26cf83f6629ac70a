#!/bin/bash
# A one-node Slurm cluster on loopback for the `cluster` tests: Debian's munge and slurm-wlm, every file
# under DIR (munge key and socket, slurm.conf, state, spool, logs, pid files), ports chosen free at start.
#   slurm_loopback.sh start DIR   start munged, slurmctld and slurmd as root; prints `export SLURM_CONF=DIR/slurm.conf`
#                                 exit 77 (skip) with the reason where the daemons cannot start here
#   slurm_loopback.sh stop DIR    stop the daemons started in DIR, by the pids in their pid files (idempotent)
#   slurm_loopback.sh stopped DIR exit 1 (after stopping them) if a daemon of DIR was still running: the tests' check
#                                 that they stop what they start
set -u
cmd=${1:?start|stop DIR}
dir=${2:?start|stop DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

stop() {
  local f pid
  for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -s "$f" ] || continue
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
      echo "stopped $(basename "$f" .pid) (pid $pid)"
    fi
    rm -f "$f"
  done
}

skip() {
  echo "SKIPPED: the Slurm cluster on loopback cannot start here: $1"
  for l in "$dir"/log/*.log "$dir"/log/*.stderr; do [ -f "$l" ] && { echo "--- $l"; tail -n 15 "$l"; }; done
  stop >/dev/null
  exit 77
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
if [ "$cmd" = stopped ]; then
  left=$(stop)
  [ -z "$left" ] && { echo "no daemon of $dir is running"; exit 0; }
  echo "FAILED: still running after the tests: $left"
  exit 1
fi
[ "$cmd" = start ] || { echo "usage: slurm_loopback.sh start|stop DIR" >&2; exit 2; }

for p in munged slurmctld slurmd sbatch; do
  command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] || skip "$p is not installed (scripts/setup.sh installs slurm-wlm and munge)"
done
export PATH=$PATH:/usr/sbin
[ "$(id -u)" = 0 ] || skip "slurmd runs jobs as their user only when started as root (this is uid $(id -u))"
stop >/dev/null
rm -rf "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
chmod 700 "$dir/munge"
head -c 1024 /dev/urandom > "$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
munged --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" --force ||
  skip "munged did not start"
munge -S "$dir/munge/munge.sock" -n | unmunge -S "$dir/munge/munge.sock" >/dev/null 2>&1 ||
  skip "munge cannot encode and decode a credential"

# two free TCP ports on loopback (bound and released at once)
read -r ctld_port d_port < <(/usr/bin/python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
cat > "$dir/slurm.conf" <<CONF
# written by tests/cluster/slurm_loopback.sh: one node, this machine, on loopback
ClusterName=dmlbench-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
# cgroup v2 (Debian 12's default): slurmd makes its own scope instead of asking systemd over dbus for one
cat > "$dir/cgroup.conf" <<CONF
CgroupPlugin=autodetect
IgnoreSystemd=yes
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -i 2> "$dir/log/slurmctld.stderr" || skip "slurmctld did not start"
# slurmd 22.05 needs a cgroup filesystem at /sys/fs/cgroup even with proctrack/linuxproc and task/none (a container or
# a chroot without it mounted cannot run it: skipped, with the reason it printed)
slurmd -N localhost 2> "$dir/log/slurmd.stderr" || skip "slurmd did not start: $(tail -n 3 "$dir/log/slurmd.stderr" | tr '\n' ' ')"
for _ in $(seq 60); do
  if sinfo -h -o %t 2>/dev/null | grep -qx idle; then
    echo "Slurm on loopback is up: slurmctld pid $(cat "$dir/slurmctld.pid"), slurmd pid $(cat "$dir/slurmd.pid"), munged pid $(cat "$dir/munge/munged.pid"), ports $ctld_port/$d_port"
    echo "export SLURM_CONF=$dir/slurm.conf"
    exit 0
  fi
  sleep 0.5
done
skip "the node did not become idle within 30 s ($(sinfo -h -o '%t %E' 2>&1))"
