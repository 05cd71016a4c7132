"""Proof in ironwail, an engine that implements the Quake re-release's enhanced models, that the MDL export
with its MD5 twin (*Enhanced Model*) and its *Enhanced MD3* is drawn as Blender shows it (issue 45).

A figure made in Blender (mesh, armature, two actions, two painted skins: support.enhanced_figure) is
exported once; ironwail (tools/engine_ironwail.sh builds it) plays a demo that places it at three frames of
each action and with skin 1 (support.quake_data, support.ironwail_scene). Which file the engine draws is
``Mod_LoadAliasModel`` in ironwail's gl_model.c: with ``r_enhancedmodels 0`` the MDL; with 1, the
replacements in the order of ``r_enhancedmodels_priority`` (``loadMd3Replacement`` for ``progs/m.md3``,
``loadMd5Replacement`` for ``progs/m.md5mesh``). The skins of the layouts that must not be drawn (the
MDL's too) are painted white in each run, so the colours also prove which file was drawn. Each
placement's silhouette overlap (IoU) and skin colours are compared with Blender's evaluated mesh of the
same frame seen by the same camera; the same comparison fails for a frame off by one, a mirrored model,
and broken twins (anim one frame short at its start: the neighbour frame drawn; skin 1's .lmp missing:
skin 0 drawn, nothing said; anim joints in another order: the anim refused, "bone spine was renamed" in
the console, the MDL drawn; the mesh's shader naming skins that are not there: the model not drawn at
all), which ``check --profile q1-enhanced`` reports too. Pictures:
out/engines/ironwail/*.png, the engine beside Blender.
"""
from __future__ import annotations

import re
import shutil
import struct

import numpy as np
import pytest
from support.actions import select_only
from support.engine_view import side_by_side
from support.enhanced_figure import ACTIONS, WHITE, figure
from support.environment import CHECKOUT
from support.image_files import write_png
from support.ironwail_run import ironwail_binary
from support.ironwail_scene import MIN_COLOUR, MIN_IOU, SHOTS, Shot, blender_picture, compare, run_scene

from formats.md3.codec import read_md3, write_md3
from formats.mdl.codec import parse_mdl

FIGURES = CHECKOUT / "out" / "engines" / "ironwail"
LAYOUTS = {"mdl": (0, "md3,md5"), "md3": (1, "md3,md5"), "md5": (1, "md5,md3")}
_SHOTS: dict[str, tuple] = {}


def export_figure(bpy, progs, names=("m",), md3: bool = True):
    """The figure exported as ``progs/<name>.mdl`` with its MD5 twin (and its enhanced MD3) per name."""
    obj, rig = figure(bpy)
    for name in names:
        select_only(bpy, [obj])
        assert bpy.ops.export_scene.mdl(filepath=str(progs / f"{name}.mdl"), frame_source="ACTIONS",
                                        frame_rate="SCENE", enhanced=True, enhanced_md3=md3,
                                        materials="ALTERNATE") == {"FINISHED"}
        poses = [f"{a}{k + 1:02d}" for a, frames in ACTIONS.items() for k in range(len(frames))]
        assert parse_mdl((progs / f"{name}.mdl").read_bytes()).pose_names == poses
    return obj, rig


def matches(m) -> bool:
    """What the engine drew is Blender's frame: silhouette and skin colours (over enough pixels)."""
    return m.iou >= MIN_IOU and m.colour >= MIN_COLOUR and m.pixels > 500


def files_of(id1) -> dict[str, bytes]:
    return {p.relative_to(id1).as_posix(): p.read_bytes() for p in sorted((id1 / "progs").iterdir())}


def whitened(files: dict[str, bytes], layout: str) -> dict[str, bytes]:
    """The skins of the layouts not to be drawn painted white: the MDL's (:func:`white_mdl`), the MD5's
    .lmp (8-byte header, indices), the MD3's TGAs (uncompressed, 18-byte header)."""
    out = dict(files)
    for name, data in files.items():
        if name.endswith(".mdl") and layout != "mdl":
            out[name] = white_mdl(data)
        elif name.endswith(".lmp") and layout != "md5":
            out[name] = data[:8] + bytes([WHITE]) * (len(data) - 8)
        elif name.endswith(".tga") and layout != "md3":
            assert data[2] == 2, "an uncompressed TGA"
            start = 18 + data[0]
            out[name] = data[:start] + b"\xff" * (len(data) - start)
    return out


def complaints(log: str, names=("m",)) -> list[str]:
    """Console lines that name one of our files or models."""
    pattern = re.compile("|".join(rf"\b{n}(\.|_\d)" for n in names))
    return [line for line in log.splitlines() if pattern.search(line)
            and not line.startswith(("Playing demo", "execing"))]


def engine_shot(bpy, tmp_path, layout: str):
    """Export the figure, let ironwail draw ``layout``; cached per layout for the negative tests."""
    ironwail_binary()
    if layout not in _SHOTS:
        id1 = tmp_path / "base" / "id1"
        (id1 / "progs").mkdir(parents=True)
        obj, rig = export_figure(bpy, id1 / "progs")
        enhanced, priority = LAYOUTS[layout]
        shot = run_scene(tmp_path / "base", whitened(files_of(id1), layout), ["progs/m.mdl"], SHOTS, enhanced,
                         priority)
        _SHOTS[layout] = shot
        write_png(FIGURES / f"{layout}.png", side_by_side(shot.image, blender_picture(bpy, obj, rig, SHOTS)))
        return shot, obj, rig
    obj, rig = figure(bpy)
    return _SHOTS[layout], obj, rig


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_ironwail_draws_each_layout_as_blender_shows_it(bpy_scene, tmp_path, layout):
    shot, obj, rig = engine_shot(bpy_scene, tmp_path, layout)
    measures = compare(bpy_scene, obj, rig, shot.image, SHOTS)
    report = [f"{m.shot}: IoU {m.iou:.3f}, colour {m.colour:.3f} of {m.pixels}" for m in measures]
    print(layout, *report, sep="\n")
    assert all(matches(m) for m in measures), report
    assert complaints(shot.log) == [], complaints(shot.log)


@pytest.mark.parametrize("variant", [{"frame_shift": 1}, {"frame_shift": -1}, {"mirror": True}])
def test_the_comparison_fails_for_a_frame_off_by_one_or_a_mirrored_model(bpy_scene, tmp_path, variant):
    """The same engine picture against Blender's neighbour frame, or Blender's figure mirrored: every
    placement that has such a frame falls under the IoU a correct one reaches."""
    shot, obj, rig = engine_shot(bpy_scene, tmp_path, "md5")
    measures = [m for m in compare(bpy_scene, obj, rig, shot.image, SHOTS, **variant) if m is not None]
    report = [(m.shot, round(m.iou, 3)) for m in measures]
    print(variant, *report, sep="\n")
    assert len(measures) >= 6 and all(m.iou < MIN_IOU for m in measures), report


def white_mdl(data: bytes) -> bytes:
    """The MDL with every single skin's painted texels white (the black between them kept, or Quake's
    Mod_FloodFillSkin would paint the whole skin black): header (84 bytes; numskins, skinwidth, skinheight
    at 48, 52, 56), then per skin its type (0: single) and width x height indices."""
    count, width, height = struct.unpack_from("<3i", data, 48)
    out, pos = bytearray(data), 84
    for _ in range(count):
        assert struct.unpack_from("<i", data, pos)[0] == 0, "single skins"
        indices = np.frombuffer(data, np.uint8, width * height, pos + 4).copy()
        indices[indices != 0] = WHITE
        out[pos + 4:pos + 4 + width * height] = indices.tobytes()
        pos += 4 + width * height
    return bytes(out)


def drop_first_frame(text: str) -> str:
    """The anim one frame short: frame 0 and its bounds gone, the rest renumbered (frame k shows k + 1)."""
    frames = re.findall(r"frame (\d+) \{", text)
    text = re.sub(r"frame 0 \{[^}]*\}\s*", "", text, count=1)
    for k in range(1, len(frames)):
        text = text.replace(f"frame {k} {{", f"frame {k - 1} {{", 1)
    text = re.sub(r"(bounds \{\s*)\([^\n]*\n\s*", r"\1", text, count=1)
    return text.replace(f"numFrames {len(frames)}", f"numFrames {len(frames) - 1}")


def swap_joints(text: str, a: int, b: int) -> str:
    """The anim's joints ``a`` and ``b`` (siblings) in each other's place: hierarchy and baseframe lines
    swapped, parents renumbered; each joint keeps its own flags, components and data."""
    def swap_block(name: str, body: str) -> str:
        lines = body.strip("\n").split("\n")
        lines[a], lines[b] = lines[b], lines[a]
        if name == "hierarchy":
            remap = {str(a): str(b), str(b): str(a)}
            lines = [re.sub(r'^(\s*"[^"]*"\s+)(-?\d+)', lambda m: m.group(1) + remap.get(m.group(2), m.group(2)), ln)
                     for ln in lines]
        return "\n" + "\n".join(lines) + "\n"
    for block in ("hierarchy", "baseframe"):
        text = re.sub(rf"({block} \{{)(.*?)(\}})",
                      lambda m, block=block: m.group(1) + swap_block(block, m.group(2)) + m.group(3),
                      text, count=1, flags=re.S)
    return text


def check_alone(run, progs, name: str, tmp_path):
    """``check --profile q1-enhanced`` on model ``name``'s files alone in a progs/ of their own."""
    alone = tmp_path / "check" / name / "progs"
    alone.mkdir(parents=True)
    for path in progs.glob(f"{name}[._]*"):
        shutil.copy(path, alone / path.name)
    return run("check", "--profile", "q1-enhanced", alone.parent)


BROKEN = {
    "a": "anim one frame short at its start",
    "b": "skin 1 .lmp missing",
    "c": "anim joints spine and arm swapped",      # ironwail: "bone spine was renamed", draws the MDL
    "d": "mesh shader naming skins that are not there",
}
BROKEN_SHOTS = (Shot("bend", 2, 0, 0), Shot("wave", 2, 0, 0), Shot("bend", 1, 1, 1), Shot("wave", 3, 1, 1),
                Shot("wave", 4, 0, 2), Shot("wave", 5, 0, 2), Shot("bend", 3, 0, 3), Shot("wave", 1, 1, 3))


def test_broken_md5_twins_fail_the_comparison_and_the_check(bpy_scene, tmp_path, run):
    ironwail_binary()
    id1 = tmp_path / "base" / "id1"
    progs = id1 / "progs"
    progs.mkdir(parents=True)
    obj, rig = export_figure(bpy_scene, progs, tuple(BROKEN), md3=False)
    for name in BROKEN:                      # were the engine to fall back to the MDL, it would show white
        (progs / f"{name}.mdl").write_bytes(white_mdl((progs / f"{name}.mdl").read_bytes()))
    (progs / "a.md5anim").write_text(drop_first_frame((progs / "a.md5anim").read_text()))
    (progs / "b_01_00.lmp").unlink()
    (progs / "c.md5anim").write_text(swap_joints((progs / "c.md5anim").read_text(), 1, 2))
    mesh = (progs / "d.md5mesh").read_text()
    assert mesh.count('shader "d"') == 1
    (progs / "d.md5mesh").write_text(mesh.replace('shader "d"', 'shader "dx"'))
    shot = run_scene(tmp_path / "base", files_of(id1), [f"progs/{n}.mdl" for n in BROKEN], BROKEN_SHOTS, 1,
                     "md5,md3")
    measures = compare(bpy_scene, obj, rig, shot.image, BROKEN_SHOTS)
    write_png(FIGURES / "broken_md5.png", side_by_side(shot.image, blender_picture(bpy_scene, obj, rig, BROKEN_SHOTS)))
    report = [(m.shot, round(m.iou, 3), round(m.colour, 3)) for m in measures]
    assert not any(matches(m) for m in measures), report
    # what ironwail does with each: a: the neighbour frame drawn (IoU 0.83, 0.85); b: skin 0 drawn for
    # skin 1 (2 % of the colours right); c: the anim refused (MD5Anim_Load compares each joint's name and
    # parent with the mesh's: "bone spine was renamed"), so the MDL is drawn instead (white here); d: not
    # drawn at all (Mod_LoadMD5Skins finds no progs/dx_00_00)
    assert all(m.iou < MIN_IOU for m in measures[0:2]) and all(m.colour < MIN_COLOUR for m in measures[2:6])
    assert all(m.iou >= MIN_IOU for m in measures[4:6]) and all(m.iou < 0.05 for m in measures[6:8])
    assert any("c.md5anim" in line for line in complaints(shot.log, ("a", "b", "c"))), shot.log[-2000:]
    print(*report, *complaints(shot.log, ("a", "b", "c")), sep="\n")
    for name, what in BROKEN.items():
        result = check_alone(run, progs, name, tmp_path)
        assert result.returncode == 1, (what, result.stdout, result.stderr)


def md3_without_first_frame(data: bytes) -> bytes:
    """The Enhanced MD3 one frame short at its start: every frame's record, tags and vertices shifted by one
    (frame k shows k + 1), read and written by the codec."""
    model = read_md3(data)
    for surface in model.surfaces:
        surface.xyz, surface.normal = surface.xyz[1:], surface.normal[1:]
    model.frame_names, model.frame_bounds = model.frame_names[1:], model.frame_bounds[1:]
    model.frame_origin, model.frame_radius = model.frame_origin[1:], model.frame_radius[1:]
    model.tag_origin, model.tag_axis = model.tag_origin[1:], model.tag_axis[1:]
    model.frame_name_raw = model.tag_name_raw = model.layout = None
    return write_md3(model)


BROKEN_MD3 = {"e": "Enhanced MD3 one frame short at its start", "f": "f.md3_1.skin missing"}
BROKEN_MD3_SHOTS = (Shot("bend", 2, 0, 0), Shot("wave", 2, 0, 0), Shot("bend", 1, 1, 1), Shot("wave", 3, 1, 1))


def test_broken_md3_twins_fail_the_comparison_and_the_check(bpy_scene, tmp_path, run):
    """The Enhanced MD3 drawn in place of the MDL (no MD5 beside it): one frame short, each figure shows the
    next frame; without ``f.md3_1.skin`` the figures asking for skin 1 show skin 0. The check flags both."""
    ironwail_binary()
    id1 = tmp_path / "base" / "id1"
    progs = id1 / "progs"
    progs.mkdir(parents=True)
    obj, rig = export_figure(bpy_scene, progs, tuple(BROKEN_MD3), md3=True)
    for name in BROKEN_MD3:                  # the MDL white: were ironwail to draw it, no colour would match
        (progs / f"{name}.mdl").write_bytes(white_mdl((progs / f"{name}.mdl").read_bytes()))
        for twin in progs.glob(f"{name}.md5*"):
            twin.unlink()
    (progs / "e.md3").write_bytes(md3_without_first_frame((progs / "e.md3").read_bytes()))
    (progs / "f.md3_1.skin").unlink()
    shot = run_scene(tmp_path / "base", files_of(id1), [f"progs/{n}.mdl" for n in BROKEN_MD3], BROKEN_MD3_SHOTS, 1,
                     "md3,md5")
    measures = compare(bpy_scene, obj, rig, shot.image, BROKEN_MD3_SHOTS)
    write_png(FIGURES / "broken_md3.png", side_by_side(shot.image,
                                                      blender_picture(bpy_scene, obj, rig, BROKEN_MD3_SHOTS)))
    report = [(m.shot, round(m.iou, 3), round(m.colour, 3)) for m in measures]
    print(*report, sep="\n")
    assert not any(matches(m) for m in measures), report
    assert all(m.iou < MIN_IOU for m in measures[0:2]), report              # e: the neighbour frame
    assert all(m.iou >= MIN_IOU and m.colour < MIN_COLOUR for m in measures[2:4]), report   # f: skin 0's colours
    for name, what in BROKEN_MD3.items():
        result = check_alone(run, progs, name, tmp_path)
        assert result.returncode == 1 and f"{name}.md3" in result.stdout, (what, result.stdout, result.stderr)


def test_the_demo_places_the_figure_where_blender_projects_it():
    """The camera and placement arithmetic on its own (no engine): the figure's middle at the slot's
    centre projects into the picture, slots left to right and top to bottom."""
    from support.ironwail_scene import VIEW, placed_model, placement
    centres = VIEW.project(np.array([placed_model(np.array([[0.0, 12.0, 24.0]]), *placement(s))[0]
                                     for s in range(8)]))
    assert (centres[:, 0] > 0).all() and (centres[:, 0] < 640).all()
    assert (centres[:, 1] > 0).all() and (centres[:, 1] < 480).all()
    assert (np.diff(centres[:4, 0]) > 100).all() and (centres[4:, 1] > centres[:4, 1] + 100).all()
