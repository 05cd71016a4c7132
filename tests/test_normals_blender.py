"""What Blender shows is what the game shows: lighting normals and facing of models made in Blender.

Every check decodes the written file and compares it with what Blender itself evaluates: vertex
normals (``mesh.vertex_normals``), corner normals (``mesh.corner_normals``) and polygon normals of
the evaluated mesh, taken to world space by the object's matrix (normals by its inverse transpose).

* A written normal index passes when it is the anorm nearest to Blender's normal, ties allowed:
  its dot product with Blender's normal is within ``TIE`` of the best of the 162 (the exporter's
  own normals agree with Blender's to about 1e-4 rad: Blender weights corner angles with an
  approximate acos).
* A written triangle faces as in Blender when its geometric normal (in the format's front-face
  winding: clockwise for MD2 and MDL, whose exporters reverse Blender's order; counter-clockwise
  for MS3D) has a positive dot product with Blender's polygon normal in world space.
Corners of the file are matched to Blender's loop triangles by position (file triangle i is loop
triangle i), so the checks do not rely on the exporter's corner order.
"""
from __future__ import annotations

import numpy as np
import pytest

from formats.anorms import anorms
from formats.md2 import parse_md2
from formats.mdl import parse_mdl
from formats.ms3d import parse_ms3d

TIE = 1e-3
MS3D_TO_BLENDER = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])   # the import's axes


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def blender_truth(bpy, obj) -> dict:
    """The evaluated mesh in world space: positions, vertex, corner and polygon normals, loop triangles."""
    bpy.context.view_layer.update()
    obj_eval = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = obj_eval.to_mesh()
    try:
        def read(collection, attr, width, dtype=np.float32):
            flat = np.empty(len(collection) * width, dtype=dtype)
            collection.foreach_get(attr, flat)
            return flat.reshape(-1, width) if width > 1 else flat
        mesh.calc_loop_triangles()
        matrix = np.array(obj.matrix_world, dtype=np.float64)
        normal_matrix = np.linalg.inv(matrix[:3, :3]).T
        co = read(mesh.vertices, "co", 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]
        truth = {
            "co": co,
            "vertex": _unit(read(mesh.vertex_normals, "vector", 3).astype(np.float64) @ normal_matrix.T),
            "corner": _unit(read(mesh.corner_normals, "vector", 3).astype(np.float64) @ normal_matrix.T),
            "polygon": _unit(read(mesh.polygon_normals, "vector", 3).astype(np.float64) @ normal_matrix.T),
            "corner_vertex": read(mesh.loops, "vertex_index", 1, np.int32),
            "tri_vertices": read(mesh.loop_triangles, "vertices", 3, np.int32),
            "tri_loops": read(mesh.loop_triangles, "loops", 3, np.int32),
            "tri_polygon": read(mesh.loop_triangles, "polygon_index", 1, np.int32),
        }
    finally:
        obj_eval.to_mesh_clear()
    return truth


def mean_corner_normals(truth: dict, polygon_sizes: np.ndarray) -> np.ndarray:
    """Per vertex, the mean of its corners' normals weighted by the polygon's angle at the corner,
    normalised (world space; Blender 5's vertex normal of a mesh with custom normals)."""
    start = np.repeat(np.cumsum(polygon_sizes) - polygon_sizes, polygon_sizes)
    within = np.arange(len(start)) - start
    size = np.repeat(polygon_sizes, polygon_sizes)
    co = truth["co"][truth["corner_vertex"]]
    to_prev = _unit(truth["co"][truth["corner_vertex"][start + (within - 1) % size]] - co)
    to_next = _unit(truth["co"][truth["corner_vertex"][start + (within + 1) % size]] - co)
    angle = np.arccos(np.clip(np.einsum("ij,ij->i", to_prev, to_next), -1.0, 1.0))
    total = np.zeros((len(truth["co"]), 3))
    np.add.at(total, truth["corner_vertex"], truth["corner"] * angle[:, None])
    return _unit(total)


def anorm_ok(indices: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """True where ``indices`` is the anorm nearest to ``normals`` (ties within TIE allowed)."""
    table = anorms().astype(np.float64)
    dots = np.asarray(normals, dtype=np.float64).reshape(-1, 3) @ table.T
    got = dots[np.arange(len(dots)), np.asarray(indices).ravel()]
    return (got >= dots.max(axis=1) - TIE).reshape(np.shape(indices))


PERMUTATIONS = np.array([(0, 1, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0), (1, 0, 2), (0, 2, 1)])


def match_corners(decoded: np.ndarray, truth_tris: np.ndarray) -> np.ndarray:
    """(T, 3) for each file corner, which corner (0-2) of the Blender triangle it is: the order of
    the three that puts the decoded corners nearest to Blender's (quantised files are off by up to
    half a step)."""
    error = np.stack([np.linalg.norm(decoded - truth_tris[:, perm], axis=-1).sum(axis=1) for perm in PERMUTATIONS])
    best = np.argmin(error, axis=0)
    scale = np.ptp(truth_tris.reshape(-1, 3), axis=0).max()
    assert error[best, np.arange(len(best))].max() < 0.05 * scale, "file triangles do not match Blender's"
    return PERMUTATIONS[best]


def select_only(bpy, objects) -> None:
    bpy.context.view_layer.update()
    for other in bpy.context.view_layer.objects:
        other.select_set(other in objects)


class Written:
    """A written MD2 or MDL, decoded: positions per frame, triangles, normal index per vertex and frame."""

    def __init__(self, kind: str, path):
        if kind == "md2":
            model = parse_md2(path.read_bytes())
            self.positions = (model.frame_verts.astype(np.float64) * model.frame_scale[:, None, :]
                              + model.frame_translate[:, None, :])
            self.triangles, self.normals = model.tri_xyz.astype(np.int64), model.frame_normals
        else:
            model = parse_mdl(path.read_bytes())
            self.positions = model.pose_verts.astype(np.float64) * model.scale + model.translate
            self.triangles, self.normals = model.triangles.astype(np.int64), model.pose_normals
        self.model = model


def export(bpy, kind: str, objects, path, **options) -> Written:
    select_only(bpy, objects)
    operator = bpy.ops.export_scene.md2 if kind == "md2" else bpy.ops.export_scene.mdl
    extra = {"skins": "NAMES"} if kind == "md2" else {}
    assert operator(filepath=str(path), frame_rate="SCENE", **extra, **options) == {"FINISHED"}
    return Written(kind, path)


def check_vertex_normals(written: Written, frame: int, truth: dict, expected: np.ndarray,
                         tris: np.ndarray | None = None, which: np.ndarray | None = None) -> np.ndarray:
    """Assert every written corner's normal index is nearest to ``expected`` (per Blender vertex)
    of the Blender vertex it is; returns the corner match. ``tris``: Blender's loop triangles as
    exported (a non-planar quad's diagonal may change from frame to frame); ``which``: the corner
    match of another frame (a frame may bring vertices closer than the file's step)."""
    tris = truth["tri_vertices"] if tris is None else tris
    assert len(written.triangles) == len(tris)
    if which is None:
        which = match_corners(written.positions[frame][written.triangles], truth["co"][tris])
    blender_vertex = np.take_along_axis(tris, which, axis=1)
    ok = anorm_ok(written.normals[frame][written.triangles], expected[blender_vertex])
    assert ok.all(), f"{int((~ok).sum())} of {ok.size} corners lit by a normal that is not the nearest anorm"
    return which


def monkey(bpy, jitter: float = 0.0, seed: int = 7):
    """Suzanne (UVs with seams), smooth-shaded; ``jitter`` moves every vertex randomly (non-planar quads)."""
    bpy.ops.mesh.primitive_monkey_add()
    obj = bpy.context.active_object
    bpy.ops.object.shade_smooth()
    if jitter:
        count = len(obj.data.vertices)
        co = np.empty(count * 3, dtype=np.float32)
        obj.data.vertices.foreach_get("co", co)
        co += np.random.default_rng(seed).uniform(-jitter, jitter, co.shape).astype(np.float32)
        obj.data.vertices.foreach_set("co", co)
        obj.data.update()
    return obj


def one_frame(bpy) -> None:
    bpy.context.scene.frame_start = bpy.context.scene.frame_end = 1
    bpy.context.scene.frame_set(1)


def _squash_key(obj) -> None:
    """A shape key squashing and rippling the mesh, 0 at frame 1, 1 at frame 2 (both read directly
    by the export), 0.5 at frame 3 (evaluated)."""
    obj.shape_key_add(name="Basis")
    key = obj.shape_key_add(name="Squash", from_mix=False)
    co = np.empty(len(key.data) * 3, dtype=np.float32)
    key.data.foreach_get("co", co)
    co = co.reshape(-1, 3) * np.array([1.3, 0.8, 1.0], np.float32) + 0.05 * np.sin(co.reshape(-1, 3)[:, [1, 2, 0]] * 7)
    key.data.foreach_set("co", co.astype(np.float32).ravel())
    for frame, value in ((1, 0.0), (2, 1.0), (3, 0.5)):
        key.value = value
        key.keyframe_insert("value", frame=frame)


@pytest.mark.parametrize("kind", ("md2", "mdl"))
def test_suzanne_vertex_normals_are_blenders_in_every_frame(bpy_scene, tmp_path, kind):
    """Smooth Suzanne with non-planar quads, animated by a shape key: every written vertex, every
    copy at a UV seam, every frame."""
    bpy = bpy_scene
    obj = monkey(bpy, jitter=0.03)
    _squash_key(obj)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    written = export(bpy, kind, [obj], tmp_path / f"suzanne.{kind}")
    if kind == "mdl":
        assert written.positions.shape[1] > len(obj.data.vertices), "the test needs vertices split at UV seams"
    which = None
    for frame in (1, 2, 3):
        scene.frame_set(frame)
        truth = blender_truth(bpy, obj)
        if which is None:
            exported_tris = truth["tri_vertices"]
        which = check_vertex_normals(written, frame - 1, truth, truth["vertex"], exported_tris, which)


@pytest.mark.parametrize("kind", ("md2", "mdl"))
def test_ngons_use_their_own_polygon_normal(bpy_scene, tmp_path, kind):
    """A cylinder with n-gon caps, its vertices moved so caps and sides are not planar."""
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cylinder_add(vertices=12, end_fill_type="NGON")
    obj = bpy.context.active_object
    bpy.ops.object.shade_smooth()
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    co += np.random.default_rng(3).uniform(-0.15, 0.15, co.shape).astype(np.float32)
    obj.data.vertices.foreach_set("co", co)
    obj.data.update()
    one_frame(bpy)
    written = export(bpy, kind, [obj], tmp_path / f"cylinder.{kind}")
    truth = blender_truth(bpy, obj)
    check_vertex_normals(written, 0, truth, truth["vertex"])


def _custom_normals(bpy, obj, seed: int = 5) -> None:
    """Custom normals: each vertex's normal tilted by up to about 35 degrees."""
    mesh = obj.data
    normals = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertex_normals.foreach_get("vector", normals)
    normals = _unit(normals.reshape(-1, 3) + np.random.default_rng(seed).uniform(-0.6, 0.6, (len(mesh.vertices), 3)))
    mesh.normals_split_custom_set_from_vertices([tuple(n) for n in normals])
    mesh.update()


@pytest.mark.parametrize("kind", ("md2", "mdl"))
@pytest.mark.parametrize("scale", ((1.0, 1.0, 1.0), (-1.5, 1.5, 1.5)), ids=("turned", "turned-mirrored"))
def test_custom_normals_are_the_mean_of_the_corner_normals(bpy_scene, tmp_path, kind, scale):
    """Suzanne with custom normals, turned (and mirrored), deformed by a shape key: in every frame the
    angle-weighted mean of Blender's corner normals (which carries the custom normals along)."""
    bpy = bpy_scene
    obj = monkey(bpy)
    obj.rotation_euler = (0.4, -0.7, 1.1)
    obj.scale = scale
    one_frame(bpy)
    automatic = blender_truth(bpy, obj)["vertex"]
    _custom_normals(bpy, obj)
    _squash_key(obj)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    sizes = np.array([p.loop_total for p in obj.data.polygons])
    written = export(bpy, kind, [obj], tmp_path / f"custom.{kind}")
    which = None
    for frame in (1, 2, 3):
        scene.frame_set(frame)
        truth = blender_truth(bpy, obj)
        expected = mean_corner_normals(truth, sizes)
        if frame == 1:
            exported_tris = truth["tri_vertices"]
            assert np.degrees(np.arccos(np.clip(np.einsum("ij,ij->i", expected, automatic), -1, 1))).max() > 10, \
                "the custom normals should differ from the automatic ones"
        if bpy.app.version >= (5, 0):     # Blender 5 reports this mean as the vertex normal
            assert np.einsum("ij,ij->i", expected, truth["vertex"]).min() > 1 - 1e-6
        which = check_vertex_normals(written, frame - 1, truth, expected, exported_tris, which)


MIRRORS = {"none": (1, 1, 1), "x": (-1, 1, 1), "xy": (-1, -1, 1), "xyz": (-1, -1, -1), "z": (1, 1, -2)}


def _mirrored_monkey(bpy, scale) -> object:
    obj = monkey(bpy)
    obj.rotation_euler = (0.3, 0.2, -0.5)
    obj.location = (0.5, -1.0, 2.0)
    obj.scale = scale
    return obj


def _facing(file_front: np.ndarray, truth: dict) -> np.ndarray:
    """Dot products of each file triangle's front normal with Blender's polygon normal (world)."""
    return np.einsum("ij,ij->i", _unit(file_front), truth["polygon"][truth["tri_polygon"]])


@pytest.mark.parametrize("kind", ("md2", "mdl"))
@pytest.mark.parametrize("mirror", MIRRORS)
def test_mirrored_objects_face_and_are_lit_as_in_blender(bpy_scene, tmp_path, kind, mirror):
    bpy = bpy_scene
    obj = _mirrored_monkey(bpy, MIRRORS[mirror])
    one_frame(bpy)
    truth = blender_truth(bpy, obj)
    written = export(bpy, kind, [obj], tmp_path / f"mirror.{kind}")
    p = written.positions[0][written.triangles]
    front = np.cross(p[:, 2] - p[:, 0], p[:, 1] - p[:, 0])      # clockwise is the front in Quake
    facing = _facing(front, truth)
    assert (facing > 0).sum() == len(facing), f"{int((facing <= 0).sum())} of {len(facing)} triangles inside out"
    check_vertex_normals(written, 0, truth, truth["vertex"])


@pytest.mark.parametrize("mirror", MIRRORS)
def test_mirrored_objects_face_as_in_blender_in_ms3d(bpy_scene, tmp_path, mirror):
    bpy = bpy_scene
    obj = _mirrored_monkey(bpy, MIRRORS[mirror])
    one_frame(bpy)
    truth = blender_truth(bpy, obj)
    select_only(bpy, [obj])
    path = tmp_path / "mirror.ms3d"
    assert bpy.ops.export_scene.ms3d(filepath=str(path), textures="NAMES") == {"FINISHED"}
    model = parse_ms3d(path.read_bytes())
    xyz = model.vert_xyz.astype(np.float64) @ MS3D_TO_BLENDER.T       # back to Blender's axes
    tris = model.tri_vertices.astype(np.int64)
    assert len(tris) == len(truth["tri_vertices"])
    p = xyz[tris]
    facing = _facing(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), truth)
    assert (facing > 0).sum() == len(facing), f"{int((facing <= 0).sum())} of {len(facing)} triangles inside out"
    which = match_corners(p, truth["co"][truth["tri_vertices"]])
    expected = truth["corner"][np.take_along_axis(truth["tri_loops"], which, axis=1)]
    written = _unit(model.tri_normals.astype(np.float64) @ MS3D_TO_BLENDER.T)
    assert np.einsum("tck,tck->tc", written, expected).min() > 0.9999, "corner normals do not point as in Blender"


def test_two_objects_one_mirrored_in_one_md2(bpy_scene, tmp_path):
    """Each object's triangles are reversed or not by its own transform."""
    bpy = bpy_scene
    plain = _mirrored_monkey(bpy, (1, 1, 1))
    mirrored = _mirrored_monkey(bpy, (-1, 1, 1))
    mirrored.location = (4.0, 0.0, 0.0)
    one_frame(bpy)
    truths = [blender_truth(bpy, o) for o in (plain, mirrored)]
    written = export(bpy, "md2", [plain, mirrored], tmp_path / "pair.md2")
    p = written.positions[0][written.triangles]
    front = np.cross(p[:, 2] - p[:, 0], p[:, 1] - p[:, 0])
    first = len(truths[0]["tri_vertices"])
    halves = (slice(0, first), slice(first, None))
    facing = []
    for half in halves:     # which object a half is: the one whose vertices it lies on (they are 3.5 apart)
        centre = p[half].reshape(-1, 3).mean(axis=0)
        truth = min(truths, key=lambda t: np.linalg.norm(t["co"].mean(axis=0) - centre))
        facing.append(_facing(front[half], truth))
    facing = np.concatenate(facing)
    assert (facing > 0).all()


def _flat_cube(bpy):
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.active_object
    bpy.ops.object.shade_flat()
    obj.rotation_euler = (0.0, 0.0, 0.3)
    return obj


def _check_corner_normals(written: Written, truth: dict) -> None:
    """Every written corner's normal index is nearest to Blender's corner normal there."""
    tris = truth["tri_vertices"]
    which = match_corners(written.positions[0][written.triangles], truth["co"][tris])
    expected = truth["corner"][np.take_along_axis(truth["tri_loops"], which, axis=1)]
    ok = anorm_ok(written.normals[0][written.triangles], expected)
    assert ok.all(), f"{int((~ok).sum())} of {ok.size} corners not lit by their corner normal"


@pytest.mark.parametrize("kind", ("md2", "mdl"))
def test_split_normals_light_a_flat_cube_flat(bpy_scene, tmp_path, kind, capsys):
    bpy = bpy_scene
    obj = _flat_cube(bpy)
    one_frame(bpy)
    truth = blender_truth(bpy, obj)
    written = export(bpy, kind, [obj], tmp_path / f"cube.{kind}", split_normals=True)
    assert written.positions.shape[1] >= 24
    if kind == "md2":
        assert written.positions.shape[1] == 24
        assert "Split Normals: 16 vertices added" in capsys.readouterr().out
    _check_corner_normals(written, truth)
    face = truth["polygon"][truth["tri_polygon"]]
    assert anorm_ok(written.normals[0][written.triangles], np.repeat(face[:, None], 3, axis=1)).all()
    plain = export(bpy, kind, [obj], tmp_path / f"cube-plain.{kind}")
    assert plain.positions.shape[1] < written.positions.shape[1]
    assert not anorm_ok(plain.normals[0][plain.triangles], np.repeat(face[:, None], 3, axis=1)).all(), \
        "without Split Normals a cube's corners share vertices (and so a normal)"


@pytest.mark.parametrize("kind", ("md2", "mdl"))
def test_split_normals_follow_sharp_edges_and_custom_normals(bpy_scene, tmp_path, kind):
    """A cylinder smooth on its sides with sharp cap edges, and Suzanne with custom normals split by
    face: each corner lit by its own Blender corner normal; a smooth mesh gains no vertex."""
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cylinder_add(vertices=16)
    cylinder = bpy.context.active_object
    bpy.ops.object.shade_smooth()
    mesh = cylinder.data
    for edge in mesh.edges:
        a, b = (mesh.vertices[i].co for i in edge.vertices)
        edge.use_edge_sharp = abs(a.z - b.z) < 1e-6            # the rims of the caps
    one_frame(bpy)
    written = export(bpy, kind, [cylinder], tmp_path / f"cylinder.{kind}", split_normals=True)
    _check_corner_normals(written, blender_truth(bpy, cylinder))
    bpy.data.objects.remove(cylinder)

    suzanne = monkey(bpy)
    smooth = export(bpy, kind, [suzanne], tmp_path / f"smooth.{kind}", split_normals=True)
    again = export(bpy, kind, [suzanne], tmp_path / f"smooth-plain.{kind}")
    assert np.array_equal(smooth.normals, again.normals) and smooth.positions.shape == again.positions.shape
    mesh = suzanne.data
    corner_normals = np.empty(len(mesh.loops) * 3, dtype=np.float32)
    polygon_normals = np.empty(len(mesh.polygons) * 3, dtype=np.float32)
    mesh.polygon_normals.foreach_get("vector", polygon_normals)
    loop_polygon = np.repeat(np.arange(len(mesh.polygons)), [p.loop_total for p in mesh.polygons])
    tilted = _unit(polygon_normals.reshape(-1, 3)[loop_polygon] + np.array([0.3, 0.0, 0.2]))
    mesh.normals_split_custom_set([tuple(n) for n in tilted])
    mesh.corner_normals.foreach_get("vector", corner_normals)
    written = export(bpy, kind, [suzanne], tmp_path / f"custom-split.{kind}", split_normals=True,
                     **({"target": "MODERN"} if kind == "mdl" else {}))
    assert written.positions.shape[1] > smooth.positions.shape[1]
    _check_corner_normals(written, blender_truth(bpy, suzanne))
