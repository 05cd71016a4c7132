"""``info`` and ``check`` on IQM files, without Blender: every corpus file's counts, meshes, anims
(frames, rate, loop flag) and joints against an independent struct reading (support/iqm_files.py); the
``.iqm.framegroups`` beside a model read as DarkPlaces reads it; a broken file's error naming it; IQM
members of a ``.pk3`` listed and checked. ``convert --to iqm`` (it needs bpy) writes a file back."""
from __future__ import annotations

import json
import struct
import zipfile

import pytest
from support.environment import CORPUS, corpus_params, needs_bpy
from support.iqm_files import build, cstr, header_at, reference_read
from support.iqm_meshes import small_model

IQM_FILES = corpus_params("iqm/**/*.iqm")
LOOP = 1                                      # iqm.h IQM_LOOP


def _expected(data: bytes) -> dict:
    ref = reference_read(data)
    h, text = ref["header"], ref["text"]
    return {
        "counts": {"joints": h["num_joints"], "meshes": h["num_meshes"], "vertices": h["num_vertexes"],
                   "triangles": h["num_triangles"], "poses": h["num_poses"], "frames": h["num_frames"],
                   "anims": h["num_anims"]},
        "meshes": [{"name": cstr(text, m[0]), "material": cstr(text, m[1]), "vertices": m[3], "triangles": m[5]}
                   for m in ref["meshes"]],
        "anims": [{"name": cstr(text, a[0]), "first": a[1], "frames": a[2], "rate": a[3], "loop": bool(a[4] & LOOP)}
                  for a in ref["anims"]],
        "joints": [{"name": cstr(text, j[0]), "parent": j[1]} for j in ref["joints"]]}


def test_info_of_every_corpus_iqm_against_a_struct_reading(run):
    if IQM_FILES[0].values[0] is None:
        pytest.skip(f"no IQM corpus under {CORPUS}")
    result = run("info", "--json", CORPUS / "iqm", block_bpy=True)
    assert result.returncode == 0, result.stderr
    files = {item["file"]: item for item in json.loads(result.stdout)["files"]}
    assert len(files) == len(IQM_FILES)
    for param in IQM_FILES:
        path = param.values[0]
        item, expected = files[str(path)], _expected(path.read_bytes())
        assert (item["format"], item["version"], item["size"]) == ("iqm", 2, path.stat().st_size)
        assert item["counts"] == expected["counts"], path
        assert item["details"]["meshes"] == expected["meshes"], path
        assert item["details"]["anims"] == expected["anims"], path
        assert item["joints"] == expected["joints"], path
        assert item["readable"] and not item["limits_exceeded"], path


def test_info_lines_of_an_animated_file(run):
    path = CORPUS / "iqm/redeclipse/data/john/target/move.iqm"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    anim = _expected(path.read_bytes())["anims"][0]
    result = run("info", path, block_bpy=True)
    assert result.returncode == 0, result.stderr
    last = anim["first"] + anim["frames"] - 1
    loop = "loops" if anim["loop"] else "plays once"
    assert f"anim 0 '{anim['name']}': frames {anim['first']}-{last} ({anim['frames']}) at {anim['rate']:g} fps, " \
           f"{loop}" in result.stdout
    assert "within DarkPlaces, FTE and Warsow's limits" in result.stdout


def test_framegroups_beside_the_model_are_its_animations(run, tmp_path):
    """DarkPlaces: fps 20 and loop 1 when absent, ``groupified_<n>_anim`` without a name, a line without
    a count skipped, a group past the frames bounded, ``//`` a comment."""
    data, facts = build()
    (tmp_path / "m.iqm").write_bytes(data)
    (tmp_path / "m.iqm.framegroups").write_text("// the walk\n0 3 12.5 0 walk\n\n3 1\n2\n1 9 30 1 \"far out\"\n")
    result = run("info", "--json", tmp_path / "m.iqm", block_bpy=True)
    item = json.loads(result.stdout)["files"][0]
    assert item["details"]["groups"] == [
        {"name": "walk", "first": 0, "frames": 3, "rate": 12.5, "loop": False},
        {"name": "groupified_1_anim", "first": 3, "frames": 1, "rate": 20.0, "loop": True},
        {"name": "far out", "first": 1, "frames": len(facts["frames"]) - 1, "rate": 30.0, "loop": True}]
    assert [a["name"] for a in item["animations"]] == ["walk", "groupified_1_anim", "far out"]
    messages = [p["message"] for p in item["problems"]]
    assert "m.iqm.framegroups: 1 line without a frame count skipped, as DarkPlaces skips them" in messages
    assert any("1 group past the model's 4 frames bounded" in m for m in messages)


def test_check_names_a_broken_file_and_the_field(run, tmp_path):
    data, _ = build()
    broken = bytearray(data)
    struct.pack_into("<I", broken, header_at("num_triangles"), 99)
    path = tmp_path / "broken.iqm"
    path.write_bytes(bytes(broken))
    result = run("check", path, block_bpy=True)
    assert result.returncode == 1
    assert f"{path}: error: num_triangles" in result.stdout


def test_iqm_members_of_a_pk3_listed_and_checked(run, tmp_path):
    data, _ = build()
    cut = data[:200]
    archive = tmp_path / "models.pk3"
    with zipfile.ZipFile(archive, "w") as pk3:
        pk3.writestr("models/good.iqm", data)
        pk3.writestr("models/cut.iqm", cut)
    listed = run("list", archive, block_bpy=True)
    assert listed.returncode == 0, listed.stderr
    assert f"{len(data)}  models/good.iqm" in listed.stdout and f"{len(cut)}  models/cut.iqm" in listed.stdout
    checked = run("check", archive, block_bpy=True)
    assert f"{archive}:models/cut.iqm: error: filesize" in checked.stdout
    assert "checked 2 file(s): 1 clean, 0 with warnings, 1 with errors" in checked.stdout


def test_darkplaces_limits_listed(run, tmp_path):
    """A float position array DarkPlaces cannot use (here a short one): the file exceeds its limits."""
    data, facts = build()
    changed = bytearray(data)
    at = facts["offsets"]["vertexarrays"]                  # array 0: position, float x 3 -> short x 3 (6 bytes)
    struct.pack_into("<I", changed, at + 8, 2)
    path = tmp_path / "short.iqm"
    path.write_bytes(bytes(changed))
    result = run("info", path, block_bpy=True)
    assert "exceeds DarkPlaces, FTE and Warsow's limits:" in result.stdout
    assert "vertex array in a format DarkPlaces ignores (position)" in result.stdout


def test_convert_to_iqm_writes_an_iqm_back_byte_for_byte(run, tmp_path):
    """``convert`` runs the IQM import and export operators in a worker: the file comes back as it was."""
    needs_bpy()
    data, _ = build()
    source = tmp_path / "in" / "model.iqm"
    source.parent.mkdir()
    source.write_bytes(data)
    result = run("convert", source, "--to", "iqm", "-o", tmp_path / "out")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "out" / "model.iqm").read_bytes() == data


def test_convert_passes_merge_meshes_to_the_import(run, tmp_path):
    """``--import-option merge_meshes=true``: the three meshes come in as one object, which the MD3 export
    writes as a surface per material (``<file>_meshes_<material>``: the import made ``skin.tga`` for body and
    head, ``iqm`` for tail's empty name); without it, a surface per mesh object. To IQM the file comes back."""
    needs_bpy()
    data = small_model()
    source = tmp_path / "in" / "small.iqm"
    source.parent.mkdir()
    source.write_bytes(data)
    surfaces = {}
    for merge in ("true", "false"):
        out = tmp_path / merge
        result = run("convert", source, "--to", "md3", "-o", out, "--import-option", f"merge_meshes={merge}")
        assert result.returncode == 0, result.stdout + result.stderr
        info = run("info", "--json", out / "small.md3", block_bpy=True)
        surfaces[merge] = sorted(s["name"] for s in json.loads(info.stdout)["files"][0]["details"]["surfaces"])
    assert surfaces == {"true": ["small_meshes_iqm", "small_meshes_skin.tga"], "false": ["body", "head", "tail"]}
    result = run("convert", source, "--to", "iqm", "-o", tmp_path / "iqm", "--import-option", "merge_meshes=true")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "iqm" / "small.iqm").read_bytes() == data
