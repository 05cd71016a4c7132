"""A Quake II player folder whose weapon models are longer and shorter than the body (issue 19: a
229-frame ``tris.md2`` beside a 348-frame ``w_none.md2``): importing the player with its weapons
changes nothing the body's export writes, and each weapon's export writes its own frames, byte for
byte. Models built here."""
from __future__ import annotations

import numpy as np
import pytest
from support.md2_synthetic import grid_model
from support.operators import export_md2, import_md2

from formats.md2.codec import parse_md2, serialize_md2

FRAMES = {"tris.md2": 6, "w_long.md2": 11, "weapon.md2": 3}


@pytest.fixture
def player(tmp_path):
    folder = tmp_path / "players" / "grunt"
    folder.mkdir(parents=True)
    data = {}
    for seed, (name, frames) in enumerate(FRAMES.items(), 1):
        model = grid_model(nx=3 + seed, frames=frames, seed=seed)
        data[name] = serialize_md2(model)
        (folder / name).write_bytes(data[name])
    return folder, data


def test_body_and_each_weapon_export_their_own_frames(bpy_scene, tmp_path, player):
    bpy = bpy_scene
    folder, data = player
    body = import_md2(bpy, folder / "tris.md2")
    weapons = {o.name: o for o in body.children}
    assert sorted(weapons) == ["w_long", "weapon"]
    scene = bpy.context.scene
    assert scene.frame_end - scene.frame_start + 1 == max(FRAMES.values())    # the range covers the longest
    assert export_md2(bpy, body, tmp_path / "out" / "tris.md2") == data["tris.md2"]
    for name, obj in weapons.items():
        assert export_md2(bpy, obj, tmp_path / "out" / f"{name}.md2") == data[f"{name}.md2"], name
    assert export_md2(bpy, body, tmp_path / "out" / "keys.md2", frame_source="SHAPE_KEYS") == data["tris.md2"]


def test_a_retimed_body_still_follows_the_scene_range(bpy_scene, tmp_path, player):
    """Once the body's own frames are moved on the timeline, the scene range decides again."""
    bpy = bpy_scene
    folder, data = player
    body = import_md2(bpy, folder / "tris.md2")
    action = body.data.shape_keys.animation_data.action
    fcurves = action.fcurves if hasattr(action, "fcurves") else None
    if fcurves is None:
        from bpy_extras import anim_utils
        fcurves = anim_utils.action_get_channelbag_for_slot(
            action, body.data.shape_keys.animation_data.action_slot).fcurves
    for fcurve in fcurves:                          # play every frame one scene frame later
        for point in fcurve.keyframe_points:
            point.co.x += 1
            point.handle_left.x += 1
            point.handle_right.x += 1
    out = parse_md2(export_md2(bpy, body, tmp_path / "out" / "tris.md2"))
    assert out.num_frames == max(FRAMES.values())
    original = parse_md2(data["tris.md2"])
    np.testing.assert_array_equal(out.frame_verts[1:FRAMES["tris.md2"] + 1], original.frame_verts)


def test_an_mdl_beside_a_longer_md2_exports_its_own_frames(bpy_scene, tmp_path, player):
    """The rule is the Timeline export's, not the player import's: an MDL sharing the scene with a
    longer model writes its own poses too."""
    from support.mdl_models import mixed_model
    from support.operators import export_mdl, import_mdl

    from formats.mdl.codec import serialize_mdl
    bpy = bpy_scene
    folder, data = player
    import_md2(bpy, folder / "w_long.md2")
    mdl = serialize_mdl(mixed_model())
    (tmp_path / "m.mdl").write_bytes(mdl)
    obj = import_mdl(bpy, tmp_path / "m.mdl")
    scene = bpy.context.scene
    assert scene.frame_end - scene.frame_start + 1 == FRAMES["w_long.md2"] > len(obj.classic_model.frames)
    assert export_mdl(bpy, obj, tmp_path / "out.mdl") == mdl


def export_player(bpy, objects, path, **options) -> None:
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objects[0]
    path.parent.mkdir(parents=True, exist_ok=True)
    assert bpy.ops.export_scene.md2(filepath=str(path), player=True, skins="NAMES", **options) == {"FINISHED"}


LACKS = ("weapon.md2: 3 frames, tris.md2 has 6; it lacks body frames 3-5 ('run1' to 'run3'), where Quake II "
         "draws its frame 0 and prints 'no such frame' (R_DrawAliasModel)")
NEVER_SHOWN = ("w_long.md2: 11 frames, tris.md2 has 6; its frames 6-10 are never shown (Quake II draws a weapon "
               "at the body's frame)")


@pytest.mark.parametrize("animations", ["TIMELINE", "ACTIONS"])
def test_player_export_writes_each_weapon_with_its_own_frames(bpy_scene, tmp_path, player, capfd, animations):
    """Issue 29: a player whose weapons have fewer and more frames than the body was refused as a
    Quake II Player ("a weapon needs the same frames as the body"), even untouched. Untouched, every
    file is written byte for byte, and the report says which body frames the short weapon lacks."""
    bpy = bpy_scene
    folder, data = player
    body = import_md2(bpy, folder / "tris.md2", animations=animations)
    weapons = sorted(body.children, key=lambda o: o.name)
    frames = "ACTIONS" if animations == "ACTIONS" else "TIMELINE"
    export_player(bpy, [body, *weapons], tmp_path / "out" / "tris.md2", frame_source=frames)
    for name in FRAMES:
        assert (tmp_path / "out" / name).read_bytes() == data[name], name
    report = capfd.readouterr().out
    assert f"Quake II player: {LACKS}" in report
    assert f"Quake II player: {NEVER_SHOWN}" in report


def test_an_edited_weapon_keeps_its_own_frame_count(bpy_scene, tmp_path, player):
    """A weapon whose frames are its own but edited keeps its 3 frames beside the 6-frame body; the
    edited frame holds the new position, and the frames no file changed keep their bytes."""
    bpy = bpy_scene
    folder, data = player
    body = import_md2(bpy, folder / "tris.md2")
    weapon = next(o for o in body.children if o.name == "weapon")
    key = weapon.data.shape_keys.key_blocks["stand01"]
    moved = np.array(key.data[0].co) + (0.0, 0.0, 5.0)
    key.data[0].co = moved
    export_player(bpy, [body, *body.children], tmp_path / "out" / "tris.md2")
    out = {name: parse_md2((tmp_path / "out" / name).read_bytes()) for name in FRAMES}
    original = {name: parse_md2(data[name]) for name in FRAMES}
    for name, model in out.items():
        assert model.frame_names == original[name].frame_names, name
    weapon_out = out["weapon.md2"]
    decoded = weapon_out.frame_verts[0, 0] * weapon_out.frame_scale[0] + weapon_out.frame_translate[0]
    np.testing.assert_allclose(decoded, moved, atol=float(weapon_out.frame_scale[0].max()) / 2 + 1e-4)
    for name in FRAMES:                       # frame 0 shares the union grid; every other frame is untouched
        np.testing.assert_array_equal(out[name].frame_verts[1:], original[name].frame_verts[1:], err_msg=name)


def test_a_weapon_made_in_blender_needs_the_bodys_count(bpy_scene, tmp_path, player):
    """Frames Blender samples anew (a weapon made in Blender over the 11-frame scene range) must be
    the body's: the refusal says so."""
    bpy = bpy_scene
    folder, _ = player
    body = import_md2(bpy, folder / "tris.md2")
    bpy.ops.mesh.primitive_cube_add(size=4.0)
    gun = bpy.context.active_object
    gun.name = "weapon_new"
    for other in bpy.context.view_layer.objects:
        other.select_set(other in (body, gun))
    with pytest.raises(RuntimeError, match="weapon.md2 would get 11 frames sampled in Blender, tris.md2 6"):
        bpy.ops.export_scene.md2(filepath=str(tmp_path / "out" / "tris.md2"), player=True, skins="NAMES")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_weapon_exported_alone_follows_its_new_folder(bpy_scene, tmp_path):
    """Issue 29: a weapon whose skin is named ``players/Jetfire/weapon.pcx`` (the folder is
    ``players/jetfire``) exported alone into ``players/jetfire2`` kept that name and made a second
    folder ``players/Jetfire``. Its skin now follows the new folder, and an edited skin written back to
    its own folder goes into ``players/jetfire``, folder names compared without case."""
    from formats.images.palette import quake2_palette
    from formats.images.pcx import decode_pcx, encode_pcx
    bpy = bpy_scene
    game = tmp_path / "baseq2"
    folder = game / "players" / "jetfire"
    folder.mkdir(parents=True)
    model = grid_model(nx=4, frames=3, seed=7)
    model.skins = ["players/Jetfire/weapon.pcx"]
    (folder / "weapon.md2").write_bytes(serialize_md2(model))
    pixels = np.arange(64 * 32, dtype=np.uint8).reshape(32, 64) % 200
    (folder / "weapon.pcx").write_bytes(encode_pcx(pixels, quake2_palette()))
    weapon = import_md2(bpy, folder / "weapon.md2")
    new = game / "players" / "jetfire2" / "weapon.md2"
    written = parse_md2(export_md2(bpy, weapon, new))
    assert written.skins == ["players/jetfire2/weapon.pcx"]
    assert (new.parent / "weapon.pcx").read_bytes() == (folder / "weapon.pcx").read_bytes()
    image = next(i for i in bpy.data.images if i.size[0] == 64)
    rgba = np.empty(32 * 64 * 4, np.float32)
    image.pixels.foreach_get(rgba)
    rgba = rgba.reshape(32, 64, 4)
    rgba[:, :, :3] = 1.0 - rgba[:, :, :3]                  # paint: every pixel changes
    image.pixels.foreach_set(rgba.ravel())
    back = parse_md2(export_md2(bpy, weapon, folder / "weapon.md2", skins="PCX"))
    assert back.skins == ["players/Jetfire/weapon.pcx"]        # the same folder, any case: the name is kept
    assert sorted(p.name for p in (game / "players").iterdir()) == ["jetfire", "jetfire2"]
    assert not np.array_equal(decode_pcx((folder / "weapon.pcx").read_bytes()).indices, pixels)
