package io.github.distributedlock.webflux;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.distributedlock.test.JvmProcess;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Three JVMs run {@link OrdersApplication} on Netty against one redis-server, and HTTP
 * requests call its reactive {@code @DistributedLock(scope = "orders", key = "#id")}
 * method concurrently in all of them. The sections of an id, as Redis recorded them,
 * never overlap and carry increasing fencing tokens; a request whose client disconnects
 * in the middle of its section frees the lock for another JVM at once, long before the
 * lease (30 s) or the section (20 s) would have ended.
 */
class WebFluxLockIT {

	private static final int INSTANCES = 3;

	private static final Duration STARTUP = Duration.ofSeconds(120);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@TempDir
	static Path logs;

	private static final List<JvmProcess> instances = new ArrayList<>();

	private static final List<Integer> ports = new ArrayList<>();

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(10))
		.build();

	@BeforeAll
	static void startInstances() {
		RedisServer server = redis.server();
		for (int i = 0; i < INSTANCES; i++) {
			String name = "orders-" + i;
			instances.add(JvmProcess.builder(OrdersApplication.class)
				.name(name)
				.errorTo(logs.resolve(name + ".log"))
				.lines((line) -> echoLogLine(name, line))
				.args("--server.port=0", "--spring.data.redis.url=" + server.uri(), "--orders.instance=p" + i,
						"--spring.main.banner-mode=off", "--logging.level.root=WARN")
				.start());
		}
		for (JvmProcess instance : instances) {
			ports.add(Integer.parseInt(instance.awaitLine("PORT ", STARTUP).substring(5)));
		}
	}

	@AfterAll
	static void stopInstances() {
		instances.forEach(JvmProcess::close);
	}

	/**
	 * Pass the port line on; echo the rest (the application's log, warnings and errors
	 * only) to this JVM's standard error, so a failed start shows why.
	 */
	private static String echoLogLine(String name, String line) {
		if (!line.startsWith("PORT ")) {
			System.err.println(name + ": " + line);
		}
		return line;
	}

	@Test
	void shouldNeverOverlapSectionsOfAnIdAcrossInstancesUnderConcurrentRequests() {
		int perInstance = 30;
		List<String> ids = List.of("a", "b");
		Random random = new Random(17);
		List<Call> calls = new ArrayList<>();
		for (int n = 0; n < INSTANCES * perInstance; n++) {
			int instance = n % INSTANCES;
			String id = ids.get((n / INSTANCES) % ids.size());
			long hold = 20 + random.nextInt(31);
			calls.add(new Call(id,
					this.http.sendAsync(get(instance, "/orders/" + id + "?hold=" + hold), BodyHandlers.ofString())));
		}
		Map<Integer, Integer> statuses = new HashMap<>();
		Map<String, Set<Long>> answeredTokens = new HashMap<>();
		for (Call call : calls) {
			HttpResponse<String> response = call.response().orTimeout(60, TimeUnit.SECONDS).join();
			statuses.merge(response.statusCode(), 1, Integer::sum);
			if (response.statusCode() == 200) {
				answeredTokens.computeIfAbsent(call.id(), (id) -> new TreeSet<>()).add(Long.valueOf(response.body()));
			}
		}
		// The wait time (20 s) is far longer than all the sections of an id together
		// (45 x at most 50 ms), so a 409 (timeout) would be a failure too.
		assertThat(statuses).as("responses by status").containsExactly(Map.entry(200, calls.size()));
		for (String id : ids) {
			List<Entry> entries = sections(id);
			long requests = calls.stream().filter((call) -> call.id().equals(id)).count();
			assertThat(entries).as("records of '%s'", id).hasSize((int) (2 * requests));
			assertThat(violations(entries)).as("sections of '%s' in the order Redis saw them: %s", id, entries)
				.isEmpty();
			Set<Long> recordedTokens = entries.stream()
				.map(Entry::token)
				.collect(Collectors.toCollection(TreeSet::new));
			assertThat(recordedTokens).as("tokens recorded for '%s'", id).isEqualTo(answeredTokens.get(id));
			assertThat(entries.stream().map(Entry::instance).collect(Collectors.toSet()))
				.as("instances that ran sections of '%s'", id)
				.containsExactlyInAnyOrder("p0", "p1", "p2");
		}
	}

	@Test
	void shouldFreeTheLockForAnotherInstanceWhenTheClientDisconnectsInTheMiddleOfTheSection() throws Exception {
		RedisServer server = redis.server();
		try (Socket disconnecting = new Socket("127.0.0.1", ports.get(0))) {
			OutputStream out = disconnecting.getOutputStream();
			out.write(("GET /orders/c?hold=20000 HTTP/1.1\r\nHost: localhost\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			await().atMost(Duration.ofSeconds(20)).until(() -> sections("c").size() == 1);
			Entry held = sections("c").get(0);
			assertThat(held.event()).isEqualTo("enter");
			assertThat(held.instance()).isEqualTo("p0");
			CompletableFuture<HttpResponse<String>> next = this.http.sendAsync(get(1, "/orders/c?hold=0"),
					BodyHandlers.ofString());
			// Waiting in the other JVM: its acquisition has filed its hand-off request
			// (the engine's key of the requests for this lock).
			await().atMost(Duration.ofSeconds(20))
				.until(() -> Long.valueOf(1).equals(server.command("EXISTS", "lock:{orders:c}:requests")));
			assertThat(next).isNotDone();
			long cancelledAt = System.nanoTime();
			disconnecting.close();
			HttpResponse<String> response = next.orTimeout(40, TimeUnit.SECONDS).join();
			Duration afterCancel = Duration.ofNanos(System.nanoTime() - cancelledAt);
			assertThat(response.statusCode()).as("response of the waiting instance: %s", response.body())
				.isEqualTo(200);
			long granted = Long.parseLong(response.body());
			assertThat(granted).isGreaterThan(held.token());
			assertThat(afterCancel).as("lock free after the disconnect, with a 30 s lease and a 20 s section")
				.isLessThan(Duration.ofSeconds(5));
			List<Entry> entries = sections("c");
			assertThat(entries).extracting(Entry::event, Entry::token, Entry::instance)
				.containsExactly(tuple("enter", held.token(), "p0"), tuple("enter", granted, "p1"),
						tuple("exit", granted, "p1"));
		}
	}

	private HttpRequest get(int instance, String path) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports.get(instance) + path))
			.timeout(Duration.ofSeconds(60))
			.GET()
			.build();
	}

	private static List<Entry> sections(String id) {
		Object entries = redis.server().command("LRANGE", "sections:" + id, "0", "-1");
		return ((List<?>) entries).stream().map((entry) -> Entry.parse(entry.toString())).toList();
	}

	/**
	 * Describe every way the records break "one section at a time, in token order": an
	 * enter that is not followed by the exit of the same hold, or a token not above the
	 * one before.
	 */
	private static List<String> violations(List<Entry> entries) {
		List<String> violations = new ArrayList<>();
		long previous = Long.MIN_VALUE;
		for (int i = 0; i + 1 < entries.size(); i += 2) {
			Entry enter = entries.get(i);
			Entry exit = entries.get(i + 1);
			if (!enter.event().equals("enter") || !exit.event().equals("exit") || enter.token() != exit.token()
					|| !enter.instance().equals(exit.instance())) {
				violations.add("records " + i + " and " + (i + 1) + " are not one section: " + enter + ", " + exit);
			}
			if (enter.token() <= previous) {
				violations.add("token " + enter.token() + " at record " + i + " is not above " + previous);
			}
			previous = enter.token();
		}
		return violations;
	}

	private record Call(String id, CompletableFuture<HttpResponse<String>> response) {
	}

	private record Entry(String event, long token, String instance, long millis) {

		static Entry parse(String line) {
			String[] parts = line.split(" ");
			return new Entry(parts[0], Long.parseLong(parts[1]), parts[2], Long.parseLong(parts[3]));
		}

	}

}
