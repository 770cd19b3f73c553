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

. "$(dirname "$0")/lib.sh"
n="$(bench_count "${1:-1000000}" "usage: bash bench/deadletters.sh [N]   (N dead letters, default 1000000)")"
bench_exec dev.mailroom.bench.DeadLetterQueryBench bench-dlq-work "$n"
