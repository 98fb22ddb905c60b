package io.github.distributedlock.kotlin

import io.github.distributedlock.DistributedLock
import io.github.distributedlock.DistributedLock.Flag
import io.github.distributedlock.DistributedLock.OnTimeout
import io.github.distributedlock.LeaseLossPolicy
import io.github.distributedlock.LockLeaseLostException
import io.github.distributedlock.LockName
import io.github.distributedlock.LockRequest
import io.github.distributedlock.LockTemplate
import io.github.distributedlock.LockTimeoutException
import io.github.distributedlock.ReactiveLockContext
import io.github.distributedlock.ReactiveLockHandle
import io.github.distributedlock.ReactiveLockTemplate
import io.github.distributedlock.aop.DistributedLockAspectConfiguration
import io.github.distributedlock.redis.ReactiveRedisLockTemplate
import io.github.distributedlock.redis.RedisLockTemplate
import io.github.distributedlock.test.RedisServer
import io.github.distributedlock.test.RedisServerExtension
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.launch
import kotlinx.coroutines.reactor.ReactorContext
import kotlinx.coroutines.reactor.awaitSingle
import kotlinx.coroutines.reactor.awaitSingleOrNull
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith
import org.springframework.aop.config.AopConfigUtils
import org.springframework.aop.support.AopUtils
import org.springframework.context.annotation.AnnotationConfigApplicationContext
import org.springframework.data.redis.connection.RedisStandaloneConfiguration
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory
import java.time.Duration
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import java.util.function.Supplier

/**
 * `@DistributedLock` on Kotlin suspend functions, which Spring AOP runs as a `Mono`: the
 * lock is held until the function returns, its hold is in the coroutine's Reactor context,
 * SKIP returns null, THROW throws, cancelling the coroutine releases the lock, and a lost
 * lease cancels the coroutine under `onLeaseLost = INTERRUPT`.
 */
@ExtendWith(RedisServerExtension::class)
class SuspendLockedFunctionTests {

	private lateinit var server: RedisServer

	private lateinit var connectionFactory: LettuceConnectionFactory

	private lateinit var template: RedisLockTemplate

	private lateinit var reactiveTemplate: ReactiveRedisLockTemplate

	private lateinit var context: AnnotationConfigApplicationContext

	private lateinit var jobs: Jobs

	@BeforeEach
	fun start(server: RedisServer) {
		this.server = server
		Jobs.reset()
		connectionFactory = LettuceConnectionFactory(RedisStandaloneConfiguration(server.host(), server.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build())
		connectionFactory.afterPropertiesSet()
		connectionFactory.start()
		template = RedisLockTemplate.builder(connectionFactory).build()
		reactiveTemplate = ReactiveRedisLockTemplate.builder(connectionFactory).build()
		context = AnnotationConfigApplicationContext()
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(context)
		context.registerBean(LockTemplate::class.java, Supplier<LockTemplate> { template })
		context.registerBean(ReactiveLockTemplate::class.java, Supplier<ReactiveLockTemplate> { reactiveTemplate })
		context.register(DistributedLockAspectConfiguration::class.java, Jobs::class.java)
		context.refresh()
		jobs = context.getBean(Jobs::class.java)
		assertThat(AopUtils.isAopProxy(jobs)).isTrue()
	}

	@AfterEach
	fun stop() {
		context.close()
		reactiveTemplate.close()
		template.close()
		connectionFactory.destroy()
	}

	private fun hold(key: String): ReactiveLockHandle =
		reactiveTemplate.acquire(LockRequest.of("jobs", key)).block(Duration.ofSeconds(30))!!

	private suspend fun isFree(key: String): Boolean {
		val once = LockRequest.builder("jobs").key(key).waitTime(Duration.ZERO).build()
		val handle = reactiveTemplate.tryAcquire(once).awaitSingleOrNull() ?: return false
		handle.release().awaitSingleOrNull()
		return true
	}

	@Test
	fun shouldNeverOverlapConcurrentCoroutines(): Unit = runBlocking {
		val tokens = (1..20).map { async(Dispatchers.Default) { jobs.run("a") } }.awaitAll()
		assertThat(tokens).hasSize(20).doesNotHaveDuplicates()
		assertThat(Jobs.maxInside).hasValue(1)
		assertThat(Jobs.calls).hasValue(20)
	}

	@Test
	fun shouldSeeTheHoldsFencingTokenInsideTheSuspendFunction(): Unit = runBlocking {
		val (fromReactiveLockContext, fromReactorContext) = jobs.tokens("token")
		assertThat(fromReactiveLockContext).isPositive().isEqualTo(fromReactorContext)
		assertThat(ReactiveLockContext.find().awaitSingleOrNull()).isNull()
	}

	@Test
	fun shouldReturnNullOnSkipAndThrowOnThrowWhileTheLockIsTaken(): Unit = runBlocking {
		val held = hold("busy")
		assertThat(jobs.skip("busy")).isNull()
		val timeout = runCatching { jobs.strict("busy") }.exceptionOrNull()
		assertThat(timeout).isInstanceOf(LockTimeoutException::class.java)
		assertThat(Jobs.calls).hasValue(0)
		held.release().awaitSingleOrNull()
		assertThat(jobs.skip("busy")).isEqualTo("ran")
		assertThat(jobs.strict("busy")).isEqualTo("ran")
		// Released before the function's caller resumes.
		assertThat(isFree("busy")).isTrue()
	}

	@Test
	fun shouldReleaseTheLockWhenTheCoroutineIsCancelledWhileHoldingIt(): Unit = runBlocking {
		val holder = launch(Dispatchers.Default) { jobs.forever("cancel") }
		withTimeout(30_000) { Jobs.entered.await() }
		assertThat(isFree("cancel")).isFalse()
		holder.cancelAndJoin()
		withTimeout(30_000) {
			while (!isFree("cancel")) {
				delay(10)
			}
		}
		// The function's coroutine is cancelled on its own dispatcher, and the lock may be
		// released before its finally block runs (a clean-clone CI run): it does run.
		withTimeout(5_000) {
			while (!Jobs.cancelled.get()) {
				delay(10)
			}
		}
		assertThat(Jobs.cancelled).isTrue()
	}

	@Test
	fun shouldCancelTheCoroutineAndThrowLockLeaseLostExceptionWhenItsLeaseIsLost(): Unit = runBlocking {
		val call = async(Dispatchers.Default) { runCatching { jobs.interruptible("lost") }.exceptionOrNull() }
		withTimeout(30_000) {
			while (!Jobs.entered.isCompleted) {
				if (call.isCompleted) {
					throw AssertionError("the call ended before entering the function", call.await())
				}
				delay(10)
			}
		}
		// Let a renewal go through, then lose the lock behind the holder's back.
		delay(300)
		server.command("DEL", template.lockKey(LockName.of("jobs", "lost")))
		val failure = withTimeout(5_000) { call.await() }
		assertThat(failure).isInstanceOf(LockLeaseLostException::class.java)
		// The function's coroutine runs on the caller's dispatcher (Spring AOP keeps the
		// caller's context), so its cancellation is dispatched there: it may end after the
		// caller has the exception (a clean-clone CI run), but it does end.
		withTimeout(5_000) { Jobs.cancellation.await() }
		assertThat(Jobs.cancelled).`as`("the function's coroutine was cancelled").isTrue()
	}

	@Test
	fun shouldRefuseFallbackAFlowSkipOnANonNullResultOrAMissingReactiveLockTemplateAtStartupNamingTheMethod() {
		val broken = AnnotationConfigApplicationContext()
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(broken)
		broken.registerBean(LockTemplate::class.java, Supplier<LockTemplate> { template })
		broken.register(DistributedLockAspectConfiguration::class.java, Refused::class.java)
		assertThatExceptionOfType(Exception::class.java).isThrownBy { broken.refresh() }
			.withStackTraceContaining("Refused.run(String, Continuation)")
			.withStackTraceContaining("onTimeout = FALLBACK is not supported")
			.withStackTraceContaining("Refused.flow(Continuation): is a Kotlin suspend function returning Flow")
			.withStackTraceContaining("Refused.skipped(Continuation): is a Kotlin suspend function returning the "
					+ "non-null String, so onTimeout = SKIP, which returns null, would break its type")
			.withStackTraceContaining("is a Kotlin suspend function, whose lock is held through a ReactiveLockTemplate, "
					+ "but the context has no ReactiveLockTemplate bean")
		broken.close()
	}

	open class Jobs {

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 30)
		open suspend fun run(id: String): Long {
			calls.incrementAndGet()
			val token = ReactiveLockContext.current().awaitSingle().fencingToken()
			maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max)
			delay(2)
			inside.decrementAndGet()
			return token
		}

		@DistributedLock(scope = "jobs", key = "#id")
		open suspend fun tokens(id: String): Pair<Long, Long> {
			val fromReactiveLockContext = ReactiveLockContext.current().awaitSingle().fencingToken()
			val reactor = currentCoroutineContext()[ReactorContext]!!.context
			val fromReactorContext = reactor.get(ReactiveLockContext::class.java).fencingToken()
			return fromReactiveLockContext to fromReactorContext
		}

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 0, onTimeout = OnTimeout.SKIP)
		open suspend fun skip(id: String): String? {
			calls.incrementAndGet()
			delay(1)
			return "ran"
		}

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 0)
		open suspend fun strict(id: String): String {
			calls.incrementAndGet()
			return "ran"
		}

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 0)
		open suspend fun forever(id: String) {
			try {
				entered.complete(Unit)
				awaitCancellation()
			}
			finally {
				cancelled.set(true)
			}
		}

		// A lease of 3 s, renewed every second: with 600 ms, renewals that fell behind on a loaded
		// machine let it run out before the function was entered (a clean-clone CI run).
		@DistributedLock(scope = "jobs", key = "#id", expireString = "3s", autoRenew = Flag.TRUE,
				onLeaseLost = LeaseLossPolicy.INTERRUPT)
		open suspend fun interruptible(id: String): String {
			entered.complete(Unit)
			try {
				delay(10_000)
				return "finished"
			}
			catch (ex: CancellationException) {
				cancelled.set(true)
				cancellation.complete(Unit)
				throw ex
			}
		}

		companion object {

			// In the companion: the test sees the bean through its proxy, whose fields are its own.
			val calls = AtomicInteger()

			val inside = AtomicInteger()

			val maxInside = AtomicInteger()

			val cancelled = AtomicBoolean()

			var entered = CompletableDeferred<Unit>()

			var cancellation = CompletableDeferred<Unit>()

			fun reset() {
				calls.set(0)
				inside.set(0)
				maxInside.set(0)
				cancelled.set(false)
				entered = CompletableDeferred()
				cancellation = CompletableDeferred()
			}

		}

	}

	open class Refused {

		@DistributedLock(scope = "jobs", key = "#id", onTimeout = OnTimeout.FALLBACK, fallback = "instead")
		open suspend fun run(id: String): String = "ran"

		open suspend fun instead(id: String): String = "fallback"

		@DistributedLock(scope = "jobs")
		open suspend fun flow(): Flow<String> = flowOf("ran")

		@DistributedLock(scope = "jobs", onTimeout = OnTimeout.SKIP)
		open suspend fun skipped(): String = "ran"

	}

}
