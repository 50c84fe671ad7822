#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs the whole suite through CTest
# (unit tests, text-IR FileCheck tests, zoo export, golden and error tests).
#
#   scripts/test.sh            the full suite (CI)
#   scripts/test.sh --quick    the quick tier (CTest label `quick`, a few minutes): before a commit
set -euo pipefail
cd "$(dirname "$0")/.."
CTEST_ARGS=()
case "${1:-}" in
  --quick) CTEST_ARGS=(-L quick) ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac
scripts/install_deps.sh
# In CI, NVRTC (installed above) must be found: `thunderc --verify` of every zoo model is part
# of the suite, and a build without it would skip those tests instead of failing.
if [[ "${CI:-}" == "true" ]]; then
  export THUNDERC_CMAKE_ARGS="${THUNDERC_CMAKE_ARGS:-} -DTHUNDERC_WITH_NVRTC=ON"
fi
scripts/build.sh
# Debian's OpenBLAS 0.3.21 miscomputes with its AVX-512 (SkylakeX) kernels on some CPUs; the
# machines this project runs on select the AVX2 kernels with OPENBLAS_CORETYPE=Haswell. Keep a
# value the environment gives, and use that one otherwise, so that the suite's numerics do not
# depend on how the shell was started.
export OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-Haswell}"
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)" ${CTEST_ARGS[@]+"${CTEST_ARGS[@]}"}
