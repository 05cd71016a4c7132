"""The command line, run as a user runs it: ``python -m classic_models ...`` in a subprocess.

The package is made importable the way an installed extension's parent folder would be: a temporary
folder on PYTHONPATH holding a ``classic_models`` link to the checkout. ``info`` and ``check`` run
with bpy blocked; ``convert`` outputs are read back with the codecs (and a .blend is opened by a
separate bpy process, keeping this one clean).
"""
from __future__ import annotations

import importlib
import io
import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from support.environment import CORPUS, corpus_files, corpus_params, needs_bpy
from formats.animations import group_animations
from formats.md2.codec import parse_md2, serialize_md2
from formats.mdl.codec import parse_mdl
from support.md2_synthetic import grid_model
from support.environment import corpus
from support.glb import glb_json

BAD_MD2 = {"malformed_zero_numvertices.md2": ("num_xyz", 24), "ratamahatta.md2": ("ofs_end", 64)}


def pack_models(pak: Path) -> list[str]:
    """The MD2/MDL/MS3D member names of a PACK, read with struct (first entry of a name wins)."""
    data = pak.read_bytes()
    magic, offset, length = struct.unpack_from("<4sii", data, 0)
    assert magic == b"PACK"
    names = [data[offset + i:offset + i + 56].split(b"\0")[0].decode("latin-1") for i in range(0, length, 64)]
    return list(dict.fromkeys(n for n in names if Path(n).suffix.lower() in (".md2", ".mdl", ".ms3d")))


@pytest.fixture(scope="session")
def cli_modules(package_path):
    """The CLI modules imported through the package, for the few in-process tests."""
    sys.path.insert(0, str(package_path))
    try:
        yield {name: importlib.import_module(f"classic_models.cli.{name}") for name in ("batch", "inspect")}
    finally:
        sys.path.remove(str(package_path))


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
             + corpus_files("md3/**/*.md3"))
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


# --- convert ------------------------------------------------------------------------------------

def test_convert_md2_to_mdl_keeps_frames(run, tmp_path):
    needs_bpy()
    source = corpus("md2/petaaar88-zarlag/tris.md2")
    result = run("convert", source, "--to", "mdl", "-o", tmp_path / "out")
    assert result.returncode == 0, result.stdout + result.stderr
    md2_model = parse_md2(source.read_bytes())
    mdl_model = parse_mdl((tmp_path / "out" / "tris.mdl").read_bytes())
    assert mdl_model.pose_names == md2_model.frame_names
    assert len(mdl_model.triangles) == len(md2_model.tri_xyz)
    assert mdl_model.num_vertices >= md2_model.num_vertices
    assert "1 file(s) to mdl: 1 converted, 0 failed" in result.stdout


def test_convert_mdl_to_md2_with_scale(run, tmp_path):
    needs_bpy()
    source = corpus("mdl/librequake/zombie.mdl")
    result = run("convert", source, "--to", "md2", "-o", tmp_path, "--scale", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    mdl_model = parse_mdl(source.read_bytes())
    md2_model = parse_md2((tmp_path / "zombie.md2").read_bytes())
    assert md2_model.frame_names == mdl_model.pose_names
    assert md2_model.num_vertices == mdl_model.num_vertices
    assert len(md2_model.tri_xyz) == len(mdl_model.triangles)
    expected = mdl_model.positions() * 2
    half_step = md2_model.frame_scale[:, None, :] / 2
    assert np.all(np.abs(md2_model.positions() - expected) <= half_step + 1e-4)


def test_convert_md2_to_glb_has_morph_targets_and_weight_animation(run, tmp_path):
    needs_bpy()
    source = corpus("md2/petaaar88-zarlag/weapon.md2")
    result = run("convert", source, "--to", "glb", "-o", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    gltf = glb_json(tmp_path / "weapon.glb")
    frames = parse_md2(source.read_bytes()).num_frames
    (mesh,) = gltf["meshes"]
    assert all(len(p["targets"]) == frames for p in mesh["primitives"])
    # one glTF animation per animation of the frame table, each at 10 frames a second from 0 s
    names = parse_md2(source.read_bytes()).frame_names
    expected = [(a.name, a.frames) for a in group_animations(names)]
    assert [a["name"] for a in gltf["animations"]] == [name for name, _ in expected]
    for animation, (name, count) in zip(gltf["animations"], expected):
        (channel,) = [c for c in animation["channels"] if c["target"]["path"] == "weights"]
        times = gltf["accessors"][animation["samplers"][channel["sampler"]]["input"]]
        assert times["count"] == count, name
        assert (times["min"][0], times["max"][0]) == pytest.approx((0.0, (count - 1) / 10), abs=1e-3), name
    assert sum(count for _, count in expected) == frames
    assert not list(tmp_path.glob(".*.tmp.glb"))


def test_convert_md2_to_blend_opens_in_blender(run, tmp_path):
    needs_bpy()
    source = corpus("md2/irrlicht/gun.md2")
    result = run("convert", source, "--to", "blend", "-o", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not found" not in result.stdout, "gun.jpg beside the model stands in for the missing stored skin"
    script = (
        "import json, os, sys, tempfile\n"
        "os.environ['BLENDER_USER_RESOURCES'] = tempfile.mkdtemp()\n"
        "import bpy\n"
        "bpy.ops.wm.open_mainfile(filepath=sys.argv[1])\n"
        "obj = bpy.data.objects['gun']\n"
        "scene = bpy.context.scene\n"
        "print('RESULT', json.dumps({'vertices': len(obj.data.vertices), 'polygons': len(obj.data.polygons),\n"
        "    'keys': len(obj.data.shape_keys.key_blocks), 'range': [scene.frame_start, scene.frame_end],\n"
        "    'fps': scene.render.fps, 'markers': sorted(m.name for m in scene.timeline_markers),\n"
        "    'image': [n.image.name for n in obj.data.materials[0].node_tree.nodes if n.type == 'TEX_IMAGE']}))\n")
    opened = subprocess.run([sys.executable, "-c", script, str(tmp_path / "gun.blend")],
                            capture_output=True, text=True, timeout=300)
    assert opened.returncode == 0, opened.stderr
    line = next(l for l in opened.stdout.splitlines() if l.startswith("RESULT "))
    facts = json.loads(line[len("RESULT "):])
    model = parse_md2(source.read_bytes())
    assert facts == {"vertices": model.num_vertices, "polygons": len(model.tri_xyz), "keys": model.num_frames + 1,
                     "range": [1, model.num_frames], "fps": 10, "markers": ["active", "idle", "pow", "putway"],
                     "image": ["gun.jpg"]}


def test_batch_of_a_directory_with_a_corrupt_file(run, tmp_path):
    needs_bpy()
    sources = [corpus("md2/petaaar88-zarlag/weapon.md2"), corpus("md2/glscene/weaponWaste.md2"),
               corpus("mdl/slipgate/missile.mdl")]
    tree = tmp_path / "in"
    (tree / "a").mkdir(parents=True)
    (tree / "b" / "deep").mkdir(parents=True)
    shutil.copy(sources[0], tree / "a" / "weapon.md2")
    shutil.copy(sources[1], tree / "b" / "deep" / "weaponWaste.MD2")
    shutil.copy(sources[2], tree / "missile.mdl")
    (tree / "b" / "broken.md2").write_bytes(sources[0].read_bytes()[:1000])
    (tree / "notes.txt").write_text("not a model")
    result = run("convert", tree, "--to", "md2", "-o", tmp_path / "out", "-j", "2")
    assert result.returncode == 1
    out = result.stdout
    assert "4 file(s) to md2: 3 converted, 1 failed" in out
    failed = out.split("failed:\n", 1)[1]
    assert str(tree / "b" / "broken.md2") in failed and "ofs_end" in failed
    written = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert written == ["a/weapon.md2", "b/deep/weaponWaste.md2", "missile.md2", "missile_skin0.pcx"], \
        "the MDL's skin is written as a PCX skin; the MD2s' skin images were not copied into the tree"
    for original, output in ((sources[0], "a/weapon.md2"), (sources[1], "b/deep/weaponWaste.md2")):
        assert parse_md2((tmp_path / "out" / output).read_bytes()).frame_names == \
            parse_md2(original.read_bytes()).frame_names
    assert parse_md2((tmp_path / "out" / "missile.md2").read_bytes()).num_frames == \
        parse_mdl(sources[2].read_bytes()).num_poses
    assert "[1/4]" in out and "[4/4]" in out, "plain progress lines when stderr is not a terminal"


def test_convert_never_overwrites_its_input(run, tmp_path):
    needs_bpy()
    source = tmp_path / "weapon.md2"
    shutil.copy(corpus("md2/petaaar88-zarlag/weapon.md2"), source)
    before = source.read_bytes()
    result = run("convert", source, "--to", "md2")
    assert result.returncode == 1 and "would overwrite an input" in result.stdout
    assert source.read_bytes() == before
    result = run("convert", source, "--to", "mdl", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["summary"]["converted"] == 1 and report["results"][0]["output"] == str(tmp_path / "weapon.mdl")
    assert parse_mdl((tmp_path / "weapon.mdl").read_bytes()).num_poses == 198
    again = run("convert", source, "--to", "mdl", "--skip-existing")
    assert again.returncode == 0 and "skipped (exists)" in again.stdout


def test_convert_options_reach_the_operators(run, tmp_path):
    needs_bpy()
    source = corpus("md2/petaaar88-zarlag/weapon.md2")
    result = run("convert", source, "--to", "mdl", "-o", tmp_path, "--target", "modern", "--dither",
                 "--frame-source", "shape-keys", "--skin-width", "refuse", "--fps", "20")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "--fps ignored: MD2 frames convert one to one" in result.stdout
    assert parse_mdl((tmp_path / "weapon.mdl").read_bytes()).num_poses == 198
    result = run("convert", source, "--to", "md2", "-o", tmp_path, "--skin-width", "pad")
    assert result.returncode == 0 and "--skin-width does not apply to export_scene.md2; ignored" in result.stdout
    result = run("convert", source, "--to", "md2", "-o", tmp_path, "--export-option", "no_such_option=1")
    assert result.returncode == 1 and "export_scene.md2 has no option 'no_such_option'" in result.stdout
    result = run("convert", source, "--to", "glb", "-o", tmp_path, "--export-option", "export_morph=false",
                 "--import-option", "load_skins=off")
    assert result.returncode == 0, result.stdout + result.stderr
    gltf = glb_json(tmp_path / "weapon.glb")
    assert not any("targets" in p for m in gltf["meshes"] for p in m["primitives"])
    assert not gltf.get("images")
    result = run("convert", source, "--to", "mdl", "-o", tmp_path, "--export-option", "target=nonsense")
    assert result.returncode == 1 and "'nonsense' is not one of MODERN, QUAKE" in result.stdout


def test_timeout_fails_one_file_and_the_batch_goes_on(run, tmp_path):
    needs_bpy()
    # 512 morph targets of 2025 vertices take the glTF exporter a minute here; smoke.mdl well under a
    # second even on a loaded machine (a 0.2 s budget for it failed under load).
    slow, fast = tmp_path / "in" / "big.md2", corpus("mdl/slipgate/smoke.mdl")
    slow.parent.mkdir()
    slow.write_bytes(serialize_md2(grid_model(45, 45, 512)))
    result = run("convert", slow, fast, "--to", "glb", "-o", tmp_path, "-j", "1", "--timeout", "3")
    assert result.returncode == 1
    assert f"{slow}: gave up after 3 s (--timeout)" in result.stdout
    assert (tmp_path / "smoke.glb").is_file() and not (tmp_path / "big.glb").exists()
    assert not list(tmp_path.glob(".*.tmp.glb"))


# --- pieces in process --------------------------------------------------------------------------

class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_a_bar_on_a_terminal_and_lines_otherwise(cli_modules):
    batch = cli_modules["batch"]
    convert = importlib.import_module("classic_models.cli.convert")
    results = [convert.ConvertResult("a.md2", "a.mdl", ok=True),
               convert.ConvertResult("b.md2", None, ok=False, error="ofs_end: offset 64: truncated"),
               convert.ConvertResult("c.md2", "c.mdl", ok=True, warnings=["no skin"])]
    out, err = _Terminal(), _Terminal()
    progress = batch.Progress(3, out, err)
    progress.start(2)
    for result in results:
        progress.update(result)
    progress.finish()
    assert "[########################] 3/3 failed 1" in err.getvalue()
    assert out.getvalue().splitlines() == ["[2/3] FAILED b.md2: ofs_end: offset 64: truncated",
                                           "[3/3] c.md2 -> c.mdl", "    warning: no skin"]
    out, err = io.StringIO(), io.StringIO()
    progress = batch.Progress(3, out, err)
    progress.start(2)
    for result in results:
        progress.update(result)
    assert err.getvalue() == ""
    assert out.getvalue().splitlines()[0] == "converting 3 file(s) with 2 worker(s)"
    assert out.getvalue().splitlines()[1].startswith("[1/3] a.md2 -> a.mdl (ok")


def test_retime_bakes_an_animation_at_another_rate(bpy_scene, extension, tmp_path):
    bpy = bpy_scene
    convert = importlib.import_module(f"{extension}.cli.convert")
    scene = bpy.context.scene
    scene.render.fps, scene.frame_start, scene.frame_end = 24, 1, 25
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.active_object
    cube.shape_key_add(name="Basis")
    moved = cube.shape_key_add(name="moved")
    for point in moved.data:
        point.co.x += 24.0
    for frame, value in ((1, 0.0), (25, 1.0)):
        moved.value = value
        moved.keyframe_insert("value", frame=frame)
    for fcurve in convert._action_fcurves(cube.data.shape_keys.animation_data.action):
        for point in fcurve.keyframe_points:
            point.interpolation = "LINEAR"
    scene.timeline_markers.new("walk", frame=1)
    assert convert.retime_scene(scene, 10) == pytest.approx(10 / 24)
    assert (scene.frame_start, scene.frame_end, scene.render.fps / scene.render.fps_base) == (1, 11, 10)
    bpy.ops.export_scene.md2(filepath=str(tmp_path / "cube.md2"), use_selection=True)
    model = parse_md2((tmp_path / "cube.md2").read_bytes())
    assert model.num_frames == 11
    centre_x = model.positions()[:, :, 0].mean(axis=1)
    assert np.allclose(centre_x, np.linspace(0, 24, 11), atol=0.05)


# --- MS3D (once the extension has its operators) ----------------------------------------------

@pytest.fixture
def ms3d_operators(extension):
    import bpy
    found = {name: name.split(".")[1] in dir(getattr(bpy.ops, name.split(".")[0]))
             for name in ("import_scene.ms3d", "export_scene.ms3d")}
    return found


@pytest.mark.parametrize("target", ["md2", "mdl", "glb"])
def test_animated_ms3d_bakes_into_frames(run, tmp_path, ms3d_operators, target):
    if not ms3d_operators["import_scene.ms3d"]:
        pytest.skip("the extension has no import_scene.ms3d operator yet")
    source = corpus("ms3d/sge/zombie.ms3d")
    limits = ["--target", "modern"] if target == "mdl" else []   # its 512-pixel-high skin is over Quake's 480
    result = run("convert", source, "--to", target, "-o", tmp_path, "--fps", "5", "--no-skins", *limits)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "does not apply" not in result.stdout
    output = tmp_path / f"zombie.{target}"
    if target == "glb":
        assert glb_json(output)["animations"]
        return
    model = parse_md2(output.read_bytes()) if target == "md2" else parse_mdl(output.read_bytes())
    positions = model.positions()
    assert len(positions) > 1 and positions.shape[1] >= 377
    assert not np.allclose(positions[0], positions[len(positions) // 2]), "the skeletal animation was baked"


def test_fps_writes_every_scene_frame_unless_frame_rate_says_game(run, tmp_path, ms3d_operators):
    if not ms3d_operators["import_scene.ms3d"]:
        pytest.skip("the extension has no import_scene.ms3d operator yet")
    source = corpus("ms3d/sge/zombie.ms3d")
    counts = {}
    for name, flags in (("default", []), ("fps20", ["--fps", "20"]),
                        ("fps20game", ["--fps", "20", "--frame-rate", "game"])):
        result = run("convert", source, "--to", "md2", "-o", tmp_path / name, "--no-skins", *flags)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "does not apply" not in result.stdout
        counts[name] = len(parse_md2((tmp_path / name / "zombie.md2").read_bytes()).frame_names)
    # 10 fps by default; --fps 20 bakes twice as many frames; the game rate samples those every 0.1 s again
    assert counts["fps20game"] == counts["default"] > 1
    assert counts["fps20"] == 2 * counts["default"] - 1


@pytest.mark.parametrize("source", ["md2/petaaar88-zarlag/weapon.md2", "mdl/slipgate/missile.mdl"])
def test_frames_convert_to_ms3d(run, tmp_path, ms3d_operators, source):
    if not ms3d_operators["export_scene.ms3d"]:
        pytest.skip("the extension has no export_scene.ms3d operator yet")
    from formats.ms3d.codec import parse_ms3d
    path = corpus(source)
    result = run("convert", path, "--to", "ms3d", "-o", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert parse_ms3d((tmp_path / f"{path.stem}.ms3d").read_bytes()).num_triangles > 0


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


def test_convert_to_md2_writes_pcx_skins_and_glb_carries_the_found_skin(run, tmp_path):
    needs_bpy()
    from support.image_files import read_pcx, reference_palette, write_png
    quake2 = reference_palette("quake2")
    if quake2 is None:
        pytest.skip("reference Quake II palette not found in ../shared/reference")
    source = tmp_path / "src"
    model = grid_model()
    model.skins = []
    source.mkdir()
    (source / "wolf.md2").write_bytes(serialize_md2(model))
    rgba = np.zeros((32, 64, 4), np.uint8)
    rgba[..., :3] = quake2[np.arange(64) % 200][None, :]
    rgba[..., 3] = 255
    write_png(source / "wolf_texture.png", rgba)
    result = run("convert", source / "wolf.md2", "--to", "glb", "-o", tmp_path / "web")
    assert result.returncode == 0, result.stdout + result.stderr
    gltf = glb_json(tmp_path / "web" / "wolf.glb")
    assert len(gltf.get("images", [])) == 1 and gltf["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]

    result = run("convert", source / "wolf.md2", "--to", "ms3d", "-o", tmp_path / "ms")
    assert result.returncode == 0, result.stdout + result.stderr
    game = tmp_path / "baseq2" / "models" / "wolf"
    result = run("convert", tmp_path / "ms" / "wolf.ms3d", "--to", "md2", "--skins", "pcx", "-o", game)
    assert result.returncode == 0, result.stdout + result.stderr
    written = parse_md2((game / "wolf.md2").read_bytes())
    assert len(written.skins) == 1 and written.skins[0].startswith("models/wolf/")
    indices, palette = read_pcx((game / Path(written.skins[0]).name).read_bytes())
    np.testing.assert_array_equal(palette, quake2)
    np.testing.assert_array_equal(quake2[indices], rgba[..., :3])


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


def test_a_still_ms3d_converts_to_one_frame_unless_keep_still_frames(run, bpy_scene, tmp_path):
    """A static MS3D (here a cube exported by Blender, 1 joint-less group) baked to MD2 is one frame;
    --keep-still-frames writes every sampled frame."""
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add()
    source = tmp_path / "box.ms3d"
    assert bpy.ops.export_scene.ms3d(filepath=str(source)) == {"FINISHED"}
    counts = {}
    for name, flags in (("default", []), ("kept", ["--keep-still-frames"])):
        result = run("convert", source, "--to", "md2", "-o", tmp_path / name, "--no-skins", *flags)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "does not apply" not in result.stdout
        counts[name] = parse_md2((tmp_path / name / "box.md2").read_bytes()).num_frames
    assert counts["default"] == 1 and counts["kept"] > 1
