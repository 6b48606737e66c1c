"""tiny_llama.py - a tiny random causal LM with transformers' Llama module
names (model.embed_tokens, model.layers.N.self_attn.{q,k,v,o}_proj,
model.layers.N.mlp.{gate,up,down}_proj, model.norm, lm_head) and, with
moe=True, a Qwen-MoE style layer 1 (mlp.gate router, mlp.experts.E.*_proj,
top-1 routing), for the dump-activations.py tests. forward(input_ids,
attention_mask) as in transformers; torch only."""
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(d))

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


class Attention(nn.Module):
    def __init__(self, d, heads, kv_heads):
        super().__init__()
        self.h, self.kv, self.hd = heads, kv_heads, d // heads
        self.q_proj = nn.Linear(d, heads * self.hd, bias=False)
        self.k_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o_proj = nn.Linear(heads * self.hd, d, bias=False)

    def forward(self, x, mask):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, self.h, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.kv, self.hd).transpose(1, 2).repeat_interleave(self.h // self.kv, 1)
        v = self.v_proj(x).view(b, t, self.kv, self.hd).transpose(1, 2).repeat_interleave(self.h // self.kv, 1)
        s = q @ k.transpose(-1, -2) / self.hd ** 0.5
        allowed = torch.ones(t, t, dtype=torch.bool).tril()[None, None] & (mask[:, None, None, :] != 0)
        s = s.masked_fill(~allowed, -1e9)
        y = (s.softmax(-1) @ v).transpose(1, 2).reshape(b, t, -1)
        return self.o_proj(y)


class MLP(nn.Module):
    def __init__(self, d, f):
        super().__init__()
        self.gate_proj = nn.Linear(d, f, bias=False)
        self.up_proj = nn.Linear(d, f, bias=False)
        self.down_proj = nn.Linear(f, d, bias=False)

    def forward(self, x):
        return self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class MoE(nn.Module):
    def __init__(self, d, f, n):
        super().__init__()
        self.gate = nn.Linear(d, n, bias=False)
        self.experts = nn.ModuleList(MLP(d, f) for _ in range(n))

    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1])
        pick = self.gate(flat).argmax(-1)
        out = torch.zeros_like(flat)
        for e, ex in enumerate(self.experts):
            sel = pick == e
            if sel.any():  # as in transformers: an expert without tokens is not called
                out[sel] = ex(flat[sel])
        return out.view_as(x)


class Layer(nn.Module):
    def __init__(self, d, f, heads, kv_heads, experts):
        super().__init__()
        self.input_layernorm = RMSNorm(d)
        self.self_attn = Attention(d, heads, kv_heads)
        self.post_attention_layernorm = RMSNorm(d)
        self.mlp = MoE(d, f, experts) if experts else MLP(d, f)

    def forward(self, x, mask):
        x = x + self.self_attn(self.input_layernorm(x), mask)
        return x + self.mlp(self.post_attention_layernorm(x))


class Inner(nn.Module):
    def __init__(self, vocab, d, f, layers, heads, kv_heads, moe):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(Layer(d, f, heads, kv_heads, 4 if moe and i == 1 else 0) for i in range(layers))
        self.norm = RMSNorm(d)

    def forward(self, ids, mask):
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)


class TinyLlama(nn.Module):
    def __init__(self, vocab=100, d=16, f=40, layers=2, heads=4, kv_heads=2, moe=False):
        super().__init__()
        self.model = Inner(vocab, d, f, layers, heads, kv_heads, moe)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, input_ids, attention_mask=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        return self.lm_head(self.model(input_ids, attention_mask))
