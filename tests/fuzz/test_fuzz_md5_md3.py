"""Fuzzing the MD5 text reader and the MD3 reader, as the classic formats are (``tests/support/fuzzing_md5_md3.py``
says how the cases are made): each reader decodes a case or raises FormatError, and what decodes writes and
reads back (``FUZZ_CODEC_CASES`` per format, default 300); through ``bpy.ops.import_scene.md5`` (the mesh with
its anim beside it) and ``bpy.ops.import_scene.md3`` each import (``FUZZ_BLENDER_CASES``, default 40) finishes
or reports an ERROR without a traceback and leaves every ``bpy.data`` count, the markers and the scene's
timing as they were. A case that does not return within :data:`CASE_LIMIT` seconds (a loop walked for ever:
a joint its own ancestor once hung the MD5 import) fails the test instead of hanging the run; the limit is a
guard far above any case's cost, never a speed check. More cases: ``tools/fuzz_campaign.py --format md5``."""
from __future__ import annotations

import os
import signal
from contextlib import contextmanager
from itertools import islice

import pytest
from support import fuzzing_blender, fuzzing_md5_md3

CODEC_CASES = int(os.environ.get("FUZZ_CODEC_CASES", "300"))
CASES = int(os.environ.get("FUZZ_BLENDER_CASES", "40"))
SEED = int(os.environ.get("FUZZ_SEED", "0"))
CASE_LIMIT = 120
SHOWN = 10


class CaseHung(BaseException):
    """Not an Exception: no handler of the importer catches it on its way out."""


@contextmanager
def time_guard(name: str):
    def alarm(signum, frame):
        raise CaseHung(f"{name}: no result after {CASE_LIMIT} s")
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(CASE_LIMIT)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("fmt", fuzzing_md5_md3.KINDS)
def test_fuzzed_text_and_binary_read_or_are_refused(fmt):
    failures, outcomes = [], {}
    for case in islice(fuzzing_md5_md3.iter_cases(fmt, SEED), CODEC_CASES):
        with time_guard(case.name):
            result = fuzzing_md5_md3.run_codec_case(case)
        outcomes[result.outcome] = outcomes.get(result.outcome, 0) + 1
        if result.outcome not in ("parsed", "refused"):
            failures.append(f"{case.name}: {result.detail}")
    assert not failures, f"{len(failures)} of {CODEC_CASES} {fmt} cases (FUZZ_SEED={SEED}), outcomes {outcomes}:\n" \
        + "\n".join(failures[:SHOWN])
    assert outcomes.get("parsed") and outcomes.get("refused"), outcomes     # the mutations reach both sides


@pytest.mark.parametrize("fmt", fuzzing_md5_md3.KINDS)
def test_fuzzed_files_import_or_report_and_leave_nothing(bpy_scene, tmp_path, fmt):
    bpy = bpy_scene
    operator = fuzzing_blender.import_operator(bpy, fmt)
    if operator is None:
        pytest.skip(f"bpy.ops.import_scene.{fmt} is not registered in this build of the extension")
    fuzzing_blender.purge_orphans(bpy)
    baseline = fuzzing_blender.data_counts(bpy)
    outcomes: dict[str, int] = {}
    failures = []
    for i, case in enumerate(islice(fuzzing_md5_md3.iter_cases(fmt, SEED), CASES)):
        path = fuzzing_md5_md3.write_case(case, tmp_path, f"case{i:04d}")
        with time_guard(case.name):
            outcome, detail = fuzzing_blender.import_outcome(bpy, operator, path)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if outcome not in ("finished", "error"):
            failures.append(f"{case.name} [{outcome}]: {detail[-600:]}")
        fuzzing_md5_md3.remove_case(path)
    assert not failures, (f"{len(failures)} of {CASES} {fmt} imports misbehaved (FUZZ_SEED={SEED}), "
                          f"outcomes {outcomes}:\n" + "\n".join(failures[:SHOWN]))
    assert outcomes.get("finished") and outcomes.get("error"), outcomes
    assert fuzzing_blender.data_counts(bpy) == baseline
