#!/usr/bin/env bash
# Starts three instances of the sample app, fires concurrent deployments at all of them,
# and prints evidence that deployments to one server never overlapped: start and end times
# and fencing tokens per instance. Exits 0 when there was no overlap, 1 when there was.
#
#   sample-app/demo.sh            deployments through @DistributedLock
#   sample-app/demo.sh --unsafe   the same work without the lock: the check must fail
set -euo pipefail
cd "$(dirname "$0")"

endpoint=deploy
if [ "${1:-}" = "--unsafe" ]; then
	endpoint=deploy-unlocked
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
	java -Xmx256m -XX:TieredStopAtLevel=1 -jar "$jar" --server.port="$port" \
		--spring.data.redis.port="$redis_port" --sample.report-interval=2s >"$logs/$port.log" 2>&1 &
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

# The first instance starts a redis-server on $redis_port if none answers there.
start "${ports[0]}"; await_up "${ports[0]}"
start "${ports[1]}"; start "${ports[2]}"
await_up "${ports[1]}"; await_up "${ports[2]}"
echo "Three instances up on ports ${ports[*]}, sharing Redis on port $redis_port."

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
echo "$report"
if [ "$(echo "$report" | tail -1 | cut -c1-3)" = "OK:" ]; then
	exit 0
fi
exit 1
