package io.github.distributedlock.leader;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.redis.RedisConnections;
import io.github.distributedlock.redis.RedisLockTemplate;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * One instance of a leader-elected service, run in a child JVM by
 * {@link LeaderHandOverTests}: it contends for a role and, every 20 ms, calls a
 * {@link LeaderOnly @LeaderOnly} job that writes its term's token to a fenced resource in
 * Redis, which refuses a token lower than one it has accepted and logs every write. It
 * prints {@code GRANTED token millis}, {@code REVOKED reason token millis},
 * {@code RAN token accepted startMillis endMillis}, {@code FAILED startMillis exception}
 * and {@code STOPPED millis}, and reads {@code stop} and {@code start} from its input.
 * Arguments: host port role id leaseMillis marginMillis waitMillis.
 */
public final class LeaderChildMain {

	/**
	 * Accepts a token at least as large as every token accepted before, and logs each
	 * write, accepted or not, in the order Redis ran them.
	 */
	private static final RedisScript<Long> FENCED_WRITE = RedisScript.of("""
			local last = tonumber(redis.call('GET', KEYS[1]) or '0')
			local accepted = tonumber(ARGV[1]) >= last
			if accepted then redis.call('SET', KEYS[1], ARGV[1]) end
			redis.call('RPUSH', KEYS[2], ARGV[1] .. ' ' .. (accepted and '1' or '0'))
			return accepted and 1 or 0
			""", Long.class);

	private LeaderChildMain() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = RedisConnections.standalone(args[0], Integer.parseInt(args[1]),
				Duration.ofSeconds(2));
		String role = args[2];
		LeaderTimings timings = new LeaderTimings(Duration.ofMillis(Long.parseLong(args[4])),
				Duration.ofMillis(Long.parseLong(args[5])), Duration.ofMillis(Long.parseLong(args[6])),
				Duration.ofMillis(Long.parseLong(args[6])));
		RedisLockTemplate template = RedisLockTemplate.builder(factory).build();
		LeaderInitiator initiator = new LeaderInitiator(template, new DefaultCandidate(args[3], role), timings);
		initiator.setApplicationEventPublisher((event) -> {
			if (event instanceof OnGrantedEvent granted) {
				print("GRANTED " + granted.getFencingToken() + " " + System.currentTimeMillis());
			}
			else if (event instanceof OnRevokedEvent revoked) {
				print("REVOKED " + revoked.getReason() + " " + revoked.getFencingToken() + " "
						+ System.currentTimeMillis());
			}
		});
		ProxyFactory proxyFactory = new ProxyFactory(new FencedJob(new StringRedisTemplate(factory), role));
		proxyFactory.setProxyTargetClass(true);
		proxyFactory.addAdvisor(new LeaderOnlyAdvisor(List.of(initiator)));
		FencedJob job = (FencedJob) proxyFactory.getProxy();
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
		scheduler.scheduleWithFixedDelay(() -> {
			long started = System.currentTimeMillis();
			try {
				job.write();
			}
			catch (RuntimeException ex) {
				print("FAILED " + started + " " + ex);
			}
		}, 0, 20, TimeUnit.MILLISECONDS);
		initiator.start();
		print("STARTED");
		BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = input.readLine(); line != null; line = input.readLine()) {
			if (line.equals("stop")) {
				initiator.stop();
				print("STOPPED " + System.currentTimeMillis());
			}
			else if (line.equals("start")) {
				initiator.start();
				print("STARTED");
			}
		}
		initiator.stop();
		System.exit(0);
	}

	private static synchronized void print(String line) {
		System.out.println(line);
		System.out.flush();
	}

	/**
	 * The leader-only job.
	 */
	public static class FencedJob {

		private final StringRedisTemplate redis;

		private final String role;

		public FencedJob(StringRedisTemplate redis, String role) {
			this.redis = redis;
			this.role = role;
		}

		@LeaderOnly("handover")
		public void write() {
			long started = System.currentTimeMillis();
			long token = LeaderContext.current().fencingToken();
			Long accepted = this.redis.execute(FENCED_WRITE,
					List.of("resource:" + this.role, "resource-log:" + this.role), Long.toString(token));
			print("RAN " + token + " " + accepted + " " + started + " " + System.currentTimeMillis());
		}

	}

}
