package io.gpuledger.ingest.price;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PriceCatalogTest {

    @Test
    void shouldShipTheReferenceOffersOfTheDesignBrief() {
        PriceCatalog catalog = PriceCatalog.loadDefault();

        assertThat(catalog.errors()).isEmpty();
        assertThat(catalog.quotes())
                .filteredOn(q -> q.lifecycle() == Lifecycle.ON_DEMAND)
                .extracting(q -> q.provider() + " " + q.instanceType() + " " + q.pricePerHour() + " " + q.currency())
                .contains("tencent GN10Xp 28.5 CNY", "volcengine veGPU 19.8 CNY", "huaweicloud GCS.AI.8 25.2 CNY",
                        "aws p4d.24xlarge 32.77 USD", "aws p5.48xlarge 98.32 USD", "aws g4dn.xlarge 0.526 USD",
                        "aws g5.xlarge 1.006 USD");
        assertThat(catalog.quotes()).extracting(PriceQuote::lifecycle).contains(Lifecycle.values());
    }

    @Test
    void shouldPriceOneP4dGpuAtAnEighthOfTheInstance() {
        PriceQuote p4d = PriceCatalog.loadDefault().quotes().stream()
                .filter(q -> q.instanceType().equals("p4d.24xlarge") && q.lifecycle() == Lifecycle.ON_DEMAND)
                .findFirst().orElseThrow();

        assertThat(p4d.pricePerGpuHour()).isEqualTo(32.77 / 8);
    }

    @Test
    void shouldReportBadRowsByLineAndFieldAndKeepTheGoodOnes() throws Exception {
        String csv = """
                provider,region,instance_type,gpu_model,gpu_count,lifecycle,price_per_hour,currency,valid_from
                aws,us-east-1,g5.xlarge,A10G,1,on-demand,1.006,USD,2026-01-01T00:00:00Z
                aws,us-east-1,g5.xlarge,A10G,1,sometimes,1.006,USD,2026-01-01T00:00:00Z
                aws,us-east-1,g5.xlarge,A10G,1,spot,cheap,USD,2026-01-01T00:00:00Z
                aws,us-east-1,g5.xlarge,A10G,0,spot,0.3,USD,2026-01-01T00:00:00Z
                "aws","us-east-1","g4dn.xlarge","T4, 16 GB",1,spot,0.1578,USD,2026-01-01T00:00:00Z
                """;

        PriceCatalog catalog = PriceCatalog.parse(
                new ByteArrayInputStream(csv.getBytes(StandardCharsets.UTF_8)), "test.csv");

        assertThat(catalog.quotes()).extracting(PriceQuote::instanceType, PriceQuote::gpuModel)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("g5.xlarge", "A10G"),
                        org.assertj.core.groups.Tuple.tuple("g4dn.xlarge", "T4, 16 GB"));
        assertThat(catalog.errors()).containsExactly(
                "test.csv line 3: lifecycle: unknown lifecycle 'sometimes', expected one of on-demand, spot, reserved",
                "test.csv line 4: price_per_hour: is not a number: 'cheap'",
                "test.csv line 5: gpuCount: must be positive, was 0");
    }

    @Test
    void shouldRefuseACatalogWithoutTheColumnsItNeeds() {
        String csv = "provider,region\naws,us-east-1\n";

        assertThatThrownBy(() -> PriceCatalog.parse(
                new ByteArrayInputStream(csv.getBytes(StandardCharsets.UTF_8)), "short.csv"))
                .hasMessageContaining("short.csv: header lacks column(s) [instance_type, gpu_count, lifecycle");
    }
}
