package io.gpuledger.streams.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

class KafkaTotalTest {

    private static final MetricName TASK_0 = name("0_0");
    private static final MetricName TASK_1 = name("0_1");

    @Test
    void shouldNotGoDownWhenATaskMovesAwayAndCountItAnewWhenItComesBack() {
        KafkaTotal total = new KafkaTotal(name -> name.name().equals("dead-letters-total"));

        // Two tasks have counted 3 and 4: 3 + 4 = 7
        assertThat(total.update(Map.of(TASK_0, metric(3), TASK_1, metric(4)))).isEqualTo(7.0);
        // task 0_1 moves away, task 0_0 counts 2 more: 7 + 2 = 9, not 5
        assertThat(total.update(Map.of(TASK_0, metric(5)))).isEqualTo(9.0);
        // task 0_1 comes back counting from zero, at 1 now: 9 + 1 = 10
        assertThat(total.update(Map.of(TASK_0, metric(5), TASK_1, metric(1)))).isEqualTo(10.0);
        // the thread of task 0_0 is replaced, its count restarts at 2: 10 + 2 = 12
        assertThat(total.update(Map.of(TASK_0, metric(2), TASK_1, metric(1)))).isEqualTo(12.0);
    }

    @Test
    void shouldSumOnlyTheMetricsItIsFor() {
        KafkaTotal total = new KafkaTotal(name -> name.name().equals("dead-letters-total"));

        assertThat(total.update(Map.of(TASK_0, metric(3),
                new MetricName("process-total", "stream-thread-metrics", "", Map.of()), metric(100)))).isEqualTo(3.0);
    }

    private static MetricName name(String task) {
        return new MetricName("dead-letters-total", EngineMeters.GROUP, "",
                Map.of("task-id", task, EngineMeters.TAG, "telemetry"));
    }

    private static Metric metric(double value) {
        return new Metric() {
            @Override
            public MetricName metricName() {
                return null;
            }

            @Override
            public Object metricValue() {
                return value;
            }
        };
    }
}
