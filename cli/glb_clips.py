"""``convert --to glb``: one glTF animation per animation of the model, named after it.

The imports list a model's animations (``classic_model.animations``: the frame-table groups, MDL
frame groups one each, a Quake III player part's ``animation.cfg`` animations, with their scene
frames and, for an ``animations=ACTIONS`` import, their own action) on the object itself (MD2,
MDL) or on the model root above it (an MD3's surfaces and tag empties: the root's list). Blender's
glTF exporter writes one glTF animation per NLA track name in its ``NLA_TRACKS`` mode, gathering the
tracks of that name of every object into one animation; so each animation becomes, on every animated
object of its model (shape keys of a mesh, the object itself for a tag empty), a track holding one
strip that plays its frames (a range of the whole-timeline action, or its own action), and the
active action is cleared. A player's ``BOTH_DEATH1`` is then one animation moving legs, torso and
their tags. Runs inside the convert worker (needs ``bpy``).
"""
from __future__ import annotations


def animations_as_tracks(scene) -> list[str]:
    """Add an NLA track per listed animation to each imported object's animation; returns the names
    (each once)."""
    names: list[str] = []
    for obj in scene.objects:
        if obj.type not in ("MESH", "EMPTY"):       # an armature keeps its skeletal clips
            continue
        keys = obj.data.shape_keys if obj.type == "MESH" else None
        anim = keys.animation_data if keys is not None else obj.animation_data if obj.type == "EMPTY" else None
        items = _listed(obj)
        if anim is None or items is None:
            continue
        timeline = anim.action
        made = []
        for item in items:
            action = item.action or timeline
            if action is None:
                continue
            track = anim.nla_tracks.new()
            track.name = item.name
            strip = track.strips.new(item.name, int(item.frame_start), action)
            if item.action is None:         # a stretch of the whole-timeline action
                _play_range(strip, item.frame_start, item.frame_end)
            made.append(item.name)
        if made:
            anim.action = None
            if keys is not None:
                # keys an animation does not animate (one action per animation) stay at rest
                keys.key_blocks.foreach_set("value", [0.0] * len(keys.key_blocks))
            names += [name for name in made if name not in names]
    return names


def _listed(obj):
    """The animations ``obj`` plays: its own list, else its model root's (the nearest parent that was
    imported as a model; None past it: a part of a player does not play the part it hangs on)."""
    if len(obj.classic_model.animations):
        return obj.classic_model.animations
    if obj.classic_model.source_format:
        return None
    parent = obj.parent
    if parent is None or not parent.classic_model.source_format or not len(parent.classic_model.animations):
        return None
    return parent.classic_model.animations


def _play_range(strip, first: int, last: int) -> None:
    """Make ``strip`` play action frames ``first`` .. ``last`` from where it starts."""
    end = max(last, first + 1)              # Blender keeps an NLA strip at least one frame long
    if first > strip.action_frame_end:
        strip.action_frame_end = end
        strip.action_frame_start = first
    else:
        strip.action_frame_start = first
        strip.action_frame_end = end
    strip.frame_start = first
    if last == first:       # one frame: squeeze the strip so that the next frame is not sampled
        strip.scale = 0.001
