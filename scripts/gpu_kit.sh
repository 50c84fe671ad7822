#!/usr/bin/env bash
# Packs what scripts/gpu_check.sh needs on a GPU machine that cannot build thunderc (no
# network, none of the -dev packages): thunderc built without NVRTC (--verify is not needed
# there, and libnvrtc alone is larger than the rest of the kit together), the shared libraries
# it links beyond glibc/libstdc++, and the exported zoo. The kit lands in gpu_kit/ (ignored by
# git, a few MiB); copy it with the source tree to the GPU machine and run there:
#   THUNDERC=gpu_kit/bin/thunderc THUNDERC_ZOO_DIR=gpu_kit/models scripts/gpu_check.sh
# Needs what scripts/setup.sh installs here.
set -euo pipefail
cd "$(dirname "$0")/.."
KIT=gpu_kit
BUILD=build/gpu_kit_build
rm -rf "$KIT"
mkdir -p "$KIT/bin" "$KIT/lib"

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTHUNDERC_WITH_NVRTC=OFF >/dev/null
cmake --build "$BUILD" --target thunderc -j "$(nproc)" >/dev/null
cp "$BUILD/cli/thunderc" "$KIT/bin/thunderc.bin"
# Every linked library outside the C/C++ runtimes (spdlog, fmt, ...) travels beside it.
ldd "$BUILD/cli/thunderc" | awk '/=> \// {print $3}' |
  grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
  while read -r library; do cp -L "$library" "$KIT/lib/"; done
cat >"$KIT/bin/thunderc" <<'WRAPPER'
#!/bin/sh
# thunderc from the GPU kit (scripts/gpu_kit.sh): its libraries are in ../lib.
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/thunderc.bin" "$@"
WRAPPER
chmod +x "$KIT/bin/thunderc"

if [[ ! -f build/models/mlp/manifest.json ]]; then
  python3 models/export_zoo.py --out build/models >/dev/null
fi
cp -r build/models "$KIT/models"
"$KIT/bin/thunderc" --help >/dev/null
echo "gpu_kit: $(du -sh "$KIT" | cut -f1) in $KIT/ (thunderc + $(ls "$KIT/lib" | wc -l) libraries + the zoo)"
