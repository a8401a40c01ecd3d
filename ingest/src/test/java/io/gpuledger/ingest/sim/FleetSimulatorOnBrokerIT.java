package io.gpuledger.ingest.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topic;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * The simulator on a real broker: what it sends is read back through the contract's own topic
 * registry and serdes, as the cost engine and other consumers read it.
 */
class FleetSimulatorOnBrokerIT {

    private static final List<PriceQuote> CATALOG = PriceCatalog.loadDefault().quotes();
    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void shouldPublishEveryRecordOfEachRoundToItsContractTopicUnderItsContractKey() {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            // Given a fleet whose spot capacity is interrupted and whose spot prices move within the half hour
            String bootstrap = kafka.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, 2);
            SimulationSettings settings = SimulationSettings.defaults(Duration.ofMinutes(1))
                    .withSpotInterruptionsPerInstanceHour(3).withSpotPriceChangesPerOfferHour(6);
            FleetSimulation simulation =
                    new FleetSimulation(Fleet.generate(40, CATALOG, 21), CATALOG, settings, 21, T0);
            List<SimulationStep> steps = new ArrayList<>();

            // When the simulator publishes thirty rounds
            try (KafkaProducer<byte[], byte[]> producer = Producers.forTopics(bootstrap, "simulator-test");
                    FleetSimulator simulator = new FleetSimulator(simulation, producer, Clock.systemUTC())) {
                for (int round = 0; round < 30; round++) {
                    steps.add(simulator.publishNextRound());
                }
                simulator.close();

                // Then the broker acknowledged every record
                assertThat(simulator.failed()).isZero();
                assertThat(simulator.published()).isEqualTo(steps.stream().mapToLong(SimulationStep::records).sum());
            }

            // And each topic holds its records, keyed and timestamped as the contract says
            assertThat(steps).flatExtracting(SimulationStep::capacityEvents).isNotEmpty();
            assertThat(steps).flatExtracting(SimulationStep::priceChanges).isNotEmpty();
            assertPublished(bootstrap, Topics.TELEMETRY, steps, SimulationStep::telemetry,
                    sample -> sample.gpuUuid(), sample -> sample.time());
            assertPublished(bootstrap, Topics.JOB_PROGRESS, steps, SimulationStep::progress,
                    report -> report.jobId(), report -> report.time());
            assertPublished(bootstrap, Topics.CAPACITY_EVENTS, steps, SimulationStep::capacityEvents,
                    notice -> notice.instanceId(), notice -> notice.noticedAt());
            assertThat(steps).flatExtracting(SimulationStep::priceConfirmations).isNotEmpty();
            assertPublished(bootstrap, Topics.PRICES, steps, step -> Stream.concat(step.priceChanges().stream(),
                    step.priceConfirmations().stream()).toList(), quote -> quote.key(), quote -> quote.observedAt());
        }
    }

    private static <V> void assertPublished(String bootstrap, Topic<String, V> topic, List<SimulationStep> steps,
            Function<SimulationStep, List<V>> records, Function<V, String> key, Function<V, Instant> time) {
        List<V> sent = steps.stream().flatMap(step -> records.apply(step).stream()).toList();
        List<ConsumerRecord<String, V>> read = readAll(bootstrap, topic, sent.size());
        assertThat(read).extracting(ConsumerRecord::value).as(topic.name()).containsExactlyInAnyOrderElementsOf(sent);
        boolean byBroker = "LogAppendTime".equals(topic.config().get(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG));
        long now = System.currentTimeMillis();
        assertThat(read).allSatisfy(record -> {
            assertThat(record.key()).isEqualTo(key.apply(record.value()));
            if (byBroker) {
                // The broker dated it as it took it, in this test's last minute, not by its own time
                assertThat(record.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
                assertThat(record.timestamp()).isBetween(now - Duration.ofMinutes(2).toMillis(), now);
            } else {
                assertThat(record.timestamp()).isEqualTo(time.apply(record.value()).toEpochMilli());
            }
        });
    }

    /** Reads {@code topic} from the beginning until {@code expected} records came, or a minute went by. */
    private static <K, V> List<ConsumerRecord<K, V>> readAll(String bootstrap, Topic<K, V> topic, int expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        List<ConsumerRecord<K, V>> read = new ArrayList<>();
        try (KafkaConsumer<K, V> consumer = new KafkaConsumer<>(props, topic.keySerde().deserializer(),
                topic.valueSerde().deserializer())) {
            // Every partition assigned directly: no consumer group to join, nothing committed.
            List<TopicPartition> partitions = consumer.partitionsFor(topic.name()).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long giveUp = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (read.size() < expected && System.nanoTime() < giveUp) {
                consumer.poll(Duration.ofMillis(500)).forEach(read::add);
            }
        }
        return read;
    }
}
