package io.gpuledger.alerts.recommend;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
     * Since which minute (epoch minutes) the target is gone on advice, how many instances went, the first minute
     * after the last judged before the release was acknowledged, whether all of the target's instances went, and the
     * minute of its first window after it went ({@link #NOT_BACK}: none yet).
     */
    private record Released(long sinceMinute, double instances, long firstMinute, boolean whole, long backMinute) {

        Released back(long minute) {
            return new Released(sinceMinute, instances, firstMinute, whole, minute);
        }
    }

    private static final long NOT_BACK = Long.MAX_VALUE;

    /**
     * A release followed, watched for the capacity's return: the first minute after the last judged before it, and
     * the instances the target kept (none where all went).
     */
    private record Watch(long firstMinute, Set<String> kept) {
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
    /** Of those, the minutes gone on advice: what releases of the target did keep off the bill. */
    private final JobHours goneInstanceMinutes;
    private final Map<String, Judged> lastMinute = new ConcurrentHashMap<>();
    private final Map<String, Released> released = new ConcurrentHashMap<>();
    private final Map<String, Watch> watches = new ConcurrentHashMap<>();
    /** How many periods quiet a release of a target waits for, where more than one. */
    private final Map<String, Integer> backoffs = new ConcurrentHashMap<>();
    private final long periodMinutes;

    /**
     * @param lookback   clock time the pattern is read over
     * @param maxTargets targets followed at most
     * @param period     how long a GPU must be quiet to be released: a release whose capacity comes back sooner saved
     *                   less than waiting for it cost
     */
    IdleHours(Duration lookback, int maxTargets, Duration period) {
        this.lookbackMinutes = lookback.toMinutes();
        this.periodMinutes = Math.max(1, period.toMinutes());
        this.idleInstanceMinutes = new JobHours(lookback, maxTargets);
        this.goneInstanceMinutes = new JobHours(lookback, maxTargets);
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
                released.put(targetId, new Released(minute + 1, gone.instances(), gone.firstMinute(), gone.whole(),
                        gone.backMinute()));
                gone = null;
            } else {
                released.remove(targetId);
            }
            if (gone != null) {
                // Gone until it sent again: a new instance is judged only once followed for a period, in use till then.
                long until = Math.min(minute, gone.backMinute());
                for (long m = Math.max(gone.sinceMinute(), minute - lookbackMinutes); m < until; m++) {
                    idleInstanceMinutes.add(targetId, Instant.ofEpochSecond(m * 60), gone.instances());
                    goneInstanceMinutes.add(targetId, Instant.ofEpochSecond(m * 60), gone.instances());
                }
            }
            idleInstanceMinutes.add(targetId, minuteStart, idleInstances);
        }
        lastMinute.put(targetId, new Judged(minute, idleInstances));
    }

    /**
     * Someone acts on the release of {@code instances} of the target, keeping the instances {@code kept} (none: all
     * went): from the minute after the last one judged, the time it sends nothing counts as idle.
     */
    void releasedOnAdvice(String targetId, double instances, Set<String> kept) {
        Judged last = lastMinute.get(targetId);
        if (last != null && instances > 0) {
            long first = last.minute() + 1;
            released.put(targetId, new Released(first, instances, first, kept.isEmpty(), NOT_BACK));
            watches.put(targetId, new Watch(first, Set.copyOf(kept)));
        }
    }

    /**
     * A window of the target's, of instance {@code instanceId}, from {@code minuteStart}. After the minutes it closed
     * as it went, one of an instance it did not keep says that capacity given back on advice is back (a new
     * instance, or one never given back). Back within a period, the release saved less than waiting for it cost (a
     * boot, a model or a kernel's state to load again), or nothing where something brings the capacity back by
     * itself (a controller that keeps its count, an autoscaler's minimum): its next release waits twice as many
     * periods quiet as this one did, up to the look-back. Back after a period or more, it waits one.
     */
    void heard(String targetId, String instanceId, Instant minuteStart) {
        long minute = Math.floorDiv(minuteStart.getEpochSecond(), 60);
        Watch watch = watches.get(targetId);
        if (watch != null && minute >= watch.firstMinute() + GOING_MINUTES && !watch.kept().contains(instanceId)) {
            watches.remove(targetId);
            if (minute - watch.firstMinute() < periodMinutes) {
                int most = (int) Math.max(1, lookbackMinutes / periodMinutes);
                backoffs.merge(targetId, Math.min(most, 2), (was, first) -> Math.min(most, 2 * was));
            } else {
                backoffs.remove(targetId);
            }
        }
        Released gone = released.get(targetId);
        if (gone != null && gone.whole() && gone.backMinute() == NOT_BACK
                && minute >= gone.firstMinute() + GOING_MINUTES) {
            released.put(targetId, gone.back(minute));
        }
    }

    /** How many periods quiet a release of the target waits for: 1, or more where it came back by itself. */
    int periods(String targetId) {
        return backoffs.getOrDefault(targetId, 1);
    }

    /**
     * The share of the look-back ending at {@code end} that {@code instances} of the target sat idle. Where its
     * capacity came back by itself after a release (its releases wait more than a period), its idle minutes say
     * nothing of what releasing it saves: only the minutes its releases kept it away over the whole look-back count,
     * not a share of the time since it was first seen.
     */
    Optional<JobHours.Share> share(String targetId, Instant end, double instances) {
        if (periods(targetId) == 1) {
            return idleInstanceMinutes.share(targetId, end, instances, false);
        }
        Instant to = Instant.ofEpochSecond(Math.floorDiv(end.getEpochSecond(), 60) * 60);
        Instant from = to.minus(Duration.ofMinutes(lookbackMinutes));
        double gone = goneInstanceMinutes.gpuMinutes(targetId, from, to);
        return Optional.of(new JobHours.Share(from, to, gone / 60, Math.min(1, gone / (lookbackMinutes * instances))));
    }

    /** Forgets what the look-back before {@code recordTime} no longer holds. */
    void sweep(Instant recordTime) {
        idleInstanceMinutes.sweep(recordTime);
        goneInstanceMinutes.sweep(recordTime);
        long cutoff = Math.floorDiv(recordTime.getEpochSecond(), 60) - lookbackMinutes;
        lastMinute.values().removeIf(judged -> judged.minute() < cutoff);
        released.values().removeIf(gone -> gone.sinceMinute() < cutoff);
        // Capacity away for a look-back, or a target not judged for one, starts afresh.
        watches.entrySet().removeIf(watch -> {
            boolean old = watch.getValue().firstMinute() < cutoff;
            if (old) {
                backoffs.remove(watch.getKey());
            }
            return old;
        });
        backoffs.keySet().removeIf(target -> !lastMinute.containsKey(target) && !watches.containsKey(target));
    }
}
