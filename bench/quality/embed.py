#!/usr/bin/python3
"""embed.py MODEL OUT.safetensors - the model's embedding table (its first
torch.nn.Embedding, model.embed_tokens in transformers' models) as
model.embed_tokens.weight in float32, for cal-select --embed: the bench's
kmeans-embed sets depend on the model they are made for."""
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # see train.py
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calio import st_write  # noqa: E402
from hessians import load_model  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: embed.py MODEL OUT.safetensors")
    import torch
    model = load_model(sys.argv[1])
    emb = next((m for m in model.modules() if isinstance(m, torch.nn.Embedding)), None)
    if emb is None:
        sys.exit(f"embed.py: {sys.argv[1]}: the model has no torch.nn.Embedding")
    st_write(sys.argv[2], {"model.embed_tokens.weight": emb.weight.detach().float().numpy()}, {"format": "pt"})


if __name__ == "__main__":
    main()
