#!/usr/bin/env bash
# One-time set-up of a fresh Debian/Ubuntu machine for cspipe (idempotent):
#   - system packages the pipeline and its tests use (apt, as root or with sudo):
#       python3-torch python3-numpy libopenblas0-pthread  the training program (local executor)
#       python3-sentencepiece                              the mini T5 vocabulary (SentencePiece Unigram trainer)
#       libfaiss-dev                                       building faiss-node offline
#       python3-faiss                                      the index-file test (Python faiss reads cspipe's index) and bench/dense's peer
#       liblucene8-java default-jre-headless               the Lucene BM25 parity test
#       unzip bzip2                                        unpacking dataset archives
#       chromium fonts-dejavu-core                         the report's browser test and screenshots (headless)
#       slurm-wlm slurm-client munge slurmdbd mariadb-server  the Slurm executor's test cluster (scripts/slurm-cluster.sh)
#       qemu-user                                          another x86-64 CPU, emulated (a Haswell: AVX2, no AVX-512), for the cross-CPU test
#   - npm ci (onnxruntime-node's CUDA download is skipped by .npmrc)
#   - faiss-node: the prebuilt binary when it loads, else a build against libfaiss-dev
# Skip the apt part with CSPIPE_SKIP_APT=1 (e.g. when you manage packages yourself).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

APT_PACKAGES=(python3-torch python3-numpy python3-sentencepiece libopenblas0-pthread libfaiss-dev python3-faiss liblucene8-java default-jre-headless unzip bzip2 g++ make patch chromium fonts-dejavu-core slurm-wlm slurm-client munge slurmdbd mariadb-server qemu-user)

log() { echo "setup: $*" >&2; }

if [ "${CSPIPE_SKIP_APT:-0}" != "1" ] && command -v apt-get >/dev/null 2>&1; then
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    if [ "$(id -u)" != "0" ]; then
      if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        log "error: missing packages ${missing[*]} and not root; install them and rerun with CSPIPE_SKIP_APT=1"; exit 1
      fi
    fi
    log "apt-get install ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

# Install scripts are skipped: faiss-node's would download a prebuilt binary or git-clone
# faiss (both fail offline and would abort the install); it is handled just below.
log "npm ci"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
# With internet, faiss-node's own install fetches its prebuilt binary; offline this fails
# quickly and setup-faiss.sh builds it against Debian's libfaiss-dev instead.
if [ "${CSPIPE_OFFLINE:-0}" != "1" ]; then
  timeout 120 npm rebuild faiss-node --loglevel=silent >/dev/null 2>&1 || log "faiss-node prebuilt binary unavailable; building it locally"
fi

bash scripts/setup-faiss.sh
log "done"
