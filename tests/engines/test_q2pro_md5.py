"""Proof in Q2PRO (Quake II, the engine that implements the remaster's ``md5/`` rule): a model made in
Blender, exported as MD2 with its Enhanced Model twin, is drawn as Blender shows it, the MD2 with
``gl_md5_use 0`` and the MD5 with ``gl_md5_use 1`` (Q2PRO ``src/refresh/mesh.c`` ``GL_DrawAliasModel``:
``model->skeleton && gl_md5_use``), at three frames of each of two actions, one of which scales a bone
(the ``.md5scale``, ``src/refresh/models.c`` ``MD5_LoadScales``), with skin 0 and skin 1.

How: each shot is a client demo (``support/quake2_data.py``) played by one Q2PRO process under Xvfb
(``support/q2pro_run.py``); its screenshot's lit pixels are compared with Blender's evaluated mesh
projected through the same camera (``support/engine_view.py``): the overlap of the silhouettes must reach
``MATCH`` while the neighbouring frame's and the mirrored model's stay below it (so the measure tells a
frame offset and a mirror apart), and inside both silhouettes the engine's colours must be the skin's at
the texel Blender's UVs put there. The console log holds no warning or error.

The broken twins (anim one frame short, frames shifted by one, joints reordered, a ``.md5scale`` naming a
joint the anim lacks, a skin missing under ``md5/``) are drawn the same way and each must fail the
comparison (the missing skin: Q2PRO draws its red and black "no texture" checks instead, ``IMG_Find``);
``check --profile q2-enhanced`` flags those it can see in the files (all but the shifted frames).

Figures: ``out/engines/q2pro/<shot>.png``, the engine's screenshot beside Blender's view, with
``scores.tsv``; ``sheet.png`` (the manual's ``docs/q2pro_md5.png``): the MD2 and the MD5 at ``wave04``,
the MD5 at ``grow04`` (a bone scaled) and with skin 1.
"""
from __future__ import annotations

import json
import math

import numpy as np
from support.actions import export
from support.engine_tools import cli, world_surface
from support.engine_view import (
    GREY,
    View,
    erode,
    foreground,
    iou,
    place_yawed,
    rasterize,
    read_screenshot,
    side_by_side,
    texel_colours,
)
from support.environment import CHECKOUT
from support.image_files import write_png
from support.q2pro_run import Q2Pro, engine_folder
from support.q2pro_scene import (
    anim_one_frame_short,
    anim_reordered,
    anim_shifted,
    build,
    corner_uvs,
    scale_misnamed,
    show,
    skin_pixels,
)
from support.quake2_data import Camera, Placement, demo, map_checksum, view_angles, view_origin, write_basedir

from formats.md2.codec import parse_md2

MATCH = 0.95                 # silhouette overlap a shot must reach (the neighbouring frame's and the mirror's stay below)
COLOUR_TOLERANCE = 24        # per channel, the engine's colour against the skin's texel
COLOUR_SHARE = 0.9           # of the pixels inside both silhouettes
FIGURES = CHECKOUT / "out" / "engines" / "q2pro"
TARGET = (0.0, 10.0, 32.0)
PLACE = Placement((0.0, 0.0, 0.0), 16, 0)                   # yaw 22.5 degrees
CAMERA_AT = (78.0, -48.0, 46.0)
SHOWN = ("wave02", "wave03", "wave04", "grow02", "grow03", "grow04")   # three frames of each action


def camera() -> Camera:
    d = np.subtract(TARGET, CAMERA_AT)
    yaw = math.degrees(math.atan2(d[1], d[0]))
    pitch = -math.degrees(math.atan2(d[2], math.hypot(d[0], d[1])))
    return Camera(CAMERA_AT, (round(pitch, 3), round(yaw, 3), 0.0), 60)


def view_of(cam: Camera) -> View:
    return View(view_origin(cam), view_angles(cam), cam.fov, cam.width, cam.height)


class Scene:
    """The model in Blender, its export under ``<root>/baseq2/models/<name>/``, and what Blender shows."""

    def __init__(self, bpy, tmp_path, framed: bool = True):
        self.bpy = bpy
        self.obj, self.rig, self.actions = build(bpy, framed)
        self.root = tmp_path / "q2"
        self.game = write_basedir(self.root)
        self.checksum = map_checksum((self.game / "maps" / "hw4.bsp").read_bytes())
        self.camera = camera()
        self.view = view_of(self.camera)
        self.uvs = corner_uvs(self.obj)
        self.folder = self.export("x")
        self.frame_names = parse_md2((self.folder / "tris.md2").read_bytes()).frame_names
        self._masks: dict = {}

    def export(self, name: str):
        folder = self.game / "models" / name
        folder.mkdir(parents=True)
        export(self.bpy, "md2", [self.obj], folder / "tris.md2", frame_source="ACTIONS", enhanced=True,
               materials="ALTERNATE")
        return folder

    def frame(self, name: str) -> int:
        """The MD2 frame number of a frame name."""
        return self.frame_names.index(name)

    def raster(self, frame: int, mirrored: bool = False):
        scene_frame = show(self.bpy, self.rig, self.actions, self.frame_names[frame])
        positions, triangles, _ = world_surface(self.bpy, [self.obj], scene_frame)
        if mirrored:
            positions = positions * np.array([1.0, -1.0, 1.0])
        world = place_yawed(positions, PLACE.origin, PLACE.yaw)
        return rasterize(self.view, world, triangles, self.uvs)

    def mask(self, frame: int, mirrored: bool = False) -> np.ndarray:
        key = (frame, mirrored)
        if key not in self._masks:
            self._masks[key] = self.raster(frame, mirrored).mask
        return self._masks[key]

    def demo(self, name: str, model: str, frame: int, skin: int = 0) -> str:
        (self.game / "demos").mkdir(exist_ok=True)
        marker = f"classic_models: demo {name} parsed"
        placement = Placement(PLACE.origin, PLACE.yaw_byte, frame, skin)
        (self.game / "demos" / f"{name}.dm2").write_bytes(
            demo(f"models/{model}/tris.md2", self.camera, placement, self.checksum, marker))
        return marker


def shoot(scene: Scene, shots: list[tuple[str, str, int, int, int]]) -> tuple[dict, Q2Pro]:
    """Play each (name, model, frame, skin, gl_md5_use) in one engine; the screenshots by name."""
    for name, model, frame, skin, _ in shots:
        scene.demo(name, model, frame, skin)
    images = {}
    with Q2Pro(scene.root) as engine:
        for name, _, _, _, use in shots:
            engine.send(f"set gl_md5_use {use}")
            engine.play(name, f"classic_models: demo {name} parsed")
            images[name] = read_screenshot(engine.screenshot(name))
    return images, engine


def colour_share(image: np.ndarray, raster, skin: int, engine_mask: np.ndarray) -> float:
    """Share of the pixels inside both silhouettes where the engine shows skin ``skin``'s texel."""
    region = erode(raster.mask & engine_mask, 2)
    assert region.sum() > 500, f"only {region.sum()} pixels inside both silhouettes"
    expected = texel_colours(raster, skin_pixels(skin))
    close = np.abs(image.astype(np.int64) - expected).max(-1) <= COLOUR_TOLERANCE
    return float(close[region].mean())


def figure(name: str, image: np.ndarray, raster, skin: int) -> np.ndarray:
    """``out/engines/q2pro/<name>.png``: the screenshot beside Blender's view; returns Blender's view."""
    blender = texel_colours(raster, skin_pixels(skin)).astype(np.uint8)
    FIGURES.mkdir(parents=True, exist_ok=True)
    write_png(FIGURES / f"{name}.png", side_by_side(image, blender))
    return blender


SHEET = ("md2_wave04", "md5_wave04", "md5_grow04", "md5_skin1")


def sheet(pairs: list[tuple[np.ndarray, np.ndarray]]) -> None:
    """The manual's figure: each (engine, Blender) pair cropped to where any of them shows the model."""
    box = np.zeros(pairs[0][0].shape[:2], bool)
    for engine_image, blender in pairs:
        box |= foreground(engine_image) | foreground(blender)
    rows, cols = np.flatnonzero(box.any(1)), np.flatnonzero(box.any(0))
    top, bottom = max(rows[0] - 8, 0), min(rows[-1] + 9, box.shape[0])
    left, right = max(cols[0] - 8, 0), min(cols[-1] + 9, box.shape[1])
    strips = [side_by_side(e[top:bottom, left:right], b[top:bottom, left:right]) for e, b in pairs]
    gap = np.full((6, strips[0].shape[1], 4), GREY, np.uint8)
    gap[..., 3] = 255
    write_png(FIGURES / "sheet.png", np.concatenate([part for strip in strips for part in (strip, gap)][:-1]))


def test_q2pro_draws_the_md2_and_its_md5_twin_as_blender_shows(bpy_scene, tmp_path):
    engine_folder()                                   # skip before the Blender work when the engine is missing
    scene = Scene(bpy_scene, tmp_path)
    md2 = parse_md2((scene.folder / "tris.md2").read_bytes())
    assert len(md2.frame_names) == 8 and len(md2.skins) == 2, (md2.frame_names, md2.skins)
    assert (scene.folder / "md5" / "tris.md5scale").is_file()
    shots = [(f"{kind}_{name}", "x", scene.frame(name), 0, use) for kind, use in (("md2", 0), ("md5", 1))
             for name in SHOWN]
    shots += [(f"{kind}_skin1", "x", scene.frame("wave03"), 1, use) for kind, use in (("md2", 0), ("md5", 1))]
    images, engine = shoot(scene, shots)
    problems, rows, views = [], ["shot\toverlap\tneighbour\tmirror\tskin share\tother skin share"], {}
    for name, _, frame, skin, _ in shots:
        image = images[name]
        drawn = foreground(image)
        raster = scene.raster(frame)
        views[name] = figure(name, image, raster, skin)
        score = iou(drawn, raster.mask)
        neighbour = iou(drawn, scene.mask(frame - 1))
        mirror = iou(drawn, scene.mask(frame, mirrored=True))
        if not (score >= MATCH > max(neighbour, mirror)):
            problems.append(f"{name}: overlap {score:.3f} with frame {frame}, {neighbour:.3f} with frame {frame - 1}, "
                            f"{mirror:.3f} with the mirror")
        share = colour_share(image, raster, skin, drawn)
        other = colour_share(image, raster, 1 - skin, drawn)
        rows.append(f"{name}\t{score:.3f}\t{neighbour:.3f}\t{mirror:.3f}\t{share:.3f}\t{other:.3f}")
        if not (share >= COLOUR_SHARE and other < 0.5):
            problems.append(f"{name}: {share:.2f} of the pixels show skin {skin}'s colours, {other:.2f} skin {1 - skin}'s")
    (FIGURES / "scores.tsv").write_text("\n".join(rows) + "\n")
    sheet([(images[name], views[name]) for name in SHEET])
    assert not problems, "\n".join(problems)
    assert not engine.complaints(), engine.log
    assert not any("models/x" in line for line in engine.log.splitlines()), engine.log


def test_quake2_fills_the_skin_region_of_the_top_left_texel_with_black(bpy_scene, tmp_path, capsys):
    """The rule the manual warns of (Q2PRO ``src/refresh/images.c`` ``IMG_FloodFill`` on every 8-bit
    skin, the MD2's and the twin's): skin 0's first colour region touches the top-left texel, and the faces
    painted with it are drawn black; the other regions keep their colours. The export said so first."""
    engine_folder()
    capsys.readouterr()
    scene = Scene(bpy_scene, tmp_path, framed=False)
    said = [line for line in capsys.readouterr().out.splitlines() if "top-left texel" in line and "•" in line]
    assert len(said) == 1 and said[0].split("• ")[1].startswith("skins q2skin0.pcx, q2skin1.pcx: up to "), said
    frame = scene.frame("wave03")
    images, _ = shoot(scene, [("corner_md2", "x", frame, 0, 0), ("corner_md5", "x", frame, 0, 1)])
    raster = scene.raster(frame)
    skin = skin_pixels(0, framed=False)
    expected = texel_colours(raster, skin)
    region = erode(raster.mask, 2)
    in_corner = region & np.all(expected == skin[0, 0], axis=-1)
    elsewhere = region & ~in_corner
    assert in_corner.sum() > 500 and elsewhere.sum() > 500
    for name, image in images.items():
        figure(name, image, raster, 0)
        black = np.abs(image.astype(np.int64)).max(-1) <= 8
        right = np.abs(image.astype(np.int64) - expected).max(-1) <= COLOUR_TOLERANCE
        assert black[in_corner].mean() > COLOUR_SHARE, f"{name}: {black[in_corner].mean():.2f} of the corner's faces black"
        assert right[elsewhere].mean() > COLOUR_SHARE, f"{name}: {right[elsewhere].mean():.2f} of the others right"


BROKEN = {
    "short": "anim one frame short",
    "shifted": "anim frames shifted by one",
    "reordered": "anim joints reordered",
    "scale": "md5scale names a joint the anim lacks",
    "skin": "skin 0 missing under md5/",
}


def break_twin(folder, kind: str) -> None:
    md5 = folder / "md5"
    anim = md5 / "tris.md5anim"
    text = anim.read_text()
    if kind == "short":
        anim.write_text(anim_one_frame_short(text))
    elif kind == "shifted":
        anim.write_text(anim_shifted(text))
    elif kind == "reordered":
        anim.write_text(anim_reordered(text)[0])
    elif kind == "skin":
        head, _, name = parse_md2((folder / "tris.md2").read_bytes()).skins[0].rpartition("/")
        (md5 / name).unlink()                        # MD5_LoadSkins: the MD2's skin name with md5/ inserted
    else:
        (md5 / "tris.md5scale").write_text(scale_misnamed(md5 / "tris.md5scale"))


def test_broken_twins_fail_the_comparison_and_the_check(bpy_scene, tmp_path):
    engine_folder()
    scene = Scene(bpy_scene, tmp_path)
    for kind in BROKEN:
        break_twin(scene.export(kind), kind)
    # the frame each breakage shows at: the last (Q2PRO wraps it to anim frame 0: src/refresh/mesh.c
    # draw_alias_skeleton, newframenum % num_frames), any, any, one where a bone is scaled, any
    frames = {"short": len(scene.frame_names) - 1, "shifted": scene.frame("wave03"),
              "reordered": scene.frame("wave03"), "scale": scene.frame("grow04"), "skin": scene.frame("wave03")}
    shots = [(kind, kind, frames[kind], 0, 1) for kind in BROKEN]
    shots += [(f"{kind}_md2", kind, frames[kind], 0, 0) for kind in BROKEN]
    images, engine = shoot(scene, shots)
    scores, colours = {}, {}
    for name, _, frame, _, _ in shots:
        raster, drawn = scene.raster(frame), foreground(images[name])
        scores[name] = iou(drawn, raster.mask)
        colours[name] = colour_share(images[name], raster, 0, drawn) if scores[name] >= MATCH else 0.0
        figure(f"broken_{name}", images[name], raster, 0)
    (FIGURES / "broken_scores.tsv").write_text("".join(f"{name}\t{scores[name]:.3f}\t{colours[name]:.3f}\n"
                                                       for name in scores))
    matches = {name: scores[name] >= MATCH and colours[name] >= COLOUR_SHARE for name in scores}
    for kind, what in BROKEN.items():
        assert matches[f"{kind}_md2"], f"{what}: the MD2 beside it should still match ({scores}, {colours})"
        assert not matches[kind], f"{what}: Q2PRO drew it as Blender shows the frame ({scores}, {colours})"
    complaints = "\n".join(engine.complaints())
    assert "has less frames than models/short/tris.md2" in complaints, complaints
    assert 'No such joint "' in complaints and "models/scale/md5/tris.md5scale" in complaints, complaints
    # the same files, before the game: check --profile q2-enhanced
    flagged = {}
    for kind in BROKEN:
        run = cli("check", "--profile", "q2-enhanced", scene.game / "models" / kind, cwd=tmp_path)
        flagged[kind] = run.returncode != 0, run.stdout + run.stderr
    (FIGURES / "broken_check.txt").write_text("".join(f"== {kind}: exit {'1+' if bad else 0}\n{out}\n"
                                                      for kind, (bad, out) in flagged.items()) + complaints + "\n")
    good = cli("check", "--profile", "q2-enhanced", scene.folder, cwd=tmp_path)
    assert good.returncode == 0, good.stdout + good.stderr
    for kind in ("short", "reordered", "scale", "skin"):
        assert flagged[kind][0], f"check passed the {BROKEN[kind]}:\n{flagged[kind][1]}"
    # a shifted anim has the right frame count, joints and scales: only drawing it shows the offset
    assert not flagged["shifted"][0], flagged["shifted"][1]


def test_the_broken_twins_are_what_they_say(tmp_path):
    """The text edits of the negative proofs, on a small anim written here: counts, order, parents."""
    text = ('MD5Version 10\ncommandline ""\n\nnumFrames 3\nnumJoints 3\nframeRate 10\nnumAnimatedComponents 9\n\n'
            'hierarchy {\n\t"root"\t-1 7 0\n\t"mid"\t0 56 3\n\t"tail"\t0 7 6\n}\n\nbounds {\n'
            + "\t( 0 0 0 ) ( 1 1 1 )\n" * 3 + '}\n\nbaseframe {\n\t( 0 0 0 ) ( 0 0 0 )\n\t( 0 0 1 ) ( 0 0 0 )\n'
            '\t( 0 0 2 ) ( 0 0 0 )\n}\n\n'
            + "".join(f"frame {k} {{\n\t{k}.1 {k}.2 {k}.3 {k}.4 {k}.5 {k}.6 {k}.7 {k}.8 {k}.9\n}}\n\n" for k in range(3)))
    short = anim_one_frame_short(text)
    assert "numFrames 2" in short and "frame 2 {" not in short and short.count("( 0 0 0 ) ( 1 1 1 )") == 2
    shifted = anim_shifted(text)
    assert "frame 0 {\n\t1.1" in shifted and "frame 1 {\n\t2.1" in shifted and "frame 2 {\n\t2.1" in shifted
    reordered, names = anim_reordered(text)
    assert names == ["root", "tail", "mid"]
    assert '"tail"\t0 7 3' in reordered and '"mid"\t0 56 6' in reordered
    assert "frame 1 {\n\t1.1 1.2 1.3 1.7 1.8 1.9 1.4 1.5 1.6\n}" in reordered
    assert "baseframe {\n\t( 0 0 0 ) ( 0 0 0 )\n\t( 0 0 2 ) ( 0 0 0 )\n\t( 0 0 1 ) ( 0 0 0 )\n}" in reordered
    (tmp_path / "s.md5scale").write_text('{"top": {"1": 1.2}, "arm": {"1": 1.2}}')
    assert set(json.loads(scale_misnamed(tmp_path / "s.md5scale"))) == {"TOP", "arm"}
