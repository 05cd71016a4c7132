"""An anim converted between MD5 and IQM through Blender keeps its rate and frame count because every
skeletal import leaves them under one shared name on its actions (``common/contract.py``
ANIM_FRAME_RATE, ANIM_FRAME_COUNT) and every skeletal export reads that (``common/anim_timing.py``): with
the other format's own names taken off the actions, the rates still come through; actions as an earlier
version imported them (only their format's own names: a ``.blend`` saved before) keep their rates too,
and such an IQM import is still untouched (its file back byte for byte).

The files: three small ``.md5anim`` at 24, 15 and 30 fps (tests/support/md5_rates.py), imported with
their mesh and exported as IQM; that IQM imported and exported as MD5. The truth: the rates and frame
counts the MD5 files were written with."""
from __future__ import annotations

import pytest
from support.md5_rates import ANIMS, write_folder

from formats.iqm.codec import read_iqm
from formats.md5.anim import read_md5anim

SHARED = ("anim_frame_rate", "anim_frame_count")


def _export(bpy, operator, path) -> None:
    assert operator(filepath=str(path), use_selection=False) == {"FINISHED"}


def _md5_to_iqm(bpy, tmp_path, strip: tuple[str, ...]) -> dict:
    """The MD5 folder imported, ``strip`` taken off every action, exported as IQM: name -> (frames, rate)."""
    write_folder(tmp_path / "md5")
    assert bpy.ops.import_scene.md5(filepath=str(tmp_path / "md5" / "thing.md5mesh"), find_anims="FOLDER") == \
        {"FINISHED"}
    assert sorted(a.name for a in bpy.data.actions) == sorted(ANIMS)
    for action in bpy.data.actions:
        for key in strip:
            action.pop(key, None)
    _export(bpy, bpy.ops.export_scene.iqm, tmp_path / "thing.iqm")
    model = read_iqm((tmp_path / "thing.iqm").read_bytes())
    return {n: (int(a["num_frames"]), float(a["framerate"])) for n, a in zip(model.anim_names, model.anims)}


def _iqm_to_md5(bpy, tmp_path, earlier: bool) -> dict:
    """``thing.iqm`` imported (with ``earlier``, its actions as an earlier version left them: the rate in
    ``iqm_framerate``, no shared name; else with any ``iqm_framerate`` taken off), exported as MD5: anim
    file -> (frames, rate)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.iqm(filepath=str(tmp_path / "thing.iqm")) == {"FINISHED"}
    for action in bpy.data.actions:
        if earlier:
            action["iqm_framerate"] = action.pop("anim_frame_rate")
            del action["anim_frame_count"]
        else:
            action.pop("iqm_framerate", None)
    if earlier:                                # still the untouched import: the file back byte for byte
        _export(bpy, bpy.ops.export_scene.iqm, tmp_path / "again.iqm")
        assert (tmp_path / "again.iqm").read_bytes() == (tmp_path / "thing.iqm").read_bytes()
    _export(bpy, bpy.ops.export_scene.md5, tmp_path / "out" / "thing.md5mesh")
    anims = {p.stem: read_md5anim(p.read_bytes()) for p in (tmp_path / "out").glob("*.md5anim")}
    return {name: (anim.num_frames, float(anim.frame_rate)) for name, anim in anims.items()}


@pytest.mark.parametrize("earlier", [False, True], ids=["shared names only", "an earlier version's names"])
def test_md5_to_iqm_and_back_keeps_every_anims_rate(bpy_scene, tmp_path, earlier):
    bpy = bpy_scene
    expected = {name: (frames, rate) for name, (frames, rate, _) in ANIMS.items()}
    # the shared names only: the MD5's own (its kept .md5anim text) taken off; earlier: the shared ones
    strip = SHARED if earlier else ("md5_anim_source",)
    assert _md5_to_iqm(bpy, tmp_path, strip) == expected
    assert _iqm_to_md5(bpy, tmp_path, earlier) == expected
