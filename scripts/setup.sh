#!/usr/bin/env bash
# The main command: installs everything, builds thunderc, exports the model zoo with PyTorch,
# and runs the main job on a bundled model (see scripts/demo.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
python3 models/export_zoo.py --out build/models --no-check
scripts/demo.sh "${1:-mlp}"
