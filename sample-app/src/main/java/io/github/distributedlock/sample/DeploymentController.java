package io.github.distributedlock.sample;

import java.util.List;

import io.github.distributedlock.sample.DeploymentLog.Check;
import io.github.distributedlock.sample.DeploymentService.Deployment;

import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Deployment endpoints, and the evidence the demo script prints.
 */
@RestController
class DeploymentController {

	private final DeploymentService deployments;

	private final DeploymentLog log;

	DeploymentController(DeploymentService deployments, DeploymentLog log) {
		this.deployments = deployments;
		this.log = log;
	}

	@PostMapping("/servers/{serverId}/deploy")
	Deployment deploy(@PathVariable String serverId) {
		return this.deployments.deploy(serverId);
	}

	@PostMapping("/servers/{serverId}/deploy-unlocked")
	Deployment deployUnlocked(@PathVariable String serverId) {
		return this.deployments.deployUnlocked(serverId);
	}

	@GetMapping("/deployments")
	List<Deployment> all() {
		return this.log.all();
	}

	@GetMapping("/deployments/check")
	Check check() {
		return DeploymentLog.check(this.log.all());
	}

	/**
	 * Return the evidence as text: every deployment per server in start order, then the
	 * verdict on its last line ("OK: …" or "FAIL: …").
	 */
	@GetMapping(path = "/deployments/report", produces = "text/plain")
	String report() {
		List<Deployment> all = this.log.all();
		StringBuilder report = new StringBuilder();
		report.append(String.format("%-10s %-9s %14s %14s %20s%n", "server", "instance", "start (ms)", "end (ms)",
				"fencing token"));
		long origin = all.stream().mapToLong(Deployment::start).min().orElse(0);
		all.stream()
			.sorted(java.util.Comparator.comparing(Deployment::serverId).thenComparingLong(Deployment::start))
			.forEach((deployment) -> report.append(String.format("%-10s %-9s %14.3f %14.3f %20d%n",
					deployment.serverId(), deployment.instance(), (deployment.start() - origin) / 1e6,
					(deployment.end() - origin) / 1e6, deployment.fencingToken())));
		Check check = DeploymentLog.check(all);
		report.append("per instance: ").append(check.perInstance()).append('\n');
		if (check.ok()) {
			report.append("OK: ")
				.append(check.deployments())
				.append(" deployments, no two on one server overlapped")
				.append('\n');
		}
		else {
			check.problems().forEach((problem) -> report.append("  ").append(problem).append('\n'));
			report.append("FAIL: ")
				.append(check.problems().size())
				.append(" problems in ")
				.append(check.deployments())
				.append(" deployments\n");
		}
		return report.toString();
	}

	@DeleteMapping("/deployments")
	void clear() {
		this.log.clear();
	}

}
