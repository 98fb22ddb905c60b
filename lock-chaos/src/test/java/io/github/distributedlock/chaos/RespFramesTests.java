package io.github.distributedlock.chaos;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The proxy's framing of RESP, which decides which reply answers which command: frames
 * split over chunks anywhere, RESP3 types, and pushes that answer no command.
 */
class RespFramesTests {

	@Test
	void shouldFindCommandsSplitAnywhereAcrossChunks() {
		String sent = command("HELLO", "3") + command("EVALSHA", "abc", "1", "k", "a\r\nb") + command("PING");
		RespFrames frames = RespFrames.commands();
		List<String> seen = new ArrayList<>();
		for (byte b : sent.getBytes(StandardCharsets.UTF_8)) {
			frames.scan(new byte[] { b }, (index, end, args) -> {
				assertThat(end).as("the end of a frame completed by a one-byte chunk").isEqualTo(1);
				seen.add(index + ":" + String.join(",", args.stream().map(String::new).toList()));
				return true;
			});
		}
		assertThat(seen).containsExactly("0:HELLO,3", "1:EVALSHA,abc,1,k,a\r\nb", "2:PING");
	}

	@Test
	void shouldCountRepliesOfEveryTypeButNotPushesOrAttributes() {
		String replies = "%2\r\n+server\r\n$5\r\nredis\r\n+proto\r\n:3\r\n" // HELLO's map
				+ ">3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nm\r\n" // a push
				+ "*3\r\n:1\r\n$-1\r\n*2\r\n_\r\n,1.5\r\n" // nested, nulls, a double
				+ "|1\r\n+ttl\r\n:3600\r\n#t\r\n" // an attribute, then a boolean
				+ "-ERR no\r\n=7\r\ntxt:abc\r\n(12345\r\n~1\r\n!3\r\nbad\r\n";
		byte[] bytes = replies.getBytes(StandardCharsets.UTF_8);
		RespFrames frames = RespFrames.replies();
		List<Integer> ends = new ArrayList<>();
		frames.scan(bytes, (index, end, args) -> {
			assertThat(index).isEqualTo(ends.size());
			ends.add(end);
			return true;
		});
		assertThat(frames.count()).isEqualTo(7);
		assertThat(frames.broken()).isFalse();
		assertThat(ends.get(1)).as("the end of the array after the push").isEqualTo(replies.indexOf("|1"));
	}

	@Test
	void shouldStopAtTheFrameTheSinkStopsAt() {
		RespFrames frames = RespFrames.replies();
		byte[] bytes = "+OK\r\n:1\r\n:2\r\n".getBytes(StandardCharsets.UTF_8);
		frames.scan(bytes, (index, end, args) -> index < 1);
		assertThat(frames.count()).isEqualTo(2);
	}

	@Test
	void shouldGiveUpOnBytesThatAreNotResp() {
		RespFrames frames = RespFrames.replies();
		frames.scan("+OK\r\nnot resp\r\n".getBytes(StandardCharsets.UTF_8), (index, end, args) -> true);
		frames.scan(":1\r\n".getBytes(StandardCharsets.UTF_8), (index, end, args) -> true);
		assertThat(frames.broken()).isTrue();
		assertThat(frames.count()).isEqualTo(1);
	}

	private static String command(String... args) {
		StringBuilder command = new StringBuilder("*").append(args.length).append("\r\n");
		for (String arg : args) {
			command.append('$')
				.append(arg.getBytes(StandardCharsets.UTF_8).length)
				.append("\r\n")
				.append(arg)
				.append("\r\n");
		}
		return command.toString();
	}

}
