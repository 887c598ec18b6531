#!/usr/bin/env bash
# Runs every fuzz target of the module for the given time each (default 60s).
#   bash scripts/fuzz.sh        # one minute per target
#   bash scripts/fuzz.sh 10m    # a long run
# Crashers are written to the package's testdata/fuzz/<Target>/ and become
# regression tests of the ordinary `go test` run once committed.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-60s}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' || true)
  for target in $targets; do
    echo "fuzz $pkg $target for $fuzztime"
    go test "$pkg" -run "^$" -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s
  done
done
