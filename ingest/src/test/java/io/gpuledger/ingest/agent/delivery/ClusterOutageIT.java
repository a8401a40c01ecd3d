package io.gpuledger.ingest.agent.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuledger.broker.BrokerCluster;
import io.gpuledger.model.TopicAdmin;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole three-broker cluster goes away while an agent's records keep coming: every node is
 * killed with SIGKILL, the records go to the spool, and once the cluster is started again on its
 * data every record arrives, in order per key, exactly once but for those in flight at the kill (see
 * {@link DeliveryOutageIT}). How long an outage the spool covers
 * is a matter of its size ({@code SpoolCapacityTest}: ten minutes of a full node by default).
 *
 * <p>The test can fail: with {@code Delivery} made to drop what its producer cannot take rather
 * than spool it (spooling only on close), it failed: nothing was spooled while the cluster was away.
 */
class ClusterOutageIT {

    private static final int BROKERS = 3;
    private static final Duration OUTAGE = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    @Test
    void shouldDeliverEveryRecordExactlyOnceInOrderAcrossAWholeClusterOutage() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        try (BrokerCluster cluster = BrokerCluster.start(System.getProperty("java.class.path"), BROKERS,
                dir.resolve("kafka"))) {
            String bootstrap = cluster.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, 2);
            // A buffer of 32 KiB fills within a second of outage, so the spool is exercised.
            Delivery delivery = new Delivery(Delivery.producer(bootstrap, "cluster-outage-test", 32 * 1024),
                    new Spool(dir.resolve("spool"), 64L * 1024 * 1024, 64 * 1024), Duration.ofMillis(100), log::add);
            int sent = 0;

            // Given records flowing, when every broker of the cluster dies and the cluster comes back later
            sent = DeliveryOutageIT.submit(delivery, sent, Duration.ofSeconds(1));
            cluster.kill();
            long killed = System.nanoTime();
            // Taken once every broker is gone, when no acknowledgement can come any more: before the kill, the
            // spool's replay may still hand records to the producer that are then in flight when the brokers die.
            Set<Long> inFlightAtKill = delivery.unacknowledged();
            sent = DeliveryOutageIT.submit(delivery, sent, OUTAGE);
            long spooledDuringOutage = delivery.counters().spooled();
            cluster.restart();
            long back = System.nanoTime();
            sent = DeliveryOutageIT.submit(delivery, sent, Duration.ofSeconds(1));
            await().atMost(Duration.ofSeconds(60)).until(() -> delivery.spooledNow() == 0 && delivery.pending() == 0);
            long drained = System.nanoTime();
            delivery.close(Duration.ofSeconds(10));

            // Then every record is on the topic exactly once, and in order for each key
            List<ConsumerRecord<String, String>> received = DeliveryOutageIT.readAll(bootstrap);
            System.out.printf("cluster outage: %d records, %d spooled while the %d brokers were away %.1f s;"
                    + " spool empty %.1f s after the cluster was back%n", sent, spooledDuringOutage, BROKERS,
                    (back - killed) / 1e9, (drained - back) / 1e9);
            assertThat(spooledDuringOutage).as("records spooled during the outage").isPositive();
            assertThat(log).as("what the delivery logged").isEmpty();
            assertThat(delivery.dropped()).isZero();
            DeliveryOutageIT.assertOnceInOrderPerKey(received, sent, inFlightAtKill);
            assertThat(delivery.counters().sent()).isEqualTo(sent);
        }
    }
}
