package io.github.distributedlock.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every class and method that {@code README.md} and {@code docs/} cite in backticks
 * ({@code LockTemplate}, {@code LockHold.release},
 * {@code LockRequest.Builder#onLeaseLost}) is declared in the sources of some module, so
 * that a rename or a removal fails here instead of leaving a page that points at nothing.
 * A name is an {@code UpperCamel} token, with a {@code .lowerCamel} or
 * {@code #lowerCamel} member if one follows; a method, field or record component counts
 * when a file that declares the class declares it. Names of other projects are listed
 * below, each with where it comes from; a name qualified by another project's package
 * ({@code java.util.concurrent.locks.Lock}) is not checked.
 */
class DocumentedNamesTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Pattern FENCE = Pattern.compile("^ *```");

	private static final Pattern SPAN = Pattern.compile("`([^`]+)`");

	// Not part of a flag (-Dchaos), a JVM option (-XX:+UseSerialGC), a hyphenated header
	// (Automatic-Module-Name) or a wildcard (HandOffSafety*Tests).
	private static final Pattern NAME = Pattern.compile(
			"(?<![\\w$*+-])((?:[a-z]\\w*\\.)*)([A-Z][a-z0-9]+(?:[A-Z0-9][a-z0-9]*)*)(?:[.#]([a-z]\\w*))?(?![\\w*-])");

	private static final Pattern TYPE = Pattern.compile("(?m)^\\s*(?:(?:@\\w+|public|protected|private|static|final"
			+ "|abstract|sealed|non-sealed|strictfp|data|open|internal|inner|enum|annotation|value|fun)\\s+)*"
			+ "(?:class|interface|enum|record|object|@interface)\\s+([A-Z]\\w*)");

	private static final Pattern RECORD = Pattern.compile("record\\s+\\w+\\s*(?:<[^>]*>)?\\s*\\(([^)]*)\\)");

	private static final String MEMBER_PREFIX = "(?m)^\\s*(?:(?:@\\w+(?:\\([^)]*\\))?|public|protected|private"
			+ "|static|final|abstract|synchronized|default|override|suspend|inline|operator|internal|open|volatile"
			+ "|transient|<[^>]+>)\\s+)*(?:(?:fun|val|var)\\s+(?:<[^>]+>\\s+)?|(?!(?:return|throw|new|else|case"
			+ "|yield|assert)\\b)[\\w.$]+(?:<[^;=()]*>)?(?:\\[])*\\??\\s+)";

	// A file name (RedisLockTemplate.java, acquire.lua) or a class literal (Grant.class),
	// not a member.
	private static final Set<String> SUFFIXES = Set.of("class", "java", "kt", "lua", "md", "sh", "xml", "yaml", "yml",
			"json", "properties", "imports");

	private static final Set<String> OUR_PACKAGES = Set.of("io.github.distributedlock.", "com.example.");

	/** Names no module declares, by where they come from. */
	private static final Map<String, List<String>> NOT_OURS = Map.of(
			// Types of the JDK the pages compare with or return.
			"the JDK",
			List.of("ArithmeticException", "AutoCloseable", "BlockingQueue", "CancellationException",
					"CompletableFuture", "CompletionException", "CompletionStage", "Duration", "Flow", "Future",
					"IllegalArgumentException", "Integer", "InterruptibleChannel", "Long", "NullPointerException",
					"Optional", "Publisher", "ReentrantLock", "SecureRandom", "String", "System", "Thread"),
			// Annotations and types an application already uses with the starter.
			"Spring Framework and Spring Boot",
			List.of("AopUtils", "Async", "ClientResourcesBuilderCustomizer", "CoroutinesUtils", "EnableScheduling",
					"KotlinDetector", "Nullness", "Ordered", "Scheduled", "SmartLifecycle", "Transactional"),
			// The connection the engine runs on, and the exceptions its clients throw.
			"Spring Data Redis, Lettuce and Jedis",
			List.of("ClientResources", "JedisConnectionFactory", "JedisDataException", "QueryTimeoutException",
					"ReactiveRedisMessageListenerContainer", "RedisClusterClient", "RedisClusterConfiguration",
					"RedisCommandExecutionException", "RedisConnectionFactory", "RedisMessageListenerContainer",
					"RedisStandaloneConfiguration"),
			// The reactive types the reactive template and suspend functions work with.
			"Reactor and Kotlin coroutines", List.of("Flux", "Mono", "MonoSink", "ReactorContext", "Schedulers"),
			"Micrometer", List.of("MeterRegistry", "ObservationRegistry", "ObservationThreadLocalAccessor"),
			// The libraries the comparison and the benchmark measure against; Context is
			// Spring Integration's leader context.
			"the lock libraries compared",
			List.of("Context", "DefaultLockRegistry", "Lock4j", "LockRegistryLeaderInitiator", "RedisLockRegistry",
					"SchedulerLock"),
			// Words in backticks that name no type: a placeholder, a keyspace-events flag
			// string, the server in a formula.
			"not a type", List.of("ClassName", "Kgx", "Redis"));

	@Test
	void shouldNameOnlyClassesAndMethodsThatExist() throws IOException {
		Sources sources = Sources.scan();
		List<String> gone = new ArrayList<>();
		int checked = 0;
		for (Path page : pages()) {
			for (Cited cited : ours(cited(Files.readString(page)))) {
				checked++;
				if (!sources.declares(cited)) {
					gone.add(ROOT.relativize(page) + ":" + cited.line() + ": `" + cited + "`");
				}
			}
		}
		assertThat(gone).as("names the docs cite that no module declares").isEmpty();
		assertThat(checked).as("names checked").isGreaterThan(500);
	}

	@Test
	void shouldReportAClassOrMethodThatIsGone() {
		String page = """
				The release goes through `driver/LockHold.release`, not `LockHold.releaseTwice`,
				nor `NoSuchHold` or `io.github.distributedlock.NoSuchType`; `Mono.create` is Reactor's,
				`java.util.concurrent.locks.Lock` the JDK's and `HandOffSafety*Tests` a pattern.
				```
				`InsideACodeBlock`
				```
				""";
		Sources sources = Sources.scan();
		assertThat(ours(cited(page)).stream().filter((cited) -> !sources.declares(cited)).map(Cited::toString))
			.containsExactly("LockHold.releaseTwice", "NoSuchHold", "NoSuchType");
	}

	@Test
	void shouldListOnlyNamesOfOtherProjectsThatThePagesCite() throws IOException {
		Sources sources = Sources.scan();
		Set<String> cited = new LinkedHashSet<>();
		for (Path page : pages()) {
			cited(Files.readString(page)).forEach((name) -> cited.add(name.type()));
		}
		List<String> listed = NOT_OURS.values().stream().flatMap(List::stream).toList();
		// Spring Integration's Context shares its simple name with a private class of the
		// reactive handle, which no page cites.
		assertThat(listed.stream().filter(sources.types::containsKey))
			.as("names of other projects that a module declares too")
			.containsExactly("Context");
		assertThat(cited).as("names the pages cite").containsAll(listed);
	}

	private static List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>();
		pages.add(ROOT.resolve("README.md"));
		try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	/**
	 * Return the names cited in backticks outside code blocks, but for those qualified by
	 * another project's package and spans that quote a message.
	 */
	private static List<Cited> cited(String page) {
		List<Cited> names = new ArrayList<>();
		boolean inCode = false;
		String[] lines = page.split("\n", -1);
		for (int i = 0; i < lines.length; i++) {
			if (FENCE.matcher(lines[i]).find()) {
				inCode = !inCode;
				continue;
			}
			Matcher span = SPAN.matcher(lines[i]);
			while (!inCode && span.find()) {
				if (span.group(1).contains("'") || span.group(1).contains("\"")) {
					continue;
				}
				Matcher name = NAME.matcher(span.group(1));
				while (name.find()) {
					if (name.group(1).isEmpty() || OUR_PACKAGES.stream().anyMatch(name.group(1)::startsWith)) {
						String member = (name.group(3) != null && !SUFFIXES.contains(name.group(3))) ? name.group(3)
								: null;
						names.add(new Cited(i + 1, name.group(2), member));
					}
				}
			}
		}
		return names;
	}

	private static List<Cited> ours(List<Cited> cited) {
		return cited.stream()
			.filter((name) -> NOT_OURS.values().stream().noneMatch((names) -> names.contains(name.type())))
			.toList();
	}

	/**
	 * A name cited on a line of a page.
	 *
	 * @param line the line
	 * @param type the class
	 * @param member the method, field or record component, if any
	 */
	private record Cited(int line, String type, @Nullable String member) {

		@Override
		public String toString() {
			return (this.member != null) ? this.type + "." + this.member : this.type;
		}

	}

	/**
	 * The classes the modules declare under {@code src/main} and {@code src/test}, in
	 * Java and Kotlin, and the files that declare each.
	 */
	private record Sources(Map<String, List<Path>> types, Map<Path, String> texts) {

		static Sources scan() {
			Sources sources = new Sources(new HashMap<>(), new HashMap<>());
			try (Stream<Path> modules = Files.list(ROOT)) {
				for (Path module : modules.filter((path) -> Files.isDirectory(path.resolve("src"))).toList()) {
					try (Stream<Path> files = Files.walk(module.resolve("src"))) {
						files.filter((path) -> path.toString().endsWith(".java") || path.toString().endsWith(".kt"))
							.forEach(sources::read);
					}
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			assertThat(sources.types).as("classes the modules declare").containsKeys("LockTemplate", "LockHold");
			return sources;
		}

		private void read(Path file) {
			try {
				String text = Files.readString(file);
				this.texts.put(file, text);
				Matcher type = TYPE.matcher(text);
				while (type.find()) {
					this.types.computeIfAbsent(type.group(1), (name) -> new ArrayList<>()).add(file);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		boolean declares(Cited cited) {
			List<Path> files = this.types.get(cited.type());
			if (files == null || cited.member() == null) {
				return files != null;
			}
			Pattern member = Pattern.compile(MEMBER_PREFIX + Pattern.quote(cited.member()) + "\\s*[(=;:]");
			Pattern component = Pattern.compile("\\b" + Pattern.quote(cited.member()) + "\\s*$");
			for (Path file : files) {
				String text = this.texts.get(file);
				if (member.matcher(text).find()) {
					return true;
				}
				Matcher record = RECORD.matcher(text);
				while (record.find()) {
					for (String part : record.group(1).split(",")) {
						if (component.matcher(part).find()) {
							return true;
						}
					}
				}
			}
			return false;
		}

	}

}
