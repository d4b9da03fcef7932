#!/usr/bin/env python3
"""The PyTorch side of `npm run bench:real-size` (realSize.bench.ts starts it with the same shape
as the mtrl side and prints both): the same Hugging Face folder in float32 with PEFT LoRA rank 16
(alpha 32) on q/k/v/o/gate/up/down, on the same number of threads, then
- SFT: LoRA training steps (forward, backward, AdamW) on BATCH x SEQ random tokens, tokens/s;
- sampling: `generate` of NEW tokens at temperature 1 after a SAMPLE_PROMPT-token prompt, batch 1 and
  16 (the PEFT model as TRL samples it, adapters unmerged), prefill timed apart;
- RL: one step of TRL's GRPOTrainer (beta 0, one generation batch = one update, groups of 4, one
  group a micro-batch, accumulated)
  on EPISODES completions of TURNS x NEW tokens after a ~PROMPT-token prompt. TRL plays one turn
  per episode (its multi-turn mode needs the model to call tools), so the episode is one long
  turn with as many new tokens as the mtrl episode's turns together.
Each result is one JSON line on stdout ({"torch": ...}).

    python3 apps/mtrl/bench/real_size.py DIR '{"phases":["sft","sample","rl"],...}' THREADS
"""
import json
import resource
import sys
import time

import torch
import transformers
from peft import LoraConfig, get_peft_model

TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def emit(result):
    print(json.dumps({"torch": result}), flush=True)


def log(line):
    print(f"[torch] {line}", file=sys.stderr, flush=True)


def peak_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def lora_config():
    return LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, target_modules=TARGETS, task_type="CAUSAL_LM")


def load(folder):
    return transformers.AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)


def sft(model, shape):
    vocab = model.config.vocab_size
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, vocab, (shape["batch"], shape["seq"]), generator=g)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    model.train()
    times, cpus = [], []
    for i in range(shape["sftSteps"] + 1):
        start = time.perf_counter()
        cpu = time.process_time()
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        times.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        log(f"sft step {i}{' (warm-up)' if i == 0 else ''}: {times[-1]:.1f} s, loss {loss.item():.3f}")
    mean = sum(times[1:]) / len(times[1:])
    cpu_mean = sum(cpus[1:]) / len(cpus[1:])
    emit(dict(phase="sft", tokensPerSecond=shape["batch"] * shape["seq"] / mean, tokensPerCpuSecond=shape["batch"] * shape["seq"] / cpu_mean, stepSeconds=mean, warmupSeconds=times[0], peakGiB=peak_gib()))


def sample(model, shape):
    model.eval()
    vocab = model.config.vocab_size
    g = torch.Generator().manual_seed(1)
    with torch.inference_mode():  # warm-up, not timed
        model.generate(input_ids=torch.zeros((1, 8), dtype=torch.long), max_new_tokens=2, do_sample=True, top_k=0, pad_token_id=0, eos_token_id=None)
    for batch in [1, 16]:
        ids = torch.randint(0, vocab, (batch, shape["samplePrompt"]), generator=g)
        mask = torch.ones_like(ids)
        kw = dict(do_sample=True, temperature=1.0, top_k=0, top_p=1.0, pad_token_id=0, eos_token_id=None)
        with torch.inference_mode():
            start, cpu = time.perf_counter(), time.process_time()
            model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=1, min_new_tokens=1, **kw)
            prefill, prefill_cpu = time.perf_counter() - start, time.process_time() - cpu
            start, cpu = time.perf_counter(), time.process_time()
            out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=shape["newTokens"], min_new_tokens=shape["newTokens"], **kw)
            total, total_cpu = time.perf_counter() - start, time.process_time() - cpu
        tokens = (out.shape[1] - shape["samplePrompt"]) * batch
        gen = max(total - prefill, 1e-9)
        gen_cpu = max(total_cpu - prefill_cpu, 1e-9)
        log(f"sampling batch {batch}: prefill {prefill:.1f} s, {tokens} tokens in {gen:.1f} s")
        emit(dict(phase=f"sample{batch}", tokensPerSecond=tokens / gen, tokensPerCpuSecond=tokens / gen_cpu, prefillSeconds=prefill, generateSeconds=gen, peakGiB=peak_gib()))


def rl(folder, model, shape):
    import datasets
    from trl import GRPOConfig, GRPOTrainer

    tok = transformers.AutoTokenizer.from_pretrained(folder)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token or tok.convert_ids_to_tokens(0)
    words = "north south east west door key chest table lamp room kitchen hall open take go the a and of to".split()
    groups = max(1, round(shape["episodes"] / 4))
    prompts = []
    for s in range(groups):
        g = torch.Generator().manual_seed(s)
        text = []
        while len(tok(" ".join(text))["input_ids"]) < shape["prompt"]:
            text.append(words[int(torch.randint(0, len(words), (1,), generator=g))])
        prompts.append(" ".join(text))

    def reward(completions, **_):
        return [(sum(map(ord, c)) % 1000) / 1000 for c in completions]

    args = GRPOConfig(
        output_dir="/tmp/mtrl-real-size-trl",
        use_cpu=True,
        # one group (4 completions) a micro-batch, the groups accumulated into one optimizer step, as
        # mtrl's update accumulates micro-batches: the 16 completions are generated together
        # (generation_batch_size = 4 x steps_per_generation = 4 x gradient_accumulation_steps)
        per_device_train_batch_size=4,
        gradient_accumulation_steps=groups,
        num_generations=4,
        max_completion_length=shape["turns"] * shape["newTokens"],
        temperature=1.0,
        top_k=0,
        beta=0.0,
        max_steps=1,
        learning_rate=1e-4,
        logging_steps=1,
        report_to=[],
        save_strategy="no",
        bf16=False,
        seed=1,
        dataloader_num_workers=0,
    )
    trainer = GRPOTrainer(model=model, reward_funcs=reward, args=args, train_dataset=datasets.Dataset.from_dict({"prompt": prompts}), processing_class=tok)
    start, cpu = time.perf_counter(), time.process_time()
    trainer.train()
    total, total_cpu = time.perf_counter() - start, time.process_time() - cpu
    log(f"GRPO iteration: {total:.1f} s")
    emit(dict(phase="rl", episodes=groups * 4, seconds=total, cpuSeconds=total_cpu, peakGiB=peak_gib()))


def main():
    folder, shape_arg, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    shape = json.loads(shape_arg)
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    start = time.perf_counter()
    model = get_peft_model(load(folder), lora_config())
    emit(dict(phase="load", seconds=time.perf_counter() - start, backend=f"torch {torch.__version__}", threads=torch.get_num_threads(), peakGiB=peak_gib()))
    if "sft" in shape["phases"]:
        sft(model, shape)
    if "sample" in shape["phases"]:
        sample(model, shape)
    if "rl" in shape["phases"]:
        rl(folder, model, shape)


if __name__ == "__main__":
    main()
