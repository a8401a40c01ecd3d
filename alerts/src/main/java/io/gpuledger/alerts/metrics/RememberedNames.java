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
 * A naming convention that remembers what another one made of each meter and label name: Prometheus' own
 * runs a regular expression per label at every registration, and the names are few. Values pass as they are.
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
