#!/usr/bin/env bash
# The chaos suite at its full sizes, one command (chaos/README.md):
#
#   bash chaos/run.sh [extra mvn options]     # e.g. -Dchaos.relay-outage-seconds=30 for a quick look
#
# Runs the failsafe execution it-chaos alone (dev.mailroom.it.topology.ChaosIT: a replicated Artemis pair, PostgreSQL, a
# loopback SMTP relay and two WildFly nodes on the remote broker, started once; then kill -9 x10 during a 10,000-job
# run, a flood of 10,000 poison among 1,000 good jobs, 1,000 fuzzed jobs, PostgreSQL down 60 s, the relay down 5 min,
# a 200-job redrive killed mid-run, the primary broker killed and back, a node frozen past its leases, the database
# slow, hung and its disk full, the relay hung, the clock steps, the broker hung and its disk full), prints the report table and leaves
# $build/chaos/report.json. The sizes are the Maven profile chaos-full's; `mvn verify` runs the same execution at the
# smaller CI sizes that are the pom's defaults (CHAOS_SIZES=ci runs those here).
# Port offset CHAOS_PORT_OFFSET (default 4000), everything on 127.0.0.1; build output in CHAOS_BUILD_DIR (default
# target). One scenario: -Dit.test='ChaosIT#theDatabaseHangingForAMinuteUnderLoad' (JUnit's method selection; '+' joins several).
# Exit code: Maven's (0 = every scenario 0 lost, 0 duplicates, every invariant held).
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build_dir="$root/${CHAOS_BUILD_DIR:-target}"
log="$(mktemp)"
cd "$root"
echo "[chaos] ChaosIT (log: $log)"
rm -f "$build_dir/chaos/report.txt" "$build_dir/chaos/report.json"
sizes=(-Pchaos-full)
[ "${CHAOS_SIZES:-full}" = ci ] && sizes=()
started=$(date +%s)
mvn -B ${CHAOS_MVN_OPTS:-} verify -Dbuild.dir="$build_dir" -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test=ChaosIT -Dchaos.skip=false "${sizes[@]}" -Dfailsafe.failIfNoSpecifiedTests=false -Dit.port.offset="${CHAOS_PORT_OFFSET:-4000}" "$@" \
    >"$log" 2>&1
rc=$?
if [ -f "$build_dir/chaos/report.txt" ]; then
  cat "$build_dir/chaos/report.txt"
else
  echo "[chaos] no report written ($build_dir/chaos/report.txt)" >&2
fi
echo "[chaos] exit $rc after $(( $(date +%s) - started )) s (build and server starts included)"
if [ $rc -ne 0 ]; then
  grep -E 'Tests run:|FAIL|expected|Expect|BROKEN' "$log" | head -n 30 >&2
fi
exit $rc
