package io.github.distributedlock.inmemory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.distributedlock.LockTemplate;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration page's tables ({@code docs/configuration.md}) list this module's
 * property, whose configuration metadata comes from
 * {@code additional-spring-configuration-metadata.json} (there is no properties class
 * behind it), with the default it really has. {@code lock-autoconfigure}'s
 * {@code ConfigurationTableTests} checks the other rows against that module's metadata.
 */
class ConfigurationTableTests {

	private static final Pattern ROW = Pattern.compile("^\\| `(distributed-lock\\.[a-z.-]+)` \\| `([^`]*)` \\|(.*)$",
			Pattern.MULTILINE);

	@Test
	void shouldListTheInMemoryPropertyAsThisModules() throws IOException {
		Map<String, String> documented = new LinkedHashMap<>();
		Matcher row = ROW.matcher(Files.readString(Path.of("..", "docs", "configuration.md")));
		while (row.find()) {
			if (row.group(3).contains("`distributed-lock-test`")) {
				documented.put(row.group(1), row.group(2));
			}
		}
		assertThat(documented).containsExactly(Map.entry(InMemoryLockAutoConfiguration.PROPERTY, "false"));
	}

	@Test
	void shouldLeaveTheRedisTemplateAloneWithTheDocumentedDefault() {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(InMemoryLockAutoConfiguration.class));
		runner.run((context) -> assertThat(context).doesNotHaveBean(LockTemplate.class));
		runner.withPropertyValues(InMemoryLockAutoConfiguration.PROPERTY + "=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockTemplate.class));
		runner.withPropertyValues(InMemoryLockAutoConfiguration.PROPERTY + "=true")
			.run((context) -> assertThat(context).hasSingleBean(InMemoryLockTemplate.class));
	}

}
