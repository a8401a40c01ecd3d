package io.gpuledger.processes;

import io.gpuledger.model.KafkaClientSettings;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.admin.StreamsGroupSubtopologyDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * How far a consumer group, such as a Kafka Streams application, has read a topic, seen from
 * outside as an operator sees lag: its committed offsets against the topic's end offsets. Under
 * exactly-once the offsets are committed in the same transaction as the output, so a group whose
 * committed offsets reach the end has published, committed, everything those records made.
 */
public final class GroupProgress implements AutoCloseable {

    private final Admin admin;

    public GroupProgress(String bootstrapServers) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaClientSettings.applyTo(props);
        this.admin = Admin.create(props);
    }

    /** Records of {@code topic} the group has committed as read, over all partitions; 0 before its first commit. */
    public long committed(String groupId, String topic) {
        Map<TopicPartition, OffsetAndMetadata> offsets =
                await(admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata());
        return offsets.entrySet().stream()
                .filter(entry -> entry.getKey().topic().equals(topic) && entry.getValue() != null)
                .mapToLong(entry -> entry.getValue().offset())
                .sum();
    }

    /** The group's committed offset on each partition of {@code topic} it has committed on. */
    public Map<Integer, Long> committedByPartition(String groupId, String topic) {
        Map<Integer, Long> offsets = new TreeMap<>();
        await(admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata()).forEach((partition, offset) -> {
            if (partition.topic().equals(topic) && offset != null) {
                offsets.put(partition.partition(), offset.offset());
            }
        });
        return offsets;
    }

    /** The end offsets of {@code topic}, summed over its partitions: what a group has to read to be done. */
    public long end(String topic) {
        Map<TopicPartition, OffsetSpec> latest = await(admin.describeTopics(List.of(topic)).allTopicNames())
                .get(topic).partitions().stream()
                .collect(Collectors.toMap(partition -> new TopicPartition(topic, partition.partition()),
                        partition -> OffsetSpec.latest()));
        Map<TopicPartition, ListOffsetsResultInfo> ends = await(admin.listOffsets(latest).all());
        return ends.values().stream().mapToLong(ListOffsetsResultInfo::offset).sum();
    }

    /**
     * The last stable offset of every partition of {@code topics}: where a {@code read_committed}
     * consumer's reading ends now, past every transaction committed so far.
     */
    public Map<TopicPartition, Long> stableEnds(Collection<String> topics) {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        await(admin.describeTopics(topics).allTopicNames()).forEach((topic, description) ->
                description.partitions().forEach(partition ->
                        latest.put(new TopicPartition(topic, partition.partition()), OffsetSpec.latest())));
        Map<TopicPartition, ListOffsetsResultInfo> ends = await(admin.listOffsets(latest,
                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all());
        Map<TopicPartition, Long> offsets = new HashMap<>();
        ends.forEach((partition, info) -> offsets.put(partition, info.offset()));
        return offsets;
    }

    /**
     * Whether the groups have committed, on each partition of {@code ends}, every record before
     * its end but the last. Under exactly-once the last offset before a stable end is the marker
     * that committed the transaction, which a consumer is never handed; a consumer that commits
     * only after records it was handed may stay one offset short of the end for good.
     */
    public boolean caughtUp(Collection<String> groupIds, Map<TopicPartition, Long> ends) {
        Map<TopicPartition, Long> committed = new HashMap<>();
        for (String groupId : groupIds) {
            await(admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata())
                    .forEach((partition, offset) -> {
                if (offset != null) {
                    committed.merge(partition, offset.offset(), Math::max);
                }
            });
        }
        return ends.entrySet().stream()
                .allMatch(end -> committed.getOrDefault(end.getKey(), 0L) >= end.getValue() - 1);
    }

    /**
     * Which partitions of {@code topic} each member of the group holds now, by its instance name
     * (static members) or member id; members that hold none of it are listed with none.
     */
    public Map<String, Set<Integer>> assignment(String groupId, String topic) {
        ConsumerGroupDescription group = await(admin.describeConsumerGroups(List.of(groupId)).describedGroups()
                .get(groupId));
        Map<String, Set<Integer>> held = new TreeMap<>();
        for (MemberDescription member : group.members()) {
            held.put(member.groupInstanceId().orElse(member.consumerId()), member.assignment().topicPartitions()
                    .stream().filter(partition -> partition.topic().equals(topic)).map(TopicPartition::partition)
                    .collect(Collectors.toCollection(TreeSet::new)));
        }
        return held;
    }

    /**
     * How many partitions of {@code topic} each member of a streams group (the Kafka Streams
     * rebalance protocol, KIP-1071) processes now, as active tasks of the subtopologies that
     * read it, by its instance name (static members) or process id.
     */
    public Map<String, Integer> streamsGroupActivePartitions(String groupId, String topic) {
        StreamsGroupDescription group = await(admin.describeStreamsGroups(List.of(groupId)).describedGroups()
                .get(groupId));
        Set<String> reading = group.subtopologies().stream()
                .filter(subtopology -> subtopology.sourceTopics().contains(topic))
                .map(StreamsGroupSubtopologyDescription::subtopologyId).collect(Collectors.toSet());
        Map<String, Integer> held = new TreeMap<>();
        for (StreamsGroupMemberDescription member : group.members()) {
            held.put(member.instanceId().orElse(member.processId()), member.assignment().activeTasks().stream()
                    .filter(tasks -> reading.contains(tasks.subtopologyId()))
                    .mapToInt(tasks -> tasks.partitions().size()).sum());
        }
        return held;
    }

    /** The topics whose names start with {@code prefix}, such as a Streams application's internal topics. */
    public List<String> topicsStartingWith(String prefix) {
        return await(admin.listTopics().names()).stream().filter(name -> name.startsWith(prefix)).sorted().toList();
    }

    /** Records of {@code topic} the group has still to commit. */
    public long lag(String groupId, String topic) {
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
