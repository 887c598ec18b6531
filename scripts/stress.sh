#!/usr/bin/env bash
# Runs the whole suite (go test -race -tags full -timeout 30m ./...) several times in a
# row while a second copy of it runs alongside on the same machine, as on
# a busy CI runner: a test that passes only on an idle machine fails here.
#   bash scripts/stress.sh      # three runs
#   bash scripts/stress.sh 5    # five
# Each run's and each of the second copy's finished runs' result is
# printed with its time and the tests that failed; the logs (go test
# -json) are kept in the directory printed first. It exits 1 when any of
# the runs failed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
logs=$(mktemp -d)
echo "logs in $logs"

# suite runs the whole suite once, its go test -json output in $1, and
# prints one line: its name, result, seconds and the tests that failed.
suite() {
  local log=$1 name=$2 began=$SECONDS status=0
  go test -race -count=1 -tags full -timeout 30m -json ./... >"$log" 2>&1 || status=$?
  local failed
  failed=$(jq -r 'select(.Action == "fail" and .Test != null) | .Test' "$log" 2>/dev/null | sort -u | tr '\n' ' ')
  if [ "$status" = 0 ]; then
    echo "$name: ok in $((SECONDS - began))s"
  else
    echo "$name: FAIL (exit $status) in $((SECONDS - began))s: ${failed:-see $log}"
  fi
  return "$status"
}

# The second copy runs one suite after another until the last run ends;
# then the one it is in is stopped (a process group of its own) and does
# not count.
set -m
(
  i=1
  while :; do
    if ! suite "$logs/second-$i.json" "second copy, run $i" && [ ! -e "$logs/stopping" ]; then
      touch "$logs/second-failed"
    fi
    i=$((i + 1))
  done
) &
second=$!
set +m

failed=0
for i in $(seq "$runs"); do
  suite "$logs/run-$i.json" "run $i of $runs" || failed=1
done
touch "$logs/stopping"
kill -TERM -- "-$second" 2>/dev/null || true
wait "$second" 2>/dev/null || true
echo "the second copy's run then under way was stopped"
if [ -e "$logs/second-failed" ]; then failed=1; fi
exit "$failed"
