#!/usr/bin/env bash
# The broker containers of docker/compose.yaml: creates the instance with server-config/artemis/create-broker.sh
# on first start (the same script the tests use; settings from the MAILROOM_ARTEMIS_* environment), then runs it
# in the foreground. The instance (journal included) lives in the volume at /var/lib/artemis-instance.
#   artemis-entrypoint.sh primary|backup
set -euo pipefail
instance=/var/lib/artemis-instance/broker
if [ ! -x "$instance/bin/artemis" ]; then
  bash /opt/mailroom/server-config/artemis/create-broker.sh /opt/artemis "$instance" "$1"
fi
exec "$instance/bin/artemis" run
