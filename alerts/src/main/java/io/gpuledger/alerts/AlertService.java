package io.gpuledger.alerts;

import io.gpuledger.alerts.anomaly.AnomalyDesk;
import io.gpuledger.alerts.anomaly.WatchStage;
import io.gpuledger.alerts.feed.ReplicaLease;
import io.gpuledger.alerts.fleet.FleetBoard;
import io.gpuledger.alerts.metrics.FleetMetricsStage;
import io.gpuledger.alerts.recommend.RecommendationDesk;
import io.gpuledger.alerts.recommend.RulesStage;
import io.gpuledger.alerts.webhook.WebhookStage;
import io.gpuledger.model.TopicAdmin;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Opens the alert service's stages in order, once this replica is the active one (at once without a lease), and
 * closes them in the reverse order at shutdown. Each stage is a bean of its own ({@link Stage}), built by CDI
 * whenever first asked for and opened only here, in this order:
 * <ol>
 *   <li>the fleet board ({@link FleetBoard});</li>
 *   <li>the recommendation desk, its book read back ({@link RecommendationDesk});</li>
 *   <li>the anomaly desk, its ids read back ({@link AnomalyDesk});</li>
 *   <li>the fleet's gauges and counters ({@link FleetMetricsStage});</li>
 *   <li>the anomaly watches ({@link WatchStage});</li>
 *   <li>the recommendation rules ({@link RulesStage});</li>
 *   <li>the readers of the engine's topics and their record handlers ({@link ReaderStage});</li>
 *   <li>the webhooks ({@link WebhookStage}).</li>
 * </ol>
 * Every stage is given, through CDI, only the beans it uses; a stage opened later may use those opened before.
 */
@ApplicationScoped
public class AlertService {

    private static final Logger LOG = Logger.getLogger(AlertService.class);

    private final Clock clock;
    private final AlertSettings settings;
    private final String bootstrapServers;
    private final StageList stages;
    private volatile boolean started;
    private ReplicaLease lease;

    /** CDI gives each stage by its type; the order of the list is the order of opening. */
    public AlertService(Clock clock, AlertSettings settings, KafkaSettings kafka, FleetBoard board,
            RecommendationDesk desk, AnomalyDesk anomalies, FleetMetricsStage metrics, WatchStage watches,
            RulesStage rules, ReaderStage readers, WebhookStage webhooks) {
        this.clock = clock;
        this.settings = settings;
        this.bootstrapServers = kafka.bootstrapServers();
        this.stages = new StageList(List.of(board, desk, anomalies, metrics, watches, rules, readers, webhooks));
    }

    /** The wall clock; tests of the rules pin their own. */
    public static class Clocks {
        @Produces
        @Singleton
        Clock clock() {
            return Clock.systemUTC();
        }
    }

    void onStart(@Observes StartupEvent event) {
        // Once, before the lease (a partition of one of them) or the readers are asked for
        if (settings.topics().create()) {
            TopicAdmin.ensureTopics(bootstrapServers, settings.topics().partitions());
        }
        if (!settings.replica().lease()) {
            start();
            return;
        }
        lease = new ReplicaLease(bootstrapServers, settings.consumer().groupId() + "-lease", clock.instant(),
                settings.replica().sessionTimeout(), this::start, AlertService::quitOnLostLease);
        lease.start();
        LOG.info("a standby replica until it holds the lease");
    }

    void onStop(@Observes ShutdownEvent event) {
        stop();
        if (lease != null) {
            lease.close();
        }
    }

    /**
     * The lease moved on while this replica still ran as the active one (it was cut off from the cluster for
     * longer than the session): another replica now publishes, and this one cannot tell what it missed. It
     * ends, to be started again as a standby.
     */
    private static void quitOnLostLease() {
        LOG.error("the lease of the active replica was lost: stopping, to start again as a standby");
        Quarkus.asyncExit(3);
    }

    public synchronized void start() {
        if (started) {
            return;
        }
        stages.openAll();
        started = true;
        LOG.infof("reading the cost engine's topics from %s", bootstrapServers);
    }

    public synchronized void stop() {
        started = false;
        stages.closeAll();
    }

    /** Whether the service has started and not yet stopped. */
    public boolean started() {
        return started;
    }

    /** The stages opened so far, in the order they were: none on a standby replica. */
    List<Stage> openedStages() {
        return stages.opened();
    }

    /** Removes what was not heard of lately; a failed sweep is logged and the next one runs as usual. */
    @Scheduled(every = "30s", delayed = "30s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void sweep() {
        if (!started) {
            return;
        }
        try {
            Instant now = clock.instant();
            for (Stage stage : stages.all()) {
                stage.sweep(now);
            }
        } catch (RuntimeException e) {
            LOG.warn("sweeping stale series failed; trying again later", e);
        }
    }
}
