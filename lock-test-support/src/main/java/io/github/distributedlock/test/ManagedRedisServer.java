package io.github.distributedlock.test;

/**
 * A {@link RedisServer} that this JVM launched, and so can also stop, start, pause and
 * kill.
 * <p>
 * Implementations are thread-safe.
 */
public interface ManagedRedisServer extends RedisServer {

	/**
	 * Return whether the server process is alive, paused or not.
	 * @return whether it runs
	 */
	boolean isRunning();

	/**
	 * Stop the server gracefully and wait until its port is free. Does nothing when it is
	 * already down.
	 */
	void stop();

	/**
	 * Start the server again on the same port and wait until it answers {@code PING}.
	 * Does nothing when it is running. The data is gone: launched servers never persist.
	 */
	void start();

	/**
	 * {@link #stop() Stop} and then {@link #start() start} the server.
	 */
	void restart();

	/**
	 * Freeze the server (SIGSTOP): connections stay open but nothing is answered until
	 * {@link #resume()}.
	 */
	void pause();

	/**
	 * Let a {@link #pause() paused} server run again (SIGCONT).
	 */
	void resume();

	/**
	 * Crash the server (SIGKILL) and wait until its port is free. {@link #start()} brings
	 * it back.
	 */
	void kill();

	/**
	 * Return the process id of the running server, or of the last one when it is down.
	 * @return the process id
	 */
	long pid();

}
