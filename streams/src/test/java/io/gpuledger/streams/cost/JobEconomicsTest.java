package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Cost against work, through the engine's own topology with pinned time. */
class JobEconomicsTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final double GPU_PER_HOUR = 36.0 / 8;

    private CostDriver cost;
    private TestInputTopic<String, byte[]> progress;
    private TestOutputTopic<String, JobEconomics> economics;
    private TestOutputTopic<String, byte[]> deadLetters;

    @BeforeEach
    void startDriver() {
        cost = new CostDriver("job-economics-test", T0);
        cost.publish(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8, 36.0,
                "USD", T0.minus(Duration.ofDays(1)), "test"));
        progress = cost.progress;
        economics = cost.economics;
        deadLetters = cost.progressDeadLetters;
    }

    @AfterEach
    void stopDriver() {
        cost.close();
    }

    @Test
    void shouldSetTheWorkOfAJobAcrossHostsAgainstItsCost() {
        // Given a job on two hosts, one GPU each, for a minute
        send(sample("GPU-a", "node-a", "llm", T0.plusSeconds(60)));
        send(sample("GPU-b", "node-b", "llm", T0.plusSeconds(60)));
        // When each host reports its tokens and its exposed communication time
        report(new JobProgress("llm", "research", "node-a", "i-node-a", List.of("GPU-a"), T0.plusSeconds(60), 60,
                3_000_000, "tokens", 30, 60.0, 18.0, 1.2e10, null));
        report(new JobProgress("llm", "research", "node-b", "i-node-b", List.of("GPU-b"), T0.plusSeconds(60), 60,
                1_000_000, "tokens", 30, 60.0, 12.0, 1.2e10, null));

        // Then cost per million tokens, tokens per GPU-second and the overhead ratio cover both hosts
        JobEconomics minute = latest().get("llm@" + T0);
        double cost = 2 * GPU_PER_HOUR / 60;
        assertThat(minute.throughputReported()).isTrue();
        assertThat(minute.cost()).isCloseTo(cost, within(1e-12));
        assertThat(minute.costPerMillionUnits().get("tokens")).isCloseTo(cost / 4, within(1e-12));
        assertThat(minute.unitsPerGpuSecond().get("tokens")).isCloseTo(4_000_000.0 / 120, within(1e-9));
        assertThat(minute.communicationOverheadRatio()).isCloseTo(30.0 / 120, within(1e-12));
        assertThat(minute.ncclBytes()).isEqualTo(2.4e10);
        assertThat(minute.gpus()).isEqualTo(2);
    }

    @Test
    void shouldSayNoThroughputReportedForAJobThatReportsNoWork() {
        send(sample("GPU-c", "node-c", "mystery", T0.plusSeconds(60)));

        JobEconomics minute = latest().get("mystery@" + T0);

        assertThat(minute.throughputReported()).isFalse();
        assertThat(minute.throughput()).isEqualTo("no throughput reported");
        assertThat(minute.costPerMillionUnits()).isEmpty();
        assertThat(minute.communicationOverheadRatio()).isNull();
        assertThat(Json.writeString(minute)).contains("\"throughput\":\"no throughput reported\"");
    }

    @Test
    void shouldRouteACorruptWorkReportToItsDeadLetterTopic() {
        progress.pipeInput(new TestRecord<>("llm",
                "{\"jobId\":\"llm\",\"workUnits\":-5}".getBytes(StandardCharsets.UTF_8), T0));

        TestRecord<String, byte[]> refused = deadLetters.readRecord();
        assertThat(DeadLetters.header(refused.headers(), DeadLetters.SOURCE_TOPIC))
                .isEqualTo(Topics.JOB_PROGRESS.name());
        assertThat(DeadLetters.header(refused.headers(), DeadLetters.REASON)).isNotBlank();
    }

    @Test
    void shouldCountAReportSentAgainOnceAndKeepTheCopyWithTheReason() {
        // Given a job on one host that reports every 30 s
        send(sample("GPU-a", "node-a", "llm", T0.plusSeconds(60)));
        JobProgress first = tokens("node-a", T0.plusSeconds(30), 30, 1_000_000);
        JobProgress second = tokens("node-a", T0.plusSeconds(60), 30, 2_000_000);
        report(first);
        report(second);

        // When the host sends its first report again, and another host of the job reports the same half minute
        report(first);
        report(tokens("node-b", T0.plusSeconds(30), 30, 500_000));

        // Then the copy is refused and the other host's report counted: 3.5M tokens in the minute, not 4.5M
        JobEconomics minute = latest().get("llm@" + T0);
        assertThat(minute.costPerMillionUnits().get("tokens")).isCloseTo(GPU_PER_HOUR / 60 / 3.5, within(1e-12));
        TestRecord<String, byte[]> refused = deadLetters.readRecord();
        assertThat(DeadLetters.header(refused.headers(), DeadLetters.REASON)).isEqualTo("time: duplicate: most of the"
                + " time it covers, 2026-03-01T12:00:00Z to 2026-03-01T12:00:30Z, was reported for job llm on node-a"
                + " already (a report sent again)");
        assertThat(refused.value()).isEqualTo(Json.write(first));
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldForgetWhatANodeReportedOnceItHasBeenSilentAnHourBeforeTheLatestReport() {
        // Given a node's report two hours before another node's
        JobProgress old = tokens("node-a", T0.minus(Duration.ofHours(2)), 30, 1_000);
        report(old);
        report(tokens("node-b", T0, 30, 1_000));
        // While the node is remembered, its report sent again is refused
        report(old);
        assertThat(deadLetters.readRecordsToList()).hasSize(1);

        // When a minute of wall-clock time passes, the silent node is forgotten
        cost.advance(Duration.ofMinutes(1));
        report(old);

        // Then its report is no longer judged against it
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldSumTheWorkOfEveryRankOfAJobOnANode() {
        // Given a job on one node of 8 GPUs for three minutes, one process (rank) a GPU, each rank
        // reporting its own 1,000 tokens every 10 s
        for (int second = 10; second <= 180; second += 10) {
            if (second % 60 == 0) {
                for (int gpu = 0; gpu < 8; gpu++) {
                    send(sample("GPU-" + gpu, "node-a", "llm", T0.plusSeconds(second)));
                }
            }
            for (int rank = 0; rank < 8; rank++) {
                report(rankTokens(rank, T0.plusSeconds(second), 10, 1_000));
            }
        }

        // Then each minute holds the work of all 8 ranks, 8 times that of one rank:
        // one rank: 6 reports x 1,000 = 6,000 tokens a minute; 8 ranks: 48,000 tokens.
        // Cost of a minute: 8 GPUs x 36 USD/h / 8 GPUs / 60 = 0.6 USD; per 1M tokens: 0.6 / 0.048 = 12.5 USD
        Map<String, JobEconomics> latest = latest();
        for (int minute = 0; minute < 3; minute++) {
            JobEconomics economics = latest.get("llm@" + T0.plusSeconds(60L * minute));
            assertThat(economics.workUnits().get("tokens")).isEqualTo(48_000.0);
            assertThat(economics.cost()).isCloseTo(0.6, within(1e-12));
            assertThat(economics.costPerMillionUnits().get("tokens")).isCloseTo(12.5, within(1e-9));
        }
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldRefuseARanksReportSentAgainAndCountTheOtherRanksOfItsNode() {
        // Given a job on one node whose ranks 3 and 4 each report their own tokens for the same 10 s
        send(sample("GPU-a", "node-a", "llm", T0.plusSeconds(60)));
        JobProgress rank3 = rankTokens(3, T0.plusSeconds(10), 10, 1_000);
        report(rank3);
        report(rankTokens(4, T0.plusSeconds(10), 10, 2_000));

        // When rank 3 sends its report again
        report(rank3);

        // Then only the copy is refused: 3,000 tokens in the minute, not 4,000 (copy counted) nor 1,000 (rank 4
        // refused)
        JobEconomics minute = latest().get("llm@" + T0);
        assertThat(minute.workUnits().get("tokens")).isEqualTo(3_000.0);
        TestRecord<String, byte[]> refused = deadLetters.readRecord();
        assertThat(DeadLetters.header(refused.headers(), DeadLetters.REASON)).isEqualTo("time: duplicate: most of the"
                + " time it covers, 2026-03-01T12:00:00Z to 2026-03-01T12:00:10Z, was reported for job llm on node-a"
                + " by rank 3 already (a report sent again)");
        assertThat(refused.value()).isEqualTo(Json.write(rank3));
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    private static JobProgress rankTokens(int rank, Instant end, double seconds, double units) {
        return new JobProgress("llm", "research", "node-a", "i-node-a", rank, List.of(), end, seconds, units, "tokens",
                10, null, null, null, null);
    }

    private static JobProgress tokens(String host, Instant end, double seconds, double units) {
        return new JobProgress("llm", "research", host, "i-" + host, List.of(), end, seconds, units, "tokens", 10, null,
                null, null, null);
    }

    private Map<String, JobEconomics> latest() {
        Map<String, JobEconomics> latest = new LinkedHashMap<>();
        for (TestRecord<String, JobEconomics> record : economics.readRecordsToList()) {
            latest.put(record.key() + "@" + record.value().windowStart(), record.value());
        }
        return latest;
    }

    private void send(TelemetrySample sample) {
        cost.send(sample);
    }

    private void report(JobProgress report) {
        cost.report(report);
    }

    private static TelemetrySample sample(String gpu, String host, String job, Instant end) {
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("A100-40GB")
                .placement(new Placement(host, "i-" + host, "p4d.24xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND))
                .jobId(job).team("research").time(end).intervalSeconds(60).smActive(0.6).build();
    }
}
