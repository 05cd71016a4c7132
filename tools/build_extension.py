"""Validate the manifest and build the installable extension zip with Blender's own tool.

    bash tools/dev.sh build            # -> dist/classic_models-<version>.zip

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


def main() -> int:
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
