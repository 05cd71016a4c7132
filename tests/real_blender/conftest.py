"""The real-Blender GUI session, run once per Debian root (sid: Blender 5.2.x, trixie: 4.3.x) per pytest run.

Collected only when CLASSIC_MODELS_REAL_BLENDER=1 (tools/dev.sh test sets it for its "real Blender" stage,
after the bpy matrix), so the three bpy-wheel runs do not start it. CLASSIC_MODELS_REAL_BLENDER_ONLY (scenario
names, comma-separated) runs only those scenarios (with make_scene), for working on one with ``-k``.
"""
from __future__ import annotations

import json
import os
import sys
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


@pytest.fixture(scope="session", params=sorted(SUITES))
def session(request) -> Session:
    suite = request.param
    if driver.root_path(suite) is None:
        pytest.skip(f"no Debian {suite} root with Blender {SUITES[suite]}: run 'bash tools/debian_root.sh ensure {suite}' "
                    "(needs root and debootstrap)")
    out = CHECKOUT / "out" / "real_blender" / suite
    info = driver.run_session(suite, out, os.environ.get("CLASSIC_MODELS_REAL_BLENDER_ONLY", ""))
    return Session(suite, out, info)
