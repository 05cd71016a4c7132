"""The MDL export's *Enhanced MD3* writes one ``.skin`` file per MDL skin, numbered from 0 without a gap as
the Quake ports count them (ironwail ``Mod_LoadMD3Model``: ``x.md3_<n>.skin`` until one is missing; FTE
``Mod_CountSkinFiles``; DarkPlaces ``Mod_LoadSkinFiles``), each naming a TGA that shows that MDL skin, and
the surfaces under their own names (ironwail takes a ``.skin`` only when its surface names are the MD3's,
compared with ``strcmp``)."""
from __future__ import annotations

import struct

import numpy as np

from formats.images.palette import quake_palette
from formats.md3.codec import read_md3
from formats.mdl.codec import MdlSkin, serialize_mdl
from support.mdl_models import synthetic_model
from support.mdl_reference import decode
from support.operators import export_mdl, import_mdl


def _read_tga(data: bytes) -> np.ndarray:
    """(h, w, 4) RGBA, top row first, of an uncompressed 32-bit TGA (read here, not with the extension)."""
    id_length, _, kind = data[0], data[1], data[2]
    width, height, bits, descriptor = struct.unpack_from("<HHBB", data, 12)
    assert kind == 2 and bits == 32, (kind, bits)
    pixels = np.frombuffer(data, np.uint8, width * height * 4, 18 + id_length).reshape(height, width, 4)
    rgba = pixels[..., [2, 1, 0, 3]]
    return rgba if descriptor & 0x20 else rgba[::-1]


def _five_skins() -> bytes:
    """Five skins: four single images and, as skin 2, a group of two (8x4 palette indices each)."""
    model = synthetic_model(seed=11)
    rng = np.random.default_rng(23)
    pixels = lambda n: rng.integers(0, 224, (n, 4, 8), dtype=np.uint8)  # noqa: E731  (no fullbright colours)
    model.skins = [MdlSkin(None, pixels(1)), MdlSkin(None, pixels(1)),
                   MdlSkin(np.array([0.1, 0.2], np.float32), pixels(2)), MdlSkin(None, pixels(1)),
                   MdlSkin(None, pixels(1))]
    return serialize_mdl(model)


def test_every_mdl_skin_gets_its_skin_file_and_image(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    source = tmp_path / "knight.mdl"
    source.write_bytes(_five_skins())
    reference = decode(source.read_bytes())
    obj = import_mdl(bpy, source)
    obj.name = "Knight"                         # a surface name with capitals: written as it is
    progs = tmp_path / "id1" / "progs"
    progs.mkdir(parents=True)
    export_mdl(bpy, obj, progs / "knight.mdl", enhanced_md3=True)
    assert "skin 2 is a group of 2 images in the MDL: the enhanced MD3 shows its first" in capfd.readouterr().out
    md3 = read_md3((progs / "knight.md3").read_bytes())
    names = [s.name for s in md3.surfaces]
    assert names == ["Knight"]
    skins = sorted(p.name for p in progs.glob("*.skin"))
    assert skins == [f"knight.md3_{n}.skin" for n in range(5)]
    palette = quake_palette()
    images = set()
    for n, skin in enumerate(reference.skins):
        lines = (progs / f"knight.md3_{n}.skin").read_text().splitlines()
        entries = dict(line.split(",", 1) for line in lines)
        assert sorted(entries) == sorted(names)
        shader = entries["Knight"]
        assert shader.startswith("progs/") and shader.endswith(".tga")
        images.add(shader)
        shown = _read_tga((tmp_path / "id1" / shader).read_bytes())
        indices = np.frombuffer(skin.images[0], np.uint8).reshape(reference.skin_height, reference.skin_width)
        np.testing.assert_array_equal(shown[..., :3], palette[indices], err_msg=f"skin {n}")
        assert (shown[..., 3] == 255).all()
    assert len(images) == 5                    # one image per skin, each written once
    assert sorted(p.name for p in progs.glob("*.tga")) == [f"knight_{k}.tga" for k in range(5)]
    assert md3.surfaces[0].shaders[0].name == "progs/knight_0.tga"      # skin 0 stays the surface's shader


def test_the_tooltip_names_the_engines_that_load_the_md3_by_name(bpy_scene):
    """vkQuake (``Mod_LoadModel``), ironwail (``loadMd3Replacement``) and FTE (``r_replacemodels``) load
    ``progs/x.md3`` when the game names ``progs/x.mdl``; DarkPlaces loads the file named (by its magic) and
    never swaps the name, so the tooltip must not promise it."""
    import bpy
    text = bpy.ops.export_scene.mdl.get_rna_type().properties["enhanced_md3"].description
    engines, _, rest = text.partition(" draw it in place of ")
    assert all(name in engines for name in ("vkQuake", "ironwail", "FTE")) and "DarkPlaces" not in engines, text
    assert "DarkPlaces does not" in rest, text
