package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The jobs sharing a GPU, as a sample carries them: what is accepted, what is refused, how they are written. */
class AllocationTest {

    /**
     * A shared GPU's sample as a Python agent writes it ({@code json.dumps} with its default separators), with two
     * notebooks on a time-sliced GPU: 30% and 15% of its SM time, the rest idle.
     */
    private static final String PYTHON_SAMPLE = "{\"gpuUuid\": \"GPU-5fd4f087-86f3-7a43-b711-4771313afc50\","
            + " \"gpuIndex\": 0, \"host\": \"node-a1\", \"instanceId\": \"i-0abc\", \"instanceType\": \"g5.xlarge\","
            + " \"provider\": \"aws\", \"region\": \"us-east-1\", \"lifecycle\": \"on-demand\", \"jobId\": \"shared\","
            + " \"time\": \"2026-03-01T12:00:00Z\", \"intervalSeconds\": 10.0, \"smActive\": 0.45,"
            + " \"allocations\": [{\"jobId\": \"nb-alice\", \"team\": \"research\", \"share\": 0.3,"
            + " \"measuredBy\": \"sm\"}, {\"jobId\": \"nb-bob\", \"share\": 0.15, \"measuredBy\": \"sm\"}]}";

    @Test
    void shouldReadTheSharesOfASharedGpuAsAnotherClientWritesThem() {
        TelemetrySample sample = TelemetryJson.read(PYTHON_SAMPLE.getBytes(StandardCharsets.UTF_8));

        assertThat(sample.shared()).isTrue();
        assertThat(sample.jobId()).isEqualTo(TelemetrySample.SHARED_JOB);
        assertThat(sample.allocations()).containsExactly(
                new Allocation("nb-alice", "research", 0.3, SharePolicy.SM),
                new Allocation("nb-bob", null, 0.15, SharePolicy.SM));
    }

    @Test
    void shouldReadASampleWithAllocationsAsSharedWhateverJobItNames() {
        // Another writer names one of the sharing jobs beside the allocations: the allocations say whose it is.
        String json = PYTHON_SAMPLE.replace("\"jobId\": \"shared\"", "\"jobId\": \"nb-alice\"");
        assertThat(json).contains("\"jobId\": \"nb-alice\", \"time\"");

        TelemetrySample sample = TelemetryJson.read(json.getBytes(StandardCharsets.UTF_8));

        assertThat(sample.jobId()).isEqualTo(TelemetrySample.SHARED_JOB);
        assertThat(sample.allocations()).extracting(Allocation::jobId).containsExactly("nb-alice", "nb-bob");
        assertThat(ContractFixtures.sample().toBuilder().jobId("train-7").build().jobId())
                .as("a sample without allocations keeps its job").isEqualTo("train-7");
    }

    @Test
    void shouldWriteNoAllocationsForAGpuOfOneJobSoThatItsSampleIsWhatItWasBefore() throws Exception {
        // Given a sample of one job, as written before shares existed
        TelemetrySample sample = ContractFixtures.sample();

        String json = Json.MAPPER.writeValueAsString(sample);

        // Then the field is left out, and the bytes are read straight (without the parser) to the same sample
        assertThat(json).doesNotContain("allocations").endsWith("\"gpuFraction\":null}");
        assertThat(sample.shared()).isFalse();
        assertThat(CanonicalTelemetry.read(json.getBytes(StandardCharsets.UTF_8), null)).isEqualTo(sample);
    }

    @Test
    void shouldWriteAndReadBackTheSharesOfASharedGpu() throws Exception {
        TelemetrySample sample = ContractFixtures.sample().toBuilder().jobId(TelemetrySample.SHARED_JOB)
                .allocations(List.of(new Allocation("infer-a", "serving", 0.5, SharePolicy.MEMORY),
                        new Allocation("infer-b", "serving", 0.5, SharePolicy.MEMORY)))
                .build();

        byte[] json = Json.MAPPER.writeValueAsBytes(sample);

        assertThat(TelemetryJson.read(json)).isEqualTo(sample);
        assertThat(new String(json, StandardCharsets.UTF_8))
                .endsWith("\"allocations\":[{\"jobId\":\"infer-a\",\"team\":\"serving\",\"share\":0.5,"
                        + "\"measuredBy\":\"memory\"},{\"jobId\":\"infer-b\",\"team\":\"serving\",\"share\":0.5,"
                        + "\"measuredBy\":\"memory\"}]}");
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            // shares that add up to more than the GPU
            "[{\"jobId\":\"a\",\"share\":0.7,\"measuredBy\":\"sm\"},"
                    + "{\"jobId\":\"b\",\"share\":0.4,\"measuredBy\":\"sm\"}]"
                    + "; allocations; shares add up to 1.1",
            "[{\"jobId\":\"a\",\"share\":0.5,\"measuredBy\":\"sm\"},"
                    + "{\"jobId\":\"a\",\"share\":0.1,\"measuredBy\":\"sm\"}]"
                    + "; allocations; name job 'a' twice",
            "[{\"jobId\":\"a\",\"share\":-0.1,\"measuredBy\":\"sm\"}]; allocations.[0].share; between 0 and 1",
            "[{\"jobId\":\"a\",\"share\":0.5,\"measuredBy\":\"requests\"}]; allocations;"
                    + " unknown share policy 'requests'",
            "[{\"jobId\":\"a\",\"share\":0.5}]; allocations; measuredBy",
            "[{\"share\":0.5,\"measuredBy\":\"sm\"}]; allocations; jobId",
            "[{\"jobId\":\"a|b\",\"share\":0.5,\"measuredBy\":\"sm\"}]; allocations.[0].jobId; must not contain",
            // the word that marks a shared GPU's samples is no job's: its part would be counted as a job's
            "[{\"jobId\":\"a\",\"share\":0.5,\"measuredBy\":\"sm\"},"
                    + "{\"jobId\":\"shared\",\"share\":0.2,\"measuredBy\":\"sm\"}]; allocations.[1].jobId;"
                    + " marks a shared GPU's samples",
            // the job of no one known, and the jobs a window does not list: use no job is known of is unallocated
            "[{\"jobId\":\"unknown\",\"share\":0.4,\"measuredBy\":\"sm\"}]; allocations.[0].jobId;"
                    + " says no job is known",
            "[{\"jobId\":\"unlisted\",\"share\":0.4,\"measuredBy\":\"sm\"}]; allocations.[0].jobId;"
                    + " not one job",
            "[null]; allocations; must not hold null",
            "{\"jobId\":\"a\"}; allocations; from Object value"})
    void shouldRefuseSharesThatCannotBeRight(String allocations, String field, String fragment) {
        String json = PYTHON_SAMPLE.substring(0, PYTHON_SAMPLE.indexOf("\"allocations\": ")) + "\"allocations\": "
                + allocations + "}";

        assertThatThrownBy(() -> TelemetryJson.read(json.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidRecordException.class)
                .satisfies(e -> assertThat(((InvalidRecordException) e).field()).startsWith(field))
                .hasMessageContaining(fragment);
    }

    @Test
    void shouldFindAJobNamedTwiceAmongManyAllocations() {
        // Given a GPU's time split among 40 jobs, the last of which is the first named again
        List<Allocation> allocations = new java.util.ArrayList<>();
        for (int job = 0; job < 40; job++) {
            allocations.add(new Allocation(job == 39 ? "job-0" : "job-" + job, null, 0.02, SharePolicy.EVEN));
        }

        // Then the sample is refused, naming the job
        assertThatThrownBy(() -> ContractFixtures.sample().toBuilder().jobId(TelemetrySample.SHARED_JOB)
                .allocations(allocations).build()).isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("name job 'job-0' twice");
        assertThat(ContractFixtures.sample().toBuilder().jobId(TelemetrySample.SHARED_JOB)
                .allocations(allocations.subList(0, 39)).build().allocations()).hasSize(39);
    }

    @Test
    void shouldAllowSharesAddingUpToOneWithTheWritersRounding() {
        // Three even shares of a GPU, as a writer computes them: 1/3 three times adds up to 1 or just under
        double third = 1.0 / 3;
        TelemetrySample sample = ContractFixtures.sample().toBuilder().jobId(TelemetrySample.SHARED_JOB)
                .allocations(List.of(new Allocation("a", null, third, SharePolicy.EVEN),
                        new Allocation("b", null, third, SharePolicy.EVEN),
                        new Allocation("c", null, third, SharePolicy.EVEN)))
                .build();

        assertThat(sample.allocations()).hasSize(3);
    }
}
