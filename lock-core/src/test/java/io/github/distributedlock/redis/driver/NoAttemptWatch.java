package io.github.distributedlock.redis.driver;

/**
 * An attempt watch told nothing, for tests that drive acquisitions without a
 * {@link HoldRegistry}, which is the watch a template passes.
 */
class NoAttemptWatch implements DriverCommands.AttemptWatch {

}
