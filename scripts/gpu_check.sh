#!/usr/bin/env bash
# The GPU check of thunderc's CUDA target: compile every selected zoo model with --target cuda,
# build the bundles concurrently, then benchmarks/gpu_table.py compares each with PyTorch eager
# on the GPU and times it against eager and torch.compile (a Markdown table, also in --out).
#
# usage: scripts/gpu_check.sh [--models mlp,cnn,...] [--dtypes fp32,fp16,bf16] [--out FILE]
#                             [--emulate] [--iters N] [--thunderc PATH] [--work DIR]
#   --models     zoo models (default: all eight); each is crossed with --dtypes where the zoo
#                has that variant (mlp_fp16, cnn_bf16, transformer_fp16, gpt_bf16)
#   --out        the table (default build/gpu_check.md)
#   --emulate    no GPU: bundles built with -DTHUNDERC_BUNDLE_CUDA_EMULATE=ON and compared
#                with eager on the CPU; torch.compile skipped; latency times the emulation
#   --iters      timed runs per latency measurement (default 200)
#   --thunderc   the compiler (else $THUNDERC, else build/cli/thunderc, else scripts/build.sh)
#   --work       bundles, logs and (if needed) the zoo export (default build/gpu_check)
# The zoo is $THUNDERC_ZOO_DIR, else build/models when it holds every selected model, else it
# is exported into the work folder. Nothing is installed and nothing is downloaded.
#
# exit codes: 0 every model correct (latency is reported, never enforced); 1 a model failed
# (wrong numbers, or it did not compile, build or run); 2 setup error (no GPU without
# --emulate, a missing tool, thunderc without --target, bad arguments).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
EXIT_SETUP=2

die() { echo "gpu_check: error: $*" >&2; exit "$EXIT_SETUP"; }
say() { echo "gpu_check: $*" >&2; }
absolute() { realpath -m -- "$1"; }

MODELS=mlp,cnn,resnet,mobilenet,transformer,gpt,dynamic_mlp,ops
DTYPES=fp32,fp16,bf16
OUT=$ROOT/build/gpu_check.md
WORK=$ROOT/build/gpu_check
EMULATE=0
ITERS=200
THUNDERC_PATH=${THUNDERC:-}
while (($#)); do
  case $1 in
    --models | --dtypes | --out | --iters | --thunderc | --work)
      (($# >= 2)) || die "$1 needs a value"
      case $1 in
        --models) MODELS=$2 ;;
        --dtypes) DTYPES=$2 ;;
        --out) OUT=$(absolute "$2") ;;
        --iters) ITERS=$2 ;;
        --thunderc) THUNDERC_PATH=$(absolute "$2") ;;
        --work) WORK=$(absolute "$2") ;;
      esac
      shift 2 ;;
    --emulate) EMULATE=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $ITERS =~ ^[1-9][0-9]*$ ]] || die "--iters: expected a positive integer, got '$ITERS'"
[[ -z $THUNDERC_PATH ]] || THUNDERC_PATH=$(absolute "$THUNDERC_PATH")
ZOO=${THUNDERC_ZOO_DIR:+$(absolute "$THUNDERC_ZOO_DIR")}
cd "$ROOT"
START=$SECONDS

# 1. Tools and the GPU, checked before anything slow runs.
for tool in python3 cmake ninja; do
  command -v "$tool" >/dev/null || die "$tool not found on PATH"
done
if ((EMULATE)); then
  BUNDLE_CMAKE_ARGS=(-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON)
  THUNDERC_ARGS=(--cuda-emulation)
else
  command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]] ||
    die "nvcc not found (on PATH or /usr/local/cuda/bin); --emulate needs none"
  python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' ||
    die "python3 cannot import torch, or torch sees no CUDA device (without a GPU: --emulate)"
  BUNDLE_CMAKE_ARGS=(-DCMAKE_CUDA_ARCHITECTURES=native)
  THUNDERC_ARGS=()
fi
selected=$(python3 benchmarks/gpu_table.py --list --models "$MODELS" --dtypes "$DTYPES") ||
  exit "$EXIT_SETUP"
mapfile -t NAMES <<<"$selected"
[[ -n $selected ]] || die "no zoo model selected"

# 2. thunderc: given, or built here with the project's own script.
if [[ -z $THUNDERC_PATH && -x build/cli/thunderc ]]; then
  THUNDERC_PATH=$ROOT/build/cli/thunderc
elif [[ -z $THUNDERC_PATH ]]; then
  say "no thunderc given and none in build/: building it (scripts/build.sh, log build/gpu_check_build.log)"
  mkdir -p build
  scripts/build.sh >build/gpu_check_build.log 2>&1 ||
    die "scripts/build.sh failed (last lines of build/gpu_check_build.log below)
$(tail -n 5 build/gpu_check_build.log)"
  THUNDERC_PATH=$ROOT/build/cli/thunderc
fi
[[ -x $THUNDERC_PATH ]] || die "thunderc not found at $THUNDERC_PATH"
# (Captured, not piped into grep -q: under pipefail an early-exiting grep fails the pipeline.)
usage=$("$THUNDERC_PATH" --help 2>&1) ||
  die "$THUNDERC_PATH does not run: $(head -n 1 <<<"$usage")"
[[ $usage == *--target* ]] ||
  die "$THUNDERC_PATH has no --target option (built before the CUDA target?)"

# 3. The zoo: reuse an export holding every selected model, else export those into the work folder.
has_every_model() {
  local name
  for name in "${NAMES[@]}"; do
    [[ -f $1/$name/manifest.json && -f $1/$name/train.pt2 ]] || return 1
  done
}
if [[ -n $ZOO ]]; then
  has_every_model "$ZOO" || die "THUNDERC_ZOO_DIR=$ZOO lacks some of: ${NAMES[*]}"
elif has_every_model "$ROOT/build/models"; then
  ZOO=$ROOT/build/models
else
  ZOO=$WORK/models
  if ! has_every_model "$ZOO"; then
    say "exporting ${#NAMES[@]} zoo model(s) into $ZOO"
    mkdir -p "$ZOO"
    only=$(IFS=,; echo "${NAMES[*]}")
    python3 models/export_zoo.py --out "$ZOO" --only "$only" >"$WORK/export.log" 2>&1 ||
      die "models/export_zoo.py failed (see $WORK/export.log)"
  fi
fi

# 4. Compile every model's train.pt2 (the training IR, as scripts/demo.sh does) and build the
# bundles, several at once (nvcc is slow and single-threaded per file). Each writes
# <name>.log; gpu_table.py reports a missing runner with that log's first error.
BUNDLES=$WORK/bundles
rm -rf "$BUNDLES"
mkdir -p "$BUNDLES"
CORES=$(nproc)
PARALLEL=$((${#NAMES[@]} < CORES ? ${#NAMES[@]} : CORES))
JOBS=$((CORES / PARALLEL > 2 ? CORES / PARALLEL : 2))

build_bundle() {
  local name=$1 out=$BUNDLES/$1 began=$SECONDS verdict=built
  {
    "$THUNDERC_PATH" "$ZOO/$name/train.pt2" -o "$out" --name "$name" --target cuda \
      "${THUNDERC_ARGS[@]}" &&
      cmake -S "$out" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        "${BUNDLE_CMAKE_ARGS[@]}" &&
      cmake --build "$out/build" -j "$JOBS"
  } >"$BUNDLES/$name.log" 2>&1 || verdict="FAILED (see $BUNDLES/$name.log)"
  say "$name: $verdict in $((SECONDS - began)) s"
}

say "building ${#NAMES[@]} bundle(s), $PARALLEL at a time, ${BUNDLE_CMAKE_ARGS[*]}"
running=0
for name in "${NAMES[@]}"; do
  if ((running >= PARALLEL)); then
    wait -n
    running=$((running - 1))
  fi
  build_bundle "$name" &
  running=$((running + 1))
done
wait
say "bundles done after $((SECONDS - START)) s"

# 5. The table; its exit code is the check's. NAMES are exact zoo names: variants (mlp_fp16)
# are taken as they are and --dtypes fp32 keeps a base name (mlp) from being crossed again.
only=$(IFS=,; echo "${NAMES[*]}")
table_args=(--zoo "$ZOO" --bundles "$BUNDLES" --models "$only" --dtypes fp32 --iters "$ITERS"
  --out "$OUT")
if ((EMULATE)); then
  table_args+=(--emulate)
fi
status=0
python3 benchmarks/gpu_table.py "${table_args[@]}" || status=$?
say "finished in $((SECONDS - START)) s; table in $OUT"
exit "$status"
