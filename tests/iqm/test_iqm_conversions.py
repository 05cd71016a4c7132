"""Conversions a modder asks for (issue 47), through the command line as a user runs it: the corpus's
Red Eclipse drone (an .md5mesh and the 23 anims of its folder) to IQM and back to MD5 with its joints and
every anim (name, frame count, rate, every frame's joints within the IQM file's quantisation); the IQM
to glTF with one clip per anim; ``info`` on the written IQM lists the anims. The files are decoded here
by the codecs' readers and compared with the corpus's own (never with the exporter's code)."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
from support.environment import needs_bpy
from support.glb import glb_json
from support.iqm_rig import joint_tolerance
from support.md5_drone import DRONE

from formats.iqm.codec import read_iqm
from formats.iqm.records import LOOP
from formats.md5.anim import read_md5anim
from formats.md5.mesh import read_md5mesh
from formats.md5.skinning import frame_joints


def _matrices(pos: np.ndarray, quat: np.ndarray) -> np.ndarray:
    """(..., 4, 4) of positions and x y z w quaternions."""
    x, y, z, w = np.moveaxis(quat / np.linalg.norm(quat, axis=-1, keepdims=True), -1, 0)
    out = np.zeros(pos.shape[:-1] + (4, 4))
    out[..., 0, :3] = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1)
    out[..., 1, :3] = np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1)
    out[..., 2, :3] = np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)
    out[..., :3, 3] = pos
    out[..., 3, 3] = 1
    return out


@pytest.fixture(scope="module")
def drone_folder(tmp_path_factory):
    if not DRONE.is_file():
        pytest.skip(f"corpus file not found: {DRONE}")
    folder = tmp_path_factory.mktemp("drone")
    for path in DRONE.parent.iterdir():
        if path.suffix in (".md5mesh", ".md5anim"):
            shutil.copy(path, folder / path.name)
    return folder


def _ok(result) -> None:
    assert result.returncode == 0, result.stdout + result.stderr


def test_md5_to_iqm_and_back_keeps_the_joints_and_every_anim(run, drone_folder, tmp_path):
    needs_bpy()
    _ok(run("convert", drone_folder / "mesh.md5mesh", "--to", "iqm", "-o", tmp_path / "iqm",
            "--import-option", "find_anims=FOLDER"))
    model = read_iqm((tmp_path / "iqm" / "mesh.iqm").read_bytes())
    mesh = read_md5mesh((drone_folder / "mesh.md5mesh").read_bytes())
    anims = {p.stem: read_md5anim(p.read_bytes()) for p in sorted(drone_folder.glob("*.md5anim"))}
    assert len(anims) == 23
    assert model.joint_names == mesh.joint_names and list(model.joints["parent"]) == list(mesh.joint_parents)
    assert sorted(model.anim_names) == sorted(anims)
    for index, name in enumerate(model.anim_names):
        record = model.anims[index]
        assert int(record["num_frames"]) == len(anims[name].frames) and float(record["framerate"]) == \
            anims[name].frame_rate
        assert bool(int(record["flags"]) & LOOP) == (not name.startswith(("dead", "death")))
    _ok(run("convert", tmp_path / "iqm" / "mesh.iqm", "--to", "md5", "-o", tmp_path / "md5"))
    back = read_md5mesh((tmp_path / "md5" / "mesh.md5mesh").read_bytes())
    assert back.joint_names == mesh.joint_names and np.array_equal(back.joint_parents, mesh.joint_parents)
    assert np.abs(back.joint_pos - mesh.joint_pos).max() < 1e-4
    written = {p.stem: read_md5anim(p.read_bytes()) for p in (tmp_path / "md5").glob("*.md5anim")}
    assert sorted(written) == sorted(anims)
    worst = {}
    for name, anim in anims.items():
        again = written[name]
        assert (len(again.frames), again.frame_rate, again.joint_names) == (len(anim.frames), anim.frame_rate,
                                                                         anim.joint_names)
        first, second = _matrices(*frame_joints(anim)), _matrices(*frame_joints(again))
        tolerance = joint_tolerance(model, first) + 1e-4
        worst[name] = float(np.abs(first - second).max()) / tolerance
    assert max(worst.values()) <= 1.0, worst


def test_iqm_to_glb_has_a_clip_per_anim_and_info_lists_them(run, drone_folder, tmp_path):
    needs_bpy()
    _ok(run("convert", drone_folder / "mesh.md5mesh", "--to", "iqm", "-o", tmp_path,
            "--import-option", "find_anims=FOLDER"))
    iqm = tmp_path / "mesh.iqm"
    model = read_iqm(iqm.read_bytes())
    _ok(run("convert", iqm, "--to", "glb", "-o", tmp_path / "glb"))
    gltf = glb_json(tmp_path / "glb" / "mesh.glb")
    clips = {a["name"]: a for a in gltf["animations"]}
    assert sorted(clips) == sorted(model.anim_names)
    for index, name in enumerate(model.anim_names):
        frames, rate = int(model.anims["num_frames"][index]), float(model.anims["framerate"][index])
        inputs = [gltf["accessors"][s["input"]] for s in clips[name]["samplers"]]
        span = max(i["max"][0] for i in inputs) - min(i["min"][0] for i in inputs)
        assert span == pytest.approx((frames - 1) / rate, abs=1e-3), name
        assert max(i["count"] for i in inputs) == frames, name
    info = run("info", iqm, block_bpy=True)
    _ok(info)
    for index, name in enumerate(model.anim_names):
        assert f"anim {index} '{name}': frames" in info.stdout


def test_an_md5_anim_at_its_own_rate_keeps_its_rate_and_frames(run, drone_folder, tmp_path):
    """The MD5 import keys an anim at another rate than the scene's every ``scene fps / frameRate`` frames:
    the IQM anim has the .md5anim's rate and frame count, not the scene's."""
    needs_bpy()
    folder = tmp_path / "drone"
    shutil.copytree(drone_folder, folder)
    for name, rate in (("forward", "30"), ("sword-idle", "15")):
        path = folder / f"{name}.md5anim"
        path.write_text(path.read_text().replace("frameRate 24", f"frameRate {rate}"))
    _ok(run("convert", folder / "mesh.md5mesh", "--to", "iqm", "-o", tmp_path / "iqm",
            "--import-option", "find_anims=FOLDER"))
    model = read_iqm((tmp_path / "iqm" / "mesh.iqm").read_bytes())
    anims = {p.stem: read_md5anim(p.read_bytes()) for p in folder.glob("*.md5anim")}
    found = {name: (int(model.anims["num_frames"][i]), float(model.anims["framerate"][i]))
             for i, name in enumerate(model.anim_names)}
    assert found == {name: (len(anim.frames), anim.frame_rate) for name, anim in anims.items()}
    assert found["forward"] == (12, 30.0) and found["sword-idle"] == (2, 15.0)
