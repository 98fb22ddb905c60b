package io.github.distributedlock.benchmark.jmh;

import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockName;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.RedisLockTemplate;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Building a lock's Redis key through the public
 * {@code RedisLockTemplate#lockKey(LockName)}, for names that need no encoding, names
 * full of characters that must be percent-encoded, and long names.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LockKeyBenchmark {

	private final LockName plain = LockName.of("server_access", "42");

	private final LockName encoded = LockName.of("tenant:{eu}", "order:%42:{x}");

	private final LockName longKey = LockName.of("report", "k".repeat(200));

	private RedisLockTemplate template;

	/**
	 * Build a template that never connects: without pub/sub and with polling, nothing
	 * talks to Redis until a lock is taken.
	 */
	@Setup
	public void createTemplate() {
		this.template = RedisLockTemplate.builder(new LettuceConnectionFactory())
			.pubSub(false)
			.defaults(LockDefaults.STANDARD.withWaitStrategy(WaitStrategy.POLLING))
			.build();
	}

	@TearDown
	public void closeTemplate() {
		this.template.close();
	}

	@Benchmark
	public String plainName() {
		return this.template.lockKey(this.plain);
	}

	@Benchmark
	public String nameNeedingEncoding() {
		return this.template.lockKey(this.encoded);
	}

	@Benchmark
	public String longName() {
		return this.template.lockKey(this.longKey);
	}

}
