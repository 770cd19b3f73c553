#!/usr/bin/env bash
# Adds Mailroom's users to a WildFly installation from the environment, each only when its password is set;
# there are no default passwords. Run by configure.sh (the build, operators) and by the image's entrypoint at
# every start, so an image holds no password and takes them when it runs. Adding a user again updates it.
#
#   users.sh <wildfly-home>
#
#   MAILROOM_BROKER_USER (default mailroom) / MAILROOM_BROKER_PASSWORD      JMS producers (group guest)
#   MAILROOM_OPERATOR_USER (default operator) / MAILROOM_OPERATOR_PASSWORD  API + console, read and act
#   MAILROOM_VIEWER_USER (default viewer) / MAILROOM_VIEWER_PASSWORD        API + console, read only
#   MAILROOM_ADMIN_USER (default admin) / MAILROOM_ADMIN_PASSWORD           management realm: JMX, management console
set -euo pipefail
home="$(cd "$1" && pwd)"
cfg="$home/standalone/configuration"

# Application users live in the application realm (ApplicationRealm: the messaging server's
# elytron-domain, and the web deployment's "other" security domain, whose groups are its roles).
app_user() { # <user> <password> <group>
  "$home/bin/add-user.sh" -a -s -sc "$cfg" -u "$1" -p "$2" -g "$3" >/dev/null
}
if [ -n "${MAILROOM_BROKER_PASSWORD:-}" ]; then
  app_user "${MAILROOM_BROKER_USER:-mailroom}" "$MAILROOM_BROKER_PASSWORD" guest
fi
if [ -n "${MAILROOM_OPERATOR_PASSWORD:-}" ]; then
  app_user "${MAILROOM_OPERATOR_USER:-operator}" "$MAILROOM_OPERATOR_PASSWORD" mailroom-operator
fi
if [ -n "${MAILROOM_VIEWER_PASSWORD:-}" ]; then
  app_user "${MAILROOM_VIEWER_USER:-viewer}" "$MAILROOM_VIEWER_PASSWORD" mailroom-viewer
fi

# Management user (ManagementRealm): JMX clients (remote+http on the management port, e.g. jconsole with
# bin/client/jboss-client.jar) and the management console log in with it. Added only when
# MAILROOM_ADMIN_PASSWORD is set (MAILROOM_ADMIN_USER, default admin); no default password here.
if [ -n "${MAILROOM_ADMIN_PASSWORD:-}" ]; then
  "$home/bin/add-user.sh" -m -s -sc "$cfg" \
    -u "${MAILROOM_ADMIN_USER:-admin}" -p "$MAILROOM_ADMIN_PASSWORD" >/dev/null
fi
