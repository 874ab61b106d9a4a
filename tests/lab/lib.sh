# Shared by the lab scripts: where the lab lives, and small helpers.
# The state lives outside the repository so the postgres user can reach it wherever
# the checkout is; the path is keyed by the checkout so two clones do not collide.
STATE=${INDOUBT_LAB_STATE:-/tmp/indoubt-lab-$(printf '%s' "$LAB" | md5sum | cut -c1-10)}
KAFKA_VERSION=${INDOUBT_LAB_KAFKA_VERSION:-4.1.1}
CACHE=${INDOUBT_LAB_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/indoubt-lab}
KAFKA_LIBS=$CACHE/kafka-$KAFKA_VERSION/libs

say() { echo "lab: $*" >&2; }
die() { echo "lab: error: $*" >&2; exit 1; }

# The first port from $1 up that nothing listens on.
free_port() {
  local port=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  echo "$port"
}

kafka_tool() { java -Xmx256m -cp "$KAFKA_LIBS/*" "$@"; }

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
