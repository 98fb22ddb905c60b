package io.github.distributedlock.sample;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.github.distributedlock.sample.DeploymentService.Deployment;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * Every deployment of every instance, kept in one Redis list, and the check that no two
 * deployments to one server overlapped.
 */
@Component
public class DeploymentLog {

	private static final String KEY = "sample:deployments";

	private final StringRedisTemplate redis;

	DeploymentLog(StringRedisTemplate redis) {
		this.redis = redis;
	}

	void record(Deployment deployment) {
		this.redis.opsForList().rightPush(KEY, deployment.format());
	}

	List<Deployment> all() {
		List<String> lines = this.redis.opsForList().range(KEY, 0, -1);
		return (lines != null) ? lines.stream().map(Deployment::parse).toList() : List.of();
	}

	void clear() {
		this.redis.delete(KEY);
	}

	/**
	 * Check that deployments to each server never overlapped and that fenced ones carry
	 * increasing tokens.
	 * @param deployments the deployments
	 * @return the verdict
	 */
	static Check check(List<Deployment> deployments) {
		List<String> problems = new ArrayList<>();
		Map<String, List<Deployment>> byServer = deployments.stream()
			.collect(Collectors.groupingBy(Deployment::serverId));
		byServer.forEach((server, list) -> {
			List<Deployment> sorted = new ArrayList<>(list);
			sorted.sort(Comparator.comparingLong(Deployment::start));
			for (int i = 1; i < sorted.size(); i++) {
				Deployment previous = sorted.get(i - 1);
				Deployment current = sorted.get(i);
				if (current.start() < previous.end()) {
					problems.add("overlap on " + server + ": " + previous.instance() + " and " + current.instance());
				}
				if (current.fencingToken() != 0 && current.fencingToken() <= previous.fencingToken()) {
					problems.add("token not increasing on " + server + ": " + previous.fencingToken() + " then "
							+ current.fencingToken());
				}
			}
		});
		Map<String, Long> perInstance = deployments.stream()
			.collect(Collectors.groupingBy(Deployment::instance, Collectors.counting()));
		return new Check(deployments.size(), perInstance, problems);
	}

	/**
	 * The verdict of an overlap check.
	 *
	 * @param deployments how many deployments were checked
	 * @param perInstance how many each instance ran
	 * @param problems each overlap or non-increasing token found
	 */
	public record Check(int deployments, Map<String, Long> perInstance, List<String> problems) {

		public boolean ok() {
			return this.problems.isEmpty();
		}

	}

}
