package com.example.quickstart;

import io.github.distributedlock.inmemory.AutoConfigureInMemoryLocks;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest
@AutoConfigureInMemoryLocks
class DeploymentServiceTests {

	@Autowired
	DeploymentService deployments;

	@Test
	void shouldDeployWithAFencingToken() {
		long first = this.deployments.deploy("web-1");
		long second = this.deployments.deploy("web-1");
		assertThat(second).isGreaterThan(first);
	}

}
