package io.github.distributedlock.autoconfigure;

/**
 * Thrown when a {@code distributed-lock.*} property has a value the lock engine refuses.
 */
class InvalidLockPropertyException extends IllegalArgumentException {

	private final String property;

	private final Object value;

	private final String requirement;

	/**
	 * Create an exception.
	 * @param property the full name of the property, such as
	 * {@code distributed-lock.lease}
	 * @param value its bound value
	 * @param requirement what a valid value is, completing "it must be ...", such as "at
	 * least 1s"
	 */
	InvalidLockPropertyException(String property, Object value, String requirement) {
		super("Invalid value '" + value + "' for configuration property '" + property + "': it must be " + requirement);
		this.property = property;
		this.value = value;
		this.requirement = requirement;
	}

	String getProperty() {
		return this.property;
	}

	Object getValue() {
		return this.value;
	}

	String getRequirement() {
		return this.requirement;
	}

}
