#!/usr/bin/env bash
# Starts Mailroom in its image. The image holds no secret: users' passwords, the database password and provider
# secrets come in when it starts, as environment variables or as files (MAILROOM_X_FILE=/run/secrets/x sets
# MAILROOM_X to the file's content, e.g. a Docker or Kubernetes secret), so one image is promoted from staging to
# production. The users are added to the realm now (server-config/wildfly/users.sh), each only when its password
# is given; the operator's is required.
# The HTTP port listens on every interface; management (metrics, health, JMX) only inside the container unless
# MAILROOM_MANAGEMENT_BIND names an interface (docker/compose.yaml's Prometheus scrapes it: 0.0.0.0 there).
set -euo pipefail
wildfly="${WILDFLY_HOME:-/opt/jboss/wildfly}"
mailroom="${MAILROOM_HOME:-/opt/mailroom}"

for file_var in $(compgen -e | grep -E '^MAILROOM_[A-Z0-9_]+_FILE$' || true); do
  var="${file_var%_FILE}"
  if [ -n "${!var:-}" ]; then
    echo "both $var and $file_var are set: give one" >&2
    exit 1
  fi
  if [ ! -r "${!file_var}" ]; then
    echo "$file_var names ${!file_var}, which cannot be read" >&2
    exit 1
  fi
  export "$var"="$(cat "${!file_var}")"
  unset "$file_var"
done

if [ -z "${MAILROOM_OPERATOR_PASSWORD:-}" ]; then
  echo "MAILROOM_OPERATOR_PASSWORD (or MAILROOM_OPERATOR_PASSWORD_FILE) is required: docker run -e MAILROOM_OPERATOR_PASSWORD=..." >&2
  exit 1
fi
bash "$mailroom/server-config/wildfly/users.sh" "$wildfly"

exec "$wildfly/bin/standalone.sh" -c "${MAILROOM_SERVER_CONFIG:-standalone-mailroom.xml}" \
  -b 0.0.0.0 -bmanagement "${MAILROOM_MANAGEMENT_BIND:-127.0.0.1}" "$@"
