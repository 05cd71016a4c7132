"""Saturated colours change hue on palette matching (issue 29): one report line counts the new or
edited pixels whose colour has no palette colour within a visible difference (CIEDE2000 > 10) and
names the worst as a person reads it. Expected indices and differences come from
tests/support/colour_reference.py (a scalar CIEDE2000 written apart from the exporter's); pixels an edit
left alone are not counted."""
from __future__ import annotations

import re

import numpy as np
import pytest
from support.blender_helpers import reported
from support.colour_reference import ciede2000, lab, nearest
from support.image_files import reference_palette, write_pcx
from support.operators import export_md2, export_mdl, import_md2
from support.skins import NOT_PLAYER, blender_model, image_rgba, md2_file, new_model, shown_image

from formats.images.palette import quake_palette


def expected_worst(colour, palette, allowed) -> str:
    index = nearest(colour, palette, allowed)
    difference = ciede2000(lab(colour), lab(palette[index]))
    assert difference > 10
    hex_of = lambda rgb: "#" + "".join(f"{int(c):02X}" for c in rgb)   # noqa: E731
    return f"worst: {hex_of(colour)} became {hex_of(palette[index])} (index {index}, difference {difference:.0f})"


def drift_line(report: str) -> str:
    """The one drift message among the export's reports (the popup may shorten it; the Info list is whole)."""
    lines = [line for line in reported(report)[1] if "have no palette colour within a visible difference" in line]
    assert len(lines) == 1, report
    return lines[0]


def test_mdl_pure_red_is_reported_with_count_and_worst_colour(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    rgb = np.zeros((16, 32, 3), np.uint8)
    rgb[...] = quake_palette()[40]                    # a palette colour: moves nowhere
    rgb[2:6, 3:13] = (255, 0, 0)                      # 40 pixels of pure red
    rgb[10, 20:25] = (0, 255, 0)                      # 5 of pure green
    obj, image = new_model(bpy, "crate", rgb)
    capsys.readouterr()
    export_mdl(bpy, obj, tmp_path / "crate.mdl")
    line = drift_line(capsys.readouterr().out)
    palette = quake_palette()
    far = [c for c in ((255, 0, 0), (0, 255, 0))
           if ciede2000(lab(c), lab(palette[nearest(c, palette, NOT_PLAYER)])) > 10]
    assert far == [(255, 0, 0), (0, 255, 0)]
    worst = max(far, key=lambda c: ciede2000(lab(c), lab(palette[nearest(c, palette, NOT_PLAYER)])))
    assert line.startswith("45 new or edited skin pixel(s) in skin image 'crate paint' ")
    assert line.endswith(expected_worst(worst, palette, NOT_PLAYER))


def test_md2_saturated_colour_is_reported_and_untouched_pixels_are_not(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    quake2 = reference_palette("quake2")
    if quake2 is None:
        pytest.skip("reference Quake II palette not found in ../shared/reference")
    # a new model: pure cyan, which Quake II's palette lacks
    rgba = np.full((8, 16, 4), 255, np.uint8)
    rgba[..., :3] = quake2[50]
    rgba[:3, :7, :3] = (0, 255, 255)
    obj = blender_model(bpy, rgba)
    capsys.readouterr()
    export_md2(bpy, obj, tmp_path / "baseq2" / "models" / "a" / "tris.md2")
    line = drift_line(capsys.readouterr().out)
    assert line.startswith("21 new or edited skin pixel(s) in skin 'models/a/crate_paint.pcx' ")
    assert line.endswith(expected_worst((0, 255, 255), quake2, range(255)))
    # an imported skin with one edited pixel: only that pixel counts
    rng = np.random.default_rng(3)
    source = tmp_path / "src" / "baseq2"
    path = md2_file(source / "models" / "x" / "tris.md2", ["models/x/skin.pcx"])
    write_pcx(source / "models" / "x" / "skin.pcx", rng.integers(0, 255, (16, 32)).astype(np.uint8), quake2)
    obj = import_md2(bpy, path)
    image = shown_image(obj)
    pixels = image_rgba(image)
    pixels[5, 9, :3] = (255, 0, 255)
    image.pixels.foreach_set((pixels[::-1].astype(np.float32) / 255).ravel())
    capsys.readouterr()
    export_md2(bpy, obj, tmp_path / "dst" / "baseq2" / "models" / "x" / "tris.md2")
    line = drift_line(capsys.readouterr().out)
    assert re.match(r"1 new or edited skin pixel\(s\) in skin 'models/x/skin.pcx' ", line)
    assert line.endswith(expected_worst((255, 0, 255), quake2, range(255)))
