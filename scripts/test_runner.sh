#!/usr/bin/env bash
# The runner `scripts/test.sh` gives `cargo test --workspace` (CARGO_TARGET_<host>_RUNNER): it
# runs each test binary as cargo would, except the ones named in FERROCE_TESTS_BESIDE, which
# `scripts/test.sh` runs itself beside this cargo (their own `cargo test --workspace --test ...`,
# the same build): those binaries keep one core busy for minutes each, most of the others one
# core too, so two streams of binaries fill both cores. Outside `scripts/test.sh` it runs
# every binary.
binary=$1
name=$(basename "$binary")
name=${name%-*} # cargo names a test binary <target>-<hash>
for beside in ${FERROCE_TESTS_BESIDE:-}; do
    if [ "$name" = "$beside" ]; then
        echo "$name: runs beside this cargo (scripts/test.sh prints its results after this one's)"
        exit 0
    fi
done
exec "$@"
