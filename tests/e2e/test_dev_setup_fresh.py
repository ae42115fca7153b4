"""`scripts/install.sh --dev` on a fresh copy of the checkout with an empty home and cache: as a new machine.

The only thing handed over is the llama.cpp compile (minutes): the wheel this checkout's own
set-up built goes in through APPLIANCE_LLAMA_WHEEL, the way a build lands in the wheel cache. The
cache lookup, the cache folder, the venv, every pip download and the checks all run from nothing.
The first run is begun as the tests are collected, beside the others (tests/fixtures/fresh_setup.py).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Final

import pytest

from tests.fixtures.fresh_setup import FreshSetUp, install
from tests.fixtures.waits import SLOW_WAIT_S

AGAIN_TIMEOUT_S: Final = 300
BROKEN_TIMEOUT_S: Final = 600
DEAD_INDEX: Final = "http://127.0.0.1:9/simple/"  # the discard port: nothing listens, refused at once

pytestmark = pytest.mark.e2e


def test_set_up_from_nothing_then_again_then_with_a_dead_index(fresh_set_up: FreshSetUp) -> None:
    checkout, env, first = fresh_set_up.checkout, fresh_set_up.env, fresh_set_up.first
    cache = Path(env["XDG_CACHE_HOME"])
    out = first.stdout + first.stderr
    assert first.returncode == 0, out[-4000:]
    assert ("no llama-cpp-python wheel built with these flags on this system yet "
            f"(looked in {cache}/appliance/wheels/llama-") in out
    assert "using the wheel handed over in APPLIANCE_LLAMA_WHEEL" in out
    assert len(list((cache / "appliance/wheels").glob("llama-*/llama_cpp_python-*.whl"))) == 1
    # tried on a real prompt of the development model before it went into the venv
    assert re.search(r"trying the build on a real prompt of \S+\.gguf before installing it\n.*ran a 96-token prompt", out)
    assert (checkout / ".venv/.appliance-dev-stamp").is_file()
    version = subprocess.run([str(checkout / ".venv/bin/appliance"), "--version"], capture_output=True, text=True,
                             timeout=SLOW_WAIT_S, env=env, check=False)
    assert version.returncode == 0 and version.stdout.startswith("appliance "), version.stdout + version.stderr
    assert (checkout / ".cache/install-dev.log").read_text().count("llama.cpp ran a 96-token prompt") == 1

    again = install(checkout, env, AGAIN_TIMEOUT_S)
    assert again.returncode == 0, (again.stdout + again.stderr)[-4000:]
    assert "nothing changed: everything was already installed" in again.stdout
    assert "handed over" not in again.stdout

    # The index out of reach: the step that needed it is named, with what to do, never a bare exit.
    (checkout / ".venv/.appliance-dev-stamp").unlink()
    dead = {**env, "PIP_INDEX_URL": DEAD_INDEX, "PIP_EXTRA_INDEX_URL": "", "PIP_FIND_LINKS": "", "PIP_RETRIES": "0",
            "PIP_TIMEOUT": "5"}
    broken = install(checkout, dead, BROKEN_TIMEOUT_S)
    assert broken.returncode != 0
    assert "llama-cpp-python wheel already built" in broken.stdout  # the cache is found, no second build
    assert 'ERROR in step "3c/5 pip install -e .' in broken.stderr, broken.stderr[-3000:]
    assert "package index cannot be reached" in broken.stderr
