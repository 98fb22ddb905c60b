package io.github.distributedlock.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of the lock library.
 */
public enum LockObservationDocumentation implements ObservationDocumentation {

	/**
	 * Acquiring one or more locks and running the protected work.
	 */
	LOCK {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultLockObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return HighCardinalityKeyNames.values();
		}

	};

	/**
	 * Low-cardinality key names: safe as metric tags.
	 */
	public enum LowCardinalityKeyNames implements KeyName {

		/**
		 * The scope of the lock, such as {@code server_access}.
		 */
		SCOPE {
			@Override
			public String asString() {
				return "lock.scope";
			}
		},

		/**
		 * How acquiring went: {@code acquired}, {@code timed_out} or {@code failed}, and
		 * {@code unknown} while in progress.
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "lock.outcome";
			}
		}

	}

	/**
	 * High-cardinality key names: for traces, never metric tags.
	 */
	public enum HighCardinalityKeyNames implements KeyName {

		/**
		 * The key (or keys, comma-separated) within the scope; empty for a lock on a
		 * whole scope.
		 */
		KEY {
			@Override
			public String asString() {
				return "lock.key";
			}
		},

		/**
		 * Where the lock was requested, such as the annotated method, or {@code none}.
		 */
		ORIGIN {
			@Override
			public String asString() {
				return "lock.origin";
			}
		}

	}

}
