"""The release: ``tools/build_extension.py`` writes the zip and, beside it, a static extension repository
(``index.json`` and ``index.html`` from Blender's own ``server-generate``, run from the bpy wheel's copy of
``bl_pkg/cli/blender_ext.py``). Read back here without Blender's code: the listing's hash and size are the
zip's own (hashlib), its fields the zip's manifest; a newer build replaces the older zip; ``--website`` goes
into the zip's manifest and the listing. Installing from the repository and updating in Blender's own program:
tests/real_blender/test_release_repository.py."""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from support.environment import CHECKOUT, skip_inside_blender

MANIFEST = tomllib.loads((CHECKOUT / "blender_manifest.toml").read_text(encoding="utf-8"))


def _build(*args: str) -> str:
    pytest.importorskip("bpy", reason="Blender's extension tool ships inside the bpy wheel")
    skip_inside_blender("the bpy wheel's extension tool")
    result = subprocess.run([sys.executable, "tools/build_extension.py", *args], cwd=CHECKOUT,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def _zip_manifest(path: Path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return tomllib.loads(archive.read("blender_manifest.toml").decode("utf-8"))


def test_build_writes_the_zip_and_its_repository_listing(tmp_path):
    repo = tmp_path / "repo"
    out = _build("--output-dir", str(repo))
    built = repo / f"{MANIFEST['id']}-{MANIFEST['version']}.zip"
    assert sorted(p.name for p in repo.iterdir()) == [built.name, "index.html", "index.json"]
    index = json.loads((repo / "index.json").read_text(encoding="utf-8"))
    assert index["version"] == "v1" and index["blocklist"] == []
    (entry,) = index["data"]
    data = built.read_bytes()
    assert entry["archive_url"] == f"./{built.name}"
    assert entry["archive_size"] == len(data)
    assert entry["archive_hash"] == "sha256:" + hashlib.sha256(data).hexdigest()
    zipped = _zip_manifest(built)
    for key in ("id", "version", "name", "tagline", "maintainer", "type", "license", "blender_version_min",
                "blender_version_max", "permissions", "tags", "copyright"):
        assert entry[key] == zipped[key] == MANIFEST[key], key
    assert "website" not in entry and "website" not in zipped       # none until a release names its address
    assert built.name in (repo / "index.html").read_text(encoding="utf-8")
    assert f"lists {MANIFEST['id']} {MANIFEST['version']};" in out


def test_newer_build_replaces_the_older_zip_in_the_listing(tmp_path):
    """What a release does to a published repository: the next version built into the same folder is the only
    one listed (server-generate lists every zip; two of one id for the same Blender versions would leave
    Blender to pick either)."""
    repo, newer = tmp_path / "repo", tmp_path / "newer"
    (repo / "unrelated").mkdir(parents=True)
    (repo / "other_addon-1.0.0.zip").write_bytes(b"")       # not this extension's: left alone (and not listed)
    _build("--output-dir", str(repo))
    shutil.copytree(CHECKOUT, newer, ignore=lambda folder, names: {n for n in names if n == "__pycache__" or (
        Path(folder) == CHECKOUT and n not in {"__init__.py", "__main__.py", "LICENSE", "cli", "common", "exporters",
                                              "formats", "importers", "ui"})})
    text = (CHECKOUT / "blender_manifest.toml").read_text(encoding="utf-8")
    (newer / "blender_manifest.toml").write_text(re.sub(r'^version = ".*"$', 'version = "99.0.0"', text,
                                                        count=1, flags=re.M), encoding="utf-8")
    out = _build("--source-dir", str(newer), "--output-dir", str(repo))
    assert f"removed from the repository: {MANIFEST['id']}-{MANIFEST['version']}.zip" in out
    names = sorted(p.name for p in repo.iterdir())
    assert names == [f"{MANIFEST['id']}-99.0.0.zip", "index.html", "index.json", "other_addon-1.0.0.zip",
                     "unrelated"]
    listed = json.loads((repo / "index.json").read_text(encoding="utf-8"))["data"]
    assert [(e["id"], e["version"]) for e in listed] == [(MANIFEST["id"], "99.0.0")]
    assert _zip_manifest(repo / f"{MANIFEST['id']}-99.0.0.zip")["version"] == "99.0.0"


def test_website_names_the_published_repository_page(tmp_path):
    """``--website``: the zip's manifest (what Blender shows as the extension's link) and the listing carry
    the address; the checkout's manifest is not touched; the zip holds the same files otherwise."""
    repo, plain = tmp_path / "repo", tmp_path / "plain"
    page = "https://models.invalid/blender/index.html"
    before = (CHECKOUT / "blender_manifest.toml").read_bytes()
    _build("--output-dir", str(repo), "--website", page)
    _build("--output-dir", str(plain))
    assert (CHECKOUT / "blender_manifest.toml").read_bytes() == before
    name = f"{MANIFEST['id']}-{MANIFEST['version']}.zip"
    assert _zip_manifest(repo / name)["website"] == page
    (entry,) = json.loads((repo / "index.json").read_text(encoding="utf-8"))["data"]
    assert entry["website"] == page
    with zipfile.ZipFile(repo / name) as with_site, zipfile.ZipFile(plain / name) as without:
        assert sorted(with_site.namelist()) == sorted(without.namelist())
        changed = [n for n in with_site.namelist() if with_site.read(n) != without.read(n)]
    assert changed == ["blender_manifest.toml"]


def test_website_must_be_an_https_address(tmp_path):
    pytest.importorskip("bpy", reason="Blender's extension tool ships inside the bpy wheel")
    skip_inside_blender("the bpy wheel's extension tool")
    result = subprocess.run([sys.executable, "tools/build_extension.py", "--output-dir", str(tmp_path),
                             "--website", "example page"], cwd=CHECKOUT, capture_output=True, text=True)
    assert result.returncode != 0 and "--website must be an https:// address" in result.stderr
    assert not list(tmp_path.iterdir())
