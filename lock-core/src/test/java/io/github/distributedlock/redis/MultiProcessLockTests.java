package io.github.distributedlock.redis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.JvmProcess;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Locks across real JVM processes: a holder killed with -9, and a concurrency fuzz whose
 * critical sections are checked for overlap.
 */
class MultiProcessLockTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldGetALockOnceTheLeaseOfAKilledHolderEnds() throws Exception {
		RedisServer server = redis.server();
		try (JvmProcess holder = JvmProcess.start(ChildMains.Holder.class, server.host(),
				Integer.toString(server.port()), "crash", "victim", "2000")) {
			long heldToken = Long.parseLong(holder.awaitLine("HELD ", Duration.ofSeconds(30)).substring(5));
			long heldAt = System.nanoTime();
			holder.kill();
			LettuceConnectionFactory factory = RedisConnections.standalone(server);
			try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
				long before = evalCalls(server);
				try (LockHandle next = template
					.acquire(LockRequest.builder("crash").key("victim").waitTime(Duration.ofSeconds(10)).build())) {
					Duration sinceHeld = Duration.ofNanos(System.nanoTime() - heldAt);
					assertThat(next.fencingToken()).isGreaterThan(heldToken);
					assertThat(next.waited()).isTrue();
					// Not before the 2 s lease ended, and soon after.
					assertThat(sinceHeld).isGreaterThan(Duration.ofMillis(1900)).isLessThan(Duration.ofMillis(3500));
					// Try, try and file, try again within half the request's claim (in
					// case its reservation message is lost), take at the lease's end.
					assertThat(evalCalls(server) - before).as("acquire scripts sent while waiting: no polling")
						.isLessThanOrEqualTo(4);
				}
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void shouldNeverLetCriticalSectionsOverlapAcrossProcesses(@TempDir Path dir) throws Exception {
		RedisServer server = redis.server();
		int processes = 3;
		int threads = 4;
		int iterations = 250;
		List<JvmProcess> workers = new ArrayList<>();
		List<Path> outputs = new ArrayList<>();
		try {
			for (int p = 0; p < processes; p++) {
				Path output = dir.resolve("sections-" + p + ".txt");
				outputs.add(output);
				workers
					.add(JvmProcess.start(ChildMains.FuzzWorker.class, server.host(), Integer.toString(server.port()),
							"fuzz", Integer.toString(threads), Integer.toString(iterations), "3", output.toString()));
			}
			for (JvmProcess worker : workers) {
				worker.awaitLine("DONE ", Duration.ofMinutes(3));
				assertThat(worker.awaitExit(Duration.ofSeconds(30))).isZero();
			}
		}
		finally {
			workers.forEach(JvmProcess::close);
		}
		List<Section> sections = new ArrayList<>();
		for (Path output : outputs) {
			Files.readAllLines(output).forEach((line) -> sections.add(Section.parse(line)));
		}
		assertThat(sections).hasSize(processes * threads * iterations);
		assertThat(Section.overlaps(sections)).isEmpty();
		Object keys = server.command("KEYS", "lock:{fuzz*");
		assertThat((List<?>) keys).allSatisfy((key) -> assertThat(key.toString()).endsWith(":fence"));
	}

	@Test
	void shouldGrantAFairLockInArrivalOrderAcrossJvms() throws Exception {
		RedisServer server = redis.server();
		LettuceConnectionFactory factory = RedisConnections.standalone(server);
		List<JvmProcess> waiters = new ArrayList<>();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
			LockHandle holder = template.acquire(LockRequest.builder("fair-jvms").key("k").fair(true).build());
			String queue = template.lockKey(io.github.distributedlock.LockName.of("fair-jvms", "k")) + ":queue";
			for (int i = 0; i < 3; i++) {
				JvmProcess waiter = JvmProcess.start(ChildMains.FairWaiter.class, server.host(),
						Integer.toString(server.port()), "fair-jvms", "k");
				waiters.add(waiter);
				long queued = i + 1;
				// The next JVM starts only once this one has its place in the queue.
				org.awaitility.Awaitility.await()
					.atMost(Duration.ofSeconds(30))
					.until(() -> ((Number) server.command("ZCARD", queue)).longValue() == queued);
			}
			holder.close();
			long[] got = new long[3];
			for (int i = 0; i < 3; i++) {
				got[i] = Long.parseLong(waiters.get(i).awaitLine("GOT ", Duration.ofSeconds(30)).split(" ")[1]);
				assertThat(waiters.get(i).awaitExit(Duration.ofSeconds(30))).isZero();
			}
			assertThat(got[0]).as("first arrival first").isLessThan(got[1]);
			assertThat(got[1]).as("second arrival second").isLessThan(got[2]);
		}
		finally {
			waiters.forEach(JvmProcess::close);
			factory.destroy();
		}
	}

	private static long evalCalls(RedisServer server) {
		Map<String, Long> calls = server.commandCalls();
		return calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L) + calls.getOrDefault("fcall", 0L);
	}

}
