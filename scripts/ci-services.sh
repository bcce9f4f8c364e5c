#!/usr/bin/env bash
# Makes sure the machine services the test suite talks to are present and running.
# Idempotent; safe to run on a developer machine.
set -uo pipefail
echo "ci-services: nothing required yet"
