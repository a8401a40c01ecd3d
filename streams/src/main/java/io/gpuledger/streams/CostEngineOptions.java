package io.gpuledger.streams;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.streams.deadletter.ParseOrReject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@link CostEngineMain} is told on its command line and in its environment; an option
 * given on the command line wins over the environment.
 *
 * @param instanceId a name that stays the same across restarts of this one instance (a pod or
 *                   host name): the engine then joins its consumer group as a static member, so
 *                   an instance restarted after a crash takes its partitions back at once instead
 *                   of waiting for the group to time the dead one out
 * @param ratesFile  the dated exchange rates to convert prices with, in the form of the shipped
 *                   table ({@link CurrencyRates#SHIPPED}); empty: the shipped one
 * @param metricsAddress the address the engine's {@code /metrics} and health are served on
 * @param metricsPort    their port; 0: not served
 * @param topicsWait     how long the engine waits for input topics the cluster does not have,
 *                       at its start or later, before it stops with status 1
 * @param standbyReplicas warm copies of each task's state other instances keep, so that a task
 *                   moved to one of them runs without restoring its state first
 * @param groupProtocol how the instances share the partitions: {@code classic}, or
 *                   {@code streams} (KIP-1071, early access in Kafka 4.1; see docs/operations.md)
 */
public record CostEngineOptions(String bootstrapServers, String applicationId, Path stateDir,
        Optional<String> instanceId, int standbyReplicas, int streamThreads, Duration commitInterval, Duration grace,
        Duration priceMaxAge, Duration maxAhead, Optional<Path> ratesFile, String metricsAddress, int metricsPort,
        Duration topicsWait, String groupProtocol, boolean help) {

    /** The longest grace period accepted: every open window, and the roll-ups' retention, grow with it. */
    static final Duration MAX_GRACE = Duration.ofHours(1);
    /**
     * The longest commit interval accepted: the engine's transactions are given three times it,
     * and a broker refuses transactions longer than its {@code transaction.max.timeout.ms}
     * (15 min unless told otherwise).
     */
    static final Duration MAX_COMMIT_INTERVAL = Duration.ofMinutes(5);

    /** The engine's metrics and health port unless told otherwise; the agent's is 9477, the alert service's 8080. */
    public static final int DEFAULT_METRICS_PORT = 9404;
    public static final String DEFAULT_METRICS_ADDRESS = "0.0.0.0";
    /** Long enough for a topic operator to create the topics of a new installation. */
    public static final Duration DEFAULT_TOPICS_WAIT = Duration.ofMinutes(5);
    static final Duration MAX_TOPICS_WAIT = Duration.ofDays(1);
    /** Kafka Streams' classic rebalance protocol; the streams one is early access in Kafka 4.1. */
    static final String DEFAULT_GROUP_PROTOCOL = "classic";
    static final List<String> GROUP_PROTOCOLS = List.of(DEFAULT_GROUP_PROTOCOL, "streams");

    public static final String USAGE = """
            usage: java -cp ... io.gpuledger.streams.CostEngineMain [OPTIONS]

            The cost engine (Kafka Streams): gpu.telemetry.v1 priced with pricing.quotes.v1 into
            one-minute windows per GPU on gpu.usage.v1, exactly once. Stops cleanly on SIGTERM.

              --bootstrap-servers HOST:PORT[,...]  Kafka (or KAFKA_BOOTSTRAP_SERVERS); required
              --application-id ID   Kafka Streams application id: the consumer group, and the
                                    prefix of internal topics (or GPULEDGER_APPLICATION_ID;
                                    default gpu-ledger-cost-engine)
              --state-dir DIR       local state (or GPULEDGER_STATE_DIR; default
                                    .gpu-ledger/cost-engine-state)
              --instance-id NAME    stable name of this instance, for static group membership
                                    (or GPULEDGER_INSTANCE_ID; default: none)
              --standby-replicas N  warm copies of each task's state kept by other
                                    instances, so that a task moved to one of them
                                    runs without restoring its state; 0: none
                                    (or GPULEDGER_STANDBY_REPLICAS; default %d)
              --group-protocol classic|streams  how instances share the partitions:
                                    streams is KIP-1071, early access in Kafka 4.1, for
                                    trials only (or GPULEDGER_GROUP_PROTOCOL; default classic)
              --threads N           stream threads, each working its share of the partitions
                                    (or GPULEDGER_STREAM_THREADS; default 1)
              --commit-interval SECONDS  the longest time between two commits while the
                                    engine works off a backlog; live views, roll-ups and
                                    notices are committed as they are sent, whatever it is
                                    (or GPULEDGER_COMMIT_INTERVAL_SECONDS; default %d, at most %d)
              --grace SECONDS       how long after a minute ends its late samples are still
                                    counted; later ones go to gpu.telemetry.dlq.v1 as late
                                    (or GPULEDGER_GRACE_SECONDS; default 120, at most 3600)
              --price-max-age SECONDS  how long after the price feed last confirmed a
                                    price it is taken as current; samples later than that
                                    are still charged at it, and counted as stale-priced
                                    (or GPULEDGER_PRICE_MAX_AGE_SECONDS; default 1800)
              --max-ahead SECONDS   how far ahead of this engine's clock a sample or work
                                    report may be stamped; later ones are refused as from
                                    the future (their node's clock runs ahead)
                                    (or GPULEDGER_MAX_AHEAD_SECONDS; default %d, at most %d)
              --rates-file FILE     dated exchange rates, rows VALID_FROM,CURRENCY,USD_PER_UNIT:
                                    each price is converted at the rates in force at its
                                    sample's time (or GPULEDGER_RATES_FILE; default: the
                                    shipped table)
              --metrics-port PORT   serve /metrics (Prometheus text), /health/live and
                                    /health/ready on this port; 0: serve none
                                    (or GPULEDGER_METRICS_PORT; default %d)
              --metrics-address ADDRESS  the address to serve them on
                                    (or GPULEDGER_METRICS_ADDRESS; default %s: every one)
              --topics-wait SECONDS  how long to wait for input topics the cluster does not
                                    have, at the start or later, before stopping with status 1
                                    (or GPULEDGER_TOPICS_WAIT_SECONDS; default %d)
              --help                show this text
            """.formatted(CostEngineConfig.DEFAULT_STANDBY_REPLICAS,
                    CostEngineConfig.DEFAULT_COMMIT_INTERVAL.toSeconds(), MAX_COMMIT_INTERVAL.toSeconds(),
                    CostEngineConfig.DEFAULT_MAX_AHEAD.toSeconds(), ParseOrReject.MAX_AHEAD.toSeconds(),
                    DEFAULT_METRICS_PORT, DEFAULT_METRICS_ADDRESS, DEFAULT_TOPICS_WAIT.toSeconds());

    static final Path DEFAULT_STATE_DIR = Path.of(".gpu-ledger", "cost-engine-state");
    static final Duration DEFAULT_GRACE = CostEngineConfig.DEFAULT_GRACE;
    static final Duration DEFAULT_PRICE_MAX_AGE = CostEngineConfig.DEFAULT_PRICE_MAX_AGE;

    public static CostEngineOptions parse(String[] args, Map<String, String> env) {
        String bootstrap = env.get("KAFKA_BOOTSTRAP_SERVERS");
        String applicationId = env.getOrDefault("GPULEDGER_APPLICATION_ID", CostEngineConfig.DEFAULT_APPLICATION_ID);
        String stateDir = env.get("GPULEDGER_STATE_DIR");
        String instanceId = env.get("GPULEDGER_INSTANCE_ID");
        String standbyReplicas = env.get("GPULEDGER_STANDBY_REPLICAS");
        String threads = env.get("GPULEDGER_STREAM_THREADS");
        String commitInterval = env.get("GPULEDGER_COMMIT_INTERVAL_SECONDS");
        String grace = env.get("GPULEDGER_GRACE_SECONDS");
        String priceMaxAge = env.get("GPULEDGER_PRICE_MAX_AGE_SECONDS");
        String maxAhead = env.get("GPULEDGER_MAX_AHEAD_SECONDS");
        String ratesFile = env.get("GPULEDGER_RATES_FILE");
        String metricsAddress = env.get("GPULEDGER_METRICS_ADDRESS");
        String metricsPort = env.get("GPULEDGER_METRICS_PORT");
        String topicsWait = env.get("GPULEDGER_TOPICS_WAIT_SECONDS");
        String groupProtocol = env.get("GPULEDGER_GROUP_PROTOCOL");
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (option.equals("--help") || option.equals("-h")) {
                return builder().bootstrapServers(bootstrap).applicationId(applicationId).help(true).build();
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(option.startsWith("--") ? option + " needs a value"
                        : "unknown argument '" + option + "'");
            }
            String value = args[++i];
            switch (option) {
                case "--bootstrap-servers" -> bootstrap = value;
                case "--application-id" -> applicationId = value;
                case "--state-dir" -> stateDir = value;
                case "--instance-id" -> instanceId = value;
                case "--standby-replicas" -> standbyReplicas = value;
                case "--threads" -> threads = value;
                case "--commit-interval" -> commitInterval = value;
                case "--grace" -> grace = value;
                case "--price-max-age" -> priceMaxAge = value;
                case "--max-ahead" -> maxAhead = value;
                case "--rates-file" -> ratesFile = value;
                case "--metrics-address" -> metricsAddress = value;
                case "--metrics-port" -> metricsPort = value;
                case "--topics-wait" -> topicsWait = value;
                case "--group-protocol" -> groupProtocol = value;
                default -> throw new IllegalArgumentException("unknown option '" + option + "'");
            }
        }
        if (blank(bootstrap)) {
            throw new IllegalArgumentException("no Kafka to connect to: give --bootstrap-servers or set "
                    + "KAFKA_BOOTSTRAP_SERVERS");
        }
        if (blank(applicationId)) {
            throw new IllegalArgumentException("the application id must not be blank");
        }
        return builder().bootstrapServers(bootstrap).applicationId(applicationId)
                .stateDir(blank(stateDir) ? DEFAULT_STATE_DIR : Path.of(stateDir))
                .instanceId(blank(instanceId) ? Optional.empty() : Optional.of(instanceId))
                .standbyReplicas(blank(standbyReplicas) ? CostEngineConfig.DEFAULT_STANDBY_REPLICAS
                        : count("--standby-replicas", standbyReplicas))
                .streamThreads(blank(threads) ? 1 : positive("--threads", threads))
                .commitInterval(blank(commitInterval) ? CostEngineConfig.DEFAULT_COMMIT_INTERVAL
                        : seconds("--commit-interval", commitInterval, 1, MAX_COMMIT_INTERVAL))
                .grace(blank(grace) ? DEFAULT_GRACE : seconds("--grace", grace, 0, MAX_GRACE))
                .priceMaxAge(blank(priceMaxAge) ? DEFAULT_PRICE_MAX_AGE
                        : Duration.ofSeconds(positive("--price-max-age", priceMaxAge)))
                .maxAhead(blank(maxAhead) ? CostEngineConfig.DEFAULT_MAX_AHEAD
                        : seconds("--max-ahead", maxAhead, 1, ParseOrReject.MAX_AHEAD))
                .ratesFile(blank(ratesFile) ? Optional.empty() : Optional.of(Path.of(ratesFile)))
                .metricsAddress(blank(metricsAddress) ? DEFAULT_METRICS_ADDRESS : metricsAddress.strip())
                .metricsPort(blank(metricsPort) ? DEFAULT_METRICS_PORT : port("--metrics-port", metricsPort))
                .topicsWait(blank(topicsWait) ? DEFAULT_TOPICS_WAIT
                        : seconds("--topics-wait", topicsWait, 0, MAX_TOPICS_WAIT))
                .groupProtocol(blank(groupProtocol) ? DEFAULT_GROUP_PROTOCOL : protocol(groupProtocol)).build();
    }

    /** Whole seconds from {@code least} to {@code most}, the value of {@code option}. */
    private static Duration seconds(String option, String value, long least, Duration most) {
        try {
            long seconds = Long.parseLong(value.strip());
            if (seconds >= least && seconds <= most.toSeconds()) {
                return Duration.ofSeconds(seconds);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " takes whole seconds from " + least + " to " + most.toSeconds()
                + ", not '" + value + "'");
    }

    private static String protocol(String value) {
        if (!GROUP_PROTOCOLS.contains(value.strip())) {
            throw new IllegalArgumentException("--group-protocol takes " + String.join(" or ", GROUP_PROTOCOLS)
                    + ", not '" + value + "'");
        }
        return value.strip();
    }

    private static int port(String option, String value) {
        try {
            int port = Integer.parseInt(value.strip());
            if (port >= 0 && port <= 65_535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " takes a port from 0 (none) to 65535, not '" + value + "'");
    }

    private static int count(String option, String value) {
        try {
            int number = Integer.parseInt(value.strip());
            if (number >= 0) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " takes a whole number from 0, not '" + value + "'");
    }

    private static int positive(String option, String value) {
        try {
            int number = Integer.parseInt(value.strip());
            if (number > 0) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " takes a positive whole number, not '" + value + "'");
    }

    /** The engine's settings: the defaults of {@link CostEngineConfig}, with what these options set. */
    public CostEngineConfig config() {
        CostEngineConfig defaults = CostEngineConfig.defaults(bootstrapServers, stateDir);
        CurrencyRates rates = ratesFile.map(file -> CurrencyRates.load(file, defaults.rates().reporting()))
                .orElse(defaults.rates());
        return defaults.toBuilder().applicationId(applicationId).streamThreads(streamThreads)
                .commitInterval(commitInterval).grace(grace).rates(rates).priceMaxAge(priceMaxAge).maxAhead(maxAhead)
                .build();
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }

    static Builder builder() {
        return new Builder();
    }

    /** Fluent construction; what is not set is the engine's default, and no help asked for. */
    static final class Builder {
        private String bootstrapServers;
        private String applicationId = CostEngineConfig.DEFAULT_APPLICATION_ID;
        private Path stateDir = DEFAULT_STATE_DIR;
        private Optional<String> instanceId = Optional.empty();
        private int standbyReplicas = CostEngineConfig.DEFAULT_STANDBY_REPLICAS;
        private int streamThreads = 1;
        private Duration commitInterval = CostEngineConfig.DEFAULT_COMMIT_INTERVAL;
        private Duration grace = DEFAULT_GRACE;
        private Duration priceMaxAge = DEFAULT_PRICE_MAX_AGE;
        private Duration maxAhead = CostEngineConfig.DEFAULT_MAX_AHEAD;
        private Optional<Path> ratesFile = Optional.empty();
        private String metricsAddress = DEFAULT_METRICS_ADDRESS;
        private int metricsPort = DEFAULT_METRICS_PORT;
        private Duration topicsWait = DEFAULT_TOPICS_WAIT;
        private String groupProtocol = DEFAULT_GROUP_PROTOCOL;
        private boolean help;

        private Builder() {
        }

        Builder bootstrapServers(String value) { bootstrapServers = value; return this; }
        Builder applicationId(String value) { applicationId = value; return this; }
        Builder stateDir(Path value) { stateDir = value; return this; }
        Builder instanceId(Optional<String> value) { instanceId = value; return this; }
        Builder standbyReplicas(int value) { standbyReplicas = value; return this; }
        Builder streamThreads(int value) { streamThreads = value; return this; }
        Builder commitInterval(Duration value) { commitInterval = value; return this; }
        Builder grace(Duration value) { grace = value; return this; }
        Builder priceMaxAge(Duration value) { priceMaxAge = value; return this; }
        Builder maxAhead(Duration value) { maxAhead = value; return this; }
        Builder ratesFile(Optional<Path> value) { ratesFile = value; return this; }
        Builder metricsAddress(String value) { metricsAddress = value; return this; }
        Builder metricsPort(int value) { metricsPort = value; return this; }
        Builder topicsWait(Duration value) { topicsWait = value; return this; }
        Builder groupProtocol(String value) { groupProtocol = value; return this; }
        Builder help(boolean value) { help = value; return this; }

        CostEngineOptions build() {
            return new CostEngineOptions(bootstrapServers, applicationId, stateDir, instanceId, standbyReplicas,
                    streamThreads, commitInterval, grace, priceMaxAge, maxAhead, ratesFile, metricsAddress, metricsPort,
                    topicsWait, groupProtocol, help);
        }
    }
}
