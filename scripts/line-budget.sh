#!/usr/bin/env bash
# Line budget: prints the lines per folder (src/<each>, include/seatorch/<each>, tests/<each>,
# rtl, scripts; nested folders such as src/kernels/x86 count in src/kernels) and the 10
# largest files, then fails (exit 1), naming each one, when a file in src/, include/ or rtl/
# is longer than MAX_LINES. Counts the text files git knows of (tracked, and untracked ones
# that are not ignored), without the fuzz corpus (tests/fuzz/corpus).
# Usage: scripts/line-budget.sh [--quiet]   (--quiet: only the files over the budget)
set -euo pipefail
cd "$(dirname "$0")/.."

MAX_LINES=500                     # the most lines one file in src/, include/ or rtl/ may have
BUDGET_DIRS=(src include rtl)     # the folders the budget applies to
EXCLUDE_RE='^tests/fuzz/corpus/'  # not source: the fuzzers' seed inputs

quiet=0
[ "${1:-}" = "--quiet" ] && quiet=1

# "lines path" for every text file in the folders that are reported.
counts=$(
  git ls-files -z --cached --others --exclude-standard -- src include tests rtl scripts |
    grep -zvE "$EXCLUDE_RE" |
    xargs -0 -r grep -IlZ '' 2>/dev/null |  # the text files (git may list deleted ones: skipped)
    xargs -0 -r wc -l | grep -v ' total$' | awk '{ print $1, $2 }' || true
)

if [ "$quiet" -eq 0 ]; then
  echo "Lines per folder:"
  awk '
    {
      n = split($2, p, "/")
      if (p[1] == "src" || p[1] == "tests") key = (n > 2) ? p[1] "/" p[2] : p[1] " (top level)"
      else if (p[1] == "include") key = (n > 3) ? p[1] "/" p[2] "/" p[3] : "include/seatorch (top level)"
      else key = p[1]
      lines[key] += $1; files[key]++
    }
    END { for (k in lines) printf "%7d  %3d files  %s\n", lines[k], files[k], k }
  ' <<<"$counts" | sort -k4
  awk '{ t += $1 } END { printf "%7d  total\n", t }' <<<"$counts"
  echo
  echo "The 10 largest files:"
  sort -rn <<<"$counts" | head -10 | awk '{ printf "%7d  %s\n", $1, $2 }'
  echo
fi

budget_re="^($(IFS='|'; echo "${BUDGET_DIRS[*]}"))/"
over=$(awk -v max="$MAX_LINES" -v re="$budget_re" '$2 ~ re && $1 > max' <<<"$counts" | sort -rn)
if [ -n "$over" ]; then
  while read -r n f; do
    echo "line-budget: $f has $n lines, over the budget of $MAX_LINES; split it" >&2
  done <<<"$over"
  exit 1
fi
echo "line-budget: every file in ${BUDGET_DIRS[*]} has at most $MAX_LINES lines" >&2
