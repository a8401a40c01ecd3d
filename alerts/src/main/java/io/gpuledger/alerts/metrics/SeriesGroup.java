package io.gpuledger.alerts.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The series of one kind of thing (GPUs, jobs, teams, pools), each thing identified by a key and
 * described by its labels. A thing's meters are registered as its values first appear, taking
 * from its labels those its family has; they are all removed when its labels change, and when
 * nothing was heard of it for {@code staleAfter}, so that a GPU, job or instance that is gone
 * stops being exported. At most {@code maxThings} are exported; more are counted as dropped. The counters with
 * labels of their own (a shared GPU's jobs, which come and go) are at most as many again, over all the things: more
 * are counted as dropped in their own family, the group's name with {@code _job} after it.
 */
public final class SeriesGroup {

    private final MeterRegistry registry;
    private final MeterRegistry exported;
    private final String name;
    private final int maxThings;
    private final Duration staleAfter;
    private final Counter dropped;
    /** Counters with labels of their own refused for their limit; registered with the group's first such counter. */
    private Counter droppedLabelled;
    /** Counters with labels of their own, over all things. */
    private int labelled;
    private final Map<String, Thing> things = new HashMap<>();
    /** What a thing refused for the limit gets: it records nothing, and is never the latest. */
    private final Thing refused = new Thing(Tags.empty(), true);

    public SeriesGroup(MeterRegistry registry, String name, int maxThings, Duration staleAfter) {
        this(registry, registry, name, maxThings, staleAfter);
    }

    /**
     * @param registry the things' meters go there
     * @param exported where the count of things dropped goes: the registry scraped whole, where the things'
     *                 own are served apart
     */
    public SeriesGroup(MeterRegistry registry, MeterRegistry exported, String name, int maxThings,
            Duration staleAfter) {
        this.registry = registry;
        this.exported = exported;
        this.name = name;
        this.maxThings = maxThings;
        this.staleAfter = staleAfter;
        this.dropped = MetricCatalogue.shipped().family("gpuledger_metric_series_dropped_total")
                .counter(exported, Tags.of("family", name));
    }

    /**
     * The thing with {@code key}, labelled {@code labels}, seen at {@code now}; when it is new and the
     * group is full, one that records nothing (and it is counted as dropped, once per refusal).
     */
    public synchronized Thing thing(String key, Tags labels, Instant now) {
        Thing thing = things.get(key);
        if (thing != null && !thing.labels.equals(labels)) {
            thing.removeMeters();
            thing = null;
            things.remove(key);
        }
        if (thing == null) {
            if (things.size() >= maxThings) {
                dropped.increment();
                return refused;
            }
            thing = new Thing(labels, false);
            things.put(key, thing);
        }
        thing.lastSeenMillis = now.toEpochMilli();
        return thing;
    }

    /**
     * As {@link #thing(String, Tags, Instant)}, the labels given as key-value pairs: the thing's
     * labels are made from them only when it is new or they changed, which costs less than making
     * them for every record of a thing heard of thousands of times a second.
     */
    public synchronized Thing thing(String key, String[] labelPairs, Instant now) {
        Thing thing = things.get(key);
        if (thing != null && Arrays.equals(thing.labelPairs, labelPairs)) {
            thing.lastSeenMillis = now.toEpochMilli();
            return thing;
        }
        thing = thing(key, Tags.of(labelPairs), now);
        if (thing != refused) {
            thing.labelPairs = labelPairs;
        }
        return thing;
    }

    /** Removes the things not seen since {@code now - staleAfter}; returns how many. */
    public synchronized int sweep(Instant now) {
        long cutoff = now.minus(staleAfter).toEpochMilli();
        int removed = 0;
        for (Iterator<Thing> it = things.values().iterator(); it.hasNext(); ) {
            Thing thing = it.next();
            if (thing.lastSeenMillis < cutoff) {
                thing.removeMeters();
                it.remove();
                removed++;
            } else {
                thing.removeStaleLabelled(cutoff);
            }
        }
        return removed;
    }

    public synchronized int size() {
        return things.size();
    }

    /** The meters registered so far for the thing with {@code key}; none when it has no series. */
    public synchronized List<Meter> meters(String key) {
        Thing thing = things.get(key);
        return thing == null ? List.of() : List.copyOf(thing.meters);
    }

    /** The meters registered so far for each thing whose key {@code keys} takes. */
    public synchronized List<Meter> metersWhere(Predicate<String> keys) {
        List<Meter> selected = new ArrayList<>();
        things.forEach((key, thing) -> {
            if (keys.test(key)) {
                selected.addAll(thing.meters);
            }
        });
        return selected;
    }

    public String name() {
        return name;
    }

    /** One GPU, job, team or pool: its labels and the meters registered for it so far. */
    public final class Thing {
        private final Tags labels;
        /** Whether it was refused for the limit: then it records nothing. */
        private final boolean refused;
        /** The pairs its labels were made from, if they were given so. */
        private String[] labelPairs;
        private final Map<String, Cell> gauges = new HashMap<>();
        private final Map<String, Counter> counters = new HashMap<>();
        /**
         * When each counter with labels of its own (a shared GPU's job) was last added to: one whose label no
         * longer comes (a job gone from the GPU) is removed on its own, while the thing lives on.
         */
        private final Map<String, Long> labelledAddedMillis = new HashMap<>();
        private final List<Meter> meters = new ArrayList<>();
        // Times as numbers: a thing is seen thousands of times a second, and an Instant stored at
        // each would outlive a young collection in an old object.
        private long lastSeenMillis;
        private long latestWindowMillis = Long.MIN_VALUE;

        private Thing(Tags labels, boolean refused) {
            this.labels = labels;
            this.refused = refused;
        }

        /**
         * Whether a window starting at {@code windowStart} is the thing's latest so far: gauges show
         * the latest window, and an update of an older one (a late sample) does not move them back.
         */
        public boolean latest(Instant windowStart) {
            if (refused) {
                return false;
            }
            synchronized (SeriesGroup.this) {
                long start = windowStart.toEpochMilli();
                if (start < latestWindowMillis) {
                    return false;
                }
                latestWindowMillis = start;
                return true;
            }
        }

        /** Shows {@code value} on the thing's gauge of {@code family}; a null value leaves it as it is. */
        public void set(String family, Double value) {
            set(family, family, Tags.empty(), value);
        }

        /** As {@link #set(String, Double)}, for a family with labels of its own ({@code unit}). */
        public void set(String family, Tags extra, Double value) {
            set(family + extra, family, extra, value);
        }

        /** Sets the gauge known as {@code id} among the thing's. */
        private void set(String id, String family, Tags extra, Double value) {
            if (refused || value == null || !Double.isFinite(value)) {
                return;
            }
            synchronized (SeriesGroup.this) {
                Cell cell = gauges.get(id);
                if (cell == null) {
                    cell = new Cell();
                    MetricCatalogue.Family definition = MetricCatalogue.shipped().family(family);
                    meters.add(definition.gauge(registry, tagsOf(definition, extra), cell, Cell::get));
                    gauges.put(id, cell);
                }
                cell.set(value);
            }
        }

        /**
         * Adds {@code amount} to the thing's counter of {@code family}; 0 registers the counter, so
         * that a rate over it reads 0 rather than nothing.
         */
        public void add(String family, double amount) {
            add(family, family, Tags.empty(), amount);
        }

        /** As {@link #add(String, double)}, for a family with labels of its own (the job of a shared GPU's part). */
        public void add(String family, Tags extra, double amount) {
            add(family + extra, family, extra, amount);
        }

        /** Adds to the counter known as {@code id} among the thing's. */
        private void add(String id, String family, Tags extra, double amount) {
            if (refused || !(amount >= 0) || !Double.isFinite(amount)) {
                return;
            }
            synchronized (SeriesGroup.this) {
                boolean ownLabels = extra.iterator().hasNext();
                Counter counter = counters.get(id);
                if (ownLabels && droppedLabelled == null) {
                    droppedLabelled = MetricCatalogue.shipped().family("gpuledger_metric_series_dropped_total")
                            .counter(exported, Tags.of("family", name + "_job"));
                }
                if (counter == null) {
                    if (ownLabels && labelled >= maxThings) {
                        droppedLabelled.increment();
                        return;
                    }
                    MetricCatalogue.Family definition = MetricCatalogue.shipped().family(family);
                    counter = definition.counter(registry, tagsOf(definition, extra));
                    meters.add(counter);
                    counters.put(id, counter);
                    if (ownLabels) {
                        labelled++;
                    }
                }
                if (ownLabels) {
                    labelledAddedMillis.put(id, lastSeenMillis);
                }
                counter.increment(amount);
            }
        }

        private Tags tagsOf(MetricCatalogue.Family family, Tags extra) {
            List<Tag> tags = new ArrayList<>();
            for (Tag tag : labels.and(extra)) {
                if (family.labels().contains(tag.getKey())) {
                    tags.add(tag);
                }
            }
            return Tags.of(tags);
        }

        private void removeMeters() {
            meters.forEach(registry::remove);
            meters.clear();
            gauges.clear();
            counters.clear();
            labelled -= labelledAddedMillis.size();
            labelledAddedMillis.clear();
        }

        /** Removes the counters with labels of their own not added to since {@code cutoff}. */
        private void removeStaleLabelled(long cutoff) {
            for (Iterator<Map.Entry<String, Long>> it = labelledAddedMillis.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, Long> added = it.next();
                if (added.getValue() < cutoff) {
                    Counter counter = counters.remove(added.getKey());
                    meters.remove(counter);
                    registry.remove(counter);
                    it.remove();
                    labelled--;
                }
            }
        }
    }
}
