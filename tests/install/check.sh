#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds a consumer with
# find_package(mispc) and another with pkg-config, and runs both. CFLAGS and
# LDFLAGS from the environment apply to both (scripts/test-sanitize sets them).
set -euo pipefail
build=$1 src=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$src" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
LD_LIBRARY_PATH="$scratch/prefix/lib" "$scratch/consumer/consumer"
pc=$(ls -d "$scratch"/prefix/lib*/pkgconfig | head -1)
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs mispc)
# shellcheck disable=SC2086
cc -std=c11 ${CFLAGS:-} "$src/consumer.c" -o "$scratch/consumer_pc" $flags ${LDFLAGS:-}
LD_LIBRARY_PATH="$scratch/prefix/lib" "$scratch/consumer_pc"
