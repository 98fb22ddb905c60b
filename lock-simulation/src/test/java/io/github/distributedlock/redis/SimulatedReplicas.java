package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.server.ReplicaCount;
import io.github.distributedlock.simulation.RedisModel;
import io.github.distributedlock.simulation.SimulationRandom;

/**
 * The replica check's count ({@link ReplicaCount}) in the simulation, as
 * {@code server/ReplicaAcknowledgements} counts for the reactive template, whose every
 * check writes the hold's lease again on the connection it then waits on: the lease is
 * written again through the client's port, with the run's faults, and then {@code WAIT}
 * reaches Redis a network delay later, held back by a stall.
 * <p>
 * The model's replica lags by the writes {@link RedisFaults} sets, which a failover
 * loses. Three times in four (drawn) it acknowledges the {@code WAIT} at once: it applies
 * every write it lacked ({@link RedisModel#replicaCatchUp()}), and lags again as newer
 * ones come. Else it is slow: {@code WAIT} answers at its timeout, acknowledged only if
 * the replica has every write up to the one read with the lease's reply (at least that
 * write) by then. A failover since the lease was sent fails the count: the connection it
 * waits on is gone. Single-threaded, as the run is.
 */
final class SimulatedReplicas implements ReplicaCount {

	/** How long {@code WAIT} waits for the replica: the templates' default. */
	static final long TIMEOUT_MS = 100;

	private final String client;

	private final SimulatedPort port;

	private final SimulatedPort.World world;

	private final RedisModel redis;

	private final SimulationRandom random;

	private final boolean ignoresLag;

	/**
	 * @param random draws whether the replica acknowledges in time: the run's own for
	 * replica checks, so that drawing changes no other choice
	 * @param ignoresLag whether every {@code WAIT} is acknowledged, whatever the replica
	 * has: a planted bug
	 */
	SimulatedReplicas(String client, SimulatedPort port, SimulatedPort.World world, RedisModel redis,
			SimulationRandom random, boolean ignoresLag) {
		this.client = client;
		this.port = port;
		this.world = world;
		this.redis = redis;
		this.random = random;
		this.ignoresLag = ignoresLag;
	}

	@Override
	public CompletableFuture<Long> acknowledged(Grant hold) {
		CompletableFuture<Long> counted = new CompletableFuture<>();
		LockSpec spec = hold.spec();
		ScriptCall rewrite = spec.kind().extend(spec, hold.owner(), hold.token(), hold.hold(), spec.leaseMillis());
		int failovers = this.redis.failovers();
		this.port.run(spec.name(), "replica check", rewrite, Completion.of((reply) -> {
			if (!(reply instanceof Number result) || result.longValue() < 0) {
				// The lock is gone, or someone else's.
				counted.complete(-1L);
				return;
			}
			long written = this.redis.writes();
			String what = this.client + "'s WAIT for token " + hold.token();
			this.world.redisAt(this.world.network(), what + " reaches redis", () -> {
				boolean prompt = this.random.nextInt(4) != 0;
				if (prompt && !this.ignoresLag) {
					this.redis.replicaCatchUp();
				}
				this.world.redisAt(prompt ? 0 : TIMEOUT_MS * LockSimulation.MS, what + " answers", () -> {
					boolean gone = this.redis.failovers() != failovers;
					long acked = (this.redis.replicated() >= written || this.ignoresLag) ? 1 : 0;
					this.world.at(this.world.network(), this.client + " reads " + what, () -> {
						if (gone) {
							counted.completeExceptionally(new LockAccessException(spec.name(), "WAIT failed",
									new IllegalStateException("the connection was lost in a failover")));
						}
						else {
							counted.complete(acked);
						}
					});
				});
			});
		}, counted::completeExceptionally));
		return counted;
	}

}
