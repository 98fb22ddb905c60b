package io.github.distributedlock.sample;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockContext;

import org.springframework.stereotype.Service;

/**
 * "Deploys" to a server. Only one deployment per server runs at a time, across every
 * instance of the application: the lock is {@code server_access:<serverId>}.
 */
@Service
public class DeploymentService {

	private final DeploymentLog log;

	private final SampleProperties properties;

	DeploymentService(DeploymentLog log, SampleProperties properties) {
		this.log = log;
		this.properties = properties;
	}

	@DistributedLock(scope = "server_access", key = "#serverId", expire = 10, waitTime = 30)
	public Deployment deploy(String serverId) {
		return run(serverId, LockContext.current().fencingToken());
	}

	/**
	 * The same work without the lock, to show that the demo's overlap check catches it.
	 */
	public Deployment deployUnlocked(String serverId) {
		return run(serverId, 0);
	}

	private Deployment run(String serverId, long token) {
		long start = System.nanoTime();
		sleep(this.properties.deployMillis());
		Deployment deployment = new Deployment(serverId, start, System.nanoTime(), token, this.properties.instance());
		this.log.record(deployment);
		return deployment;
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Deployment interrupted", ex);
		}
	}

	/**
	 * One deployment as its instance saw it. Times are {@code System.nanoTime},
	 * comparable across processes on one Linux machine.
	 *
	 * @param serverId the server
	 * @param start when the deployment started
	 * @param end when it ended
	 * @param fencingToken the lock's fencing token, 0 when run without the lock
	 * @param instance the application instance that ran it
	 */
	public record Deployment(String serverId, long start, long end, long fencingToken, String instance) {

		String format() {
			return this.serverId + " " + this.start + " " + this.end + " " + this.fencingToken + " " + this.instance;
		}

		static Deployment parse(String line) {
			String[] parts = line.split(" ");
			return new Deployment(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]),
					Long.parseLong(parts[3]), parts[4]);
		}

	}

}
