"""Screen helpers for the GUI session: screenshots, X input, where Blender's regions are on screen, and
how many lines of text a part of a screenshot holds (the measure of a drawn option column)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import bpy
import numpy as np


def text_bands(gray: np.ndarray, bright: int = 150, min_pixels: int = 2, min_height: int = 4) -> list[tuple[int, int]]:
    """Rows of text in a grey image (Blender's dark theme: light text on dark widgets): runs of pixel rows
    holding at least ``min_pixels`` pixels brighter than ``bright``, at least ``min_height`` rows tall."""
    lit = (gray > bright).sum(axis=1) >= min_pixels
    bands, start = [], None
    for y, on in enumerate(lit.tolist() + [False]):
        if on and start is None:
            start = y
        elif not on and start is not None:
            if y - start >= min_height:
                bands.append((start, y))
            start = None
    return bands


SIZE = (1600, 1000)      # the Xvfb screen (session.sh)


class Screen:
    """The Xvfb screen Blender draws on (1600x1000, main window at 0,0)."""

    def __init__(self, out: Path):
        self.out = out
        self.shots: list[str] = []

    # ---- X side
    def grab(self) -> np.ndarray:
        """The screen now, as an 8-bit grey array (rows from the top)."""
        raw = subprocess.run(["import", "-window", "root", "-colorspace", "gray", "-depth", "8", "gray:-"],
                             capture_output=True, check=True, timeout=60).stdout
        return np.frombuffer(raw, dtype=np.uint8).reshape(SIZE[1], SIZE[0])

    def settle(self, name: str | None = None, timeout: float = 30.0, changed_from: np.ndarray | None = None):
        """Wait until Blender has drawn what the last input did (two equal screens in a row: drawing takes
        seconds on a busy machine without a GPU); with ``changed_from``, first until the screen differs from
        it. Returns the grey screen, saved as NAME.png when named."""
        for window in bpy.context.window_manager.windows:      # what Python changed is drawn only when tagged
            for area in window.screen.areas:
                area.tag_redraw()
        waited = 0.0
        while changed_from is not None and waited < timeout:
            if not np.array_equal(self.grab(), changed_from):
                yield 0.6                                   # a submenu opens a moment after its item lights up
                break
            yield 0.3
            waited += 0.3
        previous, current, waited = None, None, 0.0
        while waited < timeout:
            current = self.grab()
            if previous is not None and np.array_equal(previous, current):
                break
            previous = current
            yield 0.4
            waited += 0.4
        if current is None:
            current = self.grab()
        if name:
            self.shot(name)
        return current

    def shot(self, name: str) -> Path:
        path = self.out / f"{name}.png"
        subprocess.run(["import", "-window", "root", str(path)], check=True, timeout=60)
        self.shots.append(path.name)
        return path

    def xdo(self, *args: str) -> None:
        subprocess.run(["xdotool", *map(str, args)], check=True, timeout=30)

    def click(self, x: int, y: int, button: int = 1, clicks: int = 1):
        """Move there, let Blender see the pointer over the button (its own loop turn), then click."""
        self.xdo("mousemove", x - 4, y)
        yield 0.3
        self.xdo("mousemove", x, y)              # a second move: Blender re-arms buttons after a text edit
        yield 0.4
        self.xdo("click", "--repeat", clicks, "--delay", 80, button)
        yield 0.2

    def key(self, *keys: str) -> None:
        self.xdo("key", "--delay", 60, *keys)

    def type(self, text: str) -> None:
        self.xdo("type", "--delay", 20, text)

    @staticmethod
    def x_windows() -> list[tuple[str, int, int, int, int]]:
        """(name, x, y, width, height) of the top-level X windows (no window manager: absolute positions)."""
        text = subprocess.run(["xwininfo", "-root", "-children"], capture_output=True, text=True, timeout=30).stdout
        found = []
        for line in text.splitlines():
            match = re.search(r'0x[0-9a-f]+ "([^"]*)": \(.*\)\s+(\d+)x(\d+)\+(-?\d+)\+(-?\d+)', line)
            if match:
                name, w, h, x, y = match.groups()
                found.append((name, int(x), int(y), int(w), int(h)))
        return found

    def window_origin(self, window: bpy.types.Window) -> tuple[int, int]:
        """Screen position of a Blender window's top-left corner."""
        if window == bpy.context.window_manager.windows[0]:
            return 0, 0
        for name, x, y, w, h in self.x_windows():
            if w == window.width and h == window.height and name != "" and (x, y) != (0, 0):
                return x, y
        raise RuntimeError(f"no X window of size {window.width}x{window.height}: {self.x_windows()}")

    def region_box(self, window, region) -> tuple[int, int, int, int]:
        """(x, y, width, height) of a region on the screen, y from the top."""
        ox, oy = self.window_origin(window)
        return ox + region.x, oy + window.height - region.y - region.height, region.width, region.height

    # ---- Blender side
    @staticmethod
    def area(kind: str, window=None):
        """(window, area, WINDOW region) of the first area of ``kind``."""
        windows = [window] if window else list(bpy.context.window_manager.windows)
        for win in windows:
            for area in win.screen.areas:
                if area.type == kind:
                    return win, area, next(r for r in area.regions if r.type == "WINDOW")
        return None

    @staticmethod
    def file_browser():
        """(window, area, space) of an open file browser window, or None."""
        for win in bpy.context.window_manager.windows[1:]:
            for area in win.screen.areas:
                if area.type == "FILE_BROWSER":
                    return win, area, area.spaces.active
        return None

    @staticmethod
    def region(area, kind: str):
        return next((r for r in area.regions if r.type == kind), None)

    def close_file_browsers(self):
        for _ in range(5):
            found = self.file_browser()
            if found is None:
                return
            win, area, _space = found
            with bpy.context.temp_override(window=win, area=area, region=self.region(area, "WINDOW")):
                bpy.ops.file.cancel()
            yield 0.5


def wait_for(predicate, timeout: float = 15.0, step: float = 0.25):
    """Yield waits until ``predicate()`` is true (then one more for drawing); False after ``timeout``."""
    waited = 0.0
    while waited < timeout:
        if predicate():
            yield 0.8
            return True
        yield step
        waited += step
    return False


def changed_box(before: np.ndarray, after: np.ndarray, within=None, threshold: int = 12, size: int = 9):
    """(x, y, w, h) bounding the solid blocks of pixels that changed between two screens (inside ``within``),
    or None. Thin changes (an area's outline lighting up) are left out: a pixel counts where at least a
    third of the ``size`` x ``size`` square around it changed."""
    diff = (np.abs(before.astype(np.int16) - after.astype(np.int16)) > threshold).astype(np.int32)
    if within is not None:
        x, y, w, h = within
        mask = np.zeros_like(diff)
        mask[y:y + h, x:x + w] = 1
        diff *= mask
    total = np.pad(diff, ((1, 0), (1, 0))).cumsum(0).cumsum(1)
    r = size // 2
    H, W = diff.shape
    ys, xs = np.arange(H), np.arange(W)
    y0, y1 = np.clip(ys - r, 0, H), np.clip(ys + r + 1, 0, H)
    x0, x1 = np.clip(xs - r, 0, W), np.clip(xs + r + 1, 0, W)
    counts = total[y1][:, x1] - total[y0][:, x1] - total[y1][:, x0] + total[y0][:, x0]
    dense = (counts * 3 >= size * size) & (diff > 0)
    rows, cols = np.nonzero(dense.any(axis=1))[0], np.nonzero(dense.any(axis=0))[0]
    if not len(rows):
        return None
    return int(cols[0]), int(rows[0]), int(cols[-1] - cols[0] + 1), int(rows[-1] - rows[0] + 1)


def crop(image: np.ndarray, box) -> np.ndarray:
    x, y, w, h = box
    return image[y:y + h, x:x + w]
