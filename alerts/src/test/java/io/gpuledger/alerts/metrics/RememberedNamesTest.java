package io.gpuledger.alerts.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.NamingConvention;
import io.micrometer.prometheus.PrometheusNamingConvention;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RememberedNamesTest {

    private final PrometheusNamingConvention prometheus = new PrometheusNamingConvention();
    private final AtomicInteger asked = new AtomicInteger();
    private final NamingConvention counting = new NamingConvention() {
        @Override
        public String name(String name, Meter.Type type, String baseUnit) {
            asked.incrementAndGet();
            return prometheus.name(name, type, baseUnit);
        }

        @Override
        public String tagKey(String key) {
            asked.incrementAndGet();
            return prometheus.tagKey(key);
        }
    };
    private final RememberedNames names = new RememberedNames(counting);

    @Test
    void shouldNameMetersAsItsConventionDoesAskingItOnceForEachName() {
        // Given names as the catalogue, Quarkus and the JVM binders register them
        Object[][] meters = {
            {"gpuledger_gpu_cost_per_hour", Meter.Type.GAUGE, null},
            {"gpuledger_team_cost", Meter.Type.COUNTER, null},
            {"http.server.requests", Meter.Type.TIMER, "seconds"},
            {"jvm.memory.used", Meter.Type.GAUGE, "bytes"},
            {"jvm.memory.used", Meter.Type.GAUGE, null},
            {"jvm.memory.used", Meter.Type.COUNTER, "bytes"},
        };

        // When each is named three times
        for (int round = 0; round < 3; round++) {
            for (Object[] meter : meters) {
                String name = (String) meter[0];
                Meter.Type type = (Meter.Type) meter[1];
                String unit = (String) meter[2];
                assertThat(names.name(name, type, unit)).as(name + " " + type + " " + unit)
                        .isEqualTo(prometheus.name(name, type, unit));
            }
        }

        // Then the names are Prometheus' own, and each was made once
        assertThat(names.name("http.server.requests", Meter.Type.TIMER, "seconds"))
                .isEqualTo("http_server_requests_seconds");
        assertThat(asked).hasValue(meters.length);
    }

    @Test
    void shouldNameLabelsAsItsConventionDoesAndPassValuesOnUnchanged() {
        String[] keys = {"gpu", "job_id", "gpu.model", "instance-type", "1st"};

        for (int round = 0; round < 3; round++) {
            for (String key : keys) {
                assertThat(names.tagKey(key)).as(key).isEqualTo(prometheus.tagKey(key));
            }
        }

        assertThat(names.tagKey("gpu.model")).isEqualTo("gpu_model");
        assertThat(asked).hasValue(keys.length);
        assertThat(names.tagValue("GPU-8f3c 2b/ä")).isEqualTo(prometheus.tagValue("GPU-8f3c 2b/ä"));
    }

    @Test
    void shouldKeepNamingRightPastTheNamesItRemembers() {
        int many = RememberedNames.MAX_REMEMBERED + 100;
        for (int i = 0; i < many; i++) {
            assertThat(names.tagKey("label." + i)).isEqualTo("label_" + i);
        }

        // Past the bound, a name is made again each time it is asked for, still right
        String last = "label." + (many - 1);
        int before = asked.get();
        assertThat(names.tagKey(last)).isEqualTo("label_" + (many - 1));
        assertThat(asked.get()).isEqualTo(before + 1);
        assertThat(names.tagKey("label.0")).isEqualTo("label_0");
        assertThat(asked.get()).isEqualTo(before + 1);
    }
}
