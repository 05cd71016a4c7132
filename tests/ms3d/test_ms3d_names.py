"""MS3D names in the author's code page (issue 9): GBK, Shift-JIS and Windows-1251 names read with
the Name Encoding option, raw bytes kept so the export stays byte for byte."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.ms3d_models import tiny_rig
from support.operators import export_ms3d, group_objects, import_ms3d

from formats.ms3d.codec import parse_ms3d
from formats.ms3d.records import Ms3dComment, Ms3dComments
from formats.ms3d.write import serialize_ms3d

CHECKOUT = Path(__file__).resolve().parents[2]
CASES = [("GBK", "gbk", ("身体", "手臂"), "左手组", "说明"),
         ("SHIFT_JIS", "shift_jis", ("体", "腕"), "グループ", "メモ"),
         ("CP1251", "cp1251", ("Тело", "Рука"), "Группа", "Заметка")]


def coded_rig(codec: str, joints: tuple[str, str], group: str, comment: str):
    model = tiny_rig(names=tuple(n.encode(codec) for n in joints), tip_parent=joints[0].encode(codec),
                     group_name=group.encode(codec))
    model.comments = Ms3dComments(group=[Ms3dComment(0, comment.encode(codec))], model_raw=comment.encode(codec))
    return model


@pytest.mark.parametrize("option, codec, joints, group, comment", CASES, ids=[c[0] for c in CASES])
def test_codec_decodes_names_in_the_chosen_code_page(option, codec, joints, group, comment):
    data = serialize_ms3d(coded_rig(codec, joints, group, comment))
    model = parse_ms3d(data, codec)
    assert [j.name for j in model.joints] == list(joints)
    assert model.joints[1].parent == joints[0]
    assert model.groups[0].name == group and model.comments.group[0].text == comment
    assert model.comments.model == comment
    assert serialize_ms3d(model) == data
    auto = parse_ms3d(data)            # Auto: not valid UTF-8, so Windows-1252 as before (mojibake)
    assert auto.groups[0].name != group
    assert auto.groups[0].name_raw == model.groups[0].name_raw


@pytest.mark.parametrize("option, codec, joints, group, comment", CASES, ids=[c[0] for c in CASES])
def test_import_shows_the_names_and_export_keeps_the_bytes(bpy_scene, tmp_path, option, codec, joints, group,
                                                            comment):
    bpy = bpy_scene
    data = serialize_ms3d(coded_rig(codec, joints, group, comment))
    (tmp_path / "m.ms3d").write_bytes(data)
    root = import_ms3d(bpy, tmp_path / "m.ms3d", name_encoding=option)
    assert sorted(b.name for b in root.data.bones) == sorted(joints)
    assert root.data.bones[joints[1]].parent.name == joints[0]
    (obj,) = group_objects(bpy).values()
    assert obj.name == group and obj["ms3d_comment"] == comment
    assert root.classic_model.ms3d_comment == comment
    export_ms3d(bpy, tmp_path / "again.ms3d")
    assert (tmp_path / "again.ms3d").read_bytes() == data


def test_info_takes_the_name_encoding(tmp_path):
    data = serialize_ms3d(coded_rig("gbk", *CASES[0][2:]))
    (tmp_path / "m.ms3d").write_bytes(data)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "classic_models").symlink_to(CHECKOUT, target_is_directory=True)
    out = subprocess.run([sys.executable, "-m", "classic_models", "info", "--json", "--no-skins",
                          "--name-encoding", "gbk", str(tmp_path / "m.ms3d")], cwd=tmp_path, capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=str(tmp_path / "pkg")))
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    text = json.dumps(document, ensure_ascii=False)
    assert CASES[0][3] in text
