#!/usr/bin/env bash
# Installs every Debian 12 package Skald's build, tests and benchmarks use.
# Idempotent: packages already present are skipped; safe to re-run. Needs root (or sudo).
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config ccache git
  # the memory allocator of the skald program and the benchmarks (tcmalloc_minimal)
  libgoogle-perftools-dev
  # server, CLI, config, logging
  libcpp-httplib-dev nlohmann-json3-dev libspdlog-dev libfmt-dev libcli11-dev
  # storage and search
  libsqlite3-dev libre2-dev libssl-dev
  # indexes: FAISS (reference ANN and exact scans), ICU word break, Snowball stemming
  libfaiss-dev libopenblas-dev liblapack-dev libicu-dev libstemmer-dev
  # model providers, URL sources (libcurl)
  libcurl4-openssl-dev
  # document import: archives (zip/tar/gz sources, `add-resource DIR` uploads), HTML, PDF, Office XML
  libarchive-dev libgumbo-dev libpoppler-cpp-dev libpugixml-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev curl python3
  # bench/locomo_baseline.py (the lexical baseline the LoCoMo figures are compared with)
  python3-snowballstemmer
  # bench/locomo_list_intent.py (WordNet 3.0 nouns: plural head nouns, hyponyms)
  wordnet-base
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
