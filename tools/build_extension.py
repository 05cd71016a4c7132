"""Validate the manifest and build the installable extension zip with Blender's own tool.

    bash tools/dev.sh build            # -> dist/classic_models-<version>.zip
    bash tools/dev.sh build --json out/figures/package.json   # also its sizes, a record for tools/figures.py

Uses ``blender_ext.py`` shipped inside the bpy wheel (the same code as
``blender --command extension validate|build``), with the tag list so tags are checked too.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]


def wheel_scripts() -> Path:
    import importlib.util
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("bpy is not installed in this Python")
    base = Path(list(spec.submodule_search_locations)[0])
    version = next(p for p in base.iterdir() if p.is_dir() and p.name[0].isdigit())
    return version / "scripts"


def sizes(zip_path: Path) -> list[list[str]]:
    """The zip's size, its unpacked size and entry count, as a record's rows."""
    import zipfile
    with zipfile.ZipFile(zip_path) as archive:
        infos = archive.infolist()
    return [[zip_path.name, f"{zip_path.stat().st_size / 1024:.0f} KB",
             f"{sum(i.file_size for i in infos) / 1024 ** 2:.2f} MB", str(len(infos))]]


def main(argv: list[str] | None = None) -> int:
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the zip's sizes as a record for tools/figures.py")
    options = parser.parse_args(argv)
    scripts = wheel_scripts()
    tool = scripts / "addons_core" / "bl_pkg" / "cli" / "blender_ext.py"
    tags = scripts / "modules" / "_bpy_internal" / "extensions" / "tags.py"
    out = CHECKOUT / "dist"
    out.mkdir(exist_ok=True)
    for args in (["validate", str(CHECKOUT), "--valid-tags", str(tags)],
                 ["build", "--source-dir", str(CHECKOUT), "--output-dir", str(out), "--valid-tags", str(tags)]):
        result = subprocess.run([sys.executable, str(tool), *args])
        if result.returncode:
            return result.returncode
    if options.json:
        sys.path.insert(0, str(CHECKOUT))
        from tools.figures import write_record
        built = max(out.glob("*.zip"), key=lambda p: p.stat().st_mtime)
        write_record(options.json, script="tools/build_extension.py", command="bash tools/dev.sh build",
                     headers=["zip", "zipped", "unpacked", "entries"], rows=sizes(built))
    return 0


if __name__ == "__main__":
    sys.exit(main())
