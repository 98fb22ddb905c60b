package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.CohortStatistics;
import io.github.distributedlock.redis.driver.RegisteredHold;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The reactive template with cohorts on (docs/design/cohorting.md), on a real
 * redis-server: subscribers of one template pass the lock in memory, one at a time, with
 * strictly increasing tokens, beside another template that takes it through Redis;
 * subscribers cancelled at any point leave the lock free; the listeners hear of one
 * holder at a time.
 */
class ReactiveCohortTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private static final int SUBSCRIBERS = 8;

	private static final int ROUNDS = 40;

	@Test
	void subscribersPassTheLockInMemoryOneAtATimeWithIncreasingTokensBesideAnotherTemplate() {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		// The shared connection is made before the replies run (spring-data-redis#2289).
		new StringRedisTemplate(factory).hasKey("warm-up");
		List<long[]> holds = Collections.synchronizedList(new ArrayList<>());
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		CohortStatistics statistics;
		try (ReactiveRedisLockTemplate cohorts = ReactiveRedisLockTemplate.builder(factory)
			.cohorts(16, Duration.ofMillis(50))
			.build(); ReactiveRedisLockTemplate remote = ReactiveRedisLockTemplate.builder(factory).build()) {
			statistics = cohorts.cohortStatistics();
			Flux.range(0, SUBSCRIBERS * 2).flatMap((i) -> {
				ReactiveRedisLockTemplate template = (i % 2 == 0) ? cohorts : remote;
				return Flux.range(0, ROUNDS)
					.concatMap(
							(round) -> Mono.usingWhen(template.acquire(request()), (held) -> Mono.fromRunnable(() -> {
								if (inside.incrementAndGet() != 1) {
									overlaps.incrementAndGet();
								}
								holds.add(new long[] { held.fencingToken(), redisToken(held),
										(template == cohorts) ? 1 : 0 });
							})
								.then(Mono.delay(Duration.ofNanos(300_000)))
								.then(Mono.fromRunnable(inside::decrementAndGet)), ReactiveLockHandle::release));
			}, SUBSCRIBERS * 2).then().block(Duration.ofMinutes(2));
		}
		finally {
			factory.destroy();
		}
		assertThat(overlaps).as("holds that overlapped").hasValue(0);
		CohortTemplateTests.assertPassedWithinTheCohortTemplate(holds, statistics, SUBSCRIBERS * ROUNDS);
	}

	/**
	 * Subscribers cancelled while they wait, as a pass reaches them and while they hold:
	 * a grant that reaches a cancelled subscriber ends through its hold, which passes the
	 * lock on or ends the cohort, so that no head sleeps under a cohort nobody holds.
	 */
	@Test
	void subscribersCancelledAtAnyPointLeaveTheLockFreeForTheNext() {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		StringRedisTemplate redisTemplate = new StringRedisTemplate(factory);
		redisTemplate.hasKey("warm-up");
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
		try (ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(factory)
			.cohorts(16, Duration.ofMillis(50))
			.build()) {
			for (int round = 0; round < 4; round++) {
				Flux.range(0, 12)
					.flatMap((subscriber) -> Flux.range(0, 150)
						.concatMap((each) -> cancelledAtRandom(template, inside, overlaps, tokens)), 12)
					.then()
					.block(Duration.ofMinutes(2));
				// A cancelled subscriber's release, and that of a grant that reached it
				// after it was cancelled, runs after the round ends: it must free the key
				// at once, well within the 30 s lease a lost hold would leave behind.
				int after = round;
				await().atMost(Duration.ofSeconds(1))
					.untilAsserted(() -> assertThat(redisTemplate.hasKey(template.lockKey(request())))
						.as("the lock after round %d", after)
						.isFalse());
				long start = System.nanoTime();
				ReactiveLockHandle next = template
					.acquire(LockRequest.builder("cohort").key("reactive").waitTime(Duration.ofSeconds(2)).build())
					.block(Duration.ofSeconds(10));
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("taking the free lock after round %d", round)
					.isLessThan(Duration.ofSeconds(1));
				next.release().block(Duration.ofSeconds(10));
			}
		}
		finally {
			factory.destroy();
		}
		assertThat(overlaps).as("holds that overlapped").hasValue(0);
		for (int i = 1; i < tokens.size(); i++) {
			assertThat(tokens.get(i)).as("the token of hold %d, above the one before", i)
				.isGreaterThan(tokens.get(i - 1));
		}
	}

	/**
	 * Hold the lock for up to 0.4 ms; two times in three, give up after 0.2 to 3 ms,
	 * waiting or holding.
	 */
	private static Mono<Void> cancelledAtRandom(ReactiveRedisLockTemplate template, AtomicInteger inside,
			AtomicInteger overlaps, List<Long> tokens) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		long holdNanos = random.nextLong(50_000, 400_000);
		Mono<Void> use = Mono.usingWhen(template.acquire(request()), (held) -> {
			if (inside.incrementAndGet() != 1) {
				overlaps.incrementAndGet();
			}
			tokens.add(held.fencingToken());
			AtomicBoolean left = new AtomicBoolean();
			Runnable leave = () -> {
				if (left.compareAndSet(false, true)) {
					inside.decrementAndGet();
				}
			};
			return Mono.delay(Duration.ofNanos(holdNanos)).then(Mono.<Void>fromRunnable(leave)).doOnCancel(leave);
		}, ReactiveLockHandle::release, (held, error) -> held.release(), ReactiveLockHandle::release);
		Mono<Void> run = (random.nextInt(3) == 0) ? use
				: use.timeout(Duration.ofNanos(random.nextLong(200_000, 3_000_000)));
		return run.onErrorResume(TimeoutException.class, (ex) -> Mono.empty());
	}

	/**
	 * The listeners hear of a passed lock's release before they hear of its next holder:
	 * the pass tells the next holder only once the release is told.
	 */
	@Test
	void listenersHearThatAPassedLockWasReleasedBeforeTheyHearOfItsNextHolder() {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		new StringRedisTemplate(factory).hasKey("warm-up");
		AtomicInteger held = new AtomicInteger();
		AtomicInteger mostHeld = new AtomicInteger();
		AtomicInteger released = new AtomicInteger();
		// What the listener heard, in order, to show where two holders overlapped.
		List<String> heard = Collections.synchronizedList(new ArrayList<>());
		LockListener listener = new LockListener() {

			@Override
			public void acquired(LockContext context) {
				int now = held.incrementAndGet();
				heard.add(describe("acquired", context, now));
				mostHeld.accumulateAndGet(now, Math::max);
			}

			@Override
			public void released(LockContext context, Duration heldFor) {
				released.incrementAndGet();
				heard.add(describe("released", context, held.decrementAndGet()));
			}

		};
		CohortStatistics statistics;
		try (ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(factory)
			.cohorts(16, Duration.ofMillis(50))
			.listener(listener)
			.build()) {
			statistics = template.cohortStatistics();
			Flux.range(0, SUBSCRIBERS)
				.flatMap(
						(subscriber) -> Flux.range(0, ROUNDS)
							.concatMap((round) -> Mono.usingWhen(template.acquire(request()),
									(lock) -> Mono.delay(Duration.ofNanos(200_000)), ReactiveLockHandle::release)),
						SUBSCRIBERS)
				.then()
				.block(Duration.ofMinutes(2));
		}
		finally {
			factory.destroy();
		}
		assertThat(statistics.passes()).as("holds passed in memory").isPositive();
		assertThat(released).hasValue(SUBSCRIBERS * ROUNDS);
		assertThat(mostHeld)
			.as("holders the listeners knew of at once; heard, around the first overlap:%n%s",
					aroundFirstOverlap(heard))
			.hasValue(1);
	}

	private static String describe(String event, LockContext context, int heldNow) {
		return event + " token " + context.fencingToken() + " on " + Thread.currentThread().getName() + ", held "
				+ heldNow;
	}

	private static String aroundFirstOverlap(List<String> heard) {
		List<String> events = List.copyOf(heard);
		int first = 0;
		while (first < events.size() && !events.get(first).endsWith("held 2")) {
			first++;
		}
		return String.join(System.lineSeparator(),
				events.subList(Math.max(0, first - 6), Math.min(events.size(), first + 4)));
	}

	/**
	 * Return the token Redis records for the hold: a passed holder shows the next of its
	 * cohort's block.
	 */
	private static long redisToken(ReactiveLockHandle handle) {
		return ((RegisteredHold) handle).grant().token();
	}

	private static LockRequest request() {
		return LockRequest.builder("cohort")
			.key("reactive")
			.lease(Duration.ofSeconds(30))
			.waitTime(Duration.ofSeconds(60))
			.build();
	}

}
