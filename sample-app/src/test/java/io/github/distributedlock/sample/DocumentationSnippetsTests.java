package io.github.distributedlock.sample;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.distributedlock.autoconfigure.DistributedLockProperties;
import io.github.distributedlock.inmemory.InMemoryLockAutoConfiguration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepository;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.context.properties.bind.BindResult;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.IgnoreTopLevelConverterNotFoundBindHandler;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The code in {@code README.md} and {@code docs/} is code: every Java block, and every
 * block marked {@code <!-- snippet: path -->}, shows a compiled source file (from its
 * first line after the package declaration, or the region between {@code // tag::name[]}
 * and {@code // end::name[]} for {@code path#name}) exactly as it is; every YAML block
 * names only known properties and binds to the starter's properties; and every relative
 * link leads to a file, and heading, that exist. The files the snippets show live under
 * {@code sample-app/src/test/java/com/example} (and
 * {@code lock-kotlin-test/src/test/kotlin/com/example}), where the build compiles them
 * and some of them run as tests.
 */
class DocumentationSnippetsTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Pattern FENCE = Pattern.compile("^( *)```([\\w-]*)$");

	private static final Pattern MARKER = Pattern.compile("^ *<!-- snippet: (\\S+) -->$");

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$");

	@Test
	void shouldShowEveryJavaSnippetAsItsSourceFileHasIt() throws IOException {
		List<String> problems = new ArrayList<>();
		int bound = 0;
		for (Block block : blocks()) {
			if (block.marker() == null) {
				if (block.language().equals("java")) {
					problems.add(block + ": a Java block without a <!-- snippet: path --> line before it");
				}
				continue;
			}
			String problem = compare(block, block.marker());
			if (problem != null) {
				problems.add(block + ": " + problem);
			}
			bound++;
		}
		assertThat(problems).as("snippets that are not their source").isEmpty();
		assertThat(bound).as("snippets bound to their source").isGreaterThanOrEqualTo(15);
	}

	@Test
	void shouldBindEveryYamlSnippetToKnownProperties() throws IOException {
		Map<String, ConfigurationMetadataProperty> known = metadata();
		assertThat(known).as("configuration metadata on the class path")
			.containsKeys("distributed-lock.lease", "spring.data.redis.host",
					"management.endpoints.web.exposure.include");
		List<String> problems = new ArrayList<>();
		int bound = 0;
		for (Block block : blocks()) {
			if (block.language().equals("yaml") || block.language().equals("yml")) {
				problems.addAll(bind(block, known));
				bound++;
			}
		}
		assertThat(problems).as("YAML snippets that don't bind").isEmpty();
		assertThat(bound).as("YAML snippets bound").isGreaterThanOrEqualTo(5);
	}

	@Test
	void shouldRefuseAYamlSnippetWithAnUnknownLockProperty() throws IOException {
		Block typo = new Block(ROOT.resolve("README.md"), 1, "yaml", "distributed-lock:\n  lease-time: 30s\n", null);
		Block badValue = new Block(ROOT.resolve("README.md"), 1, "yaml", "distributed-lock:\n  lease: soon\n", null);
		Map<String, ConfigurationMetadataProperty> known = metadata();
		assertThat(bind(typo, known)).isNotEmpty();
		assertThat(bind(badValue, known)).isNotEmpty();
	}

	@Test
	void shouldLinkOnlyToFilesAndHeadingsThatExist() throws IOException {
		List<String> problems = new ArrayList<>();
		int links = 0;
		for (Path document : documents()) {
			String text = withoutCode(Files.readString(document));
			Matcher link = LINK.matcher(text);
			while (link.find()) {
				String target = link.group(1);
				if (target.matches("^[a-z]+:.*")) {
					continue;
				}
				links++;
				int hash = target.indexOf('#');
				String file = (hash >= 0) ? target.substring(0, hash) : target;
				Path resolved = file.isEmpty() ? document : document.getParent().resolve(file).normalize();
				if (!Files.exists(resolved)) {
					problems.add(ROOT.relativize(document) + ": link to " + target + ", which does not exist");
				}
				else if (hash >= 0 && !anchors(resolved).contains(target.substring(hash + 1))) {
					problems.add(ROOT.relativize(document) + ": link to " + target + ", a heading "
							+ ROOT.relativize(resolved) + " does not have");
				}
			}
		}
		assertThat(problems).as("broken links").isEmpty();
		assertThat(links).as("relative links checked").isGreaterThan(50);
	}

	private static @Nullable String compare(Block block, String marker) throws IOException {
		int hash = marker.indexOf('#');
		Path source = ROOT.resolve((hash >= 0) ? marker.substring(0, hash) : marker).normalize();
		String sourcePath = ROOT.relativize(source).toString();
		if (!sourcePath.matches(".*/src/(test|main)/(java|kotlin)/.*\\.(java|kt)")) {
			return marker + " is not a source file that the build compiles";
		}
		if (!Files.isRegularFile(source)) {
			return marker + " does not exist";
		}
		List<String> lines = Files.readAllLines(source);
		String shown = (hash >= 0) ? region(lines, marker.substring(hash + 1)) : afterPackage(lines);
		if (shown == null) {
			return marker + " has no such region";
		}
		if (!shown.equals(block.content())) {
			return "differs from " + marker + "; the source has:\n" + shown;
		}
		return null;
	}

	private static @Nullable String afterPackage(List<String> lines) {
		for (int i = 0; i < lines.size(); i++) {
			if (lines.get(i).startsWith("package ")) {
				int from = i + 1;
				while (from < lines.size() && lines.get(from).isBlank()) {
					from++;
				}
				return join(lines.subList(from, lines.size()));
			}
		}
		return null;
	}

	private static @Nullable String region(List<String> lines, String name) {
		int start = -1;
		int end = -1;
		for (int i = 0; i < lines.size(); i++) {
			String line = lines.get(i).strip();
			if (line.equals("// tag::" + name + "[]")) {
				start = i;
			}
			else if (line.equals("// end::" + name + "[]")) {
				end = i;
			}
		}
		if (start < 0 || end < start) {
			return null;
		}
		List<String> body = lines.subList(start + 1, end);
		int indent = body.stream()
			.filter((line) -> !line.isBlank())
			.mapToInt((line) -> line.length() - line.stripLeading().length())
			.min()
			.orElse(0);
		return join(body.stream().map((line) -> line.isBlank() ? "" : line.substring(indent)).toList());
	}

	private static String join(List<String> lines) {
		int end = lines.size();
		while (end > 0 && lines.get(end - 1).isBlank()) {
			end--;
		}
		return String.join("\n", lines.subList(0, end));
	}

	/**
	 * Load the block as Boot loads an {@code application.yaml}; check that every key is a
	 * known property, and bind {@code distributed-lock.*} to the starter's properties,
	 * refusing keys that bind to nothing and values that don't convert.
	 */
	private static List<String> bind(Block block, Map<String, ConfigurationMetadataProperty> known) throws IOException {
		List<String> problems = new ArrayList<>();
		Map<String, Object> properties = new LinkedHashMap<>();
		Resource yaml = new ByteArrayResource(block.content().getBytes(StandardCharsets.UTF_8), block.toString());
		for (PropertySource<?> source : new YamlPropertySourceLoader().load(block.toString(), yaml)) {
			EnumerablePropertySource<?> enumerable = (EnumerablePropertySource<?>) source;
			for (String name : enumerable.getPropertyNames()) {
				properties.put(name, enumerable.getProperty(name));
			}
		}
		if (properties.isEmpty()) {
			problems.add(block + ": no properties");
		}
		for (String name : properties.keySet()) {
			String property = name.replaceAll("\\[\\d+]$", "");
			if (!known.containsKey(property) && !isMapEntry(property, known)) {
				problems.add(block + ": " + name + " is not a known property");
			}
		}
		Object inMemory = properties.remove(InMemoryLockAutoConfiguration.PROPERTY);
		Map<String, Object> lockProperties = new HashMap<>(properties);
		Binder binder = new Binder(
				ConfigurationPropertySources.from(new MapPropertySource(block.toString(), lockProperties)));
		try {
			binder.bind("distributed-lock", Bindable.of(DistributedLockProperties.class),
					new NoUnboundElementsBindHandler(new IgnoreTopLevelConverterNotFoundBindHandler()));
			if (inMemory != null) {
				BindResult<Boolean> bound = new Binder(ConfigurationPropertySources
					.from(new MapPropertySource("in-memory", Map.of(InMemoryLockAutoConfiguration.PROPERTY, inMemory))))
					.bind(InMemoryLockAutoConfiguration.PROPERTY, Boolean.class);
				assertThat(bound.isBound()).isTrue();
			}
		}
		catch (RuntimeException ex) {
			problems.add(block + ": does not bind: " + ex.getMessage()
					+ ((ex.getCause() != null) ? " (" + ex.getCause().getMessage() + ")" : ""));
		}
		return problems;
	}

	private static boolean isMapEntry(String name, Map<String, ConfigurationMetadataProperty> known) {
		for (ConfigurationMetadataProperty property : known.values()) {
			String type = property.getType();
			if (type != null && type.startsWith("java.util.Map<") && name.startsWith(property.getId() + ".")) {
				return true;
			}
		}
		return false;
	}

	private static Map<String, ConfigurationMetadataProperty> metadata() throws IOException {
		ConfigurationMetadataRepositoryJsonBuilder builder = ConfigurationMetadataRepositoryJsonBuilder.create();
		for (Resource resource : new PathMatchingResourcePatternResolver()
			.getResources("classpath*:META-INF/spring-configuration-metadata.json")) {
			try (InputStream in = resource.getInputStream()) {
				builder.withJsonResource(in);
			}
		}
		ConfigurationMetadataRepository repository = builder.build();
		return repository.getAllProperties();
	}

	private static List<Path> documents() throws IOException {
		List<Path> documents = new ArrayList<>();
		documents.add(ROOT.resolve("README.md"));
		try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(documents::add);
		}
		return documents;
	}

	private static List<Block> blocks() throws IOException {
		List<Block> blocks = new ArrayList<>();
		for (Path document : documents()) {
			List<String> lines = Files.readAllLines(document);
			for (int i = 0; i < lines.size(); i++) {
				Matcher fence = FENCE.matcher(lines.get(i));
				if (!fence.matches()) {
					continue;
				}
				String indent = fence.group(1);
				int end = i + 1;
				while (end < lines.size() && !lines.get(end).equals(indent + "```")) {
					end++;
				}
				assertThat(end).as(ROOT.relativize(document) + ":" + (i + 1) + " has a block that is never closed")
					.isLessThan(lines.size());
				List<String> content = new ArrayList<>();
				for (String line : lines.subList(i + 1, end)) {
					content.add(line.startsWith(indent) ? line.substring(indent.length()) : line.stripLeading());
				}
				Matcher marker = (i > 0) ? MARKER.matcher(lines.get(i - 1)) : null;
				blocks.add(new Block(document, i + 1, fence.group(2), String.join("\n", content),
						(marker != null && marker.matches()) ? marker.group(1) : null));
				i = end;
			}
		}
		return blocks;
	}

	/**
	 * Return the anchors GitHub gives the headings of a Markdown file: lower case, only
	 * letters, digits, spaces, hyphens and underscores kept, spaces made hyphens, a
	 * number appended to repeats.
	 */
	private static Set<String> anchors(Path file) throws IOException {
		Set<String> anchors = new TreeSet<>();
		if (!file.toString().endsWith(".md")) {
			return anchors;
		}
		Map<String, Integer> seen = new HashMap<>();
		for (String line : withoutCode(Files.readString(file)).split("\n")) {
			Matcher heading = HEADING.matcher(line);
			if (heading.matches()) {
				StringBuilder slug = new StringBuilder();
				heading.group(1).strip().toLowerCase().codePoints().forEach((c) -> {
					if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
						slug.appendCodePoint(c);
					}
					else if (c == ' ') {
						slug.append('-');
					}
				});
				int repeats = seen.merge(slug.toString(), 1, Integer::sum);
				anchors.add((repeats == 1) ? slug.toString() : slug + "-" + (repeats - 1));
			}
		}
		return anchors;
	}

	private static String withoutCode(String markdown) {
		StringBuilder text = new StringBuilder();
		boolean inCode = false;
		for (String line : markdown.split("\n", -1)) {
			if (line.strip().startsWith("```")) {
				inCode = !inCode;
			}
			else if (!inCode) {
				text.append(line).append('\n');
			}
		}
		return text.toString();
	}

	/**
	 * A fenced code block of a Markdown file.
	 *
	 * @param document the file
	 * @param line the line of its opening fence
	 * @param language the fence's info string
	 * @param content the lines between the fences, without the fences' indentation
	 * @param marker the {@code path} or {@code path#region} of the snippet line before
	 * it, if any
	 */
	private record Block(Path document, int line, String language, String content, @Nullable String marker) {

		@Override
		public String toString() {
			return ROOT.relativize(this.document) + ":" + this.line;
		}

	}

}
