#!/usr/bin/env bash
# Job search at a million jobs, one command (see bench/README.md, "Job search"):
#
#   bash bench/jobs.sh [N]     # N jobs, default 1000000
#
# A real PostgreSQL (it.support.PostgresServer), the Flyway schema, N jobs and ~1.21 N recipients loaded with
# generate_series, then every search of GET /api/v1/jobs timed as the SQL JobSearch issues (JDBC) and through the
# REST API of Mailroom on WildFly pointed at that database (BENCH_JAVA_OPTS=-Dbench.api=false: SQL only).
# Rounds, runs and warm-up: -Dbench.rounds (3), -Dbench.runs (10), -Dbench.warmup (5) in BENCH_JAVA_OPTS.
# Build and port options as deadletters.sh (BENCH_SKIP_BUILD, BENCH_BUILD_DIR, BENCH_PORT_OFFSET).
# The person search ("alice", a part of her address) must find exactly her two jobs, else the bench breaks.
# Results: <build dir>/bench-jobs-work/results.md. Exit 0 when every search answered, 2 when the bench broke.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n="$(bench_count "${1:-1000000}" "usage: bash bench/jobs.sh [N]   (N jobs, default 1000000)")"
bench_exec dev.mailroom.bench.JobSearchBench bench-jobs-work "$n"
