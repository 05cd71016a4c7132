"""A Quake III player as the MD3 import assembles it (parts on their tags, animation.cfg as each part's
animation list and markers on the timeline, skin sets kept) exported as a player gives the folder back:
lower/upper/head.md3, their levels of detail, animation.cfg, every .skin file and the player's own icons
byte for byte; a skin set without an icon, and every set with *Render Icons*, gets icon_<skin>.tga
rendered: the head from the front, not a flat colour, opaque where the head's triangles project
(computed here from head.md3 itself) and clear away from them. Every player of
OpenArena's installed pk3s, imported from its pk3 and exported as a player, gives its files back too."""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest
from support.environment import corpus

from formats.md3.animation_cfg import parse_animation_cfg, write_animation_cfg
from formats.md3.codec import read_md3
from formats.md3.vertices import decode_xyz

PLAYERS = "md3/openarena081/models/players"
ICON = 128


def _import_and_export(bpy, folder, out, lods=False, **options):
    """Import the player of ``folder`` and export it as a player into ``out`` (the icons rendered anew)."""
    assert bpy.ops.import_scene.md3(filepath=str(folder / "lower.md3"), load_lods=lods) == {"FINISHED"}
    lower = next(o for o in bpy.data.objects if o.get("md3_root") == "lower" and not o.get("md3_lod"))
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == lower)
    bpy.context.view_layer.objects.active = lower
    assert bpy.ops.export_scene.md3(filepath=str(out / "lower.md3"), player=True, **options) == {"FINISHED"}


def _render(bpy, folder, out):
    _import_and_export(bpy, folder, out, render_icons=True)


@pytest.mark.parametrize("name, lods", [("merman", True), ("major", False), ("penguin", False)])
def test_imported_player_exports_its_folder_back(bpy_scene, tmp_path, name, lods):
    bpy = bpy_scene
    folder = corpus(f"{PLAYERS}/{name}/lower.md3").parent
    _import_and_export(bpy, folder, tmp_path, lods=lods)
    kept = sorted(p.name for p in folder.iterdir() if p.suffix in (".md3", ".skin", ".cfg"))
    icons = sorted(f"icon_{p.stem[len('head_'):]}.tga" for p in folder.glob("head_*.skin"))   # one per skin set
    assert {p.name for p in folder.glob("icon_*")} <= set(icons)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept + icons)
    own = sorted(p.name for p in folder.glob("icon_*"))        # the author's icons: kept byte for byte
    assert own
    for file in kept + own:
        assert (tmp_path / file).read_bytes() == (folder / file).read_bytes(), file
    for icon in set(icons) - set(own):                          # a set without one (major's leth): rendered
        data = (tmp_path / icon).read_bytes()
        assert (data[2], int.from_bytes(data[12:14], "little"), int.from_bytes(data[14:16], "little"),
                data[16]) == (2, ICON, ICON, 32)


def test_changed_animation_list_renumbers_animation_cfg(bpy_scene, tmp_path):
    """An animation moved in upper's list is written where the list now says; the rest keep the file's numbers."""
    bpy = bpy_scene
    folder = corpus(f"{PLAYERS}/major/lower.md3").parent
    assert bpy.ops.import_scene.md3(filepath=str(folder / "lower.md3")) == {"FINISHED"}
    upper = next(o for o in bpy.data.objects if o.get("md3_root") == "upper")
    item = next(a for a in upper.classic_model.animations if a.name.upper() == "TORSO_GESTURE")
    item.frame_start, item.frame_end = item.frame_start + 2, item.frame_end - 1
    lower = next(o for o in bpy.data.objects if o.get("md3_root") == "lower")
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == lower)
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / "lower.md3"), player=True) == {"FINISHED"}
    before = parse_animation_cfg((folder / "animation.cfg").read_bytes())
    after = parse_animation_cfg((tmp_path / "animation.cfg").read_bytes())
    changed = {a.name: (a.first, a.num) for a, b in zip(after.animations, before.animations) if a != b}
    gesture = next(a for a in before.animations if a.name == "TORSO_GESTURE")
    assert changed == {"TORSO_GESTURE": (gesture.first + 2, gesture.num - 3)}
    assert write_animation_cfg(after) != (folder / "animation.cfg").read_bytes()


def _projected_mask(head_md3: bytes, size: int) -> np.ndarray:
    """Pixels (row 0 at the top) whose centre lies inside a triangle of frame 0 of the head, seen from +X
    looking down -X (+Y to the right, +Z up) through a square view 1.1 times the head's larger extent."""
    model = read_md3(head_md3)
    points, triangles = [], []
    for surface in model.surfaces:
        triangles.append(surface.triangles + sum(len(p) for p in points))
        points.append(decode_xyz(surface.xyz[0]).astype(np.float64))
    every, triangles = np.concatenate(points), np.concatenate(triangles)
    low, high = every.min(axis=0), every.max(axis=0)
    centre, extent = (low + high) / 2, max(high[1] - low[1], high[2] - low[2]) * 1.1
    u = ((every[:, 1] - centre[1]) / extent + 0.5) * size
    v = (0.5 - (every[:, 2] - centre[2]) / extent) * size
    ys, xs = np.mgrid[0:size, 0:size] + 0.5
    mask = np.zeros((size, size), bool)
    for a, b, c in triangles:
        ax, ay, bx, by, cx, cy = u[a], v[a], u[b], v[b], u[c], v[c]
        area = (bx - ax) * (cy - ay) - (cx - ax) * (by - ay)
        if abs(area) < 1e-9:
            continue
        w1 = ((bx - xs) * (cy - ys) - (cx - xs) * (by - ys)) / area
        w2 = ((cx - xs) * (ay - ys) - (ax - xs) * (cy - ys)) / area
        mask |= (w1 >= 0) & (w2 >= 0) & (w1 + w2 <= 1)
    return mask


def _grown(mask: np.ndarray, steps: int) -> np.ndarray:
    out = mask.copy()
    for _ in range(steps):
        grown = out.copy()
        grown[1:] |= out[:-1]
        grown[:-1] |= out[1:]
        grown[:, 1:] |= out[:, :-1]
        grown[:, :-1] |= out[:, 1:]
        out = grown
    return out


def test_icon_is_the_head_seen_from_the_front(bpy_scene, tmp_path):
    bpy = bpy_scene
    folder = corpus(f"{PLAYERS}/merman/lower.md3").parent
    _render(bpy, folder, tmp_path)
    assert (tmp_path / "icon_default.tga").read_bytes() != (folder / "icon_default.tga").read_bytes()
    image = bpy.data.images.load(str(tmp_path / "icon_default.tga"))        # Blender's own TGA reader
    assert tuple(image.size) == (ICON, ICON)
    pixels = np.empty(ICON * ICON * 4, np.float32)
    image.pixels.foreach_get(pixels)
    rgba = pixels.reshape(ICON, ICON, 4)[::-1]                                # Blender's rows run bottom up
    mask = _projected_mask((folder / "head.md3").read_bytes(), ICON)
    assert mask.sum() > ICON * ICON / 8, "the head fills a good part of the icon"
    inside = ~_grown(~mask, 1)                                               # a pixel away from the outline
    outside = ~_grown(mask, 2)
    assert (rgba[..., 3][inside] > 0.99).mean() > 0.98, "opaque where the head projects"
    assert (rgba[..., 3][outside] < 0.01).mean() > 0.98, "clear away from it"
    shown = rgba[..., :3][inside]
    assert shown.std(axis=0).max() > 0.05, "the head's texture, not a flat colour"
    assert len(np.unique(np.round(shown * 255), axis=0)) > 50


def test_each_skin_sets_icon_wears_that_set(bpy_scene, tmp_path):
    """merman's red and blue sets name other head textures (skinred.tga, skinblue.tga): their icons have the
    default's outline but those colours (the head's mean colour nearer that texture's than the default's)."""
    bpy = bpy_scene
    folder = corpus(f"{PLAYERS}/merman/lower.md3").parent
    _render(bpy, folder, tmp_path)
    assert not [i.name for i in bpy.data.images if "classic_icon" in i.filepath or i.name.startswith("classic_icon")]
    icons, textures = {}, {}
    for name, texture in (("default", "skin.tga"), ("red", "skinred.tga"), ("blue", "skinblue.tga")):
        for key, path in (("icon", tmp_path / f"icon_{name}.tga"), ("texture", folder / texture)):
            image = bpy.data.images.load(str(path), check_existing=False)
            pixels = np.empty(image.size[0] * image.size[1] * 4, np.float32)
            image.pixels.foreach_get(pixels)
            (icons if key == "icon" else textures)[name] = pixels.reshape(image.size[1], image.size[0], 4)
            bpy.data.images.remove(image)
    opaque = icons["default"][..., 3] > 0.99
    mean = {n: icons[n][..., :3][opaque].mean(axis=0) for n in icons}
    for name in ("red", "blue"):
        assert np.array_equal(icons[name][..., 3] > 0.99, opaque), f"{name}: the same head"
        texture = textures[name][..., :3].reshape(-1, 3).mean(axis=0)
        default = textures["default"][..., :3].reshape(-1, 3).mean(axis=0)
        assert np.linalg.norm(mean[name] - texture) < np.linalg.norm(mean[name] - default), name
        assert np.abs(mean[name] - mean["default"]).max() > 0.02, name


def test_icon_of_a_player_made_in_blender_is_its_head(bpy_scene, tmp_path):
    """The rigged body of support.md3_scenes (an untextured box for a head): the icon is the head.md3 the
    export wrote (in tag_head's frame) seen from the front, flat grey on a clear background."""
    from support.md3_scenes import player_model
    bpy = bpy_scene
    objects, _, _ = player_model(bpy)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj.name in objects)
    bpy.context.view_layer.objects.active = objects["l_legs"]
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / "lower.md3"), player=True) == {"FINISHED"}
    image = bpy.data.images.load(str(tmp_path / "icon_default.tga"))
    pixels = np.empty(ICON * ICON * 4, np.float32)
    image.pixels.foreach_get(pixels)
    rgba = pixels.reshape(ICON, ICON, 4)[::-1]
    mask = _projected_mask((tmp_path / "head.md3").read_bytes(), ICON)
    assert (rgba[..., 3][~_grown(~mask, 1)] > 0.99).mean() > 0.98
    assert (rgba[..., 3][~_grown(mask, 2)] < 0.01).mean() > 0.98
    grey = 1.055 * 0.5 ** (1 / 2.4) - 0.055              # the unlit material's linear 0.5, as sRGB
    assert np.allclose(rgba[..., :3][~_grown(~mask, 1)], grey, atol=0.01), "the untextured head: grey"
    assert not any(s.name.startswith("classic_icon") for s in bpy.data.scenes), "the icon's scene is gone"
    assert not any(o.name.startswith("classic_icon") for o in bpy.data.objects)


BASEOA = Path("/usr/share/games/openarena/baseoa")
INSTALL = ("apt-get install openarena-data openarena-081-players openarena-085-data openarena-088-data "
           "(Debian's OpenArena data, GPL-2+)")


def baseoa_players() -> dict[str, dict[str, tuple[Path, str]]]:
    """Each player of the installed pk3s: lower-case file name -> (pk3, member) the game reads (a later pk3
    by name overriding an earlier one)."""
    players: dict[str, dict[str, tuple[Path, str]]] = {}
    for pk3 in sorted(BASEOA.glob("*.pk3"), key=lambda p: p.name.lower()) if BASEOA.is_dir() else []:
        with zipfile.ZipFile(pk3) as archive:
            for name in archive.namelist():
                parts = name.lower().split("/")
                if len(parts) == 4 and parts[:2] == ["models", "players"] and parts[3]:
                    players.setdefault(parts[2], {})[parts[3]] = (pk3, name)
    return {n: files for n, files in players.items() if "lower.md3" in files}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.sweep) for n in sorted(baseoa_players())] or
                         [pytest.param(None, marks=pytest.mark.skip(reason=f"OpenArena's data not installed: {INSTALL}"))])
def test_openarenas_players_export_from_their_pk3s_byte_for_byte(bpy_scene, tmp_path, name):
    """Imported from the pk3 the game reads lower.md3 from (the parts and side files from whichever pk3 wins
    for each), exported as a player: every .md3, .skin and animation.cfg the game reads comes back."""
    bpy = bpy_scene
    files = baseoa_players()[name]
    pk3, member = files["lower.md3"]
    models = [{"name": member, "format": "", "size": 0, "problem": "", "ticked": True}]
    assert bpy.ops.import_scene.game_archive(filepath=str(pk3), models=models) == {"FINISHED"}
    lower = next(o for o in bpy.data.objects if o.get("md3_root") == "lower")
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == lower)
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / "lower.md3"), player=True) == {"FINISHED"}
    kept = sorted(f for f in files if f.endswith((".md3", ".skin", ".cfg")) and not f[:-4].endswith(("_1", "_2")))
    written = {p.name.lower(): p for p in tmp_path.iterdir()}
    assert sorted(f for f in written if not f.startswith("icon_")) == kept
    own = [f for f in files if f.startswith("icon_")]       # the player's own icons, as the game reads them
    assert own and set(own) <= set(written)
    for file in kept + own:
        pk3, member = files[file]
        with zipfile.ZipFile(pk3) as archive:
            assert written[file].read_bytes() == archive.read(member), f"{file} ({pk3.name})"
