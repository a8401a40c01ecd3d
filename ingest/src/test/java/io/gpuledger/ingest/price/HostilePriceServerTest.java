package io.gpuledger.ingest.price;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The price feed reading servers that misbehave on 127.0.0.1: each read is refused with a clear
 * reason, counted, and the feed goes on with the prices it published before.
 */
class HostilePriceServerTest {

    private static final Instant NOW = Instant.parse("2026-04-01T00:00:00Z");
    private static final String CATALOG = "/catalog.csv";
    private static final String CSV = """
            provider,region,instance_type,gpu_model,gpu_count,lifecycle,price_per_hour,currency,valid_from
            aws,us-east-1,g5.xlarge,A10G,1,on-demand,1.006,USD,2026-01-01T00:00:00Z
            """;

    @Test
    void shouldCutOffABodyTrickledPastTheDeadlineAndKeepTheLastPrices() {
        // Given a feed whose reads have 1 s in all, and a server that, after one good answer,
        // sends a body one byte every 100 ms for 8 s (80 bytes): the headers come at once
        try (PriceApiStandIn server = new PriceApiStandIn()) {
            Fetcher fetcher = new Fetcher(HttpClient.newHttpClient(), Duration.ofSeconds(1));
            Feed feed = new Feed(server, fetcher);
            feed.roundWith(CSV);

            // When the next round meets the trickle
            server.handle(CATALOG, trickle(80, 100));
            PriceWatch.Round round = feed.round();

            // Then the read is refused for its deadline, counted, and the good price stays the only one published
            assertThat(round.failures()).containsExactly(
                    server.base() + CATALOG + ": not read within 1000 ms, body included");
            assertThat(fetcher.refused()).containsEntry(Fetcher.Refusal.DEADLINE, 1L);

            feed.assertOnlyTheFirstPricePublished();
        }
    }

    @Test
    void shouldRefuseABodyLargerThanTheCapAndKeepTheLastPrices() {
        // Given a feed with the default cap, 32 MiB = 32 * 1024 * 1024 = 33,554,432 bytes, and a server
        // that, after one good answer, streams a body of that plus one byte without saying its length
        try (PriceApiStandIn server = new PriceApiStandIn()) {
            Fetcher fetcher = new Fetcher(HttpClient.newHttpClient(), Duration.ofSeconds(60));
            Feed feed = new Feed(server, fetcher);
            feed.roundWith(CSV);

            // When the next round meets the flood
            server.handle(CATALOG, flood(33_554_432 + 1));
            PriceWatch.Round round = feed.round();

            // Then it is refused as too large, counted, and the good price stays the only one published
            assertThat(round.failures()).containsExactly(server.base() + CATALOG
                    + ": body larger than the cap of 33554432 bytes (more than 33554432 bytes sent)");
            assertThat(fetcher.refused()).containsEntry(Fetcher.Refusal.TOO_LARGE, 1L);

            feed.assertOnlyTheFirstPricePublished();
        }
    }

    @Test
    void shouldRefuseABodyDeclaredLargerThanTheCapBeforeReadingIt() {
        // Given a server that announces a body one byte over the default cap (32 MiB = 33,554,432 bytes)
        try (PriceApiStandIn server = new PriceApiStandIn()) {
            server.handle(CATALOG, exchange -> {
                exchange.sendResponseHeaders(200, 33_554_432 + 1);
                exchange.close();
            });
            Fetcher fetcher = Fetcher.standard();

            // When it is read, Then it is refused on the length it declared
            assertThatThrownBy(() -> fetcher.get(URI.create(server.base() + CATALOG)))
                    .isInstanceOf(PriceSourceException.class)
                    .hasMessage(server.base() + CATALOG + ": body larger than the cap of 33554432 bytes "
                            + "(33554433 bytes declared)");
            assertThat(fetcher.refused()).containsEntry(Fetcher.Refusal.TOO_LARGE, 1L);
        }
    }

    @Test
    void shouldRefuseARedirectToAnotherHostAndKeepTheLastPrices() {
        // Given a feed as the command builds it, and a server that, after one good answer, redirects
        // to a catalog on another host (localhost is another name than 127.0.0.1 to a client)
        try (PriceApiStandIn server = new PriceApiStandIn(); PriceApiStandIn elsewhere = new PriceApiStandIn()) {
            elsewhere.answer(CATALOG, CSV.replace("1.006", "9.99"));
            Fetcher fetcher = Fetcher.standard();
            Feed feed = new Feed(server, fetcher);
            feed.roundWith(CSV);
            String foreign = elsewhere.base().replace("127.0.0.1", "localhost") + CATALOG;

            // When the next round is redirected there
            server.handle(CATALOG, redirect(foreign));
            PriceWatch.Round round = feed.round();

            // Then the redirect is refused, counted, and the other host never asked
            assertThat(round.failures()).containsExactly(server.base() + CATALOG + ": redirect to " + foreign
                    + " refused: not the same host as 127.0.0.1");
            assertThat(fetcher.refused()).containsEntry(Fetcher.Refusal.REDIRECT, 1L);

            assertThat(elsewhere.requests()).isEmpty();
            feed.assertOnlyTheFirstPricePublished();
        }
    }

    @Test
    void shouldFollowARedirectOnTheSameHost() {
        // Given a catalog that moved on the same server
        try (PriceApiStandIn server = new PriceApiStandIn()) {
            server.answer("/prices.csv", CSV).handle(CATALOG, redirect(server.base() + "/prices.csv"));

            // When it is read, Then the moved catalog is the answer
            assertThat(Fetcher.standard().get(URI.create(server.base() + CATALOG))).isEqualTo(CSV);
            assertThat(server.requests()).containsExactly(CATALOG, "/prices.csv");
        }
    }

    @Test
    void shouldRefuseALinkFromHttpsDownToHttpOrToAnotherHost() {
        Fetcher fetcher = Fetcher.standard();
        URI page = URI.create("https://prices.azure.com/api/retail/prices");

        // Given links out of an https page, When they are judged, Then only the https one on its host passes
        fetcher.requireSameHost(page, URI.create("https://PRICES.azure.com/api/retail/prices?$skip=100"),
                Fetcher.Refusal.LINK);
        assertThatThrownBy(() -> fetcher.requireSameHost(page,
                URI.create("http://prices.azure.com/api/retail/prices?$skip=100"), Fetcher.Refusal.LINK))
                .isInstanceOf(PriceSourceException.class)
                .hasMessage(page + ": link to http://prices.azure.com/api/retail/prices?$skip=100 refused: "
                        + "https may not become http");
        assertThatThrownBy(() -> fetcher.requireSameHost(page, URI.create("https://prices.example.net/x"),
                Fetcher.Refusal.LINK))
                .hasMessage(page + ": link to https://prices.example.net/x refused: not the same host as "
                        + "prices.azure.com");
        assertThat(fetcher.refused()).containsEntry(Fetcher.Refusal.LINK, 2L);
    }

    /** Sends {@code bytes} bytes of a CSV comment line, one every {@code everyMillis}. */
    static HttpHandler trickle(int bytes, long everyMillis) {
        return exchange -> {
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                for (int i = 0; i < bytes; i++) {
                    out.write('#');
                    out.flush();
                    // The slowness is the hostile server's point, not a wait for anything
                    Thread.sleep(everyMillis);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                // The reader hung up, as it should.
            }
        };
    }

    /** Streams {@code bytes} bytes, chunked, without announcing the length. */
    static HttpHandler flood(long bytes) {
        return exchange -> {
            exchange.sendResponseHeaders(200, 0);
            byte[] block = new byte[64 * 1024];
            Arrays.fill(block, (byte) '#');
            try (OutputStream out = exchange.getResponseBody()) {
                for (long sent = 0; sent < bytes; sent += block.length) {
                    out.write(block, 0, (int) Math.min(block.length, bytes - sent));
                }
            } catch (IOException e) {
                // The reader hung up, as it should.
            }
        };
    }

    static HttpHandler redirect(String to) {
        return (HttpExchange exchange) -> {
            exchange.getResponseHeaders().add("Location", to);
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
        };
    }

    /** A price watch reading one catalog from the stand-in, publishing to a mock producer. */
    private static final class Feed implements PriceWatch.Listener {

        private final PriceApiStandIn server;
        private final MockProducer<String, PriceQuote> producer = new MockProducer<>(true, null,
                new StringSerializer(), Topics.PRICES.valueSerde().serializer());
        private final PublishedPrices known = PublishedPrices.empty();
        private final PriceWatch watch;
        private final List<PriceWatch.Round> rounds = new CopyOnWriteArrayList<>();

        Feed(PriceApiStandIn server, Fetcher fetcher) {
            this.server = server;
            this.watch = new PriceWatch(List.of(new CatalogSource(new Location(server.base() + CATALOG), fetcher)),
                    new PriceFeed(producer), known, this, Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofMinutes(10));
        }

        void roundWith(String csv) {
            server.answer(CATALOG, csv);
            PriceWatch.Round round = round();
            assertThat(round.failures()).isEmpty();
            assertThat(producer.history()).hasSize(1);
        }

        PriceWatch.Round round() {
            watch.runOnce();
            return rounds.get(rounds.size() - 1);
        }

        void assertOnlyTheFirstPricePublished() {
            assertThat(producer.history()).extracting(record -> record.value().pricePerHour()).containsExactly(1.006);
            assertThat(known.size()).isEqualTo(1);
        }

        @Override
        public void read(PriceWatch.Round round) {
            rounds.add(round);
        }

        @Override
        public void published(PriceFeed.Outcome outcome) {
        }

        @Override
        public void failed(RuntimeException problem) {
            throw new AssertionError("no round should fail after reading", problem);
        }
    }
}
