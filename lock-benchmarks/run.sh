#!/usr/bin/env bash
# Build the engine and this module, then run every benchmark scenario against one fresh redis-server and write
# docs/benchmarks/results.md and docs/benchmarks/handoff.svg. Arguments go to BenchmarkMain:
#   --smoke    about a second per scenario; the report goes to lock-benchmarks/target/smoke unless --out is given
#   --no-jmh   skip the JMH microbenchmarks
#   --out DIR  where to write the report
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
module="$root/lock-benchmarks"
cd "$root"

mvn -B -q -pl lock-benchmarks -am package -DskipTests

# Copy what the reactor built (lock-core, lock-test-support), so that a build of those modules running beside
# this one cannot swap their classes out from under the worker JVMs during the run.
lib="$module/target/run-lib"
rm -rf "$lib"
mkdir -p "$lib"
classpath="$module/target/classes"
# The file has no final newline, on which read reports failure.
IFS=":" read -r -a entries < "$module/target/classpath.txt" || true
for entry in "${entries[@]}"; do
	if [[ "$entry" == "$root"/* ]]; then
		cp -r "$entry" "$lib/"
		entry="$lib/$(basename "$entry")"
	fi
	classpath="$classpath:$entry"
done

args=("$@")
if [[ " ${args[*]-} " != *" --out "* ]]; then
	if [[ " ${args[*]-} " == *" --smoke "* ]]; then
		args+=(--out "$module/target/smoke")
	else
		args+=(--out "$root/docs/benchmarks")
	fi
fi
exec java -Xmx512m -cp "$classpath" io.github.distributedlock.benchmark.BenchmarkMain "${args[@]}"
