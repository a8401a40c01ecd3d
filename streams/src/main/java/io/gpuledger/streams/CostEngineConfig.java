package io.gpuledger.streams;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.streams.cost.CostSettings;
import io.gpuledger.streams.deadletter.DeadLetterHandler;
import io.gpuledger.streams.state.LiveStoreBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;

/**
 * Settings of the cost engine. Every input is read as bytes and validated by the topology itself
 * (refused records go to dead-letter topics), so the deserialization handler only ever sees
 * broken keys. A record that fails a processor or its output unexpectedly is dead-lettered by
 * the processing and production exception handlers, given a
 * {@link io.gpuledger.streams.deadletter.DeadLetterSink} ({@link CostEngine} gives them one).
 *
 * @param commitInterval the longest time between two commits. The engine commits as soon as it
 *                       has sent something readers wait for, so this bounds only its commits while
 *                       it works off a backlog (see {@code BacklogCommits}); its transactions get
 *                       three times it, at least 10 s, before the broker aborts them.
 * @param rates          exchange rates into the reporting currency of every published amount
 * @param priceMaxAge    how long after its last confirmation a price is taken as current; time
 *                       charged at an older one is counted as stale-priced
 * @param maxAhead       how far ahead of the engine's wall clock a sample or work report may be
 *                       stamped before it is refused as from the future (its node's clock runs ahead)
 */
public record CostEngineConfig(
        String bootstrapServers,
        String applicationId,
        Path stateDir,
        int streamThreads,
        Duration commitInterval,
        Duration grace,
        CurrencyRates rates,
        Duration priceMaxAge,
        Duration maxAhead) {

    public static final String DEFAULT_APPLICATION_ID = "gpu-ledger-cost-engine";

    public static final String DEFAULT_REPORTING_CURRENCY = "USD";
    /** The longest time between two commits, unless told otherwise; see {@code commitInterval}. */
    public static final Duration DEFAULT_COMMIT_INTERVAL = Duration.ofSeconds(8);
    /** How long after a window ends late samples still count, unless told otherwise. */
    public static final Duration DEFAULT_GRACE = Duration.ofMinutes(2);
    /** How long after its feed last confirmed it a price is taken as current, unless told otherwise. */
    public static final Duration DEFAULT_PRICE_MAX_AGE = PriceQuote.DEFAULT_MAX_AGE;
    /** How far ahead of the wall clock a sample or work report may be stamped, unless told otherwise. */
    public static final Duration DEFAULT_MAX_AHEAD = CostSettings.DEFAULT_MAX_AHEAD;

    /**
     * Warm copies of each task's state other instances keep, unless told otherwise; see
     * docs/operations.md for the figures it was chosen from.
     */
    public static final int DEFAULT_STANDBY_REPLICAS = 0;

    /**
     * The group consumer's setting for whether it leaves its group when it closes. Kafka Streams
     * turns it off, and its close ({@code CloseOptions.leaveGroup}) removes only static members:
     * a dynamic member that stopped cleanly would hold its partitions until its session timed out.
     */
    static final String LEAVE_GROUP_ON_CLOSE = "internal.leave.group.on.close";

    /** Kafka Streams' own transaction timeout under exactly-once: the least the engine's are given. */
    static final Duration MIN_TRANSACTION_TIMEOUT = Duration.ofSeconds(10);

    public static CostEngineConfig defaults(String bootstrapServers, Path stateDir) {
        return builder().bootstrapServers(bootstrapServers).applicationId(DEFAULT_APPLICATION_ID).stateDir(stateDir)
                .streamThreads(1).commitInterval(DEFAULT_COMMIT_INTERVAL).grace(DEFAULT_GRACE)
                .rates(CurrencyRates.shipped(DEFAULT_REPORTING_CURRENCY)).priceMaxAge(DEFAULT_PRICE_MAX_AGE)
                .maxAhead(DEFAULT_MAX_AHEAD).build();
    }

    public CostEngineConfig withApplicationId(String id) {
        return toBuilder().applicationId(id).build();
    }

    public CostEngineConfig withCommitInterval(Duration interval) {
        return toBuilder().commitInterval(interval).build();
    }

    public CostEngineConfig withGrace(Duration newGrace) {
        return toBuilder().grace(newGrace).build();
    }

    public CostEngineConfig withRates(CurrencyRates newRates) {
        return toBuilder().rates(newRates).build();
    }

    public CostEngineConfig withPriceMaxAge(Duration maxAge) {
        return toBuilder().priceMaxAge(maxAge).build();
    }

    public CostEngineConfig withMaxAhead(Duration allowance) {
        return toBuilder().maxAhead(allowance).build();
    }

    /** What the cost topology is built with. */
    public CostSettings costSettings() {
        return CostSettings.of(grace, rates).withPriceMaxAge(priceMaxAge).withMaxAhead(maxAhead)
                .committingEvery(commitInterval);
    }

    /**
     * How long a transaction of the engine may stay open before the broker aborts it: three
     * commit intervals, so that a commit slowed by a collection or a busy broker is not taken for
     * a dead producer. Readers of the engine's topics (read-committed) wait at most this long
     * behind the transaction of an instance that died and was not restarted; one restarted
     * with its state aborts it at once.
     */
    public Duration transactionTimeout() {
        return transactionTimeout(commitInterval);
    }

    /** The transaction timeout of an engine committing at least every {@code commitInterval}. */
    public static Duration transactionTimeout(Duration commitInterval) {
        Duration threeCommits = commitInterval.multipliedBy(3);
        return threeCommits.compareTo(MIN_TRANSACTION_TIMEOUT) > 0 ? threeCommits : MIN_TRANSACTION_TIMEOUT;
    }

    public Properties toProperties() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaClientSettings.applyTo(props);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, streamThreads);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitInterval.toMillis());
        props.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG),
                (int) transactionTimeout().toMillis());
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        // A record that fails a processor or its output is dead-lettered, not replayed by a new thread forever.
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterHandler.class);
        props.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterHandler.class);
        props.put(StreamsConfig.producerPrefix("compression.type"), "lz4");
        props.put(StreamsConfig.producerPrefix("batch.size"), 131_072);
        // Under transactions v2 a transaction's first batch to a partition waits while the
        // previous transaction's markers are written; a second request in flight behind it
        // would reach the broker first with a later sequence and be refused (and logged as an
        // ERROR) as out of order. One request at a time keeps the batches in order.
        props.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION), 1);
        // One at a time, a request may carry more: a minute's closing is some megabytes to send
        // before its commit, which requests of Kafka's 1 MiB would take in turns.
        props.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), 8 * 1024 * 1024);
        // A task reads telemetry with notices and work reports, whose partitions are mostly empty:
        // with idling on, Kafka Streams asks after their lag before every telemetry record.
        props.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
        // A clean stop hands the instance's partitions over at once, a dynamic member's too
        // (docs/operations.md, "Engine instances"); a static member is removed by CostEngine.close.
        props.put(StreamsConfig.mainConsumerPrefix(LEAVE_GROUP_ON_CLOSE), true);
        if (LiveStoreBuilder.plain()) {
            props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, LiveStoreBuilder.PLAIN_CACHE_BYTES);
        }
        return props;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().bootstrapServers(bootstrapServers).applicationId(applicationId).stateDir(stateDir)
                .streamThreads(streamThreads).commitInterval(commitInterval).grace(grace).rates(rates)
                .priceMaxAge(priceMaxAge).maxAhead(maxAhead);
    }

    /** Fluent construction; nothing is defaulted here, {@link #defaults} says what the defaults are. */
    public static final class Builder {
        private String bootstrapServers;
        private String applicationId;
        private Path stateDir;
        private int streamThreads;
        private Duration commitInterval;
        private Duration grace;
        private CurrencyRates rates;
        private Duration priceMaxAge;
        private Duration maxAhead;

        private Builder() {
        }

        public Builder bootstrapServers(String value) { bootstrapServers = value; return this; }
        public Builder applicationId(String value) { applicationId = value; return this; }
        public Builder stateDir(Path value) { stateDir = value; return this; }
        public Builder streamThreads(int value) { streamThreads = value; return this; }
        public Builder commitInterval(Duration value) { commitInterval = value; return this; }
        public Builder grace(Duration value) { grace = value; return this; }
        public Builder rates(CurrencyRates value) { rates = value; return this; }
        public Builder priceMaxAge(Duration value) { priceMaxAge = value; return this; }
        public Builder maxAhead(Duration value) { maxAhead = value; return this; }

        public CostEngineConfig build() {
            return new CostEngineConfig(bootstrapServers, applicationId, stateDir, streamThreads, commitInterval,
                    grace, rates, priceMaxAge, maxAhead);
        }
    }
}
