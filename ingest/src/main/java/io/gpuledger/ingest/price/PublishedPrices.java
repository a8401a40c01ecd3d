package io.gpuledger.ingest.price;

import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Json;
import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The price versions {@link Topics#PRICES} already holds, and the judgement of which quotes are
 * news to it. The topic is compacted and keyed by version, so reading it from the beginning to
 * its end gives the latest copy of every version; a feed that starts by reading it republishes
 * nothing the topic already says, across restarts.
 *
 * <p>A quote is news when:
 * <ul>
 *   <li>its source dates it ({@link PriceReading.Dating#FROM_SOURCE}) and the topic does not hold
 *       exactly it under its key: a new {@code validFrom} is a new version, a changed price under a
 *       known one a correction;</li>
 *   <li>it is dated with the time it was read ({@link PriceReading.Dating#AT_READING}) and the version
 *       of its offer in force at that time has other terms (price, currency, GPUs): an unchanged
 *       price read again is the same price, not a new version.</li>
 * </ul>
 * A quote that is news is published as observed when it was read. The version in force of each
 * offer read, news or not, is <em>confirmed</em> once its last confirmation is old enough: it is
 * published again, unchanged under its key, observed when it was read again, so that readers can
 * tell an unchanged price from a feed that stopped (see {@link PriceQuote#observedAt()}).
 */
public final class PublishedPrices {

    /** Version keys sort by offer, then by time: the version in force at t is the floor of t's key. */
    private final NavigableMap<String, PriceQuote> byKey;
    private final int unreadable;

    private PublishedPrices(NavigableMap<String, PriceQuote> byKey, int unreadable) {
        this.byKey = byKey;
        this.unreadable = unreadable;
    }

    public static PublishedPrices empty() {
        return new PublishedPrices(new TreeMap<>(), 0);
    }

    /**
     * Reads the price topic from its beginning to the end it had when reading started.
     *
     * @throws IllegalStateException when the end is not reached within {@code timeout}
     */
    public static PublishedPrices read(String bootstrapServers, Duration timeout) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaClientSettings.applyTo(props);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "gpu-ledger-prices-reader");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
            return read(consumer, timeout);
        }
    }

    static PublishedPrices read(KafkaConsumer<String, byte[]> consumer, Duration timeout) {
        NavigableMap<String, PriceQuote> byKey = new TreeMap<>();
        int unreadable = 0;
        List<PartitionInfo> infos = consumer.partitionsFor(Topics.PRICES.name(), timeout);
        if (infos == null || infos.isEmpty()) {
            return new PublishedPrices(byKey, 0);
        }
        List<TopicPartition> partitions = infos.stream().map(p -> new TopicPartition(p.topic(), p.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!reached(consumer, ends)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("could not read " + Topics.PRICES.name() + " to its end within "
                        + timeout);
            }
            for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                if (record.value() == null) {
                    byKey.remove(record.key());
                    continue;
                }
                try {
                    PriceQuote quote = Json.read(record.value(), PriceQuote.class);
                    byKey.put(quote.key(), quote);
                } catch (InvalidRecordException e) {
                    // Not a version anyone can use; a valid quote under its key will replace it.
                    unreadable++;
                }
            }
        }
        return new PublishedPrices(byKey, unreadable);
    }

    private static boolean reached(KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> ends) {
        return ends.entrySet().stream().allMatch(end -> consumer.position(end.getKey()) >= end.getValue());
    }

    /**
     * What to publish of readings made at {@code now}: the quotes that are news to the topic, in
     * order, each once, and the versions in force of the offers read whose last confirmation is
     * {@code confirmEvery} old or older. Changes nothing here.
     */
    public News news(Collection<PriceReading> readings, Instant now, Duration confirmEvery) {
        PublishedPrices trial = new PublishedPrices(new TreeMap<>(byKey), unreadable);
        List<PriceQuote> versions = new ArrayList<>();
        Set<Offer> read = new LinkedHashSet<>();
        for (PriceReading reading : readings) {
            for (PriceQuote quote : reading.quotes()) {
                read.add(quote.offer());
                if (trial.isNews(quote, reading.dating())) {
                    PriceQuote observed = quote.readAt(now);
                    versions.add(observed);
                    trial.byKey.put(observed.key(), observed);
                }
            }
        }
        List<PriceQuote> confirmations = new ArrayList<>();
        for (Offer offer : read) {
            trial.inForce(offer, now)
                    .filter(current -> !current.observedAt().plus(confirmEvery).isAfter(now))
                    .ifPresent(current -> confirmations.add(current.confirmedAt(now)));
        }
        return new News(versions, confirmations);
    }

    /**
     * What one round publishes: new versions and corrections, then confirmations of versions the
     * topic already holds.
     */
    public record News(List<PriceQuote> versions, List<PriceQuote> confirmations) {

        public News {
            versions = List.copyOf(versions);
            confirmations = List.copyOf(confirmations);
        }

        public List<PriceQuote> all() {
            List<PriceQuote> all = new ArrayList<>(versions);
            all.addAll(confirmations);
            return all;
        }
    }

    /** Takes note of quotes the topic has acknowledged. */
    public void record(Collection<PriceQuote> published) {
        published.forEach(quote -> byKey.put(quote.key(), quote));
    }

    /** The version of an offer in force at a time: the latest one that starts at or before it. */
    public Optional<PriceQuote> inForce(Offer offer, Instant at) {
        Map.Entry<String, PriceQuote> floor = byKey.floorEntry(PriceQuote.versionKey(offer, at));
        if (floor == null || !floor.getKey().startsWith(PriceQuote.firstVersionKey(offer))) {
            return Optional.empty();
        }
        return Optional.of(floor.getValue());
    }

    public int size() {
        return byKey.size();
    }

    /** Records of the topic that were not valid quotes when it was read. */
    public int unreadable() {
        return unreadable;
    }

    private boolean isNews(PriceQuote quote, PriceReading.Dating dating) {
        if (dating == PriceReading.Dating.FROM_SOURCE) {
            return !quote.sameVersionAs(byKey.get(quote.key()));
        }
        return feedsVersionInForce(quote.offer(), quote.validFrom()).map(current -> !sameTerms(current, quote))
                .orElse(true);
    }

    /**
     * The version of an offer in force at a time that a feed published: a version learned from a bill
     * ({@link PriceQuote#BILL_RECONCILIATION}) is passed over, so that the feed's reading of the list price it
     * published before is no news, and the learned price stays in force until the list price itself changes.
     */
    private Optional<PriceQuote> feedsVersionInForce(Offer offer, Instant at) {
        String first = PriceQuote.firstVersionKey(offer);
        for (Map.Entry<String, PriceQuote> entry : byKey.headMap(PriceQuote.versionKey(offer, at), true)
                .descendingMap().entrySet()) {
            if (!entry.getKey().startsWith(first)) {
                return Optional.empty();
            }
            if (!entry.getValue().learnedFromBill()) {
                return Optional.of(entry.getValue());
            }
        }
        return Optional.empty();
    }

    private static boolean sameTerms(PriceQuote a, PriceQuote b) {
        return Double.compare(a.pricePerHour(), b.pricePerHour()) == 0 && a.gpuCount() == b.gpuCount()
                && Objects.equals(a.currency(), b.currency()) && Objects.equals(a.gpuModel(), b.gpuModel());
    }
}
