/* names.h - llama.cpp's weight names for the linear layers of
 * transformers-style models, so that activations labelled with the module
 * they feed (model.layers.0.self_attn.q_proj) land under the name
 * llama-quantize looks for (blk.0.attn_q.weight), the experts of a MoE layer
 * as rows of the merged 3-D weight (blk.0.ffn_up_exps.weight).
 *
 * Known forms (any prefix before "layers.N.", e.g. "model." or
 * "model.language_model."; ".weight" at the end or not), as llama.cpp's
 * converter maps them for Llama, Mistral, Qwen 2/3, Gemma, Mixtral,
 * Qwen-MoE, OLMoE and DeepSeek:
 *   self_attn.{q,k,v,o}_proj            attn_q, attn_k, attn_v, attn_output
 *   mlp.{gate,up,down}_proj             ffn_gate, ffn_up, ffn_down
 *   mlp.experts.E.{gate,up,down}_proj   ffn_{gate,up,down}_exps, expert E
 *   block_sparse_moe.experts.E.w{1,3,2} ffn_{gate,up,down}_exps, expert E
 *   mlp.gate, block_sparse_moe.gate     ffn_gate_inp
 *   mlp.shared_expert{,s}.X_proj        ffn_X_shexp
 *   mlp.shared_expert_gate              ffn_gate_inp_shexp
 *   lm_head                             output (no layer) */
#ifndef CAL_STATS_NAMES_H
#define CAL_STATS_NAMES_H

#include <stddef.h>

/* 1 with the GGUF name ("blk.N.KIND.weight") in out and *expert = E for an
 * expert's module (else -1); 0 when hf is none of the known forms. */
int cal_gguf_weight_name(const char *hf, char *out, size_t n, long *expert);

#endif
