package io.gpuledger.streams.cost;

import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;

/**
 * The time one node of a job has reported work for lately: disjoint spans of epoch millis,
 * oldest first. Reports that follow each other make one span, so a node reporting steadily
 * holds one; spans closer than {@link #JOIN_MILLIS} are joined, as a reporter's timer wanders
 * by milliseconds. At most {@link #MAX_SPANS} are kept, and none that ended more than
 * {@link #KEPT_MILLIS} before the latest.
 */
final class ReportedSpans {

    /** Spans this close are taken as one: the wander of a reporter's timer, not a silence. */
    static final long JOIN_MILLIS = 100;
    /** How long a reported span is remembered after the node's latest report: longer than roll-ups wait for work. */
    static final long KEPT_MILLIS = 60 * 60_000L;
    static final int MAX_SPANS = 64;

    private long[] starts = new long[0];
    private long[] ends = new long[0];

    /** Whether more than half of {@code [from, to)} was reported already. */
    boolean mostlyReported(long from, long to) {
        long reported = 0;
        for (int i = 0; i < starts.length; i++) {
            reported += Math.max(0, Math.min(to, ends[i]) - Math.max(from, starts[i]));
        }
        return reported * 2 > to - from;
    }

    /** Adds {@code [from, to)} to the time reported, joining the spans it meets. */
    void add(long from, long to) {
        int first = 0;
        while (first < starts.length && ends[first] + JOIN_MILLIS < from) {
            first++;
        }
        int last = first;
        long start = from;
        long end = to;
        while (last < starts.length && starts[last] <= to + JOIN_MILLIS) {
            start = Math.min(start, starts[last]);
            end = Math.max(end, ends[last]);
            last++;
        }
        long[] newStarts = new long[starts.length - (last - first) + 1];
        long[] newEnds = new long[newStarts.length];
        System.arraycopy(starts, 0, newStarts, 0, first);
        System.arraycopy(ends, 0, newEnds, 0, first);
        newStarts[first] = start;
        newEnds[first] = end;
        System.arraycopy(starts, last, newStarts, first + 1, starts.length - last);
        System.arraycopy(ends, last, newEnds, first + 1, ends.length - last);
        starts = newStarts;
        ends = newEnds;
        forgetBefore(latestEnd() - KEPT_MILLIS);
        if (starts.length > MAX_SPANS) {
            keepLast(MAX_SPANS);
        }
    }

    /** The end of the latest span reported; {@link Long#MIN_VALUE} if none. */
    long latestEnd() {
        return ends.length == 0 ? Long.MIN_VALUE : ends[ends.length - 1];
    }

    /** Forgets the spans that ended before {@code millis}. */
    void forgetBefore(long millis) {
        int kept = 0;
        while (kept < ends.length && ends[kept] < millis) {
            kept++;
        }
        keepLast(ends.length - kept);
    }

    int spans() {
        return starts.length;
    }

    private void keepLast(int count) {
        starts = Arrays.copyOfRange(starts, starts.length - count, starts.length);
        ends = Arrays.copyOfRange(ends, ends.length - count, ends.length);
    }

    static final Codec<ReportedSpans> CODEC = new Codec<>() {
        @Override
        public void write(ReportedSpans spans, DataOutput out) throws IOException {
            out.writeByte(spans.starts.length);
            for (int i = 0; i < spans.starts.length; i++) {
                out.writeLong(spans.starts[i]);
                out.writeLong(spans.ends[i]);
            }
        }

        @Override
        public ReportedSpans read(DataInput in) throws IOException {
            ReportedSpans spans = new ReportedSpans();
            int count = in.readUnsignedByte();
            spans.starts = new long[count];
            spans.ends = new long[count];
            for (int i = 0; i < count; i++) {
                spans.starts[i] = in.readLong();
                spans.ends[i] = in.readLong();
            }
            return spans;
        }
    };
}
