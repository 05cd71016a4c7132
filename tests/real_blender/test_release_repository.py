"""The release's extension repository in Debian's own Blender (5.2.x from sid, 4.3.x from trixie): the folder
tools/build_extension.py writes (the zip and server-generate's index.json) added as a remote repository by its
file:// URL, the extension installed from it, then a newer version built into the same folder, offered by
Blender as an update and installed. One background Blender per version (tools/real_blender/repository_session.py,
about 10 s on an idle machine); its record and console are in out/real_blender/<suite>-repository/."""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]

SUITES = {"sid": "5.2", "trixie": "4.3"}
MANIFEST = tomllib.loads((CHECKOUT / "blender_manifest.toml").read_text(encoding="utf-8"))
PKG, VERSION = MANIFEST["id"], MANIFEST["version"]
NEWER = ".".join([*VERSION.split(".")[:2], str(int(VERSION.split(".")[2]) + 1)])


@pytest.fixture(scope="module", params=sorted(SUITES))
def round_(request, real_runs) -> dict:
    suite = request.param
    started, skip_without_root = real_runs
    skip_without_root(suite)
    out = CHECKOUT / "out" / "real_blender" / f"{suite}-repository"
    info = started(request, "round_", suite).result()        # started beside the GUI sessions (conftest.py)
    log = (out / "blender.log").read_text(errors="replace")
    path = out / "repository.json"
    assert path.is_file(), f"{suite}: no repository.json (exit {info['returncode']}):\n{log[-3000:]}"
    results = json.loads(path.read_text())
    assert "fatal" not in results, results["fatal"]
    assert results["blender"].startswith(SUITES[suite]), results["blender"]
    return {"suite": suite, "info": info, "log": log, "steps": results["steps"], "results": results, "out": out}


def test_repository_built_by_blenders_server_generate(round_):
    """The build wrote the zip and an index.json listing it, once, for this version."""
    built = round_["steps"]["built"]
    assert built["zip"] == f"{PKG}-{VERSION}.zip" and built["listed"] == [[PKG, VERSION]], built
    assert re.search(r"found 1 packages", round_["log"]), round_["log"][-2000:]


def test_installed_from_the_repository_url(round_):
    """Added as a remote repository by its file:// URL, refreshed, installed: the version the repository
    lists is the one installed, enabled, with its operators registered."""
    steps = round_["steps"]
    assert round_["results"]["online_access"] is True
    added = steps["added"]
    assert added["url"].startswith("file:///") and added["url"].endswith("/repository/index.json"), added
    assert added["use_remote_url"] is True, added
    synced = steps["synced"]
    assert synced["listed"] == VERSION and synced["installed"] is None and not synced["enabled"], synced
    installed = steps["installed"]
    assert installed["result"] == ["FINISHED"], installed
    assert (installed["installed"], installed["local"], installed["listed"]) == (VERSION,) * 3, installed
    assert installed["enabled"] and installed["operators"] and installed["offered"] == 0, installed


def test_newer_build_is_offered_and_applied(round_):
    """A copy with the next patch version built into the same folder replaces the older zip; after a refresh
    Blender offers one update (installed 0.2.0, listed 0.2.1 for 0.2.0) and Install Available Updates
    installs it: the installed version changes and the add-on is enabled again."""
    steps = round_["steps"]
    rebuilt = steps["rebuilt"]
    assert rebuilt["version"] == NEWER, rebuilt
    assert rebuilt["files"] == [f"{PKG}-{NEWER}.zip", "index.html", "index.json"], rebuilt
    assert rebuilt["listed"] == [[PKG, NEWER]], rebuilt
    offered = steps["offered"]
    assert (offered["installed"], offered["listed"], offered["offered"]) == (VERSION, NEWER, 1), offered
    updated = steps["updated"]
    assert updated["result"] == ["FINISHED"], updated
    assert (updated["installed"], updated["local"], updated["offered"]) == (NEWER, NEWER, 0), updated
    assert updated["enabled"] and updated["operators"], updated


def test_no_other_repository_is_contacted(round_):
    """Only the added repository is refreshed: extensions.blender.org (listed by default) is never checked, so
    the round needs no network; nothing from the extension's own files is in the console."""
    log = round_["log"]
    assert "extensions.blender.org" not in log, [line for line in log.splitlines() if "blender.org" in line][:5]
    assert not re.search(r"extensions/\w+/classic_models/\S+\.py", log), log[-3000:]
