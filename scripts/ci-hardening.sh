#!/bin/sh
# ci-hardening.sh — CI's second pass, after ./scripts/quickstart.sh test (which installs the
# build dependencies and runs every test once):
#   1. builds with ASan+UBSan (-DND_SANITIZE=ON) and runs the whole test suite under them,
#      the bad-input corpus (tests/bad/MANIFEST) and the rename-failure test included;
#   2. builds the libFuzzer targets with clang-14 (-DND_FUZZ=ON), replays every fixed
#      crash and seed, and runs each target for a short smoke time through the `fuzz`
#      CMake target, so the list of targets lives in tests/fuzz.cmake only.
# About 6 minutes on 2 cores. Environment: ND_FUZZ_SMOKE_SECONDS (default 30 per target),
# ND_ASAN_BUILD_DIR (build-asan), ND_FUZZ_BUILD_DIR (build-fuzz).
set -eu
cd "$(dirname "$0")/.."

./scripts/install-packages.sh clang-14 libclang-rt-14-dev

asan=${ND_ASAN_BUILD_DIR:-build-asan}
cmake -S . -B "$asan" -G Ninja -DND_WERROR=ON -DND_SANITIZE=ON
cmake --build "$asan"
ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$asan" --no-tests=error --output-on-failure -j2

fuzz=${ND_FUZZ_BUILD_DIR:-build-fuzz}
CC=clang-14 cmake -S . -B "$fuzz" -G Ninja -DND_WERROR=ON -DND_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DND_FUZZ_SECONDS="${ND_FUZZ_SMOKE_SECONDS:-30}" -DND_FUZZ_JOBS=2
cmake --build "$fuzz"
ctest --test-dir "$fuzz" --no-tests=error --output-on-failure -j2 -R '^fuzz_'
cmake --build "$fuzz" --target fuzz
