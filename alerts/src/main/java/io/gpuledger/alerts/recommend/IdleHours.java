package io.gpuledger.alerts.recommend;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * How many hours a month the idle capacity of a job (or of an instance no job holds) stays idle, as
 * its judged minutes over the look-back of clock time show (a day by default): what a release of it
 * saves a month. A notebook idle 22 hours a day saves 22 hours' rate a day, 660 hours a month, once,
 * not a month at each of its idle nights.
 *
 * <p>Each judged minute counts the instances that could have been released in it. Once a release is
 * acknowledged, the capacity is gone and sends nothing: the minutes until it sends again (its user's
 * next session) count as the idle minutes they replaced, so the pattern reads the same whether or
 * not it was followed. The minutes the released instances still close as they stop do not end that
 * time, and a new instance's first period, in use until it can be judged, is not counted. Until a
 * whole look-back of it is known, the share is of the time since it was first judged: a GPU idle
 * since it was first seen is taken to stay so, and its claim comes down as its user's sessions show.
 *
 * <p>A release whose capacity sends again within a period saved less than waiting for the period cost, or nothing
 * where something brings the capacity back by itself: the target's next release waits more periods quiet
 * ({@link #periods}), and claims only what its releases kept away.
 *
 * <p>Keyed by the recommendation's target, as {@code type/id}. Safe for one feeding thread with acknowledgements
 * and sweeps from others.
 */
final class IdleHours {

    /**
     * Minutes from the acknowledgement (and after the last minute judged before it) that the released instances may
     * still close: an instance takes up to three minutes to stop, and sends the minute it stops in.
     */
    static final long GOING_MINUTES = 5;

    private static final long NOT_BACK = Long.MAX_VALUE;

    /**
     * A release followed: since which minute (epoch minutes) the target is gone, how many instances went, the first
     * minute after the last judged before it, the minute its instances may close minutes until (exclusive), whether
     * they were all it held, the instances it gave back and the others its job ran on, the minute of its first
     * window back ({@link #NOT_BACK}: none yet), whether its time gone is still to be counted (until the target is
     * judged again) and whether its capacity is still watched for (until it sends again). Kept while either holds.
     */
    private record Released(long sinceMinute, double instances, long firstMinute, long goingUntil, boolean whole,
            Set<String> given, Set<String> kept, long backMinute, boolean counting, boolean watching) {

        /**
         * Whether a window of {@code instanceId} from {@code minute} says the capacity is back: a new instance's,
         * or one given back still sending once it had time to stop (started again, or never stopped).
         */
        boolean backBy(String instanceId, long minute) {
            return !kept.contains(instanceId) && minute >= firstMinute
                    && (!given.contains(instanceId) || minute >= goingUntil);
        }

        Released since(long minute) {
            return new Released(minute, instances, firstMinute, goingUntil, whole, given, kept, backMinute, counting,
                    watching);
        }

        Released back(long minute) {
            return new Released(sinceMinute, instances, firstMinute, goingUntil, whole, given, kept, minute, counting,
                    watching);
        }

        Released counted() {
            return new Released(sinceMinute, instances, firstMinute, goingUntil, whole, given, kept, backMinute, false,
                    watching);
        }

        Released heardBack() {
            return new Released(sinceMinute, instances, firstMinute, goingUntil, whole, given, kept, backMinute,
                    counting, false);
        }
    }

    /** The last minute (epoch minutes) judged of a target, and how many instances were idle in it. */
    private record Judged(long minute, double idleInstances) {
    }


    private final long lookbackMinutes;
    private final long periodMinutes;
    private final JobHours idleInstanceMinutes;
    /** Of those, the minutes gone on advice: what releases of the target did keep off the bill. */
    private final JobHours goneInstanceMinutes;
    private final Map<String, Judged> lastMinute = new HashMap<>();
    /** Releases followed, the latest of each target, while their time gone is still to be counted or watched. */
    private final Map<String, Released> released = new HashMap<>();
    /** How many periods quiet a release of a target waits for, where more than one. */
    private final Map<String, Integer> backoffs = new HashMap<>();
    /** Whether any release is followed: read without the lock at every closed window, most of which find none. */
    private volatile boolean following;

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
    synchronized void add(String target, Instant minuteStart, double idleInstances) {
        long minute = Math.floorDiv(minuteStart.getEpochSecond(), 60);
        Judged last = lastMinute.get(target);
        if (last != null && minute < last.minute()) {
            return;
        }
        if (last != null && minute == last.minute()) {
            idleInstanceMinutes.add(target, minuteStart, idleInstances - last.idleInstances());
        } else {
            Released gone = released.get(target);
            if (gone != null && gone.counting() && minute < gone.goingUntil()) {
                // A minute the released instances closed as they stopped: judged as it was, the time gone after it.
                released.put(target, gone.since(minute + 1));
            } else if (gone != null && gone.counting()) {
                keep(target, gone.counted());
                // Gone until it sent again: a new instance is judged only once followed for a period, in use till then.
                long until = Math.min(minute, gone.backMinute());
                for (long m = Math.max(gone.sinceMinute(), minute - lookbackMinutes); m < until; m++) {
                    idleInstanceMinutes.add(target, Instant.ofEpochSecond(m * 60), gone.instances());
                    goneInstanceMinutes.add(target, Instant.ofEpochSecond(m * 60), gone.instances());
                }
            }
            idleInstanceMinutes.add(target, minuteStart, idleInstances);
        }
        lastMinute.put(target, new Judged(minute, idleInstances));
    }

    /**
     * Someone acts, at {@code acknowledgedAt}, on the release of {@code instances} of the target, all it held where
     * {@code whole}: the instances {@code given}, the other instances its job ran on {@code kept}. From the minute
     * after the last one judged, the time it sends nothing counts as idle.
     */
    synchronized void releasedOnAdvice(String target, double instances, boolean whole, Set<String> given,
            Set<String> kept, Instant acknowledgedAt) {
        Judged last = lastMinute.get(target);
        if (last != null && instances > 0) {
            long first = last.minute() + 1;
            // Minutes reach the rules once the cost engine closed them; the instances stop after the acknowledgement.
            long going = Math.max(first, Math.floorDiv(acknowledgedAt.getEpochSecond(), 60)) + GOING_MINUTES;
            released.put(target, new Released(first, instances, first, going, whole, Set.copyOf(given),
                    Set.copyOf(kept), NOT_BACK, true, true));
            following = true;
        }
    }

    /** Whether a release followed may still hear from its capacity: where none may, {@link #heard} does nothing. */
    boolean following() {
        return following;
    }

    /**
     * A window of the target's, of instance {@code instanceId}, from {@code minuteStart}: it may say that capacity
     * given back on advice is back ({@link Released#backBy}). Back within a period, the release saved less than
     * waiting for it cost (a boot, a model or a kernel's state to load again), or nothing where something brings the
     * capacity back by itself (a controller that keeps its count, an autoscaler's minimum): its next release waits
     * twice as many periods quiet as this one did, up to the look-back. Back after a period or more, it waits one.
     */
    synchronized void heard(String target, String instanceId, Instant minuteStart) {
        long minute = Math.floorDiv(minuteStart.getEpochSecond(), 60);
        Released release = released.get(target);
        if (release == null || !release.backBy(instanceId, minute)) {
            return;
        }
        if (release.watching()) {
            release = release.heardBack();
            if (minute - release.firstMinute() < periodMinutes) {
                int most = (int) Math.max(1, lookbackMinutes / periodMinutes);
                backoffs.merge(target, Math.min(most, 2), (was, first) -> Math.min(most, 2 * was));
            } else {
                backoffs.remove(target);
            }
        }
        if (release.counting() && release.whole() && release.backMinute() == NOT_BACK) {
            release = release.back(minute);
        }
        keep(target, release);
    }

    /** Keeps a release while its time gone is still to be counted or its capacity watched, and forgets it after. */
    private void keep(String target, Released release) {
        if (release.counting() || release.watching()) {
            released.put(target, release);
        } else {
            released.remove(target);
        }
    }

    /** How many periods quiet a release of the target waits for: 1, or more where it came back by itself. */
    synchronized int periods(String target) {
        return backoffs.getOrDefault(target, 1);
    }

    /**
     * The share of the look-back ending at {@code end} that {@code instances} of the target sat idle. Where its
     * capacity came back by itself after a release (its releases wait more than a period), its idle minutes say
     * nothing of what releasing it saves: only the minutes its releases kept it away over the whole look-back count,
     * not a share of the time since it was first seen.
     */
    synchronized Optional<JobHours.Share> share(String target, Instant end, double instances) {
        if (periods(target) == 1) {
            return idleInstanceMinutes.share(target, end, instances, false);
        }
        Instant to = Instant.ofEpochSecond(Math.floorDiv(end.getEpochSecond(), 60) * 60);
        Instant from = to.minus(Duration.ofMinutes(lookbackMinutes));
        double gone = goneInstanceMinutes.gpuMinutes(target, from, to);
        return Optional.of(new JobHours.Share(from, to, gone / 60, Math.min(1, gone / (lookbackMinutes * instances))));
    }

    /**
     * Forgets what the look-back before {@code recordTime} no longer holds: a target not judged for a look-back, and
     * one whose capacity stayed away that long after a release, start afresh. A longer wait lasts otherwise: a
     * release after it that stays away a period sets it back to one, as soon as the target has been quiet that long.
     */
    synchronized void sweep(Instant recordTime) {
        idleInstanceMinutes.sweep(recordTime);
        goneInstanceMinutes.sweep(recordTime);
        long cutoff = Math.floorDiv(recordTime.getEpochSecond(), 60) - lookbackMinutes;
        lastMinute.values().removeIf(judged -> judged.minute() < cutoff);
        for (Map.Entry<String, Released> entry : List.copyOf(released.entrySet())) {
            Released release = entry.getValue();
            if (release.counting() && release.sinceMinute() < cutoff) {
                release = release.counted();
            }
            if (release.watching() && release.firstMinute() < cutoff) {
                // Away a look-back: that release stayed away.
                backoffs.remove(entry.getKey());
                release = release.heardBack();
            }
            keep(entry.getKey(), release);
        }
        backoffs.keySet().removeIf(target -> !lastMinute.containsKey(target)
                && !(released.containsKey(target) && released.get(target).watching()));
        following = !released.isEmpty();
    }
}
