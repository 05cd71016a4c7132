"""Load this checkout into the ``bpy`` wheel exactly as Blender loads an installed extension.

Used by the tests, the demo and the benchmark::

    from tools.load_extension import enable_extension
    module = enable_extension()          # -> "bl_ext.classic_models_dev.classic_models"

It points Blender's user resources at a temporary folder (set before ``import bpy``, so nothing is
written to the user's configuration), registers a local extension repository whose directory holds
a symlink named after the manifest ``id`` to this checkout, and enables it with ``addon_utils``.
Relative imports and ``__package__`` then behave as in an installed extension.
"""
from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
REPO_MODULE = "classic_models_dev"
_STATE: dict[str, str] = {}


def extension_id() -> str:
    for line in (CHECKOUT / "blender_manifest.toml").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "id":
            return value.strip().strip('"')
    raise RuntimeError("blender_manifest.toml has no id")


def enable_extension() -> str:
    """Enable the extension in this process (once) and return its module name."""
    if "module" in _STATE:
        return _STATE["module"]
    if "bpy" not in sys.modules:
        resources = tempfile.mkdtemp(prefix="classic_models_blender_")
        atexit.register(shutil.rmtree, resources, True)
        os.environ["BLENDER_USER_RESOURCES"] = resources
    import bpy

    import addon_utils

    repo_dir = Path(tempfile.mkdtemp(prefix="classic_models_repo_"))
    atexit.register(shutil.rmtree, repo_dir, True)
    ext_id = extension_id()
    (repo_dir / ext_id).symlink_to(CHECKOUT, target_is_directory=True)
    repos = bpy.context.preferences.extensions.repos
    repo = repos.new(name=REPO_MODULE, module=REPO_MODULE, custom_directory=str(repo_dir), source='USER')
    repo.enabled = True
    module = f"bl_ext.{repo.module}.{ext_id}"
    addon_utils.enable(module, default_set=True, handle_error=_raise)
    if module not in bpy.context.preferences.addons:
        raise RuntimeError(f"could not enable {module}")
    _STATE["module"] = module
    return module


def _raise(exc: BaseException) -> None:
    raise exc
