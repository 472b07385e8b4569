#!/usr/bin/env bash
# Ferroce test command: installs what the tests need when it is missing (Debian packages:
# verilator, yosys, python3, tshark), then runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v verilator >/dev/null 2>&1 || missing+=(verilator)
command -v yosys >/dev/null 2>&1 || missing+=(yosys)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v tshark >/dev/null 2>&1 || missing+=(tshark)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

cargo test --workspace "$@"
