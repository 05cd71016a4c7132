"""Text files that name a model's animations for the game code (bpy-free).

QuakeC numbers a model's frames by name: ``$frame stand1 stand2 ...`` gives each name the next
frame number, as id's progs sources do before the monster's think functions (``soldier.qc``:
``$frame stand1 stand2 stand3 stand4 stand5 stand6 stand7 stand8``, one line per animation, then
``void() army_stand1 = [$stand1, army_stand2] {...}``). A frame number is a frame of the file's
frame list: an MD2 frame, or an MDL frame slot (a frame group is ONE frame, whatever its poses).

DarkPlaces and FTE read ``<model file>.framegroups`` beside the model, one animation per line:
``first count fps loop name``, first and count in poses (DarkPlaces ``model_shared.c``,
``Mod_FrameGroupify_ParseGroups`` / ``Mod_FrameGroupify_ParseGroups_Store``: ``firstframe =
bound(0, start, num_poses - 1)``; missing fps means 20, missing loop means 1, an optional fifth
token names the animation, else ``groupified_<n>_anim``; ``//`` starts a comment; ``Mod_LoadModel``
loads ``va("%s.framegroups", mod->name)``, so ``soldier.mdl`` reads ``soldier.mdl.framegroups``.
FTE ``engine/common/com_mesh.c`` ``ParseFrameInfo``: the same fields, the name for ``frameforname``).
The entity's frame ``n`` then plays line ``n``. Older DarkPlaces builds, whose parser stops at the
loop flag, print ``framegroups file: missing number of frames`` for the name and play the same.

Animations come from the frame table (:mod:`.animations`): MD2 frames grouped by name, MDL frame
groups one animation each.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .animations import group_animations, slot_runs
from .mdl.codec import MdlModel

GAME_FPS = 10.0                 # Quake and Quake II play a model frame every 0.1 s
_QC_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_NO_LOOP = ("death", "die", "dead")     # animations that end on their last frame (a corpse)


@dataclass
class ScriptAnimation:
    """One animation as game code sees it: its QuakeC frames and the poses a source port plays."""
    name: str
    first_frame: int            # QuakeC frame number of its first frame
    frame_names: list[str]      # one per QuakeC frame (an MDL frame group: its first pose's name)
    first_pose: int
    pose_names: list[str]       # every pose, in file order
    fps: float
    grouped: bool = False       # an MDL frame group (the file's intervals give its rate)

    @property
    def loops(self) -> bool:
        return loops_by_name(self.name)


def md2_animations(frame_names: list[str], fps: float = GAME_FPS) -> list[ScriptAnimation]:
    """MD2: consecutive frames with the same name without trailing digits."""
    return [ScriptAnimation(a.name, a.first, frame_names[a.first:a.last + 1], a.first,
                            frame_names[a.first:a.last + 1], fps) for a in group_animations(frame_names)]


def mdl_animations(model: MdlModel, fps: float = GAME_FPS) -> list[ScriptAnimation]:
    """MDL: runs of simple frames by name, and each frame group on its own (played at the rate its
    intervals give: poses / last interval)."""
    out = []
    for animation, slots in slot_runs(model):
        poses = model.pose_names[animation.first:animation.last + 1]
        slot = model.frames[slots[0]]
        grouped = slot.intervals is not None
        rate = fps
        if slot.intervals is not None and len(slot.intervals) and float(slot.intervals[-1]) > 0:
            rate = round(slot.num_poses / float(slot.intervals[-1]), 3)     # float32 intervals: 9.9999996 is 10
        out.append(ScriptAnimation(animation.name, slots[0], [model.pose_names[model.frames[s].first_pose]
                                                              for s in slots],
                                   animation.first, poses, rate, grouped))
    return out


def loops_by_name(name: str) -> bool:
    """Whether an animation of this name loops: all but a death (its name starts with death, die, dead)."""
    return not name.lower().startswith(_NO_LOOP)


def qc_text(animations: list[ScriptAnimation], model_file: str) -> str:
    """``$frame`` lines, one per animation, in file order, names as the file stores them."""
    lines = [f"// {model_file}: QuakeC frame names, one $frame line per animation (frame numbers from 0)"]
    lines += ["$frame " + " ".join(a.frame_names) for a in animations]
    return "\n".join(lines) + "\n"


def framegroups_text(animations: list[ScriptAnimation]) -> str:
    """``first count fps loop name``, one line per animation, counted in poses."""
    return "".join(f"{a.first_pose} {len(a.pose_names)} {a.fps:g} {int(a.loops)} {_token(a.name)}\n"
                   for a in animations)


def _token(name: str) -> str:
    """``name`` as one token of the parsers above: quoted when it is empty or holds a space or ``//``."""
    if name and not re.search(r'[\s"]|//', name):
        return name
    return '"' + name.replace('"', "'") + '"'


def qc_name_problems(animations: list[ScriptAnimation]) -> list[str]:
    """Frame names QuakeC compilers cannot take after ``$``: not an identifier, or used twice."""
    counts = Counter(n for a in animations for n in a.frame_names)
    bad = sorted(n for n in counts if not _QC_NAME.match(n))
    twice = sorted(n for n, count in counts.items() if count > 1)
    problems = []
    if bad:
        problems.append("frame names that are not QuakeC identifiers: " + ", ".join(map(repr, bad)))
    if twice:
        problems.append("frame names used more than once: " + ", ".join(twice))
    return problems
