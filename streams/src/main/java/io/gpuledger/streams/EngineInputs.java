package io.gpuledger.streams;

import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.Topic;
import io.gpuledger.model.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.record.TimestampType;

/**
 * What the engine learns of its input topics before it starts.
 *
 * @param partitions    the most partitions of the telemetry and work-report topics: how many tasks
 *                      send roll-up partials; 0 when not known
 * @param brokerStamped the inputs whose records the broker dates ({@code LogAppendTime})
 * @param missing       the inputs the cluster does not have
 * @param known         false when the cluster could not be asked: then nothing above is known
 */
public record EngineInputs(int partitions, Set<String> brokerStamped, List<String> missing, boolean known) {

    /** The topics the cost topology reads. */
    public static final List<Topic<?, ?>> TOPICS = List.of(Topics.TELEMETRY, Topics.JOB_PROGRESS,
            Topics.CAPACITY_EVENTS, Topics.PRICES);
    /** The inputs that carry samples and work reports, whose times drive the engine's clock. */
    private static final List<String> TIMED = List.of(Topics.TELEMETRY.name(), Topics.JOB_PROGRESS.name());
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    public EngineInputs {
        brokerStamped = Set.copyOf(brokerStamped);
        missing = List.copyOf(missing);
    }

    /** Asks the cluster at {@code bootstrapServers}; {@link #known} is false when it does not answer in 30 s. */
    public static EngineInputs describe(String bootstrapServers) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaClientSettings.applyTo(props);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        try (Admin admin = Admin.create(props)) {
            return describe(admin);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return unknown();
        } catch (ExecutionException | TimeoutException e) {
            return unknown();
        }
    }

    private static EngineInputs describe(Admin admin) throws InterruptedException, ExecutionException,
            TimeoutException {
        Map<String, KafkaFuture<TopicDescription>> described = admin.describeTopics(
                TOPICS.stream().map(Topic::name).toList()).topicNameValues();
        List<String> missing = new ArrayList<>();
        int partitions = 0;
        List<ConfigResource> timed = new ArrayList<>();
        for (Topic<?, ?> topic : TOPICS) {
            try {
                TopicDescription description = described.get(topic.name()).get(TIMEOUT.toMillis(),
                        TimeUnit.MILLISECONDS);
                if (TIMED.contains(topic.name())) {
                    partitions = Math.max(partitions, description.partitions().size());
                    timed.add(new ConfigResource(ConfigResource.Type.TOPIC, topic.name()));
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
                missing.add(topic.name());
            }
        }
        Set<String> stamped = new HashSet<>();
        if (!timed.isEmpty()) {
            for (Map.Entry<ConfigResource, Config> entry : admin.describeConfigs(timed).all()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).entrySet()) {
                ConfigEntry type = entry.getValue().get(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG);
                if (type != null && TimestampType.LOG_APPEND_TIME.name.equals(type.value())) {
                    stamped.add(entry.getKey().name());
                }
            }
        }
        return new EngineInputs(partitions, stamped, missing, true);
    }

    private static EngineInputs unknown() {
        return new EngineInputs(0, Set.of(), List.of(), false);
    }

    /** What the engine says once at start of the inputs whose times it checks: whose clock bounds them. */
    public List<String> clockNotes() {
        List<String> notes = new ArrayList<>();
        for (String topic : TIMED) {
            if (!known || missing.contains(topic)) {
                continue;
            }
            notes.add(brokerStamped.contains(topic)
                    ? topic + ": dated by the broker (LogAppendTime); a record dated ahead of when the broker took it"
                            + " is refused, live or while the engine catches up"
                    : topic + ": dated by its producers (CreateTime); a node whose clock runs fast is refused only"
                            + " while the engine is live, and can close other GPUs' windows while it catches up."
                            + " Set message.timestamp.type=LogAppendTime on it (docs/operations.md#clocks)");
        }
        return notes;
    }
}
