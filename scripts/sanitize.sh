#!/usr/bin/env bash
# The sanitizer build: thunderc, the unit tests and the fuzz targets compiled by clang with
# AddressSanitizer + UndefinedBehaviorSanitizer (-O1, any finding aborts) and libFuzzer into
# BUILD_DIR (default build/sanitize), then run:
#   1. the unit tests;
#   2. every fuzz target over its checked-in inputs (tests/fuzz/seeds, tests/fuzz/corpus);
#   3. the error tests (tests/errors) against the sanitized thunderc;
#   4. a short fuzzing run per target (FUZZ_SECONDS, default 15; 0 skips it), through
#      scripts/fuzz.sh: a finding fails the script and is left in BUILD_DIR/findings.
# CTest runs it as `sanitize` (tests/CMakeLists.txt); THUNDERC_ZOO_DIR names the exported zoo
# the error tests use (build/models after `ctest -R export_zoo`). clang comes from Debian
# (scripts/clang_env.sh installs it when missing).
#   scripts/sanitize.sh [BUILD_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="$(mkdir -p "${1:-$ROOT/build/sanitize}" && cd "${1:-$ROOT/build/sanitize}" && pwd)"
cd "$ROOT"

# shellcheck source=scripts/clang_env.sh
source scripts/clang_env.sh
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$THUNDERC_CLANG" -DCMAKE_CXX_COMPILER="$THUNDERC_CLANGXX" \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1" -DTHUNDERC_SANITIZE=address,undefined \
  -DTHUNDERC_FUZZ=ON -DTHUNDERC_TEST_SANITIZERS=OFF >/dev/null
mapfile -t fuzz_targets < <(ls tests/fuzz/seeds)
cmake --build "$BUILD_DIR" -j "$(nproc)" \
  --target thunderc thunderc_unit_tests "${fuzz_targets[@]/#/fuzz_}"

# allocator_may_return_null: the runtime tests ask for absurd sizes and expect a null
# pointer (an out-of-memory status), which ASan would otherwise report as a finding.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-Haswell}"

echo "sanitize: unit tests (ASan+UBSan)"
"$BUILD_DIR/tests/unit/thunderc_unit_tests" --minimal
echo "sanitize: fuzz corpus replay (ASan+UBSan)"
ctest --test-dir "$BUILD_DIR" -L fuzz --output-on-failure
echo "sanitize: error tests against the sanitized thunderc"
THUNDERC_BIN="$BUILD_DIR/cli/thunderc" python3 -m pytest -q -p no:cacheprovider tests/errors
if (( ${FUZZ_SECONDS:-15} > 0 )); then
  echo "sanitize: fuzzing each target for ${FUZZ_SECONDS:-15}s"
  scripts/fuzz.sh --build-dir "$BUILD_DIR" --time "${FUZZ_SECONDS:-15}"
fi
echo "sanitize: passed"
