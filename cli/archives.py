"""Archive inputs for ``info``, ``check`` and ``convert``: a whole ``.pak``/``.pk3``, or ``ARCHIVE:MEMBER``.

A member is read through :mod:`..formats.archives.archive` and written, with the files its import would
look for, into a temporary folder laid out like the game folder (``progs/player.mdl``,
``players/male/tris.md2`` beside its skins and weapon models), where the importers and ``info``
find them as they find loose files. The companions come from the game folder the archive sits in
(:class:`..formats.archives.game_folder.GameFolder`, the engine's search order): what its row's
``member_files`` names (``cli/<fmt>/members.py``: MD2 skins and the images and models of a player's
folder, MS3D textures; an MDL carries its skins). Reports then
name ``ARCHIVE:MEMBER`` and the archive (or loose file) each skin came from, never the temporary
folder. Every name written is a plain relative path checked by the archive reader, and each
target is checked to lie inside the temporary folder, whatever a member is called.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from ..formats import table
from ..formats.archives.archive import Archive, ArchiveError, is_archive_name, member_key, open_archive, unsafe_name
from ..formats.archives.game_folder import GameFolder, search_archives
from ..formats.archives.game_palette import PaletteChoice, choose_palette
from ..formats.message_text import printable
from .inspect import ModelInfo, Problem, model_format, model_suffixes

IMAGE_SUFFIXES = (".pcx", ".tga", ".png", ".jpg", ".jpeg", ".bmp", ".dds")
COMPANION_LIMIT = 64 << 20      # bytes of companions extracted for one member at most


@dataclass(frozen=True)
class ArchiveInput:
    """A command-line argument naming an archive, or one member (``member``) in it."""
    text: str
    archive: Path
    member: str | None = None
    in_folder: bool = False      # found under a folder argument: an archive without models is no error


def parse_archive_input(text: str) -> ArchiveInput | None:
    """``pak0.pak`` or ``pak0.pak:progs/player.mdl`` (an existing ``.pak``/``.pk3`` before the colon)."""
    path = Path(text)
    if is_archive_name(path) and path.is_file():
        return ArchiveInput(text, path)
    start = 0
    while (colon := text.find(":", start)) >= 0:
        head = Path(text[:colon])
        if is_archive_name(head) and head.is_file():
            return ArchiveInput(text, head, text[colon + 1:])
        start = colon + 1
    return None


def folder_archives(folder: Path) -> list[ArchiveInput]:
    """The archives under ``folder`` (each folder's in the engine's search order), as archive arguments."""
    found = []
    for dirpath, dirnames, _ in os.walk(folder):
        dirnames.sort()
        found += [ArchiveInput(str(p), p, in_folder=True) for p in search_archives(Path(dirpath))]
    return found


def split_inputs(inputs: list[str]) -> tuple[list[str], list[ArchiveInput]]:
    """Plain file/folder arguments and archive arguments, each in argument order."""
    plain, archives = [], []
    for text in inputs:
        found = parse_archive_input(text)
        if found is None:
            plain.append(text)
        else:
            archives.append(found)
    return plain, archives


def member_label(archive: Path | str, name: str) -> str:
    """How the command line shows a member: ``pak0.pak:progs/ogre.mdl`` (a control character as ``<1F>``)."""
    return f"{archive}:{printable(name)}"


@dataclass
class Extracted:
    """A member written to ``path`` under ``root`` with its companions; ``origins`` maps each written
    file to where it came from (``ARCHIVE:NAME`` or a loose file's path)."""
    root: Path
    path: Path
    label: str
    origins: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass
class ArchiveEntry:
    """One model member to inspect or convert, or a failure (``error``) to report for it."""
    label: str
    name: str
    format: str | None
    archive: Path
    error: str | None = None
    warnings: list[str] = field(default_factory=list)


class ArchiveSession:
    """The archives and game folders opened for one command; :meth:`close` releases them."""

    def __init__(self, work: Path | None = None) -> None:
        self.work = Path(tempfile.mkdtemp(prefix="classic_models_archive_", dir=work))
        self._archives: dict[Path, Archive | ArchiveError] = {}
        self._folders: dict[Path, GameFolder | None] = {}
        self._files: dict[Path, list[str]] = {}
        self._count = 0

    def __enter__(self) -> ArchiveSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for archive in self._archives.values():
            if isinstance(archive, Archive):
                archive.close()
        for folder in self._folders.values():
            if folder is not None:
                folder.close()
        shutil.rmtree(self.work, ignore_errors=True)

    def archive(self, path: Path) -> Archive:
        """The open archive (raises its :class:`ArchiveError` again on each call if it is bad)."""
        key = path.resolve()
        if key not in self._archives:
            try:
                self._archives[key] = open_archive(path)
            except ArchiveError as exc:
                self._archives[key] = exc
        found = self._archives[key]
        if isinstance(found, ArchiveError):
            raise found
        return found

    def game_folder(self, archive_path: Path) -> GameFolder | None:
        key = archive_path.resolve().parent
        if key not in self._folders:
            self._folders[key] = GameFolder.around(archive_path)
        return self._folders[key]

    def entries(self, item: ArchiveInput) -> list[ArchiveEntry]:
        """The model members ``item`` names: every model of the archive (each name once, the
        entry the engine reads), its broken entries as errors; or the one member asked for."""
        try:
            archive = self.archive(item.archive)
        except ArchiveError as exc:
            return [ArchiveEntry(str(item.archive) if item.member is None else item.text,
                                 item.member or "", None, item.archive, error=str(exc))]
        if item.member is not None:
            return [self._entry(archive, item.member)]
        entries, seen = [], set()
        for member in archive.members():
            key = member_key(member.name)
            if key in seen or model_format(member.name) is None:
                continue
            seen.add(key)
            entries.append(self._entry(archive, member.name))
        for problem in archive.problems:
            entries.append(ArchiveEntry(member_label(archive.path, problem.member), problem.member,
                                        _format_of(problem.member), archive.path, error=problem.message))
        if not entries and not item.in_folder:
            entries.append(ArchiveEntry(str(archive.path), "", None, archive.path,
                                        error=f"no {model_suffixes()} members in this archive"))
        return entries

    def _entry(self, archive: Archive, name: str) -> ArchiveEntry:
        member = archive.find(name)
        label = member_label(archive.path, member.name if member else name)
        fmt = _format_of(name)
        entry = ArchiveEntry(label, member.name if member else name, fmt, archive.path,
                             warnings=archive.warnings_for(name))
        if member is None:
            bad = [p for p in archive.problems if member_key(p.member or "") == member_key(name)]
            entry.error = bad[0].message if bad else "no such member in the archive"
        elif fmt is None:
            entry.error = f"not a model: expected a member ending in {model_suffixes()}"
        return entry

    def palette(self, entry: ArchiveEntry, rapo: bool = False) -> PaletteChoice:
        """The palette the import decodes the member's skins with: its game folder's (or archive's)
        ``gfx/palette.lmp``, else by the game folder (:mod:`..formats.archives.game_palette`)."""
        return choose_palette(self.game_folder(entry.archive), self.archive(entry.archive), rapo)

    def extract(self, entry: ArchiveEntry) -> Extracted:
        """Write ``entry``'s member and its companions into a fresh folder; ArchiveError if unreadable
        (or if the temporary folder cannot be written)."""
        try:
            return self._extract(entry)
        except OSError as exc:
            raise ArchiveError(entry.archive, f"cannot extract to {self.work}: {exc.strerror or exc}",
                               entry.name) from exc

    def _extract(self, entry: ArchiveEntry) -> Extracted:
        archive = self.archive(entry.archive)
        data = archive.read(entry.name)
        self._count += 1
        root = self.work / f"m{self._count}"
        root.mkdir()
        target = _target(root, entry.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        result = Extracted(root, target, entry.label, {str(target): entry.label})
        folder = self.game_folder(entry.archive)
        if folder is not None:
            self._companions(folder, entry, data, result)
        return result

    def _folder_files(self, folder: GameFolder) -> list[str]:
        if folder.root not in self._files:
            self._files[folder.root] = [f.name for f in folder.files()]
        return self._files[folder.root]

    def _companions(self, folder: GameFolder, entry: ArchiveEntry, data: bytes, result: Extracted) -> None:
        wanted = _member_files(entry.format, entry.name, data, lambda: self._folder_files(folder))
        budget = COMPANION_LIMIT
        done = {member_key(entry.name)}
        for name in wanted:
            found = folder.find(name)
            if found is None or member_key(found.name) in done:
                continue
            done.add(member_key(found.name))
            if found.size > budget:
                result.notes.append(f"{found.name} not extracted: companions are limited to {COMPANION_LIMIT} bytes")
                continue
            try:
                payload = folder.read(found.name)
            except ArchiveError as exc:
                result.notes.append(str(exc))
                continue
            budget -= len(payload)
            target = _target(result.root, found.name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(payload)
            source = _as_given(found.archive or (found.root or folder.root) / found.name, entry.archive)
            result.origins[str(target)] = member_label(source, found.name) if found.archive else str(source)


def _as_given(path: Path, archive: Path) -> Path:
    """``path`` (absolute, in the game folder) spelled from the folder of ``archive`` as the user gave it."""
    try:
        return archive.parent / path.relative_to(archive.resolve().parent)
    except ValueError:
        return path


def _format_of(name: str) -> str | None:
    return model_format(name)


def _target(root: Path, name: str) -> Path:
    """``name`` under ``root``; refuses anything that is not a plain relative path inside it."""
    problem = unsafe_name(name)
    if problem:
        raise ArchiveError(root, problem, name)
    target = root.joinpath(*name.replace("\\", "/").split("/"))
    if os.path.commonpath([root.resolve(), target.resolve()]) != str(root.resolve()):
        raise ArchiveError(root, "would be written outside the folder", name)
    return target


def _member_files(fmt: str | None, name: str, data: bytes, folder_files) -> list[str]:
    """The game paths member ``name`` of format ``fmt`` needs beside it: its row's ``member_files``."""
    named = table.row(fmt).member_files if fmt else ""
    return table.resolve(named)(name, data, folder_files) if named else []


def folder_siblings(files: list[str], name: str, suffixes: tuple[str, ...]) -> list[str]:
    """The files among the game folder's ``files`` in the folder of member ``name`` whose suffix is one of
    ``suffixes`` (any case)."""
    parent = member_key(str(PurePosixPath(name.replace("\\", "/")).parent))
    found = []
    for item in files:
        path = PurePosixPath(item.replace("\\", "/"))
        if member_key(str(path.parent)) == parent and path.suffix.lower() in suffixes:
            found.append(item)
    return found


def relabel(info: ModelInfo, extracted: Extracted, archive: Path) -> ModelInfo:
    """``info`` of an extracted member as if read in place: its label, and skin paths and messages
    naming the archive (or loose file) instead of the temporary folder."""
    info.file = extracted.label
    root = str(extracted.root)
    for skin in info.skins:
        if skin.path:
            skin.path = extracted.origins.get(skin.path, skin.path.replace(root + os.sep, f"{archive}:"))
        if skin.note:
            skin.note = _replace_paths(skin.note, extracted, archive)
    for problem in info.problems:
        problem.message = _replace_paths(problem.message, extracted, archive)
    return info


def _replace_paths(text: str, extracted: Extracted, archive: Path) -> str:
    for temp, origin in sorted(extracted.origins.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(temp, origin)
    return text.replace(str(extracted.root) + os.sep, f"{archive}:").replace(str(extracted.root), str(archive))


def failed_info(entry: ArchiveEntry) -> ModelInfo:
    info = ModelInfo(file=entry.label, format=entry.format)
    info.problems.append(Problem("error", entry.error or "cannot be read"))
    return info


def inspect_archive_inputs(items: list[ArchiveInput], inspect_one) -> list[ModelInfo]:
    """``info``/``check`` of archive arguments: one :class:`ModelInfo` per model member (or failure).

    ``inspect_one(path)`` is the command's own call of :func:`.inspect.inspect_file`."""
    infos: list[ModelInfo] = []
    with ArchiveSession() as session:
        for item in items:
            for entry in session.entries(item):
                if entry.error:
                    infos.append(failed_info(entry))
                    continue
                try:
                    extracted = session.extract(entry)
                except ArchiveError as exc:
                    entry.error = exc.message
                    infos.append(failed_info(entry))
                    continue
                info = relabel(inspect_one(extracted.path), extracted, entry.archive)
                if "palette" in info.details:
                    info.details["palette"] = session.palette(entry, info.details["variant"] == "RAPO").name
                info.problems += [Problem("warning", w) for w in entry.warnings + extracted.notes]
                infos.append(info)
                shutil.rmtree(extracted.root, ignore_errors=True)
    return infos


def member_output(out_dir: Path, name: str, target: str) -> Path:
    """``out_dir/<member path>.<target>``: ``progs/player.mdl`` -> ``out/progs/player.glb``."""
    from .batch import output_name
    path = PurePosixPath(name.replace("\\", "/"))
    relative = path.with_name(output_name(path.stem, target, path.suffix))
    output = _target(out_dir, str(relative))
    return output


def plan_archive_jobs(items: list[ArchiveInput], settings, out_dir: Path, skip_existing: bool,
                      session: ArchiveSession, claimed: set[Path]):
    """Convert jobs for archive arguments (members extracted into ``session``), the results already
    known (failures, skipped outputs) and, per job source, the label and extraction to report it by."""
    from .convert import ConvertJob, ConvertResult
    jobs, known, extractions = [], [], {}
    for item in items:
        for entry in session.entries(item):
            output = None
            error = entry.error
            if error is None:
                try:
                    output = member_output(out_dir, entry.name, settings.target)
                except ArchiveError as exc:
                    error = exc.message
            if error is None and output.resolve() in claimed:
                error = f"the output {output} is already another input or another input's output"
            if error is not None:
                known.append(ConvertResult(entry.label, None, ok=False, error=error))
                continue
            claimed.add(output.resolve())
            if skip_existing and output.exists():
                known.append(ConvertResult(entry.label, str(output), ok=True, skipped=True))
                continue
            try:
                extracted = session.extract(entry)
            except ArchiveError as exc:
                known.append(ConvertResult(entry.label, str(output), ok=False, error=exc.message))
                continue
            extracted.notes += entry.warnings
            job_settings = _with_folder_palette(settings, session, entry, extracted) \
                if table.row(entry.format).game_palette else settings
            jobs.append(ConvertJob(str(extracted.path), entry.format, str(output), job_settings))
            extractions[str(extracted.path)] = (entry.archive, extracted)
    return jobs, known, extractions


def relabel_result(result, extractions) -> None:
    """A converted member's result naming ``ARCHIVE:MEMBER`` instead of its temporary copy."""
    found = extractions.get(result.source)
    if found is None:
        return
    archive, extracted = found
    result.source = extracted.label
    result.warnings = [_replace_paths(w, extracted, archive) for w in extracted.notes + result.warnings]
    result.lines = [_replace_paths(w, extracted, archive) for w in extracted.notes + result.lines]
    if result.error:
        result.error = _replace_paths(result.error, extracted, archive)


def relabel_progress(progress, extractions) -> None:
    """Make ``progress`` relabel each member's result before it prints it (and for the summary)."""
    if not extractions:
        return
    update = progress.update

    def labelled_update(result) -> None:
        relabel_result(result, extractions)
        update(result)
    progress.update = labelled_update


def _with_folder_palette(settings, session: ArchiveSession, entry: ArchiveEntry, extracted: Extracted):
    """A member of a paletted format (its row's ``game_palette``: MDL) imports (and, to such a format, exports)
    with its game folder's palette, as the Blender import
    of the archive does, unless ``--palette`` chose one: the extracted copy has no game folder around it."""
    from .convert import OptionRequest
    if {"palette", "palette_path"} & set(settings.import_options):
        return settings
    choice = session.palette(entry)
    if choice.game == "QUAKE":
        return settings
    if choice.game == "HEXEN2":
        request = {"palette": OptionRequest("--palette", "HEXEN2")}
    else:
        lump = extracted.root / "palette.lmp"
        lump.write_bytes(choice.palette.tobytes())
        request = {"palette_path": OptionRequest("--palette", str(lump))}
    paletted = settings.target in {r.key for r in table.FORMATS if r.game_palette}
    exports = {**request, **settings.export_options} if paletted else settings.export_options
    return replace(settings, import_options={**settings.import_options, **request}, export_options=exports)
