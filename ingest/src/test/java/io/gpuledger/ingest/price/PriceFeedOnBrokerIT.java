package io.gpuledger.ingest.price;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.ingest.price.skypilot.SkyPilotCatalog;
import io.gpuledger.model.Json;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import io.gpuledger.testing.BrokerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The price feed against a real broker, run twice as two separate processes would: the second
 * run reads the compacted topic first and publishes only what changed in between.
 */
class PriceFeedOnBrokerIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Instant APRIL = Instant.parse("2026-04-01T00:00:00Z");

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.withTopics(2);

    @TempDir
    Path dir;

    @Test
    void shouldPublishOnlyTheChangedQuotesWhenTheFeedRunsAgain() throws Exception {
        // Given a catalog of three versions, published by a first run of the feed
        Path catalog = dir.resolve("catalog.csv");
        Files.writeString(catalog, """
                provider,region,instance_type,gpu_model,gpu_count,lifecycle,price_per_hour,currency,valid_from
                lab,eu-1,g5.xlarge,A10G,1,on-demand,1.006,USD,2026-01-01T00:00:00Z
                lab,eu-1,g5.xlarge,A10G,1,spot,0.3018,USD,2026-01-01T00:00:00Z
                lab,eu-1,p4d.24xlarge,A100-40GB,8,on-demand,32.77,USD,2026-01-01T00:00:00Z
                """);
        PriceFeed.Outcome first = run(new CatalogSource(new Location(catalog.toString()), Fetcher.standard()), APRIL);

        // When the spot price is corrected, a new on-demand version is added, a row is broken, and the feed runs again
        Files.writeString(catalog, """
                provider,region,instance_type,gpu_model,gpu_count,lifecycle,price_per_hour,currency,valid_from
                lab,eu-1,g5.xlarge,A10G,1,on-demand,1.006,USD,2026-01-01T00:00:00Z
                lab,eu-1,g5.xlarge,A10G,1,spot,0.29,USD,2026-01-01T00:00:00Z
                lab,eu-1,p4d.24xlarge,A100-40GB,8,on-demand,32.77,USD,2026-01-01T00:00:00Z
                lab,eu-1,p4d.24xlarge,A100-40GB,8,on-demand,30.00,USD,2026-03-01T00:00:00Z
                lab,eu-1,p4d.24xlarge,A100-40GB,8,on-demand,free,USD,2026-04-01T00:00:00Z
                """);
        PriceFeed.Outcome second = run(new CatalogSource(new Location(catalog.toString()), Fetcher.standard()), APRIL);

        // Then the second run sent the two changes only, and the broken row was never published
        assertThat(first).isEqualTo(new PriceFeed.Outcome(3, 0, 0));
        assertThat(second).isEqualTo(new PriceFeed.Outcome(2, 0, 2));
        assertThat(publishedBy("lab")).extracting(q -> q.instanceType() + " " + q.lifecycle().wire() + " "
                + q.pricePerHour() + " " + q.validFrom()).containsExactlyInAnyOrder(
                "g5.xlarge on-demand 1.006 2026-01-01T00:00:00Z",
                "g5.xlarge spot 0.3018 2026-01-01T00:00:00Z",
                "p4d.24xlarge on-demand 32.77 2026-01-01T00:00:00Z",
                "g5.xlarge spot 0.29 2026-01-01T00:00:00Z",
                "p4d.24xlarge on-demand 30.0 2026-03-01T00:00:00Z");
    }

    @Test
    void shouldNotRepublishAnUndatedCatalogWhosePricesHaveNotChanged() throws Exception {
        // Given a SkyPilot catalog published in January
        Path vms = dir.resolve("vms.csv");
        String header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
                + "AvailabilityZone\n";
        Files.writeString(vms, header + "g4dn.xlarge,T4,1.0,4.0,16.0,,0.526,0.2,us-east-1,use1-az1\n");
        PriceFeed.Outcome january = run(skyPilot(vms, "2026-01-10T00:00:00Z"), Instant.parse("2026-01-10T00:00:00Z"));

        // When it is read again in February unchanged, and in March with a new spot price
        PriceFeed.Outcome february = run(skyPilot(vms, "2026-02-10T00:00:00Z"), Instant.parse("2026-02-10T00:00:00Z"));
        Files.writeString(vms, header + "g4dn.xlarge,T4,1.0,4.0,16.0,,0.526,0.18,us-east-1,use1-az1\n");
        PriceFeed.Outcome march = run(skyPilot(vms, "2026-03-10T00:00:00Z"), Instant.parse("2026-03-10T00:00:00Z"));

        // Then February published no version but confirmed both prices, and March published the spot
        // price, as a version from March, and confirmed the on-demand one
        assertThat(january).isEqualTo(new PriceFeed.Outcome(2, 0, 0));
        assertThat(february).isEqualTo(new PriceFeed.Outcome(0, 2, 2));
        assertThat(march).isEqualTo(new PriceFeed.Outcome(1, 1, 1));
        assertThat(publishedBy("skylab")).extracting(q -> q.lifecycle().wire() + " " + q.pricePerHour() + " "
                + q.validFrom() + " observed " + q.observedAt()).containsExactlyInAnyOrder(
                "on-demand 0.526 2026-01-10T00:00:00Z observed 2026-01-10T00:00:00Z",
                "spot 0.2 2026-01-10T00:00:00Z observed 2026-01-10T00:00:00Z",
                "on-demand 0.526 2026-01-10T00:00:00Z observed 2026-02-10T00:00:00Z",
                "spot 0.2 2026-01-10T00:00:00Z observed 2026-02-10T00:00:00Z",
                "spot 0.18 2026-03-10T00:00:00Z observed 2026-03-10T00:00:00Z",
                "on-demand 0.526 2026-01-10T00:00:00Z observed 2026-03-10T00:00:00Z");
    }

    /** One run of the feed as its own process at {@code now}: read the topic, read the source, publish the news. */
    private static PriceFeed.Outcome run(PriceSource source, Instant now) {
        PublishedPrices known = PublishedPrices.read(broker.bootstrap(), TIMEOUT);
        try (KafkaProducer<String, PriceQuote> producer =
                Producers.forTopic(Topics.PRICES, broker.bootstrap(), "price-feed-test")) {
            return new PriceWatch(List.of(source), new PriceFeed(producer), known, new Quiet(),
                    Clock.fixed(now, ZoneOffset.UTC), PriceQuote.CONFIRMATION_INTERVAL).runOnce();
        }
    }

    private static PriceSource skyPilot(Path vms, String readAt) {
        return new SkyPilotCatalog("skylab", new Location(vms.toString()), Fetcher.standard(),
                Clock.fixed(Instant.parse(readAt), ZoneOffset.UTC));
    }

    /** Every record of the price topic, as published, of one provider. */
    private static List<PriceQuote> publishedBy(String provider) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        List<PriceQuote> quotes = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.PRICES.name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            var ends = consumer.endOffsets(partitions);
            while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    PriceQuote quote = Json.read(record.value(), PriceQuote.class);
                    assertThat(record.key()).isEqualTo(quote.key());
                    if (quote.provider().equals(provider)) {
                        quotes.add(quote);
                    }
                }
            }
        }
        return quotes;
    }

    private static final class Quiet implements PriceWatch.Listener {

        @Override
        public void read(PriceWatch.Round round) {
            assertThat(round.failures()).isEmpty();
        }

        @Override
        public void published(PriceFeed.Outcome outcome) {
        }

        @Override
        public void failed(RuntimeException problem) {
            throw problem;
        }
    }
}
