package io.gpuledger.alerts.webhook;

import io.gpuledger.alerts.feed.KafkaClients;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Topics;
import io.gpuledger.model.WebhookDelivery;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * Which anomalies have reached (or been refused by) which receiver: the keys of
 * {@code alerts.webhook-deliveries.v1}, read by a consumer of its own that is assigned every
 * partition, outside any group. The topic is compacted, so reading it whole stays cheap.
 */
final class DeliveryLedger implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(DeliveryLedger.class);
    private static final String TOPIC = Topics.WEBHOOK_DELIVERIES.name();

    private final KafkaConsumer<String, byte[]> consumer;
    private final Set<String> settled = new HashSet<>();
    private List<TopicPartition> partitions = List.of();

    DeliveryLedger(String bootstrapServers, String clientId) {
        Properties props = KafkaClients.replay(bootstrapServers);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * Reads the topic up to its end as of now: from the beginning on the first call, from where
     * the previous call stopped afterwards.
     *
     * @param keepGoing false to give up early (the dispatcher is stopping)
     * @throws IllegalStateException when the topic does not exist
     */
    void catchUp(BooleanSupplier keepGoing) {
        if (partitions.isEmpty()) {
            List<PartitionInfo> described = consumer.partitionsFor(TOPIC);
            if (described == null || described.isEmpty()) {
                throw new IllegalStateException(TOPIC + " does not exist; create the contract's topics first");
            }
            partitions = described.stream().map(info -> new TopicPartition(TOPIC, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
        while (keepGoing.getAsBoolean() && !reached(end)) {
            for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                apply(record);
            }
        }
    }

    private boolean reached(Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
            if (consumer.position(partition.getKey()) < partition.getValue()) {
                return false;
            }
        }
        return true;
    }

    private void apply(ConsumerRecord<String, byte[]> record) {
        if (record.value() == null) {
            // A tombstone: someone wants that anomaly delivered again.
            settled.remove(record.key());
            return;
        }
        try {
            settled.add(Topics.WEBHOOK_DELIVERIES.valueSerde().deserializer().deserialize(TOPIC, record.value()).key());
        } catch (InvalidRecordException e) {
            LOG.warnf("skipped unreadable delivery record %s-%d@%d: %s",
                    record.topic(), record.partition(), record.offset(), e.getMessage());
        }
    }

    /** Whether the anomaly behind this {@link WebhookDelivery#key()} has been taken or refused. */
    boolean contains(String deliveryKey) {
        return settled.contains(deliveryKey);
    }

    void add(String deliveryKey) {
        settled.add(deliveryKey);
    }

    int size() {
        return settled.size();
    }

    @Override
    public void close() {
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
}
