#!/usr/bin/env bash
# Open Liberty's embedded default in the foreground: a single Artemis broker beside the server (Liberty cannot embed
# one), then the server "mailroom" that configure.sh laid out. Ctrl-C (or SIGTERM) stops the server first, which
# lets the deliveries in flight finish or roll back onto the broker, then the broker: nothing accepted is lost.
#
#   run.sh <wlp-home> <artemis-home> <broker-instance-dir>
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
wlp="$(cd "$1" && pwd)"
artemis="$(cd "$2" && pwd)"
instance="$3"

if [ ! -d "$instance" ]; then
  MAILROOM_ARTEMIS_ADMIN_PASSWORD="${MAILROOM_ARTEMIS_ADMIN_PASSWORD:?}" \
    bash "$here/../artemis/create-broker.sh" "$artemis" "$instance" single
fi
"$instance/bin/artemis" run >"$instance.log" 2>&1 &
broker=$!
stop() {
  trap - INT TERM EXIT
  "$wlp/bin/server" stop mailroom || true
  kill "$broker" 2>/dev/null || true
  wait "$broker" 2>/dev/null || true
}
# a stop that was asked for is a normal end, not a failed build
trap 'stop; exit 0' INT TERM
trap stop EXIT
for _ in $(seq 1 60); do
  (exec 3<>"/dev/tcp/${MAILROOM_ARTEMIS_HOST:-127.0.0.1}/${MAILROOM_ARTEMIS_PORT:-61616}") 2>/dev/null && break
  kill -0 "$broker" 2>/dev/null || { cat "$instance.log" >&2; exit 1; }
  sleep 1
done
echo "broker running (log: $instance.log); starting Open Liberty"
"$wlp/bin/server" run mailroom &
wait $!
