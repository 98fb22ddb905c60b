#!/usr/bin/env bash
# Count the instructions redis-server runs per uncontended acquire+release, for each library, the fenced floor
# (the cheapest lock that keeps this project's fencing token and owner secrecy) and the engine floor (the fenced
# floor's commands behind this project's calls: what no layout of its state gets under), and write
# lock-benchmarks/target/redis-instructions.md. Each run starts a fresh redis-server under valgrind's callgrind, drives
# one library's benchmark client against it (RedisInstructionsMain: warm-up pairs, then N pairs, one thread, a new
# lock name each time, as scenario 1 does) and reads the server's total Ir. Two runs per library, of N = SMALL and
# N = LARGE pairs after the same warm-up: (Ir(LARGE) - Ir(SMALL)) / (LARGE - SMALL) is Redis's own instructions per
# pair, startup, connection setup and warm-up cancelled out. Instruction counts do not depend on machine load.
#   --small N     pairs of the shorter run (default 500)
#   --large N     pairs of the longer run (default 2500)
#   --warm-up N   pairs before the counted ones, in every run (default 200)
#   --contended   two clients of each library take turns on one lock name instead, each on a thread and connections
#                 of its own (scenario 2 with 2 processes); writes lock-benchmarks/target/redis-instructions-contended.md
#   --contended-local  the same, but both threads share one client, as threads of one process do (the hand-offs inside
#                 one JVM of scenario 2 with 8 threads); writes lock-benchmarks/target/redis-instructions-contended-local.md
# Maven options such as -o (offline) go in MAVEN_ARGS. REDIS_SERVER names another redis-server binary.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
module="$root/lock-benchmarks"
cd "$root"

small=500
large=2500
warm_up=200
workload=pairs
while (($#)); do
	case "$1" in
		--small) small="$2"; shift 2 ;;
		--large) large="$2"; shift 2 ;;
		--warm-up) warm_up="$2"; shift 2 ;;
		--contended) workload=contended; shift ;;
		--contended-local) workload=contended-local; shift ;;
		*) echo "Unknown option $1; expected --small N, --large N, --warm-up N, --contended or --contended-local" >&2
			exit 2 ;;
	esac
done
if ((large <= small)); then
	echo "--large ($large) must be above --small ($small)" >&2
	exit 2
fi
if ! command -v valgrind >/dev/null; then
	echo "valgrind not found: apt-get install -y valgrind" >&2
	exit 1
fi
redis_server="${REDIS_SERVER:-$(command -v redis-server || true)}"
if [[ -z "$redis_server" ]]; then
	echo "redis-server not found: apt-get install -y redis-server, or set REDIS_SERVER" >&2
	exit 1
fi

mvn -B -q -pl lock-benchmarks -am package -DskipTests
classpath="$module/target/classes:$(cat "$module/target/classpath.txt")"
main=io.github.distributedlock.benchmark.cost.RedisInstructionsMain
work="$module/target/redis-instructions"
report=redis-instructions
if [[ "$workload" != pairs ]]; then
	work="$module/target/redis-instructions-$workload"
	report="redis-instructions-$workload"
fi
rm -rf "$work"
mkdir -p "$work"

server_pid=""
stop_server() {
	if [[ -n "$server_pid" ]]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
		server_pid=""
	fi
}
trap stop_server EXIT

free_port() {
	local port
	while true; do
		port=$((20000 + RANDOM % 20000))
		# Nothing answers a connection there.
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return
		fi
	done
}

# Set total to the Ir of a fresh server that served the warm-up and then $2 pairs of library $1. Not run in a
# subshell, so that the EXIT trap sees the server to stop when something fails.
count() {
	local library="$1" pairs="$2" port out log
	port="$(free_port)"
	out="$work/callgrind.$library.$pairs.out"
	log="$work/$library.$pairs.log"
	# serverCron runs on the clock (hz times a second), not per command, and a slow run under valgrind would call it
	# more often: toggling collection on its entry and exit leaves it out of the count, and --hz 1 keeps the rest of
	# the clock-driven work (an event-loop pass per timer) small. --toggle-collect turns collection off at start, so
	# --collect-atstart=yes must come after it.
	valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=serverCron --collect-atstart=yes \
		"$redis_server" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --hz 1 >"$log" 2>&1 &
	server_pid=$!
	# Wait on the log rather than polling with PING, so that every run sends the server the same commands.
	for ((i = 0; i < 1200; i++)); do
		if grep -qs "Ready to accept connections" "$log"; then
			break
		fi
		if ! kill -0 "$server_pid" 2>/dev/null; then
			cat "$log" >&2
			echo "redis-server under valgrind exited before it was ready" >&2
			exit 1
		fi
		sleep 0.1
	done
	if [[ "$(redis-cli -p "$port" PING)" != "PONG" ]]; then
		cat "$log" >&2
		echo "redis-server on port $port did not answer PING" >&2
		exit 1
	fi
	if ! java -Xmx512m -cp "$classpath" "$main" "$workload" "$port" "$library" "$warm_up" "$pairs" \
		>"$work/$library.$pairs.java.log" 2>&1; then
		cat "$work/$library.$pairs.java.log" >&2
		echo "$library: $pairs pairs failed" >&2
		exit 1
	fi
	# The commands each run made, for reading the mix of paths (the same INFO in every run cancels out).
	redis-cli -p "$port" INFO commandstats >"$work/$library.$pairs.commandstats"
	redis-cli -p "$port" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
	wait "$server_pid" || true
	server_pid=""
	total="$(awk '$1 == "summary:" || $1 == "totals:" { print $2; exit }' "$out")"
	if [[ -z "$total" ]]; then
		echo "No summary: or totals: line in $out" >&2
		exit 1
	fi
	# Where they went: the instructions of each function in $parts, its callees included (0 if the binary names no
	# such function, as the floor's server runs no script).
	callgrind_annotate --inclusive=yes --threshold=100 "$out" >"$out.inclusive"
	for part in "${parts[@]}"; do
		part_total["$part"]="$(awk -v part="$part" \
			'!found && index($0, ":" part " [") { gsub(",", "", $1); print $1; found = 1 }' "$out.inclusive")"
		part_total["$part"]="${part_total[$part]:-0}"
	done
}

# The functions of redis-server that split a pair's instructions (InstructionsReport.Part): command dispatch
# (call), a script (evalGenericCommand) or function (fcallCommand), its Lua code (lua_pcall) and the commands it
# runs (scriptCall).
parts=(call evalGenericCommand fcallCommand lua_pcall scriptCall)
declare -A part_total part_small
total=""
totals=()
# The fenced floor: fenced-floor-acquire.lua and fenced-floor-release.lua; the engine floor: engine-floor.lua (both
# WaitingFloorClient).
libraries=(floor fenced-floor engine-floor ours redisson spring)
for library in "${libraries[@]}"; do
	count "$library" "$small"
	ir_small="$total"
	for part in "${parts[@]}"; do
		part_small["$part"]="${part_total[$part]}"
	done
	count "$library" "$large"
	echo "$library: Ir $ir_small after $small pairs, $total after $large" >&2
	totals+=("$library=$ir_small,$total")
	for part in "${parts[@]}"; do
		totals+=("$library:$part=${part_small[$part]},${part_total[$part]}")
	done
done

header="Redis $("$redis_server" --version | sed -n 's/.*v=\([^ ]*\).*/\1/p'), $(valgrind --version)"
command=report
if [[ "$workload" != pairs ]]; then
	command="report-$workload"
fi
exec java -Xmx256m -cp "$classpath" "$main" "$command" "$module/target/$report.md" "$small" "$large" \
	"$warm_up" "$header" "${totals[@]}"
