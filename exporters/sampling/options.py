"""The sampling options of the vertex-animation exports (MD2, MDL): one object, handed once to
:func:`.pipeline.sample_model` and read where it is needed (timeline, shape keys, actions)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class FrameExportOptions:
    frame_source: str = "TIMELINE"      # or "SHAPE_KEYS", "ACTIONS"
    step: int = 1                       # ACTIONS: every Nth frame of each action (its last always)
    actions: list[tuple[str, bool]] | None = None   # ACTIONS: the user's list (name, ticked), in order
    scale: float = 1.0
    apply_transform: bool = True
    frame_rate: str = "GAME"            # TIMELINE/ACTIONS: "GAME" every 0.1 s of scene time, "SCENE" every scene frame
    standard_order: str = ""            # ACTIONS: Quake II's player animations first in the game's order:
                                        # "PLAYER" always, "DEFAULT" when every action is named after one
    keep_still_frames: bool = False     # TIMELINE: write every frame of a model that does not move (see still_frames)
    own_fps: float | None = None        # TIMELINE/ACTIONS: the model's own rate (an imported MD5 anim's frameRate):
                                        # a frame every scene_fps / own_fps scene frames, written at that rate


@dataclass
class VertexModelOptions(FrameExportOptions):
    """What MD2 and MDL exports share beyond sampling: how normals and materials reach the file."""
    split_normals: bool = False         # a vertex copy per distinct corner normal (flat faces, sharp edges)
    materials: str = "ONE_SKIN"         # or "ALTERNATE" (see :mod:`.skin_packing`)
    fit_names: bool = False             # shorten names that do not fit their field (see ..name_fitting)
    enhanced: object = None             # Enhanced Model: the MD5 twin's writer (..md5.twin.ENHANCED), handed
                                        # in by the operator layer so no format folder imports another
