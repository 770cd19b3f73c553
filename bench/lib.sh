# Shared by the database benches (deadletters.sh, jobs.sh): source it, then `bench_exec <main class> <work dir> args...`.
#
# Builds and provisions the server into $BENCH_BUILD_DIR (default target-bench/) unless BENCH_SKIP_BUILD=1,
# compiles the test classes, resolves the test classpath, and execs the bench's main class from the test
# classpath (so it reuses the IT harness: PostgresServer, WildFlyServer, ApiClient) with the server home, its
# work directory under the build directory, and the port offset BENCH_PORT_OFFSET (default 300).
# The server and PostgreSQL are children of that JVM: it stops them when it ends (shutdown hooks; both also
# get a parent-death signal).

# Prints the row count $1 when it is a whole number; else prints the usage line $2 and exits 64.
bench_count() {
  case "$1" in
    ''|*[!0-9]*) echo "$2" >&2; exit 64 ;;
  esac
  echo "$1"
}

bench_exec() {
  local main="$1" work="$2"
  shift 2
  local root build_dir server_home classpath_file build_log cp_log java_bin
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  build_dir="$root/${BENCH_BUILD_DIR:-target-bench}"
  server_home="$build_dir/wildfly-39.0.1.Final"
  cd "$root"
  if [ "${BENCH_SKIP_BUILD:-0}" != "1" ]; then
    echo "[bench] building and provisioning the server into $build_dir"
    build_log="$(mktemp)"
    if ! mvn -B -q package -DskipTests -Dbuild.dir="$build_dir" >"$build_log" 2>&1; then
      tail -n 60 "$build_log" >&2
      echo "[bench] build failed (full log: $build_log)" >&2
      exit 1
    fi
    rm -f "$build_log"
  fi
  if [ ! -f "$server_home/standalone/deployments/mailroom.war" ]; then
    echo "[bench] no provisioned server at $server_home" >&2
    exit 1
  fi
  classpath_file="$build_dir/bench-classpath.txt"
  cp_log="$(mktemp)"
  if ! mvn -B -q -Dbuild.dir="$build_dir" test-compile dependency:build-classpath -Dmdep.includeScope=test \
      -Dmdep.outputFile="$classpath_file" >"$cp_log" 2>&1; then
    tail -n 60 "$cp_log" >&2
    echo "[bench] compiling the benchmark / resolving its classpath failed (full log: $cp_log)" >&2
    exit 1
  fi
  rm -f "$cp_log"
  java_bin="java"
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    java_bin="$JAVA_HOME/bin/java"
  fi
  exec "$java_bin" -Xmx512m -cp "$build_dir/test-classes:$build_dir/classes:$(cat "$classpath_file")" \
    -Dbench.server-home="$server_home" \
    -Dbench.work-dir="$build_dir/$work" \
    -Dbench.port-offset="${BENCH_PORT_OFFSET:-300}" \
    ${BENCH_JAVA_OPTS:-} \
    "$main" "$@"
}
