package io.gpuledger.streams.metrics;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * The sum of some of Kafka's cumulative metrics, kept from going down. Kafka Streams counts per
 * task and per thread, and drops a task's metrics when the task moves to another instance or a
 * thread is replaced: their plain sum would fall, which Prometheus reads as a restart and counts
 * again. This adds only what each metric grew by since the last read; one seen again after it
 * was dropped, or lower than before, starts anew from zero. Counts made between the last read and
 * a drop are lost: the total is a floor.
 */
final class KafkaTotal {

    private final Predicate<MetricName> summed;
    private final Map<MetricName, Double> lastValues = new HashMap<>();
    private double total;

    KafkaTotal(Predicate<MetricName> summed) {
        this.summed = summed;
    }

    /** Takes in the current values of {@code metrics} (those this total sums) and returns the total. */
    synchronized double update(Map<MetricName, ? extends Metric> metrics) {
        Map<MetricName, Double> now = new HashMap<>();
        metrics.forEach((name, metric) -> {
            if (summed.test(name) && metric.metricValue() instanceof Number number
                    && Double.isFinite(number.doubleValue())) {
                now.put(name, number.doubleValue());
            }
        });
        now.forEach((name, value) -> {
            Double before = lastValues.get(name);
            total += before == null || value < before ? value : value - before;
        });
        lastValues.clear();
        lastValues.putAll(now);
        return total;
    }

    synchronized double total() {
        return total;
    }
}
