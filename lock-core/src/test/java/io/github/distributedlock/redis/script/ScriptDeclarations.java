package io.github.distributedlock.redis.script;

import java.lang.reflect.AnnotatedType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.distributedlock.redis.script.LuaScript;
import io.github.distributedlock.redis.script.ScriptArgs;
import io.github.distributedlock.redis.script.ScriptKey;

import org.jspecify.annotations.Nullable;

/**
 * What a script's {@code -- KEYS:} and {@code -- ARGV:} header lines must say, as
 * rendered from the script's {@link ScriptKey}s and the components of its
 * {@link ScriptArgs} record: names in snake_case, in order, a list component as a group
 * repeated once per lock ({@code (lease_ms)...}, or the components of a list of records),
 * and a {@code @Nullable} component as an optional one ({@code [withdrawn_request]}).
 * Also renders a record's {@code ARGV} from its components, the reference its
 * hand-written {@link ScriptArgs#argv()} is held to whenever a trailing argument is not
 * at its default (the short forms are checked in {@code LockScriptsTests}).
 */
final class ScriptDeclarations {

	private static final Pattern HEADER = Pattern.compile("(?m)^-- (KEYS|ARGV):(.*)$");

	private static final Pattern WORD_START = Pattern.compile("([a-z0-9])([A-Z])");

	private ScriptDeclarations() {
	}

	/**
	 * Return how the script's header differs from its declaration in Java: nothing if it
	 * says the same.
	 * @param text the script's text
	 */
	static List<String> drift(LuaScript<?> script, String text) {
		List<String> drift = new ArrayList<>();
		compare(script.name(), "KEYS", keys(script), text, drift);
		compare(script.name(), "ARGV", args(script.argsType()), text, drift);
		return drift;
	}

	private static void compare(String name, String what, String declared, String text, List<String> drift) {
		List<String> lines = new ArrayList<>();
		Matcher header = HEADER.matcher(text);
		while (header.find()) {
			if (header.group(1).equals(what)) {
				lines.add(header.group(2).strip().replaceAll("\\s*,\\s*", ", "));
			}
		}
		if (lines.size() != 1) {
			drift.add(name + " has " + lines.size() + " '-- " + what + ":' lines, not one");
		}
		else if (!lines.get(0).equals(declared)) {
			drift.add(name + " declares " + what + " '" + lines.get(0) + "' in its header, but the engine passes '"
					+ declared + "'");
		}
	}

	/**
	 * Return the keys of a script as its header names them.
	 */
	static String keys(LuaScript<?> script) {
		String keys = script.keys().stream().map(ScriptKey::toString).collect(Collectors.joining(", "));
		return script.keysPerLock() ? "(" + keys + ")..." : keys;
	}

	/**
	 * Return the arguments a record declares, as a script's header names them.
	 */
	static String args(Class<?> record) {
		List<String> names = new ArrayList<>();
		for (RecordComponent component : record.getRecordComponents()) {
			String name = snakeCase(component.getName());
			Class<?> element = listElement(component);
			if (element != null) {
				name = "(" + (element.isRecord() ? args(element) : name) + ")...";
			}
			else if (isNullable(component)) {
				name = "[" + name + "]";
			}
			names.add(name);
		}
		return String.join(", ", names);
	}

	static String snakeCase(String name) {
		return WORD_START.matcher(name).replaceAll("$1_$2").toLowerCase(Locale.ROOT);
	}

	/**
	 * Return the values of a record's components as the script reads them, in order: a
	 * flag as {@code 1} or {@code 0}, a list as its elements, a {@code null} left off.
	 */
	static List<String> argvByComponents(Record args) {
		List<String> argv = new ArrayList<>();
		for (RecordComponent component : args.getClass().getRecordComponents()) {
			add(value(component, args), argv);
		}
		return argv;
	}

	private static void add(@Nullable Object value, List<String> argv) {
		if (value == null) {
			return;
		}
		if (value instanceof List<?> list) {
			list.forEach((element) -> add(element, argv));
		}
		else if (value instanceof Record record) {
			argv.addAll(argvByComponents(record));
		}
		else if (value instanceof Boolean flag) {
			argv.add(flag ? "1" : "0");
		}
		else {
			argv.add(value.toString());
		}
	}

	/**
	 * Return instances of a record, with a distinct value in each component: one in which
	 * no flag is set, and one for each flag that alone is set; then, if its last
	 * component may be {@code null}, one where it is.
	 */
	static <R extends Record> List<R> samples(Class<R> type) {
		RecordComponent[] components = type.getRecordComponents();
		List<R> samples = new ArrayList<>();
		for (int set = -1; set < components.length; set++) {
			if (set < 0 || components[set].getType() == boolean.class) {
				samples.add(sample(type, set, 0, false));
			}
		}
		if (components.length > 0 && isNullable(components[components.length - 1])) {
			samples.add(sample(type, -1, 0, true));
		}
		return samples;
	}

	private static <R extends Record> R sample(Class<R> type, int flagSet, int base, boolean lastNull) {
		RecordComponent[] components = type.getRecordComponents();
		Object[] values = new Object[components.length];
		Class<?>[] types = new Class<?>[components.length];
		for (int i = 0; i < components.length; i++) {
			RecordComponent component = components[i];
			types[i] = component.getType();
			int distinct = base + i + 1;
			Class<?> element = listElement(component);
			if (element != null) {
				values[i] = element.isRecord()
						? List.of(sample(element.asSubclass(Record.class), -1, base + 100, false),
								sample(element.asSubclass(Record.class), -1, base + 200, false))
						: List.of(1000L + distinct, 2000L + distinct);
			}
			else if (types[i] == String.class) {
				values[i] = (lastNull && i == components.length - 1) ? null : "v" + distinct;
			}
			else if (types[i] == long.class) {
				values[i] = (long) distinct;
			}
			else if (types[i] == int.class) {
				values[i] = distinct;
			}
			else if (types[i] == boolean.class) {
				values[i] = (i == flagSet);
			}
			else {
				throw new IllegalArgumentException(
						type.getSimpleName() + " has a component of an unexpected type, " + component.getGenericType());
			}
		}
		try {
			return type.getDeclaredConstructor(types).newInstance(values);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static @Nullable Object value(RecordComponent component, Record record) {
		try {
			return component.getAccessor().invoke(record);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static @Nullable Class<?> listElement(RecordComponent component) {
		if (component.getType() != List.class) {
			return null;
		}
		ParameterizedType list = (ParameterizedType) component.getGenericType();
		return (Class<?>) list.getActualTypeArguments()[0];
	}

	private static boolean isNullable(RecordComponent component) {
		AnnotatedType type = component.getAnnotatedType();
		return Stream.of(type.getAnnotations()).anyMatch((annotation) -> annotation instanceof Nullable);
	}

}
