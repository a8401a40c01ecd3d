package io.gpuledger.ingest.prom;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusTextTest {

    @Test
    void shouldReadNamesLabelsAndValuesSkippingComments() {
        PrometheusText.Scrape scrape = PrometheusText.parse("""
                # HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
                # TYPE DCGM_FI_DEV_GPU_UTIL gauge
                DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1",modelName="NVIDIA A100"} 87

                up 1 1712000000000
                """);

        assertThat(scrape.errors()).isEmpty();
        assertThat(scrape.samples()).hasSize(2);
        assertThat(scrape.family("DCGM_FI_DEV_GPU_UTIL").get(0).labels())
                .isEqualTo(Map.of("gpu", "0", "UUID", "GPU-1", "modelName", "NVIDIA A100"));
        assertThat(scrape.family("up").get(0).value()).isEqualTo(1.0);
    }

    @Test
    void shouldUnescapeLabelValuesAndReadSpecialValues() {
        PrometheusText.Scrape scrape = PrometheusText.parse(
                "m{a=\"say \\\"hi\\\"\",b=\"x\\\\y\",} NaN\nn +Inf\n");

        assertThat(scrape.samples().get(0).labels()).isEqualTo(Map.of("a", "say \"hi\"", "b", "x\\y"));
        assertThat(scrape.samples().get(0).value()).isNaN();
        assertThat(scrape.samples().get(1).value()).isInfinite();
    }

    @Test
    void shouldReportUnreadableLinesAndKeepTheRest() {
        PrometheusText.Scrape scrape = PrometheusText.parse("good 1\nbad{gpu=\"0\" 3\nworse abc\n{x=\"1\"} 2\n");

        assertThat(scrape.samples()).extracting(PrometheusText.Sample::name).containsExactly("good");
        assertThat(scrape.errors()).containsExactly(
                "line 2: malformed label at column 13",
                "line 3: value 'abc' is not a number",
                "line 4: no metric name in '{x=\"1\"} 2'");
    }
}
