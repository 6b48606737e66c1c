#!/bin/sh
# sets.sh - the calibration sets the bench compares, each made by calkit
# from the pool ($Q/data, prepare.sh), $ROWS rows of $LENGTH tokens, for each
# seed of $SEEDS, into $Q/sets/SELECTOR.sSEED.cal. Selectors ($SELECTORS):
#   wiki        GPTQ's wikitext2 default: random windows of one domain (wiki);
#               any domain's name (code, ...) does the same on that domain
#   random      random rows of the whole pool (all domains as they come)
#   stratify    cal-pack --stratify over the pool's documents (one row per
#               document, truncated or padded: its rows hold padding)
#   blend       cal-blend, an equal number of random rows from every domain
#   kmeans      cal-select --method kmeans, model-free features (TF-IDF)
#   kmeans-embed  the same with the model's embedding table (--embed;
#               run.sh writes embed.safetensors and drops these sets when the model changes)
#   kcenter     cal-select --method kcenter
#   like-DOMAIN cal-select --like: toward DOMAIN's target sample (shard 1)
# The cal-select ones need bin/cal-select; without it they are skipped with
# a line saying so. A set already made is kept (remove $Q/sets to redo).
# The pool is a partial family of shards on purpose (prepare.sh): every
# program accepts it (--allow-partial), its warnings go to $Q/sets/log.
set -eu
: "${Q:?}" "${LENGTH:?}" "${ROWS:?}" "${SEEDS:?}" "${DOMAINS:?}" "${SELECTORS:?}"
cd "$Q"  # relative paths in the stage lines (see prepare.sh)
D=data
S=sets
mkdir -p "$S"
ndom=$(echo "$DOMAINS" | wc -w)
# Stratify's buckets: LENGTH/4, LENGTH/2, LENGTH (the last takes the longer
# documents too); shorter buckets hold too few documents in the pool.
buckets=$((LENGTH / 4)),$((LENGTH / 2)),$LENGTH

make_set() {  # SELECTOR SEED OUT
  sel=$1 seed=$2 dest=$3
  case $sel in
    web | wiki | code | multilingual | technical | stories)
      cal-pack --allow-partial -l "$LENGTH" --sep eos --mode window -n "$ROWS" --seed "$seed" "$D/pool.$sel.tok.cal" -o "$dest" ;;
    random)
      cal-shuffle --allow-partial --seed "$seed" "$D/pool.chunks.cal" |
        cal-pack --allow-partial -l "$LENGTH" -n "$ROWS" -o "$dest" ;;
    stratify)
      cal-pack --allow-partial -l "$LENGTH" --mode doc --stratify "$buckets" -n "$ROWS" --seed "$seed" "$D/pool.tok.cal" -o "$dest" ;;
    blend)
      [ $((ROWS % ndom)) = 0 ] || echo "sets.sh: blend: $ROWS rows do not split equally over $ndom domains" >&2
      specs=
      for d in $DOMAINS; do
        cal-shuffle --allow-partial --seed "$seed" "$D/pool.$d.rows.cal" -o "$S/.shuffled.$d.cal"
        specs="$specs $S/.shuffled.$d.cal"
      done
      # shellcheck disable=SC2086
      cal-blend --allow-partial -n "$ROWS" --seed "$seed" $specs -o "$dest"
      rm -f "$S"/.shuffled.*.cal ;;
    kmeans | kmeans-embed | kcenter | like-*)
      case $sel in
        kmeans) opt="--method kmeans" ;;
        kmeans-embed) opt="--method kmeans --features embed --embed embed.safetensors" ;;
        kcenter) opt="--method kcenter" ;;
        like-*) opt="--like $D/target.${sel#like-}.chunks.cal" ;;
      esac
      # shellcheck disable=SC2086
      cal-select --allow-partial -n "$ROWS" $opt --seed "$seed" "$D/pool.chunks.cal" |
        cal-pack --allow-partial -l "$LENGTH" -n "$ROWS" -o "$dest" ;;
    *) echo "sets.sh: unknown selector $sel" >&2; return 2 ;;
  esac
}

for sel in $SELECTORS; do
  case $sel in
    kmeans | kmeans-embed | kcenter | like-*)
      if ! command -v cal-select >/dev/null 2>&1; then
        echo "sets.sh: cal-select is not built: selector $sel skipped" >&2
        continue
      fi ;;
  esac
  for seed in $SEEDS; do
    out=$S/$sel.s$seed.cal
    [ -f "$out" ] && continue
    make_set "$sel" "$seed" "$out.tmp" 2>>"$S/log" || { echo "sets.sh: $sel seed $seed failed:" >&2; tail -3 "$S/log" >&2; exit 1; }
    mv "$out.tmp" "$out"
  done
done
