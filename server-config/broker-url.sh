# MAILROOM_BROKER_URL as both servers read it (sourced by server-config/wildfly/remote-broker.sh and
# server-config/liberty/configure.sh), so a URL one of them takes the other takes too, and one that either would
# drop or misread stops the configuration with a message naming the setting and the part at fault.
#
#   broker_url_parse '<url>'
#
# The URL is an Artemis core client URL: one broker `tcp://host:port`, or a list
# `(tcp://primary:61616,tcp://backup:61616)`, then optionally `?name=value&...` with these parameters only (each
# a property of the Artemis client both servers set): ha (true or false), reconnectAttempts (a whole number, -1
# for ever), retryInterval, maxRetryInterval, callTimeout, clientFailureCheckPeriod, connectionTTL (milliseconds,
# whole numbers, -1 where Artemis means "never") and retryIntervalMultiplier (a decimal number). Prints one line
# per broker, `broker <host> <port>`, then one per parameter, `param <name> <value>` (ha in lower case); on a bad
# URL prints nothing but the reason, to stderr, and returns 2.
broker_url_parse() {
  local url="$1" hosts query="" p key value e seen=" " n=0 out=""
  broker_url_refuse() { echo "MAILROOM_BROKER_URL='$url': $1 (docs/reference.md, Server-level settings)" >&2; }
  hosts="${url%%\?*}"
  [ "$hosts" != "$url" ] && query="${url#*\?}"
  if [[ "$hosts" == \(* || "$hosts" == *\) ]]; then
    [[ "$hosts" == \(*\) ]] || { broker_url_refuse "unbalanced parentheses in '$hosts'"; return 2; }
    hosts="${hosts:1:${#hosts}-2}"
  fi
  local endpoints params
  IFS=',' read -r -a endpoints <<<"$hosts"
  for e in "${endpoints[@]}"; do
    [[ "$e" =~ ^tcp://([A-Za-z0-9._-]+):([0-9]{1,5})$ ]] && [ "${BASH_REMATCH[2]}" -ge 1 ] \
      && [ "${BASH_REMATCH[2]}" -le 65535 ] || { broker_url_refuse "'$e' is not tcp://host:port"; return 2; }
    out="${out}broker ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"$'\n'
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || { broker_url_refuse "it names no broker"; return 2; }
  IFS='&' read -r -a params <<<"$query"
  for p in "${params[@]}"; do
    [ -z "$p" ] && continue
    [[ "$p" == *=* ]] || { broker_url_refuse "parameter '$p' has no value"; return 2; }
    key="${p%%=*}"
    value="${p#*=}"
    case "$key" in
      ha) [[ "${value,,}" =~ ^(true|false)$ ]] && value="${value,,}" ;;
      reconnectAttempts|retryInterval|maxRetryInterval|callTimeout|clientFailureCheckPeriod|connectionTTL)
        [[ "$value" =~ ^-?[0-9]{1,18}$ ]] ;;
      retryIntervalMultiplier) [[ "$value" =~ ^[0-9]+(\.[0-9]+)?$ ]] ;;
      *) broker_url_refuse "parameter '$key' is not supported (ha, reconnectAttempts, retryInterval,\
 retryIntervalMultiplier, maxRetryInterval, callTimeout, clientFailureCheckPeriod, connectionTTL)"
         return 2 ;;
    esac || { broker_url_refuse "bad value for $key: '$value'"; return 2; }
    [[ "$seen" != *" $key "* ]] || { broker_url_refuse "parameter '$key' is given twice"; return 2; }
    seen="$seen$key "
    out="${out}param $key $value"$'\n'
  done
  printf '%s' "$out"
}
