package io.github.distributedlock.benchmark.jmh;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The in-process cost of running work under a lock, with Redis taken out: a
 * {@link LockTemplate} whose locks are free and local, so only the template's own path
 * (request, handle, lock context) is measured.
 * <p>
 * Placeholder for "aspect overhead vs direct LockTemplate": when the {@code aop} package
 * with {@code @DistributedLock} exists, add a benchmark that calls an annotated method of
 * a proxied bean backed by the same {@link #freeLockTemplate()}, and compare it with
 * {@link #directTemplate()}. This module must not depend on the aspect before it exists.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TemplateOverheadBenchmark {

	private static final LockName NAME = LockName.of("server_access", "42");

	private final LockTemplate template = freeLockTemplate();

	private final LockRequest request = LockRequest.of("server_access", "42");

	@Benchmark
	public long directTemplate() {
		return this.template.execute(this.request, (context) -> context.fencingToken());
	}

	@Benchmark
	public long handleWithTryWithResources() {
		try (LockHandle handle = this.template.acquire(this.request)) {
			return handle.fencingToken();
		}
	}

	/**
	 * Return a template whose every lock is free at once and held only in memory. It is a
	 * proxy so that it keeps compiling while {@link LockTemplate} grows; the default
	 * methods, such as {@code execute}, run as written, and the proxy's own dispatch
	 * (tens of nanoseconds) is part of every figure.
	 */
	static LockTemplate freeLockTemplate() {
		LockHandle handle = proxy(LockHandle.class, (proxy, method, args) -> switch (method.getName()) {
			case "name" -> NAME;
			case "fencingToken" -> 42L;
			case "waited" -> false;
			case "isHeld" -> true;
			case "attempts" -> 1;
			case "waitedFor", "remainingLease" -> Duration.ZERO;
			case "close", "extend" -> null;
			default -> objectMethod(proxy, method, args);
		});
		Map<Method, MethodHandle> defaults = defaultMethods();
		return proxy(LockTemplate.class, (proxy, method, args) -> {
			MethodHandle body = defaults.get(method);
			if (body != null) {
				Object receiver = proxy;
				Object[] arguments = (args != null) ? args : new Object[0];
				return (Object) body.invokeExact(receiver, arguments);
			}
			return switch (method.getName()) {
				case "acquire" -> handle;
				case "tryAcquire" -> Optional.of(handle);
				default -> objectMethod(proxy, method, args);
			};
		});
	}

	/**
	 * Return handles on the interface's own default methods.
	 * {@code InvocationHandler.invokeDefault} would do, but costs about a microsecond per
	 * call, which would swamp what is measured here.
	 */
	private static Map<Method, MethodHandle> defaultMethods() {
		Map<Method, MethodHandle> handles = new HashMap<>();
		try {
			MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(LockTemplate.class, MethodHandles.lookup());
			for (Method method : LockTemplate.class.getMethods()) {
				if (method.isDefault()) {
					int arity = method.getParameterCount();
					// (Object receiver, Object[] arguments) -> Object, so that
					// invokeExact needs no per-call adaptation.
					handles.put(method,
							lookup.unreflectSpecial(method, LockTemplate.class)
								.asType(MethodType.genericMethodType(arity + 1))
								.asSpreader(Object[].class, arity));
				}
			}
		}
		catch (IllegalAccessException ex) {
			throw new IllegalStateException("Cannot call the default methods of LockTemplate", ex);
		}
		return handles;
	}

	private static Object objectMethod(Object proxy, Method method, Object @Nullable [] args) {
		return switch (method.getName()) {
			case "hashCode" -> System.identityHashCode(proxy);
			case "equals" -> args != null && proxy == args[0];
			case "toString" -> "FreeLock";
			default -> throw new UnsupportedOperationException(method.getName());
		};
	}

	private static <T> T proxy(Class<T> type, InvocationHandler handler) {
		return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, handler));
	}

}
