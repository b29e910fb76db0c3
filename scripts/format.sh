#!/usr/bin/env bash
# Formats in place, with clang-format-14 and .clang-format, the files scripts/check-format.sh
# checks (the git-tracked *.cpp and *.hpp in src/, include/ and tests/), or only the FILEs given.
# Usage: scripts/format.sh [FILE...]
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "format: $CLANG_FORMAT not found; install it with scripts/setup.sh (Debian: apt-get install clang-format-14)" >&2
  exit 1
fi

if [ $# -gt 0 ]; then
  "$CLANG_FORMAT" -i --style=file "$@"
else
  ./scripts/check-format.sh --list | xargs -0 -r -n 16 -P "$(nproc)" "$CLANG_FORMAT" -i --style=file
fi
