"""Blender-side GUI session (run inside Blender's window: ``blender --python gui_session.py -- OUT``).

Steps run from ``bpy.app.timers`` (dialogs need the running UI); each scenario is a generator that yields
the seconds until its next step (0: Blender's next loop turn), so X input (xdotool) is handled by Blender in
between; what a step waits for is a state (gui_tools: the loop's turns, the screen settled, a drawn measure).
Results go to OUT/results.json, screenshots (ImageMagick ``import -window root``) to OUT/*.png.
"""
from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path

import bpy

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gui_md5  # noqa: E402
import gui_quickstart  # noqa: E402
import gui_scenarios  # noqa: E402
from gui_tools import COST, LATE, Screen, turns  # noqa: E402

OUT = Path(sys.argv[sys.argv.index("--") + 1])
WORK = OUT / "work"
WORK.mkdir(parents=True, exist_ok=True)
RESULTS: dict = {"blender": bpy.app.version_string, "checks": {}, "seconds": {}, "cost": COST,
                 "script_started": time.time()}    # epoch seconds: session.sh's timings.json has Blender's start
QUICK_START_FROM = (5, 0, 0)   # the Blender the quick start runs in (tests/real_blender/test_quick_start.py)


def record(name: str, ok: bool, **detail) -> None:
    """One named check: ok or not, with what was measured (and the waits that timed out on its way)."""
    if LATE:
        detail["late"] = list(LATE)
        LATE.clear()
    RESULTS["checks"][name] = {"ok": bool(ok), **detail}
    print(f"[real-blender] {'PASS' if ok else 'FAIL'} {name}: {json.dumps(detail, default=str)[:400]}", flush=True)


def run_all():
    screen = Screen(OUT)
    only_file = OUT.parent / "only.txt"
    only = set(filter(None, only_file.read_text().strip().split(","))) if only_file.is_file() else set()
    for scenario in gui_scenarios.SCENARIOS + gui_md5.SCENARIOS + gui_quickstart.SCENARIOS:
        if only and scenario.__name__ not in only | {"make_scene"}:
            continue
        if scenario in gui_quickstart.SCENARIOS and bpy.app.version < QUICK_START_FROM:
            continue        # the quick start's steps and pictures: in the newest Debian Blender only
        name = scenario.__name__
        print(f"[real-blender] scenario {name}", flush=True)
        started = time.monotonic()
        try:
            yield from scenario(screen, WORK, record)
        except Exception:                                   # noqa: BLE001 - reported as a failed check
            record(f"{name}:completed", False, traceback=traceback.format_exc())
            yield from screen.close_file_browsers()
        else:
            record(f"{name}:completed", True)
        RESULTS["seconds"][name] = round(time.monotonic() - started, 1)
        yield from turns()


def main() -> None:
    steps = run_all()

    def tick():
        RESULTS.setdefault("first_step", time.time())
        try:
            return next(steps)
        except StopIteration:
            finish()
        except Exception:                                   # noqa: BLE001
            RESULTS["fatal"] = traceback.format_exc()
            finish()
        return None

    def finish():
        (OUT / "results.json").write_text(json.dumps(RESULTS, indent=1, default=str))
        print("[real-blender] done", flush=True)
        bpy.ops.wm.quit_blender()

    bpy.app.timers.register(tick, first_interval=2.0)


main()
