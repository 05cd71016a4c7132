"""MD3 export of scenes made in Blender: every surface vertex, normal, tag, bound and radius of every frame
against what Blender evaluates (read back with plain bpy calls and decoded with formats/md3); the limits
refused before anything is written; an MD3 laid out as the contract says an import leaves it written
back byte for byte, for every corpus file."""
from __future__ import annotations

import importlib
from types import SimpleNamespace

import numpy as np
import pytest
from support import md3_contract_scene
from support.environment import corpus_params
from support.md3_scenes import column_model, evaluated, play, world_matrix
from support.operators import extension_module

from formats.md3.codec import read_md3
from formats.md3.vertices import NORMAL_STEP_RADIANS, decode_normals, decode_xyz

HALF_STEP = 1.0 / 128 + 1e-6           # half of MD3's 1/64 unit, and float32 rounding


def export(bpy, objects, path, **options):
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objects[0]
    options.setdefault("frame_rate", "SCENE")          # one frame per scene frame: the truth is per frame
    assert bpy.ops.export_scene.md3(filepath=str(path), **options) == {"FINISHED"}
    return read_md3(path.read_bytes())


def _canonical(tris: np.ndarray) -> set:
    """Triangles as vertex triples rotated to start at their smallest vertex (winding kept)."""
    out = set()
    for t in np.asarray(tris).tolist():
        k = t.index(min(t))
        out.add(tuple(t[k:] + t[:k]))
    return out


def surface_vertices(surface, truth: dict, material: int) -> np.ndarray:
    """The Blender vertex of each surface vertex: the corner keys (vertex, UV) of the material's faces
    are the surface's vertices one for one; each is found by its UV and its first-frame position."""
    chosen = truth["material"] == material
    corners = truth["triangles"][chosen].reshape(-1)
    uvs = truth["uvs"][chosen].reshape(-1, 2).astype(np.float32)
    keys = np.unique(np.concatenate([corners[:, None].astype(np.float64), uvs.astype(np.float64)], 1), axis=0)
    assert surface.num_verts == len(keys), "one MD3 vertex per distinct (vertex, UV) of the material's corners"
    shown_uv = np.stack([surface.st[:, 0], np.float32(1) - surface.st[:, 1]], 1).astype(np.float32)
    decoded = decode_xyz(surface.xyz[0]).astype(np.float64)
    found = np.empty(surface.num_verts, np.int64)
    for i in range(surface.num_verts):
        same_uv = keys[np.all(keys[:, 1:].astype(np.float32) == shown_uv[i], axis=1), 0].astype(np.int64)
        assert len(same_uv), f"vertex {i}: its st is no corner's UV"
        distance = np.abs(truth["positions"][same_uv] - decoded[i]).max(axis=1)
        found[i] = same_uv[np.argmin(distance)]
        assert distance.min() <= HALF_STEP
    assert _canonical(found[surface.triangles][:, ::-1]) == _canonical(truth["triangles"][chosen]), \
        "the surface's triangles, reversed (clockwise in the file), are the material's faces"
    return found


def check_frames(model, truths: list[dict], tag_truths: np.ndarray | None, materials: list[str]) -> None:
    assert model.num_frames == len(truths)
    by_shader = {s.shaders[0].name: s for s in model.surfaces}
    assert sorted(by_shader) == sorted(materials)
    decoded_all = []
    for material, name in enumerate(materials):
        surface = by_shader[name]
        vertex = surface_vertices(surface, truths[0], material)
        decoded = decode_xyz(surface.xyz).astype(np.float64)
        decoded_all.append(decoded)
        for f, truth in enumerate(truths):
            assert np.abs(decoded[f] - truth["positions"][vertex]).max() <= HALF_STEP, f"frame {f} positions"
            normals = decode_normals(surface.normal[f]).astype(np.float64)
            normals /= np.linalg.norm(normals, axis=1, keepdims=True)
            cosine = np.clip(np.sum(normals * truth["normals"][vertex], axis=1), -1, 1)
            assert np.arccos(cosine).max() <= NORMAL_STEP_RADIANS, f"frame {f} normals"
    every = np.concatenate(decoded_all, axis=1)
    assert np.array_equal(model.frame_bounds[:, 0], every.min(axis=1).astype(np.float32))
    assert np.array_equal(model.frame_bounds[:, 1], every.max(axis=1).astype(np.float32))
    corner = np.maximum(np.abs(model.frame_bounds[:, 0]), np.abs(model.frame_bounds[:, 1])).astype(np.float64)
    assert np.allclose(model.frame_radius, np.linalg.norm(corner, axis=1), rtol=1e-6, atol=0)   # RadiusFromBounds
    assert not model.frame_origin.any()
    moved = np.ptp(np.array([t["positions"] for t in truths]), axis=0).max()
    assert moved > 0.3, "the frames really differ"
    if tag_truths is not None:
        assert np.abs(model.tag_origin[:, 0] - tag_truths[:, :3, 3]).max() <= HALF_STEP
        columns = np.swapaxes(tag_truths[:, :3, :3], 1, 2)
        columns /= np.linalg.norm(columns, axis=2, keepdims=True)
        assert np.abs(model.tag_axis[:, 0] - columns).max() <= 1e-4
        assert np.ptp(tag_truths[:, :3, 3], axis=0).max() > 0.3, "the tag really moves"


def test_timeline_shape_keys_and_armature_match_blender(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, tag, _ = column_model(bpy)
    model = export(bpy, [obj, tag], tmp_path / "column.md3")
    truths, tags = [], []
    for f in range(1, 6):
        bpy.context.scene.frame_set(f)
        truths.append(evaluated(bpy, obj))
        tags.append(world_matrix(bpy, tag))
    assert model.frame_names == [f"frame{i:02d}" for i in range(1, 6)]
    assert model.tag_names == ["tag_tip"]
    assert [s.name for s in model.surfaces] == ["column_metal", "column_glass"]
    check_frames(model, truths, np.array(tags), ["metal", "glass"])
    seam = model.surfaces[0]
    assert seam.num_verts == len(obj.data.vertices) + 5, "the seam's 5 vertices are written twice"


def test_actions_with_a_tag_on_a_bone_match_blender(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, tag, actions = column_model(bpy, shape_key=False, actions=("bend", "wave"), timeline_action="")
    model = export(bpy, [obj, tag], tmp_path / "column.md3", frame_source="ACTIONS")
    assert model.frame_names == [f"bend{i:02d}" for i in range(1, 6)] + [f"wave{i:02d}" for i in range(1, 10)]
    truths, tags = [], []
    for name, last in (("bend", 5), ("wave", 9)):
        play(bpy, rig, actions[name])
        for f in range(1, last + 1):
            bpy.context.scene.frame_set(f)
            truths.append(evaluated(bpy, obj))
            tags.append(world_matrix(bpy, tag))
    check_frames(model, truths, np.array(tags), ["metal", "glass"])


def test_a_model_root_makes_coordinates_relative_to_it(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, tag, _ = column_model(bpy, timeline_action="")
    bpy.context.scene.frame_end = 1
    root = bpy.data.objects.new("model", None)
    bpy.context.scene.collection.objects.link(root)
    root.location, root.rotation_euler = (5.0, -3.0, 2.0), (0.0, 0.0, 0.7)
    for child in (obj, rig):
        child.parent = root
    bpy.context.view_layer.update()
    model = export(bpy, [root], tmp_path / "placed.md3")      # the root brings its meshes and tags
    to_root = np.linalg.inv(world_matrix(bpy, root))
    truth = evaluated(bpy, obj)
    truth["positions"] = truth["positions"] @ to_root[:3, :3].T + to_root[:3, 3]
    truth["normals"] = truth["normals"] @ to_root[:3, :3].T
    check_frames_single(model, truth, to_root @ world_matrix(bpy, tag))


def check_frames_single(model, truth, tag_matrix):
    assert model.num_frames == 1 and model.tag_names == ["tag_tip"]
    for material, name in enumerate(["metal", "glass"]):
        surface = next(s for s in model.surfaces if s.shaders[0].name == name)
        vertex = surface_vertices(surface, truth, material)
        assert np.abs(decode_xyz(surface.xyz[0]) - truth["positions"][vertex]).max() <= HALF_STEP
    assert np.abs(model.tag_origin[0, 0] - tag_matrix[:3, 3]).max() <= HALF_STEP


@pytest.mark.parametrize("what", ["tags", "vertices", "frames"])
def test_limits_are_refused_before_anything_is_written(bpy_scene, tmp_path, what):
    bpy = bpy_scene
    obj, rig, tag, _ = column_model(bpy)
    objects = [obj, tag]
    expected = {"tags": "17 tags, 1 over the limit of 16", "vertices": "over the limit of 4096",
                "frames": "1100 frames, 76 over the limit of 1024"}[what]
    if what == "tags":
        for i in range(16):
            extra = bpy.data.objects.new(f"tag_extra{i}", None)
            bpy.context.scene.collection.objects.link(extra)
            objects.append(extra)
    elif what == "vertices":
        bpy.ops.mesh.primitive_grid_add(x_subdivisions=65, y_subdivisions=65)
        objects.append(bpy.context.active_object)
    else:
        bpy.context.scene.frame_end = 1100
    path = tmp_path / "over.md3"
    with pytest.raises(RuntimeError, match="cannot export as MD3") as error:
        export(bpy, objects, path)
    assert expected in str(error.value)
    assert not path.exists() and not list(tmp_path.iterdir())


def _md3_contract(extension: str) -> SimpleNamespace:
    """The contract's names an MD3 import leaves: the shared ones (common/contract.py) and MD3's own."""
    modules = (importlib.import_module(f"{extension}.common.contract"),
               importlib.import_module(f"{extension}.common.md3.contract"))
    return SimpleNamespace(**{k: v for m in modules for k, v in vars(m).items() if k.isupper()})


@pytest.mark.parametrize("path", corpus_params("md3/**/*.md3"))
def test_contract_layout_writes_every_corpus_file_back(bpy_scene, extension, tmp_path, path):
    """Built from the file alone as the contract describes an import (tests/md3_contract_scene.py)."""
    bpy = bpy_scene
    data = path.read_bytes()
    contract = _md3_contract(extension)
    root = md3_contract_scene.build(bpy, contract, data)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == root)
    out = tmp_path / "back.md3"
    assert bpy.ops.export_scene.md3(filepath=str(out), frame_rate="SCENE") == {"FINISHED"}
    assert out.read_bytes() == data


def _corner_normals(bpy, obj) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(corner vertex, corner normal, corner UV) of the evaluated mesh, Blender's own corner normals."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    obj_eval = obj.evaluated_get(depsgraph)
    mesh = obj_eval.to_mesh()
    try:
        count = len(mesh.loops)
        vertex = np.empty(count, np.int32)
        mesh.loops.foreach_get("vertex_index", vertex)
        normals = np.empty(count * 3, np.float32)
        mesh.corner_normals.foreach_get("vector", normals)
        uv = np.empty(count * 2, np.float32)
        mesh.uv_layers.active.uv.foreach_get("vector", uv)
    finally:
        obj_eval.to_mesh_clear()
    return vertex, normals.reshape(-1, 3).astype(np.float64), uv.reshape(-1, 2)


@pytest.mark.parametrize("kind", ["custom", "flat"])
def test_normals_are_the_ones_blender_shades(bpy_scene, tmp_path, kind):
    """Custom normals (every vertex leaning outwards and up) and, with Split Normals, flat faces: each
    MD3 vertex carries the normal Blender shades its corners with."""
    bpy = bpy_scene
    obj, rig, tag, _ = column_model(bpy, shape_key=False, timeline_action="")
    bpy.context.scene.frame_end = 1
    mesh = obj.data
    if kind == "custom":
        co = np.array([v.co for v in mesh.vertices])
        lean = co * np.array([1.0, 1.0, 0.0]) + np.array([0.0, 0.0, 0.8])
        lean /= np.linalg.norm(lean, axis=1, keepdims=True)
        if hasattr(mesh, "use_auto_smooth"):
            mesh.use_auto_smooth = True                       # 4.0 and older need it for custom normals
        mesh.normals_split_custom_set_from_vertices(lean.tolist())
        options = {}
    else:
        mesh.polygons.foreach_set("use_smooth", np.zeros(len(mesh.polygons), bool))
        options = {"split_normals": True}
    model = export(bpy, [obj], tmp_path / f"{kind}.md3", **options)
    vertex, normals, uvs = _corner_normals(bpy, obj)
    every_corner = 0
    for surface in model.surfaces:
        decoded = decode_normals(surface.normal[0]).astype(np.float64)
        decoded /= np.linalg.norm(decoded, axis=1, keepdims=True)
        position = decode_xyz(surface.xyz[0]).astype(np.float64)
        shown_uv = np.stack([surface.st[:, 0], np.float32(1) - surface.st[:, 1]], 1).astype(np.float32)
        co = np.array([v.co for v in mesh.vertices])
        for c in range(len(vertex)):
            # the MD3 vertex at this corner: same place, same UV and (several copies) the closest normal
            here = np.flatnonzero(np.all(np.abs(position - co[vertex[c]]) <= HALF_STEP, axis=1)
                                  & np.all(shown_uv == uvs[c], axis=1))
            if not len(here):
                continue                                        # a corner of the other surface
            best = np.max(decoded[here] @ normals[c])
            assert np.arccos(min(best, 1.0)) <= NORMAL_STEP_RADIANS, f"corner {c}"
            every_corner += 1
    assert every_corner == len(vertex)
    if kind == "flat":
        smooth = len(mesh.vertices) + 5 + 2 * 8                # one vertex per vertex and UV: the seam, the caps
        assert sum(s.num_verts for s in model.surfaces) > smooth + 40, "a corner per face normal"


def test_a_model_of_several_surfaces_has_its_normals_worked_out_once(bpy_scene, extension, tmp_path, monkeypatch):
    """The column's two surfaces (two materials of one mesh) share its vertex normals: they are worked out
    once for the whole model (the export did it once per surface, 14 times for Nexuiz's 14-surface turret),
    and each surface's normals are still the ones Blender shades."""
    bpy = bpy_scene
    obj, rig, tag, _ = column_model(bpy)
    build = extension_module(extension, "exporters.md3.build")
    shaded, calls = build.shaded_normals, []

    def counted(positions, shading):
        calls.append(np.shape(positions))
        return shaded(positions, shading)
    monkeypatch.setattr(build, "shaded_normals", counted)
    model = export(bpy, [obj, tag], tmp_path / "column.md3")
    assert len(model.surfaces) == 2
    assert calls == [(5, len(obj.data.vertices), 3)]
    truths, tags = [], []
    for f in range(1, 6):
        bpy.context.scene.frame_set(f)
        truths.append(evaluated(bpy, obj))
        tags.append(world_matrix(bpy, tag))
    check_frames(model, truths, np.array(tags), ["metal", "glass"])


@pytest.mark.parametrize("target", ["md2", "mdl"])
def test_an_md3_written_as_md2_or_mdl_says_what_it_drops(bpy_scene, extension, tmp_path, capfd, target):
    """A turret (two surfaces, a tag) laid out as an MD3 import
    leaves it, exported as MD2 / MDL: the report names the tags left out and the surfaces merged."""
    from support.blender_helpers import reported
    bpy = bpy_scene
    contract = _md3_contract(extension)
    source = corpus_params("md3/nexuiz/models/turrets/reactor.md3")[0].values[0]    # two surfaces, a tag
    if source is None:
        pytest.skip("corpus not found")
    model = read_md3(source.read_bytes())
    root = md3_contract_scene.build(bpy, contract, source.read_bytes())
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == root or obj.parent == root)
    capfd.readouterr()
    operator = getattr(bpy.ops.export_scene, target)
    extra = {"target": "MODERN"} if target == "mdl" else {}           # 1584 vertices: over Quake's 1024
    assert operator(filepath=str(tmp_path / f"reactor.{target}"), frame_rate="SCENE", **extra) == {"FINISHED"}
    _, messages = reported(capfd.readouterr().out)
    tags = [m for m in messages if "tag(s) not written" in m]
    assert tags and tags[0].startswith(f"{model.num_tags} tag(s)") and f"{target.upper()} has no tags" in tags[0]
    merged = [m for m in messages if "surfaces are merged" in m]
    assert len(model.surfaces) > 1 and len(merged) == 1 and f"{len(model.surfaces)} surfaces" in merged[0]


def test_a_keyed_tag_under_a_turned_empty_is_where_blender_shows_it(bpy_scene, tmp_path):
    """A tag keyed in location and Euler rotation (ZXY), parented with a parent-inverse to a turned, scaled
    empty: its file transform at every frame is its evaluated world matrix (read from its F-curves
    without stepping the timeline, which must give what Blender evaluates)."""
    bpy = bpy_scene
    obj, rig, _, _ = column_model(bpy, timeline_action="")
    holder = bpy.data.objects.new("holder", None)
    bpy.context.scene.collection.objects.link(holder)
    holder.location, holder.rotation_euler, holder.scale = (2.0, -1.0, 0.5), (0.3, 0.0, 1.1), (1.5, 1.5, 1.5)
    tag = bpy.data.objects.new("tag_side", None)
    bpy.context.scene.collection.objects.link(tag)
    bpy.context.view_layer.update()
    tag.parent = holder
    tag.matrix_parent_inverse = holder.matrix_world.inverted()
    tag.rotation_mode = "ZXY"
    for frame, location, rotation in ((1, (0, 0, 3), (0, 0, 0)), (5, (1, 2, 4), (0.4, -0.2, 1.3))):
        tag.location, tag.rotation_euler = location, rotation
        tag.keyframe_insert("location", frame=frame)
        tag.keyframe_insert("rotation_euler", frame=frame)
    model = export(bpy, [obj, tag], tmp_path / "side.md3")
    truths = []
    for f in range(1, 6):
        bpy.context.scene.frame_set(f)
        truths.append(world_matrix(bpy, tag))
    truths = np.array(truths)
    assert model.tag_names == ["tag_side"] and model.num_frames == 5
    assert np.abs(model.tag_origin[:, 0] - truths[:, :3, 3]).max() <= HALF_STEP
    columns = np.swapaxes(truths[:, :3, :3], 1, 2)
    columns /= np.linalg.norm(columns, axis=2, keepdims=True)
    assert np.abs(model.tag_axis[:, 0] - columns).max() <= 1e-5
    assert np.ptp(truths[:, :3, 3], axis=0).max() > 1.0


def _read_tga(data: bytes) -> np.ndarray:
    """(h, w, 4) RGBA of an uncompressed 32-bit TGA, top row first, read by the header's own flags."""
    assert data[2] == 2 and data[16] == 32
    width, height = int.from_bytes(data[12:14], "little"), int.from_bytes(data[14:16], "little")
    pixels = np.frombuffer(data, np.uint8, width * height * 4, 18 + data[0]).reshape(height, width, 4)
    pixels = pixels if data[17] & 0x20 else pixels[::-1]
    return pixels[..., [2, 1, 0, 3]]


@pytest.mark.parametrize("textures", ["TGA", "NAMES"])
def test_new_shaders_get_their_textures_where_the_game_looks(bpy_scene, tmp_path, textures):
    """Materials with images, exported into <game>/models/column/: each surface's shader is
    models/column/<image>.tga and, with Textures: TGA, that file holds the image (bottom-up, as Quake III
    reads TGAs without a warning); Names Only writes none."""
    bpy = bpy_scene
    obj, rig, tag, _ = column_model(bpy, timeline_action="")
    bpy.context.scene.frame_end = 1
    expected = {}
    for k, material in enumerate(obj.data.materials):
        image = bpy.data.images.new(f"{material.name}_paint", 4, 2, alpha=True)
        rgba = np.random.default_rng(k).integers(0, 256, (2, 4, 4)).astype(np.float32) / 255
        image.pixels.foreach_set(rgba[::-1].ravel())          # Blender's rows start at the bottom
        expected[f"models/column/{material.name}_paint.tga"] = np.rint(rgba * 255).astype(np.uint8)
        if not material.node_tree:
            material.use_nodes = True
        node = material.node_tree.nodes.new("ShaderNodeTexImage")
        node.image = image
        material.node_tree.links.new(node.outputs["Color"], material.node_tree.nodes["Principled BSDF"].inputs[0])
    folder = tmp_path / "baseoa" / "models" / "column"
    folder.mkdir(parents=True)
    model = export(bpy, [obj], folder / "column.md3", textures=textures)
    assert sorted(s.shaders[0].name for s in model.surfaces) == sorted(expected)
    assert model.name == "models/column/column.md3"
    for shader, pixels in expected.items():
        written = tmp_path / "baseoa" / shader
        if textures == "NAMES":
            assert not written.exists()
        else:
            assert np.array_equal(_read_tga(written.read_bytes()), pixels)
            assert not written.read_bytes()[17] & 0x20, "bottom-up"
