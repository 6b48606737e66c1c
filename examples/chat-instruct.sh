#!/bin/sh
# chat-instruct.sh - a calibration set for an instruct model made of
# conversations rendered the way the model reads them: each record of a chat
# dataset (JSON Lines of OpenAI "messages" with per-record "tools", or
# ShareGPT "conversations") rendered with the model's own chat template as
# transformers' apply_chat_template(..., tokenize=False) renders it
# (cal-read --chat), encoded as transformers encodes a rendered chat (special
# tokens matched, none added: the TEXT records carry the chat flag), then one
# row per conversation (cal-pack --mode doc: long ones cut at the tail, short
# ones padded on the right with an attention mask), exported for
#   GPTQModel:     DIR/cal_data.jsonl, {"input_ids", "attention_mask"} per row:
#                  model.quantize([json.loads(l) for l in open(...)])
#   llm-compressor DIR/cal_data.safetensors (input_ids, attention_mask):
#                  oneshot(dataset=Dataset.from_dict(
#                      {k: v.tolist() for k, v in load_file(...).items()}), ...)
# and DIR/cal_data.cal, the rows as a cal-stream (labels, provenance).
#
# The default dataset is tests/data/chat-instruct.jsonl (Aesop's fables,
# public domain; tests/data/make_chat_instruct.py writes it), the default
# model Qwen 3's template and tokenizer fetched by `make tokenizers`.
# Conversations the template refuses (Gemma's alternating roles, say) are
# skipped and counted. The model's bos/eos/pad come from its tokenizer
# folder; strftime_now prints the fixed --date, so the set is reproducible.
#
# Defaults: -m qwen3 -t qwen3 -i tests/data/chat-instruct.jsonl -l 512 -d 2025-01-01
#   -o build/cal/chat-instruct (paths in the calkit tree); without -n every conversation
# tests/sh/test_read_chat.sh runs it at these, against transformers'
# rendering (tests/jinja/chat_read.py) encoded by the Rust HF tokenizers.
#
# Usage: chat-instruct.sh [-m MODEL] [-t TOKENIZER] [-i FILE] [-o DIR] [-l LENGTH] [-n ROWS] [-d YYYY-MM-DD]
. "$(dirname "$0")/common.sh"
MODEL=qwen3
TOK=
IN=$ROOT/tests/data/chat-instruct.jsonl
OUT=$ROOT/build/cal/chat-instruct
LENGTH=512
ROWS=
DATE=2025-01-01
while getopts m:t:i:o:l:n:d:h f; do
  case $f in
    m) MODEL=$OPTARG ;; t) TOK=$OPTARG ;; i) IN=$OPTARG ;; o) OUT=$OPTARG ;; l) LENGTH=$OPTARG ;;
    n) ROWS=$OPTARG ;; d) DATE=$OPTARG ;; *) usage ;;
  esac
done
TOK=${TOK:-$MODEL}  # a model folder or fetched name holds both template and tokenizer
check_tokenizer
[ -f "$IN" ] || die "$IN: no such chat dataset"
work_dir
cal-read --chat "$MODEL" --date "$DATE" --skip-bad -v "$IN" -o "$WORK/chat.cal" || die "rendering $IN failed"
cal-encode -t "$TOK" "$WORK/chat.cal" -o "$WORK/t.cal" || die "encoding failed"
# one row per conversation; -n draws ROWS of them (seeded), else all
cal-pack -l "$LENGTH" --mode doc --pad right ${ROWS:+-n "$ROWS"} --seed "$SEED" -v "$WORK/t.cal" -o "$WORK/rows.cal" ||
  die "packing failed"
export_rows "$WORK/rows.cal" "$OUT"
cal-cat -o "$OUT/cal_data.jsonl" "$WORK/rows.cal" || die "writing $OUT/cal_data.jsonl failed"
echo "chat set: $(cal-cat --check "$WORK/rows.cal" 2>&1 | grep -o 'ROW [0-9]*' | cut -d' ' -f2) conversations" \
  "of $LENGTH tokens (template $MODEL, tokenizer $TOK) -> $OUT/cal_data.jsonl (GPTQModel)," \
  "$OUT/cal_data.safetensors (llm-compressor)"
