package io.github.distributedlock.simulation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A sorted set: members ordered by score, then by member in byte order (for UTF-8, the
 * order of code points), as Redis orders them. Scores compare as C doubles do:
 * {@code -0.0} equals {@code 0.0}, and is stored as {@code 0.0}. Kept as a sorted list
 * plus a map, which suits the small sets of the lock protocol; Redis's skip list gives
 * the same answers.
 */
final class SortedSetValue {

	private final Map<String, Double> scores;

	private final List<Member> ordered;

	SortedSetValue() {
		this(new HashMap<>(), new ArrayList<>());
	}

	private SortedSetValue(Map<String, Double> scores, List<Member> ordered) {
		this.scores = scores;
		this.ordered = ordered;
	}

	int size() {
		return this.ordered.size();
	}

	@Nullable Double score(String member) {
		return this.scores.get(member);
	}

	/**
	 * Add a member, or move it to a new score.
	 */
	void put(String member, double score) {
		double stored = (score == 0) ? 0.0 : score;
		Double old = this.scores.put(member, stored);
		if (old != null) {
			this.ordered.remove(indexOf(member, old));
		}
		Member added = new Member(member, stored);
		int at = -(search(added) + 1);
		this.ordered.add(at, added);
	}

	/**
	 * Remove a member.
	 * @return whether it was there
	 */
	boolean remove(String member) {
		Double score = this.scores.remove(member);
		if (score == null) {
			return false;
		}
		this.ordered.remove(indexOf(member, score));
		return true;
	}

	/**
	 * Return a member's rank from 0, or -1 if it is not in the set.
	 */
	int rank(String member) {
		Double score = this.scores.get(member);
		return (score != null) ? indexOf(member, score) : -1;
	}

	Member at(int index) {
		return this.ordered.get(index);
	}

	/**
	 * Return the index of the first member whose score is above {@code min} (or at it,
	 * unless {@code exclusive}); {@link #size()} if there is none.
	 */
	int firstFrom(double min, boolean exclusive) {
		int low = 0;
		int high = this.ordered.size();
		while (low < high) {
			int middle = (low + high) >>> 1;
			double score = this.ordered.get(middle).score();
			if (exclusive ? score <= min : score < min) {
				low = middle + 1;
			}
			else {
				high = middle;
			}
		}
		return low;
	}

	/**
	 * Return the index after the last member whose score is below {@code max} (or at it,
	 * unless {@code exclusive}).
	 */
	int endAt(double max, boolean exclusive) {
		int low = 0;
		int high = this.ordered.size();
		while (low < high) {
			int middle = (low + high) >>> 1;
			double score = this.ordered.get(middle).score();
			if (exclusive ? score < max : score <= max) {
				low = middle + 1;
			}
			else {
				high = middle;
			}
		}
		return low;
	}

	SortedSetValue copy() {
		return new SortedSetValue(new HashMap<>(this.scores), new ArrayList<>(this.ordered));
	}

	private int indexOf(String member, double score) {
		int at = search(new Member(member, score));
		if (at < 0) {
			throw new IllegalStateException("Sorted set lost member '" + member + "'");
		}
		return at;
	}

	private int search(Member member) {
		int low = 0;
		int high = this.ordered.size() - 1;
		while (low <= high) {
			int middle = (low + high) >>> 1;
			int order = compare(this.ordered.get(middle), member);
			if (order < 0) {
				low = middle + 1;
			}
			else if (order > 0) {
				high = middle - 1;
			}
			else {
				return middle;
			}
		}
		return -(low + 1);
	}

	private static int compare(Member a, Member b) {
		if (a.score() < b.score()) {
			return -1;
		}
		if (a.score() > b.score()) {
			return 1;
		}
		return compareBytes(a.name(), b.name());
	}

	/**
	 * Compare as {@code memcmp} compares the UTF-8 bytes: by code point.
	 */
	static int compareBytes(String a, String b) {
		int length = Math.min(a.length(), b.length());
		for (int i = 0; i < length; i++) {
			char x = a.charAt(i);
			char y = b.charAt(i);
			if (x != y) {
				if (Character.isSurrogate(x) || Character.isSurrogate(y)) {
					return Integer.compare(a.codePointAt(i), b.codePointAt(i));
				}
				return x - y;
			}
		}
		return a.length() - b.length();
	}

	/**
	 * A member and its score.
	 *
	 * @param name the member
	 * @param score its score
	 */
	record Member(String name, double score) {
	}

}
