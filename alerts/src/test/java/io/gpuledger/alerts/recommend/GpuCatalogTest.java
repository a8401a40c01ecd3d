package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.WorkloadClass;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class GpuCatalogTest {

    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final GpuCatalog CATALOG = GpuCatalog.defaults();

    @ParameterizedTest(name = "{0}: {1} GiB, {2} GB/s, {3} TFLOPS")
    @CsvSource({
            // model,        GiB, GB/s,   dense FP16 TFLOPS (datasheet; sparse figures halved)
            "A100-40GB,      40,  1555,   312",
            "A100-80GB,      80,  2039,   312",
            "H100-80GB,      80,  3350,   989.5",
            "H200-141GB,     141, 4800,   989.5",
            "T4-16GB,        16,  320,    65",
            "a10g-24gb,      24,  600,    70",
            "L4-24GB,        24,  300,    121",
            "V100-16GB,      16,  900,    125",
            "MI250X-128GB,   128, 3276.8, 383"})
    void shouldGiveTheDatasheetFiguresOfAModel(String model, double gib, double gbPerSecond, double tflops) {
        // Given the shipped catalog; When a model is looked up (case does not matter)
        GpuCatalog.GpuSpec spec = CATALOG.gpu(model).orElseThrow();

        // Then its figures are the datasheet's, in bytes and bytes per second
        assertThat(spec.memoryBytes()).isCloseTo(gib * GIB, within(1.0));
        assertThat(spec.memoryBandwidthBytesPerSecond()).isCloseTo(gbPerSecond * 1e9, within(1.0));
        assertThat(spec.denseTensorTflops()).isCloseTo(tflops, within(1e-9));
    }

    @ParameterizedTest(name = "{0} / {1} for {2}: {3}")
    @CsvSource({
            // candidate, current, class, ratio of their figures (blank: not published for both)
            // ResNet-50 INT8 (MLPerf Inference; V100 from the T4 by 2,800 / 3,900): 6112 / 4388
            "T4-16GB,    V100-16GB, INFERENCE,    1.392890",
            // ResNet-50 mixed-precision training (MLPerf Training v3.0 / v2.0): 7006 / 3398
            "H100-80GB,  A100-40GB, TRAINING,     2.061801",
            "H100-80GB,  A100-80GB, INFERENCE,    2.240925",
            "A10G-24GB,  L4-24GB,   MEMORY_BOUND, 2.0",
            "T4-16GB,    V100-16GB, TRAINING,",
            "MI250X-128GB, H100-80GB, INFERENCE,"})
    void shouldRankGpusByTheFigureOfEachClassOfWork(String candidate, String current, WorkloadClass workloadClass,
            Double expectedRatio) {
        // Given the shipped catalog; When two models' figures of a class are set against each other
        Optional<Double> a = CATALOG.gpu(candidate).orElseThrow().figure(workloadClass);
        Optional<Double> b = CATALOG.gpu(current).orElseThrow().figure(workloadClass);

        // Then their ratio is that of the published measurements (90930 / 40577 = 2.240925 for inference),
        // or there is none where one of them is not published
        if (expectedRatio == null) {
            assertThat(a.isPresent() && b.isPresent()).isFalse();
        } else {
            assertThat(a.orElseThrow() / b.orElseThrow()).isCloseTo(expectedRatio, within(1e-6));
        }
    }

    @ParameterizedTest(name = "{0} {1}: {3} x {2}, {4} Gbit/s")
    @CsvSource({
            "aws,         p4d.24xlarge,  A100-40GB, 8, 400",
            "aws,         p5.48xlarge,   H100-80GB, 8, 3200",
            "aws,         g4dn.xlarge,   T4-16GB,   1, 25",
            "aws,         G5.XLARGE,     A10G-24GB, 1, 10",
            "tencent,     GN10Xp,        A100-80GB, 1, 100",
            "volcengine,  veGPU,         A100-40GB, 1, 25",
            "huaweicloud, GCS.AI.8,      A100-40GB, 1, 100"})
    void shouldGiveTheGpusAndNetworkOfAnInstanceType(String provider, String type, String model, int gpus,
            double gbps) {
        // Given the shipped catalog; When an instance type is looked up
        GpuCatalog.InstanceSpec spec = CATALOG.instance(provider, type).orElseThrow();

        // Then it names its GPUs and the network between its instances
        assertThat(spec.gpuModel()).isEqualTo(model);
        assertThat(spec.gpusPerInstance()).isEqualTo(gpus);
        assertThat(spec.networkGbps()).isCloseTo(gbps, within(1e-9));
    }

    @Test
    void shouldSayUnknownRatherThanMakeUpAFigure() {
        // Given the shipped catalog; When unknown names or unpublished figures are asked for
        // Then they are empty
        assertThat(CATALOG.gpu("B200-192GB")).isEmpty();
        assertThat(CATALOG.gpu(null)).isEmpty();
        assertThat(CATALOG.instance("aws", "p6.48xlarge")).isEmpty();
        assertThat(CATALOG.instance("gcp", "p4d.24xlarge")).isEmpty();
        assertThat(CATALOG.networkGbps(new Offer("azure", "eastus", "Standard_NC6s_v3", Lifecycle.ON_DEMAND)))
                .isEmpty();
    }

    static Stream<Arguments> catalogNames() throws IOException {
        List<Arguments> names = new ArrayList<>();
        for (String line : resource("/io/gpuledger/ingest/price/default-catalog.csv")) {
            String[] cells = line.split(",");
            names.add(Arguments.of(cells[0], cells[2], cells[3]));
        }
        return names.stream().distinct();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("catalogNames")
    void shouldKnowEveryInstanceTypeAndModelThePriceCatalogNames(String provider, String type, String model) {
        // Given a row of the ingest price catalog
        // When the GPU catalog is asked about its type and model
        // Then both are known, and agree with the price catalog
        assertThat(CATALOG.instance(provider, type)).get()
                .extracting(GpuCatalog.InstanceSpec::gpuModel).isEqualTo(model);
        assertThat(CATALOG.gpu(model)).isPresent();
    }

    @Test
    void shouldTakeTheModelOfAQuoteFromItsInstanceTypeWhenTheQuoteNamesNone() {
        // Given a spot quote that names no model
        PriceQuote quote = new PriceQuote("aws", "us-east-1", "p5.48xlarge", Lifecycle.SPOT, null, 8, 29.496, "USD",
                Instant.parse("2026-01-01T00:00:00Z"), "aws-spot");

        // Then its GPUs are those of its instance type
        assertThat(CATALOG.modelOf(quote)).contains("H100-80GB");
        assertThat(CATALOG.gpuOf(quote)).get().extracting(GpuCatalog.GpuSpec::denseTensorTflops).isEqualTo(989.5);
    }

    @Test
    void shouldRefuseATableWithABadRowNamingItsLine() {
        // Given a GPU table whose second data row has no bandwidth
        String gpus = "# comment\ngpu_model,memory_gib,memory_bandwidth_gb_per_s,dense_fp16_tflops,"
                + "training_fp16_images_per_s,inference_int8_images_per_s\n"
                + "X-1GB,1,100,10,,\nX-2GB,2,,20,,\n";
        String instances = "provider,instance_type,gpu_model,gpus_per_instance,network_gbps\n";

        // Then reading it fails on line 4, naming the column
        assertThatThrownBy(() -> GpuCatalog.parse(gpus, "gpus.csv", instances, "instances.csv"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gpus.csv line 4")
                .hasMessageContaining("memory_bandwidth_gb_per_s");
    }

    private static List<String> resource(String name) throws IOException {
        try (InputStream in = GpuCatalogTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(line -> !line.isBlank() && !line.startsWith("#") && !line.startsWith("provider,"))
                    .toList();
        }
    }
}
