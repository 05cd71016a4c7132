"""An edited Quake II PCX skin: pixels that still show their colour keep their index (Quake II's palette
repeats black at 0, 127, 143 and 175, and 26/101, 28/102, 29/94, 31/95/103, 142/191); new colours go
to the CIEDE2000-nearest of 0-254 (tests/support/colour_reference.py, independent of the exporter)."""
from __future__ import annotations

import numpy as np
import pytest
from support.colour_reference import nearest
from support.image_files import read_pcx, reference_palette, write_pcx
from support.operators import export_md2, import_md2
from support.skins import image_rgba, md2_file, shown_image

REPEATS = [0, 127, 143, 175, 26, 101, 28, 102, 29, 94, 31, 95, 103, 142, 191]


def test_edited_pcx_keeps_untouched_indices_even_of_repeated_colours(bpy_scene, tmp_path):
    bpy = bpy_scene
    quake2 = reference_palette("quake2")
    if quake2 is None:
        pytest.skip("reference Quake II palette not found in ../shared/reference")
    rng = np.random.default_rng(21)
    indices = rng.choice(np.array(REPEATS + list(range(200, 255)), np.uint8), (32, 64))
    source = tmp_path / "src" / "baseq2"
    path = md2_file(source / "models" / "x" / "tris.md2", ["models/x/skin.pcx"])
    write_pcx(source / "models" / "x" / "skin.pcx", indices, quake2)
    obj = import_md2(bpy, path)
    image = shown_image(obj)
    rgba = image_rgba(image)
    region = np.zeros((32, 64), bool)
    region[4:12, 10:40] = True
    new = rng.integers(0, 256, (int(region.sum()), 3)).astype(np.uint8)
    rgba[region, :3] = new
    pixels = rgba[::-1].astype(np.float32) / 255
    image.pixels.foreach_set(pixels.ravel())
    out = tmp_path / "dst" / "baseq2" / "models" / "y" / "tris.md2"
    export_md2(bpy, obj, out)
    written, palette = read_pcx((tmp_path / "dst" / "baseq2" / "models" / "x" / "skin.pcx").read_bytes())
    np.testing.assert_array_equal(palette, quake2)
    np.testing.assert_array_equal(written[~region], indices[~region])
    assert np.isin(indices[~region], REPEATS[1:]).sum() > 200        # shadowed repeats among them
    for colour, index in list(zip(new, written[region]))[::9]:
        assert index == nearest(colour, quake2, range(255))
