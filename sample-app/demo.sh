#!/usr/bin/env bash
# Starts three instances of the sample app, fires concurrent deployments at all of them,
# and prints evidence that deployments to one server never overlapped: start and end times
# and fencing tokens per instance, which instance ran each period of the scheduled report, and
# that exactly one instance runs the leader-only relay until it is killed, when another takes
# it over. Exits 0 when no deployments overlapped, no report period ran twice and the relay
# had one runner before and after the kill, 1 otherwise.
#
#   sample-app/demo.sh            deployments through @DistributedLock
#   sample-app/demo.sh --unsafe   the deployments without their lock: their check must fail;
#                                 the report and the relay keep their locks, and their checks pass
set -euo pipefail
cd "$(dirname "$0")"

endpoint=deploy
unsafe=false
if [ "${1:-}" = "--unsafe" ]; then
	endpoint=deploy-unlocked
	unsafe=true
fi
# What a check's OK line adds: with --unsafe only the deployments lose their lock.
still_locked=""
if [ "$unsafe" = true ]; then
	still_locked=" (still locked with --unsafe)"
fi
redis_port=${DEMO_REDIS_PORT:-16379}
ports=(${DEMO_PORTS:-18081 18082 18083})
requests=${DEMO_REQUESTS:-24}

command -v curl >/dev/null || { echo "demo.sh needs curl (apt-get install -y curl)"; exit 2; }
jar=target/sample-app.jar
if [ ! -f "$jar" ]; then
	echo "Building the sample app..."
	(cd .. && mvn -B -q -pl sample-app -am package -DskipTests)
fi

pids=()
logs=$(mktemp -d)
stop() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop EXIT

start() {
	local port=$1
	shift
	java -Xmx256m -XX:TieredStopAtLevel=1 -jar "$jar" --server.port="$port" \
		--spring.data.redis.port="$redis_port" --sample.report-cron='*/2 * * * * *' --sample.report-hold-at-least=1500ms \
		--logging.level.io.github.distributedlock.sample.OutboxRelay=debug "$@" >"$logs/$port.log" 2>&1 &
	pids+=($!)
}
await_up() {
	local port=$1
	for _ in $(seq 1 180); do
		if curl -sf "http://localhost:$port/actuator/health" >/dev/null 2>&1; then return 0; fi
		sleep 0.5
	done
	echo "Instance on port $port did not start; its log:"; tail -40 "$logs/$port.log"; exit 2
}

# The first instance starts a redis-server on $redis_port if none answers there. Killing that
# instance would take Redis down with it, so it then stays out of the relay's election.
first_args=()
if ! (exec 3<>"/dev/tcp/localhost/$redis_port") 2>/dev/null; then
	first_args=(--distributed-lock.leader.roles.outbox-relay.enabled=false)
fi
start "${ports[0]}" "${first_args[@]}"; await_up "${ports[0]}"
start "${ports[1]}"; start "${ports[2]}"
await_up "${ports[1]}"; await_up "${ports[2]}"
echo "Three instances up on ports ${ports[*]}, sharing Redis on port $redis_port."
if [ "$unsafe" = true ]; then
	echo "--unsafe: the deployments run WITHOUT their lock (POST /servers/{id}/deploy-unlocked), so their"
	echo "overlap check should fail. The scheduled report (@DistributedLock) and the outbox relay"
	echo "(@LeaderOnly) keep their locks, so their checks should still pass."
fi

curl -sf -X DELETE "http://localhost:${ports[0]}/deployments" >/dev/null
echo "Firing $requests concurrent deployments ($endpoint) at three servers through all instances..."
calls=()
for i in $(seq 1 "$requests"); do
	port=${ports[$((i % 3))]}
	curl -s -o /dev/null -X POST "http://localhost:$port/servers/srv-$(((i / 3) % 3))/$endpoint" &
	calls+=($!)
done
for call in "${calls[@]}"; do wait "$call" || true; done

report=$(curl -sf "http://localhost:${ports[0]}/deployments/report")
if [ "$unsafe" = true ]; then
	echo "Deployments, without their lock:"
fi
echo "$report"

# The scheduled report fires on every instance every 2 s; each 2 s period must have run once.
runs=$(cat "$logs"/*.log | sed -n 's/.*Report run [0-9]* on \([^ ]*\) at \([0-9]*\).*/\2 \1/p' | sort -n)
echo "Scheduled report runs (every 2 s, on whichever instance took the lock):"
echo "$runs" | while read -r millis instance; do
	if [ -n "$millis" ]; then
		echo "  $(date -u -d "@$((millis / 1000))" +%H:%M:%S) on $instance"
	fi
done
repeated=$(echo "$runs" | awk 'NF { n[int($1 / 2000)]++ } END { for (p in n) if (n[p] > 1) c++; print c + 0 }')
status=1
if [ "$(echo "$report" | tail -1 | cut -c1-3)" = "OK:" ]; then
	status=0
fi
if [ "$repeated" -gt 0 ]; then
	echo "FAIL: $repeated report periods ran on more than one instance"
	status=1
else
	echo "OK: every report period ran on one instance$still_locked"
fi

# The outbox relay runs every 500 ms on the leader of its role only (@LeaderOnly).
relay_runs() { grep -c "Relay run " "$logs/$1.log" || true; }
relay_runners() {
	local before=() i
	for i in 0 1 2; do before[i]=$(relay_runs "${ports[i]}"); done
	sleep 3
	runners=()
	for i in 0 1 2; do
		if [ "$(relay_runs "${ports[i]}")" -gt "${before[i]}" ]; then runners+=("$i"); fi
	done
}
relay_runners
if [ "${#runners[@]}" -ne 1 ]; then
	echo "FAIL: the relay ran on ${#runners[@]} instances in 3 s, not on one"
	exit 1
fi
leader=${runners[0]}
echo "OK: the relay runs on one instance, port ${ports[leader]}$still_locked; the leaders endpoint says:"
curl -sf "http://localhost:${ports[leader]}/actuator/leaders"; echo
leads_before=()
for i in 0 1 2; do leads_before[i]=$(grep -c "Leading outbox-relay" "$logs/${ports[i]}.log" || true); done
echo "Killing it with kill -9..."
killed_at=$(date +%s%3N)
kill -9 "${pids[leader]}"
wait "${pids[leader]}" 2>/dev/null || true
taken_over=""
for _ in $(seq 1 60); do
	for i in 0 1 2; do
		if [ "$i" -ne "$leader" ] && [ "$(grep -c "Leading outbox-relay" "$logs/${ports[i]}.log" || true)" -gt "${leads_before[i]}" ]; then
			taken_over=$i
		fi
	done
	if [ -n "$taken_over" ]; then break; fi
	sleep 0.25
done
if [ -z "$taken_over" ]; then
	echo "FAIL: no instance took the relay over within 15 s"
	exit 1
fi
echo "Port ${ports[taken_over]} took the relay over $(($(date +%s%3N) - killed_at)) ms after the kill (lease 6 s)."
relay_runners
if [ "${#runners[@]}" -ne 1 ] || [ "${runners[0]}" -ne "$taken_over" ]; then
	echo "FAIL: after the kill the relay ran on instances [${runners[*]}], not on port ${ports[taken_over]} alone"
	status=1
else
	echo "OK: after the kill the relay runs on one instance, port ${ports[taken_over]}$still_locked"
fi
if [ "$unsafe" = true ]; then
	echo "--unsafe unlocked the deployments only: their check above is the one that fails."
fi
exit $status
