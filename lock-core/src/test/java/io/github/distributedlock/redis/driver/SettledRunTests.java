package io.github.distributedlock.redis.driver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.redis.script.ScriptArgs;
import io.github.distributedlock.redis.script.ScriptCall;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run's end reaches its caller once the replies of what the run sent are told, within
 * the settle time and the call's bound: tested just below, at and past each of them.
 */
class SettledRunTests {

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long SETTLE = 1_000 * MS;

	private static final LockName NAME = LockName.of("settled", "1");

	private final ManualPort port = new ManualPort();

	private final List<String> told = new ArrayList<>();

	@Test
	void anEndWithNothingInFlightIsToldAtOnce() {
		SettledRun<String> run = run(-1);
		run.granted("grant");
		assertThat(this.told).containsExactly("granted grant");
	}

	@Test
	void anEndWaitsForTheReplyOfWhatTheRunStillSent() {
		SettledRun<String> run = run(-1);
		send(run, "withdraw");
		run.failed(new LockTimeoutException(NAME, Duration.ZERO, null));
		assertThat(this.told).as("the withdrawal is not answered yet").isEmpty();
		this.port.reply(0, 1L);
		assertThat(this.told).containsExactly("withdraw replied", "failed LockTimeoutException");
	}

	@Test
	void whatAReplySendsIsWaitedForToo() {
		SettledRun<String> run = run(-1);
		run.run(NAME, "undo", call(), Completion.of((reply) -> send(run, "release"), (error) -> {
		}));
		run.failed(new LockTimeoutException(NAME, Duration.ZERO, null));
		this.port.reply(0, 1L);
		assertThat(this.told).as("the release the reply sent is in flight").isEmpty();
		this.port.reply(1, 1L);
		assertThat(this.told).containsExactly("release replied", "failed LockTimeoutException");
	}

	@Test
	void anEndThatAReplyTellsIsToldWhenThatReplyIsDoneWithNoTimer() {
		SettledRun<String> run = run(-1);
		run.run(NAME, "acquire", call(), Completion.of((reply) -> run.granted("grant"), (error) -> {
		}));
		this.port.reply(0, 1L);
		assertThat(this.told).containsExactly("granted grant");
		assertThat(this.port.scheduled).as("timers set").isZero();
	}

	@Test
	void anEndThatAReplyTellsAfterSendingMoreSettlesWithinTheSettleTime() {
		SettledRun<String> run = run(-1);
		run.run(NAME, "acquire", call(), Completion.of((reply) -> {
			send(run, "withdraw");
			run.failed(new LockTimeoutException(NAME, Duration.ZERO, null));
		}, (error) -> {
		}));
		this.port.advance(100 * MS);
		this.port.reply(0, 1L);
		assertThat(this.told).as("the withdrawal is not answered yet").isEmpty();
		this.port.advance(SETTLE - 1);
		assertThat(this.told).isEmpty();
		this.port.advance(1);
		assertThat(this.told).containsExactly("failed LockTimeoutException");
	}

	@Test
	void anEndIsToldAtTheSettleTimeWhenAReplyNeverComes() {
		SettledRun<String> run = run(-1);
		send(run, "withdraw");
		run.failed(new LockTimeoutException(NAME, Duration.ZERO, null));
		this.port.advance(SETTLE - 1);
		assertThat(this.told).isEmpty();
		this.port.advance(1);
		assertThat(this.told).containsExactly("failed LockTimeoutException");
		this.port.reply(0, 1L);
		assertThat(this.told).as("a late reply is still told to the run, never the end twice")
			.containsExactly("failed LockTimeoutException", "withdraw replied");
	}

	@Test
	void anEndIsToldNoLaterThanTheCallsBound() {
		SettledRun<String> run = run(500 * MS);
		this.port.advance(300 * MS);
		send(run, "withdraw");
		run.failed(new LockTimeoutException(NAME, Duration.ZERO, null));
		this.port.advance(200 * MS - 1);
		assertThat(this.told).isEmpty();
		this.port.advance(1);
		assertThat(this.told).containsExactly("failed LockTimeoutException");
	}

	@Test
	void anEndPastTheCallsBoundIsToldAtOnce() {
		SettledRun<String> run = run(500 * MS);
		this.port.advance(500 * MS + 1);
		send(run, "withdraw");
		run.granted("grant");
		assertThat(this.told).containsExactly("granted grant");
	}

	@Test
	void aFailureToReachRedisIsToldAtOnce() {
		SettledRun<String> run = run(-1);
		send(run, "withdraw");
		run.failed(new LockAccessException(NAME, "no reply", null));
		assertThat(this.told).containsExactly("failed LockAccessException");
	}

	@Test
	void aCancelledRunSettlesAsAnEndedOne() {
		SettledRun<String> run = run(-1);
		send(run, "withdraw");
		run.cancelled(new LockInterruptedException(NAME, new InterruptedException()));
		assertThat(this.told).isEmpty();
		this.port.reply(0, 1L);
		assertThat(this.told).containsExactly("withdraw replied", "failed LockInterruptedException");
	}

	@Test
	void onlyTheFirstEndIsTold() {
		SettledRun<String> run = run(-1);
		run.granted("grant");
		run.failed(new LockTimeoutException(NAME, Duration.ZERO, null));
		run.cancelled(new LockInterruptedException(NAME, new InterruptedException()));
		assertThat(this.told).containsExactly("granted grant");
	}

	private SettledRun<String> run(long callNanos) {
		return new SettledRun<>(this.port, Completion.of((won) -> this.told.add("granted " + won),
				(error) -> this.told.add("failed " + error.getClass().getSimpleName())), SETTLE, callNanos);
	}

	private void send(SettledRun<String> run, String operation) {
		run.run(NAME, operation, call(), Completion.of((reply) -> this.told.add(operation + " replied"),
				(error) -> this.told.add(operation + " failed")));
	}

	private static ScriptCall call() {
		return new ScriptCall(LockScripts.RELEASE, List.of("lock"), new ScriptArgs.HeldMember("owner", ""));
	}

}
