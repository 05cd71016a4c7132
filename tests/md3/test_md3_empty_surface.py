"""An MD3 surface with no vertices and no triangles (OpenArena's tony has one, ``l_belt``): imported as an
empty mesh, exported untouched it is written back in its place, so the file comes back byte for byte (the
sampling leaves meshes without faces out of the model)."""
from __future__ import annotations

import numpy as np
from support.environment import corpus

from formats.md3.codec import read_md3, write_md3
from formats.md3.records import Md3Shader, Md3Surface


def test_empty_surface_written_back_in_its_place(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = read_md3(corpus("md3/nexuiz/models/turrets/reactor.md3").read_bytes())
    frames = model.num_frames
    empty = Md3Surface(name="belt", shaders=[Md3Shader("models/belt.tga")], triangles=np.zeros((0, 3), np.int32),
                       st=np.zeros((0, 2), np.float32), xyz=np.zeros((frames, 0, 3), np.int16),
                       normal=np.zeros((frames, 0), np.uint16))
    model.surfaces.insert(1, empty)
    model.layout = None
    source = tmp_path / "in" / "reactor.md3"
    source.parent.mkdir()
    source.write_bytes(write_md3(model))
    assert [s.name for s in read_md3(source.read_bytes()).surfaces][1] == "belt"
    assert bpy.ops.import_scene.md3(filepath=str(source)) == {"FINISHED"}
    root = next(o for o in bpy.data.objects if o.get("md3_root") is not None)
    assert len(bpy.data.objects["belt"].data.vertices) == 0
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == root)
    out = tmp_path / "reactor.md3"
    assert bpy.ops.export_scene.md3(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == source.read_bytes()
