"""Fuzzing the IQM import operator, as the other formats' are (``test_fuzz_blender.py``,
``test_fuzz_md5_md3.py``): seeded mutations of small IQM files (tests/iqm/test_iqm_fuzz.py makes them)
imported through ``bpy.ops.import_scene.iqm`` (``FUZZ_BLENDER_CASES``, default 40): each import finishes
or reports an ERROR without a traceback, leaves every ``bpy.data`` count, the markers and the scene's
timing as they were, and a finished one leaves nothing once its objects are deleted."""
from __future__ import annotations

import os
import random

import pytest
from support import fuzzing_blender
from support.iqm_files import mutate, seed_files

CASES = int(os.environ.get("FUZZ_BLENDER_CASES", "40"))
SEED = int(os.environ.get("FUZZ_SEED", "0"))
SHOWN = 10


def test_fuzzed_iqm_files_import_or_report_and_leave_nothing(bpy_scene, tmp_path):
    bpy = bpy_scene
    operator = fuzzing_blender.import_operator(bpy, "iqm")
    if operator is None:
        pytest.skip("bpy.ops.import_scene.iqm is not registered in this build of the extension")
    fuzzing_blender.purge_orphans(bpy)
    baseline = fuzzing_blender.data_counts(bpy)
    rng = random.Random(SEED)
    files = seed_files()
    outcomes: dict[str, int] = {}
    failures = []
    for i in range(CASES):
        path = tmp_path / f"case{i:04d}.iqm"
        path.write_bytes(bytes(mutate(rng, rng.choice(files))) if i % 4 else rng.choice(files))
        outcome, detail = fuzzing_blender.import_outcome(bpy, operator, path)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if outcome not in ("finished", "error"):
            failures.append(f"case {i} [{outcome}]: {detail[-600:]}")
        path.unlink()
    assert not failures, (f"{len(failures)} of {CASES} IQM imports misbehaved (FUZZ_SEED={SEED}), outcomes "
                          f"{outcomes}:\n" + "\n".join(failures[:SHOWN]))
    assert outcomes.get("finished") and outcomes.get("error"), outcomes
    assert fuzzing_blender.data_counts(bpy) == baseline
