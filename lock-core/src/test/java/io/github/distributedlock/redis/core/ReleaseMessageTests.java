package io.github.distributedlock.redis.core;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every form of message on a lock's wait channels, and malformed ones.
 */
class ReleaseMessageTests {

	@Test
	void shouldReadAReleaseWithItsToken() {
		assertThat(parse("1700000000123456")).isEqualTo(new ReleaseMessage.Released(1700000000123456L));
		assertThat(parse("0")).isEqualTo(new ReleaseMessage.Released(0));
	}

	@Test
	void shouldReadAReservation() {
		ReleaseMessage message = parse("reserved:2000:0123456789abcdef.1f");
		assertThat(message).isEqualTo(new ReleaseMessage.Reserved("2000:0123456789abcdef.1f", 2000));
	}

	@Test
	void shouldReadTheNextFairWaiter() {
		assertThat(parse("next:instance-1:main")).isEqualTo(new ReleaseMessage.NextInLine("instance-1:main"));
		assertThat(parse("next:")).isEqualTo(new ReleaseMessage.NextInLine(""));
	}

	@Test
	void shouldReadTheFixedForms() {
		assertThat(parse("readers-left")).isInstanceOf(ReleaseMessage.ReadersLeft.class);
		assertThat(parse("permit")).isInstanceOf(ReleaseMessage.PermitReturned.class);
		assertThat(parse("forced")).isInstanceOf(ReleaseMessage.Forced.class);
		assertThat(parse("del")).isEqualTo(new ReleaseMessage.KeyGone("del"));
		assertThat(parse("expired")).isEqualTo(new ReleaseMessage.KeyGone("expired"));
		assertThat(parse("evicted")).isEqualTo(new ReleaseMessage.KeyGone("evicted"));
	}

	@Test
	void shouldTellOnlyOfAForcedReleaseOrAKeyGoneThatAHoldMayHaveEnded() {
		for (String body : new String[] { "forced", "del", "expired", "evicted" }) {
			assertThat(parse(body).mayEndAHold()).as(body).isTrue();
		}
		for (String body : new String[] { "42", "reserved:2000:r", "next:a", "readers-left", "permit", "intent-dropped",
				"hset", "expire" }) {
			assertThat(parse(body).mayEndAHold()).as(body).isFalse();
		}
	}

	@Test
	void shouldTakeMalformedMessagesForOthers() {
		for (String malformed : new String[] { "", "reserved:", "reserved:abc", "reserved:x1:id", "reserved::id",
				"reserved:1234567890123456789:id", "reserved:\u0661:id", "12a", "-5", "12345678901234567890",
				"readers-left ", "Forced", "hset", "expire", "perm" }) {
			assertThat(parse(malformed)).as("'%s'", malformed).isEqualTo(new ReleaseMessage.Other(malformed));
		}
	}

	@Test
	void shouldWakePubSubWaitersForEveryPlainMessage() {
		for (String body : new String[] { "42", "forced", "permit", "next:a", "del", "hset", "reserved:x" }) {
			assertThat(parse(body).wakes(false, false)).as(body).isTrue();
			assertThat(parse(body).wakes(false, true)).as(body).isTrue();
		}
		assertThat(parse("readers-left").wakes(false, false)).as("a writer").isTrue();
		assertThat(parse("readers-left").wakes(false, true)).as("a reader").isFalse();
	}

	@Test
	void shouldWakeKeyspaceWaitersOnlyWhenTheKeyIsGoneOrAFairWaiterIsNamed() {
		// The name comes after the key's del: only it wakes the named fair waiter.
		for (String body : new String[] { "del", "expired", "evicted", "next:a" }) {
			assertThat(parse(body).wakes(true, false)).as(body).isTrue();
		}
		for (String body : new String[] { "42", "forced", "permit", "readers-left", "hset", "expire" }) {
			assertThat(parse(body).wakes(true, false)).as(body).isFalse();
		}
	}

	@Test
	void shouldNeverWakeForAReservationNorCountItAsPlain() {
		ReleaseMessage reserved = parse("reserved:2000:id");
		assertThat(reserved.wakes(false, false)).isFalse();
		assertThat(reserved.wakes(true, false)).isFalse();
		assertThat(reserved.isPlain()).isFalse();
		assertThat(parse("next:a").isPlain()).isFalse();
		for (String body : new String[] { "42", "forced", "permit", "readers-left", "del", "hset" }) {
			assertThat(parse(body).isPlain()).as(body).isTrue();
		}
	}

	private static ReleaseMessage parse(String body) {
		return ReleaseMessage.parse(body.getBytes(StandardCharsets.UTF_8));
	}

}
