package io.gpuledger.alerts;

import io.gpuledger.model.Lifecycle;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithParentName;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The alert service's {@code gpuledger.*} settings, as documented in application.properties. */
@ConfigMapping(prefix = "gpuledger")
public interface AlertSettings {

    Consumer consumer();

    Topics topics();

    Idle idle();

    /** The currency recommendations are priced in. */
    @WithDefault("USD")
    String reportingCurrency();

    /** The cost engine's exchange-rate table; unset, the shipped one. */
    Optional<Path> ratesFile();

    /** Budgets such as {@code team:research=5000 USD; job:train-llm=300 USD}. */
    Optional<String> budgets();

    Recommendation recommendation();

    Anomaly anomaly();

    Metrics metrics();

    Replica replica();

    Webhooks webhooks();

    /** The webhook receivers, {@code gpuledger.webhooks.<name>.<setting>}: see docs/webhooks.md. */
    interface Webhooks {
        @WithParentName
        Map<String, Webhook> receivers();

        /** Every key given under {@code gpuledger.webhooks}: one that names no receiver is refused, not ignored. */
        @WithParentName
        Map<String, String> given();
    }

    /**
     * One webhook receiver's settings as given. They stay text: WebhookReceivers checks them, so that an error
     * names the key and never repeats a secret.
     */
    interface Webhook {
        Optional<String> url();

        /** A file holding the URL (a mounted Secret); while it does not exist, the receiver is left out. */
        Optional<String> urlFile();

        /** {@code json} or {@code slack}. */
        @WithDefault("json")
        String format();

        Optional<String> secret();

        Optional<String> secretFile();

        /** {@code warning} or {@code critical}; unset: every anomaly. */
        Optional<String> minSeverity();

        /** Comma-separated anomaly kinds; unset: all. */
        Optional<String> kinds();

        @WithDefault("false")
        String allowHttp();

        /** Every setting given, known or not: a misspelt one is refused, not ignored. */
        @WithParentName
        Map<String, String> given();
    }

    interface Consumer {
        String groupId();

        /** This instance's id as a static member of its groups. */
        Optional<String> instanceId();
    }

    /** Running as one of several replicas: see docs/operations.md. */
    interface Replica {
        /**
         * Whether this instance waits for the replicas' lease before it reads and publishes; off, it starts
         * at once, as the only instance.
         */
        @WithDefault("false")
        boolean lease();

        /** How long the replicas' groups wait for one that stopped answering before another takes over. */
        @WithDefault("10s")
        Duration sessionTimeout();

        /** The groups' session timeout: short among replicas, so that a dead one keeps no one waiting; else Kafka's. */
        default Optional<Duration> groupSessionTimeout() {
            return lease() ? Optional.of(sessionTimeout()) : Optional.empty();
        }
    }

    interface Topics {
        /** Whether missing topics are created at start; off where an operator owns them. */
        @WithDefault("true")
        boolean create();

        @WithDefault("4")
        int partitions();
    }

    interface Idle {
        double smActiveThreshold();

        double minObservedSeconds();
    }

    interface Recommendation {
        Duration ttl();

        @WithDefault("7d")
        Duration dismissFor();

        @WithDefault("10")
        double minMonthlySaving();

        Reserve reserve();

        Spot spot();

        /** Serving capacity kept above the peak where a job does not say its own. */
        @WithDefault("0.3")
        double servingHeadroom();

        ReclaimIdle reclaimIdle();

        SwitchInstanceType switchInstanceType();

        MoveToSpot moveToSpot();

        ReduceCommunication reduceCommunication();

        @WithDefault("24h")
        Duration jobLookback();
    }

    interface Reserve {
        @WithDefault("168")
        int lookbackHours();

        /** The share of the lookback's hours the reserved baseline may be above. */
        @WithDefault("0.10")
        double baselinePercentile();

        /** The term of a reserved price that states none. */
        @WithDefault("12")
        int termMonths();

        /** How long a record stands unjudged: long enough for a restart to see the lookback again. */
        @WithDefault("14d")
        Duration ttl();
    }

    interface Spot {
        /** Interruptions per instance-hour where the spot price gives no band. */
        @WithDefault("0.05")
        double interruptionsPerHour();

        /** From an interruption to work again: waiting for capacity, starting, loading the checkpoint. */
        @WithDefault("15m")
        Duration restart();
    }

    interface ReclaimIdle {
        @WithDefault("30m")
        Duration period();

        @WithDefault("0.10")
        double withdrawSmActive();
    }

    interface SwitchInstanceType {
        @WithDefault("1h")
        Duration period();

        @WithDefault("0.15")
        double minSavingRatio();

        @WithDefault("0.10")
        double withdrawSavingRatio();

        /** Whether a job may be moved to another region of its provider. */
        @WithDefault("false")
        boolean otherRegions();

        /** Whether a job may be moved to another provider. */
        @WithDefault("false")
        boolean otherProviders();

        /** What a gigabyte sent out of a region costs, in the reporting currency. */
        @WithDefault("0.09")
        double egressPricePerGb();
    }

    interface MoveToSpot {
        @WithDefault("1h")
        Duration period();

        @WithDefault("0.10")
        double minNetSavingRatio();

        @WithDefault("0")
        double withdrawNetSavingRatio();
    }

    interface ReduceCommunication {
        @WithDefault("30m")
        Duration period();

        @WithDefault("0.25")
        double minRatio();

        @WithDefault("0.20")
        double withdrawRatio();
    }

    interface Anomaly {
        /** How many anomalies the API keeps to show. */
        @WithDefault("1000")
        int kept();

        SpendRate spendRate();

        PriceSpike priceSpike();

        CostPerThroughput costPerThroughput();
    }

    interface SpendRate {
        @WithDefault("4")
        double k();

        @WithDefault("5")
        double minImpactPerHour();

        /** Normal minutes in a row that end an episode. */
        @WithDefault("5")
        int recoveryMinutes();

        /** Teams, jobs and pools followed, the least recently seen forgotten first. */
        @WithDefault("10000")
        int maxSubjects();

        /** Parts (GPUs, jobs) followed per subject, likewise. */
        @WithDefault("64")
        int maxPartsPerSubject();

        /** The least spread of a baseline of spend per hour, in money per hour. */
        @WithDefault("1.0")
        double minSpreadPerHour();

        Baseline baseline();
    }

    interface PriceSpike {
        @WithDefault("0.30")
        double threshold();

        /** The lifecycles whose offers are judged. */
        @WithDefault("spot")
        Set<Lifecycle> lifecycles();
    }

    interface CostPerThroughput {
        @WithDefault("25")
        double thresholdPercent();

        /** Adjacent bad minutes that make a regression. */
        @WithDefault("3")
        int consecutiveMinutes();

        /** Minutes within the threshold that end an episode. */
        @WithDefault("5")
        int recoveryMinutes();

        /** (Job, unit) series followed, the least recently seen forgotten first. */
        @WithDefault("10000")
        int maxSeries();

        /** The least spread of a baseline of cost per 1M units: a million tokens can cost cents. */
        @WithDefault("0.0001")
        double minSpreadPerMillionUnits();

        Baseline baseline();
    }

    /** How a detector learns what is usual for each series it follows (RobustBaseline). */
    interface Baseline {
        /** The weight of a new value in the expected level. */
        @WithDefault("0.05")
        double alpha();

        /** How many recent values the spread is taken over. */
        @WithDefault("60")
        int window();

        /** Values observed before the baseline judges. */
        @WithDefault("30")
        int warmUp();

        /** The spread used for scoring is at least this fraction of the expected level. */
        @WithDefault("0.05")
        double relativeFloor();

        /** How many spreads from the expected level a value may lie before it is clamped. */
        @WithDefault("3")
        double clampAt();
    }

    interface Metrics {
        /** Per-GPU, job, team and pool series: at most this many of each kind. */
        @WithDefault("50000")
        int maxSeries();

        /** A series not heard of for this long is removed. */
        @WithDefault("5m")
        Duration staleAfter();

        /**
         * 1: the per-GPU families are in {@code /q/metrics} with the rest; more: they are served apart, in this
         * many shards of the GPUs at {@code /q/gpu-metrics?shard=}, a scrape each.
         */
        @WithDefault("1")
        int gpuShards();

        /**
         * A file of dated grid carbon intensities over the shipped table ({@link io.gpuledger.model.CarbonIntensity}):
         * {@code provider,region,grams_co2e_per_kwh,valid_from,basis,source}; none: the shipped table alone.
         */
        Optional<String> carbonIntensityFile();
    }
}
