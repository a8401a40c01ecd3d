package io.gpuledger.ingest.agent.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.MovableClock;
import io.gpuledger.model.Placement;
import io.gpuledger.model.WorkloadClass;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Work reports as the agent reads them, with the node's clock moved by hand. */
class ProgressReportsTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final Placement NODE = new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1",
            Lifecycle.ON_DEMAND);

    private final MovableClock clock = new MovableClock(T0);
    private final ProgressReports reports = new ProgressReports(NODE, clock, Path.of("/nonexistent-proc"));

    @Test
    void shouldTakeTheIntervalOfAReportWithoutOneFromItsOwnRanksLastReport() {
        // Given ranks 0 and 1 of a job on this node, rank 0 reporting at 0 s, rank 1 at 7 s
        reports.accept(body("{\"jobId\": \"llm\", \"rank\": 0, \"unit\": \"tokens\", \"workUnits\": 1000,"
                + " \"intervalSeconds\": 10}"));
        clock.set(T0.plusSeconds(7));
        reports.accept(body("{\"jobId\": \"llm\", \"rank\": 1, \"unit\": \"tokens\", \"workUnits\": 1000,"
                + " \"intervalSeconds\": 10}"));

        // When rank 0 reports again at 10 s without an interval
        clock.set(T0.plusSeconds(10));
        JobProgress next = reports.accept(body("{\"jobId\": \"llm\", \"rank\": 0, \"unit\": \"tokens\","
                + " \"workUnits\": 1000}"));

        // Then its interval runs from its own last report: 10 s - 0 s = 10 s, not 10 s - 7 s = 3 s
        assertThat(next.intervalSeconds()).isEqualTo(10.0);
        assertThat(next.rank()).isEqualTo(0);
    }

    @Test
    void shouldTakeTheIntervalOfAJobsReportWithoutRankFromItsLastReportAsBefore() {
        // Given a job that reports for the whole node, at 0 s
        reports.accept(
                body("{\"jobId\": \"llm\", \"unit\": \"tokens\", \"workUnits\": 1000, \"intervalSeconds\": 10}"));

        // When it reports again at 12 s without an interval
        clock.set(T0.plusSeconds(12));
        JobProgress next = reports.accept(body("{\"jobId\": \"llm\", \"unit\": \"tokens\", \"workUnits\": 1000}"));

        // Then its interval is the 12 s since
        assertThat(next.rank()).isNull();
        assertThat(next.intervalSeconds()).isEqualTo(12.0);
    }

    @Test
    void shouldPassOnWhatAJobSaysOfItselfWithItsWorkloadClass() {
        // Given a serving job that says what it runs and that it is inference
        JobProgress report = reports.accept(body("{\"jobId\": \"resnet-serve\", \"unit\": \"images\","
                + " \"workUnits\": 28000, \"intervalSeconds\": 10, \"workload\": \"resnet50-int8\","
                + " \"workloadClass\": \"inference\"}"));

        // Then its traits carry both
        assertThat(report.traits()).isEqualTo(new JobTraits("resnet50-int8", null, null, null,
                WorkloadClass.INFERENCE));
    }

    @Test
    void shouldPassOnTheHeadroomAServingJobKeepsAndTheDataAJobReads() {
        // Given a serving job that keeps a fifth of its capacity spare and reads 40 GB an hour from storage
        JobProgress report = reports.accept(body("{\"jobId\": \"resnet-serve\", \"unit\": \"images\","
                + " \"workUnits\": 28000, \"intervalSeconds\": 10, \"workloadClass\": \"inference\","
                + " \"headroom\": 0.2, \"storageBytesPerHour\": 4.0e10}"));

        // Then its traits carry both, for the switch rule to size the serving fleet and price data egress
        assertThat(report.traits().headroom()).isEqualTo(0.2);
        assertThat(report.traits().storageBytesPerHour()).isEqualTo(4.0e10);
        assertThat(report.traits().isServing()).isTrue();
    }

    @Test
    void shouldRefuseANegativeHeadroomNamingTheField() {
        assertThatThrownBy(() -> reports.accept(body("{\"jobId\": \"serve\", \"unit\": \"images\","
                + " \"workUnits\": 1, \"intervalSeconds\": 10, \"headroom\": -0.1}")))
                .isInstanceOf(InvalidRecordException.class).hasMessageContaining("headroom");
    }

    @Test
    void shouldRefuseAReportOfTheJobThatMarksASharedGpu() {
        assertThatThrownBy(() -> reports.accept(body("{\"jobId\": \"shared\", \"unit\": \"tokens\","
                + " \"workUnits\": 1, \"intervalSeconds\": 10}")))
                .isInstanceOf(InvalidRecordException.class).hasMessageContaining("jobId: is 'shared'");
    }

    @Test
    void shouldRefuseAnUnknownWorkloadClassNamingTheField() {
        assertThatThrownBy(() -> reports.accept(body("{\"jobId\": \"llm\", \"unit\": \"tokens\","
                + " \"workUnits\": 1, \"intervalSeconds\": 10, \"workloadClass\": \"pretraining\"}")))
                .isInstanceOf(InvalidRecordException.class).hasMessageContaining("workloadClass");
    }

    @Test
    void shouldRefuseAReportForAnotherJobThanItsTokensBeforeRememberingIt() {
        // When job A's token brings a report of job B that claims GPU 0
        assertThatThrownBy(() -> reports.accept(body("{\"jobId\": \"job-b\", \"unit\": \"tokens\","
                + " \"workUnits\": 1, \"intervalSeconds\": 10, \"gpus\": [0]}"), Optional.of("job-a")))
                .isInstanceOf(JobToken.Refused.class).hasMessageContaining("not for 'job-b'");

        // Then job B holds no claim on the GPU and no interval runs for it
        assertThat(reports.claimOf("GPU-0", 0, T0)).isEmpty();
        assertThat(reports.processesTracked()).isZero();
        // while job A's own report with its token is taken
        assertThat(reports.accept(body("{\"jobId\": \"job-a\", \"unit\": \"tokens\", \"workUnits\": 1,"
                + " \"intervalSeconds\": 10, \"gpus\": [0]}"), Optional.of("job-a")).jobId()).isEqualTo("job-a");
        assertThat(reports.claimOf("GPU-0", 0, T0)).map(ProgressReports.Claim::jobId).hasValue("job-a");
    }

    @Test
    void shouldRefuseAGpuNamedAsAProcessClaimSoThatNoProcessIsClaimedWithoutItsStart() {
        // When a report names, among its GPUs, the key a pid's claim is kept under
        assertThatThrownBy(() -> reports.accept(body("{\"jobId\": \"llm\", \"unit\": \"tokens\", \"workUnits\": 1,"
                + " \"intervalSeconds\": 10, \"gpus\": [\"pid:4242\"]}")))
                .isInstanceOf(InvalidRecordException.class).hasMessageContaining("gpus");

        // Then it claims neither that process nor anything else
        assertThat(reports.claimOfProcess(4242, T0)).isEmpty();
        assertThat(reports.claimsTracked()).isZero();
    }

    @Test
    void shouldForgetAClaimOnceItHasLapsedAndAProcessAnHourAfterItsLastReport() {
        // Given a job that claimed GPU 0 at 0 s, and another that reports without claims
        reports.accept(body("{\"jobId\": \"llm\", \"unit\": \"tokens\", \"workUnits\": 1, \"intervalSeconds\": 10,"
                + " \"gpus\": [0]}"));
        assertThat(reports.claimsTracked()).isEqualTo(1);

        // When the other reports 5 min 1 s later (the claim lapsed at 5 min)
        clock.set(T0.plusSeconds(301));
        reports.accept(body("{\"jobId\": \"other\", \"unit\": \"tokens\", \"workUnits\": 1, \"intervalSeconds\": 10}"));

        // Then the claim is forgotten; both processes are still remembered (an hour has not passed)
        assertThat(reports.claimsTracked()).isZero();
        assertThat(reports.claimOf("GPU-x", 0, T0.plusSeconds(301))).isEmpty();
        assertThat(reports.processesTracked()).isEqualTo(2);

        // When 'other' reports again 3,600 s after llm's last report, plus one
        clock.set(T0.plusSeconds(3601));
        reports.accept(body("{\"jobId\": \"other\", \"unit\": \"tokens\", \"workUnits\": 1, \"intervalSeconds\": 10}"));

        // Then llm is forgotten too: its next report needs an interval of its own again
        assertThat(reports.processesTracked()).isEqualTo(1);
        assertThatThrownBy(() -> reports.accept(body("{\"jobId\": \"llm\", \"unit\": \"tokens\", \"workUnits\": 1}")))
                .isInstanceOf(InvalidRecordException.class).hasMessageContaining("intervalSeconds");
    }

    private static byte[] body(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }
}
