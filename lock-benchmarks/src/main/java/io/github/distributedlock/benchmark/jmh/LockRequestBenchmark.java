package io.github.distributedlock.benchmark.jmh;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Building and validating lock requests and names, which happens on every acquisition.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LockRequestBenchmark {

	// Fields rather than constants, so the JIT cannot fold the validation away.
	private String scope = "server_access";

	private String key = "42";

	private Duration lease = Duration.ofSeconds(10);

	private Duration waitTime = Duration.ofSeconds(2);

	private Duration negative = Duration.ofSeconds(-1);

	@Benchmark
	public LockRequest requestWithDefaults() {
		return LockRequest.of(this.scope, this.key);
	}

	@Benchmark
	public LockRequest requestWithSettings() {
		return LockRequest.builder(this.scope)
			.key(this.key)
			.lease(this.lease)
			.waitTime(this.waitTime)
			.origin("DeployService.deploy")
			.build();
	}

	@Benchmark
	public LockName name() {
		return LockName.of(this.scope, this.key);
	}

	/**
	 * The rejection path: building the message that names the lock, and the exception.
	 */
	@Benchmark
	public @Nullable String invalidRequestRejected() {
		try {
			return LockRequest.builder(this.scope).key(this.key).waitTime(this.negative).build().toString();
		}
		catch (IllegalArgumentException ex) {
			return ex.getMessage();
		}
	}

}
