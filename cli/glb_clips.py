"""``convert --to glb``: one glTF animation per animation of the model, named after it.

The imports list a model's animations on the object (``classic_model.animations``: the frame-table
groups, MDL frame groups one each, with their scene frames and, for an ``animations=ACTIONS``
import, their own action). Blender's glTF exporter writes one glTF animation per NLA track in its
``NLA_TRACKS`` mode, named after the track; so each animation becomes a track holding one strip
that plays its frames (a range of the whole-timeline shape-key action, or its own action), and
the shape keys' active action is cleared. Runs inside the convert worker (needs ``bpy``).
"""
from __future__ import annotations


def animations_as_tracks(scene) -> list[str]:
    """Add an NLA track per listed animation to each imported mesh's shape keys; returns the names."""
    names: list[str] = []
    for obj in scene.objects:
        keys = obj.data.shape_keys if obj.type == "MESH" else None
        if keys is None or keys.animation_data is None or not len(obj.classic_model.animations):
            continue
        anim = keys.animation_data
        timeline = anim.action
        made = []
        for item in obj.classic_model.animations:
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
            # keys an animation does not animate (one action per animation) stay at rest
            keys.key_blocks.foreach_set("value", [0.0] * len(keys.key_blocks))
            names += made
    return names


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
