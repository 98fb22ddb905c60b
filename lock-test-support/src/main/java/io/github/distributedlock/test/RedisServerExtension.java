package io.github.distributedlock.test;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit Jupiter extension that injects a real {@link RedisServer} into test constructors,
 * test methods and lifecycle methods.
 * <p>
 * With {@code @ExtendWith(RedisServerExtension.class)} every test class shares one server
 * per JVM, found by {@link RedisServers#start()} on first use and flushed before each
 * top-level test class; it may be external, so such tests must not stop or pause it, and
 * test classes sharing it must not run in parallel. With
 * {@code @RegisterExtension static RedisServerExtension redis = RedisServerExtension.dedicated();}
 * the test class gets its own {@link RedisProcess}, launched before all its tests and
 * closed after them, which it may stop, pause and kill through {@link #managedServer()};
 * parameters may then also be declared as {@link ManagedRedisServer} or
 * {@link RedisProcess}.
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

	private static final Namespace NAMESPACE = Namespace.create(RedisServerExtension.class);

	private static final String SHARED_SERVER = "sharedServer";

	private final boolean dedicated;

	private final @Nullable Supplier<Path> binary;

	private final List<String> extraArgs;

	private final int sinceMajor;

	private final String needs;

	private volatile @Nullable RedisServer server;

	private volatile @Nullable String owner;

	/**
	 * Create an extension that hands out the shared server, as {@code @ExtendWith} does.
	 */
	public RedisServerExtension() {
		this(false, null, List.of(), 0, "");
	}

	private RedisServerExtension(boolean dedicated, @Nullable Supplier<Path> binary, List<String> extraArgs,
			int sinceMajor, String needs) {
		this.dedicated = dedicated;
		this.binary = binary;
		this.extraArgs = List.copyOf(extraArgs);
		this.sinceMajor = sinceMajor;
		this.needs = needs;
	}

	/**
	 * Create an extension that launches a {@link RedisProcess} for the test class that
	 * registers it in a static field.
	 * @param extraArgs arguments appended to the {@code redis-server} command line
	 * @return the extension
	 */
	public static RedisServerExtension dedicated(String... extraArgs) {
		return new RedisServerExtension(true, null, List.of(extraArgs), 0, "");
	}

	/**
	 * Return this extension for a test class that needs a newer Redis than the oldest
	 * supported (6.2, the one bundled for machines without {@code redis-server}): where
	 * the server it would launch is older, the class is skipped, or fails with
	 * {@code CI=true} ({@link RedisServers#assumeAtLeast(int, String)}).
	 * @param major the oldest major version the class needs
	 * @param needs what needs it, for the message
	 * @return a new extension
	 */
	public RedisServerExtension since(int major, String needs) {
		return new RedisServerExtension(this.dedicated, this.binary, this.extraArgs, major, needs);
	}

	/**
	 * Create an extension that launches a {@link RedisProcess} of the given binary for
	 * the test class that registers it in a static field, such as
	 * {@link BundledRedis#redis62()}.
	 * @param binary the {@code redis-server} executable, looked up when the test class
	 * starts
	 * @param extraArgs arguments appended to the {@code redis-server} command line
	 * @return the extension
	 */
	public static RedisServerExtension dedicated(Supplier<Path> binary, String... extraArgs) {
		return new RedisServerExtension(true, binary, List.of(extraArgs), 0, "");
	}

	/**
	 * Return the server of the running test class.
	 * @return the server, a {@link RedisProcess} for {@link #dedicated(String...)}
	 * extensions
	 * @throws IllegalStateException outside the test class's lifecycle, or when a
	 * dedicated extension is not registered in a static field
	 */
	public RedisServer server() {
		RedisServer current = this.server;
		if (current == null) {
			throw new IllegalStateException("No Redis server yet: register RedisServerExtension with "
					+ "@RegisterExtension on a static field and use server() from tests or @BeforeAll methods");
		}
		return current;
	}

	/**
	 * Return the server of the running test class, which the test may stop, pause and
	 * kill.
	 * @return the server launched for the test class
	 * @throws IllegalStateException for the shared server, which may be external, or
	 * outside the test class's lifecycle
	 */
	public ManagedRedisServer managedServer() {
		if (!this.dedicated) {
			throw new IllegalStateException("The shared Redis server may be external and cannot be stopped or paused: "
					+ "register RedisServerExtension.dedicated() instead");
		}
		return (ManagedRedisServer) server();
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		if (this.sinceMajor > 0) {
			RedisServers.assumeAtLeast(this.sinceMajor, this.needs);
		}
		if (this.dedicated) {
			// Nested classes inherit the extension and reuse the server of the class that
			// registered it.
			if (this.server == null) {
				String[] args = this.extraArgs.toArray(new String[0]);
				this.server = (this.binary != null)
						? RedisProcess.builder().binary(this.binary.get()).args(args).launch()
						: RedisServers.launch(args);
				this.owner = context.getUniqueId();
			}
			return;
		}
		RedisServer shared = shared(context);
		this.server = shared;
		if (context.getParent().flatMap(ExtensionContext::getParent).isEmpty()) {
			shared.flushAll();
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (this.dedicated && context.getUniqueId().equals(this.owner)) {
			RedisServer current = this.server;
			this.server = null;
			this.owner = null;
			if (current != null) {
				current.close();
			}
		}
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		Class<?> type = parameterContext.getParameter().getType();
		return type == RedisServer.class
				|| (this.dedicated && (type == ManagedRedisServer.class || type == RedisProcess.class));
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return this.dedicated ? server() : shared(extensionContext);
	}

	private static RedisServer shared(ExtensionContext context) {
		// The root store closes AutoCloseable values when the engine finishes, so the
		// server ends with the run.
		return context.getRoot()
			.getStore(NAMESPACE)
			.computeIfAbsent(SHARED_SERVER, (key) -> RedisServers.start(), RedisServer.class);
	}

}
