/**
 * Real Redis servers for tests: launched {@code redis-server} processes, an external
 * server or a container, Sentinel and Cluster topologies of launched processes, and JUnit
 * extensions that hand them to tests.
 */
@NullMarked
package io.github.distributedlock.test;

import org.jspecify.annotations.NullMarked;
