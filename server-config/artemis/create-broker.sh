#!/usr/bin/env bash
# Creates one ActiveMQ Artemis broker instance for Mailroom with Artemis's own `artemis create`, then lays
# Mailroom's configuration over it (broker.properties beside this file, users and roles, console access).
# Used by the remote-broker tests (it.support.ArtemisBroker), docker/compose.yaml and operators alike.
#
#   create-broker.sh <artemis-home> <instance-dir> primary|backup|single
#
# A primary and a backup form a replicated pair: the backup copies the primary's journal over the
# network and takes over when the primary dies; clients (Mailroom's pooled connection factory with
# ha=true) follow it. A single broker has no peer (Open Liberty's embedded default, server-config/liberty/run.sh).
# Environment (defaults in brackets):
#   MAILROOM_ARTEMIS_NAME [primary|backup]        broker name (the MBean key broker="<name>")
#   MAILROOM_ARTEMIS_HOST [127.0.0.1]             acceptor host, also announced to clients and the peer
#   MAILROOM_ARTEMIS_PORT [61616]                 acceptor port (core and AMQP 1.0)
#   MAILROOM_ARTEMIS_PEER                         the other broker's acceptor, tcp://host:port (required)
#   MAILROOM_ARTEMIS_CONSOLE_HOST [$MAILROOM_ARTEMIS_HOST], MAILROOM_ARTEMIS_CONSOLE_PORT [8161]
#                                                 web console and Jolokia (/console/jolokia)
#   MAILROOM_ARTEMIS_CONSOLE_ORIGINS              more origins the console (Jolokia) accepts, comma-separated
#                                                 patterns such as '*://localhost*' (a browser on a published port)
#   MAILROOM_ARTEMIS_MEMORY [512M]                broker heap
#   MAILROOM_ARTEMIS_CLUSTER_PASSWORD             replication between the pair (required)
#   MAILROOM_ARTEMIS_ADMIN_USER [admin] / MAILROOM_ARTEMIS_ADMIN_PASSWORD (required)   role operator
#   MAILROOM_BROKER_USER [mailroom] / MAILROOM_BROKER_PASSWORD (required)              role mailroom
#   MAILROOM_PRODUCER_USER [producer] / MAILROOM_PRODUCER_PASSWORD (optional)          role producer
#   MAILROOM_OPERATOR_USER [operator] / MAILROOM_OPERATOR_PASSWORD (optional)          role operator
# There are no default passwords here. Passwords are stored in etc/artemis-users.properties as Artemis
# stores them (hashed by `artemis create` for the admin, plain for the others: protect etc/).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
home="$(cd "$1" && pwd)"
instance="$2"
role="${3:?primary or backup}"
case "$role" in primary|backup|single) ;; *) echo "role must be primary, backup or single, not $role" >&2; exit 2 ;; esac
need() { [ -n "${!1:-}" ] || { echo "$1 is required" >&2; exit 2; }; }
cluster=()
if [ "$role" != single ]; then
  need MAILROOM_ARTEMIS_PEER
  need MAILROOM_ARTEMIS_CLUSTER_PASSWORD
  cluster=(--clustered --replicated --cluster-user mailroom-cluster --cluster-password "$MAILROOM_ARTEMIS_CLUSTER_PASSWORD"
           --staticCluster "$MAILROOM_ARTEMIS_PEER")
fi
need MAILROOM_ARTEMIS_ADMIN_PASSWORD
need MAILROOM_BROKER_PASSWORD
host="${MAILROOM_ARTEMIS_HOST:-127.0.0.1}"

backup_flag=()
[ "$role" = backup ] && backup_flag=(--backup)
# --no-autotune: the journal's sync timing is measured at create time otherwise (10 s, and a noisy figure)
"$home/bin/artemis" create "$instance" --silent --force --nio --no-autotune \
  --name "${MAILROOM_ARTEMIS_NAME:-$role}" \
  --host "$host" --default-port "${MAILROOM_ARTEMIS_PORT:-61616}" \
  --http-host "${MAILROOM_ARTEMIS_CONSOLE_HOST:-$host}" --http-port "${MAILROOM_ARTEMIS_CONSOLE_PORT:-8161}" \
  --no-amqp-acceptor --no-stomp-acceptor --no-mqtt-acceptor --no-hornetq-acceptor \
  --require-login --role operator \
  --user "${MAILROOM_ARTEMIS_ADMIN_USER:-admin}" --password "$MAILROOM_ARTEMIS_ADMIN_PASSWORD" \
  "${cluster[@]}" "${backup_flag[@]}" \
  --java-memory "${MAILROOM_ARTEMIS_MEMORY:-512M}" >"$instance.create.log" 2>&1 \
  || { cat "$instance.create.log" >&2; exit 1; }
etc="$instance/etc"

# Mailroom's addresses, dead-letter queues, address settings and security roles
cp "$here/broker.properties" "$etc/broker.properties"

# Core (Mailroom and Java producers, JMS) and AMQP 1.0 (producers in other languages, docs/producers.md) on the one
# acceptor; STOMP, MQTT, OpenWire and HornetQ stay closed: fewer open doors.
sed -i 's/protocols=CORE,AMQP,STOMP,HORNETQ,MQTT,OPENWIRE/protocols=CORE,AMQP/' "$etc/broker.xml"
grep -q 'protocols=CORE,AMQP;' "$etc/broker.xml" \
  || { echo "could not limit the acceptor to CORE,AMQP in $etc/broker.xml" >&2; exit 1; }
# A pair of two cannot win a quorum vote once one of them is gone: the primary must keep serving when
# its backup dies (not shut itself down), and a restarted primary must first ask whether the backup has
# taken over (and then fail back to it) instead of serving its stale journal.
sed -i 's#<vote-on-replication-failure>true</vote-on-replication-failure>#<vote-on-replication-failure>false</vote-on-replication-failure>\n               <check-for-active-server>true</check-for-active-server>#' "$etc/broker.xml"
# A backup that took over hands the service back when its primary returns (fail-back): the restarted primary finds
# it active (check-for-active-server above), copies the journal back, and the backup stops for it and restarts as
# its replica. Without this Artemis 2.40 answers "AMQ224056: Primary server will not fail-back automatically" and
# the pair stays reversed.
sed -i 's#<backup/>#<backup>\n               <allow-failback>true</allow-failback>\n            </backup>#' "$etc/broker.xml"
# The Xms `artemis create` writes is fixed at 512M: never above the heap asked for
sed -i "s/-Xms512M/-Xms${MAILROOM_ARTEMIS_MEMORY:-512M}/" "$etc/artemis.profile"

# Users and roles (JAAS properties login module; plain passwords are accepted beside ENC(...) ones).
# `artemis create` ends both files without a newline: add one before appending.
sed -i -e '$a\' "$etc/artemis-users.properties" "$etc/artemis-roles.properties"
add_user() { # <user> <password> <role>
  printf '%s = %s\n' "$1" "$2" >>"$etc/artemis-users.properties"
  if grep -q "^$3 = " "$etc/artemis-roles.properties"; then
    sed -i "s/^$3 = \(.*\)/$3 = \1,$1/" "$etc/artemis-roles.properties"
  else
    printf '%s = %s\n' "$3" "$1" >>"$etc/artemis-roles.properties"
  fi
}
add_user "${MAILROOM_BROKER_USER:-mailroom}" "$MAILROOM_BROKER_PASSWORD" mailroom
if [ -n "${MAILROOM_PRODUCER_PASSWORD:-}" ]; then
  add_user "${MAILROOM_PRODUCER_USER:-producer}" "$MAILROOM_PRODUCER_PASSWORD" producer
fi
if [ -n "${MAILROOM_OPERATOR_PASSWORD:-}" ]; then
  add_user "${MAILROOM_OPERATOR_USER:-operator}" "$MAILROOM_OPERATOR_PASSWORD" operator
fi

# Console and Jolokia: operators log in; Mailroom (role mailroom) reads queue figures through Jolokia
# and may only read (list*, get*, is*, count*, browse*): management.xml below keeps everything else for
# operators.
sed -i "s/^HAWTIO_ROLES='operator'/HAWTIO_ROLES='operator,mailroom'/" "$etc/artemis.profile"
sed -i -e 's#<access method="list\*" roles="operator"/>#<access method="list*" roles="operator,mailroom"/>#' \
       -e 's#<access method="get\*" roles="operator"/>#<access method="get*" roles="operator,mailroom"/>#' \
       -e 's#<access method="is\*" roles="operator"/>#<access method="is*" roles="operator,mailroom"/>#' \
       -e 's#<access method="browse\*" roles="operator"/>#<access method="browse*" roles="operator,mailroom"/>#' \
       -e 's#<access method="count\*" roles="operator"/>#<access method="count*" roles="operator,mailroom"/>#' \
       "$etc/management.xml"
IFS=',' read -r -a origins <<<"${MAILROOM_ARTEMIS_CONSOLE_ORIGINS:-}"
for o in "${origins[@]}"; do
  [ -n "$o" ] && sed -i "s#<cors>#<cors>\n        <allow-origin>$o</allow-origin>#" "$etc/jolokia-access.xml"
done
grep -q "HAWTIO_ROLES='operator,mailroom'" "$etc/artemis.profile" \
  || { echo "could not grant the console role to mailroom in $etc/artemis.profile" >&2; exit 1; }
echo "created $role broker $instance (core on $host:${MAILROOM_ARTEMIS_PORT:-61616}, console on ${MAILROOM_ARTEMIS_CONSOLE_HOST:-$host}:${MAILROOM_ARTEMIS_CONSOLE_PORT:-8161})"
