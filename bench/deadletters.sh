#!/usr/bin/env bash
# Dead-letter queries at a million rows, one command (see bench/README.md, "Dead-letter queries"):
#
#   bash bench/deadletters.sh [N]     # N dead letters, default 1000000
#
# Builds and provisions the server into target-bench/ (unless BENCH_SKIP_BUILD=1), then runs
# dev.mailroom.bench.DeadLetterQueryBench from the test classpath: a real PostgreSQL from the project's own
# test dependency (it.support.PostgresServer), the Flyway schema, N rows loaded with generate_series, Mailroom
# on WildFly pointed at it, and every list filter, the groups and the arrivals timed through the REST API
# (p50 and max). Port offset BENCH_PORT_OFFSET (default 300), everything on 127.0.0.1.
# Results: target-bench/bench-dlq-work/results.md. Exit 0 when every query answered, 2 when the bench broke.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-1000000}"
case "$n" in
  ''|*[!0-9]*) echo "usage: bash bench/deadletters.sh [N]   (N dead letters, default 1000000)" >&2; exit 64 ;;
esac
build_dir="$root/${BENCH_BUILD_DIR:-target-bench}"
server_home="$build_dir/wildfly-39.0.1.Final"

cd "$root"
if [ "${BENCH_SKIP_BUILD:-0}" != "1" ]; then
  echo "[bench] building and provisioning the server into $build_dir"
  build_log="$(mktemp)"
  if ! mvn -B -q package -DskipTests -Dbuild.dir="$build_dir" >"$build_log" 2>&1; then
    tail -n 60 "$build_log" >&2
    echo "[bench] build failed (full log: $build_log)" >&2
    exit 1
  fi
  rm -f "$build_log"
fi
if [ ! -f "$server_home/standalone/deployments/mailroom.war" ]; then
  echo "[bench] no provisioned server at $server_home" >&2
  exit 1
fi

classpath_file="$build_dir/bench-classpath.txt"
cp_log="$(mktemp)"
if ! mvn -B -q -Dbuild.dir="$build_dir" test-compile dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$classpath_file" >"$cp_log" 2>&1; then
  tail -n 60 "$cp_log" >&2
  echo "[bench] compiling the benchmark / resolving its classpath failed (full log: $cp_log)" >&2
  exit 1
fi
rm -f "$cp_log"

java_bin="java"
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  java_bin="$JAVA_HOME/bin/java"
fi
# The server and PostgreSQL are children of this JVM: it stops them when it ends (shutdown hooks; both also
# get a parent-death signal).
exec "$java_bin" -Xmx512m -cp "$build_dir/test-classes:$build_dir/classes:$(cat "$classpath_file")" \
  -Dbench.server-home="$server_home" \
  -Dbench.work-dir="$build_dir/bench-dlq-work" \
  -Dbench.port-offset="${BENCH_PORT_OFFSET:-300}" \
  dev.mailroom.bench.DeadLetterQueryBench "$n"
