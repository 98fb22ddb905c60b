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
 * properties). As with {@code @Scheduled(fixedDelay = -1)}, an attribute that can be left
 * to those defaults has a default that means "unset": {@code -1} for {@link #expire()}
 * and {@link #waitTime()}, an empty string for their {@code ...String} twins, and a
 * {@code DEFAULT} constant for the enums, as in {@code Isolation.DEFAULT} of
 * {@code @Transactional}. The switches that can be unset ({@link #reentrant()},
 * {@link #progressAwareTimeout()}, {@link #autoRenew()}) share one three-valued
 * {@link Flag}, so they read as the properties that back them:
 * {@code reentrant = Flag.FALSE} is {@code distributed-lock.reentrant=false} for one
 * method. {@link #waitStrategy()} takes a {@link Waiting}, the {@link WaitStrategy}
 * constants plus {@code DEFAULT}, since {@link WaitStrategy} itself names a strategy the
 * template uses and has no "unset".
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
	 * least 1 ms. Unset ({@code -1}), the template's default lease applies, renewed while
	 * the method runs.
	 * @return the lease, or {@code -1} for the default
	 * @see #expireString()
	 */
	long expire() default -1;

	/**
	 * The lease as a duration string, such as {@code "10s"}, {@code "PT10S"} or
	 * {@code "${jobs.lease}"}; a plain number is in {@link #timeUnit()}. Use this or
	 * {@link #expire()}, not both.
	 * @return the lease, or empty for the default
	 */
	String expireString() default "";

	/**
	 * How long to wait for a taken lock, in {@link #timeUnit()}. Zero tries once;
	 * {@link #WAIT_INDEFINITELY} waits until the lock is ours. Unset ({@code -1}), the
	 * template's default wait time applies, or zero on a method that Spring's
	 * {@code @Scheduled} runs.
	 * @return the wait time, or {@code -1} for the default
	 * @see #waitTimeString()
	 */
	long waitTime() default -1;

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
	 * @return the wait strategy, or {@link Waiting#DEFAULT} for the template's default
	 */
	Waiting waitStrategy() default Waiting.DEFAULT;

	/**
	 * Whether the thread that holds the lock may take it again (for example through a
	 * call to another annotated method). When not reentrant, doing so fails at once with
	 * {@link LockSelfDeadlockException}.
	 * @return whether the lock is reentrant, or {@link Flag#DEFAULT} for the template's
	 * default
	 */
	Flag reentrant() default Flag.DEFAULT;

	/**
	 * Whether the wait time restarts each time the lock changes hands while we wait.
	 * @return whether the timeout is progress-aware, or {@link Flag#DEFAULT} for the
	 * template's default
	 */
	Flag progressAwareTimeout() default Flag.DEFAULT;

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
	 * @return whether the lease is renewed, or {@link Flag#DEFAULT} for the default
	 */
	Flag autoRenew() default Flag.DEFAULT;

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
	 * What to do when the lock is not acquired within the wait time. Unset
	 * ({@link OnTimeout#DEFAULT}), {@link OnTimeout#THROW}, or {@link OnTimeout#SKIP} on
	 * a method that Spring's {@code @Scheduled} runs.
	 * @return the behaviour on timeout
	 */
	OnTimeout onTimeout() default OnTimeout.DEFAULT;

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
		 * {@link #THROW}, or {@link #SKIP} on a method that Spring's {@code @Scheduled}
		 * runs. Settled when the method is checked at startup, so a
		 * {@link io.github.distributedlock.aop.LockTimeoutContext} never carries it.
		 */
		DEFAULT,

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
	 * A switch of the annotation that can be left to the template's defaults: the
	 * {@code boolean} of the matching {@code distributed-lock.*} property, plus
	 * {@link #DEFAULT} for "not set here". One type serves every such switch, since the
	 * attribute name already says what is switched.
	 */
	enum Flag {

		/**
		 * Not set here: the template's default applies.
		 */
		DEFAULT,

		/**
		 * On for this method, whatever the default.
		 */
		TRUE,

		/**
		 * Off for this method, whatever the default.
		 */
		FALSE

	}

	/**
	 * The {@link WaitStrategy} of an annotated method, or {@link #DEFAULT} for the
	 * template's. Each other constant means the {@link WaitStrategy} of the same name. It
	 * is a type of its own so that {@link WaitStrategy}, which {@link LockRequest} and
	 * {@link LockDefaults} take, never has a value that means "unset".
	 */
	public enum Waiting {

		/**
		 * Not set here: the template's default wait strategy applies.
		 */
		DEFAULT,

		/**
		 * {@link WaitStrategy#PUBSUB}.
		 */
		PUBSUB,

		/**
		 * {@link WaitStrategy#KEYSPACE_EVENTS}.
		 */
		KEYSPACE_EVENTS,

		/**
		 * {@link WaitStrategy#POLLING}.
		 */
		POLLING

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
