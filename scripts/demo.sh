#!/usr/bin/env bash
# The main job on one zoo model (default mlp): print its SSA graph and op report, run it
# through thunderc's reference interpreter, and compare with PyTorch eager.
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${1:-mlp}
DIR=build/models/$MODEL
THUNDERC=build/cli/thunderc
echo "== thunderc $DIR/train.pt2 --emit=ir"
"$THUNDERC" "$DIR/train.pt2" --emit=ir
echo "== thunderc $DIR/core.pt2 --emit=report"
"$THUNDERC" "$DIR/core.pt2" --emit=report
python3 tests/golden/compare.py --thunderc "$THUNDERC" --model-dir "$DIR"
