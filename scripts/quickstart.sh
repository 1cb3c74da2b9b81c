#!/bin/sh
# quickstart.sh demo|test — set up a fresh Debian 12 machine, build nd, then run
# the demo (the whole workflow on the bundled samples, plots included) or the tests.
#   demo: writes everything into ./demo-out/
#   test: builds with -Werror and runs every CTest test
set -eu
cd "$(dirname "$0")/.."

what=${1:-}
case "$what" in
  demo|test) ;;
  *) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac

./scripts/install-packages.sh cmake ninja-build pkg-config gcc libc6-dev libcsv-dev libgsl-dev \
    libyaml-dev libcjson-dev libyajl-dev zlib1g-dev gnuplot-nox libcmocka-dev
# The tests load the HTML reports in a real browser (tests/browser/): headless Chromium; the
# style test formats every C file with clang-format (docs/style.md).
[ "$what" = test ] && ./scripts/install-packages.sh chromium clang-format

build=${ND_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DND_WERROR=ON
cmake --build "$build"

if [ "$what" = test ]; then
  ctest --test-dir "$build" --no-tests=error --output-on-failure -j2
else
  ./scripts/demo.sh "$build"
fi
