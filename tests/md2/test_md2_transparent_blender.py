"""Quake II's transparent index 255 in PCX skins (issue 29): the import shows those pixels with alpha 0
and the material cuts them out (Quake II's GL renderer alpha-tests them: id-Software/Quake-2
ref_gl/gl_image.c GL_Upload8 gives index 255 alpha 0, gl_rmisc.c GL_SetDefaultState enables the
alpha test); untouched they stay 255, an edit of another pixel moves no 255, and a pixel painted
transparent becomes 255 while an opaque one never does. Checked with the tests' own PCX reader."""
from __future__ import annotations

import numpy as np
import pytest
from support.colour_reference import nearest
from support.image_files import read_pcx, reference_palette, write_pcx
from support.operators import export_md2, import_md2
from support.skins import image_rgba, md2_file, shown_image


def skin_with_holes(tmp_path, quake2):
    """A 16x32 PCX of random indices 0-254 with 12 pixels of index 255, named by a small MD2."""
    rng = np.random.default_rng(29)
    indices = rng.integers(0, 255, (16, 32)).astype(np.uint8)
    holes = np.zeros(indices.shape, bool)
    holes.flat[rng.choice(indices.size, 12, replace=False)] = True
    indices[holes] = 255
    source = tmp_path / "src" / "baseq2"
    path = md2_file(source / "models" / "x" / "tris.md2", ["models/x/skin.pcx"])
    pcx = write_pcx(source / "models" / "x" / "skin.pcx", indices, quake2)
    return path, pcx, indices, holes


@pytest.fixture
def quake2():
    palette = reference_palette("quake2")
    if palette is None:
        pytest.skip("reference Quake II palette not found in ../shared/reference")
    return palette


def exported_skin(bpy, obj, tmp_path) -> bytes:
    out = tmp_path / "dst" / "baseq2" / "models" / "y" / "tris.md2"
    export_md2(bpy, obj, out)
    return (tmp_path / "dst" / "baseq2" / "models" / "x" / "skin.pcx").read_bytes()


def imported(bpy, tmp_path, quake2):
    """The imported model, its skin image's pixels (top row first), the PCX's indices and holes."""
    path, _, indices, holes = skin_with_holes(tmp_path, quake2)
    obj = import_md2(bpy, path)
    return obj, image_rgba(shown_image(obj)), indices, holes


def painted_export(bpy, obj, rgba, tmp_path) -> tuple[np.ndarray, np.ndarray]:
    """Paint ``rgba`` into the model's skin image, export, and read the written PCX."""
    shown_image(obj).pixels.foreach_set((rgba[::-1].astype(np.float32) / 255).ravel())
    return read_pcx(exported_skin(bpy, obj, tmp_path))


def test_index_255_imports_transparent_and_an_untouched_export_is_the_same_file(bpy_scene, tmp_path, quake2):
    bpy = bpy_scene
    path, pcx, indices, holes = skin_with_holes(tmp_path, quake2)
    obj = import_md2(bpy, path)
    rgba = image_rgba(shown_image(obj))
    np.testing.assert_array_equal(rgba[..., 3], np.where(holes, 0, 255))
    np.testing.assert_array_equal(rgba[~holes][:, :3], quake2[indices[~holes]])
    tree = obj.data.materials[0].node_tree
    alpha = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED").inputs["Alpha"]
    assert alpha.is_linked and alpha.links[0].from_socket.name == "Alpha"
    assert exported_skin(bpy, obj, tmp_path) == pcx.read_bytes()


def test_editing_another_pixel_keeps_every_255(bpy_scene, tmp_path, quake2):
    bpy = bpy_scene
    obj, rgba, indices, holes = imported(bpy, tmp_path, quake2)
    y, x = np.argwhere(~holes)[0]
    rgba[y, x, :3] = (255, 0, 255)
    written, palette = painted_export(bpy, obj, rgba, tmp_path)
    np.testing.assert_array_equal(palette, quake2)
    changed = np.argwhere(written != indices)
    assert changed.tolist() == [[y, x]]
    assert written[y, x] == nearest((255, 0, 255), quake2, range(255))
    assert (written[holes] == 255).all()


def test_painted_transparent_becomes_255_and_opaque_never_does(bpy_scene, tmp_path, quake2):
    bpy = bpy_scene
    obj, rgba, indices, holes = imported(bpy, tmp_path, quake2)
    opaque = np.argwhere(~holes)
    cleared = [tuple(opaque[0]), tuple(opaque[1])]
    rgba[cleared[0]][3] = 0
    rgba[cleared[1]][3] = 127                      # below half: a hole
    filled = tuple(np.argwhere(holes)[0])
    rgba[filled] = (*quake2[255], 255)             # a hole painted opaque in index 255's own colour
    written, _ = painted_export(bpy, obj, rgba, tmp_path)
    expected = indices.copy()
    for where in cleared:
        expected[where] = 255
    expected[filled] = nearest(quake2[255], quake2, range(255))
    assert expected[filled] != 255
    np.testing.assert_array_equal(written, expected)
