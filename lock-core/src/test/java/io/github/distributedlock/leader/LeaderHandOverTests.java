package io.github.distributedlock.leader;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.test.JvmProcess;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Hand-over between three instances in real JVMs on a real redis-server, each running a
 * leader-only job every 20 ms that writes its term's token to a resource refusing stale
 * tokens ({@link LeaderChildMain}): a graceful stop, a {@code kill -9} and a
 * {@code SIGSTOP} of the leader, one after the other. The paused leader must start no
 * call once resumed; a call it was in the middle of may end after the resume, and its
 * write, with the old term's token, is the only one the resource may refuse. Leases are 2
 * s, revoked 500 ms before their end; attempts wait 250 ms. The measured hand-over times
 * are printed as {@code HANDOVER} lines.
 */
class LeaderHandOverTests {

	private static final Duration LEASE = Duration.ofMillis(2000);

	private static final Duration MARGIN = Duration.ofMillis(500);

	private static final Duration WAIT = Duration.ofMillis(250);

	private static final Duration BLOCK = Duration.ofSeconds(30);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private final List<Line> lines = new CopyOnWriteArrayList<>();

	private final List<JvmProcess> children = new ArrayList<>();

	@AfterEach
	void stopChildren() throws IOException {
		Files.write(Path.of("target", "leader-handover-lines.txt"),
				this.lines.stream().map((line) -> line.child() + " " + line.text()).toList());
		this.children.forEach((child) -> {
			if (child.isPaused()) {
				child.resume();
			}
			child.close();
		});
	}

	@Test
	void shouldHandOverOnStopKillAndPauseAndFenceThePausedLeader() {
		for (int i = 0; i < 3; i++) {
			this.children.add(start(i));
		}
		Grant first = awaitSteadyLeader(0);

		// Graceful: the leader yields at once and releases; a waiter is woken.
		JvmProcess stopping = this.children.get(first.child());
		long stopSent = System.currentTimeMillis();
		stopping.send("stop");
		Grant second = awaitGrant(first.token());
		long graceful = second.millis() - stopSent;
		assertThat(second.child()).isNotEqualTo(first.child());
		assertThat(Duration.ofMillis(graceful)).as("hand-over after a stop, by release").isLessThan(LEASE);
		stopping.send("start");
		Grant toKill = awaitSteadyLeader(first.token());

		// kill -9: nobody releases; the lease runs out, and a waiter's next attempt wins.
		long killed = System.currentTimeMillis();
		this.children.get(toKill.child()).kill();
		Grant third = awaitGrant(toKill.token());
		long kill = third.millis() - killed;
		assertThat(Duration.ofMillis(kill)).as("hand-over after kill -9")
			.isLessThan(LEASE.plus(WAIT).plus(Duration.ofSeconds(1)));
		Grant toPause = awaitSteadyLeader(toKill.token());

		// SIGSTOP: the paused leader's lease runs out while it cannot notice.
		JvmProcess paused = this.children.get(toPause.child());
		long pausedAt = System.currentTimeMillis();
		paused.pause();
		// The signal goes through a shell: the child may start a call until it lands.
		long stoppedAt = System.currentTimeMillis();
		Grant fourth = awaitGrant(toPause.token());
		long pause = fourth.millis() - pausedAt;
		assertThat(fourth.child()).isNotEqualTo(toPause.child());
		assertThat(Duration.ofMillis(pause)).as("hand-over after SIGSTOP")
			.isLessThan(LEASE.plus(WAIT).plus(Duration.ofSeconds(1)));
		await().atMost(BLOCK).until(() -> runs(fourth.child()).size() >= 5);
		long resumedAt = System.currentTimeMillis();
		paused.resume();
		Line revoked = await().atMost(BLOCK).until(() -> revocation(toPause), Optional::isPresent).orElseThrow();
		// Give the resumed instance's job, due every 20 ms, many chances to run.
		sleep(LEASE);
		System.out.println("HANDOVER graceful=" + graceful + "ms kill9=" + kill + "ms sigstop=" + pause
				+ "ms (resumed leader: " + revoked.text() + ")");

		assertThat(runs(toPause.child())).as("the paused leader ran before its pause").isNotEmpty();
		assertThat(runs(toPause.child())).as("calls the paused leader started after it resumed")
			.allSatisfy((run) -> assertThat(run.started()).isLessThan(resumedAt));
		// A call in progress when the leader was paused ends after it resumed: its write
		// carries the old term's token, and only the fenced resource stops it.
		List<Run> refused = runs().stream().filter((run) -> !run.accepted()).toList();
		System.out.println("REFUSED " + refused);
		assertThat(refused).as("refused writes").hasSizeLessThanOrEqualTo(1).allSatisfy((run) -> {
			assertThat(run.child()).isEqualTo(toPause.child());
			assertThat(run.token()).isEqualTo(toPause.token());
			assertThat(run.started()).isLessThanOrEqualTo(stoppedAt);
		});
		// The call in flight at the pause may also time out when the leader resumes.
		assertThat(this.lines).filteredOn((line) -> line.text().startsWith("FAILED "))
			.as("failed calls")
			.allSatisfy((line) -> {
				assertThat(line.child()).isEqualTo(toPause.child());
				assertThat(Long.parseLong(line.field(1))).isLessThanOrEqualTo(stoppedAt);
			});
		// In the order Redis ran them, the writes of each term come after the earlier
		// terms', but for the one refused.
		List<String> log = ((List<?>) redis.server().command("LRANGE", "resource-log:handover", "0", "-1")).stream()
			.map(Object::toString)
			.toList();
		assertThat(log).hasSizeGreaterThan(20);
		assertThat(log.stream().filter((write) -> write.endsWith(" 1")).map((write) -> write.split(" ")[0]))
			.as("tokens of the accepted writes, in Redis's order")
			.isSortedAccordingTo(Comparator.comparingLong(Long::parseLong));
		assertThat(log.stream().filter((write) -> write.endsWith(" 0"))).as("writes refused, in Redis's log")
			.hasSizeLessThanOrEqualTo(1)
			.allSatisfy((write) -> assertThat(write).isEqualTo(toPause.token() + " 0"));
	}

	private JvmProcess start(int index) {
		RedisServer server = redis.server();
		JvmProcess child = JvmProcess.builder(LeaderChildMain.class)
			.name("leader-" + index)
			.args(server.host(), Integer.toString(server.port()), "handover", "instance-" + index,
					Long.toString(LEASE.toMillis()), Long.toString(MARGIN.toMillis()), Long.toString(WAIT.toMillis()))
			.lines((text) -> {
				this.lines.add(new Line(index, text));
				return text;
			})
			.start();
		child.awaitLine("STARTED", BLOCK);
		return child;
	}

	private Grant awaitGrant(long afterToken) {
		return await().atMost(BLOCK).until(() -> {
			for (Line line : this.lines) {
				if (line.text().startsWith("GRANTED ") && Long.parseLong(line.field(1)) > afterToken) {
					return new Grant(line.child(), Long.parseLong(line.field(1)), Long.parseLong(line.field(2)));
				}
			}
			return null;
		}, (grant) -> grant != null);
	}

	/**
	 * Wait for the latest term to have run its job a few times, and return it. On a busy
	 * machine a term may end early (a renewal later than the margin allows) and hand over
	 * once more: the scenario goes on with the latest leader.
	 */
	private Grant awaitSteadyLeader(long afterToken) {
		return await().atMost(BLOCK).until(() -> {
			Grant latest = null;
			for (Line line : this.lines) {
				if (line.text().startsWith("GRANTED ") && Long.parseLong(line.field(1)) > afterToken
						&& (latest == null || Long.parseLong(line.field(1)) > latest.token())) {
					latest = new Grant(line.child(), Long.parseLong(line.field(1)), Long.parseLong(line.field(2)));
				}
			}
			if (latest == null) {
				return null;
			}
			long token = latest.token();
			return (runs(latest.child()).stream().filter((run) -> run.token() == token).count() >= 5) ? latest : null;
		}, (grant) -> grant != null);
	}

	private Optional<Line> revocation(Grant grant) {
		return this.lines.stream()
			.filter((line) -> line.child() == grant.child() && line.text().startsWith("REVOKED ")
					&& Long.parseLong(line.field(2)) == grant.token())
			.findFirst();
	}

	private List<Run> runs(int child) {
		return runs().stream().filter((run) -> run.child() == child).toList();
	}

	private List<Run> runs() {
		return this.lines.stream()
			.filter((line) -> line.text().startsWith("RAN "))
			.map((line) -> new Run(line.child(), Long.parseLong(line.field(1)), line.field(2).equals("1"),
					Long.parseLong(line.field(3)), Long.parseLong(line.field(4))))
			.toList();
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	record Line(int child, String text) {

		String field(int index) {
			return this.text.split(" ")[index];
		}

	}

	record Grant(int child, long token, long millis) {

	}

	record Run(int child, long token, boolean accepted, long started, long ended) {

	}

}
