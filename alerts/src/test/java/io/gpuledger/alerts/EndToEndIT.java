package io.gpuledger.alerts;

import static io.gpuledger.alerts.ApiClients.management;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

import io.gpuledger.alerts.feed.TopicReplay;
import io.gpuledger.alerts.fleet.FleetSummary;
import io.gpuledger.alerts.metrics.MetricCatalogue;
import io.gpuledger.alerts.metrics.RememberedNames;
import io.gpuledger.alerts.webhook.RecordingReceiver;
import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.CloudEvent;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.testing.RequiredTool;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * Telemetry in, through the real cost engine on a real broker, out as a gauge at /q/metrics (the management port) and
 * an idle-instance recommendation at /api/recommendations and on the recommendations topic.
 */
@QuarkusTest
@QuarkusTestResource(value = EmbeddedPipelineResource.class, restrictToAnnotatedClass = true)
class EndToEndIT {

    private static final String BUSY = "GPU-00000000-0000-0000-0000-00000000b051";
    private static final String IDLE = "GPU-00000000-0000-0000-0000-0000000001d1";
    /** p4d.24xlarge on-demand in the shipped catalog: 32.77 USD per hour for 8 GPUs. */
    private static final double P4D_GPU_PER_HOUR = 32.77 / 8;
    /** g5.xlarge on-demand in the shipped catalog: 1.006 USD per hour for its one GPU. */
    private static final double G5_PER_HOUR = 1.006;
    /** The busy GPU's p4d: the one of its eight GPUs that reports runs a job. */
    private static final Placement BUSY_INSTANCE =
            new Placement("node-e2e", "i-0e2e", "p4d.24xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND);
    /** The idle GPU's instance: a one-GPU g5.xlarge that runs no job, billed whole for nothing. */
    private static final String IDLE_INSTANCE = "i-0e2f";

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrapServers;

    @Inject
    PrometheusMeterRegistry registry;

    /** Set by the pipeline: telemetry sent once to its broker serves every test. */
    EmbeddedPipelineResource.Once telemetry;

    /** Set by the pipeline: the finance team's webhook receiver. */
    RecordingReceiver finance;

    /**
     * A minute of telemetry from a busy GPU of a p4d and the idle GPU of a g5.xlarge, and the first sample of
     * the next, which closes it (past its end plus the engine's grace), sent once for all tests.
     */
    private void sendTelemetryOnce() {
        telemetry.run(this::sendTelemetry);
    }

    private void sendTelemetry() {
        Instant windowStart = Instant.ofEpochSecond(Instant.now().minusSeconds(120).getEpochSecond() / 60 * 60);
        try (KafkaProducer<String, TelemetrySample> producer =
                Producers.forTopic(Topics.TELEMETRY, bootstrapServers, "test-agent")) {
            for (int i = 1; i <= 7; i++) {
                Instant end = windowStart.plusSeconds(10L * i);
                producer.send(record(sample(BUSY, 0, BUSY_INSTANCE, "e2e-job", end, 0.83)));
                producer.send(record(sample(IDLE, 0, new Placement("node-e2e-2", IDLE_INSTANCE, "g5.xlarge", "aws",
                        "us-east-1", Lifecycle.ON_DEMAND), null, end, 0.01)));
            }
        }
    }

    /** The idle instance's recommendation, once the service has raised it on its closed minute. */
    private Recommendation idleRecommendation() {
        sendTelemetryOnce();
        return await().atMost(Duration.ofSeconds(90)).until(() -> recommendations("?kind=RECLAIM_IDLE&target="
                        + IDLE_INSTANCE),
                list -> list.length == 1)[0];
    }

    private static Recommendation[] recommendations(String query) {
        String body = ApiClients.reader().get("/api/recommendations" + query).then().statusCode(200)
                .contentType("application/json").extract().asString();
        return Json.read(body.getBytes(StandardCharsets.UTF_8), Recommendation[].class);
    }

    @Test
    void shouldTurnTelemetryIntoGaugesAndAnIdleRecommendation() {
        // Given a closed minute of telemetry from a busy GPU of a p4d and the idle GPU of a g5.xlarge that runs
        // no job, and the service judging idleness over a period of one minute (its %test profile)
        sendTelemetryOnce();

        // Then both GPUs get a cost gauge at the per-GPU price, and an SM activity gauge
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            String metrics = given().get(metricsUrl()).then().statusCode(200).extract().asString();
            assertThat(gauge(metrics, "gpuledger_gpu_cost_per_hour", IDLE)).hasValueSatisfying(
                    value -> assertThat(value).isCloseTo(G5_PER_HOUR, within(1e-9)));
            assertThat(gauge(metrics, "gpuledger_gpu_cost_per_hour", BUSY)).hasValueSatisfying(
                    value -> assertThat(value).isCloseTo(P4D_GPU_PER_HOUR, within(1e-9)));
            assertThat(gauge(metrics, "gpuledger_gpu_sm_active_ratio", IDLE)).hasValueSatisfying(
                    value -> assertThat(value).isCloseTo(0.01, within(1e-9)));
            assertThat(metrics).contains("lifecycle=\"on-demand\"").contains("instance_type=\"p4d.24xlarge\"")
                    .contains("provider=\"aws\"").contains("region=\"us-east-1\"").contains("host=\"node-e2e\"");
        });

        // And the idle instance, only it, is recommended for release, with its monthly cost as the saving: the
        // p4d is billed whole and the one of its GPUs that reports is busy (its other seven say nothing)
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            String body = ApiClients.reader().get("/api/recommendations?kind=RECLAIM_IDLE").then().statusCode(200)
                    .contentType("application/json").extract().asString();
            Recommendation[] recommendations = Json.read(body.getBytes(StandardCharsets.UTF_8),
                    Recommendation[].class);
            assertThat(recommendations).extracting(r -> r.kind() + " " + r.target().id())
                    .containsExactly(RecommendationKind.RECLAIM_IDLE + " " + IDLE_INSTANCE);
            assertThat(recommendations[0].estimatedMonthlySaving()).isCloseTo(G5_PER_HOUR * 720, within(1e-6));
            assertThat(recommendations[0].currency()).isEqualTo("USD");
            assertThat(recommendations[0].target().type()).isEqualTo("instance");
            assertThat(recommendations[0].target().instanceId()).isEqualTo(IDLE_INSTANCE);
        });

        // And automation can read it from the topic, keyed by its target
        assertThat(recommendationsOnTopic()).filteredOn(r -> r.kind() == RecommendationKind.RECLAIM_IDLE)
                .extracting(r -> r.target().id()).containsOnly(IDLE_INSTANCE);
    }

    @Test
    void shouldShowTheNamedFamiliesAloneAsTheWholeExportShowsThem() {
        // Given the service's live metrics once telemetry has flowed
        idleRecommendation();
        String whole = given().get(metricsUrl()).then().statusCode(200).extract().asString();

        // When a scrape names two families
        String named = ApiClients.reader().queryParam("name[]", "gpuledger_gpu_cost_per_hour")
                .queryParam("name[]", "gpuledger_gpu_sm_active_ratio")
                .get("/api/metrics").then().statusCode(200).contentType(containsString("text/plain"))
                .extract().asString();

        // Then it holds their samples, as the whole export has them, and no other family's
        List<String> samples = Arrays.stream(named.split("\n")).filter(line -> !line.startsWith("#")).toList();
        assertThat(samples).isNotEmpty().allSatisfy(line -> assertThat(line)
                .matches("(gpuledger_gpu_cost_per_hour|gpuledger_gpu_sm_active_ratio)\\{.*"));
        assertThat(gauge(named, "gpuledger_gpu_cost_per_hour", IDLE)).isPresent()
                .isEqualTo(gauge(whole, "gpuledger_gpu_cost_per_hour", IDLE));
        assertThat(gauge(named, "gpuledger_gpu_sm_active_ratio", BUSY)).isPresent()
                .isEqualTo(gauge(whole, "gpuledger_gpu_sm_active_ratio", BUSY));

        // And naming a GPU gives its lines of those families alone, exactly as the whole export writes them
        String idleOnly = ApiClients.reader().queryParam("name[]", "gpuledger_gpu_cost_per_hour")
                .queryParam("name[]", "gpuledger_gpu_sm_active_ratio").queryParam("gpu[]", IDLE)
                .get("/api/metrics").then().statusCode(200).extract().asString();
        List<String> idleLines = idleOnly.lines().toList();
        assertThat(idleLines).hasSize(2).allSatisfy(line -> assertThat(line).contains("gpu=\"" + IDLE + "\""));
        assertThat(whole.lines().toList()).containsAll(idleLines);

        // And a scrape that names none is refused with the reason
        ApiClients.reader().get("/api/metrics").then().statusCode(400).body(containsString("name[]"));
    }

    @Test
    void shouldExportOnlyCataloguedFamiliesAsTheCatalogueDescribesThem() {
        // Given the service's live metrics once telemetry has flowed
        idleRecommendation();
        String metrics = given().get(metricsUrl()).then().statusCode(200).extract().asString();

        // Then every gpuledger_ family there is in the catalogue, with its type and help text
        Map<String, String> types = new TreeMap<>();
        Map<String, String> helps = new TreeMap<>();
        for (String line : metrics.split("\n")) {
            String[] parts = line.split(" ", 4);
            if (parts.length == 4 && parts[0].equals("#") && parts[2].startsWith("gpuledger_")) {
                (parts[1].equals("TYPE") ? types : helps).put(parts[2], parts[3]);
            }
        }
        assertThat(types).isNotEmpty();
        types.forEach((name, type) -> {
            String family = name.endsWith("_total") || !type.equals("counter") ? name : name + "_total";
            MetricCatalogue.Family entry = MetricCatalogue.shipped().family(family);
            assertThat(type).as(name).isEqualTo(entry.type().name().toLowerCase());
            assertThat(helps.get(name)).as(name).isEqualTo(entry.help());
        });
        // And so named by the convention that remembers names, not one made again for every meter
        assertThat(registry.config().namingConvention()).isInstanceOf(RememberedNames.class);
    }

    @Test
    void shouldPassPromtoolOnEveryGpuLedgerFamily() throws Exception {
        // Given promtool (Debian's prometheus package; CI installs it)
        RequiredTool.require("promtool");
        idleRecommendation();
        String metrics = given().get(metricsUrl()).then().statusCode(200).extract().asString();

        // When it lints the live text; Then it reports nothing about our families
        List<String> problems = Promtool.checkMetrics(metrics);
        assertThat(problems.stream().filter(problem -> problem.contains("gpuledger_")).toList()).isEmpty();
    }

    @Test
    void shouldLetOnlyTokenHoldersAcknowledgeAndDismiss() {
        // Given the idle GPU's open recommendation
        Recommendation open = idleRecommendation();

        // When someone writes without the token, or with a wrong one, it is refused
        given().post("/api/recommendations/" + open.id() + "/ack").then().statusCode(401);
        given().header("Authorization", "Bearer wrong").post("/api/recommendations/" + open.id() + "/ack")
                .then().statusCode(401);

        // When the token holder acknowledges it, then dismisses it
        String acknowledged = given().header("Authorization", "Bearer test-token")
                .post("/api/recommendations/" + open.id() + "/ack").then().statusCode(200).extract().asString();
        String dismissed = given().header("Authorization", "Bearer test-token")
                .post("/api/recommendations/" + open.id() + "/dismiss").then().statusCode(200).extract().asString();

        // Then each decision is the recommendation's new state, served and published
        assertThat(Json.read(acknowledged.getBytes(StandardCharsets.UTF_8), Recommendation.class).status())
                .isEqualTo(RecommendationStatus.ACKNOWLEDGED);
        assertThat(Json.read(dismissed.getBytes(StandardCharsets.UTF_8), Recommendation.class).status())
                .isEqualTo(RecommendationStatus.DISMISSED);
        assertThat(recommendations("?status=dismissed")).extracting(Recommendation::id).contains(open.id());
        assertThat(recommendationsOnTopic(r -> r.status() == RecommendationStatus.DISMISSED))
                .extracting(Recommendation::id).contains(open.id());
        given().header("Authorization", "Bearer test-token").post("/api/recommendations/no-such-id/ack")
                .then().statusCode(404);
        ApiClients.reader().get("/api/recommendations?kind=NOT_A_KIND").then().statusCode(400);
    }

    @Test
    void shouldServeTheFleetsSpendTheOpenApiDocumentAndHealth() throws Exception {
        // Given both GPUs' windows have arrived
        idleRecommendation();

        // Then the fleet spends a p4d GPU's and a g5.xlarge's worth per hour, in USD
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            String fleet = ApiClients.reader().get("/api/fleet").then().statusCode(200).extract().asString();
            FleetSummary summary = Json.read(fleet.getBytes(StandardCharsets.UTF_8), FleetSummary.class);
            assertThat(summary.total()).singleElement().satisfies(row -> {
                assertThat(row.currency()).isEqualTo("USD");
                assertThat(row.gpus()).isEqualTo(2);
                assertThat(row.costPerHour()).isCloseTo(P4D_GPU_PER_HOUR + G5_PER_HOUR, within(1e-6));
            });
            assertThat(summary.byPool()).extracting(FleetSummary.Row::key).containsExactlyInAnyOrder(
                    "aws|us-east-1|p4d.24xlarge|on-demand", "aws|us-east-1|g5.xlarge|on-demand");
        });

        // And the API is described, the service is ready, and an oversized body is refused
        String openApi = given().get("/q/openapi?format=json").then().statusCode(200).extract().asString();
        assertThat(openApi).contains("/api/recommendations/{id}/ack").contains("/api/fleet")
                .contains("/api/anomalies").contains("/api/metrics").contains("\"Recommendation\"")
                .contains("\"CostAnomaly\"").contains("\"FleetSummary\"");
        given().get(management("/q/health/ready")).then().statusCode(200);
        assertThat(given().get(management("/q/health/live")).then().statusCode(200).extract().asString())
                .contains("\"alerts-fleet\": \"RUNNING, 0 restarts\"")
                .contains("\"alerts-capacity\": \"RUNNING, 0 restarts\"");
        // (the client waits for the server's go-ahead before sending a body, as large uploads should)
        HttpRequest oversized = HttpRequest.newBuilder(URI.create(RestAssured.baseURI + ":" + RestAssured.port
                        + "/api/recommendations/x/ack"))
                .header("Authorization", "Bearer test-token").expectContinue(true)
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[128 * 1024])).build();
        assertThat(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(oversized, HttpResponse.BodyHandlers.discarding()).statusCode())
                .isEqualTo(413);
    }

    @Test
    void shouldAskToEvacuateTheJobsOfAnInstanceTheCloudTakesBack() {
        // Given the busy GPU of instance i-0e2e has reported
        idleRecommendation();

        // When AWS gives the instance its two-minute notice
        Instant noticed = Instant.now();
        CapacityEvent notice = new CapacityEvent(CapacityEvent.SCHEMA_VERSION,
                CapacityEvent.idOf("aws", "i-0e2e", CapacityEventKind.SPOT_INTERRUPTION, "e2e"), "aws", "us-east-1",
                "i-0e2e", "p4d.24xlarge", "node-e2e", Lifecycle.SPOT, CapacityEventKind.SPOT_INTERRUPTION,
                "terminate", noticed, noticed.plusSeconds(120), "aws-imds", "{\"action\":\"terminate\"}");
        try (KafkaProducer<String, CapacityEvent> producer =
                Producers.forTopic(Topics.CAPACITY_EVENTS, bootstrapServers, "e2e-notices")) {
            producer.send(new ProducerRecord<>(Topics.CAPACITY_EVENTS.name(), notice.instanceId(), notice));
        }

        // Then automation is told to move its one job off it by the deadline, with a replacement pool
        Recommendation evacuate = recommendationsOnTopic(r -> r.kind() == RecommendationKind.EVACUATE).stream()
                .filter(r -> r.kind() == RecommendationKind.EVACUATE).findFirst().orElseThrow();
        assertThat(evacuate.id()).isEqualTo("evacuate:instance:i-0e2e");
        assertThat(evacuate.deadline()).isEqualTo(notice.deadline());
        RecommendationAction.Evacuate action = (RecommendationAction.Evacuate) evacuate.action();
        assertThat(action.replacementPool()).isNotNull();
        assertThat(action.jobs()).extracting(RecommendationAction.JobToMove::jobId).contains("e2e-job");
        assertThat(recommendations("?kind=EVACUATE")).extracting(Recommendation::id).contains(evacuate.id());
        String metrics = given().get(metricsUrl()).then().statusCode(200).extract().asString();
        assertThat(metrics)
                .contains("gpuledger_capacity_events_total{kind=\"SPOT_INTERRUPTION\",provider=\"aws\"} 1.0");

        // And once the cost engine's own join of the notice has been read too, there is still one record
        await().atMost(Duration.ofSeconds(30)).until(() -> given().get(metricsUrl()).then().extract().asString()
                .contains("gpuledger_records_read_total{topic=\"gpu.capacity-events.enriched.v1\"} 1.0"));
        List<Recommendation> published = new ArrayList<>();
        TopicReplay.replay(bootstrapServers, Topics.RECOMMENDATIONS.name(), Duration.ofSeconds(30),
                record -> published.add(Topics.RECOMMENDATIONS.valueSerde().deserializer()
                        .deserialize(record.topic(), record.value()).data()));
        assertThat(published).filteredOn(r -> r.id().equals(evacuate.id())).hasSize(1);
    }

    @Test
    void shouldPublishPriceSpikesAndBudgetOverrunsForFinanceOnce() {
        // Given a spot offer whose price doubles, and a team with a 1 USD budget spending 60 USD/h
        Instant now = Instant.now();
        Offer offer = new Offer("aws", "us-east-1", "e2e.spiky", Lifecycle.SPOT);
        try (KafkaProducer<String, PriceQuote> prices = Producers.forTopic(Topics.PRICES, bootstrapServers, "e2e-p")) {
            // Price versions have keys of their own, so the new one is sent once the old one is in force
            PriceQuote before = spot(offer, 10, now.minusSeconds(600));
            prices.send(new ProducerRecord<>(Topics.PRICES.name(), before.key(), before));
            prices.flush();
            await().atMost(Duration.ofSeconds(30)).until(() -> given().get(metricsUrl()).then().extract().asString()
                    .contains("instance_type=\"e2e.spiky\""));
            PriceQuote after = spot(offer, 20, now.minusSeconds(300));
            prices.send(new ProducerRecord<>(Topics.PRICES.name(), after.key(), after));
        }
        Instant minute = Instant.ofEpochSecond(now.getEpochSecond() / 60 * 60).minusSeconds(600);
        try (KafkaProducer<String, GpuUsage> usage = Producers.forTopic(Topics.USAGE, bootstrapServers, "e2e-u")) {
            for (int i = 0; i < 4; i++) {
                GpuUsage window = closedWindow("GPU-e2e-budget", "e2e-budget", minute.plusSeconds(60L * i), 60);
                usage.send(new ProducerRecord<>(Topics.USAGE.name(), window.gpuUuid(), window));
            }
        }

        // Then finance sees a price spike (20 over 10 USD per instance-hour) and a budget overrun
        CostAnomaly[] seen = await().atMost(Duration.ofSeconds(60)).until(() -> Json.read(ApiClients.reader()
                        .get("/api/anomalies").then().statusCode(200).extract().asString()
                        .getBytes(StandardCharsets.UTF_8), CostAnomaly[].class),
                anomalies -> Arrays.stream(anomalies).map(CostAnomaly::kind).toList()
                        .containsAll(List.of(AnomalyKind.PRICE_SPIKE, AnomalyKind.BUDGET_BURN)));
        CostAnomaly spike = Arrays.stream(seen).filter(a -> a.kind() == AnomalyKind.PRICE_SPIKE).findFirst()
                .orElseThrow();
        assertThat(spike.subject()).isEqualTo(offer.key());
        assertThat(spike.expected()).isEqualTo(10);
        assertThat(spike.actual()).isEqualTo(20);
        assertThat(spike.impactPercent()).isCloseTo(100, within(1e-9));
        CostAnomaly budget = Arrays.stream(seen).filter(a -> a.kind() == AnomalyKind.BUDGET_BURN).findFirst()
                .orElseThrow();
        assertThat(budget.subject()).isEqualTo("e2e-budget");
        assertThat(budget.severity()).isEqualTo(CostAnomaly.Severity.CRITICAL);
        assertThat(budget.expected()).isEqualTo(1);
        ApiClients.reader().get("/api/anomalies?kind=PRICE_SPIKE").then().statusCode(200);
        ApiClients.reader().get("/api/anomalies?kind=NOPE").then().statusCode(400);

        // And each is on cost.anomalies.v1 exactly once
        List<CostAnomaly> onTopic = anomaliesOnTopic(2);
        assertThat(onTopic).extracting(CostAnomaly::id).doesNotHaveDuplicates()
                .contains(spike.id(), budget.id());

        // And finance's webhook got each once, signed with its secret
        await().atMost(Duration.ofSeconds(30)).until(() -> finance.deliveredIds().containsAll(
                List.of(spike.id(), budget.id())));
        assertThat(finance.deliveredIds()).doesNotHaveDuplicates();
        assertThat(finance.badSignatures()).isZero();
    }

    @Test
    void shouldPassOverGpuViewsByTheirKeyAndKeepAMalformedRollupWithItsReason() throws Exception {
        // Given, on one partition, a GPU's own view that is not even JSON, then a job's roll-up that is not either
        byte[] broken = "{\"dimension\":".getBytes(StandardCharsets.UTF_8);
        String view = UsageRollup.keyOf(UsageRollup.Dimension.GPU, "GPU-e2e-view");
        String job = UsageRollup.keyOf(UsageRollup.Dimension.JOB, "e2e-broken");
        try (KafkaProducer<byte[], byte[]> producer = Producers.forTopics(bootstrapServers, "e2e-rollups")) {
            for (String key : List.of(view, job)) {
                producer.send(new ProducerRecord<>(Topics.ROLLUPS.name(), 0, key.getBytes(StandardCharsets.UTF_8),
                        broken)).get();
            }
        }

        // Then the job's is kept on the alert service's dead-letter topic with why and whence, and only it:
        // the GPU's view, read before it, was passed over unread (the service shows no GPU views)
        Properties props = readerOfCommittedRecords("e2e-dead-letters-");
        List<String> kept = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props,
                Topics.ALERTS_DEAD_LETTERS.keySerde().deserializer(),
                Topics.ALERTS_DEAD_LETTERS.valueSerde().deserializer())) {
            consumer.subscribe(List.of(Topics.ALERTS_DEAD_LETTERS.name()));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> {
                    if (record.key().equals(view) || record.key().equals(job)) {
                        assertThat(DeadLetters.header(record.headers(), DeadLetters.SOURCE_TOPIC))
                                .isEqualTo(Topics.ROLLUPS.name());
                        assertThat(DeadLetters.header(record.headers(), DeadLetters.REASON)).isNotBlank();
                        assertThat(record.value()).isEqualTo(broken);
                        kept.add(record.key());
                    }
                });
                return kept.contains(job);
            });
        }
        assertThat(kept).containsExactly(job);
    }

    @Test
    void shouldKeepEveryPriceVersionThatIsNotAValidQuoteUnderItsOwnKeyWithTheReason() throws Exception {
        // Given price versions of an offer of this test's own: not JSON, a NaN price, a negative price, and a
        // valid quote under the key of another version
        Offer offer = new Offer("aws", "us-east-1", "e2e.hostile", Lifecycle.SPOT);
        Instant t = Instant.parse("2026-03-01T12:00:00Z");
        String quote = Json.writeString(spot(offer, 1.25, t));
        Map<String, String> expected = new TreeMap<>();
        Map<String, String> bodies = new TreeMap<>();
        bodies.put(PriceQuote.versionKey(offer, t.plusSeconds(1)), "not a price");
        expected.put(PriceQuote.versionKey(offer, t.plusSeconds(1)), "PriceQuote");
        bodies.put(PriceQuote.versionKey(offer, t.plusSeconds(2)), quote.replace("1.25", "NaN"));
        expected.put(PriceQuote.versionKey(offer, t.plusSeconds(2)), "pricePerHour");
        bodies.put(PriceQuote.versionKey(offer, t.plusSeconds(3)), quote.replace("1.25", "-1.25"));
        expected.put(PriceQuote.versionKey(offer, t.plusSeconds(3)), "pricePerHour");
        bodies.put(PriceQuote.versionKey(offer, t.plusSeconds(4)), quote);
        expected.put(PriceQuote.versionKey(offer, t.plusSeconds(4)), "$key: record key '"
                + PriceQuote.versionKey(offer, t.plusSeconds(4)) + "' must be '" + PriceQuote.versionKey(offer, t)
                + "', the version the quote is");
        try (KafkaProducer<byte[], byte[]> producer = Producers.forTopics(bootstrapServers, "e2e-hostile-prices")) {
            for (Map.Entry<String, String> body : bodies.entrySet()) {
                producer.send(new ProducerRecord<>(Topics.PRICES.name(), body.getKey().getBytes(StandardCharsets.UTF_8),
                        body.getValue().getBytes(StandardCharsets.UTF_8))).get();
            }
        }

        // Then each is kept on the alert service's dead-letter topic, as received, with its reason and source
        Map<String, String> reasons = new TreeMap<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(readerOfCommittedRecords("e2e-prices-dlq-"),
                Topics.ALERTS_DEAD_LETTERS.keySerde().deserializer(),
                Topics.ALERTS_DEAD_LETTERS.valueSerde().deserializer())) {
            consumer.subscribe(List.of(Topics.ALERTS_DEAD_LETTERS.name()));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> {
                    if (bodies.containsKey(record.key())) {
                        assertThat(DeadLetters.header(record.headers(), DeadLetters.SOURCE_TOPIC))
                                .isEqualTo(Topics.PRICES.name());
                        assertThat(new String(record.value(), StandardCharsets.UTF_8))
                                .isEqualTo(bodies.get(record.key()));
                        reasons.put(record.key(), DeadLetters.header(record.headers(), DeadLetters.REASON));
                    }
                });
                return reasons.size() == bodies.size();
            });
        }
        assertThat(reasons).allSatisfy((key, reason) -> assertThat(reason).contains(expected.get(key)));
        // and the offer's price is known nowhere in the service
        assertThat(given().get(metricsUrl()).then().statusCode(200).extract().asString()).doesNotContain("e2e.hostile");
    }

    private List<CostAnomaly> anomaliesOnTopic(int atLeast) {
        Properties props = readerOfCommittedRecords("e2e-finance-");
        List<CostAnomaly> seen = new ArrayList<>();
        try (KafkaConsumer<String, CostAnomaly> consumer = new KafkaConsumer<>(props,
                Topics.COST_ANOMALIES.keySerde().deserializer(), Topics.COST_ANOMALIES.valueSerde().deserializer())) {
            consumer.subscribe(List.of(Topics.COST_ANOMALIES.name()));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> {
                    assertThat(record.key()).isEqualTo(record.value().key());
                    seen.add(record.value());
                });
                return seen.size() >= atLeast;
            });
            consumer.poll(Duration.ofSeconds(1)).forEach(record -> seen.add(record.value()));
        }
        return seen;
    }

    /** A consumer of its own new group, from the start of its topic, of committed records only. */
    private Properties readerOfCommittedRecords(String groupPrefix) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupPrefix + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return props;
    }

    private static PriceQuote spot(Offer offer, double pricePerHour, Instant validFrom) {
        return new PriceQuote(offer.provider(), offer.region(), offer.instanceType(), offer.lifecycle(), "A10G-24GB",
                1, pricePerHour, "USD", validFrom, "e2e");
    }

    /** A closed minute of one GPU of {@code team} priced {@code pricePerHour}. */
    private static GpuUsage closedWindow(String gpu, String team, Instant start, double pricePerHour) {
        return UsageWindows.minute(new Placement("node-budget", "i-budget", "g5.xlarge", "aws", "us-east-1",
                Lifecycle.ON_DEMAND), gpu, "e2e-budget-job", team, start, pricePerHour, 0.6, true);
    }

    private List<Recommendation> recommendationsOnTopic() {
        return recommendationsOnTopic(r -> true);
    }

    private List<Recommendation> recommendationsOnTopic(java.util.function.Predicate<Recommendation> until) {
        Properties props = readerOfCommittedRecords("e2e-automation-");
        List<Recommendation> seen = new ArrayList<>();
        try (KafkaConsumer<String, CloudEvent<Recommendation>> consumer = new KafkaConsumer<>(props,
                Topics.RECOMMENDATIONS.keySerde().deserializer(), Topics.RECOMMENDATIONS.valueSerde().deserializer())) {
            consumer.subscribe(List.of(Topics.RECOMMENDATIONS.name()));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> {
                    assertThat(record.key()).isEqualTo(record.value().data().target().id());
                    assertThat(new String(record.headers().lastHeader("content-type").value(),
                            StandardCharsets.UTF_8)).isEqualTo("application/cloudevents+json; charset=UTF-8");
                    assertThat(record.value().specversion()).isEqualTo("1.0");
                    assertThat(record.value().type()).isEqualTo("io.gpuledger.recommendation.v1");
                    assertThat(record.value().source()).isEqualTo("/gpu-ledger/alerts");
                    assertThat(record.value().id()).startsWith(record.value().data().id() + "@");
                    seen.add(record.value().data());
                });
                return seen.stream().anyMatch(until);
            });
        }
        return seen;
    }

    /** The value of the series of {@code family} for {@code gpu}, as a Prometheus scraper reads it. */
    private static Optional<Double> gauge(String metricsText, String family, String gpu) {
        return Arrays.stream(metricsText.split("\n"))
                .filter(line -> line.startsWith(family + "{") && line.contains("gpu=\"" + gpu + "\""))
                .map(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst();
    }

    private static ProducerRecord<String, TelemetrySample> record(TelemetrySample sample) {
        return new ProducerRecord<>(Topics.TELEMETRY.name(), null, sample.time().toEpochMilli(), sample.gpuUuid(),
                sample);
    }

    private static TelemetrySample sample(String gpu, int index, Placement placement, String jobId, Instant end,
            double smActive) {
        return TelemetrySample.builder().gpuUuid(gpu).gpuIndex(index)
                .gpuModel(placement.instanceType().startsWith("g5") ? "A10G-24GB" : "A100-40GB")
                .placement(placement).jobId(jobId).time(end).intervalSeconds(10).smActive(smActive).build();
    }

    /** The whole of the metrics, on the management port, as Prometheus scrapes them. */
    private static String metricsUrl() {
        return management("/q/metrics");
    }
}
