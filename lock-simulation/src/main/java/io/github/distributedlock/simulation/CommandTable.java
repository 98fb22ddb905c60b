package io.github.distributedlock.simulation;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The commands the model knows, each with its arity as Redis 7.0's command table gives
 * it, and how a call that names an unknown command or passes the wrong number of
 * arguments is refused (worded differently inside a script). Only the commands that the
 * engine's scripts and the engine itself send are here, and a few more that the tests
 * read state with ({@code TYPE}, {@code HGETALL}, {@code PEXPIRETIME}).
 */
final class CommandTable {

	private final Map<String, Command> commands = new HashMap<>();

	private CommandTable() {
	}

	/**
	 * Return the table of every command the model runs.
	 */
	static CommandTable standard() {
		CommandTable table = new CommandTable();
		KeyCommands.register(table);
		StringCommands.register(table);
		HashCommands.register(table);
		SortedSetCommands.register(table);
		return table;
	}

	/**
	 * Add a command.
	 * @param arity the number of arguments with the name, or its negative for at least
	 * that many
	 */
	void add(String name, int arity, Handler handler) {
		Command command = new Command(name.toLowerCase(Locale.ROOT), arity, handler);
		this.commands.put(name.toUpperCase(Locale.ROOT), command);
		this.commands.put(command.name(), command);
	}

	/**
	 * Run a command.
	 * @param argv the name and the arguments
	 * @param fromScript whether a script calls it, which words the refusals differently
	 * @return the reply
	 * @throws CommandError the error reply
	 */
	@Nullable Object run(CommandContext context, String[] argv, boolean fromScript) {
		Command command = this.commands.get(argv[0]);
		if (command == null) {
			command = this.commands.get(argv[0].toUpperCase(Locale.ROOT));
		}
		if (command == null) {
			throw new CommandError(fromScript ? "ERR Unknown Redis command called from script" : unknown(argv));
		}
		int arity = command.arity();
		if ((arity > 0) ? argv.length != arity : argv.length < -arity) {
			throw new CommandError(fromScript ? "ERR Wrong number of args calling Redis command from script"
					: "ERR wrong number of arguments for '" + command.name() + "' command");
		}
		return command.handler().run(context, argv);
	}

	private static String unknown(String[] argv) {
		StringBuilder message = new StringBuilder("ERR unknown command '").append(argv[0])
			.append("', with args beginning with: ");
		for (int i = 1; i < argv.length; i++) {
			message.append('\'').append(argv[i]).append("' ");
		}
		return message.toString();
	}

	/**
	 * What a command does.
	 */
	@FunctionalInterface
	interface Handler {

		/**
		 * Run the command.
		 * @param argv the name and the arguments, as many as the arity allows
		 * @return the reply
		 * @throws CommandError the error reply
		 */
		@Nullable Object run(CommandContext context, String[] argv);

	}

	/**
	 * A command.
	 *
	 * @param name its name in lower case
	 * @param arity its arity
	 * @param handler what it does
	 */
	record Command(String name, int arity, Handler handler) {
	}

}
