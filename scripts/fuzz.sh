#!/usr/bin/env bash
# Runs every fuzz target of the module for the given time each (default 60s).
#   bash scripts/fuzz.sh        # one minute per target
#   bash scripts/fuzz.sh 10m    # a long run
#   FUZZ_JOBS=2 bash scripts/fuzz.sh 2s   # CI: two targets at a time, one worker each
# Crashers are written to the package's testdata/fuzz/<Target>/ and become
# regression tests of the ordinary `go test` run once committed.
#
# FUZZ_JOBS targets are fuzzed at once (default 1, with a worker per
# core): a short run's time goes mostly to linking the fuzzing binary and
# running the seed corpus, which one target does while another fuzzes.
# With more than one job, each target fuzzes with one worker.
#
# Go's fuzzing coordinator before Go 1.27 can fail a target with a bare
# "context deadline exceeded" when -fuzztime ends while a worker is busy
# (go.dev/issue/75804): nothing was found and no input is written. Such a
# run is retried, up to three times (the race has struck twice in a row on
# a loaded machine); any other failure, or a written input, fails at once.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-60s}
jobs=${FUZZ_JOBS:-1}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# deadline_flake tells whether the log of a failed run is the coordinator's
# race alone: the deadline error, and no failing input, panic or error.
deadline_flake() {
  grep -q '^    context deadline exceeded$' "$1" &&
    ! grep -q -e 'Failing input written' -e 'panic:' -e '_test\.go:[0-9]*:' "$1"
}

# fuzz_one fuzzes one target of one package, retrying the coordinator's
# race, and prints its log when done.
fuzz_one() {
  local pkg=$1 target=$2 parallel=()
  local log="$logs/${pkg//\//_}.$target.log"
  if [ "$jobs" -gt 1 ]; then parallel=(-parallel 1); fi
  for try in 1 2 3 4; do
    echo "fuzz $pkg $target for $fuzztime" >"$log"
    if go test "$pkg" -run "^$" -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s "${parallel[@]}" >>"$log" 2>&1; then
      cat "$log"
      return 0
    fi
    if [ "$try" -lt 4 ] && deadline_flake "$log"; then
      cat "$log"
      echo "fuzz $pkg $target: the fuzzing coordinator's deadline race (go.dev/issue/75804), nothing found; once more"
      continue
    fi
    cat "$log"
    return 1
  done
}

# Every target, package by package, one per line: "package target".
list=()
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' || true)
  for target in $targets; do
    list+=("$pkg $target")
  done
done
echo "fuzzing ${#list[@]} targets for $fuzztime each, $jobs at a time"

# A pool of jobs: each target's status goes to a file, so that one
# failure fails the run once every started target is done.
failed=0
running=0
for entry in "${list[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  # shellcheck disable=SC2086 # "package target" splits into the two
  fuzz_one $entry &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit "$failed"
