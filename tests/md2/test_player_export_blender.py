"""Quake II player exports read back (issues 25 and 26): a player made in the test (a rigged body, a
gun parented to a bone, actions named after Quake II's animations in mixed case, painted skins) and
the corpus player zarlag, exported as players; the written folder is decoded (MD2 codec, PCX
decoder) and checked against values computed here: the frame layout from the table in the issues,
icons 32x32 in the Quake II palette beside every skin, skins moved into the new player folder."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from support.actions import posed
from support.blender_helpers import reported
from support.environment import CORPUS
from support.md2_synthetic import grid_model
from support.players import TABLE, build_player, export_player, facing_x, select

from formats.images.pcx import decode_pcx
from formats.md2.codec import parse_md2, serialize_md2

ZARLAG = CORPUS / "md2" / "petaaar88-zarlag"


def quake2_rgb() -> np.ndarray:
    """The Quake II palette, read from the tab-separated table shipped with the codec."""
    rows = [line.split() for line in (Path(__file__).parents[2] / "formats" / "images" / "quake2_palette.tsv")
            .read_text().splitlines() if line.strip() and not line.startswith("#")]
    return np.array([[int(v) for v in row[-3:]] for row in rows], np.uint8)


def checked(extension, folder: Path) -> list[str]:
    from importlib import import_module
    deviations, errors = import_module(f"{extension}.cli.md2.player_check").check_player(folder)
    assert not errors
    return deviations


def dominant(rgb: np.ndarray) -> np.ndarray:
    """0 red, 1 green, 2 blue, -1 grey for each colour."""
    spread = rgb.max(axis=-1).astype(int) - rgb.min(axis=-1)
    return np.where(spread > 40, rgb.argmax(axis=-1), -1)


def test_player_made_in_blender_has_the_standard_layout_skins_and_icons(bpy_scene, tmp_path, extension):
    bpy = bpy_scene
    body, gun, rig, actions = build_player(bpy)
    scene = bpy.context.scene
    before = {"engine": scene.render.engine, "size": (scene.render.resolution_x, scene.render.resolution_y),
              "camera": scene.camera, "counts": [len(c) for c in (bpy.data.scenes, bpy.data.objects, bpy.data.meshes,
                                                                  bpy.data.materials, bpy.data.images,
                                                                  bpy.data.cameras)]}
    folder = tmp_path / "baseq2" / "players" / "hero"
    export_player(bpy, [body, gun], folder / "tris.md2", materials="ALTERNATE")
    # the user's scene is as it was: the icons were rendered in a scene of their own, now gone
    assert before == {"engine": scene.render.engine, "size": (scene.render.resolution_x, scene.render.resolution_y),
                      "camera": scene.camera, "counts": [len(c) for c in (bpy.data.scenes, bpy.data.objects,
                                                                          bpy.data.meshes, bpy.data.materials,
                                                                          bpy.data.images, bpy.data.cameras)]}
    tris, weapon = (parse_md2((folder / name).read_bytes()) for name in ("tris.md2", "weapon.md2"))
    mixed = {name.lower(): name for name in actions}
    expected = [f"{mixed[name]}{i:02d}" for name, count in TABLE for i in range(1, count + 1)]
    assert tris.frame_names == weapon.frame_names == expected                  # 198, in the game's order
    run = [i for i, n in enumerate(expected) if n.lower().startswith("run")]
    gun_run = posed(bpy, gun, rig, actions[mixed["run"]], range(1, 7))
    assert np.all(np.abs(weapon.positions()[run] - gun_run) <= weapon.frame_scale[run][:, None, :] / 2 + 1e-5)

    assert tris.skins == ["players/hero/hero.pcx", "players/hero/hero_green.pcx"]
    palette = quake2_rgb()
    for skin, colours in (("hero", {0, 2}), ("hero_green", {1})):
        icon = decode_pcx((folder / f"{skin}_i.pcx").read_bytes())
        assert icon.indices.shape == (32, 32)
        np.testing.assert_array_equal(icon.palette, palette)
        opaque = icon.indices != 255
        assert 0.1 < opaque.mean() < 0.95                   # the model on a transparent background
        seen = dominant(palette[icon.indices[opaque]])
        coloured = seen[seen >= 0]
        assert set(np.unique(coloured)) <= colours | {0, 2} if skin == "hero" else set(np.unique(coloured)) <= colours
        assert np.isin(coloured, list(colours)).mean() > 0.9 and len(coloured) > 50
    assert sorted(p.name for p in folder.iterdir()) == ["gun.pcx", "hero.pcx", "hero_green.pcx", "hero_green_i.pcx",
                                                         "hero_i.pcx", "tris.md2", "weapon.md2"]
    assert checked(extension, folder) == []                                    # check --profile q2-player: clean
    (folder / "hero_green_i.pcx").unlink()
    assert checked(extension, folder) == [
        "skin 'hero_green.pcx' has no icon 'hero_green_i.pcx': Quake II's player menu does not list this skin"]


def test_supplied_icons_win_and_existing_ones_are_kept(bpy_scene, tmp_path):
    bpy = bpy_scene
    body, gun, rig, actions = build_player(bpy, [("stand", 3)], second_skin=False)
    palette = quake2_rgb()
    supplied = bpy.data.images.new("hero_i.png", 16, 16, alpha=True)       # scaled to 32x32
    supplied.pixels.foreach_set(np.tile([*(palette[208] / 255.0), 1.0], 16 * 16).astype(np.float32))
    folder = tmp_path / "baseq2" / "players" / "hero"
    export_player(bpy, [body, gun], folder / "tris.md2")
    icon = decode_pcx((folder / "hero_i.pcx").read_bytes())
    assert icon.indices.shape == (32, 32) and np.all(icon.indices == 208)
    bpy.data.images.remove(supplied)
    (folder / "hero_i.pcx").write_bytes(b"made by hand")
    export_player(bpy, [body, gun], folder / "tris.md2")                      # Keep or Render keeps it
    assert (folder / "hero_i.pcx").read_bytes() == b"made by hand"
    export_player(bpy, [body, gun], folder / "tris.md2", icons="RENDER")
    assert decode_pcx((folder / "hero_i.pcx").read_bytes()).indices.shape == (32, 32)
    (folder / "hero_i.pcx").unlink()
    export_player(bpy, [body, gun], folder / "tris.md2", icons="NONE")
    assert not (folder / "hero_i.pcx").exists()


def test_standard_actions_come_first_and_the_others_follow_in_list_order(bpy_scene, tmp_path):
    bpy = bpy_scene
    body, gun, rig, actions = build_player(bpy, [("idle", 2), ("Aaa", 2), ("RUN", 6), ("Stand", 3)],
                                           second_skin=False)
    folder = tmp_path / "players" / "hero"
    export_player(bpy, [body, gun], folder / "tris.md2", skins="NAMES")
    order = [n.rstrip("0123456789") for n in parse_md2((folder / "tris.md2").read_bytes()).frame_names]
    assert list(dict.fromkeys(order)) == ["Stand", "RUN", "Aaa", "idle"]
    scene = bpy.context.scene
    scene.classic_export_actions.clear()
    for name in ("idle", "RUN", "Aaa", "Stand"):                               # the user's list
        scene.classic_export_actions.add().name = name
    export_player(bpy, [body, gun], folder / "tris.md2", skins="NAMES")
    order = [n.rstrip("0123456789") for n in parse_md2((folder / "tris.md2").read_bytes()).frame_names]
    assert list(dict.fromkeys(order)) == ["Stand", "RUN", "idle", "Aaa"]
    # a plain MD2 export whose actions are all standard names gets the game's order by default too
    scene.classic_export_actions.clear()
    bpy.data.actions.remove(actions["idle"])
    bpy.data.actions.remove(actions["Aaa"])
    select(bpy, [body])
    assert bpy.ops.export_scene.md2(filepath=str(tmp_path / "body.md2"), frame_source="ACTIONS",
                                    skins="NAMES") == {"FINISHED"}
    order = [n.rstrip("0123456789") for n in parse_md2((tmp_path / "body.md2").read_bytes()).frame_names]
    assert list(dict.fromkeys(order)) == ["Stand", "RUN"]


@pytest.mark.parametrize("rate, last, message", [
    # 96 scene frames at 24 fps: every frame gives 96; every 2.4 frames floor(95 / 2.4) + 1 = 40 and the
    # end pose (the action ends elsewhere than it starts, frame 96 is passed by): 41, so not Game
    ("SCENE", 96, "stand: 96 frames from action 'Stand' (frames 1-96) at Frame Rate: Every Frame, each frame of the "
                  "24 fps scene; expected 40: make the action frames 1-40"),
    # 48 frames at the game rate: floor(47 / 2.4) + 1 = 20 and the end pose, 21; 40 are 39 steps and the end
    # pose, the end between 1 + 38 * 2.4 = 92.2 and 94.6: 1-94 the longest
    ("GAME", 48, "stand: 21 frames from action 'Stand' (frames 1-48) at Frame Rate: Game, one frame every 0.1 s "
                 "(every 2.4 frames of the 24 fps scene); expected 40: make the action frames 1-94, 4.0 s in the game")])
def test_a_wrong_length_says_why_and_what_gives_the_expected_count(bpy_scene, tmp_path, capfd, rate, last, message):
    bpy = bpy_scene
    body, gun, rig, actions = build_player(bpy, [("Stand", last)], second_skin=False)
    bpy.context.scene.render.fps = 24
    export_player(bpy, [body, gun], tmp_path / "tris.md2", skins="NAMES", frame_rate=rate)
    warned, messages = reported(capfd.readouterr().out)
    assert "Quake II player: tris.md2: 1 animation of the wrong length: stand" in warned
    assert f"Quake II player: {message}" in messages
    # the range the hint gives writes the expected count (a manual frame range wins)
    action = actions["Stand"]
    action.use_frame_range = True
    action.frame_start, action.frame_end = 1, int(message.split("make the action frames 1-")[1].split(",")[0])
    export_player(bpy, [body, gun], tmp_path / "tris.md2", skins="NAMES", frame_rate=rate)
    assert "stand:" not in capfd.readouterr().out
    names = parse_md2((tmp_path / "tris.md2").read_bytes()).frame_names
    assert sum(n.lower().startswith("stand") for n in names) == 40


def player_folder(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """A small player: body and weapon with the same standard frames (built here, not Blender's)."""
    folder = tmp_path / "src" / "players" / "grid"
    folder.mkdir(parents=True)
    data = {}
    for seed, name in enumerate(("tris.md2", "weapon.md2"), 1):
        model = grid_model(nx=3 + seed, frames=6, seed=seed)
        model.frame_names = ["stand01", "stand02", "run1", "run2", "run3", "pain101"]
        model.skins = [f"players/grid/{Path(name).stem}.pcx"]
        data[name] = serialize_md2(model)
        (folder / name).write_bytes(data[name])
    return folder, data


def imported_player(bpy, path: Path) -> list:
    assert bpy.ops.import_scene.md2(filepath=str(path), animations="ACTIONS") == {"FINISHED"}
    return sorted((o for o in bpy.context.view_layer.objects if o.type == "MESH"), key=lambda o: o.name)


@pytest.mark.parametrize("source", ["built", "zarlag"])
def test_player_imported_with_actions_exports_untouched_byte_for_byte(bpy_scene, tmp_path, source):
    """Issue 25: the weapon's actions (stand.001 ...) used to be written as the body's frames too."""
    bpy = bpy_scene
    if source == "zarlag":
        if not (ZARLAG / "tris.md2").is_file():
            pytest.skip(f"corpus player {ZARLAG} not found")
        folder, data = ZARLAG, {n: (ZARLAG / n).read_bytes() for n in ("tris.md2", "weapon.md2")}
    else:
        folder, data = player_folder(tmp_path)
    body, weapon = imported_player(bpy, folder / "tris.md2")
    assert any(a.name.endswith(".001") for a in bpy.data.actions)         # the weapon's actions, named alike
    for frames in ("ACTIONS", "TIMELINE"):
        for player in (True, False):
            out = tmp_path / f"out_{frames}_{player}"
            select(bpy, [body, weapon] if player else [body])
            out.mkdir()
            assert bpy.ops.export_scene.md2(filepath=str(out / "tris.md2"), player=player, frame_source=frames,
                                            skins="NAMES") == {"FINISHED"}
            assert (out / "tris.md2").read_bytes() == data["tris.md2"], (frames, player)
            if player:
                assert (out / "weapon.md2").read_bytes() == data["weapon.md2"], frames
        select(bpy, [weapon])                                  # the weapon alone: its own actions only
        assert bpy.ops.export_scene.md2(filepath=str(tmp_path / f"weapon_{frames}.md2"), frame_source=frames,
                                        skins="NAMES") == {"FINISHED"}
        assert (tmp_path / f"weapon_{frames}.md2").read_bytes() == data["weapon.md2"], frames


def test_real_player_saved_as_a_new_one_takes_its_skins_and_icons(bpy_scene, tmp_path, extension):
    """Issue 26: zarlag exported to players/zarlag2/: skin names there, every skin and icon copied."""
    bpy = bpy_scene
    if not (ZARLAG / "tris.md2").is_file():
        pytest.skip(f"corpus player {ZARLAG} not found")
    source = tmp_path / "baseq2" / "players" / "zarlag"
    shutil.copytree(ZARLAG, source)
    objects = imported_player(bpy, source / "tris.md2")
    folder = tmp_path / "baseq2" / "players" / "zarlag2"
    export_player(bpy, objects, folder / "tris.md2", frame_source="TIMELINE")
    tris, weapon = (parse_md2((folder / n).read_bytes()) for n in ("tris.md2", "weapon.md2"))
    assert tris.skins == ["players/zarlag2/zarlag.pcx"]                      # was models/maxx/skin.pcx
    assert weapon.skins == ["players/zarlag2/WEAPON.pcx"] * 2               # was players\zarlag\Weapon.pcx
    for written, original in (("zarlag.pcx", "zarlag.pcx"), ("zarlag_i.pcx", "zarlag_i.pcx"),
                              ("WEAPON.pcx", "WEAPON.PCX")):
        assert (folder / written).read_bytes() == (ZARLAG / original).read_bytes(), written
    original = parse_md2((ZARLAG / "tris.md2").read_bytes())
    assert tris.frame_names == original.frame_names
    np.testing.assert_array_equal(tris.frame_verts, original.frame_verts)    # the frames are untouched
    assert checked(extension, folder) == []
    assert sorted(p.name for p in source.iterdir()) == sorted(p.name for p in ZARLAG.iterdir())   # source left alone
    # written back where it came from, untouched: its stored names and bytes, its own skin and icon kept
    export_player(bpy, objects, source / "tris.md2", frame_source="TIMELINE")
    for name in ("tris.md2", "weapon.md2", "zarlag.pcx", "zarlag_i.pcx"):
        assert (source / name).read_bytes() == (ZARLAG / name).read_bytes(), name
    icons = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*_i.pcx"))
    assert icons == ["baseq2/players/zarlag/zarlag_i.pcx", "baseq2/players/zarlag2/zarlag_i.pcx"]


def test_a_render_of_the_user_stays_in_its_slot(bpy_scene, tmp_path):
    bpy = bpy_scene
    body, gun, rig, actions = build_player(bpy, [("stand", 2)], second_skin=False)
    scene = bpy.context.scene
    camera = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    scene.collection.objects.link(camera)
    scene.camera, camera.location = camera, (10, 0, 2)
    scene.render.engine, scene.render.resolution_x, scene.render.resolution_y = "CYCLES", 8, 8
    scene.cycles.samples = 1
    scene.cycles.use_denoising = False          # Debian's Blender is built without OpenImageDenoise
    bpy.ops.render.render()
    result = bpy.data.images["Render Result"]
    slots = [s.name for s in result.render_slots]
    export_player(bpy, [body, gun], tmp_path / "players" / "hero" / "tris.md2")
    assert (tmp_path / "players" / "hero" / "hero_i.pcx").is_file()
    assert result.render_slots.active_index == 0                  # the user's slot is still the one shown
    assert [s.name for s in result.render_slots][:len(slots)] == slots


def test_player_from_an_archive_saved_as_a_new_one_copies_its_members(bpy_scene, tmp_path):
    """The skin and its icon come from the archive members the import read (pak0.pak:players/grid/...)."""
    from formats.archives.archive import write_archive
    from formats.images.pcx import encode_pcx
    bpy = bpy_scene
    palette = quake2_rgb()
    _, data = player_folder(tmp_path)
    model = parse_md2(data["tris.md2"])
    skin = encode_pcx(np.full((model.skin_height, model.skin_width), 208, np.uint8), palette)
    icon = encode_pcx(np.arange(32 * 32, dtype=np.uint32).reshape(32, 32).astype(np.uint8) % 200, palette)
    model.skins = ["players/grid/blue.pcx"]
    files = [("players/grid/tris.md2", serialize_md2(model)), ("players/grid/weapon.md2", data["weapon.md2"]),
             ("players/grid/blue.pcx", skin), ("players/grid/blue_i.pcx", icon)]
    archive = tmp_path / "game" / "baseq2" / "pak0.pak"
    archive.parent.mkdir(parents=True)
    write_archive(archive, files)
    assert bpy.ops.import_scene.game_archive(filepath=str(archive), models=[{
        "name": "players/grid/tris.md2", "format": "", "size": 0, "problem": "", "ticked": True}]) == {"FINISHED"}
    objects = [o for o in bpy.context.view_layer.objects if o.type == "MESH"]
    assert sorted(o.name for o in objects) == ["tris", "weapon"]
    folder = tmp_path / "out" / "baseq2" / "players" / "grid2"
    export_player(bpy, objects, folder / "tris.md2", frame_source="TIMELINE")
    assert parse_md2((folder / "tris.md2").read_bytes()).skins == ["players/grid2/blue.pcx"]
    assert (folder / "blue.pcx").read_bytes() == skin and (folder / "blue_i.pcx").read_bytes() == icon


def test_an_icon_that_cannot_be_rendered_writes_nothing(bpy_scene, tmp_path, extension, monkeypatch):
    from importlib import import_module
    bpy = bpy_scene
    body, gun, rig, actions = build_player(bpy, [("stand", 2)], second_skin=False)

    def failing(*args, **kwargs):
        raise RuntimeError("Error: no render engine")
    monkeypatch.setattr(import_module(f"{extension}.exporters.md2.player_icons"), "render_icons", failing)
    folder = tmp_path / "players" / "hero"
    folder.mkdir(parents=True)
    select(bpy, [body, gun])
    with pytest.raises(RuntimeError, match="could not render the skins' menu icons .* Icons: None"):
        bpy.ops.export_scene.md2(filepath=str(folder / "tris.md2"), player=True, frame_source="ACTIONS")
    assert not any(folder.iterdir())


def test_a_still_weapon_keeps_the_moving_bodys_frames_on_the_timeline(bpy_scene, tmp_path):
    """A player's models share one frame list: a weapon that does not move beside a body that does is
    not cut to one frame (a still model is written as one frame only outside a player export)."""
    bpy = bpy_scene
    body = facing_x(bpy, "hero", [-1.0, 0.0, 1.0], [0.0, 1.0, 2.0])
    gun = facing_x(bpy, "weapon", [0.6, 1.0], [1.0, 1.4], x=0.3)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end, scene.render.fps, scene.render.fps_base = 1, 20, 10, 1.0
    body.keyframe_insert("location", frame=1)
    body.location.z += 2.0
    body.keyframe_insert("location", frame=20)
    folder = tmp_path / "players" / "hero"
    export_player(bpy, [body, gun], folder / "tris.md2", frame_source="TIMELINE", icons="NONE")
    tris, weapon = (parse_md2((folder / name).read_bytes()) for name in ("tris.md2", "weapon.md2"))
    assert tris.num_frames == 20
    assert weapon.num_frames == 20
    assert np.ptp(tris.positions()[:, :, 2].mean(axis=1)) > 1.9     # the body moves 2 units up
    assert np.ptp(weapon.positions()[:, :, 2].mean(axis=1)) < 1e-3  # the weapon stays where it is
