"""Batch conversion workers: one Blender per worker converting file after file, the scene emptied
cheaply between files (``cli/scene_reset.py``), with the same outputs as each file converted alone;
the progress rate, the largest files first, and failures one line per kind of problem.

The state compared after each file is every property of every data-block (``support/blend_state.py``)
against the empty home file's; the outputs byte for byte (glb included: Blender's glTF exporter
writes no time stamps).
"""
from __future__ import annotations

import importlib
import io
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from support.environment import corpus, needs_bpy

# one of each source format, each setting what a conversion changes: MD2/MDL frames and markers at
# 10 fps, an MS3D animation baked at 10 fps for MD2/MDL, MD3 and MD5 with their skins
SAMPLES = ("md2/petaaar88-zarlag/weapon.md2", "mdl/slipgate/missile.mdl", "ms3d/sge/zombie.ms3d",
           "md3/openarena085/models/powerups/ammo_player.md3", "md5/redeclipse/data/unnamed/door03/mesh.md5mesh")
BAKE_FPS = 10.0     # cli/main.py's rate for a skeletal source written to a frame format


def _modules(extension: str) -> dict:
    return {name: importlib.import_module(f"{extension}.{name}")
            for name in ("cli.convert", "cli.scene_reset", "cli.inspect", "formats.table")}


def _job(modules, source: Path, output: Path, target: str):
    convert = modules["cli.convert"]
    fmt = modules["cli.inspect"].model_format(source)
    fps = BAKE_FPS if not modules["formats.table"].row(fmt).named_frames and target in convert.frame_formats() else None
    return convert.ConvertJob(str(source), fmt, str(output), convert.ConvertSettings(target, fps=fps))


def _run(modules, job, empty_scene=None) -> str:
    try:
        modules["cli.convert"].convert(job, empty_scene)
    except modules["cli.convert"].ConvertError as exc:
        return f"error: {exc}"
    return "ok"


@pytest.mark.parametrize("target", ["glb", "md2", "mdl"])
def test_one_worker_converts_file_after_file_as_each_alone(extension, tmp_path, target):
    import bpy
    if target == "glb" and bpy.app.version < (4, 3, 0):
        pytest.skip("the bpy 4.2 wheel crashes when its Python exits after a glTF export ran in it (a cube "
                    "exported alone does it), which would fail the whole run; glb batches on 4.2 are "
                    "tested through the command line's own worker processes")
    from support.blend_state import blend_state, differences
    modules = _modules(extension)
    alone, batch = {}, {}
    for relative in SAMPLES:     # each alone: the empty home file read first, as before the workers
        bpy.ops.wm.read_homefile(use_empty=True)
        alone[relative] = _run(modules, _job(modules, corpus(relative), tmp_path / "alone" / _name(relative, target),
                                             target))
    reset = modules["cli.scene_reset"].SceneReset()
    home = blend_state(reset.collections)
    for relative in SAMPLES:
        batch[relative] = _run(modules, _job(modules, corpus(relative), tmp_path / "batch" / _name(relative, target),
                                             target), reset.clean)
        assert reset.clean(), f"{relative}: the cheap reset left something and read the home file"
        assert differences(home, blend_state(reset.collections)) == [], f"after {relative}"
    assert reset.home_reads == 1
    assert batch == alone
    assert sum(state == "ok" for state in batch.values()) >= 4
    for relative, state in alone.items():
        if state == "ok":
            name = _name(relative, target)
            assert (tmp_path / "batch" / name).read_bytes() == (tmp_path / "alone" / name).read_bytes(), relative


def _name(relative: str, target: str) -> str:
    return relative.replace("/", "_").rsplit(".", 1)[0] + "." + target


def test_removing_the_data_blocks_alone_would_leave_the_scene_changed(extension, tmp_path):
    """What the reset puts back besides the data-blocks is seen by the state comparison, and a reset that
    cannot clean cheaply (another scene was added, a .blend output became the current file) reads the
    home file instead."""
    from support.blend_state import blend_state, differences

    import bpy
    modules = _modules(extension)
    reset = modules["cli.scene_reset"].SceneReset()
    home = blend_state(reset.collections)
    job = _job(modules, corpus("md2/petaaar88-zarlag/weapon.md2"), tmp_path / "weapon.mdl", "mdl")
    assert _run(modules, job, reset.clean) == "ok"
    bpy.data.batch_remove(reset._added())
    left = "\n".join(differences(home, blend_state(reset.collections)))
    assert "/scenes/Scene/frame_end" in left and "/scenes/Scene/render/fps" in left and "timeline_markers" in left
    assert reset.clean() and differences(home, blend_state(reset.collections)) == []
    bpy.data.scenes.new("another")
    assert not reset.clean() and reset.home_reads == 2
    assert differences(home, blend_state(reset.collections)) == []
    job = _job(modules, corpus("mdl/slipgate/missile.mdl"), tmp_path / "missile.blend", "blend")
    assert _run(modules, job, reset.clean) == "ok" and bpy.data.filepath == str(tmp_path / "missile.blend")
    assert not reset.clean() and reset.home_reads == 3, "the saved .blend is the current file: read the home file"
    assert differences(home, blend_state(reset.collections)) == []


def test_a_batch_runs_the_largest_files_first_and_shows_its_rate(run, tmp_path):
    """One worker (-j 1) converts a mixed batch: the largest inputs first, progress lines with the rate,
    the outputs byte for byte each file's converted alone; two files failing alike are one line."""
    needs_bpy()
    tree = tmp_path / "in"
    for relative in SAMPLES[:4]:
        target = tree / relative.split("/")[0] / Path(relative).name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(corpus(relative), target)
    weapon = corpus("md2/petaaar88-zarlag/weapon.md2").read_bytes()
    for name in ("broken.md2", "broken2.md2"):
        (tree / "bad" / name).parent.mkdir(exist_ok=True)
        (tree / "bad" / name).write_bytes(weapon[:1000])
    result = run("convert", tree, "--to", "glb", "-o", tmp_path / "batch", "-j", "1", "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    lines = result.stderr.splitlines()
    done = [line for line in lines if line.startswith("[")]
    order = [re.match(r"\[\d+/\d+\] (?:FAILED )?(.+?)(?: -> |: )", line).group(1) for line in done]
    sizes = [Path(source).stat().st_size for source in order]
    assert len(order) == 6 and sizes == sorted(sizes, reverse=True), "largest first: " + ", ".join(order)
    assert any(line.startswith("progress: 6/6 files, ") and " files/s, 2 failed" in line for line in lines), lines
    assert report["summary"]["files_per_second"] > 0
    assert report["summary"]["problems"] == [
        {"problem": "ofs_end: offset 64: file is truncated: ofs_end is 58560, file has 1000 bytes",
         "files": [str(tree / "bad" / "broken.md2"), str(tree / "bad" / "broken2.md2")]}]
    assert f"  2 files: ofs_end: offset 64: file is truncated: ofs_end is 58560, file has 1000 bytes " \
           f"({tree / 'bad' / 'broken.md2'}, {tree / 'bad' / 'broken2.md2'})" in lines
    for relative in SAMPLES[:4]:     # each alone, in a process of its own
        source = tree / relative.split("/")[0] / Path(relative).name
        alone = run("convert", source, "--to", "glb", "-o", tmp_path / "alone", "-j", "1")
        assert alone.returncode == 0, alone.stdout
        output = Path(relative).with_suffix(".glb").name
        assert (tmp_path / "alone" / output).read_bytes() == \
            (tmp_path / "batch" / relative.split("/")[0] / output).read_bytes(), relative


# --- pieces in process ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def batch_module(package_path):
    sys.path.insert(0, str(package_path))
    try:
        yield importlib.import_module("classic_models.cli.batch"), importlib.import_module("classic_models.cli.convert")
    finally:
        sys.path.remove(str(package_path))


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_shows_files_done_the_total_and_the_rate(batch_module):
    batch, convert = batch_module
    clock = _Clock()
    err = _Terminal()
    progress = batch.Progress(12, _Terminal(), err, clock=clock)
    progress.start(2)
    for number in range(12):
        clock.now += 0.25
        progress.update(convert.ConvertResult(f"m{number}.md2", f"m{number}.glb", ok=number != 3, error="bad"))
    assert err.getvalue().rsplit("\r", 1)[1].startswith("\x1b[K[########################] 12/12 failed 1 4.0 files/s")
    out = io.StringIO()
    progress = batch.Progress(12, out, io.StringIO(), clock=clock)
    progress.start(2)
    for number in range(12):
        clock.now += 0.5
        progress.update(convert.ConvertResult(f"m{number}.md2", f"m{number}.glb", ok=True))
    rates = [line for line in out.getvalue().splitlines() if line.startswith("progress:")]
    assert rates == ["progress: 10/12 files, 2.0 files/s", "progress: 12/12 files, 2.0 files/s"]


def test_failures_are_one_line_per_kind_of_problem(batch_module):
    batch, convert = batch_module
    anims = [convert.ConvertResult(f"/m/{name}.md5anim", None, ok=False,
                                   error=f"an .md5anim holds no mesh and no {name}.md5mesh lies beside it")
             for name in ("idle", "walk", "run", "jump")]
    truncated = [convert.ConvertResult(f"/m/{name}", None, ok=False, error=f"ofs_end: file has {size} bytes")
                 for name, size in (("a.md2", 10), ("b.md2", 2000))]
    died = convert.ConvertResult("/m/c.mdl", None, ok=False, error="the worker process died (exit code -11)\nmore")
    lines = batch.failure_lines(anims + truncated + [died])
    assert lines == [
        "4 files: an .md5anim holds no mesh and no <name>.md5mesh lies beside it "
        "(/m/idle.md5anim, /m/walk.md5anim, /m/run.md5anim and 1 more)",
        "2 files: ofs_end: file has N bytes (/m/a.md2, /m/b.md2)",
        "/m/c.mdl: the worker process died (exit code -11)"]
    summary = batch.summary(anims + truncated + [died], 3.5, 2, "glb")
    assert summary[0] == "7 file(s) to glb: 0 converted, 7 failed in 3.5 s, 2.0 files/s (2 workers)"
    assert summary[1:] == ["failed:", *(f"  {line}" for line in lines)]


def test_a_worker_has_its_next_job_before_it_ends_one_and_a_crash_passes_it_on(batch_module, monkeypatch, tmp_path):
    """The parent sends each worker its next job ahead (so it never waits for the parent's turn on a busy
    machine); a worker that dies fails only the job it was on, and the job waiting for it goes to a new
    worker. The workers here are ``support/fake_worker.py`` (no Blender)."""
    batch, convert = batch_module
    from support.fake_worker import fake_worker_main
    monkeypatch.setattr(batch, "worker_main", fake_worker_main)
    names = ["a.md2", "crash.md2", "b.md2", "c.md2"]     # no such files: size 0, sent in this order
    jobs = [convert.ConvertJob(str(tmp_path / n), "md2", str(tmp_path / "out" / n), convert.ConvertSettings("glb"))
            for n in names]
    results = batch.run_jobs(jobs, 1, batch.Progress(4, io.StringIO(), io.StringIO(), quiet=True))
    assert [Path(r.source).name for r in results] == names
    assert [r.warnings for r in results if r.ok] == [["next job waiting: True"], ["next job waiting: True"],
                                                     ["next job waiting: False"]]
    assert not results[1].ok and results[1].error.startswith("the worker process died (exit code 3)")



def test_a_folder_converts_each_md5_model_once_with_its_anim(run, tmp_path):
    """A directory argument takes a .md5mesh with the .md5anim beside it as one model: the anim is not a
    second input (alone it would write the mesh's output again, or fail: an anim holds no mesh)."""
    needs_bpy()
    tree = tmp_path / "in"
    tree.mkdir()
    for name in ("banner.md5mesh", "banner.md5anim"):
        shutil.copy(corpus(f"md5/redeclipse/data/luckystrike/banner01/{name}"), tree / name)
    result = run("convert", tree, "--to", "glb", "-o", tmp_path / "out", "-j", "1", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert [Path(entry["source"]).name for entry in report["results"]] == ["banner.md5mesh"], report["results"]
    alone = run("convert", tree / "banner.md5mesh", "--to", "glb", "-o", tmp_path / "alone", "-j", "1")
    assert alone.returncode == 0, alone.stdout
    assert (tmp_path / "out" / "banner.glb").read_bytes() == (tmp_path / "alone" / "banner.glb").read_bytes()
