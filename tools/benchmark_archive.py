"""Archive speed: listing a big archive and reading one model from it, against the same model loose.

    python tools/benchmark_archive.py [--size-mb 200] [--members 2000] [--repeat 7] [--dir /tmp]

Writes a synthetic PACK and PK3 of ``--size-mb`` MB in ``--members`` members (random filler, and
one real Quake MDL in the middle: the corpus ``pak/quess/pak0.pak``'s ``progs/ogre.mdl``, else a
generated one) into a temporary folder under ``--dir`` (never the repository), plus that model
as a loose file, then times (best of ``--repeat``, the file cache warm):

- open + list: :func:`formats.archives.archive.open_archive` and ``members()``;
- read one member: ``find`` + ``read`` of the model on an open archive;
- import one member (bpy-free): open, read the member and decode it with ``parse_mdl``;
- the same model loose: ``read_bytes`` + ``parse_mdl``;
- in Blender (when the ``bpy`` wheel is there): the *Game Archive* import of that one member
  (``import_scene.game_archive``, which opens the archive and its game folder, reads the member and
  builds the object with its skins) against the *Quake Model* import of the loose file, each into an empty
  scene.

The PK3 filler is stored (random bytes do not deflate); the model member is deflated.
Prints a Markdown table; the folder is removed afterwards unless ``--keep``.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from formats.archives.archive import PACK_ENTRY, PACK_HEADER, PACK_MAGIC, open_archive  # noqa: E402
from formats.mdl.codec import parse_mdl  # noqa: E402

MODEL_NAME = "progs/ogre.mdl"
CORPUS_PAK = CHECKOUT.parent / "shared" / "corpus" / "pak" / "quess" / "pak0.pak"


def model_bytes() -> bytes:
    if CORPUS_PAK.is_file():
        with open_archive(CORPUS_PAK) as archive:
            return archive.read(MODEL_NAME)
    from tests.support import fuzzing
    return fuzzing.small_valid_files("mdl", 1, 5)[0]


def names_and_sizes(total: int, count: int, model: bytes) -> list[tuple[str, int]]:
    filler = (total - len(model)) // (count - 1)
    items = [(f"sound/filler/f{i:05d}.wav", filler) for i in range(count - 1)]
    items.insert(count // 2, (MODEL_NAME, len(model)))
    return items


def write_pak(path: Path, items: list[tuple[str, int]], model: bytes) -> None:
    """Streams the members to disk (never the whole archive in memory)."""
    import numpy as np
    table = np.zeros(len(items), PACK_ENTRY)
    rng = np.random.default_rng(0)
    with open(path, "wb") as out:
        out.write(bytes(PACK_HEADER.size))
        for i, (name, size) in enumerate(items):
            data = model if name == MODEL_NAME else rng.integers(0, 256, size, np.uint8).tobytes()
            table[i] = (name.encode(), out.tell(), len(data))
            out.write(data)
        dirofs = out.tell()
        out.write(table.tobytes())
        out.seek(0)
        out.write(PACK_HEADER.pack(PACK_MAGIC, dirofs, table.nbytes))


def write_pk3(path: Path, items: list[tuple[str, int]], model: bytes) -> None:
    import numpy as np
    rng = np.random.default_rng(0)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, size in items:
            if name == MODEL_NAME:
                archive.writestr(name, model, compress_type=zipfile.ZIP_DEFLATED)
            else:
                archive.writestr(name, rng.integers(0, 256, size, np.uint8).tobytes())


def best(repeat: int, work) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def measure(path: Path, repeat: int) -> dict[str, float]:
    def listing():
        with open_archive(path) as archive:
            assert len(archive.members()) > 0

    def import_member():
        with open_archive(path) as archive:
            parse_mdl(archive.read(MODEL_NAME))

    with open_archive(path) as archive:
        read_one = best(repeat, lambda: archive.read(archive.find(MODEL_NAME).name))
    return {"list": best(repeat, listing), "read": read_one, "import": best(repeat, import_member)}


def blender_imports(paths: dict[str, Path], loose: Path, repeat: int) -> dict[str, float] | None:
    """Best seconds of importing the model through the operators, by archive kind and ``loose``;
    None without bpy."""
    try:
        from tools.load_extension import enable_extension
        enable_extension()
        import bpy
    except ImportError:
        return None
    member = {"name": MODEL_NAME, "format": "", "size": 0, "problem": "", "ticked": True}

    def timed(run) -> float:
        bpy.ops.wm.read_homefile(use_empty=True)
        started = time.perf_counter()
        assert run() == {"FINISHED"}
        return time.perf_counter() - started
    out = {kind: min(timed(lambda: bpy.ops.import_scene.game_archive(filepath=str(path), models=[member]))  # noqa: B023  (timed calls it at once)
                     for _ in range(repeat)) for kind, path in paths.items()}
    out["loose"] = min(timed(lambda: bpy.ops.import_scene.mdl(filepath=str(loose))) for _ in range(repeat))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--members", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--keep", action="store_true", help="leave the archives in place")
    parser.add_argument("--json", type=Path, help="also write the table as a record for tools/figures.py")
    args = parser.parse_args(argv)
    if CHECKOUT in args.dir.resolve().parents or args.dir.resolve() == CHECKOUT:
        parser.error("--dir must lie outside the repository")
    work = Path(tempfile.mkdtemp(prefix="benchmark_archive_", dir=args.dir))
    try:
        model = model_bytes()
        items = names_and_sizes(args.size_mb << 20, args.members, model)
        loose = work / "loose" / MODEL_NAME
        loose.parent.mkdir(parents=True)
        loose.write_bytes(model)
        rows = []
        for kind, writer in (("pak", write_pak), ("pk3", write_pk3)):
            path = work / f"big.{kind}"
            started = time.perf_counter()
            writer(path, items, model)
            wrote = time.perf_counter() - started
            figures = measure(path, args.repeat)
            rows.append((kind, path.stat().st_size, wrote, figures))
        blender = blender_imports({kind: work / f"big.{kind}" for kind, *_ in rows}, loose, args.repeat)
        loose_read = best(args.repeat, loose.read_bytes)
        loose_import = best(args.repeat, lambda: parse_mdl(loose.read_bytes()))
        print(f"{args.members} members, {len(model)}-byte model {MODEL_NAME} among them; best of {args.repeat}\n")
        in_blender = (lambda key: [f"{blender[key] * 1e3:.1f} ms"]) if blender else (lambda key: [])
        headers = ["archive", "size", "open + list", "read the model", "open + read + decode the model",
                   *(["import in Blender"] if blender else [])]
        table = [[kind, f"{size / 2**20:.0f} MB", f"{f['list'] * 1e3:.2f} ms", f"{f['read'] * 1e3:.3f} ms",
                  f"{f['import'] * 1e3:.2f} ms", *in_blender(kind)] for kind, size, wrote, f in rows]
        table.append(["loose file", f"{len(model) / 1024:.0f} KB", "-", f"{loose_read * 1e3:.3f} ms",
                      f"{loose_import * 1e3:.2f} ms", *in_blender("loose")])
        from tools.figures import table as markdown_table
        from tools.figures import write_record
        print(markdown_table(headers, table))
        if args.json:
            write_record(args.json, script="tools/benchmark_archive.py", command="python tools/benchmark_archive.py",
                         environment=f"Python {sys.version.split()[0]}, {args.members:,} members, best of {args.repeat}",
                         headers=headers, rows=table)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
