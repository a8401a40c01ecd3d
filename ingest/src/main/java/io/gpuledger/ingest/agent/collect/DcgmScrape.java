package io.gpuledger.ingest.agent.collect;

import io.gpuledger.ingest.prom.PrometheusText;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a dcgm-exporter scrape into GPU readings. dcgm-exporter's upper-case field names and
 * camel-case labels are an input format: they are normalised here and go no further.
 *
 * <ul>
 *   <li>One reading per GPU ({@code UUID} label), or per MIG instance ({@code UUID} plus
 *       {@code GPU_I_ID}; its UUID becomes {@code <GPU UUID>/mig/<GPU_I_ID>} and its
 *       {@code gpuFraction} the slice's share from {@code GPU_I_PROFILE}).</li>
 *   <li>Both host label spellings ({@code Hostname}, {@code hostname}).</li>
 *   <li>Field names of every dcgm-exporter generation, old and renamed ({@link #FIELDS}).</li>
 *   <li>DCGM blank sentinels, NaN and out-of-range values are left out, never reported as readings.</li>
 *   <li>Job and team come from Kubernetes labels named in allow-lists, first present wins; no
 *       other label is read, so no free-form label reaches a topic.</li>
 * </ul>
 */
public final class DcgmScrape {

    /** What a dcgm field means for GPU Ledger, and how to scale its value into our unit. */
    enum Field {
        SM_ACTIVE(1), SM_OCCUPANCY(1), DRAM_ACTIVE(1), TENSOR_ACTIVE(1), GPU_UTIL(0.01), POWER_WATTS(1),
        FB_USED_BYTES(1024 * 1024), NVLINK_TX(1), PCIE_TX(1);

        private final double scale;

        Field(double scale) {
            this.scale = scale;
        }
    }

    /** dcgm-exporter metric names, including the renamed ones of newer releases. */
    static final Map<String, Field> FIELDS = Map.ofEntries(
            Map.entry("DCGM_FI_PROF_SM_ACTIVE", Field.SM_ACTIVE),
            Map.entry("DCGM_FI_PROF_SM_OCCUPANCY", Field.SM_OCCUPANCY),
            Map.entry("DCGM_FI_PROF_DRAM_ACTIVE", Field.DRAM_ACTIVE),
            Map.entry("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", Field.TENSOR_ACTIVE),
            Map.entry("DCGM_FI_DEV_GPU_UTIL", Field.GPU_UTIL),
            Map.entry("DCGM_FI_DEV_POWER_USAGE", Field.POWER_WATTS),
            Map.entry("DCGM_FI_DEV_FB_USED", Field.FB_USED_BYTES),
            Map.entry("DCGM_FI_PROF_NVLINK_TX_BYTES", Field.NVLINK_TX),
            Map.entry("DCGM_FI_PROF_PCIE_TX_BYTES", Field.PCIE_TX));

    private static final Pattern SLICES = Pattern.compile("(\\d+)g\\.");

    /** Readings, and why values were left out ("field of GPU: why"). */
    public record Result(List<GpuReading> readings, List<String> errors) {
    }

    private final List<String> jobLabels;
    private final List<String> teamLabels;

    public DcgmScrape(List<String> jobLabels, List<String> teamLabels) {
        this.jobLabels = List.copyOf(jobLabels);
        this.teamLabels = List.copyOf(teamLabels);
    }

    public Result read(String scrapeText) {
        PrometheusText.Scrape scrape = PrometheusText.parse(scrapeText);
        List<String> errors = new ArrayList<>(scrape.errors());
        Map<String, Builder> byGpu = new LinkedHashMap<>();
        for (PrometheusText.Sample sample : scrape.samples()) {
            Field field = FIELDS.get(sample.name());
            String gpuUuid = sample.label("UUID");
            if (field == null || gpuUuid == null || gpuUuid.isBlank()) {
                continue;
            }
            String migInstance = sample.label("GPU_I_ID");
            String key = migInstance == null || migInstance.isBlank() ? gpuUuid : gpuUuid + "/mig/" + migInstance;
            Builder gpu = byGpu.computeIfAbsent(key, k -> new Builder(k, sample));
            double value = sample.value();
            if (DcgmBlank.isBlank(value)) {
                errors.add(sample.name() + " of " + key + ": DCGM blank value " + value + ", left out");
                continue;
            }
            double scaled = value * field.scale;
            if (scaled < 0 || (isRatio(field) && scaled > 1.0 + 1e-9)) {
                errors.add(sample.name() + " of " + key + ": " + value + " is out of range, left out");
                continue;
            }
            gpu.values.put(field, isRatio(field) ? Math.min(1, scaled) : scaled);
        }
        List<GpuReading> readings = byGpu.values().stream().map(this::reading).toList();
        return new Result(readings, errors);
    }

    private static boolean isRatio(Field field) {
        return switch (field) {
            case SM_ACTIVE, SM_OCCUPANCY, DRAM_ACTIVE, TENSOR_ACTIVE -> true;
            default -> false;
        };
    }

    private GpuReading reading(Builder gpu) {
        Map<String, String> labels = gpu.labels;
        String profile = labels.get("GPU_I_PROFILE");
        Double gpuUtil = gpu.values.get(Field.GPU_UTIL);
        return new GpuReading(
                gpu.key,
                index(labels.get("gpu")),
                labels.get("modelName"),
                gpu.values.get(Field.SM_ACTIVE),
                gpu.values.get(Field.SM_OCCUPANCY),
                gpu.values.get(Field.DRAM_ACTIVE),
                gpu.values.get(Field.TENSOR_ACTIVE),
                gpuUtil == null ? null : Math.min(1, gpuUtil),
                gpu.values.get(Field.POWER_WATTS),
                gpu.values.get(Field.FB_USED_BYTES),
                gpu.values.get(Field.NVLINK_TX),
                gpu.values.get(Field.PCIE_TX),
                profile == null || profile.isBlank() ? null : profile,
                profile == null || profile.isBlank() ? null : sliceShare(profile, labels.get("modelName")),
                firstLabel(labels, jobLabels),
                firstLabel(labels, teamLabels),
                labels.getOrDefault("Hostname", labels.get("hostname")));
    }

    /**
     * The share of a GPU a MIG profile takes: {@code 3g.40gb} is 3 of the 7 compute slices of an
     * A100 or H100 (4 on an A30). Unknown profile shapes count as a whole GPU rather than zero.
     */
    static Double sliceShare(String profile, String model) {
        Matcher matcher = SLICES.matcher(profile);
        if (!matcher.find()) {
            return 1.0;
        }
        int slices = model != null && model.toUpperCase(Locale.ROOT).contains("A30") ? 4 : 7;
        return Math.min(1.0, Integer.parseInt(matcher.group(1)) / (double) slices);
    }

    private static Integer index(String gpu) {
        try {
            return gpu == null ? null : Integer.valueOf(gpu.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String firstLabel(Map<String, String> labels, List<String> allowed) {
        for (String name : allowed) {
            String value = labels.get(name);
            if (value != null && !value.isBlank()) {
                return value;
            }
        }
        return null;
    }

    private static final class Builder {
        private final String key;
        private final Map<String, String> labels;
        private final Map<Field, Double> values = new EnumMap<>(Field.class);

        private Builder(String key, PrometheusText.Sample first) {
            this.key = key;
            this.labels = first.labels();
        }
    }
}
