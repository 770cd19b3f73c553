#!/usr/bin/env bash
# Configures a WildFly 39 installation for Mailroom, offline, from the CLI scripts beside this file.
# Used by the Maven build, by docker/Dockerfile and by operators alike.
#
#   configure.sh <wildfly-home> <postgresql-jdbc.jar> [mailroom.war]
#
# It writes standalone/configuration/standalone-mailroom.xml afresh from standalone-full.xml each
# time (so it can be run again), adds users to the application realm from the environment, each only
# when its password is set (there are no default passwords here; the Maven build passes the embedded
# default's documented ones, see pom.xml and docs/security.md):
#   MAILROOM_BROKER_USER (default mailroom) / MAILROOM_BROKER_PASSWORD      JMS producers (group guest)
#   MAILROOM_OPERATOR_USER (default operator) / MAILROOM_OPERATOR_PASSWORD  API + console, read and act
#   MAILROOM_VIEWER_USER (default viewer) / MAILROOM_VIEWER_PASSWORD        API + console, read only
# and deploys the WAR when given.
#
# Switches read here, at configure time:
#   MAILROOM_BROKER_URL      unset: the broker embedded in WildFly (the default). Set to an Artemis core
#                            URL, e.g. '(tcp://primary:61616,tcp://backup:61616)?ha=true&reconnectAttempts=-1':
#                            the production topology. The embedded broker is removed, messaging goes to
#                            the remote Artemis through the XA pooled connection factory mailroom-remote
#                            (remote-broker.sh), and MailroomDS becomes an XA datasource (xa-datasource.cli).
#                            The broker's own configuration is server-config/artemis/.
#   MAILROOM_SERVER_CONFIG   the file written in standalone/configuration (default standalone-mailroom.xml),
#                            so one installation can hold the embedded and the remote configuration side by side.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
home="$(cd "$1" && pwd)"
pg_jar="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
war="${3:-}"
cfg="$home/standalone/configuration"
# A bad MAILROOM_BROKER_URL stops here, before the server's configuration is touched
if [ -n "${MAILROOM_BROKER_URL:-}" ]; then
  . "$here/../broker-url.sh"
  broker_url_parse "$MAILROOM_BROKER_URL" >/dev/null
fi

server_config="${MAILROOM_SERVER_CONFIG:-standalone-mailroom.xml}"
cp "$cfg/standalone-full.xml" "$cfg/$server_config"
rm -rf "$home/modules/org/postgresql"
props="$(mktemp)"
trap 'rm -f "$props"' EXIT
printf 'mailroom.postgresql.jar=%s\nmailroom.server.config=%s\n' "$pg_jar" "$server_config" > "$props"
(cd "$here" && "$home/bin/jboss-cli.sh" --properties="$props" --file=mailroom.cli)
if [ -n "${MAILROOM_BROKER_URL:-}" ]; then
  remote="$(mktemp)"
  trap 'rm -f "$props" "$remote"' EXIT
  { echo "embed-server --server-config=$server_config --std-out=discard"
    bash "$here/remote-broker.sh" "$MAILROOM_BROKER_URL"
    cat "$here/xa-datasource.cli"
    echo "stop-embedded-server"; } > "$remote"
  (cd "$here" && "$home/bin/jboss-cli.sh" --file="$remote")
fi

# Users from the environment, each only when its password is set (users.sh; the image runs it again at start)
bash "$here/users.sh" "$home"

# PostgreSQL when MAILROOM_DB_URL names it: the datasource's driver follows the URL.
conf="$home/bin/standalone.conf"
if ! grep -q 'mailroom: database driver' "$conf"; then
  cat >> "$conf" <<'CONF'

# mailroom: database driver follows MAILROOM_DB_URL unless MAILROOM_DB_DRIVER says otherwise
case "${MAILROOM_DB_URL:-}" in
  jdbc:postgresql:*) export MAILROOM_DB_DRIVER="${MAILROOM_DB_DRIVER:-postgresql}" ;;
esac
CONF
fi
# The connection pool follows the consumer counts at boot: each concurrent delivery may hold two
# connections (its own and a REQUIRES_NEW one), plus 10 for the background work (sweeper, monitors, API);
# never below the former fixed 30. MAILROOM_DB_POOL_MAX, when set, wins.
# Every wait on PostgreSQL bounded: the driver's socket, connect and login timeouts (db-timeouts.conf).
if ! grep -q 'mailroom: every wait on PostgreSQL bounded' "$conf"; then
  cat "$here/db-timeouts.conf" >> "$conf"
fi
if ! grep -q 'mailroom: connection pool' "$conf"; then
  cat >> "$conf" <<'CONF'

# mailroom: connection pool sized from MAILROOM_CONSUMERS + MAILROOM_BULK_CONSUMERS unless MAILROOM_DB_POOL_MAX is set
if [ -z "${MAILROOM_DB_POOL_MAX:-}" ]; then
  mailroom_pool=$(( 2 * (${MAILROOM_CONSUMERS:-4} + ${MAILROOM_BULK_CONSUMERS:-2}) + 10 ))
  [ "$mailroom_pool" -lt 30 ] && mailroom_pool=30
  export MAILROOM_DB_POOL_MAX="$mailroom_pool"
fi
CONF
fi

if [ -n "$war" ]; then
  rm -f "$home/standalone/deployments/mailroom.war"*
  cp "$war" "$home/standalone/deployments/mailroom.war"
fi
echo "configured $home ($server_config${MAILROOM_BROKER_URL:+, remote broker $MAILROOM_BROKER_URL})"
