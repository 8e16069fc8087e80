#!/bin/bash
# The numerics check of issue 29 items 2 and 6 on a GPU machine, in the repository root.
# Four cold stores run `./cspipe run theta0-nq` at once:
#   A, B: the plain command on the GPU machine (two processes, same GPU) -> one key, same bytes?
#   C:    CUDA_VISIBLE_DEVICES= (CPU, pinned kernels)                    -> another key than A
#   D:    as C with OPENBLAS_CORETYPE=Prescott ATEN_CPU_CAPABILITY=default -> C's key and bytes?
# Usage: OUT=<dir> [SETS="--set theta0.epochs=1"] [LIMIT=420] [CARRY=<dir>] bash bench/numerics/device-theta0.sh
# Where the machine has no Node, CARRY holds node.xz (the node binary), nm.tar.xz (node_modules of the
# production dependencies) and build.tar.xz (a .cspipe/builds/<id> of this commit), unpacked first.
set -u
OUT=${OUT:-/tmp/gpuout}
mkdir -p "$OUT"
SETS=${SETS:-}
LIMIT=${LIMIT:-420}
C=${CARRY:-.gpucarry}
W=${WORK:-/tmp/gpucheck}
rm -rf "$W" && mkdir -p "$W"
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
exec > >(tee -a "$OUT/console.txt") 2>&1

el "set-up"
if [ -f $C/node.xz ]; then mkdir -p "$W/bin" && xz -dc $C/node.xz > "$W/bin/node" && chmod +x "$W/bin/node"; export PATH="$W/bin:$PATH"; fi
[ -d node_modules ] || tar xJf $C/nm.tar.xz
[ -f $C/build.tar.xz ] && mkdir -p .cspipe/builds && tar xJf $C/build.tar.xz -C .cspipe/builds
node --version
nvidia-smi -L 2>&1 | head -3
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | head -3
python3 -c "import sys,torch,numpy;print(sys.executable, sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version(), 'numpy', numpy.__version__, 'devices', torch.cuda.device_count())"
lscpu | grep -E "^(Model name|CPU\(s\)|Flags)" | cut -c1-300
el "probe"
PYTHONPATH=steps OMP_NUM_THREADS=1 python3 pipeline/executors/numerics/probe_interpreter.py numpy torch > "$OUT/probe-gpu.json" 2>&1
CUDA_VISIBLE_DEVICES= OMP_NUM_THREADS=1 OPENBLAS_CORETYPE=Haswell ATEN_CPU_CAPABILITY=avx2 MKL_CBWR=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 ONEDNN_MAX_CPU_ISA=AVX2 \
  python3 pipeline/executors/numerics/probe_interpreter.py numpy torch > "$OUT/probe-cpu.json" 2>&1
./cspipe plan theta0-nq --store "$W/A" $SETS > "$W/plan-A.txt" 2>&1; tail -8 "$W/plan-A.txt"

el "four cold runs of theta0-nq"
run() { # name, env...
  local n=$1; shift
  ( env "$@" timeout "$LIMIT" ./cspipe run theta0-nq --store "$W/$n" --export-dir "$W/results-$n" $SETS > "$W/run-$n.txt" 2>&1; echo "exit $?" >> "$W/run-$n.txt"; echo "[$(( $(date +%s) - T0 )) s] $n done" ) &
  PIDS="$PIDS $!"
}
PIDS=""
run A
run B
run C CUDA_VISIBLE_DEVICES=
run D CUDA_VISIBLE_DEVICES= OPENBLAS_CORETYPE=Prescott ATEN_CPU_CAPABILITY=default
wait $PIDS
el "compare"
for n in A B C D; do
  echo "== $n: $(tail -1 "$W/run-$n.txt")"
  grep -E "numerics|pretrain-dpr|finished|error|Error" "$W/run-$n.txt" | head -8
  e=$(ls -d "$W/$n"/entries/pretrain-dpr/*/ 2>/dev/null | head -1)
  [ -n "$e" ] || continue
  echo "key $(basename "$e")"
  (cd "$e/outputs/model" && find . -type f \( -name "*.safetensors" -o -name "*.onnx" -o -name "*.npy" \) | sort | xargs sha256sum | sha256sum | cut -c1-16 | sed 's/^/weights+onnx+parity bytes /'; sha256sum *.safetensors | cut -c1-16,66-)
  python3 - "$e" <<'PY'
import json, sys, glob, os
e = sys.argv[1]
for f in glob.glob(os.path.join(e, "outputs/model/*.json")):
    try: d = json.load(open(f))
    except Exception: continue
    keep = {k: d[k] for k in ("device", "amp", "attention", "best_epoch", "dev_recall_at_5", "seconds", "steps", "epochs_run", "peak_gpu_memory_bytes", "torch_version") if k in d}
    if keep: print(os.path.basename(f), json.dumps(keep))
PY
  ./cspipe show pretrain-dpr.mini.theta0 --store "$W/$n" 2>&1 | sed -n 2,5p
  md=$(sed -n 's/^theta0-nq: \(.*\) (.*/\1/p' "$W/run-$n.txt")theta0-nq.md
  [ -f "$md" ] && grep -v "^$" "$md" | head -8
done
if [ $(( $(date +%s) - T0 )) -lt ${SEARCH_BEFORE:-470} ]; then
  el "gpu-search bench (2M x 768 shard, 4096 queries, k 100)"
  PYTHONPATH=steps OMP_NUM_THREADS=1 timeout 60 python3 bench/gpu/search_bench.py --rows 2000000 --queries 4096 --dim 768 --k 100 --ceiling 8192 > "$OUT/search-bench.json" 2>&1; tail -c 600 "$OUT/search-bench.json"; echo
fi
el "collect"
for n in A B C D; do
  e=$(ls -d "$W/$n"/entries/pretrain-dpr/*/ 2>/dev/null | head -1)
  mkdir -p "$W/keep/$n"
  cp "$W/run-$n.txt" "$W/keep/$n/" 2>/dev/null
  [ -n "$e" ] && { cp "$e/log.txt" "$W/keep/$n/train-log.txt"; cp "$e"/manifest*.json "$W/keep/$n/" 2>/dev/null; find "$e/outputs/model" -name "*.json" -exec cp {} "$W/keep/$n/" \; ; }
  cp -r "$W/$n/exports" "$W/keep/$n/exports" 2>/dev/null
done
cp "$W"/plan-A.txt "$W/keep/"
tar czf "$OUT/keep.tar.gz" -C "$W" keep
el "end"
