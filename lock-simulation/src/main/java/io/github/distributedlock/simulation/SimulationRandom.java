package io.github.distributedlock.simulation;

import java.util.List;

/**
 * The simulation's one source of randomness: SplitMix64, written out here so that a seed
 * gives the same run on every JDK. Not thread-safe: a simulation is one thread; give a
 * part of it a stream of its own with {@link #split()}.
 */
public final class SimulationRandom {

	private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

	private final long seed;

	private long state;

	/**
	 * Create a stream.
	 * @param seed the seed: the same seed gives the same numbers
	 */
	public SimulationRandom(long seed) {
		this.seed = seed;
		this.state = seed;
	}

	/**
	 * Return the seed this stream started from.
	 * @return the seed
	 */
	public long seed() {
		return this.seed;
	}

	/**
	 * Return the next 64 random bits.
	 * @return any long
	 */
	public long nextLong() {
		long z = (this.state += GOLDEN_GAMMA);
		z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
		z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
		return z ^ (z >>> 31);
	}

	/**
	 * Return a number from 0 (inclusive) to {@code bound} (exclusive), without bias.
	 * @param bound the bound, positive
	 * @return the number
	 */
	public long nextLong(long bound) {
		if (bound <= 0) {
			throw new IllegalArgumentException("The bound must be positive, but was " + bound);
		}
		long limit = Long.MAX_VALUE - (Long.MAX_VALUE % bound);
		long bits;
		do {
			bits = nextLong() >>> 1;
		}
		while (bits >= limit);
		return bits % bound;
	}

	/**
	 * Return a number from 0 (inclusive) to {@code bound} (exclusive).
	 * @param bound the bound, positive
	 * @return the number
	 */
	public int nextInt(int bound) {
		return (int) nextLong(bound);
	}

	/**
	 * Return a number from {@code from} to {@code to}, both inclusive.
	 * @param from the least number
	 * @param to the greatest number, not less than {@code from}
	 * @return the number
	 */
	public long between(long from, long to) {
		return from + nextLong(to - from + 1);
	}

	/**
	 * Return a double from 0 (inclusive) to 1 (exclusive).
	 * @return the double
	 */
	public double nextDouble() {
		return (nextLong() >>> 11) * 0x1.0p-53;
	}

	/**
	 * Return {@code true} with the given probability.
	 * @param probability from 0 to 1
	 * @return whether the event happens
	 */
	public boolean chance(double probability) {
		return nextDouble() < probability;
	}

	/**
	 * Return one element of a list, each equally likely.
	 * @param <T> the element type
	 * @param items the list, not empty
	 * @return the element
	 */
	public <T> T pick(List<T> items) {
		return items.get(nextInt(items.size()));
	}

	/**
	 * Return a new stream, seeded from this one, for a part of the simulation whose draws
	 * must not shift when another part draws more or less.
	 * @return the new stream
	 */
	public SimulationRandom split() {
		return new SimulationRandom(nextLong());
	}

}
