/**
 * Real Redis servers for tests: launched {@code redis-server} processes, an external server or a container, and a
 * JUnit extension that hands them to tests.
 */
@NullMarked
package io.github.distributedlock.test;

import org.jspecify.annotations.NullMarked;
