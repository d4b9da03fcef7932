;; The attention kernel of decoding in WebAssembly SIMD (f32x4): each new row's attention over
;; its slot's cached keys and values, the same arithmetic as `hostKernels.attend` in f32.
;;
;; Source of `attendKernelBytes.ts` (regenerate: `npm run build:kernel -w @mtrl/policy`; a test
;; checks the committed bytes against this file). The memory is imported: each KV cache owns one
;; (`kvArena.ts`), holding its keys, values and this kernel's scratch, so nothing is copied but
;; the rows' queries in and their outputs out.
;;
;; Layout (byte addresses, f32 data, 16-byte aligned): queries [rows, H, hd], keys and values of
;; one layer [slots, Hkv, cap, hd], rows' slots and positions (i32 [rows]), outputs
;; [rows, H, hd], scores (one f32 per position, rounded up to 4). `hd` is a multiple of 4.
(module
  (import "env" "memory" (memory 1))

  ;; The sum of the four lanes of `a`.
  (func $hsum (param $a v128) (result f32)
    (local.set $a
      (f32x4.add (local.get $a)
        (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $a) (local.get $a))))
    (f32.add (f32x4.extract_lane 0 (local.get $a)) (f32x4.extract_lane 1 (local.get $a))))

  ;; scores[j] = q . k[j] for the `n` positions from `k` (rows of `hd` floats); returns their
  ;; max. Four positions at a time, one accumulator each, summed across lanes by a 4x4
  ;; transpose, so a group costs 6 shuffles rather than 4 horizontal sums.
  (func $dots (param $q i32) (param $k i32) (param $n i32) (param $hd i32) (param $s i32) (result f32)
    (local $row i32) (local $row2 i32) (local $row3 i32) (local $row4 i32) (local $end i32)
    (local $c i32) (local $kc i32) (local $m f32) (local $d f32)
    (local $qc v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $t0 v128) (local $t1 v128) (local $r v128) (local $mv v128)
    (local.set $row (i32.shl (local.get $hd) (i32.const 2)))
    (local.set $row2 (i32.shl (local.get $row) (i32.const 1)))
    (local.set $row3 (i32.add (local.get $row2) (local.get $row)))
    (local.set $row4 (i32.shl (local.get $row) (i32.const 2)))
    (local.set $end
      (i32.add (local.get $s) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2))))
    (local.set $mv (v128.const f32x4 -inf -inf -inf -inf))
    (block $groups_done
      (loop $group
        (br_if $groups_done (i32.ge_u (local.get $s) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $c (i32.const 0))
        (local.set $kc (local.get $k))
        (loop $chunk
          (local.set $qc (v128.load (i32.add (local.get $q) (local.get $c))))
          (local.set $a0
            (f32x4.add (local.get $a0) (f32x4.mul (local.get $qc) (v128.load (local.get $kc)))))
          (local.set $a1
            (f32x4.add (local.get $a1)
              (f32x4.mul (local.get $qc) (v128.load (i32.add (local.get $kc) (local.get $row))))))
          (local.set $a2
            (f32x4.add (local.get $a2)
              (f32x4.mul (local.get $qc) (v128.load (i32.add (local.get $kc) (local.get $row2))))))
          (local.set $a3
            (f32x4.add (local.get $a3)
              (f32x4.mul (local.get $qc) (v128.load (i32.add (local.get $kc) (local.get $row3))))))
          (local.set $kc (i32.add (local.get $kc) (i32.const 16)))
          (br_if $chunk
            (i32.lt_u (local.tee $c (i32.add (local.get $c) (i32.const 16))) (local.get $row))))
        ;; t0 = [a0.0+a0.2, a1.0+a1.2, a0.1+a0.3, a1.1+a1.3], t1 likewise for a2, a3
        (local.set $t0
          (f32x4.add
            (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a0) (local.get $a1))
            (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a0) (local.get $a1))))
        (local.set $t1
          (f32x4.add
            (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a2) (local.get $a3))
            (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a2) (local.get $a3))))
        ;; r = [sum a0, sum a1, sum a2, sum a3]
        (local.set $r
          (f32x4.add
            (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t0) (local.get $t1))
            (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t0) (local.get $t1))))
        (v128.store (local.get $s) (local.get $r))
        (local.set $mv (f32x4.pmax (local.get $mv) (local.get $r)))
        (local.set $s (i32.add (local.get $s) (i32.const 16)))
        (local.set $k (i32.add (local.get $k) (local.get $row4)))
        (br $group)))
    (local.set $mv
      (f32x4.pmax (local.get $mv)
        (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $mv) (local.get $mv))))
    (local.set $m (f32.max (f32x4.extract_lane 0 (local.get $mv)) (f32x4.extract_lane 1 (local.get $mv))))
    ;; the last n mod 4 positions, one at a time
    (local.set $end
      (i32.add (local.get $end) (i32.shl (i32.and (local.get $n) (i32.const 3)) (i32.const 2))))
    (block $tail_done
      (loop $one
        (br_if $tail_done (i32.ge_u (local.get $s) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $c (i32.const 0))
        (loop $chunk1
          (local.set $a0
            (f32x4.add (local.get $a0)
              (f32x4.mul
                (v128.load (i32.add (local.get $q) (local.get $c)))
                (v128.load (i32.add (local.get $k) (local.get $c))))))
          (br_if $chunk1
            (i32.lt_u (local.tee $c (i32.add (local.get $c) (i32.const 16))) (local.get $row))))
        (local.set $d (call $hsum (local.get $a0)))
        (f32.store (local.get $s) (local.get $d))
        (local.set $m (f32.max (local.get $m) (local.get $d)))
        (local.set $s (i32.add (local.get $s) (i32.const 4)))
        (local.set $k (i32.add (local.get $k) (local.get $row)))
        (br $one)))
    (local.get $m))

  ;; scores[j] = exp(scores[j] - max) for the `n` scores, four at a time; returns their sum.
  ;; exp as in Cephes' expf: x = n ln2 + r with |r| <= ln2 / 2 (ln2 split in two parts so that
  ;; n ln2 is exact), e^r by a degree-7 polynomial (relative error ~1e-7), 2^n built in the
  ;; exponent bits. x is clamped at -87.3 so that 2^n stays a normal float (e^-87.3 ~ 1e-38,
  ;; nothing next to the max's 1). The lanes past `n` of the last group are zeroed.
  (func $exps (param $s i32) (param $n i32) (param $max f32) (result f32)
    (local $j i32) (local $x v128) (local $t v128) (local $fx v128) (local $y v128) (local $mx v128)
    (local $lane v128) (local $nv v128) (local $sum v128)
    (local.set $mx (f32x4.splat (local.get $max)))
    (local.set $nv (i32x4.splat (local.get $n)))
    (local.set $lane (v128.const i32x4 0 1 2 3))
    (local.set $sum (v128.const i32x4 0 0 0 0))
    (block $done
      (loop $group
        (br_if $done (i32.ge_s (local.get $j) (local.get $n)))
        (local.set $x
          (f32x4.pmax
            (f32x4.sub (v128.load (local.get $s)) (local.get $mx))
            (v128.const f32x4 -87.3 -87.3 -87.3 -87.3)))
        ;; t = x log2(e) + 1.5 * 2^23: the float addition rounds to an integer n, left in the low
        ;; mantissa bits of t (cheaper than nearest and a float-to-int conversion)
        (local.set $t
          (f32x4.add
            (f32x4.mul (local.get $x) (v128.const f32x4 1.44269504088896341 1.44269504088896341 1.44269504088896341 1.44269504088896341))
            (v128.const f32x4 12582912 12582912 12582912 12582912)))
        (local.set $fx (f32x4.sub (local.get $t) (v128.const f32x4 12582912 12582912 12582912 12582912)))
        (local.set $x
          (f32x4.sub (local.get $x)
            (f32x4.mul (local.get $fx) (v128.const f32x4 0.693359375 0.693359375 0.693359375 0.693359375))))
        (local.set $x
          (f32x4.sub (local.get $x)
            (f32x4.mul (local.get $fx) (v128.const f32x4 -2.12194440e-4 -2.12194440e-4 -2.12194440e-4 -2.12194440e-4))))
        (local.set $y (v128.const f32x4 1.9875691500e-4 1.9875691500e-4 1.9875691500e-4 1.9875691500e-4))
        (local.set $y
          (f32x4.add (f32x4.mul (local.get $y) (local.get $x))
            (v128.const f32x4 1.3981999507e-3 1.3981999507e-3 1.3981999507e-3 1.3981999507e-3)))
        (local.set $y
          (f32x4.add (f32x4.mul (local.get $y) (local.get $x))
            (v128.const f32x4 8.3334519073e-3 8.3334519073e-3 8.3334519073e-3 8.3334519073e-3)))
        (local.set $y
          (f32x4.add (f32x4.mul (local.get $y) (local.get $x))
            (v128.const f32x4 4.1665795894e-2 4.1665795894e-2 4.1665795894e-2 4.1665795894e-2)))
        (local.set $y
          (f32x4.add (f32x4.mul (local.get $y) (local.get $x))
            (v128.const f32x4 1.6666665459e-1 1.6666665459e-1 1.6666665459e-1 1.6666665459e-1)))
        (local.set $y
          (f32x4.add (f32x4.mul (local.get $y) (local.get $x))
            (v128.const f32x4 5.0000001201e-1 5.0000001201e-1 5.0000001201e-1 5.0000001201e-1)))
        ;; e^r = 1 + r + r^2 * y
        (local.set $y
          (f32x4.add
            (f32x4.add (f32x4.mul (local.get $y) (f32x4.mul (local.get $x) (local.get $x))) (local.get $x))
            (v128.const f32x4 1 1 1 1)))
        ;; times 2^n: (n + 127) << 23 is the float 2^n, and the bits of t are those of 1.5 * 2^23
        ;; (0x4b400000, whose low 9 bits are zero: shifted out) plus n
        (local.set $y
          (f32x4.mul (local.get $y)
            (i32x4.shl (i32x4.add (local.get $t) (v128.const i32x4 127 127 127 127)) (i32.const 23))))
        (local.set $y (v128.and (local.get $y) (i32x4.lt_s (local.get $lane) (local.get $nv))))
        (v128.store (local.get $s) (local.get $y))
        (local.set $sum (f32x4.add (local.get $sum) (local.get $y)))
        (local.set $s (i32.add (local.get $s) (i32.const 16)))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (local.set $lane (i32x4.add (local.get $lane) (v128.const i32x4 4 4 4 4)))
        (br $group)))
    (call $hsum (local.get $sum)))

  ;; out = inv * sum_j p[j] v[j] over the `n` positions from `v`: per 4 floats of the head, four
  ;; accumulators (one per position mod 4) so that the additions do not wait on each other.
  (func $mix (param $p i32) (param $v i32) (param $n i32) (param $hd i32) (param $out i32) (param $inv f32)
    (local $row i32) (local $row2 i32) (local $row3 i32) (local $row4 i32)
    (local $c i32) (local $sp i32) (local $vp i32) (local $end4 i32) (local $end i32)
    (local $b0 v128) (local $b1 v128) (local $b2 v128) (local $b3 v128)
    (local.set $row (i32.shl (local.get $hd) (i32.const 2)))
    (local.set $row2 (i32.shl (local.get $row) (i32.const 1)))
    (local.set $row3 (i32.add (local.get $row2) (local.get $row)))
    (local.set $row4 (i32.shl (local.get $row) (i32.const 2)))
    (local.set $end4
      (i32.add (local.get $p) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2))))
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
    (loop $chunk
      (local.set $b0 (v128.const i32x4 0 0 0 0))
      (local.set $b1 (v128.const i32x4 0 0 0 0))
      (local.set $b2 (v128.const i32x4 0 0 0 0))
      (local.set $b3 (v128.const i32x4 0 0 0 0))
      (local.set $sp (local.get $p))
      (local.set $vp (i32.add (local.get $v) (local.get $c)))
      (block $groups_done
        (loop $group
          (br_if $groups_done (i32.ge_u (local.get $sp) (local.get $end4)))
          (local.set $b0
            (f32x4.add (local.get $b0)
              (f32x4.mul (v128.load32_splat (local.get $sp)) (v128.load (local.get $vp)))))
          (local.set $b1
            (f32x4.add (local.get $b1)
              (f32x4.mul (v128.load32_splat offset=4 (local.get $sp))
                (v128.load (i32.add (local.get $vp) (local.get $row))))))
          (local.set $b2
            (f32x4.add (local.get $b2)
              (f32x4.mul (v128.load32_splat offset=8 (local.get $sp))
                (v128.load (i32.add (local.get $vp) (local.get $row2))))))
          (local.set $b3
            (f32x4.add (local.get $b3)
              (f32x4.mul (v128.load32_splat offset=12 (local.get $sp))
                (v128.load (i32.add (local.get $vp) (local.get $row3))))))
          (local.set $sp (i32.add (local.get $sp) (i32.const 16)))
          (local.set $vp (i32.add (local.get $vp) (local.get $row4)))
          (br $group)))
      (block $tail_done
        (loop $one
          (br_if $tail_done (i32.ge_u (local.get $sp) (local.get $end)))
          (local.set $b0
            (f32x4.add (local.get $b0)
              (f32x4.mul (v128.load32_splat (local.get $sp)) (v128.load (local.get $vp)))))
          (local.set $sp (i32.add (local.get $sp) (i32.const 4)))
          (local.set $vp (i32.add (local.get $vp) (local.get $row)))
          (br $one)))
      (v128.store (i32.add (local.get $out) (local.get $c))
        (f32x4.mul
          (f32x4.add (f32x4.add (local.get $b0) (local.get $b1)) (f32x4.add (local.get $b2) (local.get $b3)))
          (f32x4.splat (local.get $inv))))
      (br_if $chunk
        (i32.lt_u (local.tee $c (i32.add (local.get $c) (i32.const 16))) (local.get $row)))))

  ;; Attention of `rows` rows, each over its slot's positions up to its own: for row m and head
  ;; h, out[m, h] = softmax_j(q[m, h] . k[slot, h / G, j]) v[slot, h / G, j], j <= pos[m], with
  ;; G = H / Hkv query heads per key head (the attention scale is folded into the weights).
  ;; `q` and `out` are [rows, H, hd], `k` and `v` one layer's [slots, Hkv, cap, hd], `slots` and
  ;; `positions` i32 [rows], `scores` scratch of cap floats rounded up to 4.
  (func (export "attend")
    (param $q i32) (param $k i32) (param $v i32) (param $slots i32) (param $positions i32)
    (param $out i32) (param $scores i32) (param $rows i32) (param $H i32) (param $Hkv i32)
    (param $hd i32) (param $cap i32)
    (local $G i32) (local $row i32) (local $m i32) (local $h i32) (local $n i32)
    (local $block i32) (local $at i32) (local $max f32) (local $sum f32)
    (local.set $G (i32.div_u (local.get $H) (local.get $Hkv)))
    (local.set $row (i32.shl (local.get $hd) (i32.const 2)))
    (block $rows_done
      (loop $each_row
        (br_if $rows_done (i32.ge_u (local.get $m) (local.get $rows)))
        (local.set $block
          (i32.mul (i32.load (i32.add (local.get $slots) (i32.shl (local.get $m) (i32.const 2))))
            (local.get $Hkv)))
        (local.set $n
          (i32.add (i32.load (i32.add (local.get $positions) (i32.shl (local.get $m) (i32.const 2))))
            (i32.const 1)))
        (local.set $h (i32.const 0))
        (loop $each_head
          ;; byte offset of the (slot, h / G) block of keys and values
          (local.set $at
            (i32.mul
              (i32.mul (i32.add (local.get $block) (i32.div_u (local.get $h) (local.get $G))) (local.get $cap))
              (local.get $row)))
          (local.set $max
            (call $dots (local.get $q) (i32.add (local.get $k) (local.get $at)) (local.get $n)
              (local.get $hd) (local.get $scores)))
          (local.set $sum (call $exps (local.get $scores) (local.get $n) (local.get $max)))
          (call $mix (local.get $scores) (i32.add (local.get $v) (local.get $at)) (local.get $n)
            (local.get $hd) (local.get $out) (f32.div (f32.const 1) (local.get $sum)))
          (local.set $q (i32.add (local.get $q) (local.get $row)))
          (local.set $out (i32.add (local.get $out) (local.get $row)))
          (br_if $each_head
            (i32.lt_u (local.tee $h (i32.add (local.get $h) (i32.const 1))) (local.get $H))))
        (local.set $m (i32.add (local.get $m) (i32.const 1)))
        (br $each_row)))))
