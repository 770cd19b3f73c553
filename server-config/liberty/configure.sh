#!/usr/bin/env bash
# Lays Mailroom's Open Liberty server over an unpacked Open Liberty runtime, as server-config/wildfly/configure.sh
# does for WildFly: the server "mailroom" with server.xml beside this file, the shared library and the Artemis
# resource adapter (resolved by Maven from libraries.pom.xml), the users, and the WAR.
#
#   configure.sh <wlp-home> <mailroom.war> <version properties for libraries.pom.xml: -Dname=value ...>
#
# Environment (defaults in brackets), read now, as WildFly's configure.sh reads them:
#   MAILROOM_BROKER_URL [tcp://127.0.0.1:61616]   the Artemis broker(s): tcp://host:port or (tcp://host:port,...), parameters
#                                                 as on WildFly (server-config/broker-url.sh)
#   MAILROOM_OPERATOR_USER [operator] / MAILROOM_OPERATOR_PASSWORD   role mailroom-operator, only if a password is given
#   MAILROOM_VIEWER_USER [viewer] / MAILROOM_VIEWER_PASSWORD         role mailroom-viewer, only if a password is given
# Everything else (database, consumers, broker user and password, Mailroom's own settings) is read by the server
# from the environment at every start. There are no default passwords here.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
wlp="$(cd "$1" && pwd)"
war="$2"
shift 2
# MAILROOM_BROKER_URL first: a bad one stops here, before anything is laid out
. "$here/../broker-url.sh"
url="${MAILROOM_BROKER_URL:-tcp://127.0.0.1:61616}"
parsed="$(broker_url_parse "$url")"
server="$wlp/usr/servers/mailroom"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

mkdir -p "$server/apps" "$server/lib" "$server/artemis" "$server/configDropins/overrides"
cp "$here/server.xml" "$server/server.xml"
printf '%s\n' '-Xmx512m' >"$server/jvm.options"

# The shared library, and the resource adapter's jars with its descriptor, packed as a .rar
# from the local repository when it has them (as after the build's own first run), else from Maven Central
resolve() { mvn -B -q -o -f "$here/libraries.pom.xml" "$@" || mvn -B -q -f "$here/libraries.pom.xml" "$@"; }
rm -f "$server"/lib/*.jar
resolve "$@" -P shared-library package -Dout="$server/lib"
resolve "$@" -P resource-adapter package -Dout="$work/rar"
rm -rf "$here/target"
cp -r "$here/artemis-ra/META-INF" "$work/rar/"
(cd "$work/rar" && jar --create --file "$server/artemis/artemis.rar" .)
# RESTEasy (Liberty's JAX-RS) finds a provider through META-INF/services/jakarta.ws.rs.ext.Providers: this names
# Jackson's, so the API writes JSON with Mailroom's ObjectMapper (ops.api.JacksonConfig) as on WildFly
jar --create --file "$server/lib/mailroom-jackson-provider.jar" -C "$here/jackson-provider" .

# The broker connectors, from MAILROOM_BROKER_URL, into the resource adapter's lists, and its parameters into the
# resource adapter's properties of the same name (ra.xml declares them)
connectors=""
parameters=""
ha=false
properties=""
while read -r kind name value; do
  if [ "$kind" = broker ]; then
    connectors="$connectors${connectors:+,}org.apache.activemq.artemis.core.remoting.impl.netty.NettyConnectorFactory"
    parameters="$parameters${parameters:+,}host=$name;port=$value"
  elif [ "$name" = ha ]; then
    ha="$value"
  else
    # Artemis's resource adapter names its properties as the URL does, capitalised (callTimeout: CallTimeout)
    properties="$properties ${name^}=\"$value\""
  fi
done <<<"$parsed"

xml() { local s="$1"; s="${s//&/&amp;}"; s="${s//</&lt;}"; s="${s//>/&gt;}"; s="${s//\"/&quot;}"; printf '%s' "$s"; }
{
  echo '<server>'
  echo "  <variable name=\"artemis.connectors\" value=\"$connectors\"/>"
  echo "  <variable name=\"artemis.parameters\" value=\"$parameters\"/>"
  echo "  <variable name=\"artemis.ha\" value=\"$ha\"/>"
  echo "  <resourceAdapter id=\"artemis\">"
  echo "    <properties.artemis ConnectorClassName=\"\${artemis.connectors}\" ConnectionParameters=\"\${artemis.parameters}\""
  echo "                        HA=\"\${artemis.ha}\" UserName=\"\${MAILROOM_BROKER_USER}\" Password=\"\${MAILROOM_BROKER_PASSWORD}\"$properties/>"
  echo "  </resourceAdapter>"
  echo '  <basicRegistry id="basic" realm="mailroom">'
  if [ -n "${MAILROOM_OPERATOR_PASSWORD:-}" ]; then
    echo "    <user name=\"$(xml "${MAILROOM_OPERATOR_USER:-operator}")\" password=\"$(xml "$MAILROOM_OPERATOR_PASSWORD")\"/>"
    echo "    <group name=\"mailroom-operator\"><member name=\"$(xml "${MAILROOM_OPERATOR_USER:-operator}")\"/></group>"
  fi
  if [ -n "${MAILROOM_VIEWER_PASSWORD:-}" ]; then
    echo "    <user name=\"$(xml "${MAILROOM_VIEWER_USER:-viewer}")\" password=\"$(xml "$MAILROOM_VIEWER_PASSWORD")\"/>"
    echo "    <group name=\"mailroom-viewer\"><member name=\"$(xml "${MAILROOM_VIEWER_USER:-viewer}")\"/></group>"
  fi
  echo '  </basicRegistry>'
  echo '</server>'
} >"$server/configDropins/overrides/mailroom-configured.xml"
chmod 600 "$server/configDropins/overrides/mailroom-configured.xml"

cp "$war" "$server/apps/mailroom.war"
echo "configured Open Liberty server $server (broker $url)"
