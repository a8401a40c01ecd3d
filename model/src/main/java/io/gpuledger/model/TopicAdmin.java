package io.gpuledger.model;

import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates the contract's topics that do not exist yet, with their configuration. */
public final class TopicAdmin {

    private TopicAdmin() {
    }

    /**
     * Creates missing topics, replicated three times, or on every broker of a smaller cluster.
     *
     * @param partitions partitions of each new topic: the most consumer instances a stage can use
     */
    public static void ensureTopics(String bootstrapServers, int partitions) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        try (Admin admin = Admin.create(props)) {
            int brokers = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size();
            short replicationFactor = (short) Math.max(1, Math.min(3, brokers));
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = Topics.ALL.stream()
                    .filter(topic -> !existing.contains(topic.name()))
                    .map(topic -> new NewTopic(topic.name(), partitions, replicationFactor).configs(topic.config()))
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
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics on " + bootstrapServers, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create topics on " + bootstrapServers + ": " + e.getMessage(), e);
        }
    }
}
