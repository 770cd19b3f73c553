#!/usr/bin/env bash
# The webhook reconciliation proof as a benchmark, one command (see bench/README.md, "Webhook reconciliation"):
#
#   bash bench/webhooks.sh [EVENTS [JOBS]]     # default 10000 webhook calls for 2000 jobs
#
# Runs the integration test dev.mailroom.it.reconcile.WebhookProofIT (failsafe execution it-h2: real WildFly, H2, the loopback
# SMTP relay, Svix-signed calls to the generic webhook profile, 8 posting threads) with the given sizes, and prints
# its PROOF lines: calls posted per second, the answers (stored / duplicate), the reconciliation lag p50/p99/max
# (received -> applied, from the inbox's own timestamps), and the final job states expected vs found.
# Port offset BENCH_PORT_OFFSET (default 300), everything on 127.0.0.1; build output in BENCH_BUILD_DIR (default
# target-bench). Exit code: the test's (0 = every job in the state its events imply, nothing lost or unmatched,
# lag p99 under 5 s).
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
events="${1:-10000}"
jobs="${2:-2000}"
case "$events$jobs" in
  *[!0-9]*) echo "usage: bash bench/webhooks.sh [EVENTS [JOBS]]" >&2; exit 64 ;;
esac
build_dir="$root/${BENCH_BUILD_DIR:-target-bench}"
log="$(mktemp)"
cd "$root"
echo "[bench] WebhookProofIT with $events calls for $jobs jobs (log: $log)"
started=$(date +%s)
mvn -B ${BENCH_MVN_OPTS:-} verify -Dbuild.dir="$build_dir" -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test=WebhookProofIT -Dit.h2.groups=events -Dfailsafe.failIfNoSpecifiedTests=false -Dit.port.offset="${BENCH_PORT_OFFSET:-300}" \
    -Dit.proof-events="$events" -Dit.proof-jobs="$jobs" >"$log" 2>&1
rc=$?
grep -h '^PROOF' "$log" || true
echo "[bench] exit $rc after $(( $(date +%s) - started )) s (build and server start included)"
if [ $rc -ne 0 ]; then
  grep -E 'Tests run:|FAIL|expected|Expect' "$log" | head -n 20 >&2
fi
exit $rc
