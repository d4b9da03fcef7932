#!/usr/bin/env bash
# Opt-in: build the `tensorflow` backend (@tensorflow/tfjs-node) from the libtensorflow C API
# found in the tensorflow-cpu wheel that this machine's local pip index serves. Never needed
# by the tests; without it mtrl runs on wasm. See docs/decisions/0001-workspace.md.
set -euo pipefail
TFV=${TFV:-2.21.0}
CACHE=${CACHE:-$PWD/.cache/libtensorflow-$TFV}
if [ ! -f "$CACHE/lib/libtensorflow_cc.so.2" ]; then
  mkdir -p "$CACHE/whl"
  pip download "tensorflow-cpu==$TFV" --no-deps -d "$CACHE/whl" -q --retries 0
  python3 - "$CACHE" <<'PY'
import sys, zipfile, glob, os, shutil
cache = sys.argv[1]
whl = glob.glob(os.path.join(cache, 'whl', 'tensorflow_cpu-*.whl'))[0]
z = zipfile.ZipFile(whl)
os.makedirs(os.path.join(cache, 'lib'), exist_ok=True)
for n in z.namelist():
    if n in ('tensorflow/libtensorflow_cc.so.2', 'tensorflow/libtensorflow_framework.so.2'):
        with z.open(n) as src, open(os.path.join(cache, 'lib', os.path.basename(n)), 'wb') as dst:
            shutil.copyfileobj(src, dst)
    elif n.startswith('tensorflow/include/') and not n.endswith('/'):
        out = os.path.join(cache, 'include', n[len('tensorflow/include/'):])
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with z.open(n) as src, open(out, 'wb') as dst:
            shutil.copyfileobj(src, dst)
PY
  rm -rf "$CACHE/whl"
fi
PKG=node_modules/@tensorflow/tfjs-node
mkdir -p "$PKG/deps/lib"
ln -sfn "$CACHE/include" "$PKG/deps/include"
for f in libtensorflow_cc.so.2 libtensorflow_framework.so.2; do ln -sf "$CACHE/lib/$f" "$PKG/deps/lib/$f"; done
ln -sf libtensorflow_cc.so.2 "$PKG/deps/lib/libtensorflow.so"
ln -sf libtensorflow_cc.so.2 "$PKG/deps/lib/libtensorflow.so.2.9.1"
ln -sf libtensorflow_framework.so.2 "$PKG/deps/lib/libtensorflow_framework.so"
ln -sf libtensorflow_framework.so.2 "$PKG/deps/lib/libtensorflow_framework.so.2.9.1"
npm rebuild @tensorflow/tfjs-node --dangerously-allow-all-scripts
node apps/mtrl/bin/mtrl.mjs info --backend tensorflow
