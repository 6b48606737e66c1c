/* test_stats_names.c - lib/stats/names.c: HF module names of Llama, Gemma,
 * Qwen, Mixtral, Qwen-MoE and DeepSeek layers to llama.cpp's weight names
 * (as its converter's tensor map gives them), expert numbers, and the names
 * it must not map. */
#include <string.h>

#include "stats/names.h"
#include "test.h"

int main(void) {
    const struct {
        const char *hf, *gguf;
        long expert;
    } ok[] = {
        {"model.layers.0.self_attn.q_proj", "blk.0.attn_q.weight", -1},
        {"model.layers.12.self_attn.k_proj.weight", "blk.12.attn_k.weight", -1},
        {"model.layers.3.self_attn.v_proj", "blk.3.attn_v.weight", -1},
        {"model.layers.31.self_attn.o_proj", "blk.31.attn_output.weight", -1},
        {"model.layers.0.mlp.gate_proj", "blk.0.ffn_gate.weight", -1},
        {"model.layers.0.mlp.up_proj", "blk.0.ffn_up.weight", -1},
        {"model.layers.7.mlp.down_proj", "blk.7.ffn_down.weight", -1},
        {"model.language_model.layers.2.mlp.down_proj", "blk.2.ffn_down.weight", -1},
        {"layers.5.self_attn.q_proj", "blk.5.attn_q.weight", -1},
        {"model.layers.1.mlp.experts.63.down_proj", "blk.1.ffn_down_exps.weight", 63},
        {"model.layers.1.mlp.experts.0.gate_proj.weight", "blk.1.ffn_gate_exps.weight", 0},
        {"model.layers.4.block_sparse_moe.experts.7.w1", "blk.4.ffn_gate_exps.weight", 7},
        {"model.layers.4.block_sparse_moe.experts.7.w3", "blk.4.ffn_up_exps.weight", 7},
        {"model.layers.4.block_sparse_moe.experts.2.w2", "blk.4.ffn_down_exps.weight", 2},
        {"model.layers.4.block_sparse_moe.gate", "blk.4.ffn_gate_inp.weight", -1},
        {"model.layers.4.mlp.gate", "blk.4.ffn_gate_inp.weight", -1},
        {"model.layers.2.mlp.shared_expert.up_proj", "blk.2.ffn_up_shexp.weight", -1},
        {"model.layers.2.mlp.shared_experts.down_proj", "blk.2.ffn_down_shexp.weight", -1},
        {"model.layers.2.mlp.shared_expert_gate", "blk.2.ffn_gate_inp_shexp.weight", -1},
        {"lm_head", "output.weight", -1},
        {"lm_head.weight", "output.weight", -1},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char out[80] = "";
        long e = 99;
        int r = cal_gguf_weight_name(ok[i].hf, out, sizeof out, &e);
        CHECK(r && !strcmp(out, ok[i].gguf) && e == ok[i].expert, "%s -> %s (expert %ld)", ok[i].hf, out, e);
    }
    const char *bad[] = {
        "model.layers.0.self_attn.q_norm", "model.layers.x.mlp.up_proj", "model.layers.01.mlp.up_proj",
        "model.layers.0.mlp.experts.up_proj", "model.layers.0.mlp.experts.-1.up_proj",
        "model.layers.0.mlp.experts.1.up_proj.bias", "model.players.0.mlp.up_proj", "model.layers.0.weight",
        "model.embed_tokens", "blk.0.attn_q.weight", "", "layers.", "model.layers.0.mlp.up_projx",
        "model.layers.9999999999.mlp.up_proj",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char out[80] = "";
        long e;
        CHECK(!cal_gguf_weight_name(bad[i], out, sizeof out, &e), "not a known module: '%s'", bad[i]);
    }
    char tiny[8];
    long e;
    CHECK(!cal_gguf_weight_name("model.layers.0.mlp.up_proj", tiny, sizeof tiny, &e), "a name that does not fit: 0");
    TEST_END();
}
