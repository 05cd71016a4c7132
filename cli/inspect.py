"""``info`` and ``check``: what a model file holds and what is wrong with it, without Blender.

Everything here reads the files with the bpy-free codecs (``formats``) and the skin lookup the
importers use (``formats.archives.skin_lookup``), so it runs in any Python with numpy. A file gives one
:class:`ModelInfo`; its ``problems`` are what ``check`` reports:

- errors: what the importer refuses (the codec's :class:`FormatError`, with field and byte offset);
- warnings: what the importer warns about (degenerate triangles it drops, skins it cannot find or
  decode, the codec's own warnings) and what the original engine would refuse although the file
  imports (``limits_exceeded``).

What a format reads and says is its own, in ``cli/<fmt>/``, reached through its row of the table of
formats (``formats/table.py``): ``info`` (the reader filling a :class:`ModelInfo`), ``describe`` (its
lines of ``info``) and ``check`` (its lines of ``check``). This module only holds what every format
shares: the records, the helpers the readers call, and the text around their lines.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..common.disk_names import readable_text
from ..formats import table
from ..formats.animations import Animation
from ..formats.errors import FormatError
from ..formats.frame_scripts import ScriptAnimation
from ..formats.magics import known_format
from ..formats.message_text import quoted

SHOWN_INSTEAD = "the import shows"  # note of a missing skin whose model's own image the import shows


@dataclass
class Problem:
    """One finding: ``field`` and ``offset`` (bytes from the start of the file) when known."""
    severity: str                  # "error" or "warning"
    message: str
    field: str | None = None
    offset: int | None = None


@dataclass
class SkinInfo:
    """A skin (MD2), texture (MS3D) or embedded skin slot (MDL) and whether its image is there."""
    name: str
    found: bool
    path: str | None = None
    note: str | None = None


@dataclass
class ModelInfo:
    file: str
    format: str | None
    size: int | None = None
    version: int | None = None
    counts: dict[str, int] = field(default_factory=dict)
    details: dict[str, object] = field(default_factory=dict)
    skins: list[SkinInfo] = field(default_factory=list)
    animations: list[Animation] = field(default_factory=list)
    frame_table: list[ScriptAnimation] = field(default_factory=list)   # MD2/MDL: frames by animation
    joints: list[dict[str, object]] = field(default_factory=list)
    limits_exceeded: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def readable(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)

    def to_json(self, frames: bool = False) -> dict[str, object]:
        """``frames``: keep the frame table (every frame's name, by animation)."""
        out = asdict(self)
        if not frames:
            del out["frame_table"]
        for anim, item in zip(self.animations, out["animations"]):
            item["frames"] = anim.frames
        out["readable"] = self.readable
        return out


def model_format(path: Path | str) -> str | None:
    """The table's key (``md2``) of a file or archive member name, by its extension."""
    row = table.row_for_name(str(path))
    return row.key if row is not None else None


def model_suffixes() -> str:
    """``.md2, .mdl, .ms3d``: the extensions of the table's formats, for messages."""
    return ", ".join(table.model_extensions())


def inspect_file(path: Path, load_skins: bool = True, name_encoding: str = "AUTO") -> ModelInfo:
    """Read ``path`` and describe it; never raises for a bad file (the error becomes a problem).
    ``name_encoding`` (a key of ``NAME_ENCODINGS``): the code page of MS3D names."""
    info = ModelInfo(file=str(path), format=model_format(path))
    if info.format is None:
        try:
            with open(path, "rb") as stream:
                what = known_format(stream.read(16))
        except OSError:
            what = None
        info.problems.append(Problem("error", f"unknown extension {quoted(path.suffix)}; expected "
                                              + model_suffixes() + (f" (this is {what})" if what else "")))
        return info
    try:
        data = path.read_bytes()
    except OSError as exc:
        info.problems.append(Problem("error", f"cannot read: {exc.strerror or exc}"))
        return info
    info.size = len(data)
    reader = table.resolve(table.row(info.format).info)
    try:
        reader(info, path, data, load_skins, name_encoding)
    except FormatError as exc:
        info.problems.append(Problem("error", exc.message, exc.field, exc.offset))
    except MemoryError:
        info.problems.append(Problem("error", "not enough memory to read the file"))
    return info


def degenerate_triangles(triangles: np.ndarray) -> np.ndarray:
    """Indices of triangles that use a vertex twice (the importers drop them)."""
    t = np.asarray(triangles)
    if not len(t):
        return np.zeros(0, np.int64)
    return np.flatnonzero((t[:, 0] == t[:, 1]) | (t[:, 1] == t[:, 2]) | (t[:, 0] == t[:, 2]))


def note_warning(info: ModelInfo, message: str, field: str | None = None, offset: int | None = None) -> None:
    info.problems.append(Problem("warning", message, field, offset))


def note_drawable(info: ModelInfo, drawable: int, why: str, field: str, offset: int) -> None:
    """Record how many triangles the import draws; none is a warning (the model converts to nothing)."""
    info.details["drawable_triangles"] = drawable
    if drawable == 0:
        note_warning(info, f"no drawable triangles: {why}", field, offset)


def note_limit(info: ModelInfo, message: str, field: str | None = None, offset: int | None = None) -> None:
    info.limits_exceeded.append(message)
    note_warning(info, message, field, offset)


def why_none(total: int) -> str:
    return f"all {total} triangle(s) use a vertex twice" if total else "the model has no triangles"


def describe(info: ModelInfo, verbose: bool = False) -> str:
    """The human-readable ``info`` block for one file."""
    if info.format is None or info.size is None or not info.readable:
        lines = [f"{info.file}: cannot be read"]
        lines += [f"  {format_problem(p)}" for p in info.problems if p.severity == "error"]
        return "\n".join(lines)
    lines = [f"{info.file}: {table.row(info.format).title} version {info.version}, {info.size} bytes"]
    lines.append("  " + ", ".join(f"{name.replace('_', ' ')} {count}" for name, count in info.counts.items()))
    details = info.details
    if "skin_width" in details:
        lines.append(f"  skin size {details['skin_width']}x{details['skin_height']}")
    described = table.row(info.format).describe
    lines += table.resolve(described)(info) if described else skin_section(info)
    if info.animations:
        lines.append(f"  animations ({len(info.animations)}):")
        width = max(len(a.name) for a in info.animations)
        for anim in info.animations:
            lines.append(f"    {anim.name:<{width}}  frames {anim.first}-{anim.last} ({anim.frames})")
    if info.joints:
        names = [str(j["name"]) for j in info.joints]
        shown = names if verbose or len(names) <= 12 else names[:12] + [f"... {len(names) - 12} more (-v)"]
        lines.append(f"  joints ({len(names)}): " + ", ".join(shown))
    engine = details.get("engine")
    if engine:
        if info.limits_exceeded:
            lines.append(f"  exceeds {engine}'s limits:")
            lines += [f"    {text}" for text in info.limits_exceeded]
        else:
            lines.append(f"  within {engine}'s limits")
    others = [p for p in info.problems if p.message not in info.limits_exceeded]
    if others:
        lines.append("  warnings:")
        lines += [f"    {format_problem(p, severity=False)}" for p in others]
    return readable_text("\n".join(lines))


def skin_section(info: ModelInfo, heading: str = "skins", missing_notes: bool = False) -> list[str]:
    """``info``'s lines for the skins (``heading``: what the format calls them) and where each is;
    ``missing_notes``: a missing one says its note (where it was looked for) instead of the warnings."""
    if not info.skins:
        return []
    lines = [f"  {heading}:"]
    for skin in info.skins:
        if skin.found and skin.path:
            state = f"found {skin.path}" + (f" ({skin.note})" if skin.note else "")
        elif skin.found:
            state = skin.note or "present"
        else:
            state = ("not looked up" if skin.note == "not looked up" else
                     f"MISSING: {skin.note}" if missing_notes and skin.note
                     else f"MISSING ({skin.note})" if (skin.note or "").startswith(SHOWN_INSTEAD)
                     else "MISSING (see warnings)")
        lines.append(f"    {skin.name}: {state}")
    return lines


def check_lines(info: ModelInfo) -> list[str]:
    """The lines ``check`` prints for ``info`` after its problems: its format's own (``check`` in its row)."""
    check = table.row(info.format).check if info.format else ""
    return table.resolve(check)(info) if check else []


def format_problem(problem: Problem, severity: bool = True) -> str:
    """``severity: field @ offset N: message`` (the parts that are known)."""
    where = problem.field or ""
    if problem.offset is not None:
        where = f"{where} @ offset {problem.offset}" if where else f"offset {problem.offset}"
    text = f"{where}: {problem.message}" if where else problem.message
    return f"{problem.severity}: {text}" if severity else text
