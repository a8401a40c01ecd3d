package io.gpuledger.alerts.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheus.PrometheusNamingConvention;
import java.util.List;
import org.junit.jupiter.api.Test;

class SeriesTextTest {

    /** Held here: a gauge holds what it reads only weakly. */
    private final Cell first = new Cell();
    private final Cell second = new Cell();

    @Test
    void shouldWriteEachFamilysSamplesTogetherUnderItsType() {
        // Given meters of two families, interleaved, a label value with a quote in it
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        first.set(300.0);
        second.set(250.5);
        MetricCatalogue catalogue = MetricCatalogue.shipped();
        List<Meter> meters = List.of(
                catalogue.family("gpuledger_export_lag_seconds").gauge(registry, Tags.of("topic", "a"), first,
                        Cell::get),
                catalogue.family("gpuledger_records_read_total").counter(registry, Tags.of("topic", "a")),
                catalogue.family("gpuledger_export_lag_seconds").gauge(registry, Tags.of("topic", "b\"c"), second,
                        Cell::get));

        // When they are written
        String text = SeriesText.families(meters, new PrometheusNamingConvention(), name -> true);

        // Then each family comes once, typed, with its samples together
        assertThat(text).isEqualTo("""
                # TYPE gpuledger_export_lag_seconds gauge
                gpuledger_export_lag_seconds{topic="a"} 300.0
                gpuledger_export_lag_seconds{topic="b\\"c"} 250.5
                # TYPE gpuledger_records_read_total counter
                gpuledger_records_read_total{topic="a"} 0.0
                """);
    }
}
