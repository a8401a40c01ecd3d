package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.WorkloadClass;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What the GPUs and instance types can do, for comparing one place to run a job with another:
 * per GPU model its memory, memory bandwidth, dense FP16/BF16 tensor throughput and measured
 * throughput per class of work; per instance type of a provider its GPUs and the network between
 * its instances.
 *
 * <p>Only published figures are held. A model or type that is not in the catalog is unknown
 * ({@link Optional#empty()}), and a rule that needs it leaves that comparison out rather than
 * guess. Models and instance types are matched without regard to case, providers as written.
 */
public final class GpuCatalog {

    /** The shipped table of GPU models; its comments name the datasheets the figures come from. */
    public static final String GPU_MODELS_RESOURCE = "/io/gpuledger/alerts/gpu-models.csv";

    /** The shipped table of instance types; its comments name the provider pages. */
    public static final String INSTANCE_TYPES_RESOURCE = "/io/gpuledger/model/instance-types.csv";

    private static final double BYTES_PER_GIB = 1024.0 * 1024 * 1024;
    private static final double BYTES_PER_GB = 1e9;

    /**
     * One GPU model.
     *
     * @param model                         as the price catalog writes it ({@code A100-40GB})
     * @param memoryBytes                   nominal memory of one GPU
     * @param memoryBandwidthBytesPerSecond peak memory bandwidth of one GPU: the figure of memory-bound work
     * @param denseTensorTflops             peak dense FP16/BF16 tensor throughput: the fallback figure of
     *                                      compute-bound work
     * @param trainingImagesPerSecond       measured ResNet-50 training throughput in mixed precision: the
     *                                      figure of training; null where none is published
     * @param inferenceImagesPerSecond      measured ResNet-50 INT8 inference throughput: the figure of
     *                                      inference; null where none is published
     */
    public record GpuSpec(String model, double memoryBytes, double memoryBandwidthBytesPerSecond,
            double denseTensorTflops, Double trainingImagesPerSecond, Double inferenceImagesPerSecond) {

        public GpuSpec {
            requireText("model", model);
            requirePositive("memoryBytes", memoryBytes);
            requirePositive("memoryBandwidthBytesPerSecond", memoryBandwidthBytesPerSecond);
            requirePositive("denseTensorTflops", denseTensorTflops);
            if (trainingImagesPerSecond != null) {
                requirePositive("trainingImagesPerSecond", trainingImagesPerSecond);
            }
            if (inferenceImagesPerSecond != null) {
                requirePositive("inferenceImagesPerSecond", inferenceImagesPerSecond);
            }
        }

        /**
         * What ranks this GPU for a class of work; only its ratio to another GPU's figure of the same
         * class means anything. Empty where the class's figure is not published.
         */
        public Optional<Double> figure(WorkloadClass workloadClass) {
            return switch (workloadClass) {
                case TRAINING -> Optional.ofNullable(trainingImagesPerSecond);
                case INFERENCE -> Optional.ofNullable(inferenceImagesPerSecond);
                case MEMORY_BOUND -> Optional.of(memoryBandwidthBytesPerSecond);
            };
        }
    }

    /**
     * One instance type of one provider.
     *
     * @param gpuModel        the model of its GPUs, a key of the GPU table
     * @param gpusPerInstance how many GPUs one instance carries
     * @param networkGbps     network bandwidth between instances, Gbit/s; null where none is published
     */
    public record InstanceSpec(String provider, String instanceType, String gpuModel, int gpusPerInstance,
            Double networkGbps) {

        public InstanceSpec {
            requireText("provider", provider);
            requireText("instanceType", instanceType);
            requireText("gpuModel", gpuModel);
            if (gpusPerInstance < 1) {
                throw new IllegalArgumentException("gpusPerInstance must be at least 1, was " + gpusPerInstance);
            }
            if (networkGbps != null) {
                requirePositive("networkGbps", networkGbps);
            }
        }
    }

    private final Map<String, GpuSpec> gpus;
    private final Map<String, InstanceSpec> instances;

    private GpuCatalog(Map<String, GpuSpec> gpus, Map<String, InstanceSpec> instances) {
        this.gpus = Map.copyOf(gpus);
        this.instances = Map.copyOf(instances);
    }

    public static GpuCatalog of(Collection<GpuSpec> gpuSpecs, Collection<InstanceSpec> instanceSpecs) {
        Map<String, GpuSpec> gpus = new HashMap<>();
        gpuSpecs.forEach(spec -> gpus.put(modelKey(spec.model()), spec));
        Map<String, InstanceSpec> instances = new HashMap<>();
        instanceSpecs.forEach(spec -> instances.put(typeKey(spec.provider(), spec.instanceType()), spec));
        return new GpuCatalog(gpus, instances);
    }

    /** The tables shipped with GPU Ledger. */
    public static GpuCatalog defaults() {
        return parse(resource(GPU_MODELS_RESOURCE), GPU_MODELS_RESOURCE, resource(INSTANCE_TYPES_RESOURCE),
                INSTANCE_TYPES_RESOURCE);
    }

    /**
     * Reads a GPU table ({@code gpu_model,memory_gib,memory_bandwidth_gb_per_s,dense_fp16_tflops,
     * training_fp16_images_per_s,inference_int8_images_per_s}, the last two cells blank where
     * unknown) and an instance table ({@code provider,instance_type,gpu_model,gpus_per_instance,
     * network_gbps}, the last cell blank where unknown). Lines starting with {@code #} are comments;
     * the first other line is the header.
     *
     * @throws IllegalArgumentException naming the origin and line of the first bad row: a catalog
     *                                  is configuration, and a wrong figure must not pass silently
     */
    public static GpuCatalog parse(String gpuCsv, String gpuOrigin, String instanceCsv, String instanceOrigin) {
        List<GpuSpec> gpuSpecs = new ArrayList<>();
        for (Row row : rows(gpuCsv, gpuOrigin, List.of("gpu_model", "memory_gib", "memory_bandwidth_gb_per_s",
                "dense_fp16_tflops", "training_fp16_images_per_s", "inference_int8_images_per_s"))) {
            gpuSpecs.add(row.read(() -> new GpuSpec(row.text("gpu_model"), row.number("memory_gib") * BYTES_PER_GIB,
                    row.number("memory_bandwidth_gb_per_s") * BYTES_PER_GB, row.number("dense_fp16_tflops"),
                    row.optionalNumber("training_fp16_images_per_s"),
                    row.optionalNumber("inference_int8_images_per_s"))));
        }
        List<InstanceSpec> instanceSpecs = new ArrayList<>();
        for (Row row : rows(instanceCsv, instanceOrigin, List.of("provider", "instance_type", "gpu_model",
                "gpus_per_instance", "network_gbps"))) {
            instanceSpecs.add(row.read(() -> new InstanceSpec(row.text("provider"), row.text("instance_type"),
                    row.text("gpu_model"), (int) row.wholeNumber("gpus_per_instance"),
                    row.optionalNumber("network_gbps"))));
        }
        return of(gpuSpecs, instanceSpecs);
    }

    public Optional<GpuSpec> gpu(String model) {
        return model == null ? Optional.empty() : Optional.ofNullable(gpus.get(modelKey(model)));
    }

    public Optional<InstanceSpec> instance(String provider, String instanceType) {
        if (provider == null || instanceType == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(instances.get(typeKey(provider, instanceType)));
    }

    public Optional<InstanceSpec> instance(Offer offer) {
        return instance(offer.provider(), offer.instanceType());
    }

    /**
     * The GPU model a quote buys: the one the quote names, else the one of its instance type.
     * Empty when neither says.
     */
    public Optional<String> modelOf(PriceQuote quote) {
        if (quote.gpuModel() != null && !quote.gpuModel().isBlank()) {
            return Optional.of(quote.gpuModel());
        }
        return instance(quote.provider(), quote.instanceType()).map(InstanceSpec::gpuModel);
    }

    /** The specs of the GPUs a quote buys, when the catalog knows the model. */
    public Optional<GpuSpec> gpuOf(PriceQuote quote) {
        return modelOf(quote).flatMap(this::gpu);
    }

    /** GPUs of one instance of the offer's type: the catalog's count, else its price's; empty when neither says. */
    public Optional<Integer> gpusPerInstance(Offer offer, PriceBoard board) {
        return instance(offer).map(InstanceSpec::gpusPerInstance)
                .or(() -> board.price(offer).map(PriceQuote::gpuCount));
    }

    /** The network between instances of an offer's type, when it is published. */
    public Optional<Double> networkGbps(Offer offer) {
        return instance(offer).map(InstanceSpec::networkGbps);
    }

    private static String modelKey(String model) {
        return model.toLowerCase(Locale.ROOT);
    }

    private static String typeKey(String provider, String instanceType) {
        return provider + "|" + instanceType.toLowerCase(Locale.ROOT);
    }

    private static String resource(String name) {
        try (InputStream in = GpuCatalog.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("catalog resource " + name + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Row> rows(String csv, String origin, List<String> columns) {
        List<Row> rows = new ArrayList<>();
        Map<String, Integer> header = null;
        String[] lines = csv.split("\\R", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] cells = line.split(",", -1);
            if (header == null) {
                header = new HashMap<>();
                for (int c = 0; c < cells.length; c++) {
                    header.put(cells[c].strip(), c);
                }
                for (String column : columns) {
                    if (!header.containsKey(column)) {
                        throw new IllegalArgumentException(origin + ": header lacks column " + column);
                    }
                }
                continue;
            }
            rows.add(new Row(origin, i + 1, header, cells));
        }
        return rows;
    }

    /** One data line of a table, read by column name; every failure names the line. */
    private record Row(String origin, int number, Map<String, Integer> header, String[] cells) {

        <T> T read(Supplier<T> reader) {
            try {
                return reader.get();
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(origin + " line " + number + ": " + e.getMessage(), e);
            }
        }

        String text(String column) {
            int index = header.get(column);
            String cell = index < cells.length ? cells[index].strip() : "";
            if (cell.isEmpty()) {
                throw new IllegalArgumentException(column + " is required");
            }
            return cell;
        }

        double number(String column) {
            try {
                return Double.parseDouble(text(column));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(column + " is not a number: '" + text(column) + "'");
            }
        }

        long wholeNumber(String column) {
            double value = number(column);
            if (value != Math.rint(value)) {
                throw new IllegalArgumentException(column + " is not a whole number: " + value);
            }
            return (long) value;
        }

        Double optionalNumber(String column) {
            int index = header.get(column);
            boolean blank = index >= cells.length || cells[index].isBlank();
            return blank ? null : number(column);
        }
    }

    private static void requireText(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " is required");
        }
    }

    private static void requirePositive(String field, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(field + " must be a positive number, was " + value);
        }
    }
}
