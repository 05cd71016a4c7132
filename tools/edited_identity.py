"""Export the speed benchmark's models with one checkout's code, for a byte-for-byte comparison with another's.

    .venvs/bpy-5.2/bin/python tools/edited_identity.py --checkout CHECKOUT --out DIR MODEL...

Each MODEL (an .md2, .mdl or .md3 file) is imported and exported four times with *Frames: Timeline*:
untouched, its root scaled by 1.1 (the benchmark's edit), squashed (0.9, 1.2, 0.7), and scaled with a few
skin pixels repainted and a band of the skin painted white (MDL: new colours and masked pixels far from the
fullbright colours; an MDL a fifth time so, dithered); an MD3, whose surfaces are children of its root (so scaling the root leaves them where
they were in the model), a fifth time with its first surface's mesh object moved and scaled and a sixth with
every surface's mesh object scaled by 1.1 (the benchmark's MD3 edit: every surface gets new normals). The files land
in DIR as ``<folder>_<stem>_<edit>.<ext>``; the operator's reports are printed, one per line.

Each .md5mesh or .md5anim MODEL is read and written by the checkout's MD5 writer (no Blender): as read and
changed as an edited export changes it (a scaled mesh, a NaN, rounded orients, another shape; moved frames, new
bounds and rate, another frame count), each with its own text kept and printed afresh (a refusal printed as an
``Error:`` line); a mesh also skinned with every frame of up to four anims beside it (the bits the export's
bounds come from), as ``<folders>_<stem>_<anim>.skinned``. ``tests/export/test_edited_export_files_identity.py`` runs it on the previous code and on
this checkout and compares the two folders and reports.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

EDITS = {"untouched": None, "scaled": (1.1, 1.1, 1.1), "squashed": (0.9, 1.2, 0.7), "painted": (1.1, 1.1, 1.1),
         "dithered": (1.1, 1.1, 1.1), "surface": None, "surfaces": None}
ONLY = {"dithered": ("mdl",), "surface": ("md3",), "surfaces": ("md3",)}
MD5_SUFFIXES = (".md5mesh", ".md5anim")


def md5_variants(record, seed: int) -> list:
    """The record as read and changed in ways an edited export changes it, each with and without its text."""
    import copy

    import numpy as np
    rng = np.random.default_rng(seed)
    changed = []
    for change in range(3):
        other = copy.deepcopy(record)
        other.source = record.source
        if hasattr(other, "meshes"):
            if change == 0:
                other.joint_pos = other.joint_pos * 1.1
                for part in other.meshes:
                    part.weight_pos = part.weight_pos * 1.1
            elif change == 1:
                other.meshes[0].uv = np.array(other.meshes[0].uv)
                other.meshes[0].uv[:1] = [np.nan, -np.inf]
                other.joint_orient = np.round(other.joint_orient, 3)
            else:
                other.meshes = other.meshes[::-1]          # another shape: printed afresh in the file's style
        elif change == 0:
            other.frames = other.frames + rng.normal(0, 1e-3, other.frames.shape) * (rng.random(
                other.frames.shape) < 0.3)
        elif change == 1:
            other.bounds = np.asarray(other.bounds) * 1.1
            other.frame_rate = 24.5
        else:
            other.frames = np.concatenate([other.frames, other.frames[:1]])   # another shape
            other.bounds = np.concatenate([np.asarray(other.bounds), np.asarray(other.bounds)[:1]])
        changed.append(other)
    out = []
    for item in [record] + changed:
        bare = copy.deepcopy(item)
        bare.source = None
        out += [item, bare]
    return out


def write_md5(path: Path, out: Path) -> None:
    """:data:`md5_variants` of ``path`` written by the checkout's writer; a mesh skinned with the anims beside it."""
    import copy

    import numpy as np

    from formats.errors import FormatError
    from formats.md5 import skinning
    from formats.md5.anim import read_md5anim
    from formats.md5.mesh import read_md5mesh
    from formats.md5.write import write_md5anim, write_md5mesh
    data = path.read_bytes()
    mesh = path.suffix.lower() == ".md5mesh"
    record = read_md5mesh(data) if mesh else read_md5anim(data)
    name = "_".join(path.parts[-3:-1] + (path.stem,))
    for index, item in enumerate(md5_variants(record, len(data))):
        target = out / f"{name}_{index}{path.suffix}"
        print(f"== {target.name}", flush=True)
        try:
            target.write_bytes((write_md5mesh if mesh else write_md5anim)(copy.copy(item)))
        except FormatError as exc:
            print(f"Error: {exc}", flush=True)
    for anim_path in sorted(path.parent.glob("*.md5anim"))[:4] if mesh else ():
        anim = read_md5anim(anim_path.read_bytes())
        if anim.joint_names == record.joint_names:
            joints = skinning.frame_joints(anim)
            skinned = [skinning.skin_vertices(part, *joints) for part in record.meshes]
            (out / f"{name}_{anim_path.stem}.skinned").write_bytes(b"".join(np.ascontiguousarray(s).tobytes()
                                                                            for s in skinned))


def repaint(bpy, obj) -> None:
    """A few pixels of the first skin image turned green and a band near its end white."""
    import numpy as np
    material = obj.active_material
    nodes = material.node_tree.nodes if material is not None and material.node_tree else []
    images = [n.image for n in nodes if n.type == "TEX_IMAGE" and n.image is not None]
    if not images or len(images[0].pixels) < 4096:
        return
    image = images[0]
    pixels = np.empty(len(image.pixels), np.float32)
    image.pixels.foreach_get(pixels)
    pixels[:64] = [0.3, 0.9, 0.1, 1.0] * 16
    pixels[-400:-200] = 1.0
    image.pixels.foreach_set(pixels)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("models", type=Path, nargs="+")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.checkout.resolve()))
    from tools.load_extension import enable_extension
    enable_extension()
    import bpy
    args.out.mkdir(parents=True, exist_ok=True)
    for path in args.models:
        if path.suffix.lower() in MD5_SUFFIXES:
            write_md5(path, args.out)
            continue
        fmt = path.suffix.lower().lstrip(".")
        for edit, scale in EDITS.items():
            if fmt not in ONLY.get(edit, (fmt,)):
                continue
            bpy.ops.wm.read_homefile(use_empty=True)
            getattr(bpy.ops.import_scene, fmt)(filepath=str(path))
            roots = [o for o in bpy.context.scene.objects if o.parent is None]
            for root in roots if scale is not None else ():
                root.scale = scale
            if edit in ("painted", "dithered"):
                repaint(bpy, next(o for o in bpy.context.scene.objects if o.type == "MESH"))
            if edit == "surface":
                mesh = next(o for o in sorted(bpy.context.scene.objects, key=lambda o: o.name) if o.type == "MESH")
                mesh.location.x += 3.0
                mesh.scale = (1.1, 0.9, 1.0)
            if edit == "surfaces":                 # every surface's mesh object scaled (the benchmark's MD3 edit)
                for mesh in (o for o in bpy.context.scene.objects if o.type == "MESH"):
                    mesh.scale = (1.1, 1.1, 1.1)
            target = args.out / f"{path.parent.name}_{path.stem}_{edit}.{fmt}"
            print(f"== {target.name}", flush=True)
            options = {"dither": True} if edit == "dithered" else {}
            getattr(bpy.ops.export_scene, fmt)(filepath=str(target), frame_source="TIMELINE", **options)
    sys.stdout.flush()
    from tools.benchmark import exit_without_teardown
    exit_without_teardown(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
