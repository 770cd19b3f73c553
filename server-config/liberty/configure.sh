#!/usr/bin/env bash
# Lays Mailroom's Open Liberty server over an unpacked Open Liberty runtime, as server-config/wildfly/configure.sh
# does for WildFly: the server "mailroom" with server.xml beside this file, the shared library and the Artemis
# resource adapter (resolved by Maven from libraries.pom.xml), the users, and the WAR.
#
#   configure.sh <wlp-home> <mailroom.war> <version properties for libraries.pom.xml: -Dname=value ...>
#
# Environment (defaults in brackets), read now, as WildFly's configure.sh reads them:
#   MAILROOM_BROKER_URL [tcp://127.0.0.1:61616]   the Artemis broker(s): tcp://host:port[,tcp://host:port][?ha=true]
#   MAILROOM_OPERATOR_USER [operator] / MAILROOM_OPERATOR_PASSWORD   role mailroom-operator, only if a password is given
#   MAILROOM_VIEWER_USER [viewer] / MAILROOM_VIEWER_PASSWORD         role mailroom-viewer, only if a password is given
# Everything else (database, consumers, broker user and password, Mailroom's own settings) is read by the server
# from the environment at every start. There are no default passwords here.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
wlp="$(cd "$1" && pwd)"
war="$2"
shift 2
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

# The broker connectors, from MAILROOM_BROKER_URL, into the resource adapter's lists
url="${MAILROOM_BROKER_URL:-tcp://127.0.0.1:61616}"
hosts="${url%%\?*}"
hosts="${hosts#(}"
hosts="${hosts%)}"
ha=false
[[ "$url" == *"?"* && "${url#*\?}" =~ (^|&)ha=true($|&) ]] && ha=true
connectors=""
parameters=""
IFS=',' read -r -a endpoints <<<"$hosts"
for e in "${endpoints[@]}"; do
  [[ "$e" =~ ^tcp://([A-Za-z0-9._-]+):([0-9]+)$ ]] \
    || { echo "MAILROOM_BROKER_URL: '$e' is not tcp://host:port" >&2; exit 2; }
  connectors="$connectors${connectors:+,}org.apache.activemq.artemis.core.remoting.impl.netty.NettyConnectorFactory"
  parameters="$parameters${parameters:+,}host=${BASH_REMATCH[1]};port=${BASH_REMATCH[2]}"
done
[ -n "$connectors" ] || { echo "MAILROOM_BROKER_URL names no broker" >&2; exit 2; }

xml() { local s="$1"; s="${s//&/&amp;}"; s="${s//</&lt;}"; s="${s//>/&gt;}"; s="${s//\"/&quot;}"; printf '%s' "$s"; }
{
  echo '<server>'
  echo "  <variable name=\"artemis.connectors\" value=\"$connectors\"/>"
  echo "  <variable name=\"artemis.parameters\" value=\"$parameters\"/>"
  echo "  <variable name=\"artemis.ha\" value=\"$ha\"/>"
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
