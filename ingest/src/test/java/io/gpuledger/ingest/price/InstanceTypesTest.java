package io.gpuledger.ingest.price;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class InstanceTypesTest {

    @Test
    void shouldKnowTheGpusOfTheShippedCatalogAndTableTypesWhateverTheirCase() {
        // Given the shipped table and catalog
        InstanceTypes types = InstanceTypes.defaults();

        // When types named by the price feeds are looked up
        // Then their GPUs are known, however the provider capitalises the name
        assertThat(types.errors()).isEmpty();
        assertThat(types.find("aws", "p4d.24xlarge")).contains(new InstanceTypes.Gpus("A100-40GB", 8));
        assertThat(types.find("tencent", "GN10Xp")).contains(new InstanceTypes.Gpus("A100-80GB", 1));
        assertThat(types.find("azure", "standard_nc24ads_a100_v4")).contains(new InstanceTypes.Gpus("A100-80GB", 1));
        assertThat(types.find("aws", "m5.large")).isEmpty();
        assertThat(types.find("azure", "p4d.24xlarge")).isEmpty();
    }

    @Test
    void shouldLetALaterTableOverrideAndReportItsBadRowsByLine() {
        // Given a table of one's own with a correction and two broken rows
        InstanceTypes own = InstanceTypes.parse("""
                provider,instance_type,gpu_model,gpu_count
                aws,g5.xlarge,A10G,1
                aws,g5.2xlarge,A10G,half
                aws,g5.4xlarge,A10G,1.5
                aws,p4d.24xlarge,A100-SXM4-40GB,8
                """, "mine.csv");

        // When it is laid over the shipped one
        InstanceTypes types = InstanceTypes.defaults().with(own);

        // Then its rows win and its bad rows are named
        assertThat(types.find("aws", "p4d.24xlarge")).contains(new InstanceTypes.Gpus("A100-SXM4-40GB", 8));
        assertThat(types.errors()).containsExactly(
                "mine.csv line 3: gpu_count: is not a number: 'half'",
                "mine.csv line 4: gpu_count: must be a whole number of GPUs, was '1.5'");
    }

    @Test
    void shouldRefuseATableWithoutItsColumns() {
        assertThatThrownBy(() -> InstanceTypes.parse("provider,type\naws,g5.xlarge\n", "short.csv"))
                .hasMessage("short.csv: header lacks column(s)"
                        + " [instance_type, gpu_model, gpus_per_instance or gpu_count]");
    }
}
