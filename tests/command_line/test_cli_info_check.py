"""The command line's ``info`` and ``check``, run as a user runs them: ``python -m classic_models ...`` in a
subprocess with bpy blocked, on the corpus and on models built here (summaries, JSON against the codecs, the
field and offset of each problem, the engines' limits, skins, usage errors); and, in process, ``check`` warns
as the importers do.

The package is made importable the way an installed extension's parent folder would be: a temporary
folder on PYTHONPATH holding a ``classic_models`` link to the checkout.
"""
from __future__ import annotations

import importlib
import json
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest
from support.environment import CORPUS, corpus, corpus_files, corpus_params
from support.md2_synthetic import grid_model

from formats.md2.codec import parse_md2, serialize_md2
from formats.mdl.codec import parse_mdl

BAD_MD2 = {"malformed_zero_numvertices.md2": ("num_xyz", 24), "ratamahatta.md2": ("ofs_end", 64)}
# a Red Eclipse anim (md5/redeclipse/.../player) of anims alone whose header counts 3110 vertices no array holds:
# Red Eclipse plays it, DarkPlaces refuses it (a warning, formats/iqm/codec.py)
ANIMS_ALONE_IQM = "reload_pistol.iqm"


def pack_models(pak: Path) -> list[str]:
    """The MD2/MDL/MS3D member names of a PACK, read with struct (first entry of a name wins)."""
    data = pak.read_bytes()
    magic, offset, length = struct.unpack_from("<4sii", data, 0)
    assert magic == b"PACK"
    names = [data[offset + i:offset + i + 56].split(b"\0")[0].decode("latin-1") for i in range(0, length, 64)]
    return list(dict.fromkeys(n for n in names if Path(n).suffix.lower() in (".md2", ".mdl", ".ms3d")))


# --- info ---------------------------------------------------------------------------------------

def test_info_summarises_an_md2_player(run):
    path = corpus("md2/petaaar88-zarlag/tris.md2")
    result = run("info", path, block_bpy=True)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Quake II MD2 version 8, 303988 bytes" in out
    assert "vertices 345, triangles 674, frames 198, skins 1" in out
    assert "models/maxx/skin.pcx: MISSING" in out
    # Quake II's 20 player animations (m_player.h): pain101..pain304 and death101..death308 are three each
    assert "animations (20):" in out and "stand    frames 0-39 (40)" in out and "pain1    frames 54-57 (4)" in out
    assert "death1   frames 178-183 (6)" in out and "death3   frames 190-197 (8)" in out
    assert "within Quake II's limits" in out


def test_info_reports_found_skins_mdl_groups_and_ms3d_joints(run):
    weapon, flame, zombie = (corpus(p) for p in ("md2/petaaar88-zarlag/weapon.md2", "mdl/librequake/flame.mdl",
                                                  "ms3d/sge/zombie.ms3d"))
    result = run("info", weapon, flame, zombie, block_bpy=True)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"found {weapon.parent / 'WEAPON.PCX'}" in out
    assert "frame groups 1" in out and "flame  frames 0-5 (6)" in out and "30230 trailing bytes ignored" in out
    assert "MilkShape 3D MS3D version 4" in out and "joints (19)" in out
    assert f"found {zombie.parent / 'zombie.tga'}" in out


def test_info_json_matches_the_codecs(run):
    if not corpus_files("md2/*/*.md2"):
        pytest.skip(f"corpus not found at {CORPUS}")
    result = run("info", "--json", CORPUS, block_bpy=True)
    assert result.returncode == 1, "the corpus holds two unreadable MD2 files"
    files = {f["file"]: f for f in json.loads(result.stdout)["files"]}
    loose = (corpus_files("*/*/*.md2") + corpus_files("*/*/*.mdl") + corpus_files("*/*/*.ms3d")
             + corpus_files("md3/**/*.md3") + corpus_files("md5/**/*.md5mesh") + corpus_files("md5/**/*.md5anim")
             + corpus_files("**/*.iqm"))
    # a folder's archives are inspected too: every model member of the corpus's paks
    assert set(files) == {str(p) for p in loose} | {f"{pak}:{name}" for pak in corpus_files("pak/*/*.pak")
                                                      for name in pack_models(pak)}
    for path in corpus_files("md2/*/*.md2"):
        item = files[str(path)]
        if path.name in BAD_MD2:
            assert not item["readable"]
            error = item["problems"][0]
            assert (error["severity"], error["field"], error["offset"]) == ("error", *BAD_MD2[path.name])
            continue
        model = parse_md2(path.read_bytes())
        assert item["readable"] and item["format"] == "md2" and item["version"] == 8
        assert item["counts"]["vertices"] == model.num_vertices
        assert item["counts"]["frames"] == model.num_frames
        assert sum(a["frames"] for a in item["animations"]) == model.num_frames
    for path in corpus_files("mdl/*/*.mdl"):
        model = parse_mdl(path.read_bytes())
        item = files[str(path)]
        assert item["counts"]["poses"] == model.num_poses
        assert [a["last"] for a in item["animations"]][-1] == model.num_poses - 1


def _importer_warnings(bpy, extension: str, path: Path) -> list[str] | None:
    """What the extension's importer warns about for ``path`` (None if it has no importer for it)."""
    fmt = path.suffix.lower()[1:]
    try:
        module = importlib.import_module(f"{extension}.importers.{fmt}.{fmt}_import")
    except ModuleNotFoundError:
        return None
    bpy.ops.wm.read_homefile(use_empty=True)
    result = getattr(module, f"import_{fmt}")(bpy.context, path, getattr(module, f"{fmt.capitalize()}ImportOptions")())
    return [w.removeprefix(f"{path.name}: ") for w in result.warnings]


@pytest.mark.parametrize("path", corpus_params("md2/*/*.md2") + corpus_params("mdl/*/*.mdl")
                         + corpus_params("ms3d/*/*.ms3d"))
def test_check_warns_as_the_importer_does(cli_modules, bpy_scene, extension, path):
    """Every importer warning is a check warning; check adds only the engine's limits and "no drawable
    triangles" (the importer already warns about each degenerate triangle)."""
    inspect = cli_modules["inspect"]
    info = inspect.inspect_file(path)
    if not info.readable:
        with pytest.raises(Exception) as refused:
            _importer_warnings(bpy_scene, extension, path)
        assert type(refused.value).__name__ == "FormatError"
        assert str(refused.value).endswith(info.problems[0].message)
        return
    expected = _importer_warnings(bpy_scene, extension, path)
    if expected is None:
        pytest.skip(f"the extension has no {info.format} importer yet")
    ours = [p.message for p in info.problems]
    assert set(expected) <= set(ours)
    assert {m for m in ours if m not in info.limits_exceeded and not m.startswith("no drawable triangles")} \
        <= set(expected)
    if info.format == "ms3d" and info.joints:
        assert info.animations[0].last == bpy_scene.context.scene.frame_end


# --- check --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(BAD_MD2))
def test_check_names_field_and_offset_of_a_bad_md2(run, name):
    matches = [p for p in corpus_files("md2/*/*.md2") if p.name == name]
    if not matches:
        pytest.skip(f"corpus file {name} not found under {CORPUS}")
    field, offset = BAD_MD2[name]
    result = run("check", matches[0], block_bpy=True)
    assert result.returncode == 1
    assert f"{matches[0]}: error: {field} @ offset {offset}: " in result.stdout
    assert "checked 1 file(s): 0 clean, 0 with warnings, 1 with errors" in result.stdout


def test_check_clean_files_exit_zero(run):
    paths = [corpus("mdl/librequake/player.mdl"), corpus("md2/assimp/faerie.md2")]
    result = run("check", *paths, block_bpy=True)
    assert result.returncode == 0, result.stdout
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "checked 2 file(s): 2 clean, 0 with warnings, 0 with errors"
    assert all(": skin " in line and ": found " in line for line in lines[:-1]), "only skin lines before the summary"


def test_check_warnings_fail_unless_told_otherwise(run, tmp_path):
    gun = tmp_path / "alone" / "gun.md2"
    gun.parent.mkdir()
    shutil.copy(corpus("md2/irrlicht/gun.md2"), gun)  # without gun.jpg beside it, the stored skin is missing
    result = run("check", gun, block_bpy=True)
    assert result.returncode == 1
    assert f"{gun}: warning: skin 0 @ offset 68: skin 'models/weapons/v_machn/skin.pcx' not found" in result.stdout
    assert run("check", "--fail-on", "error", gun, block_bpy=True).returncode == 0
    assert run("check", "--no-skins", gun, block_bpy=True).returncode == 0


def test_check_json_lists_every_problem(run):
    if not corpus_files("md2/*/*.md2"):
        pytest.skip(f"corpus not found at {CORPUS}")
    result = run("check", "--json", CORPUS, block_bpy=True)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    by_name = {Path(f["file"]).name: f for f in report["files"] if ".pak:" not in f["file"]}
    for name, (field, offset) in BAD_MD2.items():
        assert by_name[name]["status"] == "error"
        assert by_name[name]["problems"][0]["field"] == field and by_name[name]["problems"][0]["offset"] == offset
    null = by_name["null.mdl"]
    assert null["status"] == "warning" and "not a multiple of 4" in null["problems"][0]["message"]
    assert report["summary"]["files"] == len(report["files"])
    anims_alone = by_name[ANIMS_ALONE_IQM]
    assert anims_alone["status"] == "warning"
    assert [p["message"] for p in anims_alone["problems"]] == [
        "no usable position, texcoord, blend indexes, blend weights array: DarkPlaces refuses the model (missing "
        "vertex array data)"]
    # and the truncated progs/null.mdl of the quess pak, inspected with the folder
    assert report["summary"]["error"] == len(BAD_MD2) + len(corpus_files("pak/quess/pak0.pak"))
    for item in report["files"]:
        for problem in item["problems"]:
            assert set(problem) == {"severity", "message", "field", "offset"}


def test_check_reports_engine_limits_and_dropped_triangles(run, tmp_path):
    model = grid_model(frames=513)
    model.frame_normals[3, 5] = 200
    model.tri_xyz[2] = (1, 1, 2)
    path = tmp_path / "big.md2"
    path.write_bytes(serialize_md2(model))
    result = run("check", "--json", path, block_bpy=True)
    assert result.returncode == 1
    problems = json.loads(result.stdout)["files"][0]["problems"]
    by_field = {p["field"]: p for p in problems}
    assert by_field["num_frames"]["offset"] == 40 and "513 frames exceed Quake II's 512" in by_field["num_frames"]["message"]
    header = np.frombuffer(path.read_bytes(), dtype="<i4", count=17)
    framesize, ofs_tris, ofs_frames = int(header[4]), int(header[13]), int(header[14])
    normal = by_field["frame 3 vertex 5 normal_index"]
    assert normal["offset"] == ofs_frames + 3 * framesize + 40 + 4 * 5 + 3
    assert path.read_bytes()[normal["offset"]] == 200
    assert by_field["triangle 2"]["offset"] == ofs_tris + 2 * 12
    assert all(p["severity"] == "warning" for p in problems)
    info = json.loads(run("info", "--json", path, block_bpy=True).stdout)["files"][0]
    assert len(info["limits_exceeded"]) == 2


def test_usage_errors_exit_two(run, tmp_path):
    assert run("check", tmp_path / "missing.md2", block_bpy=True).returncode == 2
    assert run("info", block_bpy=True).returncode == 2
    assert run("convert", tmp_path, "--to", "obj", block_bpy=True).returncode == 2
    result = run("convert", tmp_path / "x.md2", "--to", "md2", block_bpy=True)
    assert result.returncode == 2 and "needs the bpy module" in result.stderr


@pytest.mark.parametrize("args", [("convert", "", "--to", "md2"), ("convert", "m.md2", "--to", "md2", "-o", ""),
                                  ("info", ""), ("check", " "), ("list", ""), ("pack", "", "-o", "x.pak")])
def test_an_empty_path_is_a_usage_error_not_this_folder(run, tmp_path, args):
    """``convert "$MODEL" --to md2`` with the variable unset gave convert an empty path, which was this folder:
    it converted every model below the current folder (thousands, run from /tmp). Now a usage error."""
    (tmp_path / "m.md2").write_bytes(serialize_md2(grid_model()))
    result = run(*args, block_bpy=True)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "an empty path" in result.stderr and "converting" not in result.stdout, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.md2"]


# --- skins (issue 14) ---------------------------------------------------------------------------

def test_check_lines_say_where_each_md2_skin_is_and_how_its_palette_differs(run, tmp_path):
    from support.image_files import reference_palette, write_pcx
    quake2 = reference_palette("quake2")
    if quake2 is None:
        pytest.skip("reference Quake II palette not found in ../shared/reference")
    folder = tmp_path / "models" / "thing"
    folder.mkdir(parents=True)
    model = grid_model()
    model.skins = ["models/elsewhere/skin.pcx"]
    (folder / "thing.md2").write_bytes(serialize_md2(model))
    indices = np.arange(40, dtype=np.uint8).reshape(4, 10)
    stored = quake2.copy()
    stored[[3, 17, 39]] += np.array([[5, 0, 0], [0, 9, 0], [0, 0, 2]], np.uint8)
    stored[200] = 255 - stored[200]
    write_pcx(folder / "thing.pcx", indices, stored)
    other = grid_model()
    other.skins = ["models/thing/paint.pcx"]
    (folder / "other.md2").write_bytes(serialize_md2(other))
    write_pcx(folder / "paint.pcx", indices, quake2)
    result = run("check", folder, block_bpy=True)
    lines = result.stdout.splitlines()
    thing, paint = folder / "thing.md2", folder / "other.md2"
    assert f"{thing}: skin models/elsewhere/skin.pcx: MISSING (the import shows thing.pcx instead)" in lines
    assert any(l.startswith(f"{thing}: skin thing.pcx (not named by the file): found {folder / 'thing.pcx'}")
               and "the model's own name" in l
               and "3 of the 40 palette entries in use differ from Quake II's by up to 9 of 255" in l for l in lines)
    assert any(l.startswith(f"{paint}: skin models/thing/paint.pcx: found {folder / 'paint.pcx'}")
               and "its 40 palette entries in use match Quake II's" in l for l in lines), result.stdout


def test_info_reports_the_missing_skin_and_no_own_image(run, tmp_path):
    (tmp_path / "flag.md2").write_bytes(serialize_md2(grid_model()))
    (tmp_path / "dolphin.md2").write_bytes(serialize_md2(grid_model()))
    (tmp_path / "dolphin_f.bmp").write_bytes(b"BM")
    result = run("info", tmp_path / "flag.md2", block_bpy=True)
    assert "models/test/skin.pcx: MISSING (see warnings)" in result.stdout
    assert "dolphin_f" not in result.stdout


def test_check_flags_skins_quake2_refuses(run, tmp_path):
    """skinheight over 480 (Mod_LoadAliasModel) and a PCX over 640x480 or 512*256 pixels (LoadPCX,
    GL_Upload8) are limits; a 296x240 skin is clean."""
    from support.image_files import write_pcx
    palette = np.tile(np.arange(256, dtype=np.uint8)[:, None], (1, 3))
    model = grid_model()
    model.skin_width, model.skin_height, model.skins = 1024, 1024, ["big.pcx"]
    tall = tmp_path / "tall" / "tris.md2"
    tall.parent.mkdir()
    tall.write_bytes(serialize_md2(model))
    write_pcx(tall.parent / "big.pcx", np.zeros((500, 300), np.uint8), palette)
    result = run("check", "--json", tall, block_bpy=True)
    assert result.returncode == 1
    problems = json.loads(result.stdout)["files"][0]["problems"]
    header = [p for p in problems if p["field"] == "skinheight"]
    assert header and header[0]["offset"] == 12 and "skin height 1024 exceeds 480" in header[0]["message"]
    pcx = [p["message"] for p in problems if p["field"] == "skin 0"]
    assert any("'big.pcx' height 500 exceeds 480" in m and "LoadPCX" in m for m in pcx)
    assert any("150000 pixels (300x500), over 131072" in m for m in pcx)

    model.skin_width, model.skin_height = 296, 240
    fine = tmp_path / "fine" / "tris.md2"
    fine.parent.mkdir()
    fine.write_bytes(serialize_md2(model))
    write_pcx(fine.parent / "big.pcx", np.zeros((240, 296), np.uint8), palette)
    result = run("check", "--json", fine, block_bpy=True)
    problems = json.loads(result.stdout)["files"][0]["problems"]
    assert not [p for p in problems if "skin" in (p["field"] or "")], problems
