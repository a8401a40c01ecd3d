package io.gpuledger.ingest.agent.delivery;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Real segment files on a disk of a given capacity: a write that does not fit writes what fits,
 * then fails as a full disk does. Counts the syncs asked for.
 */
final class FillingDisk implements Spool.Opener {

    private long capacity;
    private long used;
    final AtomicLong forces = new AtomicLong();

    FillingDisk(long capacity) {
        this.capacity = capacity;
    }

    void free() {
        capacity = Long.MAX_VALUE;
    }

    @Override
    public Spool.SegmentChannel open(Path file) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
        return new Spool.SegmentChannel() {
            @Override
            public void write(ByteBuffer bytes) throws IOException {
                long room = capacity - used;
                if (bytes.remaining() > room) {
                    ByteBuffer fits = bytes.slice().limit((int) room);
                    used += channel.write(fits);
                    throw new IOException("No space left on device");
                }
                used += channel.write(bytes);
            }

            @Override
            public void force() {
                forces.incrementAndGet();
            }

            @Override
            public void truncate(long size) throws IOException {
                used -= channel.size() - size;
                channel.truncate(size);
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }
}
