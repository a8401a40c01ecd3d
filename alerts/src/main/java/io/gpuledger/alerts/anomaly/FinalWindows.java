package io.gpuledger.alerts.anomaly;

import java.time.Duration;
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
 * <p>A subject that ends (a job that finished or left) has no newer window: its last windows are
 * final once it has been quiet for {@link #endedAfter} of the wall clock while another subject's
 * window {@link ClosedMinutes#SLACK} newer than them came.
 *
 * <p>Not thread-safe: fed by one reader. At most {@code maxSubjects} subjects are followed; the one
 * heard of least recently makes room for a new one.
 */
public final class FinalWindows<T> {

    /**
     * How long a subject is quiet, at most, before it is taken as ended: a running job's minute is re-sent at least
     * once a minute, and an engine task that stops sending (a rebalance, its state restored after a restart) is
     * mostly back within seconds; three minutes without one is a job gone, or one whose records stopped. A version
     * of its minutes coming later is left out, as any late version is.
     */
    static final Duration ENDED_AFTER = Duration.ofMinutes(3);
    /** How often the subjects are looked through for ended ones, by the wall clock. */
    private static final Duration LOOK_FOR_ENDED_EVERY = Duration.ofSeconds(30);

    private final int maxSubjects;
    private final Duration endedAfter;
    private final Map<String, Subject<T>> bySubject = new HashMap<>();
    /** The newest window offered, of any subject. */
    private Instant newest = Instant.MIN;
    private Instant lookedForEnded = Instant.MIN;

    private static final class Subject<T> {
        private final TreeMap<Instant, T> pending = new TreeMap<>();
        private Instant finalUpTo = Instant.MIN;
        private Instant heardAt = Instant.MIN;
    }

    /**
     * @param forgetAfter how long a reader keeps a subject not heard of ({@code gpuledger.metrics.stale-after}): an
     *                    ended subject's last windows are given within half of it, while its reader still holds it
     */
    public FinalWindows(int maxSubjects, Duration forgetAfter) {
        this.maxSubjects = maxSubjects;
        Duration half = forgetAfter.dividedBy(2);
        this.endedAfter = half.compareTo(ENDED_AFTER) < 0 ? half : ENDED_AFTER;
    }

    /**
     * Takes the latest version of a window, offered at {@code now} by the wall clock; returns the windows this makes
     * final, the subject's and those of subjects that ended, each subject's oldest first.
     */
    public List<T> offer(String subject, Instant windowStart, T version, Instant now) {
        Subject<T> state = bySubject.get(subject);
        if (state == null) {
            if (bySubject.size() >= maxSubjects) {
                forgetQuietest();
            }
            state = new Subject<>();
            bySubject.put(subject, state);
        }
        state.heardAt = now;
        if (windowStart.isAfter(newest)) {
            newest = windowStart;
        }
        List<T> done = new ArrayList<>();
        if (windowStart.isAfter(state.finalUpTo)) {
            state.pending.put(windowStart, version);
            takeUpTo(state, state.pending.lastKey().minus(ClosedMinutes.SLACK), done);
        }
        // A wall clock stepped back (NTP) looks again at once, and takes a subject heard "later" as heard now.
        if (now.isBefore(lookedForEnded) || !now.isBefore(lookedForEnded.plus(LOOK_FOR_ENDED_EVERY))) {
            lookedForEnded = now;
            Instant quietSince = now.minus(endedAfter);
            Instant finalUpTo = newest.minus(ClosedMinutes.SLACK);
            for (Subject<T> other : bySubject.values()) {
                if (other.heardAt.isAfter(now)) {
                    other.heardAt = now;
                }
                if (!other.pending.isEmpty() && !other.heardAt.isAfter(quietSince)) {
                    takeUpTo(other, finalUpTo, done);
                }
            }
        }
        return done;
    }

    private void takeUpTo(Subject<T> state, Instant finalUpTo, List<T> done) {
        while (!state.pending.isEmpty() && !state.pending.firstKey().isAfter(finalUpTo)) {
            var window = state.pending.pollFirstEntry();
            done.add(window.getValue());
            state.finalUpTo = window.getKey();
        }
    }

    /** Makes room by forgetting the subject heard of least recently (a job that ended, most likely). */
    private void forgetQuietest() {
        String quietest = null;
        Instant oldest = Instant.MAX;
        for (var entry : bySubject.entrySet()) {
            Subject<T> state = entry.getValue();
            Instant newestOfIt = state.pending.isEmpty() ? state.finalUpTo : state.pending.lastKey();
            if (newestOfIt.isBefore(oldest)) {
                oldest = newestOfIt;
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
