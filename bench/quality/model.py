"""model.py - the bench's small causal LM, with transformers' Llama module
names (model.embed_tokens, model.layers.N.input_layernorm,
model.layers.N.self_attn.{q,k,v,o}_proj, model.layers.N.post_attention_layernorm,
model.layers.N.mlp.{gate,up,down}_proj, model.norm, lm_head), so that the
same sequential GPTQ and the same hooks serve it and a user's transformers
model. Llama's blocks: pre-RMSNorm, rotary positions, SwiGLU MLP, untied
lm_head. forward(input_ids, attention_mask=None) -> logits, as transformers'.
torch only."""
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


def rotary(t, hd, base=10000.0):
    """cos and sin [t, hd] of Llama's rotary embedding (rotate_half layout)."""
    inv = 1.0 / base ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd)
    f = torch.outer(torch.arange(t, dtype=torch.float32), inv)
    e = torch.cat([f, f], -1)
    return e.cos(), e.sin()


def rotate_half(x):
    a, b = x.chunk(2, -1)
    return torch.cat([-b, a], -1)


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, d, bias=False)
        self.v_proj = nn.Linear(d, d, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)

    def forward(self, x, mask):
        b, t, _ = x.shape
        q, k, v = (p(x).view(b, t, self.h, self.hd).transpose(1, 2) for p in (self.q_proj, self.k_proj, self.v_proj))
        cos, sin = rotary(t, self.hd)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        s = q @ k.transpose(-1, -2) / self.hd ** 0.5
        allowed = torch.ones(t, t, dtype=torch.bool).tril()[None, None] & (mask[:, None, None, :] != 0)
        y = (s.masked_fill(~allowed, float("-inf")).softmax(-1) @ v).transpose(1, 2).reshape(b, t, -1)
        return self.o_proj(y)


class MLP(nn.Module):
    def __init__(self, d, f):
        super().__init__()
        self.gate_proj = nn.Linear(d, f, bias=False)
        self.up_proj = nn.Linear(d, f, bias=False)
        self.down_proj = nn.Linear(f, d, bias=False)

    def forward(self, x):
        return self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, d, f, heads):
        super().__init__()
        self.input_layernorm = RMSNorm(d)
        self.self_attn = Attention(d, heads)
        self.post_attention_layernorm = RMSNorm(d)
        self.mlp = MLP(d, f)

    def forward(self, x, mask):
        x = x + self.self_attn(self.input_layernorm(x), mask)
        return x + self.mlp(self.post_attention_layernorm(x))


class Inner(nn.Module):
    def __init__(self, vocab, d, f, layers, heads):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(DecoderLayer(d, f, heads) for _ in range(layers))
        self.norm = RMSNorm(d)

    def forward(self, ids, mask):
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)


class QualityLM(nn.Module):
    """A Llama-shaped causal LM: vocab, d (hidden), f (MLP), layers, heads."""

    def __init__(self, vocab, d=128, f=352, layers=4, heads=4):
        super().__init__()
        self.config = dict(vocab=vocab, d=d, f=f, layers=layers, heads=heads)
        self.model = Inner(vocab, d, f, layers, heads)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        for name, p in self.named_parameters():
            if p.dim() == 2:  # GPT-2's init: N(0, 0.02), residual outputs scaled down
                std = 0.02 / (2 * layers) ** 0.5 if name.endswith(("o_proj.weight", "down_proj.weight")) else 0.02
                nn.init.normal_(p, 0.0, std)

    def forward(self, input_ids, attention_mask=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        return self.lm_head(self.model(input_ids, attention_mask))
