"""The lint stage type-checks formats/ and common/ (mypy, [tool.mypy] in pyproject.toml): a type error in a copy
of the checkout fails `bash tools/dev.sh lint` with a line naming the file, as the test command's lint job does."""
from __future__ import annotations

import re
import shutil
import subprocess
import tomllib

import pytest
from support.environment import CHECKOUT, skip_inside_blender

_MYPY = CHECKOUT / ".venvs" / "lint" / "bin" / "mypy"
_PAGES = ("README.md", "docs/quick-start.md", "docs/install.md", "docs/index.md")   # tools/sentence_length.py


def test_the_lint_stage_runs_mypy_over_formats_and_common():
    config = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert set(config["packages"]) == {"classic_models.formats", "classic_models.common"}
    script = (CHECKOUT / "tools" / "dev.sh").read_text(encoding="utf-8")
    lint_job = script[script.index("\nlint_job() {"):script.index("\n}\n", script.index("\nlint_job() {"))]
    lint_case = script[script.index("\n  lint)\n"):script.index(";;", script.index("\n  lint)\n"))]
    assert 'type_check "$ruff"' in lint_job and 'type_check "$ruff"' in lint_case
    assert re.search(r"MYPY_SPEC='mypy==[0-9.*]+'", script), "lint_venv installs a pinned mypy"


def test_a_type_error_in_formats_fails_the_lint(tmp_path):
    skip_inside_blender("the lint stage")
    if not _MYPY.is_file():
        pytest.skip(f"no mypy at {_MYPY}: 'bash tools/dev.sh lint' installs it (network)")
    copy = tmp_path / "checkout"
    for name in ("formats", "common"):
        shutil.copytree(CHECKOUT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.npz", "*.bin"))
    for name in ("pyproject.toml", "tools/dev.sh", "tools/sentence_length.py", *_PAGES):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(CHECKOUT / name, copy / name)
    (copy / "__init__.py").write_text('"""The package, without bpy."""\n')
    (copy / ".venvs").symlink_to(CHECKOUT / ".venvs")
    module = copy / "formats" / "message_text.py"
    module.write_text(module.read_text(encoding="utf-8") + "\n\ndef _typed() -> int:\n    return 'not a number'\n")
    try:
        result = subprocess.run(["bash", "tools/dev.sh", "lint"], cwd=copy, capture_output=True, text=True, timeout=600)
    finally:
        for link in (CHECKOUT / ".venvs" / "mypy").glob("*/classic_models"):   # type_check's folder for the copy
            if link.is_symlink() and link.readlink() == copy:
                shutil.rmtree(link.parent)
    assert result.returncode != 0, result.stdout + result.stderr
    assert re.search(r"^formats/message_text\.py:\d+: error: Incompatible return value type", result.stdout, re.M), \
        result.stdout[-2000:] + result.stderr[-2000:]
    assert "All checks passed" in result.stdout, "ruff passed: the failure is mypy's"
