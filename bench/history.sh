#!/usr/bin/env bash
# Cost per job as history grows, and retention's purge while sending, one command (see bench/README.md, "History"):
#
#   bash bench/history.sh [N]     # N jobs per measured run, default 3000
#
# bench/run.sh with its history figure alone (BENCH_HISTORY, default 1000000 jobs and a tenth as many dead letters),
# on PostgreSQL: the sandbox run at 4 consumers on an empty database, then on one seeded with the history
# (generate_series, bench's HistorySeed), then again while Mailroom's retention removes that history. Prints, last:
#   CPU per job, 1M history / empty, PostgreSQL: <ratio>
#   Database CPU per job, 1M history / empty, PostgreSQL: <ratio>
#   Jobs/s, 1M history / empty, PostgreSQL: <ratio>
#   Retention purge, 1M history, PostgreSQL: <rows/s> rows/s (<jobs/s> jobs/s)
#   Sending during retention's purge / without, sandbox, 4 consumers, PostgreSQL: <ratio>
# Exit code as bench/run.sh's (1 also when the purge did not last the run beside it or did not finish).
# Options as bench/run.sh's (BENCH_PORT_OFFSET, BENCH_SKIP_BUILD, BENCH_SERVER_JAVA_OPTS...), and BENCH_HISTORY,
# BENCH_HISTORY_CONSUMERS (4), BENCH_RETENTION_INTERVAL (5s).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
case "${1:-3000}" in
  ''|*[!0-9]*) echo "usage: bash bench/history.sh [N]   (N jobs per measured run, default 3000)" >&2; exit 64 ;;
esac
export BENCH_HISTORY="${BENCH_HISTORY:-1000000}"
export BENCH_DATABASES=postgresql BENCH_CONSUMERS= BENCH_HTTP_CONSUMERS= BENCH_MIXED_N=0 BENCH_README=
exec bash "$here/run.sh" "${1:-3000}"
