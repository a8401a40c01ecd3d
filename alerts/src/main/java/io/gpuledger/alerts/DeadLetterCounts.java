package io.gpuledger.alerts;

import io.gpuledger.alerts.metrics.MetricCatalogue;
import io.gpuledger.model.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Counts the records each stage refused, by the dead-letter topic they were kept on. */
final class DeadLetterCounts {

    private final Map<String, Counter> byTopic = new HashMap<>();

    DeadLetterCounts(MeterRegistry registry) {
        for (var topic : Topics.DEAD_LETTERS) {
            byTopic.put(topic.name(), MetricCatalogue.shipped().family("gpuledger_dead_letter_records_total")
                    .counter(registry, Tags.of("topic", topic.name())));
        }
    }

    Instant onDeadLetter(ConsumerRecord<String, byte[]> record) {
        byTopic.get(record.topic()).increment();
        return Instant.ofEpochMilli(record.timestamp());
    }
}
