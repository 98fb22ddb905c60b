package io.github.distributedlock.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * The sorted-set commands the scripts use, as Redis 7.0 parses and runs them:
 * {@code ZADD} (with {@code NX}, {@code XX}, {@code GT}, {@code LT}, {@code CH},
 * {@code INCR}), {@code ZSCORE}, {@code ZREM}, {@code ZRANGE} (by rank or
 * {@code BYSCORE}, {@code REV}, {@code LIMIT}, {@code WITHSCORES}; not {@code BYLEX}),
 * {@code ZRANGEBYSCORE}, {@code ZREMRANGEBYSCORE}, {@code ZRANK}, {@code ZCOUNT} and
 * {@code ZCARD}. A set left empty is deleted, with the keyspace event {@code del}.
 */
final class SortedSetCommands {

	private static final String NOT_A_FLOAT_RANGE = "ERR min or max is not a float";

	private SortedSetCommands() {
	}

	static void register(CommandTable table) {
		table.add("ZADD", -4, SortedSetCommands::zadd);
		table.add("ZSCORE", 3, SortedSetCommands::zscore);
		table.add("ZREM", -3, SortedSetCommands::zrem);
		table.add("ZRANGE", -4, (context, argv) -> zrange(context, argv, false));
		table.add("ZRANGEBYSCORE", -4, (context, argv) -> zrange(context, argv, true));
		table.add("ZREMRANGEBYSCORE", 4, SortedSetCommands::zremrangebyscore);
		table.add("ZRANK", 3, SortedSetCommands::zrank);
		table.add("ZCOUNT", 4, SortedSetCommands::zcount);
		table.add("ZCARD", 2, SortedSetCommands::zcard);
	}

	private static @Nullable Object zadd(CommandContext context, String[] argv) {
		boolean nx = false;
		boolean xx = false;
		boolean gt = false;
		boolean lt = false;
		boolean ch = false;
		boolean incr = false;
		int at = 2;
		for (; at < argv.length; at++) {
			switch (argv[at].toUpperCase(Locale.ROOT)) {
				case "NX" -> nx = true;
				case "XX" -> xx = true;
				case "GT" -> gt = true;
				case "LT" -> lt = true;
				case "CH" -> ch = true;
				case "INCR" -> incr = true;
				default -> {
					// The first score.
					return zadd(context, argv, at, nx, xx, gt, lt, ch, incr);
				}
			}
		}
		throw CommandError.syntax();
	}

	private static @Nullable Object zadd(CommandContext context, String[] argv, int first, boolean nx, boolean xx,
			boolean gt, boolean lt, boolean ch, boolean incr) {
		int elements = argv.length - first;
		if (elements == 0 || elements % 2 != 0) {
			throw CommandError.syntax();
		}
		if (nx && xx) {
			throw new CommandError("ERR XX and NX options at the same time are not compatible");
		}
		if ((gt && nx) || (lt && nx) || (gt && lt)) {
			throw new CommandError("ERR GT, LT, and/or NX options at the same time are not compatible");
		}
		if (incr && elements > 2) {
			throw new CommandError("ERR INCR option supports a single increment-element pair");
		}
		double[] scores = new double[elements / 2];
		for (int i = 0; i < scores.length; i++) {
			scores[i] = RedisNumbers.parseDouble(argv[first + 2 * i]);
		}
		SortedSetValue set = context.sortedSet(argv[1]);
		long added = 0;
		long updated = 0;
		boolean processed = false;
		double score = 0;
		if (set == null && !xx) {
			set = new SortedSetValue();
			context.keyspace().put(argv[1], set);
		}
		for (int i = 0; set != null && i < scores.length; i++) {
			String member = argv[first + 2 * i + 1];
			score = scores[i];
			Double current = set.score(member);
			if (current == null) {
				if (!xx) {
					set.put(member, score);
					added++;
					processed = true;
				}
				continue;
			}
			if (nx) {
				continue;
			}
			if (incr) {
				score += current;
				if (Double.isNaN(score)) {
					throw new CommandError("ERR resulting score is not a number (NaN)");
				}
			}
			if ((lt && score >= current) || (gt && score <= current)) {
				continue;
			}
			processed = true;
			if (score != current) {
				set.put(member, score);
				updated++;
			}
		}
		if (added + updated > 0) {
			context.keyspace().written(argv[1]);
		}
		if (incr) {
			return processed ? RedisNumbers.format(score) : null;
		}
		return Replies.integer(ch ? added + updated : added);
	}

	private static @Nullable Object zscore(CommandContext context, String[] argv) {
		SortedSetValue set = context.sortedSet(argv[1]);
		Double score = (set != null) ? set.score(argv[2]) : null;
		return (score != null) ? RedisNumbers.format(score) : null;
	}

	private static Object zrem(CommandContext context, String[] argv) {
		SortedSetValue set = context.sortedSet(argv[1]);
		long removed = 0;
		for (int i = 2; set != null && i < argv.length; i++) {
			if (set.remove(argv[i])) {
				removed++;
			}
		}
		return Replies.integer(changed(context, argv[1], set, removed));
	}

	private static Object zrange(CommandContext context, String[] argv, boolean byScoreCommand) {
		boolean byScore = byScoreCommand;
		boolean reverse = false;
		boolean withScores = false;
		long offset = 0;
		long limit = -1;
		for (int i = 4; i < argv.length; i++) {
			String option = argv[i].toUpperCase(Locale.ROOT);
			if (option.equals("WITHSCORES")) {
				withScores = true;
			}
			else if (option.equals("LIMIT") && argv.length - i - 1 >= 2) {
				offset = RedisNumbers.parseLong(argv[i + 1]);
				limit = RedisNumbers.parseLong(argv[i + 2]);
				i += 2;
			}
			else if (!byScoreCommand && !reverse && option.equals("REV")) {
				reverse = true;
			}
			else if (!byScoreCommand && !byScore && option.equals("BYSCORE")) {
				byScore = true;
			}
			else {
				throw CommandError.syntax();
			}
		}
		if ((offset != 0 || limit != -1) && !byScore) {
			throw new CommandError(
					"ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
		}
		if (byScore) {
			ScoreRange range = ScoreRange.parse(argv[reverse ? 3 : 2], argv[reverse ? 2 : 3]);
			SortedSetValue set = context.sortedSet(argv[1]);
			return (set != null) ? byScore(set, range, reverse, withScores, offset, limit) : List.of();
		}
		long start = RedisNumbers.parseLong(argv[2]);
		long end = RedisNumbers.parseLong(argv[3]);
		SortedSetValue set = context.sortedSet(argv[1]);
		if (set == null) {
			return List.of();
		}
		int size = set.size();
		start = (start < 0) ? Math.max(0, size + start) : start;
		end = (end < 0) ? size + end : end;
		List<Object> reply = new ArrayList<>();
		if (start > end || start >= size) {
			return reply;
		}
		end = Math.min(end, size - 1);
		for (long rank = start; rank <= end; rank++) {
			add(reply, set.at((int) (reverse ? size - 1 - rank : rank)), withScores);
		}
		return reply;
	}

	private static List<Object> byScore(SortedSetValue set, ScoreRange range, boolean reverse, boolean withScores,
			long offset, long limit) {
		List<Object> reply = new ArrayList<>();
		int from = set.firstFrom(range.min(), range.minExclusive());
		int to = set.endAt(range.max(), range.maxExclusive());
		if (offset < 0) {
			return reply;
		}
		long left = limit;
		for (long i = offset; i < to - from && left != 0; i++, left--) {
			add(reply, set.at((int) (reverse ? to - 1 - i : from + i)), withScores);
		}
		return reply;
	}

	private static void add(List<Object> reply, SortedSetValue.Member member, boolean withScores) {
		reply.add(member.name());
		if (withScores) {
			reply.add(RedisNumbers.format(member.score()));
		}
	}

	private static Object zremrangebyscore(CommandContext context, String[] argv) {
		ScoreRange range = ScoreRange.parse(argv[2], argv[3]);
		SortedSetValue set = context.sortedSet(argv[1]);
		long removed = 0;
		if (set != null) {
			int from = set.firstFrom(range.min(), range.minExclusive());
			int to = set.endAt(range.max(), range.maxExclusive());
			List<String> doomed = new ArrayList<>();
			for (int i = from; i < to; i++) {
				doomed.add(set.at(i).name());
			}
			doomed.forEach(set::remove);
			removed = doomed.size();
		}
		return Replies.integer(changed(context, argv[1], set, removed));
	}

	private static @Nullable Object zrank(CommandContext context, String[] argv) {
		SortedSetValue set = context.sortedSet(argv[1]);
		int rank = (set != null) ? set.rank(argv[2]) : -1;
		return (rank >= 0) ? Replies.integer(rank) : null;
	}

	private static Object zcount(CommandContext context, String[] argv) {
		ScoreRange range = ScoreRange.parse(argv[2], argv[3]);
		SortedSetValue set = context.sortedSet(argv[1]);
		if (set == null) {
			return Replies.integer(0);
		}
		int from = set.firstFrom(range.min(), range.minExclusive());
		int to = set.endAt(range.max(), range.maxExclusive());
		return Replies.integer(Math.max(0, to - from));
	}

	private static Object zcard(CommandContext context, String[] argv) {
		SortedSetValue set = context.sortedSet(argv[1]);
		return Replies.integer((set != null) ? set.size() : 0);
	}

	private static long changed(CommandContext context, String key, @Nullable SortedSetValue set, long removed) {
		if (set != null && removed > 0) {
			if (set.size() == 0) {
				context.keyspace().delete(key);
				context.notify("del", key);
			}
			else {
				context.keyspace().written(key);
			}
		}
		return removed;
	}

	/**
	 * A score range as {@code zslParseRange} reads it: {@code (} makes a bound exclusive.
	 */
	private record ScoreRange(double min, boolean minExclusive, double max, boolean maxExclusive) {

		static ScoreRange parse(String min, String max) {
			boolean minExclusive = min.startsWith("(");
			boolean maxExclusive = max.startsWith("(");
			double low = RedisNumbers.parseBound(min, minExclusive ? 1 : 0);
			double high = RedisNumbers.parseBound(max, maxExclusive ? 1 : 0);
			if (Double.isNaN(low) || Double.isNaN(high)) {
				throw new CommandError(NOT_A_FLOAT_RANGE);
			}
			return new ScoreRange(low, minExclusive, high, maxExclusive);
		}

	}

}
