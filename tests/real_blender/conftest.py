"""The real-Blender GUI session, run once per Debian root (sid: Blender 5.2.x, trixie: 4.3.x) per pytest run.

Collected only when CLASSIC_MODELS_REAL_BLENDER=1 (tools/dev.sh test sets it for its "real Blender" stage,
after the bpy matrix), so the three bpy-wheel runs do not start it. CLASSIC_MODELS_REAL_BLENDER_ONLY (scenario
names, comma-separated) runs only those scenarios (with make_scene), for working on one with ``-k``.

The sessions the collected tests need (the GUI session and the release repository's round, per root) are all
started before the first test, side by side (``started``): each mostly waits on Blender's loop and the screen
(the GUI session uses about a third of a core), so both roots' sessions in parallel take little more than
the longer one; each waits on state (tools/real_blender/gui_tools.py), so a busier machine only slows it.
"""
from __future__ import annotations

import json
import os
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(CHECKOUT / "tools" / "real_blender"))
import driver  # noqa: E402

SUITES = {"sid": "5.2", "trixie": "4.3"}


class Session:
    def __init__(self, suite: str, out: Path, info: dict):
        self.suite, self.out, self.info = suite, out, info
        path = out / "results.json"
        self.results = json.loads(path.read_text()) if path.is_file() else {}
        self.log = (out / "blender.log").read_text(errors="replace") if (out / "blender.log").is_file() else ""

    def check(self, name: str) -> dict:
        """The named check of the session; fails when the session never got to it."""
        checks = self.results.get("checks", {})
        assert name in checks, (f"{self.suite}: the GUI session recorded no check '{name}' "
                                f"(fatal: {self.results.get('fatal')}; see {self.out}/blender.log)")
        return checks[name]


_RUNS: dict[tuple[str, str], Future] = {}      # (fixture, suite) -> the session's run, started once
_POOL = ThreadPoolExecutor(max_workers=4)


def _run(fixture: str, suite: str) -> Future:
    if fixture == "session":
        return _POOL.submit(driver.run_session, suite, CHECKOUT / "out" / "real_blender" / suite,
                            os.environ.get("CLASSIC_MODELS_REAL_BLENDER_ONLY", ""))
    return _POOL.submit(driver.run_repository, suite, CHECKOUT / "out" / "real_blender" / f"{suite}-repository")


def started(request, fixture: str, suite: str) -> Future:
    """The run of ``fixture`` (``session``: the GUI session; ``round_``: the release repository's round) in the
    ``suite`` root. The first call starts every such run the collected tests use in a root that is ready, each
    in a thread of its own (the Blender sessions run side by side)."""
    if not _RUNS:
        wanted = {(name, item.callspec.params[name]) for item in request.session.items if hasattr(item, "callspec")
                  for name in ("session", "round_") if name in item.callspec.params}
        ready = {s for s in SUITES if driver.root_path(s) is not None}
        for name, each in sorted(wanted):
            if each in ready:
                _RUNS[name, each] = _run(name, each)
    if (fixture, suite) not in _RUNS:
        _RUNS[fixture, suite] = _run(fixture, suite)
    return _RUNS[fixture, suite]


def skip_without_root(suite: str) -> None:
    if driver.root_path(suite) is None:
        pytest.skip(f"no Debian {suite} root with Blender {SUITES[suite]}: run 'bash tools/debian_root.sh ensure {suite}' "
                    "(needs root and debootstrap)")


@pytest.fixture(scope="session")
def real_runs():
    """``(request, fixture, suite) -> Future`` and the missing root's skip, for test modules' own fixtures."""
    return started, skip_without_root


@pytest.fixture(scope="session", params=sorted(SUITES))
def session(request) -> Session:
    suite = request.param
    skip_without_root(suite)
    info = started(request, "session", suite).result()
    return Session(suite, CHECKOUT / "out" / "real_blender" / suite, info)
