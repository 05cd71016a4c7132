"""One topology for every frame: MD2 and MDL store one set of triangles (and one vertex list) for
all frames, so a mesh whose vertices or faces change over the animation (a Build modifier, a
Boolean with a moving cutter, Geometry Nodes) cannot be written; the refusal says where it changes."""
from __future__ import annotations

from dataclasses import dataclass

import bpy

from ...formats.message_text import quoted
from ..export_error import ExportError
from .frame_rate import frame_text


@dataclass(frozen=True)
class TopologyAt:
    """The vertex and face counts of the exported topology, and the scene frame it was read at."""
    frame: float
    vertices: int
    faces: int

    def counts(self) -> str:
        return f"{self.vertices} vertices and {self.faces} faces"

    def check(self, obj: bpy.types.Object, frame: float, mesh: bpy.types.Mesh, action: str = "") -> None:
        """Refuse ``obj`` if its evaluated ``mesh`` at ``frame`` differs from this topology."""
        vertices, faces = len(mesh.vertices), len(mesh.polygons)
        if (vertices, faces) != (self.vertices, self.faces):
            raise topology_error(obj, self, TopologyAt(frame, vertices, faces), action)


def topology_error(obj: bpy.types.Object, first: TopologyAt, other: TopologyAt, action: str = "") -> ExportError:
    where = f" of action {quoted(action)}" if action else ""
    return ExportError(
        f"object {quoted(obj.name)} changes its topology during the animation: {first.counts()} at frame "
        f"{frame_text(first.frame)}, {other.counts()} at frame {frame_text(other.frame)}{where}; MD2 and MDL "
        "store one set of vertices and triangles for every frame (apply or remove what adds or removes "
        "geometry over time, e.g. a Build modifier)")
