"""Validate .glb files with the Khronos glTF validator (npm package ``gltf-validator``, run by node).

    python tools/validate_glb.py [--install] [--validator-dir DIR] FILE.glb...

The validator is looked for in ``DIR/node_modules/gltf-validator`` (default: the folder named by
``$CLASSIC_MODELS_GLTF_VALIDATOR``, else ``<temp dir>/gltf-validator``), never inside the repository;
``--install`` installs it there with npm when it is missing. Prints each file's errors and warnings
(infos and hints are counted) and exits 1 if any file has an error, 2 if the validator cannot run.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGE = "gltf-validator"
SEVERITIES = ("error", "warning", "info", "hint")
# node reads the files named on its command line and prints one JSON report per file, in order.
SCRIPT = """
const validator = require(process.argv[1]);
const fs = require('fs');
(async () => {
  const out = [];
  for (const file of process.argv.slice(2)) {
    try {
      const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {maxIssues: 1000});
      out.push({file, issues: report.issues});
    } catch (error) {
      out.push({file, failure: String(error && error.message || error)});
    }
  }
  process.stdout.write(JSON.stringify(out));
})();
"""


def default_dir() -> Path:
    return Path(os.environ.get("CLASSIC_MODELS_GLTF_VALIDATOR") or Path(tempfile.gettempdir()) / PACKAGE)


def validator_module(folder: Path | None = None) -> Path | None:
    """The installed package's folder, when node and the package are both there."""
    module = (folder or default_dir()) / "node_modules" / PACKAGE
    return module if shutil.which("node") and (module / "package.json").is_file() else None


def install(folder: Path | None = None) -> Path:
    """Install the validator into ``folder`` with npm (if missing); returns the package folder."""
    folder = folder or default_dir()
    found = validator_module(folder)
    if found is not None:
        return found
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise RuntimeError("node and npm are needed to run the Khronos glTF validator")
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run([npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", PACKAGE],
                   check=True, capture_output=True, text=True, timeout=600)
    found = validator_module(folder)
    if found is None:
        raise RuntimeError(f"npm did not install {PACKAGE} into {folder}")
    return found


def validate(paths: list[Path], module: Path) -> list[dict]:
    """One report per file: ``{"file", "issues": {numErrors, ..., messages}}`` or ``{"file", "failure"}``."""
    result = subprocess.run(["node", "-e", SCRIPT, str(module), *map(str, paths)], capture_output=True,
                            text=True, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"the validator failed: {result.stderr.strip()}")
    return json.loads(result.stdout)


def errors(report: dict) -> list[str]:
    """``code at pointer: message`` of each error in a report (a failure to read counts as one)."""
    if "failure" in report:
        return [report["failure"]]
    return [f"{m['code']} at {m.get('pointer', '?')}: {m['message']}" for m in report["issues"]["messages"]
            if m["severity"] == 0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--install", action="store_true", help=f"install {PACKAGE} with npm when missing")
    parser.add_argument("--validator-dir", type=Path, default=None, help="where the npm package is (or goes)")
    args = parser.parse_args(argv)
    try:
        module = install(args.validator_dir) if args.install else validator_module(args.validator_dir)
        if module is None:
            print(f"{PACKAGE} not found in {args.validator_dir or default_dir()} (or node missing); "
                  "run with --install", file=sys.stderr)
            return 2
        reports = validate(args.files, module)
    except (RuntimeError, OSError, subprocess.SubprocessError, json.JSONDecodeError) as exc:
        print(f"cannot validate: {exc}", file=sys.stderr)
        return 2
    failed = 0
    for report in reports:
        bad = errors(report)
        issues = report.get("issues", {})
        counts = ", ".join(f"{issues.get(f'num{s.capitalize()}s', 0)} {s}s" for s in SEVERITIES)
        print(f"{report['file']}: {'INVALID' if bad else 'valid'} ({counts if issues else 'not read'})")
        for line in bad:
            print(f"  error: {line}")
        for message in issues.get("messages", []):
            if message["severity"] == 1:
                print(f"  warning: {message['code']} at {message.get('pointer', '?')}: {message['message']}")
        failed += bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
