#!/bin/bash
# The CPU kernel pins on this machine's CPU and torch (issue 29 item 1), Python only: speed (host / pinned / slowest)
# and the emulation (8 kernel sets from the caller's environment, unpinned and pinned: distinct weights).
# Usage (repository root): npx tsx bench/numerics/device-inputs.ts DIR; [OUT=dir] bash bench/numerics/device-kernels.sh DIR
set -u
OUT=${OUT:-/tmp/nout}; mkdir -p "$OUT"
N=$(cd "${1:?usage: bash bench/numerics/device-kernels.sh DIR (made by device-inputs.ts)}" && pwd) || exit 2
ROOT=$(pwd); W=${WORK:-/tmp/nw}; rm -rf "$W"; mkdir -p "$W"
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
exec > >(tee -a "$OUT/numerics.txt") 2>&1
export CUDA_VISIBLE_DEVICES=
lscpu | grep -E "^(Model name|CPU\(s\)|Thread|Core)"; echo "avx512 flags: $(grep -o 'avx512[a-z_0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"; grep -o 'amx[a-z_0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' '; echo
python3 -c "import torch; print(torch.__version__); print(torch.__config__.show()); print('mkl', torch.backends.mkl.is_available(), 'mkldnn', torch.backends.mkldnn.is_available()); print(getattr(getattr(torch.backends, 'cpu', None), 'get_cpu_capability', lambda: '?')())"
train() { # name cfg envfile
  ( source "$3"; cd "$W" && timeout 240 python3 "$ROOT/steps" training.dpr.train --config "$2" --inputs "$N/in" --out "$W/out-$1" --threads 1 > "$W/log-$1.txt" 2>&1; echo "exit $?" >> "$W/log-$1.txt" )
}
ceiling() { ( source "$1"; python3 -c "
import time, torch
torch.set_num_threads(1)
a = torch.randn(1024, 1024); b = torch.randn(1024, 1024); a @ b
best = min((lambda t0: (a @ b, time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(7))
print(f'{2 * 1024 ** 3 / best / 1e9:.1f} GFLOP/s', getattr(getattr(torch.backends, 'cpu', None), 'get_cpu_capability', lambda: '?')())" ) }
el "GEMM 1024^3, 1 thread: host $(ceiling $N/envs/unpinned-host.env); pinned $(ceiling $N/envs/pinned-host.env); SSE4_2/default $(ceiling $N/envs/unpinned-mklSSE42-default.env)"
el "speed: 3 trainings of 8 epochs at once (1 thread each)"
train speed-host $N/cfg-speed.json $N/envs/unpinned-host.env &
train speed-pinned $N/cfg-speed.json $N/envs/pinned-host.env &
train speed-slow $N/cfg-speed.json $N/envs/unpinned-mklSSE42-default.env &
wait %1 %2 %3
for n in host pinned slow; do python3 - "$W/log-speed-$n.txt" "$n" "$(cat "$N/steps-per-epoch.txt")" <<'PY'
import json, sys
# the EPOCH lines of the trainer's stdout: metrics.jsonl has no seconds (an output holds what was computed)
rows = [json.loads(l[6:]) for l in open(sys.argv[1]) if l.startswith("EPOCH ")]
steps = int(sys.argv[3])
print(f"{sys.argv[2]:8s} best steps/s over epochs 2..{len(rows)}: {max(steps / r['train_seconds'] for r in rows[1:]):.2f}  (median {sorted(steps / r['train_seconds'] for r in rows[1:])[len(rows[1:])//2]:.2f})")
PY
done
el "emulation: 16 trainings of 2 epochs at once"
PIDS=""
for f in $N/envs/*.env; do n=$(basename "$f" .env); train "emu-$n" $N/cfg-emu.json "$f" & PIDS="$PIDS $!"; done
wait $PIDS
for mode in unpinned pinned; do
  echo "$mode:"; for f in $N/envs/$mode-*.env; do n=$(basename "$f" .env); echo "  ${n#$mode-} $(sha256sum "$W/out-emu-$n/query_encoder.safetensors" 2>/dev/null | cut -c1-12) $(tail -1 "$W/log-emu-$n.txt")"; done
  echo "  distinct: $(for f in $N/envs/$mode-*.env; do n=$(basename "$f" .env); sha256sum "$W/out-emu-$n/query_encoder.safetensors" 2>/dev/null | cut -c1-64; done | sort -u | wc -l)"
done
for f in "$W"/log-*.txt; do grep -q "exit 0" "$f" || { echo "== $f"; tail -5 "$f"; }; done
el "end"
