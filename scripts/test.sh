#!/usr/bin/env bash
# The one command for a fresh checkout: set up what is missing, then run every test tier.
#   scripts/test.sh              all tiers (unit, models, e2e)
#   scripts/test.sh -m unit ...  any pytest arguments are passed on
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Debian packages, .venv, the package with its test extras and the small dev models
# (idempotent: a second run changes nothing).
scripts/install.sh --dev

# The slow install test (install.sh for real in a debootstrap Debian 12 root, ~6 minutes) is
# part of the whole suite; APPLIANCE_INSTALL_E2E=0 skips it on a quick local run.
export APPLIANCE_INSTALL_E2E="${APPLIANCE_INSTALL_E2E:-1}"
# So is the hub in a room (its echo back in its microphone, interrupted at a normal voice, ~2 minutes);
# APPLIANCE_ROOM_E2E=0 skips it.
export APPLIANCE_ROOM_E2E="${APPLIANCE_ROOM_E2E:-1}"

# Tests start and stop the services they need themselves (PulseAudio, journald). They run side by side, a
# process per core (at most 4), each test file whole in one of them, taken in the order tests/conftest.py
# gives (not pytest-xdist's, biggest file first); a test marked `alone` has the machine to itself
# (tests/fixtures/alone.py); `-n 0` runs them one after another. The slowest tests are named after every
# run, and the time of each tier and of the slowest files (tests/fixtures/durations.py), so a suite that
# grows is seen to grow.
exec "$ROOT/.venv/bin/python" -m pytest --numprocesses auto --maxprocesses 4 --dist loadfile --no-loadscope-reorder \
  --durations=25 "$@"
