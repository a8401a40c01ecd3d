package io.gpuledger.alerts.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.NamingConvention;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.quarkus.micrometer.runtime.MeterRegistryCustomizer;
import io.quarkus.micrometer.runtime.MeterRegistryCustomizerConstraint;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A naming convention that remembers what another one made of each meter name and label name.
 *
 * <p>The Prometheus registry asks its convention for the exported name of every label each time
 * it registers a meter, and Prometheus' convention runs a regular expression for each. A GPU first
 * heard of registers eight meters of ten labels: at 10,000 GPUs that was over a third of the fleet
 * reader's time while they first came. Names and label names are few (the catalogue's), so they
 * are remembered; label values are passed on as they are, since they are many and the Prometheus
 * convention leaves them alone anyway.
 */
public final class RememberedNames implements NamingConvention {

    /** More names than any catalogue has: past it, names are made again each time rather than kept. */
    static final int MAX_REMEMBERED = 10_000;

    private record MeterName(String name, Meter.Type type, String baseUnit) {
    }

    private final NamingConvention convention;
    private final Map<MeterName, String> names = new ConcurrentHashMap<>();
    private final Map<String, String> tagKeys = new ConcurrentHashMap<>();

    public RememberedNames(NamingConvention convention) {
        this.convention = convention;
    }

    @Override
    public String name(String name, Meter.Type type, String baseUnit) {
        return remembered(names, new MeterName(name, type, baseUnit),
                key -> convention.name(key.name(), key.type(), key.baseUnit()));
    }

    @Override
    public String tagKey(String key) {
        return remembered(tagKeys, key, convention::tagKey);
    }

    /** What {@code make} makes of {@code key}, from {@code kept} if it is there, kept there while it has room. */
    private static <K> String remembered(Map<K, String> kept, K key, Function<K, String> make) {
        String made = kept.get(key);
        if (made == null) {
            made = make.apply(key);
            if (kept.size() < MAX_REMEMBERED) {
                kept.put(key, made);
            }
        }
        return made;
    }

    @Override
    public String tagValue(String value) {
        return convention.tagValue(value);
    }

    /** Puts the Prometheus registry's convention behind one that remembers. */
    @Singleton
    @MeterRegistryCustomizerConstraint(applyTo = PrometheusMeterRegistry.class)
    public static class Installer implements MeterRegistryCustomizer {
        @Override
        public void customize(MeterRegistry registry) {
            NamingConvention current = registry.config().namingConvention();
            if (!(current instanceof RememberedNames)) {
                registry.config().namingConvention(new RememberedNames(current));
            }
        }
    }
}
