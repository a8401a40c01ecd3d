package io.gpuledger.cli;

import static io.gpuledger.cli.AlertServiceOutcomes.anomalyIds;
import static io.gpuledger.cli.AlertServiceOutcomes.evacuationOf;
import static io.gpuledger.cli.AlertServiceOutcomes.evacuationsDue;
import static io.gpuledger.cli.AlertServiceOutcomes.ledger;
import static io.gpuledger.cli.AlertServiceOutcomes.members;
import static io.gpuledger.cli.AlertServiceOutcomes.notice;
import static io.gpuledger.cli.AlertServiceOutcomes.seconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.cli.AlertServiceOutcomes.BudgetFleet;
import io.gpuledger.cli.AlertServiceOutcomes.Published;
import io.gpuledger.cli.AlertServiceOutcomes.Running;
import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.processes.AlertServiceProcess;
import io.gpuledger.processes.GroupProgress;
import io.gpuledger.processes.LocalPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert service crashes under load and comes back: the demo's stages on an embedded broker
 * (the cost engine in this JVM, the alert service as its own process, as in production), a
 * simulated fleet with idle GPUs and spot instances taken back every quarter minute or so, teams on
 * budgets too small to last a minute, and finance's webhook receiver on 127.0.0.1. The service is
 * killed with SIGKILL while a webhook delivery is in flight, after it has read a spot price's rise
 * by 5%; while it is down that price rises by half again (a spike only against the version read
 * before) and a spot instance is given notice; it is started again on the same consumer groups, as
 * the same static member. What
 * automation and finance read afterwards must hold every recommendation and anomaly the input
 * calls for, none of them twice.
 */
class AlertServiceRestartIT {

    private static final int GPUS = 16;
    private static final long SEED = 42;
    /** One partition: two versions of one offer (keys of their own) are read in the order they were sent. */
    private static final int PARTITIONS = 1;
    private static final String RECEIVER = "finance";
    private static final String GROUP = "gpu-ledger-alerts";
    /** The service's static member id, the same before and after the kill, as a pod's name is. */
    private static final String INSTANCE = "gpu-ledger-alerts-0";
    private static final Duration PATIENCE = Duration.ofSeconds(120);

    /** Kept when the test fails: the alert service's logs are in it. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void shouldNeitherRepeatNorLoseARecommendationAnomalyOrDeliveryWhenTheAlertServiceIsKilledUnderLoad()
            throws Exception {
        // Given a fleet bought in US dollars with idle GPUs and spot instances, its teams on tiny budgets
        BudgetFleet given = BudgetFleet.generate(GPUS, SEED);
        Set<String> teams = given.teams();
        PriceQuote spot = given.spot();

        Published published;
        Instant everyNoticeRead;
        String spikeOf;
        long recommendationsAtKill;
        long deliveriesCommittedAtKill;
        List<String> takenAtKill;
        String heldAtKill;
        CapacityEvent noticeWhileDown;
        Instant began = Instant.now();
        Instant ready;
        Instant killed;
        Instant restarted;
        Map<String, List<String>> membersAfterRestart;
        List<AlertServiceProcess> services = new ArrayList<>();
        try (EmbeddedKafka kafka = EmbeddedKafka.start();
                WebhookInbox inbox = new WebhookInbox()) {
            String bootstrap = kafka.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, PARTITIONS);
            SimulatedFleet.publishPrices(given.catalog(), bootstrap, "restart-prices");
            Map<String, String> alertSettings = given.alertSettings(inbox.url(), "restart-test");
            alertSettings.put("GPULEDGER_CONSUMER_INSTANCE_ID", INSTANCE);
            int port = LocalPorts.freePair();
            // The last budget anomaly's delivery waits, unanswered, for the crash; those before it are taken.
            inbox.hold(teams.size());

            try (Running running = given.run(bootstrap, dir.resolve("engine"), "restart-fleet")) {
                KafkaProducer<byte[], byte[]> records = running.records();
                GroupProgress progress = running.progress();
                try {
                    // When the fleet has sent its history and runs on, and the alert service has
                    // delivered all but the last budget anomaly
                    services.add(startAlertService(bootstrap, port, alertSettings, 1));
                    ready = Instant.now();
                    // And a spot price has risen by 5%, a version the service reads before it is killed
                    Instant stepAt = Instant.now().truncatedTo(ChronoUnit.SECONDS);
                    PriceQuote step = priced(spot, spot.pricePerHour() * 1.05, stepAt.minusSeconds(2));
                    SimulatedFleet.publishPrices(List.of(step), bootstrap, "restart-price-step");
                    await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> inbox.held() != null
                            && ledger(bootstrap, RECEIVER).containsAll(inbox.taken())
                            && progress.committed(GROUP, Topics.PRICES.name()) >= progress.end(Topics.PRICES.name()));

                    // And it is killed then, with SIGKILL
                    services.get(0).kill();
                    killed = Instant.now();
                    heldAtKill = inbox.held();
                    takenAtKill = inbox.taken();
                    recommendationsAtKill = progress.end(Topics.RECOMMENDATIONS.name());
                    deliveriesCommittedAtKill = progress.committed(GROUP + "-webhooks",
                            Topics.COST_ANOMALIES.name());

                    // And while it is down the price rises by half again (a spike only against the
                    // version read before the kill), and a spot instance is given two minutes' notice
                    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
                    PriceQuote spike = priced(spot, step.pricePerHour() * 1.5, now.minusSeconds(1));
                    SimulatedFleet.publishPrices(List.of(spike), bootstrap, "restart-price-spike");
                    spikeOf = "price_spike:offer:" + spot.offer().key() + ":" + step.validFrom() + ":";
                    noticeWhileDown = notice(spot, "i-noticed-while-down", now,
                            now.plus(Duration.ofMinutes(2)));
                    records.send(Producers.record(Topics.CAPACITY_EVENTS, now.toEpochMilli(),
                            noticeWhileDown.instanceId(), noticeWhileDown)).get();

                    // And it is started again on the same groups, the held request let go
                    services.add(startAlertService(bootstrap, port, alertSettings, 2));
                    restarted = Instant.now();
                    inbox.release();
                    List<String> groups = List.of(GROUP, GROUP + "-capacity", GROUP + "-webhooks");
                    membersAfterRestart = await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                            .until(() -> members(bootstrap, groups), byGroup -> byGroup.values().stream()
                                    .noneMatch(List::isEmpty));

                    // And it runs until finance has taken every anomaly on the topic, the spike among them
                    String spikePrefix = spikeOf;
                    await().atMost(PATIENCE).pollInterval(Duration.ofMillis(500)).until(() -> {
                        List<String> ids = anomalyIds(bootstrap);
                        return ids.stream().anyMatch(id -> id.startsWith(spikePrefix))
                                && inbox.taken().containsAll(ids);
                    });
                } finally {
                    running.stopFleet();
                }
                // And every notice the fleet sent has been read
                await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                        .until(() -> progress.lag(GROUP + "-capacity", Topics.CAPACITY_EVENTS.name()) == 0);
                everyNoticeRead = Instant.now();
                published = Published.read(bootstrap, inbox);
            } finally {
                for (AlertServiceProcess service : services) {
                    service.close();
                }
            }
        }
        List<String> anomalyIds = published.anomalyIds();
        List<String> evacuations = evacuationsDue(published.notices(), everyNoticeRead);
        System.out.printf("alert service restart: ready after %d s, killed at %d s, back at %d s, done at %d s;"
                + " %d recommendation records (%d before the kill), %d anomalies, %d webhook requests for %d"
                + " deliveries; at the kill %d taken, %d committed by the dispatcher, %s held; %d notices, %d"
                + " still to evacuate at the end%n",
                seconds(began, ready), seconds(began, killed), seconds(began, restarted),
                seconds(began, everyNoticeRead), published.recommendations().size(), recommendationsAtKill,
                anomalyIds.size(), published.requested().size(), published.taken().size(), takenAtKill.size(),
                deliveriesCommittedAtKill, heldAtKill, published.notices().size(), evacuations.size());

        // Then the service had published before it was killed, with a delivery in flight
        assertThat(recommendationsAtKill).isPositive();
        assertThat(heldAtKill).isNotNull();

        // And no recommendation state was published twice, and every one the input calls for is there:
        // each idle release's, and an evacuation of each instance whose notice still ran when everything
        // had been read, the one given notice while the service was down with its deadline
        given.assertRecommendedOnce(published.recommendations(), evacuations, noticeWhileDown);
        assertThat(published.recommendations()).anyMatch(recommendation -> recommendation.id()
                .equals(evacuationOf(noticeWhileDown))
                && noticeWhileDown.deadline().equals(recommendation.deadline()));

        // And each anomaly is on its topic once: a budget overrun per team, and the spike that came
        // while the service was down
        given.assertAnomaliesOnce(anomalyIds);
        assertThat(anomalyIds).anyMatch(id -> id.startsWith(spikeOf));

        // And finance took each of them once; the one held at the crash was sent again, and taken then
        published.assertDeliveredOnce(heldAtKill);
        // And the restarted service took its place in each group as the same static member: the
        // member that died is not waited for
        assertThat(membersAfterRestart).hasSize(3)
                .allSatisfy((group, members) -> assertThat(members).as(group).containsExactly(INSTANCE));
    }

    private AlertServiceProcess startAlertService(String bootstrap, int port, Map<String, String> settings, int run)
            throws Exception {
        Path home = Path.of(System.getProperty("gpuledger.home", "..")).toAbsolutePath().normalize();
        AlertServiceProcess service = AlertServiceProcess.start(
                home.resolve("alerts/target/quarkus-app/quarkus-run.jar"), bootstrap, port,
                dir.resolve("alerts-" + run + ".log"), settings);
        try {
            service.awaitReady(Duration.ofSeconds(90));
        } catch (RuntimeException e) {
            service.close();
            throw e;
        }
        return service;
    }

    private static PriceQuote priced(PriceQuote quote, double pricePerHour, Instant validFrom) {
        return new PriceQuote(quote.provider(), quote.region(), quote.instanceType(), quote.lifecycle(),
                quote.gpuModel(), quote.gpuCount(), pricePerHour, quote.currency(), validFrom, "restart-test");
    }
}
