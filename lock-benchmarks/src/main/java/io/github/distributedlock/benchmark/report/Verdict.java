package io.github.distributedlock.benchmark.report;

/**
 * Whether this project met one performance target.
 *
 * @param target what was aimed for
 * @param measured the figures it was judged on
 * @param pass whether it was met
 */
public record Verdict(String target, String measured, boolean pass) {

	/**
	 * Return {@code PASS} or {@code MISS}.
	 * @return the verdict word
	 */
	public String word() {
		return this.pass ? "PASS" : "MISS";
	}

}
