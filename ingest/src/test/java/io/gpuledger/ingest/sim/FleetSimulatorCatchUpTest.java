package io.gpuledger.ingest.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** A simulation that starts in the past: its rounds sent at once, live or as a backfilled history. */
class FleetSimulatorCatchUpTest {

    private static final List<PriceQuote> CATALOG = PriceCatalog.loadDefault().quotes();
    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void shouldSendEveryRoundWhoseEndHasPassedAtOnce() {
        // Given a fleet whose first round began 30 s ago, in rounds of 5 s
        FleetSimulation simulation = new FleetSimulation(Fleet.generate(4, CATALOG, 7), CATALOG,
                SimulationSettings.defaults(Duration.ofSeconds(5)), 7, NOW.minusSeconds(30));
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
                new ByteArraySerializer());

        // When the schedule's first turn comes
        int published = new FleetSimulator(simulation, producer, Clock.fixed(NOW, ZoneOffset.UTC))
                .publishDueRounds();

        // Then the six rounds that ended by now went out, 12:00:00 the last: 30 s / 5 s = 6
        assertThat(published).isEqualTo(6);
        assertThat(simulation.now()).isEqualTo(NOW);
    }

    @Test
    void shouldPublishNoRoundBeforeTheWallClockReachesItsEnd() {
        // Given a fleet whose first round, of 5 s, ends 300 ms from now (a timer that fired early)
        FleetSimulation simulation = new FleetSimulation(Fleet.generate(4, CATALOG, 7), CATALOG,
                SimulationSettings.defaults(Duration.ofSeconds(5)), 7, NOW.minusMillis(4_700));
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
                new ByteArraySerializer());

        // When the schedule's turn comes
        int published = new FleetSimulator(simulation, producer, Clock.fixed(NOW, ZoneOffset.UTC))
                .publishDueRounds();

        // Then nothing goes out: its samples would be stamped 300 ms ahead of the wall clock
        assertThat(published).isZero();
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void shouldBackfillOnlySamplesAndWorkReportsUpToTheEnd() throws InterruptedException {
        // Given one busy job of a fleet, an hour back, a round a minute
        Fleet fleet = Fleet.generate(8, CATALOG, 7);
        SimulatedJob job = fleet.jobs().stream().filter(SimulatedJob::publishesProgress).findFirst().orElseThrow();
        FleetSimulation past = new FleetSimulation(fleet.of(job), CATALOG,
                SimulationSettings.defaults(Duration.ofMinutes(1)), 7, NOW.minus(Duration.ofHours(1)));
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
                new ByteArraySerializer());

        // When its hour is backfilled, a day of it a second
        long sent = FleetSimulator.backfill(past, producer, NOW, Duration.ofDays(1));

        // Then 60 rounds: a sample of each of the job's GPUs and a report of each of its nodes, and no
        // price record, the last timestamped now
        Map<String, Long> byTopic = producer.history().stream()
                .collect(Collectors.groupingBy(ProducerRecord::topic, Collectors.counting()));
        assertThat(byTopic).containsOnly(Map.entry(Topics.TELEMETRY.name(), 60L * job.gpus()),
                Map.entry(Topics.JOB_PROGRESS.name(), 60L * job.nodes()));
        assertThat(sent).isEqualTo(60L * (job.gpus() + job.nodes()));
        assertThat(producer.history().stream().mapToLong(ProducerRecord::timestamp).max().orElseThrow())
                .isEqualTo(NOW.toEpochMilli());
        assertThat(fleet.of(job).gpus()).containsExactlyElementsOf(
                fleet.gpus().stream().filter(gpu -> gpu.job().equals(job)).toList());
    }
}
