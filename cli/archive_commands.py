"""``list ARCHIVE...`` (every member with its size) and ``pack FOLDER... -o ARCHIVE`` (a mod's archive).

``pack`` takes every file under each folder, named relative to that folder with ``/``, in name
order, and writes a PACK (``.pak``) or zip (``.pk3``) through :func:`..formats.archives.archive.write_archive`:
names that are not plain relative paths or do not fit a PACK's 55 bytes are refused (naming the
file), as are two files with the same name; the archive appears only complete and read back equal.
The archive being written is never packed into itself.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..formats.archives.archive import ArchiveError, is_archive_name, open_archive, write_archive
from ..formats.archives.game_folder import GameFolder
from ..formats.message_text import printable
from ..formats.table import row_for_name
from .arguments import given_path

USAGE_ERROR = 2


def add_archive_commands(commands) -> None:
    """The ``list`` and ``pack`` sub-commands on the main parser's ``commands``."""
    listing = commands.add_parser("list", help="list the members of .pak/.pk3 archives (or of a game folder's) "
                                               "with their sizes",
                                  description="Every member of each archive in directory order with its size "
                                              "in bytes, then the entries that cannot be read (exit status 1) "
                                              "and duplicate names (which one the engine reads). A FOLDER lists "
                                              "its archives in the order the engine searches them, and its loose "
                                              "model files where the engine reads them (after the archives; first "
                                              "in Hexen II folders).")
    listing.add_argument("archives", nargs="+", metavar="ARCHIVE|FOLDER", type=given_path)
    listing.add_argument("--json", action="store_true", help="print one JSON document for scripts")

    pack = commands.add_parser("pack", help="write a .pak or .pk3 of game files from folders",
                               description="Every file under each FOLDER becomes a member named by its path "
                                           "relative to that FOLDER (e.g. pack mymod -o mymod/pak1.pak). "
                                           "Names must be plain relative paths, at most 55 bytes in a .pak; "
                                           "the archive is written whole or not at all.")
    pack.add_argument("folders", nargs="+", metavar="FOLDER", type=given_path)
    pack.add_argument("-o", "--output", required=True, type=given_path, metavar="ARCHIVE",
                      help="the archive to write: .pak (Quake PACK) or .pk3 (zip, deflate)")
    pack.add_argument("-q", "--quiet", action="store_true", help="print only the summary line")


def listed_items(paths: list[Path]) -> list[tuple[str, Path]]:
    """("archive", path) and ("loose", folder) in listing order: a folder's archives in search order
    (:class:`..formats.archives.game_folder.GameFolder`), its loose files before or after them as the
    engine reads them."""
    items: list[tuple[str, Path]] = []
    for path in paths:
        if not path.is_dir():
            items.append(("archive", path))
            continue
        folder = GameFolder(path)
        archives = [("archive", p) for p in folder.archive_paths]
        items += [("loose", path)] + archives if folder.loose_first else archives + [("loose", path)]
    return items


def _loose_models(folder: Path) -> tuple[list[tuple[str, int]], list[str]]:
    """(game path, size) of the model files under ``folder``, by name; and one line per model file
    that cannot be read (a broken link)."""
    found, problems = [], []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for filename in sorted(filenames):
            path = Path(dirpath, filename)
            if row_for_name(path.name) is not None:
                name = path.relative_to(folder).as_posix()
                try:
                    found.append((name, path.stat().st_size))
                except OSError as exc:
                    problems.append(f"{name}: cannot be read: {exc.strerror or exc}")
    return sorted(found), problems


def run_list(args: argparse.Namespace, prog: str = "classic_models") -> int:
    documents, bad = [], False
    for kind, path in listed_items(args.archives):
        if kind == "loose":
            models, problems = _loose_models(path)
            bad = bad or bool(problems)
            documents.append({"folder": str(path), "loose": [{"name": n, "size": size} for n, size in models],
                              "errors": problems})
            if not args.json:
                width = max((len(str(size)) for _, size in models), default=1)
                print(f"{path}: loose files, {len(models)} model(s)")
                for name, size in models:
                    print(f"  {size:>{width}}  {name}")
                for text in problems:
                    print(f"  error: {text}")
            continue
        try:
            with open_archive(path) as archive:
                members = archive.members()
                problems = [str(p) for p in archive.problems]
                warnings = list(archive.warnings)
                kind = archive.kind
        except ArchiveError as exc:
            bad = True
            documents.append({"archive": str(path), "error": str(exc)})
            if not args.json:
                print(f"{prog} list: {exc}", file=sys.stderr)
            continue
        bad = bad or bool(problems)
        documents.append({"archive": str(path), "kind": kind,
                          "members": [{"name": m.name, "size": m.size} for m in members],
                          "errors": problems, "warnings": warnings})
        if args.json:
            continue
        width = max((len(str(m.size)) for m in members), default=1)
        print(f"{path}: {kind}, {len(members)} member(s), {sum(m.size for m in members)} bytes")
        for member in members:
            print(f"  {member.size:>{width}}  {printable(member.name)}")
        for text in problems:
            print(f"  error: {text}")
        for text in warnings:
            print(f"  warning: {text}")
    if args.json:
        json.dump({"archives": documents}, sys.stdout, indent=2)
        print()
    return 1 if bad else 0


def collect_files(folders: list[Path], output: Path) -> list[tuple[str, Path]]:
    """(member name, file) for every file under ``folders``, sorted by name within each folder;
    the ``output`` archive itself is left out. ArchiveError for a folder that is not one."""
    skip = output.resolve()
    found: list[tuple[str, Path]] = []
    for folder in folders:
        if not folder.is_dir():
            raise ArchiveError(folder, "not a folder (pack takes folders; members are named relative to them)")
        items = []
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames.sort()
            for filename in filenames:
                path = Path(dirpath, filename)
                if path.resolve() == skip:
                    continue
                items.append((path.relative_to(folder).as_posix(), path))
        found += sorted(items, key=lambda item: item[0])
    return found


def run_pack(args: argparse.Namespace, prog: str = "classic_models") -> int:
    output: Path = args.output
    if not is_archive_name(output):
        print(f"{prog} pack: {output}: the archive must end in .pak or .pk3", file=sys.stderr)
        return USAGE_ERROR
    if not output.parent.is_dir():
        print(f"{prog} pack: {output.parent}: no such folder", file=sys.stderr)
        return USAGE_ERROR
    try:
        files = collect_files(args.folders, output)
        if not files:
            raise ArchiveError(output, "nothing to pack: the folders hold no files")
        members = []
        for name, path in files:
            try:
                members.append((name, path.read_bytes()))
            except OSError as exc:
                raise ArchiveError(path, f"cannot read: {exc.strerror or exc}") from exc
        write_archive(output, members)
    except ArchiveError as exc:
        print(f"{prog} pack: {exc}; nothing written", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{prog} pack: {output}: cannot write: {exc.strerror or exc}; nothing written", file=sys.stderr)
        return 1
    if not args.quiet:
        for name, data in members:
            print(f"  {len(data):>10}  {name}")
    print(f"wrote {output}: {len(members)} member(s), {sum(len(d) for _, d in members)} bytes")
    return 0

