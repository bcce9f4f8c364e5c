#!/usr/bin/env bash
# Makes sure the machine services the test suite talks to are present and running.
# Idempotent; safe to run on a developer machine (it installs nothing that is there).
set -uo pipefail

# Chromium, for the console's browser tests (driven by playwright-core; no browser download).
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "${CHROMIUM_PATH}" ]; then
  echo "ci-services: chromium at ${CHROMIUM_PATH}"
elif command -v chromium >/dev/null 2>&1; then
  echo "ci-services: $(chromium --version 2>/dev/null || echo chromium present)"
elif command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "ci-services: installing chromium"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends chromium >/tmp/ci-services-apt.log 2>&1; then
    apt-get update >>/tmp/ci-services-apt.log 2>&1 || true
    apt-get install -y --no-install-recommends chromium >>/tmp/ci-services-apt.log 2>&1 || { tail -20 /tmp/ci-services-apt.log; echo "ci-services: could not install chromium" >&2; exit 1; }
  fi
  echo "ci-services: $(chromium --version 2>/dev/null)"
else
  echo "ci-services: no chromium and no way to install it here; the console's browser tests need it (set CHROMIUM_PATH)" >&2
  [ "${CI:-}" = "true" ] && exit 1
fi
exit 0
