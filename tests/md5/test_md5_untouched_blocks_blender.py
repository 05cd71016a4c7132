"""An untouched imported MD5 whose export samples nothing builds neither the rest pose nor the blocks (issue
44, the MD5 export's speed): the engines' limits and the report's lines on the blocks (how many, the vertices
without a weight, those with more than four) come from what the import counted in its MD5_MESH_KEYS record
(``common/md5/keys.py`` ``mesh_record``; ``exporters/md5/build.py``). Every corpus ``.md5mesh`` with the
anims of its folder, and small files of the weight cases (one with a vertex whose only weight is 0): the
export with the rest-pose reader counting its calls writes the same files and the same report lines as an
export of the same scene whose record lacks the counts (an import from before them: the blocks built, as
before), and reads no rest pose unless it samples an anim. Fails on the old code, which read the rest pose
and built the blocks on every export."""
from __future__ import annotations

import json
from importlib import import_module

import pytest
from support.environment import CORPUS, corpus_files
from support.md5_weight_cases import CASES, PLAIN, block, md5mesh

MESHES = [pytest.param(p, id=str(p.relative_to(CORPUS / "md5"))) for p in corpus_files("md5/**/*.md5mesh")] or \
    [pytest.param(None, marks=pytest.mark.skip(reason=f"no .md5mesh in the corpus at {CORPUS}"))]
SMALL = {**CASES, "weight-zero": md5mesh([block({**PLAIN, 1: [(1, 0.0, 0.0)]})])}


def _files(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _watch(monkeypatch, extension) -> dict[str, list]:
    """The report lines of each export (warnings, info), the rest-pose reads and the anims sampled."""
    seen: dict[str, list] = {"lines": [], "rest": [], "sampled": []}
    export = import_module(f"{extension}.exporters.md5.export")
    build = import_module(f"{extension}.exporters.md5.build")
    pose = import_module(f"{extension}.exporters.md5.pose")

    def built(*args, original=export.build_md5):
        result = original(*args)
        seen["lines"].append((list(result.warnings), list(result.info)))
        return result

    def rest(*args, original=build.read_rest_meshes):
        seen["rest"].append(True)
        return original(*args)

    def sample(context, armature, frames, *args, original=pose._channels_now):
        seen["sampled"].append(frames[0].action)
        return original(context, armature, frames, *args)
    monkeypatch.setattr(export, "build_md5", built)
    monkeypatch.setattr(build, "read_rest_meshes", rest)
    monkeypatch.setattr(pose, "_channels_now", sample)
    return seen


def _both(bpy, monkeypatch, extension, folder, name: str) -> dict[str, list]:
    """Exports twice, to ``folder``/counted and ``folder``/built (the record's counts taken out before)."""
    rig = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    seen = _watch(monkeypatch, extension)
    assert bpy.ops.export_scene.md5(filepath=str(folder / "counted" / name), use_selection=False) == {"FINISHED"}
    reads, sampled = len(seen["rest"]), bool(seen["sampled"])
    assert reads == (1 if sampled else 0)
    record = json.loads(rig["md5_mesh_keys"])
    assert {"blocks", "unweighted", "loose"} <= set(record)
    rig["md5_mesh_keys"] = json.dumps({k: v for k, v in record.items() if k not in ("blocks", "unweighted", "loose")})
    assert bpy.ops.export_scene.md5(filepath=str(folder / "built" / name), use_selection=False) == {"FINISHED"}
    assert len(seen["rest"]) == reads + 1       # the record from before the counts: the blocks built
    assert _files(folder / "counted") == _files(folder / "built")
    assert seen["lines"][0] == seen["lines"][1]
    return seen


@pytest.mark.parametrize("path", MESHES)
def test_an_untouched_export_builds_no_blocks(bpy_scene, extension, tmp_path, monkeypatch, path):
    bpy = bpy_scene
    assert bpy.ops.import_scene.md5(filepath=str(path), find_anims="FOLDER") == {"FINISHED"}
    _both(bpy, monkeypatch, extension, tmp_path, path.name)
    assert (tmp_path / "counted" / path.name).read_bytes() == path.read_bytes()


@pytest.mark.parametrize("case", sorted(SMALL))
def test_the_weight_cases_report_as_before(bpy_scene, extension, tmp_path, monkeypatch, case):
    bpy = bpy_scene
    source = tmp_path / "thing.md5mesh"
    source.write_bytes(SMALL[case])
    assert bpy.ops.import_scene.md5(filepath=str(source)) == {"FINISHED"}
    seen = _both(bpy, monkeypatch, extension, tmp_path / "out", source.name)
    assert (tmp_path / "out" / "counted" / source.name).read_bytes() == SMALL[case]
    if case == "weight-zero":
        assert "1 vertices have no bone weight: tied to the first joint" in seen["lines"][0][0]
