"""MS3D materials from Blender materials (see :mod:`.build`): 128-byte texture and alpha-map paths,
colours, shininess and transparency, kept as the import stored them while Blender still shows them."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import bpy

from ...common.contract import SOURCE_MEMBER
from ...common.generated_names import is_made
from ...common.ms3d.contract import MATERIAL_PROP
from ...common.ms3d.data import material_values
from ...common.skin_images import image_unchanged, unchanged_source_file
from ...common.stored_records import stored_group
from ...formats.ms3d.records import PATH_SIZE, Ms3dMaterial
from .values import MadeNames, encoded, float32_equal, kept_comment, kept_name, raw_field

DEFAULT_AMBIENT = (0.2, 0.2, 0.2, 1.0)


def texture_path(image: bpy.types.Image | None, problems: list[str], what: str, copy: bool) -> bytes:
    """The 128-byte path field of ``image``: the file name the copy is written under (``copy``), else
    the image's own file name."""
    if image is None:
        return bytes(PATH_SIZE)
    if copy:
        source = unchanged_source_file(image)
        member = str(image.get(SOURCE_MEMBER, "")) if image_unchanged(image) else ""
        path = (source.name if source is not None else member.rpartition("/")[2] if member
                else f"{Path(image.name).stem or 'texture'}.png")
    else:
        path = bpy.path.basename(bpy.path.abspath(image.filepath)) if image.filepath else image.name
    return encoded(path, PATH_SIZE, what, problems)


def material_record(material: bpy.types.Material, problems: list[str], copy: bool,
                    made: MadeNames) -> tuple[Ms3dMaterial, bytes | None]:
    """The MS3D material of a Blender material and its comment: values the import recorded while Blender
    still shows them, else Blender's; texture paths as stored while the image is the same one; a name
    the product made shortened to fit (``made``)."""
    record = stored_group(material, MATERIAL_PROP)
    shown = record.get("shown") if record else None
    values = material_values(material)

    def stored_or(key: str, current: list[float], default_alpha: float) -> np.ndarray:
        if shown is not None and float32_equal(shown.get(key), current):
            return np.array(record[key], dtype=np.float32)
        alpha = float(record[key][3]) if record else default_alpha
        return np.array([*current, alpha], dtype=np.float32)
    shininess = ((1.0 - values["roughness"]) * 128.0, "roughness", "shininess")
    transparency = (values["alpha"], "alpha", "transparency")
    scalars = []
    for derived, shown_key, key in (shininess, transparency):
        same = shown is not None and float32_equal(shown.get(shown_key), values[shown_key])
        scalars.append(float(record[key]) if same else float(derived))
    paths = []
    for key in ("texture", "alphamap"):
        image = values[key]
        previous = record.get(f"{key}_image") if record else None
        if record is not None and (image == previous if image is not None else previous is None):
            paths.append(raw_field(record, f"{key}_raw"))
        else:
            paths.append(texture_path(image, problems, key, copy))
    ms3d = Ms3dMaterial(
        name_raw=kept_name(material.name, record, problems, "material name", made if is_made(material) else None),
        ambient=np.array(record["ambient"] if record else DEFAULT_AMBIENT, dtype=np.float32),
        diffuse=stored_or("diffuse", values["diffuse"], 1.0), specular=stored_or("specular", values["specular"], 1.0),
        emissive=stored_or("emissive", values["emissive"], 1.0), shininess=scalars[0], transparency=scalars[1],
        mode=int(record["mode"]) if record else 0, texture_raw=paths[0], alphamap_raw=paths[1])
    return ms3d, kept_comment(material, record)
