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
exec "$VENV/bin/mkdocs" build --strict --clean -d out/site "$@"
