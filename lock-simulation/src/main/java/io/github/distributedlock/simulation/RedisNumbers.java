package io.github.distributedlock.simulation;

/**
 * Reads and writes numbers as Redis 7.0 does: integers strictly ({@code string2ll}: no
 * sign but '-', no leading zeros, no spaces), doubles with C's {@code strtod} (so
 * {@code inf} and {@code -inf} are numbers), and doubles out with {@code %.17g}. Hex
 * floats ({@code 0x1p3}), which {@code strtod} also reads, are not read here.
 */
final class RedisNumbers {

	static final String NOT_INTEGER = "ERR value is not an integer or out of range";

	static final String NOT_FLOAT = "ERR value is not a valid float";

	private RedisNumbers() {
	}

	/**
	 * Parse an integer argument.
	 * @throws CommandError "value is not an integer or out of range"
	 */
	static long parseLong(String text) {
		return parseLong(text, NOT_INTEGER);
	}

	/**
	 * Parse an integer, failing with the given error.
	 * @throws CommandError with {@code error} if the text is not an integer
	 */
	static long parseLong(String text, String error) {
		int length = text.length();
		if (length == 0 || length > 20) {
			throw new CommandError(error);
		}
		if (length == 1 && text.charAt(0) == '0') {
			return 0;
		}
		int at = 0;
		boolean negative = text.charAt(0) == '-';
		if (negative) {
			at++;
		}
		if (at == length || text.charAt(at) < '1' || text.charAt(at) > '9') {
			throw new CommandError(error);
		}
		long value = 0;
		for (; at < length; at++) {
			char c = text.charAt(at);
			if (c < '0' || c > '9') {
				throw new CommandError(error);
			}
			int digit = c - '0';
			// Accumulate negatively so that Long.MIN_VALUE fits.
			if (value < (Long.MIN_VALUE + digit) / 10) {
				throw new CommandError(error);
			}
			value = value * 10 - digit;
		}
		if (!negative) {
			if (value == Long.MIN_VALUE) {
				throw new CommandError(error);
			}
			value = -value;
		}
		return value;
	}

	/**
	 * Parse a double argument as {@code getDoubleFromObject} does: the whole text, no
	 * leading space, no overflow, no NaN.
	 * @throws CommandError "value is not a valid float"
	 */
	static double parseDouble(String text) {
		if (text.isEmpty() || isSpace(text.charAt(0))) {
			throw new CommandError(NOT_FLOAT);
		}
		Strtod parsed = strtod(text, 0);
		if (parsed.end != text.length() || parsed.outOfRange || Double.isNaN(parsed.value)) {
			throw new CommandError(NOT_FLOAT);
		}
		return parsed.value;
	}

	/**
	 * Parse text with {@code strtod} from {@code from}, as a score range bound does: the
	 * rest must be empty, and NaN is refused.
	 * @return the value, or NaN if the text is not a number
	 */
	static double parseBound(String text, int from) {
		Strtod parsed = strtod(text, from);
		return (parsed.end != text.length()) ? Double.NaN : parsed.value;
	}

	/**
	 * Return a double as Redis replies with it ({@code %.17g}, {@code inf},
	 * {@code -inf}).
	 */
	static String format(double value) {
		return CFormat.g(value, 17);
	}

	private static boolean isSpace(char c) {
		return c == ' ' || (c >= '\t' && c <= '\r');
	}

	/**
	 * C's {@code strtod}: leading space, a sign, then {@code inf}, {@code infinity},
	 * {@code nan} or a decimal number; where it stopped, and whether it overflowed or
	 * underflowed ({@code ERANGE}).
	 */
	private static Strtod strtod(String text, int from) {
		int at = from;
		int length = text.length();
		while (at < length && isSpace(text.charAt(at))) {
			at++;
		}
		int start = at;
		boolean negative = false;
		if (at < length && (text.charAt(at) == '+' || text.charAt(at) == '-')) {
			negative = text.charAt(at) == '-';
			at++;
		}
		if (text.regionMatches(true, at, "infinity", 0, 8)) {
			return new Strtod(negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY, at + 8, false);
		}
		if (text.regionMatches(true, at, "inf", 0, 3)) {
			return new Strtod(negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY, at + 3, false);
		}
		if (text.regionMatches(true, at, "nan", 0, 3)) {
			return new Strtod(Double.NaN, at + 3, false);
		}
		int digits = 0;
		boolean nonZero = false;
		while (at < length && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
			nonZero |= text.charAt(at) != '0';
			at++;
			digits++;
		}
		if (at < length && text.charAt(at) == '.') {
			at++;
			while (at < length && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
				nonZero |= text.charAt(at) != '0';
				at++;
				digits++;
			}
		}
		if (digits == 0) {
			return new Strtod(0, from, false);
		}
		if (at < length && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
			int exponent = at + 1;
			if (exponent < length && (text.charAt(exponent) == '+' || text.charAt(exponent) == '-')) {
				exponent++;
			}
			if (exponent < length && text.charAt(exponent) >= '0' && text.charAt(exponent) <= '9') {
				at = exponent;
				while (at < length && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
					at++;
				}
			}
		}
		double value = Double.parseDouble(text.substring(start, at));
		boolean outOfRange = Double.isInfinite(value) || (value == 0 && nonZero);
		return new Strtod(value, at, outOfRange);
	}

	private record Strtod(double value, int end, boolean outOfRange) {
	}

}
