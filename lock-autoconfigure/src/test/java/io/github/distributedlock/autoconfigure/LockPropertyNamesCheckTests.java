package io.github.distributedlock.autoconfigure;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup warning of keys under {@code distributed-lock} that no property has: a typo
 * or a removed property, each named once, with the nearest known property or what
 * replaced it. No Redis: without a connection factory no lock template is configured, and
 * the check does not need one.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockPropertyNamesCheckTests {

	private static final String UNKNOWN = "is not a distributed-lock property";

	private static final String REMOVED = "was removed";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class));

	@Test
	void shouldWarnOfAMisspelledPropertyAndNameTheNearest(CapturedOutput output) {
		this.contextRunner.withPropertyValues("distributed-lock.leese=5s").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(DistributedLockProperties.class).getLease()).hasSeconds(30);
		});
		assertThat(output).contains("'distributed-lock.leese'", UNKNOWN, "Did you mean 'distributed-lock.lease'?");
	}

	@Test
	void shouldWarnOnceOfAKeySetInTwoPlaces(CapturedOutput output) {
		this.contextRunner.withPropertyValues("distributed-lock.leese=5s")
			.withSystemProperties("distributed-lock.leese=6s")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(occurrences(output.toString(), "'distributed-lock.leese'")).isOne();
	}

	@Test
	void shouldSayWhatReplacedARemovedProperty(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("distributed-lock.local-hand-offs=3", "distributed-lock.hint-connections=2")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("'distributed-lock.local-hand-offs'", REMOVED, "(distributed-lock.hand-off)")
			.contains("'distributed-lock.hint-connections'", "distributed-lock.wait-strategy")
			.doesNotContain(UNKNOWN);
	}

	@Test
	void shouldNotWarnOfPropertiesInTheirRelaxedForms(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("distributed-lock.waitTime=1s", "distributed-lock.key_prefix=app",
					"distributed-lock.cohorts.max-time=5ms", "distributed-lock.problem-details.retry-after=2s",
					"distributed-lock.replicaAcknowledgements.timeout=1s", "distributed-lock.reconnect-delay.max=2s")
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
						new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
								Map.of("DISTRIBUTED_LOCK_LEASE", "7s", "DISTRIBUTED_LOCK_FAIR_WAITER_TIMEOUT", "3s",
										"DISTRIBUTEDLOCK_LEADER_ROLES_OUTBOX_ENABLED", "false"))))
			.run((context) -> {
				DistributedLockProperties properties = context.getBean(DistributedLockProperties.class);
				assertThat(properties.getWaitTime()).hasSeconds(1);
				assertThat(properties.getLease()).hasSeconds(7);
				assertThat(properties.getKeyPrefix()).isEqualTo("app");
				assertThat(properties.getLeader().getRoles()).containsOnlyKeys("outbox");
				assertThat(properties.getLeader().getRoles().get("outbox").isEnabled()).isFalse();
			});
		assertThat(output).doesNotContain(UNKNOWN).doesNotContain(REMOVED);
	}

	@Test
	void shouldWarnOfAMisspelledEnvironmentVariable(CapturedOutput output) {
		this.contextRunner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
						new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
								Map.of("DISTRIBUTED_LOCK_LEESE", "5s", "PATH", "/bin"))))
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("'DISTRIBUTED_LOCK_LEESE'", UNKNOWN, "Did you mean 'distributed-lock.lease'?");
	}

	@Test
	void shouldTellTheFormOfAnEnvironmentVariableThatARoleBindsFrom(CapturedOutput output) {
		// Boot binds a map's entries from DISTRIBUTEDLOCK_..., never from
		// DISTRIBUTED_LOCK_...
		this.contextRunner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
						new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
								Map.of("DISTRIBUTED_LOCK_LEADER_ROLES_OUTBOX_ENABLED", "true"))))
			.run((context) -> assertThat(context.getBean(DistributedLockProperties.class).getLeader().getRoles())
				.isEmpty());
		assertThat(output).contains("'DISTRIBUTED_LOCK_LEADER_ROLES_OUTBOX_ENABLED'",
				"Did you mean 'DISTRIBUTEDLOCK_LEADER_ROLES_OUTBOX_ENABLED'?");
	}

	@Test
	void shouldTakeAnyRoleNameButCheckTheRolesSettings(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("distributed-lock.leader.roles.outbox.enabled=true",
					"distributed-lock.leader.roles.any-Role_name.lease=20s",
					"distributed-lock.leader.roles.reports.enabeld=true")
			// The misspelled role is no role at all: nothing else of it binds.
			.run((context) -> assertThat(context.getBean(DistributedLockProperties.class).getLeader().getRoles())
				.containsOnlyKeys("outbox", "any-Role_name"));
		assertThat(output)
			.contains("'distributed-lock.leader.roles.reports.enabeld'",
					"Did you mean 'distributed-lock.leader.roles.reports.enabled'?")
			.doesNotContain("roles.outbox")
			.doesNotContain("any-Role_name");
	}

	@Test
	void shouldWarnWithoutAGuessWhenNoPropertyIsNear(CapturedOutput output) {
		this.contextRunner.withPropertyValues("distributed-lock.zzzzzzzzzzzz=1")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("'distributed-lock.zzzzzzzzzzzz'", UNKNOWN).doesNotContain("Did you mean");
	}

	@Test
	void shouldLeaveOtherPrefixesAlone(CapturedOutput output) {
		this.contextRunner.withPropertyValues("distributed-locks.lease=5s", "distributed.lock=x", "my.lease=5s")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain(UNKNOWN);
	}

	private static int occurrences(String text, String part) {
		int count = 0;
		for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
			count++;
		}
		return count;
	}

}
