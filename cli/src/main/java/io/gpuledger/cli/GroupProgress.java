package io.gpuledger.cli;

import io.gpuledger.model.KafkaClientSettings;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * How far a consumer group, such as a Kafka Streams application, has read a topic, seen from
 * outside as an operator sees lag: its committed offsets against the topic's end offsets. Under
 * exactly-once the offsets are committed in the same transaction as the output, so a group whose
 * committed offsets reach the end has published, committed, everything those records made.
 */
final class GroupProgress implements AutoCloseable {

    private final Admin admin;

    GroupProgress(String bootstrapServers) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaClientSettings.applyTo(props);
        this.admin = Admin.create(props);
    }

    /** Records of {@code topic} the group has committed as read, over all partitions; 0 before its first commit. */
    long committed(String groupId, String topic) {
        Map<TopicPartition, OffsetAndMetadata> offsets =
                await(admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata());
        return offsets.entrySet().stream()
                .filter(entry -> entry.getKey().topic().equals(topic) && entry.getValue() != null)
                .mapToLong(entry -> entry.getValue().offset())
                .sum();
    }

    /** The end offsets of {@code topic}, summed over its partitions: what a group has to read to be done. */
    long end(String topic) {
        Map<TopicPartition, OffsetSpec> latest = await(admin.describeTopics(List.of(topic)).allTopicNames())
                .get(topic).partitions().stream()
                .collect(Collectors.toMap(partition -> new TopicPartition(topic, partition.partition()),
                        partition -> OffsetSpec.latest()));
        Map<TopicPartition, ListOffsetsResultInfo> ends = await(admin.listOffsets(latest).all());
        return ends.values().stream().mapToLong(ListOffsetsResultInfo::offset).sum();
    }

    /** Records of {@code topic} the group has still to commit. */
    long lag(String groupId, String topic) {
        return end(topic) - committed(groupId, topic);
    }

    private static <T> T await(KafkaFuture<T> future) {
        try {
            return future.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking the broker for offsets", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read offsets from the broker: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        admin.close();
    }
}
