package io.github.distributedlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepository;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.configurationmetadata.Deprecation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's configuration table, with the leader election page's table of the
 * {@code distributed-lock.leader.*} properties, lists exactly the properties in the
 * generated configuration metadata, with the same defaults (a dash for a property without
 * one), so the two cannot drift apart. Rows whose description says they come from
 * {@code distributed-lock-test} are that module's, in that module's metadata: its
 * {@code ReadmeConfigurationTableTests} checks them. Removed properties, which the
 * metadata keeps with an error-level deprecation, are not in the table but named among
 * the README's removed properties.
 */
class ReadmeConfigurationTableTests {

	/** A property, its default (or a dash for none) and its description. */
	private static final Pattern ROW = Pattern.compile("^\\| `(distributed-lock\\.[a-z.-]+)` \\| (`[^`]*`|—) \\|(.*)$",
			Pattern.MULTILINE);

	private static final String NO_DEFAULT = "—";

	private static final String OTHER_MODULE = "`distributed-lock-test`";

	@Test
	void shouldListEveryPropertyWithItsDefault() throws IOException {
		Map<String, String> documented = new LinkedHashMap<>();
		for (Path page : new Path[] { Path.of("..", "README.md"), Path.of("..", "docs", "leader-election.md") }) {
			Matcher row = ROW.matcher(Files.readString(page));
			while (row.find()) {
				if (!row.group(3).contains(OTHER_MODULE)) {
					documented.put(row.group(1), row.group(2).equals(NO_DEFAULT) ? NO_DEFAULT
							: row.group(2).substring(1, row.group(2).length() - 1));
				}
			}
		}
		assertThat(documented).isEqualTo(metadataDefaults());
	}

	@Test
	void shouldNameEveryRemovedPropertyBelowTheTable() throws IOException {
		String readme = Files.readString(Path.of("..", "README.md"));
		int removed = readme.indexOf("Removed properties");
		assertThat(removed).as("the README's list of removed properties").isNotNegative();
		Map<String, ConfigurationMetadataProperty> properties = properties();
		assertThat(properties.values().stream().filter(ReadmeConfigurationTableTests::isRemoved))
			.as("removed properties in the metadata")
			.isNotEmpty()
			.allSatisfy((property) -> assertThat(readme.substring(removed)).contains("`" + property.getId() + "`"));
	}

	private static Map<String, String> metadataDefaults() throws IOException {
		Map<String, String> defaults = new LinkedHashMap<>();
		properties().forEach((name, property) -> {
			if (name.startsWith("distributed-lock.") && !isRemoved(property)) {
				assertThat(property.getDescription()).as("description of " + name).isNotBlank();
				Object value = property.getDefaultValue();
				defaults.put(name, (value != null) ? String.valueOf(value) : NO_DEFAULT);
			}
		});
		return defaults;
	}

	private static boolean isRemoved(ConfigurationMetadataProperty property) {
		Deprecation deprecation = property.getDeprecation();
		return deprecation != null && deprecation.getLevel() == Deprecation.Level.ERROR;
	}

	private static Map<String, ConfigurationMetadataProperty> properties() throws IOException {
		try (InputStream metadata = ReadmeConfigurationTableTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(metadata).as("generated configuration metadata").isNotNull();
			ConfigurationMetadataRepository repository = ConfigurationMetadataRepositoryJsonBuilder.create(metadata)
				.build();
			return repository.getAllProperties();
		}
	}

}
