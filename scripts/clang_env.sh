# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: installs clang and its runtimes
# (libFuzzer, the sanitizers) from Debian when missing, and sets THUNDERC_CLANG /
# THUNDERC_CLANGXX. Idempotent.
THUNDERC_CLANG_PACKAGES=(clang-14 libclang-rt-14-dev)
THUNDERC_CLANG=${THUNDERC_CLANG:-clang-14}
THUNDERC_CLANGXX=${THUNDERC_CLANGXX:-clang++-14}
if ! command -v "$THUNDERC_CLANGXX" >/dev/null ||
   ! ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "clang_env: installing ${THUNDERC_CLANG_PACKAGES[*]}"
  _sudo=""
  if [[ $(id -u) -ne 0 ]]; then _sudo="sudo -n"; fi # never wait for a password
  $_sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $_sudo apt-get install -y -qq --no-install-recommends \
    "${THUNDERC_CLANG_PACKAGES[@]}" >/dev/null
fi
export THUNDERC_CLANG THUNDERC_CLANGXX
