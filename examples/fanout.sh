#!/bin/sh
# fanout.sh - the expensive part of a pipeline (reading and encoding) run in
# shards with GNU parallel, merged, and shown to be byte-identical to the
# serial pipeline.
#
#   serial:  cal-read C | cal-encode | cal-shuffle --by-id | cal-pack -n N
#   fan-out: cal-read --shard I/K C | cal-encode      (K shards in parallel)
#            cat shard.* | cal-shuffle --by-id | cal-pack -n N
#
# The shards partition the corpus by document id (cal-read --shard), and
# cal-shuffle --by-id orders records by a keyed hash of their ids, so the
# merged shards come out in exactly the serial order, whatever order the
# shards finish in. The rows (cal_data.npy, int64) are compared with cmp.
#
# Several machines: GNU parallel runs the shards over ssh with -S, e.g.
#   PARALLEL_HOSTS=2/host1,2/host2,: sh examples/fanout.sh
# runs 2 jobs on host1, 2 on host2 and the rest here; each host needs
# calkit on its PATH, the corpus and the tokenizer at the same paths (--env
# passes TOK, CORPUS and PATH along), and rsync: --return/--cleanup bring
# the shard files back (written in the remote login directory, then copied
# here and removed there). --halt now,fail=1 stops at the first failed
# shard; should one be missing anyway, the merge (cal-shuffle --by-id)
# refuses the set and names it, as it refuses shards made from another
# build of the corpus (cal-stream(5), SHARDS). On a Slurm cluster:
# examples/slurm-array.sh.
#
# Defaults: -c wiki -k 4 -j 2 -n 64 -l 2048 -s 0 -t llama3 -o build/cal/fanout (paths in the calkit tree)
# tests/sh/test_examples_defaults.sh runs it at these, against the serial
# pipeline, which the test runs on its own; test_pack_examples.sh a smaller cut.
#
# Usage: fanout.sh [-t TOKENIZER] [-c CORPUS] [-k SHARDS] [-j JOBS] [-n ROWS] [-l LENGTH] [-s SEED] [-o DIR]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/fanout
CORPUS=wiki
SHARDS=4
JOBS=2
ROWS=64
while getopts t:c:k:j:n:l:s:o:h f; do
  case $f in
    t) TOK=$OPTARG ;; c) CORPUS=$OPTARG ;; k) SHARDS=$OPTARG ;; j) JOBS=$OPTARG ;; n) ROWS=$OPTARG ;;
    l) LENGTH=$OPTARG ;; s) SEED=$OPTARG ;; o) OUT=$OPTARG ;;
    *) usage ;;
  esac
done
command -v parallel >/dev/null 2>&1 || die "GNU parallel is not installed (apt-get install parallel)"
work_dir
export TOK WORK CORPUS
[ -n "${CAL_TOKENS_DIR:-}" ] && die "fan-out shards the text: CAL_TOKENS_DIR does not apply"
check_tokenizer
# shard I: its documents as TOKENS
shard='cal-read --shard {}/'"$SHARDS"' "$CORPUS" | cal-encode -j 1 -t "$TOK" -o shard.{}'
serial_tokens() { cal-read "$CORPUS" | cal-encode -t "$TOK" -o "$WORK/all.tok"; }
hosts=
[ -n "${PARALLEL_HOSTS:-}" ] && hosts="-S $PARALLEL_HOSTS --env TOK --env CORPUS --env PATH --return shard.{} --cleanup"
i=0 list=
while [ $i -lt "$SHARDS" ]; do list="$list $i"; i=$((i + 1)); done
t0=$(date +%s)
# shellcheck disable=SC2086
parallel -j "$JOBS" $hosts --halt now,fail=1 "$shard" ::: $list || die "a shard failed"
t1=$(date +%s)
# shellcheck disable=SC2046
cat $(for i in $list; do echo "$WORK/shard.$i"; done | sort -r) |
  cal-shuffle --by-id --seed "$SEED" | cal-pack -l "$LENGTH" -n "$ROWS" -o "$WORK/fanout.cal" || die "merge failed"
t2=$(date +%s)
serial_tokens || die "serial encoding failed"
cal-shuffle --by-id --seed "$SEED" "$WORK/all.tok" | cal-pack -l "$LENGTH" -n "$ROWS" -o "$WORK/serial.cal" ||
  die "serial pipeline failed"
t3=$(date +%s)
mkdir -p "$OUT"
cal-cat -o "$OUT/fanout.npy" "$WORK/fanout.cal" && cal-cat -o "$OUT/serial.npy" "$WORK/serial.cal" || die "export failed"
if cmp -s "$OUT/fanout.npy" "$OUT/serial.npy"; then
  echo "fan-out ($SHARDS shards, -j $JOBS, $((t2 - t0)) s) = serial ($((t3 - t2)) s): identical rows"
  echo "  $OUT/fanout.npy"
else
  die "fan-out and serial rows differ: $OUT/fanout.npy $OUT/serial.npy"
fi
