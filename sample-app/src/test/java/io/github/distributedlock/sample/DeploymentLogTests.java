package io.github.distributedlock.sample;

import java.util.List;

import io.github.distributedlock.sample.DeploymentService.Deployment;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the demo's overlap check, so that its "OK" means something.
 */
class DeploymentLogTests {

	@Test
	void shouldFindDeploymentsToOneServerThatOverlap() {
		List<Deployment> deployments = List.of(new Deployment("a", 100, 200, 1, "i1"),
				new Deployment("a", 150, 250, 2, "i2"));
		assertThat(DeploymentLog.check(deployments).problems()).singleElement().asString().startsWith("overlap on a");
	}

	@Test
	void shouldFindTokensThatDoNotIncrease() {
		List<Deployment> deployments = List.of(new Deployment("a", 100, 200, 7, "i1"),
				new Deployment("a", 300, 400, 6, "i2"));
		assertThat(DeploymentLog.check(deployments).problems()).singleElement()
			.asString()
			.startsWith("token not increasing");
	}

	@Test
	void shouldAcceptDeploymentsInTurnAndOnOtherServersAtTheSameTime() {
		List<Deployment> deployments = List.of(new Deployment("a", 100, 200, 1, "i1"),
				new Deployment("a", 200, 300, 2, "i2"), new Deployment("b", 150, 250, 1, "i3"));
		DeploymentLog.Check check = DeploymentLog.check(deployments);
		assertThat(check.ok()).isTrue();
		assertThat(check.perInstance()).containsEntry("i1", 1L).containsEntry("i3", 1L);
	}

}
