#!/usr/bin/env bash
# Creates the Python virtual environment of the outside checks (cocotb 2.x with cocotbext-axi
# on Icarus Verilog, PeakRDL) when it is missing: FERROCE_VENV, or .venv at the repository's
# root. scripts/test.sh runs it; the tests (tests/tests/registers_*.rs) use it.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${FERROCE_VENV:-.venv}
packages=(cocotb==2.1.0 cocotbext-axi==0.1.28 peakrdl==1.5.0 peakrdl-cheader==1.1.0)
stamp="$venv/ferroce-packages.txt"
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "${packages[*]}" ]; then
    exit 0
fi
echo "creating the Python environment $venv: ${packages[*]}"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "${packages[@]}"
echo "${packages[*]}" > "$stamp"
