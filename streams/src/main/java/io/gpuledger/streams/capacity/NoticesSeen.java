package io.gpuledger.streams.capacity;

import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The ids of the notices lately published for one instance, with when each was noticed: at most
 * {@link #MAX_NOTICES}, none noticed more than {@link #KEPT_MILLIS} before the latest. An instance
 * gets a handful of notices in its life (a rebalance recommendation, then an interruption).
 */
final class NoticesSeen {

    static final int MAX_NOTICES = 16;
    /** A day: a notice's instance is gone long before, and a copy sent later still is refused as late elsewhere. */
    static final long KEPT_MILLIS = 24 * 60 * 60_000L;

    private final List<String> ids = new ArrayList<>();
    private final List<Long> noticedAt = new ArrayList<>();

    boolean contains(String eventId) {
        return ids.contains(eventId);
    }

    void add(String eventId, long noticedAtMillis) {
        ids.add(eventId);
        noticedAt.add(noticedAtMillis);
        long latest = noticedAt.stream().mapToLong(Long::longValue).max().orElse(noticedAtMillis);
        for (int i = ids.size() - 1; i >= 0; i--) {
            if (noticedAt.get(i) < latest - KEPT_MILLIS) {
                ids.remove(i);
                noticedAt.remove(i);
            }
        }
        while (ids.size() > MAX_NOTICES) {
            ids.remove(0);
            noticedAt.remove(0);
        }
    }

    /** When the latest notice was noticed; {@link Long#MIN_VALUE} if none is kept. */
    long latest() {
        return noticedAt.stream().mapToLong(Long::longValue).max().orElse(Long.MIN_VALUE);
    }

    int size() {
        return ids.size();
    }

    static final Codec<NoticesSeen> CODEC = new Codec<>() {
        @Override
        public void write(NoticesSeen seen, DataOutput out) throws IOException {
            out.writeByte(seen.ids.size());
            for (int i = 0; i < seen.ids.size(); i++) {
                out.writeUTF(seen.ids.get(i));
                out.writeLong(seen.noticedAt.get(i));
            }
        }

        @Override
        public NoticesSeen read(DataInput in) throws IOException {
            NoticesSeen seen = new NoticesSeen();
            for (int count = in.readUnsignedByte(); count > 0; count--) {
                seen.ids.add(in.readUTF());
                seen.noticedAt.add(in.readLong());
            }
            return seen;
        }
    };
}
