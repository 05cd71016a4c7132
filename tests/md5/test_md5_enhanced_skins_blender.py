"""Enhanced Model (MD5) beside an MDL export: every skin and every frame of a skin group written as
``progs/m_<skin>_<frame>.lmp`` (the MDL's own indices), and what the ports make of the group reported:
they load four frames per skin and play them every 0.1 s (ironwail ``Mod_LoadMD5MeshModel``). No
``_glow``/``_luma`` file: the ports read none beside an 8-bit ``.lmp``, whose indices 224-255 glow."""
from __future__ import annotations

import numpy as np
from support.actions import export
from support.md5_rig import rigged

from formats.images.lmp import read_lmp
from formats.mdl.codec import parse_mdl


def _image(bpy, name: str, seed: int):
    image = bpy.data.images.new(name, 32, 32, alpha=True)
    rng = np.random.default_rng(seed)
    image.pixels.foreach_set(np.concatenate([rng.random((32 * 32, 3)), np.ones((32 * 32, 1))], 1)
                             .astype(np.float32).ravel())
    return image


def test_every_skin_and_skin_frame_is_written_and_the_ports_limits_reported(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    obj, _, _ = rigged(bpy, name="m")
    obj.data.polygons.foreach_set("material_index", [0] * len(obj.data.polygons))
    group, single = obj.data.materials
    for material in (group, single):
        if bpy.app.version < (5, 0, 0):
            material.use_nodes = True
    for j in range(5):                       # skin 0: a group of five images, the last one twice as long
        node = group.node_tree.nodes.new("ShaderNodeTexImage")
        node.name, node.image = f"mdl_skin_{j}", _image(bpy, f"group{j}", j)
    group["mdl_skin_intervals"] = [0.1, 0.2, 0.3, 0.4, 0.6]
    single.node_tree.nodes.new("ShaderNodeTexImage").image = _image(bpy, "single", 9)
    progs = tmp_path / "progs"
    progs.mkdir()
    export(bpy, "mdl", [obj], progs / "m.mdl", frame_source="ACTIONS", frame_rate="GAME", enhanced=True,
           materials="ALTERNATE")
    out = capfd.readouterr().out
    lmps = sorted(p.name for p in progs.glob("*.lmp"))
    assert lmps == ["m_00_00.lmp", "m_00_01.lmp", "m_00_02.lmp", "m_00_03.lmp", "m_00_04.lmp", "m_01_00.lmp"]
    assert not list(progs.glob("*_glow*")) and not list(progs.glob("*_luma*"))
    mdl = parse_mdl((progs / "m.mdl").read_bytes())
    assert [len(s.images) for s in mdl.skins] == [5, 1]
    for s, skin in enumerate(mdl.skins):
        for f, indices in enumerate(skin.images):
            assert np.array_equal(read_lmp((progs / f"m_{s:02d}_{f:02d}.lmp").read_bytes()), indices)
    assert "skin 0 has 5 frames: the ports load the first 4 (_00 to _03)" in out
    assert "skin 0's frames last 0.1, 0.1, 0.1, 0.1, 0.2 s in the MDL" in out
    assert "skin 1" not in out.replace("skin 1 frame", "")
