#!/usr/bin/env bash
# Runs INSIDE a Debian root (tools/real_blender/driver.py copies the checkout to BASE/src, BASE = $1):
# builds the extension zip with Blender's own `extension build`, installs it as a user does with
# `extension install-file -r user_default --enable`, starts Xvfb and runs Blender's window with
# gui_session.py. Everything it writes goes to BASE/out.
set -uo pipefail
BASE="${1:-/opt/classic_models_test}"   # driver.py gives each run its own folder
SRC=$BASE/src
OUT=$BASE/out
export HOME=$BASE/home            # a fresh user: the extension goes to $HOME/.config/blender/<version>/extensions
mkdir -p "$OUT" "$HOME" "$BASE/dist"
started=$(date +%s.%N)
blender --command extension build --source-dir "$SRC" --output-dir "$BASE/dist" >"$OUT/build.log" 2>&1 \
  || { echo "extension build failed (see build.log)" >"$OUT/session_error.txt"; exit 1; }
zip=$(ls "$BASE"/dist/*.zip | head -1)
blender --command extension install-file -r user_default --enable "$zip" >"$OUT/install.log" 2>&1 \
  || { echo "extension install-file failed (see install.log)" >"$OUT/session_error.txt"; exit 1; }
built=$(date +%s.%N)
# -displayfd: Xvfb picks a free display (X's abstract sockets are shared with other roots and the host)
xvfb_started=$(date +%s.%N)
Xvfb -displayfd 5 -screen 0 1600x1000x24 -nolisten tcp 5>"$OUT/display.txt" >"$OUT/xvfb.log" 2>&1 &
xvfb=$!
# wait until Xvfb has written its display number (a poll of that file, up to 2 minutes on a loaded machine)
for _ in $(seq 1200); do [ -s "$OUT/display.txt" ] && break; kill -0 "$xvfb" 2>/dev/null || break; sleep 0.1; done
[ -s "$OUT/display.txt" ] || { echo "Xvfb gave no display within 2 minutes (see xvfb.log)" >"$OUT/session_error.txt"; exit 1; }
export DISPLAY=":$(head -1 "$OUT/display.txt")"
blender_started=$(date +%s.%N)
# -p: the main window fills the screen at 0,0 (there is no window manager to place it); the whole session's
# cap is generous (a loaded 2-core machine takes several times an idle one's 6-7 minutes)
timeout "${CLASSIC_MODELS_GUI_TIMEOUT:-2700}" blender -p 0 0 1600 1000 --python "$SRC/tools/real_blender/gui_session.py" \
  -- "$OUT" >"$OUT/blender.log" 2>&1
echo "$?" >"$OUT/blender_exit.txt"
kill "$xvfb" 2>/dev/null
ended=$(date +%s.%N)
python3 -c "import json,sys; json.dump({'build_install_s': round($built-$started,1), 'xvfb_s': round($blender_started-$xvfb_started,1), 'blender_started': $blender_started, 'gui_s': round($ended-$built,1), 'zip': '$(basename "$zip")'}, open('$OUT/timings.json','w'))"
