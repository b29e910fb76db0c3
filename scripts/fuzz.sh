#!/usr/bin/env bash
# Fuzzes seatorch's readers with libFuzzer (clang, ASan+UBSan): builds the targets of
# tests/fuzz/ in build/fuzz, replays each committed seed corpus (tests/fuzz/corpus/NAME/),
# then runs each target for FUZZ_SECONDS seconds (default 30). Exits non-zero on the first
# crash, sanitizer report, leak, out-of-memory or slow input (over 10 s), with the log's tail
# and the input that did it (build/fuzz/artifacts/). Ends with a table of executions per
# target. Called by scripts/test.sh; new inputs found go to build/fuzz/corpus/, never into
# the committed seeds.
#   FUZZ_SECONDS=0 ./scripts/fuzz.sh    # build and replay only
#   ./scripts/fuzz.sh csv idx           # only these targets
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-30}
build=build/fuzz
if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz.sh: clang++ is missing; run ./scripts/setup.sh (it installs clang and libclang-rt-14-dev)" >&2
  exit 1
fi

echo "== fuzz: configure and build ($build, clang)" >&2
CXX=clang++ cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build"

if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(sed -n 's/^seatorch_fuzz_target(\([a-z0-9_]*\)).*/\1/p' tests/fuzz/CMakeLists.txt)
fi

mkdir -p "$build/artifacts"
summary=()
for t in "${targets[@]}"; do
  fuzzer="$build/${t}_fuzz"
  seeds="tests/fuzz/corpus/$t"
  work="$build/corpus/$t"
  log="$build/$t.log"
  mkdir -p "$work"
  flags=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-")

  echo "== fuzz $t: replay $(find "$seeds" -type f | wc -l) seeds" >&2
  if ! "$fuzzer" "${flags[@]}" -runs=0 "$seeds" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz.sh: $t crashed on its seed corpus ($seeds); see $log" >&2
    exit 1
  fi

  if [ "$seconds" -gt 0 ]; then
    echo "== fuzz $t: ${seconds} s" >&2
    if ! "$fuzzer" "${flags[@]}" -max_total_time="$seconds" "$work" "$seeds" >"$log" 2>&1; then
      tail -n 40 "$log" >&2
      echo "fuzz.sh: $t found a failing input: $(ls -t "$build/artifacts/$t-"* 2>/dev/null | head -n 1); see $log" >&2
      exit 1
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    summary+=("$(printf '%-12s %10s executions in %3s s, corpus %5s inputs' "$t" "$execs" "$seconds" \
      "$(find "$work" -type f | wc -l)")")
  fi
done

for line in "${summary[@]}"; do echo "fuzz: $line" >&2; done
echo "fuzz.sh: ${#targets[@]} targets, no crash" >&2
