#!/usr/bin/env bash
# Run the deterministic simulation of the lock protocol on more seeds than the build does, or replay one
# seed event for event, and print what it found (docs/design/simulation.md).
#   lock-simulation/simulate.sh --seeds 300    the first 300 seeds (mvn -B verify runs 100)
#   lock-simulation/simulate.sh --seed 1003    one seed; a failing one prints its trace
# Extra Maven options go in MAVEN_ARGS (for example MAVEN_ARGS=-o).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
case "${1-}" in
	--seeds) property="simulation.seeds=${2:?how many seeds}" ;;
	--seed) property="simulation.seed=${2:?which seed}" ;;
	*)
		echo "usage: $0 --seeds N | --seed S" >&2
		exit 2
		;;
esac
cd "$root"
reports=lock-simulation/target/surefire-reports
# A build that fails must not leave the last run's report to be printed as this one's.
rm -f "$reports"/*SimulationTests*
status=0
# No coverage agent here: mvn verify measures what the simulation runs (.ci/engine-lines).
# shellcheck disable=SC2086
mvn -B -q ${MAVEN_ARGS-} -pl lock-test-support,lock-core,lock-simulation test -Djacoco.skip=true -Dtest='*SimulationTests' \
	-Dsurefire.failIfNoSpecifiedTests=false "-D$property" || status=$?
cat "$reports"/*SimulationTests-output.txt 2>/dev/null || true
if [ "$status" -ne 0 ]; then
	cat "$reports"/*SimulationTests.txt 2>/dev/null || true
fi
exit "$status"
