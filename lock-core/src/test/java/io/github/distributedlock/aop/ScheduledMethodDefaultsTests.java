package io.github.distributedlock.aop;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.github.distributedlock.test.RedisServers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * The defaults of a {@code @DistributedLock} on a method that Spring's {@code @Scheduled}
 * runs: an unset wait time is zero and an unset {@code onTimeout} is {@code SKIP}, as
 * ShedLock skips a locked task; what the annotation sets is kept, and other methods keep
 * the template's defaults.
 */
@ExtendWith(RedisServerExtension.class)
class ScheduledMethodDefaultsTests {

	private final LockedMethods methods = new LockedMethods(SpelLockKeyResolver::new, null);

	@Test
	void whenAScheduledMethodSetsNeitherWaitNorOnTimeoutThenItTriesOnceAndSkips() {
		LockedMethod job = locked("report");
		assertThat(job.onTimeout()).isEqualTo(OnTimeout.SKIP);
		assertThat(waitTime(job)).isEqualTo(Duration.ZERO);
	}

	@Test
	void whenAScheduledMethodSetsAWaitTimeThenItIsKept() {
		LockedMethod job = locked("patientReport");
		assertThat(waitTime(job)).isEqualTo(Duration.ofSeconds(5));
		assertThat(job.onTimeout()).isEqualTo(OnTimeout.SKIP);
		assertThat(waitTime(locked("patientReportFromString"))).isEqualTo(Duration.ofMillis(1500));
	}

	@Test
	void whenAScheduledMethodSetsOnTimeoutThenItIsKept() {
		LockedMethod job = locked("loudReport");
		assertThat(job.onTimeout()).isEqualTo(OnTimeout.THROW);
		assertThat(waitTime(job)).isEqualTo(Duration.ZERO);
	}

	@Test
	void whenAMethodHasSeveralSchedulesThenItIsAScheduledJob() {
		LockedMethod job = locked("twiceScheduledReport");
		assertThat(job.onTimeout()).isEqualTo(OnTimeout.SKIP);
		assertThat(waitTime(job)).isEqualTo(Duration.ZERO);
	}

	@Test
	void whenAMethodIsNotScheduledThenTheTemplateDefaultsApply() {
		LockedMethod call = locked("onDemandReport");
		assertThat(call.onTimeout()).isEqualTo(OnTimeout.THROW);
		assertThat(waitTime(call)).as("null: the template's default wait time").isNull();
	}

	@Test
	void whenAScheduledMethodReturnsAPrimitiveThenStartupFailsNamingTheSkipDefault() {
		LockAnnotationException ex = catchThrowableOfType(LockAnnotationException.class,
				() -> this.methods.validate(CountingJobs.class));
		assertThat(ex.getProblems()).singleElement()
			.asString()
			.startsWith("CountingJobs.count(): returns int, so onTimeout = SKIP (the default of a @Scheduled method) "
					+ "has no value to return");
	}

	@Test
	void whenAnotherInstanceRunsTheJobThenAScheduledMethodSkipsAtOnceAndOthersStillWait(RedisServer server) {
		LettuceConnectionFactory connectionFactory = TestRedis.connectionFactory(server);
		Duration defaultWait = Duration.ofSeconds(2);
		LockDefaults defaults = LockDefaults.STANDARD.withWaitTime(defaultWait);
		try (RedisLockTemplate template = RedisLockTemplate.builder(connectionFactory).defaults(defaults).build();
				RedisLockTemplate otherInstance = RedisLockTemplate.builder(connectionFactory).build()) {
			Reports reports = proxy(new Reports(), template);
			try (LockHandle running = otherInstance.acquire(LockRequest.of("report", null))) {
				long start = System.nanoTime();
				assertThat(reports.report()).isNull();
				Duration skippedAfter = Duration.ofNanos(System.nanoTime() - start);
				assertThat(reports.runs()).isZero();
				assertThat(skippedAfter).as("skipped well before the default wait time ran out")
					.isLessThan(defaultWait.dividedBy(2));
			}
			try (LockHandle running = otherInstance.acquire(LockRequest.of("on-demand", null))) {
				long start = System.nanoTime();
				assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(reports::onDemandReport);
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("waited for the default wait time")
					.isGreaterThanOrEqualTo(defaultWait);
			}
			assertThat(reports.report()).isEqualTo("done");
			assertThat(reports.runs()).isOne();
		}
		finally {
			connectionFactory.destroy();
		}
	}

	@Test
	void whenRedisIsDownThenAScheduledJobSkipsWithOneWarningPerOutage() {
		// slf4j-simple writes to System.err as it is at each line.
		PrintStream stderr = System.err;
		ByteArrayOutputStream output = new ByteArrayOutputStream();
		System.setErr(new PrintStream(output, true, StandardCharsets.UTF_8));
		try (RedisProcess server = RedisServers.launch()) {
			LettuceConnectionFactory connectionFactory = TestRedis.connectionFactory(server);
			try (RedisLockTemplate template = RedisLockTemplate.builder(connectionFactory).build()) {
				Reports reports = proxy(new Reports(), template);
				assertThat(reports.report()).isEqualTo("done");
				server.stop();
				for (int i = 0; i < 3; i++) {
					assertThat(reports.report()).as("trigger %d while Redis is down", i).isNull();
				}
				assertThat(reports.runs()).isOne();
				assertThatExceptionOfType(LockAccessException.class).as("a method that is not a skipping job")
					.isThrownBy(reports::loudReport);
				server.start();
				await().atMost(Duration.ofSeconds(30)).until(() -> reports.report() != null);
				assertThat(reports.runs()).isEqualTo(2);
			}
			finally {
				connectionFactory.destroy();
			}
		}
		finally {
			System.setErr(stderr);
		}
		String logged = output.toString(StandardCharsets.UTF_8);
		stderr.print(logged);
		assertThat(logged.lines().filter((line) -> line.contains(" WARN ") && line.contains("Skipped"))).singleElement()
			.asString()
			.contains("Skipped Reports.report(): could not reach Redis for lock 'report'");
		assertThat(logged).doesNotContain("\tat io.github.distributedlock")
			.containsPattern("Reports.report\\(\\) reached Redis again after \\d+ skipped triggers");
	}

	private Reports proxy(Reports target, RedisLockTemplate template) {
		DistributedLockInterceptor interceptor = new DistributedLockInterceptor(this.methods, () -> template,
				DefaultLockTimeoutHandler::new, List::of);
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new DistributedLockAdvisor(this.methods, interceptor));
		return (Reports) factory.getProxy();
	}

	private LockedMethod locked(String name) {
		Method method = ReflectionUtils.findMethod(Reports.class, name);
		assertThat(method).as(name).isNotNull();
		LockedMethod locked = this.methods.find(method, Reports.class);
		assertThat(locked).as(name + " is locked").isNotNull();
		return locked;
	}

	private static @Nullable Duration waitTime(LockedMethod locked) {
		return locked.requests(new Reports(), new Object[0]).get(0).waitTime();
	}

	public static class Reports {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@Scheduled(fixedDelay = 60_000)
		@DistributedLock(scope = "report")
		public @Nullable String report() {
			this.runs.incrementAndGet();
			return "done";
		}

		@Scheduled(fixedDelay = 60_000)
		@DistributedLock(scope = "report", waitTime = 5)
		public void patientReport() {
		}

		@Scheduled(fixedDelay = 60_000)
		@DistributedLock(scope = "report", waitTimeString = "1500ms")
		public void patientReportFromString() {
		}

		@Scheduled(fixedDelay = 60_000)
		@DistributedLock(scope = "report", onTimeout = OnTimeout.THROW)
		public void loudReport() {
		}

		@Scheduled(fixedDelay = 60_000)
		@Scheduled(cron = "0 0 * * * *")
		@DistributedLock(scope = "report")
		public void twiceScheduledReport() {
		}

		@DistributedLock(scope = "on-demand")
		public void onDemandReport() {
		}

	}

	public static class CountingJobs {

		@Scheduled(fixedDelay = 60_000)
		@DistributedLock(scope = "count")
		public int count() {
			return 1;
		}

	}

}
