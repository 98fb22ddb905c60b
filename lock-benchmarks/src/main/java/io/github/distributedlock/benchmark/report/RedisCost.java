package io.github.distributedlock.benchmark.report;

/**
 * What one library cost Redis in one scenario: the figures that decide how far one shard
 * goes. A figure that a scenario cannot measure is NaN and shows as a dash.
 *
 * @param cpuMicros CPU time of Redis's main thread per acquisition, in microseconds
 * @param commands commands Redis executed per acquisition, those run inside Lua scripts
 * included
 * @param names distinct lock names the scenario used
 * @param keysLeftPerName keys that stayed in Redis after the scenario, per distinct lock
 * name it used
 * @param bytesLeftPerName data memory that stayed in Redis after the scenario, per
 * distinct lock name; NaN over too few names to tell from noise
 * @param bytesPerHeldLock data memory while a known number of locks were held, per lock
 */
public record RedisCost(double cpuMicros, double commands, long names, double keysLeftPerName, double bytesLeftPerName,
		double bytesPerHeldLock) {

	/**
	 * Return a copy with the memory per held lock.
	 * @param bytes data memory per held lock
	 * @return the cost
	 */
	public RedisCost withBytesPerHeldLock(double bytes) {
		return new RedisCost(this.cpuMicros, this.commands, this.names, this.keysLeftPerName, this.bytesLeftPerName,
				bytes);
	}

	/**
	 * Return how many acquisitions per second one Redis main thread could serve at most,
	 * at this CPU cost: an upper bound that ignores every other thread and every other
	 * client.
	 * @return acquisitions per second, or NaN when the CPU cost is unknown
	 */
	public double shardCeilingPerSecond() {
		return (this.cpuMicros > 0) ? 1e6 / this.cpuMicros : Double.NaN;
	}

}
