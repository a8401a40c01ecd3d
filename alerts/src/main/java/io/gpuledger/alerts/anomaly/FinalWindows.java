package io.gpuledger.alerts.anomaly;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The last version of each window of each subject, once it is final. The cost engine re-emits a
 * window as it changes (a job's economics as its GPUs' windows and work reports arrive); a window
 * is taken as final when the subject has a window {@link ClosedMinutes#SLACK} newer, and a version
 * arriving after that is left out. Detectors that must see each window once, as it ended, read it
 * from here.
 *
 * <p>Not thread-safe: fed by one reader. At most {@code maxSubjects} subjects are followed; the one
 * heard of least recently makes room for a new one.
 */
public final class FinalWindows<T> {

    private final int maxSubjects;
    private final Map<String, Subject<T>> bySubject = new HashMap<>();

    private static final class Subject<T> {
        private final TreeMap<Instant, T> pending = new TreeMap<>();
        private Instant finalUpTo = Instant.MIN;
    }

    public FinalWindows(int maxSubjects) {
        this.maxSubjects = maxSubjects;
    }

    /** Takes the latest version of a window; returns the subject's windows this makes final, oldest first. */
    public List<T> offer(String subject, Instant windowStart, T version) {
        Subject<T> state = bySubject.get(subject);
        if (state == null) {
            if (bySubject.size() >= maxSubjects) {
                forgetQuietest();
            }
            state = new Subject<>();
            bySubject.put(subject, state);
        }
        if (!windowStart.isAfter(state.finalUpTo)) {
            return List.of();
        }
        state.pending.put(windowStart, version);
        Instant finalUpTo = state.pending.lastKey().minus(ClosedMinutes.SLACK);
        List<T> done = new ArrayList<>();
        while (!state.pending.isEmpty() && !state.pending.firstKey().isAfter(finalUpTo)) {
            var window = state.pending.pollFirstEntry();
            done.add(window.getValue());
            state.finalUpTo = window.getKey();
        }
        return done;
    }

    /** Makes room by forgetting the subject heard of least recently (a job that ended, most likely). */
    private void forgetQuietest() {
        String quietest = null;
        Instant oldest = Instant.MAX;
        for (var entry : bySubject.entrySet()) {
            Subject<T> state = entry.getValue();
            Instant newest = state.pending.isEmpty() ? state.finalUpTo : state.pending.lastKey();
            if (newest.isBefore(oldest)) {
                oldest = newest;
                quietest = entry.getKey();
            }
        }
        bySubject.remove(quietest);
    }

    /** Subjects followed. */
    public int subjects() {
        return bySubject.size();
    }
}
