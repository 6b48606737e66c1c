"""make_model.py TOKENIZER.json OUT.gguf OUT.safetensors - a tiny random
Llama (2 layers, 256 wide) with the tokenizer's whole vocabulary, written as
a GGUF model by llama.cpp's own gguf-py (build/llama/src/gguf-py, on
PYTHONPATH) and, for calkit's first-layer statistics, its embedding table
and first RMSNorm weight as safetensors (transformers' names, float32 of
the same float16 values). numpy only; seeded, so every run writes the same
files. Used by tests/llama/test_llama_imatrix.sh (make check-llama)."""
import json
import struct
import sys

import numpy as np
import gguf

D, FF, LAYERS, HEADS = 256, 512, 2, 4


def vocab(tok):
    t = json.load(open(tok))
    n = len(t["model"]["vocab"]) + len(t["added_tokens"])
    names, types = [""] * n, [gguf.TokenType.NORMAL] * n
    for s, i in t["model"]["vocab"].items():
        names[i] = s
    for a in t["added_tokens"]:
        names[a["id"]] = a["content"]
        types[a["id"]] = gguf.TokenType.CONTROL if a["special"] else gguf.TokenType.USER_DEFINED
    merges = [m if isinstance(m, str) else " ".join(m) for m in t["model"]["merges"]]
    return names, types, merges


def main():
    tok, out_gguf, out_st = sys.argv[1:4]
    names, types, merges = vocab(tok)
    rng = np.random.default_rng(28)
    h = lambda *shape: (rng.standard_normal(shape) * 0.05).astype(np.float16)
    norm = lambda: (1 + 0.1 * rng.standard_normal(D)).astype(np.float32)
    w = gguf.GGUFWriter(out_gguf, "llama")
    w.add_context_length(4096)
    w.add_embedding_length(D)
    w.add_block_count(LAYERS)
    w.add_feed_forward_length(FF)
    w.add_head_count(HEADS)
    w.add_head_count_kv(HEADS)
    w.add_rope_dimension_count(D // HEADS)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("llama-bpe")
    w.add_token_list(names)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(128000)
    w.add_eos_token_id(128001)
    w.add_add_bos_token(True)
    emb = h(len(names), D)
    w.add_tensor("token_embd.weight", emb)
    norms = {}
    for b in range(LAYERS):
        norms[b] = norm()
        w.add_tensor("blk.%d.attn_norm.weight" % b, norms[b])
        for k in ["attn_q", "attn_k", "attn_v", "attn_output"]:
            w.add_tensor("blk.%d.%s.weight" % (b, k), h(D, D))
        w.add_tensor("blk.%d.ffn_norm.weight" % b, norm())
        w.add_tensor("blk.%d.ffn_gate.weight" % b, h(FF, D))
        w.add_tensor("blk.%d.ffn_up.weight" % b, h(FF, D))
        w.add_tensor("blk.%d.ffn_down.weight" % b, h(D, FF))
    w.add_tensor("output_norm.weight", norm())
    w.add_tensor("output.weight", h(len(names), D))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    # safetensors: 8-byte header length, JSON header, raw little-endian data
    tensors = {"model.embed_tokens.weight": emb.astype(np.float32),
               "model.layers.0.input_layernorm.weight": norms[0]}
    header, off, blobs = {}, 0, []
    for k, v in tensors.items():
        b = np.ascontiguousarray(v, dtype="<f4").tobytes()
        header[k] = {"dtype": "F32", "shape": list(v.shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    hj = json.dumps(header).encode()
    hj += b" " * (-len(hj) % 8)
    with open(out_st, "wb") as f:
        f.write(struct.pack("<Q", len(hj)) + hj)
        for b in blobs:
            f.write(b)


if __name__ == "__main__":
    main()
