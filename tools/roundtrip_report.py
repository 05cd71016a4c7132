"""Import every corpus model, export it untouched, and tabulate what came back identical.

    .venvs/bpy-5.0/bin/python tools/roundtrip_report.py [FILES...] [--format md2|mdl|ms3d] [--markdown]

Without FILES it reads ``../shared/corpus/<format>``. MD2 columns: per-corner vertex bytes, normal
indices and ST of every frame; frame names, skins, skin size, per-frame scale/translate; GL
commands word for word; whole-file bytes (with the count of differing bytes when not identical).
MDL columns: poses, frame groups, skin images, and whole-file bytes, with any trailing editor block
(QME's "QMEX"), which an untouched export writes back. MS3D columns: counts, keyframes, whole-file bytes.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from tools.load_extension import enable_extension  # noqa: E402

CORPUS = CHECKOUT.parent / "shared" / "corpus"


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"


def compare(path: Path, out: Path) -> list[str]:
    import bpy

    from formats.errors import FormatError
    from formats.md2.codec import parse_md2
    try:
        original = parse_md2(path.read_bytes())
    except FormatError as exc:
        return [f"{path.parent.name}/{path.name}", "refused: " + str(exc).split(": ")[-1]] + [""] * 5
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.import_scene.md2(filepath=str(path))
    bpy.ops.export_scene.md2(filepath=str(out))
    again = parse_md2(out.read_bytes())
    xyz_a, xyz_b = original.tri_xyz.astype(int), again.tri_xyz.astype(int)
    corners = (np.array_equal(original.frame_verts[:, xyz_a], again.frame_verts[:, xyz_b])
               and np.array_equal(original.frame_normals[:, xyz_a], again.frame_normals[:, xyz_b])
               and np.array_equal(original.st[original.tri_st.astype(int)], again.st[again.tri_st.astype(int)]))
    header = (original.frame_names == again.frame_names and original.skins == again.skins
              and (original.skin_width, original.skin_height) == (again.skin_width, again.skin_height)
              and np.array_equal(original.frame_scale, again.frame_scale)
              and np.array_equal(original.frame_translate, again.frame_translate))
    a, b = path.read_bytes(), out.read_bytes()
    if a == b:
        same_bytes = "yes"
    else:
        size = min(len(a), len(b))
        diff = int(np.count_nonzero(np.frombuffer(a[:size], np.uint8) != np.frombuffer(b[:size], np.uint8)))
        same_bytes = f"{diff + abs(len(a) - len(b))} bytes differ"
    return [f"{path.parent.name}/{path.name}", f"{original.num_frames} x {original.num_vertices} / {len(original.tri_xyz)}",
            _yes(corners), _yes(header), _yes(np.array_equal(original.glcmds, again.glcmds)), same_bytes]


def compare_mdl(path: Path, out: Path) -> list[str]:
    import bpy

    from formats.errors import FormatError
    from formats.mdl.codec import parse_mdl
    name = f"{path.parent.name}/{path.name}"
    data = path.read_bytes()
    try:
        original = parse_mdl(data)
    except FormatError as exc:
        return [name, "refused: " + str(exc).split(": ")[-1], "", "", ""]
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.import_scene.mdl(filepath=str(path))
    bpy.ops.export_scene.mdl(filepath=str(out))
    used = data
    written = out.read_bytes()
    groups = sum(1 for f in original.frames if f.intervals is not None)
    images = sum(len(s.images) for s in original.skins)
    trailing = f" (with {original.trailing_bytes} trailing bytes)" if original.trailing_bytes else ""
    return [name, f"{original.num_poses} x {original.num_vertices} / {len(original.triangles)}",
            str(groups), str(images), ("yes" if used == written else "NO") + trailing]


def compare_ms3d(path: Path, out: Path) -> list[str]:
    import bpy

    from formats.errors import FormatError
    from formats.ms3d.codec import parse_ms3d
    name = f"{path.parent.name}/{path.name}"
    data = path.read_bytes()
    try:
        model = parse_ms3d(data)
    except FormatError as exc:
        return [name, "refused: " + str(exc).split(": ")[-1], "", ""]
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.import_scene.ms3d(filepath=str(path))
    bpy.ops.export_scene.ms3d(filepath=str(out), use_selection=False)
    keys = sum(len(j.rot_keys) + len(j.pos_keys) for j in model.joints)
    return [name, f"{model.num_vertices} / {len(model.tri_vertices)} / {len(model.groups)} / {len(model.joints)}",
            str(keys), "yes" if out.read_bytes() == data else "NO"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--format", choices=("md2", "mdl", "ms3d"), default="md2")
    args = parser.parse_args()
    files = args.files or sorted((CORPUS / args.format).glob(f"*/*.{args.format}"))
    if not files:
        print(f"no files given and no {args.format} corpus at {CORPUS}", file=sys.stderr)
        return 1
    enable_extension()
    if args.format == "md2":
        columns = ["file", "frames x verts / tris", "corners identical", "names, skins, grids", "GL commands",
                   "file bytes"]
        compare_one = compare
    elif args.format == "mdl":
        columns = ["file", "poses x verts / tris", "frame groups", "skin images", "file bytes identical"]
        compare_one = compare_mdl
    else:
        columns = ["file", "verts / tris / groups / joints", "keyframes", "file bytes identical"]
        compare_one = compare_ms3d
    from tools.benchmark import reports_to_stderr
    with tempfile.TemporaryDirectory() as tmp, reports_to_stderr():
        rows = [compare_one(f, Path(tmp) / f"out.{args.format}") for f in files]
    if args.markdown:
        print("| " + " | ".join(columns) + " |")
        print("|" + "---|" * len(columns))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        for row in rows:
            print("  ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
