#!/usr/bin/env bash
# Configures and builds thunderc and its tests into build/ (override with BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
# THUNDERC_CMAKE_ARGS: extra configure options (scripts/test.sh requires NVRTC under CI).
# shellcheck disable=SC2086
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} \
  ${THUNDERC_CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
