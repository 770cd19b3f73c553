#!/usr/bin/env bash
# Prints the jboss-cli batch that points WildFly's messaging at a remote ActiveMQ Artemis (the production
# topology) instead of the broker embedded in WildFly. configure.sh runs it when MAILROOM_BROKER_URL is set.
#
#   remote-broker.sh '<broker url>'
#
# The URL is an Artemis core client URL: one broker `tcp://host:port` or a list
# `(tcp://primary:61616,tcp://backup:61616)?ha=true&reconnectAttempts=-1`. Each host:port becomes an
# outbound socket binding and a remote connector; the query parameters become the pooled connection factory's
# attributes. ../broker-url.sh reads the URL, as for Open Liberty, and refuses what neither server would honour.
#
# What the batch does:
# - removes the embedded broker (server=default with its acceptor, queues, address settings and the
#   in-VM pooled connection factory activemq-ra),
# - adds the pooled connection factory mailroom-remote (transaction=xa: the broker and the database
#   commit together) bound where the embedded one was (java:/JmsXA and the platform default
#   java:jboss/DefaultJMSConnectionFactory that Mailroom's @Inject JMSContext uses), with the broker
#   user and password read from the environment at boot (MAILROOM_BROKER_USER / MAILROOM_BROKER_PASSWORD),
#   and consumer-window-size=0: an MDB session takes one message at a time from the broker instead of
#   buffering up to 1 MiB of them (hundreds of small jobs) in the node. When a node dies (kill -9, OOM,
#   power) the broker cancels every message its consumers held with the delivery count NOT decremented
#   (ServerConsumerImpl.updateDeliveryCountForCanceledRef: a failed client may have seen them), so with
#   the default window each death spent one of the 5 redelivery attempts of every job buffered there,
#   jobs onMessage never saw: the chaos suite's kill -9 x10 sent ~4,150 of 10,000 good jobs to
#   DLQ.mail.send by the redelivery limit. With window 0 a death costs an attempt only to the jobs
#   actually in onMessage (at most maxSession per MDB). The price is a round trip per message, small
#   beside a provider call.
# - makes it the resource adapter of every MDB (ejb3 default-resource-adapter-name),
# - keeps the java:/jms/queue/<name> bindings (external-jms-queue) that name the queues on the broker.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../broker-url.sh"
parsed="$(broker_url_parse "${1:?broker url}")"

echo "batch"
echo "/subsystem=messaging-activemq/server=default:remove"
echo "/socket-binding-group=standard-sockets/socket-binding=mailroom-artemis:remove"
connectors=""
attrs=""
n=0
while read -r kind name value; do
  if [ "$kind" = broker ]; then
    n=$((n + 1))
    echo "/socket-binding-group=standard-sockets/remote-destination-outbound-socket-binding=mailroom-broker-$n:add(host=$name, port=$value)"
    echo "/subsystem=messaging-activemq/remote-connector=mailroom-broker-$n:add(socket-binding=mailroom-broker-$n)"
    connectors="$connectors${connectors:+, }mailroom-broker-$n"
    continue
  fi
  case "$name" in
    ha) attr=ha ;;
    reconnectAttempts) attr=reconnect-attempts ;;
    retryInterval) attr=retry-interval ;;
    retryIntervalMultiplier) attr=retry-interval-multiplier ;;
    maxRetryInterval) attr=max-retry-interval ;;
    callTimeout) attr=call-timeout ;;
    clientFailureCheckPeriod) attr=client-failure-check-period ;;
    connectionTTL) attr=connection-ttl ;;
  esac
  attrs="$attrs, $attr=$value"
done <<<"$parsed"
echo "/subsystem=messaging-activemq/pooled-connection-factory=mailroom-remote:add(connectors=[$connectors], \
entries=[java:/JmsXA, java:jboss/DefaultJMSConnectionFactory], transaction=xa, consumer-window-size=0, \
user=\"\${env.MAILROOM_BROKER_USER:mailroom}\", password=\"\${env.MAILROOM_BROKER_PASSWORD}\"$attrs)"
echo "/subsystem=ejb3:write-attribute(name=default-resource-adapter-name, value=mailroom-remote)"
echo "run-batch"
