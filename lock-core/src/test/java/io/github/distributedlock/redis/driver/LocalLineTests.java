package io.github.distributedlock.redis.driver;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a {@link LocalLine} counts as a loss beside the messages its {@code WaitLine}
 * hears: the gaps in its subscription, in which a forced release or a key gone may have
 * been missed (docs/design/cohorting.md, rule 4). No Redis: the line is told of its
 * subscription as a port would tell it.
 */
class LocalLineTests {

	@Test
	void aResubscriptionAndALostSubscriptionCountAsLossesAndTheFirstSubscriptionDoesNot() {
		LocalLine line = new LocalLine("q", System::nanoTime, false, false);
		line.subscribed();
		assertThat(line.line().losses()).as("after the first subscription").isZero();
		line.onMessage("41".getBytes(StandardCharsets.US_ASCII));
		assertThat(line.line().losses()).as("after a release").isZero();
		line.subscribed();
		long resubscribed = line.line().losses();
		assertThat(resubscribed).as("after a re-subscription").isPositive();
		line.lostSubscription();
		long lost = line.line().losses();
		assertThat(lost).as("after the subscription was lost").isGreaterThan(resubscribed);
		line.onMessage("forced".getBytes(StandardCharsets.US_ASCII));
		assertThat(line.line().losses()).as("after a forced release").isGreaterThan(lost);
	}

}
