#!/usr/bin/env bash
# The GPU check of issue 51, one command on a machine with a GPU (NVIDIA, CUDA, PyTorch, Vulkan):
#   1. `mtrl info --backend webgpu`: the adapter must be a hardware one;
#   2. the webgpu parity tests on it (libs/backend/test/WebGpu.test.ts, apps/mtrl/test/WebGpuParity.test.ts),
#      where a skip is a failure;
#   3. the SFT, sampling and RL-iteration bench (apps/mtrl/bench/gpu.bench.ts) on webgpu at the default
#      shape and at Qwen3-0.6B's, and the same in PyTorch on CUDA (tools/gpu-check/torch_bench.py);
#   4. the ratios, PyTorch over mtrl (how many times faster PyTorch is).
# Figures go to tmp/gpu-check/results.jsonl as well.
#
# A GPU machine may have no Node and no network: on this machine first run
#   tools/gpu-check.sh pack
# which writes tmp/gpu-check/pack.tar.xz (node and the node_modules needed, under 64 MiB); carry
# tmp/gpu-check with the working tree; on the GPU machine this script unpacks it when `node` or
# node_modules is missing. Every missing piece stops the check with what is missing.
#
# GPU_CHECK_DRY=1 checks the script itself on a machine without a GPU: a software adapter is
# accepted, PyTorch runs on the CPU, and the shape is `tiny` (no figure to report).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=tmp/gpu-check
fail() {
  echo "gpu-check: $*" >&2
  exit 1
}

if [ "${1:-}" = pack ]; then
  command -v node >/dev/null || fail "pack needs node on this machine"
  [ -d node_modules/webgpu ] || fail "pack needs npm ci first (node_modules/webgpu is missing)"
  exec node tools/gpu-check/pack.mjs
fi

# --- the pieces ---------------------------------------------------------------------------------
if ! command -v node >/dev/null || [ ! -d node_modules/vitest ]; then
  [ -f "$work/pack.tar.xz" ] || fail "no node or no node_modules here, and no $work/pack.tar.xz: run 'tools/gpu-check.sh pack' where npm ci ran, and carry $work"
  echo "gpu-check: unpacking $work/pack.tar.xz"
  tar -xJf "$work/pack.tar.xz" -C "$root" || fail "could not unpack $work/pack.tar.xz"
  mkdir -p "$work/bin" && mv -f "$root/node" "$work/bin/node"
  export PATH="$root/$work/bin:$PATH"
fi
command -v node >/dev/null || fail "node is still missing"
node -e 'require("node:worker_threads")' || fail "this node does not run here ($(command -v node))"
[ -f node_modules/webgpu/dist/linux-x64/dawn.node ] || fail "node_modules/webgpu has no linux-x64 Dawn build"
ldconfig -p 2>/dev/null | grep 'libvulkan\.so\.1' >/dev/null || fail "no Vulkan loader (libvulkan.so.1): install libvulkan1 and the GPU's Vulkan driver"
command -v python3 >/dev/null || fail "no python3"
dry=${GPU_CHECK_DRY:-0}
device=cuda shapes="default qwen3-0.6b"
[ "$dry" = 1 ] && device=cpu shapes=tiny
if [ "$device" = cuda ]; then
  python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' || fail "PyTorch with CUDA is not available to python3"
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

mkdir -p "$work"
results="$work/results.jsonl"
: >"$results"
mtrl() { node apps/mtrl/bin/mtrl.mjs "$@"; }

# --- 1. the adapter -----------------------------------------------------------------------------
info=$(mtrl info --backend webgpu --json 2>"$work/info.err") || fail "mtrl info --backend webgpu failed: $(tail -3 "$work/info.err")"
echo "$info" | python3 -c '
import json, sys
a = json.load(sys.stdin)["backend"].get("adapter") or {}
print("adapter:", a.get("vendor"), a.get("architecture"), "(%s)" % a.get("description"), "software" if a.get("software") else "hardware")
sys.exit(1 if a.get("software", True) and sys.argv[1] != "1" else 0)' "$dry" || fail "the WebGPU adapter is a software one: the GPU's Vulkan driver is missing (e.g. /usr/share/vulkan/icd.d/nvidia_icd.json)"

# --- 2. parity on the hardware adapter ----------------------------------------------------------
parity() {
  local dir=$1 file=$2
  local report="$root/$work/parity-$(basename "$dir").json"
  (cd "$dir" && node "$root/node_modules/vitest/vitest.mjs" run "$file" --reporter=default --reporter=json --outputFile.json="$report") || return 1
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
skipped = r.get("numPendingTests", 0) + r.get("numTodoTests", 0)
print("parity %s: %d passed, %d failed, %d skipped" % (sys.argv[2], r["numPassedTests"], r["numFailedTests"], skipped))
sys.exit(1 if r["numFailedTests"] or skipped else 0)' "$report" "$file"
}
parity libs/backend test/WebGpu.test.ts || fail "webgpu parity failed or skipped (libs/backend)"
parity apps/mtrl test/WebGpuParity.test.ts || fail "webgpu parity failed or skipped (apps/mtrl)"

# --- 3. benches -----------------------------------------------------------------------------------
for shape in $shapes; do
  echo "bench $shape: mtrl on webgpu"
  MTRL_BACKEND=webgpu BENCH_SHAPE=$shape node --conditions=@mtrl/source --import tsx apps/mtrl/bench/gpu.bench.ts >>"$results" ||
    fail "the mtrl bench failed at $shape"
  echo "bench $shape: PyTorch on $device"
  python3 tools/gpu-check/torch_bench.py --shape "$shape" --device "$device" >>"$results" || fail "the PyTorch bench failed at $shape"
done

# --- 4. ratios ------------------------------------------------------------------------------------
python3 - "$results" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {(r["shape"], r["backend"].startswith("torch")): r for r in rows}
print("%-11s %-22s %14s %14s %10s" % ("shape", "metric", "mtrl webgpu", "torch", "torch/mtrl"))
for shape in ("tiny", "default", "qwen3-0.6b"):
    m, t = by.get((shape, False)), by.get((shape, True))
    if m is None or t is None:
        continue
    for key, higher in (("sft_tokens_per_s", True), ("sample_tokens_per_s", True), ("rl_iteration_s", False)):
        ratio = t[key] / m[key] if higher else m[key] / t[key]
        print("%-11s %-22s %14.4g %14.4g %9.1fx" % (shape, key, m[key], t[key], ratio))
PY
echo "figures: $work/results.jsonl"
