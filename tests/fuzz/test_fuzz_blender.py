"""Fuzzing the import operators, and importing many files at once.

Each fuzz case (``FUZZ_BLENDER_CASES`` per format, default 40, seeded by ``FUZZ_SEED``) is written
to a file and imported through ``bpy.ops.import_scene.<format>``: the operator finishes, or reports
an ERROR (``RuntimeError`` in Python, without a traceback or "internal error") and leaves every
``bpy.data`` count, the timeline markers and the scene's frame range and rate as they were. A
finished import, once its objects are deleted and orphans purged, leaves nothing behind either. The
corpus skins sit next to the fuzzed files, so skin lookup and image decoding run too. The MS3D
operator is used only when it is registered.
"""
from __future__ import annotations

import os
import shutil
import sys
from itertools import islice
from pathlib import Path

import pytest
from support import fuzzing, fuzzing_blender
from support.blender_helpers import datablock_counts

from formats.errors import FormatError

CASES = int(os.environ.get("FUZZ_BLENDER_CASES", "40"))
SEED = int(os.environ.get("FUZZ_SEED", "0"))
LOAD_FILES = 200
LOAD_RSS_LIMIT = 300 << 20          # 200 small models with shape keys and actions take about 45 MB
CYCLES, CYCLE_FILES = 5, 40
RSS_GROWTH_LIMIT = 30 << 20
SHOWN = 10


def _operator(bpy, fmt: str):
    operator = fuzzing_blender.import_operator(bpy, fmt)
    if operator is None:
        pytest.skip(f"bpy.ops.import_scene.{fmt} is not registered in this build of the extension")
    return operator


def _clean_baseline(bpy) -> dict[str, int]:
    fuzzing_blender.purge_orphans(bpy)
    return fuzzing_blender.data_counts(bpy)


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
def test_fuzzed_files_import_or_report_and_leave_nothing(bpy_scene, tmp_path, fmt):
    bpy = bpy_scene
    operator = _operator(bpy, fmt)
    for image in fuzzing.skin_files(fmt):          # so skin lookups and image decoding get fuzzed too
        shutil.copyfile(image, tmp_path / image.name)
    baseline = _clean_baseline(bpy)
    legacy = datablock_counts(bpy)
    outcomes: dict[str, int] = {}
    failures = []
    for i, case in enumerate(islice(fuzzing.iter_cases(fmt, SEED), CASES)):
        path = tmp_path / f"case{i:04d}.{fmt}"
        path.write_bytes(case.data)
        outcome, detail = fuzzing_blender.import_outcome(bpy, operator, path)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if outcome not in ("finished", "error"):
            failures.append(f"{case.name} [{outcome}]: {detail[-600:]}\n    {fuzzing.hex_snippet(case.data)}")
        path.unlink()
    assert not failures, (f"{len(failures)} of {CASES} {fmt} imports misbehaved (FUZZ_SEED={SEED}), "
                          f"outcomes {outcomes}:\n" + "\n".join(failures[:SHOWN]))
    assert fuzzing_blender.data_counts(bpy) == baseline
    assert datablock_counts(bpy) == legacy


def _small_files(fmt: str, directory: Path, count: int) -> list[str]:
    names = []
    for i, data in enumerate(fuzzing.small_valid_files(fmt, count, SEED)):
        names.append(f"model{i:03d}.{fmt}")
        (directory / names[-1]).write_bytes(data)
    return names


def _import_batch(bpy, operator, directory: Path, names: list[str]):
    return operator(directory=str(directory), files=[{"name": n} for n in names])


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
def test_two_hundred_files_in_one_operation(bpy_scene, tmp_path, fmt):
    bpy = bpy_scene
    operator = _operator(bpy, fmt)
    names = _small_files(fmt, tmp_path, LOAD_FILES)
    baseline = _clean_baseline(bpy)
    objects = {o.session_uid for o in bpy.data.objects}
    rss_before = fuzzing_blender.rss_bytes()
    assert _import_batch(bpy, operator, tmp_path, names) == {"FINISHED"}
    assert len(bpy.data.objects) - len(objects) >= LOAD_FILES
    assert fuzzing_blender.rss_bytes() - rss_before < LOAD_RSS_LIMIT
    fuzzing_blender.remove_new_objects(bpy, objects, set())
    assert fuzzing_blender.data_counts(bpy) == baseline


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
def test_a_batch_with_bad_files_keeps_only_the_good_ones(bpy_scene, tmp_path, fmt):
    bpy = bpy_scene
    operator = _operator(bpy, fmt)
    good = _small_files(fmt, tmp_path, 10)
    bad = []
    for i, name in enumerate(good):
        data = (tmp_path / name).read_bytes()
        (tmp_path / f"bad{i:02d}.{fmt}").write_bytes(data[: len(data) // 2])
        bad.append(f"bad{i:02d}.{fmt}")
    baseline = _clean_baseline(bpy)
    objects = {o.session_uid for o in bpy.data.objects}
    with pytest.raises(RuntimeError, match="bad00") as info:
        _import_batch(bpy, operator, tmp_path, [n for pair in zip(good, bad) for n in pair])
    assert "Traceback" not in str(info.value) and "internal error" not in str(info.value)
    stems = {o.name.split(".")[0] for o in bpy.data.objects if o.session_uid not in objects}
    assert not any(s.startswith("bad") for s in stems)
    assert {f"model{i:03d}" for i in range(10)} <= stems
    fuzzing_blender.remove_new_objects(bpy, objects, set())
    assert fuzzing_blender.data_counts(bpy) == baseline


def test_an_unexpected_error_is_reported_and_undone(bpy_scene, tmp_path, monkeypatch, extension):
    """A bug (not a FormatError) in one file of a batch, raised after that file's import had built
    and linked everything: the file's data is removed, the error is reported without a traceback,
    and the other files still import."""
    bpy = bpy_scene
    module = sys.modules[f"{extension}.importers.md2.operator"]
    real = module.import_md2

    def buggy(context, path, options):
        result = real(context, path, options)
        if path.stem == "model001":
            raise ZeroDivisionError("simulated bug after the build")
        return result
    monkeypatch.setattr(module, "import_md2", buggy)
    names = _small_files("md2", tmp_path, 3)
    baseline = _clean_baseline(bpy)
    objects = {o.session_uid for o in bpy.data.objects}
    with pytest.raises(RuntimeError, match="model001.md2: internal error, please report it: ZeroDivisionError"
                       ) as info:
        _import_batch(bpy, bpy.ops.import_scene.md2, tmp_path, names)
    assert "Traceback" not in str(info.value)
    assert sorted(o.name for o in bpy.data.objects if o.session_uid not in objects) == ["model000", "model002"]
    fuzzing_blender.remove_new_objects(bpy, objects, set())
    assert fuzzing_blender.data_counts(bpy) == baseline


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
def test_repeated_import_and_delete_keeps_memory_steady(bpy_scene, tmp_path, fmt):
    """Five cycles of importing 40 files, deleting them and purging: no orphans after any cycle,
    and the process grows by less than 30 MB after the first one (allocator warm-up)."""
    bpy = bpy_scene
    operator = _operator(bpy, fmt)
    names = _small_files(fmt, tmp_path, CYCLE_FILES)
    baseline = _clean_baseline(bpy)
    objects = {o.session_uid for o in bpy.data.objects}
    rss = []
    for cycle in range(CYCLES):
        assert _import_batch(bpy, operator, tmp_path, names) == {"FINISHED"}
        assert fuzzing_blender.remove_new_objects(bpy, objects, set()) >= CYCLE_FILES
        assert fuzzing_blender.data_counts(bpy) == baseline, f"cycle {cycle}"
        rss.append(fuzzing_blender.rss_bytes())
    growth = max(rss[1:]) - rss[0]
    assert growth < RSS_GROWTH_LIMIT, f"RSS after each cycle (MB): {[r >> 20 for r in rss]}"


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
def test_import_is_one_undo_step(bpy_scene, fmt):
    """Each import operator registers with UNDO, so Blender wraps the whole call (every file of a
    multi-file import) in one undo step. The undo stack itself needs a window, which the headless
    bpy module does not have, so stepping back through it cannot be exercised here."""
    bpy = bpy_scene
    operator = _operator(bpy, fmt)
    cls = bpy.types.Operator.bl_rna_get_subclass_py(operator.idname())
    assert cls is not None and "UNDO" in cls.bl_options


def test_the_load_files_are_valid(tmp_path):
    """The load tests' files are accepted by the codecs, so any refusal there is the importer's."""
    for fmt in fuzzing.FORMATS:
        for name in _small_files(fmt, tmp_path, 20):
            try:
                fuzzing.PARSERS[fmt]((tmp_path / name).read_bytes())
            except FormatError as exc:
                pytest.fail(f"{fmt} {name}: {exc}")
