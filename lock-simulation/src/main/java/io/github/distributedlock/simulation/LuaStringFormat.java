package io.github.distributedlock.simulation;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * Lua 5.1's {@code string.format}, which hands each directive to C's {@code sprintf}:
 * LuaJ's own prints {@code %.0f} of 1712345678901234 as {@code 1.712345678901234E15},
 * which would break {@code next_token} in {@code lib.lua}. Flags {@code -+ #0}, width and
 * precision are honoured for {@code %d %i %u %c %o %x %X %e %E %f %g %G %s %q %%}. Text
 * is handled as Java strings (UTF-8), so bytes that are not UTF-8 are not kept as they
 * are.
 */
final class LuaStringFormat extends VarArgFunction {

	@Override
	public Varargs invoke(Varargs args) {
		String format = args.checkjstring(1);
		StringBuilder out = new StringBuilder(format.length() + 16);
		int argument = 1;
		for (int i = 0; i < format.length(); i++) {
			char c = format.charAt(i);
			if (c != '%') {
				out.append(c);
				continue;
			}
			if (++i == format.length()) {
				throw new LuaError("invalid option '%' to 'format'");
			}
			if (format.charAt(i) == '%') {
				out.append('%');
				continue;
			}
			int start = i;
			while (i < format.length() && "-+ #0".indexOf(format.charAt(i)) >= 0) {
				i++;
			}
			String flags = format.substring(start, i);
			int width = 0;
			while (i < format.length() && Character.isDigit(format.charAt(i))) {
				width = width * 10 + (format.charAt(i++) - '0');
			}
			int precision = -1;
			if (i < format.length() && format.charAt(i) == '.') {
				precision = 0;
				i++;
				while (i < format.length() && Character.isDigit(format.charAt(i))) {
					precision = precision * 10 + (format.charAt(i++) - '0');
				}
			}
			if (i == format.length()) {
				throw new LuaError("invalid option '%' to 'format'");
			}
			argument++;
			out.append(directive(format.charAt(i), flags, width, precision, args, argument));
		}
		return LuaString.valueOf(out.toString());
	}

	private static String directive(char conversion, String flags, int width, int precision, Varargs args,
			int argument) {
		return switch (conversion) {
			case 'c' -> pad(String.valueOf((char) args.checkint(argument)), flags, width, false);
			case 'd', 'i' -> integer(truncate(args.checkdouble(argument)), flags, width, precision, 10, false);
			case 'u' -> integer(truncate(args.checkdouble(argument)), flags, width, precision, 10, true);
			case 'o' -> integer(truncate(args.checkdouble(argument)), flags, width, precision, 8, true);
			case 'x', 'X' -> {
				String text = integer(truncate(args.checkdouble(argument)), flags, width, precision, 16, true);
				yield (conversion == 'X') ? text.toUpperCase(java.util.Locale.ROOT) : text;
			}
			case 'e', 'E', 'f', 'g', 'G' -> floating(conversion, args.checkdouble(argument), flags, width, precision);
			case 'q' -> quoted(args.checkjstring(argument));
			case 's' -> {
				String text = text(args.arg(argument), argument);
				yield pad((precision >= 0 && precision < text.length()) ? text.substring(0, precision) : text, flags,
						width, false);
			}
			default -> throw new LuaError("invalid option '%" + conversion + "' to 'format'");
		};
	}

	private static long truncate(double value) {
		return (long) value;
	}

	private static String text(LuaValue value, int argument) {
		if (value.type() == LuaValue.TNUMBER) {
			return CFormat.g(value.todouble(), 14);
		}
		if (value.type() != LuaValue.TSTRING) {
			throw new LuaError(
					"bad argument #" + argument + " to 'format' (string expected, got " + value.typename() + ")");
		}
		return value.tojstring();
	}

	private static String integer(long value, String flags, int width, int precision, int radix, boolean unsigned) {
		boolean negative = !unsigned && value < 0;
		String digits;
		if (unsigned) {
			digits = (radix == 16) ? Long.toHexString(value)
					: (radix == 8) ? Long.toOctalString(value) : Long.toUnsignedString(value);
		}
		else {
			digits = (value == Long.MIN_VALUE) ? "9223372036854775808" : Long.toString(Math.abs(value));
		}
		if (precision >= 0) {
			if (precision == 0 && value == 0) {
				digits = "";
			}
			digits = "0".repeat(Math.max(0, precision - digits.length())) + digits;
		}
		String prefix = sign(negative, flags);
		if (flags.indexOf('#') >= 0 && value != 0) {
			prefix += (radix == 16) ? "0x" : "";
			if (radix == 8 && !digits.startsWith("0")) {
				digits = "0" + digits;
			}
		}
		return padNumber(prefix, digits, flags, width, precision < 0);
	}

	private static String floating(char conversion, double value, String flags, int width, int precision) {
		int digits = (precision < 0) ? 6 : precision;
		boolean alternate = flags.indexOf('#') >= 0;
		String text = switch (Character.toLowerCase(conversion)) {
			case 'e' -> CFormat.e(value, digits, alternate);
			case 'f' -> CFormat.f(value, digits, alternate);
			default -> CFormat.g(value, digits, alternate);
		};
		if (Character.isUpperCase(conversion)) {
			text = text.toUpperCase(java.util.Locale.ROOT);
		}
		boolean negative = text.startsWith("-");
		String body = negative ? text.substring(1) : text;
		boolean finite = !Double.isNaN(value) && !Double.isInfinite(value);
		return padNumber(sign(negative, flags), body, flags, width, finite);
	}

	private static String sign(boolean negative, String flags) {
		if (negative) {
			return "-";
		}
		if (flags.indexOf('+') >= 0) {
			return "+";
		}
		return (flags.indexOf(' ') >= 0) ? " " : "";
	}

	private static String padNumber(String prefix, String digits, String flags, int width, boolean zeroAllowed) {
		int length = prefix.length() + digits.length();
		if (length >= width) {
			return prefix + digits;
		}
		if (flags.indexOf('-') >= 0) {
			return prefix + digits + " ".repeat(width - length);
		}
		if (zeroAllowed && flags.indexOf('0') >= 0) {
			return prefix + "0".repeat(width - length) + digits;
		}
		return " ".repeat(width - length) + prefix + digits;
	}

	private static String pad(String text, String flags, int width, boolean zero) {
		if (text.length() >= width) {
			return text;
		}
		String fill = (zero ? "0" : " ").repeat(width - text.length());
		return (flags.indexOf('-') >= 0) ? text + fill : fill + text;
	}

	/**
	 * Quote as Lua 5.1's {@code %q}: a backslash before {@code "}, {@code \}, and a
	 * newline; {@code \r} and the zero byte written as escapes.
	 */
	private static String quoted(String text) {
		StringBuilder out = new StringBuilder(text.length() + 2).append('"');
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '"', '\\', '\n' -> out.append('\\').append(c);
				case '\r' -> out.append("\\r");
				case '\0' -> out.append("\\000");
				default -> out.append(c);
			}
		}
		return out.append('"').toString();
	}

}
