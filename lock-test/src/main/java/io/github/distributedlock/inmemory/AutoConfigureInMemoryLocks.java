package io.github.distributedlock.inmemory;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.test.context.TestPropertySource;

/**
 * Run a Spring test's locks in memory: the context gets an {@link InMemoryLockTemplate}
 * instead of the Redis one, and needs no Redis. The same as setting
 * {@code distributed-lock.in-memory=true}. <pre class="code">
 * &#64;SpringBootTest
 * &#64;AutoConfigureInMemoryLocks
 * class DeploymentServiceTests { ... }
 * </pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@TestPropertySource(properties = InMemoryLockAutoConfiguration.PROPERTY + "=true")
public @interface AutoConfigureInMemoryLocks {

}
