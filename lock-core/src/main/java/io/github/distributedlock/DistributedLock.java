package io.github.distributedlock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;

/**
 * Run a method while holding a distributed lock. <pre class="code">
 * &#64;DistributedLock(scope = "server_access", key = "#server.id", expire = 10)
 * public Report deploy(Server server) { ... }
 * </pre> The lock is {@code scope:key}, taken before the method runs and released after
 * it returns or throws; inside the method {@link LockContext#current()} describes the
 * hold.
 * <p>
 * <b>Unset attributes.</b> Every attribute left out comes from the {@link LockDefaults}
 * of the {@link LockTemplate} (in Spring Boot, the {@code distributed-lock.*}
 * properties). {@link #expire()}, {@link #waitTime()}, {@link #waitStrategy()},
 * {@link #reentrant()}, {@link #progressAwareTimeout()}, {@link #autoRenew()} and
 * {@link #onTimeout()} are declared as arrays only so that leaving them out can mean "use
 * the default": write them as single values, as in {@code reentrant = false}; more than
 * one value is a startup error.
 * <p>
 * <b>Scheduled jobs.</b> On a method that Spring's {@code @Scheduled} runs, two defaults
 * differ: an unset wait time is zero and an unset {@link #onTimeout()} is
 * {@link OnTimeout#SKIP}. While one instance runs the job, the others skip it instead of
 * queueing up to run it again one after the other, as ShedLock does. Setting either
 * attribute overrides its default, as in {@code waitTime = 5} to wait up to five seconds.
 * <p>
 * <b>On a class</b>, the annotation locks each public method declared in that class (and
 * in its subclasses) with the method's own default scope, unless the class annotation
 * names a scope, which all its methods then share. A method can opt out with
 * {@link Exclude} or carry its own {@code @DistributedLock}, which then replaces the
 * class annotation as a whole. {@code equals}, {@code hashCode} and {@code toString} are
 * never locked.
 * <p>
 * <b>Proxies.</b> The lock is applied by a Spring AOP proxy, so it works on calls that go
 * through the bean, not on calls a bean makes to its own methods ({@code this.method()}),
 * and never on private, static or final methods (declaring it there is a startup error).
 * Every annotated method is checked when the application context starts; a bad key
 * expression, fallback or setting fails the startup with a message naming the method.
 *
 * @see LockTemplate
 * @see LockRequest
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface DistributedLock {

	/**
	 * A {@link #waitTime()} that waits until the lock is ours or the thread is
	 * interrupted.
	 */
	long WAIT_INDEFINITELY = Long.MAX_VALUE;

	/**
	 * The scope of the lock: what kind of thing is locked, such as
	 * {@code "server_access"}. Defaults to {@code SimpleClassName.methodName} of the
	 * bean's class, so overloads of one method share a lock.
	 * @return the scope, or empty for the default
	 */
	String scope() default "";

	/**
	 * A SpEL expression for the key within the scope, evaluated for each call. Parameters
	 * are variables by name ({@code #server.id}, which needs {@code -parameters}) or by
	 * position ({@code #p0}, {@code #a0}); {@code #root.method}, {@code #root.target},
	 * {@code #root.args} and {@code #root.methodName} describe the call, and
	 * {@code @beanName} refers to a bean. The result is rendered with {@code toString()}.
	 * A collection or array locks every element, all or nothing. A {@code null} result, a
	 * {@code null} element or an empty collection fails the call with an
	 * {@link IllegalArgumentException}.
	 * @return the key expression, or empty to lock the whole scope
	 */
	String key() default "";

	/**
	 * How long the lock stays ours if it is never released, in {@link #timeUnit()}; at
	 * least 1 ms.
	 * @return the lease, or none for the default
	 * @see #expireString()
	 */
	long[] expire() default {};

	/**
	 * The lease as a duration string, such as {@code "10s"}, {@code "PT10S"} or
	 * {@code "${jobs.lease}"}; a plain number is in {@link #timeUnit()}. Use this or
	 * {@link #expire()}, not both.
	 * @return the lease, or empty for the default
	 */
	String expireString() default "";

	/**
	 * How long to wait for a taken lock, in {@link #timeUnit()}. Zero tries once;
	 * {@link #WAIT_INDEFINITELY} waits until the lock is ours. Unset, the template's
	 * default wait time applies, or zero on a method that Spring's {@code @Scheduled}
	 * runs.
	 * @return the wait time, or none for the default
	 * @see #waitTimeString()
	 */
	long[] waitTime() default {};

	/**
	 * The wait time as a duration string, such as {@code "500ms"}, {@code "PT2S"} or
	 * {@code "${jobs.wait}"}; a plain number is in {@link #timeUnit()}. Use this or
	 * {@link #waitTime()}, not both.
	 * @return the wait time, or empty for the default
	 */
	String waitTimeString() default "";

	/**
	 * How long the lock stays taken at least after it was acquired, as a duration string
	 * such as {@code "30s"}, {@code "PT30S"} or {@code "${jobs.hold}"}; a plain number is
	 * in {@link #timeUnit()}. When the method returns sooner, the lock is released at
	 * once from the caller's point of view, but stays taken (its lease shortened to what
	 * is left) until the minimum hold has passed; the lease caps it. On a
	 * {@code @Scheduled} method whose other instances skip a taken lock, this keeps an
	 * instance whose clock or schedule is slightly off from running the same run again
	 * right after another instance finished it. Not negative, and not longer than
	 * {@link #expire()} when that is given.
	 * @return the minimum hold, or empty for none
	 * @see LockRequest.Builder#holdAtLeast(java.time.Duration)
	 */
	String holdAtLeast() default "";

	/**
	 * The unit of {@link #expire()}, {@link #waitTime()} and of plain numbers in the
	 * duration strings.
	 * @return the time unit
	 */
	TimeUnit timeUnit() default TimeUnit.SECONDS;

	/**
	 * How waiters learn that the lock may be free.
	 * @return the wait strategy, or none for the default
	 */
	WaitStrategy[] waitStrategy() default {};

	/**
	 * Whether the thread that holds the lock may take it again (for example through a
	 * call to another annotated method). When not reentrant, doing so fails at once with
	 * {@link LockSelfDeadlockException}.
	 * @return whether the lock is reentrant, or none for the default
	 */
	boolean[] reentrant() default {};

	/**
	 * Whether the wait time restarts each time the lock changes hands while we wait.
	 * @return whether the timeout is progress-aware, or none for the default
	 */
	boolean[] progressAwareTimeout() default {};

	/**
	 * Whether to take the lock alone (the default) or shared with other readers. Methods
	 * with {@link LockMode#READ} run together; a {@link LockMode#WRITE} method runs
	 * alone.
	 * @return the lock mode
	 */
	LockMode mode() default LockMode.EXCLUSIVE;

	/**
	 * Turn the lock into a semaphore with this many permits: at most that many calls run
	 * at once, across every instance, each permit with its own lease (a throttle, for
	 * example "at most 3 concurrent exports"). 0, the default, means a lock.
	 * @return the number of permits, or 0
	 */
	int permits() default 0;

	/**
	 * Whether waiting callers get the lock in arrival order, across every instance.
	 * @return whether the lock is fair
	 */
	boolean fair() default false;

	/**
	 * Whether the watchdog renews the lease while the method runs. By default methods
	 * without an {@code expire} are renewed and methods with one are not.
	 * @return whether the lease is renewed, or none for the default
	 */
	boolean[] autoRenew() default {};

	/**
	 * What happens to the method when this process finds its lock's lease lost while the
	 * method runs: a renewal found the lock expired or taken, or the lease ran out
	 * without a renewal (an {@code expire} that was not renewed counts when it runs out).
	 * {@link LeaseLossPolicy#CONTINUE}, the default, lets the method finish, and the
	 * release then throws {@link LockLeaseLostException}.
	 * {@link LeaseLossPolicy#INTERRUPT} interrupts the thread running the method, or
	 * cancels the subscription of a {@code Mono} or {@code Flux}, the
	 * {@code CompletableFuture} or the Kotlin coroutine, and the caller gets
	 * {@link LockLeaseLostException}.
	 * @return the policy on a lost lease
	 * @see LockRequest.Builder#onLeaseLost(LeaseLossPolicy)
	 */
	LeaseLossPolicy onLeaseLost() default LeaseLossPolicy.CONTINUE;

	/**
	 * What to do when the lock is not acquired within the wait time:
	 * {@link OnTimeout#THROW} by default, or {@link OnTimeout#SKIP} on a method that
	 * Spring's {@code @Scheduled} runs.
	 * @return the behaviour on timeout, or none for the default
	 */
	OnTimeout[] onTimeout() default {};

	/**
	 * The name of the method to call instead when the lock is not acquired, with
	 * {@link OnTimeout#FALLBACK}. It is a method of the same bean (any visibility) that
	 * takes the same parameters, optionally followed by a {@link LockTimeoutException}
	 * (or a supertype), and returns a type assignable to this method's return type.
	 * @return the fallback method name, or empty
	 */
	String fallback() default "";

	/**
	 * What an annotated method does when its lock is not acquired within the wait time.
	 * Only the method's own lock counts: a {@link LockTimeoutException} thrown by the
	 * method body is passed on unchanged.
	 */
	enum OnTimeout {

		/**
		 * Throw the {@link LockTimeoutException}.
		 */
		THROW,

		/**
		 * Don't run the method: return {@code null}, or an empty {@code Optional} for a
		 * method returning {@code Optional}. Not allowed for methods returning a
		 * primitive.
		 */
		SKIP,

		/**
		 * Call the {@link DistributedLock#fallback()} method instead and return its
		 * result.
		 */
		FALLBACK

	}

	/**
	 * Exclude a method from the {@code @DistributedLock} of its class.
	 */
	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@Documented
	@interface Exclude {

	}

}
