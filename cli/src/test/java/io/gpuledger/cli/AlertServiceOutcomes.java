package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.sim.Fleet;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.ingest.sim.FleetSimulator;
import io.gpuledger.ingest.sim.SimulatedJob;
import io.gpuledger.ingest.sim.SimulationSettings;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.CloudEvent;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.Topics;
import io.gpuledger.model.WebhookDelivery;
import io.gpuledger.processes.GroupProgress;
import io.gpuledger.streams.CostEngine;
import io.gpuledger.streams.CostEngineConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * What the tests of an alert service that crashes under load expect of a fleet, and read back of what
 * automation and finance were given: the recommendations and anomalies its input calls for, none twice.
 */
final class AlertServiceOutcomes {

    /** Spot instances are taken back every quarter minute or so. */
    private static final double SPOT_INTERRUPTIONS_PER_HOUR = 240;
    /**
     * The fleet starts this long before now and catches up at once: closed minutes, and the
     * budget anomalies they complete, come within seconds instead of minutes.
     */
    private static final Duration HISTORY = Duration.ofMinutes(4);
    /** As the recommendation book: a saving that moves by a tenth or less is no news. */
    private static final double MATERIAL_CHANGE = 0.10;

    private AlertServiceOutcomes() {
    }

    /** What automation and finance were given by the end: the topics' records, and finance's webhook requests. */
    record Published(List<Recommendation> recommendations, List<CostAnomaly> anomalies,
            List<CapacityEvent> notices, List<String> requested, List<String> taken) {

        static Published read(String bootstrap, WebhookInbox inbox) {
            return new Published(TopicRecords.read(bootstrap, Topics.RECOMMENDATIONS).stream()
                    .map(CloudEvent::data).toList(), TopicRecords.read(bootstrap, Topics.COST_ANOMALIES),
                    TopicRecords.read(bootstrap, Topics.CAPACITY_EVENTS), inbox.requested(), inbox.taken());
        }

        List<String> anomalyIds() {
            return anomalies.stream().map(CostAnomaly::id).toList();
        }

        /**
         * Asserts that finance took each anomaly once, and that the request held unanswered at the
         * crash ({@code heldAtKill}) was sent again and taken then.
         */
        void assertDeliveredOnce(String heldAtKill) {
            assertThat(taken).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(anomalyIds());
            assertThat(requested).filteredOn(heldAtKill::equals).hasSize(2);
        }
    }

    /**
     * A budget fleet running on a broker: the cost engine, the producer the fleet sends through (the
     * tests' own records too), the groups' progress and the simulator. Closing it stops the fleet, then
     * the rest.
     */
    record Running(CostEngine engine, KafkaProducer<byte[], byte[]> records, GroupProgress progress,
            FleetSimulator simulator) implements AutoCloseable {

        /** Stops the fleet's rounds; the engine runs on. */
        void stopFleet() {
            simulator.close();
        }

        @Override
        public void close() {
            try (engine; records; progress) {
                simulator.close();
            }
        }
    }

    /**
     * A fleet bought in US dollars with idle GPUs and spot instances, its teams on budgets too
     * small to last a minute: the releases of idle capacity it calls for, its teams, and the spot
     * offer the tests move the price of and give notice on.
     */
    record BudgetFleet(long seed, List<PriceQuote> catalog, Fleet fleet, Set<String> idleReleases, Set<String> teams,
            PriceQuote spot) {

        private static final String TINY_BUDGET = "0.000001 USD";

        static BudgetFleet generate(int gpus, long seed) {
            List<PriceQuote> catalog = usdCatalog();
            Fleet fleet = Fleet.generate(gpus, catalog, seed);
            BudgetFleet generated = new BudgetFleet(seed, catalog, fleet, AlertServiceOutcomes.idleReleases(fleet),
                    AlertServiceOutcomes.teams(fleet),
                    firstSpotOffer(catalog));
            assertThat(generated.idleReleases()).isNotEmpty();
            assertThat(generated.teams()).isNotEmpty();
            assertThat(fleet.gpus()).anyMatch(gpu -> gpu.lifecycle() == Lifecycle.SPOT);
            return generated;
        }

        /**
         * Starts the cost engine in this JVM (5 s of grace, so that minutes close soon) on the state in
         * {@code engineState}, and the fleet: its history sent at once, then running on live through one
         * producer named {@code clientId}.
         */
        Running run(String bootstrap, Path engineState, String clientId) {
            CostEngine engine = new CostEngine(CostEngineConfig.defaults(bootstrap, engineState)
                    .withGrace(Duration.ofSeconds(5)));
            KafkaProducer<byte[], byte[]> records = Producers.forTopics(bootstrap, clientId);
            GroupProgress progress = new GroupProgress(bootstrap);
            engine.start();
            return new Running(engine, records, progress, runFleet(fleet, catalog, seed, records));
        }

        /**
         * The alert service's settings for it: each team's tiny budget, finance's webhook at
         * {@code url} (the test's receiver, on loopback in plain HTTP) signed with {@code secret}, and
         * idleness judged over one closed minute, as the fleet's history closes a few at once.
         */
        Map<String, String> alertSettings(String url, String secret) {
            return new HashMap<>(Map.of(
                    "GPULEDGER_BUDGETS", teams.stream().map(team -> "team:" + team + "=" + TINY_BUDGET)
                            .collect(Collectors.joining(";")),
                    "GPULEDGER_WEBHOOKS_FINANCE_URL", url,
                    "GPULEDGER_WEBHOOKS_FINANCE_SECRET", secret,
                    "GPULEDGER_WEBHOOKS_FINANCE_ALLOW_HTTP", "true",
                    "GPULEDGER_RECOMMENDATION_RECLAIM_IDLE_PERIOD", "1m"));
        }

        /**
         * Asserts that no recommendation state was published twice and that every one the input
         * calls for is there: each idle release's, and an evacuation of each instance in
         * {@code evacuations} (notices still running when everything had been read), {@code notice}'s among them.
         */
        void assertRecommendedOnce(List<Recommendation> recommendations, List<String> evacuations,
                CapacityEvent notice) {
            assertThat(repeated(recommendations)).as("recommendation states published again").isEmpty();
            Set<String> recommended = recommendations.stream().map(Recommendation::id).collect(Collectors.toSet());
            assertThat(recommended).containsAll(idleReleases);
            assertThat(evacuations).contains(evacuationOf(notice));
            assertThat(recommended).containsAll(evacuations);
        }

        /** Asserts that each anomaly is on its topic once, a budget overrun per team among them. */
        void assertAnomaliesOnce(List<String> anomalyIds) {
            assertThat(anomalyIds).doesNotHaveDuplicates();
            assertThat(teams).allSatisfy(team -> assertThat(anomalyIds).anyMatch(
                    id -> id.startsWith("budget_burn:team:" + team + ":") && id.endsWith(":critical")));
        }
    }

    /**
     * The releases of idle capacity the fleet calls for. Instances are billed whole and released whole: what
     * is idle is a job's instances, or an instance of no job. Spot ones are left out: the cloud may take them
     * back first, and a job it took capacity from waits for capacity, not idle, for hours.
     */
    static Set<String> idleReleases(Fleet fleet) {
        return fleet.instances().stream()
                .filter(instance -> instance.job().idle())
                .filter(instance -> instance.gpus().get(0).lifecycle() != Lifecycle.SPOT)
                .map(instance -> instance.job().reportedJobId() != null
                        ? Recommendation.idFor(RecommendationKind.RECLAIM_IDLE, "job", instance.job().reportedJobId())
                        : Recommendation.idFor(RecommendationKind.RECLAIM_IDLE, "instance", instance.instanceId()))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * {@code fleet} sampled every second, its spot instances taken back often and its prices still, sent to
     * {@code records}: its history sent at once, then running on as the wall clock goes (close it to stop).
     */
    static FleetSimulator runFleet(Fleet fleet, List<PriceQuote> catalog, long seed,
            KafkaProducer<byte[], byte[]> records) {
        SimulationSettings simulated = SimulationSettings.defaults(Duration.ofSeconds(1))
                .withSpotInterruptionsPerInstanceHour(SPOT_INTERRUPTIONS_PER_HOUR)
                .withSpotPriceChangesPerOfferHour(0);
        FleetSimulation simulation = new FleetSimulation(fleet, catalog, simulated, seed,
                Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(HISTORY));
        FleetSimulator simulator = new FleetSimulator(simulation, records, Clock.systemUTC());
        while (simulation.nextEnd().isBefore(Instant.now())) {
            simulator.publishNextRound();
        }
        simulator.start();
        return simulator;
    }

    /** The shipped catalog's offers priced in US dollars. */
    static List<PriceQuote> usdCatalog() {
        return PriceCatalog.loadDefault().quotes().stream().filter(quote -> quote.currency().equals("USD")).toList();
    }

    /** The first spot offer of {@code catalog} by key: the one the tests move the price of and give notice on. */
    static PriceQuote firstSpotOffer(List<PriceQuote> catalog) {
        return catalog.stream().filter(quote -> quote.lifecycle() == Lifecycle.SPOT)
                .min(Comparator.comparing(PriceQuote::key)).orElseThrow();
    }

    static Set<String> teams(Fleet fleet) {
        return fleet.jobs().stream().map(SimulatedJob::team).filter(Objects::nonNull)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Each group's members, by their static ids ("-" for one without). */
    static Map<String, List<String>> members(String bootstrap, List<String> groups) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Map<String, List<String>> members = new TreeMap<>();
            admin.describeConsumerGroups(groups).all().get(30, TimeUnit.SECONDS).forEach((group, description) ->
                    members.put(group, description.members().stream()
                            .map(member -> member.groupInstanceId().orElse("-")).toList()));
            return members;
        }
    }

    static long seconds(Instant from, Instant to) {
        return Duration.between(from, to).toSeconds();
    }

    static String evacuationOf(CapacityEvent notice) {
        return Recommendation.idFor(RecommendationKind.EVACUATE, "instance", notice.instanceId());
    }

    /** The evacuations {@code notices} call for: one of each instance whose spot notice still ran at {@code at}. */
    static List<String> evacuationsDue(List<CapacityEvent> notices, Instant at) {
        return notices.stream()
                .filter(notice -> notice.kind() == CapacityEventKind.SPOT_INTERRUPTION)
                .filter(notice -> notice.deadline() != null && notice.deadline().isAfter(at))
                .map(AlertServiceOutcomes::evacuationOf).distinct().toList();
    }

    /** A spot interruption notice for an instance of {@code offer} the fleet does not have, as an agent sends it. */
    static CapacityEvent notice(PriceQuote offer, String instance, Instant noticedAt, Instant deadline) {
        return new CapacityEvent(CapacityEvent.SCHEMA_VERSION,
                CapacityEvent.idOf(offer.provider(), instance, CapacityEventKind.SPOT_INTERRUPTION,
                        deadline.toString()),
                offer.provider(), offer.region(), instance, offer.instanceType(), "node-" + instance,
                offer.lifecycle(), CapacityEventKind.SPOT_INTERRUPTION, "terminate", noticedAt, deadline,
                "alert-service-test", null);
    }

    /** The anomalies {@code receiver} is recorded as having taken (or refused), on the delivery ledger. */
    static Set<String> ledger(String bootstrap, String receiver) {
        return TopicRecords.read(bootstrap, Topics.WEBHOOK_DELIVERIES).stream()
                .filter(delivery -> delivery.receiver().equals(receiver))
                .map(WebhookDelivery::anomalyId).collect(Collectors.toSet());
    }

    static List<String> anomalyIds(String bootstrap) {
        return TopicRecords.read(bootstrap, Topics.COST_ANOMALIES).stream().map(CostAnomaly::id).toList();
    }

    /**
     * Records that say again what the record of the same id before them said: the same status,
     * action and deadline, a saving within a tenth of it, before half its time to live had
     * passed. The recommendation book publishes none of these (docs/architecture.md, alert service).
     */
    static List<String> repeated(List<Recommendation> published) {
        Map<String, Recommendation> before = new HashMap<>();
        List<String> repeats = new ArrayList<>();
        for (Recommendation recommendation : published) {
            Recommendation last = before.put(recommendation.id(), recommendation);
            if (last != null && repeats(last, recommendation)) {
                repeats.add(recommendation.id() + " " + recommendation.status().wire() + " at "
                        + recommendation.updatedAt() + ", as at " + last.updatedAt());
            }
        }
        return repeats;
    }

    private static boolean repeats(Recommendation last, Recommendation next) {
        Instant refreshAt = last.updatedAt()
                .plus(Duration.between(last.updatedAt(), last.expiresAt()).dividedBy(2));
        double saving = last.estimatedMonthlySaving();
        return next.status() == last.status() && next.action().equals(last.action())
                && Objects.equals(next.deadline(), last.deadline())
                && Math.abs(next.estimatedMonthlySaving() - saving)
                        <= MATERIAL_CHANGE * Math.max(Math.abs(saving), 1e-9)
                && next.updatedAt().isBefore(refreshAt);
    }
}
