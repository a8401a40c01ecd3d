package io.gpuledger.ingest.price.skypilot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.ingest.price.Fetcher;
import io.gpuledger.ingest.price.Location;
import io.gpuledger.ingest.price.PricePayloads;
import io.gpuledger.ingest.price.PriceReading;
import io.gpuledger.ingest.price.PriceSourceException;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class SkyPilotCatalogTest {

    private static final Instant READ_AT = Instant.parse("2026-03-01T12:00:00Z");
    private static final String HEADER =
            "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
                    + "AvailabilityZone\n";

    @Test
    void shouldQuoteOnDemandAndSpotFromEachLineAndARegionsSpotAtItsDearestZone() {
        // Given the published excerpt of SkyPilot's AWS catalog
        String csv = PricePayloads.text("skypilot-aws-vms.csv");

        // When it is read
        PriceReading reading = SkyPilotCatalog.parse(csv, "vms.csv", "aws", READ_AT);

        // Then each GPU type and region has one on-demand and one spot quote, dated with the reading
        assertThat(reading.dating()).isEqualTo(PriceReading.Dating.AT_READING);
        assertThat(reading.quotes()).containsExactly(
                quote("us-east-1", "g4dn.xlarge", Lifecycle.ON_DEMAND, "T4", 1, 0.526),
                quote("us-east-1", "g4dn.xlarge", Lifecycle.SPOT, "T4", 1, 0.201),
                quote("us-west-2", "g4dn.xlarge", Lifecycle.ON_DEMAND, "T4", 1, 0.526),
                quote("us-west-2", "g4dn.xlarge", Lifecycle.SPOT, "T4", 1, 0.1924),
                quote("us-east-1", "g5.12xlarge", Lifecycle.ON_DEMAND, "A10G", 4, 5.672),
                quote("us-east-1", "g5.12xlarge", Lifecycle.SPOT, "A10G", 4, 2.7324),
                quote("us-west-2", "g6.2xlarge", Lifecycle.ON_DEMAND, "L4", 1, 0.9776),
                quote("us-west-2", "g6.2xlarge", Lifecycle.SPOT, "L4", 1, 0.4939));
        assertThat(reading.rejected()).isEmpty();
        assertThat(reading.skipped()).extracting(PriceReading.Skipped::where, PriceReading.Skipped::reason)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("vms.csv line 2",
                                "no accelerator: a CPU-only instance type"),
                        org.assertj.core.groups.Tuple.tuple("vms.csv line 3",
                                "no accelerator: a CPU-only instance type"),
                        org.assertj.core.groups.Tuple.tuple("vms.csv line 4",
                                "no accelerator: a CPU-only instance type"));
    }

    @Test
    void shouldTreatAnEmptySpotPriceAsNoSpotPrice() {
        // Given the published g6.2xlarge line of a zone without a spot price, alone
        String line = PricePayloads.text("skypilot-aws-vms.csv").lines()
                .filter(l -> l.startsWith("g6.2xlarge") && l.endsWith("usw2-az2")).findFirst().orElseThrow();

        // When it is read
        PriceReading reading = SkyPilotCatalog.parse(HEADER + line, "one.csv", "aws", READ_AT);

        // Then it gives an on-demand price and no spot price, not a spot price of zero
        assertThat(reading.quotes()).extracting(PriceQuote::lifecycle).containsExactly(Lifecycle.ON_DEMAND);
    }

    @Test
    void shouldSkipASharedGpuAndRejectMalformedLinesByLineAndField() {
        // Given (written for this test) a fractional GPU, three broken lines and a good one
        String csv = HEADER
                + "Standard_NV6ads_A10_v5,A10,0.167,6.0,55.0,,0.454,0.0908,eastus,\n"
                + "g5.xlarge,A10G,1.0,4.0,16.0,,about one,0.3,us-east-1,use1-az1\n"
                + "g5.xlarge,A10G,one,4.0,16.0,,1.006,0.3,us-east-1,use1-az1\n"
                + "g5.xlarge,A10G,1.0,4.0,16.0,,1.006,0.3,,use1-az1\n"
                + "g5.xlarge,A10G,1.0,4.0,16.0,,1.006,,us-east-1,use1-az1\n";

        // When it is read
        PriceReading reading = SkyPilotCatalog.parse(csv, "mixed.csv", "aws", READ_AT);

        // Then only the good line is quoted; the others are named with the reason
        assertThat(reading.quotes())
                .containsExactly(quote("us-east-1", "g5.xlarge", Lifecycle.ON_DEMAND, "A10G", 1, 1.006));
        assertThat(reading.skipped()).extracting(PriceReading.Skipped::reason)
                .containsExactly("AcceleratorCount 0.167: a share of one GPU has no per-GPU price");
        assertThat(reading.rejected()).containsExactly(
                "mixed.csv line 3: Price: is not a number: 'about one'",
                "mixed.csv line 4: AcceleratorCount: is not a number: 'one'",
                "mixed.csv line 5: Region: is required");
    }

    @Test
    void shouldDateEveryQuoteWithTheTimeTheCatalogWasRead() {
        // Given a catalog file and a clock
        Clock clock = Clock.fixed(READ_AT, ZoneOffset.UTC);
        SkyPilotCatalog source = new SkyPilotCatalog("aws",
                new Location(PricePayloads.path("skypilot-aws-vms.csv").toString()),
                Fetcher.standard(), clock);

        // When it is read, Then every quote holds from then on
        assertThat(source.read().quotes()).isNotEmpty().allSatisfy(q -> assertThat(q.validFrom()).isEqualTo(READ_AT));
    }

    @Test
    void shouldRefuseAFileWithoutTheCatalogsColumns() {
        assertThatThrownBy(() -> SkyPilotCatalog.parse("provider,region\naws,us-east-1\n", "other.csv", "aws", READ_AT))
                .isInstanceOf(PriceSourceException.class)
                .hasMessage("other.csv: header lacks column(s) [InstanceType, AcceleratorName, AcceleratorCount, Price,"
                        + " "
                        + "SpotPrice]; expected a SkyPilot catalog (vms.csv)");
    }

    private static PriceQuote quote(String region, String type, Lifecycle lifecycle, String gpu, int gpus,
            double price) {
        return new PriceQuote("aws", region, type, lifecycle, gpu, gpus, price, "USD", READ_AT, SkyPilotCatalog.SOURCE);
    }
}
