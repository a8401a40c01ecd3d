package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuledger.alerts.feed.KafkaClients;
import io.gpuledger.alerts.feed.TopicReader;
import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The broker goes away for two minutes under a reader that has handled records and not yet
 * committed them: the commit times out after a minute, the reader reads again from its committed
 * offsets once the broker is back, nothing is lost, and meanwhile its health and its lag said so.
 *
 * <p>It tests one reader of the alert service, and lives beside the other outage tests of the programs, whose
 * build runs it alongside them: it spends most of its two minutes waiting.
 */
class TopicReaderOutageIT {

    private static final String GROUP = "outage-test";
    private static final String TOPIC = Topics.PRICES.name();
    private static final Duration OUTAGE = Duration.ofMinutes(2);

    @Test
    void shouldReadAgainWithNothingLostAfterTheBrokerWasAwayForTwoMinutes() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start();
                Producer<String, byte[]> producer = new KafkaProducer<>(
                        KafkaClients.producer(kafka.bootstrapServers(), "outage-test-producer"),
                        new StringSerializer(), new ByteArraySerializer())) {
            TopicAdmin.ensureTopics(kafka.bootstrapServers(), 1);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            Set<String> seen = ConcurrentHashMap.newKeySet();
            List<String> handled = new CopyOnWriteArrayList<>();
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch brokerStopped = new CountDownLatch(1);
            AtomicBoolean held = new AtomicBoolean();
            // Given a reader whose handler holds the record "hold" until the broker is gone
            TopicReader.Handler handler = record -> {
                String value = new String(record.value(), StandardCharsets.UTF_8);
                if (value.equals("hold") && held.compareAndSet(false, true)) {
                    holding.countDown();
                    awaitQuietly(brokerStopped);
                }
                handled.add(value);
                seen.add(value);
                return Instant.ofEpochMilli(record.timestamp());
            };
            Properties consumer = KafkaClients.consumer(kafka.bootstrapServers(), GROUP, Optional.empty());
            // The member it was before the outage is given up on sooner once the broker is back (default 45 s).
            consumer.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
            TopicReader reader = new TopicReader("outage", consumer, Map.of(TOPIC, handler), producer, () -> { },
                    registry, Clock.systemUTC(),
                            new TopicReader.Backoff(Duration.ofSeconds(2), Duration.ofSeconds(10)));
            List<String> before = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                before.add("before-" + i);
            }
            before.add("hold");
            reader.start();
            Watch watch = new Watch(reader, registry);
            try {
                await().atMost(Duration.ofSeconds(60)).until(reader::ready);
                send(producer, before);
                await().atMost(Duration.ofSeconds(60)).until(() -> holding.getCount() == 0);
                watch.start();

                // When the broker stops while the reader holds records it has not committed, and stays away two minutes
                kafka.stopBroker();
                long stoppedAt = System.nanoTime();
                brokerStopped.countDown();
                await().atMost(Duration.ofSeconds(110)).until(() -> reader.health().restarts() >= 1);
                long restartedAfter = System.nanoTime() - stoppedAt;
                long left = OUTAGE.toNanos() - (System.nanoTime() - stoppedAt);
                if (left > 0) {
                    // The rest of the two minutes' outage: the scenario, not a wait for anything
                    TimeUnit.NANOSECONDS.sleep(left);
                }
                Watch.Seen meanwhile = watch.stop();
                kafka.restartBroker();
                long brokerBack = System.nanoTime();
                List<String> after = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    after.add("after-" + i);
                }
                send(producer, after);

                // Then it reads again: every record, those of before the outage again from the committed offset
                List<String> all = new ArrayList<>(before);
                all.addAll(after);
                await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> assertThat(seen).containsAll(all));
                assertThat(seen).hasSize(all.size());
                long readAgainAfter = System.nanoTime() - brokerBack;
                await().atMost(Duration.ofSeconds(60)).until(() -> committed(kafka.bootstrapServers()) == all.size());
                // "hold" and what came with it were handled before the outage, and again after it
                assertThat(handled.stream().filter("hold"::equals)).hasSize(2);

                // and meanwhile it said that it was not reading: liveness DOWN while it waited to read again
                assertThat(meanwhile.states()).contains(TopicReader.State.RESTARTING);
                assertThat(meanwhile.notAlive()).isTrue();
                assertThat(meanwhile.readerDown()).isTrue();
                // its commit gave up after the consumer's default API timeout, a minute: the newest record read
                // was at least that old
                assertThat(meanwhile.maxExportLagSeconds()).isGreaterThanOrEqualTo(60);
                assertThat(reader.health().lastError()).hasValueSatisfying(error -> assertThat(error)
                        .containsAnyOf("TimeoutException", "CommitFailedException"));
                // and now it is alive again, holds its partition, and has nothing left to read
                assertThat(reader.health().alive()).isTrue();
                assertThat(reader.ready()).isTrue();
                await().atMost(Duration.ofSeconds(30)).until(() -> registry.get("gpuledger_consumer_lag_records")
                        .tag("topic", TOPIC).gauge().value() == 0.0);
                assertThat(registry.get("gpuledger_reader_up").tag("reader", "outage").gauge().value()).isEqualTo(1);
                assertThat(registry.get("gpuledger_reader_restarts").tag("reader", "outage").functionCounter()
                        .count()).isGreaterThanOrEqualTo(1);
                System.out.printf("broker outage: away %.1f s; reader restarted %.1f s after the broker stopped; every "
                        + "record"
                        + " read %.1f s after it was back; %d records handled, %d distinct; export lag up to %.1f s%n",
                        (brokerBack - stoppedAt) / 1e9, restartedAfter / 1e9, readAgainAfter / 1e9, handled.size(),
                        seen.size(), meanwhile.maxExportLagSeconds());
            } finally {
                watch.stop();
                reader.stop();
            }
        }
    }

    private static void send(Producer<String, byte[]> producer, List<String> values) throws Exception {
        for (String value : values) {
            producer.send(new ProducerRecord<>(TOPIC, value, value.getBytes(StandardCharsets.UTF_8)))
                    .get(60, TimeUnit.SECONDS);
        }
    }

    private static long committed(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            OffsetAndMetadata offset = admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).get(new TopicPartition(TOPIC, 0));
            return offset == null ? -1 : offset.offset();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What the reader's health and gauges said, looked at every 100 ms, as a probe and a scraper would. */
    private static final class Watch {
        record Seen(Set<TopicReader.State> states, boolean notAlive, boolean readerDown, double maxExportLagSeconds) {
        }

        private final TopicReader reader;
        private final SimpleMeterRegistry registry;
        private final Set<TopicReader.State> states = ConcurrentHashMap.newKeySet();
        private final AtomicBoolean notAlive = new AtomicBoolean();
        private final AtomicBoolean readerDown = new AtomicBoolean();
        private final AtomicReference<Double> maxLag = new AtomicReference<>(0.0);
        private volatile boolean watching;
        private Thread thread;

        Watch(TopicReader reader, SimpleMeterRegistry registry) {
            this.reader = reader;
            this.registry = registry;
        }

        void start() {
            watching = true;
            thread = new Thread(() -> {
                while (watching) {
                    TopicReader.Health health = reader.health();
                    states.add(health.state());
                    notAlive.compareAndSet(false, !health.alive());
                    readerDown.compareAndSet(false,
                            registry.get("gpuledger_reader_up").tag("reader", "outage").gauge().value() == 0);
                    double lag = registry.get("gpuledger_export_lag_seconds").tag("topic", TOPIC).gauge().value();
                    maxLag.accumulateAndGet(lag, Math::max);
                    try {
                        // How often the watch looks, as a scraper would, not a wait for anything
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "outage-watch");
            thread.setDaemon(true);
            thread.start();
        }

        Seen stop() throws InterruptedException {
            watching = false;
            if (thread != null) {
                thread.join();
            }
            return new Seen(Set.copyOf(states), notAlive.get(), readerDown.get(), maxLag.get());
        }
    }
}
