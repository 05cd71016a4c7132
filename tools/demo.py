"""The main job end to end: MD2 file -> Blender -> .blend, MD2 again, and a contact sheet.

    bash tools/dev.sh demo [MODEL.md2] [-o OUTDIR]    (the newest bpy here: .venvs/bpy-5.2, else bpy-5.0)

Without MODEL it first builds a sample of its own and exports it as ``OUTDIR/sample.md2``: Suzanne
with a procedurally generated skin (``OUTDIR/sample.png``) and three 10-frame animations at 10 fps,
each a real deformation keyed on the timeline and named by a marker at its first frame:

- ``idle`` (frames 1-10): a Simple Deform stretch, the head breathing taller and squatter;
- ``nod`` (11-20): an armature bone, weighted from chin to crown, bending the head forward and back;
- ``wave`` (21-30): a Wave modifier sending ripples out along the ears.

Then, for the sample or for MODEL, it starts from an empty scene, imports the file, saves
``<name>.blend``, exports ``<name>_roundtrip.md2`` and renders ``<name>_contact.png``
(:mod:`tools.contact_sheet`). Everything it needs comes from the checkout and the ``bpy`` wheel.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from tools.load_extension import enable_extension  # noqa: E402

DEFAULT_OUTDIR = CHECKOUT / "out" / "demo"
SAMPLE_NAME = "sample"
SAMPLE_SKIN_SIZE = 256
SAMPLE_FPS = 10
SAMPLE_MARKERS = (("idle", 1), ("nod", 11), ("wave", 21))
SAMPLE_LAST_FRAME = 30
# Suzanne is about 2 units across; a Quake II player is about 56 units tall.
SAMPLE_EXPORT_SCALE = 16.0


class DemoError(Exception):
    """A failure the user should read as one line, not as a traceback."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="demo.py", description="Import an MD2 model (or a generated sample), save it as .blend, "
                                    "export it back and render a contact sheet of its animations.")
    parser.add_argument("model", nargs="?", type=Path,
                        help="MD2 file to import (default: build, export and use a sample model)")
    parser.add_argument("-o", "--outdir", type=Path, default=DEFAULT_OUTDIR,
                        help=f"where to write the outputs (default: {DEFAULT_OUTDIR})")
    return parser.parse_args(argv)


def report(label: str, path: Path, note: str = "") -> None:
    print(f"{label:<15} {path}" + (f"  ({note})" if note else ""), flush=True)


def operator_message(exc: RuntimeError) -> str:
    """The reports an operator raised, without Blender's ``Error: `` prefixes."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return "; ".join(line.removeprefix("Error: ") for line in lines) or "unknown error"


def sample_skin_pixels(size: int) -> np.ndarray:
    """(size, size, 3) floats, top row first: a hue ramp across u, a checker and a texel grid."""
    v, u = (np.mgrid[0:size, 0:size] + 0.5) / size
    rgb = np.stack([0.55 + 0.35 * np.cos(2 * np.pi * (u + k / 3)) for k in range(3)], axis=-1)
    checker = ((np.floor(u * 8) + np.floor(v * 8)) % 2)[..., None]
    rgb *= (0.8 + 0.2 * checker) * (0.65 + 0.35 * (1.0 - v))[..., None]
    lines = ((np.arange(size) % (size // 8)) == 0)
    rgb[lines, :] *= 0.35
    rgb[:, lines] *= 0.35
    return np.clip(rgb, 0.0, 1.0).astype(np.float32)


def save_skin_png(path: Path, rgb: np.ndarray):
    """Write ``rgb`` as a PNG and return the Blender image that refers to it."""
    import bpy
    height, width = rgb.shape[:2]
    image = bpy.data.images.new(path.stem, width, height, alpha=False)
    rgba = np.concatenate([rgb, np.ones((height, width, 1), dtype=np.float32)], axis=2)
    image.pixels.foreach_set(np.ascontiguousarray(rgba[::-1]).ravel())
    image.filepath_raw = str(path)
    image.file_format = "PNG"
    image.save()
    return image


def skin_material(image, skin_name: str):
    """Image texture into the Principled BSDF; ``md2_skin`` tells the exporter the skin's name."""
    import bpy
    material = bpy.data.materials.new(SAMPLE_NAME)
    if material.node_tree is None:
        material.use_nodes = True
    tree = material.node_tree
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    texture = tree.nodes.new("ShaderNodeTexImage")
    texture.image = image
    texture.interpolation = "Closest"
    texture.location = (bsdf.location.x - 320, bsdf.location.y)
    tree.links.new(texture.outputs["Color"], bsdf.inputs["Base Color"])
    material["md2_skin"] = skin_name
    return material


def key_values(owner, data_path: str, keys: list[tuple[int, float]], index: int = -1) -> None:
    """Key ``owner.<data_path>`` (component ``index`` of a vector) to each (frame, value)."""
    for frame, value in keys:
        if index < 0:
            setattr(owner, data_path, value)
        else:
            getattr(owner, data_path)[index] = value
        owner.keyframe_insert(data_path, index=index, frame=frame)


def add_suzanne(context):
    """Suzanne with her UVs, turned to face +X (MD2's forward)."""
    import bpy

    from mathutils import Matrix
    bpy.ops.mesh.primitive_monkey_add(size=2.0, calc_uvs=True)
    head = context.view_layer.objects.active
    head.name = head.data.name = SAMPLE_NAME
    head.data.transform(Matrix.Rotation(math.pi / 2, 4, "Z"))
    head.data.update()
    return head


def add_nod_rig(context, head):
    """An armature whose one bone bends the head: weight 0 at the chin rising to 1 at the crown."""
    import bpy
    rig = bpy.data.objects.new("rig", bpy.data.armatures.new("rig"))
    context.scene.collection.objects.link(rig)
    for obj in context.view_layer.objects:
        obj.select_set(False)
    rig.select_set(True)
    context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    bone = rig.data.edit_bones.new("neck")
    bone.head, bone.tail, bone.roll = (-0.3, 0.0, -1.1), (-0.3, 0.0, 0.4), 0.0
    bpy.ops.object.mode_set(mode="OBJECT")

    co = np.empty(len(head.data.vertices) * 3, dtype=np.float32)
    head.data.vertices.foreach_get("co", co)
    z = co.reshape(-1, 3)[:, 2]
    t = np.clip((z - z.min()) / (z.max() - z.min()) * 1.6 - 0.2, 0.0, 1.0)
    weights = t * t * (3 - 2 * t)
    group = head.vertex_groups.new(name="neck")
    for i, w in enumerate(weights):
        group.add([i], float(w), "REPLACE")
    modifier = head.modifiers.new("nod", "ARMATURE")
    modifier.object = rig

    pose_bone = rig.pose.bones["neck"]
    pose_bone.rotation_mode = "XYZ"
    key_values(pose_bone, "rotation_euler",
               [(10, 0.0), (11, 0.1), (15, -0.6), (20, 0.3), (21, 0.0)], index=2)
    return rig


def add_idle_breathing(head) -> None:
    stretch = head.modifiers.new("idle", "SIMPLE_DEFORM")
    stretch.deform_method = "STRETCH"
    stretch.deform_axis = "Z"
    key_values(stretch, "factor", [(1, 0.0), (5, 0.3), (10, -0.2), (11, 0.0)])


def add_ear_wave(head) -> None:
    """Ripples running outwards along the ears (Y) from the middle of the head."""
    wave = head.modifiers.new("wave", "WAVE")
    wave.use_x, wave.use_y = False, True
    wave.width, wave.narrowness, wave.speed = 0.9, 1.0, 0.12
    wave.time_offset = 21
    key_values(wave, "height", [(20, 0.0), (22, 0.45), (30, 0.45), (31, 0.0)])


def build_sample(context, outdir: Path) -> Path:
    """Build the sample scene, write its skin PNG and export it; returns the MD2 path."""
    import bpy
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = context.scene
    scene.render.fps, scene.render.fps_base = SAMPLE_FPS, 1.0
    scene.frame_start, scene.frame_end = SAMPLE_MARKERS[0][1], SAMPLE_LAST_FRAME
    for name, frame in SAMPLE_MARKERS:
        scene.timeline_markers.new(name, frame=frame)
    head = add_suzanne(context)
    add_nod_rig(context, head)
    add_idle_breathing(head)
    add_ear_wave(head)

    skin_path = outdir / f"{SAMPLE_NAME}.png"
    image = save_skin_png(skin_path, sample_skin_pixels(SAMPLE_SKIN_SIZE))
    head.data.materials.append(skin_material(image, skin_path.name))
    report("sample skin", skin_path)

    select_only(context, head)
    model_path = outdir / f"{SAMPLE_NAME}.md2"
    try:
        bpy.ops.export_scene.md2(filepath=str(model_path), scale=SAMPLE_EXPORT_SCALE)
    except RuntimeError as exc:
        raise DemoError(f"could not export the sample model: {operator_message(exc)}") from exc
    report("sample model", model_path, f"{SAMPLE_LAST_FRAME} frames: "
           + ", ".join(name for name, _ in SAMPLE_MARKERS))
    return model_path


def select_only(context, obj) -> None:
    for other in context.view_layer.objects:
        other.select_set(False)
    obj.select_set(True)
    context.view_layer.objects.active = obj


def import_model(context, path: Path):
    """Import ``path`` into an empty scene and return its object."""
    import bpy
    if not path.is_file():
        raise DemoError(f"{path}: no such file")
    bpy.ops.wm.read_homefile(use_empty=True)
    try:
        bpy.ops.import_scene.md2(filepath=str(path))
    except RuntimeError as exc:
        raise DemoError(f"import failed: {operator_message(exc)}") from exc
    obj = context.view_layer.objects.active
    if obj is None or obj.type != "MESH":
        raise DemoError(f"could not import {path}: the importer created no mesh")
    return obj


def export_roundtrip(context, obj, source: Path, path: Path) -> str:
    """Export ``obj`` to ``path``; returns how the result compares with ``source``."""
    import bpy
    select_only(context, obj)
    try:
        bpy.ops.export_scene.md2(filepath=str(path))
    except RuntimeError as exc:
        raise DemoError(f"could not export {obj.name!r} back to MD2: {operator_message(exc)}") from exc
    before, after = source.read_bytes(), path.read_bytes()
    if before == after:
        return "byte-identical to the input"
    if len(before) != len(after):
        return f"differs from the input: {len(after)} bytes, input has {len(before)}"
    changed = int(np.count_nonzero(np.frombuffer(before, np.uint8) != np.frombuffer(after, np.uint8)))
    return f"differs from the input in {changed} of {len(before)} bytes"


def run(model: Path | None, outdir: Path) -> None:
    enable_extension()
    import bpy

    from tools.contact_sheet import render_contact_sheet
    context = bpy.context
    outdir.mkdir(parents=True, exist_ok=True)
    if model is None:
        model = build_sample(context, outdir)
    obj = import_model(context, model)
    name = model.stem

    blend_path = outdir / f"{name}.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend_path), check_existing=False)
    animations = obj.classic_model.animations
    report("blend file", blend_path, f"{len(animations)} animation(s), "
           f"frames {context.scene.frame_start}-{context.scene.frame_end}")

    roundtrip_path = outdir / f"{name}_roundtrip.md2"
    report("round-trip MD2", roundtrip_path, export_roundtrip(context, obj, model, roundtrip_path))

    sheet_path = outdir / f"{name}_contact.png"
    groups = render_contact_sheet(context, obj, sheet_path)
    report("contact sheet", sheet_path, f"{sum(map(len, groups))} frames from {len(groups)} "
           + ("animation(s)" if len(animations) else "stretch(es) of the timeline"))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    try:
        run(args.model.resolve() if args.model else None, args.outdir.resolve())
    except DemoError as exc:
        print(f"demo.py: error: {exc}", file=sys.stderr)
        return 1
    print(f"done in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
