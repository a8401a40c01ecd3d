package io.gpuledger.streams.cost;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.streams.deadletter.ParseOrReject;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * What the cost topology is built with: {@link #of} the defaults, then a {@code with} method per
 * setting a caller changes. A new setting is a field, its accessor and a line in {@link Copy}.
 */
public final class CostSettings {

    public static final Duration DEFAULT_UPDATE_INTERVAL = Duration.ofSeconds(2);
    public static final Duration DEFAULT_MAX_GAP = Duration.ofMinutes(15);
    /**
     * Clocks kept by NTP agree within milliseconds, and an agent stamps a sample when it takes
     * it, so an on-time sample reaches the engine after its end: 30 s forgives a host whose clock
     * has drifted for days without NTP, and a node that runs ahead by this much can take only a
     * quarter of the other GPUs' grace (2 min): a sample that comes less than 90 s after its
     * window ended is never late.
     */
    public static final Duration DEFAULT_MAX_AHEAD = Duration.ofSeconds(30);
    /**
     * How long a task's inputs stay quiet before it holds no roll-up back; see {@link #idleUpdates}.
     * Until then, from the engine's start, a task that got nothing holds every roll-up minute open.
     */
    public static final Duration SOURCE_IDLE_AFTER = Duration.ofSeconds(30);

    /** How long after a window ends late samples are still added to it; later ones go to the dead letters as late. */
    private final Duration grace;
    /** Conversion of prices into the reporting currency of every published amount. */
    private final CurrencyRates rates;
    /** How often, in wall-clock time, changed windows and roll-ups are sent before they close. */
    private final Duration updateInterval;
    /**
     * The longest silence of a GPU counted as unmonitored time; after a longer one the GPU is
     * taken to have stopped when it fell silent.
     */
    private final Duration maxGap;
    /**
     * How long after its feed last confirmed it ({@code observedAt}) a price is taken as current;
     * a sample later than that is still charged at it, and its time counted as stale-priced.
     */
    private final Duration priceMaxAge;
    /**
     * How long the GPU windows get no sample, and the roll-ups no partial, before they take a
     * backlog to be worked off and send what they held back: more than the engine's commit
     * interval, as partials reach the roll-ups only when the task that sent them commits.
     */
    private final Duration quietAfter;
    /**
     * How far ahead of the engine's own wall clock a sample's end, or a work report's time, may
     * be; a sample or report later than that is refused as from the future, so that the engine's
     * clock (the latest time of the samples it took, which judges lateness and closes windows)
     * never passes its wall clock by more, and no work counts in a minute not yet begun. On a
     * topic of {@link #brokerStamped} the bound is also the time the broker took the record, which
     * holds while the engine works off a backlog too.
     */
    private final Duration maxAhead;
    /**
     * How many tasks send roll-up partials: the partitions of the telemetry and work-report
     * topics. A roll-up minute closes only once each of them has said how far it got; 0 when not
     * known, and then the roll-ups wait only for the tasks they have heard from.
     */
    private final int sources;
    /**
     * The input topics whose records the broker dates as it appends them
     * ({@code message.timestamp.type=LogAppendTime}): there a record's timestamp is a clock no
     * node can set.
     */
    private final Set<String> brokerStamped;

    private CostSettings(Copy copy) {
        requirePositive("grace", copy.grace.plusMillis(1));
        requirePositive("updateInterval", copy.updateInterval);
        requirePositive("maxGap", copy.maxGap);
        requirePositive("priceMaxAge", copy.priceMaxAge);
        requirePositive("quietAfter", copy.quietAfter);
        requirePositive("maxAhead", copy.maxAhead);
        if (copy.sources < 0) {
            throw new IllegalArgumentException("sources must not be negative, was " + copy.sources);
        }
        this.grace = copy.grace;
        this.rates = Objects.requireNonNull(copy.rates, "rates");
        this.updateInterval = copy.updateInterval;
        this.maxGap = copy.maxGap;
        this.priceMaxAge = copy.priceMaxAge;
        this.quietAfter = copy.quietAfter;
        this.maxAhead = copy.maxAhead;
        this.sources = copy.sources;
        this.brokerStamped = Set.copyOf(copy.brokerStamped);
    }

    /** The defaults, with {@code grace} and {@code rates}. */
    public static CostSettings of(Duration grace, CurrencyRates rates) {
        Copy copy = new Copy();
        copy.grace = grace;
        copy.rates = rates;
        return new CostSettings(copy);
    }

    /** These settings with samples and work reports taken up to {@code allowance} ahead of the wall clock. */
    public CostSettings withMaxAhead(Duration allowance) {
        Copy copy = new Copy(this);
        copy.maxAhead = allowance;
        return new CostSettings(copy);
    }

    public CostSettings withPriceMaxAge(Duration maxAge) {
        Copy copy = new Copy(this);
        copy.priceMaxAge = maxAge;
        return new CostSettings(copy);
    }

    /** These settings for roll-ups fed by {@code count} tasks (see {@link #sources}). */
    public CostSettings withSources(int count) {
        Copy copy = new Copy(this);
        copy.sources = count;
        return new CostSettings(copy);
    }

    /** These settings with the records of {@code topics} dated by the broker that took them. */
    public CostSettings withBrokerStamped(Set<String> topics) {
        Copy copy = new Copy(this);
        copy.brokerStamped = topics;
        return new CostSettings(copy);
    }

    /** These settings for an engine that commits at least every {@code commitInterval}. */
    public CostSettings committingEvery(Duration commitInterval) {
        Copy copy = new Copy(this);
        copy.quietAfter = commitInterval.plus(updateInterval);
        return new CostSettings(copy);
    }

    public Duration grace() {
        return grace;
    }

    public CurrencyRates rates() {
        return rates;
    }

    public Duration updateInterval() {
        return updateInterval;
    }

    public Duration maxGap() {
        return maxGap;
    }

    public Duration priceMaxAge() {
        return priceMaxAge;
    }

    public Duration quietAfter() {
        return quietAfter;
    }

    public Duration maxAhead() {
        return maxAhead;
    }

    public int sources() {
        return sources;
    }

    public Set<String> brokerStamped() {
        return brokerStamped;
    }

    /**
     * The latest time a record of {@code topic} may be dated, {@link #maxAhead} aside: the engine's
     * clock {@code now}, or, where the broker dates the topic's records, the time it took this one
     * ({@code recordTimestamp}) if earlier. A node whose clock runs fast is then refused when the
     * engine works off a backlog too, when its samples lie behind the engine's clock.
     */
    public long latestTime(String topic, long now, long recordTimestamp) {
        return ParseOrReject.latestTime(brokerStamped.contains(topic), now, recordTimestamp);
    }

    /** How many updates in a row without input make the windows or roll-ups quiet: at least one. */
    int quietUpdates() {
        long updates = -Math.floorDiv(-quietAfter.toMillis(), updateInterval.toMillis());
        return (int) Math.max(1, updates);
    }

    /**
     * How many updates in a row without input make a task of the GPU windows idle to the roll-ups
     * ({@link SourceProgress}): {@link #SOURCE_IDLE_AFTER}'s worth, whatever the commit interval
     * (its records come straight from its consumer, not through a commit). A task that has a
     * backlog but got nothing for a few seconds (its partitions are fetched late, at a start on a
     * busy machine) must not let the roll-ups close minutes it has still to send.
     */
    int idleUpdates() {
        return (int) Math.max(1, -Math.floorDiv(-SOURCE_IDLE_AFTER.toMillis(), updateInterval.toMillis()));
    }

    /**
     * How many updates in a row the GPU windows let pass without a commit while they work off a
     * backlog before they ask for one all the same ({@link BacklogCommits}): one fewer than fit
     * in the engine's commit interval (the quiet time less an update, see
     * {@link #committingEvery}), so that the partials they hold back go out, at least one.
     */
    int backlogCommitUpdates() {
        long commitMillis = quietAfter.toMillis() - updateInterval.toMillis();
        return (int) Math.max(1, commitMillis / updateInterval.toMillis() - 1);
    }

    /** The settings being made: the defaults, or those of the settings copied, with one changed. */
    private static final class Copy {
        private Duration grace;
        private CurrencyRates rates;
        private Duration updateInterval = DEFAULT_UPDATE_INTERVAL;
        private Duration maxGap = DEFAULT_MAX_GAP;
        private Duration priceMaxAge = PriceQuote.DEFAULT_MAX_AGE;
        private Duration quietAfter = DEFAULT_UPDATE_INTERVAL;
        private Duration maxAhead = DEFAULT_MAX_AHEAD;
        private int sources;
        private Set<String> brokerStamped = Set.of();

        private Copy() {
        }

        private Copy(CostSettings settings) {
            grace = settings.grace;
            rates = settings.rates;
            updateInterval = settings.updateInterval;
            maxGap = settings.maxGap;
            priceMaxAge = settings.priceMaxAge;
            quietAfter = settings.quietAfter;
            maxAhead = settings.maxAhead;
            sources = settings.sources;
            brokerStamped = settings.brokerStamped;
        }
    }

    private static void requirePositive(String name, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }
}
