package io.github.distributedlock.redis;

import io.github.distributedlock.simulation.SimulationRandom;
import org.jspecify.annotations.Nullable;

/**
 * Gaps in the lines' subscriptions ({@link LockSimulation.Fault#SUBSCRIPTION}): the
 * subscription's connection drops, and every message published meanwhile is lost. Then
 * either the client subscribes again and confirms the channels once more (as Spring Data
 * Redis's listener container does after a reconnect), or the subscription ends with an
 * error (as the reactive container's stream does, or a subscribe that fails outright),
 * and the line's next waiter subscribes again. Some subscribes are refused: the port
 * throws (as a destroyed listener container does), and the line counts as subscribed with
 * no messages. Drawn from a PRNG of their own, in a quarter of the runs that may draw
 * them, so that the other runs are the runs they were.
 */
final class SubscriptionGaps {

	private final SimulationRandom random;

	private final boolean drawn;

	private int gaps;

	private int ended;

	private int refused;

	/**
	 * @param enabled whether the run may draw gaps
	 * @param runs one in how many of the runs that may draw them do
	 */
	SubscriptionGaps(long seed, boolean enabled, int runs) {
		this.random = new SimulationRandom(seed ^ 0x73756273L);
		this.drawn = enabled && this.random.nextInt(runs) == 0;
	}

	/**
	 * Draw whether the subscription being made has a gap: a third do, starting within its
	 * first 2 s (at once for a subscribe that fails), for a network delay to about a
	 * protocol constant; half of those at once are refused outright.
	 * @param now whether the run draws faults now
	 * @return the gap, or {@code null} for none
	 */
	SimulatedPort.@Nullable Gap draw(boolean now) {
		if (!this.drawn || !now || this.random.nextInt(3) != 0) {
			return null;
		}
		boolean atOnce = this.random.nextInt(8) == 0;
		long after = atOnce ? 0 : this.random.between(0, 2_000 * LockSimulation.MS);
		long length = switch (this.random.nextInt(3)) {
			case 0 -> this.random.between(0, LockSimulation.MS);
			case 1 -> this.random.between(LockSimulation.MS, 100 * LockSimulation.MS);
			default -> LockSimulation.aroundConstant(this.random);
		};
		boolean ends = atOnce || this.random.nextInt(2) == 0;
		boolean refused = atOnce && this.random.nextInt(2) == 0;
		this.gaps++;
		this.ended += ends ? 1 : 0;
		this.refused += refused ? 1 : 0;
		return new SimulatedPort.Gap(after, length, ends, true, refused);
	}

	/**
	 * Return how many gaps were drawn, how many of them ended the subscription, and how
	 * many of those refused it outright.
	 */
	int[] counts() {
		return new int[] { this.gaps, this.ended, this.refused };
	}

}
