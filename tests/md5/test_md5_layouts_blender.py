"""MD5 beside its classic model, built small in the test (the re-releases' own files are not free): the Quake
re-release's ``progs/m.mdl`` + ``progs/m.md5mesh`` + ``progs/m.md5anim`` + ``progs/m_00_00.lmp`` in a
``.pak`` opened by the Game Archive dialog, and the Quake II remaster's ``models/m/tris.md2`` +
``models/m/md5/tris.md5mesh`` + ``.md5anim`` + the MD2's skin under ``md5/``, loose."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from support.archive_builders import pack_bytes
from support.environment import CORPUS
from support.md2_reference import decode as decode_md2
from support.md5_rig import turning_anim
from support.mdl_reference import decode as decode_mdl

MESH = CORPUS / "md5/redeclipse/data/luckystrike/door1/mesh.md5mesh"
MDL = CORPUS / "mdl/librequake/oldone.mdl"


def _lmp(width: int, height: int) -> tuple[np.ndarray, bytes]:
    indices = (np.arange(width * height) % 256).astype(np.uint8).reshape(height, width)
    return indices, np.array([width, height], "<u4").tobytes() + indices.tobytes()


def _root(bpy):
    return next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")


def test_quake_rerelease_layout_in_a_pak(bpy_scene, tmp_path):
    if not (MESH.is_file() and MDL.is_file()):
        pytest.skip(f"corpus files {MESH} or {MDL} not found")
    bpy = bpy_scene
    reference = decode_mdl(MDL.read_bytes())
    names = [f.poses[0].name_raw.split(b"\0")[0].decode("latin-1") for f in reference.frames]
    mesh_text = re.sub(rb'shader "[^"]*"', b'shader "m"', MESH.read_bytes())     # the bare model name
    indices, lmp = _lmp(16, 16)
    second, second_lmp = _lmp(8, 4)
    archive = tmp_path / "pak0.pak"
    archive.write_bytes(pack_bytes([("progs/m.mdl", MDL.read_bytes()), ("progs/m.md5mesh", mesh_text),
                                    ("progs/m.md5anim", turning_anim(mesh_text, len(names))),
                                    ("progs/m_00_00.lmp", lmp), ("progs/m_00_01.lmp", lmp),
                                    ("progs/m_01_00.lmp", second_lmp)]))
    entry = {"name": "progs/m.md5mesh", "format": "", "size": 0, "problem": "", "ticked": True}
    assert bpy.ops.import_scene.game_archive(filepath=str(archive), models=[entry]) == {"FINISHED"}
    root = _root(bpy)
    assert root["md5_classic"] == "progs/m.mdl"
    assert [f.name for f in root.classic_model.frames] == names
    # markers and the list: one per run of frames sharing a name without its digits, at anim frame k
    stems = [n.rstrip("0123456789") or n for n in names]
    starts = [k for k in range(len(stems)) if k == 0 or stems[k] != stems[k - 1]]
    start = root.classic_model.frame_offset
    markers = sorted((m.frame, m.name) for m in bpy.context.scene.timeline_markers)
    assert markers == sorted((start + k, stems[k]) for k in starts)
    assert [a.name for a in root.classic_model.animations] == [stems[k] for k in starts]
    action = root.animation_data.action
    assert action["md5_anim_file"] == "progs/m.md5anim"
    # the sidebar's frame table: the index and the editable name (these frames are no shape keys)
    from support.blender_helpers import RecordingLayout
    layout = RecordingLayout()
    settings = root.classic_model
    bpy.types.CLASSIC_MODELS_UL_frames.draw_item(None, bpy.context, layout, settings, settings.frames[2], 0,
                                                 settings, "active_frame", 2)
    assert layout.lines == ["2", "prop name"]
    # the skin: the mesh's shader is "m": progs/m_00_00.lmp in Quake's palette, fullbright 224-255 masked
    from formats.images.palette import game_palette
    block = next(o for o in root.children if o.type == "MESH")
    material = block.data.materials[0]
    images = [n.image for n in material.node_tree.nodes if n.type == "TEX_IMAGE"]
    colour = next(i for i in images if not i.name.endswith("Fullbright"))
    mask = next(i for i in images if i.name.endswith("Fullbright"))
    pixels = np.empty(16 * 16 * 4, np.float32)
    colour.pixels.foreach_get(pixels)
    rgb = np.rint(pixels.reshape(16, 16, 4)[::-1, :, :3] * 255).astype(np.uint8)
    assert np.array_equal(rgb, game_palette("QUAKE")[indices])
    mask.pixels.foreach_get(pixels)
    assert np.array_equal(pixels.reshape(16, 16, 4)[::-1, :, 0] > 0.5, indices >= 224)
    # skin 1 (progs/m_01_00.lmp) is the block's second material; the skin frame m_00_01 is skin 0's second
    # group image (tests/md5/test_md5_quake_skins_blender.py checks frames and glow in detail)
    assert len(block.data.materials) == 2
    other = next(n.image for n in block.data.materials[1].node_tree.nodes
                 if n.type == "TEX_IMAGE" and not n.image.name.endswith("Fullbright"))
    assert tuple(other.size) == (8, 4)
    pixels = np.empty(8 * 4 * 4, np.float32)
    other.pixels.foreach_get(pixels)
    rgb = np.rint(pixels.reshape(4, 8, 4)[::-1, :, :3] * 255).astype(np.uint8)
    assert np.array_equal(rgb, game_palette("QUAKE")[second])
    assert material.node_tree.nodes["mdl_skin_1"].image.name == "m_00_01"
    assert list(material["mdl_skin_intervals"]) == pytest.approx([0.1, 0.2])


def test_quake2_remaster_layout_loose(bpy_scene, tmp_path):
    """models/m/md5/tris.md5mesh beside models/m/tris.md2: the MD2's frame names, and its first skin with md5/
    put before the file name (Q2PRO MD5_LoadSkins), found at that path in the game folder."""
    md2 = CORPUS / "md2/petaaar88-zarlag/tris.md2"
    pcx = md2.parent / "zarlag.pcx"
    if not (md2.is_file() and pcx.is_file() and (md2.parent / "Zlwred.pcx").is_file() and MESH.is_file()):
        pytest.skip("corpus tris.md2, zarlag.pcx or the door1 mesh not found")
    bpy = bpy_scene
    reference = decode_md2(md2.read_bytes())
    names = list(reference.frame_names)
    skin = reference.skins[0].replace("\\", "/")
    folder = tmp_path / "models" / "m"
    (folder / "md5").mkdir(parents=True)
    (folder / "tris.md2").write_bytes(md2.read_bytes())
    mesh_text = MESH.read_bytes()
    (folder / "md5" / "tris.md5mesh").write_bytes(mesh_text)
    (folder / "md5" / "tris.md5anim").write_bytes(turning_anim(mesh_text, len(names)))
    stored = tmp_path / skin                        # the MD2's own skin: a decoy, the MD5 draws md5/<name>
    stored.parent.mkdir(parents=True, exist_ok=True)
    stored.write_bytes((md2.parent / "Zlwred.pcx").read_bytes())
    (stored.parent / "md5").mkdir()
    (stored.parent / "md5" / stored.name).write_bytes(pcx.read_bytes())
    assert bpy.ops.import_scene.md5(filepath=str(folder / "md5" / "tris.md5mesh")) == {"FINISHED"}
    root = _root(bpy)
    assert Path(root["md5_classic"]).name == "tris.md2"
    assert [f.name for f in root.classic_model.frames] == names
    assert root.classic_model.animations[0].frame_start == root.classic_model.frame_offset
    from formats.images.pcx import decode_pcx
    picture = decode_pcx(pcx.read_bytes())
    block = next(o for o in root.children if o.type == "MESH")
    image = next(n.image for n in block.data.materials[0].node_tree.nodes if n.type == "TEX_IMAGE")
    height, width = picture.indices.shape
    assert tuple(image.size) == (width, height)
    pixels = np.empty(width * height * 4, np.float32)
    image.pixels.foreach_get(pixels)
    rgb = np.rint(pixels.reshape(height, width, 4)[::-1, :, :3] * 255).astype(np.uint8)
    assert np.array_equal(rgb, picture.palette[picture.indices])


def test_md5_skin_name_puts_md5_before_the_file(extension):
    import importlib
    md5_skin_name = importlib.import_module(f"{extension}.importers.md5.classic_pair").md5_skin_name
    assert md5_skin_name("models/monsters/soldier/skin.pcx") == "models/monsters/soldier/md5/skin.pcx"
    assert md5_skin_name("players/male/grunt.pcx") == "players/male/md5/grunt.pcx"
