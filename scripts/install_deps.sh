#!/usr/bin/env bash
# Installs every system and Python package thunderc needs to build and test. Idempotent:
# packages already present are not reinstalled, and apt is only updated when something is
# missing.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libcxxopts-dev nlohmann-json3-dev libspdlog-dev libfmt-dev doctest-dev
  libopenblas-dev graphviz zlib1g-dev ccache
)

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

missing=()
for package in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if (( ${#missing[@]} )); then
  echo "install_deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -m pip install -q --disable-pip-version-check -r requirements.txt 2>/tmp/thunderc_pip.log; then
  cat /tmp/thunderc_pip.log >&2
  exit 1
fi
# Triton Inference Server for the thunderc backend's tests: the server binary and its libraries
# from the nvidia-pytriton wheel, without the wheel's Python dependencies (docs/TRITON.md).
if ! "$PYTHON" -m pip install -q --disable-pip-version-check --no-deps nvidia-pytriton==0.7.0 \
    2>/tmp/thunderc_pip.log; then
  cat /tmp/thunderc_pip.log >&2
  exit 1
fi
# The NVRTC wheel (requirements.txt) enables `thunderc --verify`; say where CMake will find it.
if nvrtc_dir=$("$PYTHON" -c "import nvidia, os; print(next(p for p in (os.path.join(d, 'cu13') for d in nvidia.__path__) if os.path.isfile(os.path.join(p, 'include', 'nvrtc.h'))))" 2>/dev/null); then
  echo "install_deps: NVRTC at $nvrtc_dir (thunderc --verify)"
fi
echo "install_deps: system and Python packages are present"
