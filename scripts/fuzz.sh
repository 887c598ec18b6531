#!/usr/bin/env bash
# Runs every fuzz target of the module for the given time each (default 60s).
#   bash scripts/fuzz.sh        # one minute per target
#   bash scripts/fuzz.sh 10m    # a long run
#   FUZZ_JOBS=2 bash scripts/fuzz.sh 1s   # CI: two packages at a time, one worker each
# Crashers are written to the package's testdata/fuzz/<Target>/ and become
# regression tests of the ordinary `go test` run once committed.
#
# Each package's fuzzing binary is built once (go test -c -fuzz) and then
# run for each of its targets, from the package's directory as go test
# would: `go test -fuzz` links a binary per target, and in a short run the
# links took most of the time. FUZZ_JOBS packages are fuzzed at once
# (default 1, with a worker per core); with more than one job, each target
# fuzzes with one worker.
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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache=$(go env GOCACHE)/fuzz

# deadline_flake tells whether the log of a failed run is the coordinator's
# race alone: the deadline error, and no failing input, panic or error.
deadline_flake() {
  grep -q '^    context deadline exceeded$' "$1" &&
    ! grep -q -e 'Failing input written' -e 'panic:' -e '_test\.go:[0-9]*:' "$1"
}

# fuzz_package builds the fuzzing binary of one package and fuzzes each
# of its targets in turn, retrying the coordinator's race; it prints each
# target's log when done.
fuzz_package() {
  local pkg=$1 dir=$2 bin log parallel=()
  shift 2
  bin="$work/${pkg//\//_}.test"
  log="$work/${pkg//\//_}.log"
  if [ "$jobs" -gt 1 ]; then parallel=(-test.parallel 1); fi
  if ! go test -c -fuzz . -o "$bin" "$pkg" >"$log" 2>&1; then
    echo "fuzz $pkg: the fuzzing binary does not build"
    cat "$log"
    return 1
  fi
  for target in "$@"; do
    for try in 1 2 3 4; do
      echo "fuzz $pkg $target for $fuzztime" >"$log"
      if (cd "$dir" && "$bin" -test.run '^$' -test.fuzz "^${target}\$" -test.fuzztime "$fuzztime" \
        -test.fuzzminimizetime 2s -test.fuzzcachedir "$cache/$pkg" -test.timeout 10m \
        -test.paniconexit0 "${parallel[@]}") >>"$log" 2>&1; then
        cat "$log"
        break
      fi
      if [ "$try" -lt 4 ] && deadline_flake "$log"; then
        cat "$log"
        echo "fuzz $pkg $target: the fuzzing coordinator's deadline race (go.dev/issue/75804), nothing found; once more"
        continue
      fi
      cat "$log"
      return 1
    done
  done
}

# Every package with targets, one per line: "count package dir target...",
# most targets first, so that the longest package starts first.
list=()
total=0
while read -r count pkg dir targets; do
  list+=("$pkg $dir $targets")
  total=$((total + count))
done < <(
  go list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do
    targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | tr '\n' ' ' || true)
    set -- $targets
    if [ $# -gt 0 ]; then echo "$# $pkg $dir $targets"; fi
  done | sort -rn
)
echo "fuzzing $total targets in ${#list[@]} packages for $fuzztime each, $jobs packages at a time"

# A pool of jobs: one failure fails the run once every started package
# is done.
failed=0
running=0
for entry in "${list[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  # shellcheck disable=SC2086 # "package dir target..." splits into its parts
  fuzz_package $entry &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit "$failed"
