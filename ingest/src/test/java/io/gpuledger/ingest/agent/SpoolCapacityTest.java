package io.gpuledger.ingest.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.agent.delivery.Spool;
import io.gpuledger.ingest.agent.delivery.SpooledRecord;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.sim.Fleet;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.ingest.sim.SimulationSettings;
import io.gpuledger.ingest.sim.SimulationStep;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's spool, as its default configuration opens it, holds what a node makes while the
 * whole Kafka cluster is away for ten minutes: a sample every default interval from each of 56
 * GPUs (eight GPUs split into seven MIG slices each, the most one node reports), every one
 * replayed in order afterwards. Capacity is a matter of bytes, not of time, so the ten minutes
 * are written at once rather than waited for; the broker side of an outage is played by
 * {@code DeliveryOutageIT} and {@code AgentBrokerOutageIT}.
 */
class SpoolCapacityTest {

    /** Eight GPUs of seven MIG slices each. */
    private static final int SUBJECTS = 56;
    private static final Duration OUTAGE = Duration.ofMinutes(10);
    private static final Instant START = Instant.parse("2026-12-01T10:00:00Z");

    @TempDir
    Path dir;

    @Test
    void shouldKeepTenMinutesOfANodesSamplesAndReplayThemInOrder() throws Exception {
        // Given the agent's defaults and ten minutes of a full node's samples at its default interval
        AgentConfig config = AgentConfig.load(Optional.empty(),
                Map.of(AgentConfig.envName("spool.dir"), dir.resolve("spool").toString()));
        List<SpooledRecord> outage = samples(config.seconds("interval"));
        assertThat(outage).hasSize((int) (OUTAGE.dividedBy(config.seconds("interval")) * SUBJECTS));

        // When they all go to the spool, as they do while no broker answers
        long bytes;
        List<SpooledRecord> replayed = new ArrayList<>();
        try (Spool spool = AgentMain.openSpool(config)) {
            for (SpooledRecord record : outage) {
                spool.append(record);
            }
            bytes = spool.bytes();
            assertThat(spool.droppedRecords()).as("records dropped").isZero();
            while (!spool.isEmpty()) {
                replayed.add(spool.peek());
                spool.take();
            }
        }
        double minutesHeld = config.number("spool.max-bytes") / (double) bytes * OUTAGE.toMinutes();
        System.out.printf("spool: %d samples of %d GPUs in %d minutes take %d bytes; the default %d bytes hold %.0f"
                + " minutes of them%n", outage.size(), SUBJECTS, OUTAGE.toMinutes(), bytes,
                config.number("spool.max-bytes"), minutesHeld);

        // Then every one comes back, in the order it was made, as it was written
        assertThat(replayed).extracting(SpooledRecord::sequence)
                .containsExactlyElementsOf(outage.stream().map(SpooledRecord::sequence).toList());
        for (int i = 0; i < outage.size(); i++) {
            assertThat(replayed.get(i).value()).isEqualTo(outage.get(i).value());
        }
    }

    @Test
    void shouldDropTheOldestSamplesWhenTheSpoolIsTooSmallForTheOutage() throws Exception {
        // Given a spool bounded at a quarter of what ten minutes of the node's samples take
        AgentConfig defaults = AgentConfig.load(Optional.empty(),
                Map.of(AgentConfig.envName("spool.dir"), dir.resolve("measure").toString()));
        List<SpooledRecord> outage = samples(defaults.seconds("interval"));
        long needed;
        try (Spool spool = AgentMain.openSpool(defaults)) {
            for (SpooledRecord record : outage) {
                spool.append(record);
            }
            needed = spool.bytes();
        }
        AgentConfig small = AgentConfig.load(Optional.empty(),
                Map.of(AgentConfig.envName("spool.dir"), dir.resolve("small").toString(),
                        AgentConfig.envName("spool.max-bytes"), String.valueOf(needed / 4)));

        // When the same ten minutes go to it
        try (Spool spool = AgentMain.openSpool(small)) {
            for (SpooledRecord record : outage) {
                spool.append(record);
            }

            // Then the oldest are dropped and counted, and what is left is the newest
            assertThat(spool.droppedRecords()).isPositive();
            assertThat(spool.records() + spool.droppedRecords()).isEqualTo(outage.size());
            assertThat(spool.peek().sequence()).isEqualTo(outage.get((int) spool.droppedRecords()).sequence());
        }
    }

    /** The samples of {@link #SUBJECTS} GPUs over {@link #OUTAGE}, one each {@code interval}, as sent. */
    private static List<SpooledRecord> samples(Duration interval) {
        List<PriceQuote> catalog = PriceCatalog.loadDefault().quotes();
        Fleet fleet = Fleet.generate(SUBJECTS, catalog, 7);
        FleetSimulation simulation = new FleetSimulation(fleet, catalog, SimulationSettings.defaults(interval), 7,
                START);
        List<SpooledRecord> records = new ArrayList<>();
        simulation.run(OUTAGE, (SimulationStep step) -> {
            for (TelemetrySample sample : step.telemetry()) {
                String topic = Topics.TELEMETRY.name();
                records.add(new SpooledRecord(records.size(), topic, sample.gpuUuid(),
                        Topics.TELEMETRY.valueSerde().serializer().serialize(topic, sample),
                        sample.time().toEpochMilli()));
            }
        });
        return records;
    }
}
