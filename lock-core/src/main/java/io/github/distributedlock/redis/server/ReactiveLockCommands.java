package io.github.distributedlock.redis.server;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.script.LockKind;
import io.github.distributedlock.redis.script.LuaScript;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * The reactive counterpart of {@code LockCommands}: runs the scripts a {@link LockKind}
 * builds on Spring Data Redis's reactive connection, with {@code EVALSHA} falling back to
 * {@code EVAL}. Every method sends its command on subscription; Redis errors become
 * {@link LockAccessException}s naming the lock. Thread-safe.
 */
public final class ReactiveLockCommands {

	private final ReactiveRedisConnectionFactory connectionFactory;

	// Whether the factory gave a connection once: its shared one is open from then on.
	private volatile boolean opened;

	public ReactiveLockCommands(ReactiveRedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Return the factory's reactive connection, asked for on subscription. Lettuce's
	 * factory opens its shared connection on the first ask and waits there for the
	 * handshake, up to the connect timeout, however long Redis stalls: until it gave one,
	 * it is asked on a thread that may wait, never the subscriber's, which may be an
	 * event loop's or a caller's that must not wait past its call's bound.
	 */
	public Mono<ReactiveRedisConnection> connection() {
		Mono<ReactiveRedisConnection> connection = Mono.fromSupplier(() -> {
			ReactiveRedisConnection given = this.connectionFactory.getReactiveConnection();
			this.opened = true;
			return given;
		});
		return this.opened ? connection : connection.subscribeOn(Schedulers.boundedElastic());
	}

	/**
	 * Ask Redis whether a hold is still its lock's owner (or reader, or permit holder).
	 */
	public Mono<Boolean> isHeld(Grant hold) {
		LockSpec spec = hold.spec();
		String owner = LockOwners.digest(hold.owner());
		long token = hold.token();
		ScriptCall call = spec.kind().isHeld(spec, hold.owner(), token, hold.hold());
		if (call != null) {
			// A reader or a permit: its script says.
			return run(spec.name(), "check", call).map((result) -> ((Number) result).longValue() == 1);
		}
		return Mono
			.usingWhen(connection(),
					(connection) -> connection.hashCommands()
						.hMGet(bytes(spec.lockKey()), List.of(bytes("owner"), bytes("token"))),
					ReactiveRedisConnection::closeLater)
			.map((values) -> owner.equals(text(values.get(0))) && Long.toString(token).equals(text(values.get(1))))
			.onErrorMap(DataAccessException.class, (ex) -> ScriptRunner.failure(spec.name(), "check", ex));
	}

	public Mono<Object> run(LockName name, String operation, ScriptCall call) {
		// Deferred, so that a call that fails to encode fails the Mono, not its caller.
		return Mono.defer(() -> {
			LuaScript<?> script = call.script();
			byte[][] encoded = ScriptRunner.encode(call);
			int keyCount = call.keys().size();
			return Mono.usingWhen(connection(), (connection) -> evaluate(connection, script, keyCount, encoded),
					ReactiveRedisConnection::closeLater);
		})
			// A client's failure, or one of the factory (stopped), names the lock.
			.onErrorMap((ex) -> !(ex instanceof LockException), (ex) -> ScriptRunner.failure(name, operation, ex))
			.switchIfEmpty(Mono
				.error(() -> new LockAccessException(name, "no reply from the " + operation + " script", null)));
	}

	private static Mono<Object> evaluate(ReactiveRedisConnection connection, LuaScript<?> script, int keyCount,
			byte[][] encoded) {
		String sha = new String(script.sha1(), StandardCharsets.US_ASCII);
		return reply(connection.scriptingCommands().evalSha(sha, script.returnType(), keyCount, buffers(encoded)),
				script.returnType())
			.onErrorResume(ScriptRunner::isNoScript,
					(ex) -> reply(
							connection.scriptingCommands()
								.eval(ByteBuffer.wrap(script.text()), script.returnType(), keyCount, buffers(encoded)),
							script.returnType()));
	}

	/**
	 * One reply: an integer, or for a multi-bulk script a list, which the client may emit
	 * as one element or as its elements.
	 */
	private static Mono<Object> reply(Flux<Object> values, ReturnType type) {
		return values.collectList().flatMap((list) -> {
			if (type != ReturnType.MULTI) {
				return Mono.justOrEmpty(list.isEmpty() ? null : list.get(0));
			}
			return Mono.just((list.size() == 1 && list.get(0) instanceof List<?> nested) ? nested : list);
		});
	}

	private static ByteBuffer[] buffers(byte[][] encoded) {
		ByteBuffer[] buffers = new ByteBuffer[encoded.length];
		for (int i = 0; i < encoded.length; i++) {
			buffers[i] = ByteBuffer.wrap(encoded[i]);
		}
		return buffers;
	}

	private static ByteBuffer bytes(String text) {
		return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
	}

	private static @Nullable String text(@Nullable ByteBuffer value) {
		return (value != null) ? StandardCharsets.UTF_8.decode(value.duplicate()).toString() : null;
	}

}
