"""What apps/mtrl/bench/gpu.bench.ts measures, in PyTorch (float32, TF32 off, as TensorFlow.js
computes), at the same shapes, printed as one JSON line: an SFT step (forward, backward,
global-norm clip, Adam) in tokens/s, KV-cached sampling in tokens/s, and one RL iteration's model
work (sampling, scoring, a PPO step with GRPO advantages) in seconds.

The model is a Llama-style decoder (RMSNorm, RoPE, grouped-query attention, SwiGLU, optional
per-head q/k norm and tied embeddings) written here in plain PyTorch, so that it needs nothing
but torch. The default shape's previous-token embedding and canon layers are left out (a few
element-wise ops per layer).

Run: python3 tools/gpu-check/torch_bench.py --shape default [--device cuda]
"""

import argparse
import json
import math
import time

import torch
import torch.nn.functional as F

SHAPES = {
    "tiny": dict(vocab=64, d=32, layers=1, heads=2, kv=2, head_dim=16, ffn=96, tied=False, qk_norm=False, theta=1e4,
                 batch=2, time=48, slots=2, prompt=8, new=4),
    "default": dict(vocab=584, d=128, layers=2, heads=8, kv=8, head_dim=16, ffn=352, tied=False, qk_norm=False, theta=1e4,
                    batch=8, time=256, slots=16, prompt=64, new=32),
    "qwen3-0.6b": dict(vocab=151936, d=1024, layers=28, heads=16, kv=8, head_dim=128, ffn=3072, tied=True, qk_norm=True, theta=1e6,
                       batch=4, time=256, slots=8, prompt=64, new=32),
}


class Model(torch.nn.Module):
    def __init__(self, s):
        super().__init__()
        self.s = s
        d, h, kv, hd = s["d"], s["heads"], s["kv"], s["head_dim"]
        self.embed = torch.nn.Embedding(s["vocab"], d)
        self.layers = torch.nn.ModuleList()
        for _ in range(s["layers"]):
            layer = torch.nn.ModuleDict(dict(
                n1=torch.nn.RMSNorm(d), q=torch.nn.Linear(d, h * hd, bias=False), k=torch.nn.Linear(d, kv * hd, bias=False),
                v=torch.nn.Linear(d, kv * hd, bias=False), o=torch.nn.Linear(h * hd, d, bias=False), n2=torch.nn.RMSNorm(d),
                gate=torch.nn.Linear(d, s["ffn"], bias=False), up=torch.nn.Linear(d, s["ffn"], bias=False),
                down=torch.nn.Linear(s["ffn"], d, bias=False)))
            if s["qk_norm"]:
                layer["qn"] = torch.nn.RMSNorm(hd)
                layer["kn"] = torch.nn.RMSNorm(hd)
            self.layers.append(layer)
        self.norm = torch.nn.RMSNorm(d)
        self.head = None if s["tied"] else torch.nn.Linear(d, s["vocab"], bias=False)

    def rope(self, x, start):
        hd = x.shape[-1]
        inv = 1.0 / (self.s["theta"] ** (torch.arange(0, hd, 2, device=x.device, dtype=torch.float32) / hd))
        pos = torch.arange(start, start + x.shape[2], device=x.device, dtype=torch.float32)
        ang = torch.outer(pos, inv)
        cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)
        x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
        return x * cos + torch.cat([-x2, x1], -1) * sin

    def forward(self, ids, cache=None, start=0):
        s = self.s
        B, T = ids.shape
        x = self.embed(ids)
        for i, L in enumerate(self.layers):
            y = L["n1"](x)
            q = L["q"](y).view(B, T, s["heads"], s["head_dim"]).transpose(1, 2)
            k = L["k"](y).view(B, T, s["kv"], s["head_dim"]).transpose(1, 2)
            v = L["v"](y).view(B, T, s["kv"], s["head_dim"]).transpose(1, 2)
            if s["qk_norm"]:
                q, k = L["qn"](q), L["kn"](k)
            q, k = self.rope(q, start), self.rope(k, start)
            if cache is not None:
                if i in cache:
                    k, v = torch.cat([cache[i][0], k], 2), torch.cat([cache[i][1], v], 2)
                cache[i] = (k, v)
            rep = s["heads"] // s["kv"]
            k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=(T > 1))
            x = x + L["o"](a.transpose(1, 2).reshape(B, T, -1))
            y = L["n2"](x)
            x = x + L["down"](F.silu(L["gate"](y)) * L["up"](y))
        x = self.norm(x)
        return x @ self.embed.weight.T if self.head is None else self.head(x)


def token_logprobs(model, ids):
    logits = model(ids)[:, :-1]
    return torch.log_softmax(logits, -1).gather(-1, ids[:, 1:, None])[..., 0]


def best_of(f, repeats, sync):
    f()
    sync()
    best = math.inf
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        sync()
        best = min(best, time.perf_counter() - t)
    return best


@torch.no_grad()
def sample(model, s, device):
    prompt = torch.randint(0, s["vocab"], (s["slots"], s["prompt"]), device=device)
    cache = {}
    logits = model(prompt, cache, 0)[:, -1]
    out = [prompt]
    for t in range(s["new"]):
        nxt = torch.multinomial(torch.softmax(logits, -1), 1)
        out.append(nxt)
        logits = model(nxt, cache, s["prompt"] + t)[:, -1]
    return torch.cat(out, 1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shape", default="default", choices=list(SHAPES))
    p.add_argument("--device", default="cuda")
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    if a.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("torch_bench: CUDA is not available to PyTorch here (torch %s)" % torch.__version__)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    s = SHAPES[a.shape]
    device = torch.device(a.device)
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
    model = Model(s).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-5)
    ids = torch.randint(0, s["vocab"], (s["batch"], s["time"]), device=device)

    def sft():
        opt.zero_grad(set_to_none=True)
        (-token_logprobs(model, ids).mean()).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    def rl():
        rows = sample(model, s, device)
        mask = torch.zeros(rows.shape[0], rows.shape[1] - 1, device=device)
        mask[:, -s["new"]:] = 1
        with torch.no_grad():
            old = token_logprobs(model, rows)
        adv = torch.tensor([(1 - 0.5) / 0.577 if i % 2 == 0 else (0 - 0.5) / 0.577 for i in range(rows.shape[0])], device=device)[:, None] * mask
        opt.zero_grad(set_to_none=True)
        ratio = torch.exp(torch.clamp(token_logprobs(model, rows) - old, -20, 20))
        loss = torch.maximum(-adv * ratio, -adv * ratio.clamp(0.8, 1.2))
        ((loss * mask).sum() / mask.sum()).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    sft_s = best_of(sft, a.repeats, sync)
    sample_s = best_of(lambda: sample(model, s, device), a.repeats, sync)
    rl_s = best_of(rl, a.repeats, sync)
    print(json.dumps(dict(
        shape=a.shape, backend="torch-" + a.device,
        device=torch.cuda.get_device_name() if a.device == "cuda" else "cpu",
        params=sum(p.numel() for p in model.parameters()),
        sft_tokens_per_s=s["batch"] * s["time"] / sft_s,
        sample_tokens_per_s=s["slots"] * s["new"] / sample_s,
        rl_iteration_s=rl_s)))


if __name__ == "__main__":
    main()
