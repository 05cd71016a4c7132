"""What Blender shows is what the game shows: lighting normals and facing of models made in Blender.

Every check decodes the written file and compares it with what Blender itself evaluates: vertex
normals (``mesh.vertex_normals``), corner normals (``mesh.corner_normals``), polygon normals and the
triangles Blender draws (``loop_triangles``) of the evaluated mesh, taken to world space by the
object's matrix (normals by its inverse transpose, as Blender draws a scaled or mirrored object).

* A written vertex is mapped to its Blender vertex by index (the file keeps the mesh's vertex order
  and appends copies: MDL's at UV seams, Split Normals'), a copy to the vertex with the same bytes
  in every frame; file triangle i is Blender's loop triangle i (objects one after the other).
* A written normal index passes when it is the anorm nearest to Blender's normal, ties allowed:
  its dot product with Blender's normal is within ``TIE`` of the best of the 162 (the exporter's
  own normals agree with Blender's to about 1e-4 rad: Blender weights corner angles with an
  approximate acos).
* A written triangle faces as in Blender when its front (clockwise for MD2 and MDL, as Quake culls;
  counter-clockwise for MS3D), taken on Blender's own positions of its vertices so that
  quantisation cannot turn a tiny triangle, has a positive dot product with the normal of the
  triangle Blender draws, in world space, and (objects scaled evenly) with Blender's polygon normal.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from formats.anorms import anorms
from formats.md2.codec import parse_md2
from formats.mdl.codec import parse_mdl
from formats.ms3d.codec import parse_ms3d

TIE = 1e-3
MS3D_TO_BLENDER = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])   # the import's axes


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def blender_truth(bpy, obj) -> dict:
    """The evaluated mesh in world space: positions, vertex, corner, polygon and drawn-triangle
    normals, loop triangles."""
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
        local = read(mesh.vertices, "co", 3).astype(np.float64)
        tris = read(mesh.loop_triangles, "vertices", 3, np.int32)
        p = local[tris]
        drawn = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])           # Blender's counter-clockwise front
        truth = {
            "co": local @ matrix[:3, :3].T + matrix[:3, 3],
            "vertex": _unit(read(mesh.vertex_normals, "vector", 3).astype(np.float64) @ normal_matrix.T),
            "corner": _unit(read(mesh.corner_normals, "vector", 3).astype(np.float64) @ normal_matrix.T),
            "polygon": _unit(read(mesh.polygon_normals, "vector", 3).astype(np.float64) @ normal_matrix.T),
            "triangle": _unit(drawn @ normal_matrix.T),
            "corner_vertex": read(mesh.loops, "vertex_index", 1, np.int32),
            "tri_vertices": tris,
            "tri_loops": read(mesh.loop_triangles, "loops", 3, np.int32),
            "tri_polygon": read(mesh.loop_triangles, "polygon_index", 1, np.int32),
        }
    finally:
        obj_eval.to_mesh_clear()
    return truth


def merged_truth(truths: list[dict]) -> dict:
    """Several objects' truths as one mesh's, in the order the file holds them."""
    vertex_offsets = np.cumsum([0] + [len(t["co"]) for t in truths])
    loop_offsets = np.cumsum([0] + [len(t["corner"]) for t in truths])
    polygon_offsets = np.cumsum([0] + [len(t["polygon"]) for t in truths])
    out = {key: np.concatenate([t[key] for t in truths]) for key in ("co", "vertex", "corner", "polygon", "triangle")}
    for key, offsets in (("corner_vertex", vertex_offsets), ("tri_vertices", vertex_offsets),
                         ("tri_loops", loop_offsets), ("tri_polygon", polygon_offsets)):
        out[key] = np.concatenate([t[key] + off for t, off in zip(truths, offsets)])
    return out


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


def select_only(bpy, objects) -> None:
    bpy.context.view_layer.update()
    for other in bpy.context.view_layer.objects:
        other.select_set(other in objects)


class Written:
    """A written MD2 or MDL, decoded: positions and normal indices per frame, triangles; ``objects``
    in the file's order, their ``truth`` (merged) when written, and each written vertex's Blender
    vertex in it (``source``)."""

    def __init__(self, bpy, kind: str, path, objects: list):
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
        self.objects = _file_order(bpy, self.positions[0], objects)
        self.truth = merged_truth([blender_truth(bpy, o) for o in self.objects])
        self.source = _sources(self.positions[0], self.triangles, self.truth)


def _file_order(bpy, positions: np.ndarray, objects: list) -> list:
    """The objects in the order the file holds their vertices (the order whose blocks lie nearest)."""
    def distance(order) -> float:
        offsets = np.cumsum([0] + [len(o.data.vertices) for o in order])
        return sum(np.linalg.norm(positions[a:b].mean(axis=0) - blender_truth(bpy, o)["co"].mean(axis=0))
                   for o, a, b in zip(order, offsets[:-1], offsets[1:]))
    return list(min(itertools.permutations(objects), key=distance))


def _sources(positions: np.ndarray, triangles: np.ndarray, truth: dict) -> np.ndarray:
    """Each written vertex's Blender vertex: itself for the mesh's vertices; a copy appended after
    them (MDL at UV seams, Split Normals) the vertex of Blender's triangle its corner is in that no
    other corner is, nearest to it."""
    count = len(truth["co"])
    tris = truth["tri_vertices"]
    assert len(triangles) == len(tris), "file triangle i is Blender's loop triangle i"
    source = np.where(np.arange(len(positions)) < count, np.arange(len(positions)), -1)
    for i in np.flatnonzero((triangles >= count).any(axis=1)):
        taken = [v for v in triangles[i] if v < count]
        left = [v for v in tris[i] if v not in taken]
        for v in triangles[i]:
            if v >= count:
                pick = min(left, key=lambda w: np.linalg.norm(truth["co"][w] - positions[v]))
                left.remove(pick)
                assert source[v] in (-1, pick), f"copy {v} stands for two vertices"
                source[v] = pick
    return source


def corner_match(written: Written) -> np.ndarray:
    """(T, 3) for each file corner, which corner (0-2) of Blender's loop triangle it is."""
    same = written.source[written.triangles][:, :, None] == written.truth["tri_vertices"][:, None, :]
    assert np.all(same.sum(axis=2) == 1), "file triangles are not Blender's loop triangles"
    return np.argmax(same, axis=2)


def export(bpy, kind: str, objects, path, **options) -> Written:
    select_only(bpy, objects)
    operator = bpy.ops.export_scene.md2 if kind == "md2" else bpy.ops.export_scene.mdl
    extra = {"skins": "NAMES"} if kind == "md2" else {}
    assert operator(filepath=str(path), frame_rate="SCENE", **extra, **options) == {"FINISHED"}
    return Written(bpy, kind, path, objects)


def check_vertex_normals(written: Written, frame: int, expected: np.ndarray) -> None:
    """Every written vertex's normal index (every copy) is nearest to ``expected`` of its Blender vertex."""
    used = np.unique(written.triangles)
    ok = anorm_ok(written.normals[frame][used], expected[written.source[used]])
    assert ok.all(), f"{int((~ok).sum())} of {ok.size} vertices lit by a normal that is not the nearest anorm"


def check_facing(written: Written, polygons: bool) -> None:
    """Every file triangle's clockwise front, on Blender's positions, faces as Blender draws it."""
    truth = written.truth
    corner_match(written)
    p = truth["co"][written.source[written.triangles]]
    front = _unit(np.cross(p[:, 2] - p[:, 0], p[:, 1] - p[:, 0]))
    drawn = np.einsum("ij,ij->i", front, truth["triangle"])
    assert (drawn > 0).all(), f"{int((drawn <= 0).sum())} of {len(drawn)} triangles inside out"
    if polygons:
        facing = np.einsum("ij,ij->i", front, truth["polygon"][truth["tri_polygon"]])
        assert (facing > 0).all(), f"{int((facing <= 0).sum())} of {len(facing)} against their polygon's normal"


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
    for frame in (1, 2, 3):
        scene.frame_set(frame)
        check_vertex_normals(written, frame - 1, blender_truth(bpy, obj)["vertex"])


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
    check_vertex_normals(written, 0, blender_truth(bpy, obj)["vertex"])


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
    for frame in (1, 2, 3):
        scene.frame_set(frame)
        truth = blender_truth(bpy, obj)
        expected = mean_corner_normals(truth, sizes)
        if frame == 1:
            assert np.degrees(np.arccos(np.clip(np.einsum("ij,ij->i", expected, automatic), -1, 1))).max() > 10, \
                "the custom normals should differ from the automatic ones"
        if bpy.app.version >= (5, 0):     # Blender 5 reports this mean as the vertex normal
            assert np.einsum("ij,ij->i", expected, truth["vertex"]).min() > 1 - 1e-6
        check_vertex_normals(written, frame - 1, expected)


MIRRORS = {"none": (1, 1, 1), "x": (-1, 1, 1), "xy": (-1, -1, 1), "xyz": (-1, -1, -1), "z": (1, 1, -2)}
EVEN = ("none", "x", "xy", "xyz")     # scaled evenly: a polygon's normal and its triangles' agree in world space too


def _mirrored_monkey(bpy, scale) -> object:
    obj = monkey(bpy)
    obj.rotation_euler = (0.3, 0.2, -0.5)
    obj.location = (0.5, -1.0, 2.0)
    obj.scale = scale
    return obj


@pytest.mark.parametrize("kind", ("md2", "mdl"))
@pytest.mark.parametrize("mirror", MIRRORS)
def test_mirrored_objects_face_and_are_lit_as_in_blender(bpy_scene, tmp_path, kind, mirror):
    bpy = bpy_scene
    obj = _mirrored_monkey(bpy, MIRRORS[mirror])
    one_frame(bpy)
    truth = blender_truth(bpy, obj)
    written = export(bpy, kind, [obj], tmp_path / f"mirror.{kind}")
    check_facing(written, polygons=mirror in EVEN)
    check_vertex_normals(written, 0, truth["vertex"])


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
    distance = np.linalg.norm(p[:, :, None, :] - truth["co"][truth["tri_vertices"]][:, None, :, :], axis=-1)
    which = np.argmin(distance, axis=2)                       # float32 positions: each corner's own vertex
    assert np.all(np.sort(which, axis=1) == np.arange(3)) and distance.min(axis=2).max() < 1e-5
    front = _unit(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]))       # counter-clockwise in MS3D
    drawn = np.einsum("ij,ij->i", front, truth["triangle"])
    assert (drawn > 0).all(), f"{int((drawn <= 0).sum())} of {len(drawn)} triangles inside out"
    if mirror in EVEN:
        assert (np.einsum("ij,ij->i", front, truth["polygon"][truth["tri_polygon"]]) > 0).all()
    expected = truth["corner"][np.take_along_axis(truth["tri_loops"], which, axis=1)]
    written = _unit(model.tri_normals.astype(np.float64) @ MS3D_TO_BLENDER.T)
    assert np.einsum("tck,tck->tc", written, expected).min() > 0.9999, "corner normals do not point as in Blender"


@pytest.mark.parametrize("kind", ("md2", "mdl"))
def test_two_objects_in_one_file_each_with_its_own_transform_and_normals(bpy_scene, tmp_path, kind):
    """A plain Suzanne and a mirrored, unevenly scaled one with custom normals, merged into one file:
    each object's triangles face, and its vertices are lit, as Blender shows that object."""
    bpy = bpy_scene
    plain = _mirrored_monkey(bpy, (1, 1, 1))
    mirrored = _mirrored_monkey(bpy, (-1, 1.3, 1))
    mirrored.location = (4.0, 0.0, 0.0)
    one_frame(bpy)
    _custom_normals(bpy, mirrored)
    written = export(bpy, kind, [plain, mirrored], tmp_path / f"pair.{kind}",
                     **({"target": "MODERN"} if kind == "mdl" else {}))
    sizes = np.array([p.loop_total for p in mirrored.data.polygons])
    truths = [blender_truth(bpy, o) for o in written.objects]
    expected = [mean_corner_normals(t, sizes) if o == mirrored else t["vertex"] for o, t in zip(written.objects, truths)]
    check_facing(written, polygons=False)
    check_vertex_normals(written, 0, np.concatenate(expected))


def _flat_cube(bpy):
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.active_object
    bpy.ops.object.shade_flat()
    obj.rotation_euler = (0.0, 0.0, 0.3)
    return obj


def _check_corner_normals(written: Written) -> None:
    """Every written corner's normal index is nearest to Blender's corner normal there."""
    truth = written.truth
    which = corner_match(written)
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
    _check_corner_normals(written)
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
    _check_corner_normals(written)
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
    _check_corner_normals(written)


def test_command_line_split_normals_flag(bpy_scene, tmp_path, run):
    """``convert --split-normals``: a flat-shaded cube (through MS3D, which stores its corner normals)
    becomes 24 vertices in MD2, 8 without the flag."""
    from support.environment import needs_bpy
    needs_bpy()
    bpy = bpy_scene
    _flat_cube(bpy)
    source = tmp_path / "cube.ms3d"
    assert bpy.ops.export_scene.ms3d(filepath=str(source)) == {"FINISHED"}
    counts = {}
    for flag in (False, True):
        out = tmp_path / ("split" if flag else "plain")
        result = run("convert", source, "--to", "md2", "-o", out, *(["--split-normals"] if flag else []))
        assert result.returncode == 0, result.stdout + result.stderr
        counts[flag] = parse_md2((out / "cube.md2").read_bytes()).positions().shape[1]
    assert counts == {False: 8, True: 24}
