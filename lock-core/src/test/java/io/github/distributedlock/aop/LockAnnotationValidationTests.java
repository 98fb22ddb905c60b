package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.Flag;
import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.DistributedLock.Waiting;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.WaitStrategy;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.scheduling.annotation.Async;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The checks that {@link LockAnnotationValidator} runs on every bean class when the
 * context starts: each problem fails with a message naming the class, the method and what
 * is wrong.
 */
class LockAnnotationValidationTests {

	private final DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();

	private final LockedMethods methods = new LockedMethods(this::keyResolver,
			(value) -> value.replace("${lease}", "15s"));

	private SpelLockKeyResolver keyResolver() {
		SpelLockKeyResolver resolver = new SpelLockKeyResolver();
		resolver.setBeanFactory(this.beanFactory);
		return resolver;
	}

	private LockAnnotationException invalid(Class<?> type) {
		return catchThrowableOfType(LockAnnotationException.class, () -> this.methods.validate(type));
	}

	@Test
	void shouldAcceptValidDeclarations() {
		this.beanFactory.registerSingleton("tenants", new Object());
		assertThatNoException().isThrownBy(() -> this.methods.validate(Valid.class));
	}

	@Test
	void shouldFailStartupNamingTheMethodWhenKeyIsNotSpel() {
		LockAnnotationException ex = invalid(UnparseableKey.class);
		assertThat(ex.getTargetClass()).isEqualTo(UnparseableKey.class);
		assertThat(ex.getMessage()).contains(UnparseableKey.class.getName())
			.contains("UnparseableKey.run(String): key '#id +' is not a valid SpEL expression");
	}

	@Test
	void shouldFailStartupListingTheParametersWhenKeyRefersToAnUnknownParameter() {
		assertThat(invalid(UnknownVariable.class).getProblems()).singleElement()
			.asString()
			.isEqualTo("UnknownVariable.deploy(Server): key '#serve.id' refers to #serve, but the parameters "
					+ "are (#server) or #p0..#p0");
	}

	@Test
	void shouldShortenAHugeScopeInItsError() {
		String problem = invalid(HugeScope.class).getProblems().get(0);
		assertThat(problem).startsWith("HugeScope.run(): scope is not usable: Lock '")
			.contains("(1000 chars)")
			.hasSizeLessThan(400);
	}

	@Test
	void shouldFailStartupWhenKeyRefersToAMissingBean() {
		assertThat(invalid(UnknownBean.class).getProblems()).singleElement()
			.asString()
			.isEqualTo("UnknownBean.run(String): key '@nothing.key(#id)' refers to bean 'nothing', but there is "
					+ "no such bean");
	}

	@Test
	void shouldFailStartupWhenFallbackDoesNotExist() {
		assertThat(invalid(MissingFallback.class).getProblems()).singleElement()
			.asString()
			.startsWith("MissingFallback.run(String): fallback method 'orElse' does not exist in ");
	}

	@Test
	void shouldFailStartupShowingWhatWasFoundWhenFallbackHasTheWrongSignature() {
		assertThat(invalid(WrongFallback.class).getProblems()).containsExactly(
				"WrongFallback.run(String): fallback method 'orElse' has the wrong signature: it must take (String) "
						+ "or (String, LockTimeoutException) and return Integer, but found "
						+ "WrongFallback.orElse(Long) returning Integer",
				"WrongFallback.count(String): fallback method 'orElseText' has the wrong signature: it must take "
						+ "(String) or (String, LockTimeoutException) and return Integer, but found "
						+ "WrongFallback.orElseText(String) returning String");
	}

	@Test
	void shouldFailStartupWhenFallbackModeAndNameDisagree() {
		assertThat(invalid(FallbackMismatch.class).getProblems()).containsExactlyInAnyOrder(
				"FallbackMismatch.named(): fallback 'other' is set, but onTimeout is THROW; set onTimeout = FALLBACK",
				"FallbackMismatch.unnamed(): onTimeout is FALLBACK, but no fallback method is named; "
						+ "set fallback = \"methodName\"");
	}

	@Test
	void shouldFailStartupWhenExpireIsNotPositiveOrWaitIsNegative() {
		assertThat(invalid(BadDurations.class).getProblems()).containsExactlyInAnyOrder(
				"BadDurations.zeroExpire(): expire must be at least 1 ms, but was PT0S",
				"BadDurations.negativeExpire(): expire must not be negative (-1, the default, leaves it unset), "
						+ "but was -5",
				"BadDurations.tinyExpire(): expire must be at least 1 ms, but was PT0.0005S",
				"BadDurations.negativeWait(): waitTime must not be negative, but was PT-0.5S",
				"BadDurations.negativeNumericWait(): waitTime must not be negative (-1, the default, leaves it "
						+ "unset), but was -2",
				"BadDurations.both(): expire and expireString are both set; use one",
				"BadDurations.bothWaits(): waitTime and waitTimeString are both set; use one",
				"BadDurations.unparseable(): expireString 'soon' is not a duration (such as 10s, 500ms or PT10S): "
						+ "'soon' is not a valid duration, cannot detect any known style");
	}

	@Test
	void shouldFailStartupWhenMinimumHoldIsNegativeUnparseableOrLongerThanTheLease() {
		assertThat(invalid(BadMinimumHolds.class).getProblems()).containsExactlyInAnyOrder(
				"BadMinimumHolds.negative(): holdAtLeast must not be negative, but was PT-1S",
				"BadMinimumHolds.unparseable(): holdAtLeast 'later' is not a duration (such as 10s, 500ms or PT10S): "
						+ "'later' is not a valid duration, cannot detect any known style",
				"BadMinimumHolds.longerThanLease(): holdAtLeast PT1M is longer than expire PT30S; the lease caps how "
						+ "long the lock stays taken, so give an expire of at least holdAtLeast");
	}

	@Test
	void shouldCarryTheMinimumHoldIntoTheRequest() throws Exception {
		LockedMethod locked = this.methods.find(Valid.class.getMethod("report"), Valid.class);
		assertThat(locked).isNotNull();
		assertThat(locked.requests(new Valid(), new Object[0])).singleElement()
			.satisfies((request) -> assertThat(request.holdAtLeast()).isEqualTo(Duration.ofMillis(1500)));
	}

	@Test
	void shouldLeaveEveryUnsetAttributeToTheTemplate() throws Exception {
		LockRequest request = request(Valid.class.getMethod("skipped"));
		assertThat(request.lease()).isNull();
		assertThat(request.waitTime()).isNull();
		assertThat(request.waitStrategy()).isNull();
		assertThat(request.reentrant()).isNull();
		assertThat(request.progressAwareTimeout()).isNull();
		assertThat(request.autoRenew()).isNull();
		assertThat(this.methods.find(Valid.class.getMethod("plain"), Valid.class).onTimeout())
			.isEqualTo(OnTimeout.THROW);
	}

	@Test
	void shouldCarryTheSettingsTheAnnotationGivesIntoTheRequest() throws Exception {
		LockRequest request = request(Valid.class.getMethod("count", String.class));
		assertThat(request.waitStrategy()).isEqualTo(WaitStrategy.POLLING);
		assertThat(request.reentrant()).isFalse();
		assertThat(request.progressAwareTimeout()).isTrue();
		assertThat(request.autoRenew()).isTrue();
		assertThat(request(Valid.class.getMethod("unrenewed")).autoRenew()).isFalse();
	}

	@Test
	void shouldTreatMinusOneAsUnsetAndZeroAsTryOnce() throws Exception {
		assertThat(request(Valid.class.getMethod("explicitlyUnset")).lease()).isNull();
		assertThat(request(Valid.class.getMethod("explicitlyUnset")).waitTime()).isNull();
		assertThat(request(Valid.class.getMethod("report")).waitTime()).isEqualTo(Duration.ZERO);
		assertThat(request(Valid.class.getMethod("patient")).waitTime()).isEqualTo(LockRequest.WAIT_INDEFINITELY);
	}

	@Test
	void shouldOfferEveryWaitStrategyAndDefaultToAnnotations() {
		assertThat(LockedMethodParser.waitStrategy(Waiting.DEFAULT)).isNull();
		for (WaitStrategy strategy : WaitStrategy.values()) {
			assertThat(LockedMethodParser.waitStrategy(Waiting.valueOf(strategy.name()))).isEqualTo(strategy);
		}
		assertThat(Waiting.values()).hasSize(WaitStrategy.values().length + 1);
	}

	private LockRequest request(Method method) {
		LockedMethod locked = this.methods.find(method, Valid.class);
		assertThat(locked).isNotNull();
		return locked.requests(new Valid(), new Object[0]).get(0);
	}

	@Test
	void shouldFailStartupWhenSkipIsOnAPrimitiveReturnType() {
		assertThat(invalid(SkipPrimitive.class).getProblems()).singleElement()
			.asString()
			.isEqualTo("SkipPrimitive.count(): returns int, so onTimeout = SKIP has no value to return; "
					+ "use THROW or FALLBACK, or return Integer or Optional");
	}

	@Test
	void shouldFailStartupWhenMethodReturnsAFutureThatCannotSignalCompletionUnlessItIsAsync() {
		assertThat(invalid(Asynchronous.class).getProblems()).containsExactlyInAnyOrder(
				"Asynchronous.later(): returns Future: the lock is taken by the calling thread and released when "
						+ "the method returns, before the asynchronous work is done, so it would not protect that "
						+ "work; a Future cannot tell when its work is done, so return CompletableFuture or "
						+ "CompletionStage instead (the lock is then held until it completes), or lock inside the "
						+ "asynchronous task",
				"Asynchronous.own(): returns OwnFuture: the lock is taken by the calling thread and released when "
						+ "the method returns, before the asynchronous work is done, so it would not protect that "
						+ "work; declare the return type as CompletableFuture or CompletionStage, the types whose "
						+ "lock is held until they complete");
		assertThatNoException().isThrownBy(() -> this.methods.validate(AsyncAnnotated.class));
	}

	@Test
	void shouldFailStartupWhenAnAsyncMethodReturnsAPublisherThroughItsSuperinterfaces() {
		// Mono implements CorePublisher, which extends Publisher: an interface of an
		// interface.
		assertThat(invalid(AsyncPublisher.class).getProblems()).singleElement()
			.asString()
			.isEqualTo("AsyncPublisher.later(): returns Mono: the lock is taken by the calling thread and released "
					+ "when the method returns, before the asynchronous work is done, so it would not protect that "
					+ "work; lock inside the asynchronous task instead (an @Async method may return a "
					+ "CompletableFuture)");
	}

	@Test
	void shouldAcceptAReactiveMethodThatAsksForAFairLock() {
		assertThatNoException().isThrownBy(() -> this.methods.validate(FairReactive.class));
	}

	@Test
	void shouldAcceptCompletionStageAndCompletableFutureHeldUntilTheyComplete() {
		assertThatNoException().isThrownBy(() -> this.methods.validate(Staged.class));
		assertThat(this.methods.find(method(Staged.class, "stage"), Staged.class).result())
			.isEqualTo(LockedResult.COMPLETION_STAGE);
		assertThat(this.methods.find(method(Staged.class, "future"), Staged.class).result())
			.isEqualTo(LockedResult.COMPLETION_STAGE);
		assertThat(this.methods.find(method(AsyncAnnotated.class, "later"), AsyncAnnotated.class).result())
			.isEqualTo(LockedResult.VALUE);
	}

	private static Method method(Class<?> type, String name) {
		Method found = ReflectionUtils.findMethod(type, name);
		assertThat(found).isNotNull();
		return found;
	}

	@Test
	void shouldFailStartupWhenMethodCannotBeProxied() {
		assertThat(invalid(NotProxyable.class).getProblems()).containsExactlyInAnyOrder(
				"NotProxyable.hidden(): it is private, so no Spring AOP proxy can intercept it",
				"NotProxyable.shared(): it is static, so no Spring AOP proxy can intercept it",
				"NotProxyable.sealed(): it is final, so a class-based proxy cannot intercept it");
	}

	@Test
	void shouldRequireFinalPublicMethodsOfAnAnnotatedClassToBeExcluded() {
		assertThat(invalid(AnnotatedClassWithFinalMethod.class).getProblems()).singleElement()
			.asString()
			.isEqualTo("AnnotatedClassWithFinalMethod.sealed(): its class is annotated, but it is final, so a "
					+ "class-based proxy cannot intercept it; exclude it with @DistributedLock.Exclude");
	}

	@Test
	void shouldReportEveryProblemOfAClassAtOnce() {
		LockAnnotationException ex = invalid(ManyProblems.class);
		assertThat(ex.getProblems()).hasSize(2);
		assertThat(ex.getMessage())
			.startsWith("2 invalid @DistributedLock declarations in " + ManyProblems.class.getName())
			.contains("ManyProblems.first(): expire must be at least 1 ms")
			.contains("ManyProblems.second(String): key '#nope' refers to #nope");
	}

	@Test
	void shouldDefaultTheScopeToClassAndMethodNameAndReadDurationStrings() throws Exception {
		LockedMethod locked = this.methods.find(Valid.class.getMethod("deploy", Server.class), Valid.class);
		assertThat(locked).isNotNull();
		assertThat(locked.scope()).isEqualTo("Valid.deploy");
		assertThat(locked.toString()).contains("lease=PT15S")
			.contains("waitTime=PT0.25S")
			.contains("origin=Valid.deploy");
	}

	@Test
	void shouldApplyClassAnnotationToPublicMethodsOnly() throws Exception {
		assertThat(this.methods.isLocked(ClassLevel.class.getMethod("first"), ClassLevel.class)).isTrue();
		assertThat(this.methods.isLocked(ClassLevel.class.getMethod("excluded"), ClassLevel.class)).isFalse();
		assertThat(this.methods.isLocked(ClassLevel.class.getDeclaredMethod("internal"), ClassLevel.class)).isFalse();
		assertThat(this.methods.isLocked(ClassLevel.class.getMethod("toString"), ClassLevel.class)).isFalse();
		assertThat(this.methods.isLocked(ClassLevel.class.getMethod("hashCode"), ClassLevel.class)).isFalse();
		assertThat(this.methods.find(ClassLevel.class.getMethod("first"), ClassLevel.class).scope())
			.isEqualTo("ClassLevel.first");
		assertThat(this.methods.find(ClassLevel.class.getMethod("own"), ClassLevel.class).scope()).isEqualTo("mine");
	}

	record Server(String id) {
	}

	static class Valid {

		@DistributedLock(key = "#server.id", expireString = "${lease}", waitTime = 250,
				timeUnit = TimeUnit.MILLISECONDS)
		public void deploy(Server server) {
		}

		@DistributedLock(scope = "tenant", key = "@tenants.hashCode() + #p0 + #a0 + #root.methodName + #name")
		public Optional<String> named(String name) {
			return Optional.empty();
		}

		@DistributedLock(onTimeout = OnTimeout.FALLBACK, fallback = "orElse", reentrant = Flag.FALSE,
				waitStrategy = Waiting.POLLING, progressAwareTimeout = Flag.TRUE, autoRenew = Flag.TRUE)
		public int count(String what) {
			return 1;
		}

		int orElse(String what, LockTimeoutException ex) {
			return 0;
		}

		@DistributedLock(onTimeout = OnTimeout.SKIP)
		public void skipped() {
		}

		@DistributedLock(waitTime = DistributedLock.WAIT_INDEFINITELY)
		public void patient() {
		}

		@DistributedLock(waitTime = 0, onTimeout = OnTimeout.SKIP, holdAtLeast = "1500ms")
		public void report() {
		}

		@DistributedLock
		public void plain() {
		}

		@DistributedLock(expire = -1, waitTime = -1)
		public void explicitlyUnset() {
		}

		@DistributedLock(expire = 5, autoRenew = Flag.FALSE)
		public void unrenewed() {
		}

	}

	static class HugeScope {

		private static final String TEN = "scope-1234";

		private static final String HUNDRED = TEN + TEN + TEN + TEN + TEN + TEN + TEN + TEN + TEN + TEN;

		@DistributedLock(scope = HUNDRED + HUNDRED + HUNDRED + HUNDRED + HUNDRED + HUNDRED + HUNDRED + HUNDRED + HUNDRED
				+ HUNDRED)
		public void run() {
		}

	}

	static class UnparseableKey {

		@DistributedLock(key = "#id +")
		public void run(String id) {
		}

	}

	static class UnknownVariable {

		@DistributedLock(key = "#serve.id")
		public void deploy(Server server) {
		}

	}

	static class UnknownBean {

		@DistributedLock(key = "@nothing.key(#id)")
		public void run(String id) {
		}

	}

	static class MissingFallback {

		@DistributedLock(onTimeout = OnTimeout.FALLBACK, fallback = "orElse")
		public void run(String id) {
		}

	}

	static class WrongFallback {

		@DistributedLock(onTimeout = OnTimeout.FALLBACK, fallback = "orElse")
		public Integer run(String id) {
			return 1;
		}

		Integer orElse(Long id) {
			return 0;
		}

		@DistributedLock(onTimeout = OnTimeout.FALLBACK, fallback = "orElseText")
		public Integer count(String id) {
			return 1;
		}

		String orElseText(String id) {
			return "";
		}

	}

	static class FallbackMismatch {

		@DistributedLock(fallback = "other")
		public void named() {
		}

		@DistributedLock(onTimeout = OnTimeout.FALLBACK)
		public void unnamed() {
		}

		void other() {
		}

	}

	static class BadMinimumHolds {

		@DistributedLock(holdAtLeast = "-1s")
		public void negative() {
		}

		@DistributedLock(holdAtLeast = "later")
		public void unparseable() {
		}

		@DistributedLock(expire = 30, holdAtLeast = "1m")
		public void longerThanLease() {
		}

	}

	static class BadDurations {

		@DistributedLock(expire = 0)
		public void zeroExpire() {
		}

		@DistributedLock(expire = -5)
		public void negativeExpire() {
		}

		@DistributedLock(expire = 500, timeUnit = TimeUnit.MICROSECONDS)
		public void tinyExpire() {
		}

		@DistributedLock(waitTimeString = "-500ms")
		public void negativeWait() {
		}

		@DistributedLock(expire = 1, expireString = "1s")
		public void both() {
		}

		@DistributedLock(waitTime = -2)
		public void negativeNumericWait() {
		}

		@DistributedLock(waitTime = 0, waitTimeString = "1s")
		public void bothWaits() {
		}

		@DistributedLock(expireString = "soon")
		public void unparseable() {
		}

	}

	static class SkipPrimitive {

		@DistributedLock(onTimeout = OnTimeout.SKIP)
		public int count() {
			return 1;
		}

	}

	static class Asynchronous {

		@DistributedLock
		public Future<String> later() {
			return CompletableFuture.completedFuture("");
		}

		@DistributedLock
		public OwnFuture own() {
			return new OwnFuture();
		}

	}

	static class OwnFuture extends CompletableFuture<String> {

	}

	static class Staged {

		@DistributedLock
		public CompletionStage<String> stage() {
			return CompletableFuture.completedFuture("");
		}

		@DistributedLock(onTimeout = OnTimeout.SKIP)
		public CompletableFuture<String> future() {
			return CompletableFuture.completedFuture("");
		}

	}

	static class AsyncAnnotated {

		@Async
		@DistributedLock
		public CompletableFuture<String> later() {
			return CompletableFuture.completedFuture("");
		}

	}

	static class AsyncPublisher {

		@Async
		@DistributedLock
		public Mono<String> later() {
			return Mono.just("");
		}

	}

	static class FairReactive {

		@DistributedLock(fair = true)
		public Mono<String> run() {
			return Mono.just("");
		}

	}

	static class NotProxyable {

		@DistributedLock
		private void hidden() {
		}

		@DistributedLock
		public static void shared() {
		}

		@DistributedLock
		public final void sealed() {
		}

	}

	@DistributedLock
	static class AnnotatedClassWithFinalMethod {

		public void fine() {
		}

		public final void sealed() {
		}

		@DistributedLock.Exclude
		public final void excluded() {
		}

	}

	static class ManyProblems {

		@DistributedLock(expire = 0)
		public void first() {
		}

		@DistributedLock(key = "#nope")
		public void second(String id) {
		}

	}

	@DistributedLock(waitTime = 0)
	static class ClassLevel {

		public void first() {
		}

		@DistributedLock.Exclude
		public void excluded() {
		}

		@DistributedLock(scope = "mine")
		public void own() {
		}

		void internal() {
		}

		@Override
		public String toString() {
			return "ClassLevel";
		}

		@Override
		public int hashCode() {
			return 1;
		}

		@Override
		public boolean equals(Object other) {
			return other == this;
		}

	}

}
