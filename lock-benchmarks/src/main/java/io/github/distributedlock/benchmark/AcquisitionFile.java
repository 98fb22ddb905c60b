package io.github.distributedlock.benchmark;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary file in which a worker hands its acquisitions to the coordinator: a count,
 * then fixed-size records.
 */
public final class AcquisitionFile {

	private AcquisitionFile() {
	}

	/**
	 * Write acquisitions to a file.
	 * @param file the file
	 * @param acquisitions the acquisitions
	 */
	public static void write(Path file, List<Acquisition> acquisitions) {
		try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
			out.writeInt(acquisitions.size());
			for (Acquisition acquisition : acquisitions) {
				out.writeInt(acquisition.holder());
				out.writeInt(acquisition.key());
				out.writeLong(acquisition.requested());
				out.writeLong(acquisition.acquired());
				out.writeLong(acquisition.releasing());
				out.writeLong(acquisition.released());
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write " + file, ex);
		}
	}

	/**
	 * Read the acquisitions of a file.
	 * @param file the file
	 * @return the acquisitions
	 */
	public static List<Acquisition> read(Path file) {
		try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
			int count = in.readInt();
			List<Acquisition> acquisitions = new ArrayList<>(count);
			for (int i = 0; i < count; i++) {
				acquisitions.add(new Acquisition(in.readInt(), in.readInt(), in.readLong(), in.readLong(),
						in.readLong(), in.readLong()));
			}
			return acquisitions;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + file, ex);
		}
	}

}
