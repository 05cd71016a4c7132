#!/usr/bin/env bash
# Build the manual (README's links lead into it) as a site with mkdocs, strictly:
# a broken link, a missing picture or a page left out of mkdocs.yml's nav fails the build.
#
#   bash tools/build_docs.sh            # -> out/site/index.html; exit status = the build's
#
# mkdocs comes from PyPI into .venvs/docs (made on first use, reused after).
set -euo pipefail
cd "$(dirname "$0")/.."
MKDOCS_VERSION=1.6.1
VENV=.venvs/docs
PYTHON=${PYTHON:-python3}
if ! "$VENV/bin/python" -c "import mkdocs, sys; sys.exit(mkdocs.__version__ != '$MKDOCS_VERSION')" 2>/dev/null; then
    echo "== making $VENV with mkdocs==$MKDOCS_VERSION"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "mkdocs==$MKDOCS_VERSION"
fi
# README.md is outside the site: its links into docs/ must lead to files that exist.
"$VENV/bin/python" - <<'PY'
import re, sys
from pathlib import Path
bad = [m for m in re.findall(r"\]\(([^)#\s]+)[^)]*\)", Path("README.md").read_text())
       if "://" not in m and not Path(m).exists()]
for m in bad:
    print(f"README.md links to {m}, which does not exist")
sys.exit(1 if bad else 0)
PY
exec "$VENV/bin/mkdocs" build --strict --clean -d out/site "$@"
