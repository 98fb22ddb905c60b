package io.github.distributedlock.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the overlap checker itself, so that a green fuzz run means something.
 */
class SectionTests {

	@Test
	void shouldFindOverlappingSections() {
		List<Section> sections = List.of(new Section("k", 100, 200, 1), new Section("k", 150, 250, 2));
		assertThat(Section.overlaps(sections)).singleElement().asString().startsWith("overlap on k");
	}

	@Test
	void shouldFindTokensThatDoNotIncrease() {
		List<Section> sections = List.of(new Section("k", 100, 200, 5), new Section("k", 300, 400, 5));
		assertThat(Section.overlaps(sections)).singleElement().asString().startsWith("token not increasing");
	}

	@Test
	void shouldAcceptSectionsInTurnAndOtherKeysAtTheSameTime() {
		List<Section> sections = List.of(new Section("k", 100, 200, 1), new Section("k", 200, 300, 2),
				new Section("j", 150, 250, 1));
		assertThat(Section.overlaps(sections)).isEmpty();
	}

	@Test
	void shouldRoundTripTheLogFormat() {
		Section section = new Section("k1", 12, 34, 56);
		assertThat(Section.parse(section.format())).isEqualTo(section);
	}

}
