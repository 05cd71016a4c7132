"""Screen helpers for the GUI session: screenshots, X input, where Blender's regions are on screen, and
how many lines of text a part of a screenshot holds (the measure of a drawn option column).

Waiting: nothing waits a fixed time for Blender. After an input the session waits on what it needs: Blender's
event loop having turned (``turns``: the input read, handled and drawn), the screen unchanged over several
looks (``Screen.settle``), a measured state fully drawn (``Screen.until``) or Blender's data
(``wait_for``), each with a generous overall timeout (TIMEOUT: a loaded 2-core machine without a GPU takes
seconds a frame). A wait that times out is noted (``late``) and reported with the next recorded check.
"""
from __future__ import annotations

import ctypes
import re
import struct
import subprocess
import time
import zlib
from pathlib import Path

import numpy as np

import bpy


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
TIMEOUT = 90.0           # the longest wait for one state, in seconds
GAP = 0.25               # seconds at least between two looks at the screen ...
TURNS = 2                # ... and turns of Blender's event loop at least
STABLE_GRABS = 3         # equal screens in a row: drawing is over
CONFIRMED_GRABS = 2      # ... where what is awaited is confirmed otherwise: a measure (until), the hover (click)
LATE: list[str] = []     # waits that timed out since the last recorded check (gui_session.record reports them)
COST: dict[str, list] = {}   # what the waits and looks cost: name -> [calls, seconds] (results.json's "cost")


def _cost(name: str, started: float) -> None:
    entry = COST.setdefault(name, [0, 0.0])
    entry[0] += 1
    entry[1] = round(entry[1] + time.monotonic() - started, 3)


def late(message: str) -> None:
    """Note a wait that timed out: printed now, reported with the next check recorded."""
    LATE.append(message)
    print(f"[real-blender] LATE {message}", flush=True)


def turns(count: int = TURNS):
    """Yield ``count`` turns of Blender's event loop: a timer step returning 0 runs again at the next turn,
    after Blender has read the pending input, handled it and drawn what it tagged for redraw."""
    for _ in range(count):
        yield 0.0


class _RootPixels:
    """The X screen's pixels as bytes straight from libX11 (XGetImage of the root window, tens of ms), for
    telling whether the screen changed; None where libX11 cannot be loaded (then ImageMagick's grab serves)."""

    class XImage(ctypes.Structure):
        _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("xoffset", ctypes.c_int),
                    ("format", ctypes.c_int), ("data", ctypes.POINTER(ctypes.c_char)), ("byte_order", ctypes.c_int),
                    ("bitmap_unit", ctypes.c_int), ("bitmap_bit_order", ctypes.c_int), ("bitmap_pad", ctypes.c_int),
                    ("depth", ctypes.c_int), ("bytes_per_line", ctypes.c_int), ("bits_per_pixel", ctypes.c_int)]

    def __init__(self):
        self.x = ctypes.cdll.LoadLibrary("libX11.so.6")
        self.x.XOpenDisplay.restype = ctypes.c_void_p
        self.x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self.x.XDefaultRootWindow.restype = ctypes.c_ulong
        self.x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        self.x.XGetImage.restype = ctypes.POINTER(self.XImage)
        self.x.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                                     ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]
        self.x.XDestroyImage.argtypes = [ctypes.POINTER(self.XImage)]
        self.display = self.x.XOpenDisplay(None)
        if not self.display:
            raise OSError("XOpenDisplay failed")
        self.root = self.x.XDefaultRootWindow(self.display)

    def __call__(self) -> bytes:
        image = self.x.XGetImage(self.display, self.root, 0, 0, SIZE[0], SIZE[1], 0xFFFFFFFF, 2)   # ZPixmap
        if not image:
            raise OSError("XGetImage of the root window failed")
        try:
            # 32 bits a pixel, rows unpadded, B G R X in memory: what gray() reads (Xvfb's 24-bit screen)
            self.bgrx = (image.contents.bits_per_pixel == 32 and image.contents.bytes_per_line == SIZE[0] * 4
                         and image.contents.byte_order == 0)
            return ctypes.string_at(image.contents.data, image.contents.bytes_per_line * image.contents.height)
        finally:
            self.x.XDestroyImage(image)

    # ImageMagick 7 (Q16) with ``-colorspace gray -depth 8``: Rec. 709 luma of the 16-bit channels (8-bit
    # value * 257), rounded, then scaled down to 8 bits by floor(v / 257); here in fixed point (1/256 of a
    # 16-bit level) through tables, tens of ms for the screen
    _WEIGHTS = [np.round(w * 257 * 256 * np.arange(256)).astype(np.int32) for w in (0.072186, 0.715158, 0.212656)]
    _TO_8 = (np.arange(65536) // 257).astype(np.uint8)

    @classmethod
    def gray(cls, raw: bytes) -> np.ndarray:
        """An 8-bit grey image of a look, as ImageMagick's grey grab makes it (to within 1 level)."""
        bgrx = np.frombuffer(raw, dtype=np.uint8).reshape(SIZE[1], SIZE[0], 4)
        level = cls._WEIGHTS[0][bgrx[..., 0]]
        level += cls._WEIGHTS[1][bgrx[..., 1]]
        level += cls._WEIGHTS[2][bgrx[..., 2]]
        level += 128
        level >>= 8
        return cls._TO_8[level]


class Screen:
    """The Xvfb screen Blender draws on (1600x1000, main window at 0,0)."""
    gray_from = "ImageMagick"   # where grab() takes the grey screen from (check_gray)

    def __init__(self, out: Path):
        self.out = out
        self.shots: list[str] = []
        try:
            self._pixels = _RootPixels()
        except OSError as error:
            print(f"[real-blender] note: libX11 not usable ({error}); ImageMagick tells screen changes", flush=True)
            self._pixels = None

    def check_gray(self) -> dict:
        """Grey screens from libX11's look (no process started, tens of ms) once the look, made grey here,
        equals ImageMagick's grey grab of the same still screen to within 1 level on every pixel (the measures'
        thresholds are tens of levels apart); else ImageMagick's grab stays. Returns what was compared."""
        if self._pixels is None:
            return {"gray_from": self.gray_from, "why": "libX11 not usable"}
        for _ in range(3):        # a screen that changes between the two looks is looked at again
            before = self._pixels()
            magick = self._magick_gray()
            if self._pixels() == before:
                break
        if not self._pixels.bgrx:
            return {"gray_from": self.gray_from, "why": "the look is not 32-bit BGRX"}
        diff = np.abs(self._pixels.gray(before).astype(np.int16) - magick)
        if int(diff.max()) <= 1:
            self.gray_from = "libX11"
        return {"gray_from": self.gray_from, "max_difference": int(diff.max()), "pixels_differing": int((diff > 0).sum())}

    # ---- X side
    def grab(self) -> np.ndarray:
        """The screen now, as an 8-bit grey array (rows from the top): libX11's look made grey once
        ``check_gray`` found it equal to ImageMagick's, else ImageMagick's grey grab."""
        if self.gray_from == "libX11":
            started = time.monotonic()
            gray = self._pixels.gray(self._pixels())
            _cost("grab_libx11", started)
            return gray
        return self._magick_gray()

    def _magick_gray(self) -> np.ndarray:
        started = time.monotonic()
        raw = subprocess.run(["import", "-window", "root", "-colorspace", "gray", "-depth", "8", "gray:-"],
                             capture_output=True, check=True, timeout=60).stdout
        _cost("grab", started)
        return np.frombuffer(raw, dtype=np.uint8).reshape(SIZE[1], SIZE[0])

    def pixels(self) -> bytes:
        """The screen now, for comparing with another look (libX11's raw pixels, else the grey grab)."""
        if self._pixels is None:
            return self.grab().tobytes()
        started = time.monotonic()
        look = self._pixels()
        _cost("look", started)
        return look

    def stable(self, timeout: float = TIMEOUT, what: str = "", looks: int = STABLE_GRABS):
        """Wait until ``looks`` looks at the screen in a row are equal, each at least GAP seconds and TURNS
        turns of Blender's event loop (events handled, redraws drawn) after the one before: what Blender had
        to draw is drawn, however long a loaded machine takes. Past ``timeout`` the wait is noted as late."""
        started = time.monotonic()
        current, equal = self.pixels(), 1
        while equal < looks:
            if time.monotonic() - started > timeout:
                late(f"the screen did not settle within {timeout:.0f} s" + (f" ({what})" if what else ""))
                _cost("stable", started)
                return
            yield from self.pause()
            again = self.pixels()
            equal = equal + 1 if again == current else 1
            current = again
        _cost("stable", started)

    def settle(self, name: str | None = None, timeout: float = TIMEOUT, changed_from: np.ndarray | None = None,
               note: bool = True, tag: bool = True, looks: int = STABLE_GRABS):
        """Wait until Blender has drawn what the last input did: with ``changed_from``, first until the screen
        differs from it; then until STABLE_GRABS screens in a row are equal, each taken at least GAP seconds
        and TURNS turns of Blender's event loop (events handled, redraws drawn) after the one before, so a
        draw that a loaded machine delays is waited for, not raced (``stable``). Returns the grey screen, saved as NAME.png
        when named; a wait that runs past ``timeout`` is noted (see ``late``; not with ``note=False``, where no
        change is an answer too) and the screen returned as is. ``tag=False``: after X input only (Blender
        redraws what the input touched), no redraw of every area asked for. ``looks``: equal looks awaited."""
        begun = time.monotonic()
        for window in bpy.context.window_manager.windows if tag else ():   # what Python changed is drawn
            for area in window.screen.areas:                                # only when tagged
                area.tag_redraw()
        yield from turns()
        started = time.monotonic()
        if changed_from is not None:
            current = self.grab()
            while np.array_equal(current, changed_from):
                if time.monotonic() - started > timeout:
                    if note:
                        late(f"the screen did not change within {timeout:.0f} s" + (f" ({name})" if name else ""))
                    break
                yield from self.pause()
                current = self.grab()
        yield from self.stable(max(1.0, timeout - (time.monotonic() - started)), name or "", looks)
        current = self.grab()
        if name:
            self.shot(name)
        _cost("settle", begun)
        return current

    def drawn(self, timeout: float = TIMEOUT):
        """Wait until Blender has drawn what the last input or change did (as ``settle``, without the grey
        grab: for steps that only need Blender's window up to date before the next input)."""
        for window in bpy.context.window_manager.windows:
            for area in window.screen.areas:
                area.tag_redraw()
        yield from turns()
        yield from self.stable(timeout)

    def until(self, what: str, measure, enough, name: str | None = None, changed_from: np.ndarray | None = None,
              timeout: float = TIMEOUT):
        """Settle, then ``value = measure(screen)`` until ``enough(value)``: the state a check measures is
        fully drawn (a popup's last line, a column's options), however long a loaded machine takes to draw
        it. Returns (screen, value), the screen saved as NAME.png; past ``timeout`` the last measure is
        returned (the check then fails on it) and the wait noted as late, saying ``what`` was awaited. The
        measure confirms the state, so each settle awaits CONFIRMED_GRABS equal looks, not STABLE_GRABS."""
        started = time.monotonic()
        gray = yield from self.settle(changed_from=changed_from, timeout=timeout, looks=CONFIRMED_GRABS)
        value = measure(gray)
        while not enough(value):
            if time.monotonic() - started > timeout:
                late(f"waited {timeout:.0f} s for {what}; measured {value!r}")
                break
            yield from self.pause()
            gray = yield from self.settle(timeout=timeout, looks=CONFIRMED_GRABS)
            value = measure(gray)
        if name:
            self.shot(name)
        _cost("until", started)
        return gray, value

    def pause(self):
        """Between two looks at the screen: GAP seconds and at least TURNS turns of Blender's loop."""
        started = time.monotonic()
        yield from turns()
        rest = GAP - (time.monotonic() - started)
        if rest > 0:
            yield rest
        yield from turns()

    def shot(self, name: str) -> Path:
        """The screen saved as NAME.png (libX11's look written as an RGB PNG once ``check_gray`` trusts the
        looks' layout, else ImageMagick's ``import``)."""
        started = time.monotonic()
        path = self.out / f"{name}.png"
        if self.gray_from == "libX11":
            path.write_bytes(png(self._pixels()))
        else:
            subprocess.run(["import", "-window", "root", str(path)], check=True, timeout=60)
        _cost("shot", started)
        self.shots.append(path.name)
        return path

    def xdo(self, *args: str) -> None:
        """xdotool, then a round trip to the X server (getmouselocation; chained on the same connection, after
        ``key`` and ``type``, which take every remaining word, a call of its own): when this returns the
        server has done the input and queued its events to Blender."""
        args = [str(a) for a in args]
        if args[0] in ("key", "type"):
            subprocess.run(["xdotool", *args], check=True, timeout=60)
            args = []
        subprocess.run(["xdotool", *args, "getmouselocation"], check=True, timeout=60, stdout=subprocess.DEVNULL)

    def click(self, x: int, y: int, button: int = 1, clicks: int = 1):
        """Move there, wait until Blender has seen the pointer over the button and drawn it hovered, then
        click (and let Blender's loop handle the click). The turns after the move have Blender handle it and
        draw the hover; CONFIRMED_GRABS equal looks then show nothing more is being drawn."""
        started = time.monotonic()
        self.xdo("mousemove", x - 4, y)
        yield from turns()                       # Blender has read and handled the move
        self.xdo("mousemove", x, y)              # a second move: Blender re-arms buttons after a text edit
        yield from turns()
        yield from self.stable(looks=CONFIRMED_GRABS)
        self.xdo("click", "--repeat", clicks, "--delay", 80, button)
        yield from turns()
        _cost("click", started)

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
                break
            count = len(bpy.context.window_manager.windows)
            win, area, _space = found
            with bpy.context.temp_override(window=win, area=area, region=self.region(area, "WINDOW")):
                bpy.ops.file.cancel()
            yield from wait_for(lambda count=count: len(bpy.context.window_manager.windows) < count,
                                what="a file browser to close")
        yield from self.drawn()


def wait_for(predicate, timeout: float = TIMEOUT, what: str = ""):
    """Yield turns of Blender's loop (and GAP seconds) until ``predicate()`` is true (then the turns that
    draw what it changed); False after ``timeout``, noted as late when ``what`` names the awaited state."""
    started = time.monotonic()
    while not predicate():
        if time.monotonic() - started > timeout:
            if what:
                late(f"waited {timeout:.0f} s for {what}")
            _cost("wait_for", started)
            return False
        yield from turns()
        yield GAP
    yield from turns()
    _cost("wait_for", started)
    return True


def png(bgrx: bytes) -> bytes:
    """A look (SIZE, 32-bit B G R X) as an 8-bit RGB PNG: rows with filter 0, zlib level 1 (fast, not small)."""
    pixels = np.frombuffer(bgrx, dtype=np.uint8).reshape(SIZE[1], SIZE[0], 4)
    rows = np.zeros((SIZE[1], 1 + 3 * SIZE[0]), dtype=np.uint8)
    rows[:, 1:] = pixels[..., 2::-1].reshape(SIZE[1], 3 * SIZE[0])

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", SIZE[0], SIZE[1], 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 1)) + chunk(b"IEND", b""))


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
