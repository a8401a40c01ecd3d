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

    private record Seen(String eventId, long noticedAt) {
    }

    private final List<Seen> notices = new ArrayList<>();

    boolean contains(String eventId) {
        return notices.stream().anyMatch(seen -> seen.eventId.equals(eventId));
    }

    void add(String eventId, long noticedAtMillis) {
        notices.add(new Seen(eventId, noticedAtMillis));
        long cutoff = latest() - KEPT_MILLIS;
        notices.removeIf(seen -> seen.noticedAt < cutoff);
        while (notices.size() > MAX_NOTICES) {
            notices.remove(0);
        }
    }

    /** When the latest notice was noticed; {@link Long#MIN_VALUE} if none is kept. */
    long latest() {
        return notices.stream().mapToLong(Seen::noticedAt).max().orElse(Long.MIN_VALUE);
    }

    int size() {
        return notices.size();
    }

    static final Codec<NoticesSeen> CODEC = new Codec<>() {
        @Override
        public void write(NoticesSeen seen, DataOutput out) throws IOException {
            out.writeByte(seen.notices.size());
            for (Seen notice : seen.notices) {
                out.writeUTF(notice.eventId);
                out.writeLong(notice.noticedAt);
            }
        }

        @Override
        public NoticesSeen read(DataInput in) throws IOException {
            NoticesSeen seen = new NoticesSeen();
            for (int count = in.readUnsignedByte(); count > 0; count--) {
                seen.notices.add(new Seen(in.readUTF(), in.readLong()));
            }
            return seen;
        }
    };
}
