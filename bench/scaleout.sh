#!/usr/bin/env bash
# Scale-out, side by side (see bench/README.md, "Scale-out"):
#
#   bash bench/scaleout.sh [N]     # N jobs per measured run, default 600
#
# Starts a replicated Artemis pair (server-config/artemis), one PostgreSQL and Mailroom nodes configured by
# configure.sh with MAILROOM_BROKER_URL (4 consumers each), all on 127.0.0.1, and measures one node's rate, then
# two nodes' rate: with the HTTP provider against a 200 ms stub (pass: two nodes >= 1.7 x one node), then with the
# sandbox provider (reported as it is). Exit code 0 pass, 1 fail (a job not counted exactly once, or the ratio),
# 2 the bench broke. Port offset BENCH_PORT_OFFSET (default 400; the nodes take it and it + 50).
# Optional: BENCH_LATENCY_MS (200), BENCH_SKIP_BUILD=1 (reuse target-bench/).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib.sh
source "$here/lib.sh"
n="$(bench_count "${1:-600}" "usage: bash bench/scaleout.sh [N]   (N jobs per measured run, default 600)")"
build_dir="$(cd "$here/.." && pwd)/${BENCH_BUILD_DIR:-target-bench}"
export BENCH_PORT_OFFSET="${BENCH_PORT_OFFSET:-400}"
export BENCH_JAVA_OPTS="${BENCH_JAVA_OPTS:-} -Dbench.latency-ms=${BENCH_LATENCY_MS:-200} \
 -Dmailroom.it.artemis-home=$build_dir/apache-artemis-2.40.0 \
 -Dmailroom.it.artemis-config=$here/../server-config/artemis \
 -Dmailroom.it.wildfly-config=$here/../server-config/wildfly \
 -Dmailroom.it.postgresql-jar=$build_dir/server-libs/postgresql.jar"
bench_exec dev.mailroom.bench.ScaleOutBench scaleout-work "$n"
