"""Every model of a game archive imported at once, as *File > Import > Game Archive* does with all ticked.

    .venvs/bpy-5.2/bin/python tools/archive_sheet.py [ARCHIVE] [--markdown] [-o docs/archive_contact.png]

Lists the archive's models as the dialog does (member, format, size), imports all of them in one
operator call (default: ``../shared/corpus/pak/quess/pak0.pak``), prints what became of each (the
object and its frame count, or the error the operator reported) and renders the first frame of each
imported model into one row of tiles (Workbench, texture colours), left to right in table order.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from tools.load_extension import enable_extension  # noqa: E402

DEFAULT_ARCHIVE = CHECKOUT.parent / "shared" / "corpus" / "pak" / "quess" / "pak0.pak"
DEFAULT_SHEET = CHECKOUT / "docs" / "archive_contact.png"


def import_all(bpy, archive: Path, listed: list[tuple[str, str, int, str]]) -> list[str]:
    """Import every listed model in one operator call; the error lines it reported."""
    from tools.benchmark import reports_to_stderr
    bpy.ops.wm.read_homefile(use_empty=True)
    models = [{"name": name, "format": kind, "size": size, "problem": problem, "ticked": True}
              for name, kind, size, problem in listed]
    try:
        with reports_to_stderr():
            bpy.ops.import_scene.game_archive(filepath=str(archive), models=models)
    except RuntimeError as exc:
        return [line.removeprefix("Error: ") for line in str(exc).splitlines() if line.startswith("Error: ")]
    return []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", type=Path, default=DEFAULT_ARCHIVE)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_SHEET)
    args = parser.parse_args()
    if not args.archive.is_file():
        print(f"no archive at {args.archive}", file=sys.stderr)
        return 1
    module = enable_extension()
    import bpy

    from tools.skins_sheet import tile_of, write_row
    listed, error = sys.modules[f"{module}.importers.archive_operator"].archive_models(args.archive)
    if error:
        print(error, file=sys.stderr)
        return 1
    errors = import_all(bpy, args.archive, listed)
    objects = {o["archive_member"]: o for o in bpy.data.objects if o.parent is None and o.get("archive_member")}
    rows, tiles = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, kind, size, _ in listed:
            obj = objects.get(name)
            if obj is None:
                why = next((e.split(f"{name}: ", 1)[-1] for e in errors if f":{name}:" in e), "not imported")
                rows.append((name, kind, size, f"error: {why}"))
                continue
            frames = len(obj.classic_model.frames)
            rows.append((name, kind, size, f"{obj.name}, {frames} frame{'s' if frames != 1 else ''}"))
            for other in bpy.data.objects:
                other.hide_render = other is not obj and other.parent is not obj
            tiles.append(tile_of(bpy, obj, Path(tmp)))
    if tiles:
        write_row(tiles, args.output)
    imported = sum(1 for row in rows if not row[3].startswith("error"))
    if args.markdown:
        print("| member | format | bytes | imported as |")
        print("|---|---|---|---|")
        for name, kind, size, result in rows:
            print(f"| {name} | {kind} | {size} | {result} |")
        print(f"\n{imported} of {len(rows)} models imported in one call; sheet: {args.output.name} "
              f"({len(tiles)} tiles, left to right in table order)")
    else:
        for name, kind, size, result in rows:
            print(f"{name} ({kind}, {size} bytes): {result}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
