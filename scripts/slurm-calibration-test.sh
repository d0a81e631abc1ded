#!/usr/bin/env bash
# Runs `kiln quantize` calibration for real as a 4-task Slurm job array on a one-node Slurm
# cluster started here (Debian slurm-wlm + munge, private config, ports and state in a
# temporary folder; nothing system-wide is touched), merges the shard statistics and checks
# they are byte-identical to the statistics of one pass. Also evaluates in 4 shards and checks
# the merged figures equal one pass's.
#
#   scripts/slurm-calibration-test.sh [BUILD_DIR]
#
# Exit status: 0 pass, 1 fail, 77 skipped (slurm or munge missing, or a daemon that cannot
# start in this environment; KILN_SLURM_REQUIRED=1 turns a skip into a failure). Every daemon
# this script starts is stopped by its own pid on exit.
set -uo pipefail
cd "$(dirname "$0")/.."

build_dir=${1:-${KILN_BUILD_DIR:-build}}
shared=${KILN_SHARED_DIR:-../shared}
kiln=$(realpath "$build_dir/kiln" 2>/dev/null || true)
required=${KILN_SLURM_REQUIRED:-0}
tasks=4

skip() {
  echo "slurm-calibration-test: SKIP: $*"
  if [[ $required == 1 ]]; then exit 1; fi
  exit 77
}
fail() {
  echo "slurm-calibration-test: FAIL: $*"
  exit 1
}

[[ -x $kiln ]] || fail "no kiln binary at $build_dir/kiln (build it first)"
model=$(realpath "$shared/models/mnist/model.onnx" 2>/dev/null) || skip "shared data not found ($shared)"
digits=$(realpath "$shared/digits/t10k-images-first1000-idx3-ubyte")
labels=$(realpath "$shared/digits/t10k-labels-first1000-idx1-ubyte")
for tool in munged slurmctld slurmd sbatch sinfo scontrol; do
  command -v "$tool" >/dev/null || skip "$tool not installed (Debian packages slurm-wlm, munge)"
done

work=$(mktemp -d /tmp/kiln-slurm.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null
  done
  if [[ ${KILN_SLURM_KEEP:-0} != 1 ]]; then rm -rf "$work"; else echo "kept $work"; fi
}
trap cleanup EXIT
user=$(id -un)
host=$(hostname -s)

# munge: a private key and socket.
mkdir -p "$work/munge" "$work/spool" "$work/state" "$work/jobs"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1 count=1024 status=none
chmod 400 "$work/munge/munge.key"
munge_socket=$work/munge/munge.socket
munged --force --key-file "$work/munge/munge.key" --socket "$munge_socket" \
  --pid-file "$work/munge/munged.pid" --log-file "$work/munge/munged.log" \
  --seed-file "$work/munge/munged.seed" --foreground >"$work/munge/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [[ -S $munge_socket ]] && break; sleep 0.1; done
[[ -S $munge_socket ]] || skip "munged did not start: $(tail -3 "$work/munge/munged.log" 2>/dev/null)"

# Free ports for this cluster (several sessions may share the machine).
read -r ctl_port node_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
conf=$work/slurm.conf
cat > "$conf" <<EOF
ClusterName=kilntest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$node_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$munge_socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=kiln Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
export SLURM_CONF=$conf
slurmctld -D -f "$conf" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$conf" -N "$host" >"$work/slurmd.out" 2>&1 &
pids+=($!)
ready=0
for _ in $(seq 60); do
  if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then ready=1; break; fi
  sleep 0.5
done
if [[ $ready != 1 ]]; then
  echo "--- slurmctld:"; tail -5 "$work/slurmctld.log" "$work/slurmctld.out" 2>/dev/null
  echo "--- slurmd:"; tail -5 "$work/slurmd.log" "$work/slurmd.out" 2>/dev/null
  skip "the one-node Slurm cluster did not come up here"
fi
echo "slurm-calibration-test: one-node cluster up ($(sinfo -h -o '%P %D %t'))"

calib=(--calib "$digits" --calib-count 40 --holdout 4 --preprocess gray)
# The calibration as a 4-task job array: each task writes its shard's statistics.
cat > "$work/jobs/calibrate.sh" <<EOF
#!/bin/bash
exec "$kiln" quantize "$model" ${calib[*]} -q --shard \${SLURM_ARRAY_TASK_ID}/$tasks \
  --stats-out "$work/jobs/shard_\${SLURM_ARRAY_TASK_ID}.stats"
EOF
cat > "$work/jobs/evaluate.sh" <<EOF
#!/bin/bash
exec "$kiln" eval "$work/jobs/mnist.kiln" --allow-unsigned --compare "$model" --images "$digits" \
  --labels "$labels" --preprocess gray --count 200 -q --shard \${SLURM_ARRAY_TASK_ID}/$tasks \
  --partial "$work/jobs/eval_\${SLURM_ARRAY_TASK_ID}.txt"
EOF
chmod +x "$work/jobs/"*.sh
submit() {  # NAME SCRIPT: a $tasks-task array; waits for it
  sbatch --wait --array=0-$((tasks - 1)) --job-name="$1" --output="$work/jobs/$1_%a.log" \
    --chdir="$work/jobs" --time=10 "$2" || { tail -5 "$work/jobs/$1"_*.log; fail "job array $1 failed"; }
}
submit kiln-calib "$work/jobs/calibrate.sh"
ls "$work"/jobs/shard_*.stats >/dev/null 2>&1 || fail "no shard statistics written"
"$kiln" quantize "$model" "${calib[@]}" -q --merge-stats "$work"/jobs/shard_*.stats \
  --stats-out "$work/merged.stats" -o "$work/jobs/mnist.kiln" >/dev/null || fail "merge failed"
"$kiln" quantize "$model" "${calib[@]}" -q --stats-out "$work/single.stats" >/dev/null ||
  fail "the single pass failed"
if cmp "$work/merged.stats" "$work/single.stats"; then
  echo "slurm-calibration-test: $tasks-task job array statistics merged == one pass" \
    "($(stat -c %s "$work/single.stats") bytes, sha256 $(sha256sum < "$work/single.stats" | cut -c1-16))"
else
  fail "merged statistics differ from one pass"
fi
submit kiln-eval "$work/jobs/evaluate.sh"
merged=$("$kiln" eval --merge "$work"/jobs/eval_*.txt --json) || fail "eval merge failed"
single=$("$kiln" eval "$work/jobs/mnist.kiln" --allow-unsigned --compare "$model" --images "$digits" \
  --labels "$labels" --preprocess gray --count 200 -q --json) || fail "single eval failed"
[[ $merged == "$single" ]] || fail "merged eval $merged differs from one pass $single"
echo "slurm-calibration-test: $tasks-task eval array merged == one pass: $single"
echo "slurm-calibration-test: PASS"
