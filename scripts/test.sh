#!/usr/bin/env bash
# Ferroce test command: installs what the tests need when it is missing (Debian packages:
# verilator, clang (it compiles the Verilator models in 60 % of gcc's time), yosys,
# nextpnr-ice40 and fpga-icestorm (the Alchitry Cu's bitstream), python3 with venv, tshark,
# iverilog, z3, tcl, qemu-system-x86; the Python
# environment of cocotb, cocotbext-axi and PeakRDL from PyPI; the interop test's VM image from
# Debian packages), then checks formatting and lints, and runs every test of the workspace. CI
# runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v verilator >/dev/null 2>&1 || missing+=(verilator)
command -v clang++ >/dev/null 2>&1 || missing+=(clang)
command -v yosys >/dev/null 2>&1 || missing+=(yosys)
command -v nextpnr-ice40 >/dev/null 2>&1 || missing+=(nextpnr-ice40)
command -v icepack >/dev/null 2>&1 || missing+=(fpga-icestorm)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v tshark >/dev/null 2>&1 || missing+=(tshark)
command -v iverilog >/dev/null 2>&1 || missing+=(iverilog)
command -v z3 >/dev/null 2>&1 || missing+=(z3)
command -v tclsh >/dev/null 2>&1 || missing+=(tcl)
python3 -c "import ensurepip, venv" >/dev/null 2>&1 || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
for component in rustfmt clippy; do
    if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
        echo "installing the Rust component $component"
        rustup component add "$component"
    fi
done

bash scripts/python_env.sh

# The interop test's VM image (Debian packages, qemu-system-x86 installed when missing), built
# while clippy and the build run; the test waits for it (a lock) and rebuilds it if this failed.
mkdir -p target/tmp
bash scripts/interop_vm.sh prepare target/tmp/interop-vm >target/tmp/interop-vm-prepare.log 2>&1 &

start=$SECONDS
step() { printf '\n== %s (%d s so far)\n' "$1" $((SECONDS - start)); }

step "cargo fmt --check"
cargo fmt --all --check

# clippy and the test build share no compiled artifact (clippy's wrapper gives every crate of the
# workspace, build dependencies included, fingerprints of their own), so clippy runs beside the
# build, in a target directory of its own, on the core the build leaves idle. Without
# ferroce-sim's `models` feature (--no-default-features) its build script needs neither
# ferroce-hdl nor cc, which clippy would otherwise compile in full for it: a third of its work.
step "cargo clippy (warnings are errors), beside the build"
target="${CARGO_TARGET_DIR:-target}"
CARGO_TARGET_DIR="$target/clippy" cargo clippy --workspace --all-targets --no-default-features -q -- -D warnings >target/tmp/clippy.log 2>&1 &
clippy=$!
step "cargo test --no-run (the build)"
if ! cargo test --workspace --no-run -q; then
    kill "$clippy" 2>/dev/null || true
    exit 1
fi
step "clippy's verdict"
if ! wait "$clippy"; then
    cat target/tmp/clippy.log
    echo "clippy found warnings (above): fix them or allow them where they are wrong" >&2
    exit 1
fi
cat target/tmp/clippy.log
# Most test binaries keep one core busy: cargo runs them one after the other, so the longest
# ones run beside it in a second `cargo test` (the same workspace and build), and the first one's
# runner (scripts/test_runner.sh) passes them by. Both get this command's arguments.
beside=(interop_rxe rx_front_cosim tx_path_cosim)
step "cargo test, with ${beside[*]} beside it"
runner_variable="CARGO_TARGET_$(rustc -vV | sed -n 's/^host: //p' | tr 'a-z.-' 'A-Z__')_RUNNER"
beside_log=target/tmp/tests-beside.log
cargo test --workspace "${beside[@]/#/--test=}" "$@" >"$beside_log" 2>&1 &
beside_pid=$!
status=0
env "$runner_variable=$PWD/scripts/test_runner.sh" FERROCE_TESTS_BESIDE="${beside[*]}" cargo test --workspace "$@" || status=$?
step "the tests beside it"
beside_status=0
wait "$beside_pid" || beside_status=$?
cat "$beside_log"
if [ "$status" -ne 0 ] || [ "$beside_status" -ne 0 ]; then
    echo "tests failed (cargo test: exit $status; the tests beside it: exit $beside_status)" >&2
    exit 1
fi
step "done"
