package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.leader.LeaderOnly;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * What a user sees when an application fails to start because of the lock settings:
 * Boot's failure report, chosen among all the analyzers on the class path, naming the
 * property and the fix instead of a stack trace.
 */
@ExtendWith({ RedisServerExtension.class, OutputCaptureExtension.class })
class StartupFailureReportTests {

	@Test
	void shouldNameThePropertyWhenTheLeaseIsZero(RedisServer server, CapturedOutput output) {
		assertThatException().isThrownBy(() -> run(server, "--distributed-lock.lease=0s"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Invalid value '0s' for configuration property 'distributed-lock.lease'")
			.contains("Set distributed-lock.lease to a value that is between 1ms and 365d");
	}

	@Test
	void shouldSayHowToTurnKeyspaceNotificationsOnWhenTheyAreOff(RedisServer server, CapturedOutput output) {
		// Other tests on this server may have let the library turn them on.
		server.command("CONFIG", "SET", "notify-keyspace-events", "");
		assertThatException().isThrownBy(() -> run(server, "--distributed-lock.wait-strategy=keyspace-events"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("(distributed-lock.wait-strategy=keyspace-events)")
			.contains("CONFIG SET notify-keyspace-events Kgx")
			.contains("distributed-lock.keyspace-events.configure=true");
	}

	@Test
	void shouldNameTheMethodAndRoleOfALeaderOnlyMethodThatNoInstanceKnows(RedisServer server, CapturedOutput output) {
		assertThatException().isThrownBy(() -> run(LeaderConfig.class, server, "--spring.main.banner-mode=off"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("- role 'outbox': Relay.relay")
			.contains("distributed-lock.leader.roles.outbox.enabled=true");
	}

	private static void run(RedisServer server, String setting) {
		run(Config.class, server, setting);
	}

	private static void run(Class<?> config, RedisServer server, String setting) {
		SpringApplication application = new SpringApplication(config);
		application.setWebApplicationType(WebApplicationType.NONE);
		application
			.run("--spring.data.redis.host=" + server.host(), "--spring.data.redis.port=" + server.port(),
					"--spring.data.redis.timeout=2s", setting)
			.close();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class })
	static class Config {

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class,
			DistributedLockLeaderAutoConfiguration.class })
	@Import(Relay.class)
	static class LeaderConfig {

	}

	static class Relay {

		@LeaderOnly("outbox")
		public void relay() {
		}

	}

}
