package io.github.distributedlock.autoconfigure;

import java.util.List;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.leader.Candidate;
import io.github.distributedlock.leader.DefaultCandidate;
import io.github.distributedlock.leader.LeaderOnly;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.data.redis.RedisConnectionFailureException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Startup failures turned into Boot's failure report.
 */
@ExtendWith(RedisServerExtension.class)
class FailureAnalyzerTests {

	@Test
	void shouldDescribeEveryInvalidDeclarationOfAClass(RedisServer server) {
		TestRedis.contextRunner(server).withBean(Broken.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new LockAnnotationFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription())
				.startsWith("Invalid @DistributedLock declarations in " + Broken.class.getName() + ":")
				.contains("- Broken.skip(): returns int, so onTimeout = SKIP has no value to return")
				.contains("- Broken.fallBack(String): fallback method 'missing' does not exist in");
			// One action per kind of mistake found, and none for a mistake not made.
			assertThat(analysis.getAction()).startsWith("Do each of these:")
				.contains("a nullable return type")
				.contains("Name, in fallback, a method of the same bean")
				.doesNotContain("SpEL");
		});
	}

	@Test
	void shouldSayHowToFixEachKindOfAnnotationMistake() {
		assertThat(LockAnnotationFailureAnalyzer.actionFor("Jobs.report(): expire must be at least 1 ms, but was PT0S"))
			.startsWith("Set each duration once")
			.doesNotContain("SpEL");
		assertThat(LockAnnotationFailureAnalyzer
			.actionFor("Jobs.report(String): key '#nme' refers to #nme, but the parameters are (#name)"))
			.contains("SpEL");
		assertThat(LockAnnotationFailureAnalyzer
			.actionFor("Jobs.report(): it is private, so no Spring AOP proxy " + "can intercept it"))
			.contains("Make the method public");
		assertThat(LockAnnotationFailureAnalyzer.actionFor("Jobs.report(): permits must be at least 1"))
			.contains("permits to 1 or more");
		assertThat(LockAnnotationFailureAnalyzer.actionFor("Jobs.report(): scope is not usable: Lock 'x' has a scope"))
			.contains("at most 512 characters");
	}

	@Test
	void shouldReportThatRedisIsUnreachableAtStartup() {
		new ApplicationContextRunner().withConfiguration(TestRedis.ALL)
			.withPropertyValues("spring.data.redis.port=1", "spring.data.redis.timeout=1s")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new RedisUnreachableFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription())
					.startsWith("The distributed lock template could not connect to Redis at startup: ")
					.contains(":1");
				assertThat(analysis.getAction()).contains("spring.data.redis.")
					.doesNotContain("or set distributed-lock.enabled=false")
					.contains("distributed-lock.enabled=false does not work around this");
			});
	}

	@Test
	void shouldNotStartABeanThatInjectsTheTemplateWhenLocksAreDisabled() {
		// Why the report must not offer distributed-lock.enabled=false as the way out.
		new ApplicationContextRunner().withConfiguration(TestRedis.ALL)
			.withPropertyValues("spring.data.redis.port=1", "distributed-lock.enabled=false")
			.withBean(TemplateUser.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining(LockTemplate.class.getName()));
	}

	@Test
	void shouldNameADurationPropertyOutOfRangeWithItsValueAsWritten(RedisServer server) {
		FailureAnalysis analysis = startupFailure(server, "distributed-lock.wait-time=-1s");
		assertThat(analysis.getDescription())
			.startsWith("Invalid value '-1s' for configuration property 'distributed-lock.wait-time'")
			.endsWith(": it must be zero or more.");
		assertThat(analysis.getAction()).startsWith(
				"Set distributed-lock.wait-time to a value that is zero or more (how long to wait for a taken lock");
	}

	@Test
	void shouldNameACohortPropertyThatTheEngineWouldRefuseOrIgnore(RedisServer server) {
		assertThat(cohortFailure(server, "distributed-lock.cohorts.max-holders=1").getDescription())
			.startsWith("Invalid value '1' for configuration property 'distributed-lock.cohorts.max-holders'")
			.endsWith(": it must be between 2 and 1000.");
		assertThat(cohortFailure(server, "distributed-lock.cohorts.max-time=11s").getDescription())
			.startsWith("Invalid value '11s' for configuration property 'distributed-lock.cohorts.max-time'")
			.endsWith(": it must be between 1ms and a third of distributed-lock.lease, 30s (a lock taken with a "
					+ "lease under three times max-time is never passed).");
		FailureAnalysis defaultTooLong = cohortFailure(server, "distributed-lock.lease=50ms");
		assertThat(defaultTooLong.getDescription()).as("the default max-time, 20ms, over a third of 50ms")
			.startsWith("Invalid value '20ms' for configuration property 'distributed-lock.cohorts.max-time':")
			.contains("a third of distributed-lock.lease, 50ms");
		assertThat(defaultTooLong.getAction()).as("no advice to remove a property that was not set")
			.doesNotContain("remove it");
		assertThat(cohortFailure(server, "distributed-lock.hand-off=false").getDescription())
			.startsWith("Invalid value 'true' for configuration property 'distributed-lock.cohorts.enabled'")
			.contains("false while hand-off is false");
		assertThat(cohortFailure(server, "distributed-lock.replica-acknowledgements.replicas=1").getDescription())
			.startsWith("Invalid value 'true' for configuration property 'distributed-lock.cohorts.enabled'")
			.contains("false while replica-acknowledgements.replicas is above 0");
		TestRedis.contextRunner(server)
			.withPropertyValues("distributed-lock.cohorts.enabled=false", "distributed-lock.cohorts.max-holders=1",
					"distributed-lock.cohorts.max-time=11s")
			.run((context) -> assertThat(context).as("cohorts off: their limits unchecked").hasNotFailed());
		assertThat(startupFailure(server, "distributed-lock.cohorts.max-holders=2000").getDescription())
			.as("on by default: a limit set is checked")
			.startsWith("Invalid value '2000' for configuration property 'distributed-lock.cohorts.max-holders'");
		for (String cannotBeOn : new String[] { "distributed-lock.lease=50ms", "distributed-lock.hand-off=false",
				"distributed-lock.replica-acknowledgements.replicas=1", "distributed-lock.cohorts.max-holders=1",
				"distributed-lock.cohorts.max-holders=0", "distributed-lock.cohorts.max-time=0ms" }) {
			TestRedis.contextRunner(server)
				.withPropertyValues(cannotBeOn)
				.run((context) -> assertThat(context)
					.as("cohorts left to their default, with %s: on only where they can be", cannotBeOn)
					.hasNotFailed());
		}
		TestRedis.contextRunner(server)
			.withPropertyValues("distributed-lock.cohorts.enabled=true", "distributed-lock.cohorts.max-holders=1000",
					"distributed-lock.cohorts.max-time=10s")
			.run((context) -> assertThat(context).as("the largest limits").hasNotFailed());
		TestRedis.contextRunner(server)
			.withPropertyValues("distributed-lock.cohorts.enabled=true", "distributed-lock.cohorts.max-holders=2",
					"distributed-lock.cohorts.max-time=1ms")
			.run((context) -> assertThat(context).as("the smallest limits").hasNotFailed());
	}

	/**
	 * {@code WAIT} holds its connection for up to its timeout; Lettuce fails the command
	 * at its command timeout (2 s here), so a refusal would read as a Redis timeout.
	 */
	@Test
	void shouldNameAReplicaTimeoutThatTheCommandTimeoutWouldCutShort(RedisServer server) {
		FailureAnalysis atTheTimeout = startupFailure(server, "distributed-lock.replica-acknowledgements.replicas=1",
				"distributed-lock.replica-acknowledgements.timeout=2s");
		assertThat(atTheTimeout.getDescription())
			.startsWith(
					"Invalid value '2s' for configuration property 'distributed-lock.replica-acknowledgements.timeout'")
			.contains("below the connection's command timeout (spring.data.redis.timeout), 2s");
		TestRedis.contextRunner(server)
			.withPropertyValues("distributed-lock.replica-acknowledgements.replicas=1",
					"distributed-lock.replica-acknowledgements.timeout=1999ms")
			.run((context) -> assertThat(context).as("just below the command timeout").hasNotFailed());
		TestRedis.contextRunner(server)
			.withPropertyValues("distributed-lock.replica-acknowledgements.timeout=5s")
			.run((context) -> assertThat(context).as("no replica check").hasNotFailed());
	}

	@Test
	void shouldNameTheLeaderOnlyMethodsOfARoleThatNoInstanceKnows(RedisServer server) {
		leaderContextRunner(server).withBean(Relay.class)
			.withPropertyValues("distributed-lock.leader.roles.outbox.enabled=true")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new UnknownLeaderRoleFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("Relay.relay")
					.contains("'outbx'")
					.contains("Relay.drain")
					.doesNotContain("Relay.publish");
				assertThat(analysis.getAction()).contains("distributed-lock.leader.roles.outbx.enabled=true")
					.contains("Candidate");
			});
		leaderContextRunner(server).withBean(Relay.class)
			.withPropertyValues("distributed-lock.leader.roles.outbox.enabled=false",
					"distributed-lock.leader.roles.outbx.enabled=false")
			.run((context) -> assertThat(context).as("both roles known, neither contended for").hasNotFailed());
	}

	@Test
	void shouldNameALeaderLeaseOrMarginThatCannotHoldATerm(RedisServer server) {
		// 1 ms with no margin: granted 234 times in 3 s on one instance.
		FailureAnalysis tooShort = leaderFailure(server, "distributed-lock.leader.lease=1ms",
				"distributed-lock.leader.revoke-margin=0ms");
		assertThat(tooShort.getDescription())
			.startsWith("Invalid value '1ms' for configuration property 'distributed-lock.leader.lease'")
			.contains("longer than 150ms");
		FailureAnalysis noMargin = leaderFailure(server, "distributed-lock.leader.revoke-margin=0s");
		assertThat(noMargin.getDescription())
			.startsWith("Invalid value '0s' for configuration property 'distributed-lock.leader.revoke-margin'")
			.contains("more than 0");
		FailureAnalysis noRoom = leaderFailure(server, "distributed-lock.leader.roles.outbox.lease=300ms",
				"distributed-lock.leader.roles.outbox.revoke-margin=120ms");
		assertThat(noRoom.getDescription()).startsWith(
				"Invalid value '120ms' for configuration property 'distributed-lock.leader.roles.outbox.revoke-margin'")
			.contains("at most 100ms")
			.contains("two thirds");
	}

	@Test
	void shouldNameACandidateWithoutARole(RedisServer server) {
		leaderContextRunner(server).withBean(Candidate.class, RolelessCandidate::new).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new InvalidCandidateFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains(RolelessCandidate.class.getName())
				.contains("'node-1'")
				.contains("getRole() returned null");
			assertThat(analysis.getAction()).contains("getRole()");
		});
	}

	private static FailureAnalysis leaderFailure(RedisServer server, String... properties) {
		Environment[] environment = new Environment[1];
		FailureAnalysis[] found = new FailureAnalysis[1];
		leaderContextRunner(server).withPropertyValues("distributed-lock.leader.roles.outbox.enabled=true")
			.withPropertyValues(properties)
			.withInitializer((context) -> environment[0] = context.getEnvironment())
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new InvalidLockPropertyFailureAnalyzer(environment[0])
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				found[0] = analysis;
			});
		return found[0];
	}

	private static ApplicationContextRunner leaderContextRunner(RedisServer server) {
		return TestRedis.contextRunner(server)
			.withConfiguration(AutoConfigurations.of(DistributedLockLeaderAutoConfiguration.class));
	}

	private static FailureAnalysis cohortFailure(RedisServer server, String property) {
		return startupFailure(server, "distributed-lock.cohorts.enabled=true", property);
	}

	/**
	 * Start a context with the given properties, which must fail, and return Boot's
	 * failure report of it.
	 */
	private static FailureAnalysis startupFailure(RedisServer server, String... properties) {
		Environment[] environment = new Environment[1];
		FailureAnalysis[] found = new FailureAnalysis[1];
		TestRedis.contextRunner(server)
			.withPropertyValues(properties)
			.withInitializer((context) -> environment[0] = context.getEnvironment())
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new InvalidLockPropertyFailureAnalyzer(environment[0])
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				found[0] = analysis;
			});
		return found[0];
	}

	@Test
	void shouldStartTheTemplateWhenEveryPropertyIsValid(RedisServer server) {
		TestRedis.contextRunner(server)
			.withPropertyValues("distributed-lock.lease=1ms", "distributed-lock.wait-time=0s",
					"distributed-lock.polling.interval=1d", "distributed-lock.fair.waiter-timeout=30ms",
					"distributed-lock.subscription-linger=0s")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(LockTemplate.class));
	}

	@Test
	void shouldLeaveItToOtherAnalyzersWhenAnotherBeanCannotReachRedis() {
		assertThat(new RedisUnreachableFailureAnalyzer()
			.analyze(new IllegalStateException(new RedisConnectionFailureException("elsewhere")))).isNull();
	}

	@Test
	void shouldRegisterTheAnalyzersAndAutoConfigurations() {
		ArgumentResolver environment = ArgumentResolver.of(Environment.class, new StandardEnvironment());
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, environment, (type, implementation, failure) -> {
				// Boot's analyzers that need constructor arguments are not under test.
			});
		assertThat(analyzers).hasAtLeastOneElementOfType(LockAnnotationFailureAnalyzer.class)
			.hasAtLeastOneElementOfType(EvictingRedisFailureAnalyzer.class)
			.hasAtLeastOneElementOfType(InvalidLockPropertyFailureAnalyzer.class)
			.hasAtLeastOneElementOfType(KeyspaceNotificationsFailureAnalyzer.class)
			.hasAtLeastOneElementOfType(RedisUnreachableFailureAnalyzer.class)
			.hasAtLeastOneElementOfType(UnknownLeaderRoleFailureAnalyzer.class)
			.hasAtLeastOneElementOfType(InvalidCandidateFailureAnalyzer.class);
		assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
			.contains(DistributedLockAutoConfiguration.class.getName(),
					DistributedLockAspectAutoConfiguration.class.getName(),
					DistributedLockObservationAutoConfiguration.class.getName(),
					DistributedLockEndpointAutoConfiguration.class.getName());
	}

	static class TemplateUser {

		TemplateUser(LockTemplate locks) {
		}

	}

	static class RolelessCandidate extends DefaultCandidate {

		RolelessCandidate() {
			super("node-1", "unused");
		}

		@Override
		public String getRole() {
			return null;
		}

	}

	static class Relay {

		@LeaderOnly("outbox")
		public void publish() {
		}

		@LeaderOnly("outbx")
		public void relay() {
		}

		@LeaderOnly("outbx")
		public void drain() {
		}

	}

	static class Broken {

		@DistributedLock(onTimeout = OnTimeout.SKIP)
		public int skip() {
			return 1;
		}

		@DistributedLock(onTimeout = OnTimeout.FALLBACK, fallback = "missing")
		public void fallBack(String id) {
		}

	}

}
