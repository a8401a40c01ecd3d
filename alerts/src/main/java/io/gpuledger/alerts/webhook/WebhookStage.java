package io.gpuledger.alerts.webhook;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.KafkaSettings;
import io.gpuledger.alerts.Stage;
import io.gpuledger.alerts.metrics.MetricCatalogue;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Delivers anomalies to the configured receivers ({@code gpuledger.webhooks}), if any, and counts how that goes
 * per receiver. With none configured, the stage opens and does nothing.
 */
@ApplicationScoped
public class WebhookStage implements Stage {

    private static final Logger LOG = Logger.getLogger(WebhookStage.class);

    private final PrometheusMeterRegistry registry;
    private final Clock clock;
    private final AlertSettings settings;
    private final String bootstrapServers;
    private volatile boolean open;
    private volatile WebhookDispatcher dispatcher;

    public WebhookStage(PrometheusMeterRegistry registry, Clock clock, AlertSettings settings, KafkaSettings kafka) {
        this.registry = registry;
        this.clock = clock;
        this.settings = settings;
        this.bootstrapServers = kafka.bootstrapServers();
    }

    @Override
    public void open() {
        open = true;
        List<WebhookReceiver> receivers = WebhookReceivers.from(settings.webhooks(), LOG::info);
        if (receivers.isEmpty()) {
            return;
        }
        WebhookDispatcher started = new WebhookDispatcher(bootstrapServers, settings.consumer().groupId()
                + "-webhooks", settings.consumer().instanceId(), settings.replica().groupSessionTimeout(), receivers,
                DeliveryPolicy.defaults(), clock);
        MetricCatalogue catalogue = MetricCatalogue.shipped();
        for (WebhookReceiver receiver : receivers) {
            ReceiverCounters counters = started.counters(receiver.name());
            catalogue.family("gpuledger_webhook_deliveries_total").functionCounter(registry,
                    Tags.of("receiver", receiver.name(), "outcome", "delivered"), counters, c -> c.delivered());
            catalogue.family("gpuledger_webhook_deliveries_total").functionCounter(registry,
                    Tags.of("receiver", receiver.name(), "outcome", "refused"), counters, c -> c.refused());
            catalogue.family("gpuledger_webhook_retries_total").functionCounter(registry,
                    Tags.of("receiver", receiver.name()), counters, c -> c.retries());
        }
        started.start();
        dispatcher = started;
        LOG.infof("delivering anomalies to %d webhook receiver(s)", receivers.size());
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
        if (dispatcher != null) {
            dispatcher.stop();
        }
    }

    /** Whether the dispatcher runs; empty when no receiver is configured (or before the stage is open). */
    public Optional<Boolean> running() {
        WebhookDispatcher current = dispatcher;
        return current == null ? Optional.empty() : Optional.of(current.isRunning());
    }
}
