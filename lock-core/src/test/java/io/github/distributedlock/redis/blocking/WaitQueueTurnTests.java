package io.github.distributedlock.redis.blocking;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the turn in a {@link WaitQueue}'s local line, where only the first place
 * talks to Redis: the first place has the turn; it passes in join order as the first
 * leaves, before the next thread runs again, and wakes the thread waiting for it; a wait
 * for it that runs out keeps the place; and an interrupted wait throws
 * (docs/design/waiting-and-hand-off.md, "How a waiter waits").
 */
class WaitQueueTurnTests {

	private final WaitQueue queue = new WaitQueue("q", List.of("c"), false, false);

	@Test
	void theTurnPassesInJoinOrderAsTheFirstLeaves() {
		WaitQueue.Place first = this.queue.join();
		WaitQueue.Place second = this.queue.join();
		WaitQueue.Place third = this.queue.join();
		assertThat(this.queue.hasTurn(first)).isTrue();
		assertThat(this.queue.hasTurn(second)).isFalse();
		this.queue.leave(third);
		this.queue.leave(first);
		assertThat(this.queue.hasTurn(second)).as("before its thread waited again").isTrue();
	}

	@Test
	void aWaitForTheTurnThatRunsOutKeepsThePlace() throws Exception {
		WaitQueue.Place first = this.queue.join();
		WaitQueue.Place second = this.queue.join();
		assertThat(this.queue.awaitTurn(second, TimeUnit.MILLISECONDS.toNanos(20))).isFalse();
		this.queue.leave(first);
		assertThat(this.queue.awaitTurn(second, 0)).isTrue();
	}

	@Test
	void aWaitingThreadIsWokenWhenTheFirstLeaves() throws Exception {
		WaitQueue.Place first = this.queue.join();
		CompletableFuture<WaitQueue.Place> joined = new CompletableFuture<>();
		CompletableFuture<Boolean> turn = CompletableFuture.supplyAsync(() -> {
			WaitQueue.Place place = this.queue.join();
			joined.complete(place);
			try {
				return this.queue.awaitTurn(place, TimeUnit.SECONDS.toNanos(30));
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		joined.get(5, TimeUnit.SECONDS);
		Thread.sleep(50);
		assertThat(turn).isNotDone();
		long left = System.nanoTime();
		this.queue.leave(first);
		assertThat(turn.get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(System.nanoTime() - left).isLessThan(TimeUnit.SECONDS.toNanos(1));
	}

	@Test
	void anInterruptedWaitForTheTurnThrows() {
		this.queue.join();
		WaitQueue.Place second = this.queue.join();
		Thread.currentThread().interrupt();
		assertThatExceptionOfType(InterruptedException.class)
			.isThrownBy(() -> this.queue.awaitTurn(second, TimeUnit.SECONDS.toNanos(30)));
	}

}
