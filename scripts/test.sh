#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs the whole suite through CTest
# (unit tests, text-IR FileCheck tests, zoo export, golden and error tests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)"
