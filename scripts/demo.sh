#!/usr/bin/env bash
# The main job on one zoo model (default mlp): show its op report, compile it to a bundle,
# build the bundle with CMake, run it, and print the max error against PyTorch eager.
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${1:-mlp}
DIR=build/models/$MODEL
THUNDERC=build/cli/thunderc
OUT=build/bundles/$MODEL
echo "== thunderc $DIR/core.pt2 --emit=report"
"$THUNDERC" "$DIR/core.pt2" --emit=report
echo "== thunderc $DIR/train.pt2 -o $OUT --name $MODEL --golden $DIR"
"$THUNDERC" "$DIR/train.pt2" -o "$OUT" --name "$MODEL" --golden "$DIR"
echo "== cmake -S $OUT -B $OUT/build && cmake --build $OUT/build"
cmake -S "$OUT" -B "$OUT/build" -G Ninja >/dev/null
cmake --build "$OUT/build" >/dev/null
echo "== $OUT/build/${MODEL}_run vs PyTorch eager"
python3 tests/golden/compare.py --runner "$OUT/build/${MODEL}_run" --level train --model-dir "$DIR"
echo "== reference interpreter vs PyTorch eager"
python3 tests/golden/compare.py --thunderc "$THUNDERC" --model-dir "$DIR"
echo "== ctest --test-dir $OUT/build (the bundle's golden test)"
ctest --test-dir "$OUT/build"
