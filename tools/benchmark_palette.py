"""CPU seconds to convert 512x512 skins to Quake's palette (exact CIEDE2000, formats/images/palette.py).

    python tools/benchmark_palette.py [CORPUS_DIR] [--json PATH]   (any Python with numpy; no Blender needed)

``--json PATH`` also writes the table as a record for ``tools/figures.py``.

Cases: a painted-looking skin (LibreQuake's player.mdl skin scaled up to 512x512 with bilinear
filtering, so it holds many in-between colours), the same skin after a 128x128 region of it is
repainted with a gradient (its other pixels keep their indices), a 512x512 two-colour gradient
(65536 distinct colours), random noise (every pixel a new colour: the worst case) and the
painted-looking skin dithered. CPU time (time.process_time), best of 2, so a busy machine does not
inflate it."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(CHECKOUT))
from formats.images.palette import PLAYER_RANGES, indices_to_rgba, quake_palette, rgba_to_indices  # noqa: E402
from formats.mdl.codec import parse_mdl  # noqa: E402


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


def _cpu(call) -> float:
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        call()
        best = min(best, time.process_time() - start)
    return best


def main(argv: list[str] | None = None) -> None:
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=CHECKOUT.parent / "shared" / "corpus")
    parser.add_argument("--json", type=Path, help="also write the table as a record for tools/figures.py")
    args = parser.parse_args(argv)
    corpus, rows = args.corpus, []
    palette = quake_palette()
    size = 512
    x = np.linspace(0, 255, size)
    gradient = np.stack([np.broadcast_to(x, (size, size)), np.broadcast_to(x[:, None], (size, size)),
                         np.full((size, size), 60.0)], -1).round().astype(np.uint8)
    cases = {"gradient (65536 colours)": (gradient, None),
             "random noise (262144 colours)": (np.random.default_rng(0).integers(0, 256, (size, size, 3),
                                                                               dtype=np.uint8), None)}
    player = corpus / "mdl" / "librequake" / "player.mdl"
    if player.is_file():
        skin = parse_mdl(player.read_bytes()).skins[0].images[0]
        painted = _bilinear(indices_to_rgba(skin, palette)[..., :3], size)
        keep = rgba_to_indices(painted, palette, avoid=PLAYER_RANGES)
        edited = indices_to_rgba(keep, palette)[..., :3].copy()
        edited[100:228, 100:228] = gradient[::4, ::4][:128, :128]
        colours = len(np.unique(painted.reshape(-1, 3), axis=0))
        cases = {f"painted-looking skin ({colours} colours)": (painted, None),
                 "that skin, 128x128 region repainted": (edited, keep), **cases}
    for name, (image, keep) in cases.items():
        seconds = _cpu(lambda: rgba_to_indices(image, palette, avoid=PLAYER_RANGES, keep=keep))  # noqa: B023  (_cpu calls it at once)
        rows.append([name, f"{seconds:.2f}"])
    if player.is_file():
        image = next(iter(cases.values()))[0]
        seconds = _cpu(lambda: rgba_to_indices(image, palette, dither=True, avoid=PLAYER_RANGES))
        rows.append(["painted-looking skin, dithered", f"{seconds:.2f}"])
    for name, seconds in rows:
        print(f"| {name} | {seconds} |")
    if args.json:
        from tools.figures import write_record
        write_record(args.json, script="tools/benchmark_palette.py", command="python tools/benchmark_palette.py",
                     environment="CPU seconds, 512×512, best of 2", headers=["image", "CPU s"], rows=rows)


if __name__ == "__main__":
    main()
