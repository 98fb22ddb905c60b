package io.github.distributedlock.redis;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Main classes run in child JVMs by the multi-process tests.
 */
final class ChildMains {

	private ChildMains() {
	}

	/**
	 * Takes one lock, says so, and holds it until killed. Arguments: host port scope key
	 * leaseMillis.
	 */
	static final class Holder {

		public static void main(String[] args) throws Exception {
			LettuceConnectionFactory factory = RedisConnections.standalone(args[0], Integer.parseInt(args[1]),
					RedisConnections.CHILD_TIMEOUT);
			RedisLockTemplate template = RedisLockTemplate.builder(factory).build();
			LockHandle held = template.acquire(LockRequest.builder(args[2])
				.key(args[3])
				.lease(Duration.ofMillis(Long.parseLong(args[4])))
				.build());
			System.out.println("HELD " + held.fencingToken());
			System.out.flush();
			Thread.sleep(Long.MAX_VALUE);
		}

	}

	/**
	 * Waits for a fair lock, says when it got it, holds it briefly and exits. Arguments:
	 * host port scope key.
	 */
	static final class FairWaiter {

		public static void main(String[] args) throws Exception {
			LettuceConnectionFactory factory = RedisConnections.standalone(args[0], Integer.parseInt(args[1]),
					RedisConnections.CHILD_TIMEOUT);
			RedisLockTemplate template = RedisLockTemplate.builder(factory).build();
			System.out.println("WAITING");
			System.out.flush();
			try (LockHandle held = template.acquire(
					LockRequest.builder(args[2]).key(args[3]).fair(true).waitTime(Duration.ofSeconds(60)).build())) {
				System.out.println("GOT " + System.nanoTime() + " " + held.fencingToken());
				System.out.flush();
				Thread.sleep(50);
			}
			template.close();
			factory.destroy();
			System.exit(0);
		}

	}

	/**
	 * Runs threads that take a few keys many times and logs each critical section.
	 * Arguments: host port scope threads iterations keys outputFile.
	 */
	static final class FuzzWorker {

		public static void main(String[] args) throws Exception {
			LettuceConnectionFactory factory = RedisConnections.standalone(args[0], Integer.parseInt(args[1]),
					RedisConnections.CHILD_TIMEOUT);
			RedisLockTemplate template = RedisLockTemplate.builder(factory).build();
			String scope = args[2];
			int threads = Integer.parseInt(args[3]);
			int iterations = Integer.parseInt(args[4]);
			int keys = Integer.parseInt(args[5]);
			Path output = Path.of(args[6]);
			List<Section> sections = Collections.synchronizedList(new ArrayList<>());
			CountDownLatch done = new CountDownLatch(threads);
			List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
			System.out.println("READY");
			System.out.flush();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				Thread worker = new Thread(() -> {
					try {
						for (int i = 0; i < iterations; i++) {
							String key = "k" + ((thread + i) % keys);
							template.executeWithoutResult(LockRequest.builder(scope)
								.key(key)
								.lease(Duration.ofSeconds(10))
								.waitTime(Duration.ofSeconds(60))
								.build(), (context) -> {
									long start = System.nanoTime();
									RedisContractSuite.busy(50_000);
									sections.add(new Section(key, start, System.nanoTime(), context.fencingToken()));
								});
						}
					}
					catch (Throwable ex) {
						failures.add(ex);
					}
					finally {
						done.countDown();
					}
				});
				worker.start();
			}
			done.await();
			try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(output, StandardCharsets.UTF_8))) {
				for (Section section : sections) {
					out.println(section.format());
				}
			}
			template.close();
			factory.destroy();
			if (!failures.isEmpty()) {
				failures.get(0).printStackTrace();
				System.exit(2);
			}
			System.out.println("DONE " + sections.size());
			System.out.flush();
			System.exit(0);
		}

	}

}
