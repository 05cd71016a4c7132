"""Blender-side: the release's extension repository as a user meets it, in one background Blender.

    blender -b --online-mode --python repository_session.py -- SRC OUT

Builds SRC into OUT/repository with tools/build_extension.py and THIS Blender's own extension tool
(validate, build, server-generate), adds that folder as a remote repository by the file:// URL of its index.json (the form an https://
URL needs; what *Preferences > Get Extensions > Repositories > Add Remote Repository* does), refreshes it (the refresh button
beside the selected repository: ``repo_sync_all(use_active_only=True)``, so extensions.blender.org, listed by
default, is not contacted) and installs the extension from it. Then builds a copy of SRC whose manifest gives
the next patch version into the same folder, refreshes again, reads the update Blender offers (bl_pkg's own
count of outdated packages, the number the status bar shows) and installs it with the repository's *Install
Available Updates* (``package_upgrade_all(use_active_only=True)``). Each step's state goes to
OUT/repository.json. In background mode the operators run their commands to the end before returning, so
each state is read after the step that makes it; nothing waits on time. ``--online-mode``: without it
Blender refuses to sync or install ("Online access required"), even from a file:// URL.
"""
from __future__ import annotations

import json
import re
import shutil
import sys
import time
import tomllib
import traceback
from pathlib import Path

import bpy

SRC, OUT = (Path(a) for a in sys.argv[sys.argv.index("--") + 1:][:2])
sys.path.insert(0, str(SRC))
from tools.build_extension import build, listed  # noqa: E402

REPO = OUT / "repository"
PKG = tomllib.loads((SRC / "blender_manifest.toml").read_text(encoding="utf-8"))["id"]
RESULTS: dict = {"blender": bpy.app.version_string, "online_access": bpy.app.online_access, "steps": {}}
STARTED = time.monotonic()


def record(step: str, **state) -> None:
    state["seconds"] = round(time.monotonic() - STARTED, 1)
    RESULTS["steps"][step] = state
    print(f"[repository] {step}: {json.dumps(state, default=str)}", flush=True)


def operator(call, **props) -> list[str]:
    """Run an operator; its result set as a list (an operator that refuses raises RuntimeError)."""
    return sorted(call(**props))


def bumped(version: str) -> str:
    major, minor, patch = (int(p) for p in version.split(".")[:3])
    return f"{major}.{minor}.{patch + 1}"


def newer_source(into: Path) -> str:
    """A copy of SRC (what the zip takes) whose manifest gives the next patch version; returns it."""
    text = (SRC / "blender_manifest.toml").read_text(encoding="utf-8")
    version = bumped(tomllib.loads(text)["version"])
    shutil.copytree(SRC, into, ignore=shutil.ignore_patterns("tests", "docs", "out", "dist", "__pycache__", ".*"))
    (into / "blender_manifest.toml").write_text(re.sub(r'^version\s*=.*$', f'version = "{version}"', text,
                                                       count=1, flags=re.M), encoding="utf-8")
    return version


def state(repo) -> dict:
    """What Blender holds for the repository: the installed version (the manifest of the installed folder),
    the listed one (its synced index), how many updates it offers, the add-on enabled, its operators."""
    import bl_pkg
    store = bl_pkg.repo_cache_store_ensure()
    local = store.refresh_local_from_directory(directory=repo.directory, error_fn=print) or {}
    remote = store.refresh_remote_from_directory(directory=repo.directory, error_fn=print) or {}
    installed = Path(repo.directory) / PKG / "blender_manifest.toml"
    return {
        "installed": tomllib.loads(installed.read_text(encoding="utf-8"))["version"] if installed.is_file() else None,
        "local": getattr(local.get(PKG), "version", None),
        "listed": getattr(remote.get(PKG), "version", None),
        "offered": bl_pkg.repo_stats_calc_outdated_for_repo_directory(store, repo.directory),
        "enabled": f"bl_ext.{repo.module}.{PKG}" in bpy.context.preferences.addons,
        "operators": hasattr(bpy.types, "IMPORT_SCENE_OT_md2") and hasattr(bpy.types, "EXPORT_SCENE_OT_md5"),
    }


def main() -> None:
    scripts = Path(bpy.utils.system_resource("SCRIPTS"))
    zip_path = build(SRC, REPO, scripts, log=lambda text: print(text, flush=True))
    record("built", zip=zip_path.name, listed=[[e["id"], e["version"]] for e in listed(REPO)])

    prefs = bpy.context.preferences.extensions
    before = len(prefs.repos)
    operator(bpy.ops.preferences.extension_repo_add, name="Classic Models release", remote_url=f"{REPO.as_uri()}/index.json",
             type='REMOTE')
    repo = prefs.repos[before]
    index = before
    record("added", url=repo.remote_url, module=repo.module, use_remote_url=repo.use_remote_url,
           repos=len(prefs.repos))

    prefs.active_repo = index           # selected in the list: the buttons beside it act on this repository
    synced = operator(bpy.ops.extensions.repo_sync_all, use_active_only=True)
    record("synced", result=synced, **state(repo))

    installed = operator(bpy.ops.extensions.package_install, repo_index=index, pkg_id=PKG, enable_on_install=True)
    record("installed", result=installed, **state(repo))

    version = newer_source(OUT / "newer_src")
    zip_path = build(OUT / "newer_src", REPO, scripts, log=lambda text: print(text, flush=True))
    record("rebuilt", version=version, zip=zip_path.name, files=sorted(p.name for p in REPO.iterdir()),
           listed=[[e["id"], e["version"]] for e in listed(REPO)])

    synced = operator(bpy.ops.extensions.repo_sync_all, use_active_only=True)
    record("offered", result=synced, **state(repo))

    upgraded = operator(bpy.ops.extensions.package_upgrade_all, use_active_only=True)
    record("updated", result=upgraded, **state(repo))


try:
    main()
except Exception:                                   # noqa: BLE001 - recorded, the test reports it
    RESULTS["fatal"] = traceback.format_exc()
    print(RESULTS["fatal"], flush=True)
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "repository.json").write_text(json.dumps(RESULTS, indent=1, default=str))
