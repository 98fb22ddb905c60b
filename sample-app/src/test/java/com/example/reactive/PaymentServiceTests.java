package com.example.reactive;

import java.time.Duration;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.ReactiveLockContext;
import io.github.distributedlock.autoconfigure.DistributedLockAspectAutoConfiguration;
import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration;
import io.github.distributedlock.autoconfigure.DistributedLockReactiveAutoConfiguration;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's reactive example runs as shown, on a real redis-server: both the template
 * and the annotated {@code Mono} method hold the lock while the gateway is called, and
 * release it when the {@code Mono} completes.
 */
class PaymentServiceTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldHoldThePaymentLockWhileTheGatewayIsCalled() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DistributedLockAutoConfiguration.class, DistributedLockReactiveAutoConfiguration.class,
					DistributedLockAspectAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.server().host(),
					"spring.data.redis.port=" + redis.server().port(), "spring.data.redis.timeout=2s")
			.withBean(LockedGateway.class)
			.withBean(PaymentService.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LockTemplate locks = context.getBean(LockTemplate.class);
				PaymentService payments = context.getBean(PaymentService.class);
				Receipt paid = payments.pay("order-1").block(Duration.ofSeconds(10));
				Receipt refunded = payments.refund("order-1").block(Duration.ofSeconds(10));
				assertThat(paid).isNotNull();
				assertThat(refunded).isNotNull();
				assertThat(refunded.fencingToken()).isGreaterThan(paid.fencingToken());
				assertThat(locks.isLocked("payment", "order-1")).as("released when the Mono completed").isFalse();
			});
	}

	/**
	 * A gateway that answers with the token it was given, once it has checked with Redis
	 * that the payment lock it runs under is held.
	 */
	static class LockedGateway implements PaymentGateway {

		@Override
		public Mono<Receipt> charge(String orderId, long fencingToken) {
			return answer(orderId, fencingToken);
		}

		@Override
		public Mono<Receipt> refund(String orderId, long fencingToken) {
			return answer(orderId, fencingToken);
		}

		private Mono<Receipt> answer(String orderId, long fencingToken) {
			return ReactiveLockContext.current().flatMap((lock) -> {
				assertThat(lock.name()).isEqualTo(LockName.of("payment", orderId));
				assertThat(lock.fencingToken()).isEqualTo(fencingToken);
				return lock.isHeld();
			}).map((held) -> {
				assertThat(held).as("the lock is held in Redis while the gateway is called").isTrue();
				return new Receipt(orderId, fencingToken);
			});
		}

	}

}
