package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.StreamSupport;

import io.github.distributedlock.autoconfigure.actuate.LeadersEndpoint;
import io.github.distributedlock.autoconfigure.actuate.LeadersEndpoint.RoleDescriptor;
import io.github.distributedlock.leader.Candidate;
import io.github.distributedlock.leader.DefaultCandidate;
import io.github.distributedlock.leader.LeaderContext;
import io.github.distributedlock.leader.LeaderDirectory;
import io.github.distributedlock.leader.LeaderEvent;
import io.github.distributedlock.leader.LeaderInitiator;
import io.github.distributedlock.leader.LeaderOnly;
import io.github.distributedlock.leader.Leadership;
import io.github.distributedlock.leader.OnGrantedEvent;
import io.github.distributedlock.leader.OnRevokedEvent;
import io.github.distributedlock.leader.PublishedLeader;
import io.github.distributedlock.leader.RevokeReason;
import io.github.distributedlock.redis.RedisLeaderDirectory;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DistributedLockLeaderAutoConfiguration}, on a real redis-server with
 * leases of 1.5 s.
 */
@ExtendWith(RedisServerExtension.class)
class DistributedLockLeaderAutoConfigurationTests {

	private static final Duration BLOCK = Duration.ofSeconds(20);

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = TestRedis.contextRunner(server)
			.withConfiguration(AutoConfigurations.of(DistributedLockLeaderAutoConfiguration.class))
			.withPropertyValues("distributed-lock.leader.lease=1500ms", "distributed-lock.leader.revoke-margin=400ms",
					"distributed-lock.leader.wait-time=200ms", "distributed-lock.leader.instance-id=this-one");
	}

	@Test
	void shouldNotConfigureLeaderElectionWithoutALockTemplate() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistributedLockLeaderAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(Leadership.class));
	}

	@Test
	void shouldContendForEachConfiguredRoleWithItsOwnSettings() {
		this.contextRunner
			.withPropertyValues("distributed-lock.leader.roles.outbox.enabled=true",
					"distributed-lock.leader.roles.broadcast.lease=3s")
			.run((context) -> {
				Leadership leadership = context.getBean(Leadership.class);
				assertThat(leadership.roles()).containsExactly("broadcast", "outbox");
				await().atMost(BLOCK).until(() -> leadership.isLeader("outbox"));
				assertThat(initiator(context, "broadcast").getTimings().lease()).isEqualTo(Duration.ofSeconds(3));
				assertThat(initiator(context, "outbox").getTimings().lease()).isEqualTo(Duration.ofMillis(1500));
				assertThat(initiator(context, "outbox").getCandidate().getId()).isEqualTo("this-one");
			});
	}

	@Test
	void shouldContendForCandidateBeansAndPublishGrantedAndRevokedEvents() {
		Recorder recorder = new Recorder();
		ConfigurableApplicationContext[] closed = new ConfigurableApplicationContext[1];
		this.contextRunner.withBean(Candidate.class, () -> new DefaultCandidate("candidate-bean", "singleton"))
			.withBean(Recorder.class, () -> recorder)
			.run((context) -> {
				await().atMost(BLOCK).until(() -> context.getBean(Leadership.class).isLeader("singleton"));
				closed[0] = context;
			});
		assertThat(closed[0].isActive()).isFalse();
		assertThat(recorder.events).hasSize(2);
		LeaderEvent granted = recorder.events.get(0);
		LeaderEvent revoked = recorder.events.get(1);
		assertThat(granted).isInstanceOf(OnGrantedEvent.class);
		assertThat(granted.getRole()).isEqualTo("singleton");
		assertThat(granted.getInstanceId()).isEqualTo("candidate-bean");
		assertThat(granted.getFencingToken()).isPositive();
		assertThat(revoked).isInstanceOf(OnRevokedEvent.class);
		assertThat(((OnRevokedEvent) revoked).getReason()).isEqualTo(RevokeReason.STOPPED);
		assertThat(revoked.getFencingToken()).isEqualTo(granted.getFencingToken());
	}

	@Test
	void shouldNotContendForADisabledRole() {
		this.contextRunner.withBean(Candidate.class, () -> new DefaultCandidate("candidate-bean", "disabled"))
			.withPropertyValues("distributed-lock.leader.roles.disabled.enabled=false")
			.run((context) -> assertThat(context.getBean(Leadership.class).roles()).isEmpty());
	}

	@Test
	void shouldSkipLeaderOnlyMethodsOfADisabledRole() {
		this.contextRunner.withUserConfiguration(JobConfiguration.class)
			.withPropertyValues("distributed-lock.leader.roles.job.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Leadership leadership = context.getBean(Leadership.class);
				assertThat(leadership.roles()).isEmpty();
				assertThat(context.getBean(Job.class).run()).isEmpty();
				assertThat(leadership.isLeader("job")).isFalse();
				assertThat(leadership.context("job")).isEmpty();
			});
	}

	@Test
	void shouldFailStartupOnARevokeMarginOfHalfTheLease() {
		this.contextRunner
			.withPropertyValues("distributed-lock.leader.roles.outbox.lease=2s",
					"distributed-lock.leader.roles.outbox.revoke-margin=1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidLockPropertyException.class)
				.hasMessageContaining("distributed-lock.leader.roles.outbox.revoke-margin"));
	}

	@Test
	void shouldBackOffFromTheApplicationsLeadership() {
		Leadership own = Leadership.of(List.of());
		this.contextRunner.withBean(Leadership.class, () -> own)
			.run((context) -> assertThat(context).getBean(Leadership.class).isSameAs(own));
	}

	@Test
	void shouldBackOffFromTheApplicationsLeaderDirectory() {
		LeaderDirectory own = new LeaderDirectory() {

			@Override
			public void publish(LeaderContext term, Duration lease) {
			}

			@Override
			public Optional<PublishedLeader> find(String role) {
				return Optional.empty();
			}

		};
		this.contextRunner.withBean(LeaderDirectory.class, () -> own)
			.run((context) -> assertThat(context).getBean(LeaderDirectory.class).isSameAs(own));
		this.contextRunner.run((context) -> assertThat(context).getBean(LeaderDirectory.class)
			.isInstanceOf(RedisLeaderDirectory.class));
	}

	@Test
	void shouldRunLeaderOnlyMethodsOnlyWhileLeading() {
		this.contextRunner.withUserConfiguration(JobConfiguration.class)
			.withPropertyValues("distributed-lock.leader.roles.job.enabled=true")
			.run((context) -> {
				Job job = context.getBean(Job.class);
				assertThat(AopUtils.isAopProxy(job)).isTrue();
				Leadership leadership = context.getBean(Leadership.class);
				await().atMost(BLOCK).until(() -> leadership.isLeader("job"));
				long token = leadership.context("job").orElseThrow().fencingToken();
				assertThat(job.run()).contains(token);
				leadership.yieldLeadership("job");
				await().atMost(BLOCK).until(() -> !leadership.isLeader("job"));
				assertThat(job.run()).isEmpty();
			});
	}

	@Test
	void shouldMeterLeadershipChanges() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("distributed-lock.leader.roles.metered.enabled=true")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				Leadership leadership = context.getBean(Leadership.class);
				// Metered by the granted event, published right after the term began.
				await().atMost(BLOCK)
					.until(() -> registry.find("distributed.lock.leader.active").longTaskTimer(),
							(timer) -> timer != null && timer.activeTasks() == 1);
				assertThat(registry.get("distributed.lock.leader.changes").tag("change", "granted").counter().count())
					.isOne();
				leadership.yieldLeadership("metered");
				await().atMost(BLOCK)
					.until(() -> registry.find("distributed.lock.leader.terms").tag("reason", "yielded").timer(),
							(timer) -> timer != null && timer.count() == 1);
				assertThat(registry.get("distributed.lock.leader.changes")
					.tags("change", "revoked", "reason", "yielded")
					.counter()
					.count()).isOne();
			});
	}

	@Test
	void shouldNotMeterWithoutMicrometer() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaderMetrics.class));
	}

	@Test
	void shouldShowTheLeaderOnItsEndpointAndTheHeldLockOnAFollowers() {
		ApplicationContextRunner exposed = this.contextRunner.withPropertyValues(
				"management.endpoints.web.exposure.include=leaders",
				"distributed-lock.leader.roles.shown.enabled=true");
		exposed.run((leader) -> {
			await().atMost(BLOCK).until(() -> leader.getBean(Leadership.class).isLeader("shown"));
			exposed.withPropertyValues("distributed-lock.leader.instance-id=other-one").run((follower) -> {
				RoleDescriptor leading = leader.getBean(LeadersEndpoint.class).leaders().roles().get(0);
				LeaderContext term = leader.getBean(Leadership.class).context("shown").orElseThrow();
				assertThat(leading.role()).isEqualTo("shown");
				assertThat(leading.leader()).isTrue();
				assertThat(leading.contending()).isTrue();
				assertThat(leading.instance()).isEqualTo("this-one");
				assertThat(leading.fencingToken()).isEqualTo(term.fencingToken());
				assertThat(leading.since()).isEqualTo(term.since());
				assertThat(leading.remainingLeaseMillis()).isPositive().isLessThanOrEqualTo(1500);
				// Published by the leader's directory thread right after the grant.
				RoleDescriptor following = await().atMost(BLOCK)
					.until(() -> follower.getBean(LeadersEndpoint.class).leaders().roles().get(0),
							(role) -> role.instance() != null);
				assertThat(following.leader()).isFalse();
				assertThat(following.instance()).as("the leader's id, on a follower").isEqualTo("this-one");
				assertThat(following.fencingToken()).isEqualTo(term.fencingToken());
				assertThat(following.since()).isEqualTo(term.since().truncatedTo(ChronoUnit.MILLIS));
				assertThat(following.remainingLeaseMillis()).isNull();
				assertThat(following.locked()).isTrue();
			});
			// An instance that stays out of the election sees the leader too.
			exposed.withPropertyValues("distributed-lock.leader.roles.shown.enabled=false").run((abstaining) -> {
				List<RoleDescriptor> roles = abstaining.getBean(LeadersEndpoint.class).leaders().roles();
				assertThat(roles).extracting(RoleDescriptor::role).containsExactly("shown");
				assertThat(roles.get(0).contending()).isFalse();
				assertThat(roles.get(0).leader()).isFalse();
				assertThat(roles.get(0).instance()).isEqualTo("this-one");
			});
		});
	}

	@Test
	void shouldNotConfigureTheEndpointWhenActuatorIsMissing() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.withPropertyValues("management.endpoints.web.exposure.include=leaders")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LeadersEndpoint.class));
	}

	private static LeaderInitiator initiator(AssertableApplicationContext context, String role) {
		Iterable<LeaderInitiator> all = context.getBean(ConfiguredLeaderInitiators.class);
		return StreamSupport.stream(all.spliterator(), false)
			.filter((initiator) -> initiator.getRole().equals(role))
			.findFirst()
			.orElseThrow();
	}

	static class Recorder implements ApplicationListener<LeaderEvent> {

		final List<LeaderEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(LeaderEvent event) {
			this.events.add(event);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class JobConfiguration {

		@Bean
		Job job() {
			return new Job();
		}

	}

	static class Job {

		@LeaderOnly("job")
		public Optional<Long> run() {
			return Optional.of(LeaderContext.current().fencingToken());
		}

	}

}
