"""The Quake re-release layout's skins, every skin and skin frame, built small in the test: ``progs/m.mdl``
beside ``progs/m.md5mesh`` (shader ``m``), skins ``progs/m_<skin>_<frame>`` as ``.lmp``, ``.png`` and a
mix, with ``_glow``; each skin becomes a material laid out as the MDL import lays out an MDL skin group
(``mdl_skin_j`` images, ``mdl_fullbright_j`` masks, 0.1 s intervals), chosen by the ports' extension
order (png, tga, jpg, pcx, lmp), at most four frames, fullbright from indices 224-255 for ``.lmp`` and
from the ``_glow`` image's lit pixels for a truecolour frame."""
from __future__ import annotations

import numpy as np
import pytest
from support.environment import CORPUS
from support.image_files import write_png
from support.md5_scale_model import MESH, anim_text
from support.skins import image_rgba

MDL = CORPUS / "mdl/librequake/oldone.mdl"


def _lmp(path, indices: np.ndarray) -> None:
    h, w = indices.shape
    path.write_bytes(np.array([w, h], "<u4").tobytes() + indices.astype(np.uint8).tobytes())


def _indices(width: int, height: int, offset: int) -> np.ndarray:
    return ((np.arange(width * height) * 7 + offset) % 256).astype(np.uint8).reshape(height, width)


def _nodes(material, prefix: str) -> list:
    out, j = [], 0
    while (node := material.node_tree.nodes.get(f"{prefix}{j}")) is not None:
        out.append(node.image)
        j += 1
    return out


@pytest.fixture
def layout(tmp_path):
    if not MDL.is_file():
        pytest.skip(f"corpus file {MDL} not found")
    progs = tmp_path / "progs"
    progs.mkdir()
    (progs / "m.mdl").write_bytes(MDL.read_bytes())
    (progs / "m.md5mesh").write_bytes(MESH)
    (progs / "m.md5anim").write_bytes(anim_text())
    lmps = {}
    for name, (w, h, offset) in {"m_00_00": (16, 8, 0), "m_00_01": (16, 8, 3), "m_01_01": (8, 4, 5),
                                 "m_02_00": (4, 4, 1), "m_02_01": (4, 4, 2), "m_02_02": (4, 4, 3),
                                 "m_02_03": (4, 4, 4), "m_02_04": (4, 4, 9)}.items():
        lmps[name] = _indices(w, h, offset)
        _lmp(progs / f"{name}.lmp", lmps[name])
    _lmp(progs / "m_01_00.lmp", _indices(8, 4, 200))       # a decoy: the .png of that name comes first
    rgba = np.zeros((4, 8, 4), np.uint8)
    rgba[..., 0], rgba[..., 1], rgba[..., 3] = 40, np.arange(8)[None] * 30, 255
    write_png(progs / "m_01_00.png", rgba)
    glow = np.zeros((4, 8, 4), np.uint8)
    glow[..., 3] = 255
    glow[1:3, 2:5, 0] = 200                                   # six lit pixels
    write_png(progs / "m_01_00_glow.png", glow)
    write_png(progs / "m_00_00_glow.png", glow)               # beside an .lmp: the ports never read it
    return progs, lmps, rgba, glow


def test_every_skin_and_frame_imports_as_an_mdl_skin_group(bpy_scene, layout, capfd):
    from formats.images.palette import game_palette
    bpy = bpy_scene
    progs, lmps, rgba, glow = layout
    assert bpy.ops.import_scene.md5(filepath=str(progs / "m.md5mesh")) == {"FINISHED"}
    out = capfd.readouterr().out
    block = next(o for o in bpy.context.scene.objects if o.type == "MESH")
    materials = list(block.data.materials)
    assert len(materials) == 3
    palette = game_palette("QUAKE")
    # skin 0: two .lmp frames, a group at 0.1 s; fullbright masks from indices 224-255
    first = materials[0]
    images, masks = _nodes(first, "mdl_skin_"), _nodes(first, "mdl_fullbright_")
    assert len(images) == 2 and list(first["mdl_skin_intervals"]) == pytest.approx([0.1, 0.2])
    for image, mask, name in zip(images, masks, ("m_00_00", "m_00_01")):
        assert np.array_equal(image_rgba(image)[..., :3], palette[lmps[name]])
        assert np.array_equal(image_rgba(mask)[..., 0] > 127, lmps[name] >= 224)
    assert "m_00_00_glow.png beside the 8-bit m_00_00.lmp is not read by the ports" in out
    # skin 1: the .png before the .lmp of the same name, its _glow's lit pixels the mask; frame 1 an .lmp
    second = materials[1]
    images, masks = _nodes(second, "mdl_skin_"), _nodes(second, "mdl_fullbright_")
    assert len(images) == 2
    assert np.array_equal(image_rgba(images[0]), rgba)
    assert np.array_equal(image_rgba(masks[0])[..., 0] > 127, glow[..., 0] > 0)
    assert np.array_equal(image_rgba(images[1])[..., :3], palette[lmps["m_01_01"]])
    # the emission shows the first frame's colour times its mask, as an imported MDL skin
    bsdf = next(n for n in second.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    link = bsdf.inputs["Emission Color"].links[0].from_node
    assert {lk.from_node.name for i in link.inputs for lk in i.links} == {"mdl_skin_0", "mdl_fullbright_0"}
    # skin 2: five frames beside it, four loaded as the ports load them, the fifth reported
    third = materials[2]
    assert [i.name for i in _nodes(third, "mdl_skin_")] == ["m_02_00", "m_02_01", "m_02_02", "m_02_03"]
    assert list(third["mdl_skin_intervals"]) == pytest.approx([0.1, 0.2, 0.3, 0.4])
    assert "1 skin frame(s) past _03 of shader 'm' not imported" in out


def test_a_gap_ends_the_frames_and_a_missing_first_frame_ends_the_skins(bpy_scene, layout):
    bpy = bpy_scene
    progs, lmps, rgba, _ = layout
    (progs / "m_00_00.lmp").unlink()
    write_png(progs / "m_00_00.png", rgba)                    # any of the five extensions
    (progs / "m_00_01.lmp").rename(progs / "m_00_02.lmp")     # a gap: frame 02 is never looked at
    (progs / "m_01_00.png").unlink()
    (progs / "m_01_00.lmp").unlink()                          # no skin 1: skin 2 is never looked at
    assert bpy.ops.import_scene.md5(filepath=str(progs / "m.md5mesh")) == {"FINISHED"}
    block = next(o for o in bpy.context.scene.objects if o.type == "MESH")
    assert [m.name for m in block.data.materials] == ["m_00_00"]
    material = block.data.materials[0]
    assert [i.name for i in _nodes(material, "mdl_skin_")] == ["m_00_00.png"] and "mdl_skin_intervals" not in material
    assert np.array_equal(image_rgba(_nodes(material, "mdl_skin_")[0]), rgba)


def test_a_broken_first_frame_is_reported_and_ends_the_skins(bpy_scene, layout, capfd):
    bpy = bpy_scene
    progs, _, _, _ = layout
    (progs / "m_00_00.lmp").write_bytes(b"\x04\0\0\0\x04\0\0\0short")     # 4 x 4 needs 24 bytes
    assert bpy.ops.import_scene.md5(filepath=str(progs / "m.md5mesh")) == {"FINISHED"}
    assert "m_00_00.lmp could not be loaded" in capfd.readouterr().out
    block = next(o for o in bpy.context.scene.objects if o.type == "MESH")
    assert len(block.data.materials) == 0                     # no skin the ports would show


def test_glow_before_luma_and_three_frames_reported(bpy_scene, layout, capfd):
    """``_glow`` is looked up before ``_luma`` (either one gives the truecolour frame its mask); a skin of
    three frames is imported and reported, as the ports warn about it."""
    bpy = bpy_scene
    progs, lmps, rgba, glow = layout
    luma = glow.copy()
    luma[..., 0] = 0
    luma[0, 0, 1] = 90                                        # one lit pixel elsewhere
    write_png(progs / "m_01_00_luma.png", luma)
    _lmp(progs / "m_01_02.lmp", _indices(8, 4, 11))
    assert bpy.ops.import_scene.md5(filepath=str(progs / "m.md5mesh")) == {"FINISHED"}
    assert "skin 01 of shader 'm' has 3 frames" in capfd.readouterr().out
    block = next(o for o in bpy.context.scene.objects if o.type == "MESH")
    second = block.data.materials[1]
    assert len(_nodes(second, "mdl_skin_")) == 3
    assert np.array_equal(image_rgba(_nodes(second, "mdl_fullbright_")[0])[..., 0] > 127, glow[..., 0] > 0)
    for obj in list(bpy.context.scene.objects):
        bpy.data.objects.remove(obj)
    (progs / "m_01_00_glow.png").unlink()
    assert bpy.ops.import_scene.md5(filepath=str(progs / "m.md5mesh")) == {"FINISHED"}
    block = next(o for o in bpy.context.scene.objects if o.type == "MESH")
    mask = _nodes(block.data.materials[1], "mdl_fullbright_")[0]
    assert np.array_equal(image_rgba(mask)[..., 0] > 127, luma[..., :3].max(axis=-1) > 0)
