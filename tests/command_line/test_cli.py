"""The command line's ``convert``, run as a user runs it: ``python -m classic_models convert ...`` in a
subprocess.

The package is made importable the way an installed extension's parent folder would be: a temporary
folder on PYTHONPATH holding a ``classic_models`` link to the checkout. ``convert`` outputs are read back
with the codecs (and a .blend is opened by a separate bpy process, keeping this one clean); the progress
display and the retiming run in process.
"""
from __future__ import annotations

import importlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.environment import corpus, needs_bpy
from support.glb import glb_json
from support.md2_synthetic import grid_model

from formats.animations import group_animations
from formats.md2.codec import parse_md2, serialize_md2
from formats.mdl.codec import parse_mdl

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
