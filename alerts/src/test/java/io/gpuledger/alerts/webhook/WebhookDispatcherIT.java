package io.gpuledger.alerts.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.Json;
import io.gpuledger.model.Topics;
import io.gpuledger.model.WebhookDelivery;
import io.gpuledger.testing.BrokerExtension;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dispatcher against a real broker and receivers on 127.0.0.1. The tests share the broker and
 * its topics; each has its own consumer group, started at the end of the anomalies topic, its
 * own receiver names and its own teams, so none sees another's anomalies.
 */
class WebhookDispatcherIT {

    private static final int PARTITIONS = 2;
    /** "whsec_" and the base64 of "dispatcher-test-key". */
    private static final String SECRET = "whsec_ZGlzcGF0Y2hlci10ZXN0LWtleQ==";
    /** Retries a few milliseconds apart: the tests wait for behaviour, not for the clock. */
    private static final DeliveryPolicy FAST = new DeliveryPolicy(
            Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofMillis(5), Duration.ofMillis(50));
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.withTopics(PARTITIONS);

    private static KafkaProducer<String, CostAnomaly> anomalies;

    private final List<AutoCloseable> started = new ArrayList<>();
    /** Where each group of the test was set to start. */
    private final Map<String, Map<TopicPartition, OffsetAndMetadata>> committedOffsetsAtStart = new HashMap<>();

    @BeforeAll
    static void startProducer() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        anomalies = new KafkaProducer<>(props, Topics.COST_ANOMALIES.keySerde().serializer(),
                Topics.COST_ANOMALIES.valueSerde().serializer());
    }

    @AfterAll
    static void stopProducer() {
        if (anomalies != null) {
            anomalies.close(Duration.ofSeconds(5));
        }
    }

    @AfterEach
    void stopWhatTheTestStarted() throws Exception {
        Collections.reverse(started);
        for (AutoCloseable closeable : started) {
            closeable.close();
        }
    }

    @Test
    void shouldPostASignedCostAnomalyEventAndRecordTheDelivery() throws Exception {
        // Given a signed JSON receiver and a Slack receiver
        RecordingReceiver finance = receiver(SECRET);
        RecordingReceiver slack = receiver("");
        WebhookDispatcher dispatcher = dispatcher("signed", finance.receiver("finance-a", WebhookReceiver.Format.JSON),
                slack.receiver("slack-a", WebhookReceiver.Format.SLACK));
        dispatcher.start();

        // When an anomaly is published
        CostAnomaly anomaly = SampleAnomalies.spendRate("team-signed", 0);
        publish(anomaly);

        // Then each receiver gets it once, the JSON one signed, with the anomaly as published
        await().atMost(PATIENCE).until(() -> finance.deliveredIds().size() == 1 && slack.deliveredIds().size() == 1);
        RecordingReceiver.Request request = finance.requests().get(0);
        assertThat(request.signatureValid()).isTrue();
        assertThat(request.header("Content-Type")).isEqualTo("application/json");
        assertThat(request.header("webhook-id")).isEqualTo(anomaly.id());
        assertThat(request.header("webhook-signature")).matches("v1,[A-Za-z0-9+/]{43}=");
        assertThat(Long.parseLong(request.header("webhook-timestamp")))
                .isCloseTo(Instant.now().getEpochSecond(), within(60L));
        // The previous release's headers, still sent and still valid
        assertThat(request.header("X-GpuLedger-Event")).isEqualTo("cost.anomaly");
        assertThat(request.header("X-GpuLedger-Delivery")).isEqualTo(anomaly.id());
        assertThat(request.header("X-GpuLedger-Timestamp")).isEqualTo(request.header("webhook-timestamp"));
        assertThat(legacySignatureValid(request)).isTrue();
        WebhookPayloads.AnomalyEvent event = Json.read(request.body(), WebhookPayloads.AnomalyEvent.class);
        assertThat(event).isEqualTo(new WebhookPayloads.AnomalyEvent("cost.anomaly", anomaly.id(), anomaly));
        RecordingReceiver.Request toSlack = slack.requests().get(0);
        assertThat(toSlack.header("webhook-signature")).isNull();
        assertThat(toSlack.header("X-GpuLedger-Signature")).isNull();
        assertThat(Json.MAPPER.readTree(toSlack.body()).get("blocks").get(0).get("fields")).hasSize(7);

        // And the deliveries are recorded, after one try each
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(deliveriesOf("finance-a", "slack-a"))
                .containsOnlyKeys("finance-a|" + anomaly.id(), "slack-a|" + anomaly.id())
                .allSatisfy((key, delivery) -> {
                    assertThat(delivery.attempts()).isEqualTo(1);
                    assertThat(delivery.httpStatus()).isEqualTo(200);
                }));
        assertThat(dispatcher.counters("finance-a").delivered()).isEqualTo(1);
        assertThat(dispatcher.counters("finance-a").retries()).isZero();
    }

    @Test
    void shouldRetryServerErrorsAndDeliverOnce() throws Exception {
        // Given a receiver that fails twice before it takes a request
        RecordingReceiver flaky = receiver(SECRET);
        flaky.answer(500, 500);
        WebhookDispatcher dispatcher = dispatcher("flaky", flaky.receiver("flaky-b", WebhookReceiver.Format.JSON));
        dispatcher.start();

        // When
        CostAnomaly anomaly = SampleAnomalies.spendRate("team-flaky", 0);
        publish(anomaly);

        // Then it is delivered once, on the third try
        await().atMost(PATIENCE).until(() -> dispatcher.counters("flaky-b").delivered() == 1);
        assertThat(flaky.requestsFor(anomaly)).extracting(RecordingReceiver.Request::status)
                .containsExactly(500, 500, 200);
        assertThat(flaky.deliveredIds()).containsExactly(anomaly.id());
        assertThat(flaky.badSignatures()).isZero();
        assertThat(dispatcher.counters("flaky-b").retries()).isEqualTo(2);
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(deliveriesOf("flaky-b"))
                .extractingByKey("flaky-b|" + anomaly.id())
                .satisfies(delivery -> {
                    assertThat(delivery.attempts()).isEqualTo(3);
                    assertThat(delivery.httpStatus()).isEqualTo(200);
                }));
    }

    @Test
    void shouldWaitAsLongAsTheReceiverAsks() throws Exception {
        RecordingReceiver throttled = receiver(SECRET);
        throttled.answerTooManyRequests(1);
        WebhookDispatcher dispatcher = dispatcher("throttled",
                throttled.receiver("throttled-k", WebhookReceiver.Format.JSON));
        dispatcher.start();

        CostAnomaly anomaly = SampleAnomalies.spendRate("team-throttled", 0);
        publish(anomaly);

        await().atMost(PATIENCE).until(() -> dispatcher.counters("throttled-k").delivered() == 1);
        List<RecordingReceiver.Request> tries = throttled.requestsFor(anomaly);
        assertThat(tries).extracting(RecordingReceiver.Request::status).containsExactly(429, 200);
        assertThat(Duration.ofNanos(tries.get(1).arrivedNanos() - tries.get(0).arrivedNanos()))
                .isGreaterThanOrEqualTo(Duration.ofMillis(950));
    }

    @Test
    void shouldDeliverEachAnomalyOnceAcrossARestart() throws Exception {
        // Given two anomalies delivered by a dispatcher that then stopped
        RecordingReceiver finance = receiver(SECRET);
        WebhookReceiver config = finance.receiver("finance-c", WebhookReceiver.Format.JSON);
        CostAnomaly first = SampleAnomalies.spendRate("team-restart-1", 0);
        CostAnomaly second = SampleAnomalies.spendRate("team-restart-2", 0);
        WebhookDispatcher before = dispatcher("restart", config);
        before.start();
        publish(first, second);
        await().atMost(PATIENCE).until(() -> before.counters("finance-c").delivered() == 2);
        before.stop();

        // When a new dispatcher of the same group reads them again, and two new ones
        WebhookDispatcher after = dispatcherKeepingOffsets("restart", FAST, config);
        after.start();
        CostAnomaly third = SampleAnomalies.spendRate("team-restart-3", 0);
        CostAnomaly fourth = SampleAnomalies.spendRate("team-restart-4", 0);
        publish(first, second, third, fourth);

        // Then only the new ones are sent: each anomaly reached the receiver once
        await().atMost(PATIENCE).until(() -> after.counters("finance-c").delivered() == 2
                && after.counters("finance-c").alreadyDelivered() == 2);
        assertThat(finance.deliveredIds())
                .containsExactlyInAnyOrder(first.id(), second.id(), third.id(), fourth.id());
        assertThat(finance.requests()).hasSize(4);
    }

    @Test
    void shouldNotDeliverAgainAfterDyingBetweenTheLedgerAndTheCommit() throws Exception {
        // Given a dispatcher that dies each time it is about to commit, after writing its deliveries
        RecordingReceiver finance = receiver(SECRET);
        WebhookReceiver config = finance.receiver("finance-d", WebhookReceiver.Format.JSON);
        WebhookDispatcher dying = dispatcher("crash", config);
        dying.beforeCommit(() -> {
            throw new IllegalStateException("killed before committing");
        });
        List<CostAnomaly> published = IntStream.rangeClosed(1, 3)
                .mapToObj(i -> SampleAnomalies.spendRate("team-crash-" + i, 0)).toList();
        publish(published.toArray(CostAnomaly[]::new));
        dying.start();
        await().atMost(PATIENCE).until(() -> !dying.isRunning());
        long deliveredBeforeDying = dying.counters("finance-d").delivered();
        assertThat(deliveredBeforeDying).isPositive();
        assertThat(committedOffsets("crash")).isEqualTo(committedOffsetsAtStart.get("crash"));

        // When a new dispatcher of the same group reads the same anomalies again
        WebhookDispatcher restarted = dispatcherKeepingOffsets("crash", FAST, config);
        restarted.start();

        // Then what was delivered is skipped, the rest delivered, and the offsets committed past all
        await().atMost(PATIENCE).until(() -> restarted.counters("finance-d").alreadyDelivered()
                + restarted.counters("finance-d").delivered() == published.size());
        assertThat(restarted.counters("finance-d").alreadyDelivered()).isEqualTo(deliveredBeforeDying);
        assertThat(finance.deliveredIds())
                .containsExactlyInAnyOrderElementsOf(published.stream().map(CostAnomaly::id).toList());
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(committedOffsets("crash")).isEqualTo(endOffsets()));
    }

    @Test
    void shouldRecordARefusalAndNotRetryIt() throws Exception {
        RecordingReceiver picky = receiver(SECRET);
        picky.answer(400);
        WebhookDispatcher dispatcher = dispatcher("refusal", picky.receiver("picky-e", WebhookReceiver.Format.JSON));
        dispatcher.start();

        // Two anomalies of one team: one partition, read in order
        CostAnomaly refused = SampleAnomalies.spendRate("team-refusal", 0);
        CostAnomaly taken = SampleAnomalies.spendRate("team-refusal", 1);
        publish(refused, taken);

        await().atMost(PATIENCE).until(() -> dispatcher.counters("picky-e").delivered() == 1);
        assertThat(dispatcher.counters("picky-e").refused()).isEqualTo(1);
        assertThat(dispatcher.counters("picky-e").retries()).isZero();
        assertThat(picky.requestsFor(refused)).extracting(RecordingReceiver.Request::status).containsExactly(400);
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(deliveriesOf("picky-e"))
                .extractingByKey("picky-e|" + refused.id()).extracting(WebhookDelivery::httpStatus).isEqualTo(400));
    }

    @Test
    void shouldKeepDeliveringToOthersWhileOneReceiverIsDown() throws Exception {
        RecordingReceiver down = receiver(SECRET);
        down.answerByDefault(503);
        RecordingReceiver up = receiver(SECRET);
        WebhookDispatcher dispatcher = dispatcher("one-down", down.receiver("down-f", WebhookReceiver.Format.JSON),
                up.receiver("up-f", WebhookReceiver.Format.JSON));
        dispatcher.start();

        List<CostAnomaly> published = publishSpendRates("team-one-down", 3);

        await().atMost(PATIENCE).until(() -> up.deliveredIds().size() == published.size());
        assertThat(dispatcher.counters("down-f").retries()).isPositive();
        assertThat(down.deliveredIds()).isEmpty();
        // Nothing is committed past what the one that is down has not taken
        assertThat(committedOffsets("one-down")).isEqualTo(committedOffsetsAtStart.get("one-down"));
    }

    @Test
    void shouldStopPromptlyWhileOneReceiverWaitsToRetryAndAnotherDoesNotAnswer() throws Exception {
        // Given a receiver that fails, to be tried again in a minute, and one that never answers
        RecordingReceiver failing = receiver(SECRET);
        failing.answerByDefault(503);
        RecordingReceiver silent = receiver(SECRET);
        silent.hang();
        DeliveryPolicy patient = new DeliveryPolicy(Duration.ofSeconds(2), Duration.ofMinutes(5),
                Duration.ofMinutes(1), Duration.ofMinutes(10));
        WebhookDispatcher dispatcher = dispatcher("stopping", patient,
                failing.receiver("failing-g", WebhookReceiver.Format.JSON),
                silent.receiver("silent-g", WebhookReceiver.Format.JSON));
        dispatcher.start();
        publish(SampleAnomalies.spendRate("team-stopping", 0));
        await().atMost(PATIENCE).until(() -> dispatcher.counters("failing-g").retries() == 1
                && silent.requests().size() == 1);

        // When / Then
        assertThat(timeToStop(dispatcher)).isLessThan(Duration.ofSeconds(5));
        assertThat(dispatcher.isRunning()).isFalse();
        assertThat(failing.requests()).hasSize(1);
        // A request cut short by the stop is neither a failure nor a delivery
        assertThat(dispatcher.counters("silent-g").retries()).isZero();
        assertThat(dispatcher.counters("silent-g").delivered()).isZero();
    }

    @Test
    void shouldKeepDeliveringToOthersWhileOneReceiverNeverAnswers() throws Exception {
        // Given a receiver that never answers, with a patient timeout, and one that answers at once
        RecordingReceiver silent = receiver(SECRET);
        silent.hang();
        RecordingReceiver prompt = receiver(SECRET);
        DeliveryPolicy patient = new DeliveryPolicy(Duration.ofSeconds(2), Duration.ofMinutes(5),
                Duration.ofMillis(5), Duration.ofMillis(50));
        WebhookDispatcher dispatcher = dispatcher("one-silent", patient,
                silent.receiver("silent-h", WebhookReceiver.Format.JSON),
                prompt.receiver("prompt-h", WebhookReceiver.Format.JSON));
        dispatcher.start();

        // When three anomalies are published
        List<CostAnomaly> published = publishSpendRates("team-one-silent", 3);

        // Then the prompt one gets all three while the silent one still holds its first
        await().atMost(PATIENCE).until(() -> prompt.deliveredIds().size() == published.size());
        assertThat(prompt.deliveredIds()).containsExactlyElementsOf(published.stream().map(CostAnomaly::id).toList());
        assertThat(silent.requests()).hasSize(1);
        assertThat(dispatcher.counters("silent-h").delivered()).isZero();
    }

    @Test
    void shouldGiveUpATryWhoseAnswerNeverEnds() throws Exception {
        // Given a receiver that answers 200 and never finishes the body of its answer
        RecordingReceiver endless = receiver(SECRET);
        endless.neverEndTheAnswer();
        DeliveryPolicy oneSecond = new DeliveryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofMillis(5), Duration.ofMillis(50));
        WebhookDispatcher dispatcher = dispatcher("endless", oneSecond,
                endless.receiver("endless-i", WebhookReceiver.Format.JSON));
        dispatcher.start();

        // When
        publish(SampleAnomalies.spendRate("team-endless", 0));

        // Then the try ends with the timeout, counts as failed, and is made again
        await().atMost(PATIENCE).until(() -> dispatcher.counters("endless-i").retries() >= 1
                && endless.requests().size() >= 2);
        assertThat(dispatcher.counters("endless-i").delivered()).isZero();
    }

    @SuppressWarnings("deprecation")
    private static boolean legacySignatureValid(RecordingReceiver.Request request) {
        return WebhookSignature.legacyVerify(SECRET, request.header("X-GpuLedger-Timestamp"), request.body(),
                request.header("X-GpuLedger-Signature"), Instant.now(), Duration.ofMinutes(5));
    }

    /** Publishes {@code count} spend-rate anomalies of one team: one partition, read in order. */
    private static List<CostAnomaly> publishSpendRates(String team, int count) {
        List<CostAnomaly> published = IntStream.rangeClosed(1, count)
                .mapToObj(i -> SampleAnomalies.spendRate(team, i)).toList();
        publish(published.toArray(CostAnomaly[]::new));
        return published;
    }

    private RecordingReceiver receiver(String secret) throws Exception {
        RecordingReceiver receiver = new RecordingReceiver(secret);
        started.add(receiver);
        return receiver;
    }

    /** A dispatcher, not started, of a group set to start at the current end of the anomalies topic. */
    private WebhookDispatcher dispatcher(String group, WebhookReceiver... receivers) throws Exception {
        return dispatcher(group, FAST, receivers);
    }

    private WebhookDispatcher dispatcher(String group, DeliveryPolicy policy, WebhookReceiver... receivers)
            throws Exception {
        startAtEndOfAnomalies(group);
        committedOffsetsAtStart.put(group, committedOffsets(group));
        return dispatcherKeepingOffsets(group, policy, receivers);
    }

    /** A dispatcher, not started, of a group that goes on from where it committed. */
    private WebhookDispatcher dispatcherKeepingOffsets(String group, DeliveryPolicy policy,
            WebhookReceiver... receivers) {
        WebhookDispatcher dispatcher = new WebhookDispatcher(broker.bootstrap(), group, Optional.empty(),
                List.of(receivers), policy, Clock.systemUTC());
        started.add(dispatcher);
        return dispatcher;
    }

    private static Duration timeToStop(WebhookDispatcher dispatcher) {
        long start = System.nanoTime();
        dispatcher.stop();
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private static void publish(CostAnomaly... published) {
        for (CostAnomaly anomaly : published) {
            anomalies.send(new ProducerRecord<>(Topics.COST_ANOMALIES.name(), anomaly.key(), anomaly));
        }
        anomalies.flush();
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap()));
    }

    private static List<TopicPartition> partitionsOf(String topic) {
        return IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(topic, p)).toList();
    }

    private static Map<TopicPartition, OffsetAndMetadata> endOffsets() throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitionsOf(Topics.COST_ANOMALIES.name()).forEach(partition -> latest.put(partition, OffsetSpec.latest()));
        Map<TopicPartition, OffsetAndMetadata> ends = new HashMap<>();
        try (Admin admin = admin()) {
            admin.listOffsets(latest).all().get()
                    .forEach((partition, info) -> ends.put(partition, new OffsetAndMetadata(info.offset())));
        }
        return ends;
    }

    /** As if the group had been running until now: it will read only what is published from here on. */
    private static void startAtEndOfAnomalies(String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> ends = endOffsets();
        try (Admin admin = admin()) {
            admin.alterConsumerGroupOffsets(group, ends).all().get();
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> committedOffsets(String group) throws Exception {
        try (Admin admin = admin()) {
            return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        }
    }

    /** The delivery records of these receivers, the latest by key, as the compacted topic keeps them. */
    private static Map<String, WebhookDelivery> deliveriesOf(String... receivers) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        List<TopicPartition> partitions = partitionsOf(Topics.WEBHOOK_DELIVERIES.name());
        Map<String, WebhookDelivery> latest = new HashMap<>();
        try (KafkaConsumer<String, WebhookDelivery> consumer = new KafkaConsumer<>(props,
                Topics.WEBHOOK_DELIVERIES.keySerde().deserializer(),
                Topics.WEBHOOK_DELIVERIES.valueSerde().deserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < end.get(partition))) {
                consumer.poll(Duration.ofMillis(100)).forEach(record -> {
                    if (List.of(receivers).contains(record.value().receiver())) {
                        latest.put(record.key(), record.value());
                    }
                });
            }
        }
        return latest;
    }
}
