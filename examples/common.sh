# common.sh - sourced by the example recipes. Finds the calkit programs
# ($CAL_BIN, else the build tree's bin/, else PATH) and the tokenizer, and
# turns a corpus into TOKENS.
#   CAL_TOKENIZER   tokenizer.json or .model (default: the Llama 3 tokenizer
#                   fetched by `make tokenizers`); -t TOKENIZER overrides it
#   CAL_TOKENS_DIR  a directory of pre-encoded corpora NAME.cal (TOKENS
#                   records): used instead of cal-read | cal-encode
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${CAL_BIN:-}" ]; then PATH="$CAL_BIN:$PATH"; export PATH  # the test suite's build
elif [ -x "$ROOT/bin/cal-pack" ]; then PATH="$ROOT/bin:$PATH"; export PATH; fi
TOK=${CAL_TOKENIZER:-llama3}  # by name: the stage lines then name no local path
SEED=0
LENGTH=2048

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# usage: the recipe's header comment up to its Usage line; status 2.
usage() { sed -n '2,/^# Usage/p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

# rows_options "$@": the options of the row recipes, -t TOKENIZER -o DIR
# -l LENGTH -n ROWS -s SEED (defaults set before the call).
rows_options() {
  while getopts t:o:l:n:s:h f; do
    case $f in
      t) TOK=$OPTARG ;; o) OUT=$OPTARG ;; l) LENGTH=$OPTARG ;; n) ROWS=$OPTARG ;; s) SEED=$OPTARG ;;
      *) usage ;;
    esac
  done
}

# peer_options "$@": -t TOKENIZER -i FILE -o DIR -n ROWS -l LENGTH -s SEED
# -p PEER (defaults set before the call).
peer_options() {
  while getopts t:i:o:n:l:s:p:h f; do
    case $f in
      t) TOK=$OPTARG ;; i) IN=$OPTARG ;; o) OUT=$OPTARG ;; n) ROWS=$OPTARG ;; l) LENGTH=$OPTARG ;;
      s) SEED=$OPTARG ;; p) PEER=$OPTARG ;;
      *) usage ;;
    esac
  done
}

# window_end: cal-pack's option for PEER's window start range (GPTQ and
# optimum stop one token short of the end, lmdeploy does not).
window_end() {
  case $PEER in
    gptq | optimum) ;; lmdeploy) echo --to-end ;;
    *) die "-p $PEER: gptq, optimum or lmdeploy" ;;
  esac
}

# hf_shuffled IN SEED OUT: IN encoded as transformers' tokenizer(text) does
# (special tokens added and parsed), in the order of Hugging Face datasets'
# Dataset.shuffle(seed=SEED).
hf_shuffled() {
  tokens "$1" "$WORK/hf.tok" -- --add-special --parse-special
  cal-shuffle --rng numpy --seed "$2" "$WORK/hf.tok" -o "$3" || die "shuffling failed"
}

# A path must exist; a bare name (llama3) is looked up by cal-encode.
check_tokenizer() {
  case $TOK in
    */*) [ -f "$TOK" ] || die "$TOK: no tokenizer (run 'make tokenizers', or give -t FILE or CAL_TOKENIZER)" ;;
  esac
}

# tokens CORPUS OUT [cal-read options] [-- cal-encode options]: the corpus (a
# built-in name or a file) as TOKENS records in OUT. cal-encode's default is
# no special tokens; recipes whose peer calls tokenizer(text) pass
# -- --add-special --parse-special.
# With CAL_TOKENS_DIR, the pre-encoded NAME.cal stands for a plain read and
# encode; a read or encode with options needs NAME,OPT,OPT....cal (the
# options joined with commas, e.g. web,--lines.cal or
# web,--strip,--,--add-special,--parse-special.cal), and its absence is an
# error naming that file: options are never silently dropped.
tokens() {
  _c=$1 _o=$2
  shift 2
  _e= _in_e=0 _key= _nargs=$#
  for _a in "$@"; do  # "$@" becomes the cal-read options (words kept), _e the cal-encode ones
    _key="$_key,$_a"
    if [ $_in_e = 1 ]; then _e="$_e $_a"; elif [ "$_a" = -- ]; then _in_e=1; else set -- "$@" "$_a"; fi
  done
  shift "$_nargs"
  if [ -n "${CAL_TOKENS_DIR:-}" ]; then
    _n=$(basename "$_c")
    _f="$CAL_TOKENS_DIR/${_n%%.*}$_key.cal"
    [ -f "$_f" ] || die "$_f: no such pre-encoded corpus${_key:+ (this recipe reads ${_n%%.*} with the options ${_key#,})}"
    cp "$_f" "$_o"
  else
    check_tokenizer
    # shellcheck disable=SC2086
    cal-read "$@" "$_c" | cal-encode -t "$TOK" $_e -o "$_o" || die "encoding $_c failed"
  fi
}

# pack OUT SUMMARY cal-pack ARGS...: runs a packing program with -v, its
# summary in SUMMARY; on failure the program's own message is shown.
pack() {
  _o=$1 _s=$2
  shift 2
  "$@" -v -o "$_o" 2>"$_s" || die "$1 failed: $(grep -v '^ *$' "$_s" | tail -1)"
}

# export_rows STREAM DIR: DIR/cal_data.safetensors (input_ids, int64), and
# the same rows as a cal-stream DIR/cal_data.cal (labels, provenance)
export_rows() {
  mkdir -p "$2" && cp "$1" "$2/cal_data.cal" && cal-cat -o "$2/cal_data.safetensors" "$1" ||
    die "writing $2/cal_data.safetensors failed"
}

abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }

# work_dir: a temporary directory, removed at exit, made the current one so
# that the stage lines of the streams hold the same relative names on every
# run (the same seed then gives the same bytes). Paths given by the user are
# made absolute first.
work_dir() {
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/calkit-example.XXXXXX") || die "cannot create a temporary directory"
  trap 'rm -rf "$WORKDIR"' EXIT
  trap 'exit 1' INT TERM
  OUT=$(abs "$OUT")
  [ -e "$TOK" ] && TOK=$(abs "$TOK")
  [ -n "${CAL_TOKENS_DIR:-}" ] && CAL_TOKENS_DIR=$(abs "$CAL_TOKENS_DIR")
  [ -n "${IN:-}" ] && [ -e "$IN" ] && IN=$(abs "$IN")
  cd "$WORKDIR" || die "cannot enter $WORKDIR"
  WORK=.
}
