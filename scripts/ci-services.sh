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

# PostgreSQL, for the PostgreSQL store's tests: database "test" on 127.0.0.1:5432, user postgres
# without a password (tests elsewhere: set TOOLGATE_TEST_POSTGRES_URL and this section does nothing).
postgres_problem() {
  echo "ci-services: $1" >&2
  if [ "${CI:-}" = "true" ]; then
    echo "ci-services: CI=true needs PostgreSQL for the store tests; see above" >&2
    exit 1
  fi
  echo "ci-services: the PostgreSQL store tests will be skipped (set TOOLGATE_TEST_POSTGRES_URL to use another server)" >&2
}

postgres_ready() {
  command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432
}

postgres_cluster_start() {
  local version
  version="$(ls /etc/postgresql 2>/dev/null | head -1)"
  [ -n "$version" ] && command -v pg_ctlcluster >/dev/null 2>&1 || return 1
  pg_ctlcluster --skip-systemctl-redirect "$version" main start >/tmp/ci-services-postgres.log 2>&1 \
    || grep -q "already running" /tmp/ci-services-postgres.log
}

# Only on a server this script installed (or under CI): a developer's own server keeps its authentication.
postgres_trust_loopback() {
  local hba
  hba="$(ls /etc/postgresql/*/main/pg_hba.conf 2>/dev/null | head -1)"
  [ -n "$hba" ] || return 1
  if ! grep -Eq '^host[[:space:]]+all[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba"; then
    sed -i '1i host all all 127.0.0.1/32 trust' "$hba"
    pg_ctlcluster --skip-systemctl-redirect "$(basename "$(dirname "$(dirname "$hba")")")" main reload >/dev/null 2>&1 || true
  fi
}

postgres_section() {
  local installed=no
  if [ -n "${TOOLGATE_TEST_POSTGRES_URL:-}" ]; then
    echo "ci-services: PostgreSQL tests use TOOLGATE_TEST_POSTGRES_URL; not starting a local server"
    return 0
  fi
  if ! postgres_ready; then
    if [ -d /etc/postgresql ] && [ -n "$(ls /etc/postgresql 2>/dev/null)" ]; then
      echo "ci-services: starting PostgreSQL"
      postgres_cluster_start || { cat /tmp/ci-services-postgres.log >&2 2>/dev/null; postgres_problem "could not start the installed PostgreSQL (pg_ctlcluster; run as root or the postgres user)"; return 0; }
    elif command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
      echo "ci-services: installing PostgreSQL"
      export DEBIAN_FRONTEND=noninteractive
      if ! apt-get install -y --no-install-recommends postgresql >/tmp/ci-services-apt.log 2>&1; then
        apt-get update >>/tmp/ci-services-apt.log 2>&1 || true
        apt-get install -y --no-install-recommends postgresql >>/tmp/ci-services-apt.log 2>&1 || { tail -20 /tmp/ci-services-apt.log >&2; postgres_problem "could not install postgresql"; return 0; }
      fi
      installed=yes
      postgres_cluster_start || { cat /tmp/ci-services-postgres.log >&2 2>/dev/null; postgres_problem "PostgreSQL was installed but did not start"; return 0; }
    else
      postgres_problem "no PostgreSQL on 127.0.0.1:5432 and no way to install one here (apt-get as root)"
      return 0
    fi
  fi
  local waited=0
  until postgres_ready; do
    if [ "$waited" -ge 30 ]; then
      postgres_problem "PostgreSQL did not answer on 127.0.0.1:5432 within 30 s"
      return 0
    fi
    sleep 1
    waited=$((waited + 1))
  done
  if ! psql -h 127.0.0.1 -U postgres -w -d postgres -tAc 'select 1' >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && { [ "$installed" = "yes" ] || [ "${CI:-}" = "true" ]; }; then
      echo "ci-services: allowing user postgres on 127.0.0.1 without a password (trust)"
      postgres_trust_loopback
      sleep 1
    fi
    if ! psql -h 127.0.0.1 -U postgres -w -d postgres -tAc 'select 1' >/dev/null 2>&1; then
      postgres_problem "PostgreSQL answers on 127.0.0.1:5432 but refuses user postgres without a password (pg_hba.conf)"
      return 0
    fi
  fi
  if [ "$(psql -h 127.0.0.1 -U postgres -w -d postgres -tAc "select 1 from pg_database where datname='test'" 2>/dev/null)" != "1" ]; then
    echo "ci-services: creating database test"
    psql -h 127.0.0.1 -U postgres -w -d postgres -qc 'CREATE DATABASE test' >/dev/null || { postgres_problem "could not create database test"; return 0; }
  fi
  echo "ci-services: $(psql -h 127.0.0.1 -U postgres -w -d test -tAc 'show server_version' 2>/dev/null | sed 's/^/PostgreSQL /') on 127.0.0.1:5432, database test"
}
postgres_section
exit 0
