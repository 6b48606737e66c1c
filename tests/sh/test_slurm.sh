#!/bin/sh
# test_slurm.sh - examples/slurm-array.sh on a real one-node Slurm (Debian's
# slurm-wlm and munge, started here on loopback ports and stopped at the
# end): the array job's shards merged by the dependent job give the serial
# run's rows byte for byte; a failed task stops the merge (afterok), and a
# merge run anyway (afterany) fails, naming the missing shard.
. tests/lib.sh
ROOT=$PWD
if [ "$(id -u)" != 0 ]; then skip "slurm array" "needs root (slurmd runs jobs as their user)"; exit 0; fi
for c in munged slurmctld slurmd sbatch squeue sinfo scontrol; do
  command -v "$c" >/dev/null 2>&1 || { skip "slurm array" "$c is not installed (slurm-wlm)"; exit 0; }
done
H=$(hostname)
port=$((20000 + $$ % 20000))
mkdir -p "$T/state" "$T/spool" "$T/munge" "$T/out" "$T/bad"
chmod 755 "$T" "$T/munge"  # munged wants the path to its socket open to all
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$T/munge.key"
cat >"$T/slurm.conf" <<EOF
ClusterName=calkittest
SlurmctldHost=$H(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$H NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=calkit Nodes=$H Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$T/slurm.conf"
stop() {
  scontrol shutdown >/dev/null 2>&1
  for p in slurmd slurmctld; do [ -f "$T/$p.pid" ] && kill "$(cat "$T/$p.pid")" 2>/dev/null; done
  [ -f "$T/munge/munged.pid" ] && kill "$(cat "$T/munge/munged.pid")" 2>/dev/null
  sleep 1
  rm -rf "$T"
}
trap stop EXIT
up=0
if munged --key-file="$T/munge.key" --socket="$T/munge/munge.sock" --pid-file="$T/munge/munged.pid" \
     --log-file="$T/munge.log" --seed-file="$T/munge/seed" 2>"$T/start.err" &&
   slurmctld -c 2>>"$T/start.err" && slurmd 2>>"$T/start.err"; then
  for _ in $(seq 40); do
    timeout 3 sinfo -h -o %t 2>/dev/null | grep -q idle && { up=1; break; }
    sleep 0.5
  done
fi
if [ $up = 0 ]; then
  skip "slurm array" "the one-node Slurm did not come up: $(cat "$T/start.err" "$T/munge.log" 2>/dev/null | tail -3 | tr "\\n" " " | cut -c1-300)"
  exit 0
fi
ok "a one-node Slurm is up (munge, slurmctld, slurmd on loopback ports $port-$((port + 1)))"

cal-read technical | cal-encode -t llama3 | cal-shuffle --by-id | cal-pack -l 256 -n 16 -o "$T/serial.cal"
cal-cat -o "$T/serial.npy" "$T/serial.cal"
if sh examples/slurm-array.sh -c technical -k 4 -l 256 -n 16 -o "$T/out" -w >"$T/run.out" 2>&1 &&
   cal-cat -o "$T/rows.npy" "$T/out/rows.cal"; then
  same "slurm: an array of 4 shards merged by a dependent job = the serial rows" "$T/rows.npy" "$T/serial.npy"
else
  not_ok "slurm: examples/slurm-array.sh -w" "$(tail -5 "$T/run.out")" "$(tail -3 "$T/out"/*.log 2>/dev/null)"
fi

# At the defaults its header states (wiki, 8 shards, rows of 2048, 128 rows,
# seed 0, llama3).
cal-read wiki | cal-encode -t llama3 | cal-shuffle --by-id --seed 0 | cal-pack -l 2048 -n 128 -o "$T/serial-def.cal"
cal-cat -o "$T/serial-def.npy" "$T/serial-def.cal"
if sh examples/slurm-array.sh -o "$T/def" -w >"$T/def.out" 2>&1 && cal-cat -o "$T/def.npy" "$T/def/rows.cal" &&
   [ "$(ls "$T"/def/part*.cal | wc -l)" = 8 ]; then
  same "slurm at its defaults: 8 shards of wiki merged into 128 rows of 2048 = the serial rows" "$T/def.npy" "$T/serial-def.npy"
else
  not_ok "slurm: examples/slurm-array.sh -w at its defaults" "$(tail -5 "$T/def.out")" "$(tail -3 "$T/def"/*.log 2>/dev/null)"
fi

# A task that fails: afterok never runs the merge; afterany runs it, and the
# merge refuses the set, naming the missing shard.
arr=$(sbatch --parsable --export=ALL --array=0-3 -o "$T/bad/shard-%a.log" --wrap \
  '[ "$SLURM_ARRAY_TASK_ID" = 2 ] && exit 1
   cal-read technical --shard $SLURM_ARRAY_TASK_ID/4 | cal-encode -j 1 -t llama3 -o '"$T"'/bad/part$SLURM_ARRAY_TASK_ID.cal')
ok_job=$(sbatch --parsable --export=ALL --dependency=afterok:"$arr" -o "$T/bad/ok.log" --wrap 'touch '"$T"'/bad/ran')
any_job=$(sbatch --parsable --export=ALL --dependency=afterany:"$arr" -o "$T/bad/merge.log" --wrap \
  'cat '"$T"'/bad/part*.cal | cal-shuffle --by-id | cal-pack -l 256 -n 16 -o '"$T"'/bad/rows.cal')
for _ in $(seq 120); do
  squeue -h -j "$any_job" 2>/dev/null | grep -q . || break
  sleep 0.5
done
reason=$(squeue -h -j "$ok_job" -o %r 2>/dev/null)
eq "afterok: the merge waits forever on a failed shard (DependencyNeverSatisfied)" "$reason" DependencyNeverSatisfied
scancel "$ok_job" 2>/dev/null
[ ! -e "$T/bad/ran" ] && [ ! -e "$T/bad/rows.cal" ] && ok "no rows from a failed array" || not_ok "no rows from a failed array"
case "$(cat "$T/bad/merge.log" 2>/dev/null)" in
  *"cal-shuffle: stdin: byte "*": shards of 'cal-read technical --shard I/4': 3 of 4 present, missing 2 (did a shard's run fail?)"*)
    ok "afterany: the merge fails, naming the missing shard" ;;
  *) not_ok "afterany: the merge fails, naming the missing shard" "$(cat "$T/bad/merge.log" 2>/dev/null)" ;;
esac
