#!/bin/sh
# Issue 40's test-seed look, once per recipe version: each run's final checkpoint of the paper-base
# recipes (few-demos-from-base, few-demos-from-scratch, lift-from-base, rl-where-sft-fails-from-base,
# the budget grid) greedy on 100 TEST seeds of w2-o3-q4 and w4-o6-q8, one JSON line each in
# runs/test-look.jsonl. The run folders are those docs/results.md ("a pretrained base") names:
#   runs/base-check-base-N (few-demos-from-base --seed N), runs/base-check-scratch-N,
#   runs/base-lift-N (lift-from-base from base-check-base-N), runs/base-unlock-N
#   (rl-where-sft-fails-from-base from base-lift-N), runs/sft-rl-budget-from-base (the ablation).
# Usage: sh recipes/paper-base/test-look.sh [PREFIX]   (PREFIX: the run folders' parent, default runs)
# Since issue 53 every mtrl eval on test seeds goes through the test-seed ledger (decision 0018):
# a second checkpoint of a run already looked at (the budget cells' after-SFT lines below, after
# their after-RL look) is refused. Kept as the record of issue 40's looks, not to be rerun as is.
runs=${1:-runs}
out=$runs/test-look.jsonl
: > "$out"
look() { # name checkpoint setting
  r=$(npx mtrl eval --checkpoint "$2" textworld --config "$3" --split test --json 2>/dev/null |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s).results[0];console.log(JSON.stringify({success:r.successRate,invalid:r.invalidRate}))})')
  echo "{\"name\": \"$1\", \"setting\": \"$3\", \"result\": $r}" >> "$out"
}
for n in 1 2 3; do
  for s in w2-o3-q4 w4-o6-q8; do
    look "few-demos-from-base $n" "$runs/base-check-base-$n/checkpoints/stage-0/end" $s
    look "few-demos-from-scratch $n" "$runs/base-check-scratch-$n/checkpoints/stage-0/end" $s
    look "lift-from-base $n" "$runs/base-lift-$n/checkpoints/stage-0/end" $s
    look "rl-where-sft-fails-from-base $n" "$runs/base-unlock-$n/checkpoints/stage-0/end" $s
    for c in 20_SFT_800_RL 60_SFT_400_RL 80_SFT_200_RL; do
      look "budget $c $n" "$runs/sft-rl-budget-from-base/$c-seed$n/checkpoints/stage-1/end" $s
      look "budget $c after SFT $n" "$runs/sft-rl-budget-from-base/$c-seed$n/checkpoints/stage-0/end" $s
    done
    look "budget 100_SFT_0_RL $n" "$runs/sft-rl-budget-from-base/100_SFT_0_RL-seed$n/checkpoints/stage-0/end" $s
  done
done
