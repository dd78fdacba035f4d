#!/usr/bin/env bash
# Install the opponent engines and Python tooling used by scripts/sprt.py and scripts/arena_check.py.
# Idempotent: skips what is already installed. Needs root (apt-get) and PyPI access.
set -euo pipefail

APT_PKGS=(gnushogi fairy-stockfish gpsshogi gpsshogi-data)
PIP_PKGS=(cshogi shogiarena)

missing=()
for p in "${APT_PKGS[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
else
    echo "apt: ${APT_PKGS[*]} already installed"
fi

PY=${PYTHON:-python3}
for p in "${PIP_PKGS[@]}"; do
    if "$PY" -m pip show "$p" >/dev/null 2>&1; then
        echo "pip: $p already installed"
    else
        "$PY" -m pip install -q "$p"
    fi
done

# Debian puts game binaries in /usr/games, which is often not on PATH.
for b in gnushogi fairy-stockfish gpsusi; do
    if command -v "$b" >/dev/null 2>&1; then
        echo "found $b: $(command -v "$b")"
    elif [ -x "/usr/games/$b" ]; then
        echo "found $b: /usr/games/$b (not on PATH; scripts use the full path)"
    else
        echo "WARNING: $b not found" >&2
    fi
done
