#!/usr/bin/env bash
# Installs the Debian packages Kiln needs to build and test. Idempotent: when every
# package is already present it does nothing (no apt-get update, no network).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libonnx-dev libprotobuf-dev protobuf-compiler
  libflatbuffers-dev flatbuffers-compiler
  libssl-dev libzstd-dev libeigen3-dev
  opencl-headers ocl-icd-opencl-dev pocl-opencl-icd
  libgtest-dev libgmock-dev libspdlog-dev libfmt-dev libstb-dev libcli11-dev
  libyaml-cpp-dev libbenchmark-dev libonnx-testdata
  slurm-wlm munge python3-venv
)
if [[ "${1:-}" == "--fuzz" ]]; then packages+=(clang libclang-rt-14-dev); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
