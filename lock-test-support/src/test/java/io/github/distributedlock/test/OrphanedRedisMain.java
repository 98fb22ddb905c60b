package io.github.distributedlock.test;

/**
 * Main class of the child JVM in {@link OrphanedRedisTests}: launches a server, reports
 * it and waits to be killed.
 */
public final class OrphanedRedisMain {

	private OrphanedRedisMain() {
	}

	public static void main(String[] args) throws Exception {
		RedisProcess redis = RedisServers.launch();
		System.out.println(redis.pid() + " " + redis.port() + " " + redis.directory());
		System.out.flush();
		// Block until the parent kills this JVM; stdin stays open because the parent
		// never closes it.
		System.in.read();
	}

}
