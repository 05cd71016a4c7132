"""The joints of an IQM export and their poses, read from Blender.

- Joints: every bone of the armature, each bone after its parent (DarkPlaces
  ``Mod_INTERQUAKEMODEL_Load`` refuses a joint whose parent does not come before it: "bone[i].parent >=
  i"): an imported file's joints in the file's order (the index the import left on each bone,
  ``IQM_JOINT_INDEX``, as the MD5 export orders by ``MD5_JOINT_INDEX``; Blender lists bones depth first,
  which is not every file's order), bones added since after them, in the armature's bone order.
- Bind pose: each bone's rest matrix (``Bone.matrix_local``) in the model's space (``model`` @ the
  armature's matrix), relative to its parent's (:mod:`.pose_math`).
- Frames: for each anim, its action is played alone on the armature from rest
  (:class:`..sampling.action_playback.ActionPlayback`; an anim without an action samples the timeline as
  it plays, NLA strips included) and the timeline is set to each of its frames, so
  constraints, drivers and disconnected bones come out as Blender evaluates them; the pose bones'
  ``matrix`` is read with one ``foreach_get`` a frame. Meanwhile the exported meshes' Armature modifiers
  that use the armature are off, so a frame evaluates the bones and skins no mesh
  (:func:`..armature_rig.skinning_off`). The scene's frame, the modifiers and every action come back after.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import bpy

from ...common.iqm.contract import IQM_JOINT_INDEX
from ...common.stored_records import stored_int
from ..armature_rig import parents_first, skinning_off
from ..sampling.action_playback import ActionPlayback
from ..sampling.frame_rate import set_frame


@dataclass
class Anim:
    """One anim to export: its action (None: the timeline as it plays), its name in the file, the scene
    frames it spans, its rate and loop."""
    action: bpy.types.Action | None
    name: str
    first_frame: float
    last_frame: float
    fps: float
    loop: bool

    def times(self, scene_fps: float) -> np.ndarray:
        """The scene times of its frames: from the first frame, one every ``scene_fps / fps`` scene frames,
        up to the last (every scene frame when the anim plays at the scene's rate)."""
        step = scene_fps / self.fps if self.fps > 0 else 1.0
        count = int(np.floor((self.last_frame - self.first_frame) / step + 1e-6)) + 1 if \
            self.last_frame >= self.first_frame else 0
        return self.first_frame + step * np.arange(max(count, 0))


def joint_order(armature: bpy.types.Object) -> list[str]:
    """Bone names in joint order: an imported file's joints by the index the import stored on each bone
    (``IQM_JOINT_INDEX``), then the bones it did not make in the armature's bone order; each bone after
    its parent."""
    bones = list(armature.data.bones)
    indexed = sorted((b for b in bones if stored_int(b, IQM_JOINT_INDEX, None) is not None),
                     key=lambda b: stored_int(b, IQM_JOINT_INDEX, 0))
    new = [b for b in bones if stored_int(b, IQM_JOINT_INDEX, None) is None]
    return parents_first(indexed + new)


def bind_matrices(armature: bpy.types.Object, order: list[str], model: np.ndarray) -> np.ndarray:
    """(J, 4, 4) the bones' rest matrices in the model's space (``matrix_local`` has no bulk read)."""
    bones = armature.data.bones
    rest = np.array([np.array(bones[n].matrix_local, np.float64) for n in order]).reshape(-1, 4, 4)
    return model @ np.array(armature.matrix_world, np.float64) @ rest


def _pose_now(context, armature: bpy.types.Object, where: np.ndarray, model: np.ndarray) -> np.ndarray:
    evaluated = armature.evaluated_get(context.evaluated_depsgraph_get())
    bones = evaluated.pose.bones
    flat = np.empty(len(bones) * 16, np.float32)
    bones.foreach_get("matrix", flat)
    matrices = flat.reshape(-1, 4, 4).transpose(0, 2, 1).astype(np.float64)[where]
    return model @ np.array(evaluated.matrix_world, np.float64) @ matrices


def sample_anims(context, armature: bpy.types.Object, order: list[str], anims: list[Anim],
                 model: np.ndarray, meshes: list[bpy.types.Object] = ()) -> tuple[np.ndarray, list[int]]:
    """(F, J, 4, 4) model-space joint matrices at every frame of every anim in order, and each anim's
    frame count; ``meshes`` (the exported ones) are not skinned meanwhile (:func:`..armature_rig.skinning_off`)."""
    scene = context.scene
    scene_fps = scene.render.fps / scene.render.fps_base
    by_name = {bone.name: i for i, bone in enumerate(armature.pose.bones)}
    where = np.array([by_name[n] for n in order], np.int64)
    times = [anim.times(scene_fps) for anim in anims]
    starts = np.cumsum([0] + [len(t) for t in times])
    out = np.empty((int(starts[-1]), len(order), 4, 4))
    current = scene.frame_current, scene.frame_subframe
    listed = {anim.action.name for anim in anims if anim.action is not None}

    def sample(index: int) -> None:
        for row, time in enumerate(times[index], int(starts[index])):
            set_frame(scene, float(time))
            out[row] = _pose_now(context, armature, where, model)
    try:
        with skinning_off(armature, meshes):
            for index, anim in enumerate(anims):        # no action: the timeline as it plays, NLA and all
                if anim.action is None:
                    sample(index)
            with ActionPlayback([armature], listed, {}) as playback:
                for index, anim in enumerate(anims):
                    if anim.action is not None:
                        playback.play(anim.action, armature)
                        sample(index)
    finally:
        scene.frame_set(current[0], subframe=current[1])
    return out, [len(t) for t in times]
