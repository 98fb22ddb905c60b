#!/usr/bin/env bash
# Count what one acquisition costs Redis, command by command (CommandCostMain), on a fresh redis-server, and write
# lock-benchmarks/target/command-cost.md. Arguments go to CommandCostMain:
#   --acquisitions N   measured acquisitions per phase (default 2000)
#   --warm-up N        acquisitions before each phase's measurement (default 200)
#   --out FILE         where to write the report
# Maven options such as -o (offline) go in MAVEN_ARGS.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
module="$root/lock-benchmarks"
cd "$root"
mvn -B -q -pl lock-benchmarks -am package -DskipTests
classpath="$module/target/classes:$(cat "$module/target/classpath.txt")"
exec java -Xmx512m -cp "$classpath" io.github.distributedlock.benchmark.cost.CommandCostMain "$@"
