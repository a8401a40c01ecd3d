package io.gpuledger.cli;

import io.gpuledger.streams.CostEngineConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What {@code gpu-ledger demo} runs.
 *
 * @param spotInterruptionsPerHour spot interruption notices per spot instance-hour; far above real
 *                                 markets by default, so that a demo of an hour shows a few
 * @param priceChangesPerHour      new versions of each spot price per hour
 * @param sharedFraction    about which part of the fleet's GPUs are time-sliced among several jobs
 *                          (inference replicas and notebooks), each charged its share
 * @param externalBootstrap the cluster named by {@code KAFKA_BOOTSTRAP_SERVERS}; empty: start an embedded broker
 * @param grace             how long the cost engine waits for late samples before a minute closes
 * @param history           whether the past week of one pool is sent before the fleet starts ({@link PoolHistory})
 * @param home              the GPU Ledger checkout: where the alert service's jar and the run directory live
 * @param alertSettings     what the alert service is configured with: the demo's evidence periods
 *                          ({@link #DEMO_PERIODS}), then the {@code GPULEDGER_*} variables of the demo's
 *                          environment (budgets, webhooks, thresholds: its configuration table), which win
 */
public record DemoOptions(int gpus, Duration interval, int httpPort, Optional<Path> catalog,
        double spotInterruptionsPerHour, double priceChangesPerHour, double sharedFraction, Duration grace,
        boolean history, Optional<String> externalBootstrap,
        Path home,
        Map<String, String> alertSettings) {

    static final double DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR = 1;
    static final double DEFAULT_PRICE_CHANGES_PER_HOUR = 4;
    /**
     * A sixteenth of the demo's GPUs shared: in its default 48-GPU fleet, one GPU time-sliced between a replica
     * and a notebook, so that the shared-GPU row has data while every kind of recommendation is still raised.
     */
    static final double DEFAULT_SHARED_FRACTION = 0.0625;

    /**
     * The periods of closed minutes the demo's alert service judges each kind of recommendation
     * over, by kind: minutes, where a deployment's are half an hour or an hour, so that a demo of a
     * few minutes shows them. The demo prints them; its environment may set others.
     */
    static final Map<String, String> DEMO_PERIODS = demoPeriods();

    /**
     * How much clock time a job's running hours are counted over before the job rules judge it: a
     * deployment counts a day, the demo's jobs run steadily, so five minutes tell their month as well.
     */
    static final String JOB_LOOKBACK = "GPULEDGER_RECOMMENDATION_JOB_LOOKBACK";
    static final String DEMO_JOB_LOOKBACK = "5m";

    /**
     * Whether a job may be switched to another provider: the demo's catalog has one cheap offer in each
     * of its Chinese clouds, so the demo lets jobs move between them to show a switch; a deployment keeps
     * jobs in their provider and region unless told otherwise.
     */
    static final String OTHER_PROVIDERS = "GPULEDGER_RECOMMENDATION_SWITCH_INSTANCE_TYPE_OTHER_PROVIDERS";
    private static final String PERIOD_PREFIX = "GPULEDGER_RECOMMENDATION_";
    private static final String PERIOD_SUFFIX = "_PERIOD";

    public static DemoOptions parse(String[] args, Map<String, String> env) {
        int gpus = 48;
        Duration interval = Duration.ofSeconds(5);
        int httpPort = 8080;
        Optional<Path> catalog = Optional.empty();
        double spotInterruptions = DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR;
        double priceChanges = DEFAULT_PRICE_CHANGES_PER_HOUR;
        double shared = DEFAULT_SHARED_FRACTION;
        Duration grace = CostEngineConfig.DEFAULT_GRACE;
        boolean history = true;
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (i + 1 >= args.length) {
                throw new UsageException(option + " needs a value");
            }
            String value = args[++i];
            switch (option) {
                case "--gpus" -> gpus = UsageException.positive(option, value);
                case "--interval" -> interval = Duration.ofSeconds(UsageException.positive(option, value));
                case "--http-port" -> httpPort = UsageException.positive(option, value);
                case "--spot-interruptions" -> spotInterruptions = rate(option, value);
                case "--price-changes" -> priceChanges = rate(option, value);
                case "--shared" -> shared = UsageException.fraction(option, value);
                case "--grace" -> grace = Duration.ofSeconds(UsageException.nonNegative(option, value));
                case "--history" -> history = switch (value) {
                    case "on" -> true;
                    case "off" -> false;
                    default -> throw new UsageException("--history takes on or off, not '" + value + "'");
                };
                case "--catalog" -> {
                    Path file = Path.of(value);
                    if (!Files.isReadable(file)) {
                        throw new UsageException("--catalog " + value + ": no readable file there");
                    }
                    catalog = Optional.of(file);
                }
                default -> throw new UsageException("unknown option '" + option + "'");
            }
        }
        Optional<String> bootstrap = Optional.ofNullable(env.get("KAFKA_BOOTSTRAP_SERVERS")).filter(s -> !s.isBlank());
        Path home = Path.of(System.getProperty("gpuledger.home", ".")).toAbsolutePath().normalize();
        Map<String, String> alertSettings = new TreeMap<>(DEMO_PERIODS);
        alertSettings.put(JOB_LOOKBACK, DEMO_JOB_LOOKBACK);
        alertSettings.put(OTHER_PROVIDERS, "true");
        env.forEach((name, value) -> {
            if (name.startsWith("GPULEDGER_")) {
                alertSettings.put(name, value);
            }
        });
        return builder().gpus(gpus).interval(interval).httpPort(httpPort).catalog(catalog)
                .spotInterruptionsPerHour(spotInterruptions).priceChangesPerHour(priceChanges)
                .sharedFraction(shared).grace(grace).history(history).externalBootstrap(bootstrap).home(home)
                .alertSettings(Map.copyOf(alertSettings))
                .build();
    }

    /**
     * The evidence period of each kind as the alert service gets it, for the demo's output:
     * {@code reclaim-idle 2m, switch-instance-type 5m, …}.
     */
    String evidencePeriods() {
        List<String> periods = new ArrayList<>();
        for (String name : DEMO_PERIODS.keySet()) {
            String kind = name.substring(PERIOD_PREFIX.length(), name.length() - PERIOD_SUFFIX.length())
                    .toLowerCase(Locale.ROOT).replace('_', '-');
            periods.add(kind + " " + alertSettings.get(name));
        }
        periods.add("job look-back " + alertSettings.get(JOB_LOOKBACK));
        if (Boolean.parseBoolean(alertSettings.get(OTHER_PROVIDERS))) {
            periods.add("switches across providers");
        }
        return String.join(", ", periods);
    }

    private static Map<String, String> demoPeriods() {
        Map<String, String> periods = new LinkedHashMap<>();
        periods.put(PERIOD_PREFIX + "RECLAIM_IDLE" + PERIOD_SUFFIX, "2m");
        periods.put(PERIOD_PREFIX + "SWITCH_INSTANCE_TYPE" + PERIOD_SUFFIX, "5m");
        periods.put(PERIOD_PREFIX + "MOVE_TO_SPOT" + PERIOD_SUFFIX, "5m");
        periods.put(PERIOD_PREFIX + "REDUCE_COMMUNICATION" + PERIOD_SUFFIX, "5m");
        return Collections.unmodifiableMap(periods);
    }

    private static double rate(String option, String value) {
        try {
            double number = Double.parseDouble(value);
            if (number >= 0 && !Double.isInfinite(number)) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(option + " takes a rate per hour of 0 or more, not '" + value + "'");
    }

    static Builder builder() {
        return new Builder();
    }

    static final class Builder {
        private int gpus;
        private Duration interval;
        private int httpPort;
        private Optional<Path> catalog;
        private double spotInterruptionsPerHour;
        private double priceChangesPerHour;
        private double sharedFraction;
        private Duration grace;
        private boolean history;
        private Optional<String> externalBootstrap;
        private Path home;
        private Map<String, String> alertSettings;

        private Builder() {
        }

        Builder gpus(int value) { gpus = value; return this; }
        Builder interval(Duration value) { interval = value; return this; }
        Builder httpPort(int value) { httpPort = value; return this; }
        Builder catalog(Optional<Path> value) { catalog = value; return this; }
        Builder spotInterruptionsPerHour(double value) { spotInterruptionsPerHour = value; return this; }
        Builder priceChangesPerHour(double value) { priceChangesPerHour = value; return this; }
        Builder sharedFraction(double value) { sharedFraction = value; return this; }
        Builder grace(Duration value) { grace = value; return this; }
        Builder history(boolean value) { history = value; return this; }
        Builder externalBootstrap(Optional<String> value) { externalBootstrap = value; return this; }
        Builder home(Path value) { home = value; return this; }
        Builder alertSettings(Map<String, String> value) { alertSettings = value; return this; }

        DemoOptions build() {
            return new DemoOptions(gpus, interval, httpPort, catalog, spotInterruptionsPerHour, priceChangesPerHour,
                    sharedFraction, grace, history, externalBootstrap, home, alertSettings);
        }
    }
}
