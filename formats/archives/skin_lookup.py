"""Find the image file a model's stored skin name refers to, without trusting the name.

Skin names are paths relative to the game directory (``players/male/grunt.pcx``,
``models/monsters/tank/skin.pcx``), sometimes with backslashes, and their case rarely matches the
files on a case-sensitive disk.  The search, cheapest first:

1. next to the model: the skin's base name, then the same stem with each other extension;
2. under the game directory, inferred by walking up the model's ancestors to one whose join with
   the skin's directory part names an existing directory (matched case-insensitively, one
   component at a time).  Ancestors where that directory is the model's own folder, or contains
   it, are preferred; nearer ancestors before farther ones.

Directories are listed with :func:`os.scandir`, one listing per directory visited; nothing is
walked recursively.  A candidate is returned only if, with symlinks resolved, it lies inside the
model's folder tree or the game directory it was found under.  Bpy-free.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from ..images.image_size import image_size
from ..message_text import quoted
from ..table import model_extensions

DEFAULT_EXTENSIONS = (".pcx", ".tga", ".png", ".jpg", ".jpeg", ".bmp")

_SEPARATORS = re.compile(r"[\\/]")
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass
class SkinLookup:
    """Where the skin is (``path``, None if not found or refused) and what the user should hear.

    ``warning`` is None for a plain hit; it explains a refusal or a miss, and also notes a hit
    that needed another extension or skipped a candidate leading outside the allowed folders.
    """
    path: Path | None
    warning: str | None = None


@dataclass
class _Search:
    listings: dict[Path, dict[bytes, list[str]]] = field(default_factory=dict)
    looked_in: list[Path] = field(default_factory=list)
    escaped: list[Path] = field(default_factory=list)

    def listing(self, directory: Path) -> dict[bytes, list[str]]:
        """Lower-cased entry name bytes -> the entry names with that spelling, sorted (names on disk
        compare by their bytes, so a Latin-1 name matches the Latin-1 name a model stores)."""
        if directory not in self.listings:
            names: dict[bytes, list[str]] = {}
            try:
                with os.scandir(directory) as entries:
                    for entry in entries:
                        names.setdefault(disk_key(entry.name), []).append(entry.name)
            except OSError:
                pass
            for spellings in names.values():
                spellings.sort()
            self.listings[directory] = names
        return self.listings[directory]

    def child(self, directory: Path, name: str, *, want_dir: bool) -> Path | None:
        listing = self.listing(directory)
        spellings = [s for key in name_keys(name) for s in listing.get(key, [])]
        ordered = ([name] if name in spellings else []) + [s for s in spellings if s != name]
        for spelling in ordered:
            candidate = directory / spelling
            if candidate.is_dir() if want_dir else candidate.is_file():
                return candidate
        return None

    def directory(self, root: Path, parts: list[str]) -> Path | None:
        current = root
        for part in parts:
            found = self.child(current, part, want_dir=True)
            if found is None:
                return None
            current = found
        return current

    def file(self, directory: Path, names: list[str], roots: list[Path]) -> Path | None:
        if directory not in self.looked_in:
            self.looked_in.append(directory)
        for name in names:
            candidate = self.child(directory, name, want_dir=False)
            if candidate is None:
                continue
            if _inside_any(candidate, roots):
                return candidate
            if candidate not in self.escaped:
                self.escaped.append(candidate)
        return None


def name_keys(stored: str) -> list[bytes]:
    """The byte spellings a stored name (decoded from a model file as Latin-1, or typed) may have on disk,
    lower-cased as the game's file systems compared them: the Latin-1 bytes it came from, then UTF-8.
    Names on disk that are not UTF-8 (a Latin-1 ``sk\\xe9n.pcx`` of an old Windows mod) are compared by
    their bytes, so they are found like any other (Python holds them with surrogate escapes)."""
    keys = []
    for encoding in ("latin-1", "utf-8"):
        try:
            key = stored.encode(encoding, "surrogateescape").lower()
        except UnicodeEncodeError:
            continue
        if key not in keys:
            keys.append(key)
    return keys


def disk_key(name: str) -> bytes:
    """The lower-cased bytes of a name listed from disk, to compare with :func:`name_keys`."""
    return os.fsencode(name).lower()


def _inside_any(candidate: Path, roots: list[Path]) -> bool:
    try:
        resolved = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    return any(resolved.is_relative_to(root) for root in roots)


def _resolve_root(directory: Path) -> Path:
    try:
        return directory.resolve()
    except (OSError, RuntimeError):
        return directory


def skin_name_parts(skin_name: str) -> list[str]:
    """The folders and file name of a stored skin name (``/`` or ``\\``; empty and ``.`` parts dropped)."""
    return [p for p in _SEPARATORS.split(skin_name.strip()) if p not in ("", ".")]


def unsafe_skin_name(skin_name: str) -> str | None:
    """Why a stored skin name is not looked up (empty, absolute, ``..``, NUL), else None."""
    if not skin_name.strip():
        return "the skin name is empty"
    if skin_name.startswith(("/", "\\")) or _DRIVE.match(skin_name):
        return f"skin {quoted(skin_name)} is an absolute path; only game-relative paths are looked up"
    if ".." in _SEPARATORS.split(skin_name):
        return f"skin {quoted(skin_name)} contains '..'; it could name a file outside the game directory"
    if "\0" in skin_name:
        return f"skin {quoted(skin_name)} contains a NUL byte"
    return None


def candidate_names(base: str, extensions: tuple[str, ...]) -> list[str]:
    """``base`` as stored, then its stem with each of ``extensions``."""
    stem, stored = os.path.splitext(base)
    if not stem:
        stem, stored = base, ""
    names = [base] if stored else []
    for ext in extensions:
        if ext.lower() != stored.lower():
            names.append(stem + ext)
    return names


def _ancestors(directory: Path) -> list[Path]:
    return [directory, *directory.parents]


def stored_path_candidates(skin_name: str, beside: str | None = None) -> list[str]:
    """The game paths a stored skin name is looked up as in a game folder, in order: beside the model
    (folder ``beside``), then the stored path from the game folder's root; the other image extensions."""
    parts = skin_name_parts(skin_name)
    if not parts:
        return []
    names = candidate_names(parts[-1], DEFAULT_EXTENSIONS)
    folders = ([beside] if beside is not None else []) + (["/".join(parts[:-1])] if len(parts) > 1 else [])
    return [f"{folder}/{name}" if folder else name for folder in dict.fromkeys(folders) for name in names]


def find_skin(model_path: Path, skin_name: str,
              extensions: tuple[str, ...] = DEFAULT_EXTENSIONS) -> SkinLookup:
    """Locate ``skin_name`` (as stored in the model) for the model file at ``model_path``."""
    refusal = unsafe_skin_name(skin_name.strip())
    if refusal is not None:
        return SkinLookup(None, refusal)
    parts = skin_name_parts(skin_name)
    if not parts:
        return SkinLookup(None, f"skin {quoted(skin_name)} names no file")
    dir_parts, base = parts[:-1], parts[-1]
    names = candidate_names(base, tuple(extensions))
    model_dir = Path(os.path.abspath(model_path)).parent
    model_root = _resolve_root(model_dir)
    search = _Search()

    found = search.file(model_dir, names, [model_root])
    game_dirs: list[tuple[int, int, Path, Path]] = []
    if found is None and dir_parts:
        for distance, ancestor in enumerate(_ancestors(model_dir)):
            skin_dir = search.directory(ancestor, dir_parts)
            if skin_dir is not None:
                contains_model = model_dir == skin_dir or model_dir.is_relative_to(skin_dir)
                game_dirs.append((0 if contains_model else 1, distance, ancestor, skin_dir))
        for _, _, game_dir, skin_dir in sorted(game_dirs, key=lambda item: item[:2]):
            found = search.file(skin_dir, names, [model_root, _resolve_root(game_dir)])
            if found is not None:
                break

    notes = []
    escaped = [p for p in search.escaped if p != found]
    if escaped:
        outside = ", ".join(str(p) for p in escaped)
        notes.append(f"ignored {outside}: it leads outside the model's folder and the game directory")
    if found is None:
        tried = ", ".join(dict.fromkeys(PurePath(n).suffix or n for n in names))
        looked = ", ".join(str(p) for p in search.looked_in)
        message = f"skin {quoted(skin_name)} not found (tried {tried}) in {looked}"
        if dir_parts and not game_dirs:
            message += (f"; no folder above the model holds {quoted('/'.join(dir_parts))}, "
                        f"so the game directory is unknown")
        return SkinLookup(None, "; ".join([message, *notes]))
    if disk_key(found.name) not in name_keys(base):
        notes.insert(0, f"skin {quoted(skin_name)} not found as stored; using {found.name}")
    return SkinLookup(found, "; ".join(notes) or None)


def texture_candidates(stored: str) -> list[list[str]]:
    """The relative paths (as parts) a material's texture path is looked up as, in order: the path
    itself, then its bare file name; an absolute path (``C:\\...``, ``/...``) by its file name only."""
    text = stored.strip().replace("\\", "/")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if not parts:
        return []
    if text.startswith("/") or _DRIVE.match(text):
        return [[parts[-1]]]
    return [parts, [parts[-1]]] if len(parts) > 1 else [parts]


def describe_texture_search(folder: Path, stored: str) -> str:
    """Where :func:`find_texture` looks for ``stored``, in words: which names, in which folder."""
    candidates = texture_candidates(stored)
    if not candidates:
        return "the name is empty"
    names = ", then ".join("/".join(parts) for parts in candidates)
    text = stored.strip().replace("\\", "/")
    why = ("absolute path: only its file name is used; " if text.startswith("/") or _DRIVE.match(text)
           else "backslashes read as folders; " if "\\" in stored and len(candidates) > 1 else "")
    return f"{why}looked for {names} in {folder} (any case)"


def find_texture(folder: Path, stored: str) -> Path | None:
    """The file a material's texture path names: the relative path under ``folder`` (any case), else the
    bare file name in ``folder``; an absolute path is looked up by its file name only. Nothing outside
    ``folder`` is returned (``..`` or a symbolic link leading out is not followed): a model file must
    not be able to pull arbitrary files of the user into a .blend."""
    for candidate in texture_candidates(stored):
        found = _case_insensitive_file(folder, candidate)
        if found is not None:
            return found
    return None


def _case_insensitive_file(folder: Path, parts: list[str]) -> Path | None:
    current = folder
    for i, part in enumerate(parts):
        if part == "..":
            current = current.parent
            continue
        try:
            names = os.listdir(current)
        except OSError:
            return None
        keys = name_keys(part)
        match = part if part in names else next((n for n in sorted(names) if disk_key(n) in keys), None)
        if match is None:
            return None
        current = current / match
    if not current.is_file():
        return None
    try:
        current.resolve().relative_to(folder.resolve())
    except ValueError:
        return None
    return current


PLAYER_MODEL = "tris"


@dataclass
class OwnSkins:
    """Images in a model's folder that belong to it, found without a stored name (docs/dev/format-facts.md
    "MD2"; the rules in docs/skins.md): ``paths`` in material order, ``reason`` says which rule found them."""
    paths: list[Path]
    reason: str


def find_own_skins(model_path: Path, extensions: tuple[str, ...] = DEFAULT_EXTENSIONS) -> OwnSkins | None:
    """The model's own images beside it, by the first rule that finds any:

    1. the model's own name, any image extension (``gun.jpg``, ``tris.pcx``);
    2. ``skin.*`` (Cube/Sauerbraten and id's ``models/<thing>/``);
    3. Quake II player skins: every ``<name>.pcx`` whose icon ``<name>_i.pcx`` is there too;
    4. an image whose name starts with the model's name (``faerie2.bmp``, ``wolf_texture.png``).

    Rules 2 and 3 apply only to ``tris.md2`` or a model alone in its folder, and rule 4 never
    takes an image whose name starts with another model's longer name: another model's image
    (``dolphin_f.bmp`` beside ``flag.md2``) is never borrowed. Names match case-insensitively;
    files whose real path leaves the folder (symlinks) are skipped."""
    folder = Path(os.path.abspath(model_path)).parent
    root = _resolve_root(folder)
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries
                     if os.path.splitext(entry.name)[1].lower() in model_extensions()
                     or (entry.is_file() and _inside_any(folder / entry.name, [root]))]
    except OSError:
        return None
    own = own_skins_among(Path(model_path).name, names, extensions)
    return None if own is None else OwnSkins([folder / name for name in own[0]], own[1])


def own_skins_among(model_name: str, names: list[str],
                    extensions: tuple[str, ...] = DEFAULT_EXTENSIONS) -> tuple[list[str], str] | None:
    """:func:`find_own_skins`'s rules over the names of the files in a model's folder (a folder on
    disk, or a folder of an archive): the chosen image names in material order and the reason."""
    rank = {ext.lower(): i for i, ext in enumerate(extensions)}
    images: dict[str, list[tuple[int, str]]] = {}
    models: set[str] = set()
    for name in sorted(names):
        stem, ext = os.path.splitext(name)
        if ext.lower() in model_extensions():
            models.add(stem.lower())
        elif ext.lower() in rank:
            images.setdefault(stem.lower(), []).append((rank[ext.lower()], name))
    own = Path(model_name).stem.lower()
    models.add(own)

    def named(stem: str) -> str | None:
        return min(images[stem])[1] if stem in images else None

    shared_names = own == PLAYER_MODEL or models == {own}
    found = named(own)
    if found:
        return [found], f"{found} beside the model (the model's own name)"
    found = named("skin") if shared_names else None
    if found:
        return [found], f"{found} beside the model"
    if shared_names:
        players = sorted((name for stem, choices in images.items() for r, name in choices
                          if name.lower().endswith(".pcx") and not stem.endswith("_i")
                          and any(n.lower() == f"{stem}_i.pcx" for _, n in images.get(f"{stem}_i", []))),
                         key=str.lower)
        if players:
            return players, (f"{', '.join(players)} beside the model (Quake II player skin"
                             f"{'s' if len(players) > 1 else ''} with {'their' if len(players) > 1 else 'its'} icon)")
    prefixed = [(len(stem), r, name) for stem, choices in images.items() for r, name in choices
                if stem.startswith(own) and stem != own
                and max((m for m in models if stem.startswith(m)), key=len) == own]
    if prefixed:
        found = min(prefixed)[2]
        return [found], f"{found} beside the model (named after the model)"
    return None


def find_sized_skin(model_path: Path, width: int, height: int,
                    extensions: tuple[str, ...] = DEFAULT_EXTENSIONS) -> OwnSkins | None:
    """After :func:`find_own_skins` finds nothing: an image beside the model by the looser names of
    :func:`sized_skin_among`, taken only when its header says it is ``width`` x ``height``. Files whose
    real path leaves the folder (symlinks) are skipped."""
    if width <= 0 or height <= 0:
        return None
    folder = Path(os.path.abspath(model_path)).parent
    root = _resolve_root(folder)
    try:
        with os.scandir(folder) as entries:
            names = [e.name for e in entries if e.is_file() and _inside_any(folder / e.name, [root])]
    except OSError:
        return None
    found = sized_skin_among(Path(model_path).name, folder.name, names, lambda n: image_size(folder / n),
                             width, height, extensions)
    return None if found is None else OwnSkins([folder / found[0]], found[1])


def sized_skin_among(model_name: str, folder_name: str, names: list[str],
                     size_of: Callable[[str], tuple[int, int] | None], width: int, height: int,
                     extensions: tuple[str, ...] = DEFAULT_EXTENSIONS) -> tuple[str, str] | None:
    """Among the file ``names`` of a model's folder (on disk or in an archive), the image name and the
    reason of the first rule that finds one whose size (``size_of(name)``, from its header) is the model
    header's skin size ``width`` x ``height``, so a logo, a sheet or another model's skin of another
    size is never borrowed:

    1. named after the model's folder (``jorg/tris.md2`` beside ``jorg.pcx``: Quake II models are all
       ``tris.md2``, the folder is the name);
    2. a name that starts the model's name (``Storm.bmp`` beside ``stormtrooper.md2``), the longest;
    3. the folder's only image (``abarlith.jpg`` beside a ``tris.md2`` that names no skin).

    Images named after another model in the folder are left to it. Names match case-insensitively."""
    if width <= 0 or height <= 0:
        return None
    wanted = {ext.lower() for ext in extensions}
    images: list[tuple[str, str]] = []             # (stem lower-cased, file name)
    models: set[str] = set()
    for name in sorted(names):
        stem, ext = os.path.splitext(name)
        if ext.lower() in model_extensions():
            models.add(stem.lower())
        elif ext.lower() in wanted:
            images.append((stem.lower(), name))
    own = Path(model_name).stem.lower()
    others = models - {own}
    size = f"{width}x{height}, the header's skin size"

    def fits(name: str) -> bool:
        return size_of(name) == (width, height)

    candidates = [(stem, name) for stem, name in images if stem not in others]
    by_folder = [name for stem, name in candidates if stem == folder_name.lower() and fits(name)]
    if by_folder:
        return by_folder[0], f"{by_folder[0]} beside the model (named after its folder, {size})"
    starts = sorted((-len(stem), name) for stem, name in candidates
                    if stem and own.startswith(stem) and stem != own and fits(name))
    if starts:
        return starts[0][1], f"{starts[0][1]} beside the model (its name starts the model's name, {size})"
    if len(images) == 1 and candidates and fits(images[0][1]):
        return images[0][1], f"{images[0][1]} beside the model (the folder's only image, {size})"
    return None
