package io.github.distributedlock.aop;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIOException;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The aspect on a proxy, against a real redis-server: keys, multi-locks, timeouts and the
 * lock context. A second template stands in for another process.
 */
@ExtendWith(RedisServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DistributedLockInterceptorTests {

	private LettuceConnectionFactory connectionFactory;

	private RedisLockTemplate template;

	private RedisLockTemplate otherProcess;

	private final DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();

	private final List<LockTimeoutContext> timeouts = new ArrayList<>();

	private Deployments deployments;

	private Jobs jobs;

	@BeforeAll
	void start(RedisServer server) {
		this.connectionFactory = TestRedis.connectionFactory(server);
		LockDefaults defaults = LockDefaults.STANDARD.withWaitTime(Duration.ofSeconds(5));
		this.template = RedisLockTemplate.builder(this.connectionFactory).defaults(defaults).build();
		this.otherProcess = RedisLockTemplate.builder(this.connectionFactory).defaults(defaults).build();
		this.beanFactory.registerSingleton("tenants", new Tenants());
		SpelLockKeyResolver keyResolver = new SpelLockKeyResolver();
		keyResolver.setBeanFactory(this.beanFactory);
		LockedMethods methods = new LockedMethods(() -> keyResolver, null);
		DistributedLockInterceptor interceptor = new DistributedLockInterceptor(methods, () -> this.template,
				DefaultLockTimeoutHandler::new, () -> List.of(this.timeouts::add));
		DistributedLockAdvisor advisor = new DistributedLockAdvisor(methods, interceptor);
		this.deployments = proxy(new Deployments(this.otherProcess), advisor);
		this.jobs = proxy(new Jobs(), advisor);
	}

	@SuppressWarnings("unchecked")
	private static <T> T proxy(T target, DistributedLockAdvisor advisor) {
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(advisor);
		return (T) factory.getProxy();
	}

	@AfterAll
	void stop() {
		this.template.close();
		this.otherProcess.close();
		this.connectionFactory.destroy();
	}

	@BeforeEach
	void clearTimeouts() {
		this.timeouts.clear();
	}

	@AfterEach
	void nothingHeld() {
		assertThat(this.template.heldLocks()).as("locks left held by the aspect").isEmpty();
	}

	@Test
	void shouldLockScopeAndKeyFromParameterNameAndExposeTheLockContext() {
		Deployments.Observed observed = this.deployments.deploy(new Server("42"));
		assertThat(observed.name()).isEqualTo(LockName.of("server_access", "42"));
		assertThat(observed.lockedForOthers()).isTrue();
		assertThat(observed.remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10));
		assertThat(this.template.isLocked("server_access", "42")).isFalse();
	}

	@Test
	void shouldResolvePositionalArgumentsRootAndBeans() {
		assertThat(this.deployments.positional("a", 7)).isEqualTo("p:a-7");
		assertThat(this.deployments.rootMethod()).isEqualTo("r:rootMethod");
		assertThat(this.deployments.tenant("9")).isEqualTo("t:acme/9");
	}

	@Test
	void shouldLockEveryElementOfACollectionKeyAllOrNothing() {
		List<String> locked = this.deployments.batch(List.of("x", "y", "z"));
		assertThat(locked).containsExactlyInAnyOrder("x", "y", "z");
		try (LockHandle held = this.otherProcess.acquire(LockRequest.of("batch", "y"))) {
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> this.deployments.batchWithoutWaiting(List.of("x", "y")));
			assertThat(this.template.isLocked("batch", "x")).as("all or nothing: x released again").isFalse();
		}
	}

	@Test
	void shouldLockEveryElementOfAnArrayKey() {
		assertThat(this.deployments.array(new String[] { "m", "n" })).containsExactlyInAnyOrder("m", "n");
	}

	@Test
	void shouldFailTheCallNamingLockAndMethodWhenKeyIsNullOrEmpty() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.deployments.nullKey(null))
			.withMessage("Lock 'nullkey' of Deployments.nullKey: key '#id' evaluated to null; "
					+ "a lock key must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> this.deployments.batch(List.of()))
			.withMessage("Lock 'batch' of Deployments.batch: key '#ids' evaluated to an empty collection; "
					+ "there is nothing to lock");
		assertThatIllegalArgumentException().isThrownBy(() -> this.deployments.nullKey("  "))
			.withMessageStartingWith("Lock 'nullkey' of Deployments.nullKey: key '#id' gave an unusable key: ");
	}

	@Test
	void shouldThrowSkipOrFallBackWhenLockIsTaken() {
		try (LockHandle held = this.otherProcess.acquire(LockRequest.of("busy", null))) {
			assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(this.deployments::throwing)
				.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo(LockName.of("busy", null)));
			assertThat(this.deployments.skipping()).isNull();
			assertThat(this.deployments.skippingOptional()).isEmpty();
			this.deployments.skippingVoid();
			assertThat(this.deployments.withFallback("7")).isEqualTo("fallback 7");
			assertThat(this.deployments.withFallbackAndCause("8")).isEqualTo("fallback 8 after busy");
		}
		assertThat(this.deployments.calls).as("no locked body ran").isZero();
		assertThat(this.timeouts).extracting(LockTimeoutContext::getOnTimeout)
			.containsExactly(OnTimeout.THROW, OnTimeout.SKIP, OnTimeout.SKIP, OnTimeout.SKIP, OnTimeout.FALLBACK,
					OnTimeout.FALLBACK);
		assertThat(this.timeouts.get(4).getLocks()).containsExactly(LockName.of("busy", null));
		this.timeouts.clear();
		assertThat(this.deployments.skipping()).isEqualTo("ran");
		assertThat(this.deployments.withFallback("7")).isEqualTo("ran 7");
	}

	@Test
	void shouldNotTakeATimeoutOfTheMethodBodyForTheMethodsOwnTimeout() {
		// Held by another owner than the one the method body uses.
		try (LockHandle held = this.template.acquire(LockRequest.of("elsewhere", null))) {
			assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(this.deployments::innerTimeout)
				.satisfies((ex) -> assertThat(ex.getLockName().scope()).isEqualTo("elsewhere"));
		}
		assertThat(this.timeouts).isEmpty();
	}

	@Test
	void shouldPassCheckedExceptionsThroughUnchanged() {
		assertThatIOException().isThrownBy(this.deployments::checked).withMessage("disk full");
		assertThat(this.template.isLocked("checked", null)).isFalse();
	}

	@Test
	void shouldLockEachPublicMethodOfAnAnnotatedClassWithItsOwnScope() {
		assertThat(this.jobs.first()).isEqualTo("Jobs.first");
		assertThat(this.jobs.second()).isEqualTo("Jobs.second");
		assertThat(this.jobs.excluded()).as("excluded methods run without a lock").isEmpty();
		assertThat(this.jobs.own()).isEqualTo("own:k");
		try (LockHandle held = this.otherProcess.acquire(LockRequest.of("Jobs.first", null))) {
			assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(this.jobs::first);
			assertThat(this.jobs.second()).isEqualTo("Jobs.second");
		}
	}

	@Test
	void shouldBeReentrantThroughTheProxy() {
		assertThat(this.deployments.outer()).isEqualTo(2);
	}

	record Server(String id) {
	}

	public static class Tenants {

		public String current() {
			return "acme";
		}

	}

	public static class Deployments {

		private final RedisLockTemplate otherProcess;

		int calls;

		Deployments self;

		Deployments(RedisLockTemplate otherProcess) {
			this.otherProcess = otherProcess;
		}

		record Observed(LockName name, boolean lockedForOthers, Duration remainingLease) {
		}

		@DistributedLock(scope = "server_access", key = "#server.id", expire = 10)
		public Observed deploy(Server server) {
			LockContext context = LockContext.current();
			return new Observed(context.name(), this.otherProcess.isLocked("server_access", server.id()),
					context.remainingLease());
		}

		@DistributedLock(scope = "p", key = "#p0 + '-' + #a1")
		public String positional(String a, int b) {
			return LockContext.current().name().toString();
		}

		@DistributedLock(scope = "r", key = "#root.method.name")
		public String rootMethod() {
			return LockContext.current().name().toString();
		}

		@DistributedLock(scope = "t", key = "@tenants.current() + '/' + #id")
		public String tenant(String id) {
			return LockContext.current().name().toString();
		}

		@DistributedLock(scope = "batch", key = "#ids")
		public List<String> batch(List<String> ids) {
			List<String> locked = new ArrayList<>();
			for (LockContext hold : ((LockHandle) LockContext.current()).locks()) {
				assertThat(this.otherProcess.isLocked("batch", hold.name().key())).isTrue();
				locked.add(hold.name().key());
			}
			return locked;
		}

		@DistributedLock(scope = "batch", key = "#ids", waitTime = 0)
		public void batchWithoutWaiting(List<String> ids) {
			this.calls++;
		}

		@DistributedLock(scope = "array", key = "#keys")
		public List<String> array(String[] keys) {
			return ((LockHandle) LockContext.current()).locks().stream().map((hold) -> hold.name().key()).toList();
		}

		@DistributedLock(scope = "nullkey", key = "#id")
		public void nullKey(String id) {
			this.calls++;
		}

		@DistributedLock(scope = "busy", waitTime = 0)
		public void throwing() {
			this.calls++;
		}

		@DistributedLock(scope = "busy", waitTime = 0, onTimeout = OnTimeout.SKIP)
		public String skipping() {
			return "ran";
		}

		@DistributedLock(scope = "busy", waitTime = 0, onTimeout = OnTimeout.SKIP)
		public Optional<String> skippingOptional() {
			this.calls++;
			return Optional.of("ran");
		}

		@DistributedLock(scope = "busy", waitTime = 0, onTimeout = OnTimeout.SKIP)
		public void skippingVoid() {
			this.calls++;
		}

		@DistributedLock(scope = "busy", waitTime = 0, onTimeout = OnTimeout.FALLBACK, fallback = "fallback")
		public String withFallback(String id) {
			return "ran " + id;
		}

		private String fallback(String id) {
			return "fallback " + id;
		}

		@DistributedLock(scope = "busy", waitTime = 0, onTimeout = OnTimeout.FALLBACK, fallback = "fallbackWithCause")
		public String withFallbackAndCause(String id) {
			this.calls++;
			return "ran " + id;
		}

		String fallbackWithCause(String id, LockTimeoutException ex) {
			return "fallback " + id + " after " + ex.getLockName();
		}

		@DistributedLock(scope = "inner-timeout", onTimeout = OnTimeout.SKIP)
		public String innerTimeout() {
			this.otherProcess.acquire(LockRequest.builder("elsewhere").waitTime(Duration.ZERO).build()).close();
			return "unreachable";
		}

		@DistributedLock(scope = "checked")
		public void checked() throws IOException {
			throw new IOException("disk full");
		}

		@DistributedLock(scope = "reentrant")
		public int outer() {
			return 1 + inner();
		}

		@DistributedLock(scope = "reentrant")
		public int inner() {
			return 1;
		}

	}

	@DistributedLock(waitTime = 0)
	public static class Jobs {

		public String first() {
			return LockContext.current().name().scope();
		}

		public String second() {
			return LockContext.current().name().scope();
		}

		@DistributedLock.Exclude
		public Optional<LockContext> excluded() {
			return LockContext.find();
		}

		@DistributedLock(scope = "own", key = "'k'")
		public String own() {
			return LockContext.current().name().toString();
		}

	}

}
