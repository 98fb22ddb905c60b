package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One critical section as its holder saw it: {@code System.nanoTime} at entry and exit
 * (comparable across processes on one Linux machine) and the fencing token.
 *
 * @param key the lock key
 * @param start entry time
 * @param end exit time
 * @param token the fencing token
 */
record Section(String key, long start, long end, long token) {

	static Section parse(String line) {
		String[] parts = line.split(" ");
		return new Section(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3]));
	}

	String format() {
		return this.key + " " + this.start + " " + this.end + " " + this.token;
	}

	/**
	 * Return a description of every pair of sections of one key that overlap in time, or
	 * whose tokens do not increase in the order the sections ran.
	 */
	static List<String> overlaps(List<Section> sections) {
		List<String> problems = new ArrayList<>();
		Map<String, List<Section>> byKey = sections.stream().collect(Collectors.groupingBy(Section::key));
		byKey.forEach((key, list) -> {
			List<Section> sorted = new ArrayList<>(list);
			sorted.sort(Comparator.comparingLong(Section::start));
			for (int i = 1; i < sorted.size(); i++) {
				Section previous = sorted.get(i - 1);
				Section current = sorted.get(i);
				if (current.start() < previous.end()) {
					problems.add("overlap on " + key + ": " + previous + " and " + current);
				}
				if (current.token() <= previous.token()) {
					problems.add("token not increasing on " + key + ": " + previous + " then " + current);
				}
			}
		});
		return problems;
	}

}
