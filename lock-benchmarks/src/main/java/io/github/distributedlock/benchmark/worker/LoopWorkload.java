package io.github.distributedlock.benchmark.worker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.benchmark.Acquisition;
import io.github.distributedlock.benchmark.AcquisitionFile;
import io.github.distributedlock.benchmark.LoopSpec;
import io.github.distributedlock.benchmark.worker.LockClient.Hold;
import org.jspecify.annotations.Nullable;

/**
 * One timed phase of a {@link LoopSpec}: each thread acquires, holds, releases and
 * records, until the end time.
 */
final class LoopWorkload {

	private static final int MAX_LOGGED_ERRORS = 5;

	/**
	 * Numbers the names of {@link LoopSpec.KeyChoice#DISTINCT} locks across every phase
	 * of this JVM, so that a name is never locked twice: the coordinator counts the keys
	 * that stay in Redis per distinct name.
	 */
	private static final AtomicLong UNIQUE_NAMES = new AtomicLong();

	private final LoopSpec spec;

	private final LoopSpec.Parsed command;

	private final int workerId;

	private final String[] keyNames;

	private final Duration lease;

	private final Duration wait;

	private final AtomicLong timeouts = new AtomicLong();

	private final AtomicLong errors = new AtomicLong();

	LoopWorkload(LoopSpec.Parsed command, int workerId) {
		this.command = command;
		this.spec = command.spec();
		this.workerId = workerId;
		this.keyNames = new String[Math.max(1, this.spec.keyCount())];
		for (int i = 0; i < this.keyNames.length; i++) {
			this.keyNames[i] = this.spec.prefix() + "-" + i;
		}
		this.lease = Duration.ofMillis(this.spec.leaseMillis());
		this.wait = Duration.ofMillis(this.spec.waitMillis());
	}

	/**
	 * Run the phase on this worker's threads.
	 * @return the reply:
	 * {@code DONE <acquisitions> <timeouts> <errors> <client CPU ns> <JIT CPU ns>}
	 */
	String run(LockClients clients) throws InterruptedException {
		LockClient client = clients.get(this.spec.library());
		List<AcquisitionBuffer> buffers = new ArrayList<>();
		List<Thread> threads = new ArrayList<>();
		ClientCpu cpu = ClientCpu.start();
		for (int i = 0; i < this.spec.threads(); i++) {
			AcquisitionBuffer buffer = new AcquisitionBuffer();
			int index = i;
			buffers.add(buffer);
			threads.add(new Thread(() -> loop(client, index, buffer, cpu), "bench-loop-" + i));
		}
		threads.forEach(Thread::start);
		for (Thread thread : threads) {
			thread.join();
		}
		long cpuNanos = cpu.netNanos();
		long jitNanos = cpu.compilerNanos();
		long acquisitions = buffers.stream().mapToLong(AcquisitionBuffer::count).sum();
		if (!this.command.output().equals("-")) {
			AcquisitionFile.write(Path.of(this.command.output()), AcquisitionBuffer.merge(buffers));
		}
		return "DONE " + acquisitions + " " + this.timeouts.get() + " " + this.errors.get() + " " + cpuNanos + " "
				+ jitNanos;
	}

	private void loop(LockClient client, int thread, AcquisitionBuffer buffer, ClientCpu cpu) {
		int holder = Acquisition.holder(this.workerId, thread);
		long holdNanos = this.spec.holdMicros() * 1000;
		Pacing.awaitNanoTime(this.command.startNanos());
		while (System.nanoTime() - this.command.endNanos() < 0) {
			int key = keyIndex();
			String name = (key == Acquisition.UNIQUE_KEY)
					? this.spec.prefix() + "-" + this.workerId + "-" + UNIQUE_NAMES.getAndIncrement()
					: this.keyNames[key];
			long requested = System.nanoTime();
			Hold hold = acquire(client, name);
			long acquired = System.nanoTime();
			if (hold == null) {
				continue;
			}
			hold(cpu, acquired, holdNanos);
			long releasing = System.nanoTime();
			release(hold);
			buffer.add(holder, key, requested, acquired, releasing, System.nanoTime());
		}
	}

	/**
	 * Hold the lock by spinning, and leave that CPU time out of the client's: reading the
	 * thread's CPU time costs about a system call each side, so loops that hold for no
	 * time skip it.
	 */
	private static void hold(ClientCpu cpu, long acquired, long holdNanos) {
		if (holdNanos == 0) {
			return;
		}
		long cpuBefore = ClientCpu.threadNanos();
		Pacing.busyWait(acquired + holdNanos);
		cpu.hold(ClientCpu.threadNanos() - cpuBefore);
	}

	private int keyIndex() {
		return switch (this.spec.keys()) {
			case DISTINCT -> Acquisition.UNIQUE_KEY;
			case ONE -> 0;
			case RANDOM -> ThreadLocalRandom.current().nextInt(this.spec.keyCount());
		};
	}

	private @Nullable Hold acquire(LockClient client, String name) {
		try {
			Hold hold = client.acquire(name, this.lease, this.wait);
			if (hold == null) {
				this.timeouts.incrementAndGet();
			}
			return hold;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
		catch (RuntimeException ex) {
			failed(ex);
			return null;
		}
	}

	private void release(Hold hold) {
		try {
			hold.release();
		}
		catch (RuntimeException ex) {
			failed(ex);
		}
	}

	private void failed(RuntimeException ex) {
		if (this.errors.incrementAndGet() <= MAX_LOGGED_ERRORS) {
			ex.printStackTrace();
		}
	}

}
