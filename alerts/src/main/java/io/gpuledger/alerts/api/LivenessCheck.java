package io.gpuledger.alerts.api;

import io.gpuledger.alerts.ReaderStage;
import io.gpuledger.alerts.feed.TopicReader;
import io.gpuledger.alerts.webhook.WebhookStage;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;

/**
 * Alive while every reader's loop runs ({@code /q/health/live}): a reader waiting to read again
 * after a failure, one whose loop is stuck, or a webhook dispatcher that ended is DOWN, with what
 * it last failed on. A reader that runs but holds no partitions (the broker is away) is alive and
 * not ready: restarting the service would not bring the broker back.
 */
@Liveness
public class LivenessCheck implements HealthCheck {

    private final ReaderStage readers;
    private final WebhookStage webhooks;

    public LivenessCheck(ReaderStage readers, WebhookStage webhooks) {
        this.readers = readers;
        this.webhooks = webhooks;
    }

    @Override
    public HealthCheckResponse call() {
        return response(readers.isOpen(), readers.health(), webhooks.running());
    }

    static HealthCheckResponse response(boolean started, List<TopicReader.Health> readers,
            Optional<Boolean> webhooksRunning) {
        HealthCheckResponseBuilder builder = HealthCheckResponse.named("kafka-readers");
        boolean up = started;
        if (!started) {
            builder.withData("service", "not started");
        }
        for (TopicReader.Health reader : readers) {
            up &= reader.alive();
            String state = reader.alive() || reader.state() != TopicReader.State.RUNNING ? reader.state().name()
                    : "STUCK";
            builder.withData(reader.reader(), state + ", " + reader.restarts() + " restarts"
                    + reader.lastError().map(error -> ", last failure: " + error).orElse(""));
        }
        if (webhooksRunning.isPresent()) {
            up &= webhooksRunning.get();
            builder.withData("webhook-dispatcher", webhooksRunning.get() ? "RUNNING" : "ENDED");
        }
        return builder.status(up).build();
    }
}
