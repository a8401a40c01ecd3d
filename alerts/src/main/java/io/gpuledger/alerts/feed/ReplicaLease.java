package io.gpuledger.alerts.feed;

import io.gpuledger.model.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jboss.logging.Logger;

/**
 * Which of the alert service's replicas is the active one: the member of a consumer group of its own
 * that holds partition 0 of {@code gpu.recommendations.v1}. The lease reads no record (its partitions are
 * paused); the group is only Kafka's way of agreeing on one holder. The range assignor gives partition 0 to
 * the first member by member id, and a member id begins with the client id, which here begins with when the
 * replica started: the oldest replica holds the lease, a standby that joins later never takes it, and only
 * the loss of the holder moves it (a clean stop at once, a crash after the group's session timeout).
 *
 * <p>A replica that loses the lease after holding it (cut off from the cluster for longer than the session)
 * cannot tell what it missed and must not publish beside the new holder: {@code onLost} is told, and the
 * service ends.
 */
public final class ReplicaLease implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ReplicaLease.class);
    private static final TopicPartition LEASE = new TopicPartition(Topics.RECOMMENDATIONS.name(), 0);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Runnable onAcquired;
    private final Runnable onLost;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean held;

    /**
     * @param groupId        the replicas' shared group for the lease
     * @param startedAt      when this replica started: the oldest member holds the lease
     * @param sessionTimeout how long the group waits for a holder that stopped answering
     * @param onAcquired     run once, on the lease's thread, when this replica becomes the active one
     * @param onLost         run when the lease is lost after it was held
     */
    public ReplicaLease(String bootstrapServers, String groupId, Instant startedAt, Duration sessionTimeout,
            Runnable onAcquired, Runnable onLost) {
        Properties props = KafkaClients.consumer(bootstrapServers, groupId, Optional.empty(),
                Optional.of(sessionTimeout));
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, String.format("%s-%013d", groupId, startedAt.toEpochMilli()));
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
        this.consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.onAcquired = onAcquired;
        this.onLost = onLost;
        this.thread = new Thread(this::run, "alerts-replica-lease");
        thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    private void run() {
        try {
            consumer.subscribe(List.of(LEASE.topic()), new ConsumerRebalanceListener() {
                // The range assignor is eager: every member gives up all its partitions at each rebalance and
                // is told its new assignment after; the holder keeps publishing until then.
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    lose();
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    consumer.pause(partitions);
                    if (partitions.contains(LEASE)) {
                        acquire();
                    } else {
                        lose();
                    }
                }
            });
            while (running) {
                consumer.poll(Duration.ofMillis(500));
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            if (running) {
                LOG.error("the replica lease failed", e);
                lose();
            }
        } finally {
            consumer.close(KafkaClients.leavingTheGroup(Duration.ofSeconds(5)));
        }
    }

    private void acquire() {
        if (!held) {
            held = true;
            LOG.info("this replica holds the lease: it is the active one");
            onAcquired.run();
        }
    }

    private void lose() {
        if (held && running) {
            held = false;
            LOG.warn("this replica lost the lease of the active one");
            onLost.run();
        }
    }

    /** Leaves the group, so that a standby takes the lease at once. */
    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(Duration.ofSeconds(10).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
