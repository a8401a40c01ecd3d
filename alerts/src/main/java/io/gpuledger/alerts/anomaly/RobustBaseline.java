package io.gpuledger.alerts.anomaly;

import io.gpuledger.alerts.AlertSettings;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The usual level of one series (a spend rate, a cost per 1M units) and how far it normally
 * strays: an exponentially weighted mean for the level, and the median absolute deviation of a
 * bounded window of recent values, scaled by 1.4826 so that it reads as a standard deviation
 * for normally distributed noise. The median ignores a few wild values where a variance would not.
 *
 * <p>Until {@code 1/n} falls below {@code alpha} the mean weighs every value alike (a plain
 * average of the first values), so a young baseline does not lean on its very first value.
 *
 * <p>Anomalous values are clamped, not skipped: once ready, a value is pulled in to at most
 * {@code clampAt} spreads from the expected level before it enters the mean and the window. A
 * spike then moves the baseline a little, while a lasting change of level is adopted gradually,
 * so that a new normal eventually stops being anomalous.
 *
 * <p>Not thread-safe: each detector feeds its baselines from one thread.
 */
public final class RobustBaseline {

    /** Scales a median absolute deviation to the standard deviation of normally distributed values. */
    public static final double MAD_TO_SIGMA = 1.4826;

    private final AlertSettings.Baseline settings;
    private final double absoluteFloor;
    private final ArrayDeque<Double> recent;
    private double mean;
    private long observed;
    /** The window's spread, computed on demand and kept until the next value arrives. */
    private double spread = Double.NaN;

    /**
     * @param settings      alpha (weight of a new value in the mean once warm, 0–1), the window the spread is
     *                      taken over, the values observed before it is {@link #ready()}, the relative floor of
     *                      the spread (a fraction of the expected level) and how many spreads a value may lie
     *                      from the expected level before it is clamped
     * @param absoluteFloor and the least spread, in the series' own unit (for money: an amount per hour or per 1M
     *                      units); positive, so a flat series never divides by zero and never alerts on a cent
     */
    public RobustBaseline(AlertSettings.Baseline settings, double absoluteFloor) {
        check(settings, absoluteFloor);
        this.settings = settings;
        this.absoluteFloor = absoluteFloor;
        this.recent = new ArrayDeque<>(settings.window());
    }

    /** Refuses settings a baseline cannot work with; a detector asks before its first series. */
    static void check(AlertSettings.Baseline settings, double absoluteFloor) {
        require(settings.alpha() > 0 && settings.alpha() <= 1, "alpha must be within (0, 1], was " + settings.alpha());
        require(settings.window() > 0, "window must be positive, was " + settings.window());
        require(settings.warmUp() > 0, "warmUp must be positive, was " + settings.warmUp());
        require(settings.relativeFloor() >= 0, "relativeFloor must not be negative, was " + settings.relativeFloor());
        require(absoluteFloor > 0, "absoluteFloor must be positive, was " + absoluteFloor);
        require(settings.clampAt() > 0, "clampAt must be positive, was " + settings.clampAt());
    }

    private static void require(boolean condition, String problem) {
        if (!condition) {
            throw new IllegalArgumentException(problem);
        }
    }

    public void observe(double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("a baseline observes finite values only, was " + value);
        }
        double kept = ready() ? clamp(value) : value;
        observed++;
        double weight = Math.max(settings.alpha(), 1.0 / observed);
        mean += weight * (kept - mean);
        if (recent.size() == settings.window()) {
            recent.removeFirst();
        }
        recent.addLast(kept);
        spread = Double.NaN;
    }

    /** The usual level; 0 before the first value. */
    public double expected() {
        return mean;
    }

    /** 1.4826 × the median absolute deviation of the recent window; 0 before the first value. */
    public double spread() {
        if (Double.isNaN(spread)) {
            spread = recent.isEmpty() ? 0 : MAD_TO_SIGMA * medianAbsoluteDeviation();
        }
        return spread;
    }

    /** The spread a score divides by: at least the relative and the absolute floor. */
    public double scale() {
        return Math.max(spread(), Math.max(settings.relativeFloor() * Math.abs(mean), absoluteFloor));
    }

    /** How many scales {@code value} lies above (positive) or below (negative) the expected level. */
    public double score(double value) {
        return (value - mean) / scale();
    }

    public boolean ready() {
        return observed >= settings.warmUp();
    }

    public long observed() {
        return observed;
    }

    private double clamp(double value) {
        double reach = settings.clampAt() * scale();
        return Math.max(mean - reach, Math.min(mean + reach, value));
    }

    private double medianAbsoluteDeviation() {
        double[] values = new double[recent.size()];
        int i = 0;
        for (double value : recent) {
            values[i++] = value;
        }
        double median = median(values);
        for (i = 0; i < values.length; i++) {
            values[i] = Math.abs(values[i] - median);
        }
        return median(values);
    }

    /** The median of {@code values}, which it sorts in place. */
    private static double median(double[] values) {
        Arrays.sort(values);
        int middle = values.length / 2;
        return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }
}
