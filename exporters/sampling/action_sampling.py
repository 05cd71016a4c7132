"""Frames from actions (``frame_source='ACTIONS'``): each action that animates the exported objects,
sampled over its own frame range, one after another.

An action animates an object if it drives the object itself, an armature that deforms or parents
it (Armature modifier object, parent chain) or its shape keys: because it is assigned to that ID,
sits in one of its NLA strips, or (unassigned and kept by a fake user) its F-curves resolve on it
(armatures first, then the object, then the shape keys). Actions assigned to other IDs, actions an
import made for another model's animations (a Quake II player's weapon: ``attack.001``, whose
F-curves would also resolve on the body's shape keys of the same names) and orphans (no users: lost
on save) are left out.

Default order: the first object's imported animation list, then the others by name; with
``standard`` (MD2) the names of Quake II's player animations (any case) come first in the game's
order (:func:`...formats.md2.player.in_standard_order`): always for a player ('PLAYER'), else
('DEFAULT') when every action is named after one.

Sampling plays each action alone from rest (:mod:`.action_playback`), steps ``frame_range``
(every ``step``-th frame from the first; the last frame always included with a step over 1, and at
step 1 where the game rate misses it and the action ends in another pose than it starts) and
evaluates the meshes with modifiers and armatures as on the timeline; everything is restored
afterwards, also on error. Where a frame is
exactly one shape key (an imported model's per-animation shape-key actions), the key is read
directly, as for the timeline.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

import bpy

from ...common.actions import played_with
from ...formats.animations import group_animations
from ...formats.md2.player import in_standard_order, standard_rank
from ...formats.message_text import quoted
from ..export_error import ExportError
from .action_playback import ActionPlayback, assigned_actions, pick_slot
from .curve_values import curve_values
from .frame_rate import frames_between, set_frame
from .frame_sampling import BASIS, checked_positions, has_active_modifiers, read_key_positions
from .topology_change import TopologyAt

FRAME_NAME_LIMIT = 15
_IDENTITY = np.eye(4)
_DIGITS = re.compile(r"(\d+)$")
_END_TOLERANCE = 1e-6


@dataclass
class ActionSamples:
    positions: list[np.ndarray]          # per object (F, V, 3) world or object space as asked
    key_names: list[list[str | None]]    # per object
    key_indices: list[list[int | None]]  # per object: the shape key each frame equals exactly, else None
    evaluated: int                       # frames that needed a depsgraph evaluation


def animated_ids(obj: bpy.types.Object) -> list[bpy.types.ID]:
    """The IDs whose animation moves ``obj``'s mesh: armatures (modifier objects, parents), the object,
    its shape keys."""
    ids: list[bpy.types.ID] = []
    for mod in obj.modifiers:
        if mod.type == "ARMATURE" and mod.object is not None and mod.object not in ids:
            ids.append(mod.object)
    parent = obj.parent
    while parent is not None:
        if parent.type == "ARMATURE" and parent not in ids:
            ids.append(parent)
        parent = parent.parent
    ids.append(obj)
    key = obj.data.shape_keys if obj.type == "MESH" else None
    if key is not None:
        ids.append(key)
    return ids


def action_fcurves(action: bpy.types.Action, id_block: bpy.types.ID) -> list[bpy.types.FCurve]:
    """The F-curves ``action`` would drive on ``id_block`` (4.2 to 5.x)."""
    if hasattr(action, "slots"):
        slot = pick_slot(action, id_block)
        if slot is None:
            return []
        from bpy_extras import anim_utils
        bag = anim_utils.action_get_channelbag_for_slot(action, slot)
        return list(bag.fcurves) if bag is not None else []
    if action.id_root not in (id_block.id_type, "UNSPECIFIED"):
        return []
    return list(action.fcurves)


def _used_elsewhere(ours: list[bpy.types.ID]) -> set[str]:
    names: set[str] = set()
    for collection in (bpy.data.objects, bpy.data.shape_keys, bpy.data.armatures, bpy.data.meshes,
                       bpy.data.materials, bpy.data.cameras, bpy.data.lights, bpy.data.scenes):
        for id_block in collection:
            if id_block.animation_data is not None and not any(id_block == o for o in ours):
                names |= assigned_actions(id_block)
    return names


def _listed_elsewhere(objects: list[bpy.types.Object], ids: list[bpy.types.ID] = ()) -> set[str]:
    """Actions the import made for the animations of models not exported here (a player's weapons); the
    lists of the objects and of the armatures that move them (an MD5 import's root) are ours."""
    mine = list(objects) + [i for i in ids if i.id_type == "OBJECT" and i.type == "ARMATURE"]
    ours = {o.name for o in mine}
    names: set[str] = set()
    for obj in bpy.data.objects:
        if obj.name not in ours:
            names |= {item.action.name for item in obj.classic_model.animations if item.action is not None}
    for obj in mine:
        names -= {item.action.name for item in obj.classic_model.animations if item.action is not None}
    return names


def list_owner(obj: bpy.types.Object) -> bpy.types.Object:
    """The object whose animation list (``classic_model.animations``) orders ``obj``'s actions: its own,
    else its armature parent's (an MD5 import keeps the list on the armature root of its mesh blocks)."""
    parent = obj.parent
    if not len(obj.classic_model.animations) and parent is not None and parent.type == "ARMATURE":
        return parent
    return obj


def _resolves(id_block: bpy.types.ID, fcurves: list[bpy.types.FCurve]) -> bool:
    for fcurve in fcurves:
        try:
            id_block.path_resolve(fcurve.data_path, False)
            return True
        except ValueError:
            continue
    return False


def find_actions(objects: list[bpy.types.Object], standard: str = "") -> list[tuple[bpy.types.Action, bpy.types.ID]]:
    """Every action animating the mesh objects, with the ID it plays on, in default order: the first
    object's imported animation list (names that are actions), then action name order, the standard
    animations first where ``standard`` asks (see the module docstring)."""
    ids: list[bpy.types.ID] = []
    for obj in objects:
        for id_block in animated_ids(obj):
            if not any(id_block == i for i in ids):
                ids.append(id_block)
    ids.sort(key=lambda i: 0 if i.id_type == "OBJECT" and i.type == "ARMATURE" else 1 if i.id_type == "OBJECT" else 2)
    elsewhere = _used_elsewhere(ids) | _listed_elsewhere(objects, ids)
    found: dict[str, tuple[bpy.types.Action, bpy.types.ID]] = {}
    for id_block in ids:
        for name in assigned_actions(id_block):
            found.setdefault(name, (bpy.data.actions[name], id_block))
    for action in bpy.data.actions:
        if action.name in found or action.name in elsewhere or action.users == 0:
            continue
        for id_block in ids:
            if _resolves(id_block, action_fcurves(action, id_block)):
                found[action.name] = (action, id_block)
                break
    listed = [getattr(a, "action", None).name if getattr(a, "action", None) is not None else a.name
              for a in list_owner(objects[0]).classic_model.animations] if objects else []
    rest = sorted(n for n in found if n not in listed)
    if standard_first(standard, list(found)):
        rest = in_standard_order(rest)
    order = [n for n in dict.fromkeys(listed) if n in found] + rest
    kept, along = [], set()
    for name in order:              # an MD3 import's animation is one action per surface and tag: the
        if name not in along:       # first object's stands for it, the others play along with it
            kept.append(name)
            along |= {a.name for a, _ in played_with(*found[name])}
    return [found[n] for n in kept if n not in along]


def standard_rule(objects: list[bpy.types.Object], standard: str) -> str:
    """``standard``, or "" for a model imported with one action per animation: its file's order stands."""
    imported = objects and any(item.action is not None for item in list_owner(objects[0]).classic_model.animations)
    return "" if imported else standard


def standard_first(standard: str, names: list[str]) -> bool:
    """Whether actions named after Quake II's player animations go first, in the game's order."""
    return standard == "PLAYER" or (standard == "DEFAULT" and bool(names)
                                     and all(standard_rank(n) is not None for n in names))


def order_actions(names: list[str], listed: list[tuple[str, bool]] | None, standard: str = "") -> list[str]:
    """``names`` (default order) as the user's list orders and ticks them; unlisted ones at the end.
    A player (``standard='PLAYER'``) always gets the standard animations first in the game's order,
    the others after them in list order."""
    if listed:
        position = {name: (i, ticked) for i, (name, ticked) in enumerate(listed)}
        default = {name: i for i, name in enumerate(names)}
        kept = [n for n in names if position.get(n, (0, True))[1]]
        names = sorted(kept, key=lambda n: (position[n][0] if n in position else len(position), default[n]))
    return in_standard_order(list(names)) if standard == "PLAYER" else list(names)


def action_frames(action: bpy.types.Action, step: int, every: float = 1.0,
                  target: bpy.types.ID | None = None, exact: bool = False) -> list[int | float]:
    """Frames of ``action.frame_range`` (whole frames: the first rounded, the last rounded up, so the
    last key on a subframe is in) ``every`` scene frames apart (1, or fps / 10 at the game rate),
    every ``step``-th from the first; with a step over 1 the last frame is always included, and at
    step 1 too where the game rate passes it by and the action on ``target`` ends in another pose than
    it starts (:func:`ends_elsewhere`; a cycle does not). ``exact`` (a model's own rate, its keys every
    ``every`` frames from a whole first frame, as an MD5 import placed them): the range's last key is the
    last frame, a subframe where it is one."""
    end = action.frame_range[1]
    first, last = int(round(action.frame_range[0])), math.ceil(end - 1e-4)
    if exact:
        last = end
        frames = frames_between(first, end + 1e-3 * every, every * max(1, step))   # float32 keys: a step's 0.1%
    else:
        frames = frames_between(first, last, every * max(1, step))
    if frames[-1] == last:
        return frames
    if step > 1 or (frames[-1] < end - 1e-4 and target is not None and ends_elsewhere(action, target)):
        frames.append(last)          # (the last key on a subframe the steps reach needs no frame of its own)
    return frames


def ended_actions(actions: list[tuple[bpy.types.Action, bpy.types.ID]], step: int, every: float,
                  exact: bool = False) -> list[str]:
    """The actions :func:`action_frames` gives their end pose as an extra frame (step 1, the game rate
    passing the last frame by, the action ending elsewhere than it starts)."""
    if step > 1:
        return []
    return [action.name for action, target in actions
            if len(action_frames(action, 1, every, target, exact)) > len(action_frames(action, 1, every, None, exact))]


def ends_elsewhere(action: bpy.types.Action, target: bpy.types.ID | None) -> bool:
    """True if a channel of ``action`` on ``target`` (None: any slot) has another value at the end of
    the action's frame range than at its start. Each action plays alone from rest
    (:mod:`.action_playback`), so equal channels are an equal pose: known from the F-curves before
    any frame is sampled."""
    first, last = (float(round(f)) for f in action.frame_range)
    fcurves = action_fcurves(action, target) if target is not None else _all_fcurves(action)
    return any(abs(fc.evaluate(last) - fc.evaluate(first)) > _END_TOLERANCE for fc in fcurves if not fc.mute)


def _all_fcurves(action: bpy.types.Action) -> list[bpy.types.FCurve]:
    """Every F-curve of ``action``, of all its slots (4.4+) or its own (4.2, 4.3)."""
    if hasattr(action, "layers"):
        return [fc for layer in action.layers for strip in layer.strips
                for bag in getattr(strip, "channelbags", ()) for fc in bag.fcurves]
    return list(action.fcurves)


@dataclass
class _KeyState:
    """An object's shape keys read once per export (not once per action)."""
    values: np.ndarray          # (K,) static values, clipped, 0 where muted (row 0: Basis)
    low: np.ndarray
    high: np.ndarray
    muted: np.ndarray
    grouped: np.ndarray         # has a vertex group
    index: dict[str, int]       # F-curve data path -> key block


def _key_paths(key: bpy.types.Key) -> dict[str, int]:
    return {f'key_blocks["{bpy.utils.escape_identifier(b.name)}"].value': i for i, b in enumerate(key.key_blocks)}


def _key_rest(ids: list[bpy.types.ID], actions) -> dict[str, np.ndarray]:
    """Per Key: its values now, 0 for the blocks any listed action animates (each action starts there)."""
    rest = {}
    for key in (i for i in ids if i.id_type == "KEY"):
        values = np.empty(len(key.key_blocks), np.float32)
        key.key_blocks.foreach_get("value", values)
        paths = _key_paths(key)
        for action, target in actions:
            if target == key:
                rows = [paths.get(fc.data_path, 0) for fc in action_fcurves(action, key)]
                values[[r for r in rows if r]] = 0.0
        rest[key.name] = values
    return rest


def _key_state(obj: bpy.types.Object, rest: np.ndarray) -> _KeyState | None:
    """The shape keys, if the mesh can equal one of them (relative keys on Basis, no active
    modifiers, not pinned), else None."""
    key = obj.data.shape_keys
    if key is None or obj.type != "MESH" or has_active_modifiers(obj) or obj.show_only_shape_key:
        return None
    blocks = key.key_blocks
    if not key.use_relative or any(b.relative_key != blocks[0] for b in blocks[1:]):
        return None
    count = len(blocks)
    arrays = {}
    for name, dtype in (("slider_min", np.float32), ("slider_max", np.float32), ("mute", bool)):
        arrays[name] = np.empty(count, dtype)
        blocks.foreach_get(name, arrays[name])
    arrays["value"] = rest
    low, high = arrays["slider_min"].astype(np.float64), arrays["slider_max"].astype(np.float64)
    values = np.where(arrays["mute"], 0.0, np.clip(arrays["value"].astype(np.float64), low, high))
    values[0] = 0.0
    paths = _key_paths(key)
    grouped = np.array([bool(b.vertex_group) for b in blocks])
    return _KeyState(values, low, high, arrays["mute"], grouped, paths)


def _exact_keys(state: _KeyState, fcurves: list[bpy.types.FCurve], frames: np.ndarray) -> list[int | None]:
    """For each frame, the key block the mesh equals with only ``fcurves`` animating the keys, else None."""
    values = np.repeat(state.values[:, None], len(frames), axis=1)
    for fcurve in fcurves:
        i = state.index.get(fcurve.data_path)
        if i and not fcurve.mute and not state.muted[i]:
            values[i] = np.clip(curve_values(fcurve, frames), state.low[i], state.high[i])
    if np.any(state.grouped[1:] & np.any(values[1:] != 0, axis=1)):
        return [None] * len(frames)
    nonzero = values[1:] != 0
    counts = nonzero.sum(axis=0)
    first = np.argmax(nonzero, axis=0)
    one = values[1:][first, np.arange(len(frames))] == 1.0
    return [BASIS if c == 0 else int(f) + 1 if c == 1 and o else None for c, f, o in zip(counts, first, one)]


def _fast_path_ok(obj: bpy.types.Object, target: bpy.types.ID) -> bool:
    """The shape keys alone move ``obj`` under this action: its key frames can be read directly."""
    key = obj.data.shape_keys
    if key is None or target != key or (key.animation_data is not None and len(key.animation_data.drivers)):
        return False
    parent = obj
    while parent is not None:
        if parent.constraints or (parent.animation_data is not None and (
                parent.animation_data.action is not None or len(parent.animation_data.drivers)
                or len(parent.animation_data.nla_tracks))):
            return False
        parent = parent.parent
    return True


def sample_actions(context: bpy.types.Context, objects: list[bpy.types.Object], topologies: list[TopologyAt],
                   world: bool, plans: list) -> ActionSamples:
    """Positions of every object at every planned frame of every action in ``plans`` (the
    :class:`.frame_plan.PlannedAction` list), in order (world space with ``world``); every evaluated
    frame must have the object's topology."""
    if not plans:
        raise ExportError("no action animates the exported objects: animate them (or their armature or "
                          "shape keys) with actions, or export the timeline")
    actions = [(p.action, p.target) for p in plans]
    scene = context.scene
    ids: list[bpy.types.ID] = []
    for obj in objects:
        ids += [i for i in animated_ids(obj) if not any(i == j for j in ids)]
    num_vertices = [t.vertices for t in topologies]
    total = sum(len(p.frames) for p in plans)
    positions = [np.empty((total, n, 3), np.float64) for n in num_vertices]
    key_names: list[list[str | None]] = [[None] * total for _ in objects]
    key_indices: list[list[int | None]] = [[None] * total for _ in objects]
    evaluated = 0
    current = scene.frame_current, scene.frame_subframe
    statics = [np.array(o.matrix_world, np.float64) for o in objects]
    key_rest = _key_rest(ids, actions + [pair for a, t in actions for pair in played_with(a, t)])
    states = [_key_state(o, key_rest[o.data.shape_keys.name]) if o.data.shape_keys else None for o in objects]
    with ActionPlayback(ids, {a.name for a, _ in actions}, key_rest) as playback:
        try:
            row = 0
            for action, target, frames in ((p.action, p.target, p.frames) for p in plans):
                frame_array = np.asarray(frames, np.float64)
                exact = [_exact_keys(states[k], action_fcurves(action, target), frame_array)
                         if states[k] is not None and _fast_path_ok(o, target) else [None] * len(frames)
                         for k, o in enumerate(objects)]
                slow = [j for j in range(len(frames)) if any(e[j] is None for e in exact)]
                fast = set(range(len(frames))) - set(slow)
                for k, obj in enumerate(objects):
                    for j in range(len(frames)):
                        if exact[k][j] is not None:
                            key_names[k][row + j] = _key_name(obj, exact[k][j])
                            key_indices[k][row + j] = exact[k][j]
                        if j in fast:
                            block = obj.data.shape_keys.key_blocks[exact[k][j]]
                            positions[k][row + j] = _placed(read_key_positions(block, num_vertices[k]),
                                                            statics[k] if world else None)
                if slow:
                    playback.play(action, target)
                    for j in slow:
                        set_frame(scene, frames[j])
                        depsgraph = context.evaluated_depsgraph_get()
                        for k, obj in enumerate(objects):
                            co = checked_positions(context, obj, topologies[k], frames[j], action.name)
                            matrix = np.array(obj.evaluated_get(depsgraph).matrix_world) if world else None
                            positions[k][row + j] = _placed(co, matrix)
                    evaluated += len(slow)
                row += len(frames)
        finally:
            scene.frame_set(current[0], subframe=current[1])
    return ActionSamples(positions, key_names, key_indices, evaluated)


def _key_name(obj: bpy.types.Object, index: int) -> str | None:
    key = obj.data.shape_keys
    return key.key_blocks[index].name if key is not None and index != BASIS else None


def _placed(co: np.ndarray, matrix: np.ndarray | None) -> np.ndarray:
    if matrix is None or (matrix == _IDENTITY).all():
        return co
    return co.astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]


def action_frame_names(obj: bpy.types.Object, origins: list, stored: list[str]) -> tuple[list[str], str]:
    """``<action><nn>``. An action with as many frames as the imported animation of its name gets
    that animation's frame names (``run1``..``run6``; ``pain101``..``pain304`` too); otherwise frames
    are numbered as that animation's first frame (start and width), else two digits from 01.
    An action the animation list points at (``item.action``) is named after its animation.
    ``origins``: each frame's ``action`` (name) and ``index`` among its frames (:class:`.frame_plan.PlannedFrame`);
    ``stored``: the import's frame names in file order (the frame table's names).
    With the names, the refusal of names over the 15-character limit naming the actions ('' if none)."""
    alias = {item.action.name: item.name for item in obj.classic_model.animations
             if getattr(item, "action", None) is not None}
    imported: dict[str, list[str]] = {}
    for anim in group_animations(stored):
        imported.setdefault(anim.name, stored[anim.first:anim.last + 1])
    counts: dict[str, int] = {}
    for origin in origins:
        counts[origin.action] = counts.get(origin.action, 0) + 1
    names, too_long = [], {}
    for origin in origins:
        base = alias.get(origin.action, origin.action)
        own = imported.get(base, [])
        if len(own) == counts[origin.action]:
            name = own[origin.index]
        else:
            match = _DIGITS.search(own[0]) if own else None
            start, width = (int(match.group(1)), len(match.group(1))) if match else (1, 2)
            name = f"{base}{start + origin.index:0{width}d}"
        if len(name.encode("latin-1", "replace")) > FRAME_NAME_LIMIT:
            too_long.setdefault(base, name)
        names.append(name)
    problem = "frame names are limited to 15 characters: " + "; ".join(
        f"action {quoted(a)} gives {quoted(n)} ({len(n)}); rename the action to at most "
        f"{FRAME_NAME_LIMIT - (len(n) - len(a))} characters" for a, n in too_long.items()) if too_long else ""
    return names, problem
