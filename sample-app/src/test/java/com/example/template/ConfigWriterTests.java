package com.example.template;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.inmemory.InMemoryLockTemplate;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigWriterTests {

	@Test
	void shouldPassEachWriteAHigherFencingToken() {
		List<Long> tokens = new ArrayList<>();
		ConfigWriter writer = new ConfigWriter(new InMemoryLockTemplate(), (key, value, token) -> tokens.add(token));
		writer.write("feature-x", "on");
		writer.write("feature-x", "off");
		assertThat(tokens).hasSize(2);
		assertThat(tokens.get(1)).isGreaterThan(tokens.get(0));
	}

	@Test
	void shouldNotGetALockThatAnotherInstanceHolds() {
		InMemoryLockTemplate locks = new InMemoryLockTemplate();
		InMemoryLockTemplate otherInstance = locks.anotherProcess();
		LockRequest once = LockRequest.builder("config").key("feature-x").waitTime(Duration.ZERO).build();
		try (LockHandle held = otherInstance.acquire(once)) {
			assertThat(locks.tryAcquire(once)).isEmpty();
		}
		assertThat(locks.tryAcquire(once)).hasValueSatisfying(LockHandle::close);
	}

}
