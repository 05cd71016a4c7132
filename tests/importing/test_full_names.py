"""Names that fill their field to the last byte (no NUL), as some released mods ship them (issue 19):
MD2 and MDL frame names of 16 characters and MD2 skin names of 64 come back byte for byte while they
are unchanged; a new or changed name of that length is refused with a message about the NUL."""
from __future__ import annotations

import pytest
from support.md2_synthetic import grid_model
from support.mdl_models import mixed_model
from support.operators import export_md2, export_mdl, import_md2, import_mdl

from formats.md2.codec import parse_md2, serialize_md2
from formats.mdl.codec import parse_mdl, serialize_mdl

FULL_FRAME = "C:\\Users\\mrenzul"                      # 16 characters, as a Hexen II mod shipped it
FULL_SKIN = "models/" + "s" * 53 + ".pcx"               # 64 characters


def full_names_md2() -> bytes:
    model = grid_model(frames=4)
    model.frame_names[1] = FULL_FRAME
    model.frame_name_raw = [n.encode("latin-1").ljust(16, b"\0") for n in model.frame_names]
    model.skins = [FULL_SKIN, "models/test/other.pcx"]
    model.skin_name_raw = [s.encode("latin-1").ljust(64, b"\0") for s in model.skins]
    data = serialize_md2(model)
    assert len(FULL_FRAME) == 16 and len(FULL_SKIN) == 64
    return data


def full_names_mdl() -> bytes:
    model = mixed_model()
    model.pose_names[0] = FULL_FRAME
    model.pose_name_raw = [n.encode("latin-1").ljust(16, b"\0") for n in model.pose_names]
    return serialize_mdl(model)


def test_the_test_files_have_fields_without_nul():
    md2 = parse_md2(full_names_md2())
    assert md2.frame_names[1] == FULL_FRAME and md2.frame_name_fields()[1] == FULL_FRAME.encode()
    assert md2.skins[0] == FULL_SKIN and md2.skin_fields()[0] == FULL_SKIN.encode()
    mdl = parse_mdl(full_names_mdl())
    assert mdl.pose_names[0] == FULL_FRAME


def test_md2_full_names_round_trip_byte_for_byte(bpy_scene, tmp_path):
    bpy = bpy_scene
    data = full_names_md2()
    (tmp_path / "in.md2").write_bytes(data)
    obj = import_md2(bpy, tmp_path / "in.md2")
    assert obj.classic_model.frames[1].name == FULL_FRAME
    assert export_md2(bpy, obj, tmp_path / "out.md2") == data
    assert export_md2(bpy, obj, tmp_path / "keys.md2", frame_source="SHAPE_KEYS") == data


def test_md2_changed_name_of_16_characters_is_refused_with_the_nul(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "in.md2").write_bytes(full_names_md2())
    obj = import_md2(bpy, tmp_path / "in.md2")
    obj.classic_model.frames[0].name = "sixteen_chars_xx"
    with pytest.raises(RuntimeError, match=r"frame name 'sixteen_chars_xx' is 16 characters.*NUL"):
        export_md2(bpy, obj, tmp_path / "changed.md2")
    assert not (tmp_path / "changed.md2").exists()
    obj.classic_model.frames[0].name = "fifteen_chars_x"
    out = parse_md2(export_md2(bpy, obj, tmp_path / "fifteen.md2"))
    assert out.frame_name_fields()[0] == b"fifteen_chars_x\0"
    assert out.frame_name_fields()[1] == FULL_FRAME.encode()        # the untouched full name stays


def test_md2_renamed_full_frame_name_must_fit(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "in.md2").write_bytes(full_names_md2())
    obj = import_md2(bpy, tmp_path / "in.md2")
    obj.classic_model.frames[1].name = FULL_FRAME[::-1]           # changed, still 16 characters
    with pytest.raises(RuntimeError, match="leaves the last of the field's 16 bytes for the NUL"):
        export_md2(bpy, obj, tmp_path / "changed.md2")


def test_mdl_full_names_round_trip_byte_for_byte(bpy_scene, tmp_path):
    bpy = bpy_scene
    data = full_names_mdl()
    (tmp_path / "in.mdl").write_bytes(data)
    obj = import_mdl(bpy, tmp_path / "in.mdl")
    assert obj.classic_model.frames[0].name == FULL_FRAME
    assert export_mdl(bpy, obj, tmp_path / "out.mdl") == data
    assert export_mdl(bpy, obj, tmp_path / "keys.mdl", frame_source="SHAPE_KEYS") == data


def test_mdl_changed_name_of_16_characters_is_refused_with_the_nul(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "in.mdl").write_bytes(full_names_mdl())
    obj = import_mdl(bpy, tmp_path / "in.mdl")
    obj.classic_model.frames[0].name = FULL_FRAME.upper()
    with pytest.raises(RuntimeError, match=r"is 16 characters, 1 over the limit of 15 .*NUL"):
        export_mdl(bpy, obj, tmp_path / "changed.mdl")
    assert not (tmp_path / "changed.mdl").exists()
