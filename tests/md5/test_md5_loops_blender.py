"""Through ``bpy.ops.import_scene.md5``: a mesh whose joints loop is refused with the joints' names and line,
nothing is left in ``bpy.data``; each import runs under a 120 s guard (the import once walked the loop
for ever), so a regression fails here instead of hanging the run."""
from __future__ import annotations

import signal

import pytest
from support import fuzzing_blender

MESH = b"""MD5Version 10
commandline ""
numJoints 3
numMeshes 1
joints {
"root" -1 ( 0 0 0 ) ( 0 0 0 )
"arm" %d ( 0 0 2 ) ( 0 0 0 )
"hand" %d ( 0 0 4 ) ( 0 0 0 )
}
mesh {
shader "skin"
numverts 3
vert 0 ( 0 0 ) 0 1
vert 1 ( 1 0 ) 1 1
vert 2 ( 0 1 ) 2 1
numtris 1
tri 0 0 1 2
numweights 3
weight 0 0 1 ( 1 0 0 )
weight 1 1 1 ( 1 0 0 )
weight 2 2 1 ( 1 0 0 )
}
"""


class Hung(BaseException):
    pass


@pytest.mark.parametrize("parents, message", [
    ((1, 1), "md5mesh line 7: joint 'arm' (joint 1) is its own parent"),
    ((2, 1), "md5mesh line 7: joints 'arm' (joint 1) and 'hand' (joint 2) are each other's ancestors"),
])
def test_a_mesh_whose_joints_loop_is_refused_by_the_operator(bpy_scene, tmp_path, parents, message):
    bpy = bpy_scene
    path = tmp_path / "loop.md5mesh"
    path.write_bytes(MESH % parents)
    fuzzing_blender.purge_orphans(bpy)
    before = fuzzing_blender.data_counts(bpy)

    def alarm(signum, frame):
        raise Hung("the import did not return within 120 s")
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(120)
    try:
        with pytest.raises(RuntimeError) as caught:
            bpy.ops.import_scene.md5(filepath=str(path))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    text = str(caught.value)
    assert "loop.md5mesh" in text and message in text and "no root leads to" in text
    assert "Traceback" not in text
    assert fuzzing_blender.data_counts(bpy) == before
