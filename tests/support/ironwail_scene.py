"""One scene for the ironwail tests: the figure of :mod:`support.enhanced_figure` placed several times
(frames of both actions, skin 0 and 1) in a 4 x 2 grid before a fixed camera, drawn by ironwail from a demo
(:mod:`support.quake_data`), and each placement compared with Blender's evaluated mesh of the same frame
projected with the same camera (:mod:`support.engine_view`): the silhouette overlap (IoU) inside the
placement's cell, and the skin colour of every inner pixel (the region its nearest Blender face maps to,
against the palette colour of the engine's pixel nearest in chromaticity)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from formats.images.palette import quake_palette

from .engine_view import View, erode, foreground, iou, nearest_colour, place_yawed, rasterize
from .enhanced_figure import ACTIONS, COLOURS, SKIN_REGIONS, posed
from .ironwail_run import EngineShot, run_ironwail
from .quake_data import CLEAR_INDEX, Camera, Placed, demo, settings, write_basedir

CAMERA = Camera(eye=(-170.0, 0.0, -20.0), angles=(0.0, 0.0, 0.0), fov=90.0, width=640, height=480)
VIEW = View(CAMERA.eye, CAMERA.angles, CAMERA.fov, CAMERA.width, CAMERA.height)
COLUMNS = (93.0, 23.0, -47.0, -117.0)     # entity origin y per column (screen left to right: right is -Y)
ROWS = (15.0, -105.0)                      # origin z of the rows
YAW = 15.0
# IoU a correct placement reaches (measured: 0.99 and more with MDL, MD3 and MD5 alike) and that a
# placement a frame off (0.82 to 0.90 measured) or mirrored (0.47 to 0.78) stays under; the share of inner pixels of
# the right skin colour (0.96 and more measured)
MIN_IOU, MIN_COLOUR = 0.95, 0.9
TOLERANCE = 6                              # per channel from the clear colour: a drawn pixel


@dataclass(frozen=True)
class Shot:
    """One placement: model (index in the demo's list of models), action, k-th frame of the action, skin."""
    action: str
    k: int
    skin: int = 0
    model: int = 0


# three frames of each action with skin 0, one more of each with skin 1
SHOTS = (Shot("bend", 0), Shot("bend", 2), Shot("bend", 4), Shot("bend", 1, 1),
         Shot("wave", 0), Shot("wave", 2), Shot("wave", 5), Shot("wave", 3, 1))


def mdl_frame(action: str, k: int) -> int:
    """The MDL frame of the k-th frame of ``action``: the export writes the actions one after the other
    (bend01..bend05, wave01..wave06: checked against the MDL's frame names by the tests)."""
    start = 0
    for name, frames in ACTIONS.items():
        if name == action:
            return start + k
        start += len(frames)
    raise KeyError(action)


def placement(slot: int) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    return (0.0, COLUMNS[slot % 4], ROWS[slot // 4]), (0.0, YAW, 0.0)


def placed_model(positions: np.ndarray, origin, angles) -> np.ndarray:
    """Model positions placed as the engine places an alias model (the figure's placements have no pitch
    or roll)."""
    return place_yawed(positions, origin, angles[1])


@dataclass
class Measure:
    shot: Shot
    iou: float
    colour: float          # share of inner pixels whose colour is the skin's region colour
    pixels: int            # inner pixels compared


def run_scene(root: Path, models: dict[str, bytes], names: list[str], shots, enhanced: int,
              priority: str = "md3,md5") -> EngineShot:
    """Write the basedir (``models``: path -> bytes under id1; ``names``: the demo's precached models) and
    let ironwail draw ``shots``."""
    placed = []
    for slot, shot in enumerate(shots):
        origin, angles = placement(slot)
        placed.append(Placed(2 + shot.model, origin, angles, mdl_frame(shot.action, shot.k), shot.skin))
    write_basedir(root, models, demo(names, placed, CAMERA), settings(enhanced, priority))
    return run_ironwail(root, CAMERA.width, CAMERA.height)


def blender_ids(bpy, obj, rig, shot: Shot, slot: int, mirror: bool = False, frame_shift: int = 0):
    """Blender's face-id image of ``shot`` in ``slot`` (optionally mirrored in Y, or another frame of the
    action), and each triangle's region."""
    frames = list(ACTIONS[shot.action])
    positions, triangles, regions = posed(bpy, obj, rig, shot.action, frames[shot.k + frame_shift])
    if mirror:
        positions = positions * np.array([1.0, -1.0, 1.0])
    origin, angles = placement(slot)
    return rasterize(VIEW, placed_model(positions, origin, angles), triangles).triangle, regions


def cells(count: int) -> np.ndarray:
    """(height, width) slot index of the nearest placement centre (the figure's middle) on screen."""
    centres = np.array([placed_model(np.array([[0.0, 12.0, 24.0]]), *placement(s))[0] for s in range(count)])
    screen = VIEW.project(centres)[:, :2]
    ys, xs = np.mgrid[0:CAMERA.height, 0:CAMERA.width] + 0.5
    dist = (xs[..., None] - screen[:, 0]) ** 2 + (ys[..., None] - screen[:, 1]) ** 2
    return dist.argmin(-1)


def background(image: np.ndarray | None = None) -> tuple[int, int, int]:
    """The clear colour: in the engine's picture its top-left pixel (no figure reaches a corner; the engine
    brightens the palette colour, so it is read, not assumed), else the palette's."""
    colour = image[0, 0] if image is not None else quake_palette()[CLEAR_INDEX]
    return tuple(int(c) for c in colour)


def measure(image: np.ndarray, ids: np.ndarray, regions: np.ndarray, cell: np.ndarray, skin: int) -> tuple:
    """(IoU, colour share, inner pixel count) of one placement: Blender's ``ids`` against the engine's
    non-background pixels inside ``cell``."""
    ours = ids >= 0
    theirs = foreground(image, background(image), TOLERANCE) & cell
    inner = erode(ours, 2) & erode(theirs, 1)
    candidates = quake_palette()[list(COLOURS)].astype(np.float64)
    seen = nearest_colour(image[inner], candidates)
    wanted = np.array([COLOURS.index(SKIN_REGIONS[skin][r]) for r in regions[ids[inner]]], np.int64)
    share = float((seen == wanted).mean()) if inner.any() else 0.0
    return iou(ours & cell, theirs), share, int(inner.sum())


def compare(bpy, obj, rig, shot_image: np.ndarray, shots, **variant) -> list[Measure | None]:
    """Every placement of ``shots`` measured against Blender (``variant``: mirror / frame_shift, for the
    tests that the comparison fails on a wrong model; None where the shifted frame is outside the action)."""
    cell_of = cells(len(shots))
    out = []
    for slot, shot in enumerate(shots):
        if not 0 <= shot.k + variant.get("frame_shift", 0) < len(ACTIONS[shot.action]):
            out.append(None)
            continue
        ids, regions = blender_ids(bpy, obj, rig, shot, slot, **variant)
        result = measure(shot_image, ids, regions, cell_of == slot, shot.skin)
        out.append(Measure(shot, *result))
    return out


def blender_picture(bpy, obj, rig, shots) -> np.ndarray:
    """Blender's view of the scene for the figures: each visible face in its skin region's palette colour
    on the clear colour."""
    pal = quake_palette()
    picture = np.empty((CAMERA.height, CAMERA.width, 3), np.uint8)
    picture[:] = background()
    for slot, shot in enumerate(shots):
        ids, regions = blender_ids(bpy, obj, rig, shot, slot)
        seen = ids >= 0
        picture[seen] = pal[np.array(SKIN_REGIONS[shot.skin])[regions[ids[seen]]]]
    return picture
