package io.gpuledger.alerts;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

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

    interface Consumer {
        String groupId();

        /** This instance's id as a static member of its groups. */
        Optional<String> instanceId();
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

        @WithName("reserve.lookback-hours")
        @WithDefault("168")
        int reserveLookbackHours();

        @WithName("spot.interruptions-per-hour")
        @WithDefault("0.05")
        double spotInterruptionsPerHour();

        ReclaimIdle reclaimIdle();

        SwitchInstanceType switchInstanceType();

        MoveToSpot moveToSpot();

        ReduceCommunication reduceCommunication();

        @WithDefault("24h")
        Duration jobLookback();
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
    }

    interface PriceSpike {
        @WithDefault("0.30")
        double threshold();
    }

    interface CostPerThroughput {
        @WithDefault("25")
        double thresholdPercent();
    }

    interface Metrics {
        /** Per-GPU, job, team and pool series: at most this many of each kind. */
        @WithDefault("50000")
        int maxSeries();

        /** A series not heard of for this long is removed. */
        @WithDefault("5m")
        Duration staleAfter();
    }
}
