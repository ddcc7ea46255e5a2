#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build, serve and test watchlab, and nothing
# that is already there (every step checks first, so a second run takes seconds).
# Only the package registries are reachable: crates.io, Debian, npm. Facts behind each step:
# shared/TOOLCHAIN.md (verified on these machines).
#
# Sourced by ./x; after it, `wasm_env` exports what a wasm32 build needs on this machine.
set -euo pipefail

WASM_BINDGEN_VERSION=0.2.130 # must equal the `wasm-bindgen = "=…"` pin in Cargo.toml
TRUNK_VERSION=0.21.14        # 0.22 needs rustc >= 1.96.1, which these machines do not have
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STAMPS="$ROOT/target/.setup"
export PATH="$HOME/.cargo/bin:$ROOT/node_modules/.bin:$PATH"
mkdir -p "$STAMPS"

say() { printf '[setup] %s\n' "$*" >&2; }

APT_UPDATED=0
apt_install() {
  # $@: Debian packages; installs the missing ones only.
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if [ "$APT_UPDATED" -eq 0 ]; then
    say "apt-get update"
    apt_retry $sudo apt-get update -qq
    APT_UPDATED=1
  fi
  say "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt_retry $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# Runs an apt-get command, waiting while another apt or dpkg holds its locks (a fresh machine's
# unattended upgrades, or a second setup running at once): up to 10 minutes, then fails.
apt_retry() {
  local try err
  err=$(mktemp)
  for try in $(seq 1 40); do
    if "$@" -o DPkg::Lock::Timeout=15 2>"$err"; then
      rm -f "$err"
      return 0
    fi
    grep -qi "lock" "$err" || break
    say "apt busy (another apt or dpkg holds its lock); retrying in 15 s ($try/40)"
    sleep 15
  done
  cat "$err" >&2
  rm -f "$err"
  return 1
}

# 1. The wasm32 standard library: rustup's download (way A), else Debian's rustc-web with
#    its std sources and -Zbuild-std (way B). The choice is remembered in target/.setup/wasm-mode.
setup_wasm_target() {
  if [ -f "$STAMPS/wasm-mode" ]; then
    WASM_MODE=$(cat "$STAMPS/wasm-mode")
    if [ "$WASM_MODE" = A ] && rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then return 0; fi
    if [ "$WASM_MODE" = B ] && [ -x /usr/bin/rust-lld ] && [ -d /usr/lib/rustlib/src/rust/library ]; then return 0; fi
  fi
  if command -v rustup >/dev/null 2>&1; then
    if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown ||
      { say "rustup target add wasm32-unknown-unknown"; timeout 120 rustup target add wasm32-unknown-unknown; }; then
      WASM_MODE=A
      echo A >"$STAMPS/wasm-mode"
      return 0
    fi
  fi
  say "rustup could not provide wasm32: using Debian's rustc-web with build-std"
  apt_install rustc-web cargo-web rust-web-src rust-web-llvm lld-22
  WASM_MODE=B
  echo B >"$STAMPS/wasm-mode"
}

# Exports the environment for a wasm32 build (trunk, wasm-bindgen-test) in the chosen way.
wasm_env() {
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
  if [ "${WASM_MODE:-A}" = B ]; then
    export PATH="/usr/bin:$PATH" # Debian's cargo, not the rustup shim
    export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
    export RUSTC_BOOTSTRAP=1 # lets the stable compiler take -Z flags
    export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
    export CARGO_TARGET_DIR="$ROOT/target/wasm-debian"
  fi
}

# 2. Tools installed with cargo (into ~/.cargo/bin, kept between clones).
setup_cargo_tools() {
  if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
    # No --locked: its lock file names a crate version the registry here does not have.
    say "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
    cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
  fi
  if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
    # --locked: without it the resolver picks a lightningcss/cssparser pair that does not compile.
    say "cargo install trunk $TRUNK_VERSION (takes several minutes once)"
    cargo install -q trunk --version "$TRUNK_VERSION" --locked --force
  fi
}

# 3. Browser and end-to-end driver: Debian's Chromium + ChromeDriver, npm's playwright-core
#    (which uses that Chromium; it downloads no browser) and binaryen's wasm-opt.
setup_browser() {
  # A CJK font, so the Chinese texts render in screenshots instead of boxes.
  apt_install chromium chromium-driver fonts-wqy-microhei
  local want
  want=$(sha256sum "$ROOT/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$STAMPS/npm" 2>/dev/null)" != "$want" ] || [ ! -d "$ROOT/node_modules/playwright-core" ]; then
    say "npm ci"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    echo "$want" >"$STAMPS/npm"
  fi
}

# 4. The clients the HTTP server's tests drive: Debian's etcd-client (etcdctl 3.4), and the
#    official Kubernetes clients (crates/apiserver-http/tests/official_clients.rs): PyPI's `kubernetes` in a virtual environment, and npm's
#    `@kubernetes/client-node` 2.x with npm's `node` 22 package (client-node needs Node >= 22.19,
#    newer than Debian 12's; the package installs the Node binary from the npm registry).
setup_clients() {
  local dir="$ROOT/crates/apiserver-http/tests/clients" out="$ROOT/target/clients" want
  # The real etcdctl (3.4) against `--etcd-port` (crates/apiserver-http/tests/etcdctl.rs).
  apt_install etcd-client
  want=$(sha256sum "$dir/requirements.txt" | cut -d' ' -f1)
  if [ "$(cat "$STAMPS/python-clients" 2>/dev/null)" != "$want" ] || [ ! -x "$out/python/bin/python" ]; then
    say "python3 -m venv target/clients/python; pip install -r requirements.txt (kubernetes, kr8s, lightkube)"
    rm -rf "$out/python"
    # Debian's python3 makes venvs only with python3-venv (its ensurepip is split off).
    if ! python3 -m venv "$out/python" >/dev/null 2>&1; then
      rm -rf "$out/python"
      apt_install python3-venv
      python3 -m venv "$out/python"
    fi
    "$out/python/bin/pip" install -q --disable-pip-version-check -r "$dir/requirements.txt"
    echo "$want" >"$STAMPS/python-clients"
  fi
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$STAMPS/node-clients" 2>/dev/null)" != "$want" ] || [ ! -x "$out/node/node_modules/.bin/node" ]; then
    say "npm ci in target/clients/node (@kubernetes/client-node, node 22)"
    rm -rf "$out/node"
    mkdir -p "$out/node"
    cp "$dir/package.json" "$dir/package-lock.json" "$out/node/"
    (cd "$out/node" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    echo "$want" >"$STAMPS/node-clients"
  fi
}

# 5. A real etcd for the ledger's rival row (crates/bench/benches/etcd.rs, `./x bench etcd`):
#    Debian 12's etcd-server (3.4.23). The bench starts its own etcd on free loopback ports with a
#    temporary data directory; a service the package may start is left alone.
setup_etcd() {
  apt_install etcd-server
}

setup_all() {
  setup_wasm_target
  setup_cargo_tools
  setup_browser
}
