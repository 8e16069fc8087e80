#!/usr/bin/env bash
# Make `require("faiss-node")` work on a machine without internet access.
#
# faiss-node's own install script downloads a prebuilt binary and, failing that, git-clones
# faiss and builds it with cmake-js. Both need internet. Users with internet get the prebuilt
# binary and this script does nothing. Otherwise it builds the addon against Debian's
# libfaiss-dev (faiss 1.7.3, static libfaiss.a) with node-gyp, offline:
#   1. apt-installs libfaiss-dev, libopenblas0-pthread (search is ~25x slower with the
#      reference BLAS) and the build tools, if missing (as root, or with passwordless sudo);
#   2. obtains the faiss-node package (normally already in node_modules after
#      `npm ci --ignore-scripts` or after a failed install script; otherwise it runs
#      `npm install --no-save --ignore-scripts faiss-node@0.5.1`);
#   3. copies scripts/faiss/binding.gyp into the package and applies the patches in
#      scripts/faiss/ (idempotent: an applied patch is detected and skipped);
#   4. runs `node-gyp rebuild --nodedir=<node's prefix>` (node-gyp from npm; no downloads);
#   5. verifies with a tiny add + search.
#
# Usage: bash scripts/setup-faiss.sh [--force] [--check]
#   --check  only report whether faiss-node loads and works (exit 0 / 1)
#   --force  rebuild even if faiss-node already works
# Environment: FAISS_STATIC_LIB, FAISS_INCLUDE_DIR override the system faiss paths.
set -euo pipefail

FAISS_NODE_VERSION="0.5.1"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HERE="$ROOT/scripts/faiss"
APT_PACKAGES=(libfaiss-dev libopenblas0-pthread)
BUILD_PACKAGES=(g++ make python3 patch)

FORCE=0
CHECK_ONLY=0
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    --check) CHECK_ONLY=1 ;;
    -h|--help) sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup-faiss: unknown argument '$arg' (use --force, --check or --help)" >&2; exit 2 ;;
  esac
done

log() { echo "setup-faiss: $*" >&2; }
die() {
  echo "setup-faiss: error: $1" >&2
  if [ -n "${2:-}" ]; then echo "setup-faiss: fix: $2" >&2; fi
  exit 1
}

# Loads faiss-node from the project root, adds 3 vectors to an IndexFlatIP and checks the top hit.
works() {
  (cd "$ROOT" && node -e '
    const faiss = require("faiss-node");
    const ix = new faiss.IndexFlatIP(2);
    ix.add([1, 0, 0, 1, 0.6, 0.8]);
    const r = ix.search([0.6, 0.8], 2);
    if (ix.ntotal() !== 3 || r.labels[0] !== 2 || Math.abs(r.distances[0] - 1) > 1e-6) {
      console.error("faiss-node loaded but returned a wrong result: " + JSON.stringify(r));
      process.exit(1);
    }
  ' 2>"${1:-/dev/null}")
}

if works; then
  if [ "$CHECK_ONLY" = 1 ]; then log "faiss-node loads and searches correctly"; exit 0; fi
  if [ "$FORCE" = 0 ]; then
    log "faiss-node already works (prebuilt binary or an earlier build); nothing to do (--force rebuilds)"
    exit 0
  fi
elif [ "$CHECK_ONLY" = 1 ]; then
  die "faiss-node does not load or does not work" "run: bash scripts/setup-faiss.sh"
fi

# ---- 1. system packages -------------------------------------------------------------------
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo "$@"
  else return 1
  fi
}

apt_install() {
  # apt may be busy (unattended upgrades, another install): retry for up to ~5 minutes.
  local attempt
  for attempt in $(seq 1 30); do
    if as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"; then return 0; fi
    if ! as_root true 2>/dev/null; then return 1; fi
    log "apt-get failed (attempt $attempt/30; apt may be locked); retrying in 10 s"
    sleep 10
  done
  return 1
}

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
for tool in "${BUILD_PACKAGES[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 \
    || die "missing ${missing[*]} and this is not a Debian/Ubuntu system" \
           "install faiss (headers + static libfaiss.a), OpenBLAS and a C++17 compiler, then set FAISS_STATIC_LIB and FAISS_INCLUDE_DIR"
  log "installing ${missing[*]} with apt-get"
  apt_install "${missing[@]}" \
    || die "could not apt-get install ${missing[*]} (not root, no passwordless sudo, or apt failed)" \
           "sudo apt-get install -y ${missing[*]}   then rerun bash scripts/setup-faiss.sh"
fi

MULTIARCH="$(gcc -print-multiarch 2>/dev/null || true)"
export FAISS_STATIC_LIB="${FAISS_STATIC_LIB:-/usr/lib/${MULTIARCH:-x86_64-linux-gnu}/libfaiss.a}"
export FAISS_INCLUDE_DIR="${FAISS_INCLUDE_DIR:-/usr/include}"
[ -f "$FAISS_STATIC_LIB" ] || die "static faiss library not found at $FAISS_STATIC_LIB" \
  "apt-get install -y libfaiss-dev, or set FAISS_STATIC_LIB to your libfaiss.a"
[ -f "$FAISS_INCLUDE_DIR/faiss/IndexFlat.h" ] || die "faiss headers not found under $FAISS_INCLUDE_DIR/faiss" \
  "apt-get install -y libfaiss-dev, or set FAISS_INCLUDE_DIR"

# ---- 2. the faiss-node package ------------------------------------------------------------
pkg_dir() { (cd "$ROOT" && node -p 'require("path").dirname(require.resolve("faiss-node/package.json"))' 2>/dev/null); }
PKG="$(pkg_dir || true)"
if [ -z "$PKG" ]; then
  log "faiss-node is not in node_modules; installing faiss-node@$FAISS_NODE_VERSION without its install script"
  (cd "$ROOT" && npm install --no-save --ignore-scripts "faiss-node@$FAISS_NODE_VERSION") \
    || die "npm could not install faiss-node@$FAISS_NODE_VERSION" \
           "check access to the npm registry, then run: npm ci --ignore-scripts && bash scripts/setup-faiss.sh"
  PKG="$(pkg_dir || true)"
  [ -n "$PKG" ] || die "faiss-node still not resolvable from $ROOT after npm install" "run: npm ci --ignore-scripts"
fi
VERSION="$(node -p "require('$PKG/package.json').version")"
if [ "$VERSION" != "$FAISS_NODE_VERSION" ]; then
  log "warning: found faiss-node $VERSION, the binding.gyp and patches here were made for $FAISS_NODE_VERSION"
fi
[ -f "$PKG/src/faiss.cc" ] || die "$PKG/src/faiss.cc is missing (incomplete package)" \
  "rm -rf '$PKG' && npm ci --ignore-scripts && bash scripts/setup-faiss.sh"
(cd "$PKG" && node -e 'require("node-addon-api"); require("bindings")' 2>/dev/null) \
  || die "faiss-node's dependencies node-addon-api / bindings are not installed" "run: npm ci --ignore-scripts"

# ---- 3. binding.gyp and patches -----------------------------------------------------------
if [ -f "$PKG/binding.gyp" ] && ! cmp -s "$PKG/binding.gyp" "$HERE/binding.gyp" && [ ! -f "$PKG/binding.gyp.orig" ]; then
  cp "$PKG/binding.gyp" "$PKG/binding.gyp.orig"
fi
cp "$HERE/binding.gyp" "$PKG/binding.gyp"

# faiss >= 1.7.4 declares faiss::idx_t at namespace level; 1.7.3 only has faiss::Index::idx_t.
needs_idx_patch() { ! grep -Eq '^[[:space:]]*using[[:space:]]+idx_t[[:space:]]*=' "$FAISS_INCLUDE_DIR/faiss/MetricType.h" 2>/dev/null; }
for patch_file in "$HERE"/*.patch; do
  [ -e "$patch_file" ] || continue
  name="$(basename "$patch_file")"
  if [[ "$name" == *idx_t* ]] && ! needs_idx_patch; then
    log "skipping $name (system faiss already declares faiss::idx_t)"
    continue
  fi
  if (cd "$PKG" && patch -p1 -R --dry-run -s -f <"$patch_file" >/dev/null 2>&1); then
    log "patch $name already applied"
  elif (cd "$PKG" && patch -p1 -N -s -f <"$patch_file"); then
    log "applied patch $name"
  else
    die "patch $name does not apply to $PKG" "reinstall the package (rm -rf '$PKG' && npm ci --ignore-scripts) and rerun"
  fi
done

# ---- 4. build -----------------------------------------------------------------------------
NODE_GYP=""
for candidate in \
  "$ROOT/node_modules/node-gyp/bin/node-gyp.js" \
  "$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js" \
  "$(npm root -g 2>/dev/null)/npm/node_modules/node-gyp/bin/node-gyp.js"; do
  if [ -f "$candidate" ]; then NODE_GYP="$candidate"; break; fi
done
[ -n "$NODE_GYP" ] || die "node-gyp not found (it ships with npm)" "reinstall npm, or npm install -g node-gyp"

NODEDIR="$(node -p 'require("path").resolve(process.execPath, "..", "..")')"
GYP_ARGS=(rebuild)
if [ -f "$NODEDIR/include/node/common.gypi" ] && [ -f "$NODEDIR/include/node/node_api.h" ]; then
  GYP_ARGS+=("--nodedir=$NODEDIR")
else
  log "warning: no Node headers under $NODEDIR/include/node; node-gyp will try to download them"
fi

BUILD_LOG="$(mktemp -t setup-faiss-build.XXXXXX.log)"
log "building $PKG with node-gyp ${GYP_ARGS[*]} (log: $BUILD_LOG)"
if ! (cd "$PKG" && node "$NODE_GYP" "${GYP_ARGS[@]}") >"$BUILD_LOG" 2>&1; then
  tail -n 30 "$BUILD_LOG" >&2
  die "node-gyp build failed (full log: $BUILD_LOG)" \
      "check that libfaiss-dev matches faiss-node $FAISS_NODE_VERSION's expectations and that g++ supports C++17"
fi

# ---- 5. verify ----------------------------------------------------------------------------
ERR_LOG="$(mktemp -t setup-faiss-check.XXXXXX.log)"
if ! works "$ERR_LOG"; then
  cat "$ERR_LOG" >&2
  die "faiss-node was built but does not load or search correctly" "see the error above and $BUILD_LOG"
fi
ADDON="$PKG/build/Release/faiss-node.node"
if command -v ldd >/dev/null 2>&1 && ! ldd "$ADDON" | grep -q openblas; then
  log "warning: $ADDON does not use OpenBLAS; search will be much slower (apt-get install -y libopenblas0-pthread)"
fi
rm -f "$BUILD_LOG" "$ERR_LOG"
log "faiss-node $VERSION built against $FAISS_STATIC_LIB and verified (add + search)"
