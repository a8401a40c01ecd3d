package io.gpuledger.alerts.feed;

import io.gpuledger.model.KafkaClientSettings;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/** How the alert service talks to Kafka: committed records only in, idempotent writes out. */
public final class KafkaClients {

    /** What Kafka takes as a static member's id. */
    private static final Pattern INSTANCE_ID = Pattern.compile("[A-Za-z0-9._-]{1,249}");

    private KafkaClients() {
    }

    /** A consumer of committed records in {@code groupId}, committing by hand, from the earliest record when new. */
    public static Properties consumer(String bootstrapServers, String groupId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaClientSettings.applyTo(props);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return props;
    }

    /**
     * As {@link #consumer(String, String)}, and a static member of its group when {@code instanceId}
     * is given: a restart under the same id takes its partitions back at once, where a new member
     * waits for the group to give up on the one that died (its session timeout, 45 s).
     *
     * @throws IllegalArgumentException when the id is not one Kafka takes
     */
    public static Properties consumer(String bootstrapServers, String groupId, Optional<String> instanceId) {
        Properties props = consumer(bootstrapServers, groupId);
        instanceId.ifPresent(id -> props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, checkedInstanceId(id)));
        return props;
    }

    /**
     * As {@link #consumer(String, String, Optional)}, with the time the group waits for a member that stopped
     * answering before it gives the member's partitions to another, when one is given (else Kafka's own
     * timeout and heartbeat): a replica's readers set it short, so that the one taking over is not kept
     * waiting by the one that died.
     */
    public static Properties consumer(String bootstrapServers, String groupId, Optional<String> instanceId,
            Optional<Duration> sessionTimeout) {
        Properties props = consumer(bootstrapServers, groupId, instanceId);
        sessionTimeout.ifPresent(timeout -> {
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
            props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int) Math.max(500, timeout.toMillis() / 5));
        });
        return props;
    }

    /**
     * {@code id}, when Kafka takes it as a static member's id.
     *
     * @throws IllegalArgumentException naming the id and what is allowed
     */
    public static String checkedInstanceId(String id) {
        if (!INSTANCE_ID.matcher(id).matches()) {
            throw new IllegalArgumentException("consumer instance id '" + id + "' is not one Kafka takes: 1 to 249"
                    + " letters, digits, '.', '_' or '-' (a pod's name, say)");
        }
        return id;
    }

    /**
     * How a reader closes when the service stops: it leaves its group even as a static member, so
     * that whoever comes next (a new pod under another name) takes its partitions at once. Only a
     * crash leaves a static member behind, for its restart to take back.
     */
    public static CloseOptions leavingTheGroup(Duration timeout) {
        return CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(timeout);
    }

    /** A consumer without a group, for reading a topic back from its start (see {@link TopicReplay}). */
    public static Properties replay(String bootstrapServers) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaClientSettings.applyTo(props);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return props;
    }

    /** The producer every program has ({@link KafkaClientSettings#producer}); a short linger keeps notices fast. */
    public static Properties producer(String bootstrapServers, String clientId) {
        return KafkaClientSettings.producer(bootstrapServers, clientId, 1);
    }
}
