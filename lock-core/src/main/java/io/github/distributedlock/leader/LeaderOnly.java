package io.github.distributedlock.leader;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.github.distributedlock.LeaseLossPolicy;

import org.springframework.core.annotation.AliasFor;

/**
 * Runs the annotated method only while this instance leads its role, and skips the call
 * otherwise, typically under {@code @Scheduled}: <pre class="code">
 * &#64;Scheduled(fixedDelay = 1000)
 * &#64;LeaderOnly("outbox")
 * void publishOutbox() {
 *     outbox.publish(LeaderContext.current().fencingToken());
 * }
 * </pre> A skipped call returns {@code null}, or an empty {@code Optional}; methods
 * returning a primitive other than {@code void} are refused when their bean is proxied.
 * Inside, {@link LeaderContext#current()} is the term the call runs in. The role must
 * have a {@link LeaderInitiator}, or be one this instance abstains from (with Boot,
 * {@code distributed-lock.leader.roles.<role>.enabled=false}), whose calls are always
 * skipped. A role of neither kind fails the startup with
 * {@link UnknownLeaderRoleException} (see {@link LeaderOnlyAdvisor}), and a call for it
 * on a bean created later throws {@link IllegalArgumentException}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

	/**
	 * Alias for {@link #role()}.
	 * @return the role
	 */
	@AliasFor("role")
	String value() default "";

	/**
	 * The role this instance must lead for the method to run.
	 * @return the role
	 */
	@AliasFor("value")
	String role() default "";

	/**
	 * What happens to a call in progress when the term ends (yielded, stopped, lost or
	 * expiring): {@link LeaseLossPolicy#INTERRUPT} interrupts its thread at once;
	 * {@link LeaseLossPolicy#CONTINUE} lets it run on, and a yielding or stopping leader
	 * keeps the lock until it ends (up to one lease).
	 * @return the policy
	 */
	LeaseLossPolicy onLeadershipLost() default LeaseLossPolicy.CONTINUE;

}
