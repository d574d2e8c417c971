package org.hotpate.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * File-system helpers shared by the local ledger, the embedded broker and the local cluster: a
 * durable atomic write, and recursive deletes. Kept in {@code io}, the lowest room that touches
 * files, so every caller may import it.
 */
public final class LocalFiles {
    private LocalFiles() {}

    /**
     * Writes {@code bytes} to a temporary sibling, forces it to disk, renames it over {@code file}
     * atomically and forces the directory: a crash leaves either the old or the new content.
     */
    public static void writeAtomically(Path file, byte[] bytes) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch =
                FileChannel.open(
                        tmp,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
            writeFully(ch, bytes);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory(file.getParent());
    }

    /** Writes all of {@code bytes} at the channel's position and forces them to disk. */
    static void writeFully(FileChannel ch, byte[] bytes) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
            ch.write(buf);
        }
        ch.force(true);
    }

    /** Forces a directory's entries (a rename into it) to disk where the platform allows. */
    static void forceDirectory(Path dir) {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Directories cannot be opened for sync on every platform; the rename is still atomic.
        }
    }

    /**
     * Deletes {@code root} and everything under it, deepest first; nothing when it does not exist.
     * Throws on the first entry it cannot delete.
     */
    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * Best-effort {@link #deleteTree}: entries that cannot be deleted are skipped and errors are
     * swallowed (for temporary directories, where a leftover is harmless). Entries that vanish
     * during the walk (RocksDB removing its own files while a MiniCluster shuts down) are passed
     * over, not the end of the walk.
     */
    public static void deleteTreeQuietly(Path root) {
        try {
            Files.walkFileTree(
                    root,
                    new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                            file.toFile().delete();
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFileFailed(Path file, IOException e) {
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult postVisitDirectory(Path dir, IOException e) {
                            dir.toFile().delete();
                            return FileVisitResult.CONTINUE;
                        }
                    });
        } catch (IOException | RuntimeException ignored) {
            // best effort: a temp dir left behind is harmless
        }
    }
}
