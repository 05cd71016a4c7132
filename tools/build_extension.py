"""Build the extension zip and a static extension repository beside it, with Blender's own tool.

    bash tools/dev.sh build            # -> dist/classic_models-<version>.zip, dist/index.json, dist/index.html
    bash tools/dev.sh build --website https://HOST/PATH/index.html   # the repository's page, for the manifest
    bash tools/dev.sh build --json out/figures/package.json          # also the zip's sizes, for tools/figures.py

The folder written (``--output-dir``, default dist/) is an extension repository: served as it is over HTTPS
(or read from disk by a ``file://`` URL) Blender adds it with *Preferences > Get Extensions > Repositories >
Add Remote Repository*, installs from it and offers each newer build as an update. A build replaces the
repository's older zips of this extension, so ``index.json`` lists one version (two with one id and
overlapping Blender versions are reported as duplicates by server-generate, and Blender would pick either).

The three steps are ``blender --command extension validate|build|server-generate``: Blender's command hands
its arguments to ``bl_pkg/cli/blender_ext.py`` (``bl_pkg/bl_extension_cli.py``, ``cli_extension_handler``:
``blender_ext.main(args, ...)``, with Blender's tag list as the default ``--valid-tags``). This script runs
that same file with a Python: by default the copy inside the bpy wheel of this Python; ``--scripts`` names
another Blender's ``scripts`` folder (Debian's Blender: /usr/share/blender/scripts), run with this Python.

``--website`` writes ``website`` into the manifest that goes into the zip (the checkout's manifest has none:
no public address exists until a release is published) and is the address of ``index.html``, the page
server-generate writes with ``--html``: Blender shows the website as a link on the extension's entry.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
WEBSITE_LINE = re.compile(r'^website\s*=.*$', re.M)


def wheel_scripts() -> Path:
    import importlib.util
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("bpy is not installed in this Python (or give --scripts: a Blender's scripts folder)")
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


def manifest_of(source: Path) -> dict:
    return tomllib.loads((source / "blender_manifest.toml").read_text(encoding="utf-8"))


def staged(source: Path, website: str, into: Path) -> Path:
    """A copy of what the zip takes from ``source`` (the manifest's ``!/NAME`` entries) with ``website`` set
    in the copy's manifest."""
    text = (source / "blender_manifest.toml").read_text(encoding="utf-8")
    if any(ch in website for ch in '"\\\n') or not website.startswith("https://"):
        raise SystemExit(f"--website must be an https:// address without quotes, not {website!r}")
    line = f'website = "{website}"'
    text = WEBSITE_LINE.sub(line, text) if WEBSITE_LINE.search(text) else \
        re.sub(r'^(tagline\s*=.*)$', rf'\1\n{line}', text, count=1, flags=re.M)
    kept = [p[2:] for p in manifest_of(source).get("build", {}).get("paths_exclude_pattern", [])
            if p.startswith("!/")]
    for name in kept:
        path = source / name.rstrip("/")
        if path.is_dir():
            shutil.copytree(path, into / path.name, ignore=shutil.ignore_patterns("__pycache__", ".*"))
        elif path.is_file():
            shutil.copy2(path, into / path.name)
    (into / "blender_manifest.toml").write_text(text, encoding="utf-8")
    return into


def build(source: Path, out: Path, scripts: Path, *, python: str = sys.executable, website: str = "",
          log=print) -> Path:
    """Validate ``source``, build its zip into ``out``, drop ``out``'s older zips of the same id and write
    ``out/index.json`` and ``out/index.html`` with server-generate; returns the zip."""
    tool = scripts / "addons_core" / "bl_pkg" / "cli" / "blender_ext.py"
    tags = scripts / "modules" / "_bpy_internal" / "extensions" / "tags.py"
    if not tool.is_file():
        raise SystemExit(f"no Blender extension tool at {tool}")
    out.mkdir(parents=True, exist_ok=True)
    manifest = manifest_of(source)
    zip_name = f"{manifest['id']}-{manifest['version']}.zip"

    def run(*args: str) -> None:
        result = subprocess.run([python, str(tool), *args], capture_output=True, text=True)
        if (said := (result.stdout + result.stderr).strip()):
            log(said)
        if result.returncode:
            raise SystemExit(f"blender_ext.py {args[0]} failed (exit {result.returncode})")

    with tempfile.TemporaryDirectory(prefix="classic_models_build_") as temp:
        built_from = staged(source, website, Path(temp)) if website else source
        run("validate", str(built_from), "--valid-tags", str(tags))
        run("build", "--source-dir", str(built_from), "--output-dir", str(out), "--valid-tags", str(tags))
    for older in sorted(out.glob(f"{manifest['id']}-*.zip")):
        if older.name != zip_name:
            log(f"removed from the repository: {older.name} (replaced by {zip_name})")
            older.unlink()
    run("server-generate", "--repo-dir", str(out), "--html")
    return out / zip_name


def listed(out: Path) -> list[dict]:
    """The packages ``out/index.json`` lists."""
    return json.loads((out / "index.json").read_text(encoding="utf-8"))["data"]


def main(argv: list[str] | None = None) -> int:
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the zip's sizes as a record for tools/figures.py")
    parser.add_argument("--source-dir", type=Path, default=CHECKOUT, help="the extension's folder (default: this checkout)")
    parser.add_argument("--output-dir", type=Path, default=CHECKOUT / "dist", help="the repository folder (default: dist/)")
    parser.add_argument("--scripts", type=Path, help="a Blender's scripts folder holding addons_core/bl_pkg "
                                                     "(default: the bpy wheel's)")
    parser.add_argument("--website", default="", help="the https:// address of the published repository's "
                                                      "index.html, written into the zip's manifest")
    options = parser.parse_args(argv)
    built = build(options.source_dir.resolve(), options.output_dir.resolve(), options.scripts or wheel_scripts(),
                  website=options.website)
    entries = [f"{e['id']} {e['version']}" for e in listed(options.output_dir)]
    print(f"repository: {options.output_dir / 'index.json'} lists {', '.join(entries)}; zip: {built}")
    if options.json:
        sys.path.insert(0, str(CHECKOUT))
        from tools.figures import write_record
        write_record(options.json, script="tools/build_extension.py", command="bash tools/dev.sh build",
                     headers=["zip", "zipped", "unpacked", "entries"], rows=sizes(built))
    return 0


if __name__ == "__main__":
    sys.exit(main())
