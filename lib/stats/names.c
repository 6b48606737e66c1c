/* names.c - HF module names to llama.cpp's weight names (names.h). */
#include "stats/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *hf, *gguf;
    int expert; /* the HF name is "PREFIX.E.SUFFIX" of experts */
} forms[] = {
    {"self_attn.q_proj", "attn_q", 0},
    {"self_attn.k_proj", "attn_k", 0},
    {"self_attn.v_proj", "attn_v", 0},
    {"self_attn.o_proj", "attn_output", 0},
    {"mlp.gate_proj", "ffn_gate", 0},
    {"mlp.up_proj", "ffn_up", 0},
    {"mlp.down_proj", "ffn_down", 0},
    {"mlp.gate", "ffn_gate_inp", 0},
    {"block_sparse_moe.gate", "ffn_gate_inp", 0},
    {"mlp.shared_expert.gate_proj", "ffn_gate_shexp", 0},
    {"mlp.shared_expert.up_proj", "ffn_up_shexp", 0},
    {"mlp.shared_expert.down_proj", "ffn_down_shexp", 0},
    {"mlp.shared_experts.gate_proj", "ffn_gate_shexp", 0},
    {"mlp.shared_experts.up_proj", "ffn_up_shexp", 0},
    {"mlp.shared_experts.down_proj", "ffn_down_shexp", 0},
    {"mlp.shared_expert_gate", "ffn_gate_inp_shexp", 0},
    {"mlp.experts.*.gate_proj", "ffn_gate_exps", 1},
    {"mlp.experts.*.up_proj", "ffn_up_exps", 1},
    {"mlp.experts.*.down_proj", "ffn_down_exps", 1},
    {"block_sparse_moe.experts.*.w1", "ffn_gate_exps", 1},
    {"block_sparse_moe.experts.*.w3", "ffn_up_exps", 1},
    {"block_sparse_moe.experts.*.w2", "ffn_down_exps", 1},
};

/* A decimal number of 1 to 9 digits at *s (no sign, no leading zero but
 * "0"); advances *s. -1 if none. */
static long number(const char **s) {
    const char *p = *s;
    if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9')) return -1;
    long v = 0;
    int k = 0;
    for (; *p >= '0' && *p <= '9' && k < 9; p++, k++) v = 10 * v + (*p - '0');
    if (*p >= '0' && *p <= '9') return -1;
    *s = p;
    return v;
}

/* rest equals form, where '*' in form stands for an expert number. */
static int match(const char *rest, size_t n, const char *form, long *expert) {
    const char *star = strchr(form, '*'), *end = rest + n;
    if (!star) return strlen(form) == n && !memcmp(rest, form, n);
    size_t pre = (size_t)(star - form);
    if (n < pre || memcmp(rest, form, pre)) return 0;
    const char *p = rest + pre;
    long e = number(&p);
    if (e < 0 || (size_t)(end - p) != strlen(star + 1) || memcmp(p, star + 1, strlen(star + 1))) return 0;
    *expert = e;
    return 1;
}

int cal_gguf_weight_name(const char *hf, char *out, size_t n, long *expert) {
    size_t len = strlen(hf);
    if (len > 7 && !strcmp(hf + len - 7, ".weight")) len -= 7;
    *expert = -1;
    if ((len == 7 && !memcmp(hf, "lm_head", 7)) || (len > 8 && !memcmp(hf + len - 8, ".lm_head", 8)))
        return snprintf(out, n, "output.weight") < (int)n;
    for (const char *at = hf; (at = strstr(at, "layers.")) && at < hf + len; at++) {
        if (at != hf && at[-1] != '.') continue;
        const char *p = at + 7;
        long layer = number(&p);
        if (layer < 0 || *p != '.' || ++p > hf + len) continue;
        for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
            if (match(p, len - (size_t)(p - hf), forms[i].hf, expert))
                return snprintf(out, n, "blk.%ld.%s.weight", layer, forms[i].gguf) < (int)n;
    }
    return 0;
}
