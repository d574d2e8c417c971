package org.hotpate.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a dataset's local ledger directory for the life of a run, so two runs on one
 * machine cannot both compose with the same prior and together pass the dataset's budget.
 */
public final class DatasetLock implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;
    private final String previous;

    private DatasetLock(FileChannel channel, FileLock lock, String previous) {
        this.channel = channel;
        this.lock = lock;
        this.previous = previous;
    }

    /**
     * What the lock file said when this lock was taken: the last holder's record (a job on a
     * cluster may outlive the driver whose OS lock went with its process); "" if none.
     */
    public String previous() {
        return previous;
    }

    /**
     * Records the holder (shown to a run refused by the lock, and read by the next holder); durable
     * when this returns.
     */
    public void record(String holder) throws IOException {
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(holder.getBytes(StandardCharsets.UTF_8)), 0);
        channel.force(false);
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }

    /** The text of {@code <dir>/<dataset>/.lock} (the last holder's record; "" if none). */
    public static String holderRecord(Path dir, String dataset) {
        try {
            return Files.readString(dir.resolve(dataset).resolve(".lock"), StandardCharsets.UTF_8)
                    .trim();
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * Locks {@code <dir>/<dataset>}; throws IllegalStateException when another live process holds
     * it. The caller decides whether the previous holder's record ({@link DatasetLock#previous})
     * still holds the dataset.
     */
    public static DatasetLock acquire(Path dir, String dataset) throws IOException {
        Path d = dir.resolve(dataset);
        Files.createDirectories(d);
        FileChannel ch =
                FileChannel.open(
                        d.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        String holder = holderRecord(dir, dataset);
        if (lock == null) {
            ch.close();
            throw new IllegalStateException(
                    "dataset '"
                            + dataset
                            + "' is in use by "
                            + (holder.isEmpty() ? "another run" : "run " + holder)
                            + " (lock "
                            + d.resolve(".lock")
                            + "); one run per dataset at a time — wait for it to end");
        }
        return new DatasetLock(ch, lock, holder);
    }
}
