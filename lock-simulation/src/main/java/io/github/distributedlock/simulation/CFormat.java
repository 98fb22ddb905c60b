package io.github.distributedlock.simulation;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

import org.jspecify.annotations.Nullable;

/**
 * Formats doubles as C's {@code printf} does ({@code %g}, {@code %e}, {@code %f}), which
 * Redis and Lua 5.1 use to turn numbers into text: Redis writes scores and numeric script
 * arguments with {@code %.17g}, Lua 5.1 converts numbers with {@code %.14g}. Java's own
 * formatter differs ({@code %g} never drops trailing zeros, rounding is half-up).
 * Rounding here is half-even on the exact binary value, as glibc rounds.
 */
final class CFormat {

	private static final double LONG_LIMIT = 9.0e15;

	private CFormat() {
	}

	/**
	 * Return {@code value} as {@code %.<precision>g} would print it.
	 */
	static String g(double value, int precision) {
		return g(value, precision, false);
	}

	/**
	 * Return {@code value} as {@code %.<precision>g}, with trailing zeros kept when
	 * {@code alternate} ({@code %#g}).
	 */
	static String g(double value, int precision, boolean alternate) {
		if (!alternate && value == Math.rint(value) && Math.abs(value) < Math.min(LONG_LIMIT, Math.pow(10, precision))
				&& !(value == 0 && 1 / value < 0)) {
			// The usual case: a whole number with no more digits than the precision.
			return Long.toString((long) value);
		}
		String special = special(value);
		if (special != null) {
			return special;
		}
		int p = (precision == 0) ? 1 : precision;
		if (value == 0) {
			return sign(value) + (alternate ? "0." + "0".repeat(p - 1) : "0");
		}
		BigDecimal rounded = new BigDecimal(value).round(new MathContext(p, RoundingMode.HALF_EVEN));
		int exponent = rounded.precision() - rounded.scale() - 1;
		String text;
		if (exponent < -4 || exponent >= p) {
			text = e(value, p - 1, alternate);
			if (!alternate) {
				int at = text.indexOf('e');
				text = stripZeros(text.substring(0, at)) + text.substring(at);
			}
		}
		else {
			text = f(value, p - 1 - exponent, alternate);
			if (!alternate) {
				text = stripZeros(text);
			}
		}
		return text;
	}

	/**
	 * Return {@code value} as {@code %.<precision>f} would print it.
	 */
	static String f(double value, int precision, boolean alternate) {
		String special = special(value);
		if (special != null) {
			return special;
		}
		String digits = new BigDecimal(value).setScale(precision, RoundingMode.HALF_EVEN).abs().toPlainString();
		if (alternate && precision == 0) {
			digits = digits + ".";
		}
		return sign(value) + digits;
	}

	/**
	 * Return {@code value} as {@code %.<precision>e} would print it.
	 */
	static String e(double value, int precision, boolean alternate) {
		String special = special(value);
		if (special != null) {
			return special;
		}
		if (value == 0) {
			String mantissa = (precision > 0 || alternate) ? "0." + "0".repeat(precision) : "0";
			return sign(value) + mantissa + "e+00";
		}
		BigDecimal exact = new BigDecimal(value).abs();
		BigDecimal rounded = exact.round(new MathContext(precision + 1, RoundingMode.HALF_EVEN));
		int exponent = rounded.precision() - rounded.scale() - 1;
		String unscaled = rounded.unscaledValue().toString();
		StringBuilder digits = new StringBuilder(unscaled);
		while (digits.length() < precision + 1) {
			digits.append('0');
		}
		StringBuilder text = new StringBuilder(sign(value)).append(digits.charAt(0));
		if (precision > 0 || alternate) {
			text.append('.');
		}
		text.append(digits, 1, precision + 1);
		text.append((exponent < 0) ? "e-" : "e+");
		int magnitude = Math.abs(exponent);
		if (magnitude < 10) {
			text.append('0');
		}
		return text.append(magnitude).toString();
	}

	private static String sign(double value) {
		return (value < 0 || (value == 0 && 1 / value < 0)) ? "-" : "";
	}

	private static @Nullable String special(double value) {
		if (Double.isNaN(value)) {
			return (Double.doubleToRawLongBits(value) < 0) ? "-nan" : "nan";
		}
		if (Double.isInfinite(value)) {
			return (value < 0) ? "-inf" : "inf";
		}
		return null;
	}

	private static String stripZeros(String number) {
		if (number.indexOf('.') < 0) {
			return number;
		}
		int end = number.length();
		while (number.charAt(end - 1) == '0') {
			end--;
		}
		if (number.charAt(end - 1) == '.') {
			end--;
		}
		return number.substring(0, end);
	}

}
