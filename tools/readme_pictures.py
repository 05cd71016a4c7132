"""Regenerate the manual's pictures of the real dialogs from the real-Blender test run's screenshots.

    bash tools/dev.sh real-blender        # or the full 'tools/dev.sh test': writes out/real_blender/sid/
    python3 tools/readme_pictures.py [--suite sid]

Crops, with ImageMagick's ``convert`` (the host's, else the one in the Debian root), the parts the session
measured (results.json): the MD2 export dialog's option column, the Game Archive dialog, the sidebar's Model
panel on an imported MD2, into docs/real_*.png; the quick start's menus, viewport and export dialog into
docs/quick_start_*.png.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
QUICK = ("+dither", "-colors", "64")
PICTURES = (  # (docs file, check holding the box, key of the box, screenshot, convert's options after the crop)
    ("real_md2_export_options.png", "dialog:export_md2", "column", "dialog_export_md2.png", ()),
    ("real_archive_dialog.png", "dialog:archive", "box", "archive_dialog.png", ()),
    ("real_sidebar_md2.png", "sidebar:md2", "content_box", "sidebar_md2.png", ()),
    # docs/quick-start.md, its steps as tools/real_blender/gui_quickstart.py does them; whole viewports, so
    # 64 colours without dithering (a 3D view in 24-bit colour is 500-600 KB, in 64 colours 110-170 KB)
    ("quick_start_install.png", "quick:install", "box", "quick_installed.png", QUICK),
    ("quick_start_import.png", "quick:import", "menu_box", "menu_quick_import_mdl.png", QUICK),
    ("quick_start_animate.png", "quick:sidebar", "box", "quick_animate.png", QUICK),
    ("quick_start_edit.png", "quick:edit", "box", "quick_edit.png", QUICK),
    ("quick_start_export.png", "quick:export_mdl", "box", "quick_export_mdl.png", QUICK),
)


def convert(args: list[str], suite: str) -> None:
    """ImageMagick convert on the host, else inside the Debian root (files copied in and out)."""
    if shutil.which("convert"):
        subprocess.run(["convert", *args], check=True)
        return
    root = subprocess.run(["bash", str(CHECKOUT / "tools" / "debian_root.sh"), "path", suite],
                          capture_output=True, text=True, check=True).stdout.strip()
    inside = Path(root) / "tmp" / "readme_pictures"
    inside.mkdir(parents=True, exist_ok=True)
    source, target = Path(args[0]), Path(args[-1])
    shutil.copy(source, inside / source.name)
    subprocess.run(["bash", str(CHECKOUT / "tools" / "debian_root.sh"), "run", suite, "convert",
                    f"/tmp/readme_pictures/{source.name}", *args[1:-1], f"/tmp/readme_pictures/{target.name}"], check=True)
    shutil.copy(inside / target.name, target)
    shutil.rmtree(inside)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="sid", choices=("sid", "trixie"))
    parser.add_argument("--run", type=Path, help="the session's output folder (default out/real_blender/SUITE)")
    args = parser.parse_args()
    out = args.run or CHECKOUT / "out" / "real_blender" / args.suite
    results = json.loads((out / "results.json").read_text())
    for name, check, key, shot, extra in PICTURES:
        found = results["checks"].get(check, {})
        if key not in found or not (out / shot).is_file():
            print(f"skipped {name}: the run has no {check} {key} or no {shot}", file=sys.stderr)
            continue
        x, y, w, h = found[key]
        pad = 4
        convert([str(out / shot), "-crop", f"{w + 2 * pad}x{h + 2 * pad}+{max(x - pad, 0)}+{max(y - pad, 0)}",
                 "+repage", *extra, "-strip", str(CHECKOUT / "docs" / name)], args.suite)
        print(f"docs/{name} <- {shot} ({w}x{h} at {x},{y})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
