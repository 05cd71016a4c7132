"""CPU seconds to convert 512x512 skins to Quake's and Quake II's palettes (CIEDE2000,
formats/images/palette.py), optionally side by side with an older checkout.

    python tools/benchmark_palette.py [CORPUS_DIR] [--base CHECKOUT] [--size N] [--json PATH]
                                      (any Python with numpy; no Blender needed)

``--base CHECKOUT``: another checkout of the project (``git worktree add --detach /tmp/palette-base main``);
its ``formats/images/palette.py`` is imported by path and every case runs on both in the same process,
the two interleaved, so the columns "before", "after", their ratio and the pixels whose index differs
come from one run on the same machine.  For the dithered cases two more columns: the pixels whose index
is not the CIEDE2000-nearest of their value (the dithering decides on the value rounded to whole numbers,
formats/images/dither.py; the values replayed from the indices by a plain scan), and the largest amount by
which such an index is further from the value than the nearest is.  ``--size N``: N x N skins instead of 512 x 512 (a quick smoke
run).  ``--json PATH`` also writes the table as a record for
``tools/figures.py``.

Cases: a painted-looking skin (LibreQuake's player.mdl skin scaled up to 512x512 with bilinear
filtering, so it holds many in-between colours), the same skin after a 128x128 region of it is
repainted with a gradient (its other pixels keep their indices), a 512x512 two-colour gradient
(65536 distinct colours), random noise (every pixel a new colour: the worst case), the painted-looking
skin dithered, and random noise dithered and on Quake II's palette (the slowest skins there are).
CPU time (time.process_time), best of 2, so a busy machine does not inflate it."""
from __future__ import annotations

import importlib
import sys
import time
import types
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(CHECKOUT))
from formats.images import palette as current  # noqa: E402
from formats.mdl.codec import parse_mdl  # noqa: E402

PLAYER_RANGES, TRANSPARENT = current.PLAYER_RANGES, current.TRANSPARENT_INDEX


def load_checkout_palette(checkout: Path):
    """``formats.images.palette`` of another checkout, imported by path as the package ``palette_base``
    (its root ``__init__`` is not run, so no Blender is needed)."""
    package = types.ModuleType("palette_base")
    package.__path__ = [str(Path(checkout).resolve())]
    sys.modules["palette_base"] = package
    return importlib.import_module("palette_base.formats.images.palette")


def _commit(checkout: Path) -> str:
    import subprocess
    found = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return found.stdout.strip() or "unknown"


def _bilinear(image: np.ndarray, size: int) -> np.ndarray:
    h, w = image.shape[:2]
    y, x = np.linspace(0, h - 1, size), np.linspace(0, w - 1, size)
    y0, x0 = np.floor(y).astype(int), np.floor(x).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    fy, fx = (y - y0)[:, None, None], (x - x0)[None, :, None]
    img = image.astype(np.float64)
    top = img[y0][:, x0] * (1 - fx) + img[y0][:, x1] * fx
    bottom = img[y1][:, x0] * (1 - fx) + img[y1][:, x1] * fx
    return np.rint(top * (1 - fy) + bottom * fy).astype(np.uint8)


def _cpu(modules, call) -> tuple[list[float], list[np.ndarray]]:
    """Best of 2 CPU seconds of ``call(module)`` for each module (interleaved), and each one's result."""
    best, results = [float("inf")] * len(modules), [None] * len(modules)
    for _ in range(2):
        for i, module in enumerate(modules):
            start = time.process_time()
            results[i] = call(module)
            best[i] = min(best[i], time.process_time() - start)
    return best, results


def _colours(image: np.ndarray) -> int:
    return len(np.unique(image.reshape(-1, 3), axis=0))


def cases(corpus: Path, size: int = 512) -> list[tuple[str, dict]]:
    """(name, rgba_to_indices keywords but the palette's name) for each benchmark case."""
    palette = current.quake_palette()
    x = np.linspace(0, 255, size)
    gradient = np.stack([np.broadcast_to(x, (size, size)), np.broadcast_to(x[:, None], (size, size)),
                         np.full((size, size), 60.0)], -1).round().astype(np.uint8)
    noise = np.random.default_rng(0).integers(0, 256, (size, size, 3), dtype=np.uint8)
    quake = {"palette": "QUAKE", "avoid": PLAYER_RANGES}
    found = []
    player = corpus / "mdl" / "librequake" / "player.mdl"
    if player.is_file():
        skin = parse_mdl(player.read_bytes()).skins[0].images[0]
        painted = _bilinear(current.indices_to_rgba(skin, palette)[..., :3], size)
        keep = current.rgba_to_indices(painted, palette, avoid=PLAYER_RANGES)
        edited = current.indices_to_rgba(keep, palette)[..., :3].copy()
        corner, side = size * 100 // 512, size // 4
        edited[corner:corner + side, corner:corner + side] = gradient[::4, ::4][:side, :side]
        found += [(f"painted-looking skin ({_colours(painted)} colours)", {"rgba": painted, **quake}),
                  (f"that skin, {size // 4}x{size // 4} region repainted", {"rgba": edited, "keep": keep, **quake})]
    found += [(f"gradient ({_colours(gradient)} colours)", {"rgba": gradient, **quake}),
              (f"random noise ({_colours(noise)} colours)", {"rgba": noise, **quake})]
    if player.is_file():
        found.append(("painted-looking skin, dithered", {"rgba": painted, "dither": True, **quake}))
    found += [("random noise, dithered", {"rgba": noise, "dither": True, **quake}),
              ("random noise, Quake II palette", {"rgba": noise, "palette": "QUAKE2", "ordinary": (0, TRANSPARENT)}),
              ("random noise, Quake II palette, dithered",
               {"rgba": noise, "palette": "QUAKE2", "ordinary": (0, TRANSPARENT), "dither": True})]
    return found


def carried_values(rgb: np.ndarray, indices: np.ndarray, palette: np.ndarray) -> np.ndarray:
    """(h, w, 3) each pixel's value when the dithering decided it: its colour plus the error its neighbours
    passed on, replayed scan by scan from the indices the dithering wrote (no pixel kept or skipped)."""
    work = rgb.astype(np.float64)
    height, width = indices.shape
    value = np.empty_like(work)
    colour = palette.astype(np.float64)
    for y in range(height):
        for x in range(width):          # a row's values depend on the one before: one pixel at a time
            value[y, x] = np.clip(work[y, x], 0, 255)
            error = value[y, x] - colour[indices[y, x]]
            if x + 1 < width:
                work[y, x + 1] += error * (7 / 16)
            if y + 1 < height:
                if x > 0:
                    work[y + 1, x - 1] += error * (3 / 16)
                work[y + 1, x] += error * (5 / 16)
                if x + 1 < width:
                    work[y + 1, x + 1] += error * (1 / 16)
    return value


def excess(keywords: dict, indices: np.ndarray) -> tuple[int, float]:
    """For a dithered case: the pixels whose index is not the CIEDE2000-nearest of their value (the value
    rounded decided it, formats/images/dither.py), and the largest amount by which it is further than that
    nearest (the full search of the value, formats/images/palette_search.py with its tables off)."""
    from formats.images.cielab import ciede2000, srgb_to_lab
    from formats.images.palette_search import _Matcher
    palette = current.game_palette(keywords["palette"])
    allowed = np.arange(*keywords.get("ordinary", (0, current.FULLBRIGHT_START)))
    for lo, hi in keywords.get("avoid", ()):
        allowed = allowed[(allowed < lo) | (allowed >= hi)]
    values = carried_values(keywords["rgba"][..., :3], indices, palette).reshape(-1, 3)
    nearest = _Matcher(palette, (allowed,), use_lut=False).nearest(values, np.zeros(len(values), dtype=bool))
    lab = srgb_to_lab(values)
    over = ciede2000(lab, srgb_to_lab(palette[indices.ravel()])) - ciede2000(lab, srgb_to_lab(palette[nearest]))
    return int(np.count_nonzero(over > 0)), float(over.max())


def convert(module, keywords: dict) -> np.ndarray:
    keywords = dict(keywords)
    palette = module.game_palette(keywords.pop("palette"))
    return module.rgba_to_indices(keywords.pop("rgba"), palette, **keywords)


def main(argv: list[str] | None = None) -> None:
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=CHECKOUT.parent / "shared" / "corpus")
    parser.add_argument("--base", type=Path, help="an older checkout to run side by side (before)")
    parser.add_argument("--size", type=int, default=512, help="N x N skins (default 512)")
    parser.add_argument("--json", type=Path, help="also write the table as a record for tools/figures.py")
    args = parser.parse_args(argv)
    modules = [current] if args.base is None else [load_checkout_palette(args.base), current]
    rows = []
    for name, keywords in cases(args.corpus, args.size):
        seconds, results = _cpu(modules, lambda module: convert(module, keywords))  # noqa: B023  (called at once)
        if keywords.get("dither"):
            count, largest = excess(keywords, results[-1])
            rounded = [str(count), f"{largest:.3f}"]
        else:
            rounded = ["-", "-"]
        if args.base is None:
            rows.append([name, f"{seconds[0]:.2f}", *rounded])
        else:
            rows.append([name, f"{seconds[0]:.2f}", f"{seconds[1]:.2f}", f"{seconds[0] / seconds[1]:.2f}x" if seconds[1] else "-",
                         str(int(np.count_nonzero(results[0] != results[1]))), *rounded])
        print("| " + " | ".join(rows[-1]) + " |", flush=True)
    rounded = ["pixels not their value's nearest", "largest excess (CIEDE2000)"]
    headers = ["image", "CPU s", *rounded] if args.base is None else \
        ["image", "before CPU s", "after CPU s", "before / after", "pixels with another index", *rounded]
    if args.json:
        from tools.figures import write_record
        command = "python tools/benchmark_palette.py" + (" --base CHECKOUT" if args.base else "")
        environment = f"CPU seconds, {args.size}×{args.size}, best of 2"
        if args.base:
            environment += f"; before: commit {_commit(args.base)}, after: commit {_commit(CHECKOUT)}"
        write_record(args.json, script="tools/benchmark_palette.py", command=command,
                     environment=environment, headers=headers, rows=rows)


if __name__ == "__main__":
    main()
