package io.github.distributedlock.inmemory;

import java.time.Duration;
import java.util.Collection;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockName;
import io.github.distributedlock.contract.LockTemplateContractTests;
import org.junit.jupiter.api.BeforeAll;

/**
 * The engine's contract suite, run against the in-memory template, so that the two cannot
 * drift apart.
 */
class InMemoryLockContractTests extends LockTemplateContractTests<InMemoryLockTemplate> {

	@BeforeAll
	void createTemplates() {
		this.template = InMemoryLockTemplate.builder()
			.defaults(LockDefaults.STANDARD.withWaitTime(Duration.ofSeconds(5)))
			.build();
		this.otherProcess = this.template.anotherProcess();
	}

	@Override
	protected Collection<?> locksLeftBehind(String scope) {
		return this.template.lockNames(scope);
	}

	@Override
	protected long fairWaiters(LockName name) {
		return this.template.fairWaiters(name);
	}

}
