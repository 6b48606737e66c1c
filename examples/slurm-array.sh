#!/bin/sh
# slurm-array.sh - the fan-out of fanout.sh on a Slurm cluster: one array job
# reads and encodes the shards (task I: cal-read --shard I/K), and a job that
# depends on the whole array (--dependency=afterok) merges them into rows.
#
#   array:  cal-read CORPUS --shard $SLURM_ARRAY_TASK_ID/K | cal-encode -o DIR/partI.cal
#   merge:  cat DIR/part*.cal | cal-shuffle --by-id | cal-pack -l LENGTH -n ROWS -o DIR/rows.cal
#
# afterok runs the merge only when every task succeeded; should a task fail
# anyway (or the merge run by hand, or with afterany), cal-shuffle --by-id
# refuses the set and names the missing shards (cal-stream(5), SHARDS),
# never fewer rows with status 0. DIR must be on a filesystem every node
# sees; the tasks find calkit, the corpus and the tokenizer where this script
# runs them (sbatch --export=ALL).
#
# Prints the two job ids; -w waits for the merge and prints where the rows
# are. The rows are those of the serial
#   cal-read CORPUS | cal-encode | cal-shuffle --by-id | cal-pack -l LENGTH -n ROWS
# (examples/fanout.sh shows it; tests/sh/test_slurm.sh checks it on a
# one-node Slurm started by the test).
#
# tests/sh/test_slurm.sh runs it at its defaults, and a smaller cut:
# -c technical -k 4 -l 256 -n 16.
#
# Defaults: -c wiki -k 8 -l 2048 -n 128 -s 0 -t llama3 -o build/cal/slurm (paths in the calkit tree)
#
# Usage: slurm-array.sh [-t TOKENIZER] [-c CORPUS] [-k SHARDS] [-l LENGTH] [-n ROWS] [-s SEED] [-o DIR] [-p PARTITION] [-w]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/slurm
CORPUS=wiki
SHARDS=8
ROWS=128
PART=
WAIT=
while getopts t:c:k:l:n:s:o:p:wh f; do
  case $f in
    t) TOK=$OPTARG ;; c) CORPUS=$OPTARG ;; k) SHARDS=$OPTARG ;; l) LENGTH=$OPTARG ;; n) ROWS=$OPTARG ;; s) SEED=$OPTARG ;;
    o) OUT=$OPTARG ;; p) PART="--partition=$OPTARG" ;; w) WAIT=1 ;;
    *) usage ;;
  esac
done
command -v sbatch >/dev/null 2>&1 || die "sbatch is not on PATH (Slurm)"
mkdir -p "$OUT" || die "cannot make $OUT"
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT"/part*.cal "$OUT/rows.cal"
export TOK CORPUS SHARDS OUT LENGTH ROWS SEED
# shellcheck disable=SC2086
array=$(sbatch --parsable --export=ALL $PART --job-name=cal-shards --array=0-$((SHARDS - 1)) -o "$OUT/shard-%a.log" \
  --wrap 'cal-read "$CORPUS" --shard "$SLURM_ARRAY_TASK_ID/$SHARDS" |
            cal-encode -j "${SLURM_CPUS_PER_TASK:-1}" -t "$TOK" -o "$OUT/part$SLURM_ARRAY_TASK_ID.cal"') ||
  die "sbatch of the shards failed"
# shellcheck disable=SC2086
merge=$(sbatch --parsable --export=ALL $PART --job-name=cal-merge --dependency=afterok:"${array%%;*}" \
  -o "$OUT/merge.log" \
  --wrap 'cat "$OUT"/part*.cal | cal-shuffle --by-id --seed "$SEED" |
            cal-pack -l "$LENGTH" -n "$ROWS" -o "$OUT/rows.cal"') || die "sbatch of the merge failed"
echo "shards: job $array (array 0-$((SHARDS - 1))), merge: job $merge (after every shard succeeded)"
[ -z "$WAIT" ] && exit 0
# Wait for the merge: done when it has left the queue (it never runs when a
# shard failed: its dependency can no longer be met).
while squeue -h -j "$merge" 2>/dev/null | grep -q .; do
  if squeue -h -j "$merge" -o %r 2>/dev/null | grep -q DependencyNeverSatisfied; then
    scancel "$merge"
    die "a shard failed (see $OUT/shard-*.log); the merge was cancelled"
  fi
  sleep 1
done
[ -s "$OUT/rows.cal" ] || die "the merge failed: $(tail -3 "$OUT/merge.log" 2>/dev/null)"
echo "rows: $OUT/rows.cal"
