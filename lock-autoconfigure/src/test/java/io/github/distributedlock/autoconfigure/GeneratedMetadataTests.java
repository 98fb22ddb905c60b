package io.github.distributedlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepository;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.configurationmetadata.Deprecation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The annotation processors ran over this module: its own output holds the configuration
 * metadata and the auto-configuration metadata. javac stopped running processors found on
 * the class path in JDK 23, so a build that forgets to declare them compiles cleanly and
 * ships neither.
 */
class GeneratedMetadataTests {

	@Test
	void shouldGenerateConfigurationMetadata() throws Exception {
		try (URLClassLoader output = moduleOutput();
				InputStream metadata = output.getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
			assertThat(metadata).as("META-INF/spring-configuration-metadata.json in " + output.getURLs()[0])
				.isNotNull();
			ConfigurationMetadataRepository repository = ConfigurationMetadataRepositoryJsonBuilder.create(metadata)
				.build();
			assertThat(repository.getAllProperties()).containsKeys("distributed-lock.lease",
					"distributed-lock.wait-time", "distributed-lock.polling.interval");
		}
	}

	@Test
	void shouldMarkRemovedPropertiesAsErrors() throws Exception {
		// Merged from additional-spring-configuration-metadata.json, so that IDEs and
		// spring-boot-properties-migrator report a removed property instead of ignoring
		// it.
		try (URLClassLoader output = moduleOutput();
				InputStream metadata = output.getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
			assertThat(metadata).isNotNull();
			ConfigurationMetadataRepository repository = ConfigurationMetadataRepositoryJsonBuilder.create(metadata)
				.build();
			for (String name : new String[] { "distributed-lock.hint-connections",
					"distributed-lock.local-hand-offs" }) {
				ConfigurationMetadataProperty property = repository.getAllProperties().get(name);
				assertThat(property).as(name).isNotNull();
				assertThat(property.getDeprecation()).as(name).isNotNull();
				assertThat(property.getDeprecation().getLevel()).as(name).isEqualTo(Deprecation.Level.ERROR);
				assertThat(property.getDeprecation().getReason()).as(name).isNotBlank();
			}
		}
	}

	@Test
	void shouldGenerateAutoConfigurationMetadata() throws Exception {
		try (URLClassLoader output = moduleOutput();
				InputStream metadata = output
					.getResourceAsStream("META-INF/spring-autoconfigure-metadata.properties")) {
			assertThat(metadata).as("META-INF/spring-autoconfigure-metadata.properties in " + output.getURLs()[0])
				.isNotNull();
			Properties properties = new Properties();
			properties.load(metadata);
			assertThat(properties)
				.containsKey(DistributedLockAutoConfiguration.class.getName() + ".ConditionalOnClass");
		}
	}

	/**
	 * This module's classes only: Spring Boot's own jars carry files of the same names.
	 */
	private static URLClassLoader moduleOutput() throws IOException, URISyntaxException {
		URL location = DistributedLockProperties.class.getProtectionDomain().getCodeSource().getLocation();
		return new URLClassLoader(new URL[] { location }, null);
	}

}
