#!/usr/bin/env bash
# Fuzzing campaigns (tests/fuzz/README.md): builds the fuzz targets with libFuzzer, ASan and
# UBSan (clang) into BUILD_DIR (default build/fuzz; scripts/sanitize.sh's build works too) and
# fuzzes each named target (default: all) for SECONDS, starting from the checked-in inputs
# (tests/fuzz/seeds/<target> and tests/fuzz/corpus/<target>). New inputs go to
# BUILD_DIR/corpus/<target>; findings (crash-*, leak-*, timeout-*, oom-*) to
# BUILD_DIR/findings/<target>, and the script fails if there are any. With --merge, the inputs
# that add coverage are merged (minimized) into tests/fuzz/corpus/<target> for committing.
#   scripts/fuzz.sh [--time SECONDS] [--jobs N] [--merge] [--build-dir DIR] [TARGET...]
#   scripts/fuzz.sh --time 3600 --jobs 2 pt2_json     # a long campaign on one target
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SECONDS_PER_TARGET=60
JOBS=1
MERGE=0
BUILD_DIR="$ROOT/build/fuzz"
TARGETS=()
while (( $# )); do
  case "$1" in
    --time) SECONDS_PER_TARGET="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --merge) MERGE=1; shift ;;
    --build-dir) BUILD_DIR="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done
cd "$ROOT"
BUILD_DIR="$(mkdir -p "$BUILD_DIR" && cd "$BUILD_DIR" && pwd)"
if (( ${#TARGETS[@]} == 0 )); then
  mapfile -t TARGETS < <(ls tests/fuzz/seeds)
fi

# shellcheck source=scripts/clang_env.sh
source scripts/clang_env.sh
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$THUNDERC_CLANG" -DCMAKE_CXX_COMPILER="$THUNDERC_CLANGXX" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1" -DTHUNDERC_SANITIZE=address,undefined \
    -DTHUNDERC_FUZZ=ON -DTHUNDERC_TEST_SANITIZERS=OFF >/dev/null
fi
cmake --build "$BUILD_DIR" -j "$(nproc)" --target "${TARGETS[@]/#/fuzz_}"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
status=0
for target in "${TARGETS[@]}"; do
  work="$BUILD_DIR/corpus/$target"
  findings="$BUILD_DIR/findings/$target"
  mkdir -p "$work" "$findings" "tests/fuzz/corpus/$target"
  dict=()
  if [[ -f "tests/fuzz/dict/$target.dict" ]]; then
    dict=(-dict="$ROOT/tests/fuzz/dict/$target.dict")
  fi
  echo "fuzz.sh: $target for ${SECONDS_PER_TARGET}s (${JOBS} job(s))"
  log="$BUILD_DIR/fuzz_$target.log"
  # With several jobs libFuzzer runs workers that log to fuzz-<n>.log in the working directory:
  # run it in its own folder under the build tree.
  parallel=()
  if (( JOBS > 1 )); then parallel=(-jobs="$JOBS" -workers="$JOBS"); fi
  rundir="$BUILD_DIR/fuzz_run_$target"
  rm -rf "$rundir" && mkdir -p "$rundir"
  if ! (cd "$rundir" && "$BUILD_DIR/tests/fuzz/fuzz_$target" "$work" \
      "$ROOT/tests/fuzz/seeds/$target" "$ROOT/tests/fuzz/corpus/$target" "${dict[@]}" \
      -max_total_time="$SECONDS_PER_TARGET" "${parallel[@]}" -max_len=1048576 \
      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/") \
      >"$log" 2>&1; then
    status=1
  fi
  { cat "$log" "$rundir"/fuzz-*.log 2>/dev/null || true; } |
    { grep -E "stat::number_of_executed_units|^==[0-9]+== ?ERROR|SUMMARY" || true; } |
    awk -v t="$target" '/number_of_executed_units/ {n += $2; next} {print t ": " $0}
                        END {print t ": " n + 0 " executions"}'

  if compgen -G "$findings/*" >/dev/null; then
    echo "fuzz.sh: $target: findings in $findings" >&2
    status=1
  fi
  if (( MERGE )); then
    # Only what the seeds and the corpus do not already cover; files are named by SHA-1.
    "$BUILD_DIR/tests/fuzz/fuzz_$target" -merge=1 "tests/fuzz/corpus/$target" \
      "tests/fuzz/seeds/$target" "$work" >>"$log" 2>&1
    find "tests/fuzz/corpus/$target" -type f | while read -r file; do
      if [[ -e "tests/fuzz/seeds/$target/$(basename "$file")" ]]; then rm "$file"; fi
    done
  fi
done
exit $status
