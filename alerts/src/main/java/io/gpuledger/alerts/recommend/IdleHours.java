package io.gpuledger.alerts.recommend;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many hours a month the idle capacity of a job (or of an instance no job holds) stays idle, as
 * its judged minutes over the look-back of clock time show (a day by default): what a release of it
 * saves a month. A notebook idle 22 hours a day saves 22 hours' rate a day, 660 hours a month, once,
 * not a month at each of its idle nights.
 *
 * <p>Each judged minute counts the instances that could have been released in it. Once a release is
 * acknowledged, the capacity is gone and sends nothing: the minutes until it comes back (its user's
 * next session) count as the idle minutes they replaced, so the pattern reads the same whether or
 * not it was followed. The minute or two the capacity still closes as it goes does not end that time.
 * Until a whole look-back of it is known, the share is of the time since it was first judged: a GPU
 * idle since it was first seen is taken to stay so, and its claim comes down as its user's sessions
 * show.
 *
 * <p>Keyed by the recommendation's target id. Safe for one feeding thread with acknowledgements and
 * sweeps from others.
 */
final class IdleHours {

    /**
     * Since which minute (epoch minutes) the target is gone on advice, how many instances went, and the first minute
     * after the last judged before the release was acknowledged.
     */
    private record Released(long sinceMinute, double instances, long firstMinute) {
    }

    /**
     * Minutes after the last judged one that the released capacity may still close while it goes: an instance
     * takes a minute or two to stop, and its agent sends what it sampled until then.
     */
    private static final long GOING_MINUTES = 2;

    /** The last minute (epoch minutes) judged of a target, and how many instances were idle in it. */
    private record Judged(long minute, double idleInstances) {
    }

    private final long lookbackMinutes;
    private final JobHours idleInstanceMinutes;
    private final Map<String, Judged> lastMinute = new ConcurrentHashMap<>();
    private final Map<String, Released> released = new ConcurrentHashMap<>();

    IdleHours(Duration lookback, int maxTargets) {
        this.lookbackMinutes = lookback.toMinutes();
        this.idleInstanceMinutes = new JobHours(lookback, maxTargets);
    }

    /**
     * A judged minute of the target, starting at {@code minuteStart}, in which {@code idleInstances}
     * were idle. A minute judged again (a job's other instances completing it) counts as judged last.
     */
    void add(String targetId, Instant minuteStart, double idleInstances) {
        long minute = Math.floorDiv(minuteStart.getEpochSecond(), 60);
        Judged last = lastMinute.get(targetId);
        if (last != null && minute < last.minute()) {
            return;
        }
        if (last != null && minute == last.minute()) {
            idleInstanceMinutes.add(targetId, minuteStart, idleInstances - last.idleInstances());
        } else {
            Released gone = released.get(targetId);
            if (gone != null && minute < gone.firstMinute() + GOING_MINUTES) {
                // A minute the capacity closed as it went: judged as it was, and its time gone starts after it.
                released.put(targetId, new Released(minute + 1, gone.instances(), gone.firstMinute()));
                gone = null;
            } else {
                released.remove(targetId);
            }
            if (gone != null) {
                for (long m = Math.max(gone.sinceMinute(), minute - lookbackMinutes); m < minute; m++) {
                    idleInstanceMinutes.add(targetId, Instant.ofEpochSecond(m * 60), gone.instances());
                }
            }
            idleInstanceMinutes.add(targetId, minuteStart, idleInstances);
        }
        lastMinute.put(targetId, new Judged(minute, idleInstances));
    }

    /**
     * Someone acts on the release of {@code instances} of the target: from the minute after the last
     * one judged, the time it sends nothing counts as idle.
     */
    void releasedOnAdvice(String targetId, double instances) {
        Judged last = lastMinute.get(targetId);
        if (last != null && instances > 0) {
            released.put(targetId, new Released(last.minute() + 1, instances, last.minute() + 1));
        }
    }

    /** The share of the look-back ending at {@code end} that {@code instances} of the target sat idle. */
    Optional<JobHours.Share> share(String targetId, Instant end, double instances) {
        return idleInstanceMinutes.share(targetId, end, instances, false);
    }

    /** Forgets what the look-back before {@code recordTime} no longer holds. */
    void sweep(Instant recordTime) {
        idleInstanceMinutes.sweep(recordTime);
        long cutoff = Math.floorDiv(recordTime.getEpochSecond(), 60) - lookbackMinutes;
        lastMinute.values().removeIf(judged -> judged.minute() < cutoff);
        released.values().removeIf(gone -> gone.sinceMinute() < cutoff);
    }
}
