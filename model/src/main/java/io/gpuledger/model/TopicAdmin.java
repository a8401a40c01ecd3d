package io.gpuledger.model;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** Creates the contract's topics that do not exist yet, with their configuration. */
public final class TopicAdmin {

    private TopicAdmin() {
    }

    /**
     * Partitions of the topics the command line creates where none exist (the demo, the simulator,
     * the price feed, the benchmarks): one stream thread each on a small machine. A production
     * cluster's topics come from its manifests, sized for its fleet (docs/operations.md).
     */
    public static final int DEFAULT_PARTITIONS = 3;

    /** Most copies of a record: three, so that one broker may be lost while writes go on. */
    static final int MAX_REPLICAS = 3;

    /**
     * Creates missing topics, replicated three times, or on every broker of a smaller cluster;
     * with three copies, two must hold a record before it is acknowledged ({@code min.insync.replicas}),
     * so that a record a producer was told is written ({@code acks=all}) survives the loss of any one broker.
     *
     * @param partitions partitions of each new topic: the most consumer instances a stage can use
     */
    public static void ensureTopics(String bootstrapServers, int partitions) {
        ensureTopics(bootstrapServers, partitions, Topics.ALL);
    }

    /**
     * Creates those of {@code topics} that are missing: a program that needs only its own topics
     * asks only for them, since a client sees only the topics its ACLs let it describe and may
     * create none on a secured cluster.
     */
    public static void ensureTopics(String bootstrapServers, int partitions, Collection<? extends Topic<?, ?>> topics) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaClientSettings.applyTo(props);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        try (Admin admin = Admin.create(props)) {
            int brokers = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size();
            short replicationFactor = replicationFactor(brokers);
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = topics.stream()
                    .filter(topic -> !existing.contains(topic.name()))
                    .map(topic -> new NewTopic(topic.name(), partitions, replicationFactor)
                            .configs(replicated(topic.config(), replicationFactor)))
                    .toList();
            if (missing.isEmpty()) {
                return;
            }
            try {
                admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                // Another instance may have created some of them meanwhile: that is the goal anyway.
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            awaitLeaders(admin, missing.stream().map(NewTopic::name).toList());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics on " + bootstrapServers, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create topics on " + bootstrapServers + ": " + e.getMessage(), e);
        }
    }

    /** Copies of each record on a cluster of {@code brokers}: three, or one per broker. */
    static short replicationFactor(int brokers) {
        return (short) Math.max(1, Math.min(MAX_REPLICAS, brokers));
    }

    /**
     * A topic's configuration with {@code min.insync.replicas}: one fewer than the copies when
     * there are three (a broker may be away and producers asking for all acknowledgements go on),
     * else one, since a topic on one or two brokers cannot survive a loss and should still take writes.
     */
    static Map<String, String> replicated(Map<String, String> config, short replicationFactor) {
        Map<String, String> replicated = new HashMap<>(config);
        replicated.putIfAbsent(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
                String.valueOf(replicationFactor >= MAX_REPLICAS ? replicationFactor - 1 : 1));
        return replicated;
    }

    /** Asks each partition's leader for its latest offset; fails (retriably) while one is not leading yet. */
    private static void askLeaders(Admin admin, Collection<TopicDescription> topics)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (TopicDescription topic : topics) {
            for (TopicPartitionInfo partition : topic.partitions()) {
                latest.put(new TopicPartition(topic.name(), partition.partition()), OffsetSpec.latest());
            }
        }
        admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
    }

    /**
     * Waits until every partition of the new topics has a leader that answers as leader: an
     * idempotent producer told NOT_LEADER on its first batch may retry it forever with
     * OUT_OF_ORDER_SEQUENCE_NUMBER (KAFKA-14359). Metadata can name a leader before it leads, so
     * each partition's latest offset is asked for too: only the leader itself answers that.
     */
    private static void awaitLeaders(Admin admin, List<String> topics)
            throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                Collection<TopicDescription> described = admin.describeTopics(topics).allTopicNames()
                        .get(30, TimeUnit.SECONDS).values();
                boolean led = described.stream()
                        .flatMap(topic -> topic.partitions().stream())
                        .allMatch(partition -> partition.leader() != null && !partition.leader().isEmpty());
                if (led) {
                    askLeaders(admin, described);
                    return;
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)
                        && !(e.getCause() instanceof RetriableException)) {
                    throw new IllegalStateException("cannot describe the new topics: " + e.getMessage(), e);
                }
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("the new topics have no leader after 30 s: " + topics);
            }
            Thread.sleep(100);
        }
    }
}
