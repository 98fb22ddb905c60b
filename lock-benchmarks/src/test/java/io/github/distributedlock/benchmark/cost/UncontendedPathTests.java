package io.github.distributedlock.benchmark.cost;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServerExtension;
import io.github.distributedlock.test.RedisServers;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.utility.JavaModule;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records the types of this project whose code one uncontended acquisition and release
 * run, and holds the list of {@code docs/how-it-works.md} to them. Every method of the
 * engine's and the API's types (not the test support's, not this module's) tells a
 * recorder that it runs, while one {@code LockTemplate.execute} of a warmed-up template
 * runs, from the call until the release's reply has been told.
 * <p>
 * Any thread's code counts, so this class runs in a JVM of its own (the module's pom): a
 * template of another test class could run its own code meanwhile.
 */
class UncontendedPathTests {

	private static final Path HOW_IT_WORKS = Path.of("..", "docs", "how-it-works.md");

	private static final Pattern SECTION = Pattern
		.compile("(?s)## The types of one uncontended acquisition\\n(.*?)\\n## ");

	private static final Pattern COUNT = Pattern
		.compile("runs code of (\\d+) of this project's types in (\\d+) folders");

	private static final Pattern ITEM = Pattern.compile("(?m)^\\d+\\. `([^`]+)`$");

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldRunTheTypesThatHowItWorksLists() throws Exception {
		// Functions (FUNCTION LOAD, FCALL) come with Redis 7; on 6.2 the scripts run with
		// EVALSHA, through other types.
		RedisServers.assumeAtLeast(7, "The path the page lists, with functions,");
		List<String> ran = recordOneAcquisition();

		String section = section();
		List<String> listed = new ArrayList<>();
		Matcher item = ITEM.matcher(section);
		while (item.find()) {
			listed.add(item.group(1));
		}
		assertThat(listed).as("the types docs/how-it-works.md lists, against those that ran")
			.containsExactlyInAnyOrderElementsOf(ran);
		Matcher count = COUNT.matcher(section);
		assertThat(count.find()).as("the count of the types in docs/how-it-works.md").isTrue();
		assertThat(Integer.parseInt(count.group(1))).as("types").isEqualTo(ran.size());
		long folders = ran.stream()
			.map((type) -> type.contains("/") ? type.substring(0, type.lastIndexOf('/')) : "")
			.distinct()
			.count();
		assertThat(Long.parseLong(count.group(2))).as("folders").isEqualTo(folders);
	}

	/**
	 * Return the types whose code ran, in the order they first ran, each as the page
	 * names it: its path below {@code io/github/distributedlock/}, a nested type after a
	 * dot, an anonymous one after a {@code $}.
	 * <p>
	 * The agent goes in after the warm-up, and rewrites the classes loaded by then. A
	 * class that first loads while the agent rewrites another is left as it is, without a
	 * word (Byte Buddy's guard against circular loading): before the warm-up, the page
	 * missed {@code LockName} when this test ran alone.
	 */
	private static List<String> recordOneAcquisition() throws InterruptedException {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(redis.server().host(),
				redis.server().port());
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration);
		factory.afterPropertiesSet();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
			LockRequest request = LockRequest.of("path", "one");
			// First uses (loading the functions, caches, the watchdog's timer) are not
			// the
			// path.
			for (int i = 0; i < 200; i++) {
				template.execute(request, (context) -> context.fencingToken());
			}
			// An uncontended acquisition finds no line: should the warm-up have waited,
			// its line's code would run beside the path until the linger ends.
			long quietBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
			while (template.waitQueueCount() > 0 && System.nanoTime() < quietBy) {
				Thread.sleep(10);
			}
			assertThat(template.waitQueueCount()).as("lines left from the warm-up").isZero();
			Instrumentation instrumentation = ByteBuddyAgent.install();
			List<Throwable> failures = new CopyOnWriteArrayList<>();
			ResettableClassFileTransformer transformer = new AgentBuilder.Default().disableClassFormatChanges()
				.with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
				.with(new AgentBuilder.Listener.Adapter() {

					@Override
					public void onError(String typeName, @Nullable ClassLoader loader, @Nullable JavaModule module,
							boolean loaded, Throwable error) {
						failures.add(error);
					}

				})
				.type(nameStartsWith("io.github.distributedlock.")
					.and(not(nameStartsWith("io.github.distributedlock.test.")))
					.and(not(nameStartsWith("io.github.distributedlock.benchmark."))))
				.transform((builder, type, loader, module, domain) -> builder
					.visit(Advice.to(PathRecorder.class).on(isMethod().and(not(isAbstract())))))
				.installOn(instrumentation);
			try {
				assertThat(failures).as("classes the agent could not rewrite").isEmpty();
				PathRecorder.start();
				template.execute(request, (context) -> context.fencingToken());
				return PathRecorder.stop()
					.stream()
					.map((type) -> type.substring("io.github.distributedlock.".length()))
					.map((type) -> type.replaceAll("\\.(?=.*\\.)", "/")
						.replaceFirst("^([^.$]*)\\.", "$1/")
						.replaceAll("\\$(?=[A-Za-z])", "."))
					.toList();
			}
			finally {
				transformer.reset(instrumentation, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
			}
		}
		finally {
			factory.destroy();
		}
	}

	private static String section() throws IOException {
		Matcher section = SECTION.matcher(Files.readString(HOW_IT_WORKS));
		assertThat(section.find()).as("the section of docs/how-it-works.md that lists the types").isTrue();
		return section.group(1);
	}

	/**
	 * Told of every method that starts running; its members are public, as the advice's
	 * code runs inside the engine's classes.
	 */
	public static final class PathRecorder {

		private static final Set<String> types = new LinkedHashSet<>();

		private static volatile boolean recording;

		private PathRecorder() {
		}

		@Advice.OnMethodEnter
		static void enter(@Advice.Origin("#t") String type) {
			record(type);
		}

		public static void record(String type) {
			if (recording) {
				synchronized (types) {
					types.add(type);
				}
			}
		}

		static void start() {
			recording = true;
		}

		static List<String> stop() {
			recording = false;
			synchronized (types) {
				return new ArrayList<>(types);
			}
		}

	}

}
