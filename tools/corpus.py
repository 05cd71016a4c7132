"""The test corpus from its manifest: each file of tests/support/corpus/MANIFEST.tsv put at ``<corpus>/<path>``.

    python3 tools/corpus.py [--dest DIR] [--from DIR] [--verify] [--check] [--manifest FILE]
                            [--github-url URL] [--debs DIR]          (bash tools/dev.sh corpus ...)

Where the corpus is (``corpus_dir`` in tests/support/corpus_manifest.py, which the tests use too): ``$CLASSIC_MODELS_CORPUS``,
else ``../shared/corpus`` beside the checkout when it is there, else the checkout's git-ignored ``.venvs/corpus``.

A file already there with the manifest's size is kept without reading it (``--verify`` hashes every file). Any
other is made, in this order, from: the ``--from`` folder (default ``../shared/corpus``, when it is not the
corpus itself) holding it at the same path; its GitHub source (``source_repo`` OWNER/REPO: ``--github-url``
/OWNER/REPO/COMMIT/SOURCE_PATH, default raw.githubusercontent.com; ``file://`` works too); a Debian package
(``source_repo`` ``debian:PACKAGE=VERSION``, ``source_path`` a path in the package or ``ARCHIVE.pk3:MEMBER``)
installed at that version, found as ``PACKAGE_VERSION_*.deb`` in ``--debs``, or fetched with ``apt-get download``.
A made file is written under a temporary name, its size and sha256 compared with the manifest, then renamed:
a mismatch is an error naming the file and leaves nothing behind.

Exit status: 0 every file there; 1 a file wrong (size or sha256), a source that refused it, a bad manifest;
3 some files could not be got on this machine (no network, no apt-get), each named, and nothing wrong.
Standard library only: it runs before any venv exists.
"""
from __future__ import annotations

import argparse
import hashlib
import http.client
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))
from tests.support.corpus_manifest import (  # noqa: E402  (the checkout on sys.path first)
    MANIFEST,
    CorpusError,
    Row,
    corpus_dir,
    read_manifest,
    size_ok,
)

GITHUB_RAW = "https://raw.githubusercontent.com"
ARCHIVES = (".pk3", ".zip")
CHUNK = 1 << 20


class Unavailable(Exception):
    """This machine cannot get a file (no network, no apt-get): exit 3. ``unreachable``: why the server cannot
    be reached at all (the other files from it are then not tried)."""

    def __init__(self, message: str, unreachable: str | None = None):
        super().__init__(message)
        self.unreachable = unreachable


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def place(dest: Path, row: Row, chunks: Iterable[bytes], source: str) -> None:
    """Writes ``chunks`` to ``dest/row.path`` under a temporary name, then renames it when its size and sha256
    are the manifest's; otherwise removes it and raises CorpusError naming the file and ``source``."""
    target = dest / row.path
    target.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", suffix=".part", delete=False)  # noqa: SIM115 - closed by the with below
    temporary = Path(handle.name)
    try:
        digest, size = hashlib.sha256(), 0
        with handle:
            for block in chunks:
                digest.update(block)
                handle.write(block)
                size += len(block)
        if size != row.size:
            raise CorpusError(f"{row.path}: {size} bytes from {source}, the manifest says {row.size}")
        if digest.hexdigest() != row.sha256:
            raise CorpusError(f"{row.path}: the sha256 of the file from {source} is not the manifest's")
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def read_chunks(handle) -> Iterator[bytes]:
    while block := handle.read(CHUNK):
        yield block


def from_folder(dest: Path, row: Row, folder: Path) -> bool:
    """Copies the row's file from ``folder`` when it is there with the manifest's size."""
    source = folder / row.path
    if not (source.is_file() and source.stat().st_size == row.size):
        return False
    with source.open("rb") as handle:
        place(dest, row, read_chunks(handle), str(folder))
    return True


def github_url(base: str, row: Row) -> str:
    return f"{base.rstrip('/')}/{row.source_repo}/{row.commit}/{urllib.parse.quote(row.source_path)}"


def from_github(dest: Path, row: Row, base: str) -> None:
    url = github_url(base, row)
    try:
        response = urllib.request.urlopen(url, timeout=60)
    except urllib.error.HTTPError as error:
        raise CorpusError(f"{row.path}: {url} answered {error.code} {error.reason}")
    except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
        reason = str(getattr(error, "reason", None) or error)
        raise Unavailable(f"{row.path}: cannot download {url} ({reason})", unreachable=reason)
    with response:
        place(dest, row, network_chunks(response, row, url), url)


def network_chunks(response, row: Row, url: str) -> Iterator[bytes]:
    """The response's bytes; a download that breaks off is Unavailable (``place`` then removes what it wrote)."""
    expected, got = response.headers.get("Content-Length"), 0
    try:
        for block in read_chunks(response):
            got += len(block)
            yield block
    except (http.client.HTTPException, OSError) as error:
        raise Unavailable(f"{row.path}: the download of {url} broke off ({type(error).__name__})")
    if expected and expected.isdigit() and got < int(expected):
        raise Unavailable(f"{row.path}: the download of {url} broke off after {got} of {expected} bytes")


def is_github(row: Row) -> bool:
    owner, _, name = row.source_repo.partition("/")
    return bool(owner and name) and ":" not in row.source_repo and "/" not in name


def debian_package(row: Row) -> tuple[str, str] | None:
    if not row.source_repo.startswith("debian:") or "=" not in row.source_repo:
        return None
    package, _, version = row.source_repo[len("debian:"):].partition("=")
    return package, version


def split_member(source_path: str) -> tuple[str, str | None]:
    """``ARCHIVE.pk3:MEMBER`` -> (ARCHIVE.pk3, MEMBER); a plain path -> (path, None)."""
    archive, colon, member = source_path.partition(":")
    if colon and archive.lower().endswith(ARCHIVES):
        return archive, member
    return source_path, None


def from_archive(dest: Path, rows: list[Row], archive: Path, source: str) -> list[str]:
    """The rows' members of one pk3/zip; the errors, one per row."""
    errors = []
    with zipfile.ZipFile(archive) as pk3:
        names = set(pk3.namelist())
        for row in rows:
            member = split_member(row.source_path)[1]
            if member not in names:
                errors.append(f"{row.path}: {source} has no member {member}")
                continue
            try:
                with pk3.open(member) as handle:
                    place(dest, row, read_chunks(handle), f"{source}:{member}")
            except CorpusError as error:
                errors.append(str(error))
    return errors


def from_installed(dest: Path, rows: list[Row], package: str, version: str) -> list[str] | None:
    """The rows from the package installed at that version (dpkg), or None when it is not installed so."""
    if not shutil.which("dpkg-query"):
        return None
    query = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Status} ${Version}", package], capture_output=True,
                           text=True)
    if query.returncode != 0 or query.stdout.strip() != f"installed {version}":
        return None
    listed = subprocess.run(["dpkg-query", "-L", package], capture_output=True, text=True).stdout.splitlines()
    return from_tree(dest, rows, lambda name: [Path(p) for p in listed if Path(p).name == name],
                     lambda path: Path("/", path), f"the installed {package} {version}")


def from_tree(dest: Path, rows: list[Row], archives_named, file_at, source: str) -> list[str]:
    errors, by_archive = [], {}
    for row in rows:
        path, member = split_member(row.source_path)
        if member is not None:
            by_archive.setdefault(path, []).append(row)
            continue
        try:
            handle = file_at(path).open("rb")
        except OSError:
            errors.append(f"{row.path}: {source} has no {path}")
            continue
        try:
            with handle:
                place(dest, row, read_chunks(handle), f"{source} ({path})")
        except CorpusError as error:
            errors.append(str(error))
    for name, members in by_archive.items():
        found = archives_named(name)
        if len(found) != 1:
            errors += [f"{row.path}: {source} holds {len(found)} files named {name}, not one" for row in members]
            continue
        errors += from_archive(dest, members, found[0], f"{source} {name}")
    return errors


def deb_data(handle, deb: Path) -> tarfile.TarFile:
    """The data.tar.* of a .deb (an ar archive) open in ``handle``, as a tar read in one pass."""
    if handle.read(8) != b"!<arch>\n":
        raise CorpusError(f"{deb} is not a .deb (no ar header)")
    while header := handle.read(60):
        name, size = header[:16].decode().strip().rstrip("/"), int(header[48:58])
        if name.startswith("data.tar"):
            if name.endswith(".zst"):
                raise CorpusError(f"{deb}: its data is zstd-compressed, which this Python cannot read")
            return tarfile.open(fileobj=handle, mode="r|*")
        handle.seek(size + size % 2, os.SEEK_CUR)
    raise CorpusError(f"{deb} has no data.tar member")


def from_deb(dest: Path, rows: list[Row], deb: Path, work: Path) -> list[str]:
    """The rows from one .deb: plain paths straight from its data, archive members through the archive
    unpacked into ``work`` (removed with it)."""
    wanted = {split_member(row.source_path)[0].lstrip("/") for row in rows}
    names = {Path(p).name for p in wanted}
    kept: dict[str, list[Path]] = {}
    errors = []
    with deb.open("rb") as handle, deb_data(handle, deb) as data:
        for entry in data:
            name = entry.name.removeprefix("./")
            if not entry.isfile():
                continue
            plain = name in wanted
            archive = Path(name).name in names and name.lower().endswith(ARCHIVES)
            if not (plain or archive):
                continue
            unpacked = work / name
            unpacked.parent.mkdir(parents=True, exist_ok=True)
            with data.extractfile(entry) as handle, unpacked.open("wb") as out:
                shutil.copyfileobj(handle, out, CHUNK)
            kept.setdefault(Path(name).name, []).append(unpacked)
    errors += from_tree(dest, rows, lambda name: kept.get(name, []), lambda path: work / path.lstrip("/"), deb.name)
    return errors


def deb_pattern(package: str, version: str) -> str:
    return f"{package}_{version.split(':', 1)[-1]}_*.deb"


def given_deb(package: str, version: str, debs: Path | None) -> Path | None:
    found = sorted(debs.glob(deb_pattern(package, version))) if debs is not None else []
    return found[0] if found else None


def find_deb(package: str, version: str, work: Path) -> Path:
    """The package's .deb downloaded with ``apt-get download`` into ``work``."""
    pattern = deb_pattern(package, version)
    if not shutil.which("apt-get"):
        raise Unavailable(f"{package} {version}: no {pattern} in --debs and no apt-get to download it "
                          f"(get it from snapshot.debian.org into a folder and pass --debs FOLDER)")
    fetched = subprocess.run(["apt-get", "download", "-q", f"{package}={version}"], cwd=work,
                             capture_output=True, text=True)
    found = sorted(work.glob(pattern))
    if fetched.returncode != 0 or not found:
        why = (fetched.stderr.strip().splitlines() or ["no file"])[-1]
        raise Unavailable(f"{package} {version}: apt-get download failed ({why}); with its .deb in a folder, "
                          "pass --debs FOLDER")
    return found[0]


def from_debian(dest: Path, rows: list[Row], package: str, version: str, debs: Path | None) -> list[str]:
    """The rows from the package's .deb in ``debs``, else the package installed at that version, else its .deb
    downloaded with apt-get."""
    deb = given_deb(package, version, debs)
    if deb is None:
        errors = from_installed(dest, rows, package, version)
        if errors is not None:
            return errors
    work = Path(tempfile.mkdtemp(prefix=".debian-", dir=dest))
    try:
        deb = deb or find_deb(package, version, work)
        print(f"  unpacking {deb.name} for {len(rows)} files", flush=True)
        return from_deb(dest, rows, deb, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


@dataclass
class Outcome:
    present: int = 0
    made: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    unavailable: list[str] = field(default_factory=list)
    not_got: int = 0            # files, for the lines of ``unavailable`` (one may speak for many)

    def cannot_get(self, line: str, files: int = 1) -> None:
        self.unavailable.append(line)
        self.not_got += files


def fetch(rows: list[Row], dest: Path, source: Path | None, github: str, debs: Path | None,
          verify: bool = False) -> Outcome:
    """Puts every row's file at ``dest``; see the module's docstring."""
    outcome, missing = Outcome(), []
    for row in rows:
        if size_ok(dest, row) and (not verify or sha256_of(dest / row.path) == row.sha256):
            outcome.present += 1
        elif verify and size_ok(dest, row):
            outcome.errors.append(f"{row.path}: its sha256 is not the manifest's (delete it and run again to get it "
                                  "anew)")
        else:
            missing.append(row)
    if missing and dest == source:
        outcome.cannot_get(f"{len(missing)} files missing or of another size in {dest}, which is where they would "
                           f"be copied from (first: {missing[0].path}; --check lists them)", len(missing))
        return outcome
    if missing:
        dest.mkdir(parents=True, exist_ok=True)
    packages: dict[tuple[str, str], list[Row]] = {}
    unreachable, not_tried = "", []
    for row in missing:
        how = ""
        try:
            if source is not None and from_folder(dest, row, source):
                how = f"copied from {source}"
            elif is_github(row) and unreachable:
                not_tried.append(row.path)
            elif is_github(row):
                from_github(dest, row, github)
                how = "downloaded from GitHub"
            elif debian_package(row):
                packages.setdefault(debian_package(row), []).append(row)
            else:
                outcome.cannot_get(f"{row.path}: no way to get it from {row.source_repo}")
        except CorpusError as error:
            outcome.errors.append(str(error))
        except Unavailable as error:
            if error.unreachable:
                unreachable = error.unreachable
                not_tried.append(row.path)
            else:
                outcome.cannot_get(str(error))
        except OSError as error:
            outcome.errors.append(f"{row.path}: cannot be written in {dest} ({error.strerror or error})")
        if how:
            outcome.made[how] = outcome.made.get(how, 0) + 1
    if not_tried:
        outcome.cannot_get(f"{len(not_tried)} files from {github}, which cannot be reached ({unreachable}; "
                           f"first: {not_tried[0]}; --check lists them)", len(not_tried))
    for (package, version), group in packages.items():
        try:
            errors = from_debian(dest, group, package, version, debs)
        except Unavailable as error:
            outcome.cannot_get(f"{len(group)} files of {error}", len(group))
            continue
        except (CorpusError, OSError, tarfile.TarError, zipfile.BadZipFile) as error:
            outcome.errors.append(f"{len(group)} files of {package} {version}: {error}")
            continue
        outcome.errors += errors
        made = len(group) - len(errors)
        if made:
            key = "from Debian packages"
            outcome.made[key] = outcome.made.get(key, 0) + made
    return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/dev.sh corpus", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dest", type=Path, default=None, help="the corpus folder (default: where the tests read it)")
    parser.add_argument("--from", dest="source", type=Path, default=CHECKOUT.parent / "shared" / "corpus",
                        help="a folder to copy files from (default ../shared/corpus)")
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--github-url", default=GITHUB_RAW, help="base of GitHub's raw files (or a file:// URL)")
    parser.add_argument("--debs", type=Path, default=None, help="a folder of .deb files for the Debian rows")
    parser.add_argument("--verify", action="store_true", help="hash every file, not only the ones it makes")
    parser.add_argument("--check", action="store_true", help="only say whether every file is there (sizes)")
    args = parser.parse_args(argv)
    dest = (args.dest or corpus_dir(CHECKOUT)).absolute()
    source = args.source.absolute() if args.source and args.source.is_dir() else None
    try:
        rows = read_manifest(args.manifest)
    except (OSError, CorpusError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.check:
        absent = [row.path for row in rows if not size_ok(dest, row)]
        for path in absent:
            print(f"missing: {path}", file=sys.stderr)
        print(f"corpus at {dest}: {len(rows) - len(absent)} of {len(rows)} files there")
        return 3 if absent else 0
    outcome = fetch(rows, dest, source, args.github_url, args.debs, args.verify)
    for line in outcome.errors:
        print(f"error: {line}", file=sys.stderr)
    for line in outcome.unavailable:
        print(f"cannot get: {line}", file=sys.stderr)
    made = "; ".join(f"{count} {how}" for how, count in outcome.made.items())
    checked = "sha256 checked" if args.verify else "sizes checked"
    print(f"corpus at {dest}: {outcome.present} of {len(rows)} files already there ({checked})"
          + (f"; {made}" if made else "")
          + (f"; {len(outcome.errors)} wrong" if outcome.errors else "")
          + (f"; {outcome.not_got} could not be got here" if outcome.not_got else ""))
    return 1 if outcome.errors else 3 if outcome.unavailable else 0


if __name__ == "__main__":
    sys.exit(main())
