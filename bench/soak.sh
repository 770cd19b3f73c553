#!/usr/bin/env bash
# Memory under a long run, one command (see bench/README.md, "Memory"):
#
#   bash bench/soak.sh [N]     # N jobs in all, default 200000
#
# bench/run.sh with its memory soak alone (BENCH_SOAK=N), on PostgreSQL: one server started with the embedded
# default's heap (bin/standalone.conf's -Xms64m -Xmx512m), N sandbox jobs at 4 consumers in runs of 10,000; the heap
# after a full collection (jcmd GC.run, GC.heap_info) after the first run and at the end, and the server's resident
# memory. Prints, last:
#   Heap after a full GC, <N> jobs / first 10k, sandbox, 4 consumers, PostgreSQL: <ratio>
#   Server resident memory after <N> jobs, sandbox, PostgreSQL: <MiB> MiB (heap after a full GC ... committed)
# Exit code as bench/run.sh's (1 also when the server logged an OutOfMemoryError).
# Options as bench/run.sh's (BENCH_PORT_OFFSET, BENCH_SKIP_BUILD...), and BENCH_HISTORY_CONSUMERS (4).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
case "${1:-200000}" in
  ''|*[!0-9]*) echo "usage: bash bench/soak.sh [N]   (N jobs in all, default 200000)" >&2; exit 64 ;;
esac
export BENCH_SOAK="${1:-200000}"
export BENCH_DATABASES=postgresql BENCH_CONSUMERS= BENCH_HTTP_CONSUMERS= BENCH_MIXED_N=0 BENCH_README=
exec bash "$here/run.sh" 1000
