package io.gpuledger.streams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuledger.broker.EmbeddedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link LiveStore} under exactly-once on a real broker: what a commit makes durable must be on
 * the changelog when the commit is, not only once Kafka Streams writes a checkpoint; what a processor
 * sends as the store is about to write ({@link CommitSends}) goes out in that commit.
 */
class LiveStoreOnBrokerIT {

    private static final String STORE = "counts";
    private static final TopicPartition COUNTED = new TopicPartition("counted", 0);

    @TempDir
    Path stateDir;

    @Test
    void shouldHaveEveryCommittedUpdateOnTheChangelogWhileTheApplicationRunsAndCountOnFromItAfterARestart()
            throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            String application = "live-store-" + System.nanoTime();
            String changelog = application + "-" + STORE + "-changelog";
            createTopics(bootstrap, "counted");

            try (KafkaStreams streams = counting(bootstrap, application, stateDir.resolve("first"))) {
                streams.start();
                // When 150 records are counted and their offsets committed, the application still running
                send(bootstrap, 150, i -> i % 3 == 0 ? "j" : "k");
                awaitCommitted(bootstrap, application, COUNTED, 150);

                // Then the changelog, as a restore would read it, holds the counts of all of them
                assertThat(readChangelog(bootstrap, changelog))
                        .containsExactlyInAnyOrderEntriesOf(Map.of("j", 50L, "k", 100L));
            }

            // When the application starts again on an empty state directory and counts 10 more of j
            try (KafkaStreams streams = counting(bootstrap, application, stateDir.resolve("second"))) {
                streams.start();
                send(bootstrap, 10, i -> "j");
                awaitCommitted(bootstrap, application, COUNTED, 160);

                // Then it counted on from what it restored from the changelog
                assertThat(readChangelog(bootstrap, changelog))
                        .containsExactlyInAnyOrderEntriesOf(Map.of("j", 60L, "k", 100L));
            }
        }
    }

    @Test
    void shouldSendWhatAProcessorHoldsAtEachCommitInThatCommitLeavingNothingOnTheStoresChangelog()
            throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            String application = "live-store-sends-" + System.nanoTime();
            String changelog = application + "-" + STORE + "-changelog";
            createTopics(bootstrap, "counted", "sent");
            StreamsBuilder builder = new StreamsBuilder();
            builder.addStateStore(new LiveStoreBuilder<>(STORE, Codec.LONG));
            builder.stream("counted", Consumed.with(Serdes.String(), Serdes.String()))
                    .process(CountUntilCommit::new, STORE)
                    .to("sent", Produced.with(Serdes.String(), Serdes.Long()));

            try (KafkaStreams streams = new KafkaStreams(builder.build(),
                    properties(bootstrap, application, stateDir.resolve("sends")))) {
                streams.start();
                // When 150 records are counted, the counts held in the store until a commit sends them
                send(bootstrap, 150, i -> i % 3 == 0 ? "j" : "k");
                awaitCommitted(bootstrap, application, COUNTED, 150);
            }

            // Then the counts sent add up to all of them, committed with their input
            Map<String, Long> sums = new HashMap<>();
            read(bootstrap, "sent").forEach(record -> sums.merge(record.key(),
                    Serdes.Long().deserializer().deserialize("sent", record.value()), Long::sum));
            assertThat(sums).containsExactlyInAnyOrderEntriesOf(Map.of("j", 50L, "k", 100L));
            // And no count was ever written to the store's changelog: each went out before its commit wrote the store
            assertThat(read(bootstrap, changelog)).isEmpty();
        }
    }

    @Test
    void shouldCountOnFromEveryCommittedCountWhenATaskMovesToAnotherInstanceAndBackThroughItsStandby()
            throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            String application = "live-store-standby-" + System.nanoTime();
            String changelog = application + "-" + STORE + "-changelog";
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.createTopics(List.of(new NewTopic("counted-twice", 2, (short) 1))).all().get();
            }
            // Given instance a, with a standby replica of each task wherever there is another instance, which
            // counts 20 records of x and of y in each of the two partitions
            int moved;
            try (KafkaStreams a = counting(bootstrap, application, stateDir.resolve("a"), "counted-twice", 1)) {
                a.start();
                sendTo(bootstrap, 0, 20, "x", "y");
                sendTo(bootstrap, 1, 20, "x", "y");
                awaitCommitted(bootstrap, application, new TopicPartition("counted-twice", 0), 40);
                awaitCommitted(bootstrap, application, new TopicPartition("counted-twice", 1), 40);

                // When instance b joins and takes one task over, whose active task on a becomes a standby (the state
                // Kafka Streams recycles), and counts 5 more of x there
                try (KafkaStreams b = counting(bootstrap, application, stateDir.resolve("b"), "counted-twice", 1)) {
                    b.start();
                    moved = awaitTaskMoved(a, b);
                    sendTo(bootstrap, moved, 5, "x");
                    awaitCommitted(bootstrap, application, new TopicPartition("counted-twice", moved), 45);
                    b.close(new KafkaStreams.CloseOptions().leaveGroup(true));
                }
                // and b leaves, so that a's standby becomes the active task again, and counts 1 more of x and of y
                sendTo(bootstrap, moved, 1, "x", "y");
                awaitCommitted(bootstrap, application, new TopicPartition("counted-twice", moved), 47);
            }

            // Then it counted on from every count committed before: y's 20 from a's own time too, not only what b wrote
            assertThat(readChangelog(bootstrap, changelog, moved))
                    .containsExactlyInAnyOrderEntriesOf(Map.of("x", 26L, "y", 21L));
        }
    }

    /** The partition whose task {@code a} holds as a standby and {@code b} as the active task, once they do. */
    private static int awaitTaskMoved(KafkaStreams a, KafkaStreams b) {
        int[] moved = {-1};
        await("a task moved from a to b, with a standby on a").atMost(Duration.ofSeconds(60)).until(() -> {
            if (a.state() != KafkaStreams.State.RUNNING || b.state() != KafkaStreams.State.RUNNING) {
                return false;
            }
            for (var bThread : b.metadataForLocalThreads()) {
                for (var task : bThread.activeTasks()) {
                    boolean standbyOnA = a.metadataForLocalThreads().stream()
                            .anyMatch(thread -> thread.standbyTasks().stream()
                                    .anyMatch(standby -> standby.taskId().equals(task.taskId())));
                    if (standbyOnA) {
                        moved[0] = task.taskId().partition();
                        return true;
                    }
                }
            }
            return false;
        });
        return moved[0];
    }

    /** Topics of one partition each. */
    private static void createTopics(String bootstrap, String... names) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(Stream.of(names).map(name -> new NewTopic(name, 1, (short) 1)).toList()).all().get();
        }
    }

    private static KafkaStreams counting(String bootstrap, String application, Path stateDir) {
        return counting(bootstrap, application, stateDir, "counted", 0);
    }

    private static KafkaStreams counting(String bootstrap, String application, Path stateDir, String topic,
            int standbyReplicas) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(new LiveStoreBuilder<>(STORE, Codec.LONG));
        builder.stream(topic, Consumed.with(Serdes.String(), Serdes.String())).process(Count::new, STORE);
        Properties props = properties(bootstrap, application, stateDir);
        props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, standbyReplicas);
        return new KafkaStreams(builder.build(), props);
    }

    /** {@code records} records of each of {@code keys} to partition {@code partition} of the two-partition topic. */
    private static void sendTo(String bootstrap, int partition, int records, String... keys) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < records; i++) {
                for (String key : keys) {
                    producer.send(new ProducerRecord<>("counted-twice", partition, key, "x"));
                }
            }
        }
    }

    private static Properties properties(String bootstrap, String application, Path stateDir) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, application);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        // A member of Kafka Streams does not leave its group as it closes: the shortest session the
        // broker allows, so that the next start takes the partition over soon after the last stopped
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6_000);
        return props;
    }

    private static void send(String bootstrap, int records, IntFunction<String> keyOf) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>("counted", keyOf.apply(i), "x"));
            }
        }
    }

    /** Counts records per key in the live store. */
    private static final class Count implements Processor<String, String, Void, Void> {
        private LiveStore<Long> counts;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            counts = context.getStateStore(STORE);
        }

        @Override
        public void process(Record<String, String> record) {
            Long count = counts.get(record.key());
            counts.put(record.key(), count == null ? 1 : count + 1);
        }
    }

    /** Counts records per key in the live store until a commit, which sends the counts and forgets them. */
    private static final class CountUntilCommit implements Processor<String, String, String, Long> {
        private ProcessorContext<String, Long> context;
        private LiveStore<Long> counts;

        @Override
        public void init(ProcessorContext<String, Long> context) {
            this.context = context;
            counts = context.getStateStore(STORE);
            counts.beforeEachWrite(CommitSends.inScopeOf(context, this::sendAll));
        }

        @Override
        public void process(Record<String, String> record) {
            Long count = counts.get(record.key());
            counts.put(record.key(), count == null ? 1 : count + 1);
        }

        private void sendAll() {
            for (String key : new ArrayList<>(counts.entries().keySet())) {
                context.forward(new Record<>(key, counts.get(key), context.currentSystemTimeMs()));
                counts.delete(key);
            }
        }
    }

    private static void awaitCommitted(String bootstrap, String group, TopicPartition partition, long offset) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            await("offset " + offset + " of " + partition + " committed").atMost(Duration.ofSeconds(60))
                    .until(() -> {
                        OffsetAndMetadata committed = admin.listConsumerGroupOffsets(group)
                                .partitionsToOffsetAndMetadata().get().get(partition);
                        return committed != null && committed.offset() >= offset;
                    });
        }
    }

    private static Map<String, Long> readChangelog(String bootstrap, String topic) {
        return readChangelog(bootstrap, topic, 0);
    }

    private static Map<String, Long> readChangelog(String bootstrap, String topic, int partition) {
        Map<String, Long> latest = new HashMap<>();
        read(bootstrap, topic, partition)
                .forEach(record -> latest.put(record.key(), Codec.LONG.fromBytes(record.value())));
        return latest;
    }

    /** Every committed record of partition 0 of {@code topic}, in order. */
    private static List<ConsumerRecord<String, byte[]>> read(String bootstrap, String topic) {
        return read(bootstrap, topic, 0);
    }

    private static List<ConsumerRecord<String, byte[]>> read(String bootstrap, String topic, int partitionNumber) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, partitionNumber);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(partition) < end && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }
}
