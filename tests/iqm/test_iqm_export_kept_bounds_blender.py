"""IQM export of an edited import: each frame's bounds record (bbmin, bbmax, xyradius, radius). A frame
whose row is the file's keeps the file's record byte for byte while everything else that decides it is
the file's (the joints, the poses' quantisation, and the skinned vertices: positions, blend indexes and
weights as written); every other frame's record is computed, and equals the test's own skinning of the
written file, one frame at a time (tests/support/iqm_rig.py ``plain_bounds``).

The corpus's IQM files with meshes, frames and bounds: john's target ``move.iqm`` (1 joint, 201 frames;
the bounds its tool wrote are up to 3e-4 off the skinned vertices' in every frame, so a recomputed one
shows) and the eye's ``mesh.iqm`` (2 joints, 5 frames), and a small file of made-up bounds, each with one
key of its first anim moved, come back as the file but for that frame's row and bounds record (a byte
diff of the two files). The player's ``mine_pose.iqm`` and ``mine_shoot.iqm`` hold every blend weight 0
(written back as the file's 0s; every vertex at the origin in any pose): a key of mine_shoot moved is
tests/iqm/test_iqm_export_framegroups_layout_blender.py's case.
A vertex weighted to another joint, or *Scale* 2, computes every frame's bounds, and so does a file
without bounds (as for a model made in Blender)."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from support.actions import action_fcurves, select_only
from support.environment import corpus_params
from support.iqm_files import header_at, reference_read
from support.iqm_meshes import small_model
from support.iqm_rig import plain_bounds, skinning_of

from formats.iqm.animation import encode_channels
from formats.iqm.codec import read_iqm
from formats.iqm.records import BLENDINDEXES, BLENDWEIGHTS, BOUNDS, COLOR, POSITION
from formats.iqm.write import write_iqm


def _facts(path) -> dict:
    read = reference_read(path.read_bytes())
    weights = next((a["rows"] for a in read["arrays"] if a["type"] == BLENDWEIGHTS), [])
    return {"meshes": bool(read["meshes"]), "bounds": read["bounds"] is not None,
            "weighted": bool(weights) and all(sum(row) == 255 for row in weights)}


CORPUS = corpus_params("iqm/**/*.iqm") + corpus_params("md5/**/*.iqm")
FACTS = {p.values[0]: _facts(p.values[0]) for p in CORPUS if p.values[0] is not None}
BOUNDED = [p for p in CORPUS if p.values[0] is None or (FACTS[p.values[0]]["meshes"] and FACTS[p.values[0]]["bounds"])]
# every vertex weighted to a sum of 255, as the export writes them: move.iqm and the eye
WEIGHTED = [p for p in BOUNDED if p.values[0] is None or FACTS[p.values[0]]["weighted"]]



def _source(source, tmp_path, bounds: bool = True):
    """A corpus file, or ``small``: tests/support/iqm_meshes.py's file of three meshes (3 joints, anims
    ``walk`` of 3 frames and ``idle`` of 1) with each vertex weighted to two joints (200 and 55), no colours,
    poses of unit quaternions (its own are not: no armature holds them) and made-up bounds no skinning
    gives."""
    if source != "small":
        return source
    model = read_iqm(small_model(whole=True))
    indexes = model.array(BLENDINDEXES).data                     # two joints each (it has some twice)
    indexes[:, 1], indexes[:, 2:] = (indexes[:, 0] + 1) % len(model.joints), 0
    model.vertex_arrays = [a for a in model.vertex_arrays if a.type != COLOR]
    turn = np.array([0.0, 0.3, 0.7, 1.2])[:, None]                # walk's 3 frames and idle's 1
    values = np.tile(np.concatenate([model.joints["translate"], model.joints["rotate"], model.joints["scale"]], 1),
                     (len(turn), 1, 1)).astype(np.float64)
    values[:, 0, 0:3] += turn * [1.0, 2.0, -0.5]                  # the root moves, the spine turns about z
    values[:, 1, 3:7] = np.concatenate([0 * turn, 0 * turn, -np.sin(turn / 2), -np.cos(turn / 2)], 1)
    values[:, :, 3:7] *= np.where(values[:, :, 6:7] > 0, -1.0, 1.0)              # w <= 0, as the SDK writes
    model.poses, model.frames = encode_channels(values)
    model.poses["parent"] = model.joints["parent"]
    model.bounds = np.zeros(len(turn), BOUNDS)
    model.bounds["bbmin"], model.bounds["bbmax"] = -1.0 - turn, 2.0 + turn
    model.bounds["xyradius"], model.bounds["radius"] = 3.0, 4.0 + turn[:, 0]
    model.bounds = model.bounds if bounds else None
    path = tmp_path / "small.iqm"
    path.write_bytes(write_iqm(model))
    return path


def _import(bpy, path):
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.iqm(filepath=str(path)) == {"FINISHED"}
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    return root, sorted((o for o in root.children if o.type == "MESH"), key=lambda o: o["iqm_mesh_index"])


def _export(bpy, root, meshes, out, scale: float = 1.0) -> bytes:
    select_only(bpy, [root, *meshes])
    assert bpy.ops.export_scene.iqm(filepath=str(out), scale=scale) == {"FINISHED"}
    return out.read_bytes()


def _move_key(bpy, index: int = 1) -> None:
    """Turn or move one bone's key ``index`` of the first anim halfway back to its previous key: the bone and
    the kind (location or quaternion, each a convex mix, so every channel stays in the file's range) whose
    keys there differ most. The import keys every frame, so that frame alone changes."""
    action = next(a for a in bpy.data.actions if a.get("iqm_anim_index") == 0)
    groups: dict[str, list] = {}
    for curve in action_fcurves(action):
        if curve.data_path.endswith(("location", "rotation_quaternion")):
            groups.setdefault(curve.data_path, []).append(curve)
    def step(curves) -> float:
        return max(abs(c.keyframe_points[index].co.y - c.keyframe_points[index - 1].co.y) for c in curves)
    curves = max(groups.values(), key=step)
    assert step(curves) > 1e-3
    for curve in curves:
        key, previous = curve.keyframe_points[index], curve.keyframe_points[index - 1]
        key.co.y += 0.5 * (previous.co.y - key.co.y)
        curve.update()


def _bound_rows(model) -> np.ndarray:
    bounds = np.asarray(model.bounds, BOUNDS)
    return np.concatenate([bounds["bbmin"], bounds["bbmax"], bounds["xyradius"][:, None],
                           bounds["radius"][:, None]], 1)


def _assert_computed(model, frames) -> None:
    """The written bounds of ``frames`` are the test's own skinning of the written file's vertices by its
    decoded frames (float32 rounding; the export takes its bind pose from Blender's bones, a few float32
    steps from the joints' records)."""
    positions = model.array(POSITION).data.astype(np.float64)
    skinning = skinning_of(model)[frames]
    expected = plain_bounds(positions, model.array(BLENDINDEXES).data, model.array(BLENDWEIGHTS).data, skinning)
    extent = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(_bound_rows(model)[frames], expected, rtol=0, atol=2e-6 * extent)


def _fields(model) -> dict:
    """Every block of ``model`` as bytes (the frames and bounds row by row)."""
    out = {name: np.asarray(getattr(model, name)).tobytes()
           for name in ("meshes", "triangles", "adjacency", "joints", "poses", "anims")}
    out.update(text=model.text, comment=model.comment, flags=model.flags,
               extensions=[(e.name, e.data) for e in model.extensions] if model.extensions else [],
               arrays=[a.type for a in model.vertex_arrays])
    out.update({f"array {a.type}": (a.flags, a.format, a.data.shape, a.data.tobytes()) for a in model.vertex_arrays})
    out.update({f"frame {f}": model.frames[f].tobytes() for f in range(model.num_frames)})
    out.update({f"bounds {f}": model.bounds[f].tobytes() for f in range(model.num_frames)})
    return out


@pytest.mark.parametrize("source", [*WEIGHTED, "small"])
def test_one_key_moved_changes_only_that_frames_row_and_bounds(bpy_scene, tmp_path, source):
    bpy = bpy_scene
    path = _source(source, tmp_path)
    data = path.read_bytes()
    file = read_iqm(data)
    root, meshes = _import(bpy, path)
    _move_key(bpy)
    written = _export(bpy, root, meshes, tmp_path / "out.iqm")
    model = read_iqm(written)
    changed = [f for f in range(file.num_frames) if model.frames[f].tobytes() != file.frames[f].tobytes()]
    assert len(changed) == 1, changed
    frame = changed[0]
    ours, theirs = _fields(model), _fields(file)
    differ = sorted(k for k in theirs if ours.get(k) != theirs[k])
    assert f"frame {frame}" in differ and set(differ) <= {f"frame {frame}", f"bounds {frame}"}, differ
    _assert_computed(model, [frame])
    # the bytes: the file's but inside that frame's row and bounds record
    assert len(written) == len(data)
    header = dict(zip(("ofs_frames", "ofs_bounds"), (struct.unpack_from("<I", data, header_at(n))[0]
                                                     for n in ("ofs_frames", "ofs_bounds"))))
    row = 2 * struct.unpack_from("<I", data, header_at("num_framechannels"))[0]
    inside = np.zeros(len(data), bool)
    inside[header["ofs_frames"] + row * frame:header["ofs_frames"] + row * (frame + 1)] = True
    inside[header["ofs_bounds"] + BOUNDS.itemsize * frame:header["ofs_bounds"] + BOUNDS.itemsize * (frame + 1)] = True
    apart = np.frombuffer(written, np.uint8) != np.frombuffer(data, np.uint8)
    assert apart.any() and not (apart & ~inside).any(), np.flatnonzero(apart & ~inside)[:8]


def _weight_elsewhere(bpy, file, obj) -> int:
    """Weight vertex 0 of ``obj`` (the file's vertex 0) wholly to a joint other than its first; that joint."""
    joint = (int(file.array(BLENDINDEXES).data[0, 0]) + 1) % len(file.joints)
    for group in obj.vertex_groups:
        group.remove([0])
    name = file.joint_names[joint]
    (obj.vertex_groups.get(name) or obj.vertex_groups.new(name=name)).add([0], 1.0, "REPLACE")
    return joint


@pytest.mark.parametrize("edit", ["weight", "scale"])
@pytest.mark.parametrize("source", [*BOUNDED, "small"])
def test_a_weight_changed_or_scale_2_computes_every_frames_bounds(bpy_scene, tmp_path, source, edit):
    """No key moved: with a weight changed every frame's row stays the file's, yet the skinned vertices are
    not the file's, so every frame's bounds are computed (the small file's own bounds are no skinning's, the
    mine's are of weights 0, john's target's its tool's)."""
    path = _source(source, tmp_path)
    if edit == "weight" and len(read_iqm(path.read_bytes()).joints) < 2:
        pytest.skip(f"{path.name} has one joint: every vertex weighs 255 on it, no other joint to weight it to")
    bpy = bpy_scene
    file = read_iqm(path.read_bytes())
    root, meshes = _import(bpy, path)
    joint = _weight_elsewhere(bpy, file, meshes[0]) if edit == "weight" else None
    model = read_iqm(_export(bpy, root, meshes, tmp_path / "out.iqm", scale=2.0 if edit == "scale" else 1.0))
    if edit == "weight":
        assert model.frames.tobytes() == file.frames.tobytes()
        assert list(model.array(BLENDINDEXES).data[0]) == [joint, 0, 0, 0]
        assert list(model.array(BLENDWEIGHTS).data[0]) == [255, 0, 0, 0]
    _assert_computed(model, list(range(model.num_frames)))


def test_an_anim_left_out_or_reordered_keeps_the_bounds_of_the_frames_it_writes(bpy_scene, tmp_path):
    """The small file's ``walk`` unticked in the dialog's action list, then the two anims swapped: each
    written frame is the row of the file's frame its action names, and so is its bounds record."""
    bpy = bpy_scene
    path = _source("small", tmp_path)
    file = read_iqm(path.read_bytes())
    root, meshes = _import(bpy, path)
    assert file.anim_names == ["walk", "idle"] and list(file.anims["num_frames"]) == [3, 1]
    items = bpy.context.scene.classic_export_actions
    for entries, frames in (((("walk", False), ("idle", True)), [3]), ((("idle", True), ("walk", True)), [3, 0, 1, 2])):
        items.clear()
        for name, ticked in entries:
            item = items.add()
            item.name, item.export = name, ticked
        model = read_iqm(_export(bpy, root, meshes, tmp_path / "out.iqm"))
        assert model.frames.tobytes() == file.frames[frames].tobytes()
        assert model.bounds.tobytes() == file.bounds[frames].tobytes()


def test_a_file_without_bounds_gets_them_computed(bpy_scene, tmp_path):
    """The small file written without its bounds, one key moved: every frame's bounds are computed, as for a
    model made in Blender (the export writes bounds whenever there are frames)."""
    bpy = bpy_scene
    path = _source("small", tmp_path, bounds=False)
    assert read_iqm(path.read_bytes()).bounds is None
    root, meshes = _import(bpy, path)
    _move_key(bpy)
    model = read_iqm(_export(bpy, root, meshes, tmp_path / "out.iqm"))
    assert model.bounds is not None and model.num_frames == 4
    _assert_computed(model, list(range(model.num_frames)))
