#!/usr/bin/env bash
# A rank that stalls or dies must not hang the others (tests/dist, issue 25):
#   1. rank 1 stops making kvstore calls: rank 0's allreduce fails with
#      Weft's timeout error (3 s) and the job ends;
#   2. rank 1 exits early: mpirun ends the job.
# Each must end within 30 s. Usage: dist_failure_test.sh MPIRUN WEFT_DIST_TESTS
set -uo pipefail
mpirun=$1 tests=$2
run() {  # FILTER -> output in $out, seconds in $secs, status in $rc
  local start=$SECONDS
  out=$(timeout 60 "$mpirun" --allow-run-as-root --oversubscribe -np 2 "$tests" --gtest_filter="$1" 2>&1)
  rc=$?
  secs=$((SECONDS - start))
}
fail() { echo "FAIL: $*"; echo "$out" | tail -30; exit 1; }

run DistFailure.StalledRankMakesTheOthersFailInBoundedTime
echo "stalled rank: job ended after ${secs} s (mpirun status $rc)"
[[ $secs -lt 30 ]] || fail "the job took ${secs} s"
grep -q "WEFT_DIST_FAILURE_REPORTED" <<<"$out" || fail "rank 0 did not report the timeout"
grep -q "FAILED" <<<"$out" && fail "a test assertion failed"

run DistFailure.RankExitsEarly
echo "rank exits early: job ended after ${secs} s (mpirun status $rc)"
[[ $secs -lt 30 ]] || fail "the job took ${secs} s"
[[ $rc -ne 0 && $rc -ne 124 ]] || fail "expected mpirun to fail the job (status $rc)"
echo "PASS"
