package io.gpuledger.ingest.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.agent.collect.Collector;
import io.gpuledger.ingest.agent.collect.DcgmScrape;
import io.gpuledger.ingest.agent.collect.GpuReading;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.Reading;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeAgentTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final Placement NODE = new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1",
            Lifecycle.ON_DEMAND);

    @TempDir
    Path dir;

    private final List<String> published = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();
    private NodeAgent agent;

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.close();
        }
    }

    @Test
    void shouldPreferDcgmReadingsAndFillTheRestFromNvidiaSmi() {
        Collector dcgm = fixed("dcgm-exporter", reading("GPU-a", 0, 0.61, null, null));
        Collector smi = fixed("nvidia-smi", reading("GPU-a", 0, null, 0.97, 250.0),
                reading("GPU-b", 1, null, 0.02, 60.0));
        agent = agent(Map.of(), dcgm, smi);

        List<TelemetrySample> samples = agent.round();

        assertThat(samples).extracting(TelemetrySample::gpuUuid).containsExactly("GPU-a", "GPU-b");
        assertThat(samples.get(0).smActive()).isEqualTo(0.61);
        assertThat(samples.get(0).gpuUtilization()).isEqualTo(0.97);
        assertThat(samples.get(0).powerWatts()).isEqualTo(250.0);
        assertThat(samples.get(1).smActive()).isEqualTo(0.02);
        assertThat(published).hasSize(2).allMatch(line -> line.startsWith(Topics.TELEMETRY.name()));
    }

    @Test
    void shouldNotChargeAMigModeGpuTwiceWhenNvidiaSmiSeesItWhole() {
        Collector dcgm = fixed("dcgm-exporter", slice("GPU-m/mig/1", 3.0 / 7), slice("GPU-m/mig/2", 4.0 / 7));
        Collector smi = fixed("nvidia-smi", reading("GPU-m", 0, null, null, 300.0));
        agent = agent(Map.of(), dcgm, smi);

        assertThat(agent.round()).extracting(TelemetrySample::gpuUuid).containsExactly("GPU-m/mig/1", "GPU-m/mig/2");
    }

    @Test
    void shouldNotFillTheUnslicedRestOfAMigGpuWithWhatNvidiaSmiReadsOfTheWholeGpu() {
        // Given dcgm-exporter's 3/7 slice using 5 GiB and the idle rest of the GPU (4/7), under the GPU's own UUID,
        // and nvidia-smi's reading of the whole GPU: 300 W, 5 GiB used (the slice's), 40% utilization
        GpuReading rest = GpuReading.builder("GPU-m").index(0).model("A100").slice("unallocated", 4.0 / 7)
                .value(Reading.POWER_WATTS, 300.0).value(Reading.SM_ACTIVE, 0.0).value(Reading.GPU_UTILIZATION, 0.0)
                .build();
        GpuReading used = GpuReading.builder("GPU-m/mig/1").index(0).model("A100").value(Reading.SM_ACTIVE, 0.5)
                .value(Reading.MEMORY_USED_BYTES, 5.0 * (1L << 30)).slice("3g.20gb", 3.0 / 7).build();
        Collector dcgm = fixed("dcgm-exporter", used, rest);
        Collector smi = fixed("nvidia-smi", GpuReading.builder("GPU-m").index(0).model("A100")
                .value(Reading.GPU_UTILIZATION, 0.4).value(Reading.POWER_WATTS, 300.0)
                .value(Reading.MEMORY_USED_BYTES, 5.0 * (1L << 30)).build());
        agent = agent(Map.of(), dcgm, smi);

        // Then the rest is sampled as dcgm-exporter read it: the slice's memory is the slice's alone
        List<TelemetrySample> samples = agent.round();
        assertThat(samples).extracting(TelemetrySample::gpuUuid).containsExactly("GPU-m", "GPU-m/mig/1");
        assertThat(samples.get(0).memoryUsedBytes()).isNull();
        assertThat(samples.get(1).memoryUsedBytes()).isEqualTo(5.0 * (1L << 30));
    }

    @Test
    void shouldSampleAGpuWithoutAnyActivityReadingWithItsActivityUnknownAndCountIt() {
        // Given a GPU whose collectors give its power but no activity, twice
        agent = agent(Map.of(), fixed("nvidia-smi", reading("GPU-x", 0, null, null, 70.0)));

        // When the agent runs two rounds
        List<TelemetrySample> first = agent.round();
        agent.round();

        // Then each round publishes its sample, activity unknown, power as read
        assertThat(first).singleElement().satisfies(sample -> {
            assertThat(sample.gpuUuid()).isEqualTo("GPU-x");
            assertThat(sample.smActive()).isNull();
            assertThat(sample.activityKnown()).isFalse();
            assertThat(sample.powerWatts()).isEqualTo(70.0);
        });
        assertThat(published).hasSize(2).allSatisfy(line -> assertThat(line).contains("\"smActive\":null"));
        // counted every round, said once
        assertThat(agent.counters().samplesActivityUnknown()).isEqualTo(2);
        assertThat(agent.counters().samplesSkipped()).isZero();
        assertThat(agent.metricsText()).contains("gpuledger_agent_samples_activity_unknown_total 2");
        assertThat(problems).singleElement().asString().contains("GPU-x").contains("activity unknown");
    }

    @Test
    void shouldSampleAGpuWhoseLabelsNameAJobNoSampleCanCarryAsIfTheyNamedNone() {
        // Given a GPU whose dcgm-exporter labels name a job of 300 characters (the most a job id holds is 256)
        String tooLong = "x".repeat(300);
        GpuReading labelled = GpuReading.builder("GPU-l").index(0).model("A100").value(Reading.SM_ACTIVE, 0.4)
                .jobId(tooLong).team("vision").build();
        agent = agent(Map.of("GPULEDGER_JOB", "node-job"), fixed("dcgm-exporter", labelled));

        // When the agent runs two rounds
        List<TelemetrySample> first = agent.round();
        List<TelemetrySample> second = agent.round();

        // Then each round samples the GPU, its job the node's, its team still the labels'
        assertThat(first).singleElement().satisfies(sample -> {
            assertThat(sample.jobId()).isEqualTo("node-job");
            assertThat(sample.team()).isEqualTo("vision");
            assertThat(sample.smActive()).isEqualTo(0.4);
        });
        assertThat(second).hasSize(1);
        assertThat(agent.counters().samplesSkipped()).isZero();
        assertThat(agent.counters().collectorErrors("dcgm-exporter")).as("counted once, as said").isEqualTo(1);
        assertThat(problems).singleElement().asString().contains("GPU-l").contains("jobId")
                .contains("longer than 256").contains("sampled as if they named none");
    }

    @Test
    void shouldCountCollectorErrorsAndKeepSampling() {
        Collector broken = new Collector() {
            public String name() {
                return "dcgm-exporter";
            }

            public Round collect() {
                return Round.failed("dcgm-exporter: unreachable");
            }
        };
        agent = agent(Map.of(), broken, fixed("nvidia-smi", reading("GPU-a", 0, null, 0.5, null)));

        assertThat(agent.round()).hasSize(1);
        assertThat(agent.counters().collectorErrors("dcgm-exporter")).isEqualTo(1);
        assertThat(agent.metricsText())
                .contains("gpuledger_agent_collector_errors_total{collector=\"dcgm-exporter\"} 1");
    }

    @Test
    void shouldTakeWorkReportsOverHttpAndLabelTheClaimedGpusWithTheJob() throws Exception {
        agent = agent(Map.of("GPULEDGER_PROGRESS_PORT", "0"), fixed("nvidia-smi",
                reading("GPU-a", 0, null, 0.9, null), reading("GPU-b", 1, null, 0.9, null)));
        agent.start();
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + agent.httpPort();

        HttpResponse<String> accepted = post(http, base, """
                {"jobId": "llm-pretrain", "team": "research", "workUnits": 524288, "unit": "tokens",
                 "steps": 4, "stepSeconds": 3.2, "commSeconds": 0.9, "gpus": [0], "intervalSeconds": 10}
                """);
        HttpResponse<String> refused = post(http, base, "{\"jobId\": \"llm-pretrain\", \"unit\": \"tokens\", "
                + "\"workUnits\": 5, \"stepSeconds\": 1.0, \"commSeconds\": 2.0, \"intervalSeconds\": 10}");
        HttpResponse<String> tooLarge = post(http, base, "{\"jobId\": \"" + "x".repeat(70_000) + "\"}");

        assertThat(accepted.statusCode()).isEqualTo(202);
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("commSeconds");
        assertThat(tooLarge.statusCode()).isEqualTo(413);
        JobProgress progress = Json.read(published.stream().filter(l -> l.startsWith(Topics.JOB_PROGRESS.name()))
                .findFirst().orElseThrow().substring(Topics.JOB_PROGRESS.name().length() + 1).getBytes(),
                        JobProgress.class);
        assertThat(progress.host()).isEqualTo("node-1");
        assertThat(progress.workUnits()).isEqualTo(524288);
        assertThat(progress.commSeconds()).isEqualTo(0.9);

        List<TelemetrySample> samples = agent.round();
        assertThat(samples).filteredOn(s -> s.gpuUuid().equals("GPU-a")).singleElement()
                .satisfies(s -> assertThat(s.jobId()).isEqualTo("llm-pretrain"));
        assertThat(samples).filteredOn(s -> s.gpuUuid().equals("GPU-b")).singleElement()
                .satisfies(s -> assertThat(s.jobId()).isEqualTo("unknown"));
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.body()).contains("\"progressReports\":1").contains("\"progressRejected\":2");
    }

    @Test
    void shouldNotGiveTheUnslicedRestOfAMigGpuToAJobThatClaimsTheGpu() throws Exception {
        // Given an A100 with one 3g slice, the rest idle under the GPU's own UUID, and a job claiming GPU 0
        GpuReading rest = GpuReading.builder("GPU-m").index(0).model("A100").slice(DcgmScrape.UNALLOCATED_MIG,
                4.0 / 7).value(Reading.POWER_WATTS, 300.0).value(Reading.SM_ACTIVE, 0.0).build();
        GpuReading slice = GpuReading.builder("GPU-m/mig/1").index(0).model("A100").value(Reading.SM_ACTIVE, 0.5)
                .slice("3g.20gb", 3.0 / 7).build();
        agent = agent(Map.of("GPULEDGER_PROGRESS_PORT", "0"), fixed("dcgm-exporter", slice, rest));
        agent.start();
        String base = "http://127.0.0.1:" + agent.httpPort();
        assertThat(post(HttpClient.newHttpClient(), base, """
                {"jobId": "eval-sweep", "workUnits": 100, "unit": "samples", "gpus": [0], "intervalSeconds": 10}
                """).statusCode()).isEqualTo(202);

        // When the node is sampled
        List<TelemetrySample> samples = agent.round();

        // Then the slice is the job's, and the rest, which runs nothing, is no job's
        assertThat(samples).filteredOn(s -> s.gpuUuid().equals("GPU-m/mig/1")).singleElement()
                .satisfies(s -> assertThat(s.jobId()).isEqualTo("eval-sweep"));
        assertThat(samples).filteredOn(s -> s.gpuUuid().equals("GPU-m")).singleElement()
                .satisfies(s -> assertThat(s.jobId()).isEqualTo(TelemetrySample.UNKNOWN_JOB));
    }

    @Test
    void shouldPutAGpuClaimedByAReportOfNoTeamOnTheNodesTeam() throws Exception {
        // Given a node of team platform, and a job whose work report names no team
        agent = agent(Map.of("GPULEDGER_PROGRESS_PORT", "0", "GPULEDGER_TEAM", "platform"),
                fixed("nvidia-smi", reading("GPU-a", 0, null, 0.9, null)));
        agent.start();
        String base = "http://127.0.0.1:" + agent.httpPort();
        assertThat(post(HttpClient.newHttpClient(), base, """
                {"jobId": "eval-sweep", "workUnits": 100, "unit": "samples", "gpus": [0], "intervalSeconds": 10}
                """).statusCode()).isEqualTo(202);

        // Then the claimed GPU's sample names the job, on the node's team
        assertThat(agent.round()).singleElement().satisfies(sample -> {
            assertThat(sample.jobId()).isEqualTo("eval-sweep");
            assertThat(sample.team()).isEqualTo("platform");
        });
    }

    @Test
    void shouldPublishTheRankOfEachProcessThatReportsItsOwnWork() throws Exception {
        // Given an agent serving work reports
        agent = agent(Map.of("GPULEDGER_PROGRESS_PORT", "0"),
                fixed("nvidia-smi", reading("GPU-a", 0, null, 0.9, null)));
        agent.start();
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + agent.httpPort();

        // When ranks 0 and 3 of a job each post their own tokens, and one posts a negative rank
        HttpResponse<String> rank0 = post(http, base, """
                {"jobId": "llm", "rank": 0, "workUnits": 1000, "unit": "tokens", "intervalSeconds": 10}
                """);
        HttpResponse<String> rank3 = post(http, base, """
                {"jobId": "llm", "rank": 3, "workUnits": 2000, "unit": "tokens", "intervalSeconds": 10}
                """);
        HttpResponse<String> negative = post(http, base, """
                {"jobId": "llm", "rank": -1, "workUnits": 2000, "unit": "tokens", "intervalSeconds": 10}
                """);

        // Then each published report carries its process's rank, and the negative one is refused, naming the field
        assertThat(rank0.statusCode()).isEqualTo(202);
        assertThat(rank3.statusCode()).isEqualTo(202);
        assertThat(negative.statusCode()).isEqualTo(400);
        assertThat(negative.body()).contains("\"field\":\"rank\"");
        List<JobProgress> reports = published.stream().filter(l -> l.startsWith(Topics.JOB_PROGRESS.name()))
                .map(l -> Json.read(l.substring(Topics.JOB_PROGRESS.name().length() + 1).getBytes(), JobProgress.class))
                .toList();
        assertThat(reports).extracting(JobProgress::rank).containsExactly(0, 3);
        assertThat(reports).extracting(JobProgress::workUnits).containsExactly(1000.0, 2000.0);
    }

    @Test
    void shouldPublishOnceThatItsInstanceIsStoppingWhenTheHostSaysSo() throws Exception {
        // Given an agent serving its endpoint
        agent = agent(Map.of("GPULEDGER_PROGRESS_PORT", "0"),
                fixed("nvidia-smi", reading("GPU-a", 0, null, 0.9, null)));
        agent.start();
        HttpClient http = HttpClient.newHttpClient();
        URI stopping = URI.create("http://127.0.0.1:" + agent.httpPort() + "/v1/instance/stopping");

        // When the host's shutdown posts to it twice (a unit run again), and something only reads it
        HttpResponse<String> first = http.send(HttpRequest.newBuilder(stopping).POST(HttpRequest.BodyPublishers
                .noBody()).build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> second = http.send(HttpRequest.newBuilder(stopping).POST(HttpRequest.BodyPublishers
                .ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> read = http.send(HttpRequest.newBuilder(stopping).build(),
                HttpResponse.BodyHandlers.ofString());

        // Then one notice says, in the agent's name, that its instance is stopping, with no deadline
        String topic = Topics.CAPACITY_EVENTS.name() + " ";
        List<CapacityEvent> notices = published.stream().filter(l -> l.startsWith(topic))
                .map(l -> Json.read(l.substring(Topics.CAPACITY_EVENTS.name().length() + 1).getBytes(),
                        CapacityEvent.class))
                .toList();
        assertThat(notices).singleElement().satisfies(notice -> {
            assertThat(notice.kind()).isEqualTo(CapacityEventKind.INSTANCE_STOPPING);
            assertThat(notice.eventId()).isEqualTo("aws:i-1:instance_stopping:" + T0);
            assertThat(List.of(notice.provider(), notice.region(), notice.instanceId(), notice.instanceType(),
                    notice.host())).containsExactly("aws", "us-east-1", "i-1", "p4d.24xlarge", "node-1");
            assertThat(notice.lifecycle()).isEqualTo(Lifecycle.ON_DEMAND);
            assertThat(notice.noticedAt()).isEqualTo(T0);
            assertThat(notice.deadline()).isNull();
            assertThat(notice.source()).isEqualTo("agent");
        });
        // and both posts are answered with it, the read refused
        assertThat(first.statusCode()).isEqualTo(202);
        assertThat(second.statusCode()).isEqualTo(202);
        assertThat(first.body()).contains("\"kind\":\"INSTANCE_STOPPING\"").contains("\"eventId\":\"aws:i-1:");
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(read.statusCode()).isEqualTo(405);
        assertThat(agent.counters().capacityEvents()).isEqualTo(1);
    }

    @Test
    void shouldSayNothingOfItsInstanceWhenOnlyTheAgentStops() throws Exception {
        // Given an agent that ran and served its endpoint
        agent = agent(Map.of("GPULEDGER_PROGRESS_PORT", "0"),
                fixed("nvidia-smi", reading("GPU-a", 0, null, 0.9, null)));
        agent.start();
        agent.round();

        // When it is stopped (SIGTERM of a restart, an upgrade)
        agent.close();

        // Then it published no notice: a restart says nothing of the instance
        assertThat(published).noneMatch(l -> l.startsWith(Topics.CAPACITY_EVENTS.name() + " "));
    }

    @Test
    void shouldExportOnlyFamiliesThatTheMetricsDocsDescribe() throws Exception {
        // Given an agent that ran a round
        agent = agent(Map.of(), fixed("nvidia-smi", reading("GPU-a", 0, null, 0.5, null)));
        agent.round();

        // Then every family of its metrics text is in the agent's table of docs/metrics.md
        String docs = Files.readString(Path.of("..", "docs", "metrics.md"));
        String agentTable = docs.substring(docs.indexOf("## The node agent"));
        Matcher family = Pattern.compile("(?m)^# TYPE (\\S+) ").matcher(agent.metricsText());
        int families = 0;
        while (family.find()) {
            families++;
            assertThat(agentTable).as("docs/metrics.md on " + family.group(1)).contains("`" + family.group(1) + "`");
        }
        assertThat(families).isEqualTo(14);
    }

    private static HttpResponse<String> post(HttpClient http, String base, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + "/v1/progress"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private NodeAgent agent(Map<String, String> extraEnv, Collector... collectors) {
        Map<String, String> env = new HashMap<>(extraEnv);
        env.put("GPULEDGER_SPOOL_DIR", dir.toString());
        env.put("GPULEDGER_CLOUD", "none");
        AgentConfig config = AgentConfig.load(Optional.empty(), env);
        RecordSink sink = (topic, key, value, timestamp) -> published.add(topic + " " + new String(value));
        return new NodeAgent(config, new Identity.Resolved(NODE, Optional.empty()), List.of(collectors), sink,
                Clock.fixed(T0, ZoneOffset.UTC), problems::add);
    }

    private static Collector fixed(String name, GpuReading... readings) {
        return new Collector() {
            public String name() {
                return name;
            }

            public Round collect() {
                return new Round(List.of(readings), List.of());
            }
        };
    }

    private static GpuReading reading(String uuid, int index, Double smActive, Double utilization, Double power) {
        return GpuReading.builder(uuid).index(index).model("A100").value(Reading.SM_ACTIVE, smActive)
                .value(Reading.GPU_UTILIZATION, utilization).value(Reading.POWER_WATTS, power).build();
    }

    private static GpuReading slice(String uuid, double share) {
        return GpuReading.builder(uuid).index(0).model("A100").value(Reading.SM_ACTIVE, 0.5).slice("3g.20gb", share)
                .build();
    }
}
