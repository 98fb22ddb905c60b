/**
 * Chaos tests: worker JVMs take locks through their own TCP proxies while faults are
 * injected into Redis, the network and the workers, and a history checker verifies mutual
 * exclusion, fencing and liveness.
 */
@NullMarked
package io.github.distributedlock.chaos;

import org.jspecify.annotations.NullMarked;
