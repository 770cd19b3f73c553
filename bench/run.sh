#!/usr/bin/env bash
# Mailroom's throughput benchmark, one command (see bench/README.md):
#
#   bash bench/run.sh [N]          # N jobs per run, default 3000
#
# Builds and provisions the server into target-bench/ (tests skipped, test classes compiled), then runs
# dev.mailroom.bench.SendBench in its own JVM from the test classpath: broker ceiling (a plain transacted
# consumer), Mailroom with the sandbox provider (zero latency), Mailroom with the HTTP provider against a
# 50 ms stub, and good-job throughput with 10% permanently failing jobs mixed in as a ratio to a clean run (HTTP
# provider, 0 ms stub, 4 consumers, a server start for each of the two runs). Port offset 300 (HTTP 8380, management 10290, Artemis 61916), everything on 127.0.0.1.
# Every sandbox and 50 ms figure also measures, in the same server at the same concurrency, the naive MDB (one transaction)
# and the guarded MDB (claim committed before the call, acceptance committed on its own: the floor of the guarantees).
#
# Optional environment:
#   BENCH_CONSUMERS=4,2,8          MAILROOM_CONSUMERS values of the sandbox runs (the first hosts the baseline)
#   BENCH_HTTP_CONSUMERS=4,16      MAILROOM_CONSUMERS values of the HTTP runs (empty: none); each checks that as many
#                                  calls reach the stub at once
#   BENCH_DATABASES=h2,postgresql  every figure on each (PostgreSQL started as the tests start it)
#   BENCH_PORT_OFFSET=300          WildFly's port offset
#   BENCH_README=bench/README.md   where the generated table goes (between its markers; empty: nowhere)
#   BENCH_CHART=bench/send-throughput.png   the chart
#   BENCH_LATENCY_MS=50            the stub provider's latency
#   BENCH_MIXED_N=                 good jobs per run of the permanent-failure figure (default min(N, 1000); 0: skip it)
#   BENCH_SERVER_JAVA_OPTS=        extra server JVM options ({run} = the run's name), e.g. a Flight Recorder recording:
#                                  -XX:StartFlightRecording=filename=/tmp/{run}.jfr,settings=profile
#   BENCH_JPA_STATS=1              each Mailroom run also reports Hibernate's statements/flushes/transactions per job
#   BENCH_SKIP_BUILD=1             reuse target-bench/ as it is (it must have been built)
#   BENCH_WARMUP=200               untimed warm-up jobs before each measured run (default min(200, N/10))
#   BENCH_HISTORY=1000000          adds the history figure on PostgreSQL (bench/history.sh runs it alone): the sandbox run
#                                  (BENCH_HISTORY_CONSUMERS=4) on an empty database and on one seeded with that many
#                                  finished jobs and a tenth as many dead letters, then again while retention purges
#                                  them (BENCH_RETENTION_INTERVAL=5s)
#   BENCH_SOAK=200000              adds the memory soak on PostgreSQL (bench/soak.sh runs it alone): that many sandbox
#                                  jobs through one server with the embedded default's heap, the heap after a full GC
#                                  after the first 10,000 and at the end, and the server's resident memory
#   BENCH_SERVERS=wildfly          the servers: with liberty in the list (wildfly,liberty), the build also lays out
#                                  Open Liberty and a standalone Artemis, and dev.mailroom.bench.ServerCpuBench prints
#                                  CPU per job on each (sandbox, 4 consumers, H2) side by side, after the figures above
#   BENCH_SEND_FIGURES=0           skip the figures above (SendBench): only the servers' side by side
#
# Needs only a JDK 17+ and Maven 3.8+. Leaves no server running: the benchmark JVM stops each server
# it starts (also from a shutdown hook), and this script kills the one it recorded if that JVM did not.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-3000}"
case "$n" in
  ''|*[!0-9]*) echo "usage: bash bench/run.sh [N]   (N a positive number of jobs, default 3000)" >&2; exit 64 ;;
esac
build_dir="$root/target-bench"
server_home="$build_dir/wildfly-39.0.1.Final"
pid_file="$build_dir/bench-server.pid"

cleanup() {
  # Backstop only: the server JVM the benchmark recorded, if it is still alive and really ours.
  if [ -f "$pid_file" ]; then
    pid="$(cat "$pid_file" 2>/dev/null || true)"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$server_home"; then
      echo "[bench] stopping the leftover server (pid $pid)" >&2
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pid_file"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cd "$root"
if [ "${BENCH_SKIP_BUILD:-0}" != "1" ]; then
  echo "[bench] building and provisioning the server into target-bench/ (the first run downloads ~350 MB into ~/.m2)"
  build_log="$(mktemp)"
  # pre-integration-test lays out Open Liberty (unpack-openliberty, configure-liberty) besides what package builds
  phase=package
  case ",${BENCH_SERVERS:-wildfly}," in *,liberty,*) phase=pre-integration-test ;; esac
  if ! mvn -B -q "$phase" -DskipTests -Dliberty.skip=false -Dbuild.dir=target-bench >"$build_log" 2>&1; then
    tail -n 60 "$build_log" >&2
    echo "[bench] build failed (full log: $build_log)" >&2
    exit 1
  fi
  rm -f "$build_log"
fi
if [ ! -x "$server_home/bin/standalone.sh" ] || [ ! -f "$server_home/standalone/deployments/mailroom.war" ]; then
  echo "[bench] no provisioned server at $server_home" >&2
  exit 1
fi

java_bin="java"
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  java_bin="$JAVA_HOME/bin/java"
fi

# The benchmark runs from the test classpath (it reuses src/test/java/dev/mailroom/it/support), in its own JVM
# started here, so its exit code is the script's: 0 all counted once, 1 a run lost/duplicated jobs or timed out,
# 2 the benchmark itself failed.
classpath_file="$build_dir/bench-classpath.txt"
cp_log="$(mktemp)"
if ! mvn -B -q -Dbuild.dir=target-bench test-compile dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$classpath_file" >"$cp_log" 2>&1; then
  tail -n 60 "$cp_log" >&2
  echo "[bench] compiling the benchmark / resolving its classpath failed (full log: $cp_log)" >&2
  exit 1
fi
rm -f "$cp_log"

set +e
rc=0
if [ "${BENCH_SEND_FIGURES:-1}" != "0" ]; then
"$java_bin" -Xmx512m -cp "$build_dir/test-classes:$build_dir/classes:$(cat "$classpath_file")" \
  -Dbench.server-home="$server_home" \
  -Dbench.work-dir="$build_dir/bench-work" \
  -Dbench.pid-file="$pid_file" \
  -Dbench.port-offset="${BENCH_PORT_OFFSET:-300}" \
  -Dbench.consumers="${BENCH_CONSUMERS-4,2,8}" \
  -Dbench.http-consumers="${BENCH_HTTP_CONSUMERS-4,16}" \
  -Dbench.databases="${BENCH_DATABASES:-h2,postgresql}" \
  -Dbench.readme="${BENCH_README-$root/bench/README.md}" \
  -Dbench.chart="${BENCH_CHART:-$root/bench/send-throughput.png}" \
  -Dbench.commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" \
  -Dbench.latency-ms="${BENCH_LATENCY_MS:-50}" \
  -Dbench.mixed-n="${BENCH_MIXED_N:-}" \
  -Dbench.server-java-opts="${BENCH_SERVER_JAVA_OPTS:-}" \
  -Dbench.jpa-stats="${BENCH_JPA_STATS:-false}" \
  -Dbench.history="${BENCH_HISTORY:-0}" \
  -Dbench.history-consumers="${BENCH_HISTORY_CONSUMERS:-4}" \
  -Dbench.retention-interval="${BENCH_RETENTION_INTERVAL:-5s}" \
  -Dbench.soak="${BENCH_SOAK:-0}" \
  -Dbench.warmup="${BENCH_WARMUP:-}" \
  dev.mailroom.bench.SendBench "$n"
rc=$?
fi
case ",${BENCH_SERVERS:-wildfly}," in
  *,liberty,*)
    "$java_bin" -Xmx512m -cp "$build_dir/test-classes:$build_dir/classes:$(cat "$classpath_file")" \
      -Dbench.server-home="$server_home" \
      -Dbench.work-dir="$build_dir/bench-work" \
      -Dbench.port-offset="${BENCH_PORT_OFFSET:-300}" \
      -Dbench.servers="${BENCH_SERVERS}" \
      -Dmailroom.it.liberty-home="$build_dir/liberty/wlp" \
      -Dmailroom.it.artemis-home="$(ls -d "$build_dir"/apache-artemis-* | head -n 1)" \
      -Dmailroom.it.artemis-config="$root/server-config/artemis" \
      dev.mailroom.bench.ServerCpuBench "$n"
    servers_rc=$?
    [ "$rc" -ne 0 ] || rc=$servers_rc
    ;;
esac
set -e
exit "$rc"
