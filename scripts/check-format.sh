#!/usr/bin/env bash
# Checks that the C++ sources follow .clang-format: the git-tracked *.cpp and *.hpp in src/,
# include/ and tests/ (not tests/fuzz/corpus, nor anything generated), with clang-format-14
# (Debian 12's; other versions format differently, so the version is pinned: CLANG_FORMAT=...
# overrides it). Lists each file that is not formatted and exits 1; scripts/format.sh fixes them.
# Usage: scripts/check-format.sh [--list]   (--list: print the files it checks, NUL-separated)
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format-14}
EXCLUDE_RE='^tests/fuzz/corpus/|(^|/)generated/'

files() {
  git ls-files -z -- 'src/*.cpp' 'src/*.hpp' 'include/*.cpp' 'include/*.hpp' 'tests/*.cpp' 'tests/*.hpp' |
    grep -zvE "$EXCLUDE_RE" || true
}

if [ "${1:-}" = "--list" ]; then
  files
  exit 0
fi

if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "check-format: $CLANG_FORMAT not found; install it with scripts/setup.sh (Debian: apt-get install clang-format-14)" >&2
  exit 1
fi
if ! "$CLANG_FORMAT" --style=file --dump-config </dev/null >/dev/null; then
  echo "check-format: $CLANG_FORMAT cannot read .clang-format (above)" >&2
  exit 1
fi

# clang-format on batches of files (one process per file is slow to start); it names each file
# it rejects ("FILE:LINE:COL: error: code should be clang-formatted [-Wclang-format-violations]"),
# and only names of files it checked are kept.
bad=$(files | xargs -0 -r -n 64 "$CLANG_FORMAT" --dry-run --Werror --style=file 2>&1 |
  sed -nE 's/^([^:]+):[0-9]+:[0-9]+: (error|warning): .*/\1/p' | sort -u |
  grep -Fx -f <(files | tr '\0' '\n') || true)
total=$(files | tr -cd '\0' | wc -c)

if [ -n "$bad" ]; then
  printf '%s\n' "$bad" | sed 's/^/  not formatted: /' >&2
  echo "check-format: $(printf '%s\n' "$bad" | wc -l) of $total files do not follow .clang-format; fix them with scripts/format.sh (or: $CLANG_FORMAT -i FILE...)" >&2
  exit 1
fi
echo "check-format: all $total files follow .clang-format" >&2
