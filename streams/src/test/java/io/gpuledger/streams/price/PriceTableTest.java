package io.gpuledger.streams.price;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.Test;

/** The price in force at a time, answered from the versions in the store and from its per-offer spans. */
class PriceTableTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final Offer SPOT = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT);

    private final TreeMap<String, byte[]> store = new TreeMap<>();
    private final PriceWrites writes = new PriceWrites();
    private final PriceTable table = new PriceTable(new TreeMapStore(store), Duration.ofMinutes(30), writes);

    @Test
    void shouldAnswerEachTimeWithTheVersionInForceThenAcrossTheNextVersionAlreadyStored() {
        write(10.0, T0);
        write(12.0, T0.plusSeconds(600));

        assertThat(table.inForce(SPOT, T0.minusSeconds(1))).isEmpty();
        assertThat(price(T0)).isEqualTo(10.0);
        assertThat(price(T0.plusSeconds(599))).isEqualTo(10.0);
        assertThat(price(T0.plusSeconds(600))).isEqualTo(12.0);
        assertThat(price(T0.plusSeconds(30))).isEqualTo(10.0);
        assertThat(price(T0.plusSeconds(86_400))).isEqualTo(12.0);
    }

    @Test
    void shouldSeeAVersionWrittenAfterASpanWasKept() {
        write(10.0, T0);
        assertThat(price(T0.plusSeconds(300))).isEqualTo(10.0);

        // When a version valid from inside the kept span is written
        write(15.0, T0.plusSeconds(120));

        // Then times after it get the new price, and times before it the old one
        assertThat(price(T0.plusSeconds(300))).isEqualTo(15.0);
        assertThat(price(T0.plusSeconds(60))).isEqualTo(10.0);
    }

    @Test
    void shouldTakeAQuoteAsStaleOnlyMoreThanTheMaxAgeAfterItsLatestConfirmation() {
        // Given a version valid from T0, confirmed ten minutes later
        PriceQuote version = write(10.0, T0);
        write(version.confirmedAt(T0.plusSeconds(600)));
        long freshUntil = T0.plusSeconds(600 + 1800).toEpochMilli();

        // Then it is current up to half an hour after that confirmation, and stale after it, in one span
        PriceTable.InForce span = table.inForceAt(SPOT, T0.toEpochMilli());
        assertThat(span.staleAt(freshUntil)).isFalse();
        assertThat(span.covers(freshUntil + 1)).isTrue();
        assertThat(span.staleAt(freshUntil + 1)).isTrue();

        // When it is confirmed again, the span kept is given up and the new one knows it
        write(version.confirmedAt(T0.plusSeconds(3600)));
        assertThat(span.covers(freshUntil + 1)).isFalse();
        PriceTable.InForce confirmed = table.inForceAt(SPOT, freshUntil + 1);
        assertThat(confirmed.quote().observedAt()).isEqualTo(T0.plusSeconds(3600));
        assertThat(confirmed.staleAt(freshUntil + 1)).isFalse();
    }

    @Test
    void shouldNeverCallTimeWithoutAPriceStale() {
        assertThat(table.inForceAt(SPOT, T0.toEpochMilli()).staleAt(Long.MAX_VALUE - 1)).isFalse();
    }

    @Test
    void shouldPassOverAnInvalidVersion() {
        write(10.0, T0);
        store.put(PriceQuote.versionKey(SPOT, T0.plusSeconds(60)), "{\"pricePerHour\":-1}".getBytes());
        writes.written();

        assertThat(price(T0.plusSeconds(90))).isEqualTo(10.0);
        assertThat(table.invalidVersionsSkipped()).isPositive();
    }

    @Test
    void shouldKeepASpanUntilAVersionIsWrittenToItsOwnStoreOnly() {
        write(10.0, T0);
        PriceTable.InForce span = table.inForceAt(SPOT, T0.plusSeconds(90).toEpochMilli());
        long later = T0.plusSeconds(120).toEpochMilli();

        // A version written to another engine's store, in the same JVM, leaves this table's span be
        new PriceWrites().written();
        assertThat(span.covers(later)).isTrue();

        // One written to its own store may change the answer: the span no longer holds
        writes.written();
        assertThat(span.covers(later)).isFalse();
    }

    private double price(Instant at) {
        return table.inForce(SPOT, at).orElseThrow().pricePerHour();
    }

    private PriceQuote write(double pricePerHour, Instant validFrom) {
        return write(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT, "A100-40GB", 8,
                pricePerHour, "USD", validFrom, "test"));
    }

    private PriceQuote write(PriceQuote quote) {
        store.put(quote.key(), Json.write(quote));
        writes.written();
        return quote;
    }

    /** The store's read side over a sorted map, as the global in-memory store behaves. */
    private record TreeMapStore(TreeMap<String, byte[]> map) implements ReadOnlyKeyValueStore<String, byte[]> {

        @Override
        public byte[] get(String key) {
            return map.get(key);
        }

        @Override
        public KeyValueIterator<String, byte[]> range(String from, String to) {
            return iterator(map.subMap(from, true, to, true));
        }

        @Override
        public KeyValueIterator<String, byte[]> reverseRange(String from, String to) {
            return iterator(map.subMap(from, true, to, true).descendingMap());
        }

        @Override
        public KeyValueIterator<String, byte[]> all() {
            return iterator(map);
        }

        @Override
        public long approximateNumEntries() {
            return map.size();
        }

        private static KeyValueIterator<String, byte[]> iterator(NavigableMap<String, byte[]> entries) {
            Iterator<Map.Entry<String, byte[]>> ordered = new ArrayList<>(entries.entrySet()).iterator();
            return new KeyValueIterator<>() {
                @Override
                public boolean hasNext() {
                    return ordered.hasNext();
                }

                @Override
                public KeyValue<String, byte[]> next() {
                    Map.Entry<String, byte[]> entry = ordered.next();
                    return KeyValue.pair(entry.getKey(), entry.getValue());
                }

                @Override
                public String peekNextKey() {
                    throw new UnsupportedOperationException();
                }

                @Override
                public void close() {
                    // nothing held
                }
            };
        }
    }
}
