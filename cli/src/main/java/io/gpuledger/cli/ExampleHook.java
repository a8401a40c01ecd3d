package io.gpuledger.cli;

import io.gpuledger.model.CloudEvent;
import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationAction.JobToMove;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.model.Topics;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * {@code gpu-ledger hook}: an example of the automation that consumes
 * {@code gpu.recommendations.v1} (see docs/recommendations.md). It reads committed records only,
 * acts on each state of a recommendation once (the same id seen again at the same
 * {@code updatedAt} is a redelivery), prints what it would do, and with {@code --ack URL} tells
 * the alert service it is acting on it. A real hook would drain nodes or resize pools where this
 * one prints.
 */
final class ExampleHook {

    private final PrintStream out;
    private final Optional<URI> alertService;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** The last state acted on, by recommendation id. */
    private final Map<String, String> actedOn = new HashMap<>();

    ExampleHook(PrintStream out, Optional<URI> alertService, String token) {
        this.out = out;
        this.alertService = alertService;
        this.token = token;
    }

    static int run(String[] args) {
        String bootstrap = System.getenv().getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
        Optional<URI> ack = Optional.empty();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--ack") && i + 1 < args.length) {
                ack = Optional.of(URI.create(args[++i]));
            } else {
                throw new UsageException("hook: unknown option '" + args[i] + "'");
            }
        }
        ExampleHook hook = new ExampleHook(System.out, ack, System.getenv().getOrDefault("GPULEDGER_API_TOKEN", ""));
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        KafkaClientSettings.applyTo(props);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "gpu-ledger-example-hook");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<String, CloudEvent<Recommendation>> consumer = new KafkaConsumer<>(props,
                Topics.RECOMMENDATIONS.keySerde().deserializer(), Topics.RECOMMENDATIONS.valueSerde().deserializer())) {
            consumer.subscribe(List.of(Topics.RECOMMENDATIONS.name()));
            while (true) {
                for (ConsumerRecord<String, CloudEvent<Recommendation>> record : consumer.poll(Duration.ofSeconds(1))) {
                    hook.onEvent(record.value());
                }
                consumer.commitSync();
            }
        }
    }

    /** Acts on one record; returns the line printed, or empty when there was nothing new to do. */
    Optional<String> onEvent(CloudEvent<Recommendation> event) {
        if (!"io.gpuledger.recommendation.v1".equals(event.type())) {
            return Optional.empty();
        }
        Recommendation r = event.data();
        String state = r.status().wire() + "@" + r.updatedAt();
        if (state.equals(actedOn.put(r.id(), state))) {
            return Optional.empty();
        }
        String line = switch (r.status()) {
            case OPEN -> "act     " + plan(r);
            case WITHDRAWN -> "cancel  " + r.id() + ": the situation is over";
            case ACKNOWLEDGED, DISMISSED -> null;
        };
        if (line == null) {
            return Optional.empty();
        }
        out.println(line);
        if (r.status() == RecommendationStatus.OPEN) {
            alertService.ifPresent(base -> acknowledge(base, r.id()));
        }
        return Optional.of(line);
    }

    /** What a rebalancing hook would do for {@code r}, in one line. */
    static String plan(Recommendation r) {
        String what;
        if (r.action() instanceof RecommendationAction.Evacuate a) {
            what = "drain instance " + a.instanceId() + " (jobs " + a.jobs().stream().map(JobToMove::jobId).toList()
                    + ") before " + r.deadline() + "; replace on " + offerKey(a.replacementPool());
        } else if (r.action() instanceof RecommendationAction.ReclaimIdle a) {
            what = a.shrinksAJob()
                    ? "shrink job " + a.jobId() + " to " + a.keepInstances() + " instance(s): release "
                            + a.instanceIds()
                    : "release instance " + a.instanceId() + " on " + r.target().host();
        } else if (r.action() instanceof RecommendationAction.ReserveCapacity a) {
            what = "reserve " + a.reserveInstances() + " instances of " + r.target().id() + " for " + a.termMonths()
                    + " months (" + a.paymentOption() + ", " + a.totalCommitment() + " " + r.currency()
                    + " committed)";
        } else if (r.action() instanceof RecommendationAction.MoveToSpot a && !a.movesTheJob()) {
            what = "checkpoint job " + a.jobId() + " every " + a.checkpointIntervalSeconds()
                    + " s before moving it to spot";
        } else if (r.action() instanceof RecommendationAction.ReduceCommunication a && !a.movesTheJob()) {
            what = "tune job " + a.jobId() + ": " + a.jobChanges();
        } else if (r.action() == null) {
            what = "nothing named to do";
        } else {
            RecommendationAction.Move a = (RecommendationAction.Move) r.action();
            what = "move job " + a.jobId() + " from " + a.fromPool() + " to " + a.toInstances() + " instance(s) of "
                    + offerKey(a.toPool());
        }
        return String.format("%s %s: %s (saves %.2f %s/month, confidence %.2f, until %s)", r.kind(), r.target().id(),
                what, r.estimatedMonthlySaving(), r.currency() == null ? "" : r.currency(), r.confidence(),
                r.expiresAt());
    }

    private static String offerKey(RecommendationAction.PricedOffer pool) {
        return pool == null ? null : pool.offerKey();
    }

    private void acknowledge(URI base, String id) {
        String path = "/api/recommendations/" + URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20")
                + "/ack";
        HttpRequest request = HttpRequest.newBuilder(base.resolve(path))
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(5)).build();
        try {
            int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            out.println("        acknowledged " + id + ": HTTP " + status);
        } catch (java.io.IOException e) {
            out.println("        could not acknowledge " + id + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
