package io.github.distributedlock.redis.driver;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A driver acquisition's call ({@link Acquisitions.Call}) at the edges of its steps, on a
 * port whose replies and clock the test moves by hand.
 */
class AcquisitionsTests {

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long COMMAND_TIMEOUT = 2_000 * MS;

	private final ManualPort port = new ManualPort();

	private final LocalLines lines = TestLines.of(this.port, 0);

	private final HoldRegistry registry = new HoldRegistry(this.port, () -> false, true, new LockListener() {
	}, this.lines);

	private final List<String> told = new CopyOnWriteArrayList<>();

	/**
	 * A cancel that comes once the run won, as its replica check is being started: the
	 * check is stopped as it starts, the caller hears the cancel, and the check releases
	 * the lock once its count ends. Before, the cancel returned false and stopped
	 * nothing: the caller waited through the whole check.
	 */
	@Test
	void shouldStopTheReplicaCheckOfACallCancelledAsTheCheckStarts() {
		AtomicReference<Acquisitions.@Nullable Call<?, Held>> call = new AtomicReference<>();
		CompletableFuture<Long> count = new CompletableFuture<>();
		ReplicaWait replicas = new ReplicaWait(this.port, (hold) -> {
			// The caller's interrupt, on its own thread, lands now.
			this.told.add("cancel -> "
					+ call.get().cancel(new LockInterruptedException(hold.spec().name(), new InterruptedException())));
			return count;
		}, true, 1, 100, this.registry);
		call.set(acquisitions(replicas).one(LocalLinesTests.spec("checked"), "owner", this.port.nanoTime(), this.port,
				this::held, completion()));
		call.get().start();
		this.port.reply(0, List.of(1L, 42L));
		assertThat(this.told).hasSize(2).startsWith("cancel -> true");
		assertThat(this.told.get(1)).startsWith("failed: LockInterruptedException");
		// The replica acknowledged it: the check releases it all the same.
		count.complete(1L);
		assertThat(this.port.runs).extracting(ManualPort.Run::operation).containsExactly("acquire", "release");
		assertThat(this.registry.snapshot()).isEmpty();
	}

	/**
	 * A grant that came after its lease is taken again at once, with a second attempt
	 * sent after the wait time; if that one's reply does not come, the call still ends at
	 * its bound (wait time plus one command timeout), and a grant it brings later is
	 * released. Before, the call waited one more command timeout for it (simulation seed
	 * 1288 of {@code AcquisitionCallSimulationTests}: 899 ms past its bound).
	 */
	@Test
	void shouldEndACallAtItsBoundWhenAnAttemptSentAfterTheWaitTimeGetsNoReply() {
		LockSpec spec = LocalLinesTests.spec("late").withLeaseMillis(100);
		long start = this.port.nanoTime();
		Acquisitions.Call<?, Held> call = acquisitions(null).one(spec, "owner", start, this.port, this::held,
				completion());
		call.start();
		this.port.advance(150 * MS);
		this.port.reply(0, List.of(1L, 42L));
		assertThat(this.port.runs).as("taken again at once").hasSize(2);
		this.port.advance(COMMAND_TIMEOUT - 150 * MS - MS);
		assertThat(this.told).as("not yet at the bound").isEmpty();
		this.port.advance(2 * MS);
		assertThat(this.told).singleElement().asString().startsWith("failed: LockAccessException");
		// Its grant comes after all: nobody takes it.
		this.port.reply(1, List.of(1L, 42L));
		assertThat(this.port.runs).extracting(ManualPort.Run::operation)
			.containsExactly("acquire", "acquire", "release");
		assertThat(this.told).hasSize(1);
	}

	/**
	 * An uncontended acquisition sets no timer for its bound: its one attempt goes out as
	 * the call begins, and the command timeout bounds its reply.
	 */
	@Test
	void shouldSetNoTimerForAnAttemptSentAsTheCallBegins() {
		Acquisitions.Call<?, Held> call = acquisitions(null).one(LocalLinesTests.spec("quick"), "owner",
				this.port.nanoTime(), this.port, this::held, completion());
		call.start();
		this.port.advance(MS);
		assertThat(this.port.timers).as("while its attempt is in flight").isEmpty();
		this.port.reply(0, List.of(1L, 42L));
		assertThat(this.told).containsExactly("granted");
	}

	private Acquisitions<Held> acquisitions(@Nullable ReplicaWait replicas) {
		DriverCommands commands = new DriverCommands(this.port, LockKeys.FENCE_IDLE_MILLIS, true, this.registry);
		return new Acquisitions<>(commands, this.lines, this.registry, replicas, () -> false, true, COMMAND_TIMEOUT);
	}

	private Held held(Grant grant) {
		return new Held(this.registry, grant);
	}

	private Completion<Held> completion() {
		return Completion.of((held) -> this.told.add("granted"),
				(error) -> this.told.add("failed: " + error.getClass().getSimpleName() + ": " + error.getMessage()));
	}

	private static final class Held extends RegisteredHold {

		Held(HoldRegistry registry, Grant grant) {
			super(registry, grant, "test");
		}

		@Override
		protected LockContext listenedTo() {
			throw new UnsupportedOperationException("no listener asks");
		}

	}

}
