"""The corpus from a fresh clone (issue 46): `bash tools/dev.sh corpus` puts each file of a manifest at
``<dest>/<path>``, copied from a ``--from`` folder, downloaded from a GitHub-like server (a tiny HTTP server in
this test, serving OWNER/REPO/COMMIT/PATH as raw.githubusercontent.com does) or taken from a Debian package (a
.deb built here, given with ``--debs`` or "downloaded" by an ``apt-get`` stub), and checks each size and sha256:
a wrong file is an error naming it and nothing of it is left. Where the tests read the corpus, and that under
``CI=true`` a missing corpus fails the run."""
from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import threading
import zipfile
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from support.corpus_manifest import MANIFEST, corpus_dir, read_manifest
from support.environment import CHECKOUT, skip_inside_blender

COMMIT = "0123456789abcdef0123456789abcdef01234567"
HEADER = "format\tpath\tsource_repo\tsource_path\tcommit\tsize_bytes\tsha256\tlicense_note\n"
PACKAGE = "debian:toy-data=1.0-1"


def row(path: str, data: bytes, repo: str = "owner/repo", source: str | None = None, commit: str = COMMIT) -> str:
    """A manifest line for ``data``."""
    return (f"md2\t{path}\t{repo}\t{source or 'models/' + Path(path).name}\t{commit}\t{len(data)}\t"
            f"{hashlib.sha256(data).hexdigest()}\ttest data\n")


def ar_member(name: str, data: bytes) -> bytes:
    header = f"{name:<16}{0:<12}{0:<6}{0:<6}{'100644':<8}{len(data):<10}`\n".encode()
    return header + data + (b"\n" if len(data) % 2 else b"")


def tar_xz(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:xz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"./{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def make_deb(path: Path, files: dict[str, bytes]) -> Path:
    """A .deb as dpkg-deb writes one: an ar archive of debian-binary, control.tar.xz, data.tar.xz."""
    path.write_bytes(b"!<arch>\n" + ar_member("debian-binary", b"2.0\n")
                     + ar_member("control.tar.xz", tar_xz({"control": b"Package: toy-data\n"}))
                     + ar_member("data.tar.xz", tar_xz(files)))
    return path


def pk3(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


class Server:
    """An HTTP server on 127.0.0.1 serving ``root``; ``paths`` lists what was asked; a path in ``cut`` is sent
    with its full Content-Length but only half of its bytes (a download that breaks off)."""

    def __init__(self, root: Path):
        self.paths: list[str] = []
        self.cut: set[str] = set()
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(root), **kwargs)

            def do_GET(self):
                server.paths.append(self.path)
                if self.path in server.cut:
                    data = (root / self.path.lstrip("/")).read_bytes()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                super().do_GET()

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(tmp_path):
    running = Server(tmp_path / "github")
    yield running
    running.close()


def publish(tmp_path: Path, source: str, data: bytes, repo: str = "owner/repo", commit: str = COMMIT) -> None:
    """``data`` at the server's ``/OWNER/REPO/COMMIT/SOURCE``."""
    path = tmp_path / "github" / repo / commit / source
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def corpus(tmp_path: Path, manifest: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``bash tools/dev.sh corpus --manifest M --dest tmp/dest ARGS``."""
    skip_inside_blender("tools/dev.sh corpus")
    (tmp_path / "MANIFEST.tsv").write_text(HEADER + manifest)
    return subprocess.run(["/bin/bash", str(CHECKOUT / "tools" / "dev.sh"), "corpus", "--manifest",
                           str(tmp_path / "MANIFEST.tsv"), "--dest", str(tmp_path / "dest"), *args],
                          cwd=CHECKOUT, capture_output=True, text=True, timeout=120, env=env)


def files_under(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_files_are_copied_or_downloaded_and_a_second_run_reads_only_sizes(tmp_path, server):
    one, two, copied = b"IDP2" + bytes(range(200)), b"IDP2 second", b"IDPO copied"
    publish(tmp_path, "models/one.md2", one)
    publish(tmp_path, "models/deep path/two.md2", two)
    (tmp_path / "from" / "mdl" / "b").mkdir(parents=True)
    (tmp_path / "from" / "mdl" / "b" / "copied.mdl").write_bytes(copied)
    manifest = (row("md2/a/one.md2", one) + row("md2/a/two.md2", two, source="models/deep path/two.md2")
                + row("mdl/b/copied.mdl", copied))
    run = corpus(tmp_path, manifest, "--from", str(tmp_path / "from"), "--github-url", server.url)
    assert run.returncode == 0, run.stdout + run.stderr
    assert files_under(tmp_path / "dest") == {"md2/a/one.md2": one, "md2/a/two.md2": two, "mdl/b/copied.mdl": copied}
    assert sorted(server.paths) == [f"/owner/repo/{COMMIT}/models/deep%20path/two.md2",
                                    f"/owner/repo/{COMMIT}/models/one.md2"]
    assert "1 copied from" in run.stdout and "2 downloaded from GitHub" in run.stdout, run.stdout

    # present with the manifest's sizes: nothing asked again, nothing read; --verify reads them and finds the
    # one changed in place (same size)
    (tmp_path / "dest" / "md2" / "a" / "one.md2").write_bytes(b"X" + one[1:])
    again = corpus(tmp_path, manifest, "--from", str(tmp_path / "from"), "--github-url", server.url)
    assert again.returncode == 0 and len(server.paths) == 2, again.stdout + again.stderr
    assert "3 of 3 files already there (sizes checked)" in again.stdout, again.stdout
    verify = corpus(tmp_path, manifest, "--verify", "--github-url", server.url)
    assert verify.returncode == 1, verify.stdout + verify.stderr
    assert verify.stderr.splitlines() == ["error: md2/a/one.md2: its sha256 is not the manifest's (delete it and "
                                          "run again to get it anew)"], verify.stderr


def test_a_wrong_or_refused_download_is_an_error_naming_the_file_and_leaves_nothing(tmp_path, server):
    good, wrong = b"IDP2 good", b"IDP2 what the manifest says"
    publish(tmp_path, "models/good.md2", good)
    publish(tmp_path, "models/wrong.md2", b"IDP2 what the server sends")
    publish(tmp_path, "models/short.md2", b"IDP2 cut" * 1000)
    server.cut.add(f"/owner/repo/{COMMIT}/models/short.md2")
    manifest = (row("md2/good.md2", good) + row("md2/wrong.md2", wrong) + row("md2/gone.md2", b"IDP2 gone")
                + row("md2/short.md2", b"IDP2 cut" * 1000))
    run = corpus(tmp_path, manifest, "--from", str(tmp_path / "none"), "--github-url", server.url)
    assert run.returncode == 1, run.stdout + run.stderr
    url = f"{server.url}/owner/repo/{COMMIT}/models"
    assert run.stderr.splitlines() == [
        f"error: md2/wrong.md2: 26 bytes from {url}/wrong.md2, the manifest says 27",
        f"error: md2/gone.md2: {url}/gone.md2 answered 404 File not found",
        f"cannot get: md2/short.md2: the download of {url}/short.md2 broke off after 4000 of 8000 bytes"], run.stderr
    assert "1 downloaded from GitHub; 2 wrong; 1 could not be got here" in run.stdout, run.stdout
    assert files_under(tmp_path / "dest") == {"md2/good.md2": good}      # no partial file, no temporary one

    same_size = b"IDP2 what the server sendX"
    publish(tmp_path, "models/wrong.md2", same_size[:-1] + b"s")
    run = corpus(tmp_path, row("md2/wrong.md2", same_size), "--github-url", server.url)
    assert run.returncode == 1
    assert run.stderr == f"error: md2/wrong.md2: the sha256 of the file from {url}/wrong.md2 is not the manifest's\n"
    assert not (tmp_path / "dest" / "md2" / "wrong.md2").exists()


def test_an_unreachable_server_leaves_the_run_incomplete_not_failed(tmp_path):
    data = b"IDP2"
    run = corpus(tmp_path, row("md2/one.md2", data) + row("md2/two.md2", data), "--github-url", "http://127.0.0.1:9")
    assert run.returncode == 3, run.stdout + run.stderr
    assert run.stdout.endswith("0 of 2 files already there (sizes checked); 2 could not be got here\n"), run.stdout
    assert run.stderr.startswith("cannot get: 2 files from http://127.0.0.1:9, which cannot be reached ("), \
        run.stderr
    assert run.stderr.endswith("; first: md2/one.md2; --check lists them)\n"), run.stderr
    assert files_under(tmp_path / "dest") == {}


def test_a_file_url_serves_as_the_github_base(tmp_path):
    data = b"IDP2 from a file URL"
    publish(tmp_path, "models/one.md2", data)
    run = corpus(tmp_path, row("md2/one.md2", data), "--github-url", (tmp_path / "github").as_uri())
    assert run.returncode == 0, run.stdout + run.stderr
    assert files_under(tmp_path / "dest") == {"md2/one.md2": data}


def debian_rows(tmp_path: Path) -> tuple[str, dict[str, bytes], Path]:
    """Manifest rows from the toy package (a plain file and two pk3 members), the files, the .deb."""
    model, skin, doc = b"IDP3 model", b"// skin", b"readme"
    archive = pk3({"models/toy/toy.md3": model, "models/toy/toy.skin": skin, "other.txt": b"x"})
    (tmp_path / "debs").mkdir()
    deb = make_deb(tmp_path / "debs" / "toy-data_1.0-1_all.deb",
                   {"usr/share/games/toy/baseq3/pak0.pk3": archive, "usr/share/doc/toy-data/readme": doc,
                    "usr/share/games/toy/unrelated.bin": b"u" * 1000})
    manifest = (row("md3/toy/toy.md3", model, PACKAGE, "pak0.pk3:models/toy/toy.md3", "1.0-1")
                + row("md3/toy/toy.skin", skin, PACKAGE, "pak0.pk3:models/toy/toy.skin", "1.0-1")
                + row("md3/toy/readme", doc, PACKAGE, "usr/share/doc/toy-data/readme", "1.0-1"))
    return manifest, {"md3/toy/readme": doc, "md3/toy/toy.md3": model, "md3/toy/toy.skin": skin}, deb


def test_debian_rows_come_from_the_package_and_its_pk3(tmp_path):
    manifest, expected, _ = debian_rows(tmp_path)
    run = corpus(tmp_path, manifest, "--debs", str(tmp_path / "debs"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 from Debian packages" in run.stdout, run.stdout
    assert files_under(tmp_path / "dest") == expected            # the unpacked package is gone


def test_debian_rows_without_the_deb_are_downloaded_with_apt_get(tmp_path):
    manifest, expected, deb = debian_rows(tmp_path)
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "apt-get").write_text(f'#!/bin/sh\necho "$*" >>"{stubs}/apt-get.log"\ncp "{deb}" .\n')
    (stubs / "apt-get").chmod(0o755)
    env = {**os.environ, "PATH": f"{stubs}:{Path(sys.executable).parent}:/usr/bin:/bin"}
    run = corpus(tmp_path, manifest, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (stubs / "apt-get.log").read_text() == "download -q toy-data=1.0-1\n"
    assert files_under(tmp_path / "dest") == expected


def test_debian_rows_without_apt_get_say_what_to_do(tmp_path):
    manifest, _, _ = debian_rows(tmp_path)
    skip_inside_blender("tools/corpus.py")
    (tmp_path / "MANIFEST.tsv").write_text(HEADER + manifest)
    run = subprocess.run([sys.executable, str(CHECKOUT / "tools" / "corpus.py"), "--manifest",
                          str(tmp_path / "MANIFEST.tsv"), "--dest", str(tmp_path / "dest")],
                         capture_output=True, text=True, timeout=120, env={**os.environ, "PATH": str(tmp_path)})
    assert run.returncode == 3, run.stdout + run.stderr
    assert run.stderr == (
        "cannot get: 3 files of toy-data 1.0-1: no toy-data_1.0-1_*.deb in --debs and no apt-get to "
        "download it (get it from snapshot.debian.org into a folder and pass --debs FOLDER)\n"), run.stderr


def test_a_manifest_path_leaving_the_corpus_folder_is_refused(tmp_path):
    run = corpus(tmp_path, row("../escape.md2", b"IDP2"))
    assert run.returncode == 1
    assert "line 2: the path ../escape.md2 must stay inside the corpus folder" in run.stderr, run.stderr
    assert not (tmp_path / "escape.md2").exists()


def test_the_tests_read_the_variable_else_the_shared_corpus_else_the_checkouts_own(tmp_path):
    checkout = tmp_path / "clone"
    checkout.mkdir()
    assert corpus_dir(checkout, {}) == checkout / ".venvs" / "corpus"
    (tmp_path / "shared" / "corpus").mkdir(parents=True)
    assert corpus_dir(checkout, {}) == tmp_path / "shared" / "corpus"
    assert corpus_dir(checkout, {"CLASSIC_MODELS_CORPUS": "/x"}) == Path("/x")
    ignored = subprocess.run(["git", "check-ignore", "-q", ".venvs"], cwd=CHECKOUT)
    assert ignored.returncode == 0, "the checkout's .venvs (and .venvs/corpus in it) must be git-ignored"


def test_the_manifest_in_the_repository_is_the_shared_corpus_manifest():
    shared = CHECKOUT.parent / "shared" / "corpus" / "MANIFEST.tsv"
    if not shared.is_file():
        pytest.skip(f"no shared corpus manifest at {shared} to compare with")
    assert MANIFEST.read_bytes() == shared.read_bytes(), \
        f"{shared} changed: copy it to tests/support/corpus/MANIFEST.tsv"


def test_under_ci_a_missing_corpus_fails_the_run_saying_how_to_get_it(tmp_path):
    skip_inside_blender("a pytest run with CI=true")
    env = {**os.environ, "CI": "true", "CLASSIC_MODELS_CORPUS": str(tmp_path / "absent")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/house/test_corpus.py::"
                          "test_a_manifest_path_leaving_the_corpus_folder_is_refused"],
                         cwd=CHECKOUT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"CI=true: the corpus at {tmp_path / 'absent'} lacks" in run.stdout + run.stderr, run.stdout + run.stderr
    assert "'bash tools/dev.sh corpus' gets them" in run.stdout + run.stderr


def test_rows_of_a_package_installed_at_their_version_come_from_its_files(tmp_path):
    """The real manifest's rows of OpenArena's player package, when this machine has it installed at the
    manifest's version: read from its pk3 on disk, not downloaded."""
    rows = [line for line in MANIFEST.read_text().splitlines()
            if "\tdebian:openarena-081-players=0.8.5split-14\t" in line][:5]
    installed = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Status} ${Version}", "openarena-081-players"],
                               capture_output=True, text=True) if shutil.which("dpkg-query") else None
    if not installed or installed.stdout != "installed 0.8.5split-14":
        pytest.skip("openarena-081-players 0.8.5split-14 is not installed here")
    run = corpus(tmp_path, "\n".join(rows) + "\n", "--from", str(tmp_path / "none"), "--github-url", "http://127.0.0.1:9")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "5 from Debian packages" in run.stdout, run.stdout
    assert len(files_under(tmp_path / "dest")) == 5


def test_the_quick_lane_gets_the_corpus_first_and_stops_on_a_wrong_file(tmp_path):
    """`bash tools/dev.sh quick` runs tools/corpus.py before any stage; a file it cannot make (here a folder
    stands where a manifest file goes) stops the run there. The other files are there as sparse files of the
    manifest's sizes, so the step reads and copies nothing else."""
    skip_inside_blender("tools/dev.sh quick")
    shared = CHECKOUT.parent / "shared" / "corpus"
    if not shared.is_dir():
        pytest.skip(f"no {shared} to copy the broken file from")
    rows = read_manifest(MANIFEST)
    dest = tmp_path / "corpus"
    for entry in rows[1:]:
        (dest / entry.path).parent.mkdir(parents=True, exist_ok=True)
        with open(dest / entry.path, "wb") as handle:
            handle.truncate(entry.size)
    (dest / rows[0].path).mkdir(parents=True)
    env = {**os.environ, "CLASSIC_MODELS_CORPUS": str(dest), "CLASSIC_MODELS_LOGS": str(tmp_path / "logs")}
    env.pop("CI", None)
    run = subprocess.run(["/bin/bash", str(CHECKOUT / "tools" / "dev.sh"), "quick", "tests/house/test_corpus.py",
                          "-k", "no_such_test"], cwd=CHECKOUT, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "=== corpus: tools/corpus.py\n" in run.stdout, run.stdout
    assert f"error: {rows[0].path}: cannot be written in {dest} (Is a directory)\n" in run.stderr, run.stderr
    assert "=== FAILED: the corpus has a wrong file" in run.stdout and "--- started" not in run.stdout, run.stdout
