package io.github.distributedlock.benchmark.worker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.distributedlock.benchmark.Acquisition;

/**
 * A growable buffer of acquisition stamps kept as primitives, so that recording allocates
 * next to nothing while a phase is measured. Not thread-safe: one per thread.
 */
final class AcquisitionBuffer {

	private static final int FIELDS = 6;

	private long[] values = new long[4096 * FIELDS];

	private int size;

	void add(int holder, int key, long requested, long acquired, long releasing, long released) {
		if (this.size + FIELDS > this.values.length) {
			this.values = Arrays.copyOf(this.values, this.values.length * 2);
		}
		this.values[this.size++] = holder;
		this.values[this.size++] = key;
		this.values[this.size++] = requested;
		this.values[this.size++] = acquired;
		this.values[this.size++] = releasing;
		this.values[this.size++] = released;
	}

	int count() {
		return this.size / FIELDS;
	}

	void addTo(List<Acquisition> target) {
		for (int i = 0; i < this.size; i += FIELDS) {
			target.add(new Acquisition((int) this.values[i], (int) this.values[i + 1], this.values[i + 2],
					this.values[i + 3], this.values[i + 4], this.values[i + 5]));
		}
	}

	static List<Acquisition> merge(List<AcquisitionBuffer> buffers) {
		List<Acquisition> all = new ArrayList<>();
		for (AcquisitionBuffer buffer : buffers) {
			buffer.addTo(all);
		}
		return all;
	}

}
