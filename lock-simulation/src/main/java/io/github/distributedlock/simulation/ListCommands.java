package io.github.distributedlock.simulation;

import java.util.ArrayDeque;

import org.jspecify.annotations.Nullable;

/**
 * The list commands a chained hint needs, as Redis 7.0 runs them: {@code LPUSH},
 * {@code LLEN} and {@code LPOP} without a count (what a {@code BLPOP} that returns
 * takes). A list left empty is deleted. Their keyspace events (of the list class) are not
 * published: the engine listens to none.
 */
final class ListCommands {

	private ListCommands() {
	}

	static void register(CommandTable table) {
		table.add("LPUSH", -3, ListCommands::lpush);
		table.add("LLEN", 2, ListCommands::llen);
		table.add("LPOP", 2, (context, argv) -> pop(context, argv[1]));
	}

	private static Object lpush(CommandContext context, String[] argv) {
		ArrayDeque<String> list = context.list(argv[1]);
		if (list == null) {
			list = new ArrayDeque<>();
			context.keyspace().put(argv[1], list);
		}
		for (int i = 2; i < argv.length; i++) {
			list.addFirst(argv[i]);
		}
		context.keyspace().written(argv[1]);
		return (long) list.size();
	}

	private static Object llen(CommandContext context, String[] argv) {
		ArrayDeque<String> list = context.list(argv[1]);
		return (list != null) ? (long) list.size() : 0L;
	}

	/**
	 * Pop the head of a list, deleting the key once it is empty.
	 * @return the element, or {@code null} if the key is absent
	 */
	static @Nullable String pop(CommandContext context, String key) {
		ArrayDeque<String> list = context.list(key);
		if (list == null) {
			return null;
		}
		String head = list.pollFirst();
		if (list.isEmpty()) {
			context.keyspace().delete(key);
		}
		else {
			context.keyspace().written(key);
		}
		return head;
	}

}
