package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;

/**
 * Gives Lettuce's client resources an exponential reconnect delay, as Lettuce's own, with
 * a lower cap: 1 ms, 2 ms, 4 ms and so on, never more than the maximum.
 */
final class LettuceReconnectDelay implements ClientResourcesBuilderCustomizer {

	private final Duration max;

	LettuceReconnectDelay(Duration max) {
		this.max = max;
	}

	@Override
	public void customize(ClientResources.Builder builder) {
		builder.reconnectDelay(Delay.exponential(Duration.ZERO, this.max, 2, TimeUnit.MILLISECONDS));
	}

}
