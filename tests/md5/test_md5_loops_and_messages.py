"""A joint that is its own ancestor (its own parent, or two or three joints parented round a loop) is refused
by the ``.md5mesh`` reader with the joints' names and line, as fast as any other refusal (it once hung the
import); numbers Blender cannot hold are named with their line; the messages of issue 44 read as
sentences that name the joints and say what to do."""
from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from formats.errors import FormatError
from formats.md5.anim import read_md5anim
from formats.md5.limits import pair_problems
from formats.md5.mesh import read_md5mesh
from formats.md5.scale import Md5Scale, write_md5scale


def mesh_text(parents: list[int], weights: int = 3) -> bytes:
    """A mesh of one triangle over ``len(parents)`` joints named j0, j1 ...; joint k on line 6 + k."""
    joints = "".join(f'"j{k}" {p} ( {k} 0 0 ) ( 0 0 0 )\n' for k, p in enumerate(parents))
    weight_lines = "".join(f"weight {w} 0 1 ( {w} 0 0 )\n" for w in range(weights))
    return (f'MD5Version 10\ncommandline ""\nnumJoints {len(parents)}\nnumMeshes 1\njoints {{\n{joints}}}\n'
            'mesh {\nshader "s"\nnumverts 3\nvert 0 ( 0 0 ) 0 1\nvert 1 ( 0 0 ) 1 1\nvert 2 ( 0 0 ) 2 1\n'
            f"numtris 1\ntri 0 0 1 2\nnumweights {weights}\n{weight_lines}}}\n").encode()


def anim_text(parents: list[int], base: str = "0") -> bytes:
    """A one-frame anim of ``len(parents)`` joints j0, j1 ... (joint k on line 8 + k), nothing animated."""
    hierarchy = "".join(f'"j{k}" {p} 0 0\n' for k, p in enumerate(parents))
    return (f'MD5Version 10\ncommandline ""\nnumFrames 1\nnumJoints {len(parents)}\nframeRate 24\n'
            f"numAnimatedComponents 0\nhierarchy {{\n{hierarchy}}}\nbounds {{\n( 0 0 0 ) ( 1 1 1 )\n}}\n"
            "baseframe {\n" + f"( {base} 0 0 ) ( 0 0 0 )\n" * len(parents) + "}\nframe 0 {\n}\n").encode()


@pytest.mark.parametrize("parents, message", [
    ([-1, 1, 0], r"md5mesh line 7: joint 'j1' \(joint 1\) is its own parent: no root leads to it, so no engine can "
                 r"pose the model; give it the parent -1 \(a root\) or a joint outside the loop"),
    ([-1, 2, 1], r"md5mesh line 7: joints 'j1' \(joint 1\) and 'j2' \(joint 2\) are each other's ancestors \('j2' is "
                 r"the parent of 'j1', 'j1' is the parent of 'j2'\): no root leads to them, .* give one of them the "
                 r"parent -1"),
    ([-1, 3, 1, 2, 3], r"md5mesh line 7: joints 'j1' \(joint 1\), 'j2' \(joint 2\) and 'j3' \(joint 3\) are each "
                       r"other's ancestors"),
])
def test_a_joint_that_is_its_own_ancestor_is_refused_with_the_names(parents, message):
    with pytest.raises(FormatError, match=message):
        read_md5mesh(mesh_text(parents))


def test_a_long_loop_is_found_quickly():
    """5000 joints in one chain closed into a loop below a root: refused in well under a second."""
    parents = [-1] + list(range(2, 5001)) + [1]
    start = time.perf_counter()
    with pytest.raises(FormatError, match="are each other's ancestors"):
        read_md5mesh(mesh_text(parents))
    assert time.perf_counter() - start < 5
    from formats.md5.mesh import ancestor_loops
    chain = list(range(-1, 4999))
    assert not len(ancestor_loops(np.array(chain)))
    assert ancestor_loops(np.array(parents)).tolist() == list(range(1, 5001))
    mesh = read_md5mesh(mesh_text([2, 0, -1]))         # a parent after its child, without a loop: read
    assert mesh.joint_parents.tolist() == [2, 0, -1]
    assert mesh.warnings == [
        "1 joint comes before its parent (joint 0 'j0', parent 2): FTE and Q2PRO's anim loader refuse that order; "
        "list every parent before its children",
        "the first joint 'j0' is not a root: FTE wants joint 0 as the one root; list the root first"]
    assert read_md5mesh(mesh_text([-1, -1, 0])).warnings == [
        "2 root joints ('j0', 'j1'): FTE allows one root, joint 0; parent the others under it"]


HIERARCHY_ORDER = """
from formats.errors import FormatError
from formats.ms3d.rig import hierarchy_order
for parents in ([0], [-1, 2, 1], [1, 2, 0]):
    try:
        hierarchy_order(parents)
        print("ordered")
    except FormatError as error:
        print(error)
"""


def test_hierarchy_order_refuses_a_loop_instead_of_walking_it_forever():
    """In a process of its own under a time limit: the order the armature import and the MS3D export use
    once walked a loop for ever."""
    checkout = Path(__file__).resolve().parents[2]
    try:
        done = subprocess.run([sys.executable, "-c", HIERARCHY_ORDER], cwd=checkout, capture_output=True, text=True,
                              timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("hierarchy_order did not return within 120 s (a loop walked for ever)")
    assert done.stdout.splitlines() == [f"joint parents: joint {j} is its own ancestor: its parents lead back to "
                                        "it, never to a root" for j in (0, 1, 0)], done.stderr


def test_the_anim_says_which_joint_has_a_parent_after_it():
    with pytest.raises(FormatError) as caught:
        read_md5anim(anim_text([1, -1]))
    assert str(caught.value) == ("md5anim line 8: joint 0 'j0' has parent 1, expected -1: the first joint is a root "
                                 "(Q2PRO refuses any other, and a joint that is its own ancestor); list the parent "
                                 "first or make the joint a root")
    with pytest.raises(FormatError, match=r"line 10: joint 2 'j2' has parent 2, expected -1 \.\. 1: a parent comes "
                                          r"before its child"):
        read_md5anim(anim_text([-1, 0, 2]))


def test_a_count_past_the_text_says_what_to_do():
    with pytest.raises(FormatError) as caught:
        read_md5mesh(mesh_text([-1]).replace(b"numweights 3", b"numweights 714"))
    assert str(caught.value) == ("md5mesh line 17: mesh 0 weight records: 714 announced, but the file ends first "
                                 "(28 tokens follow, 6426 needed): correct the count or restore the missing lines")


def test_numbers_blender_cannot_hold_are_named_with_their_line():
    mesh = read_md5mesh(mesh_text([-1, 0]).replace(b'"j1" 0 ( 1 0 0 )', b'"j1" 0 ( nan inf 0 )'))
    assert ("2 numbers are not finite (nan or inf), the first on line 7: the import refuses the file; write a "
            "number there") in mesh.warnings
    anim = read_md5anim(anim_text([-1, 0], base="1e999"))
    assert ("2 numbers are not finite (nan or inf), the first on line 15: the import refuses the file; write a "
            "number there") in anim.warnings


def test_pair_problems_name_the_joints_and_the_anims_line():
    mesh = read_md5mesh(mesh_text([-1, 0, 1]))
    anim = read_md5anim(anim_text([-1, 0, 0]).replace(b'"j2"', b'"hand"'))
    assert pair_problems(mesh, anim) == [
        "1 joint is named differently in the anim (joint 2 is 'j2' in the mesh, 'hand' in the anim, line 10): "
        "ironwail and FTE refuse the pair, Q2PRO pairs joints by number and draws the mesh bent; give the anim's "
        "joints the mesh's names and order",
        "1 joint has another parent in the anim (joint 2 'hand' has parent 1 in the mesh, 0 in the anim, line 10): "
        "ironwail and FTE refuse the pair, Q2PRO pairs joints by number and draws the mesh bent; give the anim the "
        "mesh's hierarchy"]
    assert pair_problems(mesh, read_md5anim(anim_text([-1]))) == [
        "the anim has 1 joint, the mesh 3: ironwail, Q2PRO and FTE refuse the pair; export the anim from the "
        "mesh's armature"]


def test_the_scale_file_lists_only_joints_that_scale():
    """A joint whose scale is 1 at float precision, or that has only scale_positions, changes nothing in Q2PRO
    (every joint starts at 1): the file leaves it out."""
    scales = np.ones((3, 3))
    scales[:, 0] = 1 + 1e-9                # 1 once stored as a float
    scales[1, 2] = 2.0
    text = write_md5scale(["a", "b", "c"], Md5Scale(scales, np.array([False, True, True])))
    assert text == b'{\n  "c": {"scale_positions": true, "1": 2}\n}\n'
    assert re.fullmatch(rb"\{\n\}\n", write_md5scale(["a"], Md5Scale(np.ones((2, 1)), np.array([True]))))


def test_info_on_a_mesh_whose_joints_loop_is_an_error(run, tmp_path):
    (tmp_path / "m.md5mesh").write_bytes(mesh_text([-1, 2, 1]))
    result = run("info", tmp_path / "m.md5mesh", block_bpy=True)
    assert result.returncode == 1
    assert result.stdout.splitlines()[:2] == [
        f"{tmp_path / 'm.md5mesh'}: cannot be read",
        "  error: md5mesh line 7: joints 'j1' (joint 1) and 'j2' (joint 2) are each other's ancestors ('j2' is the "
        "parent of 'j1', 'j1' is the parent of 'j2'): no root leads to them, so no engine can pose the model; give "
        "one of them the parent -1 (a root) or a joint outside the loop"]


def test_info_on_a_mesh_with_a_nan_in_the_anim_beside_it_is_an_error(run, tmp_path):
    (tmp_path / "m.md5mesh").write_bytes(mesh_text([-1, 0]))
    (tmp_path / "m.md5anim").write_bytes(anim_text([-1, 0]))
    assert run("info", tmp_path / "m.md5mesh", block_bpy=True).returncode == 0
    (tmp_path / "m.md5anim").write_bytes(anim_text([-1, 0], base="nan"))
    result = run("info", tmp_path / "m.md5mesh", block_bpy=True)
    assert result.returncode == 1
    assert ("  error: m.md5anim beside it: 2 numbers are not finite (nan or inf), the first on line 15: the import "
            "refuses the file; write a number there") in result.stdout.splitlines()
    check = run("check", tmp_path / "m.md5anim", block_bpy=True)
    assert check.returncode == 1 and "error: 2 numbers are not finite (nan or inf), the first on line 15" in check.stdout


@pytest.mark.parametrize("old, new, message", [
    (b"tri 0 0 1 2", b"tri 0 0 1 5",
     "md5mesh line 15: mesh 0 triangle 0 uses vertex 5, outside 0 .. 2: correct the index or numverts"),
    (b"vert 1 ( 0 0 ) 1 1", b"vert 1 ( 0 0 ) 1 5",
     "md5mesh line 12: mesh 0 vertex 1 uses weights 1 .. 5, outside the 3 weights: correct its first weight and "
     "count, or numweights"),
    (b"weight 2 0 1", b"weight 2 3 1",
     "md5mesh line 19: mesh 0 weight 2 uses joint 3, outside 0 .. 0: correct the joint index or numJoints"),
    (b"tri 0 0 1 2", b"tri 4 0 1 2",
     "md5mesh line 15: mesh 0 triangle index 4 is outside 0 .. 0: number the records 0 .. count - 1"),
])
def test_an_index_out_of_range_names_its_value_its_line_and_what_to_do(old, new, message):
    with pytest.raises(FormatError) as caught:
        read_md5mesh(mesh_text([-1]).replace(old, new))
    assert str(caught.value) == message


def test_a_bounds_count_other_than_the_frames_is_said_in_words():
    """One frame and two boxes: "2 bounding boxes for 1 frame" (was "2 bounds for 1 frames")."""
    from support.md5_rates import anim_text

    from formats.md5.anim import read_md5anim
    text = anim_text(1, 24.0, 0.0)
    boxes = b"\t( -2.000000 -2.000000 0.000000 ) ( 2.000000 2.000000 3.000000 )\n"
    anim = read_md5anim(text.replace(boxes, boxes * 2, 1))
    lines = [w for w in anim.warnings if "for 1 frame" in w]
    assert len(lines) == 1 and lines[0].startswith("2 bounding boxes for 1 frame: ")
