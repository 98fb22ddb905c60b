package io.github.distributedlock.simulation;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.test.RedisServerExtension;
import io.github.distributedlock.test.RespConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Holds the model's Lua environment and commands to a real redis-server, one snippet at a
 * time: the conversions between Lua values and replies, {@code redis.call} and
 * {@code redis.pcall} errors, {@code error_reply} and {@code status_reply}, Lua 5.1's
 * number formatting and {@code math.random}, and each command and option the scripts use,
 * with its edge cases and error replies. What the random calls of
 * {@link ScriptDifferentialTests} rarely reach (a score equal to an exclusive bound, an
 * error reply) is reached here on purpose. Snippets run in order on one keyspace, so
 * later ones see what earlier ones wrote; none reads a remaining time, which real time
 * would change. One snippet is left out on purpose: {@code error({'no err field'})} (an
 * error table without {@code err}) crashes redis-server 7.0.15.
 */
class SnippetDifferentialTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.dedicated()
		.since(7, "Holding the model to Redis 7.0's Lua, PEXPIRE flags and math.random");

	private static final List<String> KEYS = List.of("k:s", "k:h", "k:z", "k:x");

	private static final List<String> ARGV = List.of("a1", "a2");

	@Test
	void luaConversionsAgreeWithRedis() {
		assertAgree(List.of("return {1, 2.7, -3.9, 'x', true, false, nil, 5}", "return 3.99", "return -3.99",
				"return true", "return false", "return nil", "return {}", "return {{1, {2, 'a'}}, 'b', {}}",
				"return {err='bare'}", "return {ok='k'}", "return {err='ERR two\\nlines'}", "return {ok=1, 7}",
				"return {err=3, 8}", "return redis.error_reply('oops')", "return redis.error_reply('My Error')",
				"return redis.error_reply('-X y')", "return redis.error_reply(1)", "return redis.status_reply('FINE')",
				"return redis.status_reply()", "local t = redis.call('TIME') return type(t[1]) .. type(t[2]) .. #t",
				"return type(redis.call('GET', 'nokey'))", "return tostring(redis.call('GET', 'nokey'))",
				"return redis.call('SET', KEYS[1], 'v')", "local r = redis.call('SET', KEYS[1], 'v') return r.ok",
				"redis.call('HSET', KEYS[2], 'a', '1') return redis.call('HMGET', KEYS[2], 'a', 'b')",
				"return #KEYS .. ' ' .. #ARGV .. ' ' .. KEYS[1] .. ARGV[2]",
				"redis.log(redis.LOG_WARNING, 'from a snippet') return redis.LOG_NOTICE",
				"return redis.sha1hex('abc') .. redis.sha1hex('') .. redis.sha1hex(123)",
				"return {unpack({1, 2, 3})}"));
	}

	@Test
	void scriptErrorsAgreeWithRedis() {
		assertAgree(List.of("redis.call('HSET', KEYS[2], 'f', 'v') return redis.call('GET', KEYS[2])",
				"return redis.pcall('GET', KEYS[2])", "local r = redis.pcall('GET', KEYS[2]) return r['err']",
				"local x = 1\nlocal y = 2\nreturn redis.call('NOPE', KEYS[1])", "return redis.pcall('NOPE')",
				"return redis.call()", "return redis.pcall()", "return redis.call('SET', KEYS[1], {})",
				"return redis.pcall('SET', KEYS[1], true)", "return redis.call('HGET', KEYS[2])",
				"local function f()\n  return redis.call('HGET', KEYS[2])\nend\nlocal r = f()\nreturn r", "return x",
				"x = 1", "tostring = nil", "error({err='bare'})", "error({err='-CODE with dash'})", "error('boom')"));
	}

	@Test
	void luaNumbersAndLibrariesAgreeWithRedis() {
		assertAgree(List.of("redis.call('SET', KEYS[1], 1.5) return redis.call('GET', KEYS[1])",
				"redis.call('SET', KEYS[1], 12345678901234567) return redis.call('GET', KEYS[1])",
				"redis.call('SET', KEYS[1], 0.1) return redis.call('GET', KEYS[1])",
				"redis.call('SET', KEYS[1], 1e20) return redis.call('GET', KEYS[1])",
				"redis.call('SET', KEYS[1], 2^53) return redis.call('GET', KEYS[1])",
				"redis.call('SET', KEYS[1], -1/0) return redis.call('GET', KEYS[1])",
				"redis.call('SET', KEYS[1], 1e-7) return redis.call('GET', KEYS[1])",
				"return tostring(1e15) .. ' ' .. tostring(0.1) .. ' ' .. tostring(1/3) .. ' ' .. tostring(1/0)"
						+ " .. ' ' .. tostring(100) .. ' ' .. tostring(2^63) .. ' ' .. tostring(-2.5)",
				"return string.format('%.0f|%5.2f|%d|%x|%X|%o|%s|%q|%g|%g|%g|%e|%10.3s|%-5d|%+d|%05.1f|%#x|%c|%5s|%.3d|% d|%G',"
						+ " 1712345678901234, 3.14159, 42, 255, 255, 8, 'hi', 'a\\nb\"c\\\\', 0.1, 1e20, 123456789,"
						+ " 12345.6789, 'abcdef', 7, 7, 3.14159, 255, 65, 'x', 7, 7, 1e-5)",
				"return string.format('%.14g|%.17g|%g|%g|%g|%.3g|%#g|%.0e|%d', 0.1, 0.1, 100000, 1000000, 1e-4,"
						+ " 2.5e-5, 1.5, 12345, -7.9)",
				"return string.format('%.0f %.0f %.0f %.1f', 0.5, 1.5, 2.5, 0.25)",
				"return string.format('%s %s', 12, 1e100)",
				"return {tostring(math.random()), math.random(100), math.random(3, 9)}",
				"return {tostring(math.random()), math.random(100), math.random(3, 9)}",
				"math.randomseed(42) return {math.random(1000), math.random(1000)}",
				"return tonumber('0x10') .. ' ' .. tostring(tonumber('  12  ')) .. ' ' .. tostring(tonumber('1e3'))",
				"return string.match('2000:abc', '^(%d+):') .. string.sub('000000', 3) .. #'abc'",
				"local n = 0 for _ in string.gmatch(',a,bb,c,', ',[^,]+') do n = n + 1 end return n",
				"return math.floor(12345 / 1000) + math.max(1, 5) - math.min(2, 3)"));
	}

	@Test
	void sortedSetCommandsAgreeWithRedis() {
		assertAgree(List.of("return redis.call('ZADD', KEYS[3], 1, 'a', 2, 'b', 2, 'c', 3, 'd')",
				"return redis.call('ZRANGEBYSCORE', KEYS[3], '(2', '+inf', 'WITHSCORES')",
				"return redis.call('ZRANGEBYSCORE', KEYS[3], '(1', '(3')",
				"return redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(2')",
				"return redis.call('ZRANGEBYSCORE', KEYS[3], 2, 2, 'LIMIT', 1, 5)",
				"return redis.call('ZRANGEBYSCORE', KEYS[3], 3, 1)",
				"return {redis.call('ZCOUNT', KEYS[3], '(2', '+inf'), redis.call('ZCOUNT', KEYS[3], 2, 2)}",
				"return redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES')",
				"return {redis.call('ZRANGE', KEYS[3], -1, -1), redis.call('ZRANGE', KEYS[3], 1, 0),"
						+ " redis.call('ZRANGE', KEYS[3], -100, 100), redis.call('ZRANGE', KEYS[3], 0, -1, 'REV')}",
				"return redis.call('ZRANGE', KEYS[3], '(1', 3, 'BYSCORE', 'LIMIT', 1, 1)",
				"return redis.call('ZRANGE', KEYS[3], 3, 1, 'BYSCORE', 'REV', 'WITHSCORES')",
				"return {redis.call('ZRANK', KEYS[3], 'c'), redis.call('ZRANK', KEYS[3], 'zz'),"
						+ " redis.call('ZCARD', KEYS[3]), redis.call('ZSCORE', KEYS[3], 'd'), redis.call('ZSCORE', KEYS[3], 'zz')}",
				"return {redis.call('ZADD', KEYS[3], 'GT', 5, 'a'), redis.call('ZADD', KEYS[3], 'GT', 1, 'a'),"
						+ " redis.call('ZADD', KEYS[3], 'XX', 7, 'nope'), redis.call('ZADD', KEYS[3], 'GT', 7, 'new'),"
						+ " redis.call('ZADD', KEYS[3], 'GT', 'CH', 8, 'new'), redis.call('ZADD', KEYS[3], 'NX', 9, 'new'),"
						+ " redis.call('ZADD', KEYS[3], 'LT', 'CH', 0, 'b'), redis.call('ZADD', KEYS[3], 'XX', 'CH', 4, 'b', 4, 'q')}",
				"return {redis.call('ZADD', KEYS[3], 'INCR', 2.5, 'a'), redis.call('ZADD', KEYS[3], 'NX', 'INCR', 1, 'a'),"
						+ " redis.call('ZADD', KEYS[3], 'GT', 'INCR', -1, 'a')}",
				"return redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES')",
				"return redis.call('ZADD', KEYS[3], 'NX', 'XX', 1, 'a')",
				"return redis.call('ZADD', KEYS[3], 'GT', 'NX', 1, 'a')",
				"return redis.call('ZADD', KEYS[3], 'GT', 'LT', 1, 'a')",
				"return redis.call('ZADD', KEYS[3], 'INCR', 1, 'a', 2, 'b')",
				"return redis.call('ZADD', KEYS[3], 'abc', 'a')", "return redis.call('ZADD', KEYS[3], 1, 'a', 2)",
				"return redis.call('ZADD', KEYS[3], 'nan', 'a')", "return redis.call('ZADD', KEYS[3], '1e999', 'a')",
				"return redis.call('ZADD', KEYS[3], ' 1', 'a')", "return redis.call('ZADD', KEYS[3], '1 ', 'a')",
				"return redis.call('ZADD', KEYS[3], 'GT')",
				"return {redis.call('ZADD', KEYS[3], 'inf', 'i', '-inf', 'j', '1e300', 'k', '0.1', 'l', '-0.0', 'm',"
						+ " '1.5e-7', 'n', '+5', 'o', '.5', 'p', '5.', 'r'), redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES')}",
				"return {redis.call('ZADD', KEYS[3], 5, 'b', 5, 'a', 5, 'ab', 5, 'B', 5, ''), redis.call('ZRANGE', KEYS[3], 0, -1)}",
				"return redis.call('ZRANGEBYSCORE', KEYS[3], 'x', 1)",
				"return redis.call('ZRANGEBYSCORE', KEYS[3], '(x', 1)",
				"return redis.call('ZRANGEBYSCORE', KEYS[3], '(', 1)",
				"return redis.call('ZCOUNT', KEYS[3], '', '+inf')",
				"return redis.call('ZRANGEBYSCORE', KEYS[3], 'inf', '+inf', 'WITHSCORES')",
				"return redis.call('ZRANGE', KEYS[3], 0, 1, 'LIMIT', 0, 1)",
				"return redis.call('ZRANGE', KEYS[3], 0, 1, 'BOGUS')",
				"return redis.call('ZRANGEBYSCORE', KEYS[3], 0, 1, 'REV')",
				"return redis.call('ZRANGE', KEYS[3], 'a', 1)",
				"return redis.call('ZRANGEBYSCORE', KEYS[3], 0, 10, 'LIMIT', -1, 2)",
				"return redis.call('ZRANGEBYSCORE', KEYS[3], 0, 10, 'LIMIT', 1, -1)",
				"return {redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(2'), redis.call('ZRANGE', KEYS[3], 0, -1)}",
				"return {redis.call('ZREM', KEYS[3], 'b', 'b', 'zz'), redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '+inf'),"
						+ " redis.call('EXISTS', KEYS[3])}",
				"return {redis.call('ZADD', KEYS[3], 'XX', 1, 'a'), redis.call('EXISTS', KEYS[3])}",
				"return redis.call('ZADD', KEYS[2], 1, 'a')", "return redis.call('ZSCORE', KEYS[2], 'a')",
				"return redis.call('ZRANGE', KEYS[2], 0, -1)", "return redis.call('ZRANGE', KEYS[2], 'x', -1)",
				"return redis.call('ZREM', KEYS[4], 'a')",
				"return redis.call('ZRANGE', KEYS[4], 0, -1, 'WITHSCORES')"));
	}

	@Test
	void hashAndStringCommandsAgreeWithRedis() {
		assertAgree(List.of("return redis.call('HSET', KEYS[2], 'a', '1', 'b', '2', 'a', '3')",
				"return redis.call('HSET', KEYS[2], 'a', '1', 'b')",
				"return {redis.call('HSETNX', KEYS[2], 'a', 'x'),"
						+ " redis.call('HSETNX', KEYS[2], 'c', 'x'), redis.call('HGET', KEYS[2], 'c'), redis.call('HGET', KEYS[2], 'zz')}",
				"return {redis.call('HINCRBY', KEYS[2], 'n', 5), redis.call('HINCRBY', KEYS[2], 'n', -7),"
						+ " redis.call('HINCRBY', KEYS[2], 'a', 1)}",
				"return redis.call('HINCRBY', KEYS[2], 'c', 1)", "return redis.call('HINCRBY', KEYS[2], 'n', 'x')",
				"return redis.call('HINCRBY', KEYS[2], 'n', '+1')", "return redis.call('HINCRBY', KEYS[2], 'n', '01')",
				"return redis.call('HINCRBY', KEYS[2], 'n', '-0')",
				"return redis.call('HINCRBY', KEYS[2], 'n', '9223372036854775808')",
				"redis.call('HSET', KEYS[2], 'big', '9223372036854775807') return redis.call('HINCRBY', KEYS[2], 'big', 1)",
				"return {redis.call('HDEL', KEYS[2], 'a', 'a', 'zz'), redis.call('HKEYS', KEYS[2])}",
				"redis.call('HSET', KEYS[2], 'a', 'again', 'b', 'moved') return redis.call('HKEYS', KEYS[2])",
				"return {redis.call('HMGET', KEYS[4], 'a'), redis.call('HKEYS', KEYS[4]), redis.call('HGET', KEYS[4], 'a')}",
				"return {redis.call('HDEL', KEYS[2], 'b', 'c', 'n', 'big', 'a'), redis.call('EXISTS', KEYS[2])}",
				"return {redis.call('SET', KEYS[1], 'v', 'NX'), redis.call('SET', KEYS[1], 'w', 'XX', 'GET'),"
						+ " redis.call('SET', KEYS[4], 'w', 'XX'), redis.call('SET', KEYS[4], 'w', 'XX', 'GET'),"
						+ " redis.call('SET', KEYS[1], 'x', 'NX', 'GET'), redis.call('GET', KEYS[1])}",
				"return {redis.call('SET', KEYS[1], 'p', 'PX', 100000, 'GET'), redis.call('SET', KEYS[1], 'q', 'KEEPTTL'),"
						+ " redis.call('SET', KEYS[1], 'r', 'EX', 100, 'EX', 200), redis.call('DEL', KEYS[1])}",
				"return redis.call('SET', KEYS[1], 'w', 'PX', 0)", "return redis.call('SET', KEYS[1], 'w', 'PX', -1)",
				"return redis.call('SET', KEYS[1], 'w', 'PX', 'a')",
				"return redis.call('SET', KEYS[1], 'w', 'NX', 'XX')", "return redis.call('SET', KEYS[1], 'w', 'BOGUS')",
				"return redis.call('SET', KEYS[1], 'w', 'EX', 1, 'PX', 1)",
				"return redis.call('SET', KEYS[1], 'w', 'KEEPTTL', 'PX', 1)",
				"return redis.call('SET', KEYS[1], 'w', 'PX')",
				"redis.call('HSET', KEYS[2], 'f', 'v') return redis.call('SET', KEYS[2], 'w', 'GET')",
				"return redis.call('TYPE', KEYS[2])",
				"return {redis.call('SET', KEYS[2], 'w'), redis.call('TYPE', KEYS[2]), redis.call('GET', KEYS[2])}",
				"redis.call('HSET', KEYS[3], 'f', 'v') return redis.call('GET', KEYS[3])"));
	}

	@Test
	void keyCommandsAgreeWithRedis() {
		assertAgree(List.of("redis.call('SET', KEYS[1], 'v') redis.call('SET', KEYS[4], 'v')"
				+ " return {redis.call('EXISTS', KEYS[1], KEYS[1], KEYS[2]), redis.call('DEL', KEYS[1], KEYS[1], KEYS[4], KEYS[2])}",
				"redis.call('SET', KEYS[1], 'v') return {redis.call('PEXPIRE', KEYS[1], 100000, 'XX'),"
						+ " redis.call('PEXPIRE', KEYS[1], 100000, 'GT'), redis.call('PEXPIRE', KEYS[1], 100000, 'LT'),"
						+ " redis.call('PEXPIRE', KEYS[1], 200000, 'NX'), redis.call('PEXPIRE', KEYS[1], 300000, 'NX'),"
						+ " redis.call('PEXPIRE', KEYS[1], 400000, 'GT'), redis.call('PEXPIRE', KEYS[1], 500000, 'LT'),"
						+ " redis.call('PEXPIRE', KEYS[1], 100000, 'XX', 'LT'), redis.call('PEXPIRE', KEYS[4], 100)}",
				"return redis.call('PEXPIRE', KEYS[1], 1, 'NX', 'XX')",
				"return redis.call('PEXPIRE', KEYS[1], 1, 'GT', 'LT')",
				"return redis.call('PEXPIRE', KEYS[1], 1, 'BOGUS')", "return redis.call('PEXPIRE', KEYS[1], 'x')",
				"return redis.call('PEXPIRE', KEYS[1], '9223372036854775807')",
				"return {redis.call('PEXPIRE', KEYS[1], -1), redis.call('EXISTS', KEYS[1])}",
				"redis.call('SET', KEYS[1], 'v') return {redis.call('PEXPIRE', KEYS[1], 0), redis.call('EXISTS', KEYS[1])}",
				"redis.call('SET', KEYS[1], 'v') return {redis.call('PTTL', KEYS[1]), redis.call('PTTL', KEYS[4]),"
						+ " redis.call('PEXPIRETIME', KEYS[1]), redis.call('PEXPIRETIME', KEYS[4])}",
				"return {redis.call('TYPE', KEYS[1]), redis.call('TYPE', KEYS[4]), redis.call('PUBLISH', 'nobody', 'm')}",
				"return redis.call('TIME', 'x')", "return redis.call('DEL')"));
	}

	/**
	 * A script that waits 20 ms: a key set to expire 2 ms after its start still exists at
	 * its end (expiry reads the time the script started), while {@code PTTL} and
	 * {@code PEXPIRE} read the running clock (Redis 7.0): a key given 15 ms at the end is
	 * kept, where from the script's start it would be past. A server descheduled inside
	 * {@code PEXPIRE} for as long as the expiry given finds the key already expired and
	 * deletes it (seen with 1 ms on a loaded machine): hence 15 ms. The model's clock
	 * moves 100 µs per command of a script, so its loop ends too.
	 */
	@Test
	void timeDuringAScriptAgreesWithRedis() {
		String snippet = """
				local function now()
					local t = redis.call('TIME')
					return tonumber(t[1]) * 1000000 + tonumber(t[2])
				end
				redis.call('SET', KEYS[1], 'v', 'PX', 2)
				redis.call('SET', KEYS[4], 'v')
				local start = now()
				while now() - start < 20000 do
				end
				local pttl = redis.call('PTTL', KEYS[1])
				local set = redis.call('PEXPIRE', KEYS[4], 15)
				return {redis.call('EXISTS', KEYS[1]), pttl, set, redis.call('EXISTS', KEYS[4])}
				""";
		try (RespConnection real = redis.server().connect()) {
			real.command("FLUSHALL");
			List<String> eval = new ArrayList<>(List.of("EVAL", snippet, Integer.toString(KEYS.size())));
			eval.addAll(KEYS);
			Object expected = CallReplay.normalize(real.command(eval.toArray(new String[0])));
			RedisModel model = new RedisModel(new VirtualClock(micros(real) * 1000));
			model.scriptCommandNanos(100_000);
			assertThat(CallReplay.normalize(model.evalText(snippet, KEYS, List.of()))).isEqualTo(expected)
				.isEqualTo(List.of(1L, 0L, 1L, 1L));
		}
	}

	@Test
	void plainCommandsAgreeWithRedis() {
		List<List<String>> commands = List.of(List.of("HSET", "k:h", "a"), List.of("NOPE", "x", "y"),
				List.of("hset", "k:h", "a", "1"), List.of("HMGET", "k:h", "a", "b"), List.of("EXISTS", "k:h", "k:x"),
				List.of("GET", "k:h"), List.of("Get", "k:x"), List.of("ZADD", "k:z", "1", "a"),
				List.of("ZRANGE", "k:z", "0", "-1", "WITHSCORES"), List.of("DEL", "k:h", "k:z"));
		try (RespConnection real = redis.server().connect()) {
			real.command("FLUSHALL");
			RedisModel model = new RedisModel(new VirtualClock(micros(real) * 1000));
			List<String> differences = new ArrayList<>();
			for (List<String> command : commands) {
				Object expected = CallReplay.normalize(real.command(command.toArray(new String[0])));
				Object actual = CallReplay.normalize(model.command(command.toArray(new String[0])));
				if (!java.util.Objects.equals(expected, actual)) {
					differences
						.add(command + ": Redis " + Replies.describe(expected) + ", model " + Replies.describe(actual));
				}
			}
			assertThat(differences).as("commands where the model differs").isEmpty();
		}
	}

	/**
	 * The keyspace events of the {@code g} and {@code x} classes ({@code Kgx}) that the
	 * scripts' commands publish, in order with a script's own {@code PUBLISH}: each
	 * snippet's messages must be the same. Then Redis's active expiry: a key that expires
	 * while nobody looks it up publishes {@code expired} once the cycle finds it (within
	 * a few of its runs, ten a second), as the model's {@link RedisModel#expireDue()}
	 * does.
	 */
	@Test
	void keyspaceEventsAgreeWithRedis() throws Exception {
		List<String> snippets = List.of(
				"redis.call('SET', KEYS[1], 'v', 'PX', 100000) redis.call('SET', KEYS[1], 'w')"
						+ " redis.call('SET', KEYS[1], 'x', 'EX', 100, 'NX') redis.call('SET', KEYS[1], 'y', 'KEEPTTL')"
						+ " return redis.call('PUBLISH', '__keyspace@0__:' .. KEYS[1], 'mine')",
				"redis.call('HSET', KEYS[2], 'a', '1', 'b', '2') redis.call('PEXPIRE', KEYS[2], 100000)"
						+ " redis.call('PEXPIRE', KEYS[2], 200000, 'NX') redis.call('PEXPIRE', KEYS[2], 300000, 'GT')"
						+ " redis.call('HDEL', KEYS[2], 'a') redis.call('PUBLISH', 'other', 'x')"
						+ " return redis.call('HDEL', KEYS[2], 'b', 'c')",
				"redis.call('ZADD', KEYS[3], 1, 'a', 2, 'b') redis.call('ZREM', KEYS[3], 'a')"
						+ " redis.call('ZREM', KEYS[3], 'b') redis.call('ZADD', KEYS[3], 1, 'a', 2, 'b')"
						+ " redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', 1)"
						+ " return redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '+inf')",
				"redis.call('SET', KEYS[1], 'v') redis.call('SET', KEYS[4], 'v') redis.call('PEXPIRE', KEYS[2], 10)"
						+ " redis.call('PEXPIRE', KEYS[1], 0) redis.call('PEXPIRE', KEYS[1], -5)"
						+ " return redis.call('DEL', KEYS[4], KEYS[4], KEYS[2], KEYS[3])",
				"redis.call('HSET', KEYS[2], 'a', '1') redis.call('HINCRBY', KEYS[2], 'n', 1)"
						+ " redis.call('ZADD', KEYS[3], 1, 'a') redis.call('ZADD', KEYS[3], 'XX', 2, 'b')"
						+ " return redis.call('DEL', KEYS[2], KEYS[3])");
		try (RespConnection real = redis.server().connect(); RespConnection listener = redis.server().connect()) {
			real.command("FLUSHALL");
			real.command("CONFIG", "SET", "notify-keyspace-events", "Kgx");
			List<String> channels = new ArrayList<>(List.of("SUBSCRIBE", "sim:marker", "other"));
			KEYS.forEach((key) -> channels.add(CommandContext.keyspaceChannel(key)));
			listener.send(channels.toArray(new String[0]));
			for (int i = 1; i < channels.size(); i++) {
				listener.awaitNext();
			}
			VirtualClock clock = new VirtualClock(micros(real) * 1000);
			RedisModel model = new RedisModel(clock);
			model.keyspaceEvents(true);
			model.pubSub().subscribe("listener", channels.subList(1, channels.size()).toArray(new String[0]));
			List<String> differences = new ArrayList<>();
			int marker = 0;
			for (String snippet : snippets) {
				List<String> eval = new ArrayList<>(List.of("EVAL", snippet, Integer.toString(KEYS.size())));
				eval.addAll(KEYS);
				real.command(eval.toArray(new String[0]));
				List<String> expected = messagesUntil(real, listener, ++marker);
				clock.advanceTo(Math.max(clock.nanos(), micros(real) * 1000));
				model.evalText(snippet, KEYS, List.of());
				List<String> actual = drain(model);
				if (!expected.equals(actual)) {
					differences.add(snippet + "\n    Redis " + expected + "\n    model " + actual);
				}
			}
			assertThat(differences).as("snippets whose keyspace events differ").isEmpty();
			real.command("SET", "k:x", "v", "PX", "1");
			model.command("SET", "k:x", "v", "PX", "1");
			Thread.sleep(500);
			clock.advanceTo(micros(real) * 1000);
			assertThat(model.expireDue()).isOne();
			assertThat(messagesUntil(real, listener, ++marker)).as("the active expiry's events")
				.containsExactly("__keyspace@0__:k:x expire", "__keyspace@0__:k:x expired")
				.isEqualTo(drain(model));
		}
	}

	private static List<String> messagesUntil(RespConnection real, RespConnection listener, int marker)
			throws java.io.IOException {
		real.command("PUBLISH", "sim:marker", Integer.toString(marker));
		List<String> messages = new ArrayList<>();
		while (true) {
			List<?> message = (List<?>) listener.awaitNext();
			if (message.get(1).equals("sim:marker") && message.get(2).equals(Integer.toString(marker))) {
				return messages;
			}
			messages.add(message.get(1) + " " + message.get(2));
		}
	}

	private static List<String> drain(RedisModel model) {
		List<String> messages = new ArrayList<>();
		model.pubSub().drain().forEach((delivery) -> messages.add(delivery.channel() + " " + delivery.message()));
		return messages;
	}

	/**
	 * Run snippets in order on a flushed real server and a new model, and assert that
	 * every reply is the same.
	 */
	private static void assertAgree(List<String> snippets) {
		try (RespConnection real = redis.server().connect()) {
			real.command("FLUSHALL");
			VirtualClock clock = new VirtualClock(micros(real) * 1000);
			RedisModel model = new RedisModel(clock);
			List<String> differences = new ArrayList<>();
			for (String snippet : snippets) {
				List<String> eval = new ArrayList<>(List.of("EVAL", snippet, Integer.toString(KEYS.size())));
				eval.addAll(KEYS);
				eval.addAll(ARGV);
				Object expected = CallReplay.normalize(real.command(eval.toArray(new String[0])));
				clock.advanceTo(Math.max(clock.nanos(), micros(real) * 1000));
				Object actual = CallReplay.normalize(model.evalText(snippet, KEYS, ARGV));
				if (!java.util.Objects.equals(expected, actual)) {
					differences.add(snippet + "\n    Redis " + Replies.describe(expected) + "\n    model "
							+ Replies.describe(actual));
				}
			}
			assertThat(differences).as("snippets where the model differs").isEmpty();
		}
	}

	private static long micros(RespConnection real) {
		List<?> time = (List<?>) real.command("TIME");
		return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
	}

}
