package io.github.distributedlock.sample;

import java.time.Duration;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * Configuration writes through {@link LockTemplate}, passing the fencing token to the
 * store.
 * <p>
 * The value is the request body as sent, whatever its content type: {@code curl -d on}
 * sends it form-encoded, which is why {@code application.yml} turns Boot's form content
 * filter off.
 */
@RestController
class ConfigController {

	private final LockTemplate locks;

	private final FencedConfigStore store;

	ConfigController(LockTemplate locks, FencedConfigStore store) {
		this.locks = locks;
		this.store = store;
	}

	@PutMapping("/config/{key}")
	ConfigWrite write(@PathVariable String key, @RequestBody String value) {
		LockRequest request = LockRequest.builder("config").key(key).lease(Duration.ofSeconds(5)).build();
		return this.locks.execute(request, (lock) -> {
			if (!this.store.write(key, value, lock.fencingToken())) {
				// A later holder already wrote: our lease must have run out while we
				// worked.
				throw new ResponseStatusException(HttpStatus.CONFLICT, "stale fencing token " + lock.fencingToken());
			}
			return new ConfigWrite(key, value, lock.fencingToken());
		});
	}

	@GetMapping("/config/{key}")
	@Nullable String read(@PathVariable String key) {
		return this.store.read(key);
	}

	/**
	 * An accepted configuration write.
	 *
	 * @param key the entry
	 * @param value the value
	 * @param fencingToken the token it was written with
	 */
	record ConfigWrite(String key, String value, long fencingToken) {

	}

}
